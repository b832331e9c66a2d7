#!/bin/sh
# paper.sh - the paper's evidence on the bundled corpus, with ./ro-sgns only:
# Table 1 (SGNS objective), Table 2 (Spearman on five word-similarity sets),
# Tables 3-4 (neighbours of five, he, main, usa), the score per RO iteration
# (Figure 1's data, as CSV), and how long each stage took.
#
#   sh bench/paper.sh [d ...]            (default: 100)
#   environment: ITER (RO steps, 10), MIN_COUNT (200), WINDOW (5), OUT (build/paper),
#                DATA (../shared/data: README's Data section; CHECK_DATA=1 only checks it),
#                SGD=1 adds word2vec's SGD (1 epoch over the 90M tokens: ~8 min on 2 cores),
#                CORPUS (build/corpus.txt, decompressed from the bundled one when missing)
#
# make demo runs it for d = 100; make paper for 100 200 500 and writes
# docs/RESULTS.md and docs/figure1.svg.
set -eu
DIMS=${*:-100}
ITER=${ITER:-10}
MIN_COUNT=${MIN_COUNT:-200}
WINDOW=${WINDOW:-5}
OUT=${OUT:-build/paper}
DATA=${DATA:-../shared/data}
SETS=$DATA/wordsim
CORPUS=${CORPUS:-build/corpus.txt}
BIN=${BIN:-./ro-sgns}
# the paper's settings, whatever the defaults: W = U Sigma^0.5 (so the SVD
# vectors, W and C, start RO-SGNS at X0 = U Sigma V^T), no smoothing
PAPER="-eig 0.5 -embed w -cds 1"
# the data first: without it, one message and nothing made
if { [ ! -s "$CORPUS" ] && [ ! -f "$DATA/corpus/corpus.txt.xz" ]; } || [ ! -d "$SETS" ]; then
    echo "the demo needs $DATA (the bundled corpus and the word-similarity sets): not found;" \
        "README.md's section \"Data\" says what goes there" >&2
    exit 1
fi
[ "${CHECK_DATA:-0}" = 1 ] && exit 0
mkdir -p "$OUT"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
# spearman of the five sets, in the paper's order, from `ro-sgns eval`
scores() {
    $BIN eval -vectors "$1" $SETS/ws353_sim.txt $SETS/ws353_rel.txt $SETS/ws353.txt \
        $SETS/simlex999.txt $SETS/men.txt | awk '
        $1 == "ws353_sim.txt" { s[1] = $2 } $1 == "ws353_rel.txt" { s[2] = $2 }
        $1 == "ws353.txt" { s[3] = $2 } $1 == "simlex999.txt" { s[4] = $2 } $1 == "men.txt" { s[5] = $2 }
        END { printf "%.3f | %.3f | %.3f | %.3f | %.3f", s[1], s[2], s[3], s[4], s[5] }'
}
objective() {
    $BIN objective -counts "$COUNTS" -vectors "$1" -contexts "$2" | awk '{ printf "%.4f", $3 }'
}

T0=$(now)
if [ ! -s "$CORPUS" ]; then
    echo "decompressing the corpus ($DATA/corpus/corpus.txt.xz) ..." >&2
    mkdir -p "$(dirname "$CORPUS")"
    xz -dc "$DATA/corpus/corpus.txt.xz" > "$CORPUS.tmp" && mv "$CORPUS.tmp" "$CORPUS" ||
        { rm -f "$CORPUS.tmp"; exit 1; }
fi
T1=$(now)
COUNTS=$OUT/corpus_w${WINDOW}_m${MIN_COUNT}.counts
if [ ! -s "$COUNTS" ]; then
    $BIN count -train "$CORPUS" -output "$COUNTS" -window "$WINDOW" -min-count "$MIN_COUNT"
fi
T2=$(now)

echo "# RO-SGNS on the bundled corpus"
echo
echo "The paper's settings, as the paper defines its tables. What each lever beyond them (W + C,"
echo "the eigenvalue exponent, context distribution smoothing, the SGD start, best-iterate"
echo "stopping, subsampled and dynamic-window counts) does is in [ABLATION.md](ABLATION.md)."
echo
echo "Corpus: ../shared/data/corpus (90.1M tokens). Counts: window $WINDOW words on each side,"
echo "min-count $MIN_COUNT (count >= $MIN_COUNT), k = 5 negatives; SVD-SPPMI by block Krylov"
echo "(the library's defaults); RO-SGNS: $ITER steps of the scaled direction (eta = 1, safeguarded),"
echo "started from SVD-SPPMI; embeddings W = U P Sigma^0.5. Machine: $(nproc) cores,"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%d)."
echo
echo "Stages: corpus $(secs "$T0" "$T1") s, counting $(secs "$T1" "$T2") s (0 if cached)."

