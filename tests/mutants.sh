#!/bin/sh
# mutants.sh - do the suites catch the bugs they are meant to catch? Each
# mutant below is a one-line bug put into a copy of ro_sgns.h (or of the
# program, examples/ro_sgns_cli.c) by sed, in a temporary copy of the
# repository (tests/, examples/, mk/, the Makefile); the suites that
# should catch it are built there by the Makefile's own rules and run by
# tests/run.sh, each on its own. A mutant is caught when its build fails
# or every suite listed for it fails, partly caught when some do, missed
# when none does. Prints a table and exits non-zero when any mutant was
# not caught by all its suites or could not be applied (its line
# changed: update the sed here). docs/TESTING.md lists what catches each.
#   sh tests/mutants.sh [name ...]     (from the repository root; make mutants)
# Names: qr-sign log1p-coef step-cap avx512-never fused-r2 est-rate
# mem-bytes fold-half fold-nan cg-short cg-no-conj head-count head-min;
# none = the header unchanged (every suite must pass: a check that fails
# on the real header catches nothing). Slow: each mutant compiles the
# header or the program once to four times. Not in make check.
set -u
ROOT=$(pwd)
[ -f "$ROOT/ro_sgns.h" ] && [ -f "$ROOT/tests/run.sh" ] || { echo "mutants: run from the repository root"; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ro_sgns_mutants.XXXXXX") || exit 2
# MUTANTS_KEEP=1 keeps the copies and their logs (WORK/NAME/log)
if [ -n "${MUTANTS_KEEP:-}" ]; then echo "mutants: in $WORK" >&2; else trap 'rm -rf "$WORK"' EXIT INT TERM; fi
# the suites read ../shared/data from the repository root
[ -d "$ROOT/../shared" ] && ln -s "$ROOT/../shared" "$WORK/shared"
NICE=$(command -v nice >/dev/null 2>&1 && echo nice)
TABLE=$WORK/table
: > "$TABLE"

# mutant NAME SED-SCRIPT TARGETS RUNS WHAT [FILE]: apply SED-SCRIPT to the
# copy's FILE (default ro_sgns.h), make TARGETS (build/...), then run each
# of RUNS (the built suites, space separated; a + in one stands for a
# space: "sh+tests/test_head.sh+build/ro-sgns-test") through tests/run.sh
mutant() {
    name=$1 script=$2 targets=$3 runs=$4 what=$5 file=${6:-ro_sgns.h}
    if [ -n "$ONLY" ] && ! printf ' %s ' "$ONLY" | grep -q " $name "; then return; fi
    R=$WORK/$name
    mkdir -p "$R"
    cp -R "$ROOT/tests" "$ROOT/examples" "$ROOT/mk" "$ROOT/Makefile" "$ROOT/ro_sgns.h" "$R/"
    sed "$script" "$ROOT/$file" > "$R/$file"
    if [ "$name" != none ] && cmp -s "$ROOT/$file" "$R/$file"; then
        echo "$name: the sed changed nothing" >&2
        printf '%-13s %-8s %s\n' "$name" "NOT APPLIED" "$what" >> "$TABLE"
        return
    fi
    echo "== $name: $what" >&2
    log=$R/log
    if ! (cd "$R" && $NICE make --no-print-directory -j2 $targets) > "$log" 2>&1; then
        result=caught
        how="the build fails: $(grep -m1 -E 'error:' "$log" | sed 's/^[^ ]* //' | cut -c1-100)"
    else
        # each suite on its own: which of them catch it
        by="" missed_by=""
        for t in $runs; do
            if (cd "$R" && mkdir -p build/tmp && RO_SGNS_TEST_TMP=build/tmp sh tests/run.sh "$(echo "$t" | tr + ' ')") >> "$log" 2>&1; then
                missed_by="$missed_by $(suite_name "$t")"
            else
                by="$by $(suite_name "$t")"
            fi
        done
        if [ -z "$by" ]; then
            result=missed how="every suite passed:$missed_by"
        elif [ -z "$missed_by" ]; then
            result=caught how="by$by: $(grep -m1 -E 'CHECK failed|FAIL' "$log" | sed 's/^[^ ]*: //' | cut -c1-80)"
        else
            result=partly how="by$by, not by$missed_by"
        fi
    fi
    [ "$name" = none ] && { [ "$result" = missed ] && result=pass how="every suite passed" || result=FAILS; }
    printf '%-13s %-8s %s\n' "$name" "$result" "$what" >> "$TABLE"
    printf '%-13s %-8s   %s\n' "" "" "$how" >> "$TABLE"
    tail -n 3 "$log" >&2
}

# the name a suite goes by in the table: build/test_ro_f -> test_ro_f,
# sh+tests/test_head.sh+build/ro-sgns-test -> test_head.sh
suite_name() { echo "$1" | tr + ' ' | awk '{ n = $1 == "sh" ? $2 : $1; sub(/.*\//, "", n); print n }'; }

ONLY=${*:-}
HEAD_TEST=sh+tests/test_head.sh+build/ro-sgns-test
mutant none 's/^//' "build/test_linalg_f build/test_linalg_d build/test_ro_f build/test_ro_d build/kernel_rule.ok build/ro-sgns-test" \
    "build/test_linalg_f build/test_linalg_d build/test_ro_f build/test_ro_d $HEAD_TEST" \
    "the header unchanged: every suite below passes"
mutant qr-sign 's/if (alpha > 0) beta = -beta;/if (alpha < 0) beta = -beta;/' \
    "build/test_linalg_f build/test_linalg_d" "build/test_linalg_f build/test_linalg_d" \
    "Householder beta of alpha's sign (I.5: qr_naive, and qr_builtin's panels)"
mutant log1p-coef 's|z4 \* ((1.0f / 11 + |z4 * ((1.0f / 12 + |' \
    "build/test_ro_f" "build/test_ro_f" \
    "float log1p polynomial: 1/11 -> 1/12 (II.5)"
mutant step-cap 's/return lambda \* cfg->grow > cap ? cap : lambda \* cfg->grow;/(void)cap; return lambda * cfg->grow;/' \
    "build/test_ro_f" "build/test_ro_f" \
    "the safeguard's step grows past the configured step (II.6)"
mutant avx512-never 's/^#if defined(__AVX512F__) && !defined(RO_SGNS_NO_SIMD)$/#if 0/' \
    "build/kernel_rule.ok" "" \
    "an AVX-512 build never selects the AVX-512 kernel (II.1)"
mutant fused-r2 's/^        if (n_inv > 1) {$/        if (0 \&\& n_inv > 1) {/' \
    "build/test_ro_f build/test_ro_d" "build/test_ro_f build/test_ro_d" \
    "the fused step's D^T U' without its second R^-1 (II.6)"
mutant est-rate 's|\*seconds = ro_sgns__step_work(n, m, d) / \*rate;|*seconds = ro_sgns__step_work(n, m, d) / (2 * *rate);|' \
    "build/test_ro_f" "build/test_ro_f" \
    "the step-time estimate's rate doubled: half the seconds W / rate (II.6)"
mutant mem-bytes 's/const uint64_t R = sizeof(ro_sgns_real), l = 3/const uint64_t R = 2 * sizeof(ro_sgns_real), l = 3/' \
    "build/test_ro_f build/test_ro_d" "build/test_ro_f build/test_ro_d" \
    "the memory estimate of training counts each real twice (III.1)"
mutant fold-half 's/alpha = lo > 0 ? lo : 1;/alpha = lo > 0 ? lo : 0.5;/' \
    "build/test_ro_f build/test_ro_d" "build/test_ro_f build/test_ro_d" \
    "the fold's MM step taken halfway (II.9): f still rises"
mutant fold-nan 's/(\*out)->iteration = hd->iteration;/& if (cfg.iterations == 0) (*out)->S[0] = (ro_sgns_real)NAN;/' \
    "build/test_ro_f build/test_ro_d" "build/test_ro_f build/test_ro_d" \
    "a NaN in the fold's point when it takes no step (II.9): only the maxima see it"
mutant cg-short 's/if (it + 1 == iters) break;/if (it + 2 >= iters) break;/' \
    "build/test_ro_f build/test_ro_d" "build/test_ro_f build/test_ro_d" \
    "the metric direction's CG one update short (II.6b)"
mutant cg-no-conj 's|beta = rz1 / rz;|beta = 0;|' \
    "build/test_ro_f build/test_ro_d" "build/test_ro_f build/test_ro_d" \
    "the metric direction's CG without conjugation: steepest descent (II.6b)"
mutant head-count 's/cn->vocab.count\[nh\] >= CLI_HEAD_COUNT/cn->vocab.count[nh] > CLI_HEAD_COUNT/' \
    "build/ro-sgns-test" "$HEAD_TEST" \
    "the default head leaves out the words seen exactly 200 times (head_size)" examples/ro_sgns_cli.c
mutant head-min 's/nh = cn->n < CLI_HEAD_MIN ? cn->n : CLI_HEAD_MIN;/nh = cn->n < CLI_HEAD_MIN ? cn->n : CLI_HEAD_MIN - 1;/' \
    "build/ro-sgns-test" "$HEAD_TEST" \
    "the default head's minimum one short: 19,999 words (head_size)" examples/ro_sgns_cli.c

echo
printf '%-13s %-8s %s\n' mutant result "what it breaks (second line: how it was caught)"
cat "$TABLE"
! grep -qE '^[^ ]+ +(missed|partly|NOT APPLIED|FAILS)' "$TABLE"
