#!/bin/sh
# test_cli.sh - the ro-sgns program end to end on the sample corpus: one
# command from text to vectors for ro, svd and sgd; word2vec's and
# hyperwords' flag meanings; every renamed or refused flag; the vectors
# format rule both ways; standard input and output; GloVe and headerless
# text; eval, neighbors and similarity against references computed here
# (awk), similarity against gensim's own (when python3 has gensim); help;
# docs/CLI.md's synopsis and README's C example; make install; and every bad-usage
# case (exit 1, a message on stderr, nothing written, never a crash),
# those under AddressSanitizer + UBSan with leak detection when an ASan
# build is given.
#   sh tests/test_cli.sh [path/to/ro-sgns [path/to/ro-sgns-asan]]   (from the repository root)
BIN=${1:-./ro-sgns}
ASAN=${2:-}
SAMPLE=../shared/data/corpus/sample.txt
SETS=../shared/data/wordsim
T=${RO_SGNS_TEST_TMP:-build}/cli_test
NAME=cli
. tests/sh_lib.sh
check() { # check DESCRIPTION COMMAND...: a condition
    d=$1
    shift
    if "$@"; then ok; else bad "$d"; fi
}
# run ARGS...: ro-sgns ARGS succeeds; stdout in $T/out, stderr in $T/err
run() {
    if "$BIN" "$@" > "$T/out" 2> "$T/err"; then ok; else bad "ro-sgns $* (exit $?): $(head -c 400 "$T/err")"; fi
}
# fails PATTERN ARGS...: ro-sgns ARGS exits 1 (not a signal) with PATTERN
# (grep -E) on stderr, under ASan + UBSan + leak detection when given
fails() {
    pat=$1
    shift
    b=$BIN
    [ -n "$ASAN" ] && b=$ASAN
    ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=87 \
        "$b" "$@" > "$T/out" 2> "$T/err"
    rc=$?
    if [ "$rc" -ne 1 ]; then
        bad "ro-sgns $* exited $rc, not 1: $(head -c 600 "$T/err")"
    elif grep -Eq "Sanitizer|runtime error" "$T/err"; then
        bad "ro-sgns $*: sanitizer report: $(head -c 600 "$T/err")"
    elif ! grep -Eq -- "$pat" "$T/err"; then
        bad "ro-sgns $*: stderr lacks '$pat': $(head -c 400 "$T/err")"
    else
        ok
    fi
}
# same A B: files identical
same() { if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; fi; }
differ() { if cmp -s "$1" "$2"; then bad "$1 and $2 are the same"; else ok; fi; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

[ -f "$SAMPLE" ] || { echo "cli: $SAMPLE not found"; echo "cli: 0 passed, 1 failed"; exit 1; }
[ -z "$ASAN" ] || [ -x "$ASAN" ] || { echo "cli: $ASAN not built"; echo "cli: 0 passed, 1 failed"; exit 1; }

# ------------------------------------------------------------ help
run -help
grep -q "^  ro-sgns train -train TEXT -output VECTORS" "$T/out" && ok || bad "usage lines in -help"
for h in -h --help help; do run $h; grep -q "^usage:" "$T/out" && ok || bad "$h prints the usage"; done
run -version
grep -Eq "^ro-sgns [0-9]+\.[0-9]+\.[0-9]+$" "$T/out" && ok || bad "-version: $(cat "$T/out")"
run --version
# what goes to standard output must get there: /dev/full is an error
if [ -w /dev/full ]; then
    for a in -version -help "train -help" "help count"; do
        # shellcheck disable=SC2086
        "$BIN" $a > /dev/full 2> "$T/err" && bad "ro-sgns $a > /dev/full exited 0" || ok
        grep -q "cannot write to standard output" "$T/err" && ok || bad "ro-sgns $a > /dev/full: $(cat "$T/err")"
    done
fi
# the help names every byte that splits tokens, as the counter does
run count -help
grep -q "'\\\\v', '\\\\f', NUL" "$T/out" && ok || bad "count -help: the token-splitting bytes"
for c in train count eval neighbors similarity objective vocab; do
    run $c -help
    grep -q "^usage: ro-sgns $c" "$T/out" && ok || bad "$c -help: its usage"
    grep -q "^files:" "$T/out" && ok || bad "$c -help: its file formats"
    awk 'length($0) > 80 { exit 1 }' "$T/out" && ok || bad "$c -help: a line over 80 columns"
    [ -s "$T/err" ] && bad "$c -help wrote to stderr" || ok
done
run help train
grep -q "^usage: ro-sgns train" "$T/out" && ok || bad "help train"
run train -help
# defaults as the library's config defaults give them
grep -Eq "^  -window L +words on each side \(5," "$T/out" && ok || bad "train -help: -window default"
grep -Eq "^  -steps K +at most K RO steps \(10; from -init sgd 30," "$T/out" && ok || bad "train -help: -steps defaults"
grep -Eq "^ +sgd \(5\), the -init sgd start \(3\)" "$T/out" && ok || bad "train -help: -iter defaults"
grep -Eq "^  -alpha A +starting learning rate \(0.025\)" "$T/out" && ok || bad "train -help: -alpha"
grep -q "^  -eig P" "$T/out" && ok || bad "train -help: -eig"
awk 'length($0) > 80 { exit 1 }' "$T/out" && ok || bad "-help over 80 columns"
fails "unknown command" frobnicate
fails "usage" # no command: the usage on stderr, exit 1

# the synopsis in docs/CLI.md is the help's
if [ -f docs/CLI.md ]; then
    awk '/^## The program/ { p = 1; next } p && /^```/ { if (++f == 2) exit; next } p && f == 1' docs/CLI.md > "$T/readme_synopsis"
    "$BIN" -help | awk '/^usage:/ { p = 1; next } p && /^$/ { exit } p { sub(/^  /, ""); print }' > "$T/help_synopsis"
    if [ -s "$T/readme_synopsis" ] && cmp -s "$T/readme_synopsis" "$T/help_synopsis"; then ok; else
        bad "docs/CLI.md's synopsis differs from ro-sgns -help: $(diff "$T/readme_synopsis" "$T/help_synopsis" | head -5)"
    fi
fi

# ------------------------------------------------------------ one command, three methods
run train -train "$SAMPLE" -init svd -output "$T/ro.bin" -size 20 -steps 2 -eig 0.5 -embed w -save-counts "$T/s.counts" \
    -output-contexts "$T/ro_ctx.bin"
[ -s "$T/out" ] && bad "train wrote to stdout" || ok
grep -q "^count: reading sample.txt .* 100.0%" "$T/err" && ok || bad "counting progress with percent"
grep -q "^count: pairs 100.0% of [0-9]* positions" "$T/err" && ok || bad "counting's pair pass shows its progress: $(cat "$T/err")"
grep -q "^iter   2/2  F -" "$T/err" && ok || bad "RO progress lines: $(cat "$T/err")"
grep -q "ETA" "$T/err" && ok || bad "RO progress has an ETA"
# the tangent measure: step 1 is its own unit, step 2 a fraction of it
grep -q "^iter   1/2 .*(|dX|/step: 1 x the first)" "$T/err" && ok || bad "|dX|/step of step 1: $(grep '^iter' "$T/err")"
grep -Eq "^iter   2/2 .*\(\|dX\|/step: 0\.[0-9]+ x the first\)" "$T/err" && ok || bad "|dX|/step falls at step 2: $(grep '^iter' "$T/err")"
tr -d '\n' < "$T/err" | grep -q "$(printf '\r')" && bad "\\r in progress written to a file" || ok
run train -counts "$T/s.counts" -output "$T/ro2.bin" -size 20 -steps 2 -eig 0.5 -embed w -quiet
same "$T/ro.bin" "$T/ro2.bin"
[ -s "$T/err" ] && bad "-quiet wrote to stderr: $(cat "$T/err")" || ok
# the paper's form (W = U Sigma^0.5, C = V Sigma^0.5, W C^T = X), not the defaults
run train -train "$SAMPLE" -method svd -size 20 -eig 0.5 -embed w -output "$T/svd.txt" -output-contexts "$T/svd_ctx.txt" -quiet
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -output "$T/svd2.txt" -quiet
same "$T/svd.txt" "$T/svd2.txt"
run train -train "$SAMPLE" -method sgd -size 20 -iter 1 -threads 1 -output "$T/sgd.txt" \
    -output-contexts "$T/sgd_ctx.txt"
grep -q "1 epoch" "$T/err" && ok || bad "sgd: 1 epoch (-iter)"
run train -counts "$T/s.counts" -train "$SAMPLE" -method sgd -size 20 -iter 1 -threads 1 -output "$T/sgd2.txt" -quiet
same "$T/sgd.txt" "$T/sgd2.txt" # the same vocabulary from the text or the counts
n=$(awk 'NR == 1 { print $1 }' "$T/sgd.txt")
[ "$n" = "$(awk 'NR == 1 { print $1 }' "$T/svd.txt")" ] && ok || bad "sgd and svd vocabularies differ"
run train -train "$SAMPLE" -method sgd -size 20 -iter 2 -threads 1 -output "$T/sgd_e2.txt"
grep -q "2 epoch" "$T/err" && ok || bad "sgd: -steps 2 epochs"
differ "$T/sgd.txt" "$T/sgd_e2.txt"
run train -train "$SAMPLE" -method sgd -size 20 -iter 1 -threads 1 -alpha 0.05 -output "$T/sgd_a.txt" -quiet
differ "$T/sgd.txt" "$T/sgd_a.txt" # -alpha is the learning rate
run train -train "$SAMPLE" -method sgd -size 20 -iter 1 -threads 1 -sample 1e-3 -output "$T/sgd_s.txt" -quiet
differ "$T/sgd.txt" "$T/sgd_s.txt"
run train -train "$SAMPLE" -method sgd -size 20 -iter 1 -threads 1 -cbow 0 -hs 0 -output "$T/sgd_w2v.txt" -quiet
same "$T/sgd.txt" "$T/sgd_w2v.txt" # word2vec's -cbow 0 -hs 0 are what sgd does
run objective -counts "$T/s.counts" -vectors "$T/sgd.txt" -contexts "$T/sgd_ctx.txt"
grep -q "^F = -" "$T/out" && ok || bad "objective of the SGD vectors"

# the default start with -train is SGD on 2 virtual workers, 3 epochs: the same bytes on 1,
# 2 and 3 threads, from the text or from its counts with the text; from -counts alone the
# start is SVD-SPPMI (the ro2.bin run above)
run train -train "$SAMPLE" -output "$T/dflt1.txt" -size 20 -steps 2 -threads 1
grep -q "^sgd: .*3 epoch.*sample 0.0001, virtual workers 2" "$T/err" && ok || bad "the default start with -train is not SGD: $(cat "$T/err")"
run train -train "$SAMPLE" -output "$T/dflt2.txt" -size 20 -steps 2 -threads 2 -quiet
same "$T/dflt1.txt" "$T/dflt2.txt"
run train -train "$SAMPLE" -output "$T/dflt3.txt" -size 20 -steps 2 -threads 3 -quiet
same "$T/dflt1.txt" "$T/dflt3.txt"
# from the SGD start the objective is the one SGD samples: counts with the
# weighted window and -init-sample's subsampling, cds 0.75; the output is W
run count -train "$SAMPLE" -dynamic-window 2 -sample 1e-4 -output "$T/sgdobj.counts" -quiet
run train -counts "$T/sgdobj.counts" -train "$SAMPLE" -output "$T/dflt4.txt" -size 20 -steps 2 -threads 2 -quiet
same "$T/dflt1.txt" "$T/dflt4.txt"
run train -train "$SAMPLE" -output "$T/dflt8.txt" -size 20 -steps 2 -dynamic-window 2 -sample 1e-4 -cds 0.75 -embed w -save-counts "$T/dflt8.counts" -quiet
same "$T/dflt1.txt" "$T/dflt8.txt"
same "$T/sgdobj.counts" "$T/dflt8.counts"
# each stays the user's when given: the paper's objective and W + C as before
run train -train "$SAMPLE" -output "$T/dflt9.txt" -size 20 -steps 2 -dynamic-window 0 -sample 0 -cds 1 -embed w+c -save-counts "$T/dflt9.counts" -quiet
run train -counts "$T/s.counts" -train "$SAMPLE" -output "$T/dflt10.txt" -size 20 -steps 2 -cds 1 -embed w+c -quiet
same "$T/dflt9.txt" "$T/dflt10.txt"
same "$T/s.counts" "$T/dflt9.counts"
differ "$T/dflt1.txt" "$T/dflt9.txt"
run train -counts "$T/s.counts" -train "$SAMPLE" -output "$T/dflt11.txt" -size 20 -steps 2 -quiet
differ "$T/dflt10.txt" "$T/dflt11.txt" # -cds 0.75 and W from the SGD start with -counts too
# from the SGD start -steps is a cap of 30 steps that -min-gain ends; from
# SVD-SPPMI it stays 10
run train -counts "$T/s.counts" -output "$T/ten.txt" -size 10 -min-gain 0
grep -q "^train: ro d = 10, 10 steps" "$T/err" && ok || bad "from SVD-SPPMI, -steps is not 10: $(tail -2 "$T/err")"
# (on the sample F still rises by 0.11% at step 30, so the cap is checked
# with -min-gain 0.2, which ends it near step 22)
run train -train "$SAMPLE" -output "$T/dflt12.txt" -size 20 -min-count 20 -min-gain 0.2
grep -q "^estimate: .* 30 steps " "$T/err" &&
    grep -q "^converged: step [12][0-9] raised F by 0.1[0-9]*%, under -min-gain 0.2%: stopped before step 30" "$T/err" && ok ||
    bad "from the SGD start, -steps is not a cap of 30 that -min-gain ends: $(tail -3 "$T/err")"
run train -train "$SAMPLE" -init sgd -iter 3 -init-sample 1e-4 -virtual-workers 2 -output "$T/dflt5.txt" -size 20 -steps 2 -quiet
same "$T/dflt1.txt" "$T/dflt5.txt"
run train -train "$SAMPLE" -output "$T/dflt6.txt" -size 20 -steps 2 -init-share 0.5 -quiet
differ "$T/dflt1.txt" "$T/dflt6.txt"
run train -train "$SAMPLE" -output "$T/dflt7.txt" -size 20 -steps 2 -init-sample 0 -quiet
differ "$T/dflt1.txt" "$T/dflt7.txt"
# -min-gain (0.1%): a step that raises F by less ends the run; 0 takes every step
run train -counts "$T/s.counts" -output "$T/mg.txt" -size 20 -steps 40
grep -q "^converged: step [0-9]* raised F by 0.0[0-9]*%, under -min-gain 0.1%" "$T/err" && ok || bad "-min-gain: no convergence note: $(tail -3 "$T/err")"
k=$(sed -n 's/^converged: step \([0-9]*\) .*/\1/p' "$T/err")
run train -counts "$T/s.counts" -output "$T/mg0.txt" -size 20 -steps "$k" -min-gain 0 -quiet
same "$T/mg.txt" "$T/mg0.txt"
run train -counts "$T/s.counts" -output "$T/mg1.txt" -size 20 -steps $((k + 1)) -min-gain 0
n0=$(sed -n 's/^train: ro d = 20, \([0-9]*\) steps.*/\1/p' "$T/err")
grep -q "^converged" "$T/err" && bad "-min-gain 0 stopped by the gain" || ok
[ "${n0:-0}" -gt "$k" ] && ok || bad "-min-gain 0 took $n0 steps, not more than $k"
# -grad-norm 1: |P_T(grad F)| at the start and after every step, the
# output the same bits as without it; not a flag of -method svd
run train -counts "$T/s.counts" -output "$T/gn.txt" -size 20 -steps 3 -min-gain 0 -grad-norm 1
check "-grad-norm: the start's norm" grep -q "^iter   0: |P_T(grad F)| [0-9.e+]* at the start" "$T/err"
check "-grad-norm: a norm after each of 3 steps" \
    test "$(grep -c "^iter   [123]/3 .*|P_T(grad F)| [0-9.e+]* ([0-9.e+-]* x the start's)" "$T/err")" = 3
run train -counts "$T/s.counts" -output "$T/gn0.txt" -size 20 -steps 3 -min-gain 0 -quiet
same "$T/gn.txt" "$T/gn0.txt"
fails "grad-norm.*(ro|RO)" train -counts "$T/s.counts" -output "$T/gnsvd.txt" -method svd -size 20 -grad-norm 1
# -direction metric: the steps run, F rises, another point than the scaled
# direction's; the same bits on 1 and 2 threads; -cg-iter only with it
run train -counts "$T/s.counts" -output "$T/met.txt" -size 20 -steps 4 -min-gain 0 -direction metric -threads 1
check "-direction metric: 4 steps" grep -q "^train: ro d = 20, 4 steps" "$T/err"
run train -counts "$T/s.counts" -output "$T/met2.txt" -size 20 -steps 4 -min-gain 0 -direction metric -threads 2 -quiet
same "$T/met.txt" "$T/met2.txt"
run train -counts "$T/s.counts" -output "$T/met0.txt" -size 20 -steps 4 -min-gain 0 -quiet
differ "$T/met.txt" "$T/met0.txt"
run train -counts "$T/s.counts" -output "$T/met3.txt" -size 20 -steps 4 -min-gain 0 -direction metric -cg-iter 0 -quiet
differ "$T/met.txt" "$T/met3.txt"
fails "cg-iter applies to -direction metric" train -counts "$T/s.counts" -output "$T/met4.txt" -size 20 -cg-iter 2
fails "direction.*expected scaled, plain or metric" train -counts "$T/s.counts" -output "$T/met5.txt" -size 20 -direction newton

# the ro run's F is above its SVD start's (Table 1's ordering)
run objective -counts "$T/s.counts" -vectors "$T/svd.txt" -contexts "$T/svd_ctx.txt"
f_svd=$(awk '{ print $3 }' "$T/out")
run objective -counts "$T/s.counts" -vectors "$T/ro.bin" -contexts "$T/ro_ctx.bin"
f_ro=$(awk '{ print $3 }' "$T/out")
lt "$f_svd" "$f_ro" && ok || bad "F: RO $f_ro not above SVD-SPPMI $f_svd"

# -eig and -embed against what they mean: -eig 0 gives W = U P, orthonormal
# columns; w+c is W + C; c is C
run train -counts "$T/s.counts" -method svd -size 20 -eig 0 -embed w -output "$T/eig0.txt" -quiet
awk 'NR > 1 { for (j = 2; j <= NF; ++j) s[j] += $j * $j } END { for (j in s) { e = s[j] - 1; if (e < 0) e = -e; if (e > m) m = e } exit !(m < 1e-4) }' "$T/eig0.txt" \
    && ok || bad "-eig 0: the columns of W are not orthonormal"
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w+c -output "$T/wc.txt" -quiet
awk 'FILENAME == ARGV[1] && FNR > 1 { for (j = 2; j <= NF; ++j) w[$1, j] = $j; next }
     FILENAME == ARGV[2] && FNR > 1 { for (j = 2; j <= NF; ++j) c[$1, j] = $j; next }
     FILENAME == ARGV[3] && FNR > 1 { for (j = 2; j <= NF; ++j) { e = $j - w[$1, j] - c[$1, j]; if (e < 0) e = -e; if (e > m) m = e } }
     END { exit !(m < 1e-5) }' "$T/svd.txt" "$T/svd_ctx.txt" "$T/wc.txt" && ok || bad "-embed w+c is not W + C"
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed c -output "$T/c.txt" -quiet
same "$T/c.txt" "$T/svd_ctx.txt"
run train -counts "$T/s.counts" -method sgd -train "$SAMPLE" -size 20 -iter 1 -threads 1 -embed w+c -output "$T/sgd_wc.txt" -quiet
awk 'FILENAME == ARGV[1] && FNR > 1 { for (j = 2; j <= NF; ++j) w[$1, j] = $j; next }
     FILENAME == ARGV[2] && FNR > 1 { for (j = 2; j <= NF; ++j) c[$1, j] = $j; next }
     FILENAME == ARGV[3] && FNR > 1 { for (j = 2; j <= NF; ++j) { e = $j - w[$1, j] - c[$1, j]; if (e < 0) e = -e; if (e > m) m = e } }
     END { exit !(m < 1e-5) }' "$T/sgd.txt" "$T/sgd_ctx.txt" "$T/sgd_wc.txt" && ok || bad "sgd -embed w+c is not W + C"
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -cds 0.75 -output "$T/cds.txt" -quiet
differ "$T/cds.txt" "$T/svd.txt"
# cds in the RO objective too: another run than cds 1
run train -counts "$T/s.counts" -size 20 -steps 2 -eig 0.5 -embed w -cds 0.75 -output "$T/ro_cds.bin" -quiet
differ "$T/ro_cds.bin" "$T/ro2.bin"

# ------------------------------------------------------------ renamed and refused flags
fails "not supported: CBOW" train -train "$SAMPLE" -output "$T/x.txt" -cbow 1
fails "not supported: hierarchical softmax" train -train "$SAMPLE" -output "$T/x.txt" -hs 1
fails "-alpha does not apply to -method ro.*-eig" train -counts "$T/s.counts" -output "$T/x.txt" -alpha 0.5
fails "renamed.*-alpha" train -train "$SAMPLE" -output "$T/x.txt" -alpha-sgd 0.1
fails "renamed.*-iter" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -epochs 2
fails "-input is -train" train -input "$SAMPLE" -output "$T/x.txt"
fails "-dim is -size" train -train "$SAMPLE" -output "$T/x.txt" -dim 20
fails "not supported" train -train "$SAMPLE" -output "$T/x.txt" -classes 10
fails "-counts COUNTS" train -train "$SAMPLE" -output "$T/x.txt" -read-vocab v.txt
fails "-steps does not apply to -method svd" train -train "$SAMPLE" -method svd -output "$T/x.txt" -steps 3
fails "-eig does not apply to -method sgd" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -eig 0.5
fails "-cds does not apply to -method sgd" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -cds 0.75
fails "-window does not apply.*-counts" train -counts "$T/s.counts" -output "$T/x.txt" -window 3
fails "-min-count does not apply" train -counts "$T/s.counts" -output "$T/x.txt" -min-count 3
fails "-save-counts does not apply" train -counts "$T/s.counts" -output "$T/x.txt" -save-counts "$T/y"
fails "-dynamic-window does not apply to -method sgd" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -dynamic-window 1
fails "-eval does not apply to -method svd" train -train "$SAMPLE" -method svd -output "$T/x.txt" -eval "$SETS"
fails "-iter does not apply" train -counts "$T/s.counts" -output "$T/x.txt" -iter 2
fails "-iter does not apply" train -train "$SAMPLE" -init svd -output "$T/x.txt" -iter 2
fails "-virtual-workers does not apply" train -train "$SAMPLE" -init svd -output "$T/x.txt" -virtual-workers 1
# issue 70: -iter is word2vec's epochs over the text wherever the text is
# read; RO's cap is -steps; gensim's workers (threads) is no flag here
fails "-iter does not apply.*RO's step cap is -steps" train -counts "$T/s.counts" -output "$T/x.txt" -iter 2
fails "-init-iter: renamed: the SGD start's epochs are -iter.*-steps" train -train "$SAMPLE" -output "$T/x.txt" -init-iter 2
fails "-workers: renamed: virtual SGD workers are -virtual-workers; threads are -threads" train -train "$SAMPLE" -output "$T/x.txt" -workers 2
fails "-workers: renamed" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -workers 2
fails "-iter 0: expected a whole number in \[1, 1000000\]" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -iter 0
run train -train "$SAMPLE" -output "$T/ep1.txt" -size 10 -min-count 20 -iter 1 -steps 0
grep -q "^sgd: d = 10, window 5, negative 5, 1 epoch(s)" "$T/err" && ok || bad "-iter 1: the SGD start's epochs: $(grep '^sgd' "$T/err")"
run train -train "$SAMPLE" -output "$T/ep2.txt" -size 10 -min-count 20 -steps 0
grep -q "^sgd: d = 10, window 5, negative 5, 3 epoch(s)" "$T/err" && ok || bad "the SGD start's 3 epochs: $(grep '^sgd' "$T/err")"
differ "$T/ep1.txt" "$T/ep2.txt"
fails "-sample does not apply.*-init-sample" train -counts "$T/s.counts" -train "$SAMPLE" -output "$T/x.txt" -sample 1e-3
fails "-svd does not apply" train -train "$SAMPLE" -method sgd -output "$T/x.txt" -svd subspace
fails "not both" train -train "$SAMPLE" -counts "$T/s.counts" -init svd -output "$T/x.txt"
fails "needs -train TEXT" train -counts "$T/s.counts" -method sgd -output "$T/x.txt"
fails "needs -train TEXT" train -counts "$T/s.counts" -init sgd -output "$T/x.txt"
fails "given twice" train -train "$SAMPLE" -output "$T/x.txt" -size 10 -size 20
fails "given twice" train -train "$SAMPLE" -output "$T/x.txt" -neg 5 -negative 5
fails "-keep-best needs -eval" train -train "$SAMPLE" -output "$T/x.txt" -keep-best
fails "name the same file" train -train "$SAMPLE" -output "$T/x.txt" -output-contexts "$T/x.txt"
fails "unknown flag -bogus" count -train "$SAMPLE" -output "$T/x.counts" -bogus 1
grep -q "did you mean" "$T/err" && bad "-bogus: a guess: $(cat "$T/err")" || ok
# a typo: the nearest flag by edit distance (2 at most, and less than half the name)
fails "unknown flag -szie: did you mean -size\?" train -train "$SAMPLE" -output "$T/x.txt" -szie 10
fails "unknown flag -min_count: did you mean -min-count\?" train -train "$SAMPLE" -output "$T/x.txt" -min_count 10
fails "unknown flag -ouptut: did you mean -output\?" count -train "$SAMPLE" -ouptut "$T/x.counts"
fails "unknown flag -restict-vocab: did you mean -restrict-vocab\?" eval -vectors "$T/svd.txt" -restict-vocab 3 "$SETS/men.txt"
fails "unknown flag -xyz \(ro-sgns train -help" train -train "$SAMPLE" -output "$T/x.txt" -xyz 1
# fastText's other flags, answered
fails "-t: fastText's -t is -sample here" train -train "$SAMPLE" -output "$T/x.txt" -t 1e-4
for f in minn maxn bucket; do
    fails "-$f: not supported: subword n-grams" train -train "$SAMPLE" -output "$T/x.txt" -$f 3
done
fails "-loss: not supported: ro-sgns trains negative sampling" train -train "$SAMPLE" -output "$T/x.txt" -loss ns
fails "-wordNgrams: not supported" train -train "$SAMPLE" -output "$T/x.txt" -wordNgrams 2
[ -e "$T/x.txt" ] && bad "a refused run wrote its output" || ok

# ------------------------------------------------------------ the format rule, both ways
# small counts: a refused run under ASan still measures the machine for its
# estimate (a problem of min(n, 2304) words), seconds at the sample's 4455
run count -train "$SAMPLE" -output "$T/small.counts" -min-count 40 -quiet
head -n 1 "$T/svd.txt" | grep -Eq "^[0-9]+ 20$" && ok || bad ".txt is word2vec text"
awk 'NR == 2 { exit !(NF == 21) }' "$T/svd.txt" && ok || bad ".txt: a word and 20 numbers a line"
head -c 20 "$T/ro.bin" | head -n 1 | grep -Eq "^[0-9]+ 20$" && ok || bad ".bin has the header"
run eval -vectors "$T/ro.bin" "$SETS/men.txt"
run eval -vectors "$T/ro.bin" -binary 1 "$SETS/men.txt"
cp "$T/ro.bin" "$T/ro_as.txt"
fails "named .txt but looks like word2vec binary" eval -vectors "$T/ro_as.txt" "$SETS/men.txt"
run eval -vectors "$T/ro_as.txt" -binary 1 "$SETS/men.txt"
cp "$T/svd.txt" "$T/svd_as.bin"
fails "named .bin but looks like text" eval -vectors "$T/svd_as.bin" "$SETS/men.txt"
fails "named .bin but looks like text" train -counts "$T/small.counts" -size 20 -steps 1 -init "$T/svd_as.bin" -output "$T/x.txt"
run eval -vectors "$T/svd_as.bin" -binary 0 "$SETS/men.txt"
# -binary overrides the name when writing, and the same rule reads it back
run train -counts "$T/s.counts" -method svd -size 20 -binary 0 -output "$T/forced.bin" -quiet
head -n 2 "$T/forced.bin" | awk 'NR == 2 { exit !(NF == 21) }' && ok || bad "-binary 0 wrote text into .bin"
fails "named .bin but looks like text" eval -vectors "$T/forced.bin" "$SETS/men.txt"
run train -counts "$T/s.counts" -method svd -size 20 -binary 1 -output "$T/forced.txt" -quiet
run eval -vectors "$T/forced.txt" -binary 1 "$SETS/men.txt"
cp "$T/out" "$T/eval_forced"
run eval -vectors "$T/forced.bin" -binary 0 "$SETS/men.txt"
same "$T/out" "$T/eval_forced"
run train -counts "$T/s.counts" -method svd -size 20 -format w2v-binary -output "$T/fmt.vec" -quiet
fails "named .vec but looks like word2vec binary" eval -vectors "$T/fmt.vec" "$SETS/men.txt"
run eval -vectors "$T/fmt.vec" -format w2v-binary "$SETS/men.txt"
fails "-format or -binary, not both" eval -vectors "$T/fmt.vec" -format w2v -binary 0 "$SETS/men.txt"
fails "-format glov: expected w2v, w2v-binary or glove" train -counts "$T/s.counts" -method svd -size 20 -format glov -output "$T/x.txt"
fails "-binary yes: expected 0 or 1" eval -vectors "$T/svd.txt" -binary yes "$SETS/men.txt"

# ------------------------------------------------------------ GloVe and headerless text
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -output "$T/svd.glove" -quiet
awk 'NR == 1 { exit !(NF == 21) }' "$T/svd.glove" && ok || bad ".glove: no header line"
[ "$(tail -n +2 "$T/svd.txt" | cmp - "$T/svd.glove" && echo y)" = y ] && ok || bad "GloVe = word2vec text without its header"
run eval -vectors "$T/svd.txt" "$SETS"
cp "$T/out" "$T/eval_txt"
run eval -vectors "$T/svd.glove" "$SETS"
same "$T/out" "$T/eval_txt"
tail -n +2 "$T/svd.txt" > "$T/headerless.txt" # gensim's save_word2vec_format(write_header=False)
run eval -vectors "$T/headerless.txt" "$SETS"
same "$T/out" "$T/eval_txt"
# the format sniffer takes the text the library reads
printf '2\t3\na 1 2 3\nb 4 5 6\n' > "$T/tab_header.txt"
run neighbors -vectors "$T/tab_header.txt" a
grep -q "^ *b " "$T/out" && ok || bad "a header 'V<tab>d': $(cat "$T/out" "$T/err")"
printf '2 3%70s\na 1 2 3\nb 4 5 6\n' "" > "$T/long_header.txt"
run neighbors -vectors "$T/long_header.txt" a
printf '2 3\na 0.%s 2 3\nb 4 5 6\n' "$(printf '%070d' 1)" > "$T/long_number.txt"
run neighbors -vectors "$T/long_number.txt" a
printf 'a 0.%s 2 3\nb 4 5 6\n' "$(printf '%070d' 1)" > "$T/long_number.glove.txt"
run neighbors -vectors "$T/long_number.glove.txt" a
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -format glove -output "$T/g.txt" -quiet
same "$T/g.txt" "$T/svd.glove"
# the start from W0, C0 of a GloVe file is X0 = W0 C0^T: the SVD's F (signs of
# the columns may differ)
run train -counts "$T/s.counts" -size 20 -steps 0 -init "$T/svd.glove" -init-contexts "$T/svd_ctx.txt" \
    -eig 0.5 -embed w -output "$T/init0.txt" -output-contexts "$T/init0_ctx.txt" -quiet
run objective -counts "$T/s.counts" -vectors "$T/init0.txt" -contexts "$T/init0_ctx.txt"
f_init=$(awk '{ print $3 }' "$T/out")
run objective -counts "$T/s.counts" -vectors "$T/svd.txt" -contexts "$T/svd_ctx.txt"
f_svd=$(awk '{ print $3 }' "$T/out")
awk -v a="$f_init" -v b="$f_svd" 'BEGIN { e = (a - b) / b; if (e < 0) e = -e; exit !(e < 1e-5) }' \
    && ok || bad "-init from GloVe, 0 steps: F $f_init, the SVD start's $f_svd"

# ------------------------------------------------------------ standard input and output
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -output -
cmp -s "$T/out" "$T/svd.txt" && ok || bad "-output - is the text file"
[ -s "$T/err" ] && ok || bad "progress still on stderr with -output -"
cat "$SAMPLE" | "$BIN" train -train - -method svd -size 20 -eig 0.5 -embed w -output "$T/stdin.txt" 2> "$T/err" && ok || bad "-train -"
same "$T/stdin.txt" "$T/svd.txt"
grep -q "standard input: 1.1 MB" "$T/err" && ok || bad "stdin progress in MB"
grep "reading standard input" "$T/err" | grep -q "%" && bad "a percentage for a pipe: $(cat "$T/err")" || ok
cat "$SAMPLE" | "$BIN" train -train - -method sgd -size 20 -iter 1 -threads 1 -output "$T/stdin_sgd.txt" -quiet && ok || bad "sgd -train -"
same "$T/stdin_sgd.txt" "$T/sgd.txt"
cat "$SAMPLE" | "$BIN" count -train - -output "$T/stdin.counts" -quiet && ok || bad "count -train -"
same "$T/stdin.counts" "$T/s.counts"
cat "$T/svd.txt" | "$BIN" eval -vectors - "$SETS" > "$T/out" && ok || bad "eval -vectors -"
same "$T/out" "$T/eval_txt"
fails "counts are binary" count -train "$SAMPLE" -output -

# ------------------------------------------------------------ eval: folders, lists, case, analogies
run eval -vectors "$T/svd.txt" "$SETS/men.txt" "$SETS/simlex999.txt" "$SETS/ws353.txt" "$SETS/ws353_rel.txt" "$SETS/ws353_sim.txt"
same "$T/out" "$T/eval_txt"
# each set's Spearman and pairs used against tests/spearman.awk's, computed
# apart from the library in double (eval prints 4 decimals)
for f in men simlex999 ws353 ws353_rel ws353_sim; do
    ref=$(awk -f tests/spearman.awk "$T/svd.txt" "$SETS/$f.txt")
    got=$(awk -v f="$f.txt" '$1 == f { sub("/.*", "", $4); print $2, $4 }' "$T/eval_txt")
    awk -v r="$ref" -v g="$got" 'BEGIN { split(r, a, " "); split(g, b, " "); d = a[1] - b[1]
        if (d < 0) d = -d; exit !(g != "" && b[1] != "nan" && d <= 1e-4 && a[2] == b[2]) }' \
        && ok || bad "eval $f: spearman and pairs used '$got', computed apart '$ref'"
done
# hand-made vectors whose analogies and neighbours are worked out here
cat > "$T/hand.txt" <<'EOF'
10 3
man 1 0 0
woman 1 1 0
king 3 0 0.2
queen 3 1 0.2
boy 0.5 0 1
girl 0.5 0.5 1
paris 0 3 -2
france 0 2 -2.5
rome 0.2 3 -1.8
italy 0.2 2 -2.2
EOF
cat > "$T/hand_q.txt" <<'EOF'
: family
MAN WOMAN KING QUEEN
man woman boy girl
KING QUEEN BOY GIRL
woman man queen king
: capitals
paris france rome italy
FRANCE PARIS ITALY ROME
man king woman queen
unknownword a b c
EOF
# reference: 3CosAdd and 3CosMul (eps 0.001) over unit vectors, a b c excluded,
# ties to the lower row
cat > "$T/analogy.awk" <<'EOF'
FNR == NR { if (FNR == 1) next; n++; w[n] = $1; row[$1] = n; s = 0
            for (j = 2; j <= NF; ++j) s += $j * $j; s = sqrt(s); d = NF - 1
            for (j = 2; j <= NF; ++j) u[n, j - 1] = $j / s; next }
/^:/ || NF != 4 { next }
{ for (k = 1; k <= 4; ++k) q[k] = fold ? tolower($k) : $k
  total++
  if (!(q[1] in row) || !(q[2] in row) || !(q[3] in row) || !(q[4] in row)) next
  seen++; a = row[q[1]]; b = row[q[2]]; c = row[q[3]]; best = 0
  for (x = 1; x <= n; ++x) {
      if (x == a || x == b || x == c) continue
      ca = cb = cc = 0
      for (j = 1; j <= d; ++j) { ca += u[x, j] * u[a, j]; cb += u[x, j] * u[b, j]; cc += u[x, j] * u[c, j] }
      sc = mul ? ((1 + cb) / 2) * ((1 + cc) / 2) / ((1 + ca) / 2 + 0.001) : cb - ca + cc
      if (best == 0 || sc > bs) { best = x; bs = sc }
  }
  if (w[best] == q[4]) correct++ }
END { printf "%d %d %d\n", correct, seen, total }
EOF
for m in add mul; do
    mul=0
    [ $m = mul ] && mul=1
    for fold in 0 1; do
        ref=$(awk -v fold=$fold -v mul=$mul -f "$T/analogy.awk" "$T/hand.txt" "$T/hand_q.txt")
        "$BIN" eval -vectors "$T/hand.txt" -analogy "$T/hand_q.txt" -analogy-method $m -fold-case $fold > "$T/out" 2> "$T/err"
        rc=$?
        got=$(awk '$1 == "overall" { split($4, s, "/"); print $3, s[1], s[2] }' "$T/out")
        [ "$got" = "$ref" ] && ok || bad "analogies -analogy-method $m -fold-case $fold: $got, reference $ref"
        seen=$(echo "$ref" | awk '{ print $2 }')
        if [ "$seen" -ge 3 ]; then [ $rc -eq 0 ] && ok || bad "analogies with $seen usable: exit $rc"
        else [ $rc -eq 1 ] && grep -q "only $seen of" "$T/err" && ok || bad "analogies with $seen usable: exit $rc, $(cat "$T/err")"; fi
    done
done
"$BIN" eval -vectors "$T/hand.txt" -analogy "$T/hand_q.txt" -fold-case 1 > "$T/out"
grep -Eq "^family +[0-9.]+ +[0-9]+ +4/4" "$T/out" && ok || bad "per-section accuracy: $(cat "$T/out")"
grep -Eq "^capitals +[0-9.]+ +[0-9]+ +3/4" "$T/out" && ok || bad "per-section accuracy (capitals)"
grep -q "case folding on" "$T/out" && ok || bad "the policy line says case folding on"
"$BIN" eval -vectors "$T/hand.txt" -analogy "$T/hand_q.txt" -fold-case 1 -restrict-vocab 4 > "$T/out"
grep -Eq "^overall +1.0000 +3 +3/8" "$T/out" && ok || bad "-restrict-vocab 4: $(grep overall "$T/out")"
printf 'MAN woman 1\nking QUEEN 2\nBOY girl 3\nparis ROME 4\n' > "$T/upper_pairs.txt"
fails "4 of 4 pairs out of vocabulary" eval -vectors "$T/hand.txt" "$T/upper_pairs.txt"
run eval -vectors "$T/hand.txt" -fold-case 1 "$T/upper_pairs.txt"
grep -Eq "^upper_pairs.txt .* 4/4 " "$T/out" && ok || bad "-fold-case 1 on pairs: $(cat "$T/out")"

# ------------------------------------------------------------ neighbors
cat > "$T/neighbors.awk" <<'EOF'
FNR == 1 { next }
{ n++; w[n] = $1; row[$1] = n; s = 0; for (j = 2; j <= NF; ++j) s += $j * $j; s = sqrt(s); d = NF - 1
  for (j = 2; j <= NF; ++j) u[n, j - 1] = $j / s }
END { if (limit == "" || limit == 0 || limit > n) limit = n
      k = split(query, q, " ")
      for (i = 1; i <= k; ++i) { sg = substr(q[i], 1, 1) == "-" ? -1 : 1; x = q[i]; sub(/^[-+]/, "", x)
          skip[row[x]] = 1; for (j = 1; j <= d; ++j) v[j] += sg * u[row[x], j] }
      for (j = 1; j <= d; ++j) vn += v[j] * v[j]; vn = sqrt(vn)
      for (r = 1; r <= limit; ++r) if (!(r in skip)) { c = 0; for (j = 1; j <= d; ++j) c += v[j] * u[r, j]; c /= vn
          if (best == 0 || c > bc) { best = r; bc = c } }
      printf "%s %.4f\n", w[best], bc }
EOF
for query in "king -man +woman" "paris -france +italy" "-man +woman" "boy +king"; do
    ref=$(awk -v query="$query" -f "$T/neighbors.awk" "$T/hand.txt")
    # shellcheck disable=SC2086
    "$BIN" neighbors -vectors "$T/hand.txt" -k 1 $query > "$T/out" 2> "$T/err"
    got=$(awk 'NR == 2 { print $1, $2 }' "$T/out")
    [ "$got" = "$ref" ] && ok || bad "neighbors $query: $got, reference $ref ($(cat "$T/err"))"
done
# -restrict-vocab N: answers from the first N rows, query words from all
for lq in "4:king -man +woman" "6:paris -france +italy" "3:girl" "9:rome +france"; do
    limit=${lq%%:*}
    query=${lq#*:}
    ref=$(awk -v query="$query" -v limit="$limit" -f "$T/neighbors.awk" "$T/hand.txt")
    # shellcheck disable=SC2086
    "$BIN" neighbors -vectors "$T/hand.txt" -k 1 -restrict-vocab "$limit" $query > "$T/out" 2> "$T/err"
    got=$(awk 'NR == 2 { print $1, $2 }' "$T/out")
    [ "$got" = "$ref" ] && ok || bad "neighbors -restrict-vocab $limit $query: $got, reference $ref ($(cat "$T/err"))"
done
run neighbors -vectors "$T/hand.txt" -k 5 -restrict-vocab 4 king -man +woman
[ "$(grep -c '^  ' "$T/out")" -eq 1 ] && grep -q "^  queen " "$T/out" && ok || bad "-restrict-vocab 4 leaves queen alone: $(cat "$T/out")"
# a missing word: its query is an error naming it (exit 1), the others answered
"$BIN" neighbors -vectors "$T/hand.txt" -k 1 king -nosuchword +woman paris > "$T/out" 2> "$T/err"
[ $? -eq 1 ] && grep -q "'nosuchword' is not in the vocabulary" "$T/err" && grep -q "^paris:" "$T/out" \
    && ! grep -q "^king" "$T/out" && ok || bad "neighbors with a missing word: $(cat "$T/out" "$T/err")"
fails "'absent' is not in the vocabulary" neighbors -vectors "$T/hand.txt" absent
fails "-restrict-vocab x: expected a whole number" neighbors -vectors "$T/hand.txt" -restrict-vocab x king
run neighbors -vectors "$T/hand.txt" -k 3 king -man +woman paris
[ "$(grep -c ':$' "$T/out")" -eq 2 ] && ok || bad "two queries, two answers: $(cat "$T/out")"
grep -Eq "^  (man|woman|king) " "$T/out" && bad "a query word among its neighbours" || ok
run neighbors -vectors "$T/ro.bin" -k 10 three
grep -Eq "^  (one|two|four|five|six|seven|eight|nine|ten) " "$T/out" && ok || bad "a number near 'three': $(cat "$T/out")"
fails "'no_such_word_xyz' is not in" neighbors -vectors "$T/ro.bin" no_such_word_xyz
fails "write \+WORD or -WORD" neighbors -vectors "$T/hand.txt" king - man

# ------------------------------------------------------------ similarity
# gensim's KeyedVectors.similarity: the dot of the unit vectors (awk in double
# here; gensim itself below); a zero vector stays zero in gensim's unitvec: 0
{ echo "11 3"; tail -n +2 "$T/hand.txt"; echo "zero 0 0 0"; } > "$T/sim.txt"
cat > "$T/cos.awk" <<'EOF'
FNR == 1 { next }
{ for (j = 2; j <= NF; ++j) v[$1, j - 1] = $j; d = NF - 1 }
END { for (j = 1; j <= d; ++j) { ab += v[a, j] * v[b, j]; aa += v[a, j] ^ 2; bb += v[b, j] ^ 2 }
      printf "%.9g\n", aa && bb ? ab / sqrt(aa * bb) : 0 }
EOF
near() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a - b < 1e-6 && b - a < 1e-6) }'; }
for p in "king queen" "man woman" "paris rome" "boy france" "girl girl" "man zero" "zero zero"; do
    ref=$(awk -v a="${p% *}" -v b="${p#* }" -f "$T/cos.awk" "$T/sim.txt")
    # shellcheck disable=SC2086
    run similarity -vectors "$T/sim.txt" $p
    got=$(cat "$T/out")
    echo "$got" | grep -Eq '^-?[0-9][0-9.e+-]*$' && near "$got" "$ref" && ok || bad "similarity $p: '$got', reference $ref"
