/* bench/rank_share.c - one rank's share of a P-rank run, measured on one
   machine: its rows of the counts against all columns, the start and the
   RO-SGNS steps exactly as that rank would run them, with the other P - 1
   ranks simulated by the transport.

   Build: make build/bench_rank_share
   Run:   bench_rank_share COUNTS P q [d] [steps]   (defaults d = 300, 1 step)
          BENCH_RO_FUSE=0: two sweeps a step (fuse = 0); =both: the fused
          steps, then two-sweep steps from the same start
   COUNTS holds at least rows [q n / P, (q + 1) n / P), with the global
   marginals: e.g. bench_gen_counts write -n 1000000 -ranks 64 -rank 32
   -interleave 64 (only that rank's rows are generated; see gen_counts.c).

   The simulated transport: the other ranks send zeros. Every exchange
   still allocates, copies and adds exactly what the real one does on this
   rank (examples/ro_sgns_mpi.c's sum: a receive buffer of P pieces, the
   adds in rank order, the pieces put back; TSQR's P stacked d x d
   factors), so the work and the memory are this rank's in a P-rank run;
   only the network is missing, and the bytes it would carry are counted.
   Zeros, rather than copies of this rank's values, keep the point a sane
   one: the sums are this rank's own parts, U' stays orthonormal, and the
   step never overflows, so no run ends early. The step runs with the
   safeguard off, so every step is one try, as an accepted step is.
   The start: ro_sgns_sppmi_rows of the rank's rows, then the block Krylov
   SVD on them alone (comm NULL: the products, the orthogonalization of the
   rank's n_s x l basis, the l x l eigenproblem and the QR of V are the
   ones a shard does; the sums and TSQR's small combine are not).

   Prints, per stage, wall and processor seconds and the peak resident
   memory (getrusage), seconds per step, the bytes the transport would
   carry per step, and the cost model of docs/SCALING.md beside them,
   priced at this machine's GEMM and elementwise rates measured in the
   same process. */
#define _POSIX_C_SOURCE 200809L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef ro_sgns_real real;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_gb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1048576.0;
}

/* ------------------------------------------------ the simulated ranks */

typedef struct {
    int P, rank;
    double calls, sent, recv, seconds;
} sim;

static int sim_allgather(void *user, const real *send, size_t count, real *recv)
{
    sim *s = (sim *)user;
    double t0 = now();
    memset(recv, 0, (size_t)s->P * count * sizeof(real));
    memcpy(recv + (size_t)s->rank * count, send, count * sizeof(real));
    s->calls += 1;
    s->sent += (double)count * sizeof(real) * (s->P - 1);
    s->recv += (double)count * sizeof(real) * (s->P - 1);
    s->seconds += now() - t0;
    return 0;
}

/* the sum of examples/ro_sgns_mpi.c, the others' pieces zero */
static int sim_sum_any(sim *s, void *buf, size_t count, size_t elem)
{
    size_t P = (size_t)s->P, q = (size_t)s->rank, i, j;
    size_t lo = q * count / P, mine = (q + 1) * count / P - lo;
    char *recv, *acc;
    double t0 = now();
    s->calls += 1;
    if (P == 1 || count == 0) return 0;
    recv = (char *)malloc(P * mine * elem + 1);
    acc = (char *)malloc(mine * elem + 1);
    if (!recv || !acc) return 1;
    /* the alltoall: piece q of every rank (this rank's own, the others 0) */
    memset(recv, 0, P * mine * elem);
    memcpy(recv + q * mine * elem, (char *)buf + lo * elem, mine * elem);
    if (elem == sizeof(double)) {
        double *a = (double *)(void *)acc, *r = (double *)(void *)recv;
        for (i = 0; i < mine; ++i) a[i] = r[i];
        for (j = 1; j < P; ++j)
            for (i = 0; i < mine; ++i) a[i] += r[j * mine + i];
    } else {
        real *a = (real *)(void *)acc, *r = (real *)(void *)recv;
        for (i = 0; i < mine; ++i) a[i] = r[i];
        for (j = 1; j < P; ++j)
            for (i = 0; i < mine; ++i) a[i] += r[j * mine + i];
    }
    /* the allgather: this rank's piece back; the others' pieces would
       arrive here (their sums of zeros are the values buf already has) */
    memcpy((char *)buf + lo * elem, acc, mine * elem);
    s->sent += (double)elem * ((double)(count - mine) + (double)mine * (double)(P - 1));
    s->recv += (double)elem * ((double)mine * (double)(P - 1) + (double)(count - mine));
    free(recv);
    free(acc);
    s->seconds += now() - t0;
    return 0;
}

