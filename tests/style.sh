#!/bin/sh
# The house rules as a check: sh tests/style.sh [ROOT]
# ROOT (default: the repository holding this script) gives ro_sgns.h, tests/
# and README.md. Each rule prints the places that break it and fails the run;
# the last line is "N passed, N failed". POSIX sh, awk, grep and cc.
#   a  no function in ro_sgns.h over 150 lines (signature's first line to its
#      closing brace)
#   b  no function over 10 parameters, outside the BLAS/LAPACK-shaped list below
#   c  Part I ("PART I. RO-SGNS PLAINLY" up to "PART II. THE SAME, FAST") at
#      most 1,200 lines, and it links alone: RO_SGNS_PLAIN, C99, no OpenMP, -lm
#   d  comments free of lab notes: machine names, dates, corpus scores, F values
#   e  every test (test_*, tests/*.c|sh) and section ((I.n), II.n, III.n) a
#      comment cites exists
#   f  README's size table matches the objects (tests/size_table.sh check)
#   g  the declarations are contracts: no comment directly above a public
#      declaration (RO_SGNS_DEF, before the declarations' end) over 6 lines;
#      section banners (/* =====) are not contracts and may be longer
# CC (default cc) compiles the link check of c.

ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
H=$ROOT/ro_sgns.h
CC=${CC:-cc}
MAX_LINES=150
MAX_PARAMS=10
PART1_BUDGET=1200

# b's allowlist: functions shaped like BLAS/LAPACK calls (sizes, leading
# dimensions, scalars and arrays in the reference's order), one reason each.
ALLOW='
ro_sgns_gemm            dgemm: transposes, m n k, alpha, A lda, B ldb, beta, C ldc
ro_sgns_gemm_builtin    dgemm: the built-in kernel behind ro_sgns_gemm
ro_sgns_gemm_naive      dgemm: the plain triple loop, the reference for the others
ro_sgns__gemm_cblas     dgemm: the call handed to cblas_?gemm unchanged
ro_sgns__gemm_run_tile  dgemm: one tile of the blocked product, same arguments
ro_sgns__gemm_taken     dgemm: asks whether a product of these shapes goes to BLAS
ro_sgns__tile_gemm      dgemm: the sweep tile product, same arguments
ro_sgns_svd             dgesvd: m n, A lda, singular values, U ldu, V ldv, error
ro_sgns_svd_builtin     dgesvd: the built-in Jacobi behind ro_sgns_svd
ro_sgns__svd_tall       dgesvd: the tall case of the built-in SVD
ro_sgns_svd_naive       dgesvd: the plain cyclic Jacobi of Part I, twin of ro_sgns_svd
ro_sgns__qr_rows_inv    dgeqrf: n d, A, R, workspaces and the info-like outputs
'

TMP=${TMPDIR:-/tmp}/style.$$
mkdir -p "$TMP" || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok    $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1"; }

if [ ! -r "$H" ]; then
    echo "style.sh: no $H"
    echo "0 passed, 1 failed"
    exit 1
fi

# Comments of ro_sgns.h, one "LINE<TAB>text" per line holding comment text
# (string and character literals skipped).
awk '
{
    s = $0; n = length(s); out = ""; i = 1
    while (i <= n) {
        c = substr(s, i, 1)
        if (inc) {
            if (c == "*" && substr(s, i + 1, 1) == "/") { inc = 0; i += 2; out = out " "; continue }
            out = out c; i++; continue
        }
        if (c == "/" && substr(s, i + 1, 1) == "*") { inc = 1; i += 2; continue }
        if (c == "/" && substr(s, i + 1, 1) == "/") { out = out substr(s, i + 2); break }
        if (c == "\"" || c == "\047") {
            q = c; i++
            while (i <= n) {
                d = substr(s, i, 1)
                if (d == "\\") { i += 2; continue }
                i++
                if (d == q) break
            }
            continue
        }
        i++
    }
    if (out ~ /[^ \t]/) print NR "\t" out
}' "$H" >"$TMP/comments"

# Function definitions: "start<TAB>end<TAB>lines<TAB>params<TAB>name". A body
# opens with "{" alone at column 0 and closes with "}" alone at column 0; the
# signature starts at the last line before the "{" that begins at column 0.
awk '
/^[A-Za-z_]/ { if (!inbody) { sig = NR; sigtext = "" } }
{ if (!inbody && sig && $0 != "{") sigtext = sigtext " " $0 }
$0 == "{" && !inbody && sig {
    inbody = 1; start = sig
    t = sigtext; p = index(t, "(")
    name = substr(t, 1, p - 1); sub(/[ \t]+$/, "", name); sub(/.*[^A-Za-z0-9_]/, "", name)
    rest = substr(t, p + 1); depth = 1; commas = 0; args = ""
    for (i = 1; i <= length(rest); i++) {
        c = substr(rest, i, 1)
        if (c == "(") depth++
        else if (c == ")") { depth--; if (depth == 0) break }
        else if (c == "," && depth == 1) commas++
        args = args c
    }
    gsub(/[ \t]/, "", args)
    np = (args == "" || args == "void") ? 0 : commas + 1
    next
}
$0 == "}" && inbody {
    print start "\t" NR "\t" (NR - start + 1) "\t" np "\t" name
    inbody = 0; sig = 0
}' "$H" >"$TMP/funcs"

