# tests for bench/
