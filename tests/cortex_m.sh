#!/bin/sh
# cortex_m.sh - tests/cortex_m.c (the step-alone configuration: the SPPMI
# start, 5 RO steps, the word vectors of a 32-word problem held in memory)
# run twice and compared: REF, the x86-64 float build, and the command after
# it, the same program built as mk/cross.mk's Cortex-M target is but for
# 32-bit Arm Linux (run under qemu-arm). Tolerances: F within 1e-5 of REF's,
# relatively; each vector entry within 1e-4 of REF's largest one; and the
# steps raised F.
# usage: sh tests/cortex_m.sh REF CMD [ARGS...]
ref=$1
shift
W=${RO_SGNS_TEST_TMP:-build}
mkdir -p "$W"
passed=0
failed=0
if ! "$ref" > "$W/cortex_m_ref.txt"; then
    echo "cortex-m: $ref failed:"; tail -n 3 "$W/cortex_m_ref.txt"; echo "cortex-m: 0 passed, 1 failed"; exit 1
fi
if ! "$@" > "$W/cortex_m_arm.txt"; then
    echo "cortex-m: $* failed:"; tail -n 3 "$W/cortex_m_arm.txt"; echo "cortex-m: 0 passed, 1 failed"; exit 1
fi
# lines 1-6: F at the start and after each step; then the 32 x 4 vectors
out=$(paste "$W/cortex_m_ref.txt" "$W/cortex_m_arm.txt" | awk '
    function abs(x) { return x < 0 ? -x : x }
    { a[NR] = $1; b[NR] = $2; if (NR > 6 && abs($1) > big) big = abs($1) }
    END {
        ok = 0; bad = 0
        if (NR != 6 + 32 * 4) { print "cortex-m: " NR " lines, not " 6 + 32 * 4; bad++ }
        for (i = 1; i <= NR; i++) {
            tol = i <= 6 ? 1e-5 * abs(a[i]) : 1e-4 * big
            if (b[i] == "" || abs(a[i] - b[i]) > tol) {
                if (++bad <= 5) print "cortex-m: line " i ": " b[i] " vs " a[i] " (tol " tol ")"
            } else ok++
        }
        if (!(b[6] > b[1])) { bad++; print "cortex-m: the steps did not raise F" } else ok++
        same = 0; for (i = 1; i <= NR; i++) same += a[i] == b[i]
        print "cortex-m: F " a[1] " -> " a[6] "; " same " of " NR " numbers bitwise equal"
        print ok, bad
    }')
printf '%s\n' "$out" | sed '$d'
set -- $(printf '%s\n' "$out" | tail -n 1)
passed=$1
failed=$2
echo "cortex-m: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
