# tests for harness/

# Unit tests of the shim and the counters, against mdb_harness alone.
add_executable(test_harness_shim test_harness_shim.c)
target_link_libraries(test_harness_shim PRIVATE mdb_harness)
add_test(NAME harness_shim_fixed COMMAND test_harness_shim)

# Encodings, refusals and this machine's counters; then model-specific
# events under two PMUs forced on libpfm (no PMU needed).
add_executable(test_harness_counters harness/test_harness_counters.c)
target_link_libraries(test_harness_counters PRIVATE mdb_harness)
add_test(NAME harness_counters COMMAND test_harness_counters)
add_test(NAME harness_counters_forced_skl COMMAND test_harness_counters skl)
add_test(NAME harness_counters_forced_zen3 COMMAND test_harness_counters amd64_fam19h_zen3)
# scripts/setup against fake distributions and package managers (lives here
# beside the counters, whose owner also owns setup).
add_test(NAME scripts_setup COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/setup/test_setup.sh
	${PROJECT_SOURCE_DIR}/scripts/setup)

# mdbench_test: the mdbench driver plus the test/ kernels of test_harness_kernels.c.
add_executable(mdbench_test $<TARGET_OBJECTS:mdb_driver> test_harness_kernels.c)
target_include_directories(mdbench_test PRIVATE ${PROJECT_SOURCE_DIR}/bench
	${PROJECT_SOURCE_DIR}/layouts ${PROJECT_SOURCE_DIR}/harness)
target_link_libraries(mdbench_test PRIVATE mdb_harness mdb_bench mdb_layouts)

set(_h ${CMAKE_CURRENT_SOURCE_DIR})
set(_py /usr/bin/python3)
add_test(NAME harness_cli_errors COMMAND sh ${_h}/test_harness_cli.sh $<TARGET_FILE:mdbench> ${_h}/fixtures/harness)
add_test(NAME harness_list COMMAND sh ${_h}/test_harness_list.sh $<TARGET_FILE:mdbench_test>)
add_test(NAME harness_dump COMMAND sh ${_h}/test_harness_dump.sh $<TARGET_FILE:mdbench_test> ${_py})
add_test(NAME harness_sigint COMMAND sh ${_h}/test_harness_sigint.sh $<TARGET_FILE:mdbench_test> ${_py})
add_test(NAME harness_kernel_error COMMAND sh ${_h}/test_harness_error.sh $<TARGET_FILE:mdbench_test> ${_py})
add_test(NAME harness_real_run COMMAND sh ${_h}/test_harness_real.sh $<TARGET_FILE:mdbench> ${_py})
set_tests_properties(harness_cli_errors harness_list harness_dump harness_sigint
	harness_kernel_error harness_real_run PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
