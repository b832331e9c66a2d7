/* mpi_check.c - the checker of tests/test_mpi.sh (no MPI here):
       mpi_check count CORPUS OUT.counts
           the counts the test trains on (window 2, min_count 30)
       mpi_check pairs COUNTS
           the number of pairs (nonzeros) in a counts file
       mpi_check diff A.fx B.fx
           relative differences of two factor files (for docs/SCALING.md):
           of X = U S V^T (which does not depend on the basis chosen within
           nearly equal singular values), and of U, S and V themselves
       mpi_check compare COUNTS d K P1:FILE1 [P2:FILE2 ...]
           the single-process library calls (SVD-SPPMI start, K default
           RO-SGNS steps, k = 5) against factors written by
           examples/ro_sgns_mpi.c with P ranks (the start computed over the
           P ranks too): every P within 1e-5 (float; 1e-12 double)
           relative, P = 1 bitwise; with OpenMP also the same P shards run
           as threads (tests/shard_comm.h), start and steps, which must
           match the MPI run bit for bit.
       mpi_check vectors COUNTS FACTORS OUT [binary|text [w|c|w+c EIG]]
           the vectors of a factors file as one process writes them
           (ro_sgns_vectors_save_path), word2vec text or binary: W + C at
           eig 0 (the defaults of ro-sgns train and the MPI example) or
           the form and Sigma exponent given
   Prints "mpi: N passed, N failed" like the other test programs. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"
#include "shard_comm.h"

#include <string.h>

typedef ro_sgns_real real;
static const int IS_D = sizeof(real) == sizeof(double);

/* <X_a, X_b> = tr(S_a^T (U_a^T U_b) S_b (V_b^T V_a)) for X = U S V^T,
   summed in double, without forming X */
static double x_dot(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    size_t d = a->d, i, j, k;
    double *G = (double *)calloc(4 * d * d, sizeof(double)), *H = G + d * d, *T = H + d * d,
           *T2 = T + d * d, t = 0;
    if (!G) return 0;
    for (k = 0; k < a->n; ++k) /* G = U_a^T U_b */
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) G[i * d + j] += (double)a->U[k * d + i] * b->U[k * d + j];
    for (k = 0; k < a->m; ++k) /* H = V_b^T V_a */
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) H[i * d + j] += (double)b->V[k * d + i] * a->V[k * d + j];
    for (i = 0; i < d; ++i) /* T = S_a^T G */
        for (j = 0; j < d; ++j)
            for (k = 0; k < d; ++k) T[i * d + j] += (double)a->S[k * d + i] * G[k * d + j];
    for (i = 0; i < d; ++i) /* T2 = T S_b */
        for (j = 0; j < d; ++j)
            for (k = 0; k < d; ++k) T2[i * d + j] += T[i * d + k] * b->S[k * d + j];
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) t += T2[i * d + j] * H[j * d + i];
    free(G);
    return t;
}

/* |X_a - X_b|_F / |X_b|_F from <X_a, X_a> + <X_b, X_b> - 2 <X_a, X_b>: unlike
   U, S and V alone, X does not depend on the basis chosen within (nearly)
   equal singular values */
static double x_rel_diff(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    double aa = x_dot(a, a), bb = x_dot(b, b), ab = x_dot(a, b), d2 = aa + bb - 2 * ab;
    return sqrt((d2 > 0 ? d2 : 0) / (bb > 0 ? bb : 1));
}

static int same_bits(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    return a->n == b->n && a->m == b->m && a->d == b->d && a->iteration == b->iteration &&
           a->next_step == b->next_step &&
           memcmp(a->U, b->U, a->n * a->d * sizeof(real)) == 0 &&
           memcmp(a->S, b->S, a->d * a->d * sizeof(real)) == 0 &&
           memcmp(a->V, b->V, a->m * a->d * sizeof(real)) == 0;
}

#ifdef _OPENMP
/* the P-shard run in this process (threads), gathered into one point: the
   start over the shards (ro_sgns_sppmi_rows, ro_sgns_tsvd_shard), then
   the steps, as examples/ro_sgns_mpi.c does with P ranks */