done
grep -q "'zero' is the zero vector: its cosine is 0" "$T/err" && ok || bad "similarity with a zero vector: no warning: $(cat "$T/err")"
run similarity -vectors "$T/sim.txt" king queen
[ -s "$T/err" ] && bad "similarity king queen wrote to stderr: $(cat "$T/err")" || ok
# a missing word: exit 1 naming it (both when both are missing), nothing on stdout
fails "^ro-sgns similarity: 'absent' is not in .*sim.txt$" similarity -vectors "$T/sim.txt" king absent
[ -s "$T/out" ] && bad "similarity with a missing word printed: $(cat "$T/out")" || ok
fails "'absent' and 'gone' are not in" similarity -vectors "$T/sim.txt" absent gone
fails "'King' is not in" similarity -vectors "$T/sim.txt" King queen # no case folding, as gensim
# pairs: eval's files (a score column, comments, tabs) and bare pairs; a line
# "word1 word2 sim" a pair in the file's order, each number the two-word one;
# a pair with a missing word named with its line, exit 1 at the end
cat > "$T/sim_pairs.txt" <<'EOF'
# word1 word2 [score]
king	queen 8.5
man woman

paris rome 7 # capitals
king absent 3
boy zero
nope nada
EOF
"$BIN" similarity -vectors "$T/sim.txt" -pairs "$T/sim_pairs.txt" > "$T/sim_out" 2> "$T/err"
[ $? -eq 1 ] && ok || bad "similarity -pairs with missing words: exit 0"
[ "$(awk '{ print $1, $2 }' "$T/sim_out" | tr '\n' ,)" = "king queen,man woman,paris rome,boy zero," ] && ok \
    || bad "similarity -pairs: the pairs answered: $(cat "$T/sim_out")"
