$SHELLPACK_TOPLEVEL/shellpack_src/src/refresh.sh memdescbench

# MEMDESCBENCH_OPTIONS reaches the bench through the environment.
run_bench() {
	VERSION_PARAM=
	if [ "$MEMDESCBENCH_VERSION" != "" ]; then
		VERSION_PARAM="-v $MEMDESCBENCH_VERSION"
	fi
	BASE_PAGE_PARAM=
	if [ "$MEMDESCBENCH_BASE_PAGE" != "" ]; then
		BASE_PAGE_PARAM="--base-page $MEMDESCBENCH_BASE_PAGE"
	fi
	$SHELLPACK_INCLUDE/shellpack-bench-memdescbench $VERSION_PARAM $BASE_PAGE_PARAM \
		--profile ${MEMDESCBENCH_PROFILE:-quick}			\
		--rounds ${MEMDESCBENCH_ROUNDS:-5}
	return $?
}
