# tests for harness/

# Unit tests of the shim and the counters, against mdb_harness alone.
add_executable(test_harness_shim test_harness_shim.c)
target_link_libraries(test_harness_shim PRIVATE mdb_harness)
add_test(NAME harness_shim_fixed COMMAND test_harness_shim)

add_executable(test_harness_counters test_harness_counters.c)
target_link_libraries(test_harness_counters PRIVATE mdb_harness)
add_test(NAME harness_counters COMMAND test_harness_counters)

