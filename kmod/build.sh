#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# build.sh KDIR OUTDIR [Kbuild options...]: builds mdbench_kmod.ko against
# the kernel build tree KDIR in OUTDIR, from a copy of the sources, so that
# the source tree stays clean (a read-only clone builds too).  Used by
# CMake's `kmod` target and by the qemu test.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: build.sh KDIR OUTDIR [make options]" >&2
	exit 2
fi
kdir=$1
out=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$kdir/Makefile" ]; then
	echo "kmod: no kernel build tree at $kdir: install linux-headers-\$(uname -r) or give KDIR" >&2
	exit 2
fi
mkdir -p "$out"
cp "$src/Kbuild" "$src/mdbench_kmod.c" "$src/mdbench_kmod.h" "$out/"
make -C "$kdir" M="$out" "$@" modules
