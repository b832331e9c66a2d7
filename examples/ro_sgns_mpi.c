/* ro_sgns_mpi.c - RO-SGNS over MPI: every rank holds a shard of the words'
   rows, and the ranks take each step together (section 6 of ro_sgns.h).

       mpirun -np P ro_sgns_mpi -counts FILE [-size 100] [-iter 10]
              [-negative 5] [-step 1] [-plain] [-factors OUT.fx]
              [-output VECTORS.bin] [-resume START.fx] [-quiet]

   What each rank does:
     1. loads the counts file and keeps rows [r0, r1) = [rank n / P,
        (rank + 1) n / P) of it; the column sums #(c) and |D| that couple the
        shards are summed over the ranks (each rank sums only its rows);
     2. gets the start point: rank 0 computes the SVD-SPPMI start (the same
        call as the single-process program) or loads a checkpoint (-resume,
        e.g. the -factors of an earlier run; -iter 0 writes the start), and
        broadcasts S, V and the step state and scatters the rows of U;
     3. runs the K steps with ro_sgns_ro_train_shard, which calls back into
        the three collectives below: pass 1 on its rows, TSQR (allgather of
        the d x d R factors), pass 2 partials summed over the ranks, QR;
     4. rank 0 gathers U and writes the factors (a checkpoint) and W.
   Reductions are deterministic: each sum adds the ranks' values in rank
   order, after a reduce-scatter done by hand (MPI_Alltoallv), never with
   MPI_SUM, whose order depends on the library's algorithm. So a run with P
   ranks repeats bit for bit, and -np 1 gives the bits of ro_sgns_ro_train.
   Set OMP_NUM_THREADS so that ranks x threads fits the cores.
   Build: make mpi (mpicc). Test: tests/test_mpi.sh. Scaling: docs/SCALING.md. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef ro_sgns_real real;

static int g_rank = 0, g_size = 1;
static double g_comm_seconds = 0; /* time inside the collectives of the steps */

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "ro_sgns_mpi (rank %d): %s: %s\n", g_rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static MPI_Datatype real_type(void) { return sizeof(real) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT; }

/* --------------------------------------------------------- collectives */

static int c_allgather(void *user, const real *send, size_t count, real *recv)
{
    double t0 = MPI_Wtime();
    int fail;
    (void)user;
    if (count > INT_MAX) return 1;
    fail = MPI_Allgather((void *)send, (int)count, real_type(), recv, (int)count, real_type(),
                         MPI_COMM_WORLD) != MPI_SUCCESS;
    g_comm_seconds += MPI_Wtime() - t0;
    return fail;
}

/* buf := sum over ranks, added in rank order. Reduce-scatter by hand: rank q
   receives every rank's piece q (MPI_Alltoallv), adds them in rank order,
   and an allgather puts the pieces back together. Each rank sends and
   receives 2 (P - 1) / P of the buffer, the volume of a ring allreduce. */
static int det_sum(void *buf, size_t count, int is_double)
{
    MPI_Datatype type = is_double ? MPI_DOUBLE : real_type();
    size_t elem = is_double ? sizeof(double) : sizeof(real);
    int P = g_size, q, *scnt, *sdsp, *rcnt, *rdsp, fail;
    size_t i, lo, hi, mine;
    char *recv, *acc;
    if (P == 1 || count == 0) return 0;
    if (count > INT_MAX) return 1;
    scnt = (int *)malloc(4 * (size_t)P * sizeof(int));
    if (!scnt) return 1;
    sdsp = scnt + P;
    rcnt = sdsp + P;
    rdsp = rcnt + P;
    for (q = 0; q < P; ++q) { /* piece q: [q count / P, (q + 1) count / P) */
        lo = (size_t)q * count / (size_t)P;
        hi = (size_t)(q + 1) * count / (size_t)P;
        scnt[q] = (int)(hi - lo);
        sdsp[q] = (int)lo;
    }
    mine = (size_t)(g_rank + 1) * count / (size_t)P - (size_t)g_rank * count / (size_t)P;
    for (q = 0; q < P; ++q) {
        rcnt[q] = (int)mine;
        rdsp[q] = (int)((size_t)q * mine);
    }
    recv = (char *)malloc((size_t)P * mine * elem + 1);
    acc = (char *)malloc(mine * elem + 1);
    fail = !recv || !acc;
    if (!fail)
        fail = MPI_Alltoallv(buf, scnt, sdsp, type, recv, rcnt, rdsp, type, MPI_COMM_WORLD) !=
               MPI_SUCCESS;
    if (!fail) {
        if (is_double) {
            double *a = (double *)(void *)acc, *r = (double *)(void *)recv;
            for (i = 0; i < mine; ++i) a[i] = r[i];
            for (q = 1; q < P; ++q)
                for (i = 0; i < mine; ++i) a[i] += r[(size_t)q * mine + i];
        } else {
            real *a = (real *)(void *)acc, *r = (real *)(void *)recv;
            for (i = 0; i < mine; ++i) a[i] = r[i];
            for (q = 1; q < P; ++q)
                for (i = 0; i < mine; ++i) a[i] += r[(size_t)q * mine + i];
        }
        fail = MPI_Allgatherv(acc, (int)mine, type, buf, scnt, sdsp, type, MPI_COMM_WORLD) !=
               MPI_SUCCESS;
    }
    free(recv);
    free(acc);
    free(scnt);
    return fail;
}

