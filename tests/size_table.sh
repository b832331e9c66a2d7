#!/bin/sh
# size_table.sh - the table of what each configuration of the header compiles
# to (docs/LIBRARY.md, between the size-table markers), written and checked
# against the objects, so that the figures a reader sees are today's.
#   sh tests/size_table.sh write   measure every configuration and rewrite the
#                                  table (make size-table)
#   sh tests/size_table.sh check   measure again; exit 1 naming each row that
#                                  differs from the objects (make check, through
#                                  tests/style.sh)
# A configuration is one translation unit with RO_SGNS_IMPLEMENTATION, float,
# no OpenMP, one switch defined (or none: "everything"), built as
# tests/configs.sh TABLE=1 builds it (gcc -std=c99 -Os and -O2, -c); its size
# is text + data of the object (binutils' size). The configurations are
# tests/configs.sh's list (its configs= line), so a switch added there gets a
# row here (and the check fails until make size-table writes it).
# The bytes are only comparable for one compiler: the table names the one it
# was written with, and check on another compiler says so and exits 0.
# check measures -Os only (about 10 s a configuration on 2 cores; -O2 takes
# twice that); SIZE_TABLE_O2=1 checks the -O2 column too.
# Environment: SIZE_TABLE_CC (gcc), SIZE_TABLE_FILE (docs/LIBRARY.md),
# SIZE_TABLE_CONFIGS (a list instead of configs.sh's), RO_SGNS_TEST_TMP.
set -u
mode=${1:-check}
CC=${SIZE_TABLE_CC:-gcc}
FILE=${SIZE_TABLE_FILE:-docs/LIBRARY.md}
BEGIN='<!-- size-table begin: written by make size-table (tests/size_table.sh), checked by make check -->'
END='<!-- size-table end -->'
W=${RO_SGNS_TEST_TMP:-build}/size_table
mkdir -p "$W"
case $mode in write | check) ;; *) echo "usage: sh tests/size_table.sh write|check" >&2; exit 2 ;; esac

[ -f "$FILE" ] || { echo "size table: $FILE not found" >&2; exit 1; }
if ! grep -qxF "$BEGIN" "$FILE" || ! grep -qxF "$END" "$FILE"; then
    echo "size table: $FILE has no size-table markers:" >&2
    echo "  $BEGIN" >&2
    echo "  $END" >&2
    exit 1
fi
configs=${SIZE_TABLE_CONFIGS:-$(sed -n 's/^configs="\([^"]*\)".*/\1/p' tests/configs.sh | head -n 1)}
if [ -z "$configs" ]; then
    echo "size table: no configs=\"...\" line in tests/configs.sh" >&2
    exit 1
fi
if ! command -v "$CC" > /dev/null 2>&1 || ! command -v size > /dev/null 2>&1; then
    echo "size table: $CC or size not found: not measured"
    [ "$mode" = check ] && exit 0
    exit 1
fi
compiler="$($CC --version | head -n 1), $($CC -dumpmachine)"

# check on another compiler than the table's: say so, measure nothing
if [ "$mode" = check ]; then
    awk -v b="$BEGIN" -v e="$END" '$0 == b { p = 1; next } $0 == e { p = 0 } p' "$FILE" > "$W/old"
    recorded=$(sed -n 's/^Compiler: \(.*\)\.$/\1/p' "$W/old")
    if [ -z "$recorded" ]; then
        echo "size table: no table between the size-table markers in $FILE (make size-table writes it)" >&2
        exit 1
    fi
    if [ "$recorded" != "$compiler" ]; then
        echo "size table: $FILE was written with $recorded; this is $compiler: the bytes are not comparable, not checked"
        exit 0
    fi
fi

printf '#define RO_SGNS_IMPLEMENTATION\n#include "ro_sgns.h"\nint ro_sgns_configs_anchor;\n' > "$W/impl.c"
flag() { [ "$1" = ALL ] && echo "" || echo "-DRO_SGNS_$1"; }
label() { [ "$1" = ALL ] && echo "everything" || echo "\`RO_SGNS_$1\`"; }
# measure OPT CONFIG: text + data of the object
measure() {
    # shellcheck disable=SC2046
    if ! $CC -std=c99 "$1" $(flag "$2") -I. -c "$W/impl.c" -o "$W/obj.o" 2> "$W/err"; then
        echo "size table: $2 does not compile at $1:" >&2
        head -n 5 "$W/err" >&2
        exit 1
    fi
    size "$W/obj.o" | awk 'NR == 2 { print $1 + $2 }'
}
commas() { awk -v n="$1" 'BEGIN { s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) } print n s }'; }

