#!/bin/sh
# configs.sh - the header's configurations (the RO_SGNS_NO_* switches):
#   1. each switch alone, all of them (RO_SGNS_STEP_ONLY) and none compile
#      cleanly in C99 (-pedantic -Wall -Wextra -Wshadow -Wconversion -Werror,
#      -O0 to an object) and as C++ (the same warnings, -fsyntax-only: the
#      C++ front end's diagnostics at a tenth of the time; float; double too
#      for none and all);
#   2. the step-alone object (RO_SGNS_STEP_ONLY) asks the C library for no
#      file, directory or process call (POSIX or Win32) and no stdio stream;
#   3. the step-alone object at gcc -Os (float) is at most 64 KB (65,536
#      bytes of text + data, as size(1) counts them and the table does):
#      the step is what a small target pays for, the rest has its switch;
#   4. with TABLE=1: per configuration the object size (text + data, gcc
#      -Os and -O2, float) and the -O2 compile time (tests/size_table.sh
#      writes and checks docs/LIBRARY.md's table from the same objects).
# usage: sh tests/configs.sh [CC] [CXX]; exit status 0 when 1 to 3 hold.
set -u
CC=${1:-gcc}
CXX=${2:-g++}
W=${RO_SGNS_TEST_TMP:-build}/configs
mkdir -p "$W"
printf '#define RO_SGNS_IMPLEMENTATION\n#include "ro_sgns.h"\nint ro_sgns_configs_anchor;\n' > "$W/impl.c"
WARN="-std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Werror"
CXXWARN="-x c++ -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror"
configs="ALL NO_COUNT NO_FILES NO_EVAL NO_SGD NO_SHARDS NO_STDIO NO_FOLD NO_METRIC NO_TSVD STEP_ONLY PLAIN"
passed=0
failed=0
flag() { [ "$1" = ALL ] && echo "" || echo "-DRO_SGNS_$1"; }
for c in $configs; do
    f=$(flag "$c")
    reals=float
    case $c in ALL | STEP_ONLY | PLAIN) reals="float double" ;; esac
    for real in $reals; do
        # shellcheck disable=SC2086
        if $CC $WARN -O0 $f -DRO_SGNS_REAL=$real -I. -c "$W/impl.c" -o "$W/$c.o" 2> "$W/err" &&
           $CXX $CXXWARN -fsyntax-only $f -DRO_SGNS_REAL=$real -I. "$W/impl.c" 2>> "$W/err"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "configs: $c ($real) does not build cleanly:"; head -20 "$W/err"
        fi
    done
done
# 2. the step alone: no file API (a deny list of what the file layer calls)
if $CC -std=c99 -O2 -DRO_SGNS_STEP_ONLY -I. -c "$W/impl.c" -o "$W/step.o" 2> "$W/err"; then
    bad=$(nm -u "$W/step.o" | awk '{print $NF}' | grep -E '^_?(open|open64|close|read|write|fopen|fopen64|fclose|fread|fwrite|fflush|fputc|fputs|fprintf|printf|fseek|fseeko|ftell|ftello|fileno|fsync|fdatasync|rename|remove|unlink|stat|stat64|lstat|fstat|__xstat|__lxstat|__fxstat|readlink|mkstemp|getpid|_getpid|MoveFileExA|GetLastError|_open|_close|_commit|_wopen|isatty)$')
    if [ -z "$bad" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "configs: the step-alone object still calls: $bad"
    fi
    # and it includes no POSIX or Win32 file header
    if $CC -std=c99 -E -DRO_SGNS_STEP_ONLY -I. "$W/impl.c" | grep -qE '^# [0-9]+ "[^"]*/(unistd|fcntl|io)\.h"|sys/stat\.h'; then
        failed=$((failed + 1))
        echo "configs: the step-alone build includes unistd.h, fcntl.h, io.h or sys/stat.h"
    else
        passed=$((passed + 1))
    fi
else
    failed=$((failed + 1)); echo "configs: the step-alone object does not build"; head "$W/err"
fi
# 3. the step alone at -Os: at most 64 KB (gcc's -Os: another compiler's
# sizes are its own, so the bound is checked with gcc only)
STEP_MAX=65536
if $CC --version 2>/dev/null | grep -q 'Free Software Foundation' && ! $CC --version | grep -qi clang; then
    if $CC -std=c99 -Os -DRO_SGNS_STEP_ONLY -I. -c "$W/impl.c" -o "$W/step_os.o" 2> "$W/err"; then
        bytes=$(size "$W/step_os.o" | awk 'NR==2{print $1+$2}')
        if [ -n "$bytes" ] && [ "$bytes" -le "$STEP_MAX" ]; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "configs: the step-alone object is ${bytes:-?} bytes at -Os, more than $STEP_MAX"
        fi
    else
        failed=$((failed + 1)); echo "configs: the step-alone object does not build at -Os"; head "$W/err"
    fi
else
    echo "configs: the 64 KB bound is gcc's; not checked with $CC"
fi
if [ "${TABLE:-0}" = 1 ]; then
    echo "| configuration | -Os bytes | -O2 bytes | share of all at -Os | -O2 compile, CPU s |"
    echo "|---|---|---|---|---|"
    all_os=
    for c in $configs; do
        f=$(flag "$c")
        # shellcheck disable=SC2086
        $CC -std=c99 -Os $f -I. -c "$W/impl.c" -o "$W/os.o"
        # the compiler's CPU time (user + sys of the child), not the wall
        # clock: steadier on a shared machine
        t0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat 2>/dev/null || echo 0)
        # shellcheck disable=SC2086
        $CC -std=c99 -O2 $f -I. -c "$W/impl.c" -o "$W/o2.o"
        t1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat 2>/dev/null || echo 0)
        os=$(size "$W/os.o" | awk 'NR==2{print $1+$2}')
        o2=$(size "$W/o2.o" | awk 'NR==2{print $1+$2}')
        [ -z "$all_os" ] && all_os=$os
        echo "| $c | $os | $o2 | $(awk -v a="$os" -v b="$all_os" 'BEGIN{printf "%.0f%%", 100*a/b}') | $(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.1f", (b-a)/hz}') |"
    done
fi
echo "configs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
