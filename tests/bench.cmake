# tests for bench/

# The analytic model: hand-counted lines, and its block counts against what
# every layout placed.
add_executable(test_bench_model test_bench_model.c)
target_link_libraries(test_bench_model PRIVATE mdb_bench mdb_harness mdb_layouts)
add_test(NAME bench_model COMMAND test_bench_model)

# Footprint: ops->footprint() against the mix's blocks counted independently,
# and the footprint benchmark's counters in mdbench's JSON against it.
add_executable(test_bench_footprint test_bench_footprint.c)
target_link_libraries(test_bench_footprint PRIVATE mdb_bench mdb_harness mdb_layouts)
add_test(NAME bench_footprint COMMAND test_bench_footprint)
add_test(NAME bench_footprint_counters COMMAND /usr/bin/python3
	${CMAKE_CURRENT_SOURCE_DIR}/test_bench_footprint.py $<TARGET_FILE:mdbench>
	$<TARGET_FILE:test_bench_footprint>)

# Every kernel of every layout through mdb_run_fixed(), Asan build included.
add_test(NAME bench_fixed_runs COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_bench_fixed.sh
	$<TARGET_FILE:mdbench>)

# --simulate under valgrind: simulated misses against the model, sim.json's
# fields, an interrupted run.  Skipped (77) in the Asan build.
foreach(mode model json sigint)
	add_test(NAME bench_sim_${mode} COMMAND /usr/bin/python3
		${CMAKE_CURRENT_SOURCE_DIR}/test_bench_sim.py $<TARGET_FILE:mdbench>
		"${CMAKE_BUILD_TYPE}" ${mode})
endforeach()
set_tests_properties(bench_sim_model bench_sim_json bench_sim_sigint PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
set_tests_properties(bench_fixed_runs bench_footprint_counters PROPERTIES TIMEOUT 300)
