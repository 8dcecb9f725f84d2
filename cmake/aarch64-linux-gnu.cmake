# Cross-build for aarch64 with Debian's gcc-aarch64-linux-gnu and the arm64
# -dev packages installed multiarch (dpkg --add-architecture arm64: libjansson,
# libbenchmark, libhwloc, libpfm4 under /usr/lib/aarch64-linux-gnu): what
# scripts/test's aarch64 stage builds, its tests run under qemu-user
# (CMAKE_CROSSCOMPILING_EMULATOR: ctest runs each test binary through it).
#
#	cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Libraries and packages of the target only; headers from the multiarch tree
# and the common /usr/include (valgrind/callgrind.h is architecture-neutral).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
find_program(MDB_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(MDB_QEMU_AARCH64)
	set(CMAKE_CROSSCOMPILING_EMULATOR ${MDB_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