while read -r w1 w2 s; do
    [ "$("$BIN" similarity -vectors "$T/sim.txt" "$w1" "$w2" 2> /dev/null)" = "$s" ] && ok || bad "similarity -pairs: $w1 $w2 $s is not the two-word answer"
done < "$T/sim_out"
grep -q "sim_pairs.txt line 6: 'absent' is not in .*sim.txt" "$T/err" && grep -q "line 8: 'nope' and 'nada' are not in" "$T/err" \
    && grep -q "2 of 6 pairs have a word not in" "$T/err" && grep -q "1 pair(s) with a zero vector (the first: 'zero', line 7)" "$T/err" \
    && ok || bad "similarity -pairs: the missing words and the zero vector named: $(cat "$T/err")"
run similarity -vectors "$T/sim.txt" -pairs "$T/sim_pairs.txt" -allow-missing 1
same "$T/out" "$T/sim_out"
grep -q "line 6: 'absent' is not in" "$T/err" && ok || bad "-allow-missing 1 still names the missing words: $(cat "$T/err")"
printf 'man woman\n' | "$BIN" similarity -vectors "$T/sim.txt" -pairs - > "$T/out" 2> "$T/err" && grep -q "^man woman " "$T/out" && ok \
    || bad "similarity -pairs -: $(cat "$T/out" "$T/err")"
