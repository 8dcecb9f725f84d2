# Sourced by the integration tests: vendored_tarball VAR NAME prints the
# path of a vendored snapshot, $VAR when set, else ../shared/vendor/NAME
# beside the checkout; without it the test is skipped (exit 77), saying why.
# need_cmd CMD PACKAGE skips the same way when a command is missing.
top=$(cd "$(dirname "$0")/../.." && pwd)
vendored_tarball() {
	eval "t=\${$1:-}"
	[ -n "$t" ] || t="$top/../shared/vendor/$2"
	if [ ! -f "$t" ]; then
		echo "skipped: $t not found (set $1 to the $2 snapshot)"
		exit 77
	fi
	echo "$t"
}
need_cmd() {
	command -v "$1" >/dev/null 2>&1 || {
		echo "skipped: no $1 (scripts/setup --integration installs $2)"
		exit 77
	}
}
need_perl() {
	perl -M"$1" -e1 2>/dev/null || {
		echo "skipped: no perl module $1 (scripts/setup --integration installs $2)"
		exit 77
	}
}
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
