# tests for scripts/: plot, compare, collect, run and the plot checker CI uses.
# Python tests are unittest classes, one CTest test each; 77 means skipped
# (python3-matplotlib missing).

set(_s ${CMAKE_CURRENT_SOURCE_DIR})
find_program(MDB_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(MDB_PYTHON3 python3)

# name -> file:class
set(_scripts_py_tests
	scripts_plot_one		plot:PlotOne
	scripts_plot_two_machines	plot:PlotTwoMachines
	scripts_plot_repetitions	plot:PlotReps
	scripts_plot_simulation		plot:PlotSim
	scripts_check_plots		plot:CheckPlots
	scripts_compare_dumps		compare:CompareDumps
	scripts_compare_layouts		compare:CompareLayouts
	scripts_collect_dry_run		collect:CollectDryRun
	scripts_collect_bundle		collect:CollectBundle
	scripts_collect_interrupt	collect:CollectInterrupt
)
set(_scripts_tests)
while(_scripts_py_tests)
	list(POP_FRONT _scripts_py_tests _name _what)
	string(REPLACE ":" ";" _what "${_what}")
	list(GET _what 0 _file)
	list(GET _what 1 _class)
	add_test(NAME ${_name} COMMAND ${MDB_PYTHON3} ${_s}/test_scripts_${_file}.py ${_class})
	list(APPEND _scripts_tests ${_name})
endwhile()

foreach(_prog plot compare collect run)
	add_test(NAME scripts_bad_input_${_prog} COMMAND sh ${_s}/test_scripts_bad_input.sh ${_prog})
	list(APPEND _scripts_tests scripts_bad_input_${_prog})
endforeach()

# The scripts on what the real mdbench writes.
add_test(NAME scripts_real_dump COMMAND sh ${_s}/test_scripts_real.sh $<TARGET_FILE:mdbench> ${MDB_PYTHON3})
list(APPEND _scripts_tests scripts_real_dump)

set_tests_properties(${_scripts_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS scripts)
