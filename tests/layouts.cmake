# tests for layouts/
