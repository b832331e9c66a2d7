#!/bin/sh
# Every public function of ro_sgns.h (declared with RO_SGNS_DEF) must be
# called in tests/test_robust.c, the allocation-failure test, so a
# new entry point cannot skip it. Ends with "robust-coverage: N passed, N failed".
h=${1:-ro_sgns.h}
t=${2:-tests/test_robust.c}
passed=0
failed=0
for f in $(grep -o '^RO_SGNS_DEF[^(]*(' "$h" | sed -E 's/.*[^A-Za-z0-9_]([A-Za-z0-9_]+)\($/\1/' | sort -u); do
    if grep -qE "(^|[^A-Za-z0-9_])$f\(" "$t"; then
        passed=$((passed + 1))
    else
        echo "robust-coverage: $f is not called in $t"
        failed=$((failed + 1))
    fi
done
[ "$passed" -gt 50 ] || { echo "robust-coverage: only $passed functions found in $h"; failed=$((failed + 1)); }
echo "robust-coverage: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
