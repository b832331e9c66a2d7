#!/bin/sh
# figure1.sh CURVE.csv OUT.svg - the paper's Figure 1 for our corpus: the
# word-similarity score of each dev set after every RO step (step 0 is the
# SVD-SPPMI start). Needs gnuplot (Debian: gnuplot-nox).
set -eu
CSV=$1
OUT=$2
# the score columns: 4 up to the one before "mean" (ro-sgns train -curve)
LAST=$(head -n 1 "$CSV" | awk -F, '{ print $NF == "mean" ? NF - 1 : NF }')
command -v gnuplot >/dev/null 2>&1 || { echo "figure1.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
gnuplot <<GP
set terminal svg size 900,420 font "sans,12"
set output "$OUT"
set datafile separator ","
set key outside right
set xlabel "RO-SGNS step (0 = SVD-SPPMI start)"
set ylabel "Spearman correlation"
set grid
set title "Word similarity across RO-SGNS iterations ($(basename "$CSV" .csv))"
plot for [i=4:$LAST] "$CSV" using 1:i with linespoints title columnheader(i)
GP
echo "wrote $OUT" >&2
