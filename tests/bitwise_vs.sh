#!/bin/sh
# bitwise_vs.sh - the same inputs through two versions of the library give
# the same bytes: counts, the SVD-SPPMI start, the factors after each of
# three RO steps (checkpoints), the vectors written; float and double.
# For refactors that must not change a single number.
#
#   sh tests/bitwise_vs.sh OLD_COMMIT [CORPUS]
#
# Builds examples/ro_sgns_cli.c of OLD_COMMIT and of the working tree (gcc
# -O2 -fopenmp, as make test builds it), runs both on CORPUS (default: the
# bundled sample) with the flags both understand, and compares the files
# with cmp; counts files and checkpoints that differ as bytes (another
# format version) are compared by their numbers (tests/bitwise_same.c,
# built from the working tree's header, which reads every version).
# Exit status 0 when every file is the same.
set -eu
OLD=$1
CORPUS=${2:-../shared/data/corpus/sample.txt}
W=build/bitwise
rm -rf "$W"
mkdir -p "$W/old" "$W/new"
git archive "$OLD" ro_sgns.h examples/ro_sgns_cli.c | tar -x -C "$W/old"
cp ro_sgns.h "$W/new/"
mkdir -p "$W/new/examples"
cp examples/ro_sgns_cli.c "$W/new/examples/"
fail=0
gcc -std=c99 -O2 tests/bitwise_same.c -o "$W/bitwise_same" -lm
for real in float double; do
    for v in old new; do
        gcc -std=c99 -O2 -fopenmp -DRO_SGNS_REAL=$real "$W/$v/examples/ro_sgns_cli.c" \
            -o "$W/$v/ro-sgns-$real" -lm
        b="$W/$v/ro-sgns-$real"
        o="$W/$v/$real"
        mkdir -p "$o"
        "$b" count -train "$CORPUS" -output "$o/c.counts" -window 5 -min-count 5 -quiet
        "$b" train -counts "$o/c.counts" -method svd -size 20 -output "$o/svd.txt" -quiet
        for it in 1 2 3; do
            "$b" train -counts "$o/c.counts" -method ro -size 20 -steps $it \
                -checkpoint "$o/x$it.fx" -output "$o/ro$it.bin" -binary 1 -quiet
        done
        "$b" train -counts "$o/c.counts" -method ro -size 20 -steps 3 -direction plain \
            -eta 1e-2 -output "$o/halved.txt" -quiet
        "$b" train -counts "$o/c.counts" -method ro -size 20 -steps 2 -direction plain \
            -eta 1e-5 -safeguard 0 -output "$o/plain.txt" -quiet
    done
    for f in c.counts svd.txt x1.fx x2.fx x3.fx ro1.bin ro2.bin ro3.bin halved.txt plain.txt; do
        kind=
        case $f in *.counts) kind=counts ;; *.fx) kind=checkpoint ;; esac
        if cmp -s "$W/old/$real/$f" "$W/new/$real/$f"; then
            echo "same      $real $f"
        elif [ -n "$kind" ] && "$W/bitwise_same" $kind "$W/old/$real/$f" "$W/new/$real/$f"; then
            echo "same      $real $f (the same numbers in another format version)"
        else
            echo "DIFFERENT $real $f"
            fail=1
        fi
    done
done
exit $fail
