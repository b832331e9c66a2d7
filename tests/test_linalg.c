/* test_linalg.c - appendix A-C of ro_sgns.h against independent references:
   GEMM against the naive triple loop (itself accumulating in double), QR and
   SVD against their defining identities, matrices with a known spectrum,
   and, in the LAPACKE build (make lapacke), against LAPACKE.

   Tolerances (eps = machine epsilon of ro_sgns_real):
     GEMM   |C - C_ref|_ij <= 2 eps (min(k, KC) + k / KC + 2) (|alpha| |A||B| + |beta| |C|)_ij,
            the forward error bound of a sum blocked in chunks of KC = 256;
     QR     |Q^T Q - I|_F and |A - Q R|_F / |A|_F <= 50 n eps, and in
            practice far below it (printed with -v);
     SVD    |A - U S V^T|_F / |A|_F and orthogonality <= 50 max(m, n) eps; known singular
            values within 50 max(m,n) eps relative to sigma_max (relative to each sigma
            for the well-conditioned ones). */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

#include <float.h>
#include <string.h>

typedef ro_sgns_real real;
static const double EPS = sizeof(real) == sizeof(double) ? DBL_EPSILON : FLT_EPSILON;

static ro_sgns_rng g_rng;

/* The GEMM kernel a build compiles (II.1): AVX-512F when the compiler
   targets it, else AVX2 + FMA, else the portable C kernel (always, under
   RO_SGNS_NO_SIMD). KERNEL_WANT is that rule from the compiler's macros,
   KERNEL_GOT what the header chose: its register tile's width in bits
   (two vectors of NR / 2 reals, MR x NR; the portable kernel's 4 x 8 is
   0). A compile-time check too, so that a build for a CPU that cannot run
   it still checks the choice (make kernel-rule: AVX-512 and AVX2 on any
   x86-64). */
#if defined(RO_SGNS_NO_SIMD)
#define KERNEL_WANT 0
#elif defined(__AVX512F__)
#define KERNEL_WANT 512
#elif defined(__AVX2__) && defined(__FMA__)
#define KERNEL_WANT 256
#else
#define KERNEL_WANT 0
#endif
#define KERNEL_GOT (RO_SGNS__MR == 4 && RO_SGNS__NR == 8 ? 0 : RO_SGNS__NR * (int)sizeof(real) * 4)
typedef char kernel_rule_check[KERNEL_GOT == KERNEL_WANT ? 1 : -1];

static void test_kernel_rule(void)
{
    CHECKF(KERNEL_GOT == KERNEL_WANT, "the GEMM kernel is %d bits wide (MR %d, NR %d), the rule says %d",
           (int)KERNEL_GOT, (int)RO_SGNS__MR, (int)RO_SGNS__NR, KERNEL_WANT);
    printf("gemm kernel: %s, %d x %d\n", KERNEL_GOT == 512 ? "AVX-512" : KERNEL_GOT == 256 ? "AVX2 + FMA" : "portable",
           (int)RO_SGNS__MR, (int)RO_SGNS__NR);
}

static real *rnd_matrix(size_t rows, size_t cols, double scale)
{
    real *a = (real *)malloc((rows * cols + 1) * sizeof(real));
    size_t i;
    for (i = 0; i < rows * cols; ++i) a[i] = (real)(scale * ro_sgns_rng_normal(&g_rng));
    return a;
}

static RO_SGNS__MAYBE_UNUSED double max_abs_diff(size_t n, const real *a, const real *b)
{
    double m = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= m)) m = d; /* NaN wins */
    }
    return m;
}

/* ---------------------------------------------------------------- GEMM */

static void check_gemm(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n, size_t k,
                       real alpha, real beta, size_t pad)
{
    size_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    size_t lda = ac + pad, ldb = bc + pad, ldc = n + pad, i, j, p, t;
    int sampled;
    real *A = rnd_matrix(ar, lda, 1), *B = rnd_matrix(br, ldb, 1), *C = rnd_matrix(m, ldc, 1);
    real *C0 = (real *)malloc(m * ldc * sizeof(real) + 1), *Cr = (real *)malloc(m * ldc * sizeof(real) + 1);
    ro_sgns_error err;
    ro_sgns_result res;
    double worst = 0;
    int ok = 1;
    if (beta == 0) /* beta = 0 must not read C: poison it */
        for (i = 0; i < m * ldc; ++i) C[i] = (real)NAN;
    memcpy(C0, C, m * ldc * sizeof(real));
    memcpy(Cr, C, m * ldc * sizeof(real));
    res = ro_sgns_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, NULL, &err);
    CHECKF(res == RO_SGNS_OK, "%s", err.message);
    /* Big products are checked on a random sample of 3000 entries, each
       against its own dot product in double; small ones everywhere against
       ro_sgns_gemm_naive. */
    sampled = (double)m * (double)n * (double)k > 2e7;
    if (!sampled) ro_sgns_gemm_naive(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, Cr, ldc);
    for (t = 0; t < (sampled ? 3000 : m * n); ++t) {
        double absab = 0, bound, diff, ref = 0;
        i = sampled ? (size_t)(ro_sgns_rng_uniform(&g_rng) * (double)m) : t / n;
        j = sampled ? (size_t)(ro_sgns_rng_uniform(&g_rng) * (double)n) : t % n;
        for (p = 0; p < k; ++p) {
            double a = ta ? A[p * lda + i] : A[i * lda + p], b = tb ? B[j * ldb + p] : B[p * ldb + j];
            absab += fabs(a * b);
            ref += a * b;
        }
        if (sampled) Cr[i * ldc + j] = (real)(alpha * ref + (beta == 0 ? 0 : beta * C0[i * ldc + j]));
        bound = 2 * EPS * ((double)(k < 256 ? k : 256) + (double)k / 256 + 2) *
                (fabs((double)alpha) * absab +
                 (beta == 0 ? 0 : fabs((double)beta * C0[i * ldc + j])));
        diff = fabs((double)C[i * ldc + j] - (double)Cr[i * ldc + j]);
        if (!(diff <= bound + 1e-300)) ok = 0;
        if (bound > 0) worst = tu_max(worst, diff / bound);
    }
    /* padding columns of C are untouched */
    for (i = 0; i < m; ++i)
        for (j = n; j < ldc; ++j)
            if (memcmp(&C[i * ldc + j], &C0[i * ldc + j], sizeof(real)) != 0) ok = 0;
    CHECKF(ok, "gemm %c%c %lux%lux%lu alpha %g beta %g pad %lu: worst error/bound %.3g",
           ta ? 'T' : 'N', tb ? 'T' : 'N', (unsigned long)m, (unsigned long)n,
           (unsigned long)k, (double)alpha, (double)beta, (unsigned long)pad, worst);
    free(A);
    free(B);
    free(C);
    free(C0);
    free(Cr);
}

static void test_gemm(void)
{
    /* n = 100 and 200 leave edge panels of 4 and 8 columns (the narrow
       kernel of AVX-512 float), 500 and 300 panels of 20 (AVX-512) and 12
       (AVX2) columns (the half-width kernel, then the narrow one), with odd
       k and k > KC */
    static const size_t sizes[][3] = {{1, 1, 1},    {7, 13, 5},    {257, 31, 129}, {13, 7, 300},
                                      {49, 65, 257}, {2, 600, 3},  {300, 2, 520},  {1, 33, 1},
                                      {37, 100, 515}, {25, 200, 257}, {19, 500, 261},
                                      {21, 300, 300}};
    static const double ab[][2] = {{1, 0}, {1, 1}, {0, 1}, {0, 0}, {-1.5, 0.5}, {0.25, -2}};
    size_t s, t, x;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (t = 0; t < 4; ++t)
            for (x = 0; x < sizeof ab / sizeof ab[0]; ++x)
                /* RO_SGNS_TEST_QUICK: the larger sizes with beta = 0 (C not
                   read) and a general alpha, beta only */
                if (!tu_quick() || sizes[s][0] * sizes[s][1] * sizes[s][2] < 100000 || x == 0 ||
                    x == 4)
                    check_gemm((ro_sgns_trans)(t & 1), (ro_sgns_trans)(t >> 1), sizes[s][0],
                           sizes[s][1], sizes[s][2], (real)ab[x][0], (real)ab[x][1], x % 3);
    if (tu_quick()) return; /* RO_SGNS_TEST_QUICK: skip the big one */
    for (t = 0; t < 4; ++t) /* the big one, once per transpose pair */
        check_gemm((ro_sgns_trans)(t & 1), (ro_sgns_trans)(t >> 1), 1000, 500, 3000, 1, 0, 0);
    check_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 1000, 500, 3000, (real)0.5, (real)-1, 3);
}

