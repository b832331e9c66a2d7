/* test_step_alone.c - the step-alone configuration: ro_sgns.h with
   RO_SGNS_STEP_ONLY (no counting, files, formats, evaluation, SGD, shards,
   stdio, fold-in, metric direction or block Krylov SVD), as a
   microcontroller or a WASI runtime would build it. The caller fills a
   count matrix in memory (CSR), and everything from there to embeddings
   must work and agree with the plain references of Part I:
       counts (CSR) -> SPPMI -> start (Part I's dense SVD) -> RO steps -> W.
   What the switches leave out and a config can still ask for (the metric
   direction) must be refused with RO_SGNS_ERR_UNSUPPORTED.
   The SPPMI here is the test's own, from its definition. Built in C99 and
   as C++, float and double (make test). */
#define RO_SGNS_STEP_ONLY
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"
#include "sppmi_csr.h"

#if !defined(RO_SGNS_NO_COUNT) || !defined(RO_SGNS_NO_FILES) || !defined(RO_SGNS_NO_EVAL) || \
    !defined(RO_SGNS_NO_SGD) || !defined(RO_SGNS_NO_SHARDS) || !defined(RO_SGNS_NO_STDIO) || \
    !defined(RO_SGNS_NO_FOLD) || !defined(RO_SGNS_NO_METRIC) || !defined(RO_SGNS_NO_TSVD)
#error "RO_SGNS_STEP_ONLY must turn on every RO_SGNS_NO_* switch"
#endif

#define IS_D (sizeof(ro_sgns_real) == sizeof(double))
#define N 60

/* Symmetric counts of a fixed-window corpus stand-in: word i and j meet
   more often when close in index and when frequent (low index). */
static void make_counts(uint64_t *row_ptr, uint32_t *col, float *val)
{
    size_t i, j;
    uint64_t e = 0;
    ro_sgns_rng rng;
    ro_sgns_rng_seed(&rng, 7, 0);
    row_ptr[0] = 0;
    for (i = 0; i < N; ++i) {
        for (j = 0; j < N; ++j) {
            size_t lo = i < j ? i : j, hi = i < j ? j : i;
            /* the same draw for (i, j) and (j, i): seeded by the pair */
            ro_sgns_rng r2;
            double u;
            ro_sgns_rng_seed(&r2, 11, (uint64_t)(lo * N + hi));
            u = ro_sgns_rng_uniform(&r2);
            if (i == j || u > 0.55) continue;
            col[e] = (uint32_t)j;
            val[e] = (float)(1 + RO_SGNS_FLOOR(400.0 / (double)(1 + lo + hi) * u));
            ++e;
        }
        row_ptr[i + 1] = e;
    }
    (void)rng;
}

/* X = U S V^T, dense, in double */
static void dense_x(const ro_sgns_factors *x, double *X)
{
    size_t w, c, j, t, d = x->d;
    for (w = 0; w < x->n; ++w)
        for (c = 0; c < x->m; ++c) {
            double s = 0;
            for (j = 0; j < d; ++j) {
                double us = 0;
                for (t = 0; t < d; ++t) us += (double)x->U[w * d + t] * x->S[t * d + j];
                s += us * x->V[c * d + j];
            }
            X[w * x->m + c] = s;
        }
}

/* |A v_j - s_j u_j| and |A^T u_j - s_j v_j| (in double) within a stated
   share of s_1 for every j, s_j descending and >= 0. */
static void check_singular_pairs(const ro_sgns_csr *A, const ro_sgns_factors *x)
{
    static double Av[N], Atu[N];
    const double tol = (IS_D ? 1e-10 : 1e-4) * (double)x->S[0];
    size_t i, j, d = x->d;
    uint64_t e;
    for (j = 0; j < d; ++j) {
        const double s = (double)x->S[j * d + j];
        double r1 = 0, r2 = 0;
        CHECKF(s >= 0 && (j == 0 || s <= (double)x->S[(j - 1) * d + j - 1]), "s_%lu = %g",
               (unsigned long)j, s);
        memset(Atu, 0, sizeof Atu);
        for (i = 0; i < A->rows; ++i) {
            Av[i] = 0;
            for (e = A->row_ptr[i]; e < A->row_ptr[i + 1]; ++e) {
                Av[i] += (double)A->val[e] * x->V[A->col[e] * d + j];
                Atu[A->col[e]] += (double)A->val[e] * x->U[i * d + j];
            }
            Av[i] -= s * x->U[i * d + j];
            r1 += Av[i] * Av[i];
        }
        for (i = 0; i < A->cols; ++i) {
            const double t = Atu[i] - s * x->V[i * d + j];
            r2 += t * t;
        }
        CHECKF(sqrt(r1) <= tol && sqrt(r2) <= tol, "pair %lu: residuals %g, %g (s_1 %g)",
               (unsigned long)j, sqrt(r1), sqrt(r2), (double)x->S[0]);
    }
}

