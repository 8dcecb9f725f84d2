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
