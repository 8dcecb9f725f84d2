# tests for scripts/