static int sim_sum(void *user, real *buf, size_t count)
{
    return sim_sum_any((sim *)user, buf, count, sizeof(real));
}

static int sim_sum_double(void *user, double *buf, size_t count)
{
    return sim_sum_any((sim *)user, buf, count, sizeof(double));
}

/* ------------------------------------------------------------ progress */

typedef struct {
    double seconds[64];
    int steps;
    const sim *s;
    sim last, before; /* the transport's counters after the last two steps */
} steps_seen;

static int on_step(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    steps_seen *s = (steps_seen *)user;
    (void)x;
    if (s->steps < 64) s->seconds[s->steps] = pr->seconds;
    ++s->steps;
    s->before = s->last;
    s->last = *s->s;
    printf("  step %lu: %.1f s (F of this rank's rows %.6e)\n", (unsigned long)pr->iteration,
           pr->seconds, pr->objective);
    fflush(stdout);
    return 0;
}

/* The rates the step's model is priced at, measured in this process just
   before the steps, so that the model line speaks of today's kernels on
   this machine: the GEMM's flops a second a core on the sweep's first
   product (a 288-row block of U S times V^T: 288 x min(m, 8192) x d, NT,
   all threads, best of 3 rounds of at least 0.2 s), and one thread's
   nanoseconds an entry for the elementwise loops with F and without
   (ro_sgns__row_exp and ro_sgns__dense_rest on a 288 x 512 tile of x in
   [-10, 10], best of 3). 0, or 1 when out of memory. */
typedef struct rates {
    double flops_core, ns_f, ns_nof;
} rates;

static int measure_rates(size_t m, size_t d, int threads, rates *r)
{
    enum { BR = 288, CB = 512 };
    size_t mc = m < 8192 ? m : 8192, i, reps;
    real *A = (real *)malloc(BR * d * sizeof(real)), *B = (real *)malloc(mc * d * sizeof(real));
    real *C = (real *)malloc(BR * mc * sizeof(real)), *t = (real *)malloc(BR * CB * sizeof(real));
    real *src = (real *)malloc(BR * CB * sizeof(real)), *cf = (real *)malloc(CB * sizeof(real));
    real *f = (real *)malloc(CB * sizeof(real)), *es = (real *)malloc(CB * sizeof(real));
    double best = 1e30, sink = 0; /* the GEMM's best */
    int round, with_f;
    ro_sgns_rng st;
    if (!A || !B || !C || !t || !src || !cf || !f || !es) {
        free(A), free(B), free(C), free(t), free(src), free(cf), free(f), free(es);
        return 1;
    }
    ro_sgns_rng_seed(&st, 12345, 0);
    for (i = 0; i < BR * d; ++i) A[i] = (real)ro_sgns_rng_uniform(&st) - (real)0.5;
    for (i = 0; i < mc * d; ++i) B[i] = (real)ro_sgns_rng_uniform(&st) - (real)0.5;
    for (i = 0; i < BR * CB; ++i) src[i] = (real)(20 * ro_sgns_rng_uniform(&st) - 10);
    for (i = 0; i < CB; ++i) cf[i] = (real)(1 + 1000 * ro_sgns_rng_uniform(&st));
    memset(f, 0, CB * sizeof(real));
    for (with_f = 0; with_f < 2; ++with_f) {
        double eb = 1e30;
        for (round = 0; round < 3; ++round) {
            double t0;
            int k;
            t0 = now();
            for (k = 0; k < 20; ++k) {
                memcpy(t, src, BR * CB * sizeof(real)); /* as bench_elementwise does */
                for (i = 0; i < BR; ++i) {
                    ro_sgns__row_exp(t + i * CB, CB, es);
                    ro_sgns__dense_rest(t + i * CB, CB, cf, (real)1e-6, 0, with_f ? f : NULL, es);
                    sink += t[i * CB] + f[0];
                }
            }
            t0 = now() - t0;
            if (t0 < eb) eb = t0;
        }
        *(with_f ? &r->ns_f : &r->ns_nof) = eb * 1e9 / (20.0 * BR * CB);
    }
    for (round = 0; round < 3; ++round) {
        double t0 = now(), el;
        reps = 0;
        do {
            if (ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, BR, mc, d, 1, A, d, B, d, 0, C, mc, NULL,
                             NULL) !=
                RO_SGNS_OK) {
                free(A), free(B), free(C), free(t), free(src), free(cf), free(f), free(es);
                return 1;
            }
            ++reps;
            el = now() - t0;
        } while (el < 0.2);
        if (el / (double)reps < best) best = el / (double)reps;
    }
    r->flops_core = 2.0 * BR * (double)mc * (double)d / best / threads;
    if (sink != sink) printf("(a NaN in the calibration)\n");
    free(A), free(B), free(C), free(t), free(src), free(cf), free(f), free(es);
    return 0;
}