"$BIN" similarity -vectors "$T/svd.txt" -pairs "$SETS/ws353.txt" -allow-missing 1 > "$T/out" 2> "$T/err" && ok || bad "similarity -pairs ws353.txt (eval's file): $(head -c 400 "$T/err")"
"$BIN" similarity -vectors "$T/svd.glove" -pairs "$SETS/ws353.txt" -allow-missing 1 > "$T/out2" 2> /dev/null
same "$T/out" "$T/out2"
# a malformed or empty pairs file: exit 1 before any pair is answered
printf 'king queen\nman\n' > "$T/bad_pairs.txt"
fails "bad_pairs.txt line 2: 1 field, expected 'word1 word2' or 'word1 word2 score'" similarity -vectors "$T/sim.txt" -pairs "$T/bad_pairs.txt"
[ -s "$T/out" ] && bad "a malformed pairs file: pairs answered: $(cat "$T/out")" || ok
printf 'king queen 1 2\n' > "$T/bad_pairs.txt"
fails "line 1: 4 fields" similarity -vectors "$T/sim.txt" -pairs "$T/bad_pairs.txt"
printf 'king queen high\n' > "$T/bad_pairs.txt"
fails "line 1: the third field 'high' is not a number" similarity -vectors "$T/sim.txt" -pairs "$T/bad_pairs.txt"
: > "$T/empty_pairs.txt"
fails "empty_pairs.txt: no word pairs" similarity -vectors "$T/sim.txt" -pairs "$T/empty_pairs.txt"
printf '# nothing\n\n' > "$T/empty_pairs.txt"
fails "empty_pairs.txt: no word pairs" similarity -vectors "$T/sim.txt" -pairs "$T/empty_pairs.txt"
printf 'king queen' > "$T/last_pairs.txt" # no newline at the end
run similarity -vectors "$T/sim.txt" -pairs "$T/last_pairs.txt"
grep -q "^king queen 0.9" "$T/out" && ok || bad "a last line without a newline: $(cat "$T/out")"
fails "give two words" similarity -vectors "$T/sim.txt" king
fails "give two words" similarity -vectors "$T/sim.txt" king queen man
fails "two words or -pairs FILE, not both" similarity -vectors "$T/sim.txt" king queen -pairs "$T/sim_pairs.txt"
fails "-allow-missing applies to -pairs" similarity -vectors "$T/sim.txt" king queen -allow-missing 1
fails "cannot both read standard input" similarity -vectors - -pairs -
fails "-vectors VECTORS is required" similarity king queen
fails "-pairs: cannot open" similarity -vectors "$T/sim.txt" -pairs "$T/nonexistent"
# gensim's own numbers, on a text and a binary file (skipped without gensim,
# a failure under CI=true, as in tests/interop_gensim.sh): within 1e-6 (gensim
# rounds the unit vectors and the dot to float32, the library works in double)
PY=""
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$p" ] && "$p" -c 'import gensim' > /dev/null 2>&1; then PY=$p; break; fi
done
cat > "$T/gensim_sim.py" <<'EOF'
import sys
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=sys.argv[2] == "1")
want = []
for line in open(sys.argv[3], encoding="utf-8"):
    t = line.split()
    t = t[:[i for i, x in enumerate(t + ["#"]) if x.startswith("#")][0]]
    if len(t) >= 2 and t[0] in kv and t[1] in kv:
        want.append((t[0], t[1], float(kv.similarity(t[0], t[1]))))
got = [l.split() for l in open(sys.argv[4], encoding="utf-8")]
bad = len(want) != len(got) or not want
for (a, b, s), g in zip(want, got):
    if g[:2] != [a, b] or abs(float(g[2]) - s) > 1e-6:
        bad += 1
        print("%s %s: gensim %.9g, ours %s" % (a, b, s, g[2:]))
print("%d pairs (ours %d), %d disagree" % (len(want), len(got), bad))
sys.exit(1 if bad else 0)
EOF
if [ -n "$PY" ]; then
    for vb in "$T/svd.txt:0:$SETS/ws353.txt" "$T/ro.bin:1:$SETS/men.txt" "$T/sim.txt:0:$T/sim_pairs.txt"; do
        v=${vb%%:*}; rest=${vb#*:}; b=${rest%%:*}; pf=${rest#*:}
        "$BIN" similarity -vectors "$v" -pairs "$pf" -allow-missing 1 > "$T/out" 2> "$T/err"
        "$PY" "$T/gensim_sim.py" "$v" "$b" "$pf" "$T/out" > "$T/gensim_cmp" 2>&1 && ok \
            || bad "similarity against gensim's on $v, $pf: $(head -c 600 "$T/gensim_cmp")"
    done
    printf 'three four\n' > "$T/one_pair.txt"
    "$BIN" similarity -vectors "$T/ro.bin" three four | sed 's/^/three four /' > "$T/out"
    "$PY" "$T/gensim_sim.py" "$T/ro.bin" 1 "$T/one_pair.txt" "$T/out" > "$T/gensim_cmp" 2>&1 && ok \
        || bad "similarity three four against gensim's: $(cat "$T/gensim_cmp")"
elif [ "${CI:-}" = true ]; then
    bad "similarity against gensim: python3 -c 'import gensim' fails (CI=true: nothing may be skipped)"
else
    echo "cli: similarity against gensim skipped (python3 -c 'import gensim' fails)"
fi

# ------------------------------------------------------------ vocab, -normalize
run vocab "$T/s.counts"
[ -s "$T/err" ] && ok || bad "vocab: no progress on stderr"
cut -d ' ' -f 1 "$T/out" > "$T/vocab_words"
awk 'NR > 1 { print $1 }' "$T/svd.txt" > "$T/svd_words" # the counts' words, in order
same "$T/vocab_words" "$T/svd_words"
awk 'NF != 2 || $2 !~ /^[0-9]+$/ || (NR > 1 && $2 + 0 > last) { exit 1 } { last = $2 + 0 }' "$T/out" \
    && ok || bad "vocab: 'word count' lines, counts descending"
# the counts are the corpus's: words counted here, split at blanks
for w in $(head -n 5 "$T/vocab_words") $(sed -n '200p;1000p' "$T/vocab_words"); do
    ref=$(tr -s ' \t\r' '\n\n\n' < "$SAMPLE" | grep -cxF -- "$w")
    got=$(awk -v w="$w" '$1 == w { print $2 }' "$T/out")
    [ "$got" = "$ref" ] && ok || bad "vocab: '$w' $got times, the text has $ref"
done
"$BIN" vocab -quiet "$T/s.counts" > "$T/vocab_q" 2> "$T/err" && same "$T/vocab_q" "$T/out"
[ -s "$T/err" ] && bad "vocab -quiet wrote to stderr" || ok
fails "give one counts file" vocab
fails "give one counts file" vocab "$T/s.counts" "$T/s.counts"
fails "$T/svd.txt" vocab "$T/svd.txt"
fails "ro-sgns vocab FILE" train -train "$SAMPLE" -output "$T/x.txt" -save-vocab "$T/v.txt"
# -normalize 1: every row at unit length (float eps), the direction kept
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -normalize 1 -output "$T/unit.txt" \
    -output-contexts "$T/unit_ctx.txt" -quiet
for f in unit unit_ctx; do
    awk 'NR > 1 { s = 0; for (j = 2; j <= NF; ++j) s += $j * $j; e = sqrt(s) - 1; if (e < 0) e = -e; if (e > m) m = e }
         END { exit !(NR > 1 && m <= 4 * 1.2e-7) }' "$T/$f.txt" && ok || bad "-normalize 1: a row of $f.txt is not at unit length"
done
awk 'FILENAME == ARGV[1] && FNR > 1 { s = 0; for (j = 2; j <= NF; ++j) { x[$1, j] = $j; s += $j * $j } nr[$1] = sqrt(s); next }
     FILENAME == ARGV[2] && FNR > 1 { for (j = 2; j <= NF; ++j) { e = $j - x[$1, j] / nr[$1]; if (e < 0) e = -e; if (e > m) m = e } }
     END { exit !(m < 1e-6) }' "$T/svd.txt" "$T/unit.txt" && ok || bad "-normalize 1 is not row / its norm"
run train -counts "$T/s.counts" -method svd -size 20 -eig 0.5 -embed w -normalize 0 -output "$T/unit0.txt" -quiet
same "$T/unit0.txt" "$T/svd.txt"
fails "-normalize 2: expected 0 or 1" train -counts "$T/s.counts" -method svd -size 20 -normalize 2 -output "$T/x.txt"

# ------------------------------------------------------------ RO: eval, curve, checkpoint, resume, keep-best, init
# on counts of the sample's 1201 words seen >= 20 times, d = 10: cheap steps
run count -train "$SAMPLE" -output "$T/mid.counts" -min-count 20 -quiet
M="-counts $T/mid.counts -size 10"
run train $M -steps 3 -eval "$SETS" -curve "$T/curve.csv" -checkpoint "$T/ck" -output "$T/ro3.bin"
head -n 1 "$T/curve.csv" | grep -q "^iteration,F_e9,seconds,men,simlex999,ws353,ws353_rel,ws353_sim,mean$" && ok || bad "curve header: $(head -n 1 "$T/curve.csv")"
[ "$(wc -l < "$T/curve.csv")" -eq 5 ] && ok || bad "curve has a header, the start and 3 steps"
grep -q "ws353_sim -*0\.[0-9]" "$T/err" && ok || bad "scores in the progress lines"
run train $M -steps 3 -eval "$SETS/men.txt,$SETS/ws353.txt" -eval "$SETS/simlex999.txt" -curve "$T/curve2.csv" -output "$T/x3.bin" -quiet
head -n 1 "$T/curve2.csv" | grep -q "^iteration,F_e9,seconds,men,ws353,simlex999,mean$" && ok || bad "-eval list: $(head -n 1 "$T/curve2.csv")"
same "$T/x3.bin" "$T/ro3.bin"
run train $M -steps 2 -checkpoint "$T/ck2" -output "$T/two.bin" -quiet
run train $M -steps 3 -resume "$T/ck2" -output "$T/resumed.bin" -quiet
same "$T/resumed.bin" "$T/ro3.bin"
# -keep-direction: 1M holds 218 rows of the 1201 x 1201 direction (a GEMM and a shorter
# sweep), 8M all of them (3 products a step): the same F to rounding as the default's fused
# step (test_ro checks that a budget under one row keeps nothing, bit for bit)
run train $M -steps 3 -embed w -eig 0.5 -output "$T/ro3w.txt" -output-contexts "$T/ro3c.txt" -quiet
run objective -counts "$T/mid.counts" -vectors "$T/ro3w.txt" -contexts "$T/ro3c.txt"
f_sweep=$(awk '/^F = / { print $3 }' "$T/out")
for kb in 1M 8M; do
    run train $M -steps 3 -keep-direction $kb -embed w -eig 0.5 -output "$T/keptw.txt" \
        -output-contexts "$T/keptc.txt" -quiet
    run objective -counts "$T/mid.counts" -vectors "$T/keptw.txt" -contexts "$T/keptc.txt"
    f_kept=$(awk '/^F = / { print $3 }' "$T/out")
    awk -v a="$f_sweep" -v b="$f_kept" \
        'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-4 * (a < 0 ? -a : a)) }' \
        && ok || bad "-keep-direction $kb: F $f_kept against $f_sweep"
done
# -fuse 0: two sweeps a step, where the default takes D^T U' from the sweep before: the
# same F to rounding
run train $M -steps 3 -fuse 0 -embed w -eig 0.5 -output "$T/keptw.txt" -output-contexts "$T/keptc.txt" -quiet
run objective -counts "$T/mid.counts" -vectors "$T/keptw.txt" -contexts "$T/keptc.txt"
f_two=$(awk '/^F = / { print $3 }' "$T/out")
awk -v a="$f_sweep" -v b="$f_two" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 1e-4 * (a < 0 ? -a : a)) }' \
    && ok || bad "-fuse 0: F $f_two against $f_sweep"
