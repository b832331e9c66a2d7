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
# tests/wasi_run.mjs (cross-wasm's runner): node's own crash (a signal) after
# the program's status arrived keeps that status; one before it reruns the
# program once, and twice fails; a trap and a plain status pass through.
# Needs clang's wasm32-wasi target and node (.ci/install-cross.sh); under
# CI=true their absence is a failure, as in tests/run.sh.
WCC=${WASM_CC:-clang-14}
if command -v node >/dev/null 2>&1 && [ -f /usr/include/wasm32-wasi/stdio.h ] &&
   printf '#include <stdio.h>\nint main(int c, char **v) { puts("ran"); if (c > 1 && v[1][0] == 116) __builtin_trap(); return c > 1 ? 3 : 0; }\n' > "$D/w.c" &&
   $WCC --target=wasm32-wasi -O1 "$D/w.c" -o "$D/w.wasm" >/dev/null 2>&1; then
    N="node --experimental-wasi-unstable-preview1 --no-warnings tests/wasi_run.mjs $D/w.wasm"
    expect "wasi_run: status 0" 0 $N
    expect "wasi_run: status 3" 3 $N x
    expect "wasi_run: a trap" 1 $N t
    expect "wasi_run: node crashes after the status" 3 env WASI_RUN_CRASH=after $N x
    expect "wasi_run: node crashes twice before it" 139 env WASI_RUN_CRASH=before $N
    [ "$(grep -c 'running it once more' "$D/out")" -eq 1 ] && [ "$(grep -c 'twice: exit 139' "$D/out")" -eq 1 ] &&
        pass=$((pass + 1)) || { fail=$((fail + 1)); echo "harness: FAILED: wasi_run's messages for two crashes:"; cat "$D/out"; }
elif [ "${CI:-}" = true ]; then
    fail=$((fail + 1)); echo "harness: FAILED: node or $WCC's wasm32-wasi target missing under CI=true"
else
    echo "harness: node or $WCC's wasm32-wasi target missing: the wasi_run checks skipped"
fi
echo "harness: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
