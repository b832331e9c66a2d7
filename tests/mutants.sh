#!/bin/sh
# mutants.sh - do the suites catch the bugs they are meant to catch? Each
# mutant below is a one-line bug put into a copy of ro_sgns.h (sed, in a
# temporary copy of the repository: tests/, examples/, mk/, the Makefile);
# the suites that should catch it are built there by the Makefile's own
# rules and run by tests/run.sh, each on its own. A mutant is caught when
# its build fails or every suite listed for it fails, partly caught when
# some do, missed when none does. Prints a table and exits non-zero when
# any mutant was not caught by all its suites or could not be applied (its
# line changed: update the sed here).
#   sh tests/mutants.sh [name ...]     (from the repository root; make mutants)
# Names: qr-sign log1p-coef step-cap avx512-never fused-r2; none = the
# header unchanged (every suite must pass: a check that fails on the real
# header catches nothing). Slow: each mutant compiles the header one to
# four times (about 15 minutes for all on 2 busy cores). Not in make check.
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

# mutant NAME SED-SCRIPT TARGETS RUNS WHAT: apply SED-SCRIPT to the copy's
# ro_sgns.h, make TARGETS (build/...), then run each of RUNS (the built
# suites, space separated) through tests/run.sh
mutant() {
    name=$1 script=$2 targets=$3 runs=$4 what=$5
    if [ -n "$ONLY" ] && ! printf ' %s ' "$ONLY" | grep -q " $name "; then return; fi
    R=$WORK/$name
    mkdir -p "$R"
    cp -R "$ROOT/tests" "$ROOT/examples" "$ROOT/mk" "$ROOT/Makefile" "$R/"
    sed "$script" "$ROOT/ro_sgns.h" > "$R/ro_sgns.h"
    if [ "$name" != none ] && cmp -s "$ROOT/ro_sgns.h" "$R/ro_sgns.h"; then
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
            if (cd "$R" && mkdir -p build/tmp && RO_SGNS_TEST_TMP=build/tmp sh tests/run.sh $t) >> "$log" 2>&1; then
                missed_by="$missed_by ${t#build/}"
            else
                by="$by ${t#build/}"
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

ONLY=${*:-}
mutant none 's/^//' "build/test_linalg_f build/test_linalg_d build/test_ro_f build/test_ro_d build/kernel_rule.ok" \
    "build/test_linalg_f build/test_linalg_d build/test_ro_f build/test_ro_d" \
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

echo
printf '%-13s %-8s %s\n' mutant result "what it breaks (second line: how it was caught)"
cat "$TABLE"
! grep -qE '^[^ ]+ +(missed|partly|NOT APPLIED|FAILS)' "$TABLE"
