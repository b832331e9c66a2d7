/* test_plain.c - Part I alone: ro_sgns.h with RO_SGNS_PLAIN, so only the
   implementation's basics and Part I are compiled, linked with libc and
   libm (no OpenMP). A small random problem goes end to end:
       counts (CSR) -> ro_sgns_problem_create_naive -> ro_sgns_start_naive
       -> ro_sgns_ro_train_naive (K steps) -> ro_sgns_factors_embeddings_naive
   and is checked against what each stage must satisfy: the start is the
   SPPMI's best rank-d approximation (Eckart-Young, against the full SVD
   of the SPPMI the test forms itself), F rises over the steps, and the
   embeddings reproduce X's SVD (W C^T = X, W^T W = C^T C = Sigma). The
   comparison with the fast path is in tests/test_ro.c
   (test_plain_vs_fast). Built in C99 and C++, float and double (make
   test). */
#define RO_SGNS_PLAIN
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

#define IS_D (sizeof(ro_sgns_real) == sizeof(double))
#define NW 36 /* words */
#define NC 28 /* contexts */
#define D 4
#define K 6

static uint64_t g_state = 0x2545F4914F6CDD1Dull;

/* xorshift64*: the test's own random numbers (Part I has none) */
static double uniform(void)
{
    g_state ^= g_state >> 12;
    g_state ^= g_state << 25;
    g_state ^= g_state >> 27;
    return (double)((g_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Counts with structure: pairs whose positions on a circle are close
   meet more often, frequent (low-index) words more often too; about half
   the pairs never meet. */
static size_t make_counts(uint64_t *row_ptr, uint32_t *col, float *val)
{
    size_t w, c, e = 0;
    row_ptr[0] = 0;
    for (w = 0; w < NW; ++w) {
        for (c = 0; c < NC; ++c) {
            double a = 6.283185307179586 * ((double)w / NW - (double)c / NC);
            double mean = 40.0 * (1 + cos(a)) * (1 + cos(2 * a) / 2) / (1 + 0.1 * (double)w);
            if (uniform() < 0.45) continue;
            col[e] = (uint32_t)c;
            val[e] = (float)(1 + floor(mean * (0.5 + uniform())));
            ++e;
        }
        row_ptr[w + 1] = e;
    }
    return e;
}

/* The SPPMI from its definition, dense: max(log(#(w,c) |D| / (#(w) #(c)))
   - log k, 0) on the pattern, in double. */
static void sppmi_dense(const uint64_t *row_ptr, const uint32_t *col, const float *val,
                        double k, ro_sgns_real *A)
{
    double rs[NW], cs[NC], total = 0;
    size_t w, c;
    uint64_t e;
    for (c = 0; c < NC; ++c) cs[c] = 0;
    for (w = 0; w < NW; ++w) {
        rs[w] = 0;
        for (e = row_ptr[w]; e < row_ptr[w + 1]; ++e) {
            rs[w] += val[e];
            cs[col[e]] += val[e];
            total += val[e];
        }
    }
    for (w = 0; w < NW * NC; ++w) A[w] = 0;
    for (w = 0; w < NW; ++w)
        for (e = row_ptr[w]; e < row_ptr[w + 1]; ++e) {
            double v = log((double)val[e] * total / (rs[w] * cs[col[e]])) - log(k);
            A[w * NC + col[e]] = (ro_sgns_real)(v > 0 ? v : 0);
        }
}

/* X = U S V^T, dense NW x NC, in double */
static void dense_x(const ro_sgns_factors *x, double *X)
{
    size_t w, c, i, j;
    for (w = 0; w < NW; ++w)
        for (c = 0; c < NC; ++c) {
            double s = 0;
            for (i = 0; i < D; ++i)
                for (j = 0; j < D; ++j)
                    s += (double)x->U[w * D + i] * x->S[i * D + j] * x->V[c * D + j];
            X[w * NC + c] = s;
        }
}

/* the start: X_0 is the SPPMI's best rank-D approximation */
static void check_start(const ro_sgns_factors *x, const ro_sgns_real *A)
{
    ro_sgns_real U[NW * NC], s[NC], V[NC * NC];
    double X[NW * NC], resid = 0, tail = 0, top = 0, orth = 0;
    const double tol = IS_D ? 1e-10 : 2e-4;
    size_t i, j, w;
    ro_sgns_error err;
    CHECKF(ro_sgns_svd_naive(NW, NC, A, NC, U, NC, s, V, NC, NULL, &err) == RO_SGNS_OK, "%s",
           err.message);
    for (j = 0; j < D; ++j) top = tu_max(top, fabs((double)x->S[j * D + j] - s[j]) / s[0]);
    CHECKF(top <= tol, "start: top singular values off by %.3g of sigma_1", top);
    for (j = D; j < NC; ++j) tail += (double)s[j] * s[j];
    dense_x(x, X);
    for (w = 0; w < NW * NC; ++w) resid += (X[w] - A[w]) * (X[w] - A[w]);
    /* Eckart-Young: |A - X_0|_F^2 = sigma_{d+1}^2 + ... */
    CHECKF(fabs(resid - tail) <= tol * (double)s[0] * s[0], "start: |A - X0|^2 %.6g, tail %.6g",
           resid, tail);
    /* the full SVD itself: U^T U = I */
    for (i = 0; i < NC; ++i)
        for (j = 0; j < NC; ++j) {
            double dot = 0;
            for (w = 0; w < NW; ++w) dot += (double)U[w * NC + i] * U[w * NC + j];
            orth = tu_max(orth, fabs(dot - (i == j)));
        }
    CHECKF(orth <= (IS_D ? 1e-12 : 1e-5), "svd_naive: |U^T U - I| = %.3g", orth);
}

/* the embeddings reproduce X's SVD: W C^T = X and W^T W = C^T C = Sigma */
static void check_embeddings(const ro_sgns_factors *x)
{
    ro_sgns_real W[NW * D], C[NC * D], WC[NW * D], sig[D];
    double X[NW * NC], diff = 0, xn = 0, gram = 0;
    const double tol = IS_D ? 1e-10 : 1e-4;
    size_t w, c, i, j;
    CHECK(ro_sgns_factors_embeddings_naive(x, 0.5, RO_SGNS_EMBED_W, W, D, NULL, NULL) == RO_SGNS_OK);
    CHECK(ro_sgns_factors_embeddings_naive(x, 0.5, RO_SGNS_EMBED_C, C, D, NULL, NULL) == RO_SGNS_OK);
    CHECK(ro_sgns_svd_naive(D, D, x->S, D, NULL, D, sig, NULL, D, NULL, NULL) == RO_SGNS_OK);
    dense_x(x, X);
    for (w = 0; w < NW; ++w)
        for (c = 0; c < NC; ++c) {
            double s = 0;
            for (i = 0; i < D; ++i) s += (double)W[w * D + i] * C[c * D + i];
            diff += (s - X[w * NC + c]) * (s - X[w * NC + c]);
            xn += X[w * NC + c] * X[w * NC + c];
        }
    CHECKF(sqrt(diff / xn) <= tol, "embeddings: |W C^T - X| / |X| = %.3g", sqrt(diff / xn));
    for (i = 0; i < D; ++i)
        for (j = 0; j < D; ++j) {
            double ww = 0, cc = 0, want = i == j ? (double)sig[i] : 0;
            for (w = 0; w < NW; ++w) ww += (double)W[w * D + i] * W[w * D + j];
            for (c = 0; c < NC; ++c) cc += (double)C[c * D + i] * C[c * D + j];
            gram = tu_max(gram, tu_max(fabs(ww - want), fabs(cc - want)) / (double)sig[0]);
        }
    CHECKF(gram <= tol, "embeddings: |W^T W - Sigma|, |C^T C - Sigma| up to %.3g sigma_1", gram);
    /* bad arguments: an error, not a crash */
    CHECK(ro_sgns_factors_embeddings_naive(x, 0.5, RO_SGNS_EMBED_W_PLUS_C, WC, D, NULL, NULL) ==
          RO_SGNS_ERR_INVALID_ARGUMENT); /* n != m */
    CHECK(ro_sgns_factors_embeddings_naive(x, 0.5, RO_SGNS_EMBED_W, W, D - 1, NULL, NULL) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
}

static void check_refusals(const uint64_t *row_ptr, uint32_t *col, const float *val)
{
    ro_sgns_problem *p = NULL;
    ro_sgns_error err;
    uint32_t keep = col[1];
    CHECK(ro_sgns_problem_create_naive(NW, NC, row_ptr, col, val, 0, &p, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_problem_create_naive(NW, NC, NULL, col, val, 5, &p, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    col[1] = col[0]; /* columns out of order */
    CHECK(ro_sgns_problem_create_naive(NW, NC, row_ptr, col, val, 5, &p, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    col[1] = keep;
    CHECK(p == NULL);
    CHECK(ro_sgns_start_naive(NULL, D, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_ro_train_naive(NULL, NULL, RO_SGNS_DIRECTION_SCALED, 1, 1, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    static uint64_t row_ptr[NW + 1];
    static uint32_t col[NW * NC];
    static float val[NW * NC];
    static ro_sgns_real A[NW * NC];
    const double k = 5;
    double F[K + 1];
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_error err;
    int i, rises = 1;
    make_counts(row_ptr, col, val);
    check_refusals(row_ptr, col, val);
    CHECKF(ro_sgns_problem_create_naive(NW, NC, row_ptr, col, val, k, &p, NULL, &err) == RO_SGNS_OK,
           "%s", err.message);
    CHECKF(ro_sgns_start_naive(p, D, &x, &err) == RO_SGNS_OK, "%s", err.message);
    if (!p || !x) return tu_finish("test_plain");
    sppmi_dense(row_ptr, col, val, k, A);
    check_start(x, A);
    CHECK(ro_sgns_ro_train_naive(p, x, RO_SGNS_DIRECTION_PLAIN, 0, K, F, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECKF(ro_sgns_ro_train_naive(p, x, RO_SGNS_DIRECTION_SCALED, 1, K, F, &err) == RO_SGNS_OK,
           "%s", err.message);
    for (i = 0; i < K; ++i) rises &= F[i + 1] >= F[i];
    CHECKF(rises && F[K] > F[0] + 1e-3 * fabs(F[0]), "F from %.8g to %.8g", F[0], F[K]);
    CHECK(x->iteration >= 1 && x->iteration <= K);
    check_embeddings(x);
    if (getenv("VERBOSE")) printf("test_plain: F %.6g -> %.6g in %d steps\n", F[0], F[K], K);
    ro_sgns_factors_free(x);
    ro_sgns_problem_free(p);
    return tu_finish("test_plain");
}
