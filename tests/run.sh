#!/bin/sh
# Run test programs, show their output, and close with one summary line
# "total: N passed, N failed". Exit non-zero if any program failed.
# An argument may be a command with arguments ("qemu-arm-static -L /usr/x a.out",
# "wine64 t.exe"): it is split on spaces, so no spaces inside paths.
passed=0; failed=0; status=0
for t in "$@"; do
    out=$($t 2>&1); rc=$?
    out=$(printf '%s\n' "$out" | tr -d '\r') # Windows programs (wine) end lines with CRLF
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        echo "$t: no summary line (exit $rc)"; failed=$((failed + 1)); status=1; continue
    fi
    p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + p)); failed=$((failed + f))
    [ "$rc" -ne 0 ] && { status=1; [ "$f" -eq 0 ] && failed=$((failed + 1)); }
done
echo "total: $passed passed, $failed failed"
exit $status
