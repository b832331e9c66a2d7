#!/bin/sh
# bench/cpu.sh - every table issue 16 asks of one CPU, in one run, against
# OpenBLAS's best kernel for that CPU (the benches pick it: bench_util.h):
#   gemm, gemm_d  GEMM on the RO step's shapes and 2048^3, 2 threads, float
#                 and double (bench/gemm.c; QR and SVD beside it)
#   ro            the RO step against the floor of its four products, d = 100,
#                 200, 500, float and double, and a RO_SGNS_USE_CBLAS build at
#                 d = 200 (bench/ro.c, the floor measured right after each step);
#                 each run then takes the same steps with two sweeps a step
#                 (fuse = 0) for the row beside it
#   scale         the pipeline at 22,352 and 81,212 words, d = 100 (bench/scale.c)
#   avx2          the GEMM built without AVX-512 (-mno-avx512f) against
#                 OpenBLAS's Haswell kernel; only on CPUs with AVX-512
#   elementwise   the step's exponentials and logs alone (bench/elementwise.c)
# then a summary of them all. About 12 minutes on 2 Zen 5 cores, the build
# included (9 with RO_TWO_SWEEPS=0).
#
# The step and the scale runs read a prefix of the bundled corpus (the first
# CORPUS_BYTES bytes), counted at window 5 with its 22,352 and 81,212 most
# frequent words (the full corpus's vocabularies at min count 200 and 20):
# a 200 MB prefix compresses to 47.5 MB, small enough to copy to a machine
# that cannot reach the rest, and bench/RESULTS.md's per-CPU tables use it.
#
#   sh bench/cpu.sh                       (make bench-cpu)
#   environment:
#     PARTS     the parts, in the order to run them ("gemm gemm_d ro scale avx2
#               elementwise"); "summary": no build, no run, the summary of
#               the logs already in CPU_DIR
#     RO_RUNS   the step runs: f|d|c (float, double, CBLAS build) and d
#               ("f100 f200 f500 d100 d200 d500 c200")
#     RO_TWO_SWEEPS  1 (default): each step run also takes its steps with
#               fuse = 0; 0: not (half the time)
#     BUDGET    seconds for the whole run, 0 = no limit (0): each bench runs
#               under `timeout` with what is left, so the summary always comes
#     CORPUS    the text, plain or .xz (build/corpus.txt, else the bundled .xz)
#     CORPUS_BYTES  the prefix's size (200000000); the prefix and its counts
#               stay in CPU_DIR for the next run: remove CPU_DIR/prefix*
#               after changing CORPUS or CORPUS_BYTES
#     CPUS      the cores to pin to when the machine has more than 2 (0,1)
#     ROUNDS    GEMM timings are the best of ROUNDS (3); STEPS a step run (3)
#     FLOOR_OURS_ONCE  1: a step run times our GEMM's floor after its first
#               step only, OpenBLAS's after each (0: after each; 1 saves a
#               sixth of the step runs' time, for a machine lent by the minute)
#     BUILD     0: use the binaries already in CPU_DIR (a second call on a
#               machine still warm from the first), 1: build them (default)
#     BLAS_ROOT an unpacked OpenBLAS + LAPACKE (bench/blas_root.sh), for a
#               machine where they are not installed
#     CPU_DIR   logs, counts and binaries (build/cpu; 1.2 GB with the prefix
#               and its counts). Not named OUT: a lent machine sets OUT to the
#               folder whose files come back (8 at most), and a run that
#               wrote everything there would bring nothing back
#     LANES     jobs side by side instead of PARTS, for a machine with many
#               cores: lanes split by "|", lane i on cores 2i and 2i + 1, its
#               jobs one after another (with fewer than 2 cores a lane, lane i
#               runs after the others of slot i mod (cores / 2)). Jobs: gemm,
#               gemm_d, avx2_gemm, avx2_gemm_d, ro_<run> (ro_f100, ...), scale,
#               elementwise; e.g. "ro_d500 | gemm_d ro_f100 | scale". The
#               lanes share the L3 and the memory: ALONE names GEMM and step
#               jobs to run again, one at a time on cores 0 and 1 after the
#               lanes, to see what that cost (the summary shows both)
#     ALONE     see LANES ("")
#     XFLAGS    more compiler flags for every build, e.g. an experiment's
#               -DRO_SGNS__KC=384 (the benches print their flags)
# Never -ffast-math; nothing here changes the tests' environment.
#
# On a machine that has gcc but neither the packages nor a network: on a
# Debian machine, `sh bench/blas_root.sh DIR` (keep DIR/debs, 13 MB) and
# `xz -dc ../shared/data/corpus/corpus.txt.xz | head -c 200000000 | xz -9e >
# prefix.txt.xz` (47.5 MB, 4 min); copy both with the repository, then there
# `sh bench/blas_root.sh DIR && BLAS_ROOT=DIR CORPUS=prefix.txt.xz sh bench/cpu.sh`.
# On a machine lent call by call (each command capped in time), bench/cpu_bg.sh
# runs this script detached, and the calls collect its summary.
set -eu
PARTS=${PARTS:-"gemm gemm_d ro scale avx2 elementwise"}
RO_RUNS=${RO_RUNS:-"f100 f200 f500 d100 d200 d500 c200"}
BUDGET=${BUDGET:-0}
CORPUS_BYTES=${CORPUS_BYTES:-200000000}
CPUS=${CPUS:-0,1}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-3}
FLOOR_OURS_ONCE=${FLOOR_OURS_ONCE:-0}
BUILD=${BUILD:-1}
RO_TWO_SWEEPS=${RO_TWO_SWEEPS:-1}
LANES=${LANES:-}
ALONE=${ALONE:-}
CPU_DIR=${CPU_DIR:-build/cpu}
if [ -z "${CORPUS:-}" ]; then
    if [ -s build/corpus.txt ]; then CORPUS=build/corpus.txt
    else CORPUS=../shared/data/corpus/corpus.txt.xz; fi
