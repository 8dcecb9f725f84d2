# tests for layouts/

# One binary per layout, through its inline API and its ops table.
foreach(layout IN LISTS MDB_LAYOUTS)
	add_executable(test_layout_${layout} test_layout.c)
	target_compile_definitions(test_layout_${layout} PRIVATE MDB_LAYOUT=${layout})
	target_link_libraries(test_layout_${layout} PRIVATE mdb_layouts)
	add_test(NAME layout_${layout} COMMAND test_layout_${layout})
endforeach()

# The three layouts in one binary, through the ops tables only.
add_executable(test_differential test_differential.c)
target_link_libraries(test_differential PRIVATE mdb_layouts)
add_test(NAME layout_differential COMMAND test_differential)

add_executable(test_layout_memlimit test_layout_memlimit.c)
target_link_libraries(test_layout_memlimit PRIVATE mdb_layouts)
add_test(NAME layout_memlimit COMMAND test_layout_memlimit)

# page64 against the running kernel's BTF; skipped without BTF or pahole.
add_executable(test_btf test_btf.c)
target_compile_definitions(test_btf PRIVATE MDB_LAYOUT=page64)
target_link_libraries(test_btf PRIVATE mdb_layouts)
add_test(NAME layout_btf COMMAND test_btf)

set_tests_properties(layout_memlimit layout_btf PROPERTIES SKIP_RETURN_CODE 77)

# mix (layouts/mix.c, layouts/json.c): one test per subcommand of test_mix.
add_executable(test_mix test_mix.c)
target_link_libraries(test_mix PRIVATE mdb_core)
foreach(t kinds builtins validate roundtrip bad_files resolve plan kpageflags
	  kpageflags_unreadable kpageflags_real)
	add_test(NAME mix_${t} COMMAND test_mix ${t} ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/mix
		 ${PROJECT_SOURCE_DIR}/results/mixes)
	set_tests_properties(mix_${t} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
