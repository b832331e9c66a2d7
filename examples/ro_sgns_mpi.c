/* ro_sgns_mpi.c - RO-SGNS over MPI: every rank holds a shard of the words'
   rows; the ranks compute the SVD-SPPMI start and take each step together
   (section 6 of ro_sgns.h).

       mpirun -np P ro_sgns_mpi -counts COUNTS [-output VECTORS] [flags]

   The flags are those of `ro-sgns train -method ro` with the same names,
   defaults and meaning (see examples/ro_sgns_cli.c):
     -size D  -negative K  -steps K (steps in all: a resumed run counts the
     steps its checkpoint has taken)  -eta L  -direction scaled|plain
     -safeguard 0|1  -svd krylov|subspace  -oversample P  -block B
     -power-iters Q  -seed S  -init svd|FILE  -init-contexts FILE  -eig A
     -cds C  -embed w|c|w+c  -keep-direction BYTES (a plain number here, per
     rank: its rows x m reals; 0 off)  -fuse 0|1 (three big products a step or
     four; 1, the default, keeps one block of rows x m reals a thread)
     -checkpoint FILE (the point after every step)  -resume FILE
     -output VECTORS  -output-contexts C  -binary 0|1  -threads N  -quiet
   and, for the settings the CLI leaves at the library's defaults:
     -max-halvings N (8)  -grow G (2)  -block-rows N, -block-cols N (0: the
     library's 288 x 512 tiles)  -factors OUT.fx (the last point, as a
     checkpoint file; -steps 0 writes the start)

   What each rank does, and why:
     1. load: rows [r0, r1) = [rank n / P, (rank + 1) n / P) of the counts,
        with the vocabulary (a version 2 counts file is read by seeking:
        nothing of the other ranks' rows is read); #(c) and |D| are summed over the ranks from
        each rank's rows, in rank order (the one-process sums exactly, for
        counts that are integers), and the shard's problem is made.
     2. start: the SPPMI of its rows (ro_sgns_sppmi_rows), then the block
        Krylov SVD together (ro_sgns_tsvd_shard): no rank holds more than
        its rows of the SPPMI, of the Krylov basis and of U, plus V.
        -resume and -init read their file on rank 0, which sends each rank
        its rows of U and everyone S and V.
     3. train: ro_sgns_ro_train_shard; the library calls back into the
        three collectives below.
     4. write: the word vectors W = U P Sigma^alpha (or C's rows, or
        W + C, by -embed; V is whole on every rank) go into one file in
        rank order, each rank writing its own rows at its offset (MPI-IO),
        so no rank ever holds more than its rows of W and the ranks write
        at once. The context vectors and the factors files are written by
        rank 0: V is on every rank anyway, and a factors file (a
        checkpoint) is one stream with one running checksum, so rank 0
        gathers U for it -- n d more reals on rank 0 while it writes.
   Sums are deterministic: each adds the ranks' values in rank order,
   after a reduce-scatter done by hand (MPI_Alltoallv), never with
   MPI_SUM, whose order depends on the library's algorithm. So a run with
   P ranks repeats bit for bit, and -np 1 gives the bits of ro-sgns train.
   At the end rank 0 prints, unless -quiet, each rank's wall time,
   processor time and peak resident memory (getrusage's ru_maxrss) per
   stage, and what the transport moved: calls and bytes sent to and
   received from other ranks, per stage and per step.
   Set OMP_NUM_THREADS (or -threads) so that ranks x threads fits the
   cores. Build: make mpi. Test: tests/test_mpi.sh. docs/SCALING.md has
   the cost model and measurements. */
#define _POSIX_C_SOURCE 200809L /* getrusage */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef ro_sgns_real real;

static int g_rank = 0, g_size = 1;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "ro_sgns_mpi (rank %d): %s: %s\n", g_rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static MPI_Datatype real_type(void) { return sizeof(real) == sizeof(double) ? MPI_DOUBLE : MPI_FLOAT; }

/* ----------------------------------------------- the transport, counted */

/* what one kind of exchange moved on this rank: calls, and bytes sent to
   and received from the other ranks (the data, whatever algorithm the MPI
   library uses to route it) */
typedef struct {
    double calls, sent, recv;
} traffic;

enum { T_ALLGATHER, T_SUM, T_SUM_DOUBLE, T_KINDS };
static const char *T_NAME[T_KINDS] = {"allgather", "sum", "sum_double"};

typedef struct {
    traffic t[T_KINDS];
    double seconds; /* inside the collectives */
} transport;