fi
mkdir -p "$CPU_DIR"
start=$(date +%s)

# OpenBLAS and LAPACKE: the system's, or BLAS_ROOT's headers and libraries
BLASINC=""
BLASLIBS="-llapacke -lopenblas"
if [ -n "${BLAS_ROOT:-}" ]; then
    R=$(cd "$BLAS_ROOT" && pwd)
    L="$R/usr/lib/x86_64-linux-gnu"
    BLASINC="-I$R/usr/include/x86_64-linux-gnu/openblas-pthread -I$R/usr/include"
    # DT_RPATH (not RUNPATH) so that LAPACKE's own dependencies are found too
    BLASLIBS="-L$L/openblas-pthread -L$L -Wl,--disable-new-dtags -Wl,-rpath,$L/openblas-pthread -Wl,-rpath,$L -llapacke -lopenblas"
fi
JOBS=$(nproc 2>/dev/null || echo 2)
nlanes=0 nslots=0
if [ -n "$LANES" ]; then
    nlanes=$(echo "$LANES" | awk -F'|' '{ print NF }')
    # as many lanes side by side as there are pairs of cores; with fewer,
    # lane i shares slot i mod (cores / 2) with others, one after another
    nslots=$((JOBS / 2))
    command -v taskset >/dev/null 2>&1 || nslots=1
    [ "$nslots" -ge 1 ] || nslots=1
    [ "$nslots" -le "$nlanes" ] || nslots=$nlanes
    if [ "$PARTS" != summary ] && [ "$nslots" -lt "$nlanes" ]; then
        echo "bench/cpu.sh: $nlanes lanes on $JOBS cores: $nslots side by side" >&2
    fi
    for j in $ALONE; do
        case $j in gemm | gemm_d | avx2_gemm | avx2_gemm_d | ro_*) ;;
        *) echo "bench/cpu.sh: ALONE takes GEMM and step jobs, not $j" >&2; exit 2 ;; esac
    done