static int c_sum(void *user, real *buf, size_t count)
{
    double t0 = MPI_Wtime();
    int fail = det_sum(buf, count, 0);
    (void)user;
    g_comm_seconds += MPI_Wtime() - t0;
    return fail;
}

static int c_sum_double(void *user, double *buf, size_t count)
{
    double t0 = MPI_Wtime();
    int fail = det_sum(buf, count, 1);
    (void)user;
    g_comm_seconds += MPI_Wtime() - t0;
    return fail;
}

/* -------------------------------------------------------------- progress */

static int progress(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    (void)x;
    if (g_rank == 0 && !*(const int *)user)
        fprintf(stderr, "iter %3lu  F %.9e  step %.3g  halvings %d  %.3f s\n",
                (unsigned long)pr->iteration, pr->objective, pr->step, pr->halvings,
                pr->seconds);
    return 0;
}

/* ------------------------------------------------------------------ main */

static const char *arg(int argc, char **argv, const char *name, const char *def)
{
    int i;
    for (i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return def;
}

static int flag(int argc, char **argv, const char *name)
{
    int i;
    for (i = 1; i < argc; ++i)
        if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *counts_path, *factors_path, *vectors_path, *resume_path;
    double state[2], cpu[4];
    clock_t cpu0;
    uint64_t steps;
    size_t d, n, r0, r1, rows, i;
    uint64_t e;
    double k, total_local = 0, t0, t_start, t_train;
    double *ctx;
    int quiet, *cnt, *dsp, q;
    ro_sgns_counts *c = NULL;
    ro_sgns_problem *shard = NULL;
    ro_sgns_factors *x = NULL, *full = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_comm comm;
    ro_sgns_error err;
    ro_sgns_result res;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    counts_path = arg(argc, argv, "-counts", NULL);
    factors_path = arg(argc, argv, "-factors", NULL);
    vectors_path = arg(argc, argv, "-output", NULL);
    resume_path = arg(argc, argv, "-resume", NULL);
    d = (size_t)atol(arg(argc, argv, "-size", "100"));
    k = atof(arg(argc, argv, "-negative", "5"));
    cfg.iterations = atoi(arg(argc, argv, "-iter", "10"));
    cfg.step = atof(arg(argc, argv, "-step", "1"));
    if (flag(argc, argv, "-plain")) cfg.direction = RO_SGNS_DIRECTION_PLAIN;
    quiet = flag(argc, argv, "-quiet");
    cfg.callback = progress;
    cfg.user = &quiet;
    if (!counts_path || d == 0 || !(k > 0))
        die("usage", "mpirun -np P ro_sgns_mpi -counts FILE [-size d] [-iter K] [-negative k] "
                     "[-step s] [-plain] [-factors OUT.fx] [-output VECTORS.bin] "
                     "[-resume START.fx] [-quiet]");

    /* 1. the counts and this rank's rows; #(c) and |D| summed over ranks */
    if (ro_sgns_counts_load_path(counts_path, &c, NULL, &err) != RO_SGNS_OK)
        die(counts_path, err.message);
    n = c->n;
    r0 = (size_t)g_rank * n / (size_t)g_size;
    r1 = (size_t)(g_rank + 1) * n / (size_t)g_size;
    rows = r1 - r0;
    if (n / (size_t)g_size < d) die("shards", "every rank needs at least d rows: use fewer ranks");
    ctx = (double *)calloc(n + 1, sizeof(double));
    if (!ctx) die("memory", "column sums");
    for (i = r0; i < r1; ++i) {
        double wsum = 0;
        for (e = c->row_ptr[i]; e < c->row_ptr[i + 1]; ++e) {
            wsum += c->val[e];
            ctx[c->col[e]] += c->val[e];
        }
        total_local += wsum;
    }
    ctx[n] = total_local;
    if (c_sum_double(NULL, ctx, n + 1) != 0) die("MPI", "sum of the marginals");
    if (ro_sgns_problem_create_shard(n, n, r0, r1, c->row_ptr + r0, c->col, c->val, ctx, ctx[n], k,
                                 &shard, NULL, &err) != RO_SGNS_OK)
        die("shard", err.message);
    free(ctx);

    /* 2. the SVD-SPPMI start on rank 0, then S, V broadcast and U scattered */
    t0 = MPI_Wtime();
    if (ro_sgns_factors_create(rows, n, d, &x, NULL, &err) != RO_SGNS_OK) die("factors", err.message);
    if (g_rank == 0 && resume_path) {
        if (ro_sgns_factors_load_path(resume_path, &full, NULL, &err) != RO_SGNS_OK)
            die(resume_path, err.message);
        if (full->n != n || full->m != n || full->d != d)
            die(resume_path, "the checkpoint does not fit the counts and -size");
    } else if (g_rank == 0) {
        ro_sgns_csr *A = NULL;
        if (ro_sgns_sppmi(c, k, 1.0, &A, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_tsvd(A, d, NULL, &full, NULL, &err) != RO_SGNS_OK)
            die("svd start", err.message);
        ro_sgns_csr_free(A);
    }
    cnt = (int *)malloc(2 * (size_t)g_size * sizeof(int));
    if (!cnt) die("memory", "counts");
    dsp = cnt + g_size;
    for (q = 0; q < g_size; ++q) {
        size_t a = (size_t)q * n / (size_t)g_size, b = (size_t)(q + 1) * n / (size_t)g_size;
        if (n * d > INT_MAX) die("MPI", "n d does not fit an int count");
        cnt[q] = (int)((b - a) * d);
        dsp[q] = (int)(a * d);
    }
    if (g_rank == 0) {
        memcpy(x->S, full->S, d * d * sizeof(real));
        memcpy(x->V, full->V, n * d * sizeof(real));
        state[0] = (double)full->iteration;
        state[1] = full->next_step;
    }
    MPI_Bcast(state, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    x->iteration = (uint64_t)state[0];
    x->next_step = state[1];
    MPI_Bcast(x->S, (int)(d * d), real_type(), 0, MPI_COMM_WORLD);
    MPI_Bcast(x->V, (int)(n * d), real_type(), 0, MPI_COMM_WORLD);
    MPI_Scatterv(g_rank == 0 ? full->U : NULL, cnt, dsp, real_type(), x->U, cnt[g_rank],
                 real_type(), 0, MPI_COMM_WORLD);
    t_start = MPI_Wtime() - t0;

    /* 3. K steps together */
    comm.rank = g_rank;
    comm.size = g_size;
    comm.allgather = c_allgather;
    comm.sum = c_sum;
    comm.sum_double = c_sum_double;
    comm.user = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    g_comm_seconds = 0;
    cpu0 = clock();
    t0 = MPI_Wtime();
    res = ro_sgns_ro_train_shard(shard, &comm, x, &cfg, &err);
    if (res != RO_SGNS_OK && res != RO_SGNS_STOPPED) die("train", err.message);
    t_train = MPI_Wtime() - t0;
    /* processor time of the training on each rank (it counts the spinning
       of a rank that waits in a collective, as MPI libraries busy-poll) */
    cpu[0] = (double)(clock() - cpu0) / CLOCKS_PER_SEC;
    cpu[1] = cpu[0];
    MPI_Reduce(&cpu[0], &cpu[2], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu[1], &cpu[3], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* 4. U gathered on rank 0, which writes the results */
    MPI_Gatherv(x->U, cnt[g_rank], real_type(), g_rank == 0 ? full->U : NULL, cnt, dsp,
                real_type(), 0, MPI_COMM_WORLD);
    steps = x->iteration - (uint64_t)state[0];
    if (g_rank == 0) {
        memcpy(full->S, x->S, d * d * sizeof(real));
        memcpy(full->V, x->V, n * d * sizeof(real));
        full->iteration = x->iteration;
        full->next_step = x->next_step;
        if (factors_path && ro_sgns_factors_save_path(full, factors_path, &err) != RO_SGNS_OK)
            die(factors_path, err.message);
        if (vectors_path) {
            ro_sgns_vectors *vec = NULL;
            real *W = (real *)malloc(n * d * sizeof(real));
            if (!W) die("memory", "vectors");
            if (ro_sgns_factors_embeddings(full, 0.5, RO_SGNS_EMBED_W, W, d, NULL, &err) != RO_SGNS_OK ||
                ro_sgns_vectors_create(n, d, (const char *const *)c->vocab.word, W, d, &vec, NULL,
                                       &err) != RO_SGNS_OK)
                die("vectors", err.message);
            if (ro_sgns_vectors_save_path(vec, RO_SGNS_W2V_BINARY, vectors_path, NULL, &err) !=
                RO_SGNS_OK)
                die(vectors_path, err.message);
            ro_sgns_vectors_free(vec);
            free(W);
        }
        if (!quiet)
            fprintf(stderr, "ranks %d, n = %lu, d = %lu, %lu steps: start %.2f s, training %.2f s "
                            "(%.3f s a step; rank 0 in collectives %.3f s; processor time "
                            "%.2f s in all, %.2f s on the busiest rank)\n",
                    g_size, (unsigned long)n, (unsigned long)d, (unsigned long)steps, t_start,
                    t_train, steps ? t_train / (double)steps : 0.0, g_comm_seconds, cpu[2],
                    cpu[3]);
    }
    free(cnt);
    ro_sgns_factors_free(x);
    ro_sgns_factors_free(full);
    ro_sgns_problem_free(shard);
    ro_sgns_counts_free(c);
    MPI_Finalize();
    return 0;
}