static int c_allgather(void *user, const real *send, size_t count, real *recv)
{
    transport *tr = (transport *)user;
    double t0 = MPI_Wtime(), bytes = (double)count * sizeof(real) * (g_size - 1);
    int fail;
    if (count > INT_MAX) return 1;
    fail = MPI_Allgather((void *)send, (int)count, real_type(), recv, (int)count, real_type(),
                         MPI_COMM_WORLD) != MPI_SUCCESS;
    tr->t[T_ALLGATHER].calls += 1;
    tr->t[T_ALLGATHER].sent += bytes;
    tr->t[T_ALLGATHER].recv += bytes;
    tr->seconds += MPI_Wtime() - t0;
    return fail;
}

/* buf := sum over ranks, added in rank order. Reduce-scatter by hand: rank q
   receives every rank's piece q (MPI_Alltoallv), adds them in rank order,
   and an allgather puts the pieces back together. Each rank sends and
   receives 2 (P - 1) / P of the buffer, the volume of a ring allreduce. */
static int det_sum(transport *tr, void *buf, size_t count, int is_double)
{
    MPI_Datatype type = is_double ? MPI_DOUBLE : real_type();
    size_t elem = is_double ? sizeof(double) : sizeof(real);
    int P = g_size, q, *scnt, *sdsp, *rcnt, *rdsp, fail;
    size_t i, lo, hi, mine;
    char *recv, *acc;
    traffic *t = &tr->t[is_double ? T_SUM_DOUBLE : T_SUM];
    t->calls += 1;
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
    /* to the others: their pieces, then this rank's sum P - 1 times;
       from them: this piece P - 1 times, then their sums */
    t->sent += (double)elem * ((double)(count - mine) + (double)mine * (P - 1));
    t->recv += (double)elem * ((double)mine * (P - 1) + (double)(count - mine));
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
    transport *tr = (transport *)user;
    double t0 = MPI_Wtime();
    int fail = det_sum(tr, buf, count, 0);
    tr->seconds += MPI_Wtime() - t0;
    return fail;
}

static int c_sum_double(void *user, double *buf, size_t count)
{
    transport *tr = (transport *)user;
    double t0 = MPI_Wtime();
    int fail = det_sum(tr, buf, count, 1);
    tr->seconds += MPI_Wtime() - t0;
    return fail;
}

/* ------------------------------------------ moving big blocks of reals */

/* rank 0 sends, rank q receives count reals, in pieces an int can count */
#define PIECE ((size_t)1 << 28)
static void send_reals(const real *buf, size_t count, int to)
{
    size_t o;
    for (o = 0; o < count; o += PIECE) {
        size_t c = count - o < PIECE ? count - o : PIECE;
        if (MPI_Send((void *)(buf + o), (int)c, real_type(), to, 7, MPI_COMM_WORLD) != MPI_SUCCESS)
            die("MPI", "send");
    }
}