TAB1=""
TAB2=""
TIMES=""
for D in $DIMS; do
    S0=$(now)
    $BIN train -counts "$COUNTS" -method svd -size "$D" $PAPER -binary 1 -quiet \
        -output "$OUT/svd$D.bin" -output-contexts "$OUT/svd${D}_ctx.bin"
    S1=$(now)
    # -max-step-seconds 0: d = 500 on a loaded machine may estimate a step over
    # the 10 minutes at which train otherwise stops; here the length is wanted
    $BIN train -counts "$COUNTS" -method ro -size "$D" -steps "$ITER" $PAPER -binary 1 -max-step-seconds 0 \
        -init "$OUT/svd$D.bin" -init-contexts "$OUT/svd${D}_ctx.bin" -eval $SETS -curve "$OUT/curve$D.csv" \
        -output "$OUT/ro$D.bin" -output-contexts "$OUT/ro${D}_ctx.bin"
    S2=$(now)
    if [ "${SGD:-0}" = 1 ]; then
        $BIN train -counts "$COUNTS" -method sgd -train "$CORPUS" -size "$D" -iter 1 -embed w -binary 1 -quiet \
            -output "$OUT/sgd$D.bin" -output-contexts "$OUT/sgd${D}_ctx.bin"
        TAB1="$TAB1| SGD-SGNS (1 epoch) | $D | $(objective "$OUT/sgd$D.bin" "$OUT/sgd${D}_ctx.bin") |
"
        TAB2="$TAB2| $D | SGD-SGNS | $(scores "$OUT/sgd$D.bin") |
"
    fi
    TAB1="$TAB1| SVD-SPPMI | $D | $(objective "$OUT/svd$D.bin" "$OUT/svd${D}_ctx.bin") |
| RO-SGNS ($ITER steps) | $D | $(objective "$OUT/ro$D.bin" "$OUT/ro${D}_ctx.bin") |
"
    BEST=$(awk -F, 'NR == 1 { for (j = 1; j <= NF; ++j) col[$j] = j; next }
        NR > 2 && $col["ws353"] != "nan" { if ($col["ws353"] > b || b == "") { b = $col["ws353"]; i = $1 } }
        END { print i }' "$OUT/curve$D.csv")
    TAB2="$TAB2| $D | SVD-SPPMI | $(scores "$OUT/svd$D.bin") |
| $D | RO-SGNS, step $ITER | $(scores "$OUT/ro$D.bin") |
"
    TIMES="$TIMES| $D | $(secs "$S0" "$S1") | $(secs "$S1" "$S2") |
"
    echo "d = $D: best ws-full at RO step $BEST (see $OUT/curve$D.csv)" >&2
done

echo
echo "## Table 1: SGNS objective F x 1e-9 (larger is better)"
echo
echo "| method | d | F x 1e-9 |"
echo "|---|---|---|"
printf "%s" "$TAB1"
echo
echo "## Table 2: Spearman correlation (pairs with an out-of-vocabulary word skipped)"
echo
echo "| d | method | ws-sim | ws-rel | ws-full | simlex | men |"
echo "|---|---|---|---|---|---|---|"
printf "%s" "$TAB2"
for D in $DIMS; do
    echo
    echo "## Score per RO iteration, d = $D (Figure 1's data: $OUT/curve$D.csv)"
    echo
    echo "| step | F x 1e-9 | ws-sim | ws-rel | ws-full | simlex | men |"
    echo "|---|---|---|---|---|---|---|"
    awk -F, 'NR == 1 { for (j = 1; j <= NF; ++j) col[$j] = j; next }
        { printf "| %s | %.4f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", $1, $2, $col["ws353_sim"],
          $col["ws353_rel"], $col["ws353"], $col["simlex999"], $col["men"] }' "$OUT/curve$D.csv"
done
D=$(echo $DIMS | awk '{ print $1 }')
echo
echo "## Tables 3-4: nearest neighbours (cosine), d = $D"
for M in svd ro; do
    echo
    [ $M = svd ] && echo "SVD-SPPMI:" || echo "RO-SGNS:"
    echo '```'
    $BIN neighbors -vectors "$OUT/$M$D.bin" -k 10 five he main usa
    echo '```'
done
echo
echo "## Time per stage (seconds, $(nproc) cores)"
echo
echo "| d | SVD-SPPMI | RO-SGNS ($ITER steps from the SVD-SPPMI vectors, per-step eval included) |"
echo "|---|---|---|"
printf "%s" "$TIMES"
echo
echo "Total: $(secs "$T0" "$(now)") s."