# the measured rows, one a line: LABEL<TAB>OS<TAB>O2 (O2 "-" when not measured)
: > "$W/rows"
for c in $configs; do
    os=$(measure -Os "$c") || exit 1
    o2=-
    if [ "$mode" = write ] || [ "${SIZE_TABLE_O2:-0}" = 1 ]; then o2=$(measure -O2 "$c") || exit 1; fi
    printf '%s\t%s\t%s\n' "$(label "$c")" "$os" "$o2" >> "$W/rows"
done

if [ "$mode" = write ]; then
    {
        echo "$BEGIN"
        echo ""
        echo "Compiler: $compiler."
        echo ""
        echo "| configuration | -Os bytes | -O2 bytes | share of everything at -Os |"
        echo "|---|---:|---:|---:|"
        all=$(awk -F '\t' 'NR == 1 { print $2 }' "$W/rows")
        while IFS="$(printf '\t')" read -r l os o2; do
            echo "| $l | $(commas "$os") | $(commas "$o2") | $(awk -v a="$os" -v b="$all" 'BEGIN { printf "%.0f%%", 100 * a / b }') |"
        done < "$W/rows"
        echo ""
        echo "$END"
    } > "$W/table"
    awk -v b="$BEGIN" -v e="$END" -v t="$W/table" '
        $0 == b { while ((getline l < t) > 0) print l; skip = 1; next }
        $0 == e { skip = 0; next }
        !skip' "$FILE" > "$W/new" && cat "$W/new" > "$FILE"
    echo "size table: $FILE written ($(wc -l < "$W/rows") configurations, $compiler)"
    exit 0
fi

# check: the table in the file against the objects
# LABEL<TAB>OS<TAB>O2<TAB>SHARE from the file's rows
awk -F '|' '/^\| / && !/^\| configuration/ {
        for (i = 2; i <= 5; ++i) { gsub(/^ +| +$/, "", $i); if (i > 2) gsub(/,/, "", $i) }
        printf "%s\t%s\t%s\t%s\n", $2, $3, $4, $5 }' "$W/old" > "$W/file_rows"
bad=0
all=$(awk -F '\t' 'NR == 1 { print $2 }' "$W/rows")
while IFS="$(printf '\t')" read -r l os o2; do
    share=$(awk -v a="$os" -v b="$all" 'BEGIN { printf "%.0f%%", 100 * a / b }')
    row=$(awk -F '\t' -v l="$l" '$1 == l' "$W/file_rows")
    if [ -z "$row" ]; then
        echo "size table: no row for $l in $FILE (make size-table)"; bad=1; continue
    fi
    f_os=$(printf '%s' "$row" | cut -f 2)
    f_o2=$(printf '%s' "$row" | cut -f 3)
    f_share=$(printf '%s' "$row" | cut -f 4)
    [ "$f_os" = "$os" ] || { echo "size table: row $l: $FILE says $f_os bytes at -Os, the object is $os"; bad=1; }
    [ "$f_share" = "$share" ] || { echo "size table: row $l: $FILE says $f_share of everything at -Os, the objects say $share"; bad=1; }
    if [ "$o2" != - ] && [ "$f_o2" != "$o2" ]; then
        echo "size table: row $l: $FILE says $f_o2 bytes at -O2, the object is $o2"; bad=1
    fi
done < "$W/rows"
# a row for a configuration that is gone
cut -f 1 "$W/file_rows" | while IFS= read -r l; do
    cut -f 1 "$W/rows" | grep -qxF "$l" || echo "size table: row $l in $FILE is no configuration of tests/configs.sh"
done > "$W/gone"
if [ -s "$W/gone" ]; then cat "$W/gone"; bad=1; fi
if [ "$bad" -ne 0 ]; then
    echo "size table: $FILE differs from the objects (make size-table rewrites it)"
    exit 1
fi
echo "size table: $FILE matches the objects ($(wc -l < "$W/rows") configurations, -Os$([ "${SIZE_TABLE_O2:-0}" = 1 ] && echo " and -O2"))"
