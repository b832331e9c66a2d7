#!/bin/sh
# test_mpi.sh - examples/ro_sgns_mpi.c with 1, 2 and 3 ranks (3 oversubscribe
# a 2-core machine) on the sample corpus, against the single-process
# library call (tests/mpi_check.c): within 1e-5 relative in float, np 1
# bitwise, and each np bitwise equal to the same shards run as threads.
#   sh tests/test_mpi.sh [build/ro_sgns_mpi] [build/mpi_check]   (from the root)
MPI_BIN=${1:-build/ro_sgns_mpi}
CHECKER=${2:-build/mpi_check}
SAMPLE=../shared/data/corpus/sample.txt
T=build/mpi_test
D=30
K=4
fail() { echo "FAIL: $*" >&2; echo "mpi: 0 passed, 1 failed"; exit 1; }
[ -x "$MPI_BIN" ] && [ -x "$CHECKER" ] || fail "$MPI_BIN or $CHECKER not built (make mpi)"
[ -f "$SAMPLE" ] || fail "$SAMPLE not found"
command -v mpirun > /dev/null 2>&1 || fail "mpirun not found"
rm -rf "$T"
mkdir -p "$T"
# Open MPI refuses root (CI containers) and more ranks than cores unless told;
# MPICH needs neither flag
OVER=
if mpirun --version 2>&1 | grep -q "Open MPI"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OVER=--oversubscribe
fi
export OMP_NUM_THREADS=1 # one thread a rank: 3 ranks already fill 2 cores
# ranks that disagree wait forever in a collective: a deadline turns that
# into a failure
TIMEOUT=
command -v timeout > /dev/null 2>&1 && TIMEOUT="timeout 120"
"$CHECKER" count "$SAMPLE" "$T/s.counts" > "$T/count.log" 2>&1 ||
    fail "counting the sample: $(tail -n 3 "$T/count.log")"
files=
for P in 1 2 3; do
    $TIMEOUT mpirun $OVER -np $P "$MPI_BIN" -counts "$T/s.counts" -size $D -iter $K \
        -factors "$T/np$P.fx" -quiet > "$T/np$P.log" 2>&1 ||
        fail "mpirun -np $P: $(tail -n 5 "$T/np$P.log")"
    files="$files $P:$T/np$P.fx"
done
# np 2: half the steps, a checkpoint, -resume for the rest = the straight run
H=$((K / 2))
$TIMEOUT mpirun $OVER -np 2 "$MPI_BIN" -counts "$T/s.counts" -size $D -iter $H \
    -factors "$T/half.fx" -quiet > "$T/half.log" 2>&1 &&
    $TIMEOUT mpirun $OVER -np 2 "$MPI_BIN" -counts "$T/s.counts" -size $D -iter $((K - H)) \
        -resume "$T/half.fx" -factors "$T/resumed.fx" -quiet >> "$T/half.log" 2>&1 ||
    fail "mpirun -np 2 with -resume: $(tail -n 5 "$T/half.log")"
if cmp -s "$T/resumed.fx" "$T/np2.fx"; then resumed=1; else resumed=0; echo "FAIL: np 2 resumed differs from the straight run" >&2; fi
"$CHECKER" compare "$T/s.counts" $D $K $files > "$T/compare.log" 2>&1
rc=$?
grep -v "^mpi: [0-9]* passed" "$T/compare.log"
# the checker's summary line, with the resume check added
line=$(grep "^mpi: [0-9]* passed" "$T/compare.log" | tail -n 1)
[ -n "$line" ] || fail "the checker printed no summary (exit $rc)"
p=$(echo "$line" | sed -E 's/^mpi: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
f=$(echo "$line" | sed -E 's/^mpi: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
echo "mpi: $((p + resumed)) passed, $((f + 1 - resumed)) failed"
[ "$rc" -eq 0 ] && [ "$resumed" -eq 1 ]