# -head: RO on the 300 most frequent words and contexts, the other 901 folded in after:
# every word gets a vector, the same bits on 1 and 2 threads, a checkpoint holds the head
# (resumed, the same bytes; a whole run refuses it); -head n is the whole run; a head
# smaller than -size is refused
run train $M -steps 3 -head 300 -output "$T/head.txt" -checkpoint "$T/hck" -quiet
check "-head: every word has a vector" test "$(head -n 1 "$T/head.txt")" = "1201 10"
run train $M -steps 3 -head 300 -threads 1 -output "$T/head1.txt" -quiet
same "$T/head.txt" "$T/head1.txt"
run train $M -steps 2 -head 300 -checkpoint "$T/hck2" -output "$T/head2.txt" -quiet
run train $M -steps 3 -head 300 -resume "$T/hck2" -output "$T/hres.txt" -quiet
same "$T/hres.txt" "$T/head.txt"
fails "has 300 words and 300 contexts; this run trains 1201" train $M -steps 3 -resume "$T/hck2" -output "$T/x.txt"
run train $M -steps 3 -head 1201 -output "$T/headall.bin" -quiet
same "$T/headall.bin" "$T/ro3.bin"
fails "-head 5 is below -size 10" train $M -head 5 -output "$T/x.txt"
# -keep-best writes the step whose mean score is best: the same bytes as a run that stops there
best=$(awk -F, 'NR > 1 { if (NR == 2 || $NF > b) { b = $NF; i = $1 } } END { print i }' "$T/curve.csv")
run train $M -steps 3 -eval "$SETS" -keep-best -output "$T/best.bin"
grep -Eq "keep-best: (writing step $best |the last step $best )" "$T/err" && ok || bad "keep-best says step $best: $(grep keep-best "$T/err")"
run train $M -steps "$best" -output "$T/best_ref.bin" -quiet
same "$T/best.bin" "$T/best_ref.bin"
# -init FILE (W0 = C0) and -init sgd
run train $M -method svd -output "$T/mid_svd.txt" -quiet
run train $M -steps 1 -init "$T/mid_svd.txt" -output "$T/from_file.txt" -quiet
# a head run from -init FILE folds the tail in from the start's rows (-fold-start 1, the
# default) or from 0 (-fold-start 0, as from SVD-SPPMI): the results differ
run train $M -steps 2 -head 300 -init "$T/mid_svd.txt" -output "$T/fs1.txt"
grep -q "steps each from the start's rows" "$T/err" && ok || bad "-fold-start 1: $(grep fold: "$T/err")"
run train $M -steps 2 -head 300 -init "$T/mid_svd.txt" -fold-start 0 -output "$T/fs0.txt"
grep -q "steps each from 0" "$T/err" && ok || bad "-fold-start 0: $(grep fold: "$T/err")"
differ "$T/fs1.txt" "$T/fs0.txt"
fails "-fold-start needs a start with a row for every word" train $M -head 300 -fold-start 1 -output "$T/x.txt"
# -fold-prior: the MAP fold around the start's rows differs from the plain one; it needs that start
run train $M -steps 2 -head 300 -init "$T/mid_svd.txt" -fold-prior 1 -output "$T/fp1.txt" -output-contexts "$T/fp1c.txt" -eig 0.5
differ "$T/fp1.txt" "$T/fs1.txt"
fails "-fold-prior is a prior around each folded row's start" train $M -steps 2 -head 300 -init "$T/mid_svd.txt" -fold-start 0 -fold-prior 1 -output "$T/x.txt"
fails "-fold-prior is a prior around each folded row's start" train $M -steps 2 -head 300 -fold-prior 1 -output "$T/x.txt"
fails "-fold-prior -1" train $M -steps 2 -head 300 -init "$T/mid_svd.txt" -fold-prior -1 -output "$T/x.txt"
# objective -bands: the bands' F add up to the F over every row (the pairs within the vectors)
run objective -counts "$T/mid.counts" -vectors "$T/fp1.txt" -contexts "$T/fp1c.txt" -bands 300,1000
awk '/^rows/ { sub(/.*F = /, ""); s += $1; n++ } /^all rows/ { sub(/.*F = /, ""); a = $1 }
     END { d = s - a; if (d < 0) d = -d; exit !(n == 3 && a < 0 && d <= 1e-6 * -a) }' "$T/out" && ok || bad "objective -bands: the bands do not add up: $(cat "$T/out")"
run objective -counts "$T/mid.counts" -vectors "$T/fp1.txt" -contexts "$T/fp1c.txt" -bands 300
a1=$(sed -n 's/^all rows: F = \([^ ]*\) .*/\1/p' "$T/out")
run objective -counts "$T/mid.counts" -vectors "$T/fp1.txt" -contexts "$T/fp1c.txt"
f1=$(sed -n 's/^F = \([^ ]*\) e9.*/\1/p' "$T/out")
awk -v a="$a1" -v f="$f1" 'BEGIN { d = a * 1e-3 - f; if (d < 0) d = -d; exit !(a < 0 && d <= 1e-5 * -f + 5e-7) }' && ok || bad "objective -bands over the counts' own words: $a1 e6 against F = $f1 e9"
fails "-bands 1000,300: give up to" objective -counts "$T/mid.counts" -vectors "$T/fp1.txt" -bands 1000,300
fails "-bands 0: give up to" objective -counts "$T/mid.counts" -vectors "$T/fp1.txt" -bands 0
fails "-bands 9x: give up to" objective -counts "$T/mid.counts" -vectors "$T/fp1.txt" -bands 9x
# -eta-max: accepted steps grow past -eta (x2 a step), so the run differs; below -eta refused
run train $M -steps 3 -eta-max 2 -output "$T/etamax.bin"
grep -q "step 2 " "$T/err" && ok || bad "-eta-max 2: no step of 2: $(grep '^iter' "$T/err" | tail -2)"
differ "$T/etamax.bin" "$T/ro3.bin"
fails "-eta-max 0.5 is below the step size 1" train $M -steps 3 -eta-max 0.5 -output "$T/x.txt"
run train -train "$SAMPLE" -min-count 20 -size 10 -steps 1 -init sgd -iter 1 -alpha 0.025 -threads 1 \
    -output "$T/from_sgd.txt" -output-contexts "$T/from_sgd_ctx.txt"
grep -q "sgd: d = 10" "$T/err" && ok || bad "-init sgd trains SGD first"
run objective -counts "$T/mid.counts" -vectors "$T/from_sgd.txt" -contexts "$T/from_sgd_ctx.txt"
grep -q "^F = -" "$T/out" && ok || bad "objective of the -init sgd result"
printf ': s\nqqa qqb qqc qqd\nqqe qqf qqg qqh\nthe of and in\n' > "$T/nonsense_q.txt"
fails "only 1 of 3 questions" train -counts "$T/s.counts" -size 20 -steps 1 -eval "$SETS" -analogy "$T/nonsense_q.txt" -output "$T/x.txt"

# ------------------------------------------------------------ count
run count -train "$SAMPLE" -output "$T/c2.counts" -window 2 -min-count 20 -dynamic-window 2 -memory 64M -threads 1
[ -s "$T/c2.counts" ] && ok || bad "count wrote its file"
run train -counts "$T/c2.counts" -method svd -size 10 -output "$T/c2.txt" -quiet

# ------------------------------------------------------------ errors instead of meaningless results
fails "No such file or directory" train -counts "$T/small.counts" -size 10 -output "$T/no_dir/x.txt"
fails "'$T/no_dir/x.txt'" train -counts "$T/small.counts" -size 10 -output "$T/no_dir/x.txt"
grep -q "\.tmp" "$T/err" && bad "the message names the temporary file" || ok
fails "-checkpoint: cannot write '$T/no_dir/ck'" train -counts "$T/small.counts" -size 10 -checkpoint "$T/no_dir/ck" -output "$T/x.txt"
fails "-curve: cannot write" train -counts "$T/small.counts" -size 10 -curve "$T/no_dir/c.csv" -output "$T/x.txt"
fails "is a directory" train -counts "$T/small.counts" -size 10 -output "$T"
# devices, FIFOs and links are written in place, never replaced by a rename.
# Stand-ins inside $T, never the system's /dev entries: a regression must not
# replace those (as root it could).
run train -counts "$T/small.counts" -method svd -size 10 -output "$T/small_svd.txt" -quiet
if mknod "$T/null" c 1 3 2>/dev/null; then
    run train -counts "$T/small.counts" -method svd -size 10 -output "$T/null" -quiet
    [ -c "$T/null" ] && ok || bad "a character device (a stand-in for /dev/null) was replaced"
    run train -counts "$T/small.counts" -method svd -size 10 -output "$T/small_svd2.txt" -output-contexts "$T/null" -quiet
    [ -c "$T/null" ] && ok || bad "-output-contexts replaced a character device"
fi
if [ -e /proc/self/fd/1 ] && ln -s /proc/self/fd/1 "$T/stdout_link"; then
    run train -counts "$T/small.counts" -method svd -size 10 -output "$T/stdout_link" -quiet
    same "$T/out" "$T/small_svd.txt"
    [ -L "$T/stdout_link" ] && ok || bad "a link to /proc/self/fd/1 was replaced"
fi
ln -s small_target.txt "$T/link.txt"
run train -counts "$T/small.counts" -method svd -size 10 -output "$T/link.txt" -quiet
[ -L "$T/link.txt" ] && ok || bad "the link was replaced"
same "$T/small_target.txt" "$T/small_svd.txt"
# fifo_run FIFO OUT ARGS...: ro-sgns ARGS writing into FIFO while a reader in the
# background copies it to OUT. The program asks once, before its work, whether the
# FIFO has a reader, and refuses when it has none; the background reader may not have
# opened its end yet, so a refusal is tried again (20 times, a second apart). Every
# wait is bounded: a failure never hangs the suite (stop 58's CI ran past its time).
fifo_run() {
    ff=$1
    fo=$2
    shift 2
    timeout 120 cat "$ff" > "$fo" &
    fpid=$!
    tries=0
    while :; do
        timeout 60 "$BIN" "$@" 2> "$T/fifo_err"
        frc=$?
        if [ $frc -eq 1 ] && grep -q "is a FIFO with no reader" "$T/fifo_err" && [ $tries -lt 20 ]; then
            tries=$((tries + 1))
            sleep 1
        else
            break
        fi
    done
    # a run that never opened the FIFO leaves the reader waiting: an end of file for it
    [ $frc -eq 0 ] || timeout 5 sh -c ': > "$1"' sh "$ff"
    wait $fpid
    return $frc
}
if command -v mkfifo >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 && mkfifo "$T/fifo"; then
    if fifo_run "$T/fifo" "$T/fifo_out" train -counts "$T/small.counts" -method svd -size 10 -output "$T/fifo" -quiet; then
        ok
    else
        bad "-output FIFO: $(cat "$T/fifo_err")"
    fi
    [ -p "$T/fifo" ] && ok || bad "the FIFO was replaced"
    same "$T/fifo_out" "$T/small_svd.txt"
fi
if mknod "$T/full" c 1 7 2>/dev/null; then # a stand-in for /dev/full
    F="$T/full"
    fails "-output: cannot write '$F': No space left" train -counts "$T/small.counts" -method svd -size 10 -output "$F"
    fails "-checkpoint after step 1: cannot write '$F': No space left" train -counts "$T/small.counts" -size 10 -steps 1 -checkpoint "$F" -output "$T/x.txt"
    fails "-save-counts: cannot write '$F': No space left" train -train "$SAMPLE" -method svd -size 10 -min-count 40 -save-counts "$F" -output "$T/x.txt"
    fails "-output: cannot write '$F': No space left" count -train "$SAMPLE" -min-count 40 -output "$F"
    # a failed second output leaves the first untouched: both are renamed at the end
    printf 'old\n' > "$T/keep.txt"
    fails "-output-contexts: cannot write '$F': No space left" train -counts "$T/small.counts" -method svd -size 10 -output "$T/keep.txt" -output-contexts "$F"
    [ "$(cat "$T/keep.txt")" = old ] && ok || bad "a failed -output-contexts replaced -output"
    fails "-output-contexts: cannot write '$F': No space left" train -train "$SAMPLE" -min-count 40 -method sgd -iter 1 -size 10 -output "$T/keep.txt" -output-contexts "$F"
    [ "$(cat "$T/keep.txt")" = old ] && ok || bad "a failed -output-contexts replaced -output (sgd)"
    ls "$T" | grep -q '\.part$' && bad "a staged output was left: $(ls "$T")" || ok
    fails "-curve: cannot write '$F': No space left" train -counts "$T/small.counts" -size 10 -curve "$F" -output "$T/x.txt"
    [ -c "$F" ] && ok || bad "a character device (a stand-in for /dev/full) was replaced"
fi
# an output that is an input, or another output, is refused before any work (compared
# by what the paths name: another spelling, a link or a hard link is the same file; a
# checkpoint may be the one -resume reads), and the message names both flags
head -c 100000 "$SAMPLE" > "$T/own.txt"
cp "$T/own.txt" "$T/own_ref.txt"
cp "$T/small.counts" "$T/own.counts"
ln -s own.txt "$T/own_link.txt"
ln "$T/own.counts" "$T/own_hard.counts"
fails "-output and -train name the same file" count -train "$T/own.txt" -output "$T/own.txt"
fails "-output and -train name the same file" count -train "$T/own.txt" -output "$T/../cli_test/own_link.txt"
fails "-output and -train name the same file" train -train "$T/own.txt" -method svd -size 10 -min-count 40 -output "$T/own.txt"
fails "-save-counts and -train name the same file" train -train "$T/own.txt" -method svd -size 10 -min-count 40 -output "$T/x.txt" -save-counts "$T/own_link.txt"
same "$T/own.txt" "$T/own_ref.txt"
fails "-output and -counts name the same file" train -counts "$T/own.counts" -method svd -size 10 -output "$T/own_hard.counts"
fails "-checkpoint and -counts name the same file" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -checkpoint "$T/own.counts"
fails "-curve and -counts name the same file" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -curve "$T/own.counts"
same "$T/own.counts" "$T/small.counts"
fails "-output and -checkpoint name the same file" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -checkpoint "$T/./x.txt"
fails "-output and -curve name the same file" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -curve "$T/x.txt"
fails "-checkpoint and -curve name the same file" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -checkpoint "$T/x.ck" -curve "$T/x.ck"
fails "-output-contexts and -save-counts name the same file" train -train "$T/own.txt" -size 10 -min-count 40 -output "$T/x.txt" -output-contexts "$T/y.txt" -save-counts "$T/y.txt"
fails "-output and -output-contexts name the same file '-'" train -counts "$T/own.counts" -method svd -size 10 -output - -output-contexts -
run train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/own1.txt" -checkpoint "$T/own.ck" -quiet
cp "$T/own.ck" "$T/own_ref.ck"
fails "-output and -resume name the same file" train -counts "$T/own.counts" -size 10 -steps 2 -resume "$T/own.ck" -output "$T/own.ck"
fails "-curve and -resume name the same file" train -counts "$T/own.counts" -size 10 -steps 2 -resume "$T/own.ck" -output "$T/x.txt" -curve "$T/own.ck"
same "$T/own.ck" "$T/own_ref.ck"
fails "-output and -init name the same file" train -counts "$T/own.counts" -size 10 -steps 1 -init "$T/own1.txt" -output "$T/own1.txt"
run train -counts "$T/own.counts" -size 10 -steps 2 -resume "$T/own.ck" -checkpoint "$T/own.ck" -output "$T/own2.txt" -quiet
[ -e "$T/x.txt" ] || [ -e "$T/x.ck" ] || [ -e "$T/y.txt" ] && bad "a refused run wrote an output" || ok
# a regular file is replaced through a temporary file and a rename wherever it is,
# /dev/shm too (never written in place because of its name): a hard link to the old
# file keeps the old bytes
if [ -d /dev/shm ] && [ -w /dev/shm ] && D=$(mktemp -d /dev/shm/ro_sgns_cli.XXXXXX); then
    printf 'old\n' > "$D/v.txt"
    ln "$D/v.txt" "$D/v_old.txt"
    cp "$D/v.txt" "$D/ck"
    ln "$D/ck" "$D/ck_old"
    run train -counts "$T/own.counts" -size 10 -steps 1 -output "$D/v.txt" -checkpoint "$D/ck" -quiet
    [ "$(cat "$D/v_old.txt")" = old ] && ok || bad "-output in /dev/shm written in place"
    [ "$(cat "$D/ck_old")" = old ] && ok || bad "-checkpoint in /dev/shm written in place"
    cmp -s "$D/v.txt" "$T/own1.txt" && ok || bad "-output in /dev/shm: not the vectors"
    rm -rf "$D"