static ro_sgns_factors *threaded(const ro_sgns_counts *c, const ro_sgns_problem *p, double k,
                                 size_t d, int P, const ro_sgns_ro_config *cfg)
{
    ro_sgns_csr *rows[SHM_MAX];
    ro_sgns_factors *xs[SHM_MAX], *out = NULL;
    ro_sgns_result res[SHM_MAX];
    size_t n = c->n, q, ds[SHM_MAX];
    int ok = 1;
    for (q = 0; q < (size_t)P; ++q) {
        size_t r0 = q * n / (size_t)P, r1 = (q + 1) * n / (size_t)P;
        ds[q] = d;
        xs[q] = NULL;
        rows[q] = NULL;
        ok &= ro_sgns_sppmi_rows(c, r0, r1, k, 1.0, &rows[q], NULL, NULL) == RO_SGNS_OK;
    }
    if (ok) ok = shm_tsvd(rows, P, ds, NULL, NULL, xs, res, NULL) == 0;
    for (q = 0; ok && q < (size_t)P; ++q) ok &= res[q] == RO_SGNS_OK;
    if (ok) ok = shm_train(p, n, P, xs, cfg, res) == 0;
    for (q = 0; ok && q < (size_t)P; ++q) ok &= res[q] == RO_SGNS_OK;
    if (ok) ok = ro_sgns_factors_create(n, c->n, d, &out, NULL, NULL) == RO_SGNS_OK;
    if (ok) {
        for (q = 0; q < (size_t)P; ++q)
            memcpy(out->U + q * n / (size_t)P * d, xs[q]->U, xs[q]->n * d * sizeof(real));
        memcpy(out->S, xs[0]->S, d * d * sizeof(real));
        memcpy(out->V, xs[0]->V, out->m * d * sizeof(real));
        out->iteration = xs[0]->iteration;
        out->next_step = xs[0]->next_step;
    }
    for (q = 0; q < (size_t)P; ++q) {
        ro_sgns_factors_free(xs[q]);
        ro_sgns_csr_free(rows[q]);
    }
    return out;
}
#endif