static void test_gemm_edges(void)
{
    real a[4] = {1, 2, 3, 4}, c[4] = {1, 1, 1, 1};
    ro_sgns_error err;
    /* k = 0: C = beta C */
    CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 2, 2, 0, 1, a, 1, a, 2, 3, c, 2, NULL,
                       &err) == RO_SGNS_OK);
    CHECK(c[0] == 3 && c[3] == 3);
    /* m = 0 or n = 0: nothing to do, even with NULL pointers */
    CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 0, 2, 2, 1, NULL, 2, NULL, 2, 0, NULL,
                       2, NULL, NULL) == RO_SGNS_OK);
    /* bad leading dimensions and NULLs are errors with a message, not crashes */
    CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 2, 2, 2, 1, a, 1, a, 2, 0, c, 2, NULL,
                       &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "lda") != NULL);
    CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, 2, 2, 2, 1, a, 2, a, 1, 0, c, 2, NULL,
                       &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 2, 2, 2, 1, a, 2, a, 2, 0, c, 1, NULL,
                       &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 2, 2, 2, 1, NULL, 2, a, 2, 0, c, 2,
                       NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    /* NaN in A propagates (no silent cleaning) */
    {
        real an[4] = {1, (real)NAN, 3, 4}, cn[4];
        CHECK(ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 2, 2, 2, 1, an, 2, a, 2, 0, cn, 2,
                           NULL, NULL) == RO_SGNS_OK);
        CHECK(cn[0] != cn[0] && cn[1] != cn[1] && cn[2] == cn[2]);
    }
}

/* The micro-kernels against the portable one, ro_sgns__kernel_c (the plain
   reference of appendix A), on the same packed panels: the full-tile
   kernel (ro_sgns__kernel, the SIMD one where the build has it) and the
   edge kernels (ro_sgns__kernel_edge: half-width, narrow) for every edge
   width, at the GEMM bound above with k = kc (one KC block); bitwise where
   the build has no SIMD kernel, as it then is the portable one. */
static void test_gemm_kernels(void)
{
    const size_t MR = RO_SGNS__MR, NR = RO_SGNS__NR;
    static const size_t kcs[] = {1, 2, 3, 7, 16, 100, 255, 256};
    size_t t, i, j, p, cols;
#if defined(RO_SGNS__AVX512) || defined(RO_SGNS__AVX2)
    const int bitwise = 0;
#else
    const int bitwise = 1;
#endif
    real *abuf = (real *)malloc((MR * 256 + 64) * sizeof(real));
    real *bbuf = (real *)malloc((NR * 256 + 64) * sizeof(real));
    real *cbuf = (real *)malloc((2 * MR * 32 + 128) * sizeof(real));
    real *a = ro_sgns__align64(abuf), *b = ro_sgns__align64(bbuf), *ref = ro_sgns__align64(cbuf);
    real *acc = ro_sgns__align64(ref + MR * 32);
    for (t = 0; t < sizeof kcs / sizeof kcs[0]; ++t) {
        const size_t kc = kcs[t];
        for (i = 0; i < MR * kc; ++i) a[i] = (real)ro_sgns_rng_normal(&g_rng);
        for (i = 0; i < NR * kc; ++i) b[i] = (real)ro_sgns_rng_normal(&g_rng);
        ro_sgns__kernel_c(kc, a, b, ref);
        for (cols = 0; cols <= NR; ++cols) { /* 0: the full tile's kernel */
            int ok = 1;
            for (i = 0; i < MR * NR; ++i) acc[i] = (real)NAN;
            if (cols == 0)
                ro_sgns__kernel(kc, a, b, acc, NULL, 0, 0, 0, 0);
            else
                ro_sgns__kernel_edge(kc, a, b, acc, cols);
            for (i = 0; i < MR; ++i)
                for (j = 0; j < (cols ? cols : NR); ++j) {
                    double absab = 0, bound;
                    for (p = 0; p < kc; ++p) absab += fabs((double)a[p * MR + i] * b[p * NR + j]);
                    bound = 2 * EPS * ((double)kc + 3) * absab;
                    if (bitwise ? memcmp(&acc[i * NR + j], &ref[i * NR + j], sizeof(real)) != 0
                                : !(fabs((double)acc[i * NR + j] - ref[i * NR + j]) <= bound))
                        ok = 0;
                }
            CHECKF(ok, "micro-kernel kc %lu, %lu columns (0: full): off the portable kernel",
                   (unsigned long)kc, (unsigned long)cols);
        }
    }
    free(abuf);
    free(bbuf);
    free(cbuf);
}

/* The RO sweep's tile products (ro_sgns__gemm_run_tile: A read in place in
   AVX-512 builds when n < KC, with the narrow edge columns of float as dot
   products along k; packed otherwise, as n = 500 here): against a dot product in double per entry at the bound of
   check_gemm; bitwise the same with op(B) packed ahead or not; and, but
   for a float build's narrow edge panel (the last n % NR columns when
   8 or fewer, or those past NR / 2 when that leaves 8 or fewer), bitwise
   ro_sgns_gemm_builtin's C (the same sums in the same order). Shapes: the sweep's
   288 x 512 tiles and its last block of rows (176: a partial panel of 8),
   rows that are not a multiple of MR, k with a tail that is not a multiple
   of 16 and k > KC; a NaN in A spreads to its whole row, edge included. */
