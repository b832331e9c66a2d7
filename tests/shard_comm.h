/* shard_comm.h - an in-process transport for ro_sgns_ro_train_shard and
   ro_sgns_tsvd_shard (section 6): P shards run as the P threads of one
   OpenMP parallel region and exchange through shared memory. Sums go in shard order, element by
   element (shard 0 + shard 1 + ...), as examples/ro_sgns_mpi.c does, so a
   run here gives the bits of an MPI run with P ranks. Needs OpenMP (the
   callbacks synchronize with orphaned barriers); include after ro_sgns.h. */
#ifndef RO_SGNS_SHARD_COMM_H
#define RO_SGNS_SHARD_COMM_H
#ifdef _OPENMP
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define SHM_MAX 16
#if defined(__GNUC__) || defined(__clang__)
#define SHM_UNUSED __attribute__((unused)) /* a test may use one runner only */
#else
#define SHM_UNUSED
#endif

typedef struct {
    int size;
    const void *slot[SHM_MAX]; /* each shard's buffer, posted before a barrier */
} shm_hub;

typedef struct {
    shm_hub *hub;
    int rank;
} shm_user;

static int shm_allgather(void *user, const ro_sgns_real *send, size_t count, ro_sgns_real *recv)
{
    shm_user *u = (shm_user *)user;
    int q;
    u->hub->slot[u->rank] = send;
#pragma omp barrier
    for (q = 0; q < u->hub->size; ++q)
        memcpy(recv + (size_t)q * count, u->hub->slot[q], count * sizeof *recv);
#pragma omp barrier
    return 0;
}

/* every shard adds all buffers in shard order into its own copy, then (after
   everyone has read) overwrites its buffer */
#define SHM_SUM(NAME, T)                                                        \
    static int NAME(void *user, T *buf, size_t count)                           \
    {                                                                           \
        shm_user *u = (shm_user *)user;                                         \
        T *acc = (T *)malloc((count ? count : 1) * sizeof(T));                  \
        size_t i;                                                               \
        int q, bad = acc == NULL;                                               \
        u->hub->slot[u->rank] = buf;                                            \
        _Pragma("omp barrier")                                                  \
        if (acc) {                                                              \
            for (i = 0; i < count; ++i) acc[i] = ((const T *)u->hub->slot[0])[i]; \
            for (q = 1; q < u->hub->size; ++q)                                  \
                for (i = 0; i < count; ++i) acc[i] += ((const T *)u->hub->slot[q])[i]; \
        }                                                                       \
        _Pragma("omp barrier")                                                  \
        if (acc) memcpy(buf, acc, count * sizeof(T));                           \
        free(acc);                                                              \
        return bad;                                                             \
    }
SHM_SUM(shm_sum_real, ro_sgns_real)
SHM_SUM(shm_sum_double, double)

/* body(c, r, ctx) on P shards at once, shard r a thread with its comm c.
   Returns 0, or -1 when OpenMP did not give P threads (no body ran). */
typedef void (*shm_body)(const ro_sgns_comm *c, int r, void *ctx);
static SHM_UNUSED int shm_run(int P, shm_body body, void *ctx)
{
    shm_hub hub;
    int ok = 1, dyn = omp_get_dynamic();
    if (P < 1 || P > SHM_MAX) return -1;
    memset(&hub, 0, sizeof hub);
    hub.size = P;
    omp_set_dynamic(0);
#pragma omp parallel num_threads(P)
    {
        if (omp_get_num_threads() != P) { /* the whole team takes this path */
#pragma omp single
            ok = 0;
        } else {
            shm_user u;
            ro_sgns_comm c;
            u.hub = &hub;
            u.rank = omp_get_thread_num();
            c.rank = u.rank;
            c.size = P;
            c.allgather = shm_allgather;
            c.sum = shm_sum_real;
            c.sum_double = shm_sum_double;
            c.user = &u;
            body(&c, u.rank, ctx);
        }
    }
    omp_set_dynamic(dyn);
    return ok ? 0 : -1;
}

typedef struct {
    ro_sgns_csr *const *rows;
    const size_t *ds;
    const ro_sgns_tsvd_config *cfg;
    const ro_sgns_allocator *alloc;
    ro_sgns_factors **out;
    ro_sgns_result *res;
    ro_sgns_error *errs;
} shm_tsvd_args;

static void shm_tsvd_body(const ro_sgns_comm *c, int r, void *ctx)
{
    shm_tsvd_args *a = (shm_tsvd_args *)ctx;
    a->res[r] = ro_sgns_tsvd_shard(a->rows[r], c, a->ds[r], a->cfg, &a->out[r], a->alloc,
                                   a->errs ? &a->errs[r] : NULL);
}

/* ro_sgns_tsvd_shard on P shards: rows[q] is shard q's block of rows (NULL
   allowed: the error path), ds[q] the d it asks for, alloc every shard's
   allocator; out[q] (as the caller set it unless the call succeeds),
   res[q] and errs[q] (errs may be NULL) its result. Returns 0, or -1 when
   OpenMP did not give P threads. */
static SHM_UNUSED int shm_tsvd(ro_sgns_csr *const *rows, int P, const size_t *ds,
                               const ro_sgns_tsvd_config *cfg, const ro_sgns_allocator *alloc,
                               ro_sgns_factors **out, ro_sgns_result *res, ro_sgns_error *errs)
{
    shm_tsvd_args a;
    a.rows = rows;
    a.ds = ds;
    a.cfg = cfg;
    a.alloc = alloc;
    a.out = out;
    a.res = res;
    a.errs = errs;
    return shm_run(P, shm_tsvd_body, &a);
}

typedef struct {
    ro_sgns_problem **sh;
    ro_sgns_factors **xs;
    const ro_sgns_ro_config *cfg;
    ro_sgns_result *res;
} shm_train_args;

static void shm_train_body(const ro_sgns_comm *c, int r, void *ctx)
{
    shm_train_args *a = (shm_train_args *)ctx;
    a->res[r] = ro_sgns_ro_train_shard(a->sh[r], c, a->xs[r], a->cfg, NULL);
}

/* ro_sgns_ro_train_shard on P shards of the problem, rows [q n / P,
   (q + 1) n / P) for shard q: xs[q] is shard q's point (its rows of U, all
   of S and V), res[q] its result. Returns 0, or -1 when the shards could
   not be made or OpenMP did not give P threads. */
static SHM_UNUSED int shm_train(const ro_sgns_problem *p, size_t n, int P, ro_sgns_factors **xs,
                                const ro_sgns_ro_config *cfg, ro_sgns_result *res)
{
    ro_sgns_problem *sh[SHM_MAX];
    shm_train_args a;
    int q, made = 0, ok = -1;
    if (P < 1 || P > SHM_MAX) return -1;
    for (q = 0; q < P; ++q, ++made)
        if (ro_sgns_problem_create_rows(p, (size_t)q * n / (size_t)P, (size_t)(q + 1) * n / (size_t)P,
                                        &sh[q], NULL, NULL) != RO_SGNS_OK)
            break;
    a.sh = sh;
    a.xs = xs;
    a.cfg = cfg;
    a.res = res;
    if (made == P) ok = shm_run(P, shm_train_body, &a);
    for (q = 0; q < made; ++q) ro_sgns_problem_free(sh[q]);
    return ok;
}

#endif /* _OPENMP */
#endif
