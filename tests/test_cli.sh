#!/bin/sh
# test_cli.sh - the ro-sgns program end to end on the sample corpus: every
# subcommand, every bad-usage case (non-zero exit, one line on stderr, never
# a crash), and -resume equal to the straight run.
#   sh tests/test_cli.sh [path/to/ro-sgns]       (run from the repository root)
BIN=${1:-./ro-sgns}
SAMPLE=../shared/data/corpus/sample.txt
SETS=../shared/data/wordsim
T=build/cli_test
passed=0
failed=0
rm -rf "$T"
mkdir -p "$T"

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
# expect success
run() { if "$@" > "$T/out" 2> "$T/err"; then ok; else bad "$* (exit $?): $(head -c 300 "$T/err")"; fi; }
# expect a clean failure: exit 1 (not a signal), a message on stderr
fails() {
    "$@" > "$T/out" 2> "$T/err"
    rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ -s "$T/err" ]; then ok; else bad "expected an error from: $* (exit $rc)"; fi
}

[ -x "$BIN" ] || { echo "cli: $BIN not built (make ro-sgns)"; echo "cli: 0 passed, 1 failed"; exit 1; }
[ -f "$SAMPLE" ] || { echo "cli: $SAMPLE not found"; echo "cli: 0 passed, 1 failed"; exit 1; }

# help
run "$BIN" -help
grep -q "usage: ro-sgns COMMAND" "$T/out" && ok || bad "help text"

# count
run "$BIN" count -train "$SAMPLE" -output "$T/s.counts" -window 5 -min-count 5 -quiet
[ -s "$T/s.counts" ] && ok || bad "counts file written"
run "$BIN" count -train "$SAMPLE" -output "$T/s2.counts" -window 2 -min-count 20 -dynamic-window 2 -memory 64M

# train svd and ro (with eval, curve, checkpoint)
run "$BIN" train -counts "$T/s.counts" -method svd -size 20 -output "$T/svd.vec" -quiet
run "$BIN" train -counts "$T/s.counts" -method ro -size 20 -iter 3 -binary 1 -eval "$SETS" \
    -curve "$T/curve.csv" -checkpoint "$T/ckpt" -output "$T/ro.bin" -output-contexts "$T/ro_ctx.bin"
[ "$(wc -l < "$T/curve.csv")" -eq 5 ] && ok || bad "curve has a header, the start and 3 steps"
grep -q "iter   3" "$T/err" && ok || bad "progress lines on stderr"
[ -s "$T/out" ] && bad "train wrote to stdout" || ok

# sgd: word2vec's SGD on the same vocabulary, W and C written
run "$BIN" train -counts "$T/s.counts" -method sgd -train "$SAMPLE" -size 20 -output "$T/sgd.vec" -output-contexts "$T/sgd_ctx.vec" -quiet
run "$BIN" objective -counts "$T/s.counts" -vectors "$T/sgd.vec" -contexts "$T/sgd_ctx.vec"
fails "$BIN" train -counts "$T/s.counts" -method sgd -size 20 -output "$T/x.vec"

# -resume: 2 steps + checkpoint, then resume to 3 = the straight 3-step run
run "$BIN" train -counts "$T/s.counts" -method ro -size 20 -iter 2 -checkpoint "$T/ck2" -output "$T/two.vec" -quiet
run "$BIN" train -counts "$T/s.counts" -method ro -size 20 -iter 3 -resume "$T/ck2" -output "$T/resumed.bin" -binary 1 -quiet
cmp -s "$T/resumed.bin" "$T/ro.bin" && ok || bad "-resume differs from the straight run"

# eval: a table with finite scores in [-1, 1]
run "$BIN" eval -vectors "$T/ro.bin" "$SETS/ws353.txt" "$SETS/men.txt"
awk '$1 == "men.txt" { if ($2 >= -1 && $2 <= 1 && $2 != "nan") ok = 1 } END { exit !ok }' "$T/out" && ok || bad "men score in [-1, 1]"
run "$BIN" eval -vectors "$T/svd.vec" "$SETS/ws353_sim.txt"

# neighbors: a number's neighbours include another number
run "$BIN" neighbors -vectors "$T/ro.bin" -k 10 three
grep -Eq "^  (one|two|four|five|six|seven|eight|nine|ten) " "$T/out" && ok || bad "a number near 'three': $(cat "$T/out")"

# objective of W, C
run "$BIN" objective -counts "$T/s.counts" -vectors "$T/ro.bin" -contexts "$T/ro_ctx.bin"
grep -q "^F = -" "$T/out" && ok || bad "objective printed"

# bad usage: each exits non-zero with a message, never a crash
fails "$BIN"
fails "$BIN" frobnicate
fails "$BIN" count -output "$T/x.counts"
fails "$BIN" count -train "$T/no_such_file" -output "$T/x.counts"
fails "$BIN" count -train "$SAMPLE" -output "$T/x.counts" -window 0
fails "$BIN" count -train "$SAMPLE" -output "$T/x.counts" -window
fails "$BIN" count -train "$SAMPLE" -output "$T/x.counts" -bogus 1
fails "$BIN" count -train "$SAMPLE" -output "$T/x.counts" -min-count 100000000
fails "$BIN" count -train "$SAMPLE" -output "$T/no_dir/x.counts"
printf '\000\001\002\377' > "$T/binary.txt"
fails "$BIN" count -train "$T/binary.txt" -output "$T/x.counts" -min-count 2
: > "$T/empty.txt"
fails "$BIN" count -train "$T/empty.txt" -output "$T/x.counts"
fails "$BIN" train -counts "$T/s.counts" -method ro -size 20
fails "$BIN" train -counts "$T/s.counts" -method magic -size 20 -output "$T/x.vec"
fails "$BIN" train -counts "$T/s.counts" -size 100000 -output "$T/x.vec"
fails "$BIN" train -counts "$T/s.counts" -size abc -output "$T/x.vec"
fails "$BIN" train -counts "$T/svd.vec" -size 20 -output "$T/x.vec"
fails "$BIN" train -counts "$T/s.counts" -size 20 -output "$T/x.vec" -resume "$T/svd.vec"
head -c 1000 "$T/s.counts" > "$T/trunc.counts"
fails "$BIN" train -counts "$T/trunc.counts" -size 20 -output "$T/x.vec"
fails "$BIN" eval -vectors "$T/ro.bin"
fails "$BIN" eval -vectors "$T/no_such.vec" "$SETS/men.txt"
fails "$BIN" eval -vectors "$T/s.counts" -binary 0 "$SETS/men.txt"
fails "$BIN" neighbors -vectors "$T/ro.bin" no_such_word_xyz
fails "$BIN" objective -counts "$T/s.counts"

rm -rf "$T"
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
