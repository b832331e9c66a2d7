#!/bin/sh
# test_harness.sh - the checks of the checks: tests/run.sh fails a run for
# each way a test program can fail or check nothing, and under CI=true a
# missing optional piece is a failure, not a skip. Run from the repository
# root: sh tests/test_harness.sh. Ends with "harness: N passed, N failed".
D=${RO_SGNS_TEST_TMP:-build}/harness
mkdir -p "$D"
pass=0
fail=0
expect() { # name want-status command...
    name=$1; want=$2; shift 2
    "$@" >"$D/out" 2>&1; got=$?
    if [ "$got" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "harness: FAILED: $name: exit $got, want $want"
        sed 's/^/    /' "$D/out" | tail -n 5
    fi
}
prog() { # file, then the lines it prints and its exit status
    f=$D/$1; shift
    printf '#!/bin/sh\n' > "$f"
    while [ $# -gt 1 ]; do printf 'echo "%s"\n' "$1" >> "$f"; shift; done
    printf 'exit %s\n' "$1" >> "$f"
}
prog good.sh "t: 3 passed, 0 failed" 0
prog failed_exit0.sh "t: 3 passed, 1 failed" 0
prog nothing.sh "t: 0 passed, 0 failed" 0
prog crashed.sh "t: 3 passed, 0 failed" 139
prog silent.sh 0
prog skipped.sh "t: 0 passed, 0 failed, 1 skipped" 0
expect "a passing program" 0 sh tests/run.sh "sh $D/good.sh"
expect "'1 failed' with exit 0" 1 sh tests/run.sh "sh $D/failed_exit0.sh"
expect "'0 passed, 0 failed'" 1 sh tests/run.sh "sh $D/nothing.sh"
expect "a crash after a clean summary" 1 sh tests/run.sh "sh $D/crashed.sh"
expect "no summary line" 1 sh tests/run.sh "sh $D/silent.sh"
expect "a skip, not in CI" 0 env CI= sh tests/run.sh "sh $D/skipped.sh"
expect "a skip under CI=true" 1 env CI=true sh tests/run.sh "sh $D/skipped.sh"
expect "one bad program among good ones" 1 sh tests/run.sh "sh $D/good.sh" "sh $D/nothing.sh" "sh $D/good.sh"
# the gensim interop with a Python that cannot import gensim
printf '#!/bin/sh\nexit 1\n' > "$D/nopython"
chmod +x "$D/nopython"
mkdir -p "$D/bin"
cp "$D/nopython" "$D/bin/python3"
expect "interop without gensim, not in CI" 0 env CI= PATH="$D/bin:/bin:/usr/bin" PYTHON="$D/nopython" sh -c "sed 's|/usr/bin/python3|$D/nopython|' tests/interop_gensim.sh > $D/interop.sh && sh $D/interop.sh"
expect "interop without gensim under CI=true" 1 env CI=true PATH="$D/bin:/bin:/usr/bin" PYTHON="$D/nopython" sh -c "sed 's|/usr/bin/python3|$D/nopython|' tests/interop_gensim.sh > $D/interop.sh && sh $D/interop.sh"
echo "harness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
