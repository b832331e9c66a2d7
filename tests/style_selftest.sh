#!/bin/sh
# Self-test of tests/style.sh: sh tests/style_selftest.sh [ROOT]
# For each rule, a copy of ROOT's ro_sgns.h, README.md, Makefile and tests/
# gets one planted break; style.sh must fail that rule and name the plant.
# The unplanted copy must fail no rule the repository does not already fail.
# Runs without the link's compile (CC=true) except where the plant is the link.

ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
STYLE=$ROOT/tests/style.sh
TMP=${TMPDIR:-/tmp}/style_selftest.$$
mkdir -p "$TMP" || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
fail=0

# fresh copy in $TMP/r; $1 = keep tests/size_table.sh (1) or not (0)
copy() {
    rm -rf "$TMP/r"
    mkdir -p "$TMP/r"
    cp "$ROOT/ro_sgns.h" "$TMP/r/" || exit 2
    for f in README.md Makefile; do
        [ -f "$ROOT/$f" ] && cp "$ROOT/$f" "$TMP/r/"
    done
    # the size table lives in docs/LIBRARY.md
    if [ -d "$ROOT/docs" ]; then
        mkdir -p "$TMP/r/docs" && cp "$ROOT"/docs/*.md "$TMP/r/docs/"
    fi
    cp -R "$ROOT/tests" "$TMP/r/tests" || exit 2
    [ "$1" = 1 ] || rm -f "$TMP/r/tests/size_table.sh"
}

# expect RULE-LINE-PREFIX MARKER NAME [CC]: style.sh on the copy fails, prints
# "FAIL  <prefix>" and the marker
expect() {
    CC=${4:-true} sh "$STYLE" "$TMP/r" >"$TMP/out" 2>&1
    rc=$?
    [ $rc -ne 0 ] && grep -q "^FAIL  $1" "$TMP/out" && grep -q -- "$2" "$TMP/out"
    tally $? "$3 (wanted exit 1, \"FAIL  $1\" and \"$2\")"
}

# refute PATTERN NAME: the last run's output does not name the pattern
refute() {
    ! grep -q "$1" "$TMP/out"
    tally $? "$2"
}

# tally STATUS NAME: status 0 passes; else the name and the last run's output
tally() {
    if [ "$1" -eq 0 ]; then
        pass=$((pass + 1))
        echo "ok    $2"
    else
        fail=$((fail + 1))
        echo "FAIL  $2:"
        sed 's/^/      /' "$TMP/out"
    fi
}

# append lines (stdin) to the copy's header
plant() { cat >>"$TMP/r/ro_sgns.h"; }
# insert stdin before line $1 of the copy's header
plant_at() {
    cat >"$TMP/ins"
    awk -v at="$1" -v f="$TMP/ins" 'NR == at { while ((getline l < f) > 0) print l } { print }' \
        "$TMP/r/ro_sgns.h" >"$TMP/h" && mv "$TMP/h" "$TMP/r/ro_sgns.h"
}

# the repository as it is: the rules it fails are the known failures (f,
# the size table, is left to the plant below and to style.sh itself: each
# of its runs compiles the header a dozen times)
copy 0
mkdir -p "$TMP/k" && cp "$ROOT/ro_sgns.h" "$TMP/k/" && cp -R "$ROOT/tests" "$TMP/k/tests" &&
    rm -f "$TMP/k/tests/size_table.sh"
sh "$STYLE" "$TMP/k" >"$TMP/known" 2>&1
sh "$STYLE" "$TMP/r" >"$TMP/out" 2>&1
grep '^FAIL' "$TMP/known" | sort >"$TMP/known_fail"
grep '^FAIL' "$TMP/out" | sort >"$TMP/copy_fail"
if tail -n 1 "$TMP/out" | grep -q '^[0-9]* passed, [0-9]* failed$' && cmp -s "$TMP/known_fail" "$TMP/copy_fail"; then
    pass=$((pass + 1))
    echo "ok    an unplanted copy fails only what the repository fails ($(wc -l <"$TMP/known_fail" | tr -d ' ') known)"
else
    fail=$((fail + 1))
    echo "FAIL  an unplanted copy: other failures than the repository's:"
    sed 's/^/      /' "$TMP/out"
fi

# a: a 151-line function
copy 0
{
    echo 'static int ro_sgns__planted_long(int x)'
    echo '{'
    i=0
    while [ $i -lt 148 ]; do echo '    x += 1;'; i=$((i + 1)); done
    echo '}'
} | plant
expect "a " "ro_sgns__planted_long is 151 lines" "a: a 151-line function"

# b: eleven parameters, not on the list; ten pass
copy 0
plant <<'P'
static int ro_sgns__planted_wide(int a1, int a2, int a3, int a4, int a5, int a6,
                                 int a7, int a8, int a9, int a10, int a11)
{
    return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
}
static int ro_sgns__planted_ten(int a1, int a2, int a3, int a4, int a5, int a6,
                                int a7, int a8, int a9, int (*a10)(int, int))
{
    return a10(a1 + a2 + a3 + a4 + a5, a6 + a7 + a8 + a9);
}
P
expect "b " "ro_sgns__planted_wide takes 11 parameters" "b: an 11-parameter function"
refute "planted_ten" "b: a 10-parameter function (one a function pointer) passes"

# c: Part I grown past its budget
copy 0
p1=$(grep -n 'PART I\. RO-SGNS PLAINLY' "$TMP/r/ro_sgns.h" | head -n 1 | cut -d: -f1)
p2=$(grep -n 'PART II\. THE SAME, FAST' "$TMP/r/ro_sgns.h" | head -n 1 | cut -d: -f1)
{
    echo '/* planted:'
    i=0
    while [ $i -lt 1200 ]; do echo '   a line of Part I'; i=$((i + 1)); done
    echo '*/'
} | plant_at $((p1 + 2))
expect "c  Part I within" "Part I is $((p2 - p1 + 1202)) lines" "c: Part I past 1,200 lines"