fi
# -keep-best survives a resume: the best point and its score are in the checkpoint, so
# 4 steps and a resume to 8 write the straight run's best (step 0 here: simlex999 falls
# after the start); a resume below the checkpoint's step is refused; a curve that got a
# row past its checkpoint (a kill during the checkpoint's save) is cut back to it, so no
# step has two rows; a resume with a smaller step prints no |dX| of 0
KB="-counts $T/own.counts -size 10 -eval $SETS/simlex999.txt -keep-best"
run train $KB -steps 8 -curve "$T/kb8.csv" -output "$T/kb8.bin"
grep -q "keep-best: writing step 0 " "$T/err" && ok || bad "keep-best straight: $(grep keep-best "$T/err")"
run train $KB -steps 4 -checkpoint "$T/kb4.ck" -curve "$T/kb.csv" -output "$T/kb4.bin" -quiet
cp "$T/kb4.ck" "$T/kb4_saved.ck"
run train $KB -steps 5 -resume "$T/kb4.ck" -checkpoint "$T/kb4.ck" -curve "$T/kb.csv" -output "$T/kb5.bin" -quiet
run train $KB -steps 8 -resume "$T/kb4_saved.ck" -curve "$T/kb.csv" -output "$T/kb8r.bin"
grep -q "keep-best: from the checkpoint, step 0 " "$T/err" && ok || bad "keep-best from the checkpoint: $(grep keep-best "$T/err")"
same "$T/kb8r.bin" "$T/kb8.bin"
cut -d, -f1,2,4- "$T/kb8.csv" > "$T/kb8_cols"
cut -d, -f1,2,4- "$T/kb.csv" > "$T/kb_cols"
same "$T/kb_cols" "$T/kb8_cols"
run train -counts "$T/own.counts" -size 10 -steps 5 -checkpoint "$T/kb_plain.ck" -output "$T/x.txt" -quiet
fails "-resume $T/kb4_saved.ck is at step 4, beyond -steps 2: nothing to do" train $KB -steps 2 -resume "$T/kb4_saved.ck" -output "$T/x.txt"
run train $KB -steps 4 -resume "$T/kb4_saved.ck" -output "$T/kb4_again.bin" -quiet
same "$T/kb4_again.bin" "$T/kb4.bin"
run train -counts "$T/own.counts" -size 10 -steps 6 -resume "$T/kb_plain.ck" -direction plain -output "$T/x.txt"
grep -q "|dX| 0 " "$T/err" && bad "|dX| 0 after a resume with -direction plain: $(grep '^iter' "$T/err")" || ok
grep -Eq "^iter   6/6 .*\|dX| (<)?[0-9]" "$T/err" && ok || bad "|dX| after a resume: $(grep '^iter' "$T/err")"
rm -f "$T/x.txt"
# a FIFO with no reader is refused before the work, naming the flag (never a wait at
# the end); a checkpoint never goes to a FIFO (it must be read back)
if command -v mkfifo >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 && mkfifo "$T/lonely"; then
    for fl in output-contexts curve; do
        ASAN_OPTIONS=detect_leaks=1 timeout 60 "$BIN" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -$fl "$T/lonely" > "$T/out" 2> "$T/err"
        rc=$?
        [ $rc -eq 1 ] && grep -q -- "-$fl: '$T/lonely' is a FIFO with no reader" "$T/err" && ok || bad "-$fl FIFO without a reader: exit $rc, $(cat "$T/err")"
    done
    timeout 60 "$BIN" train -train "$T/own.txt" -size 10 -steps 1 -min-count 40 -output "$T/x.txt" -save-counts "$T/lonely" > "$T/out" 2> "$T/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q -- "-save-counts: '$T/lonely' is a FIFO with no reader" "$T/err" && ok || bad "-save-counts FIFO: exit $rc, $(cat "$T/err")"
    timeout 60 "$BIN" count -train "$T/own.txt" -output "$T/lonely" > "$T/out" 2> "$T/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q -- "-output: '$T/lonely' is a FIFO with no reader" "$T/err" && ok || bad "count -output FIFO: exit $rc, $(cat "$T/err")"
    fails "-checkpoint: '$T/lonely' is a FIFO; a checkpoint must be a file" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x.txt" -checkpoint "$T/lonely"
    if fifo_run "$T/lonely" "$T/lonely_out" train -counts "$T/own.counts" -size 10 -steps 1 -output "$T/x2.txt" -curve "$T/lonely" -quiet; then
        ok
    else
        bad "-curve FIFO with a reader: $(cat "$T/fifo_err")"
    fi
    [ "$(wc -l < "$T/lonely_out")" -eq 3 ] && ok || bad "-curve FIFO: $(cat "$T/lonely_out")"
    rm -f "$T/x2.txt"
fi
fails "-output-contexts: cannot write" train -counts "$T/small.counts" -size 10 -output "$T/x.txt" -output-contexts "$T/no_dir/c.txt"
fails "-save-counts: cannot write" train -train "$SAMPLE" -size 10 -output "$T/x.txt" -save-counts "$T/no_dir/c.counts"
fails "-eval /nonexistent: No such file" train -counts "$T/small.counts" -size 10 -eval /nonexistent -output "$T/x.txt"
mkdir -p "$T/empty_dir"
fails "no \*.txt word-pair file" train -counts "$T/small.counts" -size 10 -eval "$T/empty_dir" -output "$T/x.txt"
printf 'the of 1\nof and 2\nzzzq yyyq 3\n' > "$T/two_pairs.txt"
fails "only 2 of 3 pairs" train -counts "$T/small.counts" -size 10 -eval "$T/two_pairs.txt" -output "$T/x.txt"
fails "only 2 usable pairs" eval -vectors "$T/svd.txt" "$T/two_pairs.txt"
[ -s "$T/out" ] && bad "a set without a score printed on stdout: $(cat "$T/out")" || ok
fails "only 2 usable pairs" eval -vectors "$T/svd.txt" "$T/two_pairs.txt" "$SETS/men.txt"
grep -q "two_pairs" "$T/out" && bad "a set without a score has a row: $(cat "$T/out")" || ok
grep -q "^men.txt " "$T/out" && ok || bad "the set with a score lost its row: $(cat "$T/out")"
run train -counts "$T/small.counts" -size 10 -steps 1 -checkpoint "$T/small_ck" -output "$T/small.txt" -quiet
# a checkpoint of another run: d, the counts, k and cds are stored in it and compared
fails "d 20 here, 10 in the checkpoint" train -counts "$T/small.counts" -size 20 -steps 2 -resume "$T/small_ck" -output "$T/x.txt"
run count -train "$SAMPLE" -output "$T/small_w2.counts" -min-count 40 -window 2 -quiet
fails "other counts \(fingerprint" train -counts "$T/small_w2.counts" -size 10 -steps 2 -resume "$T/small_ck" -output "$T/x.txt"
fails "k 3 here, 5 in the checkpoint" train -counts "$T/small.counts" -size 10 -steps 2 -negative 3 -resume "$T/small_ck" -output "$T/x.txt"
fails "cds 0.75 here, 1 in the checkpoint" train -counts "$T/small.counts" -size 10 -steps 2 -cds 0.75 -resume "$T/small_ck" -output "$T/x.txt"
printf '2 10\nthe %s\nof %s\n' "$(seq -s ' ' 10)" "$(seq -s ' ' 10)" > "$T/two_words.txt"
fails "vectors for 2 of the [0-9]+ words" train -counts "$T/small.counts" -size 10 -init "$T/two_words.txt" -output "$T/x.txt"
run train -counts "$T/small.counts" -size 10 -steps 0 -init "$T/two_words.txt" -init-coverage 0 -output "$T/x.txt" -quiet
rm -f "$T/x.txt"
fails "dimension 20, -size is 10" train -counts "$T/small.counts" -size 10 -init "$T/svd.txt" -output "$T/x.txt"
fails "no RO step was accepted" train -counts "$T/small.counts" -size 10 -steps 1 -eta 1e30 -output "$T/x.txt"
run train -counts "$T/small.counts" -size 10 -steps 1 -eta 1e30 -allow-no-step -output "$T/nostep.txt" -quiet
run train -counts "$T/small.counts" -size 10 -steps 0 -output "$T/start.txt" -quiet
same "$T/nostep.txt" "$T/start.txt"
fails "beyond the bound" train -counts "$T/small.counts" -size 10 -steps 1 -eta 1e30 -safeguard 0 -output "$T/x.txt"
# the defaults (W + C at eig 0) would hide it in U P: the bound is checked on U P Sigma^0.5
fails "beyond the bound" train -counts "$T/small.counts" -size 10 -steps 1 -eta 1e30 -safeguard 0 -eig 0 -embed w -output "$T/x.txt"
fails "expected a whole number" train -train "$SAMPLE" -size 10 -window 2.7 -output "$T/x.txt"
fails "expected a whole number" train -train "$SAMPLE" -size 10 -min-count 5x -output "$T/x.txt"
fails "expected a whole number" train -train "$SAMPLE" -size 1e2 -output "$T/x.txt"
fails "expected a whole number" train -train "$SAMPLE" -size -5 -output "$T/x.txt"
fails "expected a whole number" count -train "$SAMPLE" -output "$T/x.counts" -window 0
fails "at least 1M" train -train "$SAMPLE" -size 10 -memory 0.5 -output "$T/x.txt"
fails "expected a size" train -train "$SAMPLE" -size 10 -memory inf -output "$T/x.txt"
fails "expected a size" train -train "$SAMPLE" -size 10 -memory 1e30G -output "$T/x.txt"
fails "expected a size" count -train "$SAMPLE" -output "$T/x.counts" -memory nanM
fails "expected 0 or 1" train -train "$SAMPLE" -size 10 -binary yes -output "$T/x.txt"
fails "expected 0 or 1" train -train "$SAMPLE" -size 10 -binary 2 -output "$T/x.txt"
fails "-negative 1e9: expected a number in" train -train "$SAMPLE" -size 10 -negative 1e9 -output "$T/x.txt"
fails "-negative 0x10" train -train "$SAMPLE" -size 10 -negative 0x10 -output "$T/x.txt"
fails "-eta inf" train -train "$SAMPLE" -size 10 -eta inf -output "$T/x.txt"
fails "whole number of negatives" train -train "$SAMPLE" -method sgd -size 10 -negative 2.5 -output "$T/x.txt"
fails "larger than the vocabulary" train -counts "$T/small.counts" -size 60000 -output "$T/x.txt"
fails "needs a value" count -train "$SAMPLE" -output "$T/x.counts" -window
fails "-train TEXT is required" count -output "$T/x.counts"
fails "cannot open '$T/no_such_file': No such file" count -train "$T/no_such_file" -output "$T/x.counts"
fails "is a directory" count -train "$T" -output "$T/x.counts"
fails "expected a whole number" count -train "$SAMPLE" -output "$T/x.counts" -min-count 1e99
printf '\000\001\002\377' > "$T/binary.txt"
fails "." count -train "$T/binary.txt" -output "$T/x.counts" -min-count 2
# input that is not text is refused with what it looks like, and the flag
# that counts it anyway; too little text is warned about
fails "not text: 1 NUL byte.*the first at byte 0; -allow-binary 1 counts it anyway" count -train "$T/binary.txt" -output "$T/x.counts" -min-count 1
u16='t\000h\000e\000 \000c\000a\000t\000 \000s\000a\000t\000\n\000'
printf "$u16$u16$u16" > "$T/u16.txt"
fails "UTF-16LE \(a NUL in every other byte\)" count -train "$T/u16.txt" -output "$T/x.counts" -min-count 1
fails "UTF-16LE \(a NUL in every other byte\)" train -train "$T/u16.txt" -size 2 -output "$T/x.txt" -min-count 1
printf "\377\376$u16" > "$T/u16bom.txt"
fails "UTF-16LE \(a byte order mark\)" count -train "$T/u16bom.txt" -output "$T/x.counts" -min-count 1
awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) printf "%c", 128 + int(rand() * 128) }' > "$T/high.txt"
if [ "$(wc -c < "$T/high.txt")" -ge 3000 ]; then # an awk that writes bytes, not UTF-8 characters
    fails "invalid UTF-8 sequences" count -train "$T/high.txt" -output "$T/x.counts" -min-count 1
fi
run count -train "$T/u16.txt" -output "$T/u16.counts" -min-count 1 -allow-binary 1 -quiet
printf 'a a a a a a\n' > "$T/one_word.txt"
run count -train "$T/one_word.txt" -output "$T/one_word.counts" -min-count 1 -quiet
grep -q "warning: .*one_word.txt: the vocabulary has 1 word" "$T/err" && ok || bad "count of one word type: no warning: $(cat "$T/err")"
printf 'hello world\n' > "$T/two_tokens.txt"
run train -method sgd -train "$T/two_tokens.txt" -size 2 -min-count 1 -output "$T/two_tokens.vec" -quiet
grep -q "warning: .*two_tokens.txt: only 2 tokens" "$T/err" && ok || bad "sgd on 2 tokens: no warning: $(cat "$T/err")"
: > "$T/empty.txt"
fails "$T/empty.txt" count -train "$T/empty.txt" -output "$T/x.counts"

# ------------------------------------------------------------ count -add (issue 71)
# counts of a text followed by another, merged, are the bytes of counting
# both: splits at line ends (5, 19 and 33 of the sample's 37 lines) and
# one inside a line (counted as two lines), 1 and 2 threads, fixed and
# weighted windows, with a -min-count and -max-vocab cut on the merge
head -c 300000 "$SAMPLE" > "$T/mid_a.txt"
tail -c +300001 "$SAMPLE" > "$T/mid_b.txt"
{ cat "$T/mid_a.txt"; echo; cat "$T/mid_b.txt"; } > "$T/mid_ab.txt"
for split in 5 19 33 mid; do
    if [ "$split" = mid ]; then
        a=$T/mid_a.txt b=$T/mid_b.txt whole=$T/mid_ab.txt
    else
        head -n $split "$SAMPLE" > "$T/part_a.txt"
        tail -n +$((split + 1)) "$SAMPLE" > "$T/part_b.txt"
        a=$T/part_a.txt b=$T/part_b.txt whole=$SAMPLE
    fi
    for mode in fixed weighted; do
        win="-window 5" cut="-min-count 5"
        [ $mode = weighted ] && win="-window 3 -dynamic-window 2" cut="-min-count 2 -max-vocab 3000"
        for th in 1 2; do
            # shellcheck disable=SC2086
            run count -train "$a" -output "$T/old.counts" $win -min-count 1 -threads $th -quiet
            # shellcheck disable=SC2086
            run count -train "$b" -add "$T/old.counts" -output "$T/merged.counts" $win $cut -threads $((3 - th))
            grep -q "merged: .*, exact" "$T/err" && ok || bad "count -add at $split ($mode): no 'exact': $(cat "$T/err")"
            grep -q "warning" "$T/err" && bad "count -add at $split ($mode): a warning: $(cat "$T/err")" || ok
            # shellcheck disable=SC2086
            run count -train "$whole" -output "$T/whole.counts" $win $cut -threads $th -quiet
            same "$T/merged.counts" "$T/whole.counts"
        done
    done
