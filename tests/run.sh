#!/bin/sh
# Run test programs, show their output, and close with one summary line
# "total: N passed, N failed". Exit non-zero if any program failed, which
# it did when it exits non-zero, when its own last "NAME: N passed, N
# failed" line counts a failure (whatever its exit status), when it has no
# such line, or when that line says it checked nothing ("0 passed, 0
# failed"). A program that says why it checked nothing ("0 passed, 0
# failed, N skipped": an optional tool missing) passes, but not under
# CI=true, where everything it needs is installed.
# An argument may be a command with arguments ("qemu-arm-static -L /usr/x a.out",
# "wine64 t.exe"): it is split on spaces, so no spaces inside paths.
# After each program's output, the wall seconds it took: "(N s: PROGRAM)".
passed=0; failed=0; status=0
for t in "$@"; do
    t0=$(date +%s)
    out=$($t 2>&1); rc=$?
    out=$(printf '%s\n' "$out" | tr -d '\r') # Windows programs (wine) end lines with CRLF
    printf '%s\n' "$out"
    echo "($(( $(date +%s) - t0 )) s: $t)"
    line=$(printf '%s\n' "$out" | grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
        echo "$t: no summary line (exit $rc)"; failed=$((failed + 1)); status=1; continue
    fi
    p=$(printf '%s' "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" -ne 0 ]; then
        status=1
        [ "$rc" -eq 0 ] && echo "$t: $f failed, although it exited 0"
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        if printf '%s' "$line" | grep -qE ', [1-9][0-9]* skipped' && [ "${CI:-}" != true ]; then
            echo "$t: skipped"
        else
            echo "$t: nothing was checked (0 passed, 0 failed)"; failed=$((failed + 1)); status=1
        fi
    fi
    if [ "$rc" -ne 0 ]; then
        status=1
        if [ "$f" -eq 0 ]; then
            echo "$t: exit $rc with 0 failed"; failed=$((failed + 1))
        fi
    fi
done
echo "total: $passed passed, $failed failed"
exit $status