static void recv_reals(real *buf, size_t count, int from)
{
    size_t o;
    for (o = 0; o < count; o += PIECE) {
        size_t c = count - o < PIECE ? count - o : PIECE;
        if (MPI_Recv(buf + o, (int)c, real_type(), from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            die("MPI", "receive");
    }
}

static void bcast_reals(real *buf, size_t count)
{
    size_t o;
    for (o = 0; o < count; o += PIECE) {
        size_t c = count - o < PIECE ? count - o : PIECE;
        if (MPI_Bcast(buf + o, (int)c, real_type(), 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            die("MPI", "broadcast");
    }
}

static size_t row_of(int q, size_t n) { return (size_t)q * n / (size_t)g_size; }

/* rank 0's whole point (full) -> every rank's x: its rows of U, S, V, the
   step state */
static void scatter_point(const ro_sgns_factors *full, ro_sgns_factors *x)
{
    size_t n = full ? full->n : 0, d = x->d;
    double state[3];
    int q;
    if (g_rank == 0) {
        memcpy(x->S, full->S, d * d * sizeof(real));
        memcpy(x->V, full->V, x->m * d * sizeof(real));
        memcpy(x->U, full->U, x->n * d * sizeof(real));
        state[0] = (double)full->iteration;
        state[1] = full->next_step;
        for (q = 1; q < g_size; ++q) {
            size_t a = row_of(q, n), b = row_of(q + 1, n);
            send_reals(full->U + a * d, (b - a) * d, q);
        }
    } else {
        recv_reals(x->U, x->n * d, 0);
    }
    MPI_Bcast(state, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    x->iteration = (uint64_t)state[0];
    x->next_step = state[1];
    bcast_reals(x->S, d * d);
    bcast_reals(x->V, x->m * d);
}

/* every rank's rows of U -> rank 0's full (S, V and the state from x) */
static void gather_point(const ro_sgns_factors *x, ro_sgns_factors *full, size_t n)
{
    size_t d = x->d;
    int q;
    if (g_rank != 0) {
        send_reals(x->U, x->n * d, 0);
        return;
    }
    memcpy(full->U, x->U, x->n * d * sizeof(real));
    for (q = 1; q < g_size; ++q) {
        size_t a = row_of(q, n), b = row_of(q + 1, n);
        recv_reals(full->U + a * d, (b - a) * d, q);
    }
    memcpy(full->S, x->S, d * d * sizeof(real));
    memcpy(full->V, x->V, x->m * d * sizeof(real));
    full->iteration = x->iteration;
    full->next_step = x->next_step;
}

/* ------------------------------------------------------------- flags */

typedef struct {
    const char *counts, *output, *output_ctx, *init, *init_ctx, *checkpoint, *resume, *factors;
    const char *direction, *svd;
    size_t d, oversample, block, block_rows, block_cols, keep_direction;
    double k, eta, alpha, grow, cds;
    int embed; /* RO_SGNS_EMBED_W, _C or _W_PLUS_C */
    int iters, safeguard, max_halvings, power_iters, binary, threads, quiet, fuse;
    uint64_t seed;
} options;

static const char *USAGE =
    "usage: mpirun -np P ro_sgns_mpi -counts COUNTS [-output VECTORS] [-size 100] [-steps 10]\n"
    "  [-negative 5] [-eta L] [-direction scaled|plain] [-safeguard 0|1] [-max-halvings 8]\n"
    "  [-grow 2] [-block-rows 0] [-block-cols 0] [-keep-direction BYTES] [-fuse 0|1]\n"
    "  [-svd krylov|subspace] [-oversample 0] [-block 0] [-power-iters 5] [-seed 1]\n"
    "  [-init svd|FILE] [-init-contexts FILE] [-eig 0] [-cds 1] [-embed w+c|w|c]\n"
    "  [-checkpoint FILE] [-resume FILE] [-factors OUT.fx] [-output-contexts C] [-binary 0|1]\n"
    "  [-threads N] [-quiet]\n";

static void usage_die(const char *msg, const char *flag)
{
    if (g_rank == 0) fprintf(stderr, "ro_sgns_mpi: %s%s\n%s", msg, flag ? flag : "", USAGE);
    MPI_Finalize();
    exit(1);
}

static double num(const char *name, const char *s, double lo, double hi)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi)) usage_die("a number out of range for -", name);
    return v;
}

static void parse(int argc, char **argv, options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    o->d = 100;
    o->k = 5;
    o->iters = 10;
    o->safeguard = 1;
    o->fuse = 1;
    o->max_halvings = 8;
    o->grow = 2;
    o->alpha = 0; /* -eig 0 -embed w+c: ro-sgns train's defaults (docs/ABLATION.md) */
    o->cds = 1;
    o->embed = RO_SGNS_EMBED_W_PLUS_C;
    o->power_iters = 5;
    o->seed = 1;
    o->binary = -1; /* not given */
    for (i = 1; i < argc; ++i) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(f, "-quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (f[0] != '-' || !v) usage_die("unknown argument or flag without a value: ", f);
        ++i, ++f;
        if (strcmp(f, "counts") == 0) o->counts = v;
        else if (strcmp(f, "output") == 0) o->output = v;
        else if (strcmp(f, "output-contexts") == 0) o->output_ctx = v;
        else if (strcmp(f, "init") == 0) o->init = strcmp(v, "svd") == 0 ? NULL : v;
        else if (strcmp(f, "init-contexts") == 0) o->init_ctx = v;
        else if (strcmp(f, "checkpoint") == 0) o->checkpoint = v;
        else if (strcmp(f, "resume") == 0) o->resume = v;
        else if (strcmp(f, "factors") == 0) o->factors = v;
        else if (strcmp(f, "direction") == 0) o->direction = v;
        else if (strcmp(f, "svd") == 0) o->svd = v;
        else if (strcmp(f, "size") == 0) o->d = (size_t)num(f, v, 1, 100000);
        else if (strcmp(f, "negative") == 0) o->k = num(f, v, 1e-9, 1e9);
        else if (strcmp(f, "steps") == 0) o->iters = (int)num(f, v, 0, 1e6);
        else if (strcmp(f, "iter") == 0) /* ro-sgns train's -iter is SGD's epochs (issue 70) */
            usage_die("-iter: renamed: RO's step cap is -steps (as in ro-sgns train, whose -iter is "
                      "the SGD epochs over a text, which this program never reads)", NULL);
        else if (strcmp(f, "eta") == 0) o->eta = num(f, v, 0, 1e30);
        else if (strcmp(f, "safeguard") == 0) o->safeguard = (int)num(f, v, 0, 1);
        else if (strcmp(f, "fuse") == 0) o->fuse = (int)num(f, v, 0, 1);
        else if (strcmp(f, "max-halvings") == 0) o->max_halvings = (int)num(f, v, 0, 1000);
        else if (strcmp(f, "grow") == 0) o->grow = num(f, v, 1, 1e6);
        else if (strcmp(f, "block-rows") == 0) o->block_rows = (size_t)num(f, v, 0, 1e6);
        else if (strcmp(f, "block-cols") == 0) o->block_cols = (size_t)num(f, v, 0, 1e6);
        else if (strcmp(f, "keep-direction") == 0) /* per rank: its rows x m reals */
            o->keep_direction = (size_t)num(f, v, 0, (double)((size_t)-1 >> 1));
        else if (strcmp(f, "oversample") == 0) o->oversample = (size_t)num(f, v, 0, 1e6);
        else if (strcmp(f, "block") == 0) o->block = (size_t)num(f, v, 0, 1e6);
        else if (strcmp(f, "power-iters") == 0) o->power_iters = (int)num(f, v, 0, 100);
        else if (strcmp(f, "seed") == 0) o->seed = (uint64_t)num(f, v, 0, 1e18);
        else if (strcmp(f, "eig") == 0) o->alpha = num(f, v, -10, 10);
        else if (strcmp(f, "cds") == 0) o->cds = num(f, v, 1e-6, 10);
        else if (strcmp(f, "embed") == 0) {
            if (strcmp(v, "w") == 0) o->embed = RO_SGNS_EMBED_W;
            else if (strcmp(v, "c") == 0) o->embed = RO_SGNS_EMBED_C;
            else if (strcmp(v, "w+c") == 0) o->embed = RO_SGNS_EMBED_W_PLUS_C;
            else usage_die("-embed must be w, c or w+c, not ", v);
        }
        else if (strcmp(f, "binary") == 0) o->binary = (int)num(f, v, 0, 1);
        else if (strcmp(f, "threads") == 0) o->threads = (int)num(f, v, 1, 1024);
        else usage_die("unknown flag -", f);
    }
    if (!o->counts) usage_die("-counts COUNTS is required", NULL);
    if (o->direction && strcmp(o->direction, "scaled") != 0 && strcmp(o->direction, "plain") != 0)
        usage_die("-direction must be scaled or plain, not ", o->direction);
    if (o->svd && strcmp(o->svd, "krylov") != 0 && strcmp(o->svd, "subspace") != 0)
        usage_die("-svd must be krylov or subspace, not ", o->svd);
    if (o->resume && o->init) usage_die("-resume and -init exclude each other", NULL);
}

/* -------------------------------------------------- stages, measured */

enum { ST_LOAD, ST_START, ST_TRAIN, ST_WRITE, STAGES };
static const char *ST_NAME[STAGES] = {"load", "start", "train", "write"};

typedef struct {
    double wall[STAGES], cpu[STAGES], rss_mb[STAGES];
    traffic t[STAGES][T_KINDS];
    double t_wall, t_cpu;
    transport *tr;
} stages;

static double peak_rss_mb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

static void stage_begin(stages *s)
{
    memset(s->tr->t, 0, sizeof s->tr->t);
    s->t_wall = MPI_Wtime();
    s->t_cpu = (double)clock() / CLOCKS_PER_SEC;
}

static void stage_end(stages *s, int st)
{
    s->wall[st] = MPI_Wtime() - s->t_wall;
    s->cpu[st] = (double)clock() / CLOCKS_PER_SEC - s->t_cpu;
    s->rss_mb[st] = peak_rss_mb();
    memcpy(s->t[st], s->tr->t, sizeof s->tr->t);
}

static void report(const stages *s, uint64_t steps, double comm_seconds)
{
    double mine[3 * STAGES], *all = NULL;
    int st, q, k;
    for (st = 0; st < STAGES; ++st) {
        mine[3 * st] = s->wall[st];
        mine[3 * st + 1] = s->cpu[st];
        mine[3 * st + 2] = s->rss_mb[st];
    }
    if (g_rank == 0) {
        all = (double *)malloc((size_t)g_size * 3 * STAGES * sizeof(double));
        if (!all) die("memory", "report");
    }
    MPI_Gather(mine, 3 * STAGES, MPI_DOUBLE, all, 3 * STAGES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (g_rank != 0) return;
    fprintf(stderr, "per rank and stage: wall s / processor s / peak resident MB (after the stage)\n");
    fprintf(stderr, "rank");
    for (st = 0; st < STAGES; ++st) fprintf(stderr, "  %-24s", ST_NAME[st]);
    fputc('\n', stderr);
    for (q = 0; q < g_size; ++q) {
        const double *r = all + (size_t)q * 3 * STAGES;
        fprintf(stderr, "%4d", q);
        for (st = 0; st < STAGES; ++st)
            fprintf(stderr, "  %7.2f %7.2f %8.1f", r[3 * st], r[3 * st + 1], r[3 * st + 2]);
        fputc('\n', stderr);
    }
    fprintf(stderr, "transport on rank 0 (calls, MB sent to / received from other ranks):\n");
    for (st = 0; st < STAGES; ++st) {
        double calls = 0, sent = 0, recv = 0;
        for (k = 0; k < T_KINDS; ++k) {
            calls += s->t[st][k].calls;
            sent += s->t[st][k].sent;
            recv += s->t[st][k].recv;
        }
        if (calls == 0) continue;
        fprintf(stderr, "  %-6s %6.0f calls, %10.3f MB sent, %10.3f MB received", ST_NAME[st], calls,
                sent / 1e6, recv / 1e6);
        for (k = 0; k < T_KINDS; ++k)
            if (s->t[st][k].calls > 0)
                fprintf(stderr, "; %s %.0f x %.3f MB", T_NAME[k], s->t[st][k].calls,
                        s->t[st][k].sent / 1e6 / s->t[st][k].calls);
        fputc('\n', stderr);
        if (st == ST_TRAIN && steps > 0)
            fprintf(stderr, "  per step: %.1f calls, %.3f MB sent, %.3f MB received (%lu steps; "
                            "%.2f s in collectives in all)\n",
                    calls / (double)steps, sent / 1e6 / (double)steps,
                    recv / 1e6 / (double)steps, (unsigned long)steps, comm_seconds);
    }
    free(all);
}

/* ------------------------------------------------------------- progress */

typedef struct {
    const options *o;
    ro_sgns_factors *full; /* rank 0: the whole point, for checkpoints */
    size_t n;
} train_ctx;

static int on_step(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    train_ctx *t = (train_ctx *)user;
    ro_sgns_error err;
    if (g_rank == 0 && !t->o->quiet)
        fprintf(stderr, "iter %3lu  F %.9e  step %.3g%s  |dX| %.4g  %.2f s\n",
                (unsigned long)pr->iteration, pr->objective, pr->step,
                pr->halvings ? " (halved)" : "", pr->step_norm, pr->seconds);
    if (t->o->checkpoint) { /* every rank is here after the same step */
        gather_point(x, t->full, t->n);
        if (g_rank == 0 && ro_sgns_factors_save_path(t->full, t->o->checkpoint, &err) != RO_SGNS_OK)
            fprintf(stderr, "ro_sgns_mpi: checkpoint: %s\n", err.message);
    }
    return 0;
}

/* ------------------------------------------------------------- loading */

/* Rows [r0, r1) of a counts file, with the vocabulary and the marginals:
   a version 2 file is read by seeking, so a rank holds only its rows
   (row i of the counts is then c->row_ptr[i - row_base(c)]); a version 1
   file is read whole. */
static ro_sgns_result load_rows(const char *path, size_t r0, size_t r1, ro_sgns_counts **out,
                                ro_sgns_error *err)
{
    return ro_sgns_counts_load_rows_path(path, r0, r1, out, NULL, err);
}

static size_t row_base(const ro_sgns_counts *c)
{
    return c->row_begin;
}

/* n, the vocabulary size, from the counts file's header (bytes 16-23, a
   little-endian u64: the layout section 1 documents), read by rank 0 and
   sent to all, so each rank knows its rows before it loads them */
static size_t counts_file_words(const char *path)
{
    double n = 0;
    if (g_rank == 0) {
        unsigned char h[24];
        FILE *f = fopen(path, "rb");
        int i;
        if (!f || fread(h, 1, 24, f) != 24 || memcmp(h, "ROSGNSCT", 8) != 0)
            die(path, "not a counts file (or cannot be read)");
        fclose(f);
        for (i = 7; i >= 0; --i) n = n * 256 + h[16 + i];
    }
    MPI_Bcast(&n, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return (size_t)n;
}

/* W0 (or C0) from a vectors file, in the counts' word order; missing words
   get zero rows (rank 0 only) */
static real *vectors_in_order(const char *path, const ro_sgns_counts *c, size_t d, int binary)
{
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    size_t i, row, found = 0, len = strlen(path);
    real *W = (real *)calloc(c->n * d, sizeof(real));
    /* as ro-sgns: -binary when given, else binary for a name ending .bin */
    int bin = binary >= 0 ? binary : len > 4 && strcmp(path + len - 4, ".bin") == 0;
    if (!W) die("memory", "initial vectors");
    if (ro_sgns_vectors_load_path(path, bin ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT, 0, &v, NULL,
                                  &err) != RO_SGNS_OK)
        die(path, err.message);
    if (v->d != d) die(path, "the vectors' dimension is not -size");
    for (i = 0; i < c->n; ++i)
        if (ro_sgns_vectors_find(v, c->vocab.word[i], &row)) {
            memcpy(W + i * d, v->data + row * d, d * sizeof(real));
            ++found;
        }
    if (found == 0) die(path, "no word of the counts is in these vectors");
    ro_sgns_vectors_free(v);
    return W;
}

/* ------------------------------------------------------------- writing */

/* a growing buffer that drops everything up to the first newline (the
   header line of the rank's own part) */
typedef struct {
    char *p;
    size_t len, cap;
    int in_header;
} body_buf;

static int body_write(void *user, const void *data, size_t size)
{
    body_buf *b = (body_buf *)user;
    const char *s = (const char *)data;
    while (b->in_header && size > 0) {
        b->in_header = *s != '\n';
        ++s;
        --size;
    }
    if (size == 0) return 0; /* nothing to keep (and b->p may still be NULL) */
    if (b->len + size > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 20;
        char *p;
        while (cap < b->len + size) cap *= 2;
        p = (char *)realloc(b->p, cap);
        if (!p) return 1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, size);
    b->len += size;
    return 0;
}

/* The word vectors of all ranks into one word2vec file: each rank formats
   its rows, learns its offset (MPI_Exscan of the sizes) and writes them
   there; rank 0 writes the header first. Written to "<path>.tmp" and
   renamed, as the library does. */
static void write_vectors(const char *path, const ro_sgns_factors *x, const ro_sgns_counts *c,
                          size_t r0, double alpha, int embed, int binary)
{
    ro_sgns_vectors *vec = NULL;
    ro_sgns_error err;
    body_buf b;
    char head[64], *tmp;
    long long size, offset = 0;
    size_t d = x->d, o;
    int hlen = 0;
    MPI_File fh;
    real *W = (real *)malloc(x->n * d * sizeof(real)), *C = NULL;
    if (!W) die("memory", "vectors");
    if (embed != RO_SGNS_EMBED_W) { /* this rank's rows of C = V Q Sigma^alpha (V is whole) */
        C = (real *)malloc(x->m * d * sizeof(real));
        if (!C) die("memory", "context vectors");
        if (ro_sgns_factors_embeddings(x, alpha, RO_SGNS_EMBED_C, C, d, NULL, &err) != RO_SGNS_OK)
            die("vectors", err.message);
        if (embed == RO_SGNS_EMBED_C) memset(W, 0, x->n * d * sizeof(real));
    }
    if ((embed != RO_SGNS_EMBED_C &&
         ro_sgns_factors_embeddings(x, alpha, RO_SGNS_EMBED_W, W, d, NULL, &err) != RO_SGNS_OK))
        die("vectors", err.message);
    if (C) {
        size_t i;
        for (i = 0; i < x->n * d; ++i) W[i] += C[r0 * d + i];
        free(C);
    }
    if (ro_sgns_vectors_create(x->n, d, (const char *const *)c->vocab.word + r0, W, d, &vec, NULL,
                               &err) != RO_SGNS_OK)
        die("vectors", err.message);
    free(W);
    memset(&b, 0, sizeof b);
    b.in_header = 1;
    if (ro_sgns_vectors_save_callback(vec, binary ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT,
                                      body_write, &b, NULL, &err) != RO_SGNS_OK)
        die("vectors", err.message);
    ro_sgns_vectors_free(vec);
    if (g_rank == 0) hlen = snprintf(head, sizeof head, "%lu %lu\n", (unsigned long)c->n, (unsigned long)d);
    size = (long long)b.len + hlen;
    MPI_Exscan(&size, &offset, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) offset = 0;
    tmp = (char *)malloc(strlen(path) + 5);
    if (!tmp) die("memory", "file name");
    sprintf(tmp, "%s.tmp", path);
    if (MPI_File_open(MPI_COMM_WORLD, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        die(tmp, "cannot open for writing");
    MPI_File_set_size(fh, 0);
    if (hlen > 0 &&
        MPI_File_write_at(fh, 0, head, hlen, MPI_CHAR, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        die(tmp, "write failed");
    for (o = 0; o < b.len; o += PIECE) {
        size_t n = b.len - o < PIECE ? b.len - o : PIECE;
        if (MPI_File_write_at(fh, (MPI_Offset)(offset + hlen + (long long)o), b.p + o, (int)n,
                              MPI_CHAR, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            die(tmp, "write failed");
    }
    if (MPI_File_close(&fh) != MPI_SUCCESS) die(tmp, "close failed");
    free(b.p);
    if (g_rank == 0 && rename(tmp, path) != 0) die(path, "cannot rename the .tmp file over it");
    free(tmp);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    options o;
    stages st;
    transport tr;
    train_ctx tc;
    ro_sgns_counts *c = NULL;
    ro_sgns_problem *shard = NULL;
    ro_sgns_factors *x = NULL, *full = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_comm comm;
    ro_sgns_error err;
    ro_sgns_result res;
    size_t d, n, r0, r1, rows, i;
    double *marg, wsum_all = 0;
    uint64_t e, it0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    parse(argc, argv, &o);
#ifdef _OPENMP
    if (o.threads > 0) omp_set_num_threads(o.threads);
#endif
    d = o.d;
    memset(&tr, 0, sizeof tr);
    memset(&st, 0, sizeof st);
    st.tr = &tr;
    {
        ro_sgns_comm mc = {0, 0, c_allgather, c_sum, c_sum_double, NULL};
        comm = mc;
    }
    comm.rank = g_rank;
    comm.size = g_size;
    comm.user = &tr;

    /* 1. this rank's rows of the counts; #(c) and |D| summed over the ranks */
    MPI_Barrier(MPI_COMM_WORLD);
    stage_begin(&st);
    n = counts_file_words(o.counts);
    r0 = row_of(g_rank, n);
    r1 = row_of(g_rank + 1, n);
    rows = r1 - r0;
    if (load_rows(o.counts, r0, r1, &c, &err) != RO_SGNS_OK) die(o.counts, err.message);
    if (c->n != n) die(o.counts, "the file changed while it was read");
    if (!o.quiet) /* what this rank holds of the counts (tests/test_mpi.sh reads it) */
        fprintf(stderr, "rank %d: rows %lu..%lu; counts held: rows %lu..%lu, %llu pairs\n", g_rank,
                (unsigned long)r0, (unsigned long)r1, (unsigned long)c->row_begin,
                (unsigned long)c->row_end,
                (unsigned long long)c->row_ptr[c->row_end - c->row_begin]);
    if (n / (size_t)g_size < d) die("shards", "every rank needs at least d rows: use fewer ranks");
    marg = (double *)calloc(n + 1, sizeof(double));
    if (!marg) die("memory", "column sums");
    for (i = r0; i < r1; ++i) {
        double wsum = 0;
        for (e = c->row_ptr[i - row_base(c)]; e < c->row_ptr[i - row_base(c) + 1]; ++e) {
            wsum += c->val[e];
            marg[c->col[e]] += c->val[e];
        }
        wsum_all += wsum;
    }
    marg[n] = wsum_all;
    if (c_sum_double(&tr, marg, n + 1) != 0) die("MPI", "sum of the marginals");
    {
        const ro_sgns_shard_spec sp = {n,    n,       r0,     r1, c->row_ptr + (r0 - row_base(c)),
                                       c->col, c->val, marg, marg[n], o.k, o.cds};
        if (ro_sgns_problem_create_shard(&sp, &shard, NULL, &err) != RO_SGNS_OK)
            die("shard", err.message);
    }
    free(marg);
    stage_end(&st, ST_LOAD);

    /* 2. the start: the SVD-SPPMI over the shards, or rank 0's file */
    stage_begin(&st);
    if (o.resume || o.init) {
        if (ro_sgns_factors_create(rows, n, d, &x, NULL, &err) != RO_SGNS_OK) die("factors", err.message);
        if (g_rank == 0 && o.resume) {
            if (ro_sgns_factors_load_path(o.resume, &full, NULL, &err) != RO_SGNS_OK)
                die(o.resume, err.message);
            if (full->n != n || full->m != n || full->d != d)
                die(o.resume, "the checkpoint does not fit the counts and -size");
        } else if (g_rank == 0) {
            real *W0 = vectors_in_order(o.init, c, d, o.binary);
            real *C0 = o.init_ctx ? vectors_in_order(o.init_ctx, c, d, o.binary) : W0;
            if (ro_sgns_factors_from_wc(n, n, d, W0, C0, &full, NULL, &err) != RO_SGNS_OK)
                die("-init", err.message);
            if (C0 != W0) free(C0);
            free(W0);
        }
        scatter_point(full, x);
    } else {
        ro_sgns_tsvd_config sc = ro_sgns_tsvd_config_default();
        ro_sgns_csr *A = NULL;
        sc.method = o.svd && strcmp(o.svd, "subspace") == 0 ? RO_SGNS_TSVD_SUBSPACE
                                                             : RO_SGNS_TSVD_KRYLOV;
        sc.oversample = o.oversample;
        sc.block = o.block;
        sc.power_iters = o.power_iters;
        sc.seed = o.seed;
        if (ro_sgns_sppmi_rows(c, r0, r1, o.k, o.cds, &A, NULL, &err) != RO_SGNS_OK)
            die("sppmi", err.message);
        if (ro_sgns_tsvd_shard(A, &comm, d, &sc, &x, NULL, &err) != RO_SGNS_OK)
            die("svd start", err.message);
        ro_sgns_csr_free(A);
    }
    stage_end(&st, ST_START);

    /* 3. the steps, together */
    if ((o.checkpoint || o.factors) && g_rank == 0 && !full &&
        ro_sgns_factors_create(n, n, d, &full, NULL, &err) != RO_SGNS_OK)
        die("factors", err.message);
    it0 = x->iteration;
    tc.o = &o;
    tc.full = full;
    tc.n = n;
    cfg.iterations = o.iters > (int)it0 ? o.iters - (int)it0 : 0;
    cfg.direction = o.direction && strcmp(o.direction, "plain") == 0 ? RO_SGNS_DIRECTION_PLAIN
                                                                     : RO_SGNS_DIRECTION_SCALED;
    cfg.step = o.eta > 0 ? o.eta : (cfg.direction == RO_SGNS_DIRECTION_PLAIN ? 5e-5 : 1.0);
    cfg.safeguard = o.safeguard;
    cfg.max_halvings = o.max_halvings;
    cfg.keep_direction_bytes = o.keep_direction;
    cfg.fuse = o.fuse;
    cfg.grow = o.grow;
    cfg.block_rows = o.block_rows;
    cfg.block_cols = o.block_cols;
    cfg.callback = on_step;
    cfg.user = &tc;
    MPI_Barrier(MPI_COMM_WORLD);
    tr.seconds = 0;
    stage_begin(&st);
    if (cfg.iterations > 0) {
        res = ro_sgns_ro_train_shard(shard, &comm, x, &cfg, &err);
        if (res != RO_SGNS_OK && res != RO_SGNS_STOPPED) die("train", err.message);
    }
    stage_end(&st, ST_TRAIN);

    /* 4. the outputs */
    stage_begin(&st);
    if (o.factors) {
        gather_point(x, full, n);
        if (g_rank == 0 && ro_sgns_factors_save_path(full, o.factors, &err) != RO_SGNS_OK)
            die(o.factors, err.message);
    }
    if (o.output) write_vectors(o.output, x, c, r0, o.alpha, o.embed, o.binary == 1);
    if (o.output_ctx && g_rank == 0) { /* V is whole on every rank */
        ro_sgns_vectors *vec = NULL;
        real *C = (real *)malloc(n * d * sizeof(real));
        if (!C) die("memory", "context vectors");
        if (ro_sgns_factors_embeddings(x, o.alpha, RO_SGNS_EMBED_C, C, d, NULL, &err) != RO_SGNS_OK ||
            ro_sgns_vectors_create(n, d, (const char *const *)c->vocab.word, C, d, &vec, NULL,
                                   &err) != RO_SGNS_OK ||
            ro_sgns_vectors_save_path(vec, o.binary == 1 ? RO_SGNS_W2V_BINARY : RO_SGNS_W2V_TEXT,
                                      o.output_ctx, NULL, &err) != RO_SGNS_OK)
            die(o.output_ctx, err.message);
        ro_sgns_vectors_free(vec);
        free(C);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    stage_end(&st, ST_WRITE);

    if (!o.quiet) {
        if (g_rank == 0)
            fprintf(stderr, "ranks %d, n = %lu, d = %lu, %lu steps (to iteration %lu)\n", g_size,
                    (unsigned long)n, (unsigned long)d, (unsigned long)(x->iteration - it0),
                    (unsigned long)x->iteration);
        report(&st, x->iteration - it0, tr.seconds);
    }
    ro_sgns_factors_free(x);
    ro_sgns_factors_free(full);
    ro_sgns_problem_free(shard);
    ro_sgns_counts_free(c);
    MPI_Finalize();
    return 0;
}
