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

/* ------------------------------------------------ the sparse kernels */

/* A random rows x cols sparse matrix of density dens (every row drawn;
   some rows and columns left empty on purpose), and its dense copy. */
static ro_sgns_csr *random_csr(size_t rows, size_t cols, double dens, double **dense)
{
    ro_sgns_csr *A = NULL;
    size_t i, j;
    uint64_t k = 0;
    double *D = (double *)calloc(rows * cols + 1, sizeof(double));
    ro_sgns_csr_create(rows, cols, (uint64_t)rows * cols, &A, NULL, NULL);
    for (i = 0; i < rows; ++i) {
        for (j = 0; j < cols; ++j) {
            double u = ro_sgns_rng_uniform(&g_rng);
            /* row 1 and column 2 stay empty, whatever the density */
            if (u < dens && i != 1 && j != 2) {
                double v = ro_sgns_rng_normal(&g_rng) * (u < dens / 3 ? 1e3 : 1);
                A->col[k] = (uint32_t)j;
                A->val[k++] = (real)v;
                D[i * cols + j] = (double)(real)v;
            }
        }
        A->row_ptr[i + 1] = k;
    }
    A->nnz = k;
    *dense = D;
    return A;
}

/* ro_sgns_csr_mm and ro_sgns_csr_transpose against the dense triple loop
   and the dense transpose, on shapes not multiples of anything, with
   empty rows and columns, a 1 x 1, an all-empty matrix. csr_mm: each
   entry to (nnz of its row + 2) eps of the sum of |terms| (it sums in
   ro_sgns_real; the reference in double); the transpose exactly. */
static void test_sparse_kernels(void)
{
    static const size_t shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {7, 13}, {37, 5}, {64, 64},
                                       {129, 77}, {3, 200}};
    static const double dens[] = {0.0, 0.05, 0.4, 1.0};
    size_t s, t, l;
    int bad_mm = 0, bad_t = 0;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (t = 0; t < sizeof dens / sizeof dens[0]; ++t) {
            size_t rows = shapes[s][0], cols = shapes[s][1], i, j, p;
            double *D;
            ro_sgns_csr *A = random_csr(rows, cols, dens[t], &D), *T = NULL;
            ro_sgns_error err;
            /* the transpose: cols x rows, columns ascending, values bitwise */
            if (ro_sgns_csr_transpose(A, &T, NULL, &err) != RO_SGNS_OK || T->rows != cols ||
                T->cols != rows || T->nnz != A->nnz || T->row_ptr[0] != 0) {
                ++bad_t;
            } else {
                for (j = 0; j < cols; ++j) {
                    uint64_t e = T->row_ptr[j];
                    for (i = 0; i < rows; ++i) {
                        if (D[i * cols + j] == 0) continue;
                        if (e >= T->row_ptr[j + 1] || T->col[e] != i ||
                            (double)T->val[e] != D[i * cols + j]) {
                            ++bad_t;
                            break;
                        }
                        ++e;
                    }
                    if (e != T->row_ptr[j + 1]) ++bad_t;
                }
            }
            ro_sgns_csr_free(T);
            /* Y = A X for l = 1, 3 and 17 columns, X with a leading
               dimension wider than l, Y too */
            for (l = 1; l <= 17; l += 8) {
                size_t ldx = l + 2, ldy = l + 3;
                real *X = (real *)malloc(cols * ldx * sizeof(real));
                real *Y = (real *)malloc(rows * ldy * sizeof(real));
                for (i = 0; i < cols * ldx; ++i) X[i] = (real)ro_sgns_rng_normal(&g_rng);
                for (i = 0; i < rows * ldy; ++i) Y[i] = (real)-7; /* the gaps stay */
                if (ro_sgns_csr_mm(A, l, X, ldx, Y, ldy, &err) != RO_SGNS_OK) {
                    ++bad_mm;
                } else {
                    for (i = 0; i < rows; ++i)
                        for (j = 0; j < ldy; ++j) {
                            double ref = 0, mag = 0, tol;
                            uint64_t terms = A->row_ptr[i + 1] - A->row_ptr[i];
                            if (j >= l) {
                                if (Y[i * ldy + j] != (real)-7) ++bad_mm;
                                continue;
                            }
                            for (p = 0; p < cols; ++p) {
                                ref += D[i * cols + p] * (double)X[p * ldx + j];
                                mag += fabs(D[i * cols + p] * (double)X[p * ldx + j]);
                            }
                            tol = (double)(terms + 2) * EPS * mag;
                            if (!(fabs((double)Y[i * ldy + j] - ref) <= tol)) ++bad_mm;
                        }
                }
                free(X);
                free(Y);
            }
            ro_sgns_csr_free(A);
            free(D);
        }
    CHECKF(bad_t == 0, "csr_transpose: %d entries differ from the dense transpose", bad_t);
    CHECKF(bad_mm == 0, "csr_mm: %d entries differ from the dense product", bad_mm);
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