done
# the window flags and -min-count default to the old counts' (the last
# above: -window 3 -dynamic-window 2 -min-count 1)
run count -train "$T/mid_b.txt" -add "$T/old.counts" -output "$T/merged.counts" -quiet
run count -train "$T/mid_ab.txt" -output "$T/whole.counts" -window 3 -dynamic-window 2 -min-count 1 -quiet
same "$T/merged.counts" "$T/whole.counts"
# a merged file is counts again: it can be added to (14 + 14 + 9 lines)
head -n 14 "$SAMPLE" > "$T/p1.txt"
sed -n 15,28p "$SAMPLE" > "$T/p2.txt"
tail -n +29 "$SAMPLE" > "$T/p3.txt"
run count -train "$T/p1.txt" -output "$T/p1.counts" -min-count 1 -quiet
run count -train "$T/p2.txt" -add "$T/p1.counts" -output "$T/p12.counts" -quiet
run count -train "$T/p3.txt" -add "$T/p12.counts" -output "$T/p123.counts" -min-count 5 -quiet
run count -train "$SAMPLE" -output "$T/whole.counts" -quiet
same "$T/p123.counts" "$T/whole.counts"
# what a merge cannot know is said, naming it; the file is still written
run count -train "$T/p1.txt" -output "$T/p1_5.counts" -quiet
run count -train "$T/p2.txt" -add "$T/p1_5.counts" -output "$T/warned.counts" -quiet
grep -q "warning: -add .*p1_5.counts kept [0-9]* of its text's [0-9]* distinct words (-min-count 5).*-min-count 1" "$T/err" && ok || bad "count -add of min-count 5 counts: $(cat "$T/err")"
run count -train "$T/p1.txt" -output "$T/p1_s.counts" -min-count 1 -sample 1e-3 -quiet
run count -train "$T/p2.txt" -add "$T/p1_s.counts" -output "$T/warned.counts" -quiet
grep -q "warning: -sample: each text kept its own random draws" "$T/err" && ok || bad "count -add with -sample: $(cat "$T/err")"
run count -train "$T/p1.txt" -output "$T/p1_x.counts" -min-count 1 -cross-lines 1 -quiet
run count -train "$T/p2.txt" -add "$T/p1_x.counts" -output "$T/warned.counts" -quiet
grep -q "warning: -cross-lines 1: the windows across" "$T/err" && ok || bad "count -add with -cross-lines 1: $(cat "$T/err")"
# differing window flags are refused by name; bad old counts are errors
fails "^ro-sgns count: -window 2: -add .*p1.counts was counted with -window 5" count -train "$T/p2.txt" -add "$T/p1.counts" -window 2 -output "$T/x.counts"
fails "-dynamic-window 2: .*was counted with -dynamic-window 0" count -train "$T/p2.txt" -add "$T/p1.counts" -dynamic-window 2 -output "$T/x.counts"
fails "-sample 0.001: .*was counted with -sample 0" count -train "$T/p2.txt" -add "$T/p1.counts" -sample 1e-3 -output "$T/x.counts"
fails "-cross-lines 1: .*was counted with -cross-lines 0" count -train "$T/p2.txt" -add "$T/p1.counts" -cross-lines 1 -output "$T/x.counts"
fails "-seed 3: .*was counted with -seed 1" count -train "$T/p2.txt" -add "$T/p1_s.counts" -seed 3 -output "$T/x.counts"
head -c 1000 "$T/p1.counts" > "$T/p1_trunc.counts"
fails "p1_trunc.counts: truncated" count -train "$T/p2.txt" -add "$T/p1_trunc.counts" -output "$T/x.counts"
fails "p2.txt: not a counts file" count -train "$T/p2.txt" -add "$T/p2.txt" -output "$T/x.counts"
fails "cannot open '$T/no_such.counts'" count -train "$T/p2.txt" -add "$T/no_such.counts" -output "$T/x.counts"
fails "-output and -add name the same file" count -train "$T/p2.txt" -add "$T/p12.counts" -output "$T/p12.counts"
fails "no word occurs min_count" count -train "$T/p2.txt" -add "$T/p1.counts" -min-count 100000 -output "$T/x.counts"
fails "-output VECTORS is required" train -counts "$T/s.counts" -size 20
fails "-method magic: expected ro, svd or sgd" train -counts "$T/s.counts" -method magic -output "$T/x.txt"
fails "abc" train -counts "$T/s.counts" -size abc -output "$T/x.txt"
fails "$T/svd.txt" train -counts "$T/svd.txt" -size 20 -output "$T/x.txt"
fails "$T/svd.txt" train -counts "$T/small.counts" -size 20 -output "$T/x.txt" -resume "$T/svd.txt"
head -c 1000 "$T/s.counts" > "$T/trunc.counts"
fails "$T/trunc.counts" train -counts "$T/trunc.counts" -size 20 -output "$T/x.txt"
fails "give at least one" eval -vectors "$T/ro.bin"
fails "cannot open '$T/no_such.vec'" eval -vectors "$T/no_such.vec" "$SETS/men.txt"
fails "." eval -vectors "$T/s.counts" -binary 0 "$SETS/men.txt"
printf 'a b 1\nthis line is bad\n' > "$T/bad_pairs.txt"
fails "$T/bad_pairs.txt" eval -vectors "$T/svd.txt" "$T/bad_pairs.txt"
[ "$(grep -o "$T/bad_pairs.txt" "$T/err" | wc -l)" -eq 1 ] && ok || bad "the path printed more than once: $(cat "$T/err")"
printf ': s\na b c\n' > "$T/bad_q.txt"
fails "$T/bad_q.txt" eval -vectors "$T/svd.txt" -analogy "$T/bad_q.txt"
[ "$(grep -o "$T/bad_q.txt" "$T/err" | wc -l)" -eq 1 ] && ok || bad "the path printed more than once: $(cat "$T/err")"
fails "-counts COUNTS and -vectors W are required" objective -counts "$T/s.counts"
run train -counts "$T/s.counts" -method svd -size 10 -output "$T/svd10.txt" -quiet
fails "-contexts $T/svd10.txt has dimension 10, -vectors $T/svd.txt has 20" objective -counts "$T/s.counts" -vectors "$T/svd.txt" -contexts "$T/svd10.txt"
grep -q "\-size" "$T/err" && bad "objective speaks of -size: $(cat "$T/err")" || ok
# a version 1 counts file loads with a warning to write it again
if command -v cc >/dev/null 2>&1; then
    cat > "$T/to_v1.c" <<'CEOF'
#include <stdio.h>
#include "counts_file.h"
int main(int argc, char **argv)
{
    static unsigned char b[1 << 24];
    FILE *f = argc == 3 ? fopen(argv[1], "rb") : NULL;
    size_t m = 0;
    unsigned char *v1;
    if (!f) return 1;
    if (fread(b, 1, sizeof b, f) < 120) return 1;
    fclose(f);
    v1 = tcf_v1_of(b, &m);
    f = fopen(argv[2], "wb");
    if (!v1 || !f || fwrite(v1, 1, m, f) != m || fclose(f) != 0) return 1;
    free(v1);
    return 0;
}
CEOF
    if cc -Itests "$T/to_v1.c" -o "$T/to_v1" 2> "$T/err" && "$T/to_v1" "$T/small.counts" "$T/v1.counts"; then
        run train -counts "$T/v1.counts" -method svd -size 10 -output "$T/v1_svd.txt" -quiet
        grep -q "warning: .*v1.counts is a version 1 counts file" "$T/err" && ok || bad "a version 1 counts file: no warning: $(cat "$T/err")"
        run train -counts "$T/small.counts" -method svd -size 10 -output "$T/v2_svd.txt" -quiet
        same "$T/v1_svd.txt" "$T/v2_svd.txt"
        grep -q "version 1" "$T/err" && bad "a version 2 counts file warned: $(cat "$T/err")" || ok
    else
        bad "tests/counts_file.h: a version 1 writer does not build: $(cat "$T/err")"
    fi
fi
# contexts that cover one word: F is of mostly zero rows, and says so
{ echo "1 10"; awk 'NR == 2' "$T/svd10.txt"; } > "$T/one_ctx.txt"
run objective -counts "$T/small.counts" -vectors "$T/svd10.txt" -contexts "$T/one_ctx.txt"
grep -q "^-contexts $T/one_ctx.txt: [0-9]* of [0-9]* words have no vector" "$T/err" && ok || bad "objective -contexts of 1 word: no note: $(cat "$T/err")"
# a zero vector has no cosine: neighbors refuses it, eval warns
{ echo "4 2"; echo "a 1 0"; echo "b 0 1"; echo "c 1 1"; echo "z 0 0"; } > "$T/zero.txt"
fails "'z' is the zero vector" neighbors -vectors "$T/zero.txt" z
fails "'a \.\.\.' is the zero vector" neighbors -vectors "$T/zero.txt" a -a
printf 'a b 1\na c 2\nb c 3\nz a 4\n' > "$T/zero_pairs.txt"
run eval -vectors "$T/zero.txt" "$T/zero_pairs.txt"
grep -q "warning: .*zero.txt: 1 zero vector(s) (the first: 'z')" "$T/err" && ok || bad "eval of a zero vector: no warning: $(cat "$T/err")"
# one question three times is one item, not the three a score needs
w4=$(awk 'NR > 1 && NR < 6 { printf "%s ", $1 }' "$T/svd10.txt")
printf ': s\n%s\n%s\n%s\n' "$w4" "$w4" "$w4" > "$T/repeated_q.txt"
fails "1 distinct\); a score needs 3" eval -vectors "$T/svd10.txt" -analogy "$T/repeated_q.txt"
fails "only 0 of 3 questions are distinct|only 1 of 3 questions are distinct" train -counts "$T/small.counts" -size 10 -steps 1 -analogy "$T/repeated_q.txt" -output "$T/x.txt"
[ -e "$T/x.txt" ] && bad "a failed run left $T/x.txt" || ok
[ -e "$T/x.counts" ] && bad "a failed run left $T/x.counts" || ok

# ------------------------------------------------------------ the cost before the work
# The estimate once the vocabulary is known; past a limit (-memory here) the
# run stops before the start, writes nothing, and says what to change; each
# setting it names then runs; -force starts anyway. A step over
# -max-step-seconds stops the same way.
C="-train $SAMPLE -window 2 -min-count 30 -size 20 -steps 1"
# shellcheck disable=SC2086
run train $C -output "$T/cost.txt"
grep -Eq "^estimate: 733 words, [0-9]+ pairs, d = 20: memory [0-9.]+ MB .*a step" "$T/err" && ok || bad "train prints its estimate: $(cat "$T/err")"
grep -q "estimated once the vocabulary is known" "$T/err" && ok || bad "train says before counting when it estimates"
rm -f "$T/cost.txt"
# shellcheck disable=SC2086
fails "needs about [0-9.]+ MB, more than -memory allows \(5.0 MB\)\. Change one of: -min-count [0-9]+ \(keeps at most [0-9]+ words\) or -max-vocab [0-9]+;.* -memory [0-9]+M; or pass -force" \
    train $C -memory 5M -output "$T/cost.txt"
[ -e "$T/cost.txt" ] && bad "a refused run wrote its output" || ok
mc=$(sed -n 's/.*-min-count \([0-9]*\) .*/\1/p' "$T/err")
mv=$(sed -n 's/.* -max-vocab \([0-9]*\);.*/\1/p' "$T/err")
mem=$(sed -n 's/.* -memory \([0-9]*M\);.*/\1/p' "$T/err")
sz=$(sed -n 's/.* -size \([0-9]*\);.*/\1/p' "$T/err")
W="-train $SAMPLE -window 2 -steps 1 -output $T/cost.txt -quiet"
for advice in "-min-count $mc -size 20 -memory 5M" "-min-count 30 -max-vocab $mv -size 20 -memory 5M" \
    "-min-count 30 -size 20 -memory $mem" "-min-count 30 -size $sz -memory 5M"; do
    case "$advice" in *"  "*|*" ") bad "advice without a number: $(cat "$T/err")"; continue ;; esac
    # shellcheck disable=SC2086
    run train $W $advice
    [ -s "$T/cost.txt" ] && ok || bad "the advised $advice wrote no vectors"
    rm -f "$T/cost.txt"
done
# shellcheck disable=SC2086
run train $C -memory 5M -force -output "$T/cost.txt"
grep -q "more than -memory allows (5.0 MB); -force: starting anyway" "$T/err" && ok || bad "-force: $(cat "$T/err")"
[ -s "$T/cost.txt" ] && ok || bad "-force wrote no vectors"
# shellcheck disable=SC2086
fails "a step would take about .*, more than -max-step-seconds 1e-09\. Change one of:.* or pass -force" \
    train $C -max-step-seconds 1e-9 -output "$T/cost2.txt"
[ -e "$T/cost2.txt" ] && bad "a refused run wrote its output" || ok
fails "needs about .* more than -memory allows.*count again with -min-count [0-9]+ or -max-vocab [0-9]+" \
    train -counts "$T/s.counts" -method svd -size 20 -memory 6M -output "$T/cost2.txt"
fails "-max-step-seconds does not apply to -method svd" train -counts "$T/s.counts" -method svd -size 20 -max-step-seconds 10 -output "$T/cost2.txt"
fails "-max-step-seconds does not apply to -method sgd" train -train "$SAMPLE" -method sgd -size 20 -max-step-seconds 10 -output "$T/cost2.txt"
# The whole run's estimate: every stage and a total; the fold's progress
# and the run's ETA on the progress lines; -max-seconds bounds the whole
# run (what to change, -force); -method sgd past -memory is refused before
# it trains; -method ro at d one below the vocabulary's size.
run train -train "$SAMPLE" -min-count 30 -size 20 -steps 2 -head 300 -output "$T/whole.txt"
grep -Eq "^estimate: the run: so far [0-9][^,]*, sgd start [0-9][^,]*, RO steps [0-9][^,]*, fold [0-9][^,]*, write [0-9][^;]*; total [0-9][^(]* \(-max-seconds none\); memory: sgd [0-9.]+ MB, RO [0-9.]+ MB, fold [0-9.]+ MB" "$T/err" &&
    ok || bad "the estimate names every stage and a total: $(grep '^estimate' "$T/err")"
grep -Eq "^fold: 866 of 866 rows .* ETA [0-9]+ s, the run [0-9]+ s$" "$T/err" && ok || bad "the fold's progress: $(grep '^fold' "$T/err")"
grep -Eq "^iter   1/2 .* ETA [0-9]+ s, the run [0-9]+ s" "$T/err" && ok || bad "a step's line lacks the run's ETA: $(grep '^iter' "$T/err")"
grep -Eq "^sgd: [0-9.]+ s \(estimated [0-9]" "$T/err" && grep -Eq "^fold: [0-9.]+ s \(estimated " "$T/err" &&
    ok || bad "a stage's end line lacks its estimate: $(grep -E '^(sgd|fold): [0-9]' "$T/err")"
fails "the run would take about .*, more than -max-seconds 1e-09\. Change one of:.* -max-seconds [0-9]+; or pass -force" \
    train -train "$SAMPLE" -min-count 30 -size 20 -steps 2 -max-seconds 1e-9 -quiet -output "$T/whole2.txt"
[ -e "$T/whole2.txt" ] && bad "a run past -max-seconds wrote its output" || ok
run train -train "$SAMPLE" -min-count 30 -size 20 -steps 2 -max-seconds 1e-9 -force -output "$T/whole2.txt"
grep -q "more than -max-seconds 1e-09; -force: starting anyway" "$T/err" && [ -s "$T/whole2.txt" ] && ok || bad "-max-seconds -force: $(cat "$T/err")"
fails "the run needs about [0-9.]+ MB, more than -memory allows \(2.0 MB\)\. Change one of:.* -memory [0-9]+M; or pass -force" \
    train -train "$SAMPLE" -method sgd -memory 2M -output "$T/whole3.txt"
