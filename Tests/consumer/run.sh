#!/usr/bin/env bash
# ctest "consumer": install libodatastore to a temporary prefix and use the INSTALLED copy the
# way a downstream project would, both with pkg-config and with find_package(odatastore
# CONFIG), then move the prefix elsewhere and do it again (the install is relocatable).
#
# Run-time lookup, as README.md documents it:
#   - CMake consumers: CMake puts the library's directory in the executable's RUNPATH;
#     they run with LD_LIBRARY_PATH unset.
#   - pkg-config consumers: the .pc file adds no rpath (as is usual); link with
#     -Wl,-rpath,"$(pkg-config --variable=libdir odatastore)" or run with
#     LD_LIBRARY_PATH=<prefix>/lib. Both ways are checked here.
#
# Environment (set by CMakeLists.txt): ODS_BUILD_DIR, ODS_SOURCE_DIR, CMAKE_COMMAND, CC,
# ODS_CMAKE_GENERATOR, ODS_CMAKE_MAKE_PROGRAM, ODS_LIBDIR, ODS_INCLUDEDIR, ODS_VERSION,
# ODS_SONAME.
set -euo pipefail

build=${ODS_BUILD_DIR:?run through ctest}
src=${ODS_SOURCE_DIR:?run through ctest}
cmake=${CMAKE_COMMAND:-cmake}
cc=${CC:-cc}
libdir=${ODS_LIBDIR:-lib}
includedir=${ODS_INCLUDEDIR:-include}
version=${ODS_VERSION:?}
soname=${ODS_SONAME:?}
generator=${ODS_CMAKE_GENERATOR:-Ninja}
make_program=${ODS_CMAKE_MAKE_PROGRAM:-}

unset LD_LIBRARY_PATH
work="$build/consumer-test"
rm -rf "$work"
mkdir -p "$work"

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# The directory libodatastore.so.0 of `exe` resolves to must be `want` (compared by realpath);
# `ld_path`, when given, is the LD_LIBRARY_PATH to resolve with.
check_resolves_to() {
    local exe=$1 want=$2 ld_path=${3:-} line path
    line=$(env ${ld_path:+LD_LIBRARY_PATH="$ld_path"} ldd "$exe" | grep -F "$soname" || true)
    [ -n "$line" ] || fail "$exe does not load $soname"
    case $line in *"not found"*) fail "$exe: $line" ;; esac
    path=$(printf '%s\n' "$line" | sed -E 's/.*=> ([^ ]+) .*/\1/')
    [ "$(realpath "$path")" = "$(realpath "$want/$soname")" ] ||
        fail "$exe loads $path, expected the copy in $want"
}

check_layout() {
    local prefix=$1
    local lib="$prefix/$libdir"
    [ -f "$lib/libodatastore.so.$version" ] && [ ! -L "$lib/libodatastore.so.$version" ] ||
        fail "$lib/libodatastore.so.$version is not a file"
    [ "$(readlink "$lib/$soname")" = "libodatastore.so.$version" ] ||
        fail "$lib/$soname is not a symlink to libodatastore.so.$version"
    [ "$(readlink "$lib/libodatastore.so")" = "$soname" ] ||
        fail "$lib/libodatastore.so is not a symlink to $soname"
    [ -f "$prefix/$includedir/odatastore.h" ] || fail "no $prefix/$includedir/odatastore.h"
    [ -f "$lib/pkgconfig/odatastore.pc" ] || fail "no $lib/pkgconfig/odatastore.pc"
    [ -f "$lib/cmake/odatastore/odatastoreConfig.cmake" ] || fail "no odatastoreConfig.cmake"
    # configure_package_config_file expands @PACKAGE_INIT@ wherever it appears, comments
    # included: the set-up block must be there exactly once.
    [ "$(grep -c 'macro(set_and_check' "$lib/cmake/odatastore/odatastoreConfig.cmake")" = 1 ] ||
        fail "odatastoreConfig.cmake has its @PACKAGE_INIT@ block more than once"
    [ -f "$lib/cmake/odatastore/odatastoreConfigVersion.cmake" ] || fail "no odatastoreConfigVersion.cmake"
    if [ -e "$build/bin/odatastore" ]; then
        [ -x "$prefix/bin/odatastore" ] || fail "no $prefix/bin/odatastore"
    fi
    echo "layout of $prefix: ok"
}

