#!/bin/sh
# figure1.sh CURVE.csv OUT.svg - the paper's Figure 1 for our corpus: the
# word-similarity score of each dev set after every RO step (step 0 is the
# SVD-SPPMI start). Needs gnuplot (Debian: gnuplot-nox).
set -eu
CSV=$1
OUT=$2
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
plot "$CSV" using 1:4 skip 1 with linespoints title "ws-sim", \
     "" using 1:5 skip 1 with linespoints title "ws-rel", \
     "" using 1:6 skip 1 with linespoints title "ws-full", \
     "" using 1:7 skip 1 with linespoints title "simlex", \
     "" using 1:8 skip 1 with linespoints title "men"
GP
echo "wrote $OUT" >&2
