#!/bin/sh
# test_package.sh - what a packager and a CMake user meet: make install's
# program built portably (no -march=native unless NATIVE=1, CFLAGS
# honoured, seen in make's dry run), the installed files (LICENSE, the
# CMake package beside the pkg-config file) and make uninstall; README's
# C example built through find_package(ro_sgns) with docs/LIBRARY.md's CMakeLists
# against a make install prefix and run, then configured again against a
# `cmake --install` prefix and through add_subdirectory; a version that
# does not fit is refused; make demo without the data stops at once with
# one message and leaves no build/corpus.txt.tmp.
#   sh tests/test_package.sh [path/to/ro-sgns]   (from the repository root;
#   the program to install, so that nothing is compiled twice)
BIN=${1:-build/ro-sgns-test}
# the makes below are this test's own, not jobs of the make that runs it
# (under make -j2 they would warn "jobserver unavailable")
unset MAKEFLAGS MFLAGS MAKELEVEL
SAMPLE=$(pwd)/../shared/data/corpus/sample.txt
T=${RO_SGNS_TEST_TMP:-build}/package_test
R=$(pwd)
passed=0
failed=0
skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
rm -rf "$T"
mkdir -p "$T"
case $T in /*) ;; *) T=$R/$T ;; esac

# ------------------------------------------------------------ the installed program's flags
make -n -B build/ro-sgns-portable > "$T/n" 2>&1
grep -q "examples/ro_sgns_cli.c" "$T/n" && ok || bad "make -n build/ro-sgns-portable: $(cat "$T/n")"
grep -q -- "-march=native" "$T/n" && bad "make install builds with -march=native by default: $(cat "$T/n")" || ok
grep -q -- " -O3 " "$T/n" && ok || bad "the installed program is not built at -O3 by default: $(cat "$T/n")"
make -n -B build/ro-sgns-portable CFLAGS="-O2 -g -fstack-protector-strong" > "$T/n" 2>&1
grep -q -- "-O2 -g -fstack-protector-strong" "$T/n" && ! grep -q -- " -O3 " "$T/n" && ok ||
    bad "make install ignores CFLAGS: $(cat "$T/n")"
make -n -B build/ro-sgns-portable NATIVE=1 > "$T/n" 2>&1
grep -q -- "-march=native" "$T/n" && ok || bad "NATIVE=1 does not add -march=native: $(cat "$T/n")"
make -n -B ro-sgns > "$T/n" 2>&1
grep -q -- "-march=native" "$T/n" && ok || bad "./ro-sgns (make, make demo) lost -march=native: $(cat "$T/n")"
make -n install PREFIX="$T/p0" > "$T/n" 2>&1
grep -q "build/ro-sgns-portable" "$T/n" && ok || bad "make install does not install the portable build: $(cat "$T/n")"

# ------------------------------------------------------------ make install, uninstall
P=$T/prefix
if make -s install PREFIX="$P" INSTALL_BIN="$BIN" > "$T/out" 2> "$T/err"; then ok; else bad "make install: $(cat "$T/err")"; fi
for f in include/ro_sgns.h bin/ro-sgns lib/pkgconfig/ro_sgns.pc share/doc/ro_sgns/LICENSE \
    share/cmake/ro_sgns/ro_sgnsConfig.cmake share/cmake/ro_sgns/ro_sgnsConfigVersion.cmake; do
    [ -f "$P/$f" ] && ok || bad "make install did not install $f"
done
cmp -s LICENSE "$P/share/doc/ro_sgns/LICENSE" && ok || bad "the installed LICENSE differs"
v=$(awk '/define RO_SGNS_VERSION_STRING/ { gsub(/"/, "", $3); print $3 }' ro_sgns.h)
grep -q "PACKAGE_VERSION \"$v\"" "$P/share/cmake/ro_sgns/ro_sgnsConfigVersion.cmake" && ok ||
    bad "the installed version file does not say $v"

# ------------------------------------------------------------ README's example through CMake (docs/LIBRARY.md's CMakeLists.txt)
HAVE_CMAKE=$(command -v cmake)
if [ -z "$HAVE_CMAKE" ]; then
    if [ "${CI:-}" = true ]; then bad "cmake not found (.ci/install.sh installs it)"; else
        echo "package: cmake not found: the CMake checks skipped"
        skipped=1
    fi
elif [ ! -f "$SAMPLE" ]; then
    bad "$SAMPLE not found"
else
    E=$T/example
    mkdir -p "$E"
    awk '/^## Use it in your program/ { p = 1 } p && /^```c$/ { c = 1; next } c && /^```/ { exit } c' README.md > "$E/example.c"
    awk '/^## Install, pkg-config and CMake/ { p = 1 } p && /^```cmake$/ { c = 1; next } c && /^```/ { exit } c' docs/LIBRARY.md > "$E/CMakeLists.txt"
    [ -s "$E/example.c" ] && grep -q "find_package(ro_sgns" "$E/CMakeLists.txt" && ok ||
        bad "README: no C example under 'Use it in your program', or docs/LIBRARY.md: no CMakeLists.txt with find_package(ro_sgns) under 'Install, pkg-config and CMake'"
    # find_package against the make install prefix, built optimized and run
    if cmake -S "$E" -B "$E/b1" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$P" > "$T/out" 2>&1 &&
        cmake --build "$E/b1" > "$T/out2" 2>&1; then ok; else
        bad "docs/LIBRARY.md's CMake example against make install's prefix: $(tail -n 15 "$T/out" "$T/out2" 2> /dev/null)"
    fi
    grep -q "ro_sgns_DIR:PATH=$P/share/cmake/ro_sgns" "$E/b1/CMakeCache.txt" 2> /dev/null && ok ||
        bad "find_package(ro_sgns) found another copy: $(grep ro_sgns_DIR "$E/b1/CMakeCache.txt" 2> /dev/null)"
    if [ -x "$E/b1/example" ]; then
        mkdir -p "$E/run"
        (cd "$E/run" && "$E/b1/example" "$SAMPLE") > "$T/out" 2> "$T/err" && grep -q "nearest to three:" "$T/out" && ok ||
            bad "the CMake-built example: $(cat "$T/out" "$T/err" | head -c 600)"
    fi
    # the version file: 0.3 finds 0.3.x, 0.2 and 1.0 do not
    sed 's/find_package(ro_sgns [0-9.]*/find_package(ro_sgns 9.0/' "$E/CMakeLists.txt" > "$T/cm" && mkdir -p "$E/v" &&
        cp "$T/cm" "$E/v/CMakeLists.txt" && cp "$E/example.c" "$E/v/"
    if cmake -S "$E/v" -B "$E/v/b" -DCMAKE_PREFIX_PATH="$P" > "$T/out" 2>&1; then
        bad "find_package(ro_sgns 9.0) accepted $v"
    else
        grep -q "$v" "$T/out" && ok || bad "find_package(ro_sgns 9.0): $(tail -n 5 "$T/out")"
    fi
    # cmake --install from this repository: the same package, found the same way
    if cmake -S "$R" -B "$T/self" > "$T/out" 2>&1 && cmake --install "$T/self" --prefix "$T/cprefix" > "$T/out2" 2>&1; then ok; else
        bad "cmake --install of the repository: $(tail -n 10 "$T/out" "$T/out2")"
    fi
    for f in include/ro_sgns.h share/doc/ro_sgns/LICENSE share/cmake/ro_sgns/ro_sgnsConfig.cmake; do
        cmp -s "$P/$f" "$T/cprefix/$f" && ok || bad "cmake --install's $f differs from make install's"
    done
    cmp -s "$P/share/cmake/ro_sgns/ro_sgnsConfigVersion.cmake" "$T/cprefix/share/cmake/ro_sgns/ro_sgnsConfigVersion.cmake" &&
        ok || bad "cmake --install's version file differs from make install's"
    # add_subdirectory, as the CMakeLists' comment says: the same CMakeLists, that line swapped
    mkdir -p "$E/sub"
    cp "$E/example.c" "$E/sub/"
    sed "s|^find_package(ro_sgns [^)]*)|add_subdirectory($R ro_sgns)|" "$E/CMakeLists.txt" > "$E/sub/CMakeLists.txt"
    grep -q "add_subdirectory" "$E/sub/CMakeLists.txt" && ok || bad "no find_package(ro_sgns ...) line to swap"
    if cmake -S "$E/sub" -B "$E/sub/b" > "$T/out" 2>&1 && cmake --build "$E/sub/b" > "$T/out2" 2>&1 &&
        [ -x "$E/sub/b/example" ]; then ok; else
        bad "README's example through add_subdirectory: $(tail -n 15 "$T/out" "$T/out2")"
    fi
fi

if make -s uninstall PREFIX="$P" > "$T/out" 2> "$T/err"; then ok; else bad "make uninstall: $(cat "$T/err")"; fi
left=$(find "$P" -type f | head -5)
[ -z "$left" ] && ok || bad "make uninstall left $left"

# ------------------------------------------------------------ make demo without the data
# (a decompressed build/corpus.txt does not help: the word lists are missing too)
rm -f build/corpus.txt.tmp
if true; then
    make demo DATA="$T/no-data" > "$T/out" 2> "$T/err"
    rc=$?
    [ "$rc" -ne 0 ] && ok || bad "make demo without the data exited 0"
    grep -q "README.md's section \"Data\"" "$T/err" && ok || bad "make demo without the data: $(cat "$T/err")"
    [ "$(grep -cv '^make: \*\*\*' "$T/err")" -eq 1 ] && ok || bad "make demo without the data: more than one message: $(cat "$T/err")"
    [ -e build/corpus.txt.tmp ] && bad "make demo without the data left build/corpus.txt.tmp" || ok
    grep -q "examples/ro_sgns_cli.c" "$T/out" && bad "make demo built the program before finding no data" || ok
fi

rm -rf "$T"
echo "package: $passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
