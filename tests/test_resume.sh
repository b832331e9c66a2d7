#!/bin/sh
# test_resume.sh - kill -9 in every stage of the default run, then the same
# command line plus -resume: the straight run's bytes. On the sample corpus
# with -head 300 (RO on the 300 most frequent words, the other 4155 folded
# in after), so all three stages (the SGD start, the steps, the fold) run in
# seconds. The kills come from the test hook RO_SGNS_CLI_KILL_AT=STAGE:N
# (docs/TESTING.md): the program raises SIGKILL on itself there (count,
# sgd, start, step, fold, save); one real kill -9 from outside after a delay too.
# Kills at 3 threads are resumed at 1 and the other way round (the same
# bits at any thread count); the -min-gain stop is in the checkpoint, so a
# kill after the step that stopped resumes to no step more; an -output that
# existed before the kill holds its old bytes until the new ones are whole.
#   sh tests/test_resume.sh [path/to/ro-sgns [path/to/ro-sgns-asan]]   (from the repository root)
BIN=${1:-./ro-sgns}
ASAN=${2:-}
SAMPLE=../shared/data/corpus/sample.txt
T=${RO_SGNS_TEST_TMP:-build}/resume_test
NAME=resume
. tests/sh_lib.sh
same() { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 and $2 differ"; fi; }
[ -f "$SAMPLE" ] || { echo "resume: $SAMPLE not found"; echo "resume: 0 passed, 1 failed"; exit 1; }

# -min-gain 5 stops after step 3 (it raises F by 4.1%) of -steps 6; the SGD
# start has 4 rounds (2 epochs of 2), so states after rounds 1 to 3
C="-train $SAMPLE -min-count 5 -head 300 -steps 6 -min-gain 5"
A="$C -size 10 -iter 2"
"$BIN" train $A -quiet -output "$T/ref.txt" 2> "$T/err" || bad "the straight run: $(cat "$T/err")"
for th in 1 3; do
    "$BIN" train $A -quiet -threads $th -output "$T/ref$th.txt" 2> "$T/err" || bad "-threads $th: $(cat "$T/err")"
    same "$T/ref$th.txt" "$T/ref.txt" "the straight run at $th thread(s)"
done

# kill_resume STAGE:N KILL_THREADS RESUME_THREADS [EXTRA FLAGS]: killed there (exit
# 137, the checkpoint left as the kill found it), then resumed with the same
# flags plus -resume: the straight run's bytes
kill_resume() {
    at=$1
    kt=$2
    rt=$3
    shift 3
    rm -f "$T/ck" "$T/out.txt" "$T"/*.part "$T"/*.tmp
    printf 'old\n' > "$T/out.txt"
    RO_SGNS_CLI_KILL_AT=$at "$BIN" train $A -quiet -threads "$kt" "$@" -checkpoint "$T/ck" \
        -output "$T/out.txt" 2> "$T/err"
    rc=$?
    [ "$rc" -eq 137 ] && ok || bad "RO_SGNS_CLI_KILL_AT=$at: exit $rc, not 137 (SIGKILL): $(head -c 300 "$T/err")"
    [ "$(cat "$T/out.txt")" = old ] && ok || bad "killed at $at: -output is no longer the old file"
    "$BIN" train $A -threads "$rt" "$@" -checkpoint "$T/ck" -resume "$T/ck" -output "$T/out.txt" \
        2> "$T/err" || bad "resumed after $at: $(head -c 400 "$T/err")"
    same "$T/out.txt" "$T/ref.txt" "killed at $at on $kt thread(s), resumed on $rt"
}

kill_resume count:1 3 1
grep -q "no checkpoint yet; starting from the beginning" "$T/err" && ok || bad "after counting: $(head -c 300 "$T/err")"
kill_resume sgd:1 3 1
grep -q "in the SGD start, round 1 " "$T/err" && ok || bad "sgd:1 resumed elsewhere: $(head -c 300 "$T/err")"
kill_resume sgd:3 1 3
grep -q "in the SGD start, round 3 " "$T/err" && ok || bad "sgd:3 resumed elsewhere: $(head -c 300 "$T/err")"
kill_resume start:1 3 1 # the SGD start's end: its rows and the head's start point
rm -f "$T/ck" # that checkpoint records the -negative and -cds the steps are for
RO_SGNS_CLI_KILL_AT=start:1 "$BIN" train $A -quiet -checkpoint "$T/ck" -output "$T/x.txt" 2> "$T/err"
"$BIN" train $A -negative 4 -checkpoint "$T/ck" -resume "$T/ck" -output "$T/x.txt" 2> "$T/err" &&
    bad "-negative 4 resumed a -negative 5 start" ||
    { grep -q "k 4 here, 5 in the checkpoint" "$T/err" && ok || bad "-negative 4: $(cat "$T/err")"; }
kill_resume step:1 1 3
kill_resume step:3 3 1 # the step that stopped the run: no step more after the resume
grep -q "had stopped at step 3 .*no step more" "$T/err" && ok || bad "step:3: $(head -c 300 "$T/err")"
kill_resume fold:1 3 1
kill_resume save:1 1 3

# -curve: a kill after step 2's checkpoint, resumed: every step has one row
"$BIN" train $A -quiet -curve "$T/ref.csv" -output "$T/x.txt" 2> "$T/err" || bad "curve: $(cat "$T/err")"
kill_resume step:2 3 1 -curve "$T/c.csv"
cut -d, -f1 "$T/ref.csv" > "$T/ref.it"
cut -d, -f1 "$T/c.csv" > "$T/c.it"
same "$T/c.it" "$T/ref.it" "the resumed -curve's steps"

# Hogwild (-virtual-workers 0) has no SGD state to keep (its bits depend on timing):
# the stage is redone; on one thread the run is the same
"$BIN" train $A -quiet -virtual-workers 0 -threads 1 -output "$T/hog.txt" 2> "$T/err" || bad "-virtual-workers 0: $(cat "$T/err")"
rm -f "$T/ck"
RO_SGNS_CLI_KILL_AT=step:2 "$BIN" train $A -quiet -virtual-workers 0 -threads 1 -checkpoint "$T/ck" -output "$T/x.txt" 2> "$T/err"
"$BIN" train $A -virtual-workers 0 -threads 1 -checkpoint "$T/ck" -resume "$T/ck" -output "$T/hog_r.txt" 2> "$T/err" ||
    bad "-virtual-workers 0 resumed: $(cat "$T/err")"
same "$T/hog_r.txt" "$T/hog.txt" "-virtual-workers 0 -threads 1, killed at step 2"

# a checkpoint of the SGD start does not fit a run with another start
rm -f "$T/ck"
RO_SGNS_CLI_KILL_AT=sgd:1 "$BIN" train $A -checkpoint "$T/ck" -output "$T/x.txt" 2> "$T/err"
"$BIN" train $C -size 10 -init svd -resume "$T/ck" -output "$T/x.txt" 2> "$T/err" && bad "-init svd resumed an SGD state" ||
    { grep -q "holds the state of an SGD start" "$T/err" && ok || bad "-init svd: $(cat "$T/err")"; }
"$BIN" train $C -size 12 -iter 2 -resume "$T/ck" -output "$T/x.txt" 2> "$T/err" && bad "-size 12 resumed a -size 10 state" ||
    { grep -q "does not fit this run" "$T/err" && ok || bad "-size 12: $(cat "$T/err")"; }
# under ASan + UBSan with leak detection: a resume from the SGD state
if [ -n "$ASAN" ]; then
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 "$ASAN" train $A -checkpoint "$T/ck" \
        -resume "$T/ck" -output "$T/asan.txt" 2> "$T/err" || bad "ASan resume: $(head -c 600 "$T/err")"
    grep -Eq "Sanitizer|runtime error" "$T/err" && bad "ASan resume: $(head -c 600 "$T/err")" || ok
    same "$T/asan.txt" "$T/ref.txt" "ASan's resume from the SGD state"
fi

# one real kill -9 from outside, wherever the run is after 1.5 s (more steps
# and a larger d: a few seconds in all), then the resume
B="-train $SAMPLE -min-count 5 -size 20 -head 300 -iter 3 -steps 12 -min-gain 0 -quiet"
"$BIN" train $B -output "$T/refb.txt" 2> "$T/err" || bad "the longer run: $(cat "$T/err")"
rm -f "$T/ck"
"$BIN" train $B -checkpoint "$T/ck" -output "$T/outb.txt" 2> "$T/err" &
pid=$!
sleep 1.5
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
"$BIN" train $B -checkpoint "$T/ck" -resume "$T/ck" -output "$T/outb.txt" 2> "$T/err" ||
    bad "resumed after kill -9: $(head -c 400 "$T/err")"
same "$T/outb.txt" "$T/refb.txt" "kill -9 after 1.5 s, resumed"

echo "resume: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
