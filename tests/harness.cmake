# tests for harness/
