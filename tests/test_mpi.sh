#!/bin/sh
# test_mpi.sh - examples/ro_sgns_mpi.c with 1, 2, 3 and 4 ranks (3 and 4
# oversubscribe a 2-core machine) on the sample corpus, against the
# single-process library calls (tests/mpi_check.c): the start computed over
# the ranks (ro_sgns_sppmi_rows, ro_sgns_tsvd_shard) and after 4 steps,
# within 1e-5 relative in float, np 1 bitwise, and each np bitwise equal to
# the same shards run as threads, and for 1, 2 or 3 threads a rank. Also:
# -resume from a checkpoint = the straight run, the -checkpoint after the
# last step = the final factors, and the vectors file written in rank order
# = one process's writer, in binary and text; with 4 ranks each rank reads
# only its rows of the counts.
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
run() { # run P LOG ARGS...: mpirun -np P the example, its output in LOG
    p=$1 log=$2
    shift 2
    $TIMEOUT mpirun $OVER -np "$p" "$MPI_BIN" -counts "$T/s.counts" -size $D -quiet "$@" \
        >> "$log" 2>&1 || fail "mpirun -np $p $*: $(tail -n 5 "$log")"
}
"$CHECKER" count "$SAMPLE" "$T/s.counts" > "$T/count.log" 2>&1 ||
    fail "counting the sample: $(tail -n 3 "$T/count.log")"
files=
starts=
for P in 1 2 3 4; do
    run $P "$T/np$P.log" -steps $K -factors "$T/np$P.fx" -output "$T/np$P.bin" -binary 1
    files="$files $P:$T/np$P.fx"
    if [ $P -ge 3 ]; then # the start alone (-steps 0 writes it)
        run $P "$T/np$P.log" -steps 0 -factors "$T/start$P.fx"
        starts="$starts $P:$T/start$P.fx"
    fi
done
# np 2: half the steps, a checkpoint, -resume for the rest = the straight
# run; np 3: the checkpoint after the last step = the final factors
H=$((K / 2))
run 2 "$T/half.log" -steps $H -factors "$T/half.fx"
run 2 "$T/half.log" -steps $K -resume "$T/half.fx" -factors "$T/resumed.fx" -output "$T/np2.txt"
run 3 "$T/ck.log" -steps $K -checkpoint "$T/ck3.fx"
extra=0
extra_fail=0
same() { # same A B WHAT: one more check, cmp
    extra=$((extra + 1))
    if ! cmp -s "$1" "$2"; then
        extra_fail=$((extra_fail + 1))
        echo "FAIL: $3" >&2
    fi
}
# -iter is ro-sgns train's SGD epochs (issue 70): here an error naming -steps
extra=$((extra + 1))
if $TIMEOUT mpirun $OVER -np 2 "$MPI_BIN" -counts "$T/s.counts" -size $D -iter 2 > "$T/iter.log" 2>&1 ||
    ! grep -q "^ro_sgns_mpi: -iter: renamed: RO's step cap is -steps" "$T/iter.log"; then
    extra_fail=$((extra_fail + 1))
    echo "FAIL: -iter: no error naming -steps: $(head -c 300 "$T/iter.log")" >&2
fi
# row-range loading: with 4 ranks each holds only its own rows of the
# (version 2) counts file, and the pairs held add up to the file's
$TIMEOUT mpirun $OVER -np 4 "$MPI_BIN" -counts "$T/s.counts" -size $D -steps 0 > "$T/rows.log" 2>&1 ||
    fail "mpirun -np 4 -steps 0: $(tail -n 5 "$T/rows.log")"
extra=$((extra + 1))
held=$(sed -n 's/^rank [0-9]*: rows \([0-9]*\)\.\.\([0-9]*\); counts held: rows \([0-9]*\)\.\.\([0-9]*\), \([0-9]*\) pairs$/\1 \2 \3 \4 \5/p' "$T/rows.log")
total=$("$CHECKER" pairs "$T/s.counts" 2> /dev/null)
if [ "$(echo "$held" | grep -c .)" -ne 4 ] ||
    echo "$held" | awk '$1 != $3 || $2 != $4 { bad = 1 } END { exit !bad }' ||
    [ "$(echo "$held" | awk '{ s += $5 } END { print s }')" != "$total" ]; then
    extra_fail=$((extra_fail + 1))
    echo "FAIL: row-range loading: ranks held (r0 r1 held0 held1 pairs): $held; the file has ${total:-?} pairs" >&2
