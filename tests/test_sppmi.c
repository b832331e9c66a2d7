/* test_sppmi.c - section 2: SPPMI, the sparse truncated SVD, embeddings from
   factors; and section 6's start over row shards. References: PMI values
   worked out by hand, matrices with a known spectrum built from random
   orthonormal factors (independent Gram-Schmidt in double), the dense
   Jacobi SVD of the same matrix, the one-process SPPMI and SVD for the
   shards (run as threads by tests/shard_comm.h). */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"
#include "shard_comm.h"

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
    { /* k and cds: finite and > 0; nothing written on failure */
        const double bad[4] = {0, -1, HUGE_VAL, 0};
        ro_sgns_csr *sentinel = (ro_sgns_csr *)&err;
        int i;
        for (i = 0; i < 4; ++i) {
            double v = i == 3 ? NAN : bad[i];
            A = sentinel;
            CHECKF(ro_sgns_sppmi(c, v, 1, &A, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                       A == sentinel,
                   "k = %g", v);
            CHECKF(ro_sgns_sppmi(c, 1, v, &A, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                       A == sentinel,
                   "cds = %g", v);
        }
        /* 3^1000 overflows a double: an error, not Inf or NaN entries */
        CHECK(ro_sgns_sppmi(c, 1, 1000, &A, NULL, &err) == RO_SGNS_ERR_NUMERIC && A == sentinel);
        A = NULL;
    }
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

/* A matrix filled by hand (ro_sgns_csr_create) that indexes outside
   itself: a column >= cols, row_ptr falling, row_ptr[0] != 0, row_ptr
   ending beyond the nnz allocated. csr_mm, csr_transpose and tsvd give
   INVALID_ARGUMENT and touch nothing: Y keeps its values, *out its
   pointer (under ASan a missed check is a read or write out of bounds). */
static void test_csr_malformed(void)
{
    int bad;
    for (bad = 0; bad < 4; ++bad) {
        ro_sgns_csr *A = NULL, *T, *sentinel_t;
        ro_sgns_factors *f, *sentinel_f;
        ro_sgns_error err;
        real X[4 * 2], Y[3 * 2];
        size_t i, changed = 0;
        const char *what[4] = {"column 4 of 4", "row_ptr falls", "row_ptr[0] = 1",
                               "row_ptr beyond nnz"};
        /* 3 x 4, 5 entries: rows {0: c0, c3}, {1: c1}, {2: c0, c2} */
        CHECK(ro_sgns_csr_create(3, 4, 5, &A, NULL, &err) == RO_SGNS_OK);
        if (!A) continue;
        A->row_ptr[1] = 2;
        A->row_ptr[2] = 3;
        A->row_ptr[3] = 5;
        A->col[0] = 0;
        A->col[1] = 3;
        A->col[2] = 1;
        A->col[3] = 0;
        A->col[4] = 2;
        for (i = 0; i < 5; ++i) A->val[i] = (real)(i + 1);
        for (i = 0; i < 8; ++i) X[i] = (real)i;
        CHECK(ro_sgns_csr_mm(A, 2, X, 2, Y, 2, &err) == RO_SGNS_OK); /* well formed */
        if (bad == 0) A->col[1] = 4;
        if (bad == 1) A->row_ptr[1] = 4;
        if (bad == 2) A->row_ptr[0] = 1;
        if (bad == 3) A->row_ptr[3] = 6;
        for (i = 0; i < 6; ++i) Y[i] = (real)-7;
        CHECKF(ro_sgns_csr_mm(A, 2, X, 2, Y, 2, &err) == RO_SGNS_ERR_INVALID_ARGUMENT,
               "csr_mm, %s", what[bad]);
        for (i = 0; i < 6; ++i) changed += Y[i] != (real)-7;
        CHECKF(changed == 0, "csr_mm, %s: Y changed", what[bad]);
        T = sentinel_t = (ro_sgns_csr *)&err;
        CHECKF(ro_sgns_csr_transpose(A, &T, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                   T == sentinel_t,
               "csr_transpose, %s", what[bad]);
        f = sentinel_f = (ro_sgns_factors *)&err;
        CHECKF(ro_sgns_tsvd(A, 2, NULL, &f, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                   f == sentinel_f,
               "tsvd, %s: %s", what[bad], err.message);
        ro_sgns_csr_free(A);
    }
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
    if (method < 0) { /* ro_sgns_tsvd_naive: the whole Jacobi SVD of A dense */
        *sigma_tol = dbl ? 1e-12 : 8e-6;
        *angle_tol = dbl ? 1e-10 : 5e-5;
        return;
    }
    *sigma_tol = !dbl ? 8e-6 : method == RO_SGNS_TSVD_KRYLOV ? 3e-10 : 1e-13;
    *angle_tol = !dbl ? 5e-5 : method == RO_SGNS_TSVD_KRYLOV ? 5e-5 : 1e-11;
}

static void check_tsvd_method(size_t n, size_t m, size_t d, double decay, int method)
{
    ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
    size_t r = n < m ? n : m, p, i, j;
    double *sigma = (double *)calloc(r, sizeof(double)), *Q1, worst = 0, angle = 0;
    ro_sgns_csr *A;
    ro_sgns_factors *f = NULL;
    ro_sgns_error err;
    double tol, angle_tol;
    tsvd_bounds(method, &tol, &angle_tol);
    for (p = 0; p < r; ++p) sigma[p] = 10 * pow(decay, (double)p);
    A = known_csr(n, m, r, sigma, &Q1);
    cfg.method = method;
    if (method < 0) /* Part I's dense reference (I.8) */
        CHECKF(ro_sgns_tsvd_naive(A, d, &f, NULL, &err) == RO_SGNS_OK, "%s", err.message);
    else
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

/* both methods, and the dense reference (-1), on the same matrices */
static void check_tsvd(size_t n, size_t m, size_t d, double decay)
{
    check_tsvd_method(n, m, d, decay, RO_SGNS_TSVD_KRYLOV);
    check_tsvd_method(n, m, d, decay, RO_SGNS_TSVD_SUBSPACE);
    check_tsvd_method(n, m, d, decay, -1);
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
            if (!(fabs((double)f->S[i * 8 + i]) <= 1e-4)) zero_tail = 0;
        CHECK(finite);
        CHECK(zero_tail); /* d > rank: the extra singular values are 0 */
        CHECK_NEAR(f->S[0], 44, 44 * 1e-4);
        CHECK_NEAR(f->S[4 * 8 + 4], 4, 4 * 1e-4);
        ro_sgns_factors_free(f);
        f = NULL;
    }
    /* a NaN or an Inf among the entries: RO_SGNS_ERR_NUMERIC from either
       method, *out untouched */
    {
        ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
        ro_sgns_factors *sentinel = (ro_sgns_factors *)&err;
        int bad, method;
        for (bad = 0; bad < 2; ++bad)
            for (method = 0; method < 2; ++method) {
                real keep = A->val[2];
                A->val[2] = bad ? (real)HUGE_VAL : (real)NAN;
                cfg.method = method ? RO_SGNS_TSVD_SUBSPACE : RO_SGNS_TSVD_KRYLOV;
                f = sentinel;
                CHECKF(ro_sgns_tsvd(A, 3, &cfg, &f, NULL, &err) == RO_SGNS_ERR_NUMERIC &&
                           f == sentinel,
                       "%s, method %d: %s", bad ? "Inf" : "NaN", method, err.message);
                A->val[2] = keep;
            }
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
            worst = tu_max(worst, fabs(x - y));
            scale = tu_max(scale, fabs(x));
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

/* ------------------------------------------- section 6: the start on shards */

/* rows [r0, r1) of A as a matrix of their own */
static TU_MAYBE_UNUSED ro_sgns_csr *csr_rows(const ro_sgns_csr *A, size_t r0, size_t r1)
{
    ro_sgns_csr *B = NULL;
    uint64_t base = A->row_ptr[r0], nz = A->row_ptr[r1] - base;
    size_t i;
    if (ro_sgns_csr_create(r1 - r0, A->cols, nz, &B, NULL, NULL) != RO_SGNS_OK) return NULL;
    for (i = r0; i <= r1; ++i) B->row_ptr[i - r0] = A->row_ptr[i] - base;
    if (nz) {
        memcpy(B->col, A->col + base, (size_t)nz * sizeof(uint32_t));
        memcpy(B->val, A->val + base, (size_t)nz * sizeof(real));
    }
    return B;
}

/* rows [r0, r1) of A and B, the same bits */
static int same_rows(const ro_sgns_csr *A, size_t r0, size_t r1, const ro_sgns_csr *B)
{
    uint64_t base = A->row_ptr[r0], nz = A->row_ptr[r1] - base;
    size_t i;
    if (B->rows != r1 - r0 || B->cols != A->cols || B->nnz != nz) return 0;
    for (i = r0; i <= r1; ++i)
        if (B->row_ptr[i - r0] != A->row_ptr[i] - base) return 0;
    return nz == 0 || (memcmp(B->col, A->col + base, (size_t)nz * sizeof(uint32_t)) == 0 &&
                       memcmp(B->val, A->val + base, (size_t)nz * sizeof(real)) == 0);
}

/* a text of `tokens` words w0 .. w{vocab-1}, word i drawn with weight
   1 / (i + 1) (Zipf), lines of 20 words */
static char *zipf_text(size_t tokens, size_t vocab, size_t *len)
{
    char *t = (char *)malloc(tokens * 8 + 1), *p = t;
    double *cdf = (double *)malloc(vocab * sizeof(double)), sum = 0;
    size_t i;
    for (i = 0; i < vocab; ++i) cdf[i] = (sum += 1.0 / (double)(i + 1));
    for (i = 0; i < tokens; ++i) {
        double u = ro_sgns_rng_uniform(&g_rng) * sum;
        size_t lo = 0, hi = vocab - 1;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cdf[mid] < u) lo = mid + 1; else hi = mid;
        }
        p += sprintf(p, "w%lu%c", (unsigned long)lo, i % 20 == 19 ? '\n' : ' ');
    }
    *len = (size_t)(p - t);
    free(cdf);
    return t;
}

static ro_sgns_counts *zipf_counts(size_t tokens, size_t vocab)
{
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_counts *c = NULL;
    size_t len;
    char *text = zipf_text(tokens, vocab, &len);
    cc.window = 2;
    cc.min_count = 3;
    ro_sgns_count_memory(text, len, &cc, &c, NULL, NULL);
    free(text);
    return c;
}

/* the rows of the SPPMI, alone, are those rows of the whole one, bit for bit */
static void test_sppmi_rows(void)
{
    ro_sgns_counts *c = zipf_counts(20000, 400);
    ro_sgns_csr *A = NULL, *B = NULL;
    ro_sgns_error err;
    size_t n, cuts[][2] = {{0, 0}, {0, 1}, {0, 0}, {3, 57}, {0, 0}, {0, 0}};
    int t, cds;
    CHECK(c != NULL);
    if (!c) return;
    n = c->n;
    cuts[0][1] = n;
    cuts[2][0] = n / 3;
    cuts[2][1] = 2 * n / 3;
    cuts[4][0] = n - 1;
    cuts[4][1] = n;
    cuts[5][0] = cuts[5][1] = n / 2; /* no rows: a 0 x n matrix */
    for (cds = 0; cds < 2; ++cds) {
        double sm = cds ? 0.75 : 1;
        CHECK(ro_sgns_sppmi(c, 5, sm, &A, NULL, &err) == RO_SGNS_OK);
        if (!A) break;
        for (t = 0; t < 6; ++t) {
            CHECKF(ro_sgns_sppmi_rows(c, cuts[t][0], cuts[t][1], 5, sm, &B, NULL, &err) ==
                       RO_SGNS_OK, "%s", err.message);
            if (!B) continue;
            CHECKF(same_rows(A, cuts[t][0], cuts[t][1], B), "sppmi_rows %lu..%lu (cds %g)",
                   (unsigned long)cuts[t][0], (unsigned long)cuts[t][1], sm);
            ro_sgns_csr_free(B);
            B = NULL;
        }
        ro_sgns_csr_free(A);
        A = NULL;
    }
    /* nothing positive: the whole is EMPTY, rows of it are an empty matrix */
    CHECK(ro_sgns_sppmi(c, 1e12, 1, &A, NULL, &err) == RO_SGNS_ERR_EMPTY && !A);
    CHECK(ro_sgns_sppmi_rows(c, 0, 10, 1e12, 1, &B, NULL, &err) == RO_SGNS_OK && B &&
          B->nnz == 0 && B->rows == 10 && B->row_ptr[10] == 0);
    ro_sgns_csr_free(B);
    B = NULL;
    CHECK(ro_sgns_sppmi_rows(c, 5, 4, 5, 1, &B, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT && !B);
    CHECK(ro_sgns_sppmi_rows(c, 0, n + 1, 5, 1, &B, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_sppmi_rows(NULL, 0, 1, 5, 1, &B, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_sppmi_rows(c, 0, 1, 0, 1, &B, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(!B);
    ro_sgns_counts_free(c);
}

static int same_factors(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    return a && b && a->n == b->n && a->m == b->m && a->d == b->d &&
           memcmp(a->U, b->U, a->n * a->d * sizeof(real)) == 0 &&
           memcmp(a->S, b->S, a->d * a->d * sizeof(real)) == 0 &&
           memcmp(a->V, b->V, a->m * a->d * sizeof(real)) == 0;
}

#ifdef _OPENMP
/* ro_sgns_tsvd_shard on P shards (shard q: rows cut[q]..cut[q+1] of A, or
   parts[q] when given) against ro_sgns_tsvd of A: S, U and V within tol
   relative (the top `good` singular triplets; all d when 0), X = U S V^T
   too, the shards' U orthonormal together, S and V the same bits on every
   shard, and a second run the same bits. Returns the largest difference. */
static double check_tsvd_shards(const ro_sgns_csr *A, ro_sgns_csr **parts, size_t d,
                                const ro_sgns_tsvd_config *cfg, const size_t *cut, int P,
                                size_t good, double tol, const char *what)
{
    ro_sgns_csr *own[SHM_MAX], **rows = parts ? parts : own;
    ro_sgns_factors *ref = NULL, *out[SHM_MAX], *again[SHM_MAX], *st = NULL;
    ro_sgns_result res[SHM_MAX], res2[SHM_MAX];
    size_t ds[SHM_MAX], n = A->rows, m = A->cols, i, j, q, g = good ? good : d;
    double dS = 0, dU = 0, dV = 0, dX = 0, orth = 0, xs = 0;
    int ok = 1, same = 1;
    CHECK(ro_sgns_tsvd(A, d, cfg, &ref, NULL, NULL) == RO_SGNS_OK);
    for (q = 0; q < (size_t)P; ++q) {
        if (!parts) own[q] = csr_rows(A, cut[q], cut[q + 1]);
        ds[q] = d;
    }
    for (q = 0; q < (size_t)P; ++q) out[q] = again[q] = NULL;
    CHECK(shm_tsvd(rows, P, ds, cfg, NULL, out, res, NULL) == 0);
    CHECK(shm_tsvd(rows, P, ds, cfg, NULL, again, res2, NULL) == 0);
    for (q = 0; q < (size_t)P; ++q) {
        ok &= res[q] == RO_SGNS_OK && res2[q] == RO_SGNS_OK && out[q] && again[q];
        if (ok) same &= same_factors(out[q], again[q]);
    }
    CHECKF(ok, "%s: a shard failed", what);
    if (ok && ref && ro_sgns_factors_create(n, m, d, &st, NULL, NULL) == RO_SGNS_OK) {
        real *Ug = (real *)malloc(n * g * sizeof(real)), *Ur = (real *)malloc(n * g * sizeof(real));
        real *Vg = (real *)malloc(m * g * sizeof(real)), *Vr = (real *)malloc(m * g * sizeof(real));
        real sg[64], sr[64];
        for (q = 0; q < (size_t)P; ++q) {
            CHECK(out[q]->n == cut[q + 1] - cut[q] && out[q]->m == m && out[q]->d == d);
            memcpy(st->U + cut[q] * d, out[q]->U, out[q]->n * d * sizeof(real));
            same &= memcmp(out[q]->S, out[0]->S, d * d * sizeof(real)) == 0 &&
                    memcmp(out[q]->V, out[0]->V, m * d * sizeof(real)) == 0;
        }
        memcpy(st->S, out[0]->S, d * d * sizeof(real));
        memcpy(st->V, out[0]->V, m * d * sizeof(real));
        /* the top g triplets; S is diagonal in both */
        for (j = 0; j < g; ++j) {
            sg[j] = st->S[j * d + j];
            sr[j] = ref->S[j * d + j];
            for (i = 0; i < n; ++i) {
                Ug[i * g + j] = st->U[i * d + j];
                Ur[i * g + j] = ref->U[i * d + j];
            }
            for (i = 0; i < m; ++i) {
                Vg[i * g + j] = st->V[i * d + j];
                Vr[i * g + j] = ref->V[i * d + j];
            }
        }
        dS = tu_rel_diff(g, sg, sr);
        dU = tu_rel_diff(n * g, Ug, Ur);
        dV = tu_rel_diff(m * g, Vg, Vr);
        for (i = 0; i < n; ++i) /* X of the top g, dense */
            for (j = 0; j < m; ++j) {
                double a = 0, b = 0;
                size_t p;
                for (p = 0; p < g; ++p) {
                    a += (double)Ug[i * g + p] * sg[p] * Vg[j * g + p];
                    b += (double)Ur[i * g + p] * sr[p] * Vr[j * g + p];
                }
                dX += (a - b) * (a - b);
                xs += b * b;
            }
        dX = sqrt(dX / (xs > 0 ? xs : 1));
        for (i = 0; i < d; ++i) /* U^T U = I over the shards' rows together */
            for (j = 0; j < d; ++j) {
                double s = 0;
                size_t r;
                for (r = 0; r < n; ++r) s += (double)st->U[r * d + i] * st->U[r * d + j];
                s -= i == j ? 1 : 0;
                orth = tu_max(orth, fabs(s));
            }
        CHECKF(dS <= tol && dU <= tol && dV <= tol && dX <= tol,
               "%s: %d shards vs one: |dS| %.2e |dU| %.2e |dV| %.2e |dX| %.2e (tol %.0e)", what,
               P, dS, dU, dV, dX, tol);
        CHECKF(orth <= 50 * EPS * sqrt((double)n), "%s: U^T U - I %.2e", what, orth);
        CHECKF(same, "%s: shards disagree on S or V, or a second run differs", what);
        if (getenv("VERBOSE"))
            printf("%s, %d shards: |dS| %.2e |dU| %.2e |dV| %.2e |dX| %.2e, U^T U - I %.1e\n",
                   what, P, dS, dU, dV, dX, orth);
        free(Ug);
        free(Ur);
        free(Vg);
        free(Vr);
    }
    for (q = 0; q < (size_t)P; ++q) {
        ro_sgns_factors_free(out[q]);
        ro_sgns_factors_free(again[q]);
        if (!parts) ro_sgns_csr_free(own[q]);
    }
    ro_sgns_factors_free(st);
    ro_sgns_factors_free(ref);
    return dX > dU ? dX : dU;
}
#endif

static void test_tsvd_shards(void)
{
    double *Q1, sigma[200];
    ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default(), sub = cfg;
    ro_sgns_csr *A;
    ro_sgns_factors *f = NULL, *g = NULL;
    ro_sgns_comm one;
    ro_sgns_error err;
    size_t i;
    sub.method = RO_SGNS_TSVD_SUBSPACE;
    (void)sub; /* the shards run as threads: only with OpenMP */
    for (i = 0; i < 200; ++i) sigma[i] = 10 * pow(0.93, (double)i);
    A = known_csr(300, 200, 200, sigma, &Q1);
    /* one shard: ro_sgns_tsvd, bit for bit (comm NULL or of size 1) */
    CHECK(ro_sgns_tsvd(A, 12, NULL, &f, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_tsvd_shard(A, NULL, 12, NULL, &g, NULL, &err) == RO_SGNS_OK);
    CHECK(same_factors(f, g));
    ro_sgns_factors_free(g);
    g = NULL;
    memset(&one, 0, sizeof one);
    one.size = 1; /* the callbacks are never needed */
    CHECK(ro_sgns_tsvd_shard(A, &one, 12, NULL, &g, NULL, &err) == RO_SGNS_OK);
    CHECK(same_factors(f, g));
    ro_sgns_factors_free(f);
    ro_sgns_factors_free(g);
    f = g = NULL;
    CHECK(ro_sgns_tsvd_shard(NULL, NULL, 12, NULL, &g, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    one.size = 2; /* no callbacks */
    CHECK(ro_sgns_tsvd_shard(A, &one, 12, NULL, &g, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(!g);
#ifdef _OPENMP
    {
        double tol = sizeof(real) == sizeof(double) ? 1e-12 : 2e-5;
        size_t even2[] = {0, 150, 300}, odd3[] = {0, 101, 170, 300}, four[] = {0, 75, 150, 225, 300};
        ro_sgns_counts *c = zipf_counts(60000, 700);
        check_tsvd_shards(A, NULL, 12, &cfg, even2, 2, 0, tol, "krylov, 300 x 200, d 12");
        check_tsvd_shards(A, NULL, 12, &cfg, odd3, 3, 0, tol, "krylov, uneven");
        check_tsvd_shards(A, NULL, 12, &sub, odd3, 3, 0, tol, "subspace, uneven");
        check_tsvd_shards(A, NULL, 40, &cfg, four, 4, 0, tol, "krylov, d 40");
        /* the SPPMI of counts, its rows made by each shard alone */
        if (c) {
            ro_sgns_csr *S = NULL, *parts[4];
            size_t cut[5], q, P;
            CHECK(ro_sgns_sppmi(c, 5, 1, &S, NULL, &err) == RO_SGNS_OK);
            for (P = 2; P <= 4 && S; ++P) {
                char what[64];
                for (q = 0; q <= P; ++q) cut[q] = q * c->n / P;
                for (q = 0; q < P; ++q)
                    CHECK(ro_sgns_sppmi_rows(c, cut[q], cut[q + 1], 5, 1, &parts[q], NULL, &err) ==
                          RO_SGNS_OK);
                sprintf(what, "SPPMI %lu words, d 20", (unsigned long)c->n);
                check_tsvd_shards(S, parts, 20, &cfg, cut, (int)P, 0, tol, what);
                for (q = 0; q < P; ++q) ro_sgns_csr_free(parts[q]);
            }
            ro_sgns_csr_free(S);
            ro_sgns_counts_free(c);
        }
    }
    { /* rank 5 with d = 8: the basis is completed by Gaussian columns on
         each shard; the 5 nonzero triplets as on one process */
        ro_sgns_csr *D = NULL;
        size_t n = 90, cut[] = {0, 40, 90};
        uint64_t k = 0;
        ro_sgns_csr_create(n, n, 5, &D, NULL, NULL);
        for (i = 0; i < n; ++i) {
            if (i % 18 == 3) {
                D->col[k] = (uint32_t)(n - 1 - i);
                D->val[k++] = (real)(1 + (double)i);
            }
            D->row_ptr[i + 1] = k;
        }
        check_tsvd_shards(D, NULL, 8, &cfg, cut, 2, 5, sizeof(real) == sizeof(double) ? 1e-12 : 2e-5,
                          "rank 5, d 8");
        ro_sgns_csr_free(D);
    }
    { /* errors reach every shard, none is left waiting: a shard with fewer
         rows than d, a NULL matrix on one shard, shards asking for different d */
        ro_sgns_csr *parts[3];
        ro_sgns_factors *out[3];
        ro_sgns_result res[3];
        size_t ds[3] = {30, 30, 30}, cut[] = {0, 150, 280, 300}, q;
        for (q = 0; q < 3; ++q) parts[q] = csr_rows(A, cut[q], cut[q + 1]);
        out[0] = out[1] = out[2] = NULL;
        CHECK(shm_tsvd(parts, 3, ds, &cfg, NULL, out, res, NULL) == 0);
        for (q = 0; q < 3; ++q) CHECK(res[q] == RO_SGNS_ERR_INVALID_ARGUMENT && !out[q]);
        ds[0] = ds[1] = ds[2] = 10;
        ro_sgns_csr_free(parts[1]);
        parts[1] = NULL;
        out[0] = out[1] = out[2] = NULL;
        CHECK(shm_tsvd(parts, 3, ds, &cfg, NULL, out, res, NULL) == 0);
        for (q = 0; q < 3; ++q) CHECK(res[q] == RO_SGNS_ERR_INVALID_ARGUMENT && !out[q]);
        parts[1] = csr_rows(A, cut[1], cut[2]);
        ds[2] = 11;
        out[0] = out[1] = out[2] = NULL;
        CHECK(shm_tsvd(parts, 3, ds, &cfg, NULL, out, res, NULL) == 0);
        for (q = 0; q < 3; ++q) CHECK(res[q] == RO_SGNS_ERR_INVALID_ARGUMENT && !out[q]);
        for (q = 0; q < 3; ++q) ro_sgns_csr_free(parts[q]);
    }
#endif
    ro_sgns_csr_free(A);
    free(Q1);
}

int main(void)
{
    ro_sgns_rng_seed(&g_rng, 777, 0);
    test_sppmi_by_hand();
    test_sparse_kernels();
    test_csr_malformed();
    test_tsvd();
    test_tsvd_edges();
    test_tsvd_progress();
    test_embeddings();
    test_sppmi_rows();
    test_tsvd_shards();
    return tu_finish(sizeof(real) == sizeof(double) ? "sppmi(double)" : "sppmi(float)");
}