fi
native="-O3 -march=native -fopenmp${XFLAGS:+ $XFLAGS}"
has_avx512=$(grep -qw avx512f /proc/cpuinfo && echo 1 || echo 0)
if [ "$PARTS" != summary ]; then # PARTS=summary: the summary of the logs there are
rm -f "$CPU_DIR"/*.log # the summary is of this run alone
fi
if [ "$PARTS" != summary ] && [ "$BUILD" = 0 ]; then
    [ -x "$CPU_DIR/bin/bench_ro" ] || { echo "bench/cpu.sh: BUILD=0 but $CPU_DIR/bin is empty" >&2; exit 1; }
    echo "bench/cpu.sh: BUILD=0, the binaries already in $CPU_DIR/bin" >&2
elif [ "$PARTS" != summary ]; then
echo "bench/cpu.sh: building into $CPU_DIR/bin (and $CPU_DIR/bin-avx2) ..." >&2
mkdir -p "$CPU_DIR/bin" "$CPU_DIR/bin-avx2"
# The compiler directly, not make (a machine that has gcc may lack make), with
# the Makefile's bench flags; the builds in parallel, each one's errors in
# CPU_DIR/bin/NAME.err.
# build DIR NAME SOURCE FLAGS LIBS [defines...]
build() {
    dir=$1 name=$2 src=$3 flags=$4 libs=$5
    shift 5
    # shellcheck disable=SC2086 # flags and libs are lists
    ${CC:-gcc} -std=c99 -Wall -Wextra $flags $BLASINC -DBENCH_FLAGS="\"$flags\"" "$@" "$src" \
        -o "$CPU_DIR/$dir/$name" $libs -lm 2> "$CPU_DIR/$dir/$name.err" &
}
build bin bench_gemm bench/gemm.c "$native" "$BLASLIBS"
build bin bench_gemm_d bench/gemm.c "$native" "$BLASLIBS" -DRO_SGNS_REAL=double
build bin bench_ro bench/ro.c "$native" "$BLASLIBS"
build bin bench_ro_d bench/ro.c "$native" "$BLASLIBS" -DRO_SGNS_REAL=double
build bin bench_ro_cblas bench/ro.c "$native" "$BLASLIBS" -DRO_SGNS_USE_CBLAS
build bin bench_scale bench/scale.c "$native" ""
build bin ro-sgns examples/ro_sgns_cli.c "$native" ""
build bin bench_elementwise_float bench/elementwise.c "$native" ""
build bin bench_elementwise_double bench/elementwise.c "$native" "" -DRO_SGNS_REAL=double
if [ "$has_avx512" = 1 ]; then
    build bin-avx2 bench_gemm bench/gemm.c "$native -mno-avx512f" "$BLASLIBS"
    build bin-avx2 bench_gemm_d bench/gemm.c "$native -mno-avx512f" "$BLASLIBS" -DRO_SGNS_REAL=double
fi
wait
for e in "$CPU_DIR"/bin/*.err "$CPU_DIR"/bin-avx2/*.err; do
    [ -f "$e" ] || continue
    if [ ! -x "${e%.err}" ] || [ -s "$e" ]; then cat "$e" >&2; fi
    [ -x "${e%.err}" ] || { echo "bench/cpu.sh: building ${e%.err} failed" >&2; exit 1; }
done
fi

# 2 threads, pinned when there are more cores than that
PIN=""
if [ "$JOBS" -gt 2 ] && command -v taskset >/dev/null 2>&1; then PIN="taskset -c $CPUS"; fi
export OMP_NUM_THREADS=2
left() { # seconds left of the budget (a large number without one)
    if [ "$BUDGET" -le 0 ]; then echo 100000; return; fi
    echo $((BUDGET - ($(date +%s) - start)))
}
# run NAME CMD...: CMD's output into CPU_DIR/NAME.log, under what is left of
# the budget; a bench cut short says so in its log
run() {
    name=$1
    shift
    l=$(left)
    if [ "$l" -lt 10 ]; then
        echo "(not run: the budget was spent)" > "$CPU_DIR/$name.log"
        echo "bench/cpu.sh: $name skipped, the budget is spent" >&2
        return 0
    fi
    echo "bench/cpu.sh: $name ($l s left)" >&2
    # shellcheck disable=SC2086
    if ! timeout "$l" $PIN "$@" > "$CPU_DIR/$name.log" 2>&1; then
        echo "(stopped: timed out or failed, status above)" >> "$CPU_DIR/$name.log"
    fi
}

# the prefix, counted at the two vocabularies (once: the counts are kept)
prefix_counts() {
    n=$1
    f="$CPU_DIR/prefix_$n.counts"
    [ -s "$f" ] && return 0
    if [ ! -s "$CPU_DIR/prefix.txt" ]; then
        case $CORPUS in
        *.xz) if command -v xz >/dev/null 2>&1; then
                xz -dc "$CORPUS" | head -c "$CORPUS_BYTES" > "$CPU_DIR/prefix.txt.tmp"
            else # a machine without xz-utils (the lent Intel host may be one)
                python3 -c 'import lzma, sys
with lzma.open(sys.argv[1]) as f: sys.stdout.buffer.write(f.read(int(sys.argv[2])))' \
                    "$CORPUS" "$CORPUS_BYTES" > "$CPU_DIR/prefix.txt.tmp"
            fi ;;
        *) head -c "$CORPUS_BYTES" "$CORPUS" > "$CPU_DIR/prefix.txt.tmp" ;;
        esac
        [ -s "$CPU_DIR/prefix.txt.tmp" ] || { echo "bench/cpu.sh: nothing read from $CORPUS" >&2; exit 1; }
        mv "$CPU_DIR/prefix.txt.tmp" "$CPU_DIR/prefix.txt"
    fi
    t0=$(date +%s.%N)
    /usr/bin/env time -f %M -o "$CPU_DIR/prefix_$n.rss" "$CPU_DIR/bin/ro-sgns" count -train "$CPU_DIR/prefix.txt" \
        -output "$f" -window 5 -min-count 5 -max-vocab "$n" -quiet 2>/dev/null ||
        "$CPU_DIR/bin/ro-sgns" count -train "$CPU_DIR/prefix.txt" -output "$f" -window 5 -min-count 5 \
            -max-vocab "$n" -quiet
    awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "$CPU_DIR/prefix_$n.sec"
}

# job NAME: one bench, its log CPU_DIR/<LOGP>NAME.log. Jobs: gemm, gemm_d,
# avx2_gemm, avx2_gemm_d, ro_<r> for r in RO_RUNS' form, scale, elementwise.
LOGP=""
job() {
    case $1 in
    gemm | gemm_d) BENCH_GEMM_THREADS=2 run "$LOGP$1" "$CPU_DIR/bin/bench_$1" "$ROUNDS" ;;
    avx2_gemm | avx2_gemm_d)
        # Haswell's numbers first (OpenBLAS's pick as set here), then the
        # bench re-runs itself with the CPU's best kernel
        if [ "$has_avx512" = 1 ]; then
            OPENBLAS_CORETYPE=Haswell BENCH_GEMM_THREADS=2 \
                run "$LOGP$1" "$CPU_DIR/bin-avx2/bench_${1#avx2_}" "$ROUNDS"
        fi ;;
    ro_[fdc]*)
        r=${1#ro_}
        case $r in f*) b=bench_ro ;; d*) b=bench_ro_d ;; *) b=bench_ro_cblas ;; esac
        BENCH_COUNTS="$CPU_DIR/prefix_22352.counts" BENCH_FLOOR_PAIRED=1 BENCH_FLOOR_ROUNDS=1 \
            BENCH_FLOOR_OURS_ONCE="$FLOOR_OURS_ONCE" BENCH_RO_OVERSAMPLE=50 \
            run "$LOGP$1" "$CPU_DIR/bin/$b" "${r#?}" "$STEPS" scaled 0 1 \
            "$([ "$RO_TWO_SWEEPS" = 1 ] && echo -1 || echo 0)"
        ;;
    scale) for n in 22352 81212; do run "${LOGP}scale_$n" "$CPU_DIR/bin/bench_scale" "$CPU_DIR/prefix_$n.counts" 100 2; done ;;
    elementwise)
        run "${LOGP}elementwise_float" "$CPU_DIR/bin/bench_elementwise_float"
        run "${LOGP}elementwise_double" "$CPU_DIR/bin/bench_elementwise_double"
        ;;
    *) echo "bench/cpu.sh: unknown job $1" >&2; exit 2 ;;
    esac
}
# the counts the jobs in $1 need, made before they start
counts_for() {
    case " $1 " in *" ro_"* | *" scale "*) prefix_counts 22352 ;; esac
    case " $1 " in *" scale "*) prefix_counts 81212 ;; esac
}

if [ -n "$LANES" ] && [ "$PARTS" != summary ]; then
    # Lanes side by side, lane i on cores 2i and 2i + 1; then ALONE's jobs
    # again one at a time on lane 0's cores, their logs alone_NAME.log.
    all=$(echo "$LANES" | tr '|' ' ')
    counts_for " $all $ALONE "
    k=0
    while [ "$k" -lt "$nslots" ]; do # slot k: lanes k, k + nslots, ...
        (
            [ "$nslots" -eq 1 ] || PIN="taskset -c $((2 * k)),$((2 * k + 1))"
            i=0
            rest=$LANES
            while [ -n "$rest" ]; do
                lane=${rest%%|*}
                case $rest in *'|'*) rest=${rest#*|} ;; *) rest="" ;; esac
                if [ $((i % nslots)) -eq "$k" ]; then
                    for j in $lane; do job "$j"; done
                fi
                i=$((i + 1))
            done
        ) &
        k=$((k + 1))
    done
    wait
    [ "$nslots" -eq 1 ] || PIN="taskset -c 0,1"
    LOGP=alone_
    for j in $ALONE; do job "$j"; done
    LOGP=""
elif [ "$PARTS" != summary ]; then
    for part in $PARTS; do
        case $part in
        ro) jobs=$(for r in $RO_RUNS; do printf 'ro_%s ' "$r"; done) ;;
        avx2) jobs="avx2_gemm avx2_gemm_d" ;;
        summary) jobs="" ;;
        *) jobs=$part ;;
        esac
        counts_for " $jobs "
        for j in $jobs; do job "$j"; done
    done
fi

# ---- the summary, from the logs
s() { [ -f "$CPU_DIR/$1.log" ]; }
took="$(( $(date +%s) - start )) s"
[ "$PARTS" = summary ] && took="the logs in $CPU_DIR"
where=${PIN:-all of them}
[ "$nlanes" -gt 0 ] && where="$nlanes lanes ($(echo "$LANES" | sed 's/ *| */; /g')), $([ "$nslots" -gt 1 ] && echo "$nslots of them side by side on 2 cores each" || echo "one after another")${ALONE:+, then $ALONE again alone}"
echo "# Issue 16's tables on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "$(grep -m1 vendor_id /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $JOBS cores (benches on $where), $(${CC:-gcc} --version | head -1), $(date -u '+%Y-%m-%d %H:%M') UTC, $(git describe --always --dirty 2>/dev/null || echo 'no git'), $took."
for f in gemm gemm_d ro_c200 ro_f100; do
    if s "$f" && grep -q '^- OpenBLAS' "$CPU_DIR/$f.log"; then grep -m1 -E '^- (compiler|OpenBLAS)' "$CPU_DIR/$f.log"; grep -m1 '^- OpenBLAS' "$CPU_DIR/$f.log"; break; fi
done
for p in gemm gemm_d avx2_gemm avx2_gemm_d alone_gemm alone_gemm_d alone_avx2_gemm alone_avx2_gemm_d; do
    s "$p" || continue
    echo
    case $p in alone_*) a=", alone after the lanes" ;; *) a="" ;; esac
    case $p in *avx2*) echo "$p (the build without AVX-512; \"own pick\" = Haswell, set for it; 2 threads, best of $ROUNDS$a):" ;;
    *) echo "$p (2 threads, best of $ROUNDS$a):" ;; esac
    grep -m1 '^| shape' "$CPU_DIR/$p.log" || true
    grep -m1 '^|---' "$CPU_DIR/$p.log" || true
    grep -E '^\| [0-9]+ x [0-9]+ x [0-9]+ [NT][NT] \| 2 \|' "$CPU_DIR/$p.log" || tail -n 2 "$CPU_DIR/$p.log"
    grep -E '^\| (kernel|QR)' "$CPU_DIR/$p.log" || true