# a: function length
awk -F'\t' -v max=$MAX_LINES '$3 > max {
    printf "  ro_sgns.h:%s: %s is %s lines (at most %s)\n", $1, $5, $3, max; n++ }
    END { exit n > 0 }' "$TMP/funcs" && ok "a  no function over $MAX_LINES lines" ||
    bad "a  no function over $MAX_LINES lines"

# b: parameter count
echo "$ALLOW" | awk 'NF { print $1 }' >"$TMP/allow"
awk -F'\t' -v max=$MAX_PARAMS 'NR == FNR { allow[$1] = 1; next }
    $4 > max && !($5 in allow) {
    printf "  ro_sgns.h:%s: %s takes %s parameters (at most %s; not BLAS/LAPACK-shaped)\n",
           $1, $5, $4, max; n++ }
    END { exit n > 0 }' "$TMP/allow" "$TMP/funcs" &&
    ok "b  no function over $MAX_PARAMS parameters outside the BLAS/LAPACK list" ||
    bad "b  no function over $MAX_PARAMS parameters outside the BLAS/LAPACK list"

# c: Part I's budget, then its lone link
p1=$(grep -n 'PART I\. RO-SGNS PLAINLY' "$H" | head -n 1 | cut -d: -f1)
p2=$(grep -n 'PART II\. THE SAME, FAST' "$H" | head -n 1 | cut -d: -f1)
if [ -z "$p1" ] || [ -z "$p2" ] || [ "$p2" -le "$p1" ]; then
    echo "  ro_sgns.h: the banners \"PART I. RO-SGNS PLAINLY\" and \"PART II. THE SAME, FAST\" not found in order"
    bad "c  Part I within $PART1_BUDGET lines"
elif [ $((p2 - p1)) -gt $PART1_BUDGET ]; then
    echo "  ro_sgns.h:$p1-$((p2 - 1)): Part I is $((p2 - p1)) lines (at most $PART1_BUDGET)"
    bad "c  Part I within $PART1_BUDGET lines"
else
    ok "c  Part I within $PART1_BUDGET lines ($((p2 - p1)))"
fi
grep -q RO_SGNS_PLAIN "$H" ||
    echo "  note: ro_sgns.h does not mention RO_SGNS_PLAIN: the link below builds the whole implementation"
printf '#define RO_SGNS_PLAIN\n#define RO_SGNS_IMPLEMENTATION\n#include "ro_sgns.h"\nint main(void) { return 0; }\n' >"$TMP/plain.c"
if $CC -std=c99 -pedantic -Wall -Wextra -Werror -I"$ROOT" -o "$TMP/plain" "$TMP/plain.c" -lm \
    >"$TMP/plain.log" 2>&1; then
    ok "c  Part I links alone (RO_SGNS_PLAIN, $CC -std=c99, -lm, no OpenMP)"
else
    sed -n '1,15s/^/  /p' "$TMP/plain.log"
    bad "c  Part I links alone (RO_SGNS_PLAIN, $CC -std=c99, -lm, no OpenMP)"
fi

# d: lab notes in comments. Narrow patterns, so that prose stays free:
# machine names as words; ISO dates; a corpus's name followed by a 0.xxx score;
# an objective's value (negative, e6..e12); a clock rate.
tag() { awk -F'\t' -v t="$1" '{ print $1 ": " t ": " $2 }'; }
W='(^|[^A-Za-z0-9_])'
E='([^A-Za-z0-9_]|$)'
{
    grep -E "${W}(Zen ?[1-5]|Zen|EPYC|Ryzen|Threadripper|Xeon|Skylake|Ice ?Lake|Cascade ?Lake|Sapphire ?Rapids|Haswell|Broadwell|Graviton[0-9]?|Neoverse|Apple M[1-4]|M[1-4] (Pro|Max|Ultra)|M[1-4]|Core i[3579])${E}" "$TMP/comments" | tag 'machine name'
    grep -E '20[0-9][0-9]-[01][0-9]-' "$TMP/comments" | tag 'date'
    grep -iE "${W}(ws-?353|wordsim(-?353)?|simlex(-?999)?|men|msr|rw|dev mean)([^A-Za-z0-9_.][^0-9]{0,24}|)0\.[0-9][0-9][0-9]" "$TMP/comments" | tag 'corpus score'
    grep -E "(^|[^A-Za-z0-9_.])-[0-9]+(\.[0-9]+)?e\+?([6-9]|1[0-2])${E}" "$TMP/comments" | tag 'F value'
    grep -E '[0-9] ?GHz' "$TMP/comments" | tag 'clock rate'
} | sort -n | uniq >"$TMP/labnotes"
if [ -s "$TMP/labnotes" ]; then
    sed 's/^/  ro_sgns.h:/' "$TMP/labnotes" | cut -c1-200
    bad "d  comments free of lab notes (docs/ABLATION.md, bench/RESULTS.md)"
