#!/bin/sh
# tail.sh - docs/ABLATION.md, "The rare words at the default vocabulary
# (issue 69)": the folded tail's levers from one saved SGD start, each
# scored on the dev sets (all rows, and the head's), MSR, and the SGNS
# objective of held-out text per frequency band (ro-sgns objective -bands).
#
#   sh bench/tail.sh [NAME FLAGS ...]     (default: the rows of the table)
#   environment: CORPUS (build/corpus.txt, decompressed from ../shared/data
#   when missing), OUT (build/tail), BIN (./ro-sgns, make ro-sgns)
#
# The corpus is split by lines: the first 55,353 lines (74.0M tokens, 82%)
# train, the last 6,150 (16.1M tokens) are held out. Counts as the default
# run makes them (min count 5, -dynamic-window 2 -sample 1e-4), the
# held-out text's with -min-count 1. The SGD start is the default's (3
# epochs at 1e-4, virtual workers 2), saved once (-method sgd) and read back
# with -init FILE -init-contexts FILE -cds 0.75 -embed w -steps 30, which
# is the default run from there. Each run writes W and C at -eig 0.5 (W C^T
# = X, for the held-out objective); the scores read W at eig 0 (what the
# program writes), its columns scaled to unit length (W = U Sigma^0.5, U's
# columns orthonormal), by /usr/bin/python3 with numpy and gensim.
# Costs on 2 cores (AMD Zen 3): the SGD start 10 min, each row 2-6 min.
set -eu
CORPUS=${CORPUS:-build/corpus.txt}
OUT=${OUT:-build/tail}
BIN=${BIN:-./ro-sgns}
S=${DATA:-../shared/data}
mkdir -p "$OUT"
if [ ! -s "$CORPUS" ]; then
    echo "decompressing the corpus (../shared/data/corpus/corpus.txt.xz) ..." >&2
    xz -dc "$S/corpus/corpus.txt.xz" > "$CORPUS"
fi
[ -s "$OUT/train.txt" ] || head -n 55353 "$CORPUS" > "$OUT/train.txt"
[ -s "$OUT/held.txt" ] || tail -n +55354 "$CORPUS" > "$OUT/held.txt"
[ -s "$OUT/train.counts" ] ||
    $BIN count -train "$OUT/train.txt" -dynamic-window 2 -sample 1e-4 -output "$OUT/train.counts" -quiet
[ -s "$OUT/held.counts" ] ||
    $BIN count -train "$OUT/held.txt" -dynamic-window 2 -sample 1e-4 -min-count 1 -output "$OUT/held.counts" -quiet
[ -s "$OUT/sgdW.bin" ] ||
    $BIN train -train "$OUT/train.txt" -counts "$OUT/train.counts" -method sgd -virtual-workers 2 -iter 3 \
        -sample 1e-4 -output "$OUT/sgdW.bin" -output-contexts "$OUT/sgdC.bin" -quiet
cat > "$OUT/eig0.py" <<'PY'
import sys, numpy as np
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=True)
W = kv.vectors.astype(np.float64)
kv.vectors = (W / np.linalg.norm(W, axis=0)).astype(np.float32)
kv.save_word2vec_format(sys.argv[2], binary=True)
PY
row() { # row NAME FLAGS...: train from the saved start, then score
    n=$1
    shift
    /usr/bin/time -f "wall %e s, peak %M KB" $BIN train -counts "$OUT/train.counts" -init "$OUT/sgdW.bin" \
        -init-contexts "$OUT/sgdC.bin" -cds 0.75 -embed w -steps 30 -eig 0.5 -output "$OUT/w_$n.bin" \
        -output-contexts "$OUT/c_$n.bin" "$@" > "$OUT/$n.log" 2>&1
    /usr/bin/python3 "$OUT/eig0.py" "$OUT/w_$n.bin" "$OUT/u_$n.bin"
    echo "== $n $*"
    grep -E "converged|fold: [0-9.]+ s|^wall" "$OUT/$n.log" | tail -3
    echo "-- all rows"
    $BIN eval -vectors "$OUT/u_$n.bin" "$S/wordsim" -analogy "$S/analogy/msr.txt"
    echo "-- the head's rows"
    $BIN eval -vectors "$OUT/u_$n.bin" "$S/wordsim" -analogy "$S/analogy/msr.txt" -restrict-vocab 20416
    echo "-- held-out text"
    $BIN objective -counts "$OUT/held.counts" -vectors "$OUT/w_$n.bin" -contexts "$OUT/c_$n.bin" -cds 0.75 \
        -bands 20416,40000 -quiet
    rm -f "$OUT/u_$n.bin"
}
if [ $# -gt 0 ]; then
    row "$@"
else
    row default
    for t in 0.25 1 4 16; do row "prior$t" -fold-prior "$t"; done
    row prior1_iter3 -fold-prior 1 -fold-iter 3
    row iter0 -fold-iter 0
    row iter3 -fold-iter 3
    row head40k -head 40000
fi
