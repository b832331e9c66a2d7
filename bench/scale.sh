#!/bin/sh
# bench/scale.sh - the pipeline at 22k and 81k words (the bundled corpus at
# min count 200 and 20, window 5), d = 100 and 300: counting, SVD-SPPMI and
# two RO-SGNS steps, with the seconds and peak memory of each stage, and
# the step against docs/SCALING.md's model (a fused step costs ~6 n m d
# flops in its three products plus ~n m exponentials, so at a fixed d it
# grows as n m: the 81k step is predicted from the 22k one by
# (n m)_81k / (n m)_22k). BENCH_RO_FUSE=0: two sweeps a step.
#
#   sh bench/scale.sh            (make bench-scale; ~4 min on 2 Zen 5 cores, ~13 on Zen 3)
#   environment: CORPUS (build/corpus.txt), OUT (build/scale), DIMS ("100 300")
set -eu
CORPUS=${CORPUS:-build/corpus.txt}
OUT=${OUT:-build/scale}
DIMS=${DIMS:-"100 300"}
BIN=./ro-sgns
mkdir -p "$OUT"
if [ ! -s "$CORPUS" ]; then
    echo "decompressing the corpus into $CORPUS ..." >&2
    xz -dc ../shared/data/corpus/corpus.txt.xz > "$CORPUS.tmp" && mv "$CORPUS.tmp" "$CORPUS"
fi
now() { date +%s.%N; }
echo "# Scale: the bundled corpus at 22k and 81k words"
echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
echo "load average at the start $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M') UTC."
echo "Window 5, k = 5, float, the library's defaults (block Krylov SVD, scaled"
echo "safeguarded steps), 2 steps per run; peak = the process's maximum resident set."
echo
echo "| min count | n | pairs | counting s | counting peak MiB |"
echo "|---|---|---|---|---|"
for mc in 200 20; do
    f="$OUT/corpus_w5_m$mc.counts"
    if [ ! -s "$f" ]; then
        t0=$(now)
        /usr/bin/time -f "%M" -o "$OUT/count$mc.rss" \
            $BIN count -train "$CORPUS" -output "$f" -window 5 -min-count $mc -quiet
        t1=$(now)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }' > "$OUT/count$mc.sec"
    fi
    build/bench_scale "$f" 1 0 2>/dev/null | awk -v mc=$mc -v s="$(cat "$OUT/count$mc.sec" 2>/dev/null || echo cached)" \
        -v r="$(cat "$OUT/count$mc.rss" 2>/dev/null || echo 0)" \
        '{ printf "| %s | %d | %.1fM | %s | %.0f |\n", mc, $1, $2 / 1e6, s, r / 1024 }'
done
echo
echo "| n | d | load s | SPPMI s | SVD s | problem s | RO step s | step predicted from 22k s | peak after SVD MiB | peak after RO MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for d in $DIMS; do
    base=""
    for mc in 200 20; do
        line=$(build/bench_scale "$OUT/corpus_w5_m$mc.counts" "$d" 2 2>"$OUT/ro_m${mc}_d$d.log")
        echo "$line" > "$OUT/ro_m${mc}_d$d.txt"
        if [ -z "$base" ]; then base=$line; fi
        echo "$line" | awk -v base="$base" '{
            split(base, b, " ");
            pred = b[9] * ($1 * $1) / (b[1] * b[1]);
            printf "| %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %.0f | %.0f |\n",
                   $1, $3, $5, $6, $7, $8, $9, ($1 == b[1] ? "-" : sprintf("%.1f", pred)), $11, $12 }'
    done
done