/* The steps on this rank, the other P - 1 simulated: the progress of each
   step, the time and memory of the run, the transport's bytes and the
   cost model of docs/SCALING.md (fused: 6 n_s m d flops and one
   evaluation an entry; two sweeps: 8 and two) at the rates rt. 0, or 1 on
   failure. */
static int train_run(const ro_sgns_problem *shard, ro_sgns_factors *x, int P, int q, size_t ns,
                     size_t n, size_t d, int steps, int threads, int fuse, const rates *rt)
{
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_comm comm;
    ro_sgns_error err;
    sim s;
    steps_seen seen;
    double t0, c0, t_train, c_train, g_train, flops, elem, model_s, sweep_mean = 0;
    double prods = fuse ? 6.0 : 8.0, passes = fuse ? 1.0 : 2.0;
    int i;
    cfg.fuse = fuse;
    printf("%s:\n", fuse ? "fused (three big products a step)" : "two sweeps a step (fuse = 0)");
    memset(&s, 0, sizeof s);
    s.P = P;
    s.rank = q;
    {
        ro_sgns_comm sc = {0, 0, sim_allgather, sim_sum, sim_sum_double, NULL};
        comm = sc;
    }
    comm.rank = q;
    comm.size = P;
    comm.user = &s;
    memset(&seen, 0, sizeof seen);
    seen.s = &s;
    cfg.iterations = steps;
    cfg.safeguard = 0;
    cfg.callback = on_step;
    cfg.user = &seen;
    t0 = now();
    c0 = cpu_now();
    if (ro_sgns_ro_train_shard(shard, &comm, x, &cfg, &err) != RO_SGNS_OK) {
        fprintf(stderr, "train: %s\n", err.message);
        return 1;
    }
    t_train = now() - t0;
    c_train = cpu_now() - c0;
    g_train = peak_gb();
    for (i = 0; i < seen.steps && i < 64; ++i) sweep_mean += seen.seconds[i];
    sweep_mean /= seen.steps;
    printf("train  %8.1f s wall %8.1f s processor  peak %6.2f GB  (%d steps, the first sweep "
           "%.1f s before them)\n",
           t_train, c_train, g_train, steps, t_train - sweep_mean * steps);
    printf("per step: %.1f s wall; transport in the last step: %.0f calls, %.2f MB sent, %.2f MB "
           "received (%.2f s in the simulated exchanges in all)\n",
           sweep_mean, seen.last.calls - seen.before.calls, (seen.last.sent - seen.before.sent) / 1e6,
           (seen.last.recv - seen.before.recv) / 1e6, s.seconds);
    /* docs/SCALING.md's model of a step on this rank */
    flops = prods * (double)ns * (double)n * (double)d + 10.0 * (double)n * (double)d * (double)d +
            10.0 * (double)ns * (double)d * (double)d + 4.0 * P * (double)d * (double)d * (double)d;
    elem = passes * (double)ns * (double)n;
    /* priced at the rates measured before the steps (measure_rates): the
       products' flops at the GEMM's rate, each entry's elementwise loops
       (with F in the one sweep, without in the two-sweep step's other) at
       one thread's time, both spread evenly over the threads; the nonzeros,
       the small products and the exchanges are left out */
    model_s = (prods * (double)ns * (double)n * (double)d / rt->flops_core +
               (double)ns * (double)n * 1e-9 * (rt->ns_f + (fuse ? 0 : rt->ns_nof))) /
              threads;
    printf("model: %.4g flops (%.0f n_s m d = %.4g of them) and %.4g elementwise evaluations a step; "
           "at this machine's rates measured before the steps (%.1f GFLOP/s a core in the GEMM, "
           "%.2f ns an entry with F, %.2f without, one thread) %.2f s a step on %d thread(s)\n",
           flops, prods, prods * (double)ns * (double)n * (double)d, elem, rt->flops_core / 1e9,
           rt->ns_f, rt->ns_nof, model_s, threads);
    printf("measured: %.3g flop/s a core counting the model's flops\n", flops / sweep_mean / threads);
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 3 ? argv[1] : NULL;
    int P = argc > 3 ? atoi(argv[2]) : 0, q = argc > 3 ? atoi(argv[3]) : -1;
    size_t d = argc > 4 ? (size_t)atol(argv[4]) : 300, n, r0, r1, ns;
    int steps = argc > 5 ? atoi(argv[5]) : 1, threads = 1;
    double t0, c0, t_load, t_start, c_load, c_start, g_load, g_start, nnz_s;
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_problem *shard = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_error err;
    if (!path || P < 1 || q < 0 || q >= P || d == 0 || steps < 1) {
        fprintf(stderr, "usage: bench_rank_share COUNTS P q [d] [steps]\n");
        return 1;
    }
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    /* load: the counts and this rank's shard of the problem (its rows and
       their transpose), with the file's marginals */
    t0 = now();
    c0 = cpu_now();
    { /* n from the header (bytes 16-23, little-endian), then only this rank's rows */
        unsigned char h[24];
        FILE *f = fopen(path, "rb");
        int b;
        n = 0;
        if (!f || fread(h, 1, 24, f) != 24 || memcmp(h, "ROSGNSCT", 8) != 0) {
            fprintf(stderr, "%s: not a counts file (or cannot be read)\n", path);
            return 1;
        }
        fclose(f);
        for (b = 7; b >= 0; --b) n = n * 256 + h[16 + b];
    }
    r0 = (size_t)q * n / (size_t)P;
    r1 = (size_t)(q + 1) * n / (size_t)P;
    ns = r1 - r0;
    if (ro_sgns_counts_load_rows_path(path, r0, r1, &c, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    nnz_s = (double)(c->row_ptr[c->row_end - c->row_begin] - c->row_ptr[0]);
    /* a version 2 file gives the rows alone: the problem is this rank's shard */
    if (ro_sgns_problem_create(c, 5.0, 1.0, &shard, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "shard: %s\n", err.message);
        return 1;
    }
    if (c->row_begin != r0 || c->row_end != r1) {
        fprintf(stderr, "%s: a version 1 file (read whole): convert it to version 2\n", path);
        return 1;
    }
    t_load = now() - t0;
    c_load = cpu_now() - c0;
    g_load = peak_gb();
    printf("rank %d of %d: rows %lu..%lu (n_s = %lu) of n = m = %lu, d = %lu, %.4g nonzeros in its "
           "rows, %d thread(s)\n",
           q, P, (unsigned long)r0, (unsigned long)r1, (unsigned long)ns, (unsigned long)n,
           (unsigned long)d, nnz_s, threads);
    printf("load   %8.1f s wall %8.1f s processor  peak %6.2f GB\n", t_load, c_load, g_load);
    fflush(stdout);

    /* start: SPPMI of the rows, the Krylov SVD on them */
    t0 = now();
    c0 = cpu_now();
    if (ro_sgns_sppmi_rows(c, r0, r1, 5.0, 1.0, &A, NULL, &err) != RO_SGNS_OK ||
        ro_sgns_tsvd_shard(A, NULL, d, NULL, &x, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "start: %s\n", err.message);
        return 1;
    }
    t_start = now() - t0;
    c_start = cpu_now() - c0;
    g_start = peak_gb();
    printf("start  %8.1f s wall %8.1f s processor  peak %6.2f GB  (SPPMI rows: %.4g nonzeros)\n",
           t_start, c_start, g_start, (double)A->nnz);
    fflush(stdout);
    ro_sgns_csr_free(A);

    /* the steps on P ranks, the others simulated: fused (the default),
       two sweeps a step (BENCH_RO_FUSE=0), or both from the same start in
       this process, fused first (BENCH_RO_FUSE=both) */
    {
        const char *fe = getenv("BENCH_RO_FUSE");
        int both = fe && strcmp(fe, "both") == 0, fuse = fe && !both ? atoi(fe) != 0 : 1;
        ro_sgns_factors *x2 = NULL;
        rates rt;
        if (both) {
            if (ro_sgns_factors_create(x->n, x->m, d, &x2, NULL, &err) != RO_SGNS_OK) {
                fprintf(stderr, "copy: %s\n", err.message);
                return 1;
            }
            memcpy(x2->U, x->U, x->n * d * sizeof(real));
            memcpy(x2->S, x->S, d * d * sizeof(real));
            memcpy(x2->V, x->V, x->m * d * sizeof(real));
        }
        if (measure_rates(n, d, threads, &rt) != 0) {
            fprintf(stderr, "rates: out of memory\n");
            return 1;
        }
        if (train_run(shard, x, P, q, ns, n, d, steps, threads, fuse, &rt) != 0 ||
            (both && train_run(shard, x2, P, q, ns, n, d, steps, threads, 0, &rt) != 0))
            return 1;
        ro_sgns_factors_free(x2);
    }
    ro_sgns_factors_free(x);
    ro_sgns_problem_free(shard);
    ro_sgns_counts_free(c);
    return 0;
}