static void check_gemm_tile(size_t m, size_t n, size_t k, real beta)
{
    const size_t nr = ro_sgns__gemm_nr(), ld = (n + nr - 1) / nr * nr;
    size_t i, j, p, full = n / nr * nr, edge = n - full;
    int overflow = 0, ok_ref = 1, ok_pb = 1, ok_gemm = 1;
    real *A = rnd_matrix(m, k, 1), *B = rnd_matrix(k, n, 1), *C0 = rnd_matrix(m, n, 1);
    real *C1 = (real *)malloc(m * n * sizeof(real)), *C2 = (real *)malloc(m * n * sizeof(real));
    real *C3 = (real *)malloc(m * n * sizeof(real));
    real *ws = (real *)malloc(ro_sgns__gemm_ws_elems(n, 1, &overflow) * sizeof(real));
    real *pbuf = (real *)malloc((k * ld + 64) * sizeof(real)), *pal = ro_sgns__align64(pbuf);
    ro_sgns__packed_b pb;
    double worst = 0;
    /* float, AVX-512 or AVX2: the columns the narrow kernels take differ */
    if (!RO_SGNS__IS_DOUBLE && edge > 0) {
        size_t rest = edge > 8 ? edge - nr / 2 : edge;
        if (rest <= 8 && edge <= 8 + nr / 2 && nr >= 16) full = n - rest;
    }
    memcpy(C1, C0, m * n * sizeof(real));
    memcpy(C2, C0, m * n * sizeof(real));
    memcpy(C3, C0, m * n * sizeof(real));
    ro_sgns__gemm_run_tile(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, n, k, A, k, B, n, NULL, beta, C1,
                           n, ws);
    ro_sgns__pack_b_ahead(RO_SGNS_NOTRANS, B, n, n, k, pal, ld);
    pb.base = pal;
    pb.ld = ld;
    pb.col0 = 0;
    ro_sgns__gemm_run_tile(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, n, k, A, k, NULL, 0, &pb, beta, C2,
                           n, ws);
    /* the built-in GEMM (ro_sgns_gemm is the BLAS's under RO_SGNS_USE_CBLAS) */
    CHECK(ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, n, k, 1, A, k, B, n, beta, C3,
                               n, NULL, NULL) == RO_SGNS_OK);
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            double ref = beta * (double)C0[i * n + j], absab = fabs(ref), diff, bound;
            for (p = 0; p < k; ++p) {
                ref += (double)A[i * k + p] * (double)B[p * n + j];
                absab += fabs((double)A[i * k + p] * (double)B[p * n + j]);
            }
            bound = 2 * EPS * ((double)(k < 256 ? k : 256) + (double)k / 256 + 2) * absab;
            diff = fabs((double)C1[i * n + j] - ref);
            if (!(diff <= bound + 1e-300)) ok_ref = 0;
            if (bound > 0) worst = tu_max(worst, diff / bound);
            if (memcmp(&C1[i * n + j], &C2[i * n + j], sizeof(real)) != 0) ok_pb = 0;
            if (j < full && memcmp(&C1[i * n + j], &C3[i * n + j], sizeof(real)) != 0) ok_gemm = 0;
        }
    CHECKF(ok_ref, "tile %lux%lux%lu beta %g: worst error/bound %.3g", (unsigned long)m,
           (unsigned long)n, (unsigned long)k, (double)beta, worst);
    CHECKF(ok_pb, "tile %lux%lux%lu: packed ahead or not differ", (unsigned long)m,
           (unsigned long)n, (unsigned long)k);
    CHECKF(ok_gemm, "tile %lux%lux%lu: columns < %lu differ from the built-in GEMM", (unsigned long)m,
           (unsigned long)n, (unsigned long)k, (unsigned long)full);
    /* a NaN in row m - 1 of A: that row of C all NaN, the others clean */
    A[(m - 1) * k + k / 2] = (real)NAN;
    ro_sgns__gemm_run_tile(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, n, k, A, k, B, n, NULL, 0, C1, n,
                           ws);
    ok_ref = 1;
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j)
            if ((C1[i * n + j] != C1[i * n + j]) != (i == m - 1)) ok_ref = 0;
    CHECKF(ok_ref, "tile %lux%lux%lu: NaN row", (unsigned long)m, (unsigned long)n,
           (unsigned long)k);
    free(A);
    free(B);
    free(C0);
    free(C1);
    free(C2);
    free(C3);
    free(ws);
    free(pbuf);
}

static void test_gemm_tile(void)
{
    /* {m, n, k}: n = 100, 200, 500 as in the RO step (edges of 4, 8 and 20
       columns of AVX-512 float), 1..40 columns, k = 100 and 512 as in the
       sweep's two products, odd and > KC */
    static const size_t sizes[][3] = {{288, 100, 512}, {176, 100, 100}, {288, 200, 512},
                                      {24, 500, 300},  {13, 1, 37},     {5, 3, 17},
                                      {25, 7, 100},    {12, 9, 257},    {30, 20, 64},
                                      {17, 24, 16},    {36, 33, 515},   {14, 40, 1}};
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        check_gemm_tile(sizes[s][0], sizes[s][1], sizes[s][2], 0);
        check_gemm_tile(sizes[s][0], sizes[s][1], sizes[s][2], 1);
    }
}

/* The same product with 1 and 2 threads: bitwise equal. */
static void test_gemm_threads(void)
{
#ifdef _OPENMP
    /* RO_SGNS_TEST_QUICK: still several row blocks, two k blocks (KC = 256)
       and above the size that is split over threads */
    size_t m = tu_quick() ? 150 : 333, n = tu_quick() ? 200 : 517, k = tu_quick() ? 300 : 700;
    real *A = rnd_matrix(m, k, 1), *B = rnd_matrix(k, n, 1);
    real *C1 = (real *)malloc(m * n * sizeof(real)), *C2 = (real *)malloc(m * n * sizeof(real));
    int t, saved = omp_get_max_threads();
    for (t = 0; t < 4; ++t) {
        ro_sgns_trans ta = (ro_sgns_trans)(t & 1), tb = (ro_sgns_trans)(t >> 1);
        omp_set_num_threads(1);
        ro_sgns_gemm_builtin(ta, tb, m, n, k, 1, A, ta ? m : k, B, tb ? k : n, 0, C1, n, NULL,
                             NULL);
        omp_set_num_threads(2);
        ro_sgns_gemm_builtin(ta, tb, m, n, k, 1, A, ta ? m : k, B, tb ? k : n, 0, C2, n, NULL,
                             NULL);
        CHECKF(memcmp(C1, C2, m * n * sizeof(real)) == 0, "gemm %d: 1 and 2 threads differ", t);
        omp_set_num_threads(3);
        ro_sgns_gemm_builtin(ta, tb, m, n, k, 1, A, ta ? m : k, B, tb ? k : n, 0, C2, n, NULL,
                             NULL);
        CHECKF(memcmp(C1, C2, m * n * sizeof(real)) == 0, "gemm %d: 1 and 3 threads differ", t);
    }
    omp_set_num_threads(saved);
    free(A);
    free(B);
    free(C1);
    free(C2);
#endif
}

/* The two halved products of the Cholesky QR: the upper triangle of
   A^T A (RO_SGNS__UPPER_C) and A T for an upper triangular T
   (RO_SGNS__UPPER_B), against the naive product at the GEMM tolerance
   above, and bitwise against the full product of the same kernel (the
   work they skip is tiles nobody reads, or sums of products with zeros);
   1, 2 and 3 threads give the same bits. Then ro_sgns__gram_upper and
   ro_sgns__times_upper, the routes the QR takes (CBLAS's syrk and trmm in
   the LAPACKE build), against the naive product. */