int main(void)
{
    static uint64_t row_ptr[N + 1];
    static uint32_t col[N * N];
    static float val[N * N];
    static double X0[N * N], X1[N * N], X2[N * N];
    const size_t d = 8;
    const double k = 5;
    double F0, F0n, F1, F1n, worst = 0, scale = 0;
    size_t i;
    ro_sgns_problem *p = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *x = NULL, *y = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_error err;
    ro_sgns_real W[N * 8];

    make_counts(row_ptr, col, val);
    CHECKF(ro_sgns_problem_create_csr(N, N, row_ptr, col, val, k, 1.0, &p, NULL, &err) ==
               RO_SGNS_OK,
           "%s", err.message);
    /* the SPPMI, from its definition */
    CHECKF(sppmi_csr(N, row_ptr, col, val, k, &A, &err) == RO_SGNS_OK, "%s", err.message);
    if (!A) return tu_finish("step-alone");
    CHECK(A->nnz > 0);
    /* the start: Part I's dense Jacobi SVD (the block Krylov one of II.7 is
       left out, RO_SGNS_NO_TSVD; tests/test_sppmi.c compares the two).
       Checked here from its definition: A v_j = s_j u_j and A^T u_j =
       s_j v_j, s descending, in double against the CSR itself. */
    CHECKF(ro_sgns_tsvd_naive(A, d, &x, NULL, &err) == RO_SGNS_OK, "%s", err.message);
    if (!x || !p) return tu_finish("step-alone");
    check_singular_pairs(A, x);
    /* the other start in this build: any W0, C0 (here U S and V) made a
       point by ro_sgns_factors_from_wc, X = W0 C0^T unchanged */
    {
        static ro_sgns_real W0[N * 8];
        size_t j, t;
        double big = 0, diff = 0;
        for (i = 0; i < N; ++i)
            for (j = 0; j < d; ++j) {
                double s = 0;
                for (t = 0; t < d; ++t) s += (double)x->U[i * d + t] * x->S[t * d + j];
                W0[i * d + j] = (ro_sgns_real)s;
            }
        CHECKF(ro_sgns_factors_from_wc(N, N, d, W0, x->V, &y, NULL, &err) == RO_SGNS_OK, "%s",
               err.message);
        if (y) {
            dense_x(x, X0);
            dense_x(y, X1);
            for (i = 0; i < N * N; ++i) {
                big = tu_max(big, fabs(X0[i]));
                diff = tu_max(diff, fabs(X1[i] - X0[i])); /* a NaN stays */
            }
            CHECK(big > 0);
            CHECKF(diff <= (IS_D ? 1e-12 : 1e-5) * big, "from_wc moved X by %g of %g", diff, big);
        }
        ro_sgns_factors_free(y);
        y = NULL;
    }
    /* F by blocks against F one entry at a time */
    CHECK(ro_sgns_objective(p, x, &F0, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_objective_naive(p, x, &F0n, &err) == RO_SGNS_OK);
    CHECK_NEAR(F0, F0n, (IS_D ? 1e-12 : 1e-6) * fabs(F0n));
    /* one plain step of the fast path against the dense step, same lambda */
    CHECK(ro_sgns_factors_create(N, N, d, &y, NULL, &err) == RO_SGNS_OK);
    memcpy(y->U, x->U, N * d * sizeof(ro_sgns_real));
    memcpy(y->V, x->V, N * d * sizeof(ro_sgns_real));
    memcpy(y->S, x->S, d * d * sizeof(ro_sgns_real));
    dense_x(x, X0);
    cfg.iterations = 1;
    cfg.safeguard = 0;
    cfg.step = 0.5;
    CHECKF(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
    CHECKF(ro_sgns_ro_step_naive(p, y, RO_SGNS_DIRECTION_SCALED, 0.5, &err) == RO_SGNS_OK, "%s",
           err.message);
    dense_x(x, X1);
    dense_x(y, X2);
    for (i = 0; i < N * N; ++i) {
        double dv = fabs(X1[i] - X2[i]);
        if (!(dv <= worst)) worst = dv;
        scale = tu_max(scale, fabs(X2[i] - X0[i]));
    }
    CHECK(scale > 0); /* the step moved X */
    CHECKF(worst <= (IS_D ? 1e-12 : 1e-5) * (1 + scale), "fast vs dense step: %g (step %g)", worst,
           scale);
    /* a few default steps raise F */
    cfg = ro_sgns_ro_config_default();
    cfg.iterations = 4;
    CHECKF(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
    CHECK(ro_sgns_objective(p, x, &F1, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_objective_naive(p, x, &F1n, &err) == RO_SGNS_OK);
    CHECKF(F1 > F0, "F %g after 5 steps, %g at the start", F1, F0);
    CHECK_NEAR(F1, F1n, (IS_D ? 1e-12 : 1e-6) * fabs(F1n));
    /* the metric direction is left out (RO_SGNS_NO_METRIC): asked for, it is
       refused with a message that names the switch, and x is untouched */
    {
        const uint64_t it = x->iteration;
        const ro_sgns_real s0 = x->S[0];
        cfg = ro_sgns_ro_config_default();
        cfg.direction = RO_SGNS_DIRECTION_METRIC;
        CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_ERR_UNSUPPORTED);
        CHECKF(strstr(err.message, "RO_SGNS_NO_METRIC") != NULL, "%s", err.message);
        CHECK(x->iteration == it && x->S[0] == s0);
    }
    /* Step 2: embeddings, finite */
    CHECK(ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_W, W, d, NULL, &err) == RO_SGNS_OK);
    for (i = 0; i < N * d; ++i)
        if (!(fabs((double)W[i]) < 1e30)) break;
    CHECK(i == N * d);
    ro_sgns_factors_free(x);
    ro_sgns_factors_free(y);
    ro_sgns_csr_free(A);
    ro_sgns_problem_free(p);
    return tu_finish("step-alone");
}
