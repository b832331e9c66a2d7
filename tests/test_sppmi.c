/* test_sppmi.c - section 2: SPPMI, the sparse truncated SVD, embeddings from
   factors. References: PMI values worked out by hand, matrices with a known
   spectrum built from random orthonormal factors (independent Gram-Schmidt
   in double), the dense Jacobi SVD of the same matrix. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

#include <string.h>

typedef ro_sgns_real real;
static const double EPS = sizeof(real) == sizeof(double) ? DBL_EPSILON : FLT_EPSILON;
static ro_sgns_rng g_rng;

/* ---------------------------------------------------------------- SPPMI */

static double sppmi_entry(const ro_sgns_csr *A, size_t i, size_t j)
{
    uint64_t k;
    for (k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k)
        if (A->col[k] == j) return A->val[k];
    return 0;
}

static void test_sppmi_by_hand(void)
{
    /* "a b c a b", window 1: #(a,b) = #(b,a) = 2, #(b,c) = #(c,b) = 1,
       #(a,c) = #(c,a) = 1; #(a) = #(b) = 3, #(c) = 2, |D| = 8.
       ids: a = 0, b = 1 (count 2 each, byte order), c = 2. */
    const char *text = "a b c a b\n";
    ro_sgns_count_config cfg = ro_sgns_count_config_default();
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_error err;
    cfg.window = 1;
    cfg.min_count = 1;
    CHECK(ro_sgns_count_memory(text, strlen(text), &cfg, &c, NULL, &err) == RO_SGNS_OK);
    if (!c) return;
    CHECK(c->n == 3 && c->total == 8);
    /* k = 1: every PMI here is positive */
    CHECK(ro_sgns_sppmi(c, 1, 1, &A, NULL, &err) == RO_SGNS_OK);
    if (A) {
        CHECK(A->nnz == 6);
        CHECK_NEAR(sppmi_entry(A, 0, 1), log(16.0 / 9.0), 1e-6);
        CHECK_NEAR(sppmi_entry(A, 1, 0), log(16.0 / 9.0), 1e-6);
        CHECK_NEAR(sppmi_entry(A, 1, 2), log(4.0 / 3.0), 1e-6);
        CHECK_NEAR(sppmi_entry(A, 2, 0), log(4.0 / 3.0), 1e-6);
        CHECK(sppmi_entry(A, 0, 0) == 0);
        ro_sgns_csr_free(A);
        A = NULL;
    }
    /* k = 1.5 shifts by log 1.5 = 0.405: only the (a,b) pairs survive */
    CHECK(ro_sgns_sppmi(c, 1.5, 1, &A, NULL, &err) == RO_SGNS_OK);
    if (A) {
        CHECK(A->nnz == 2);
        CHECK_NEAR(sppmi_entry(A, 0, 1), log(16.0 / 9.0) - log(1.5), 1e-6);
        CHECK(sppmi_entry(A, 1, 2) == 0);
        ro_sgns_csr_free(A);
        A = NULL;
    }
    /* cds = 0.75: P(c) = #(c)^.75 / sum; (a,b): log(2/3 / P(b)) */
    CHECK(ro_sgns_sppmi(c, 1, 0.75, &A, NULL, &err) == RO_SGNS_OK);
    if (A) {
        double norm = 2 * pow(3, 0.75) + pow(2, 0.75);
        CHECK_NEAR(sppmi_entry(A, 0, 1), log(2.0 / 3.0 / (pow(3, 0.75) / norm)), 1e-6);
        CHECK_NEAR(sppmi_entry(A, 0, 2), log(1.0 / 3.0 / (pow(2, 0.75) / norm)), 1e-6);
        ro_sgns_csr_free(A);
        A = NULL;
    }
    /* k so large nothing is positive: EMPTY, not a zero matrix */
    CHECK(ro_sgns_sppmi(c, 100, 1, &A, NULL, &err) == RO_SGNS_ERR_EMPTY && A == NULL);
    CHECK(ro_sgns_sppmi(c, 0, 1, &A, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_sppmi(c, 1, 0, &A, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    ro_sgns_counts_free(c);
}

/* ----------------------------------------------------------------- tsvd */

static double *rnd_orthonormal(size_t m, size_t k)
{
    double *q = (double *)malloc(m * k * sizeof(double));
    size_t i, j, p;
    int pass;
    for (i = 0; i < m * k; ++i) q[i] = ro_sgns_rng_normal(&g_rng);
    for (j = 0; j < k; ++j) {
        double nrm = 0;
        for (pass = 0; pass < 2; ++pass)
            for (p = 0; p < j; ++p) {
                double dot = 0;
                for (i = 0; i < m; ++i) dot += q[i * k + p] * q[i * k + j];
                for (i = 0; i < m; ++i) q[i * k + j] -= dot * q[i * k + p];
            }
        for (i = 0; i < m; ++i) nrm += q[i * k + j] * q[i * k + j];
        nrm = sqrt(nrm);
        for (i = 0; i < m; ++i) q[i * k + j] /= nrm;
    }
    return q;
}

/* A dense n x m matrix Q1 diag(sigma) Q2^T stored as CSR (entries with
   |a| < drop removed: "sparsified where possible"), with Q1 kept. */
static ro_sgns_csr *known_csr(size_t n, size_t m, size_t r, const double *sigma, double **Q1out)
{
    double *Q1 = rnd_orthonormal(n, r), *Q2 = rnd_orthonormal(m, r);
    ro_sgns_csr *A = NULL;
    size_t i, j, p;
    uint64_t k = 0;
    ro_sgns_csr_create(n, m, (uint64_t)n * m, &A, NULL, NULL);
    for (i = 0; i < n; ++i) {
        for (j = 0; j < m; ++j) {
            double t = 0;
            for (p = 0; p < r; ++p) t += Q1[i * r + p] * sigma[p] * Q2[j * r + p];
            if (t != 0) {
                A->col[k] = (uint32_t)j;
                A->val[k++] = (real)t;
            }
        }
        A->row_ptr[i + 1] = k;
    }
    A->nnz = k;
    free(Q2);
    *Q1out = Q1;
    return A;
}

static void check_tsvd_method(size_t n, size_t m, size_t d, double decay, double tol, int method)
{
    ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
    size_t r = n < m ? n : m, p, i, j;
    double *sigma = (double *)malloc(r * sizeof(double)), *Q1, worst = 0, angle = 0;
    ro_sgns_csr *A;
    ro_sgns_factors *f = NULL;
    ro_sgns_error err;
    for (p = 0; p < r; ++p) sigma[p] = 10 * pow(decay, (double)p);
    A = known_csr(n, m, r, sigma, &Q1);
    cfg.method = method;
    CHECKF(ro_sgns_tsvd(A, d, &cfg, &f, NULL, &err) == RO_SGNS_OK, "%s", err.message);
    if (f) {
        for (p = 0; p < d; ++p) {
            double e = fabs((double)f->S[p * d + p] - sigma[p]) / sigma[p];
            if (!(e <= worst)) worst = e;
        }
        /* subspace: |U - Q1 Q1^T U|_F over the top d, with Q1 the first d true vectors */
        for (j = 0; j < d; ++j) {
            double *proj = (double *)calloc(n, sizeof(double));
            for (p = 0; p < d; ++p) {
                double dot = 0;
                for (i = 0; i < n; ++i) dot += Q1[i * r + p] * f->U[i * d + j];
                for (i = 0; i < n; ++i) proj[i] += dot * Q1[i * r + p];
            }
            for (i = 0; i < n; ++i) {
                double e = f->U[i * d + j] - proj[i];
                angle += e * e;
            }
            free(proj);
        }
        angle = sqrt(angle);
        CHECKF(worst <= tol, "tsvd %lux%lu d=%lu method %d: singular values off by %.3g (tol %.3g)",
               (unsigned long)n, (unsigned long)m, (unsigned long)d, method, worst, tol);
        CHECKF(angle <= sqrt(tol) * 10, "tsvd %lux%lu d=%lu method %d: subspace error %.3g",
               (unsigned long)n, (unsigned long)m, (unsigned long)d, method, angle);
        if (getenv("VERBOSE"))
            printf("tsvd %lux%lu d=%lu decay %.2f method %d: sigma err %.2e subspace %.2e\n",
                   (unsigned long)n, (unsigned long)m, (unsigned long)d, decay, method, worst,
                   angle);
        ro_sgns_factors_free(f);
    }
    ro_sgns_csr_free(A);
    free(Q1);
    free(sigma);
}

/* both methods on the same matrices */
static void check_tsvd(size_t n, size_t m, size_t d, double decay, double tol)
{
    check_tsvd_method(n, m, d, decay, tol, RO_SGNS_TSVD_KRYLOV);
    check_tsvd_method(n, m, d, decay, tol, RO_SGNS_TSVD_SUBSPACE);
}

static void test_tsvd(void)
{
    double tol = sizeof(real) == sizeof(double) ? 1e-4 : 1e-3;
    check_tsvd(200, 150, 10, 0.8, tol);
    if (tu_quick()) { /* RO_SGNS_TEST_QUICK: the same shapes, smaller */
        check_tsvd(150, 160, 20, 0.9, tol);
        check_tsvd(60, 80, 60, 0.97, tol);
    } else {
        check_tsvd(300, 310, 40, 0.95, tol);
        check_tsvd(150, 200, 150, 0.97, tol); /* d = min(n, m): the exact SVD */
    }
    check_tsvd(1, 1, 1, 0.5, tol);
    check_tsvd(1, 40, 1, 0.5, tol);
}

/* rank-deficient, empty rows/cols, zero matrix, bad d, thread determinism */
static void test_tsvd_edges(void)
{
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *f = NULL;
    ro_sgns_error err;
    size_t i, n = 50;
    uint64_t k = 0;
    /* a diagonal matrix of rank 5 with empty rows and columns elsewhere */
    ro_sgns_csr_create(n, n, 5, &A, NULL, NULL);
    for (i = 0; i < n; ++i) {
        if (i % 10 == 3) {
            A->col[k] = (uint32_t)i;
            A->val[k++] = (real)(1 + (double)i);
        }
        A->row_ptr[i + 1] = k;
    }
    CHECKF(ro_sgns_tsvd(A, 8, NULL, &f, NULL, &err) == RO_SGNS_OK, "%s", err.message);
    if (f) {
        int finite = 1, zero_tail = 1;
        for (i = 0; i < n * 8; ++i)
            if (f->U[i] != f->U[i] || f->V[i] != f->V[i]) finite = 0;
        for (i = 5; i < 8; ++i)
            if (fabs((double)f->S[i * 8 + i]) > 1e-4) zero_tail = 0;
        CHECK(finite);
        CHECK(zero_tail); /* d > rank: the extra singular values are 0 */
        CHECK_NEAR(f->S[0], 44, 44 * 1e-4);
        CHECK_NEAR(f->S[4 * 8 + 4], 4, 4 * 1e-4);
        ro_sgns_factors_free(f);
        f = NULL;
    }
    /* all-zero matrix: a valid (zero) SVD, no NaN */
    for (i = 0; i < 5; ++i) A->val[i] = 0;
    CHECK(ro_sgns_tsvd(A, 3, NULL, &f, NULL, &err) == RO_SGNS_OK);
    if (f) {
        CHECK(f->S[0] == 0 && f->U[0] == f->U[0]);
        ro_sgns_factors_free(f);
        f = NULL;
    }
    CHECK(ro_sgns_tsvd(A, 51, NULL, &f, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT && !f);
    CHECK(strstr(err.message, "vocabulary") != NULL);
    CHECK(ro_sgns_tsvd(A, 0, NULL, &f, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    ro_sgns_csr_free(A);
#ifdef _OPENMP
    { /* 1 vs 2 threads: the same bits */
        ro_sgns_factors *g = NULL;
        double sigma[60], *Q1;
        int saved = omp_get_max_threads();
        for (i = 0; i < 60; ++i) sigma[i] = 1.0 / (1.0 + (double)i);
        A = known_csr(300, 200, 60, sigma, &Q1);
        omp_set_num_threads(1);
        ro_sgns_tsvd(A, 20, NULL, &f, NULL, NULL);
        omp_set_num_threads(2);
        ro_sgns_tsvd(A, 20, NULL, &g, NULL, NULL);
        omp_set_num_threads(saved);
        CHECK(f && g && memcmp(f->U, g->U, 300 * 20 * sizeof(real)) == 0 &&
              memcmp(f->V, g->V, 200 * 20 * sizeof(real)) == 0 &&
              memcmp(f->S, g->S, 20 * 20 * sizeof(real)) == 0);
        ro_sgns_factors_free(f);
        ro_sgns_factors_free(g);
        ro_sgns_csr_free(A);
        free(Q1);
    }
#endif
}

/* The progress callback: done = 1..total in order, total = the Krylov
   blocks + 1 or q + 3 passes for subspace iteration; the same bits with
   and without it; a non-zero return stops with RO_SGNS_STOPPED and no
   factors. */
typedef struct {
    size_t calls, last_done, total, stop_at;
    int ordered;
} tsvd_watch;

static int on_tsvd(const ro_sgns_tsvd_progress *p, void *user)
{
    tsvd_watch *w = (tsvd_watch *)user;
    if (p->done != w->last_done + 1 || (w->total && p->total != w->total) || p->done > p->total ||
        !(p->seconds >= 0))
        w->ordered = 0;
    w->total = p->total;
    w->last_done = p->done;
    ++w->calls;
    return w->stop_at && p->done == w->stop_at;
}

static void test_tsvd_progress(void)
{
    double sigma[60], *Q1;
    ro_sgns_csr *A;
    ro_sgns_error err;
    size_t i;
    int method;
    for (i = 0; i < 60; ++i) sigma[i] = 1.0 / (1.0 + (double)i);
    A = known_csr(300, 200, 60, sigma, &Q1);
    for (method = RO_SGNS_TSVD_KRYLOV; method <= RO_SGNS_TSVD_SUBSPACE; ++method) {
        ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
        ro_sgns_factors *f = NULL, *g = NULL, *h = NULL;
        tsvd_watch w;
        /* l = d + p = 60 columns: Krylov in blocks of 8 (l / 16 clamped to
           8..50), 8 blocks; subspace q = 5 */
        size_t want = method == RO_SGNS_TSVD_KRYLOV ? 8 + 1 : 5 + 3;
        cfg.method = method;
        CHECK(ro_sgns_tsvd(A, 20, &cfg, &f, NULL, &err) == RO_SGNS_OK);
        memset(&w, 0, sizeof w);
        w.ordered = 1;
        cfg.callback = on_tsvd;
        cfg.user = &w;
        CHECK(ro_sgns_tsvd(A, 20, &cfg, &g, NULL, &err) == RO_SGNS_OK);
        CHECK(f && g && memcmp(f->U, g->U, 300 * 20 * sizeof(real)) == 0 &&
              memcmp(f->V, g->V, 200 * 20 * sizeof(real)) == 0 &&
              memcmp(f->S, g->S, 20 * 20 * sizeof(real)) == 0);
        CHECKF(w.ordered && w.calls == want && w.total == want && w.last_done == want,
               "method %d: %lu calls, last %lu of %lu, expected %lu in order", method,
               (unsigned long)w.calls, (unsigned long)w.last_done, (unsigned long)w.total,
               (unsigned long)want);
        memset(&w, 0, sizeof w);
        w.ordered = 1;
        w.stop_at = 2;
        CHECK(ro_sgns_tsvd(A, 20, &cfg, &h, NULL, &err) == RO_SGNS_STOPPED && !h && w.calls == 2);
        CHECK(err.code == RO_SGNS_STOPPED && strstr(err.message, "stopped") != NULL);
        ro_sgns_factors_free(f);
        ro_sgns_factors_free(g);
    }
    ro_sgns_csr_free(A);
    free(Q1);
}

/* W C^T = U S V^T for a general core S (alpha = 1/2), W alone = U P S^a. */
static void test_embeddings(void)
{
    size_t n = 30, m = 25, d = 6, i, j, p;
    ro_sgns_factors *f = NULL;
    real *W = (real *)malloc(n * d * sizeof(real)), *C = (real *)malloc(m * d * sizeof(real));
    real *WC = (real *)malloc(n * d * sizeof(real));
    double *Uo = rnd_orthonormal(n, d), *Vo = rnd_orthonormal(m, d), worst = 0, scale = 0;
    ro_sgns_error err;
    CHECK(ro_sgns_factors_create(n, m, d, &f, NULL, &err) == RO_SGNS_OK);
    for (i = 0; i < n * d; ++i) f->U[i] = (real)Uo[i];
    for (i = 0; i < m * d; ++i) f->V[i] = (real)Vo[i];
    for (i = 0; i < d * d; ++i) f->S[i] = (real)ro_sgns_rng_normal(&g_rng);
    CHECK(ro_sgns_factors_embeddings(f, 0.5, RO_SGNS_EMBED_W, W, d, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_factors_embeddings(f, 0.5, RO_SGNS_EMBED_C, C, d, NULL, &err) == RO_SGNS_OK);
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j) {
            double x = 0, y = 0;
            size_t q;
            for (p = 0; p < d; ++p) y += (double)W[i * d + p] * C[j * d + p];
            for (p = 0; p < d; ++p)
                for (q = 0; q < d; ++q) x += Uo[i * d + p] * f->S[p * d + q] * Vo[j * d + q];
            if (fabs(x - y) > worst) worst = fabs(x - y);
            if (fabs(x) > scale) scale = fabs(x);
        }
    CHECKF(worst <= 100 * EPS * scale, "W C^T != U S V^T: %.3g", worst);
    CHECK(ro_sgns_factors_embeddings(f, 0.5, RO_SGNS_EMBED_W_PLUS_C, WC, d, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT); /* n != m */
    ro_sgns_factors_free(f);
    free(W);
    free(C);
    free(WC);
    free(Uo);
    free(Vo);
}

int main(void)
{
    ro_sgns_rng_seed(&g_rng, 777, 0);
    test_sppmi_by_hand();
    test_tsvd();
    test_tsvd_edges();
    test_tsvd_progress();
    test_embeddings();
    return tu_finish(sizeof(real) == sizeof(double) ? "sppmi(double)" : "sppmi(float)");
}