static void check_shaped(size_t n, size_t d)
{
    real *A = rnd_matrix(n, d, 1), *T = rnd_matrix(d, d, 1), *ref = NULL, *abs_ab = NULL;
    real *Aa = (real *)malloc(n * d * sizeof(real) + 1), *Ta = (real *)malloc(d * d * sizeof(real) + 1);
    real *full = (real *)malloc(n * d * sizeof(real) + 1), *got = (real *)malloc(n * d * sizeof(real) + 1);
    size_t i, j, rows[2] = {d, n}, kk[2] = {n, d};
    int nt, w, of = 0;
    real *ws = (real *)malloc(ro_sgns__gemm_ws_elems(d, 3, &of) * sizeof(real));
    for (i = 0; i < d; ++i)
        for (j = 0; j < i; ++j) T[i * d + j] = 0;
    for (i = 0; i < n * d; ++i) Aa[i] = (real)fabs((double)A[i]);
    for (i = 0; i < d * d; ++i) Ta[i] = (real)fabs((double)T[i]);
    ref = (real *)malloc(n * d * sizeof(real) + 1);
    abs_ab = (real *)malloc(n * d * sizeof(real) + 1);
    for (w = 0; w < 2; ++w) { /* 0: A^T A, upper; 1: A T */
        const size_t m = rows[w], k = kk[w];
        const double tol = 2 * EPS * ((double)ro_sgns__min(k, RO_SGNS__KC) + (double)k / RO_SGNS__KC + 2);
        const ro_sgns_trans ta = w == 0 ? RO_SGNS_TRANS : RO_SGNS_NOTRANS;
        const real *B = w == 0 ? A : T, *Ba = w == 0 ? Aa : Ta;
        const size_t ldb = d;
        const int shape = w == 0 ? RO_SGNS__UPPER_C : RO_SGNS__UPPER_B;
        double worst = 0;
        int same = 1, route_ok = 1;
        ro_sgns__gemm_op op = ro_sgns__gemm_op_of(m, d, k, 1, ro_sgns__operand_of(ta, A, d),
                                                  ro_sgns__operand_of(RO_SGNS_NOTRANS, B, ldb), 0,
                                                  full, d);
        ro_sgns_gemm_naive(ta, RO_SGNS_NOTRANS, m, d, k, 1, A, d, B, ldb, 0, ref, d);
        ro_sgns_gemm_naive(ta, RO_SGNS_NOTRANS, m, d, k, 1, Aa, d, Ba, ldb, 0, abs_ab, d);
        ro_sgns__gemm_ws(&op, 1, ws, RO_SGNS__FULL);
        op.C = got;
        for (nt = 1; nt <= 3; ++nt) {
            for (i = 0; i < m * d; ++i) got[i] = (real)NAN;
            ro_sgns__gemm_ws(&op, nt, ws, shape);
            for (i = 0; i < m; ++i)
                for (j = w == 0 ? i : 0; j < d; ++j) {
                    double e = fabs((double)got[i * d + j] - (double)ref[i * d + j]);
                    if (memcmp(&got[i * d + j], &full[i * d + j], sizeof(real)) != 0) same = 0;
                    if (!(e <= tol * (double)abs_ab[i * d + j])) same = 0;
                    if (!(e <= worst)) worst = e;
                }
        }
        CHECKF(same, "%s %lu x %lu: not the full product's bits or off the reference by %.3g",
               w == 0 ? "gram upper" : "times upper", (unsigned long)n, (unsigned long)d, worst);
        /* the route the QR takes */
        for (i = 0; i < m * d; ++i) got[i] = (real)NAN;
        if (w == 0)
            ro_sgns__gram_upper(n, d, A, d, got, ws);
        else
            ro_sgns__times_upper(n, d, A, d, T, got, d, ws);
        for (i = 0; i < m; ++i)
            for (j = w == 0 ? i : 0; j < d; ++j)
                if (!(fabs((double)got[i * d + j] - (double)ref[i * d + j]) <=
                      tol * (double)abs_ab[i * d + j]))
                    route_ok = 0;
        CHECKF(route_ok, "%s %lu x %lu: the QR's route is off the reference",
               w == 0 ? "gram_upper" : "times_upper", (unsigned long)n, (unsigned long)d);
    }
    free(A);
    free(T);
    free(Aa);
    free(Ta);
    free(full);
    free(got);
    free(ref);
    free(abs_ab);
    free(ws);
}

static void test_gemm_shapes(void)
{
    /* d = 100 / 200: the narrow edge kernels; 515: two KC blocks and a
       panel cut by the second; 37 x 37 and 1 x 1: one tile */
    static const size_t sizes[][2] = {{1, 1}, {37, 37}, {300, 5}, {2000, 100}, {900, 200},
                                      {600, 515}, {700, 300}};
    size_t s;
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    omp_set_num_threads(3);
#endif
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        if (!tu_quick() || sizes[s][0] * sizes[s][1] * sizes[s][1] < 30000000u)
            check_shaped(sizes[s][0], sizes[s][1]);
#ifdef _OPENMP
    omp_set_num_threads(saved);
#endif
}

/* ------------------------------------------------------------------ QR */

static double frob(size_t n, const real *a)
{
    double s = 0;
    size_t i;
    for (i = 0; i < n; ++i) s += (double)a[i] * a[i];
    return sqrt(s);
}

/* |Q^T Q - I|_F, computed in double by naive loops */
static double orth_error(size_t n, size_t d, const real *Q, size_t ldq)
{
    double e = 0;
    size_t i, j, p;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            double s = 0;
            for (p = 0; p < n; ++p) s += (double)Q[p * ldq + i] * Q[p * ldq + j];
            s -= (i == j);
            e += s * s;
        }
    return sqrt(e);
}

/* Bounds in units of n eps, from the largest errors measured over every
   case below and 10 seeds of its random matrices (x86-64, gcc -O2, the
   built-in kernels; LAPACKE's are smaller but for float SVD; VERBOSE=1
   prints each case's), times the margin in brackets:
     QR   |Q^T Q - I|    measured 1.62 (double, 7 x 7)           bound 5 (3x)
          |A - QR|/|A|   measured 0.64                           bound 2 (3x)
     SVD  |A - U S V^T|  measured 0.25 float, 2.3 double          bound 1 (4x), 10 (4x)
          |U^T U - I|    measured 1.08 float, 26.9 double         bound 4 (4x), 50 (2x:
                         one-sided Jacobi in double stops at a looser
                         orthogonality than Householder QR reaches)
          known sigma    measured 0.68 float, 1.87 double         bound 2 (3x), 5 (3x)
     cond 1e10 (double)  measured 2.8e-7 relative                 bound 1e-6 (3.6x) */
#define QR_ORTH 5.0
#define QR_REC 2.0
#define SVD_REC (sizeof(real) == sizeof(double) ? 10.0 : 1.0)
#define SVD_ORTH (sizeof(real) == sizeof(double) ? 50.0 : 4.0)
#define SVD_SIGMA (sizeof(real) == sizeof(double) ? 5.0 : 2.0)

/* which QR check_qr runs: 0 ro_sgns_qr, 1 the RO step's (CholeskyQR2 when
   it vouches for its answer, else ro_sgns_qr; II.2), 2 the plain one
   (ro_sgns_qr_naive, I.5), 3 the blocked one (ro_sgns_qr_builtin, II.2,
   which ro_sgns_qr is not under RO_SGNS_USE_LAPACKE) */
static int g_qr_step;

static ro_sgns_result run_qr(size_t n, size_t d, real *Q, real *R, ro_sgns_error *err)
{
    real *W;
    ro_sgns_result res;
    if (!g_qr_step) return ro_sgns_qr(n, d, Q, d, R, d, NULL, err);
    if (g_qr_step == 2) return ro_sgns_qr_naive(n, d, Q, d, R, d, NULL, err);
    if (g_qr_step == 3) return ro_sgns_qr_builtin(n, d, Q, d, R, d, NULL, err);
    W = (real *)malloc(n * d * sizeof(real));
    res = ro_sgns__qr_step(n, d, Q, R, W, NULL, err);
    free(W);
    return res;
}

static void check_qr(const char *what, size_t n, size_t d, const real *A0)
{
    real *Q = (real *)malloc(n * d * sizeof(real)), *R = (real *)malloc(d * d * sizeof(real));
    ro_sgns_error err;
    ro_sgns_result res;
    /* tol: the old bound, kept for the builtin-vs-LAPACKE comparison below */
    double tol = 50 * (double)n * EPS, e_orth, e_rec = 0, nA = frob(n * d, A0);
    double neps = (double)n * EPS;
    size_t i, j, p;
    int upper = 1, diag = 1;
    memcpy(Q, A0, n * d * sizeof(real));
    res = run_qr(n, d, Q, R, &err);
    CHECKF(res == RO_SGNS_OK, "qr %s: %s", what, err.message);
    e_orth = orth_error(n, d, Q, d);
    for (i = 0; i < n; ++i)
        for (j = 0; j < d; ++j) {
            double s = 0;
            for (p = 0; p < d; ++p) s += (double)Q[i * d + p] * R[p * d + j];
            s -= A0[i * d + j];
            e_rec += s * s;
        }
    e_rec = sqrt(e_rec) / (nA > 0 ? nA : 1);
    for (i = 0; i < d; ++i) {
        if (!(R[i * d + i] >= 0)) diag = 0;
        for (j = 0; j < i; ++j)
            if (R[i * d + j] != 0) upper = 0;
    }
    CHECKF(e_orth <= QR_ORTH * neps, "qr %s %lux%lu: |Q^TQ - I| = %.3g > %.3g", what,
           (unsigned long)n, (unsigned long)d, e_orth, QR_ORTH * neps);
    CHECKF(e_rec <= QR_REC * neps, "qr %s %lux%lu: |A - QR|/|A| = %.3g > %.3g", what,
           (unsigned long)n, (unsigned long)d, e_rec, QR_REC * neps);
    CHECKF(upper && diag, "qr %s: R not upper triangular with diagonal >= 0", what);
    if (getenv("VERBOSE"))
        printf("qr%s %-14s %5lux%-4lu orth %.2e rec %.2e (in n eps: %.3f %.3f)\n",
               g_qr_step ? "(step)" : "", what, (unsigned long)n, (unsigned long)d, e_orth, e_rec, e_orth / (tol / 50),
               e_rec / (tol / 50));
#ifdef RO_SGNS_USE_LAPACKE
    { /* the built-in QR agrees with LAPACKE's on R (full-rank inputs) */
        real *Q2 = (real *)malloc(n * d * sizeof(real)), *R2 = (real *)malloc(d * d * sizeof(real));
        memcpy(Q2, A0, n * d * sizeof(real));
        if (ro_sgns_qr_builtin(n, d, Q2, d, R2, d, NULL, NULL) == RO_SGNS_OK &&
            strcmp(what, "random") == 0) {
            double diff = max_abs_diff(d * d, R, R2), scale = fabs((double)R[0]);
            CHECKF(diff <= tol * (scale > 0 ? scale : 1) * 10,
                   "qr %lux%lu: builtin R differs from LAPACKE's by %.3g", (unsigned long)n,
                   (unsigned long)d, diff);
        }
        free(Q2);
        free(R2);
    }
#endif
    free(Q);
    free(R);
}