else
    ok "d  comments free of lab notes"
fi

# e: cited tests and sections exist
: >"$TMP/cites"
for f in "$ROOT"/tests/*; do
    [ -f "$f" ] && cat "$f"
done >"$TMP/tests_text" 2>/dev/null
grep -oE 'tests/[A-Za-z0-9_.-]+\.(c|h|sh|awk|mjs)' "$TMP/comments" | sort -u >"$TMP/files"
while read -r f; do
    [ -f "$ROOT/$f" ] || grep -n "$f" "$TMP/comments" | head -n 1 |
        awk -F: -v f="$f" '{ split($2, a, "\t"); printf "  ro_sgns.h:%s: cites %s, not in the repository\n", a[1], f }' >>"$TMP/cites"
done <"$TMP/files"
awk -F'\t' '{ s = $2; while (match(s, /test_[a-z0-9_]+/)) {
    print $1 "\t" substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } }' \
    "$TMP/comments" >"$TMP/testnames"
awk -F'\t' '{ print $2 }' "$TMP/testnames" | sort -u | while read -r t; do
    ls "$ROOT/tests/$t".* >/dev/null 2>&1 && continue
    case $t in # a build of a test program: build/test_suites_f, ..._cxx
    *_f | *_d | *_cxx | *_asan) ls "$ROOT/tests/${t%_*}".* >/dev/null 2>&1 && continue ;;
    esac
    grep -qE "(^|[^A-Za-z0-9_])$t *\(" "$TMP/tests_text" && continue
    awk -F'\t' -v t="$t" '$2 == t { printf "  ro_sgns.h:%s: cites %s, no such test in tests/\n", $1, t }' \
        "$TMP/testnames" >>"$TMP/cites"
done
if [ -s "$TMP/cites" ]; then
    sort -t: -k2 -n "$TMP/cites"
    bad "e  every test a comment cites exists"
else
    ok "e  every test a comment cites exists"
fi
awk 'prev ~ /^\/\* =====/ && $0 ~ /^   (I|II|III)\.[0-9]+[a-z]? / { print $1 } { prev = $0 }' "$H" |
    sort -u >"$TMP/banners"
awk -F'\t' '{ s = " " $2; while (match(s, /[^A-Za-z0-9_.](I|II|III)\.[0-9]+[a-z]?/)) {
    print $1 "\t" substr(s, RSTART + 1, RLENGTH - 1); s = substr(s, RSTART + RLENGTH) } }' \
    "$TMP/comments" >"$TMP/sectcites"
awk -F'\t' 'NR == FNR { have[$1] = 1; next } !($2 in have) {
    printf "  ro_sgns.h:%s: cites %s, no such section banner\n", $1, $2; n++ }
    END { exit n > 0 }' "$TMP/banners" "$TMP/sectcites" &&
    ok "e  every section a comment cites exists" || bad "e  every section a comment cites exists"

# f: README's size table
if [ -f "$ROOT/tests/size_table.sh" ]; then
    if (cd "$ROOT" && sh tests/size_table.sh check) >"$TMP/size.log" 2>&1; then
        ok "f  README's size table matches the objects"
    else
        sed 's/^/  /' "$TMP/size.log"
        bad "f  README's size table matches the objects"
    fi
else
    echo "skip  f  README's size table: no tests/size_table.sh"
fi

# g: contracts of at most 6 lines above each public declaration
awk '
/^#endif \/\* RO_SGNS_H \*\// { exit }
{
    if (!inc && $0 ~ /^[ \t]*\/\*/) { inc = 1; cs = NR; banner = ($0 ~ /^\/\* =====/) }
    if (inc && index($0, "*/")) { inc = 0; ce = NR; cb = banner }
}
/^RO_SGNS_DEF/ && ce == NR - 1 && !cb && ce - cs + 1 > 6 {
    printf "  ro_sgns.h:%d: a %d-line comment above the declaration at line %d (at most 6)\n", cs, ce - cs + 1, NR
    n++
}
END { exit n > 0 }' "$H" && ok "g  declaration comments are contracts (at most 6 lines)" ||
    bad "g  declaration comments are contracts (at most 6 lines)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
