#!/bin/sh
# fuzz_check.sh - build every libFuzzer target (tests/fuzz_*.c) with clang,
# ASan and UBSan, and run each for a few seconds from its seeds: the short
# fuzzing make check does (make fuzz runs them longer). A target that does
# not build, or that finds a crash, a leak or a failed check, fails.
#   sh tests/fuzz_check.sh [SECONDS] [TARGETS...]
# Built at FUZZ_OPT (default -O0: a sixth of -O1's compile time; a few
# seconds of fuzzing is a smoke test, make fuzz builds at -O1 for long runs).
# Ends with "fuzz: N passed, N failed". Without clang's libFuzzer it says
# so and skips (a failure under CI=true).
S=${1:-3}
[ $# -gt 0 ] && shift
T=${*:-"count counts_load w2v_text w2v_bin glove pairs"}
CLANG=${CLANG:-clang}
OPT=${FUZZ_OPT:--O0}
B=${RO_SGNS_TEST_TMP:-build}/fuzz_check
mkdir -p "$B"
if ! printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
        > "$B/probe.c" || ! $CLANG -fsanitize=fuzzer "$B/probe.c" -o "$B/probe" >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
        echo "fuzz: FAILED: $CLANG cannot build libFuzzer targets (CI=true: nothing may be skipped)"
        echo "fuzz: 0 passed, 1 failed"
        exit 1
    fi
    echo "fuzz: $CLANG cannot build libFuzzer targets: skipped"
    echo "fuzz: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
pass=0
fail=0
for f in $T; do
    bin=$B/fuzz_$f
    corpus=$B/fuzz_${f}_corpus
    if ! $CLANG -g $OPT -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            "tests/fuzz_$f.c" -o "$bin" -lm > "$B/$f.build" 2>&1; then
        echo "fuzz: FAILED: tests/fuzz_$f.c does not build"
        tail -n 5 "$B/$f.build"
        fail=$((fail + 1))
        continue
    fi
    mkdir -p "$corpus"
    # targets that make their own seeds (RO_SGNS_FUZZ_SEEDS) write them now
    RO_SGNS_FUZZ_SEEDS=$corpus "$bin" -runs=0 "$corpus" > "$B/$f.seeds" 2>&1
    if "$bin" -max_total_time="$S" -max_len=4096 -timeout=10 -artifact_prefix="$B/$f-" \
            "$corpus" > "$B/$f.log" 2>&1; then
        echo "fuzz_$f: $(grep -Eo 'Done [0-9]+ runs' "$B/$f.log" | tail -n 1) in $S s"
        pass=$((pass + 1))
    else
        echo "fuzz: FAILED: fuzz_$f (artifacts $B/$f-*)"
        grep -E 'ERROR|SUMMARY|runtime error' "$B/$f.log" | head -n 5
        fail=$((fail + 1))
    fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