fi
same "$T/resumed.fx" "$T/np2.fx" "np 2 resumed differs from the straight run"
# np 2 with the direction kept on each rank, all of it (3 products a step) and
# 500 kB a rank (~170 of its ~367 rows of 733 reals in float: a GEMM over them
# and a sweep over the rest), and with two sweeps a step (-fuse 0), against the
# default (the fused step, on ranks too): the same iteration to rounding
for kb in 1000000000 500000 fuse0; do
    if [ $kb = fuse0 ]; then
        run 2 "$T/kept$kb.log" -steps $K -fuse 0 -factors "$T/kept$kb.fx"
    else
        run 2 "$T/kept$kb.log" -steps $K -keep-direction $kb -factors "$T/kept$kb.fx"
    fi
    extra=$((extra + 1))
    kd=$("$CHECKER" diff "$T/np2.fx" "$T/kept$kb.fx" 2> /dev/null |
        sed -n 's/^|dX|\/|X| \([^ ]*\) .*/\1/p')
    if ! awk -v x="$kd" 'BEGIN { exit !(x != "" && x + 0 <= 1e-5) }'; then
        extra_fail=$((extra_fail + 1))
        echo "FAIL: np 2 -keep-direction/-fuse $kb: |dX|/|X| = ${kd:-?} against np 2" >&2
    fi
done
same "$T/ck3.fx" "$T/np3.fx" "np 3: the last checkpoint differs from the final factors"
# 2 and 3 threads a rank (the fused step sums each rank's D^T M V block by
# block in the same order for any thread count): np 2's bits
for t in 2 3; do
    run 2 "$T/thr$t.log" -steps $K -threads $t -factors "$T/thr$t.fx"
    same "$T/thr$t.fx" "$T/np2.fx" "np 2, $t threads a rank: other bits than one thread"
done
# the vectors written in rank order (MPI-IO) = one process's writer
for P in 1 3 4; do
    "$CHECKER" vectors "$T/s.counts" "$T/np$P.fx" "$T/ref$P.bin" binary > /dev/null 2>&1
    same "$T/ref$P.bin" "$T/np$P.bin" "np $P: the vectors file differs from ro_sgns_vectors_save's"
done
"$CHECKER" vectors "$T/s.counts" "$T/np2.fx" "$T/ref2.txt" > /dev/null 2>&1
same "$T/ref2.txt" "$T/np2.txt" "np 2: the text vectors file differs from ro_sgns_vectors_save's"
# the other output forms, from the final point (-resume at step K takes no
# step): each rank's rows of W, of C and of W + C at another exponent
for form in "3 w 0.5" "2 c 0.5" "4 w+c 0.25"; do
    set -- $form
    run $1 "$T/forms.log" -steps $K -resume "$T/np$1.fx" -embed $2 -eig $3 -output "$T/form_$2.bin" -binary 1
    "$CHECKER" vectors "$T/s.counts" "$T/np$1.fx" "$T/ref_$2.bin" binary $2 $3 > /dev/null 2>&1
    same "$T/ref_$2.bin" "$T/form_$2.bin" "np $1 -embed $2 -eig $3: the vectors file differs from ro_sgns_vectors_save's"
done
"$CHECKER" compare "$T/s.counts" $D 0 $starts > "$T/compare.log" 2>&1
rc0=$?
"$CHECKER" compare "$T/s.counts" $D $K $files >> "$T/compare.log" 2>&1
rc=$?
grep -v "^mpi: [0-9]* passed" "$T/compare.log"
# the checker's summary lines, with the checks above added
p=$extra
f=$extra_fail
for line in $(grep "^mpi: [0-9]* passed" "$T/compare.log" | sed -E 's/^mpi: ([0-9]+) passed, ([0-9]+) failed.*/\1:\2/'); do
    p=$((p + ${line%:*}))
    f=$((f + ${line#*:}))
done
[ "$(grep -c "^mpi: [0-9]* passed" "$T/compare.log")" -eq 2 ] || fail "the checker printed no summary (exit $rc0, $rc)"
p=$((p - extra_fail))
echo "mpi: $p passed, $f failed"
[ "$rc0" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$extra_fail" -eq 0 ]
