#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_setup.sh SETUP - scripts/setup against a fake os-release per family
# and fake apt-get, dnf, zypper, dpkg-query, rpm, sudo, id and uname on PATH
# that record what they were asked to do.  Checks the exact commands setup
# runs for Debian, Ubuntu, Fedora, RHEL-likes and openSUSE, that it installs
# only what is missing and uses sudo only when not root, and the one-line
# refusals (an unknown distribution, RHEL without EPEL, --kmod where it
# cannot be had).  Hermetic: a temp dir, nothing installed, no network.
. "$(dirname "$0")/../../lib.sh"
setup=$1
unset DEBIAN_FRONTEND		# the caller's would hide whether setup passes it on
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

check() {	# NAME WANT GOT
	[ "$2" = "$3" ] || fail "$1
  want: $2
  got:  $3"
}

# ---- the fakes --------------------------------------------------------
bin=$tmp/bin
mkdir "$bin"
for tool in apt-get dnf zypper; do
	cat >"$bin/$tool" <<EOT
#!/bin/sh
echo "$tool \$*\${DEBIAN_FRONTEND:+ [DEBIAN_FRONTEND=\$DEBIAN_FRONTEND]}" >>"\$FAKE_LOG"
EOT
done
cat >"$bin/sudo" <<'EOT'
#!/bin/sh
echo "sudo $*" >>"$FAKE_LOG"
exec "$@"
EOT
# dpkg-query -W -f='${Status}' NAME and rpm -q NAME answer from $FAKE_INSTALLED.
cat >"$bin/dpkg-query" <<'EOT'
#!/bin/sh
for last; do :; done
case " $FAKE_INSTALLED " in
*" $last "*) printf 'install ok installed' ;;
*) echo "dpkg-query: no packages found matching $last" >&2; exit 1 ;;
esac
EOT
cat >"$bin/rpm" <<'EOT'
#!/bin/sh
[ "$1" = -q ] || { echo "fake rpm: $*" >&2; exit 3; }
case " $FAKE_INSTALLED " in
*" $2 "*) echo "$2-1.0-1.x86_64" ;;
*) echo "package $2 is not installed"; exit 1 ;;
esac
EOT
cat >"$bin/id" <<'EOT'
#!/bin/sh
[ "$1" = -u ] && echo "$FAKE_UID"
EOT
# dpkg --print-foreign-architectures answers $FAKE_FOREIGN; the rest is logged.
cat >"$bin/dpkg" <<'EOT'
#!/bin/sh
[ "$1" = --print-foreign-architectures ] && { [ -z "$FAKE_FOREIGN" ] || echo "$FAKE_FOREIGN"; exit 0; }
echo "dpkg $*" >>"$FAKE_LOG"
EOT
cat >"$bin/uname" <<'EOT'
#!/bin/sh
[ "$1" = -m ] && echo "$FAKE_ARCH"
EOT
chmod +x "$bin"/*

# os-release files as the distributions ship them (the lines setup reads).
osr() {	# NAME, then its lines
	name=$1
	shift
	printf '%s\n' "$@" >"$tmp/$name"
}
osr debian 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"' 'NAME="Debian GNU/Linux"' 'VERSION_ID="12"' 'ID=debian'
osr ubuntu 'NAME="Ubuntu"' 'VERSION_ID="24.04"' 'ID=ubuntu' 'ID_LIKE=debian'
osr mint 'NAME="Linux Mint"' 'ID=linuxmint' 'ID_LIKE="ubuntu debian"'
osr fedora 'NAME="Fedora Linux"' 'VERSION_ID=41' 'ID=fedora'
osr rhel 'NAME="Red Hat Enterprise Linux"' 'VERSION_ID="9.4"' 'ID="rhel"' 'ID_LIKE="fedora"'
osr rocky 'NAME="Rocky Linux"' 'VERSION_ID="9.4"' 'ID="rocky"' 'ID_LIKE="rhel centos fedora"'
osr alma 'NAME="AlmaLinux"' 'VERSION_ID="9.4"' 'ID="almalinux"' 'ID_LIKE="rhel centos fedora"'
osr centos 'NAME="CentOS Stream"' 'VERSION_ID="9"' 'ID="centos"' 'ID_LIKE="rhel fedora"'
osr leap 'NAME="openSUSE Leap"' 'VERSION_ID="15.6"' 'ID="opensuse-leap"' 'ID_LIKE="suse opensuse"'
osr tumbleweed 'NAME="openSUSE Tumbleweed"' 'ID="opensuse-tumbleweed"' 'ID_LIKE="opensuse suse"'
osr arch 'NAME="Arch Linux"' 'ID=arch'

# run OS UID INSTALLED [ARGS...]: setup's status in $rc, stdout in $out,
# stderr in $err, what the fakes were asked in $log.
run() {
	os=$1 uid=$2 inst=$3
	shift 3
	: >"$tmp/log"
	MDB_OS_RELEASE=$tmp/$os FAKE_LOG=$tmp/log FAKE_INSTALLED=$inst FAKE_UID=$uid \
		FAKE_ARCH=${FAKE_ARCH:-x86_64} FAKE_FOREIGN=${FAKE_FOREIGN:-} PATH="$bin:$PATH" \
		sh "$setup" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	log=$(cat "$tmp/log")
}

# refused OS WHAT [ARGS...]: exit 2, one line on stderr holding WHAT, nothing run.
refused() {
	os=$1 what=$2
	shift 2
	run "$os" 1000 "" "$@"
	check "$os $*: status" 2 "$rc"
	check "$os $*: stderr lines" 1 "$(printf '%s\n' "$err" | wc -l | tr -d ' ')"
	case "$err" in *"$what"*) ;; *) fail "$os $*: '$err' does not say '$what'" ;; esac
	check "$os $*: nothing run" "" "$log"
	echo "$os $*: $err"
}

deb="build-essential cmake pkgconf libbenchmark-dev libpfm4-dev libhwloc-dev hwloc-nox valgrind python3-matplotlib python3-scipy libjansson-dev libssl-dev pahole git"
rpm="gcc gcc-c++ make cmake pkgconf-pkg-config google-benchmark-devel libpfm-devel hwloc-devel hwloc valgrind valgrind-devel python3-matplotlib python3-scipy jansson-devel openssl-devel dwarves git"
suse="gcc gcc-c++ make cmake pkgconf-pkg-config benchmark-devel libpfm-devel hwloc-devel hwloc valgrind valgrind-devel python3-matplotlib python3-scipy libjansson-devel libopenssl-devel dwarves git"

# ---- each family, nothing installed, not root -------------------------
run debian 1000 ""
check "debian: status" 0 "$rc"
check "debian: commands" "sudo apt-get update -qq
apt-get update -qq
sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $deb
apt-get install -y -qq --no-install-recommends $deb [DEBIAN_FRONTEND=noninteractive]" "$log"
check "debian: says what" "setup: installing $deb" "$out"
echo "debian:  $(echo "$log" | sed -n 3p)"

for os in ubuntu mint; do
	run $os 1000 ""
	check "$os: status" 0 "$rc"
	check "$os: same commands as Debian" "sudo apt-get update -qq
apt-get update -qq
sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $deb
apt-get install -y -qq --no-install-recommends $deb [DEBIAN_FRONTEND=noninteractive]" "$log"
done
echo "ubuntu:  $(echo "$log" | sed -n 3p)"

run fedora 1000 ""
check "fedora: status" 0 "$rc"
check "fedora: commands" "sudo dnf install -y $rpm
dnf install -y $rpm" "$log"
echo "fedora:  $(echo "$log" | sed -n 1p)"

for os in rocky rhel alma centos; do
	run $os 1000 "epel-release"
	check "$os: status" 0 "$rc"
	check "$os: commands" "sudo dnf install -y $rpm
dnf install -y $rpm" "$log"
	echo "$os (EPEL enabled): $(echo "$log" | sed -n 1p)"
done
refused rocky "come from EPEL"
refused rhel "come from EPEL"

for os in leap tumbleweed; do
	run $os 1000 ""
	check "$os: status" 0 "$rc"
	check "$os: commands" "sudo zypper --non-interactive install --no-recommends $suse
zypper --non-interactive install --no-recommends $suse" "$log"
	echo "$os: $(echo "$log" | sed -n 1p)"
done

# ---- only what is missing; root without sudo; idempotent --------------
run debian 0 "cmake git pahole valgrind"
check "debian as root, some installed" "apt-get update -qq
apt-get install -y -qq --no-install-recommends build-essential pkgconf libbenchmark-dev libpfm4-dev libhwloc-dev hwloc-nox python3-matplotlib python3-scipy libjansson-dev libssl-dev [DEBIAN_FRONTEND=noninteractive]" "$log"
run fedora 0 "gcc gcc-c++ make git"
check "fedora as root, some installed" "dnf install -y cmake pkgconf-pkg-config google-benchmark-devel libpfm-devel hwloc-devel hwloc valgrind valgrind-devel python3-matplotlib python3-scipy jansson-devel openssl-devel dwarves" "$log"
run leap 0 "$suse"
check "leap, all installed: status" 0 "$rc"
check "leap, all installed: nothing run" "" "$log"
check "leap, all installed: says so" "setup: all packages present" "$out"
run debian 1000 "$deb"
check "debian, all installed, not root: no sudo" "" "$log"
run rocky 1000 "$rpm"
check "rocky, all installed: no EPEL needed" "0:" "$rc:$log"

# ---- --kmod ------------------------------------------------------------
run debian 1000 "$deb" --kmod
check "debian --kmod" "sudo apt-get update -qq
apt-get update -qq
sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod
apt-get install -y -qq --no-install-recommends qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod [DEBIAN_FRONTEND=noninteractive]" "$log"
echo "debian --kmod: $(echo "$log" | sed -n 3p)"
run ubuntu 0 "$deb" --kmod
check "ubuntu --kmod" "apt-get update -qq
apt-get install -y -qq --no-install-recommends qemu-system-x86 linux-image-generic linux-headers-generic busybox-static cpio kmod [DEBIAN_FRONTEND=noninteractive]" "$log"
run fedora 0 "" --kmod
check "fedora --kmod" "dnf install -y $rpm qemu-system-x86 kernel-core kernel-devel busybox cpio kmod" "$log"
echo "fedora --kmod: $log"
run tumbleweed 0 "$suse" --kmod
check "tumbleweed --kmod" "zypper --non-interactive install --no-recommends qemu-x86 kernel-default kernel-default-devel busybox-static cpio kmod" "$log"
echo "tumbleweed --kmod: $log"
refused rocky "--kmod: not supported" --kmod
FAKE_ARCH=aarch64 refused debian "--kmod: not supported on aarch64" --kmod

# ---- --aarch64 ---------------------------------------------------------
cross="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static qemu-system-arm cpio libbenchmark-dev:arm64 libjansson-dev:arm64 libhwloc-dev:arm64 libpfm4-dev:arm64 libssl-dev:arm64"
run debian 0 "$deb" --aarch64
check "debian --aarch64" "dpkg --add-architecture arm64
apt-get update -qq
apt-get install -y -qq --no-install-recommends $cross [DEBIAN_FRONTEND=noninteractive]" "$log"
FAKE_FOREIGN=arm64 run debian 0 "$deb gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static qemu-system-arm cpio" --aarch64
check "debian --aarch64, arm64 already foreign" "apt-get update -qq
apt-get install -y -qq --no-install-recommends libbenchmark-dev:arm64 libjansson-dev:arm64 libhwloc-dev:arm64 libpfm4-dev:arm64 libssl-dev:arm64 [DEBIAN_FRONTEND=noninteractive]" "$log"
refused fedora "--aarch64: not supported on fedora" --aarch64
FAKE_ARCH=aarch64 refused debian "--aarch64: not supported on aarch64" --aarch64

# ---- --integration ------------------------------------------------------
integ="libfile-which-perl libyaml-pp-perl libfile-slurp-perl r-base-core ruby ruby-activesupport ruby-tty-command ruby-git ruby-gnuplot ruby-term-ansicolor ansible"
run debian 0 "$deb" --integration
check "debian --integration" "apt-get update -qq
apt-get install -y -qq --no-install-recommends $integ [DEBIAN_FRONTEND=noninteractive]" "$log"
refused fedora "--integration: not supported on fedora" --integration

# ---- refusals ----------------------------------------------------------
refused arch "unknown distribution 'arch'"
refused debian "unknown argument '--bogus'" --bogus
refused nosuchfile "cannot read"
run debian 1000 "" --help
check "--help: status" 0 "$rc"
case "$out" in *"scripts/setup [--kmod]"*) ;; *) fail "--help says '$out'" ;; esac
check "--help: nothing run" "" "$log"

if [ "$failures" -ne 0 ]; then
	echo "$failures failed"
	exit 1
fi
echo "setup: all checks passed"