# c: Part I calls Part II, so Part I alone does not link
copy 0
ii1=$(grep -n '^   II\.1 ' "$TMP/r/ro_sgns.h" | head -n 1 | cut -d: -f1)
printf '#ifndef RO_SGNS_PLAIN\nvoid ro_sgns__planted_part2(void);\nvoid ro_sgns__planted_part2(void) {}\n#endif\n' |
    plant_at $((ii1 - 1))
# Part I ends where the guard that leaves Part II out of RO_SGNS_PLAIN opens
p2=$(grep -n '^#ifndef RO_SGNS_PLAIN' "$TMP/r/ro_sgns.h" | head -n 1 | cut -d: -f1)
printf 'void ro_sgns__planted_part2(void);\nvoid ro_sgns__planted_part1(void);\nvoid ro_sgns__planted_part1(void) { ro_sgns__planted_part2(); }\n' |
    plant_at "$p2"
expect "c  Part I links alone" "ro_sgns__planted_part2" "c: a Part II call from Part I" "${CC:-cc}"

# g: a 7-line comment above a public declaration; a 6-line one passes
copy 0
de=$(grep -n '^#endif /\* RO_SGNS_H \*/' "$TMP/r/ro_sgns.h" | head -n 1 | cut -d: -f1)
printf '/* planted long contract\n   2\n   3\n   4\n   5\n   6\n   7 */\nRO_SGNS_DEF int ro_sgns_planted_long_doc(void);\n/* planted short contract\n   2\n   3\n   4\n   5\n   6 */\nRO_SGNS_DEF int ro_sgns_planted_short_doc(void);\n' |
    plant_at "$de"
expect "g " "a 7-line comment above the declaration at line $((de + 7))" "g: a 7-line declaration comment"
refute "line $((de + 14))" "g: a 6-line declaration comment passes"

# d: lab notes, one kind at a time; then the same words where they belong
for note in "12.4 s a step on a Zen 3" "measured 2026-12-07" "ws353 0.389 after 3 steps" \
    "ended at F -2.130e9" "(dev mean 0.412)" "on the Xeon"; do
    copy 0
    n=$(($(wc -l <"$TMP/r/ro_sgns.h") + 1))
    echo "/* planted: $note */" | plant
    expect "d " "ro_sgns.h:$n:" "d: a comment with \"$note\""
done
copy 0
n=$(wc -l <"$TMP/r/ro_sgns.h")
plant <<'P'
/* planted, not lab notes: Table 2 of the paper (Fonarev et al. 2017), a
   float's range (3.4e38), at most 4.29e9 tokens, OPENBLAS_CORETYPE=SkylakeX,
   3CosAdd, a 0.125 step, men and women, the test file ws353.txt */
static const char *ro_sgns__planted_text = "ws353 0.389 on a Zen 3, 2026-12-07, F -2.1e9";
P
CC=true sh "$STYLE" "$TMP/r" >"$TMP/out" 2>&1
awk -F: -v n="$n" '$1 ~ /ro_sgns\.h$/ && $2 + 0 > n { bad = 1 } END { exit bad }' "$TMP/out"
tally $? "d: prose and a string literal are not lab notes"

# e: a cited test and a cited section that do not exist
copy 0
echo '/* planted: checked by test_doesnotexist */' | plant
expect "e  every test" "test_doesnotexist" "e: a cited test_doesnotexist"
copy 0
echo '/* planted: build/test_suites_f ro runs test_gemm; build/test_nothere_f does not */' | plant
expect "e  every test" "test_nothere_f" "e: a cited build/test_nothere_f"
refute "test_suites_f\|test_gemm," "e: build/test_suites_f and test_gemm pass"
copy 0
echo '/* planted: tests/test_nothere.c checks it */' | plant
expect "e  every test" "tests/test_nothere.c" "e: a cited tests/test_nothere.c"
copy 0
echo '/* planted: as in (II.42) */' | plant
expect "e  every section" "II.42" "e: a cited (II.42)"

# f: a wrong number in the size table (only with tests/size_table.sh); the
# table is the one between the size-table markers, in docs/LIBRARY.md or README
T=
for f in docs/LIBRARY.md README.md; do
    [ -z "$T" ] && [ -f "$ROOT/$f" ] && grep -q 'size-table begin' "$ROOT/$f" && T=$f
done
if [ -f "$ROOT/tests/size_table.sh" ] && [ -n "$T" ]; then
    copy 1
    # the -Os bytes of the first row that names a configuration get one
    # added to their last digit
    awk '!done && /^\| (everything|`RO_SGNS_)/ && match($0, /\| [0-9][0-9,]*[0-9] \|/) {
        s = substr($0, RSTART + 2, RLENGTH - 4); d = substr(s, length(s), 1)
        s2 = substr(s, 1, length(s) - 1) ((d + 1) % 10)
        $0 = substr($0, 1, RSTART + 1) s2 substr($0, RSTART + RLENGTH - 2); done = 1 } { print }' \
        "$ROOT/$T" >"$TMP/r/$T"
    if cmp -s "$ROOT/$T" "$TMP/r/$T"; then
        fail=$((fail + 1))
        echo "FAIL  f: no size-table row with a number in $T to plant in"
    else
        expect "f " "differs from the objects" "f: a wrong number in the size table ($T)"
    fi
else
    echo "skip  f: no tests/size_table.sh or no size table"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