grep -q "^sgd: d = " "$T/err" && bad "-method sgd past -memory began training: $(cat "$T/err")" || ok
[ -e "$T/whole3.txt" ] && bad "-method sgd past -memory wrote its output" || ok
run count -train "$SAMPLE" -min-count 200 -output "$T/c200.counts" -quiet
run train -counts "$T/c200.counts" -size 70 -steps 2 -output "$T/d70.txt"
head -n 1 "$T/d70.txt" | grep -q "^71 70$" && ok || bad "-method ro at d = n - 1: $(tail -2 "$T/err")"

# ------------------------------------------------------------ nothing lost (issue 68)
# the help says what the default does: the SGD start, not SVD-SPPMI
run train -help
grep -q "starts from 3 epochs of SGD on it (-init sgd" "$T/out" && ok || bad "train -help: the default start is not the SGD start"
grep -q "counts the text, starts from SVD-SPPMI" "$T/out" && bad "train -help still says ro starts from SVD-SPPMI" || ok
# -eval's pair files (one given, or one of a folder) are inputs: no output
# may replace them, refused before counting; the file is unchanged
mkdir -p "$T/lost/ev"
cp "$SETS/men.txt" "$T/lost/p.txt"
cp "$SETS/men.txt" "$T/lost/ev/men.txt"
fails "-output and -eval name the same file" train -train "$SAMPLE" -size 10 -steps 1 -eval "$T/lost/p.txt" -output "$T/lost/p.txt"
grep -q "^count:" "$T/err" && bad "-output = -eval refused after counting" || ok
fails "-curve and -eval name the same file" train -train "$SAMPLE" -size 10 -steps 1 -eval "$T/lost/p.txt" -output "$T/lost/o.txt" -curve "$T/lost/p.txt"
fails "-output-contexts and -eval name the same file" train -train "$SAMPLE" -size 10 -steps 1 -eval "$T/lost/ev" -output "$T/lost/o.txt" -output-contexts "$T/lost/ev/men.txt"
same "$T/lost/p.txt" "$SETS/men.txt"
same "$T/lost/ev/men.txt" "$SETS/men.txt"
# a non-seekable -train (a FIFO, a pipe) is read once: the default run
# (counting, then the SGD start) gives the bytes a file gives
run train -train "$SAMPLE" -size 10 -steps 1 -threads 1 -quiet -output "$T/lost/file.txt"
# fifo_run OUT ARGS...: train from the FIFO $T/lost/fifo fed by cat (a
# run that waits for a second writer is stopped by timeout, when there)
fifo_run() {
    o=$1
    shift
    cat "$SAMPLE" > "$T/lost/fifo" &
    w=$!
    to=
    command -v timeout > /dev/null 2>&1 && to="timeout 300"
    $to "$BIN" train -train "$T/lost/fifo" -size 10 -threads 1 -quiet -output "$o" "$@" 2> "$T/err" \
        && ok || bad "-train FIFO $*: $(head -c 400 "$T/err")"
    kill "$w" 2> /dev/null
    wait "$w" 2> /dev/null
}
if command -v mkfifo > /dev/null 2>&1 && mkfifo "$T/lost/fifo"; then
    fifo_run "$T/lost/fifo.txt" -steps 1
    same "$T/lost/file.txt" "$T/lost/fifo.txt"
    fifo_run "$T/lost/fifo_sgd.txt" -method sgd -iter 1
    run train -train "$SAMPLE" -method sgd -size 10 -iter 1 -threads 1 -quiet -output "$T/lost/file_sgd.txt"
    same "$T/lost/file_sgd.txt" "$T/lost/fifo_sgd.txt"
fi
if command -v bash > /dev/null 2>&1; then
    B=$BIN S=$SAMPLE O=$T/lost/proc.txt bash -c '"$B" train -train <(cat "$S") -size 10 -steps 1 -threads 1 -quiet -output "$O"' 2> "$T/err" \
        && ok || bad "-train <(cat file): $(head -c 400 "$T/err")"
    same "$T/lost/file.txt" "$T/lost/proc.txt"
fi
# trailing bytes after a counts file or a checkpoint: refused with the offset
run count -train "$SAMPLE" -output "$T/lost/s.counts" -quiet
cp "$T/lost/s.counts" "$T/lost/tail.counts"
printf 'x' >> "$T/lost/tail.counts"
size=$(wc -c < "$T/lost/s.counts" | tr -d ' ')
fails "tail.counts: trailing bytes after the counts at offset $size" train -counts "$T/lost/tail.counts" -size 10 -steps 1 -output "$T/lost/o.txt"
fails "trailing bytes after the counts at offset $size" vocab "$T/lost/tail.counts"
fails "trailing bytes after the counts" objective -counts "$T/lost/tail.counts" -vectors "$T/lost/file.txt"
run train -counts "$T/lost/s.counts" -size 10 -steps 1 -quiet -output "$T/lost/o.txt" -checkpoint "$T/lost/ck"
cp "$T/lost/ck" "$T/lost/tail.ck"
printf 'abc' >> "$T/lost/tail.ck"
size=$(wc -c < "$T/lost/ck" | tr -d ' ')
fails "tail.ck: trailing bytes after the checkpoint at offset $size" train -counts "$T/lost/s.counts" -size 10 -steps 2 -output "$T/lost/o.txt" -resume "$T/lost/tail.ck"
run train -counts "$T/lost/s.counts" -size 10 -steps 2 -quiet -output "$T/lost/o2.txt" -resume "$T/lost/ck"
# (vectors files: the library's loaders refuse data after the vectors)
cp "$T/lost/file.txt" "$T/lost/tail.txt"
echo "extra 1 2 3 4 5 6 7 8 9 10" >> "$T/lost/tail.txt"
fails "more vectors than" neighbors -vectors "$T/lost/tail.txt" the
run train -counts "$T/lost/s.counts" -method svd -size 10 -quiet -output "$T/lost/v.bin"
cp "$T/lost/v.bin" "$T/lost/tail.bin"
printf 'garbage' >> "$T/lost/tail.bin"
fails "data after the" neighbors -vectors "$T/lost/tail.bin" the
# a start over less than one token of the text is refused, naming the flag
fails "-init-share 1e-09: .*less than one token" train -train "$SAMPLE" -size 10 -steps 1 -init-share 1e-9 -output "$T/lost/o.txt"
run train -train "$SAMPLE" -size 10 -steps 1 -init-share 1e-5 -quiet -output "$T/lost/o.txt"

# every save keeps the mode of the file it replaces (0600 stays private),
# and its owner when run as root; a new file gets 0666 less the umask
perms() { ls -ln "$1" | awk '{ print $1 }' | cut -c1-10; }
owner() { ls -ln "$1" | awk '{ print $3 ":" $4 }'; }
for m in 600 640; do
    want=-rw-------
    [ $m = 640 ] && want=-rw-r-----
    for f in v.txt vc.txt c.counts sc.counts ck cv.csv; do
        rm -f "$T/lost/$f"
        echo old > "$T/lost/$f"
        chmod $m "$T/lost/$f"
        [ "$(id -u)" = 0 ] && chown 65534:65534 "$T/lost/$f"
    done
    run train -counts "$T/lost/s.counts" -method svd -size 10 -quiet -output "$T/lost/v.txt" -output-contexts "$T/lost/vc.txt"
    run count -train "$SAMPLE" -quiet -output "$T/lost/c.counts"
    run train -train "$SAMPLE" -method svd -size 10 -quiet -output "$T/lost/o.txt" -save-counts "$T/lost/sc.counts"
    run train -counts "$T/lost/s.counts" -size 10 -steps 1 -quiet -output "$T/lost/o.txt" -checkpoint "$T/lost/ck" -curve "$T/lost/cv.csv"
    for f in v.txt vc.txt c.counts sc.counts ck cv.csv; do
        [ "$(perms "$T/lost/$f")" = $want ] && ok || bad "$f, mode $m before: $(perms "$T/lost/$f") after"
        [ "$(id -u)" != 0 ] || [ "$(owner "$T/lost/$f")" = 65534:65534 ] && ok || bad "$f: owner $(owner "$T/lost/$f"), not kept"
    done
done
ls "$T/lost" | grep -q '\.part$\|\.tmp$' && bad "a temporary file left: $(ls "$T/lost")" || ok
rm -f "$T/lost/new.txt"
(umask 027 && "$BIN" train -counts "$T/lost/s.counts" -method svd -size 10 -quiet -output "$T/lost/new.txt") && ok || bad "a new -output"
[ "$(perms "$T/lost/new.txt")" = -rw-r----- ] && ok || bad "a new file under umask 027: $(perms "$T/lost/new.txt")"

# an output name that fits the folder but whose temporary name does not
# (250 bytes + ".<16 hex>.tmp") is refused before counting, as other usage
# errors; -curve (written in place) may have it
long=$(awk 'BEGIN { while (length(s) < 246) s = s "n"; print s ".txt" }')
mkdir -p "$T/lost/long"
fails "-output: the name '$long' is too long" train -train "$SAMPLE" -size 10 -steps 1 -output "$T/lost/long/$long"
grep -q "^count:" "$T/err" && bad "a long -output refused after counting" || ok
fails "-output-contexts: the name .* is too long" train -train "$SAMPLE" -size 10 -steps 1 -output "$T/lost/o.txt" -output-contexts "$T/lost/long/$long"
fails "-save-counts: the name .* is too long" train -train "$SAMPLE" -size 10 -steps 1 -output "$T/lost/o.txt" -save-counts "$T/lost/long/$long"
fails "-checkpoint: the name .* is too long" train -train "$SAMPLE" -size 10 -steps 1 -output "$T/lost/o.txt" -checkpoint "$T/lost/long/$long"
fails "-output: the name .* is too long.*at most 234 bytes" count -train "$SAMPLE" -output "$T/lost/long/$long"
grep -q "^count:" "$T/err" && bad "a long count -output refused after counting" || ok
[ -z "$(ls "$T/lost/long")" ] && ok || bad "a refused long name left files: $(ls "$T/lost/long")"
run count -train "$SAMPLE" -quiet -output "$T/lost/long/$(echo "$long" | cut -c1-234)"
run train -counts "$T/lost/s.counts" -size 10 -steps 1 -quiet -output "$T/lost/o.txt" -curve "$T/lost/long/$long"

# both outputs or neither: -output-contexts is written and renamed first,
# -output last, so a kill between the two renames (strace kills at the 4th
# rename: the two library saves to the .part files, then the two commits)
# leaves the old -output, the new -output-contexts and the whole new
# -output as VECTORS.<pid>.part alone; a failed last rename says so and
# keeps that file
run train -counts "$T/lost/s.counts" -method svd -size 10 -quiet -output "$T/lost/refv.txt" -output-contexts "$T/lost/refc.txt"
if command -v strace > /dev/null 2>&1 && strace -qq -o /dev/null true 2> /dev/null; then
    for how in signal=KILL error=EIO; do
        mkdir -p "$T/lost/kill"
        rm -f "$T/lost/kill/"*
        echo old > "$T/lost/kill/v.txt"
        echo old > "$T/lost/kill/c.txt"
        strace -f -qq -o /dev/null -e trace=rename,renameat,renameat2 \
            -e inject=rename,renameat,renameat2:$how:when=4 \
            "$BIN" train -counts "$T/lost/s.counts" -method svd -size 10 -quiet \
            -output "$T/lost/kill/v.txt" -output-contexts "$T/lost/kill/c.txt" 2> "$T/err"
        [ "$(cat "$T/lost/kill/v.txt")" = old ] && ok || bad "$how at the last rename: -output is not the old one"
        same "$T/lost/kill/c.txt" "$T/lost/refc.txt"
        part=$(ls "$T/lost/kill/" | grep '^v\.txt\.[0-9]*\.part$')
        [ -n "$part" ] && same "$T/lost/kill/$part" "$T/lost/refv.txt" || bad "$how at the last rename: no v.txt.<pid>.part: $(ls "$T/lost/kill")"
        ls "$T/lost/kill/" | grep -q '^c\.txt\..*part$' && bad "$how at the last rename: c.txt's .part left" || ok
        [ $how = signal=KILL ] || grep -q "is the whole new -output: rename it over" "$T/err" && ok || bad "a failed last rename: $(cat "$T/err")"
    done
fi

# ------------------------------------------------------------ the README's C example, as printed
if [ -f README.md ] && command -v cc >/dev/null 2>&1; then
    mkdir -p "$T/readme"
    awk '/^## Use it in your program/ { p = 1 } p && /^```c$/ { c = 1; next } c && /^```/ { exit } c' README.md > "$T/readme/example.c"
    line=$(awk '/^## Use it in your program/ { p = 1 } p && /^```sh$/ { s = 1; next } s && /^```/ { exit } s' README.md)
    cp ro_sgns.h "$T/readme/"
    cp "$SAMPLE" "$T/readme/corpus.txt"
    if [ -s "$T/readme/example.c" ] && [ -n "$line" ]; then
        (cd "$T/readme" && sh -c "$line") > "$T/out" 2> "$T/err" && ok || bad "README example: '$line': $(head -c 600 "$T/err")"
        grep -q "vectors.txt" "$T/out" && ok || bad "README example output: $(cat "$T/out")"
        [ -s "$T/readme/vectors.txt" ] && ok || bad "README example wrote no vectors.txt"
        cc -std=c99 -pedantic -Wall -Wextra -Werror -c "$T/readme/example.c" -I"$T/readme" -o "$T/readme/strict.o" 2> "$T/err" \
            && ok || bad "README example under -std=c99 -pedantic -Wall -Wextra -Werror: $(head -c 600 "$T/err")"
    else
        bad "README: no C example or build line under 'Use it in your program'"
    fi
fi

# ------------------------------------------------------------ make install, pkg-config, make uninstall
if [ -f Makefile ] && command -v make >/dev/null 2>&1 && [ -s "$T/readme/example.c" ]; then
    P=$(pwd)/$T/prefix
    make -s install PREFIX="$P" INSTALL_BIN="$BIN" > "$T/out" 2> "$T/err" && ok || bad "make install: $(cat "$T/err")"
    [ -f "$P/include/ro_sgns.h" ] && [ -x "$P/bin/ro-sgns" ] && [ -f "$P/lib/pkgconfig/ro_sgns.pc" ] && ok || bad "make install: files missing"
    "$P/bin/ro-sgns" -version > /dev/null && ok || bad "the installed ro-sgns runs"
    if command -v pkg-config >/dev/null 2>&1; then
        flags=$(PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --cflags --libs ro_sgns)
        # shellcheck disable=SC2086
        cc -O2 "$T/readme/example.c" -o "$T/readme/example_pc" $flags 2> "$T/err" && ok || bad "build with pkg-config ($flags): $(cat "$T/err")"
    fi
    make -s uninstall PREFIX="$P" > "$T/out" 2> "$T/err" && ok || bad "make uninstall: $(cat "$T/err")"
    [ -e "$P/include/ro_sgns.h" ] || [ -e "$P/bin/ro-sgns" ] || [ -e "$P/lib/pkgconfig/ro_sgns.pc" ] && bad "make uninstall left files" || ok
fi

rm -rf "$T"
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