done
if ls "$CPU_DIR"/ro_*.log >/dev/null 2>&1 || ls "$CPU_DIR"/alone_ro_*.log >/dev/null 2>&1; then
    echo
    echo "The step against the floor of its four products (OpenBLAS), one round of the floor after each step:"
    echo
    echo "| d | real | build | steps s | step / floor, paired | median | fastest step / best floor | our floor / OpenBLAS's | outside the products | F x 1e-9 after the steps | two sweeps a step (fuse = 0): steps s | its fastest / best floor |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for log in $(for r in $RO_RUNS; do printf 'ro_%s ' "$r"; done) $(for r in $RO_RUNS; do printf 'alone_ro_%s ' "$r"; done); do
        s "$log" || continue
        r=${log##*ro_}
        awk -v r="$r" -v alone="$(case $log in alone_*) echo alone ;; esac)" '
            /^the same from the same start, two sweeps/ { two = 1 }
            two && /^\| [0-9]+ \| -?[0-9.]+ \| / { split($0, f, "|"); st2 = st2 sep2 sprintf("%.2f", f[7]); sep2 = ", "; next }
            /two sweeps a step \(fuse = 0\) \| 2 \|/ { split($0, t, "|"); fast2 = t[8] + 0 }
            /^\| [0-9]+ \| -?[0-9.]+ \| / { split($0, f, "|"); st = st sep sprintf("%.2f", f[7]); F = f[3] + 0;
                if (match($0, /step \/ floor [0-9.]+/)) { pr = pr sep substr($0, RSTART + 13, RLENGTH - 13) }
                sep = ", " }
            /^paired:/ { med = $(NF - 4); sub(/,/, "", med) }
            /^\| [0-9]+ \| (float|double) \| 2 \|/ { split($0, t, "|"); fast = t[8] + 0; ours = t[9] + 0; out = t[10] }
            END {
                b = (substr(r, 1, 1) == "c") ? "RO_SGNS_USE_CBLAS" : "";
                b = b ((b != "" && alone != "") ? ", " : "") alone;
                real = (substr(r, 1, 1) == "d") ? "double" : "float";
                if (st == "") { printf "| %s | %s | %s | (no step: see the log) | | | | | | | | |\n", substr(r, 2), real, b; exit }
                gsub(/ /, "", out);
                two_r = fast2 > 0 ? sprintf("%.2f", fast2) : "-";
                printf "| %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %.4f | %s | %s |\n", substr(r, 2), real, b, st, pr, med, fast, ours, out, F, (st2 == "" ? "-" : st2), two_r }
        ' "$CPU_DIR/$log.log"
    done
fi
if s scale_22352 || s scale_81212; then
    echo
    echo "The pipeline on the prefix (d = 100, 2 RO steps; step predicted from 22k by n m):"
    echo
    echo "| n | nnz | counting s | counting peak MiB | SVD s | RO step s | predicted s | peak MiB |"
    echo "|---|---|---|---|---|---|---|---|"
    base=""
    for n in 22352 81212; do
        s "scale_$n" || continue
        line=$(grep -E '^[0-9]+ [0-9]+ ' "$CPU_DIR/scale_$n.log" | tail -n 1)
        [ -n "$line" ] || { echo "| $n | (no result: see $CPU_DIR/scale_$n.log) | | | | | | |"; continue; }
        [ -n "$base" ] || base=$line
        echo "$line" | awk -v base="$base" -v cs="$(cat "$CPU_DIR/prefix_$n.sec" 2>/dev/null || echo -)" \
            -v cr="$(cat "$CPU_DIR/prefix_$n.rss" 2>/dev/null || echo -)" '{
            split(base, b, " ");
            pred = ($1 == b[1]) ? "-" : sprintf("%.2f", b[9] * ($1 * $1) / (b[1] * b[1]));
            crm = (cr ~ /^[0-9]+$/) ? sprintf("%.0f", cr / 1024) : "-"; # no GNU time: no peak
            printf "| %d | %.1fM | %s | %s | %.2f | %.2f | %s | %.0f |\n", $1, $2 / 1e6, cs, crm, $7, $9, pred, $12 }'
    done
fi
for r in float double; do
    s "elementwise_$r" || continue
    echo
    echo "elementwise, $r (one thread):"
    grep -E '^\| (pass|with F|direction)|^\(tile' "$CPU_DIR/elementwise_$r.log" || tail -n 3 "$CPU_DIR/elementwise_$r.log"
done
echo
echo "(logs: $CPU_DIR/*.log)"