/* An n x d matrix whose columns are nearly e_j: an upper triangle (a
   diagonal of alternating sign, |R_jj| in [1, 2), entries in [0, 1) above
   it) plus noise of size noise everywhere. Each reflector then meets
   alpha = A_jj far above the norm of the rest of its column, the case
   where the sign of beta (-sign(alpha) |x|) decides whether alpha - beta
   cancels. The reflectors are computed in double whatever the real type
   (I.5), so with the other sign the digits lost are double's: about 1e-3
   relative at noise 10 sqrt(DBL_EPSILON) (float's results too), all of
   them (alpha - beta = 0, R overflows) at 0.1 sqrt(DBL_EPSILON). */
static real *near_triangular(size_t n, size_t d, double noise)
{
    real *a = rnd_matrix(n, d, noise);
    size_t i, j;
    for (i = 0; i < d; ++i)
        for (j = i; j < d; ++j) {
            double u = ro_sgns_rng_uniform(&g_rng);
            a[i * d + j] = (real)((double)a[i * d + j] + (i == j ? (i % 2 ? -1 : 1) * (1 + u) : u));
        }
    return a;
}

static void test_qr(void)
{
    static const size_t sizes[][2] = {{1, 1}, {5, 1}, {7, 7}, {100, 37}, {257, 33},
                                      {300, 64}, {64, 64}, {1000, 100}, {2000, 130}};
    size_t s, i, j, p;
    for (s = 0; s < 2 * (sizeof sizes / sizeof sizes[0]); ++s) {
        size_t n = sizes[s / 2][0], d = sizes[s / 2][1];
        real *A;
        g_qr_step = (int)(s % 2); /* every case through both QRs */
        if (s % 4 == 2) g_qr_step = 2; /* and half of them through the plain one */
        if (tu_quick() && n == 2000 && d == 130) continue; /* RO_SGNS_TEST_QUICK */
        if (tu_quick() && n == 1000) n = 200; /* ... and still 4 panels of 32 */
        A = rnd_matrix(n, d, 1);
        check_qr("random", n, d, A);
        /* rank deficient: rank r = d/3 as B (n x r) C (r x d) */
        if (d >= 3) {
            size_t r = d / 3;
            real *B = rnd_matrix(n, r, 1), *C = rnd_matrix(r, d, 1);
            for (i = 0; i < n; ++i)
                for (j = 0; j < d; ++j) {
                    double t = 0;
                    for (p = 0; p < r; ++p) t += (double)B[i * r + p] * C[p * d + j];
                    A[i * d + j] = (real)t;
                }
            check_qr("rank-deficient", n, d, A);
            free(B);
            free(C);
        }
        /* duplicated columns */
        for (i = 0; i < n; ++i)
            for (j = 1; j < d; j += 2) A[i * d + j] = A[i * d + j - 1];
        check_qr("dup-columns", n, d, A);
        /* zero */
        memset(A, 0, n * d * sizeof(real));
        check_qr("zero", n, d, A);
        free(A);
        /* huge and tiny magnitudes */
        A = rnd_matrix(n, d, 1e30);
        check_qr("huge", n, d, A);
        free(A);
        A = rnd_matrix(n, d, 1e-30);
        check_qr("tiny", n, d, A);
        free(A);
        if (s % 2 == 0) { /* nearly triangular, through every QR */
            int k, route;
            for (k = 0; k < 2; ++k)
                for (route = 0; route < 4; ++route) {
                    A = near_triangular(n, d, (k ? 0.1 : 10) * sqrt(DBL_EPSILON));
                    g_qr_step = route;
                    check_qr(k ? "near-triangular(1.5e-9)" : "near-triangular(1.5e-7)", n, d, A);
                    free(A);
                }
        }
    }
    g_qr_step = 0;
    { /* errors */
        real A[6] = {1, 2, 3, 4, 5, (real)NAN}, R[4];
        ro_sgns_error err;
        CHECK(ro_sgns_qr(3, 2, A, 2, R, 2, NULL, &err) == RO_SGNS_ERR_NUMERIC);
        { /* finite, but |column 0| = sqrt(3) x the largest real / 1.1: R
             cannot hold it, in either QR (LAPACKE's too, under
             RO_SGNS_USE_LAPACKE) */
            const real big = (real)((sizeof(real) == sizeof(double) ? DBL_MAX : FLT_MAX) / 1.1);
            real H[6], H2[6];
            H[0] = H[1] = H[2] = H[4] = big;
            H[3] = -big;
            H[5] = 1;
            memcpy(H2, H, sizeof H);
            CHECK(ro_sgns_qr(3, 2, H, 2, R, 2, NULL, &err) == RO_SGNS_ERR_NUMERIC);
            CHECK(ro_sgns_qr_builtin(3, 2, H2, 2, R, 2, NULL, &err) == RO_SGNS_ERR_NUMERIC);
        }
        CHECK(ro_sgns_qr(1, 2, A, 2, R, 2, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_qr(3, 0, A, 2, R, 2, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_qr(3, 2, A, 1, R, 2, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    }
}

/* The unblocked Householder QR (ro_sgns__geqr2, appendix B's plain
   reference) against the blocked one (ro_sgns_qr_builtin, compact WY,
   panels of 32 columns) on full-rank matrices of one and several panels:
   the same R but for the signs of its rows (geqr2 leaves R_jj of either
   sign; the public QR makes it >= 0), within |A - Q R|'s bound. */
static void test_qr_unblocked(void)
{
    static const size_t sizes[][2] = {{1, 1}, {9, 5}, {100, 37}, {300, 64}, {257, 100}};
    size_t s, i, c;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const size_t n = sizes[s][0], d = sizes[s][1];
        real *A = rnd_matrix(n, d, 1), *Q = rnd_matrix(n, d, 1), *R = rnd_matrix(d, d, 1);
        double *tau = (double *)malloc(2 * d * sizeof(double)), worst = 0;
        const double bound = QR_REC * (double)n * EPS * frob(n * d, A);
        real *Qn = rnd_matrix(n, d, 1), *Rn = rnd_matrix(d, d, 1);
        double wq = 0, wr = 0;
        memcpy(Q, A, n * d * sizeof(real));
        memcpy(Qn, A, n * d * sizeof(real));
        CHECK(ro_sgns_qr_builtin(n, d, Q, d, R, d, NULL, NULL) == RO_SGNS_OK);
        /* the plain QR (I.5: the same reflectors applied one at a time, Q
           formed from the last) gives the blocked one's Q and R */
        CHECK(ro_sgns_qr_naive(n, d, Qn, d, Rn, d, NULL, NULL) == RO_SGNS_OK);
        for (i = 0; i < n * d; ++i)
            if (!(fabs((double)Qn[i] - Q[i]) <= wq)) wq = fabs((double)Qn[i] - Q[i]);
        for (i = 0; i < d * d; ++i)
            if (!(fabs((double)Rn[i] - R[i]) <= wr)) wr = fabs((double)Rn[i] - R[i]);
        CHECKF(wq <= QR_ORTH * (double)n * EPS && wr <= bound,
               "qr_naive %lux%lu: Q off by %.3g, R by %.3g (bounds %.3g, %.3g)", (unsigned long)n,
               (unsigned long)d, wq, wr, QR_ORTH * (double)n * EPS, bound);
        free(Qn);
        free(Rn);
        ro_sgns__geqr2(n, d, A, d, tau, tau + d);
        for (i = 0; i < d; ++i) {
            const double sign = A[i * d + i] < 0 ? -1 : 1;
            for (c = i; c < d; ++c) {
                double e = fabs(sign * (double)A[i * d + c] - (double)R[i * d + c]);
                if (!(e <= worst)) worst = e;
            }
        }
        CHECKF(worst <= bound, "geqr2 %lux%lu: R differs from the blocked QR's by %.3g (> %.3g)",
               (unsigned long)n, (unsigned long)d, worst, bound);
        free(A);
        free(Q);
        free(R);
        free(tau);
    }
}

/* ----------------------------------------------------------------- SVD */

/* A random m x k matrix with orthonormal columns, by modified Gram-Schmidt
   twice in double: independent of the library's QR. */
static real *rnd_orthonormal(size_t m, size_t k)
{
    double *q = (double *)malloc(m * k * sizeof(double));
    real *out = (real *)malloc(m * k * sizeof(real));
    size_t i, j, p;
    int pass;
    for (i = 0; i < m * k; ++i) q[i] = ro_sgns_rng_normal(&g_rng);
    for (j = 0; j < k; ++j) {
        for (pass = 0; pass < 2; ++pass)
            for (p = 0; p < j; ++p) {
                double dot = 0;
                for (i = 0; i < m; ++i) dot += q[i * k + p] * q[i * k + j];
                for (i = 0; i < m; ++i) q[i * k + j] -= dot * q[i * k + p];
            }
        {
            double nrm = 0;
            for (i = 0; i < m; ++i) nrm += q[i * k + j] * q[i * k + j];
            nrm = sqrt(nrm);
            for (i = 0; i < m; ++i) q[i * k + j] /= nrm;
        }
    }
    for (i = 0; i < m * k; ++i) out[i] = (real)q[i];
    free(q);
    return out;
}

/* An n x d matrix with singular values geometric from 1 down to 1 / cond,
   Qa diag(sigma) Qb^T from two independent orthonormal factors. */
static real *known_cond_matrix(size_t n, size_t d, double cond)
{
    real *qa = rnd_orthonormal(n, d), *qb = rnd_orthonormal(d, d);
    real *a = (real *)malloc(n * d * sizeof(real));
    size_t i, j, p;
    for (i = 0; i < n; ++i)
        for (j = 0; j < d; ++j) {
            double t = 0;
            for (p = 0; p < d; ++p)
                t += (double)qa[i * d + p] * pow(cond, -(double)p / (double)(d - 1)) * qb[j * d + p];
            a[i * d + j] = (real)t;
        }
    free(qa);
    free(qb);
    return a;
}

/* The RO step's QR (appendix B): CholeskyQR2 answers for the inputs it
   can vouch for, and every answer it gives meets the Householder QR's
   bounds; for the rest (ill-conditioned, rank-deficient, zero, NaN,
   over- or underflowing Gram matrices) it declines and leaves A and R
   untouched, and ro_sgns__qr_step's fallback gives a valid QR. */
static void test_qr_chol2(void)
{
    const size_t n = 600, d = 48;
    const double neps = (double)n * EPS;
    /* a float Gram matrix carries cond^2: CholeskyQR2 holds up to about
       u^-1/2 (4e3 float, 7e7 double), so 100 must pass and the last two
       must be refused; between them it may go either way */
    const double conds[] = {1, 10, 100, 1e3, 3e3, 1e4, 1e5, 1e7, 1e8, 1e9, 1e12, 1e16};
    const double sure = 100, refuse = sizeof(real) == sizeof(double) ? 1e12 : 1e5;
    size_t c, i;
    int taken = 0;
    real *Q = (real *)malloc(n * d * sizeof(real)), *W = (real *)malloc(n * d * sizeof(real));
    real *R = (real *)malloc(d * d * sizeof(real)), *R0 = (real *)malloc(d * d * sizeof(real));
    for (c = 0; c < sizeof conds / sizeof conds[0]; ++c) {
        real *A = known_cond_matrix(n, d, conds[c]);
        int ok;
        for (i = 0; i < d * d; ++i) R[i] = R0[i] = (real)(i % 7) - 3; /* poison, to see it kept */
        memcpy(Q, A, n * d * sizeof(real));
        ok = ro_sgns__qr_chol2(n, d, Q, d, R, d, W, NULL, NULL); /* 1 done, 0 refused, -1 no memory */
        CHECK(ok >= 0);
        if (conds[c] <= sure) CHECKF(ok, "chol2 refused cond %.0g", conds[c]);
        if (conds[c] >= refuse) CHECKF(!ok, "chol2 accepted cond %.0g", conds[c]);
        if (ok) { /* what it vouches for meets the Householder QR's bounds */
            double e_orth = orth_error(n, d, Q, d), e_rec = 0, nA = frob(n * d, A);
            size_t j, p;
            ++taken;
            for (i = 0; i < n; ++i)
                for (j = 0; j < d; ++j) {
                    double t = -(double)A[i * d + j];
                    for (p = 0; p <= j; ++p) t += (double)Q[i * d + p] * R[p * d + j];
                    e_rec += t * t;
                }
            e_rec = sqrt(e_rec) / nA;
            CHECKF(e_orth <= QR_ORTH * neps && e_rec <= QR_REC * neps,
                   "chol2 cond %.0g: |Q^TQ - I| %.3g, |A - QR|/|A| %.3g (bounds %.3g, %.3g)",
                   conds[c], e_orth, e_rec, QR_ORTH * neps, QR_REC * neps);
            for (i = 0; i < d; ++i)
                for (j = 0; j < d; ++j)
                    CHECKF(j < i ? R[i * d + j] == 0 : (j > i || R[i * d + j] > 0),
                           "chol2 cond %.0g: R(%lu, %lu) = %g", conds[c], (unsigned long)i,
                           (unsigned long)j, (double)R[i * d + j]);
            if (getenv("VERBOSE"))
                printf("chol2 cond %-6.0g orth %.2e rec %.2e (in n eps: %.3f %.3f)\n", conds[c],
                       e_orth, e_rec, e_orth / neps, e_rec / neps);
        } else {
            CHECKF(memcmp(Q, A, n * d * sizeof(real)) == 0 &&
                       memcmp(R, R0, d * d * sizeof(real)) == 0,
                   "chol2 refused cond %.0g but changed A or R", conds[c]);
            g_qr_step = 1; /* and the fallback answers */
            check_qr("ill-conditioned", n, d, A);
            g_qr_step = 0;
        }
        free(A);
    }
    CHECK(taken >= 3);
    { /* rank-deficient, zero, NaN, huge (float's Gram overflows), tiny
         (underflows): refused, untouched */
        const char *what[] = {"rank-deficient", "zero", "NaN", "huge", "tiny"};
        for (c = 0; c < 5; ++c) {
            real *A = rnd_matrix(n, d, c == 3 ? 1e30 : c == 4 ? 1e-30 : 1);
            int ok;
            if (c == 0)
                for (i = 0; i < n; ++i) A[i * d + 5] = A[i * d + 7];
            if (c == 1) memset(A, 0, n * d * sizeof(real));
            if (c == 2) A[17 * d + 3] = (real)NAN;
            for (i = 0; i < d * d; ++i) R[i] = R0[i] = 1;
            memcpy(Q, A, n * d * sizeof(real));
            ok = ro_sgns__qr_chol2(n, d, Q, d, R, d, W, NULL, NULL);
            CHECK(ok >= 0);
            if (c < 3 || sizeof(real) == sizeof(float))
                CHECKF(!ok, "chol2 accepted a %s matrix", what[c]);
            if (!ok)
                CHECKF(memcmp(Q, A, n * d * sizeof(real)) == 0 &&
                           memcmp(R, R0, d * d * sizeof(real)) == 0,
                       "chol2 refused a %s matrix but changed A or R", what[c]);
            free(A);
        }
    }
    free(Q);
    free(W);
    free(R);
    free(R0);
}

/* Check the SVD of A (m x n). sigma_known (r values, descending) or NULL. */
static void check_svd(const char *what, size_t m, size_t n, const real *A,
                      const double *sigma_known, double rel_tol_known)
{
    size_t r = m < n ? m : n, i, j, p;
    real *U = (real *)malloc(m * r * sizeof(real)), *V = (real *)malloc(n * r * sizeof(real));
    real *s = (real *)malloc(r * sizeof(real));
    double tol = 50 * (double)(m > n ? m : n) * EPS, e_rec = 0, nA = frob(m * n, A);
    double neps = tol / 50;
    int desc = 1;
    ro_sgns_error err;
    ro_sgns_result res = ro_sgns_svd(m, n, A, n, U, r, s, V, r, NULL, &err);
    CHECKF(res == RO_SGNS_OK, "svd %s: %s", what, err.message);
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            double t = 0;
            for (p = 0; p < r; ++p) t += (double)U[i * r + p] * s[p] * V[j * r + p];
            t -= A[i * n + j];
            e_rec += t * t;
        }
    e_rec = sqrt(e_rec) / (nA > 0 ? nA : 1);
    for (p = 0; p < r; ++p)
        if (!(s[p] >= 0) || (p > 0 && s[p] > s[p - 1])) desc = 0;
    CHECKF(e_rec <= SVD_REC * neps, "svd %s %lux%lu: |A - USV^T|/|A| = %.3g", what,
           (unsigned long)m, (unsigned long)n, e_rec);
    CHECKF(orth_error(m, r, U, r) <= SVD_ORTH * neps, "svd %s: U not orthonormal (%.3g)", what,
           orth_error(m, r, U, r));
    CHECKF(orth_error(n, r, V, r) <= SVD_ORTH * neps, "svd %s: V not orthonormal (%.3g)", what,
           orth_error(n, r, V, r));
    CHECKF(desc, "svd %s: singular values not descending and >= 0", what);
    if (getenv("VERBOSE"))
        printf("svd %-14s %5lux%-4lu rec %.2e U %.2e V %.2e (in n eps: %.3f %.3f %.3f)\n", what,
               (unsigned long)m, (unsigned long)n, e_rec, orth_error(m, r, U, r),
               orth_error(n, r, V, r), e_rec / (tol / 50), orth_error(m, r, U, r) / (tol / 50),
               orth_error(n, r, V, r) / (tol / 50));
    if (sigma_known) {
        double worst = 0;
        for (p = 0; p < r; ++p) {
            double e = fabs((double)s[p] - sigma_known[p]);
            double ref = sigma_known[p] > 0 ? sigma_known[p] : sigma_known[0];
            double rel = ref > 0 ? e / ref : e;
            if (!(rel <= worst)) worst = rel;
        }
        CHECKF(worst <= rel_tol_known, "svd %s: singular values off by %.3g relative (tol %.3g)",
               what, worst, rel_tol_known);
        if (getenv("VERBOSE"))
            printf("svd-sigma %-14s %5lux%-4lu %.2e (in n eps: %.3f)\n", what, (unsigned long)m,
                   (unsigned long)n, worst, worst / (tol / 50));
    }
#ifdef RO_SGNS_USE_LAPACKE
    { /* built-in singular values against LAPACKE's ?gesdd */
        real *s2 = (real *)malloc(r * sizeof(real));
        CHECK(ro_sgns_svd_builtin(m, n, A, n, NULL, r, s2, NULL, r, NULL, NULL) == RO_SGNS_OK);
        CHECKF(max_abs_diff(r, s, s2) <= tol * (double)s[0] + 1e-300,
               "svd %s: builtin and LAPACKE singular values differ by %.3g", what,
               max_abs_diff(r, s, s2));
        free(s2);
    }
#endif
    free(U);
    free(V);
    free(s);
}

/* A = Q1 diag(sigma) Q2^T with random orthonormal Q1 (m x r), Q2 (n x r). */
static real *known_spectrum(size_t m, size_t n, const double *sigma)
{
    size_t r = m < n ? m : n, i, j, p;
    real *Q1 = rnd_orthonormal(m, r), *Q2 = rnd_orthonormal(n, r);
    real *A = (real *)malloc(m * n * sizeof(real));
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            double t = 0;
            for (p = 0; p < r; ++p) t += (double)Q1[i * r + p] * sigma[p] * Q2[j * r + p];
            A[i * n + j] = (real)t;
        }
    free(Q1);
    free(Q2);
    return A;
}

static void test_svd(void)
{
    static const size_t sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {20, 20}, {50, 30},
                                      {30, 50}, {200, 100}, {120, 120}};
    size_t s, p;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t m = sizes[s][0], n = sizes[s][1], r;
        real *A;
        double *sig;
        if (tu_quick() && m * n > 5000) { /* RO_SGNS_TEST_QUICK: 80x40, 48x48 */
            m = m / 5 * 2;
            n = n / 5 * 2;
        }
        r = m < n ? m : n;
        A = rnd_matrix(m, n, 1);
        sig = (double *)malloc(r * sizeof(double));
        check_svd("random", m, n, A, NULL, 0);
        free(A);
        /* known spectrum with repeated and zero singular values */
        for (p = 0; p < r; ++p) sig[p] = p < r / 3 ? 3.0 : (p < 2 * r / 3 ? 1.0 / (double)(1 + p) : 0);
        if (r == 1) sig[0] = 2;
        A = known_spectrum(m, n, sig);
        check_svd("repeated+zero", m, n, A, sig, SVD_SIGMA * (double)(m > n ? m : n) * EPS);
        free(A);
        /* zero matrix */
        A = (real *)calloc(m * n, sizeof(real));
        for (p = 0; p < r; ++p) sig[p] = 0;
        check_svd("zero", m, n, A, sig, 0);
        free(A);
        free(sig);
    }
    if (sizeof(real) == sizeof(double)) {
        /* condition 1e10: the geometric spectrum 1 ... 1e-10, each value to
           eps * cond relative, the largest ones to ~eps */
        size_t n = 60;
        double sig[60];
        real *A;
        for (p = 0; p < n; ++p) sig[p] = pow(10.0, -10.0 * (double)p / (double)(n - 1));
        A = known_spectrum(n, n, sig);
        check_svd("cond1e10", n, n, A, sig, 1e-6); /* eps cond = 2.2e-6 */
        {
            real U[60 * 60], V[60 * 60], sv[60];
            ro_sgns_svd(n, n, A, n, U, n, sv, V, n, NULL, NULL);
            CHECKF(fabs(sv[0] - 1) < 1e-13 && fabs(sv[10] / sig[10] - 1) < 1e-10,
                   "cond1e10: leading singular values not to full accuracy: %.17g %.17g",
                   (double)sv[0], (double)sv[10]);
        }
        free(A);
    }
    if (sizeof(real) == sizeof(double)) {
        /* 140 orders of magnitude, within the documented 1e-150: columns
           (1e100, 0) and (1e-52, 1e-40), as given and transposed, and tall.
           Nearly orthogonal but not quite, so Jacobi rotates them, with
           zeta = (|a2|^2 - |a1|^2) / (2 a1.a2) = -5e151 in the scaled
           units (the branch for |zeta| > 1e150). det = 1e60 and
           sigma_1 = 1e100 (1 + 1e-280), so sigma_2 = 1e-40 (1 - 1e-280):
           both to a few ulps, sigma_2 too (columns scaled by 1e100 and
           1e-40 are well conditioned: full relative accuracy). */
        real A[6] = {(real)1e100, (real)1e-52, 0, (real)1e-40, 0, 0}, T[4], U[6], V[4], sv[2];
        int form;
        T[0] = A[0];
        T[1] = 0;
        T[2] = A[1];
        T[3] = A[3];
        for (form = 0; form < 3; ++form) {
            ro_sgns_result rc = ro_sgns_svd_builtin(form == 2 ? 3 : 2, 2, form == 1 ? T : A, 2,
                                                    U, 2, sv, V, 2, NULL, NULL);
            CHECKF(rc == RO_SGNS_OK && fabs((double)sv[0] / 1e100 - 1) < 4e-16 &&
                       fabs((double)sv[1] / 1e-40 - 1) < 1e-15,
                   "1e100 and 1e-40, form %d: %.17g %.17g", form, (double)sv[0],
                   (double)sv[1]);
        }
    }
    { /* errors */
        real A[4] = {1, 2, (real)INFINITY, 4}, s2[2];
        ro_sgns_error err;
        CHECK(ro_sgns_svd(2, 2, A, 2, NULL, 2, s2, NULL, 2, NULL, &err) == RO_SGNS_ERR_NUMERIC);
        CHECK(strstr(err.message, "NaN") != NULL);
        { /* finite, but sigma_1 = sqrt(2) (sqrt(3)) x the largest real / 1.1:
             square (Jacobi alone) and tall (QR first), both paths */
            const real big = (real)((sizeof(real) == sizeof(double) ? DBL_MAX : FLT_MAX) / 1.1);
            real H[6], U[6], V[4];
            int tall;
            H[0] = H[1] = H[2] = H[4] = big;
            H[3] = -big;
            H[5] = 1;
            for (tall = 0; tall < 2; ++tall) {
                CHECKF(ro_sgns_svd(2 + (size_t)tall, 2, H, 2, U, 2, s2, V, 2, NULL, &err) ==
                           RO_SGNS_ERR_NUMERIC,
                       "svd, tall %d", tall);
                CHECKF(ro_sgns_svd_builtin(2 + (size_t)tall, 2, H, 2, U, 2, s2, V, 2, NULL,
                                           &err) == RO_SGNS_ERR_NUMERIC,
                       "svd_builtin, tall %d", tall);
            }
        }
        CHECK(ro_sgns_svd(0, 2, A, 2, NULL, 2, s2, NULL, 2, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_svd(2, 2, A, 2, NULL, 2, NULL, NULL, 2, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
    }
}

/* ---------------------------------------------------------- allocator */

typedef struct {
    long live, fail_at, calls;
} counting_alloc;
static void *ca_malloc(void *u, size_t sz)
{
    counting_alloc *c = (counting_alloc *)u;
    if (++c->calls == c->fail_at) return NULL;
    ++c->live;
    return malloc(sz);
}
static void *ca_realloc(void *u, void *p, size_t sz)
{
    counting_alloc *c = (counting_alloc *)u;
    if (++c->calls == c->fail_at) return NULL;
    if (!p) ++c->live;
    return realloc(p, sz);
}
static void ca_free(void *u, void *p)
{
    --((counting_alloc *)u)->live;
    free(p);
}

/* Every allocation of QR, SVD, GEMM and the step's QR failing in turn: an
   error (or, for the step's QR, the fallback's answer), no leak. */
static void test_alloc_failure(void)
{
    size_t n = 90, d = 40;
    real *A = rnd_matrix(n, d, 1), *Q = (real *)malloc(n * d * sizeof(real));
    real R[40 * 40], U[90 * 40], s[40], V[40 * 40];
    counting_alloc c;
    ro_sgns_allocator al;
    long k;
    int all_oom = 1, no_leak = 1, ran_clean = 0;
    al.malloc_fn = ca_malloc;
    al.realloc_fn = ca_realloc;
    al.free_fn = ca_free;
    al.user = &c;
    for (k = 1; k < 200; ++k) {
        ro_sgns_result r1, r2, r3, r4;
        long most;
        memset(&c, 0, sizeof c);
        c.fail_at = k;
        memcpy(Q, A, n * d * sizeof(real));
        r1 = ro_sgns_qr_builtin(n, d, Q, d, R, d, &al, NULL);
        most = c.calls;
        c.calls = 0;
        r2 = ro_sgns_svd_builtin(n, d, A, d, U, d, s, V, d, &al, NULL);
        if (c.calls > most) most = c.calls;
        c.calls = 0;
        r3 = ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_TRANS, n, d, d, 1, A, d, A, d, 0,
                                  U, d, &al, NULL);
        if (c.calls > most) most = c.calls;
        c.calls = 0; /* the step's QR: its Cholesky QR, then the fallback, failing */
        memcpy(Q, A, n * d * sizeof(real));
        r4 = ro_sgns__qr_step(n, d, Q, R, U, &al, NULL);
        if (c.calls > most) most = c.calls;
        /* RO_SGNS_TEST_QUICK: stop once no call reaches allocation k */
        if (tu_quick() && most < k) k = 200;
        if (c.live != 0) no_leak = 0;
        if ((r1 != RO_SGNS_OK && r1 != RO_SGNS_ERR_OUT_OF_MEMORY) ||
            (r2 != RO_SGNS_OK && r2 != RO_SGNS_ERR_OUT_OF_MEMORY) ||
            (r3 != RO_SGNS_OK && r3 != RO_SGNS_ERR_OUT_OF_MEMORY) ||
            (r4 != RO_SGNS_OK && r4 != RO_SGNS_ERR_OUT_OF_MEMORY))
            all_oom = 0;
        if (r1 == RO_SGNS_OK && r2 == RO_SGNS_OK) ran_clean = 1;
    }
    CHECK(all_oom);
    CHECK(no_leak);
    CHECK(ran_clean);
    free(A);
    free(Q);
}

int main(void)
{
    ro_sgns_rng_seed(&g_rng, 12345, 0);
    test_kernel_rule();
    test_gemm();
    test_gemm_edges();
    test_gemm_threads();
    test_gemm_shapes();
    test_gemm_tile();
    test_gemm_kernels();
    test_qr();
    test_qr_unblocked();
    test_qr_chol2();
    test_svd();
    test_alloc_failure();
    CHECK(strcmp(ro_sgns_result_string(RO_SGNS_ERR_OUT_OF_MEMORY), "out of memory") == 0);
    { /* every code from RO_SGNS_STOPPED down to RO_SGNS_ERR_NOT_FOUND has its
         own name; values outside the enum, through an int (C++ warns about
         the constants), are "unknown result code" */
        int code, other, unknown[3] = {-99, RO_SGNS_ERR_NOT_FOUND - 1, RO_SGNS_STOPPED + 1};
        for (code = RO_SGNS_STOPPED; code >= RO_SGNS_ERR_NOT_FOUND; --code) {
            const char *s = ro_sgns_result_string((ro_sgns_result)code);
            CHECKF(s && s[0] && strcmp(s, "unknown result code") != 0, "code %d", code);
            for (other = code - 1; s && other >= RO_SGNS_ERR_NOT_FOUND; --other)
                CHECKF(strcmp(s, ro_sgns_result_string((ro_sgns_result)other)) != 0,
                       "codes %d and %d", code, other);
        }
        for (code = 0; code < 3; ++code)
            CHECK(strcmp(ro_sgns_result_string((ro_sgns_result)unknown[code]),
                         "unknown result code") == 0);
    }
    return tu_finish(sizeof(real) == sizeof(double) ? "linalg(double)" : "linalg(float)");
}