# pkg-config consumer, both run-time lookups.
use_pkg_config() {
    local prefix=$1 out=$2 cflags libs pclibdir
    export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
    [ "$(pkg-config --modversion odatastore)" = "$version" ] || fail "pkg-config --modversion"
    cflags=$(pkg-config --cflags odatastore)
    libs=$(pkg-config --libs odatastore)
    pclibdir=$(pkg-config --variable=libdir odatastore)
    echo "pkg-config: --cflags '$cflags' --libs '$libs' libdir '$pclibdir'"
    [ "$(realpath "$pclibdir")" = "$(realpath "$prefix/$libdir")" ] ||
        fail "pkg-config libdir $pclibdir is not $prefix/$libdir"
    pkg-config --static --libs odatastore >/dev/null

    # shellcheck disable=SC2086  # word splitting of the flags is intended
    "$cc" -std=c99 -Wall -Wextra -Werror -pedantic "$src/Tests/consumer/consumer.c" \
        $cflags $libs -o "$out-ldpath"
    # shellcheck disable=SC2086
    "$cc" -std=c99 -Wall -Wextra -Werror -pedantic "$src/Tests/consumer/consumer.c" \
        $cflags $libs -Wl,-rpath,"$pclibdir" -o "$out-rpath"

    if env -u LD_LIBRARY_PATH "$out-ldpath" >/dev/null 2>&1; then
        # Only possible when the loader finds another copy in a system directory.
        echo "note: $out-ldpath ran without LD_LIBRARY_PATH (a system-wide copy is installed)"
    fi
    LD_LIBRARY_PATH="$prefix/$libdir" "$out-ldpath"
    check_resolves_to "$out-ldpath" "$prefix/$libdir" "$prefix/$libdir"
    env -u LD_LIBRARY_PATH "$out-rpath"
    check_resolves_to "$out-rpath" "$prefix/$libdir"
    unset PKG_CONFIG_PATH
    echo "pkg-config consumer against $prefix: ok"
}

# CMake consumer: find_package(odatastore CONFIG REQUIRED) with CMAKE_PREFIX_PATH.
use_find_package() {
    local prefix=$1 dir=$2 found
    local args=(-S "$src/Tests/consumer" -B "$dir" -G "$generator"
                -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc"
                -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
    [ -n "$make_program" ] && args+=(-DCMAKE_MAKE_PROGRAM="$make_program")
    "$cmake" "${args[@]}"
    found=$(sed -n 's/^odatastore_DIR:PATH=//p' "$dir/CMakeCache.txt")
    [ "$(realpath "$found")" = "$(realpath "$prefix/$libdir/cmake/odatastore")" ] ||
        fail "find_package used $found, not the package under $prefix"
    "$cmake" --build "$dir"
    env -u LD_LIBRARY_PATH "$dir/consumer"
    check_resolves_to "$dir/consumer" "$prefix/$libdir"
    echo "find_package consumer against $prefix: ok"
}

step "install to $work/prefix"
"$cmake" --install "$build" --prefix "$work/prefix"
check_layout "$work/prefix"

step "pkg-config consumer"
use_pkg_config "$work/prefix" "$work/pc"

step "find_package consumer"
use_find_package "$work/prefix" "$work/cmake-build"

step "move the prefix to $work/moved/elsewhere and use it again"
mkdir -p "$work/moved"
mv "$work/prefix" "$work/moved/elsewhere"
check_layout "$work/moved/elsewhere"
use_pkg_config "$work/moved/elsewhere" "$work/pc-moved"
use_find_package "$work/moved/elsewhere" "$work/cmake-build-moved"

step "copy the prefix (cp -a) and use the copy"
cp -a "$work/moved/elsewhere" "$work/copy"
use_find_package "$work/copy" "$work/cmake-build-copy"

step "install --strip, and DESTDIR staging"
"$cmake" --install "$build" --prefix "$work/stripped" --strip
if readelf -S "$work/stripped/$libdir/libodatastore.so.$version" | grep -q '\.debug_info'; then
    fail "--strip left debug info in the library"
fi
LD_LIBRARY_PATH="$work/stripped/$libdir" "$work/pc-ldpath"
DESTDIR="$work/destdir" "$cmake" --install "$build" --prefix /opt/odatastore >/dev/null
check_layout "$work/destdir/opt/odatastore"

rm -rf "$work"
printf '\nconsumer: all checks passed\n'