int main(int argc, char **argv)
{
    ro_sgns_error err;
    if (argc == 4 && strcmp(argv[1], "count") == 0) {
        ro_sgns_count_config cc = ro_sgns_count_config_default();
        ro_sgns_counts *c = NULL;
        cc.window = 2;
        cc.min_count = 30;
        CHECKF(ro_sgns_count_path(argv[2], &cc, &c, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        if (c) CHECKF(ro_sgns_counts_save_path(c, argv[3], &err) == RO_SGNS_OK, "%s", err.message);
        ro_sgns_counts_free(c);
    } else if (argc == 3 && strcmp(argv[1], "pairs") == 0) { /* the nonzeros of a counts file */
        ro_sgns_counts *c = NULL;
        if (ro_sgns_counts_load_path(argv[2], &c, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "mpi_check: %s\n", err.message);
            return 1;
        }
        printf("%llu\n", (unsigned long long)c->row_ptr[c->n]);
        ro_sgns_counts_free(c);
        return 0;
    } else if (argc == 4 && strcmp(argv[1], "diff") == 0) {
        ro_sgns_factors *a = NULL, *b = NULL;
        CHECKF(ro_sgns_factors_load_path(argv[2], &a, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        CHECKF(ro_sgns_factors_load_path(argv[3], &b, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        if (a && b) {
            CHECK(a->n == b->n && a->m == b->m && a->d == b->d);
            if (a->n == b->n && a->m == b->m && a->d == b->d)
                printf("|dX|/|X| %.2e  |dU|/|U| %.2e  |dS|/|S| %.2e  |dV|/|V| %.2e  (%s)\n",
                       x_rel_diff(a, b), tu_rel_diff(a->n * a->d, a->U, b->U),
                       tu_rel_diff(a->d * a->d, a->S, b->S), tu_rel_diff(a->m * a->d, a->V, b->V),
                       same_bits(a, b) ? "bitwise equal" : "not bitwise");
        }
        ro_sgns_factors_free(a);
        ro_sgns_factors_free(b);
    } else if (argc >= 6 && strcmp(argv[1], "compare") == 0) {
        size_t d = (size_t)atol(argv[3]);
        double tol = IS_D ? 1e-12 : 1e-5, k = 5;
        ro_sgns_counts *c = NULL;
        ro_sgns_csr *A = NULL;
        ro_sgns_problem *p = NULL;
        ro_sgns_factors *ref = NULL;
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        int a;
        cfg.iterations = atoi(argv[4]);
        CHECKF(ro_sgns_counts_load_path(argv[2], &c, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        if (!c) return tu_finish("mpi");
        /* the single-process call, as examples/ro_sgns_mpi.c's defaults */
        CHECK(ro_sgns_sppmi(c, k, 1.0, &A, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_tsvd(A, d, NULL, &ref, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_problem_create(c, k, 1.0, &p, NULL, &err) == RO_SGNS_OK);
        if (ref) CHECKF(ro_sgns_ro_train(p, ref, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
        for (a = 5; a < argc && ref; ++a) {
            int P = atoi(argv[a]);
            const char *path = strchr(argv[a], ':');
            ro_sgns_factors *got = NULL;
            double dU, dS, dV, dX;
            CHECKF(P >= 1 && path, "argument %s is not P:FILE", argv[a]);
            if (!(P >= 1 && path)) continue;
            CHECKF(ro_sgns_factors_load_path(path + 1, &got, NULL, &err) == RO_SGNS_OK, "%s",
                   err.message);
            if (!got) continue;
            CHECK(got->n == ref->n && got->m == ref->m && got->d == ref->d);
            if (got->n != ref->n || got->m != ref->m || got->d != ref->d) {
                ro_sgns_factors_free(got);
                continue;
            }
            CHECK(got->iteration == ref->iteration && got->iteration == (uint64_t)cfg.iterations);
            dU = tu_rel_diff(ref->n * d, got->U, ref->U);
            dS = tu_rel_diff(d * d, got->S, ref->S);
            dV = tu_rel_diff(ref->m * d, got->V, ref->V);
            dX = x_rel_diff(got, ref);
            printf("np %d vs one process: |dX|/|X| %.2e  |dU|/|U| %.2e  |dS|/|S| %.2e  "
                   "|dV|/|V| %.2e  (%s)\n",
                   P, dX, dU, dS, dV, same_bits(got, ref) ? "bitwise equal" : "not bitwise");
            CHECKF(dX <= tol && dU <= tol && dS <= tol && dV <= tol,
                   "np %d: relative differences above %.0e", P, tol);
            if (P == 1) CHECKF(same_bits(got, ref), "np 1 is not bitwise ro_sgns_ro_train");
#ifdef _OPENMP
            {
                ro_sgns_factors *thr = threaded(c, p, k, d, P, &cfg);
                CHECKF(thr != NULL, "the %d-shard run in threads failed", P);
                if (thr) {
                    printf("np %d vs %d shards as threads: %s\n", P, P,
                           same_bits(got, thr) ? "bitwise equal" : "DIFFERENT");
                    CHECK(same_bits(got, thr));
                }
                ro_sgns_factors_free(thr);
            }
#endif
            ro_sgns_factors_free(got);
        }
        ro_sgns_factors_free(ref);
        ro_sgns_problem_free(p);
        ro_sgns_csr_free(A);
        ro_sgns_counts_free(c);
    } else if ((argc == 5 || argc == 6 || argc == 8) && strcmp(argv[1], "vectors") == 0) {
        /* the form ro-sgns train and the MPI example write by default, W + C at
           eig 0, or the one named by the last two arguments */
        ro_sgns_embedding_kind embed = RO_SGNS_EMBED_W_PLUS_C;
        double eig = argc == 8 ? atof(argv[7]) : 0.0;
        ro_sgns_counts *c = NULL;
        ro_sgns_factors *f = NULL;
        ro_sgns_vectors *v = NULL;
        real *W = NULL;
        CHECKF(ro_sgns_counts_load_path(argv[2], &c, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        CHECKF(ro_sgns_factors_load_path(argv[3], &f, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        if (argc == 8) {
            embed = strcmp(argv[6], "w") == 0 ? RO_SGNS_EMBED_W
                    : strcmp(argv[6], "c") == 0 ? RO_SGNS_EMBED_C
                                                : RO_SGNS_EMBED_W_PLUS_C;
            CHECKF(strcmp(argv[6], "w") == 0 || strcmp(argv[6], "c") == 0 ||
                       strcmp(argv[6], "w+c") == 0,
                   "embed %s", argv[6]);
        }
        if (c && f) W = (real *)malloc(f->n * f->d * sizeof(real));
        if (W) {
            CHECK(ro_sgns_factors_embeddings(f, eig, embed, W, f->d, NULL, &err) ==
                  RO_SGNS_OK);
            CHECK(ro_sgns_vectors_create(f->n, f->d, (const char *const *)c->vocab.word, W, f->d,
                                         &v, NULL, &err) == RO_SGNS_OK);
            CHECKF(v && ro_sgns_vectors_save_path(v, argc >= 6 && strcmp(argv[5], "binary") == 0
                                                         ? RO_SGNS_W2V_BINARY
                                                         : RO_SGNS_W2V_TEXT,
                                                 argv[4], NULL, &err) == RO_SGNS_OK,
                   "%s", err.message);
            ro_sgns_vectors_free(v);
        }
        free(W);
        ro_sgns_factors_free(f);
        ro_sgns_counts_free(c);
    } else {
        fprintf(stderr, "usage: mpi_check count CORPUS OUT.counts\n"
                        "       mpi_check pairs COUNTS\n"
                        "       mpi_check diff A.fx B.fx\n"
                        "       mpi_check compare COUNTS d K P:FACTORS ...\n"
                        "       mpi_check vectors COUNTS FACTORS OUT [binary|text [w|c|w+c EIG]]\n");
        CHECK(0);
    }
    return tu_finish("mpi");
}