/* Bounds on the relative error of the d singular values and on the
   subspace error |U - Q1 Q1^T U|_F: the largest measured over the cases of
   test_tsvd drawn from 25 seeds (x86-64, gcc -O2; VERBOSE=1 prints each
   case's), times a margin of 4 to 6:
                        float               double
                        sigma   subspace    sigma    subspace
     Krylov   measured  1.9e-6  1.3e-5      7.4e-11  1.2e-5
              bound     8e-6    5e-5        3e-10    5e-5
     subspace measured  9.8e-7  2.8e-6      1.7e-14  1.8e-12
              bound     8e-6    5e-5        1e-13    1e-11
   (Krylov in double is limited by its Rayleigh-Ritz step, the eigenvectors
   of H = Z^T Z, which squares the condition: it is no better than float
   on the subspace of these matrices.) */
static void tsvd_bounds(int method, double *sigma_tol, double *angle_tol)
{
    int dbl = sizeof(real) == sizeof(double);
    *sigma_tol = !dbl ? 8e-6 : method == RO_SGNS_TSVD_KRYLOV ? 3e-10 : 1e-13;
    *angle_tol = !dbl ? 5e-5 : method == RO_SGNS_TSVD_KRYLOV ? 5e-5 : 1e-11;
}

static void check_tsvd_method(size_t n, size_t m, size_t d, double decay, int method)
{
    ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
    size_t r = n < m ? n : m, p, i, j;
    double *sigma = (double *)malloc(r * sizeof(double)), *Q1, worst = 0, angle = 0;
    ro_sgns_csr *A;
    ro_sgns_factors *f = NULL;
    ro_sgns_error err;
    double tol, angle_tol;
    tsvd_bounds(method, &tol, &angle_tol);
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
        CHECKF(angle <= angle_tol, "tsvd %lux%lu d=%lu method %d: subspace error %.3g (tol %.3g)",
               (unsigned long)n, (unsigned long)m, (unsigned long)d, method, angle, angle_tol);
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
static void check_tsvd(size_t n, size_t m, size_t d, double decay)
{
    check_tsvd_method(n, m, d, decay, RO_SGNS_TSVD_KRYLOV);
    check_tsvd_method(n, m, d, decay, RO_SGNS_TSVD_SUBSPACE);
}

static void test_tsvd(void)
{
    check_tsvd(200, 150, 10, 0.8);
    if (tu_quick()) { /* RO_SGNS_TEST_QUICK: the same shapes, smaller */
        check_tsvd(150, 160, 20, 0.9);
        check_tsvd(60, 80, 60, 0.97);
    } else {
        check_tsvd(300, 310, 40, 0.95);
        check_tsvd(150, 200, 150, 0.97); /* d = min(n, m): the exact SVD */
    }
    check_tsvd(1, 1, 1, 0.5);
    check_tsvd(1, 40, 1, 0.5);
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
    test_sparse_kernels();
    test_tsvd();
    test_tsvd_edges();
    test_embeddings();
    return tu_finish(sizeof(real) == sizeof(double) ? "sppmi(double)" : "sppmi(float)");
}
