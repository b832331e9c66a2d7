#!/bin/sh
# test_quickstart.sh - the header's QUICK START, taken from ro_sgns.h as
# printed (the indented lines after the "QUICK START:" line, up to the
# prose that follows them), wrapped in int main(void) { ... } after the
# includes its first lines name, compiled as C99 and as C++ with the
# suite's warnings as errors, and run on the sample corpus with the files
# it names (corpus.txt, ws353.txt) linked into a scratch folder. Its
# failure paths (no corpus; a corpus too small for d = 100) run under
# AddressSanitizer with leak detection: every free takes what was
# initialized, nothing leaks.
#   sh tests/test_quickstart.sh [CC [CXX]]   (from the repository root)
CC=${1:-cc}
CXX=${2:-c++}
SAMPLE=$(pwd)/../shared/data/corpus/sample.txt
WS=$(pwd)/../shared/data/wordsim/ws353.txt
T=${RO_SGNS_TEST_TMP:-build}/quickstart_test
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
finish() { echo "quickstart: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

[ -f "$SAMPLE" ] && [ -f "$WS" ] || { bad "$SAMPLE or $WS not found"; finish; }
rm -rf "$T"
mkdir -p "$T"
H=$(pwd)

# the snippet: lines indented 7 or more after the marker, up to the next
# line indented less (the prose after it); prose before it is skipped
awk '/^   QUICK START:/ { q = 1; next }
     q && /^       / { c = 1; print; next }
     q && c { exit }' ro_sgns.h > "$T/snippet"
n=$(wc -l < "$T/snippet")
[ "$n" -ge 20 ] && ok || bad "QUICK START: $n lines of code found in ro_sgns.h"
grep -q "ro_sgns_ro_train" "$T/snippet" && grep -q "return status;" "$T/snippet" && ok ||
    bad "QUICK START: the snippet lacks ro_sgns_ro_train or its closing 'return status;'"
# what the prose says the program needs: -lm, and the includes
awk '/^   QUICK START:/ { q = 1; next } q && /^       / { exit } q' ro_sgns.h > "$T/prose"
grep -q -- "-lm" "$T/prose" && grep -q "stdio.h" "$T/prose" && grep -q "stdlib.h" "$T/prose" && ok ||
    bad "QUICK START's prose does not name -lm, <stdio.h> and <stdlib.h>: $(cat "$T/prose")"
{
    printf '#include <stdio.h>\n#include <stdlib.h>\n#define RO_SGNS_IMPLEMENTATION\n#include "ro_sgns.h"\n'
    printf 'int main(void)\n{\n'
    cat "$T/snippet"
    printf '}\n'
} > "$T/quickstart.c"

build() { # build NAME COMPILER FLAGS...
    name=$1
    shift
    if "$@" -I"$H" "$T/quickstart.c" -o "$T/$name" -lm 2> "$T/$name.err"; then ok; else
        bad "QUICK START does not build with $*: $(head -c 800 "$T/$name.err")"
    fi
}
build qs_c "$CC" -std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Werror -O2
build qs_cxx "$CXX" -x c++ -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion -Werror -O2

# run as printed, in a folder with the files it names
mkdir -p "$T/run"
ln -s "$SAMPLE" "$T/run/corpus.txt"
ln -s "$WS" "$T/run/ws353.txt"
for v in c cxx; do
    [ -x "$T/qs_$v" ] || continue
    rm -f "$T/run/vectors.bin"
    if (cd "$T/run" && "../qs_$v") > "$T/out_$v" 2> "$T/err_$v"; then ok; else
        bad "QUICK START ($v) exited $?: $(head -c 600 "$T/err_$v")"
    fi
    grep -Eq '^4455 words -> vectors.bin; ws353 Spearman 0\.[0-9]{3} \([0-9]+ of 353 pairs\)$' "$T/out_$v" && ok ||
        bad "QUICK START ($v) printed: $(cat "$T/out_$v")"
    [ -s "$T/err_$v" ] && bad "QUICK START ($v) wrote to stderr: $(head -c 400 "$T/err_$v")" || ok
    [ "$(head -n 1 "$T/run/vectors.bin" 2> /dev/null)" = "4455 100" ] && ok || bad "QUICK START ($v): vectors.bin does not start with '4455 100'"
done
[ -s "$T/out_c" ] && cmp -s "$T/out_c" "$T/out_cxx" && ok || bad "QUICK START: C and C++ print differently"

# the failure paths, under ASan + UBSan with leak detection: no corpus
# (nothing allocated yet), and a corpus of 6 words (counts made, then
# SPPMI has no positive entry): exit 1, the library's message, nothing leaked
if "$CC" -std=c99 -O0 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -I"$H" \
    "$T/quickstart.c" -o "$T/qs_asan" -lm 2> "$T/asan.err"; then
    mkdir -p "$T/fail1" "$T/fail2"
    for i in 1 2 3 4 5 6; do echo "a b c d e f"; done > "$T/fail2/corpus.txt"
    for f in fail1 fail2; do
        (cd "$T/$f" && ASAN_OPTIONS=detect_leaks=1:exitcode=86 ../qs_asan) > "$T/out" 2> "$T/err"
        rc=$?
        if [ "$rc" -ne 1 ]; then bad "QUICK START ($f) exited $rc, not 1: $(head -c 600 "$T/err")"
        elif grep -Eq "Sanitizer|runtime error" "$T/err"; then bad "QUICK START ($f): $(head -c 600 "$T/err")"
        elif ! [ -s "$T/err" ]; then bad "QUICK START ($f) failed without a message"
        else ok; fi
        [ -s "$T/out" ] && bad "QUICK START ($f) printed a result: $(cat "$T/out")" || ok
    done
else
    echo "quickstart: no AddressSanitizer build ($(head -c 200 "$T/asan.err")); failure paths not run"
fi

rm -rf "$T"
finish
