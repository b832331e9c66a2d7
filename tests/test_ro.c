/* test_ro.c - sections 3, 4 and 6: the SGNS objective and its gradient
   computed block by block against the paper's formulas written here in
   double and against central finite differences; the fused Riemannian step
   against the header's dense reference step (ro_sgns_ro_step_naive: X, D
   and M materialized); the invariants of the iteration (orthonormal
   factors, monotone F under the safeguard, bitwise equality for any thread
   count and block layout); and the step over row shards, fused there too
   (TSQR's R^-1 and the condition that allows it). */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"
#include "shard_comm.h"

#include <string.h>

typedef ro_sgns_real real;
static const int IS_D = sizeof(real) == sizeof(double);
static ro_sgns_rng g_rng;

/* ---------------------------------------------------- a random problem */

typedef struct {
    size_t n, m;
    uint64_t *row_ptr;
    uint32_t *col;
    float *val; /* as ro_sgns_counts holds them */
    double *wsum, *csum, total;
} counts_t;

/* random counts: each entry present with probability dens, value 1..50 */
static counts_t make_counts(size_t n, size_t m, double dens)
{
    counts_t c;
    size_t i, j;
    uint64_t k = 0;
    c.n = n;
    c.m = m;
    c.row_ptr = (uint64_t *)calloc(n + 1, sizeof(uint64_t));
    c.col = (uint32_t *)malloc(n * m * sizeof(uint32_t) + 4);
    c.val = (float *)malloc(n * m * sizeof(float) + 4);
    c.wsum = (double *)calloc(n, sizeof(double));
    c.csum = (double *)calloc(m, sizeof(double));
    c.total = 0;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < m; ++j)
            if (ro_sgns_rng_uniform(&g_rng) < dens || (i == j % n)) {
                c.col[k] = (uint32_t)j;
                c.val[k] = (float)(1 + floor(50 * ro_sgns_rng_uniform(&g_rng)));
                c.wsum[i] += c.val[k];
                c.csum[j] += c.val[k];
                c.total += c.val[k];
                ++k;
            }
        c.row_ptr[i + 1] = k;
    }
    return c;
}

static void free_counts(counts_t *c);

/* random counts in which every word is seen (#(w) > 0, so B > 0 everywhere):
   drawn again until they are */
static counts_t make_counts_seen(size_t n, size_t m, double dens)
{
    counts_t c = make_counts(n, m, dens);
    size_t w, tries = 0;
    for (w = 0; w < n; ++w)
        if (c.wsum[w] == 0 && ++tries < 1000) {
            free_counts(&c);
            c = make_counts(n, m, dens);
            w = (size_t)-1;
        }
    return c;
}

/* symmetric random counts: #(w,c) = #(c,w) */
static counts_t make_sym_counts(size_t n, double dens)
{
    counts_t c = make_counts(n, n, dens);
    double *A = (double *)calloc(n * n, sizeof(double));
    size_t i, j;
    uint64_t k = 0;
    for (i = 0; i < n; ++i)
        for (k = c.row_ptr[i]; k < c.row_ptr[i + 1]; ++k) {
            A[i * n + c.col[k]] += c.val[k];
            A[c.col[k] * n + i] += c.val[k];
        }
    k = 0;
    memset(c.wsum, 0, n * sizeof(double));
    memset(c.csum, 0, n * sizeof(double));
    c.total = 0;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < n; ++j)
            if (A[i * n + j] > 0) {
                c.col[k] = (uint32_t)j;
                c.val[k] = (float)A[i * n + j];
                c.wsum[i] += c.val[k];
                c.csum[j] += c.val[k];
                c.total += c.val[k];
                ++k;
            }
        c.row_ptr[i + 1] = k;
    }
    free(A);
    return c;
}

static void test_symmetry_check(void)
{
    counts_t c = make_sym_counts(30, 0.2), d = make_counts(30, 30, 0.2);
    CHECK(ro_sgns__csr_symmetric(30, c.row_ptr, c.col, c.val, sizeof(float), NULL) == 1);
    CHECK(ro_sgns__csr_symmetric(30, d.row_ptr, d.col, d.val, sizeof(float), NULL) == 0);
    {   /* one off-diagonal value differs from its mirror */
        uint64_t e = c.row_ptr[5];
        while (c.col[e] == 5) ++e;
        c.val[e] += 1;
    }
    CHECK(ro_sgns__csr_symmetric(30, c.row_ptr, c.col, c.val, sizeof(float), NULL) == 0);
    free_counts(&c);
    free_counts(&d);
}

static void free_counts(counts_t *c)
{
    free(c->row_ptr);
    free(c->col);
    free(c->val);
    free(c->wsum);
    free(c->csum);
}

/* dense #(w,c) */
static double *dense_counts(const counts_t *c)
{
    double *A = (double *)calloc(c->n * c->m, sizeof(double));
    size_t i;
    uint64_t k;
    for (i = 0; i < c->n; ++i)
        for (k = c->row_ptr[i]; k < c->row_ptr[i + 1]; ++k) A[i * c->m + c->col[k]] = c->val[k];
    return A;
}

static double sig(double x) { return 1 / (1 + exp(-x)); }
static double logsig(double x) { return x >= 0 ? -log1p(exp(-x)) : x - log1p(exp(x)); }

/* B_wc = k #(w) P(c): P(c) = #(c)/|D| (cds = 1, the paper) or
   #(c)^cds / sum_c' #(c')^cds (context distribution smoothing), written
   out in full for every entry */
static double ref_B(const counts_t *c, double k, double cds, size_t w, size_t ctx)
{
    double z = 0;
    size_t j;
    if (cds == 1) return k * c->wsum[w] * c->csum[ctx] / c->total;
    for (j = 0; j < c->m; ++j) z += pow(c->csum[j], cds);
    return k * c->wsum[w] * pow(c->csum[ctx], cds) / z;
}

/* F and grad F of a dense X (n x m), straight from the paper's formulas */
static double ref_F(const counts_t *c, const double *A, double k, double cds, const double *X)
{
    double F = 0;
    size_t i, j;
    for (i = 0; i < c->n; ++i)
        for (j = 0; j < c->m; ++j) {
            double x = X[i * c->m + j], B = ref_B(c, k, cds, i, j);
            F += A[i * c->m + j] * logsig(x) + B * logsig(-x);
        }
    return F;
}

static void ref_direction(const counts_t *c, const double *A, double k, double cds,
                          const double *X, int scaled, double *G)
{
    size_t i, j;
    for (i = 0; i < c->n; ++i)
        for (j = 0; j < c->m; ++j) {
            double x = X[i * c->m + j], B = ref_B(c, k, cds, i, j);
            double g = A[i * c->m + j] * sig(-x) - B * sig(x);
            G[i * c->m + j] = scaled ? g / B : g;
        }
}

/* X = U S V^T in double */
static double *dense_x(const ro_sgns_factors *f)
{
    double *X = (double *)calloc(f->n * f->m, sizeof(double));
    double *US = (double *)calloc(f->n * f->d, sizeof(double));
    size_t i, j, p, q;
    for (i = 0; i < f->n; ++i)
        for (q = 0; q < f->d; ++q)
            for (p = 0; p < f->d; ++p) US[i * f->d + q] += (double)f->U[i * f->d + p] * f->S[p * f->d + q];
    for (i = 0; i < f->n; ++i)
        for (j = 0; j < f->m; ++j) {
            double x = 0;
            for (q = 0; q < f->d; ++q) x += US[i * f->d + q] * f->V[j * f->d + q];
            X[i * f->m + j] = x;
        }
    free(US);
    return X;
}

/* a random start point with orthonormal U, V and a random core */
static ro_sgns_factors *random_point(size_t n, size_t m, size_t d, double scale)
{
    ro_sgns_factors *f = NULL;
    real *W = (real *)malloc(n * d * sizeof(real)), *C = (real *)malloc(m * d * sizeof(real));
    size_t i;
    for (i = 0; i < n * d; ++i) W[i] = (real)(scale * ro_sgns_rng_normal(&g_rng));
    for (i = 0; i < m * d; ++i) C[i] = (real)(scale * ro_sgns_rng_normal(&g_rng));
    CHECK(ro_sgns_factors_from_wc(n, m, d, W, C, &f, NULL, NULL) == RO_SGNS_OK);
    free(W);
    free(C);
    return f;
}

/* from_wc's refusals: NaN in W0, and W0 C0^T's core beyond the real type
   (W0 = C0 = t [1 0; 0 1; 1 1], so S = R_W R_C^T = t^2 [2 1; 1 2] up to
   signs: t = 1e20 in float, 1e200 in double overflow, t^(1/2) does not) */
static void test_from_wc_refusals(void)
{
    const double t = IS_D ? 1e200 : 1e20;
    const real unit[6] = {1, 0, 0, 1, 1, 1};
    real W[6];
    ro_sgns_factors *f, *sentinel = (ro_sgns_factors *)&g_rng;
    ro_sgns_error err;
    int i, big;
    for (big = 0; big < 2; ++big) {
        for (i = 0; i < 6; ++i) W[i] = (real)((double)unit[i] * (big ? t : sqrt(t)));
        f = sentinel;
        CHECKF(ro_sgns_factors_from_wc(3, 3, 2, W, W, &f, NULL, &err) ==
                   (big ? RO_SGNS_ERR_NUMERIC : RO_SGNS_OK),
               "t = %g: %s", big ? t : sqrt(t), err.message);
        if (!big && f != sentinel) {
            /* det S = det(R_W) det(R_C) = 3 t^2 */
            CHECK(fabs((double)f->S[0] / t * ((double)f->S[3] / t) -
                       (double)f->S[1] / t * ((double)f->S[2] / t) - 3) <= 1e-5);
            ro_sgns_factors_free(f);
        } else {
            CHECK(f == sentinel);
        }
    }
    W[0] = (real)NAN;
    f = sentinel;
    CHECK(ro_sgns_factors_from_wc(3, 3, 2, W, W, &f, NULL, &err) == RO_SGNS_ERR_NUMERIC &&
          f == sentinel);
}

static ro_sgns_factors *copy_point(const ro_sgns_factors *x)
{
    ro_sgns_factors *f = NULL;
    ro_sgns_factors_create(x->n, x->m, x->d, &f, NULL, NULL);
    memcpy(f->U, x->U, x->n * x->d * sizeof(real));
    memcpy(f->V, x->V, x->m * x->d * sizeof(real));
    memcpy(f->S, x->S, x->d * x->d * sizeof(real));
    return f;
}

/* ------------------------------------------------ objective, gradient */

/* Part I's term of one entry (I.1): f at closed forms (x = 0: f = -(a + B)
   log 2, f' = (a - B) / 2), f' against central differences of f over a
   wide range of x, and no overflow at |x| = 700 where a naive
   log(1 + exp(x)) is Inf. */
static void test_sgns_entry(void)
{
    static const double xs[] = {-40, -12.5, -3, -0.7, -1e-3, 0, 2e-4, 0.5, 4, 19, 45};
    static const double ab[][2] = {{0, 2.5}, {3, 0.01}, {17, 4}, {1, 1}};
    double g, f, worst = 0;
    size_t i, j;
    f = ro_sgns__sgns_entry(3, 5, 0, &g);
    CHECK_NEAR(f, -8 * log(2.0), 1e-14);
    CHECK_NEAR(g, -1, 1e-15);
    for (j = 0; j < sizeof ab / sizeof ab[0]; ++j)
        for (i = 0; i < sizeof xs / sizeof xs[0]; ++i) {
            double a = ab[j][0], B = ab[j][1], x = xs[i], h = 1e-5 * (1 + fabs(x));
            double fd = (ro_sgns__sgns_entry(a, B, x + h, NULL) - ro_sgns__sgns_entry(a, B, x - h, NULL)) /
                        (2 * h);
            ro_sgns__sgns_entry(a, B, x, &g);
            if (!(fabs(fd - g) / (1 + fabs(g)) <= worst)) worst = fabs(fd - g) / (1 + fabs(g));
        }
    CHECKF(worst <= 1e-7, "entry: f' vs central differences %.3g", worst);
    f = ro_sgns__sgns_entry(2, 3, 700, &g); /* -3 * 700 to rounding; f' = -3 */
    CHECKF(fabs(f + 2100) <= 1e-9 && fabs(g + 3) <= 1e-12, "entry at 700: f %g f' %g", f, g);
    f = ro_sgns__sgns_entry(2, 3, -700, &g); /* -2 * 700; f' = 2 */
    CHECKF(fabs(f + 1400) <= 1e-9 && fabs(g - 2) <= 1e-12, "entry at -700: f %g f' %g", f, g);
}

static void test_objective_and_gradient(double cds)
{
    size_t n = 7, m = 9, d = 7, i, j;
    double k = 5, worst = 0, worst_fd = 0, worst_scaled = 0, F_lib, F_ref;
    counts_t c = make_counts(n, m, 0.5);
    double *A = dense_counts(&c), *X, *G = (double *)malloc(n * m * sizeof(double));
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x;
    real *Gl = (real *)malloc(n * m * sizeof(real));
    ro_sgns_error err;
    CHECKF(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds, &p, NULL, &err) ==
               RO_SGNS_OK,
           "%s", err.message);
    x = random_point(n, m, d, 1.0);
    X = dense_x(x);
    /* F against the formula */
    CHECK(ro_sgns_objective(p, x, &F_lib, &err) == RO_SGNS_OK);
    F_ref = ref_F(&c, A, k, cds, X);
    CHECKF(fabs(F_lib - F_ref) <= (IS_D ? 1e-12 : 1e-5) * fabs(F_ref), "cds %g: F %.17g vs %.17g",
           cds, F_lib, F_ref);
    /* Part I's F, entry by entry in double, against the formula: the order
       of the sums differs, and in float B's colfac, #(c)^cds, is rounded to
       a float (the formula's is a double) */
    {
        double F_naive;
        CHECK(ro_sgns_objective_naive(p, x, &F_naive, &err) == RO_SGNS_OK);
        CHECKF(fabs(F_naive - F_ref) <= (IS_D || cds == 1 ? 1e-12 : 1e-6) * fabs(F_ref),
               "cds %g: F naive %.17g vs %.17g",
               cds, F_naive, F_ref);
    }
    /* grad F: the blocked direction against the formula, and the formula
       against central differences of F, entry by entry (double only: the
       differences need the precision) */
    CHECK(ro_sgns_direction_dense(p, x, RO_SGNS_DIRECTION_PLAIN, Gl, &err) == RO_SGNS_OK);
    ref_direction(&c, A, k, cds, X, 0, G);
    for (i = 0; i < n * m; ++i) {
        double e = fabs(Gl[i] - G[i]) / (1 + fabs(G[i]));
        if (!(e <= worst)) worst = e;
    }
    CHECKF(worst <= (IS_D ? 1e-12 : 1e-5), "blocked gradient off by %.3g", worst);
    if (IS_D) {
        for (i = 0; i < n; ++i)
            for (j = 0; j < m; ++j) {
                const double h = 1e-5;
                double *Xp = (double *)malloc(n * m * sizeof(double)), fp, fm, fd;
                memcpy(Xp, X, n * m * sizeof(double));
                Xp[i * m + j] += h;
                fp = ref_F(&c, A, k, cds, Xp);
                Xp[i * m + j] -= 2 * h;
                fm = ref_F(&c, A, k, cds, Xp);
                fd = (fp - fm) / (2 * h);
                worst_fd = tu_max(worst_fd, fabs(fd - G[i * m + j]) / (1 + fabs(fd)));
                free(Xp);
            }
        CHECKF(worst_fd <= 1e-6, "grad F vs central differences: %.3g", worst_fd);
    }
    /* the scaled direction is grad F / B, entry by entry */
    CHECK(ro_sgns_direction_dense(p, x, RO_SGNS_DIRECTION_SCALED, Gl, &err) == RO_SGNS_OK);
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j) {
            double B = ref_B(&c, k, cds, i, j);
            double e = fabs(Gl[i * m + j] - G[i * m + j] / B) / (1 + fabs(G[i * m + j] / B));
            if (!(e <= worst_scaled)) worst_scaled = e;
        }
    CHECKF(worst_scaled <= (IS_D ? 1e-12 : 1e-5), "scaled direction != grad F / B: %.3g",
           worst_scaled);
    /* F of W C^T by the other entry point: the same value */
    {
        real *W = (real *)malloc(n * d * sizeof(real)), *C = (real *)malloc(m * d * sizeof(real));
        double F2;
        ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_W, W, d, NULL, NULL);
        ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_C, C, d, NULL, NULL);
        CHECK(ro_sgns_objective_wc(p, W, C, d, &F2, &err) == RO_SGNS_OK);
        CHECKF(fabs(F2 - F_ref) <= (IS_D ? 1e-10 : 1e-4) * fabs(F_ref), "F(W C^T) %.17g vs %.17g",
               F2, F_ref);
        /* alpha must be finite; with S = 1e-3 I, Sigma^alpha = 1e-3^alpha:
           1e60 at alpha = -20 (beyond a float, not a double), 1e600 at
           -200 (beyond both). Errors leave W as it was. */
        {
            ro_sgns_factors *y = copy_point(x);
            double bad_alpha[2] = {HUGE_VAL, 0};
            int b;
            bad_alpha[1] = NAN;
            for (i = 0; i < n * d; ++i) W[i] = (real)7;
            for (b = 0; b < 2; ++b)
                CHECKF(ro_sgns_factors_embeddings(x, bad_alpha[b], RO_SGNS_EMBED_W, W, d, NULL,
                                                  &err) == RO_SGNS_ERR_INVALID_ARGUMENT,
                       "alpha %g", bad_alpha[b]);
            memset(y->S, 0, d * d * sizeof(real));
            for (i = 0; i < d; ++i) y->S[i * d + i] = (real)1e-3;
            CHECK(ro_sgns_factors_embeddings(y, -200, RO_SGNS_EMBED_C, W, d, NULL, &err) ==
                  RO_SGNS_ERR_NUMERIC);
            CHECK(ro_sgns_factors_embeddings(y, -20, RO_SGNS_EMBED_W, W, d, NULL, &err) ==
                  (IS_D ? RO_SGNS_OK : RO_SGNS_ERR_NUMERIC));
            if (!IS_D) {
                size_t changed = 0;
                for (i = 0; i < n * d; ++i) changed += W[i] != (real)7;
                CHECKF(changed == 0, "%lu values of W changed", (unsigned long)changed);
            }
            ro_sgns_factors_free(y);
        }
        free(W);
        free(C);
    }
    /* extreme x (|x| up to ~1e4): no overflow, F finite (neither NaN nor
       -inf, which F == F would let through) and the reference's */
    for (i = 0; i < d * d; ++i) x->S[i] *= (real)1e4;
    free(X);
    X = dense_x(x);
    F_ref = ref_F(&c, A, k, cds, X);
    CHECK(ro_sgns_objective(p, x, &F_lib, &err) == RO_SGNS_OK);
    CHECKF(F_lib - F_lib == 0 && F_lib < 0 &&
               fabs(F_lib - F_ref) <= (IS_D ? 1e-10 : 1e-4) * fabs(F_ref),
           "extreme x: F %.17g vs %.17g", F_lib, F_ref);
    /* cds must be > 0 and finite; nothing is written on failure */
    {
        ro_sgns_problem *q = (ro_sgns_problem *)&F_lib; /* a sentinel, never freed */
        const double bad_cds[3] = {0, -0.75, HUGE_VAL};
        for (i = 0; i < 3; ++i)
            CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, bad_cds[i], &q,
                                             NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                  q == (ro_sgns_problem *)&F_lib);
        /* #(c)^cds overflows: an error, not Inf in B */
        CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 400, &q, NULL, &err) ==
                  RO_SGNS_ERR_NUMERIC &&
              q == (ro_sgns_problem *)&F_lib);
        CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, HUGE_VAL, cds, &q, NULL,
                                         &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
              q == (ro_sgns_problem *)&F_lib);
        /* rows that index outside the arrays: row_ptr falling (row 0 would
           read past the entries), col or val NULL */
        {
            uint64_t *rp = (uint64_t *)malloc((n + 1) * sizeof(uint64_t));
            memcpy(rp, c.row_ptr, (n + 1) * sizeof(uint64_t));
            rp[1] = rp[n] + 100;
            CHECK(ro_sgns_problem_create_csr(n, m, rp, c.col, c.val, k, cds, &q, NULL, &err) ==
                      RO_SGNS_ERR_INVALID_ARGUMENT &&
                  q == (ro_sgns_problem *)&F_lib && strstr(err.message, "falls"));
            free(rp);
            CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, NULL, c.val, k, cds, &q, NULL,
                                             &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                  q == (ro_sgns_problem *)&F_lib);
            CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, NULL, k, cds, &q, NULL,
                                             &err) == RO_SGNS_ERR_INVALID_ARGUMENT &&
                  q == (ro_sgns_problem *)&F_lib);
        }
        /* the largest #(c)^cds at 1e40: beyond a float, within a double */
        {
            double cmax = 0, cds40;
            for (i = 0; i < m; ++i)
                if (c.csum[i] > cmax) cmax = c.csum[i];
            cds40 = 40 / log10(cmax);
            if (IS_D) {
                CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds40, &q,
                                                 NULL, &err) == RO_SGNS_OK);
                ro_sgns_problem_free(q);
                q = (ro_sgns_problem *)&F_lib;
            } else {
                CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds40, &q,
                                                 NULL, &err) == RO_SGNS_ERR_NUMERIC &&
                      q == (ro_sgns_problem *)&F_lib && strstr(err.message, "float"));
            }
        }
    }
    /* a point that does not fit */
    {
        ro_sgns_factors *y = random_point(8, 9, 3, 1);
        CHECK(ro_sgns_objective(p, y, &F_lib, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        ro_sgns_factors_free(y);
    }
    ro_sgns_factors_free(x);
    ro_sgns_problem_free(p);
    free(X);
    free(G);
    free(Gl);
    free(A);
    free_counts(&c);
}

/* --------------------------------------- one step against naive dense */

/* |X_a - X_b|_F / |X_a|_F of two points, X formed densely */
static double x_rel_diff(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    double *Xa = dense_x(a), *Xb = dense_x(b), diff = 0, norm = 0;
    size_t i;
    for (i = 0; i < a->n * a->m; ++i) {
        diff += (Xa[i] - Xb[i]) * (Xa[i] - Xb[i]);
        norm += Xa[i] * Xa[i];
    }
    free(Xa);
    free(Xb);
    return sqrt(diff / norm);
}

/* Two points from runs with different row blockings of the sweep: the
   same bits with the built-in GEMM (every element of a tile product comes
   from the same kernel calls whatever the tile's height); with the tiles
   on the BLAS (RO_SGNS_CBLAS_TILES), which picks its kernels by shape, the
   bits may differ and the points must agree as X to 1e-4 (float), 1e-10
   (double). The thread count never changes the bits (checked by memcmp). */
#ifdef _OPENMP /* used by the thread tests only */
static int same_across_layouts(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    size_t n = a->n, m = a->m, d = a->d;
    int same = memcmp(a->U, b->U, n * d * sizeof(real)) == 0 &&
               memcmp(a->V, b->V, m * d * sizeof(real)) == 0 &&
               memcmp(a->S, b->S, d * d * sizeof(real)) == 0;
#if defined(RO_SGNS_USE_CBLAS) && defined(RO_SGNS_CBLAS_TILES)
    if (!same) same = x_rel_diff(a, b) <= (IS_D ? 1e-10 : 1e-4);
#endif
    return same;
}
#endif

static double orth_err(size_t rows, size_t d, const real *Q)
{
    double e = 0;
    size_t i, j, p;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) {
            double s = 0;
            for (p = 0; p < rows; ++p) s += (double)Q[p * d + i] * Q[p * d + j];
            s -= (i == j);
            e = tu_max(e, fabs(s));
        }
    return e;
}

/* One step of the blocked sweep, for each row x column blocking in blocks
   (0: the library's), without the kept direction, with all of it, and with
   its first n / 3 + 1 rows (a budget a few bytes short of one more row: the
   sweep over X^T then starts inside a tile), against the header's dense
   reference step on an n x m problem of rank d. */
static void step_vs_naive_shape(size_t n, size_t m, size_t d, double cds,
                                const size_t (*blocks)[2], size_t n_blocks)
{
    size_t b, i;
    double tol = IS_D ? 1e-10 : 1e-4;
    {
        double k = 5;
        /* the square case is symmetric: the transpose is then not stored */
        counts_t c = n == m ? make_sym_counts(n, 0.15) : make_counts(n, m, 0.3);
        ro_sgns_problem *p = NULL;
        ro_sgns_factors *x0 = random_point(n, m, d, 0.5);
        int scaled;
        ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds, &p, NULL, NULL);
        for (scaled = 0; scaled <= 1; ++scaled) {
            double lambda = scaled ? 0.5 : 0.5 / (k * c.total / (double)(n * m));
            /* the header's dense reference step (X, D and M formed) */
            ro_sgns_factors *xr = copy_point(x0);
            double *Xref, nref = 0;
            CHECK(ro_sgns_ro_step_naive(p, xr, scaled ? RO_SGNS_DIRECTION_SCALED
                                                      : RO_SGNS_DIRECTION_PLAIN,
                                        lambda, NULL) == RO_SGNS_OK);
            CHECK(xr->iteration == 1);
            CHECK(orth_err(n, d, xr->U) <= (IS_D ? 1e-12 : 1e-5));
            Xref = dense_x(xr);
            ro_sgns_factors_free(xr);
            for (i = 0; i < n * m; ++i) nref += Xref[i] * Xref[i];
            nref = sqrt(nref);
            for (b = 0; b < 3 * n_blocks; ++b) {
                /* the second round keeps the direction of the start's sweep for
                   D^T U' (keep_direction_bytes), so that product is a GEMM; the
                   third keeps its first rows: a GEMM and a shorter sweep */
                const size_t bi = b % n_blocks, row = m * sizeof(real);
                const int keep = (int)(b / n_blocks);
                ro_sgns_factors *x = copy_point(x0);
                ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
                ro_sgns_error err;
                double *Xl, diff = 0;
                cfg.iterations = 1;
                cfg.safeguard = 0;
                cfg.direction = scaled ? RO_SGNS_DIRECTION_SCALED : RO_SGNS_DIRECTION_PLAIN;
                cfg.step = lambda;
                cfg.block_rows = blocks[bi][0];
                cfg.block_cols = blocks[bi][1];
                cfg.keep_direction_bytes = keep == 1   ? n * row
                                           : keep == 2 ? (n / 3 + 2) * row - 3
                                                       : 0;
                CHECKF(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
                CHECK(x->iteration == 1);
                Xl = dense_x(x);
                for (i = 0; i < n * m; ++i) diff += (Xl[i] - Xref[i]) * (Xl[i] - Xref[i]);
                diff = sqrt(diff) / nref;
                CHECKF(diff <= tol,
                       "step %lux%lu d=%lu cds %g %s blocks %lux%lu%s: |X - X_naive|/|X| = %.3g",
                       (unsigned long)n, (unsigned long)m, (unsigned long)d, cds,
                       scaled ? "scaled" : "plain", (unsigned long)blocks[bi][0],
                       (unsigned long)blocks[bi][1],
                       keep == 1 ? " kept D" : keep == 2 ? " kept D's first rows" : "", diff);
                CHECK(orth_err(n, d, x->U) <= (IS_D ? 1e-12 : 1e-5));
                CHECK(orth_err(m, d, x->V) <= (IS_D ? 1e-12 : 1e-5));
                free(Xl);
                ro_sgns_factors_free(x);
            }
            free(Xref);
        }
        ro_sgns_factors_free(x0);
        ro_sgns_problem_free(p);
        free_counts(&c);
    }
}

static void test_step_vs_naive(double cds)
{
    static const size_t shapes[][3] = {{13, 17, 3}, {40, 31, 5}, {64, 64, 8}};
    static const size_t blocks[][2] = {{0, 0}, {1, 1}, {5, 3}, {7, 16}, {9, 32}};
    size_t s;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        step_vs_naive_shape(shapes[s][0], shapes[s][1], shapes[s][2], cds, blocks,
                            sizeof blocks / sizeof blocks[0]);
}

/* The sweep packs R^T and P once when its tiles are a multiple of NR wide
   (8, 16 or 32) or there is one tile: tiles wider than one KC block of 256
   (the products with P run over two), the last tile narrower; and d > 256
   (X's tiles over two KC blocks, n, m > 256), against tiles 36 wide, which
   no NR divides (each tile packs its own), to rounding: the dense reference
   would cost seconds at that size. Not in quick mode: under qemu (s390x,
   no SIMD) and valgrind it took tens of seconds. */
static void packed_sweep_d260(void)
{
    const size_t n = 262, m = 264, d = 260;
    counts_t c = make_counts(n, m, 0.1);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.5), *x[2];
    int t;
    ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL);
    for (t = 0; t < 2; ++t) {
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        ro_sgns_error err;
        cfg.iterations = 1;
        cfg.safeguard = 0;
        cfg.step = 0.5;
        cfg.block_rows = 9;
        cfg.block_cols = t ? 36 : 32;
        x[t] = copy_point(x0);
        CHECKF(ro_sgns_ro_train(p, x[t], &cfg, &err) == RO_SGNS_OK, "%s", err.message);
    }
    CHECKF(x_rel_diff(x[0], x[1]) <= (IS_D ? 1e-10 : 1e-4),
           "d = 260, tiles 32 (packed once) vs 36: |X_a - X_b|/|X_a| = %.3g",
           x_rel_diff(x[0], x[1]));
    ro_sgns_factors_free(x[0]);
    ro_sgns_factors_free(x[1]);
    ro_sgns_factors_free(x0);
    ro_sgns_problem_free(p);
    free_counts(&c);
}

static void test_step_packed_sweep(void)
{
    static const size_t blocks[][2] = {{0, 0}, {9, 32}, {5, 288}};
    step_vs_naive_shape(24, 600, 4, 1.0, blocks, sizeof blocks / sizeof blocks[0]);
    if (!tu_quick()) packed_sweep_d260();
}

/* ------------------------------- safeguard, callback, determinism */

typedef struct {
    int calls, monotone, orthonormal, stop_at;
    double last_F;
} watch_t;

static int watch(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    watch_t *w = (watch_t *)user;
    ++w->calls;
    if (pr->objective < pr->objective_prev) w->monotone = 0;
    if (orth_err(x->n, x->d, x->U) > (IS_D ? 1e-12 : 1e-5) ||
        orth_err(x->m, x->d, x->V) > (IS_D ? 1e-12 : 1e-5))
        w->orthonormal = 0;
    w->last_F = pr->objective;
    return w->stop_at && w->calls >= w->stop_at;
}

static void test_safeguard_and_threads(void)
{
    size_t n = 150, m = 120, d = 10;
    counts_t c = make_counts(n, m, 0.2);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3), *x1, *x2;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    watch_t w;
    double F0, F1;
    ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL);
    ro_sgns_objective(p, x0, &F0, NULL);
    /* a step far too long for plain steps: the safeguard halves it until F
       rises, so F never falls */
    memset(&w, 0, sizeof w);
    w.monotone = w.orthonormal = 1;
    x1 = copy_point(x0);
    cfg.direction = RO_SGNS_DIRECTION_PLAIN;
    cfg.step = 10;
    cfg.iterations = 6;
    cfg.callback = watch;
    cfg.user = &w;
    CHECK(ro_sgns_ro_train(p, x1, &cfg, NULL) == RO_SGNS_OK);
    CHECK(w.calls >= 1 && w.monotone && w.orthonormal);
    ro_sgns_objective(p, x1, &F1, NULL);
    CHECKF(F1 > F0, "safeguarded plain steps: F %.6g -> %.6g", F0, F1);
    CHECK(fabs(F1 - w.last_F) <= 1e-9 * fabs(F1));
    /* scaled default: monotone too, and the callback can stop it */
    memset(&w, 0, sizeof w);
    w.monotone = w.orthonormal = 1;
    w.stop_at = 3;
    ro_sgns_factors_free(x1);
    x1 = copy_point(x0);
    cfg = ro_sgns_ro_config_default();
    cfg.callback = watch;
    cfg.user = &w;
    CHECK(ro_sgns_ro_train(p, x1, &cfg, NULL) == RO_SGNS_STOPPED);
    CHECK(w.calls == 3 && x1->iteration == 3 && w.monotone && w.orthonormal);
#ifdef _OPENMP
    { /* 1 and 2 threads, two block layouts: bitwise the same factors */
        int saved = omp_get_max_threads();
        cfg = ro_sgns_ro_config_default();
        cfg.iterations = 2;
        x2 = copy_point(x0);
        ro_sgns_factors_free(x1);
        x1 = copy_point(x0);
        omp_set_num_threads(1);
        ro_sgns_ro_train(p, x1, &cfg, NULL);
        omp_set_num_threads(2);
        ro_sgns_ro_train(p, x2, &cfg, NULL);
        CHECK(memcmp(x1->U, x2->U, n * d * sizeof(real)) == 0 &&
              memcmp(x1->V, x2->V, m * d * sizeof(real)) == 0 &&
              memcmp(x1->S, x2->S, d * d * sizeof(real)) == 0);
        ro_sgns_factors_free(x2);
        x2 = copy_point(x0);
        /* another row blocking: the fused step sums D^T M V by blocks of
           rows, so the same point to rounding; with two sweeps a step the
           same bits (tiles own rows) */
        cfg.block_rows = 7;
        ro_sgns_ro_train(p, x2, &cfg, NULL);
        CHECKF(x_rel_diff(x1, x2) <= (IS_D ? 1e-10 : 1e-4), "fused, block rows 7: %.3g",
               x_rel_diff(x1, x2));
        cfg.fuse = 0;
        cfg.block_rows = 0;
        ro_sgns_factors_free(x1);
        x1 = copy_point(x0);
        ro_sgns_ro_train(p, x1, &cfg, NULL);
        ro_sgns_factors_free(x2);
        x2 = copy_point(x0);
        cfg.block_rows = 7;
        ro_sgns_ro_train(p, x2, &cfg, NULL);
        CHECK(same_across_layouts(x1, x2));
        omp_set_num_threads(saved);
        ro_sgns_factors_free(x2);
    }
#endif
    /* bad settings (an infinite step would never be halved to a finite one) */
    {
        double bad_steps[4] = {0, -1, HUGE_VAL, 0};
        int b;
        bad_steps[3] = NAN;
        for (b = 0; b < 4; ++b) {
            cfg = ro_sgns_ro_config_default();
            cfg.step = bad_steps[b];
            CHECKF(ro_sgns_ro_train(p, x1, &cfg, NULL) == RO_SGNS_ERR_INVALID_ARGUMENT,
                   "step %g", bad_steps[b]);
        }
    }
    /* the paper's fixed step (no safeguard), so long that X + lambda grad F
       overflows: RO_SGNS_ERR_NUMERIC, and the point is the last good one,
       bit for bit */
    {
        ro_sgns_error err;
        ro_sgns_factors *xs = copy_point(x0);
        cfg = ro_sgns_ro_config_default();
        cfg.direction = RO_SGNS_DIRECTION_PLAIN;
        cfg.safeguard = 0;
        cfg.step = IS_D ? 1e305 : 1e36;
        cfg.iterations = 3;
        {
            ro_sgns_result rc = ro_sgns_ro_train(p, xs, &cfg, &err);
            CHECKF(rc == RO_SGNS_ERR_NUMERIC && strstr(err.message, "step 1") &&
                       strstr(err.message, "last good point"),
                   "%d: %s", (int)rc, err.message);
        }
        CHECK(xs->iteration == 0 &&
              memcmp(xs->U, x0->U, x0->n * x0->d * sizeof(real)) == 0 &&
              memcmp(xs->V, x0->V, x0->m * x0->d * sizeof(real)) == 0 &&
              memcmp(xs->S, x0->S, x0->d * x0->d * sizeof(real)) == 0);
        ro_sgns_factors_free(xs);
    }
    cfg = ro_sgns_ro_config_default();
    cfg.iterations = -1;
    CHECK(ro_sgns_ro_train(p, x1, &cfg, NULL) == RO_SGNS_ERR_INVALID_ARGUMENT);
    (void)x2;
    ro_sgns_factors_free(x0);
    ro_sgns_factors_free(x1);
    ro_sgns_problem_free(p);
    free_counts(&c);
}

/* The safeguard's step size never exceeds the configured step
   (ro_sgns_ro_config.grow: an accepted step s makes the next start at
   min(s grow, step)): with every step accepted at the full step, each
   step reported is the configured one and x->next_step too; after
   halvings (a plain step far too long) the step grows back, never past
   it. Without the cap the second step would try 2 step. With step_max
   the accepted steps grow to it (step, 2 step, 4 step, 4 step, ...), and
   the point is the one that runs of one step at each of those sizes
   reach, to rounding; a step_max below step, NaN or Inf is refused. */
typedef struct {
    int calls;
    double max_step, max_next, first, last;
} steps_t;

static int watch_steps(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    steps_t *s = (steps_t *)user;
    if (s->calls++ == 0) s->first = pr->step;
    s->last = pr->step;
    s->max_step = tu_max(s->max_step, pr->step);
    s->max_next = tu_max(s->max_next, x->next_step);
    return 0;
}

/* step_norm / step against |P_T(D)|_F, the direction's part in the
   tangent space at X (P_T(D) = U U^T D + D V V^T - U U^T D V V^T), from
   the dense direction in double: the retraction moves X by step P_T(D) +
   O(step^2), so the estimate's error falls about in half with the step
   (above rounding: |dX| is a difference of squares of size |S|^2). */
typedef struct {
    double step, step_norm;
} one_step_t;

static int keep_step(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    one_step_t *o = (one_step_t *)user;
    (void)x;
    o->step = pr->step;
    o->step_norm = pr->step_norm;
    return 0;
}

static void test_tangent_norm(void)
{
    size_t n = 40, m = 30, d = 4, i, j, q;
    counts_t c = make_counts(n, m, 0.3);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.5), *x;
    real *D = (real *)malloc(n * m * sizeof(real));
    double *UtD = (double *)calloc(d * m, sizeof(double)), *DV = (double *)calloc(n * d, sizeof(double));
    double a2 = 0, b2 = 0, c2 = 0, pt, err_prev = -1;
    static const double steps[] = {0.04, 0.02, 0.01};
    int t;
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL) ==
          RO_SGNS_OK);
    CHECK(ro_sgns_direction_dense(p, x0, RO_SGNS_DIRECTION_SCALED, D, NULL) == RO_SGNS_OK);
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j)
            for (q = 0; q < d; ++q) {
                UtD[q * m + j] += (double)x0->U[i * d + q] * D[i * m + j];
                DV[i * d + q] += (double)D[i * m + j] * x0->V[j * d + q];
            }
    for (i = 0; i < d * m; ++i) a2 += UtD[i] * UtD[i];
    for (i = 0; i < n * d; ++i) b2 += DV[i] * DV[i];
    for (i = 0; i < d; ++i) /* U^T D V = U^T (D V) */
        for (q = 0; q < d; ++q) {
            double u = 0;
            for (j = 0; j < n; ++j) u += (double)x0->U[j * d + i] * DV[j * d + q];
            c2 += u * u;
        }
    pt = sqrt(a2 + b2 - c2);
    for (t = 0; t < 3; ++t) {
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        one_step_t o = {0, 0};
        double est, e;
        x = copy_point(x0);
        cfg.step = steps[t];
        cfg.iterations = 1;
        cfg.callback = keep_step;
        cfg.user = &o;
        CHECK(ro_sgns_ro_train(p, x, &cfg, NULL) == RO_SGNS_OK);
        CHECK(o.step == steps[t]);
        est = o.step_norm / o.step;
        e = fabs(est - pt) / pt;
        CHECKF(e <= (IS_D ? 0.02 : 0.03), "step %g: |dX| / step %.6g against |P_T(D)| %.6g",
               steps[t], est, pt);
        if (IS_D && err_prev >= 0)
            CHECKF(e <= 0.6 * err_prev, "step %g: error %.3g, at twice the step %.3g", steps[t],
                   e, err_prev);
        err_prev = e;
        ro_sgns_factors_free(x);
    }
    ro_sgns_factors_free(x0);
    ro_sgns_problem_free(p);
    free_counts(&c);
    free(D);
    free(UtD);
    free(DV);
}

/* ro_sgns_tangent_norm: |P_T(D)|_F from two sweeps against P_T(D) formed
   as an n x m matrix in double, U U^T G + G V V^T - U U^T G V V^T with G
   the formula's direction (ref_direction) at the formula's X, both
   directions, cds 1 and 0.75, non-square and tiny shapes; the closed form
   at full rank (d = m: V V^T = I, so P_T(G) = G and the norm is |G|_F);
   the same bits on 1 and 2 threads; NaN, shards and NULL refused. */
/* P_T(Z) for a dense Z, in double, as a dense matrix */
static void pt_dense(const ro_sgns_factors *x, const double *Z, double *out)
{
    size_t n = x->n, m = x->m, d = x->d, i, j, q, r;
    double *UtZ = (double *)calloc(d * m, sizeof(double)), *ZV = (double *)calloc(n * d, sizeof(double));
    double *UtZV = (double *)calloc(d * d, sizeof(double));
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j)
            for (q = 0; q < d; ++q) {
                UtZ[q * m + j] += (double)x->U[i * d + q] * Z[i * m + j];
                ZV[i * d + q] += Z[i * m + j] * (double)x->V[j * d + q];
            }
    for (q = 0; q < d; ++q)
        for (r = 0; r < d; ++r)
            for (i = 0; i < n; ++i) UtZV[q * d + r] += (double)x->U[i * d + q] * ZV[i * d + r];
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j) {
            double v = 0;
            for (q = 0; q < d; ++q) {
                v += (double)x->U[i * d + q] * UtZ[q * m + j] + ZV[i * d + q] * (double)x->V[j * d + q];
                for (r = 0; r < d; ++r)
                    v -= (double)x->U[i * d + q] * UtZV[q * d + r] * (double)x->V[j * d + r];
            }
            out[i * m + j] = v;
        }
    free(UtZ);
    free(ZV);
    free(UtZV);
}

static double ref_tangent_norm(const ro_sgns_factors *x, const double *G)
{
    size_t i;
    double *P = (double *)malloc(x->n * x->m * sizeof(double)), s2 = 0;
    pt_dense(x, G, P);
    for (i = 0; i < x->n * x->m; ++i) s2 += P[i] * P[i];
    free(P);
    return sqrt(s2);
}

static void test_tangent_norm_exact(void)
{
    static const size_t shapes[][3] = {{40, 30, 4}, {9, 23, 3}, {23, 9, 5}, {3, 2, 1}, {17, 6, 6}};
    const double k = 5;
    size_t s, i;
    int dir, cdsi;
    ro_sgns_error err;
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (cdsi = 0; cdsi < 2; ++cdsi) {
            size_t n = shapes[s][0], m = shapes[s][1], d = shapes[s][2];
            double cds = cdsi ? 0.75 : 1.0;
            counts_t c = make_counts_seen(n, m, 0.3); /* the formula's grad F / B is finite */
            double *A = dense_counts(&c), *X, *G = (double *)malloc(n * m * sizeof(double));
            ro_sgns_problem *p = NULL;
            ro_sgns_factors *x = random_point(n, m, d, 0.7);
            CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds, &p, NULL,
                                             NULL) == RO_SGNS_OK);
            X = dense_x(x);
            for (dir = 0; dir < 2; ++dir) {
                double got = -1, want, full = 0;
                ref_direction(&c, A, k, cds, X, dir, G);
                want = ref_tangent_norm(x, G);
                CHECKF(ro_sgns_tangent_norm(p, x, dir ? RO_SGNS_DIRECTION_SCALED
                                                      : RO_SGNS_DIRECTION_PLAIN,
                                            &got, &err) == RO_SGNS_OK, "%s", err.message);
                CHECKF(fabs(got - want) <= (IS_D ? 1e-10 : 2e-5) * want,
                       "%lux%lu d %lu cds %g dir %d: |P_T(D)| %.10g, dense %.10g",
                       (unsigned long)n, (unsigned long)m, (unsigned long)d, cds, dir, got, want);
                if (d == m) { /* full rank: the tangent space is every matrix */
                    for (i = 0; i < n * m; ++i) full += G[i] * G[i];
                    full = sqrt(full);
                    CHECKF(fabs(got - full) <= (IS_D ? 1e-10 : 2e-5) * full,
                           "full rank: %.10g against |D|_F %.10g", got, full);
                }
                if (d < m && d < n) { /* a proper subspace: strictly less than |D| */
                    for (i = 0; i < n * m; ++i) full += G[i] * G[i];
                    CHECK(got < sqrt(full));
                }
            }
#ifdef _OPENMP
            {
                int saved = omp_get_max_threads();
                double a1 = 0, a2 = 1;
                omp_set_num_threads(1);
                ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_SCALED, &a1, NULL);
                omp_set_num_threads(2);
                ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_SCALED, &a2, NULL);
                omp_set_num_threads(saved);
                CHECK(memcmp(&a1, &a2, sizeof a1) == 0);
            }
#endif
            free(X);
            free(A);
            free(G);
            ro_sgns_factors_free(x);
            ro_sgns_problem_free(p);
            free_counts(&c);
        }
    { /* refusals: NaN in the point, a shard, NULL; the output untouched */
        size_t n = 12, m = 10, d = 3;
        counts_t c = make_counts(n, m, 0.3);
        ro_sgns_problem *p = NULL, *rows = NULL;
        ro_sgns_factors *x = random_point(n, m, d, 0.7);
        double out = 42;
        CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 1.0, &p, NULL, NULL) ==
              RO_SGNS_OK);
        CHECK(ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_PLAIN, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_tangent_norm(p, NULL, RO_SGNS_DIRECTION_PLAIN, &out, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_METRIC, &out, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_problem_create_rows(p, 0, n / 2, &rows, NULL, NULL) == RO_SGNS_OK);
        CHECK(ro_sgns_tangent_norm(rows, x, RO_SGNS_DIRECTION_PLAIN, &out, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        x->S[0] = (real)NAN;
        CHECKF(ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_PLAIN, &out, &err) ==
                   RO_SGNS_ERR_NUMERIC, "%s", err.message);
        CHECK(out == 42);
        ro_sgns_problem_free(rows);
        ro_sgns_factors_free(x);
        ro_sgns_problem_free(p);
        free_counts(&c);
    }
}

/* The metric direction (II.6b). Its pieces against dense matrices in
   double: g = P_T(G) from G V and G^T U; L(xi) = P_T(B o xi) for a random
   tangent vector xi = U K V^T + Up V^T + U Vp^T; CG's xi solves L(xi) = g
   (the residual falls to rounding with enough iterations) and is an ascent
   direction at every iteration count (<g, xi> > 0, including the
   preconditioner alone). The run: F never falls, and in 100 steps on a
   small problem the projected gradient's norm falls to 5% of the start's
   and half of the scaled direction's; the same bits on 1 and 2 threads; the shard and
   dense entry points refuse it. */
static void tan_dense(const ro_sgns_factors *x, const real *t, double *out)
{
    size_t n = x->n, m = x->m, d = x->d, i, j, a, b;
    const real *K = t, *Up = t + d * d, *Vp = t + d * d + n * d;
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j) {
            double v = 0;
            for (a = 0; a < d; ++a) {
                double uk = 0;
                for (b = 0; b < d; ++b) uk += (double)x->U[i * d + b] * K[b * d + a];
                v += uk * x->V[j * d + a] + (double)Up[i * d + a] * x->V[j * d + a] +
                     (double)x->U[i * d + a] * Vp[j * d + a];
            }
            out[i * m + j] = v;
        }
}

static double rel_dense(size_t len, const double *a, const double *b)
{
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < len; ++i) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

static int grad_norm_cb(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    double *state = (double *)user; /* [0]: monotone so far (1/0), [1]: last F */
    (void)x;
    if (pr->objective < pr->objective_prev) state[0] = 0;
    state[1] = pr->objective;
    return 0;
}

/* x = M^-1 b for a d x d M (row-major, overwritten) by Gaussian
   elimination with partial pivoting, in double */
static void dense_solve(size_t d, double *M, double *b)
{
    size_t i, j, q, piv;
    for (i = 0; i < d; ++i) {
        for (piv = i, j = i + 1; j < d; ++j)
            if (fabs(M[j * d + i]) > fabs(M[piv * d + i])) piv = j;
        for (q = 0; q < d; ++q) {
            double t = M[i * d + q];
            M[i * d + q] = M[piv * d + q];
            M[piv * d + q] = t;
        }
        { double t = b[i]; b[i] = b[piv]; b[piv] = t; }
        for (j = i + 1; j < d; ++j) {
            const double f = M[j * d + i] / M[i * d + i];
            for (q = i; q < d; ++q) M[j * d + q] -= f * M[i * d + q];
            b[j] -= f * b[i];
        }
    }
    for (i = d; i-- > 0;) {
        for (q = i + 1; q < d; ++q) b[i] -= M[i * d + q] * b[q];
        b[i] /= M[i * d + i];
    }
}

/* the metric's blocks at x, as ro_sgns__ro_run_metric sets them up */
static void metric_blocks(ro_sgns__metric *mt, const ro_sgns_problem *p, const ro_sgns_factors *x)
{
    const size_t n = x->n, m = x->m, d = x->d;
    memset(mt, 0, sizeof *mt);
    mt->n = n, mt->m = m, mt->d = d, mt->al = NULL, mt->b = p->fwd.rowfac, mt->c = p->fwd.colfac;
    mt->bU = (real *)malloc(n * d * sizeof(real));
    mt->cV = (real *)malloc(m * d * sizeof(real));
    mt->tn = (real *)malloc(n * d * sizeof(real));
    mt->tm = (real *)malloc(m * d * sizeof(real));
    mt->Ab = (real *)malloc(7 * d * d * sizeof(real));
    mt->Cc = mt->Ab + d * d, mt->Abi = mt->Ab + 2 * d * d, mt->Cci = mt->Ab + 3 * d * d;
    mt->dd = mt->Ab + 4 * d * d;
    mt->chol = (double *)malloc(2 * d * d * sizeof(double));
    CHECK(ro_sgns__metric_at(mt, x->U, x->V, NULL) == RO_SGNS_OK);
}

static void metric_blocks_free(ro_sgns__metric *mt)
{
    free(mt->bU);
    free(mt->cV);
    free(mt->tn);
    free(mt->tm);
    free(mt->Ab);
    free(mt->chol);
}

/* The preconditioned CG of II.6b written out here, its recurrences in
   double (the library's L and preconditioner applied to real copies):
   x after `iters` updates from 0, for L(x) = g. len reals in t1, t2. */
static void ref_pcg(ro_sgns__metric *mt, const real *g, int iters, size_t len, real *t1, real *t2,
                    double *x)
{
    double *r = (double *)malloc(3 * len * sizeof(double)), *z = r + len, *pv = r + 2 * len;
    double rz = 0, pq, alpha, rz1, beta;
    size_t i;
    int it;
    for (i = 0; i < len; ++i) {
        r[i] = (double)g[i];
        x[i] = 0;
    }
    CHECK(ro_sgns__metric_precond(mt, g, t1, NULL) == RO_SGNS_OK);
    for (i = 0; i < len; ++i) rz += (double)g[i] * (pv[i] = z[i] = (double)t1[i]);
    for (it = 0; it < iters; ++it) {
        for (i = 0; i < len; ++i) t1[i] = (real)pv[i];
        CHECK(ro_sgns__metric_apply(mt, t1, t2, NULL) == RO_SGNS_OK);
        for (i = 0, pq = 0; i < len; ++i) pq += pv[i] * (double)t2[i];
        alpha = rz / pq;
        for (i = 0; i < len; ++i) {
            x[i] += alpha * pv[i];
            r[i] -= alpha * (double)t2[i];
            t1[i] = (real)r[i];
        }
        CHECK(ro_sgns__metric_precond(mt, t1, t2, NULL) == RO_SGNS_OK);
        for (i = 0, rz1 = 0; i < len; ++i) rz1 += r[i] * (z[i] = (double)t2[i]);
        beta = rz1 / rz;
        rz = rz1;
        for (i = 0; i < len; ++i) pv[i] = z[i] + beta * pv[i];
    }
    free(r);
}

/* CG against an independent dense solve: on a problem whose tangent
   space has D = d^2 + (n - d + m - d) d = 11 dimensions, an orthonormal
   basis Q of it (n x m matrices, P_T of the unit matrices, Gram-Schmidt
   in double) makes L(xi) = P_T(B o xi) = g the D x D system
   (Q^T diag(B) Q) c = Q^T g. CG from 0 solves it exactly in D updates
   (to rounding); its xi must be Q c. Before that, each of its first
   updates against the recurrences written out in double (ref_pcg): one
   update short, or without the conjugation (steepest descent), it is
   neither. */
static void test_metric_cg(void)
{
    const size_t n = 5, m = 4, d = 1, len = (d + n + m) * d, nm = n * m;
    const size_t D = d * d + (n - d + m - d) * d;
    const double k = 5, tol = IS_D ? 1e-12 : 1e-5;
    counts_t c = make_counts_seen(n, m, 0.6);
    double *Q = (double *)calloc((nm + 1) * nm, sizeof(double)), *E = Q + nm * nm;
    double *M = (double *)calloc(nm * nm, sizeof(double)), *rhs = (double *)calloc(nm, sizeof(double));
    double *Gd = (double *)malloc(nm * sizeof(double)), *Xi = (double *)malloc(nm * sizeof(double));
    double *ref = (double *)calloc(nm, sizeof(double)), e;
    real *tv = (real *)malloc(6 * len * sizeof(real));
    real *g = tv, *xi = tv + len, *z = tv + 2 * len, *pp = tv + 3 * len, *q = tv + 4 * len;
    real *g0 = tv + 5 * len;
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x = random_point(n, m, d, 0.7);
    ro_sgns__metric mt;
    ro_sgns_error err;
    size_t i, j, t, rank = 0;
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 0.75, &p, NULL, NULL) ==
          RO_SGNS_OK);
    if (!p || !x) goto done;
    metric_blocks(&mt, p, x);
    for (i = 0; i < nm; ++i) { /* Q: P_T(E_i), orthonormalized (twice) */
        double *qr = Q + rank * nm, s2 = 0;
        for (j = 0; j < nm; ++j) E[j] = j == i;
        pt_dense(x, E, qr);
        for (t = 0; t < 2 * rank; ++t) {
            double s = 0;
            for (j = 0; j < nm; ++j) s += Q[(t % rank) * nm + j] * qr[j];
            for (j = 0; j < nm; ++j) qr[j] -= s * Q[(t % rank) * nm + j];
        }
        for (j = 0; j < nm; ++j) s2 += qr[j] * qr[j];
        if (s2 > 1e-16) {
            for (j = 0; j < nm; ++j) qr[j] /= sqrt(s2);
            ++rank;
        }
    }
    CHECKF(rank == D, "metric CG: the tangent space has %lu dimensions, %lu found",
           (unsigned long)D, (unsigned long)rank);
    /* g: a random tangent vector; the dense system and its solution */
    for (i = 0; i < len; ++i) g0[i] = (real)ro_sgns_rng_normal(&g_rng);
    CHECK(ro_sgns__metric_perp(&mt, n, x->U, g0 + d * d, &err) == RO_SGNS_OK);
    CHECK(ro_sgns__metric_perp(&mt, m, x->V, g0 + d * d + n * d, &err) == RO_SGNS_OK);
    tan_dense(x, g0, Gd);
    for (i = 0; i < rank; ++i) {
        for (j = 0; j < nm; ++j) rhs[i] += Q[i * nm + j] * Gd[j];
        for (t = 0; t < rank; ++t)
            for (j = 0; j < nm; ++j)
                M[i * rank + t] += Q[i * nm + j] * ref_B(&c, k, 0.75, j / m, j % m) * Q[t * nm + j];
    }
    dense_solve(rank, M, rhs);
    for (i = 0; i < rank; ++i)
        for (j = 0; j < nm; ++j) ref[j] += rhs[i] * Q[i * nm + j];
    for (t = 1; t < 5; ++t) { /* the first updates, one by one */
        double num = 0, den = 0;
        memcpy(g, g0, len * sizeof(real));
        CHECK(ro_sgns__metric_solve(&mt, (int)t, g, xi, z, pp, q, &err) == RO_SGNS_OK);
        ref_pcg(&mt, g0, (int)t, len, z, q, Gd);
        for (i = 0; i < len; ++i) {
            num += ((double)xi[i] - Gd[i]) * ((double)xi[i] - Gd[i]);
            den += Gd[i] * Gd[i];
        }
        CHECKF(sqrt(num) <= (IS_D ? 1e-12 : 1e-5) * sqrt(den),
               "metric CG, %lu updates: off the recurrences by %.3g of %.3g", (unsigned long)t,
               sqrt(num), sqrt(den));
        if (getenv("VERBOSE")) printf("metric CG, %lu updates: off by %.3g\n", (unsigned long)t, sqrt(num / den));
    }
    memcpy(g, g0, len * sizeof(real));
    CHECK(ro_sgns__metric_solve(&mt, (int)D, g, xi, z, pp, q, &err) == RO_SGNS_OK);
    tan_dense(x, xi, Xi);
    e = rel_dense(nm, Xi, ref);
    CHECKF(e <= tol, "metric CG, %lu iterations: xi off the dense solve by %.3g", (unsigned long)D, e);
    if (getenv("VERBOSE")) printf("metric CG: %lu iterations, off the dense solve by %.3g\n", (unsigned long)D, e);
    metric_blocks_free(&mt);
done:
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    free_counts(&c);
    free(Q);
    free(M);
    free(rhs);
    free(Gd);
    free(Xi);
    free(ref);
    free(tv);
}

static void test_metric_direction(void)
{
    const size_t n = 23, m = 17, d = 3, len = (d + n + m) * d;
    const double k = 5, tol = IS_D ? 1e-9 : 2e-4;
    counts_t c = make_counts_seen(n, m, 0.35);
    double *A = dense_counts(&c), *X, *G = (double *)malloc(n * m * sizeof(double));
    double *D1 = (double *)malloc(n * m * sizeof(double)), *D2 = (double *)malloc(n * m * sizeof(double));
    double *D3 = (double *)malloc(n * m * sizeof(double));
    real *GV = (real *)malloc(n * d * sizeof(real)), *GtU = (real *)malloc(m * d * sizeof(real));
    real *tv = (real *)malloc(6 * len * sizeof(real));
    real *g = tv, *xi = tv + len, *z = tv + 2 * len, *pp = tv + 3 * len, *q = tv + 4 * len;
    real *g0 = tv + 5 * len;
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x = random_point(n, m, d, 0.7);
    ro_sgns__metric mt;
    ro_sgns_error err;
    size_t i, w;
    int iters;
    static const int cg_counts[] = {0, 1, 2, 3, 4, 12, 36, 60};
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 0.75, &p, NULL, NULL) ==
          RO_SGNS_OK);
    X = dense_x(x);
    ref_direction(&c, A, k, 0.75, X, 0, G);
    metric_blocks(&mt, p, x);
    { /* g = P_T(G): the sweeps' G V and G^T U, assembled, against dense */
        real *L = (real *)malloc((n > m ? n : m) * d * sizeof(real));
        double F;
        const ro_sgns_direction plain = RO_SGNS_DIRECTION_PLAIN;
        const ro_sgns__usv at = ro_sgns__usv_of(d, x->U, x->S, x->V);
        CHECK(ro_sgns__sweep_point(p, plain, 0, at, L, GV, &F, NULL, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns__sweep_point(p, plain, 1, at, L, GtU, NULL, NULL, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns__metric_grad(&mt, GV, GtU, g, &err) == RO_SGNS_OK);
        memcpy(g0, g, len * sizeof(real));
        tan_dense(x, g, D1);
        pt_dense(x, G, D2);
        CHECKF(rel_dense(n * m, D1, D2) <= tol, "metric: g against dense P_T(G): %.3g",
               rel_dense(n * m, D1, D2));
        free(L);
    }
    { /* L(xi) against P_T(B o xi), xi a random tangent vector */
        for (i = 0; i < len; ++i) xi[i] = (real)ro_sgns_rng_normal(&g_rng);
        CHECK(ro_sgns__metric_perp(&mt, n, x->U, xi + d * d, &err) == RO_SGNS_OK);
        CHECK(ro_sgns__metric_perp(&mt, m, x->V, xi + d * d + n * d, &err) == RO_SGNS_OK);
        CHECK(ro_sgns__metric_apply(&mt, xi, q, &err) == RO_SGNS_OK);
        tan_dense(x, xi, D1);
        for (w = 0; w < n; ++w)
            for (i = 0; i < m; ++i) D1[w * m + i] *= ref_B(&c, k, 0.75, w, i);
        pt_dense(x, D1, D2);
        tan_dense(x, q, D3);
        CHECKF(rel_dense(n * m, D3, D2) <= tol, "metric: L(xi) against dense P_T(B o xi): %.3g",
               rel_dense(n * m, D3, D2));
    }
    /* CG: an ascent direction at every count; the residual of L(xi) = g
       falls with enough iterations (60 of the 111 dimensions here; the
       exact solve: test_metric_cg) */
    for (w = 0; w < sizeof cg_counts / sizeof cg_counts[0]; ++w) {
        double gx, res2 = 0, g2 = 0;
        iters = cg_counts[w];
        memcpy(g, g0, len * sizeof(real));
        CHECK(ro_sgns__metric_solve(&mt, iters, g, xi, z, pp, q, &err) == RO_SGNS_OK);
        gx = ro_sgns__tan_dot(len, g0, xi);
        CHECKF(gx > 0, "metric: CG %d: <g, xi> = %g, not an ascent direction", iters, gx);
        CHECK(ro_sgns__metric_apply(&mt, xi, q, &err) == RO_SGNS_OK);
        for (i = 0; i < len; ++i) {
            res2 += ((double)q[i] - g0[i]) * ((double)q[i] - g0[i]);
            g2 += (double)g0[i] * g0[i];
        }
        if (getenv("VERBOSE")) printf("metric: CG %d: residual %.3g\n", iters, sqrt(res2 / g2));
        if (iters == 60)
            CHECKF(sqrt(res2 / g2) <= (IS_D ? 1e-12 : 1e-5), "metric: CG 60: residual %.3g",
                   sqrt(res2 / g2));
    }
    { /* the d x d inverses: a singular Gram matrix gets the ridge (rank one:
         its inverse times it is the identity on its span, 1e12-sized off it);
         NaN is an error */
        real Z[9], Zi[9];
        for (i = 0; i < 9; ++i) Z[i] = 1; /* [1 1 1] [1 1 1]^T: rank one */
        CHECK(ro_sgns__spd_inverse(&mt, Z, Zi, &err) == RO_SGNS_OK);
        CHECK(Zi[0] > 1e10 && ro_sgns__is_finite(Zi[0])); /* the ridge's 3e-12 */
        if (IS_D) /* (Z + e I)^-1 1 = 1 / (3 + e): entries of 1e11 that cancel */
            CHECK(fabs((double)Zi[0] + Zi[1] + Zi[2] - 1 / (3 + 3e-12)) <= 1e-3);
        Z[4] = (real)NAN;
        CHECK(ro_sgns__spd_inverse(&mt, Z, Zi, &err) == RO_SGNS_ERR_NUMERIC);
    }
    metric_blocks_free(&mt);
    { /* the run: F monotone; |P_T(grad F)| far below the scaled direction's stop */
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        ro_sgns_factors *xs = copy_point(x), *xm = copy_point(x);
        double st_s[2] = {1, 0}, st_m[2] = {1, 0}, g_start, g_s, g_m, F_s, F_m;
        CHECK(ro_sgns_tangent_norm(p, x, RO_SGNS_DIRECTION_PLAIN, &g_start, NULL) == RO_SGNS_OK);
        cfg.iterations = 100;
        cfg.callback = grad_norm_cb;
        cfg.user = st_s;
        CHECK(ro_sgns_ro_train(p, xs, &cfg, &err) == RO_SGNS_OK);
        cfg.direction = RO_SGNS_DIRECTION_METRIC;
        cfg.user = st_m;
        CHECKF(ro_sgns_ro_train(p, xm, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
        CHECK(st_m[0] == 1 && xm->iteration > 0);
        CHECK(ro_sgns_tangent_norm(p, xs, RO_SGNS_DIRECTION_PLAIN, &g_s, NULL) == RO_SGNS_OK);
        CHECK(ro_sgns_tangent_norm(p, xm, RO_SGNS_DIRECTION_PLAIN, &g_m, NULL) == RO_SGNS_OK);
        CHECK(ro_sgns_objective(p, xs, &F_s, NULL) == RO_SGNS_OK);
        CHECK(ro_sgns_objective(p, xm, &F_m, NULL) == RO_SGNS_OK);
        /* F itself is not compared: the two runs reach different points of a
           non-convex F (on this problem the scaled one's is higher, 0.3%) */
        CHECKF(g_m <= 0.05 * g_start && g_m <= 0.5 * g_s,
               "metric: |P_T(grad F)| %.3g (scaled %.3g) of %.3g at the start; F %.10g (scaled %.10g)",
               g_m, g_s, g_start, F_m, F_s);
#ifdef _OPENMP
        {
            int saved = omp_get_max_threads();
            ro_sgns_factors *x1 = copy_point(x), *x2 = copy_point(x);
            cfg.iterations = 5;
            cfg.callback = NULL;
            omp_set_num_threads(1);
            CHECK(ro_sgns_ro_train(p, x1, &cfg, NULL) == RO_SGNS_OK);
            omp_set_num_threads(2);
            CHECK(ro_sgns_ro_train(p, x2, &cfg, NULL) == RO_SGNS_OK);
            omp_set_num_threads(saved);
            CHECK(memcmp(x1->U, x2->U, n * d * sizeof(real)) == 0 &&
                  memcmp(x1->V, x2->V, m * d * sizeof(real)) == 0 &&
                  memcmp(x1->S, x2->S, d * d * sizeof(real)) == 0);
            ro_sgns_factors_free(x1);
            ro_sgns_factors_free(x2);
        }
#endif
        /* refusals: negative CG count, the dense entry points */
        cfg.cg_iterations = -1;
        CHECK(ro_sgns_ro_train(p, xm, &cfg, NULL) == RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_direction_dense(p, x, RO_SGNS_DIRECTION_METRIC, (real *)D1, NULL) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_ro_step_naive(p, xm, RO_SGNS_DIRECTION_METRIC, 1, NULL) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        ro_sgns_factors_free(xs);
        ro_sgns_factors_free(xm);
    }
    ro_sgns_factors_free(x);
    ro_sgns_problem_free(p);
    free_counts(&c);
    free(A);
    free(X);
    free(G);
    free(D1);
    free(D2);
    free(D3);
    free(GV);
    free(GtU);
    free(tv);
}

static void test_step_cap(void)
{
    size_t n = 60, m = 50, d = 5;
    counts_t c = make_counts(n, m, 0.3);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3), *x;
    int round;
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL) ==
          RO_SGNS_OK);
    {
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        const double sizes[5] = {0.05, 0.1, 0.2, 0.2, 0.2};
        ro_sgns_factors *y = copy_point(x0);
        steps_t s;
        ro_sgns_error err;
        double worst = 0;
        size_t i;
        memset(&s, 0, sizeof s);
        cfg.iterations = 5;
        cfg.step = 0.05;
        cfg.step_max = 0.2;
        cfg.callback = watch_steps;
        cfg.user = &s;
        x = copy_point(x0);
        CHECKF(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
        CHECKF(s.calls == 5 && s.first == 0.05 && s.last == 0.2 && s.max_step == 0.2 &&
                   x->next_step == 0.2,
               "step_max: %d steps, %.17g .. %.17g (largest %.17g), next %.17g", s.calls,
               s.first, s.last, s.max_step, x->next_step);
        for (i = 0; i < 5; ++i) { /* one step at each size, the cap at it */
            ro_sgns_ro_config one = ro_sgns_ro_config_default();
            one.iterations = 1;
            one.step = sizes[i];
            y->next_step = 0; /* 0: the configured step */
            CHECKF(ro_sgns_ro_train(p, y, &one, &err) == RO_SGNS_OK, "%s", err.message);
        }
        {
            double *X1 = dense_x(x), *X2 = dense_x(y);
            for (i = 0; i < n * m; ++i) worst = tu_max(worst, fabs(X1[i] - X2[i]) / (1 + fabs(X2[i])));
            free(X1);
            free(X2);
        }
        CHECKF(y->iteration == 5 && worst <= (IS_D ? 1e-10 : 1e-4),
               "step_max: the point is %.3g from the one-step runs'", worst);
        cfg.callback = NULL;
        cfg.step_max = 0.04;
        CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        cfg.step_max = NAN;
        CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        cfg.step_max = HUGE_VAL;
        CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(x->iteration == 5);
        ro_sgns_factors_free(x);
        ro_sgns_factors_free(y);
    }
    for (round = 0; round < 2; ++round) {
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        steps_t s;
        ro_sgns_error err;
        memset(&s, 0, sizeof s);
        cfg.iterations = 5;
        cfg.grow = 2;
        cfg.callback = watch_steps;
        cfg.user = &s;
        if (round == 0) { /* short scaled steps: all accepted at the full step */
            cfg.step = 0.05;
        } else { /* plain steps far too long: halved, then grown back */
            cfg.direction = RO_SGNS_DIRECTION_PLAIN;
            cfg.step = 10;
        }
        x = copy_point(x0);
        CHECKF(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
        CHECKF(s.calls >= 2 && s.max_step <= cfg.step && s.max_next <= cfg.step &&
                   x->next_step <= cfg.step,
               "step cap, round %d: %d steps, largest %.17g, next %.17g, configured %.17g",
               round, s.calls, s.max_step, s.max_next, cfg.step);
        if (round == 0)
            CHECKF(s.calls == 5 && s.first == cfg.step && s.last == cfg.step &&
                       x->next_step == cfg.step,
                   "step cap: steps %.17g .. %.17g, next %.17g, configured %.17g", s.first,
                   s.last, x->next_step, cfg.step);
        else
            CHECKF(s.first < cfg.step, "step cap: the plain step %.17g was never halved", s.first);
        ro_sgns_factors_free(x);
    }
    ro_sgns_factors_free(x0);
    ro_sgns_problem_free(p);
    free_counts(&c);
}

/* an allocator that counts the blocks of g_size bytes asked for */
static size_t g_size, g_count;
static void *big_malloc(void *u, size_t size)
{
    (void)u;
    g_count += size == g_size;
    return malloc(size);
}
static void *big_realloc(void *u, void *ptr, size_t size)
{
    (void)u;
    g_count += size == g_size;
    return realloc(ptr, size);
}
static void big_free(void *u, void *ptr)
{
    (void)u;
    free(ptr);
}

/* The kept direction (keep_direction_bytes): D^T U' from the D that the
   previous sweep made instead of a second sweep, for all of D's rows or as
   many as the budget holds. The same iteration to rounding, over several
   steps with halvings (a plain step far too long); bit for bit for any
   thread count and row blocking; and a budget one byte short of one row of
   m reals changes nothing, bit for bit. */
static void test_keep_direction(void)
{
    size_t n = 150, m = 120, d = 10;
    counts_t c = make_counts(n, m, 0.2);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3), *a, *b;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    watch_t wa, wb;
    double diff;
    const size_t need = n * m * sizeof(real);
    ro_sgns_allocator al;
    al.malloc_fn = big_malloc;
    al.realloc_fn = big_realloc;
    al.free_fn = big_free;
    al.user = NULL;
    ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, &al, NULL);
    memset(&wa, 0, sizeof wa);
    memset(&wb, 0, sizeof wb);
    wa.monotone = wa.orthonormal = wb.monotone = wb.orthonormal = 1;
    cfg.direction = RO_SGNS_DIRECTION_PLAIN;
    cfg.step = 10; /* halved several times: the retries sweep again */
    cfg.iterations = 6;
    cfg.callback = watch;
    a = copy_point(x0);
    b = copy_point(x0);
    cfg.user = &wa;
    g_size = need;
    g_count = 0;
    CHECK(ro_sgns_ro_train(p, a, &cfg, NULL) == RO_SGNS_OK);
    CHECK(g_count == 0); /* nothing n x m by default */
    cfg.user = &wb;
    cfg.keep_direction_bytes = need;
    CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
    CHECK(g_count == 1); /* the direction was kept, in one block for the run */
    CHECKF(a->iteration == b->iteration && wa.calls == wb.calls && wb.monotone &&
               wb.orthonormal,
           "kept direction: %lu steps against %lu", (unsigned long)b->iteration,
           (unsigned long)a->iteration);
    diff = x_rel_diff(a, b);
    CHECKF(diff <= (IS_D ? 1e-10 : 1e-4), "kept direction: |X - X_sweep|/|X| = %.3g", diff);
    CHECKF(fabs(wa.last_F - wb.last_F) <= (IS_D ? 1e-10 : 1e-4) * fabs(wa.last_F),
           "kept direction: F %.9g against %.9g", wb.last_F, wa.last_F);
    { /* part of it: one byte short of n m reals keeps n - 1 rows, and 40
         rows, 1 row; each in one block, the same iteration to rounding */
        static const size_t rows[3] = {149, 40, 1};
        size_t r;
        for (r = 0; r < 3; ++r) {
            ro_sgns_factors_free(b);
            b = copy_point(x0);
            memset(&wb, 0, sizeof wb);
            wb.monotone = wb.orthonormal = 1;
            cfg.keep_direction_bytes = r == 0 ? need - 1 : rows[r] * m * sizeof(real) + 7;
            g_size = rows[r] * m * sizeof(real);
            g_count = 0;
            CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
            CHECKF(g_count == 1, "kept direction, %lu rows: %lu blocks of them",
                   (unsigned long)rows[r], (unsigned long)g_count);
            diff = x_rel_diff(a, b);
            CHECKF(a->iteration == b->iteration && wa.calls == wb.calls && wb.monotone &&
                       wb.orthonormal && diff <= (IS_D ? 1e-10 : 1e-4) &&
                       fabs(wa.last_F - wb.last_F) <= (IS_D ? 1e-10 : 1e-4) * fabs(wa.last_F),
                   "kept direction, %lu rows: %lu steps against %lu, |X - X_sweep|/|X| = "
                   "%.3g, F %.9g against %.9g",
                   (unsigned long)rows[r], (unsigned long)b->iteration,
                   (unsigned long)a->iteration, diff, wb.last_F, wa.last_F);
        }
        g_size = need;
    }
    /* one byte short of a row: no memory kept, the sweep's bits */
    ro_sgns_factors_free(b);
    b = copy_point(x0);
    cfg.callback = NULL;
    cfg.keep_direction_bytes = m * sizeof(real) - 1;
    g_count = 0;
    CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
    CHECK(g_count == 0);
    CHECK(memcmp(a->U, b->U, n * d * sizeof(real)) == 0 &&
          memcmp(a->V, b->V, m * d * sizeof(real)) == 0 &&
          memcmp(a->S, b->S, d * d * sizeof(real)) == 0);
#ifdef _OPENMP
    { /* kept, all rows or 40: 1, 2 and 3 threads and another row blocking,
         the same bits */
        int saved = omp_get_max_threads(), t, part;
        for (part = 0; part < 2; ++part) {
            cfg = ro_sgns_ro_config_default();
            cfg.iterations = 3;
            cfg.keep_direction_bytes = part ? 40 * m * sizeof(real) : need;
            ro_sgns_factors_free(a);
            a = copy_point(x0);
            omp_set_num_threads(1);
            CHECK(ro_sgns_ro_train(p, a, &cfg, NULL) == RO_SGNS_OK);
            for (t = 2; t <= 4; ++t) {
                ro_sgns_factors_free(b);
                b = copy_point(x0);
                omp_set_num_threads(t < 4 ? t : 2);
                cfg.block_rows = t < 4 ? 0 : 7;
                CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
                CHECKF(t < 4 ? memcmp(a->U, b->U, n * d * sizeof(real)) == 0 &&
                                   memcmp(a->V, b->V, m * d * sizeof(real)) == 0 &&
                                   memcmp(a->S, b->S, d * d * sizeof(real)) == 0
                             : same_across_layouts(a, b),
                       "kept direction%s: %d threads, block rows %lu: other bits",
                       part ? " (40 rows)" : "", t < 4 ? t : 2, (unsigned long)cfg.block_rows);
            }
        }
        omp_set_num_threads(saved);
    }
#endif
    ro_sgns_factors_free(a);
    ro_sgns_factors_free(b);
    ro_sgns_factors_free(x0);
    ro_sgns_problem_free(p);
    free_counts(&c);
}

/* The fused step (fuse = 1, the default): D^T U' from the D^T M V that the
   sweep at the previous point summed, not from a sweep over X^T. Against
   two sweeps a step (fuse = 0): the same iteration to rounding, with
   halvings (a plain step far too long: the retries sweep), with the
   scaled default, and from a start so ill-conditioned that CholeskyQR2
   refuses M V (the step falls back to the sweep), and at d = n, d = m and
   d = 1; bit for bit for 1 to 6 threads and several blocks of rows
   between the passes over G; and the blocks of D it keeps are small when
   n x m is (never the whole of D). */
static void test_fused(void)
{
    size_t n = 150, m = 120, d = 10, i;
    counts_t c = make_counts(n, m, 0.2);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3), *a, *b;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    watch_t wa, wb;
    double diff, tol = IS_D ? 1e-10 : 1e-4;
    int round;
    ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL);
    for (round = 0; round < 3; ++round) {
        ro_sgns_factors *start = copy_point(x0);
        cfg = ro_sgns_ro_config_default();
        cfg.callback = watch;
        if (round == 0) { /* halved several times: the retries sweep X^T */
            cfg.direction = RO_SGNS_DIRECTION_PLAIN;
            cfg.step = 10;
            cfg.iterations = 6;
        } else if (round == 1) { /* the default: every step fused */
            cfg.iterations = 5;
        } else { /* singular values 1 .. 1e-27: CholeskyQR2 refuses M V */
            for (i = 0; i < d * d; ++i) start->S[i] = 0;
            for (i = 0; i < d; ++i) start->S[i * d + i] = (real)pow(10.0, -3.0 * (double)i);
            cfg.direction = RO_SGNS_DIRECTION_PLAIN;
            cfg.step = 1e-12;
            cfg.safeguard = 0;
            cfg.iterations = 2;
        }
        memset(&wa, 0, sizeof wa);
        memset(&wb, 0, sizeof wb);
        wa.monotone = wa.orthonormal = wb.monotone = wb.orthonormal = 1;
        a = copy_point(start);
        b = copy_point(start);
        cfg.user = &wa;
        cfg.fuse = 0;
        CHECK(ro_sgns_ro_train(p, a, &cfg, NULL) == RO_SGNS_OK);
        cfg.user = &wb;
        cfg.fuse = 1;
        CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
        diff = x_rel_diff(a, b);
        CHECKF(a->iteration == b->iteration && wa.calls == wb.calls &&
                   (round == 2 || (wb.monotone && wb.orthonormal)) && diff <= tol &&
                   fabs(wa.last_F - wb.last_F) <= tol * fabs(wa.last_F),
               "fused, round %d: %lu steps against %lu, |X - X_two_sweeps|/|X| = %.3g, F %.9g "
               "against %.9g", round, (unsigned long)b->iteration, (unsigned long)a->iteration,
               diff, wb.last_F, wa.last_F);
        ro_sgns_factors_free(a);
        ro_sgns_factors_free(b);
        ro_sgns_factors_free(start);
    }
    { /* d = n, d = m, d = 1, few rows or columns: the same to rounding */
        static const size_t shapes[4][3] = {{12, 20, 12}, {20, 12, 12}, {300, 7, 7}, {40, 40, 1}};
        size_t q;
        for (q = 0; q < 4; ++q) {
            counts_t cq = make_counts(shapes[q][0], shapes[q][1], 0.3);
            ro_sgns_problem *pq = NULL;
            ro_sgns_factors *sq = random_point(shapes[q][0], shapes[q][1], shapes[q][2], 0.3);
            CHECK(ro_sgns_problem_create_csr(shapes[q][0], shapes[q][1], cq.row_ptr, cq.col,
                                             cq.val, 5, 1.0, &pq, NULL, NULL) == RO_SGNS_OK);
            cfg = ro_sgns_ro_config_default();
            cfg.iterations = 4;
            a = copy_point(sq);
            b = copy_point(sq);
            cfg.fuse = 0;
            CHECK(ro_sgns_ro_train(pq, a, &cfg, NULL) == RO_SGNS_OK);
            cfg.fuse = 1;
            CHECK(ro_sgns_ro_train(pq, b, &cfg, NULL) == RO_SGNS_OK);
            diff = x_rel_diff(a, b);
            CHECKF(a->iteration == b->iteration && diff <= tol,
                   "fused, %lu x %lu, d = %lu: |X - X_two_sweeps|/|X| = %.3g",
                   (unsigned long)shapes[q][0], (unsigned long)shapes[q][1],
                   (unsigned long)shapes[q][2], diff);
            ro_sgns_factors_free(a);
            ro_sgns_factors_free(b);
            ro_sgns_factors_free(sq);
            ro_sgns_problem_free(pq);
            free_counts(&cq);
        }
    }
#ifdef _OPENMP
    { /* 1 to 4 and 6 threads (more than the 4 blocks of the default
         blocking: as many blocks kept as there are), and blocks of 16 rows
         (10 blocks: several passes over G whatever the thread count): the
         same bits */
        int saved = omp_get_max_threads(), t, br;
        for (br = 0; br < 2; ++br) {
            cfg = ro_sgns_ro_config_default();
            cfg.iterations = 3;
            cfg.block_rows = br ? 16 : 0;
            a = copy_point(x0);
            omp_set_num_threads(1);
            CHECK(ro_sgns_ro_train(p, a, &cfg, NULL) == RO_SGNS_OK);
            for (t = 2; t <= 6; t += t < 4 ? 1 : 2) {
                b = copy_point(x0);
                omp_set_num_threads(t);
                CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
                CHECKF(memcmp(a->U, b->U, n * d * sizeof(real)) == 0 &&
                           memcmp(a->V, b->V, m * d * sizeof(real)) == 0 &&
                           memcmp(a->S, b->S, d * d * sizeof(real)) == 0,
                       "fused: %d threads, block rows %lu: other bits", t,
                       (unsigned long)cfg.block_rows);
                ro_sgns_factors_free(b);
            }
            ro_sgns_factors_free(a);
        }
        omp_set_num_threads(saved);
    }
#endif
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x0);
    free_counts(&c);
    { /* 600 x 500 at d = 4: the blocks of D shrink to 2 (n + m) d / m = 17.6
         -> 16 rows: one block of 16 x m reals a thread, allocated once for
         the run, and nothing of n x m */
        ro_sgns_allocator al;
        size_t n2 = 600, m2 = 500, threads = 1;
        counts_t c2 = make_counts(n2, m2, 0.05);
        ro_sgns_factors *x2 = random_point(n2, m2, 4, 0.3);
#ifdef _OPENMP
        threads = (size_t)omp_get_max_threads();
#endif
        al.malloc_fn = big_malloc;
        al.realloc_fn = big_realloc;
        al.free_fn = big_free;
        al.user = NULL;
        CHECK(ro_sgns_problem_create_csr(n2, m2, c2.row_ptr, c2.col, c2.val, 5, 1.0, &p, &al,
                                         NULL) == RO_SGNS_OK);
        cfg = ro_sgns_ro_config_default();
        cfg.iterations = 2;
        g_size = threads * 16 * m2 * sizeof(real);
        g_count = 0;
        CHECK(ro_sgns_ro_train(p, x2, &cfg, NULL) == RO_SGNS_OK);
        CHECKF(g_count == 1, "fused: %lu blocks of %lu threads x 16 rows", (unsigned long)g_count,
               (unsigned long)threads);
        g_size = n2 * m2 * sizeof(real);
        g_count = 0;
        CHECK(ro_sgns_ro_train(p, x2, &cfg, NULL) == RO_SGNS_OK);
        CHECK(g_count == 0);
        ro_sgns_problem_free(p);
        ro_sgns_factors_free(x2);
        free_counts(&c2);
    }
}

/* The fused step against the header's dense reference step over two
   steps (the second's D^T U' comes from the sweep's G = D^T M V as
   (G R1^-1) R2^-1, CholeskyQR2's two factors), at tolerances 11 (float)
   and 60 (double) times the largest difference the code measures (3.6e-7,
   1.7e-15 on Zen 1), below what a step without R2^-1 makes in most cases
   (float 2.6e-7 to 7.1e-5, four of six above the bound; double 2.3e-12 to
   4.1e-11, all). R2 is I but for about eps cond(M V)^2, so the cases
   are ones where that matters: singular values over 10^spread, mixed
   across M V's columns (S = diag(sigma) Q^T with a random orthogonal Q; a
   diagonal S leaves the scales in separate columns, where Cholesky QR is
   accurate whatever the spread), and a step lambda short enough (lf times
   step_vs_naive_shape's) that lambda D V does not fill in the small
   singular values. */
static double fused_vs_naive(size_t n, size_t m, size_t d, double spread, double lf,
                             int scaled)
{
    counts_t c = make_counts(n, m, 0.3);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.5), *xr, *x;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_direction dir = scaled ? RO_SGNS_DIRECTION_SCALED : RO_SGNS_DIRECTION_PLAIN;
    ro_sgns_error err;
    real *Q = (real *)malloc(d * d * sizeof(real)), *R = (real *)malloc(d * d * sizeof(real));
    double lambda, diff;
    size_t i, j;
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL) ==
          RO_SGNS_OK);
    lambda = lf * (scaled ? 0.5 : 0.5 / (5 * c.total / (double)(n * m)));
    for (i = 0; i < d * d; ++i) Q[i] = (real)ro_sgns_rng_normal(&g_rng);
    CHECK(ro_sgns_qr(d, d, Q, d, R, d, NULL, NULL) == RO_SGNS_OK);
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j)
            x0->S[i * d + j] =
                (real)(4 * pow(10.0, -spread * (double)i / (double)(d - 1)) * Q[j * d + i]);
    xr = copy_point(x0);
    x = copy_point(x0);
    CHECK(ro_sgns_ro_step_naive(p, xr, dir, lambda, NULL) == RO_SGNS_OK &&
          ro_sgns_ro_step_naive(p, xr, dir, lambda, NULL) == RO_SGNS_OK);
    cfg.iterations = 2;
    cfg.safeguard = 0;
    cfg.direction = dir;
    cfg.step = lambda;
    CHECKF(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
    diff = x_rel_diff(xr, x);
    free(Q);
    free(R);
    ro_sgns_factors_free(x);
    ro_sgns_factors_free(xr);
    ro_sgns_factors_free(x0);
    ro_sgns_problem_free(p);
    free_counts(&c);
    return diff;
}

static void test_fused_vs_naive(void)
{
    /* spread, lf: where the missing R2^-1 showed most */
    static const double cases_f[3][2] = {{4, 1e-2}, {4, 1e-3}, {3, 1e-2}};
    static const double cases_d[3][2] = {{6, 1e-5}, {7, 1e-6}, {5, 1e-4}};
    const double(*cases)[2] = IS_D ? cases_d : cases_f;
    const double tol = IS_D ? 1e-13 : 4e-6;
    int q, scaled;
    for (scaled = 0; scaled <= 1; ++scaled)
        for (q = 0; q < 3; ++q) {
            double diff = fused_vs_naive(40, 31, 5, cases[q][0], cases[q][1], scaled);
            if (getenv("VERBOSE"))
                printf("  fused vs naive, %s, 10^%g, lf %g: %.3g\n", scaled ? "scaled" : "plain",
                       cases[q][0], cases[q][1], diff);
            CHECKF(diff <= tol,
                   "fused vs naive, two %s steps of %g x the usual, singular values over "
                   "10^%g: |X - X_naive|/|X| = %.3g (tol %.0e)",
                   scaled ? "scaled" : "plain", cases[q][1], cases[q][0], diff, tol);
        }
}

/* ------------------------------------------- checkpoint and resume */

typedef struct {
    unsigned char *buf;
    size_t len, cap, pos;
    int fail_after; /* a write callback that fails after this many bytes (< 0: never) */
} membuf_t;

static int mem_write(void *user, const void *data, size_t size)
{
    membuf_t *m = (membuf_t *)user;
    if (m->fail_after >= 0 && m->len + size > (size_t)m->fail_after) return 1;
    if (m->len + size > m->cap) {
        m->cap = 2 * (m->len + size);
        m->buf = (unsigned char *)realloc(m->buf, m->cap);
    }
    memcpy(m->buf + m->len, data, size);
    m->len += size;
    return 0;
}

static size_t mem_read(void *user, void *data, size_t size)
{
    membuf_t *m = (membuf_t *)user;
    size_t n = m->len - m->pos < size ? m->len - m->pos : size;
    if (n > 6) n = 3 + n / 2; /* short reads on purpose (still <= n) */
    memcpy(data, m->buf + m->pos, n);
    m->pos += n;
    return n;
}

static int stop_after_2(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    (void)x;
    (void)user;
    return pr->iteration >= 2;
}

static void test_checkpoint_resume(void)
{
    size_t n = 90, m = 70, d = 6, i;
    counts_t c = make_counts(n, m, 0.25);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3), *straight = copy_point(x0), *half, *back = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    membuf_t mb;
    ro_sgns_error err;
    int corrupt_ok = 1;
    ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL);
    cfg.iterations = 5;
    cfg.direction = RO_SGNS_DIRECTION_PLAIN;
    cfg.step = 5; /* long enough that the safeguard halves and the step size state matters */
    CHECK(ro_sgns_ro_train(p, straight, &cfg, NULL) == RO_SGNS_OK);
    /* 2 steps, checkpoint through memory, load, 3 more: the same bits */
    half = copy_point(x0);
    cfg.callback = stop_after_2;
    CHECK(ro_sgns_ro_train(p, half, &cfg, NULL) == RO_SGNS_STOPPED && half->iteration == 2);
    memset(&mb, 0, sizeof mb);
    mb.fail_after = -1;
    CHECK(ro_sgns_factors_save_callback(half, mem_write, &mb, &err) == RO_SGNS_OK);
    { /* version 2: the 96-byte header, the values, a CRC a 64 KiB chunk and the table's */
        size_t data = 96 + 8 * (n * d + d * d + m * d);
        CHECK(mb.len == data + 4 * ((data + 65535) / 65536) + 4);
    }
    CHECK(ro_sgns_factors_load_callback(mem_read, &mb, &back, NULL, &err) == RO_SGNS_OK);
    if (back) {
        cfg.callback = NULL;
        cfg.iterations = 3;
        CHECK(ro_sgns_ro_train(p, back, &cfg, NULL) == RO_SGNS_OK);
        CHECK(back->iteration == 5 && straight->iteration == 5);
        CHECK(memcmp(back->U, straight->U, n * d * sizeof(real)) == 0 &&
              memcmp(back->V, straight->V, m * d * sizeof(real)) == 0 &&
              memcmp(back->S, straight->S, d * d * sizeof(real)) == 0);
        ro_sgns_factors_free(back);
        back = NULL;
    }
    /* every truncation and a flipped byte in each region: FORMAT, no object */
    for (i = 0; i < mb.len; i += (i < 64 ? 1 : 97)) {
        membuf_t t = mb;
        t.len = i;
        t.pos = 0;
        if (ro_sgns_factors_load_callback(mem_read, &t, &back, NULL, &err) != RO_SGNS_ERR_FORMAT ||
            back) {
            if (corrupt_ok) fprintf(stderr, "truncation at %lu loads: %s\n", (unsigned long)i, err.message);
            corrupt_ok = 0;
        }
        t.len = mb.len;
        t.pos = 0;
        t.buf[i] ^= 0x20;
        if (ro_sgns_factors_load_callback(mem_read, &t, &back, NULL, &err) != RO_SGNS_ERR_FORMAT ||
            back) {
            if (corrupt_ok) fprintf(stderr, "flip at %lu loads: %s\n", (unsigned long)i, err.message);
            corrupt_ok = 0;
        }
        t.buf[i] ^= 0x20;
    }
    CHECK(corrupt_ok);
    /* a write that fails midway is an I/O error */
    {
        membuf_t w;
        memset(&w, 0, sizeof w);
        w.fail_after = 1000;
        CHECK(ro_sgns_factors_save_callback(half, mem_write, &w, &err) == RO_SGNS_ERR_IO);
        free(w.buf);
    }
    /* through a path: atomic replace, and a missing file is an I/O error */
    {
        const char *path = tu_path("test_ro_checkpoint.bin");
        CHECK(ro_sgns_factors_save_path(half, path, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_factors_load_path(path, &back, NULL, &err) == RO_SGNS_OK);
        if (back) CHECK(memcmp(back->U, half->U, n * d * sizeof(real)) == 0);
        ro_sgns_factors_free(back);
        back = NULL;
        CHECK(ro_sgns_factors_load_path("build/no/such/file", &back, NULL, &err) ==
              RO_SGNS_ERR_IO);
        remove(path);
    }
    free(mb.buf);
    ro_sgns_factors_free(x0);
    ro_sgns_factors_free(straight);
    ro_sgns_factors_free(half);
    ro_sgns_problem_free(p);
    free_counts(&c);
}

/* --------------------------- from SVD-SPPMI on the sample corpus */

/* The sample corpus counted at window 2, min count 30 (n = 733), or 100
   under RO_SGNS_TEST_QUICK (n = 172); alloc may be NULL. */
static ro_sgns_result count_sample(const ro_sgns_allocator *alloc, ro_sgns_counts **c,
                                   ro_sgns_error *err)
{
    const char *path = "../shared/data/corpus/sample.txt";
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    FILE *f = fopen(path, "rb");
    if (!f) path = "../../shared/data/corpus/sample.txt";
    else fclose(f);
    cc.window = 2;
    cc.min_count = tu_quick() ? 100 : 30;
    return ro_sgns_count_path(path, &cc, c, alloc, err);
}

static void test_sample_corpus(void)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_problem *p = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_error err;
    double F0, F1;
    size_t d = tu_quick() ? 10 : 30;
    if (count_sample(NULL, &c, &err) != RO_SGNS_OK) {
        tu_skip("ro", "the sample corpus not found (the end-to-end run)", 1);
        return;
    }
    CHECK(ro_sgns_sppmi(c, 5, 1, &A, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_tsvd(A, d, NULL, &x, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_problem_create(c, 5, 1.0, &p, NULL, &err) == RO_SGNS_OK);
    if (x && p) {
        CHECK(ro_sgns_objective(p, x, &F0, &err) == RO_SGNS_OK);
        /* the paper's plain step, tiny lambda, no safeguard: F rises */
        cfg.direction = RO_SGNS_DIRECTION_PLAIN;
        cfg.safeguard = 0;
        cfg.iterations = 1;
        cfg.step = 1e-5;
        CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_objective(p, x, &F1, &err) == RO_SGNS_OK);
        CHECKF(F1 > F0, "sample corpus: plain step 1e-5: F %.8g -> %.8g", F0, F1);
        /* the default scaled iteration climbs further */
        cfg = ro_sgns_ro_config_default();
        cfg.iterations = 3;
        CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_objective(p, x, &F0, &err) == RO_SGNS_OK);
        CHECKF(F0 > F1, "sample corpus: scaled steps: F %.8g -> %.8g", F1, F0);
        if (getenv("VERBOSE")) printf("sample: n = %lu, F %.6g -> %.6g\n", (unsigned long)c->n, F1, F0);
    }
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    ro_sgns_csr_free(A);
    ro_sgns_counts_free(c);
}

/* ------------------- section 4: progress inside a step, the estimates */

typedef struct {
    long steps, inside, bad;   /* reports after steps, inside them, wrong ones */
    int sweep;                 /* the last report's sweep and its blocks done */
    uint64_t done, total, iteration;
    int sweeps_seen[8];        /* inside reports by sweep number (0..7) */
} blocks_watch;

static int watch_blocks(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x, void *user)
{
    blocks_watch *w = (blocks_watch *)user;
    if (!pr->within_step) {
        if (w->done != w->total) ++w->bad; /* the last sweep's every block */
        ++w->steps;
        w->iteration = pr->iteration;
        w->sweep = -2;
        return 0;
    }
    ++w->inside;
    /* x is the last accepted point; the blocks of one sweep count up by
       one from 1 to all of them */
    if (x->iteration != pr->iteration || pr->blocks_total == 0 || pr->sweep < 0 ||
        (pr->sweep == 0 && w->steps != 0) || pr->seconds < 0 ||
        pr->blocks_done != (pr->sweep == w->sweep ? w->done + 1 : 1))
        ++w->bad;
    if (pr->sweep >= 0 && pr->sweep < 8) ++w->sweeps_seen[pr->sweep];
    if (pr->sweep != w->sweep && w->done != w->total) ++w->bad;
    w->sweep = pr->sweep;
    w->done = pr->blocks_done;
    w->total = pr->blocks_total;
    return 1; /* ignored inside a step */
}

/* report_blocks: the callback inside the sweeps, counting each sweep's
   blocks; the results bit for bit those of a run without it, fused, with
   two sweeps a step and in the metric direction, on 1 and 2 threads. */
static void test_block_reports(void)
{
    size_t n = 150, m = 120, d = 10;
    int fuse, threads;
    counts_t c = make_counts(n, m, 0.2);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3);
    ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL);
    for (threads = 1; threads <= 2; ++threads)
        for (fuse = 0; fuse <= 2; ++fuse) { /* 2: the metric direction */
            ro_sgns_factors *a = copy_point(x0), *b = copy_point(x0);
            ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
            blocks_watch w;
#ifdef _OPENMP
            int saved = omp_get_max_threads();
            omp_set_num_threads(threads);
#else
            if (threads > 1) { /* serial build: one thread only */
                ro_sgns_factors_free(a);
                ro_sgns_factors_free(b);
                break;
            }
#endif
            memset(&w, 0, sizeof w);
            w.sweep = -2;
            cfg.iterations = 3;
            cfg.fuse = fuse == 1;
            if (fuse == 2) cfg.direction = RO_SGNS_DIRECTION_METRIC;
            cfg.block_rows = 16;
            CHECK(ro_sgns_ro_train(p, a, &cfg, NULL) == RO_SGNS_OK);
            cfg.callback = watch_blocks;
            cfg.user = &w;
            cfg.report_blocks = 1;
            CHECK(ro_sgns_ro_train(p, b, &cfg, NULL) == RO_SGNS_OK);
            CHECKF(w.steps == 3 && w.bad == 0 && w.inside >= 3 * 2,
                   "fuse %d, %d thread(s): %ld steps, %ld reports inside, %ld wrong", fuse,
                   threads, w.steps, w.inside, w.bad);
            /* the sweep at the start and one in each step at least; with two
               sweeps a step (fuse 0) the second too */
            CHECK(w.sweeps_seen[0] > 0 && w.sweeps_seen[1] > 0 && (fuse == 1 || w.sweeps_seen[2] > 0));
            CHECK(a->iteration == 3 && b->iteration == 3 &&
                  memcmp(a->U, b->U, n * d * sizeof(real)) == 0 &&
                  memcmp(a->V, b->V, m * d * sizeof(real)) == 0 &&
                  memcmp(a->S, b->S, d * d * sizeof(real)) == 0);
            ro_sgns_factors_free(a);
            ro_sgns_factors_free(b);
#ifdef _OPENMP
            omp_set_num_threads(saved);
#endif
        }
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x0);
    free_counts(&c);
}

/* an allocator that keeps the most held at once */
typedef struct {
    uint64_t held, peak;
} peak_alloc;
static void *pk_malloc(void *u, size_t size)
{
    peak_alloc *a = (peak_alloc *)u;
    size_t *b = (size_t *)malloc(size + 16);
    if (!b) return NULL;
    b[0] = size;
    a->held += size;
    if (a->held > a->peak) a->peak = a->held;
    return (char *)b + 16;
}
static void pk_free(void *u, void *p)
{
    peak_alloc *a = (peak_alloc *)u;
    if (!p) return;
    a->held -= *(size_t *)((char *)p - 16);
    free((char *)p - 16);
}
static void *pk_realloc(void *u, void *p, size_t size)
{
    void *q = pk_malloc(u, size);
    if (q && p) {
        size_t old = *(size_t *)((char *)p - 16);
        memcpy(q, p, old < size ? old : size);
        pk_free(u, p);
    }
    return q;
}

/* ro_sgns_estimate_step_seconds: the measured rate, then the model from
   it, increasing in n, m and d; refusals. ro_sgns_estimate_memory's
   training figure against what the start and the steps hold at most (by
   an allocator that keeps the peak) on the sample corpus. */
static void test_estimates(void)
{
    double rate = 0, s0 = 0, s1 = 0, r2;
    ro_sgns_error err;
    size_t d = 20;
    CHECK(ro_sgns_estimate_step_seconds(100, 100, 0, &rate, &s0, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_estimate_step_seconds(100, 10, 20, &rate, &s0, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_estimate_step_seconds(100, 100, 20, NULL, &s0, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_estimate_step_seconds(100, 100, 20, &rate, NULL, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(rate == 0);
    CHECK(ro_sgns_estimate_step_seconds(5000, 4000, 50, &rate, &s0, NULL, &err) == RO_SGNS_OK);
    CHECKF(rate > 0 && s0 > 0, "rate %g, %g s", rate, s0);
    /* from the rate: W / rate exactly, and larger in each of n, m and d */
    r2 = rate;
    CHECK(ro_sgns_estimate_step_seconds(5000, 4000, 50, &r2, &s1, NULL, &err) == RO_SGNS_OK);
    CHECK(r2 == rate && s1 == s0);
    CHECK_NEAR(s0 * rate, 6.0 * 5000 * 4000 * 50 + 40.0 * 5000 * 4000 + 12.0 * 9000 * 2500,
               1e-9 * s0 * rate);
    { /* from a given rate, other shapes: the contract's W / rate, each term showing */
        static const size_t shape[][3] = {{7, 3, 1}, {300, 20000, 2}, {40000, 900, 300}, {2304, 2304, 2304}};
        size_t t;
        for (t = 0; t < sizeof shape / sizeof shape[0]; ++t) {
            const double nn = (double)shape[t][0], mm = (double)shape[t][1], dd = (double)shape[t][2];
            const double W = 6 * nn * mm * dd + 40 * nn * mm + 12 * (nn + mm) * dd * dd;
            double r3 = 2.5e9, s3 = -1;
            CHECK(ro_sgns_estimate_step_seconds(shape[t][0], shape[t][1], shape[t][2], &r3, &s3, NULL,
                                                &err) == RO_SGNS_OK);
            CHECKF(r3 == 2.5e9 && fabs(s3 - W / 2.5e9) <= 1e-12 * (W / 2.5e9),
                   "estimate_step_seconds(%g, %g, %g) at 2.5e9 a second: %.17g s, W / rate %.17g", nn,
                   mm, dd, s3, W / 2.5e9);
        }
    }
    CHECK(ro_sgns_estimate_step_seconds(5001, 4000, 50, &rate, &s1, NULL, &err) == RO_SGNS_OK &&
          s1 > s0);
    CHECK(ro_sgns_estimate_step_seconds(5000, 4001, 50, &rate, &s1, NULL, &err) == RO_SGNS_OK &&
          s1 > s0);
    CHECK(ro_sgns_estimate_step_seconds(5000, 4000, 51, &rate, &s1, NULL, &err) == RO_SGNS_OK &&
          s1 > s0);
    /* d above the probe's 2304 (n large): measured at a smaller rank */
    rate = 0;
    CHECKF(ro_sgns_estimate_step_seconds(100000, 100000, 2400, &rate, &s1, NULL, &err) ==
               RO_SGNS_OK && rate > 0 && s1 > 0,
           "d = 2400: %s", err.message);
    /* a small problem is measured at its own size */
    rate = 0;
    CHECK(ro_sgns_estimate_step_seconds(30, 40, 3, &rate, &s1, NULL, &err) == RO_SGNS_OK &&
          rate > 0 && s1 > 0);
    { /* the memory a start and steps hold, against the estimate */
        ro_sgns_counts *c = NULL;
        ro_sgns_csr *A = NULL;
        ro_sgns_factors *x = NULL;
        ro_sgns_problem *p = NULL;
        ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
        peak_alloc pa = {0, 0};
        ro_sgns_allocator al;
        ro_sgns_memory_estimate e;
        double F;
        al.malloc_fn = pk_malloc;
        al.realloc_fn = pk_realloc;
        al.free_fn = pk_free;
        al.user = &pa;
        if (count_sample(&al, &c, &err) != RO_SGNS_OK) {
            tu_skip("ro", "the sample corpus not found (the memory estimate)", 1);
            return;
        }
        pa.peak = pa.held; /* the counts alone: the peak from here on */
        e = ro_sgns_estimate_memory(c->n, c->nnz, d, c->corpus_tokens, c->distinct_words);
        CHECK(pa.held <= e.counts);
        /* what the program does: the start, then the problem and the steps */
        CHECK(ro_sgns_sppmi(c, 5, 1, &A, &al, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_tsvd(A, d, NULL, &x, &al, &err) == RO_SGNS_OK);
        if (getenv("VERBOSE")) printf("memory: after the start %llu\n", (unsigned long long)pa.peak);
        ro_sgns_csr_free(A);
        CHECK(ro_sgns_problem_create(c, 5, 1.0, &p, &al, &err) == RO_SGNS_OK);
        cfg.iterations = 2;
        if (getenv("VERBOSE"))
            printf("memory: with the problem %llu (counts %llu)\n", (unsigned long long)pa.held,
                   (unsigned long long)e.counts);
        if (p && x) {
            CHECK(ro_sgns_objective(p, x, &F, &err) == RO_SGNS_OK);
            CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK);
        }
        CHECKF(pa.peak <= e.training, "n = %lu, nnz = %llu, d = %lu: peak %llu bytes, estimate %llu",
               (unsigned long)c->n, (unsigned long long)c->nnz, (unsigned long)d,
               (unsigned long long)pa.peak, (unsigned long long)e.training);
#if defined(_OPENMP) && !defined(RO_SGNS_USE_CBLAS)
        /* and not a loose one: within 2x of the peak where the estimate's
           fixed part is spent (the built-in GEMM's packing buffers for two
           threads; at quick mode's size, or serial, or on the BLAS, that
           part alone is about the peak) */
        if (!tu_quick())
            CHECKF(e.training <= 2 * pa.peak, "n = %lu, d = %lu: the estimate %llu is over twice the peak %llu",
                   (unsigned long)c->n, (unsigned long)d, (unsigned long long)e.training,
                   (unsigned long long)pa.peak);
#endif
        if (getenv("VERBOSE"))
            printf("memory: n = %lu, nnz = %llu, d = %lu: peak %llu, training estimate %llu\n",
                   (unsigned long)c->n, (unsigned long long)c->nnz, (unsigned long)d,
                   (unsigned long long)pa.peak, (unsigned long long)e.training);
        ro_sgns_problem_free(p);
        ro_sgns_factors_free(x);
        ro_sgns_counts_free(c);
        CHECK(pa.held == 0);
    }
}

/* ------------------------------- section 6: the step over row shards */

/* Section 4's two products alone, on problem p: a step with nothing kept
   and not fused, in the default blocks; L (U S) and VSt (V S^T) the
   scratch. */
static ro_sgns_result f_and_dv(const ro_sgns_problem *p, const ro_sgns_ro_config *cfg, size_t d,
                               const real *U, const real *S, const real *V, real *L, real *DV,
                               double *F, ro_sgns_error *err)
{
    ro_sgns__ro_step st;
    ro_sgns__ro_step_init(&st, p, cfg, d);
    st.w.T = L;
    return ro_sgns__f_and_dv(&st, U, S, V, DV, F, err);
}
static ro_sgns_result mt_u(const ro_sgns_problem *p, const ro_sgns_ro_config *cfg, size_t d,
                           double lambda, const real *U, const real *S, const real *V,
                           const real *U1, real *VSt, real *Out, ro_sgns_error *err)
{
    ro_sgns__ro_step st;
    ro_sgns__ro_step_init(&st, p, cfg, d);
    st.w.T = VSt;
    return ro_sgns__mt_u(&st, lambda, U, S, V, U1, 0, Out, err);
}

static void test_shards(void)
{
    size_t n = 150, m = 120, d = 10, i, j, q, P = 3;
    const size_t cut[4] = {0, 40, 97, 150};
    const double k = 5, step = 0.7;
    counts_t c = make_counts(n, m, 0.2);
    double *A = dense_counts(&c), *G = (double *)malloc(n * m * sizeof(double)), *X;
    ro_sgns_problem *p = NULL, *sh[3] = {NULL, NULL, NULL}, *all = NULL, *sc = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3);
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_error err;
    real *L = (real *)malloc(n * d * sizeof(real)), *DV = (real *)malloc(n * d * sizeof(real));
    real *DVs = (real *)malloc(n * d * sizeof(real)), *U1 = (real *)malloc(n * d * sizeof(real));
    real *VSt = (real *)malloc(m * d * sizeof(real));
    real *Out = (real *)malloc((m + d) * d * sizeof(real));
    real *Osum = (real *)calloc((m + d) * d, sizeof(real)), *Q = (real *)malloc(n * d * sizeof(real));
    real *Rs = (real *)malloc(P * d * d * sizeof(real)), *R = (real *)malloc(d * d * sizeof(real));
    real *Rref = (real *)malloc(d * d * sizeof(real));
    double F, Fsum = 0, Fq, F1, worst = 0;
    double tol = IS_D ? 1e-11 : 2e-5;
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 1.0, &p, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_objective(p, x0, &F, &err) == RO_SGNS_OK);
    /* the step's first product over every row: F is the objective's own sweep */
    CHECK(ro_sgns_problem_create_rows(p, 0, n, &all, NULL, &err) == RO_SGNS_OK);
    CHECK(f_and_dv(all, &cfg, d, x0->U, x0->S, x0->V, L, DV, &F1, &err) == RO_SGNS_OK);
    CHECK(F1 == F);
    /* on three shards: their rows of D V, their parts of F adding up to F;
       the objective of a shard's point is the shard's part */
    for (q = 0; q < P; ++q) {
        size_t r0 = cut[q], r1 = cut[q + 1];
        ro_sgns_factors *xq = NULL;
        double Fr = 0;
        CHECK(ro_sgns_problem_create_rows(p, r0, r1, &sh[q], NULL, &err) == RO_SGNS_OK);
        if (!sh[q]) continue;
        CHECK(f_and_dv(sh[q], &cfg, d, x0->U + r0 * d, x0->S, x0->V, L, DVs + r0 * d, &Fq,
                       &err) == RO_SGNS_OK);
        ro_sgns_factors_create(r1 - r0, m, d, &xq, NULL, NULL);
        memcpy(xq->U, x0->U + r0 * d, (r1 - r0) * d * sizeof(real));
        memcpy(xq->S, x0->S, d * d * sizeof(real));
        memcpy(xq->V, x0->V, m * d * sizeof(real));
        CHECK(ro_sgns_objective(sh[q], xq, &Fr, &err) == RO_SGNS_OK);
        CHECK(Fr == Fq);
        ro_sgns_factors_free(xq);
        Fsum += Fq;
    }
    CHECK_NEAR(Fsum, F, 1e-9 * fabs(F));
    CHECKF(tu_rel_diff(n * d, DVs, DV) <= tol, "shards' D V vs one sweep: %.3g", tu_rel_diff(n * d, DVs, DV));
    /* the same shard from its CSR rows and the global marginals: same bits */
    {
        const ro_sgns_shard_spec sp = {n, m, cut[1], cut[2], c.row_ptr + cut[1], c.col, c.val,
                                       c.csum, c.total, k, 1.0};
        CHECK(ro_sgns_problem_create_shard(&sp, &sc, NULL, &err) == RO_SGNS_OK);
    }
    if (sc) {
        CHECK(f_and_dv(sc, &cfg, d, x0->U + cut[1] * d, x0->S, x0->V, L, DV, &F1, &err) ==
              RO_SGNS_OK);
        CHECK(memcmp(DV, DVs + cut[1] * d, (cut[2] - cut[1]) * d * sizeof(real)) == 0);
    }
    {   /* with context distribution smoothing too: a shard's P(c) comes from
           the global column sums, so its rows of D V and its F are the bits
           of the same rows of the whole problem */
        ro_sgns_problem *p75 = NULL, *r75 = NULL, *s75 = NULL;
        real *DV2 = (real *)malloc(n * d * sizeof(real));
        double F75r = 0, F75s = 1;
        CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 0.75, &p75, NULL,
                                         &err) == RO_SGNS_OK);
        CHECK(ro_sgns_problem_create_rows(p75, cut[1], cut[2], &r75, NULL, &err) == RO_SGNS_OK);
        {
            const ro_sgns_shard_spec sp = {n, m, cut[1], cut[2], c.row_ptr + cut[1], c.col, c.val,
                                           c.csum, c.total, k, 0.75};
            CHECK(ro_sgns_problem_create_shard(&sp, &s75, NULL, &err) == RO_SGNS_OK);
        }
        if (r75 && s75) {
            CHECK(f_and_dv(r75, &cfg, d, x0->U + cut[1] * d, x0->S, x0->V, L, DV, &F75r,
                           &err) == RO_SGNS_OK);
            CHECK(f_and_dv(s75, &cfg, d, x0->U + cut[1] * d, x0->S, x0->V, L, DV2, &F75s,
                           &err) == RO_SGNS_OK);
            CHECK(F75r == F75s);
            CHECK(memcmp(DV, DV2, (cut[2] - cut[1]) * d * sizeof(real)) == 0);
            /* and not the unsmoothed numbers */
            CHECK(memcmp(DV, DVs + cut[1] * d, (cut[2] - cut[1]) * d * sizeof(real)) != 0);
        }
        {
            const ro_sgns_shard_spec sp = {n, m, cut[1], cut[2], c.row_ptr + cut[1], c.col, c.val,
                                           c.csum, c.total, k, 0};
            CHECK(ro_sgns_problem_create_shard(&sp, &s75, NULL, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT);
            CHECK(ro_sgns_problem_create_shard(NULL, &s75, NULL, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT);
        }
        ro_sgns_problem_free(p75);
        ro_sgns_problem_free(r75);
        ro_sgns_problem_free(s75);
        free(DV2);
    }
    /* the second product: the shards' parts add up to M^T U1 =
       (X + step D)^T U1 and U^T U1 (dense reference in double, any U1) */
    for (i = 0; i < n * d; ++i) U1[i] = (real)ro_sgns_rng_normal(&g_rng);
    for (q = 0; q < P; ++q) {
        size_t r0 = cut[q];
        if (!sh[q]) continue;
        CHECK(mt_u(sh[q], &cfg, d, step, x0->U + r0 * d, x0->S, x0->V, U1 + r0 * d, VSt, Out,
                   &err) == RO_SGNS_OK);
        for (i = 0; i < (m + d) * d; ++i) Osum[i] += Out[i];
    }
    X = dense_x(x0);
    ref_direction(&c, A, k, 1.0, X, 1, G); /* the default direction: scaled */
    for (j = 0; j < m; ++j)
        for (q = 0; q < d; ++q) {
            double s = 0, ref = 0, scale = 0;
            for (i = 0; i < n; ++i) {
                s += (X[i * m + j] + step * G[i * m + j]) * U1[i * d + q];
                scale += fabs((X[i * m + j] + step * G[i * m + j]) * U1[i * d + q]);
            }
            ref = fabs(s - Osum[j * d + q]) / (scale > 0 ? scale : 1);
            worst = tu_max(worst, ref);
        }
    CHECKF(worst <= (IS_D ? 1e-12 : 1e-5), "M^T U1 over shards vs dense: %.3g", worst);
    for (i = 0, worst = 0; i < d; ++i)
        for (q = 0; q < d; ++q) {
            double s = 0;
            for (j = 0; j < n; ++j) s += (double)x0->U[j * d + i] * U1[j * d + q];
            worst = tu_max(worst, fabs(s - Osum[m * d + i * d + q]));
        }
    CHECKF(worst <= (IS_D ? 1e-12 : 1e-4), "U^T U1 over shards: %.3g", worst);
    /* TSQR of U1 over the three shards = the QR of the whole */
    memcpy(Q, U1, n * d * sizeof(real));
    for (q = 0; q < P; ++q)
        CHECK(ro_sgns_qr(cut[q + 1] - cut[q], d, Q + cut[q] * d, d, Rs + q * d * d, d, NULL, &err) ==
              RO_SGNS_OK);
    CHECK(ro_sgns__tsqr_combine(P, d, Rs, R, NULL, &err) == RO_SGNS_OK);
    for (q = 0; q < P; ++q)
        CHECK(ro_sgns__tsqr_apply(cut[q + 1] - cut[q], d, Q + cut[q] * d, d, Rs + q * d * d,
                                  NULL, &err) == RO_SGNS_OK);
    CHECK(orth_err(n, d, Q) <= (IS_D ? 1e-12 : 1e-5));
    memcpy(DV, U1, n * d * sizeof(real));
    ro_sgns_qr(n, d, DV, d, Rref, d, NULL, NULL);
    CHECKF(tu_rel_diff(d * d, R, Rref) <= (IS_D ? 1e-13 : 1e-6), "TSQR R vs QR R: %.3g",
           tu_rel_diff(d * d, R, Rref));
    CHECKF(tu_rel_diff(n * d, Q, DV) <= (IS_D ? 1e-12 : 1e-5), "TSQR Q vs QR Q: %.3g",
           tu_rel_diff(n * d, Q, DV));
#ifdef _OPENMP
    { /* the whole iteration on 3 shards (threads, shared memory): close to
         one shard, every shard ends with the same S, V and step, and a
         second run repeats bit for bit; on 1 shard it is ro_train exactly */
        ro_sgns_factors *ref = copy_point(x0), *xs[3], *ys[3], *one = copy_point(x0);
        ro_sgns_result rs[3] = {RO_SGNS_OK, RO_SGNS_OK, RO_SGNS_OK}, rt[3];
        real *Ust = (real *)malloc(n * d * sizeof(real));
        int same = 1, rerun = 1;
        cfg.iterations = 3;
        cfg.step = 4; /* long enough that the safeguard halves on the way */
        CHECK(ro_sgns_ro_train(p, ref, &cfg, &err) == RO_SGNS_OK);
        for (q = 0; q < P; ++q) {
            size_t r0 = q * n / P, r1 = (q + 1) * n / P;
            ro_sgns_factors_create(r1 - r0, m, d, &xs[q], NULL, NULL);
            ro_sgns_factors_create(r1 - r0, m, d, &ys[q], NULL, NULL);
            memcpy(xs[q]->U, x0->U + r0 * d, (r1 - r0) * d * sizeof(real));
            memcpy(xs[q]->S, x0->S, d * d * sizeof(real));
            memcpy(xs[q]->V, x0->V, m * d * sizeof(real));
            memcpy(ys[q]->U, xs[q]->U, (r1 - r0) * d * sizeof(real));
            memcpy(ys[q]->S, x0->S, d * d * sizeof(real));
            memcpy(ys[q]->V, x0->V, m * d * sizeof(real));
        }
        CHECK(shm_train(p, n, 3, xs, &cfg, rs) == 0);
        CHECK(rs[0] == RO_SGNS_OK && rs[1] == RO_SGNS_OK && rs[2] == RO_SGNS_OK);
        CHECK(shm_train(p, n, 3, ys, &cfg, rt) == 0);
        for (q = 0; q < P; ++q) {
            size_t r0 = q * n / P, rows = xs[q]->n;
            memcpy(Ust + r0 * d, xs[q]->U, rows * d * sizeof(real));
            same &= xs[q]->iteration == ref->iteration && xs[q]->next_step == xs[0]->next_step &&
                    memcmp(xs[q]->S, xs[0]->S, d * d * sizeof(real)) == 0 &&
                    memcmp(xs[q]->V, xs[0]->V, m * d * sizeof(real)) == 0;
            rerun &= memcmp(xs[q]->U, ys[q]->U, rows * d * sizeof(real)) == 0 &&
                     memcmp(xs[q]->V, ys[q]->V, m * d * sizeof(real)) == 0 &&
                     memcmp(xs[q]->S, ys[q]->S, d * d * sizeof(real)) == 0;
        }
        CHECK(same);
        CHECK(rerun);
        CHECK(xs[0]->next_step == ref->next_step);
        CHECK(orth_err(n, d, Ust) <= (IS_D ? 1e-12 : 1e-5));
        CHECKF(tu_rel_diff(n * d, Ust, ref->U) <= (IS_D ? 1e-12 : 2e-5), "3 shards vs 1: U %.3g",
               tu_rel_diff(n * d, Ust, ref->U));
        CHECKF(tu_rel_diff(m * d, xs[0]->V, ref->V) <= (IS_D ? 1e-12 : 2e-5), "3 shards vs 1: V %.3g",
               tu_rel_diff(m * d, xs[0]->V, ref->V));
        CHECKF(tu_rel_diff(d * d, xs[0]->S, ref->S) <= (IS_D ? 1e-12 : 2e-5), "3 shards vs 1: S %.3g",
               tu_rel_diff(d * d, xs[0]->S, ref->S));
        CHECK(shm_train(p, n, 1, &one, &cfg, rt) == 0 && rt[0] == RO_SGNS_OK);
        CHECK(memcmp(one->U, ref->U, n * d * sizeof(real)) == 0 &&
              memcmp(one->V, ref->V, m * d * sizeof(real)) == 0 &&
              memcmp(one->S, ref->S, d * d * sizeof(real)) == 0);
        for (q = 0; q < P; ++q) {
            ro_sgns_factors_free(xs[q]);
            ro_sgns_factors_free(ys[q]);
        }
        ro_sgns_factors_free(ref);
        ro_sgns_factors_free(one);
        free(Ust);
    }
#endif
    /* bad input: empty or reversed row ranges, rows of a shard, a shard
       with fewer rows than d, a partial shard without a transport, a comm
       without callbacks */
    CHECK(ro_sgns_problem_create_rows(p, 5, 5, &sc, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_problem_create_rows(p, 0, n + 1, &sc, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_problem_create_rows(sh[1], 41, 50, &sc, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    {
        ro_sgns_problem *tiny = NULL;
        ro_sgns_factors *xt = NULL;
        ro_sgns_comm cm;
        uint64_t bad_ptr[2] = {0, 1};
        uint32_t bad_col[1] = {(uint32_t)m};
        float bad_val[1] = {1};
        const ro_sgns_shard_spec bad = {n, m, 0, 1, bad_ptr, bad_col, bad_val, c.csum, c.total,
                                        k, 1.0};
        CHECK(ro_sgns_problem_create_shard(&bad, &tiny, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        {   /* a column sum summed before the values were rounded to float
               (ro_sgns_counts' ctx_count) may be just below a value */
            uint32_t one_col[1] = {0};
            float third[1] = {(float)(1.0 / 3)}; /* 0.33333334 > 1/3 */
            double ctx_third[1] = {1.0 / 3}, ctx_low[1] = {0.3};
            const ro_sgns_shard_spec fine = {1, 1, 0, 1, bad_ptr, one_col, third, ctx_third,
                                             1.0 / 3, k, 1.0};
            const ro_sgns_shard_spec low = {1, 1, 0, 1, bad_ptr, one_col, third, ctx_low,
                                            1.0 / 3, k, 1.0};
            CHECK(ro_sgns_problem_create_shard(&fine, &tiny, NULL, &err) == RO_SGNS_OK);
            ro_sgns_problem_free(tiny);
            tiny = NULL;
            CHECK(ro_sgns_problem_create_shard(&low, &tiny, NULL, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT);
        }
        CHECK(ro_sgns_problem_create_rows(p, 10, 15, &tiny, NULL, &err) == RO_SGNS_OK);
        ro_sgns_factors_create(5, m, 5, &xt, NULL, NULL);
        if (tiny && xt) {
            memset(&cm, 0, sizeof cm);
            cm.size = 2;
            CHECK(ro_sgns_ro_train_shard(tiny, &cm, xt, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
            CHECK(ro_sgns_ro_train_shard(tiny, NULL, xt, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
            CHECK(ro_sgns_ro_train(tiny, xt, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        }
        ro_sgns_factors_free(xt);
        xt = NULL;
        ro_sgns_factors_create(n - 1, m, d, &xt, NULL, NULL); /* one row short */
        if (all && xt) {
            cm.size = 1; /* one shard: the callbacks are never needed */
            CHECK(ro_sgns_ro_train_shard(all, &cm, xt, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        }
        ro_sgns_factors_free(xt);
        ro_sgns_problem_free(tiny);
    }
    for (q = 0; q < P; ++q) ro_sgns_problem_free(sh[q]);
    ro_sgns_problem_free(all);
    ro_sgns_problem_free(sc);
    ro_sgns_factors_free(x0);
    ro_sgns_problem_free(p);
    free(A), free(G), free(X), free(L), free(DV), free(DVs), free(U1), free(VSt), free(Out);
    free(Osum), free(Q), free(Rs), free(R), free(Rref);
    free_counts(&c);
}

/* ------------------------------------ the elementwise exp and log1p */

/* |got - ref| in units of the last place of ref in the build's precision */
static double ulps(double got, long double ref)
{
    int e;
    if (ref == 0) return got == 0 ? 0 : 1e30;
    (void)frexpl(ref, &e);
    return (double)(fabsl((long double)got - ref) /
                    ldexpl(1.0L, e - (IS_D ? 53 : 24)));
}

/* The sweep's branch-free exp(x) (x <= 0) and log(1 + e) (0 <= e <= 1)
   against libm over dense grids of their whole domains (the reference in
   long double for the double build: 80 or 128 bits where the platform has
   them, else double, which adds at most ~1 ulp). The header promises "a
   few ulp". exp's bound is 4 (measured 2.78 float, 2.36 double; 2.87
   float where the polynomial's multiply-adds are fused). log1p's is 3.0,
   over the grid and, in the float build, over every 61st float of
   [2^-24, 1] (measured on Zen 1, with and without FMA: grid 2.60 float,
   2.68 double; the floats 2.73, and 2.88 over every 7th): a wrong
   coefficient fails either, e.g. 1/120 -> 1/121 in the float exp makes
   8.6 ulp, 1/11 -> 1/12 in the float log1p 3.43 on the grid, 3.53 over
   the floats. Exact points: exp(0) = 1 and log1p(0) = 0. */
static void test_exp_log_accuracy(void)
{
    const double lo = IS_D ? -708.0 : -87.0, log_bound = 3.0;
    /* RO_SGNS_TEST_QUICK (emulators, valgrind): fewer points, for where
       long double is software (aarch64, s390x under qemu) */
    const long N = tu_quick() ? 20000 : 400000;
    const uint32_t stride = tu_quick() ? 4099u : 61u;
    double worst_exp = 0, worst_log = 0, at_exp = 0, at_log = 0;
    long i;
    for (i = 0; i <= N; ++i) {
        /* denser near 0, where the values matter most for the objective */
        double u = (double)i / (double)N, x = lo * u * u * u;
        real xr = (real)x, er = (real)u;
        double ge = (double)ro_sgns__expr_neg(xr), gl = (double)ro_sgns__log1pr_unit(er);
        double de = ulps(ge, expl((long double)xr)), dl = ulps(gl, log1pl((long double)er));
        if (!(de <= worst_exp)) worst_exp = de, at_exp = (double)xr;
        if (!(dl <= worst_log)) worst_log = dl, at_log = (double)er;
    }
    if (!IS_D) { /* float bit patterns from 2^-24 to 1 */
        uint32_t b;
        for (b = 0x33800000u; b <= 0x3F800000u; b += stride) {
            float e;
            double dl;
            memcpy(&e, &b, sizeof e);
            dl = ulps((double)ro_sgns__log1pr_unit((real)e), log1pl((long double)e));
            if (!(dl <= worst_log)) worst_log = dl, at_log = (double)e;
        }
    }
    CHECKF(worst_exp <= 4, "exp: %.2f ulp at x = %.9g", worst_exp, at_exp);
    CHECKF(worst_log <= log_bound, "log1p: %.2f ulp at e = %.9g (bound %.1f)", worst_log, at_log,
           log_bound);
    CHECK(ro_sgns__expr_neg(0) == 1);
    CHECK(ro_sgns__log1pr_unit(0) == 0);
    printf("  exp, log1p: worst %.2f and %.2f ulp (bounds 4, %.1f)\n", worst_exp, worst_log,
           log_bound);
}

#ifdef _OPENMP
typedef struct {
    const real *A; /* n x d, the shards' rows one after the other */
    size_t n, d;
    int with_inv;
    real *Q, *inv; /* Q n x d; inv P x d x d */
    int n_inv[3];
    ro_sgns_result res[3];
} qri_args;

static void qri_body(const ro_sgns_comm *c, int r, void *ctx)
{
    qri_args *a = (qri_args *)ctx;
    size_t d = a->d, r0 = (size_t)r * a->n / 3, r1 = (size_t)(r + 1) * a->n / 3;
    real *R = (real *)malloc(d * d * sizeof(real)), *W = (real *)malloc((r1 - r0) * d * sizeof(real));
    double *Rd = (double *)malloc((2 * d * d + 2 * d) * sizeof(double));
    memcpy(a->Q + r0 * d, a->A + r0 * d, (r1 - r0) * d * sizeof(real));
    a->res[r] = ro_sgns__qr_rows_inv(c, RO_SGNS_OK, r1 - r0, d, a->Q + r0 * d, R, W,
                                     a->with_inv ? a->inv + (size_t)r * d * d : NULL, Rd,
                                     &a->n_inv[r], NULL, NULL);
    free(R);
    free(W);
    free(Rd);
}
#endif

/* The step's QR with the inverses the fused step needs
   (ro_sgns__qr_rows_inv). On 3 shards (TSQR): for A of condition 10, the
   same choice on every shard, one inverse, and Q = A R^-1 to rounding
   (R^-1 times A by naive loops); for a condition past 1/sqrt(eps), no
   inverse on any shard (the step sweeps); and none asked, none given.
   On one machine: two inverses (CholeskyQR2's) when asked, none when
   not. */
static void test_qr_rows_inv(void)
{
    size_t n = 90, d = 8, i, j, l;
    real *A = (real *)malloc(n * d * sizeof(real)), *Q = (real *)malloc(n * d * sizeof(real));
    real *inv = (real *)malloc(3 * d * d * sizeof(real)), *R = (real *)malloc(d * d * sizeof(real));
    real *W = (real *)malloc(n * d * sizeof(real)), *Z = (real *)malloc(d * d * sizeof(real));
    double *Rd = (double *)malloc((2 * d * d + 2 * d) * sizeof(double));
    const double conds[2] = {10, IS_D ? 1e10 : 1e5};
    int c, n_inv;
    for (c = 0; c < 2; ++c) {
        /* A = Q1 diag(1 .. 1/cond) Q2^T, Q1 n x d and Q2 d x d orthonormal */
        for (i = 0; i < n * d; ++i) W[i] = (real)ro_sgns_rng_normal(&g_rng);
        for (i = 0; i < d * d; ++i) Z[i] = (real)ro_sgns_rng_normal(&g_rng);
        CHECK(ro_sgns_qr(n, d, W, d, R, d, NULL, NULL) == RO_SGNS_OK);
        CHECK(ro_sgns_qr(d, d, Z, d, R, d, NULL, NULL) == RO_SGNS_OK);
        for (i = 0; i < n; ++i)
            for (j = 0; j < d; ++j) {
                double s = 0;
                for (l = 0; l < d; ++l)
                    s += (double)W[i * d + l] * pow(conds[c], -(double)l / (double)(d - 1)) *
                         (double)Z[j * d + l];
                A[i * d + j] = (real)s;
            }
#ifdef _OPENMP
        {
            qri_args a;
            size_t q;
            int with;
            for (with = 1; with >= 0; --with) {
                memset(&a, 0, sizeof a);
                a.A = A;
                a.n = n;
                a.d = d;
                a.with_inv = with;
                a.Q = Q;
                a.inv = inv;
                CHECK(shm_run(3, qri_body, &a) == 0);
                for (q = 0; q < 3; ++q) {
                    CHECK(a.res[q] == RO_SGNS_OK);
                    CHECKF(a.n_inv[q] == (with && c == 0 ? 1 : 0),
                           "qr_rows_inv on shards, cond %.0g, inverse %s: shard %lu gives %d",
                           conds[c], with ? "asked" : "not asked", (unsigned long)q, a.n_inv[q]);
                }
                if (with && c == 0) { /* Q = A R^-1, R^-1 the same on every shard */
                    double e = 0, nq = 0;
                    CHECK(memcmp(inv, inv + d * d, d * d * sizeof(real)) == 0 &&
                          memcmp(inv, inv + 2 * d * d, d * d * sizeof(real)) == 0);
                    for (i = 0; i < n; ++i)
                        for (j = 0; j < d; ++j) {
                            double s = 0;
                            for (l = 0; l <= j; ++l) s += (double)A[i * d + l] * inv[l * d + j];
                            e += (s - Q[i * d + j]) * (s - Q[i * d + j]);
                            nq += (double)Q[i * d + j] * Q[i * d + j];
                        }
                    CHECKF(sqrt(e / nq) <= (IS_D ? 1e-13 : 1e-5),
                           "qr_rows_inv on shards: |A R^-1 - Q| / |Q| = %.3g", sqrt(e / nq));
                    CHECK(orth_err(n, d, Q) <= (IS_D ? 1e-12 : 1e-5));
                }
            }
        }
#endif
        /* one machine */
        memcpy(Q, A, n * d * sizeof(real));
        CHECK(ro_sgns__qr_rows_inv(NULL, RO_SGNS_OK, n, d, Q, R, W, inv, Rd, &n_inv, NULL, NULL) ==
              RO_SGNS_OK);
        CHECKF(n_inv == (c == 0 ? 2 : 0), "qr_rows_inv, one machine, cond %.0g: %d inverses",
               conds[c], n_inv);
        memcpy(Q, A, n * d * sizeof(real));
        CHECK(ro_sgns__qr_rows_inv(NULL, RO_SGNS_OK, n, d, Q, R, W, NULL, Rd, &n_inv, NULL, NULL) ==
                  RO_SGNS_OK &&
              n_inv == 0);
    }
    free(A);
    free(Q);
    free(inv);
    free(R);
    free(W);
    free(Z);
    free(Rd);
}

/* The condition estimate that lets a shard's step use TSQR's R^-1
   (ro_sgns__cond_upper): against R with singular values known by
   construction (R from the QR of Q1 diag(sigma) Q2^T, Q1 and Q2 random
   orthonormal; a diagonal R; d = 1), from below and within 2% (the power
   method's bound), and Inf for a NaN. */
static void test_cond_upper(void)
{
    static const size_t dims[] = {1, 7, 30};
    const double conds[] = {1, 10, 1e3, IS_D ? 1e6 : 1e3};
    size_t t, q, i, j, l;
    for (t = 0; t < 3; ++t)
        for (q = 0; q < 4; ++q) {
            size_t d = dims[t];
            real *Q1 = (real *)malloc(d * d * sizeof(real)), *Q2 = (real *)malloc(d * d * sizeof(real));
            real *A = (real *)malloc(d * d * sizeof(real)), *R = (real *)malloc(d * d * sizeof(real));
            double *Rd = (double *)malloc((2 * d * d + 2 * d) * sizeof(double)), est;
            double want = d == 1 ? 1 : conds[q];
            for (i = 0; i < d * d; ++i) {
                Q1[i] = (real)ro_sgns_rng_normal(&g_rng);
                Q2[i] = (real)ro_sgns_rng_normal(&g_rng);
            }
            CHECK(ro_sgns_qr(d, d, Q1, d, R, d, NULL, NULL) == RO_SGNS_OK);
            CHECK(ro_sgns_qr(d, d, Q2, d, R, d, NULL, NULL) == RO_SGNS_OK);
            for (i = 0; i < d; ++i) /* A = Q1 diag(sigma) Q2^T, sigma from 1 down to 1/want */
                for (j = 0; j < d; ++j) {
                    double a = 0;
                    for (l = 0; l < d; ++l)
                        a += (double)Q1[i * d + l] * pow(want, -(double)l / (double)(d > 1 ? d - 1 : 1)) *
                             (double)Q2[j * d + l];
                    A[i * d + j] = (real)a;
                }
            CHECK(ro_sgns_qr(d, d, A, d, R, d, NULL, NULL) == RO_SGNS_OK);
            for (i = 0; i < d * d; ++i) Rd[i] = (double)R[i];
            ro_sgns__inverse_upper(d, Rd, Rd + d * d, A);
            est = ro_sgns__cond_upper(d, Rd, Rd + d * d, Rd + 2 * d * d);
            /* A's rounding moves its condition by about want eps */
            CHECKF(est >= 0.98 * want && est <= want * (1 + 50 * want * (IS_D ? 1e-16 : 1e-7)),
                   "cond_upper, d = %lu: %.6g for %.6g", (unsigned long)d, est, want);
            if (q == 1) { /* a diagonal R: max |r_ii| / min |r_ii| */
                for (i = 0; i < 2 * d * d; ++i) Rd[i] = 0;
                for (i = 0; i < d; ++i) Rd[i * d + i] = (double)(i + 1) * (i % 2 ? -1 : 1);
                for (i = 0; i < d; ++i) Rd[d * d + i * d + i] = 1 / Rd[i * d + i];
                est = ro_sgns__cond_upper(d, Rd, Rd + d * d, Rd + 2 * d * d);
                CHECKF(est >= 0.98 * (double)d && est <= (double)d * (1 + 1e-12),
                       "cond_upper, diagonal 1..%lu: %.9g",
                       (unsigned long)d, est);
                Rd[d * d - 1] = NAN;
                CHECK(ro_sgns__cond_upper(d, Rd, Rd + d * d, Rd + 2 * d * d) == HUGE_VAL);
            }
            free(Q1);
            free(Q2);
            free(A);
            free(R);
            free(Rd);
        }
}

#ifdef _OPENMP
/* x's rows [q n / P, (q + 1) n / P) with all of S and V: shard q's point */
static ro_sgns_factors *shard_point(const ro_sgns_factors *x, size_t q, size_t P)
{
    size_t r0 = q * x->n / P, r1 = (q + 1) * x->n / P, d = x->d;
    ro_sgns_factors *f = NULL;
    ro_sgns_factors_create(r1 - r0, x->m, d, &f, NULL, NULL);
    memcpy(f->U, x->U + r0 * d, (r1 - r0) * d * sizeof(real));
    memcpy(f->S, x->S, d * d * sizeof(real));
    memcpy(f->V, x->V, x->m * d * sizeof(real));
    return f;
}

/* the shards' points put back together (S and V from shard 0) */
static ro_sgns_factors *gather_point(ro_sgns_factors **xs, size_t P, size_t n)
{
    size_t d = xs[0]->d, q, r0 = 0;
    ro_sgns_factors *f = NULL;
    ro_sgns_factors_create(n, xs[0]->m, d, &f, NULL, NULL);
    for (q = 0; q < P; r0 += xs[q]->n, ++q)
        memcpy(f->U + r0 * d, xs[q]->U, xs[q]->n * d * sizeof(real));
    memcpy(f->S, xs[0]->S, d * d * sizeof(real));
    memcpy(f->V, xs[0]->V, xs[0]->m * d * sizeof(real));
    f->iteration = xs[0]->iteration;
    return f;
}
#endif

/* The fused step on shards: each shard's D^T U' is its D^T M V times
   TSQR's R^-1. On 3 shards (threads, shared memory), against two sweeps a
   step (fuse = 0) on the same shards and against one machine's fused
   run: the same iteration to rounding, with halvings (the retries sweep),
   with the scaled default, and from a start so ill-conditioned that R's
   condition passes 1/sqrt(eps) (the step sweeps; the refusal itself is
   test_qr_rows_inv's). */
static void test_shards_fused(void)
{
#ifdef _OPENMP
    size_t n = 150, m = 120, d = 10, i, q;
    const size_t P = 3;
    counts_t c = make_counts(n, m, 0.2);
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x0 = random_point(n, m, d, 0.3);
    ro_sgns_ro_config cfg;
    double tol = IS_D ? 1e-10 : 1e-4;
    int round;
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, 5, 1.0, &p, NULL, NULL) ==
          RO_SGNS_OK);
    for (round = 0; round < 3; ++round) {
        ro_sgns_factors *start = copy_point(x0), *a[3], *b[3], *one, *ga, *gb;
        ro_sgns_result ra[3], rb[3];
        double dab, dbo;
        cfg = ro_sgns_ro_config_default();
        if (round == 0) { /* halved several times */
            cfg.direction = RO_SGNS_DIRECTION_PLAIN;
            cfg.step = 10;
            cfg.iterations = 6;
        } else if (round == 1) {
            cfg.iterations = 5;
        } else { /* singular values 1 .. 1e-27 */
            for (i = 0; i < d * d; ++i) start->S[i] = 0;
            for (i = 0; i < d; ++i) start->S[i * d + i] = (real)pow(10.0, -3.0 * (double)i);
            cfg.direction = RO_SGNS_DIRECTION_PLAIN;
            cfg.step = 1e-12;
            cfg.safeguard = 0;
            cfg.iterations = 2;
        }
        for (q = 0; q < P; ++q) {
            a[q] = shard_point(start, q, P);
            b[q] = shard_point(start, q, P);
        }
        one = copy_point(start);
        cfg.fuse = 0;
        CHECK(shm_train(p, n, (int)P, a, &cfg, ra) == 0);
        cfg.fuse = 1;
        CHECK(shm_train(p, n, (int)P, b, &cfg, rb) == 0);
        CHECK(ro_sgns_ro_train(p, one, &cfg, NULL) == RO_SGNS_OK);
        for (q = 0; q < P; ++q) CHECK(ra[q] == RO_SGNS_OK && rb[q] == RO_SGNS_OK);
        ga = gather_point(a, P, n);
        gb = gather_point(b, P, n);
        dab = x_rel_diff(ga, gb);
        dbo = x_rel_diff(one, gb);
        CHECKF(ga->iteration == gb->iteration && gb->iteration == one->iteration && dab <= tol &&
                   dbo <= tol,
               "fused shards, round %d: %lu steps (two sweeps %lu, one machine %lu); "
               "|X - X_two_sweeps|/|X| = %.3g, against one machine %.3g",
               round, (unsigned long)gb->iteration, (unsigned long)ga->iteration,
               (unsigned long)one->iteration, dab, dbo);
        for (q = 0; q < P; ++q) {
            ro_sgns_factors_free(a[q]);
            ro_sgns_factors_free(b[q]);
        }
        ro_sgns_factors_free(ga);
        ro_sgns_factors_free(gb);
        ro_sgns_factors_free(one);
        ro_sgns_factors_free(start);
    }
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x0);
    free_counts(&c);
#endif
}

/* ------------------------------------------- the head and the tail (II.9) */

/* |P^T r| for the residual r of one tail row or column of X against the
   head's orthonormal factor P (rows x d): the projected gradient of that
   row's f, from the paper's formulas in double */
static double fold_resid(size_t len, size_t d, const real *P, const double *r)
{
    double s2 = 0;
    size_t q, j;
    for (q = 0; q < d; ++q) {
        double s = 0;
        for (j = 0; j < len; ++j) s += (double)P[j * d + q] * r[j];
        s2 += s * s;
    }
    return sqrt(s2);
}

/* One tail line of the fold's X (n x m, in double): word row `at` over
   the head's mh contexts (word = 1, against the head's V), or context
   column `at` over its nh words (against U). With no count in the head
   it must be 0 everywhere (counted in *empty); else its projected
   gradient must be below tol of the one at x = 0, and its f is added to
   *f_ref. r is scratch (max(nh, mh)). */
static void fold_check_line(const counts_t *c, const double *A, double k, double cds,
                            const double *Xf, size_t at, int word, size_t nh, size_t mh,
                            const ro_sgns_factors *xh, double tol, double *r, double *f_ref,
                            size_t *empty, size_t *zero_ok)
{
    const size_t m = c->m, len = word ? mh : nh, all = word ? m : c->n;
    const real *P = word ? xh->V : xh->U;
    double g0, g, any = 0;
    size_t q;
#define FOLD_AT(q) (word ? at * m + (q) : (q) * m + at)
    for (q = 0; q < len; ++q) any += A[FOLD_AT(q)];
    if (any == 0) { /* no count in the head: left at 0 */
        ++*empty;
        for (q = 0; q < all; ++q) *zero_ok &= fabs(Xf[FOLD_AT(q)]) <= 1e-6;
        return;
    }
    for (q = 0; q < len; ++q)
        r[q] = 0.5 * (A[FOLD_AT(q)] - ref_B(c, k, cds, word ? at : q, word ? q : at));
    g0 = fold_resid(len, xh->d, P, r);
    for (q = 0; q < len; ++q) {
        double x = Xf[FOLD_AT(q)], B = ref_B(c, k, cds, word ? at : q, word ? q : at);
        r[q] = A[FOLD_AT(q)] * sig(-x) - B * sig(x);
        *f_ref += A[FOLD_AT(q)] * logsig(x) + B * logsig(-x);
    }
    g = fold_resid(len, xh->d, P, r);
    CHECKF(g <= tol * g0, "tail %s %lu: projected gradient %.3g of the start's %.3g",
           word ? "word" : "context", (unsigned long)at, g, g0);
#undef FOLD_AT
}

#ifdef _OPENMP
/* t1 and t2 hold the same bits (U, S, V); both are freed */
static void same_point_free(ro_sgns_factors *t1, ro_sgns_factors *t2)
{
    CHECK(t1 && t2 && t1->n == t2->n && t1->m == t2->m && t1->d == t2->d &&
          memcmp(t1->U, t2->U, t1->n * t1->d * sizeof(real)) == 0 &&
          memcmp(t1->V, t2->V, t1->m * t1->d * sizeof(real)) == 0 &&
          memcmp(t1->S, t2->S, t1->d * t1->d * sizeof(real)) == 0);
    ro_sgns_factors_free(t1);
    ro_sgns_factors_free(t2);
}
#endif

static int g_fold_ls = 1; /* fold_run's line_search */
static ro_sgns_factors *fold_run(const ro_sgns_problem *p, const ro_sgns_factors *xh, int iters,
                                 ro_sgns_fold_report *rep)
{
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_factors *xf = NULL;
    ro_sgns_error err;
    fc.iterations = iters;
    fc.line_search = g_fold_ls;
    fc.block_rows = 7; /* several blocks, the last one short */
    CHECKF(ro_sgns_fold_in(p, xh, &fc, &xf, rep, NULL, &err) == RO_SGNS_OK, "fold_in: %s",
           err.message);
    return xf;
}

/* drop the counts of word row R in the first mh columns and of context
   column C in the first nh rows, marginals and all (a tail word and a
   tail context with nothing in the head) */
static void drop_head_counts(counts_t *c, size_t R, size_t C, size_t nh, size_t mh)
{
    size_t i;
    uint64_t e, k = 0, start = 0;
    for (i = 0; i < c->n; ++i) {
        for (e = start; e < c->row_ptr[i + 1]; ++e) {
            size_t j = c->col[e];
            if ((i == R && j < mh) || (j == C && i < nh)) {
                c->wsum[i] -= c->val[e];
                c->csum[j] -= c->val[e];
                c->total -= c->val[e];
                continue;
            }
            c->col[k] = c->col[e];
            c->val[k++] = c->val[e];
        }
        start = c->row_ptr[i + 1];
        c->row_ptr[i + 1] = k;
    }
}

/* The head problem is the head block of F with the whole B; the fold
   keeps the head's X, solves each tail row and column to its optimum
   (its projected gradient ~0, from the formulas in double), leaves rows
   with no head count at 0, raises f with every step, reports f as the
   formulas give it, and gives the same bits for 1 and 2 threads. */
static void test_head_and_fold(double cds)
{
    const size_t n = 60, m = 50, nh = 20, mh = 18, d = 4;
    const double k = 5;
    counts_t c = make_counts(n, m, 0.5);
    double *A, *Xh, *Xf, *r;
    ro_sgns_problem *p = NULL, *ph = NULL, *bad = NULL;
    ro_sgns_factors *xh = NULL, *xf = NULL, *x1 = NULL, *x4 = NULL;
    ro_sgns_fold_report rep, rep1, rep4;
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_error err;
    double F_lib, F_ref = 0, f_ref = 0, worst = 0, tol = IS_D ? 1e-4 : 1e-3;
    size_t i, j, empty = 0, zero_ok = 1;
    drop_head_counts(&c, n - 2, m - 3, nh, mh);
    A = dense_counts(&c);
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds, &p, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(ro_sgns_problem_create_head(p, nh, mh, &ph, NULL, &err) == RO_SGNS_OK);
    xh = random_point(nh, mh, d, 0.5);
    if (!p || !ph || !xh) goto done;
    /* F of the head problem: the head block, the whole problem's B */
    Xh = dense_x(xh);
    for (i = 0; i < nh; ++i)
        for (j = 0; j < mh; ++j) {
            double x = Xh[i * mh + j];
            F_ref += A[i * m + j] * logsig(x) + ref_B(&c, k, cds, i, j) * logsig(-x);
        }
    CHECK(ro_sgns_objective(ph, xh, &F_lib, &err) == RO_SGNS_OK);
    CHECKF(fabs(F_lib - F_ref) <= (IS_D ? 1e-12 : 1e-5) * fabs(F_ref), "head F %.17g vs %.17g",
           F_lib, F_ref);
    /* a few RO steps on the head, then the fold */
    CHECK(ro_sgns_ro_train(ph, xh, NULL, &err) == RO_SGNS_OK);
    free(Xh);
    Xh = dense_x(xh);
    xf = fold_run(p, xh, 60, &rep);
    if (!xf) goto done;
    CHECK(xf->n == n && xf->m == m && xf->d == d);
    CHECK(orth_err(n, d, xf->U) <= (IS_D ? 1e-12 : 1e-5) && orth_err(m, d, xf->V) <= (IS_D ? 1e-12 : 1e-5));
    Xf = dense_x(xf);
    for (i = 0; i < nh; ++i) /* the head block is the head's X */
        for (j = 0; j < mh; ++j) {
            double e = fabs(Xf[i * m + j] - Xh[i * mh + j]) / (1 + fabs(Xh[i * mh + j]));
            worst = tu_max(worst, e); /* a NaN stays */
        }
    CHECKF(worst <= (IS_D ? 1e-10 : 1e-4), "fold: head block moved by %.3g", worst);
    r = (double *)calloc(n > m ? n : m, sizeof(double));
    /* tail words over the head's contexts (against V_h), tail contexts
       over the head's words (against U_h) */
    for (i = nh; i < n; ++i)
        fold_check_line(&c, A, k, cds, Xf, i, 1, nh, mh, xh, tol, r, &f_ref, &empty, &zero_ok);
    for (j = mh; j < m; ++j)
        fold_check_line(&c, A, k, cds, Xf, j, 0, nh, mh, xh, tol, r, &f_ref, &empty, &zero_ok);
    CHECKF(zero_ok && empty == 2, "fold: %lu rows with no head count (2 made), all 0: %d",
           (unsigned long)empty, (int)zero_ok);
    CHECKF(rep.rows == (n - nh) + (m - mh) && rep.rows_empty == empty,
           "fold report: %lu rows, %lu empty; expected %lu, %lu", (unsigned long)rep.rows,
           (unsigned long)rep.rows_empty, (unsigned long)((n - nh) + (m - mh)),
           (unsigned long)empty);
    CHECKF(fabs(rep.f_end - f_ref) <= (IS_D ? 1e-9 : 1e-4) * fabs(f_ref),
           "fold report: f %.17g, the formulas %.17g", rep.f_end, f_ref);
    CHECK(rep.grad2_end < rep.grad2_start);
    /* f rises with the steps */
    x1 = fold_run(p, xh, 1, &rep1);
    x4 = fold_run(p, xh, 4, &rep4);
    CHECKF(rep1.f_start < rep1.f_end && rep1.f_end <= rep4.f_end && rep4.f_end <= rep.f_end * (1 - 1e-12),
           "fold: f %.10g (start), %.10g (1 step), %.10g (4), %.10g (60)", rep1.f_start,
           rep1.f_end, rep4.f_end, rep.f_end);
    /* the plain MM steps (line_search 0) raise f too, less than searched ones */
    ro_sgns_factors_free(x1);
    ro_sgns_factors_free(x4);
    g_fold_ls = 0;
    x1 = fold_run(p, xh, 1, &rep1);
    x4 = fold_run(p, xh, 4, &rep4);
    g_fold_ls = 1;
    CHECKF(rep1.f_start < rep1.f_end && rep1.f_end < rep4.f_end && rep4.f_end < rep.f_end,
           "fold, MM steps: f %.10g (start), %.10g (1 step), %.10g (4), searched %.10g (60)",
           rep1.f_start, rep1.f_end, rep4.f_end, rep.f_end);
    {   /* without a report the fold skips its last evaluation: the same point */
        ro_sgns_factors *wr = fold_run(p, xh, 4, &rep4), *nr = fold_run(p, xh, 4, NULL);
        CHECK(wr && nr && memcmp(wr->U, nr->U, n * d * sizeof(real)) == 0 &&
              memcmp(wr->V, nr->V, m * d * sizeof(real)) == 0 &&
              memcmp(wr->S, nr->S, d * d * sizeof(real)) == 0);
        ro_sgns_factors_free(wr);
        ro_sgns_factors_free(nr);
    }
#ifdef _OPENMP
    {
        int saved = omp_get_max_threads();
        ro_sgns_factors *t1, *t2;
        omp_set_num_threads(1);
        t1 = fold_run(p, xh, 4, NULL);
        omp_set_num_threads(2);
        t2 = fold_run(p, xh, 4, NULL);
        omp_set_num_threads(saved);
        same_point_free(t1, t2);
    }
#endif
    /* bad input */
    CHECK(ro_sgns_problem_create_head(p, 0, mh, &bad, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_problem_create_head(p, nh, m + 1, &bad, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_problem_create_head(NULL, nh, mh, &bad, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(bad == NULL);
    fc.iterations = -1;
    CHECK(ro_sgns_fold_in(p, xh, &fc, &x1, NULL, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_fold_in(ph, xf, NULL, &x1, NULL, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_fold_in(p, NULL, NULL, &x1, NULL, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    {   /* a shard is refused */
        ro_sgns_problem *rows = NULL;
        CHECK(ro_sgns_problem_create_rows(p, 0, 30, &rows, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_fold_in(rows, xh, NULL, &x1, NULL, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_problem_create_head(rows, 10, 10, &bad, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        ro_sgns_problem_free(rows);
    }
    free(r);
    free(Xf);
    free(Xh);
done:
    ro_sgns_factors_free(xh);
    ro_sgns_factors_free(xf);
    ro_sgns_factors_free(x1);
    ro_sgns_factors_free(x4);
    ro_sgns_problem_free(ph);
    ro_sgns_problem_free(p);
    free(A);
    free_counts(&c);
}

/* One default fold step (one MM step from z = 0, no line search) in
   closed form, from II.9's formulas in double: for a tail word w over
   the head's contexts, with a_c the rows of V_h S_h^T, x = 0 gives
   g = 1/2 sum_c (#(w,c) - B_wc) a_c, H = 1/4 sum_c (#(w,c) + B_wc) a_c a_c^T
   and z = H^-1 g, so x_wc = z.a_c; a tail context the same over the head's
   words with a_w the rows of U_h S_h. A row with no head count stays 0.
   Each folded x against it (a half step is off by half of x). */
static void test_fold_one_step(double cds)
{
    const size_t n = 30, m = 26, nh = 11, mh = 9, d = 3;
    const double k = 5, tol = IS_D ? 1e-12 : 2e-5;
    counts_t c = make_counts(n, m, 0.5);
    double *N, *Xf = NULL, *a = (double *)malloc((n > m ? n : m) * d * sizeof(double));
    double H[9], g[3], worst = 0, big = 0;
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *xh = random_point(nh, mh, d, 0.6), *xf = NULL;
    ro_sgns_error err;
    size_t i, j, q, r, t, empty = 0;
    drop_head_counts(&c, n - 1, m - 2, nh, mh);
    N = dense_counts(&c);
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, cds, &p, NULL, &err) ==
          RO_SGNS_OK);
    if (p && xh)
        CHECKF(ro_sgns_fold_in(p, xh, NULL, &xf, NULL, NULL, &err) == RO_SGNS_OK, "fold_in: %s",
               err.message);
    if (!xf) goto done;
    Xf = dense_x(xf);
    for (t = 0; t < 2; ++t) { /* t = 0: tail words over V_h S^T; 1: tail contexts over U_h S */
        const size_t lines = t ? nh : mh, from = t ? mh : nh, tails = t ? m : n;
        for (j = 0; j < lines; ++j) /* a_j */
            for (q = 0; q < d; ++q) {
                double v = 0;
                for (r = 0; r < d; ++r)
                    v += t ? (double)xh->U[j * d + r] * xh->S[r * d + q]
                           : (double)xh->V[j * d + r] * xh->S[q * d + r];
                a[j * d + q] = v;
            }
        for (i = from; i < tails; ++i) {
            double seen = 0;
            for (q = 0; q < d * d; ++q) H[q] = 0;
            for (q = 0; q < d; ++q) g[q] = 0;
            for (j = 0; j < lines; ++j) {
                const size_t w = t ? j : i, ctx = t ? i : j;
                const double cnt = N[w * m + ctx], B = ref_B(&c, k, cds, w, ctx);
                seen += cnt;
                for (q = 0; q < d; ++q) {
                    g[q] += 0.5 * (cnt - B) * a[j * d + q];
                    for (r = 0; r < d; ++r) H[q * d + r] += 0.25 * (cnt + B) * a[j * d + q] * a[j * d + r];
                }
            }
            if (seen == 0) ++empty;
            else dense_solve(d, H, g);
            for (j = 0; j < lines; ++j) {
                double want = 0, got = Xf[t ? j * m + i : i * m + j];
                for (q = 0; q < d; ++q) want += seen == 0 ? 0 : g[q] * a[j * d + q];
                worst = tu_max(worst, fabs(got - want) / (1 + fabs(want)));
                big = tu_max(big, fabs(want));
            }
        }
    }
    if (getenv("VERBOSE")) printf("fold, one step: off by %.3g (largest x %.3g)\n", worst, big);
    CHECKF(worst <= tol && big > 0.1 && empty == 2,
           "fold, one step (cds %g): x off its closed form by %.3g (largest x %.3g, %lu empty)",
           cds, worst, big, (unsigned long)empty);
done:
    free(Xf);
    free(N);
    free(a);
    ro_sgns_factors_free(xh);
    ro_sgns_factors_free(xf);
    ro_sgns_problem_free(p);
    free_counts(&c);
}

/* The fold tests' problem: 40 x 34 counts, 2 words' and 3 contexts' head
   counts dropped (rows the fold leaves empty), its 15 x 13 head, a Gaussian
   start W0, C0 at d = 3 and the head's point from it (xh). 0 on failure
   (what was made is in f, for fold_fixture_free). */
typedef struct fold_fixture {
    size_t n, m, nh, mh, d;
    counts_t c;
    ro_sgns_problem *p, *ph;
    ro_sgns_factors *xh;
    real *W0, *C0;
} fold_fixture;

static int fold_fixture_make(fold_fixture *f)
{
    ro_sgns_error err;
    size_t i;
    memset(f, 0, sizeof *f);
    f->n = 40, f->m = 34, f->nh = 15, f->mh = 13, f->d = 3;
    f->c = make_counts(f->n, f->m, 0.5);
    drop_head_counts(&f->c, f->n - 2, f->m - 3, f->nh, f->mh);
    f->W0 = (real *)malloc(f->n * f->d * sizeof(real));
    f->C0 = (real *)malloc(f->m * f->d * sizeof(real));
    if (!f->W0 || !f->C0) return 0;
    for (i = 0; i < f->n * f->d; ++i) f->W0[i] = (real)(0.7 * ro_sgns_rng_normal(&g_rng));
    for (i = 0; i < f->m * f->d; ++i) f->C0[i] = (real)(0.7 * ro_sgns_rng_normal(&g_rng));
    CHECK(ro_sgns_problem_create_csr(f->n, f->m, f->c.row_ptr, f->c.col, f->c.val, 5, 0.75, &f->p,
                                     NULL, &err) == RO_SGNS_OK);
    if (f->p) CHECK(ro_sgns_problem_create_head(f->p, f->nh, f->mh, &f->ph, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_factors_from_wc(f->nh, f->mh, f->d, f->W0, f->C0, &f->xh, NULL, &err) ==
          RO_SGNS_OK);
    return f->p && f->ph && f->xh;
}

static void fold_fixture_free(fold_fixture *f)
{
    ro_sgns_factors_free(f->xh);
    ro_sgns_problem_free(f->ph);
    ro_sgns_problem_free(f->p);
    free(f->W0);
    free(f->C0);
    free_counts(&f->c);
}

/* The fold from a start W0 C0^T (fold config start_w, start_c). With no
   step a tail row's x over the head's lines is the start's x0 there,
   projected orthogonally onto the head's subspace (x0 V_h V_h^T for a
   word, U_h U_h^T x0 for a context: the least-squares fit, in closed
   form); when the head is the start's own head block that is x0 itself.
   Rows with no count in the head stay there. A step from the start
   raises f, the same bits on 1 and 2 threads; one of the two factors, or
   a NaN in the start, is refused. */
static void test_fold_start(void)
{
    fold_fixture fx;
    const int made = fold_fixture_make(&fx);
    const size_t n = fx.n, m = fx.m, nh = fx.nh, mh = fx.mh, d = fx.d;
    const ro_sgns_problem *p = fx.p, *ph = fx.ph;
    const ro_sgns_factors *xh = fx.xh;
    real *W0 = fx.W0, *C0 = fx.C0;
    ro_sgns_factors *xr = NULL, *x0 = NULL, *x1 = NULL;
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_fold_report rep0, rep1;
    ro_sgns_error err;
    double *Xs = (double *)calloc(n * m, sizeof(double)), *Xf = NULL, *r = NULL;
    const double tol = IS_D ? 1e-10 : 2e-4;
    double worst = 0, worst_p = 0;
    size_t i, j, q, t;
    if (!made || !Xs) goto done;
    for (i = 0; i < n; ++i) /* X0 = W0 C0^T in double */
        for (j = 0; j < m; ++j)
            for (q = 0; q < d; ++q) Xs[i * m + j] += (double)W0[i * d + q] * C0[j * d + q];
    fc.start_w = W0;
    fc.start_c = C0;
    fc.block_rows = 5;
    /* the start's own head, no step: the tail lines over the head are X0's */
    fc.iterations = 0;
    CHECK(ro_sgns_fold_in(p, xh, &fc, &x0, &rep0, NULL, &err) == RO_SGNS_OK);
    if (!x0) goto done;
    Xf = dense_x(x0);
    for (i = 0; i < n; ++i)
        for (j = 0; j < m; ++j) {
            double e;
            if (i >= nh && j >= mh) continue; /* the tail x tail block: unfitted */
            e = fabs(Xf[i * m + j] - Xs[i * m + j]) / (1 + fabs(Xs[i * m + j]));
            worst = tu_max(worst, e); /* a NaN stays */
        }
    CHECKF(worst <= tol, "fold from the start's own head: X0 off by %.3g", worst);
    CHECKF(rep0.rows == (n - nh) + (m - mh) && rep0.rows_empty == 2,
           "fold report: %lu rows, %lu empty", (unsigned long)rep0.rows,
           (unsigned long)rep0.rows_empty);
    CHECK(rep0.f_start == rep0.f_end);
    free(Xf);
    Xf = NULL;
    ro_sgns_factors_free(x0);
    x0 = NULL;
    /* a head moved by RO steps: the projections onto its subspaces */
    CHECK(ro_sgns_factors_from_wc(nh, mh, d, W0, C0, &xr, NULL, &err) == RO_SGNS_OK);
    if (!xr) goto done;
    CHECK(ro_sgns_ro_train(ph, xr, NULL, &err) == RO_SGNS_OK && xr->iteration > 0);
    CHECK(ro_sgns_fold_in(p, xr, &fc, &x0, &rep0, NULL, &err) == RO_SGNS_OK);
    if (!x0) goto done;
    Xf = dense_x(x0);
    r = (double *)calloc(n > m ? n : m, sizeof(double));
    worst = 0;
    for (t = 0; t < 2; ++t) { /* t = 0: tail words against V_h; 1: tail contexts against U_h */
        const size_t lines = t ? nh : mh, tails = t ? m : n, from = t ? mh : nh;
        const real *P = t ? xr->U : xr->V;
        for (i = from; i < tails; ++i) {
            for (j = 0; j < lines; ++j) r[j] = 0;
            for (q = 0; q < d; ++q) { /* r = P P^T x0 */
                double s = 0;
                for (j = 0; j < lines; ++j) s += (double)P[j * d + q] * Xs[t ? j * m + i : i * m + j];
                for (j = 0; j < lines; ++j) r[j] += s * (double)P[j * d + q];
            }
            for (j = 0; j < lines; ++j) {
                const double x = Xf[t ? j * m + i : i * m + j];
                const double e = fabs(x - r[j]) / (1 + fabs(r[j]));
                worst = tu_max(worst, e); /* a NaN stays */
                worst_p = tu_max(worst_p, fabs(r[j] - Xs[t ? j * m + i : i * m + j]));
            }
        }
    }
    CHECKF(worst <= tol, "fold's start after RO steps: the projection off by %.3g", worst);
    CHECKF(worst_p > 1e-3, "the RO steps left the head's subspaces where they were (%.3g)", worst_p);
    /* a step from there raises f, and the start is not z = 0 */
    fc.iterations = 1;
    CHECK(ro_sgns_fold_in(p, xr, &fc, &x1, &rep1, NULL, &err) == RO_SGNS_OK);
    CHECKF(rep1.f_start == rep0.f_end && rep1.f_end > rep1.f_start,
           "fold from the start: f %.10g (no step), %.10g -> %.10g (1 step)", rep0.f_end,
           rep1.f_start, rep1.f_end);
    {
        ro_sgns_fold_config z = fc;
        ro_sgns_fold_report rz;
        ro_sgns_factors *xz = NULL;
        z.start_w = z.start_c = NULL;
        CHECK(ro_sgns_fold_in(p, xr, &z, &xz, &rz, NULL, &err) == RO_SGNS_OK);
        CHECK(rz.f_start != rep1.f_start && xz && x1 &&
              memcmp(xz->U, x1->U, n * d * sizeof(real)) != 0);
        ro_sgns_factors_free(xz);
    }
#ifdef _OPENMP
    {
        int saved = omp_get_max_threads();
        ro_sgns_factors *t1 = NULL, *t2 = NULL;
        omp_set_num_threads(1);
        CHECK(ro_sgns_fold_in(p, xr, &fc, &t1, NULL, NULL, &err) == RO_SGNS_OK);
        omp_set_num_threads(2);
        CHECK(ro_sgns_fold_in(p, xr, &fc, &t2, NULL, NULL, &err) == RO_SGNS_OK);
        omp_set_num_threads(saved);
        same_point_free(t1, t2);
    }
#endif
    {   /* one of the two, and a NaN in the start */
        ro_sgns_factors *bad = NULL;
        ro_sgns_fold_config one = fc;
        one.start_c = NULL;
        CHECK(ro_sgns_fold_in(p, xr, &one, &bad, NULL, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT && bad == NULL);
        W0[(n - 1) * d] = (real)NAN;
        CHECK(ro_sgns_fold_in(p, xr, &fc, &bad, NULL, NULL, &err) == RO_SGNS_ERR_NUMERIC &&
              bad == NULL);
    }
done:
    ro_sgns_factors_free(xr);
    ro_sgns_factors_free(x0);
    ro_sgns_factors_free(x1);
    free(Xs);
    free(Xf);
    free(r);
    fold_fixture_free(&fx);
}

/* x = K^-1 b for a small d x d K (Gauss-Jordan with partial pivoting,
   in double; K and b are overwritten). 0 when K is singular. */
static int small_solve(size_t d, double *K, double *b)
{
    size_t i, j, q, piv;
    for (i = 0; i < d; ++i) {
        for (piv = i, j = i + 1; j < d; ++j)
            if (fabs(K[j * d + i]) > fabs(K[piv * d + i])) piv = j;
        if (!(fabs(K[piv * d + i]) > 0)) return 0;
        for (q = 0; q < d; ++q) {
            const double t = K[i * d + q];
            K[i * d + q] = K[piv * d + q];
            K[piv * d + q] = t;
        }
        { const double t = b[i]; b[i] = b[piv]; b[piv] = t; }
        for (j = 0; j < d; ++j) {
            const double f = K[j * d + i] / K[i * d + i];
            if (j == i) continue;
            for (q = i; q < d; ++q) K[j * d + q] -= f * K[i * d + q];
            b[j] -= f * b[i];
        }
    }
    for (i = 0; i < d; ++i) b[i] /= K[i * d + i];
    return 1;
}

/* The fold's prior (fold config prior = t), from its definition in plain
   loops: A = V_h S^T, z0 = M w0 with M = (A^T A)^-1 A^T C0_h, Sigma the
   mean of (U_h - M w0)(U_h - M w0)^T over the head's words [nh/2, nh),
   Prec = (t Sigma)^-1. After 60 searched steps each tail word with a
   head count is at the MAP point: A^T r - Prec (z - z0) = 0 (r the
   counts' residual at its x), to tol of A^T r at z0. A prior near 0
   keeps the rows at their start; a very wide one is the fold without it;
   the same bits on 1 and 2 threads; t < 0, NaN, or a prior without a
   start is refused. */
static void test_fold_prior(void)
{
    fold_fixture fx;
    const int made = fold_fixture_make(&fx);
    const size_t n = fx.n, m = fx.m, nh = fx.nh, mh = fx.mh, d = fx.d;
    const double t = 2, k = 5, cds = 0.75, tol = IS_D ? 1e-6 : 2e-3;
    ro_sgns_factors *xr = NULL, *xp = NULL, *x0 = NULL, *xs = NULL, *xw = NULL, *xn = NULL;
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_error err;
    double A[64 * 3], M[9], Sg[9], Pr[9], K[9], b[3], dz[3], z[3], z0[3], g[3], g0[3];
    double *Cnt = NULL, *Xp = NULL, *X0 = NULL, *Xs = NULL, *Xw = NULL, *Xn = NULL;
    double worst = 0, near = 0, wide = 0;
    size_t i, j, q, w, c, checked = 0;
    if (!made || d != 3 || mh > 64) goto done;
    CHECK(ro_sgns_factors_from_wc(nh, mh, d, fx.W0, fx.C0, &xr, NULL, &err) == RO_SGNS_OK);
    if (!xr) goto done;
    CHECK(ro_sgns_ro_train(fx.ph, xr, NULL, &err) == RO_SGNS_OK);
    for (c = 0; c < mh; ++c) /* A = V_h S^T */
        for (q = 0; q < d; ++q) {
            double s = 0;
            for (j = 0; j < d; ++j) s += (double)xr->V[c * d + j] * (double)xr->S[q * d + j];
            A[c * d + q] = s;
        }
    for (j = 0; j < d; ++j) { /* M = (A^T A)^-1 A^T C0_h, a column at a time */
        for (i = 0; i < d; ++i) {
            b[i] = 0;
            for (c = 0; c < mh; ++c) b[i] += A[c * d + i] * (double)fx.C0[c * d + j];
            for (q = 0; q < d; ++q) {
                K[i * d + q] = 0;
                for (c = 0; c < mh; ++c) K[i * d + q] += A[c * d + i] * A[c * d + q];
            }
        }
        CHECK(small_solve(d, K, b));
        for (i = 0; i < d; ++i) M[i * d + j] = b[i];
    }
    for (i = 0; i < d * d; ++i) Sg[i] = 0;
    for (w = nh / 2; w < nh; ++w) {
        for (i = 0; i < d; ++i) {
            dz[i] = (double)xr->U[w * d + i];
            for (j = 0; j < d; ++j) dz[i] -= M[i * d + j] * (double)fx.W0[w * d + j];
        }
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) Sg[i * d + j] += t * dz[i] * dz[j] / (double)(nh - nh / 2);
    }
    for (j = 0; j < d; ++j) { /* Prec = (t Sigma)^-1 */
        for (i = 0; i < d * d; ++i) K[i] = Sg[i];
        for (i = 0; i < d; ++i) b[i] = i == j;
        CHECK(small_solve(d, K, b));
        for (i = 0; i < d; ++i) Pr[i * d + j] = b[i];
    }
    fc.start_w = fx.W0;
    fc.start_c = fx.C0;
    fc.block_rows = 5;
    fc.iterations = 60;
    fc.line_search = 1;
    fc.prior = t;
    CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &xp, NULL, NULL, &err) == RO_SGNS_OK);
    if (!xp) goto done;
    Xp = dense_x(xp);
    Cnt = dense_counts(&fx.c);
    for (w = nh; w < n; ++w) {
        double any = 0, gn = 0, g0n = 0;
        for (c = 0; c < mh; ++c) any += Cnt[w * m + c];
        if (any == 0) continue;
        for (i = 0; i < d; ++i) { /* z = (A^T A)^-1 A^T x_h, z0 = M w0 */
            b[i] = z0[i] = 0;
            for (c = 0; c < mh; ++c) b[i] += A[c * d + i] * Xp[w * m + c];
            for (q = 0; q < d; ++q) {
                K[i * d + q] = 0;
                for (c = 0; c < mh; ++c) K[i * d + q] += A[c * d + i] * A[c * d + q];
                z0[i] += M[i * d + q] * (double)fx.W0[w * d + q];
            }
        }
        CHECK(small_solve(d, K, b));
        for (i = 0; i < d; ++i) z[i] = b[i];
        for (i = 0; i < d; ++i) g[i] = g0[i] = 0;
        for (c = 0; c < mh; ++c) {
            double x = 0, xa = 0, B = ref_B(&fx.c, k, cds, w, c), r, r0;
            for (q = 0; q < d; ++q) {
                x += A[c * d + q] * z[q];
                xa += A[c * d + q] * z0[q];
            }
            r = Cnt[w * m + c] * sig(-x) - B * sig(x);
            r0 = Cnt[w * m + c] * sig(-xa) - B * sig(xa);
            for (i = 0; i < d; ++i) {
                g[i] += A[c * d + i] * r;
                g0[i] += A[c * d + i] * r0;
            }
        }
        for (i = 0; i < d; ++i) {
            for (q = 0; q < d; ++q) g[i] -= Pr[i * d + q] * (z[q] - z0[q]);
            gn += g[i] * g[i];
            g0n += g0[i] * g0[i];
        }
        worst = tu_max(worst, sqrt(gn) / sqrt(g0n)); /* a NaN stays */
        ++checked;
    }
    CHECKF(checked > 10 && worst <= tol, "fold with a prior: %lu tail words, the MAP gradient "
           "%.3g of the start's", (unsigned long)checked, worst);
    /* a prior near 0 keeps the start (iterations 0); a very wide one is none */
    fc.iterations = 2;
    fc.line_search = 0;
    fc.prior = 1e-12;
    CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &xn, NULL, NULL, &err) == RO_SGNS_OK);
    fc.prior = 1e12;
    CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &xw, NULL, NULL, &err) == RO_SGNS_OK);
    fc.prior = 0;
    CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &xs, NULL, NULL, &err) == RO_SGNS_OK);
    fc.iterations = 0;
    CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &x0, NULL, NULL, &err) == RO_SGNS_OK);
    if (!xn || !xw || !xs || !x0) goto done;
    Xn = dense_x(xn);
    Xw = dense_x(xw);
    Xs = dense_x(xs);
    X0 = dense_x(x0);
    for (i = 0; i < n * m; ++i) {
        near = tu_max(near, fabs(Xn[i] - X0[i]) / (1 + fabs(X0[i])));
        wide = tu_max(wide, fabs(Xw[i] - Xs[i]) / (1 + fabs(Xs[i])));
    }
    CHECKF(near <= (IS_D ? 1e-8 : 1e-4) && wide <= (IS_D ? 1e-8 : 1e-4),
           "prior 1e-12 against the start: %.3g; prior 1e12 against none: %.3g", near, wide);
#ifdef _OPENMP
    {
        int saved = omp_get_max_threads();
        ro_sgns_factors *t1 = NULL, *t2 = NULL;
        fc.iterations = 2;
        fc.prior = t;
        omp_set_num_threads(1);
        CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &t1, NULL, NULL, &err) == RO_SGNS_OK);
        omp_set_num_threads(2);
        CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &t2, NULL, NULL, &err) == RO_SGNS_OK);
        omp_set_num_threads(saved);
        same_point_free(t1, t2);
    }
#endif
    {   /* refused: t < 0, NaN, a prior without the start */
        ro_sgns_factors *bad = NULL;
        fc.prior = -1;
        CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &bad, NULL, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT && bad == NULL);
        fc.prior = NAN;
        CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &bad, NULL, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT && bad == NULL);
        fc.prior = 1;
        fc.start_w = fc.start_c = NULL;
        CHECK(ro_sgns_fold_in(fx.p, xr, &fc, &bad, NULL, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT && bad == NULL);
    }
done:
    ro_sgns_factors_free(xr);
    ro_sgns_factors_free(xp);
    ro_sgns_factors_free(x0);
    ro_sgns_factors_free(xs);
    ro_sgns_factors_free(xw);
    ro_sgns_factors_free(xn);
    free(Cnt);
    free(Xp);
    free(X0);
    free(Xs);
    free(Xw);
    free(Xn);
    fold_fixture_free(&fx);
}

/* The fold's progress callback: called after each block with rows
   rising to the total, from one thread; a stop by it returns STOPPED and
   no point; the point's bits are the same with and without it. */
typedef struct fold_seen {
    size_t calls, last, total, stop_at;
    int rising;
} fold_seen;

static int fold_seen_cb(const ro_sgns_fold_progress *p, void *user)
{
    fold_seen *s = (fold_seen *)user;
    if (p->rows_done <= s->last || p->rows_done > p->rows_total || !(p->seconds >= 0))
        s->rising = 0;
    s->last = p->rows_done;
    s->total = p->rows_total;
    ++s->calls;
    return s->stop_at && s->calls >= s->stop_at;
}

static void test_fold_progress(void)
{
    fold_fixture fx;
    const int made = fold_fixture_make(&fx);
    const size_t n = fx.n, m = fx.m, nh = fx.nh, mh = fx.mh, d = fx.d;
    const ro_sgns_problem *p = fx.p;
    ro_sgns_factors *xh = fx.xh, *x0 = NULL, *x1 = NULL, *x2 = NULL;
    ro_sgns_fold_config fc = ro_sgns_fold_config_default();
    ro_sgns_fold_report r0, r1;
    ro_sgns_error err;
    fold_seen seen;
    if (!made) goto done;
    CHECK(ro_sgns_ro_train(fx.ph, xh, NULL, &err) == RO_SGNS_OK);
    fc.start_w = fx.W0;
    fc.start_c = fx.C0;
    fc.block_rows = 5;
    fc.iterations = 2;
    CHECK(ro_sgns_fold_in(p, xh, &fc, &x0, &r0, NULL, &err) == RO_SGNS_OK);
    memset(&seen, 0, sizeof seen);
    seen.rising = 1;
    fc.callback = fold_seen_cb;
    fc.user = &seen;
    CHECK(ro_sgns_fold_in(p, xh, &fc, &x1, &r1, NULL, &err) == RO_SGNS_OK);
    /* blocks of 5: 25 tail words in 5 blocks, 21 tail contexts in 5 */
    CHECKF(seen.calls == 10 && seen.rising && seen.last == (n - nh) + (m - mh) &&
               seen.total == seen.last,
           "%lu calls, rising %d, rows %lu of %lu", (unsigned long)seen.calls, seen.rising,
           (unsigned long)seen.last, (unsigned long)seen.total);
    CHECK(x0 && x1 && memcmp(x0->U, x1->U, n * d * sizeof(real)) == 0 &&
          memcmp(x0->V, x1->V, m * d * sizeof(real)) == 0 &&
          memcmp(x0->S, x1->S, d * d * sizeof(real)) == 0);
    CHECK(memcmp(&r0, &r1, sizeof r0) == 0);
    /* a stop in the contexts' side (the 7th block) */
    memset(&seen, 0, sizeof seen);
    seen.rising = 1;
    seen.stop_at = 7;
    CHECKF(ro_sgns_fold_in(p, xh, &fc, &x2, &r1, NULL, &err) == RO_SGNS_STOPPED && x2 == NULL &&
               seen.calls == 7 && seen.last == 25 + 10,
           "%lu calls, %lu rows", (unsigned long)seen.calls, (unsigned long)seen.last);
done:
    ro_sgns_factors_free(x0);
    ro_sgns_factors_free(x1);
    ro_sgns_factors_free(x2);
    fold_fixture_free(&fx);
}

/* csr_head against the dense block */
static void test_csr_head(void)
{
    ro_sgns_csr *M = NULL, *H = NULL;
    ro_sgns_error err;
    size_t i, j, rows = 9, cols = 7, ok = 1;
    uint64_t e, k = 0;
    double D[12 * 10];
    CHECK(ro_sgns_csr_create(12, 10, 120, &M, NULL, &err) == RO_SGNS_OK);
    if (!M) return;
    for (i = 0; i < 12; ++i) {
        for (j = 0; j < 10; ++j) {
            D[i * 10 + j] = ro_sgns_rng_uniform(&g_rng) < 0.4 ? 1 + (double)(i * 10 + j) : 0;
            if (D[i * 10 + j] != 0) {
                M->col[k] = (uint32_t)j;
                M->val[k++] = (real)D[i * 10 + j];
            }
        }
        M->row_ptr[i + 1] = k;
    }
    CHECK(ro_sgns_csr_head(M, rows, cols, &H, NULL, &err) == RO_SGNS_OK);
    if (H) {
        double got[12 * 10] = {0};
        CHECK(H->rows == rows && H->cols == cols);
        for (i = 0; i < rows; ++i)
            for (e = H->row_ptr[i]; e < H->row_ptr[i + 1]; ++e) got[i * 10 + H->col[e]] = H->val[e];
        for (i = 0; i < rows; ++i)
            for (j = 0; j < 10; ++j) ok &= got[i * 10 + j] == (j < cols ? D[i * 10 + j] : 0);
        CHECK(ok);
    }
    ro_sgns_csr_free(H);
    H = NULL;
    CHECK(ro_sgns_csr_head(M, 13, 5, &H, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT && !H);
    ro_sgns_csr_free(M);
}

/* ---------------------------------- Part I's plain run against the fast */

/* The SPPMI of c from its definition, as CSR (for ro_sgns_tsvd) */
static ro_sgns_csr *sppmi_of(const counts_t *c, double k)
{
    ro_sgns_csr *A = NULL;
    size_t w;
    uint64_t e, kept = 0;
    CHECK(ro_sgns_csr_create(c->n, c->m, c->row_ptr[c->n], &A, NULL, NULL) == RO_SGNS_OK);
    if (!A) return NULL;
    for (w = 0; w < c->n; ++w) {
        for (e = c->row_ptr[w]; e < c->row_ptr[w + 1]; ++e) {
            double v = log((double)c->val[e] * c->total / (c->wsum[w] * c->csum[c->col[e]])) - log(k);
            if (v <= 0) continue;
            A->col[kept] = c->col[e];
            A->val[kept++] = (real)v;
        }
        A->row_ptr[w + 1] = kept;
    }
    return A;
}

/* |W W^T - W' W'^T| / |W W^T|: embeddings compared whatever their columns'
   signs (the two SVDs of S may choose them differently) */
static double gram_rel_diff(size_t n, size_t d, const real *W, const real *W2)
{
    double diff = 0, norm = 0;
    size_t i, j, t;
    for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) {
            double a = 0, b = 0;
            for (t = 0; t < d; ++t) {
                a += (double)W[i * d + t] * W[j * d + t];
                b += (double)W2[i * d + t] * W2[j * d + t];
            }
            diff += (a - b) * (a - b);
            norm += a * a;
        }
    return sqrt(diff / norm);
}

/* The plain SVD against the fast one on a tall and a wide matrix */
static void svd_naive_vs_builtin(void)
{
    enum { R = 30, C = 12 };
    real A[R * C], At[C * R], s1[C], s2[C], U[R * C], V[C * C];
    double worst = 0, rec = 0, norm = 0;
    size_t i, j, t, form;
    for (i = 0; i < R * C; ++i) A[i] = (real)(ro_sgns_rng_uniform(&g_rng) - 0.5);
    for (i = 0; i < R; ++i)
        for (j = 0; j < C; ++j) At[j * R + i] = A[i * C + j];
    for (form = 0; form < 2; ++form) {
        CHECK(ro_sgns_svd_naive(form ? C : R, form ? R : C, form ? At : A, form ? R : C,
                                form ? V : U, C, s1, form ? U : V, C, NULL, NULL) == RO_SGNS_OK);
        CHECK(ro_sgns_svd_builtin(R, C, A, C, NULL, C, s2, NULL, C, NULL, NULL) == RO_SGNS_OK);
        for (j = 0; j < C; ++j) worst = tu_max(worst, fabs((double)s1[j] - s2[j]) / s2[0]);
        for (i = 0; i < R; ++i) /* A = U diag(s) V^T */
            for (j = 0; j < C; ++j) {
                double x = 0;
                for (t = 0; t < C; ++t) x += (double)U[i * C + t] * s1[t] * V[j * C + t];
                rec += (x - A[i * C + j]) * (x - A[i * C + j]);
                norm += (double)A[i * C + j] * A[i * C + j];
            }
    }
    CHECKF(worst <= (IS_D ? 1e-13 : 2e-6), "svd_naive vs svd_builtin: sigma off by %.3g", worst);
    CHECKF(sqrt(rec / norm) <= (IS_D ? 1e-13 : 2e-6), "svd_naive: |A - U S V^T| / |A| = %.3g",
           sqrt(rec / norm));
}

/* Part I end to end (ro_sgns_problem_create_naive, ro_sgns_start_naive,
   ro_sgns_ro_train_naive, ro_sgns_factors_embeddings_naive; alone in
   tests/test_plain.c) against the fast path on the same counts
   (ro_sgns_problem_create_csr, ro_sgns_tsvd of the SPPMI, ro_sgns_ro_train
   at its defaults, ro_sgns_factors_embeddings). The two problems give
   the same F to the bit; the starts agree to rounding (the Krylov space
   made the whole space), and the runs, each from its own start, to
   1e-4 of |X| in float, 1e-10 in double, F to a tenth of that (4 steps
   of the same safeguard; measured on x86-64: X 4e-7 and 5e-15). */
static void test_plain_vs_fast(void)
{
    const size_t n = 50, m = 40, d = 5;
    const double k = 5, tol = IS_D ? 1e-11 : 1e-5;
    enum { K = 4 };
    counts_t c = make_counts_seen(n, m, 0.3);
    ro_sgns_problem *pn = NULL, *pf = NULL;
    ro_sgns_factors *xn = NULL, *xf = NULL;
    ro_sgns_csr *A = sppmi_of(&c, k);
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_tsvd_config tc = ro_sgns_tsvd_config_default();
    ro_sgns_error err;
    double F[K + 1], F_pn = 0, F_pf = 1, F_fast = 0, sig = 0;
    real *Wn = (real *)malloc(n * d * sizeof(real)), *Wf = (real *)malloc(n * d * sizeof(real));
    size_t j;
    svd_naive_vs_builtin();
    CHECK(ro_sgns_problem_create_naive(n, m, c.row_ptr, c.col, c.val, k, &pn, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(ro_sgns_problem_create_csr(n, m, c.row_ptr, c.col, c.val, k, 1, &pf, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(ro_sgns_start_naive(pn, d, &xn, &err) == RO_SGNS_OK);
    tc.oversample = m - d; /* the whole space: exact to rounding, as the plain SVD */
    CHECK(A && ro_sgns_tsvd(A, d, &tc, &xf, NULL, &err) == RO_SGNS_OK);
    if (!pn || !pf || !xn || !xf) goto done;
    /* the same B: the same F to the bit */
    CHECK(ro_sgns_objective_naive(pn, xn, &F_pn, NULL) == RO_SGNS_OK &&
          ro_sgns_objective_naive(pf, xn, &F_pf, NULL) == RO_SGNS_OK && F_pn == F_pf);
    for (j = 0; j < d; ++j)
        sig = tu_max(sig, fabs((double)xn->S[j * d + j] - xf->S[j * d + j]) / xf->S[0]);
    CHECKF(sig <= tol && x_rel_diff(xf, xn) <= 10 * tol, "start: sigma off by %.3g, X by %.3g",
           sig, x_rel_diff(xf, xn));
    CHECKF(ro_sgns_ro_train_naive(pn, xn, RO_SGNS_DIRECTION_SCALED, cfg.step, K, F, &err) ==
               RO_SGNS_OK, "%s", err.message);
    cfg.iterations = K;
    CHECKF(ro_sgns_ro_train(pf, xf, &cfg, &err) == RO_SGNS_OK, "%s", err.message);
    CHECK(ro_sgns_objective(pf, xf, &F_fast, NULL) == RO_SGNS_OK);
    CHECKF(xn->iteration == xf->iteration && F[K] > F[0] &&
               fabs(F[K] - F_fast) <= tol * fabs(F_fast) && x_rel_diff(xf, xn) <= 10 * tol,
           "after %d steps (%d, %d): F %.10g plain, %.10g fast; |X - X_plain| / |X| = %.3g", K,
           (int)xn->iteration, (int)xf->iteration, F[K], F_fast, x_rel_diff(xf, xn));
    CHECK(ro_sgns_factors_embeddings_naive(xn, 0.5, RO_SGNS_EMBED_W, Wn, d, NULL, NULL) ==
              RO_SGNS_OK &&
          ro_sgns_factors_embeddings(xf, 0.5, RO_SGNS_EMBED_W, Wf, d, NULL, NULL) == RO_SGNS_OK);
    CHECKF(gram_rel_diff(n, d, Wf, Wn) <= 10 * tol, "embeddings: |W W^T| off by %.3g",
           gram_rel_diff(n, d, Wf, Wn));
    if (getenv("VERBOSE"))
        printf("plain vs fast: F %.10g plain, %.10g fast, X off by %.3g\n", F[K], F_fast,
               x_rel_diff(xf, xn));
done:
    free(Wn);
    free(Wf);
    ro_sgns_csr_free(A);
    ro_sgns_factors_free(xn);
    ro_sgns_factors_free(xf);
    ro_sgns_problem_free(pn);
    ro_sgns_problem_free(pf);
    free_counts(&c);
}

int main(void)
{
    ro_sgns_rng_seed(&g_rng, 4242, 0);
    test_exp_log_accuracy();
    test_symmetry_check();
    test_from_wc_refusals();
    test_sgns_entry();
    test_objective_and_gradient(1.0);
    test_objective_and_gradient(0.75); /* context distribution smoothing */
    test_objective_and_gradient(0.3);
    test_step_vs_naive(1.0);
    test_step_vs_naive(0.75);
    test_step_packed_sweep();
    test_safeguard_and_threads();
    test_step_cap();
    test_tangent_norm();
    test_tangent_norm_exact();
    test_metric_direction();
    test_metric_cg();
    test_keep_direction();
    test_fused();
    test_fused_vs_naive();
    test_checkpoint_resume();
    test_block_reports();
    test_estimates();
    test_sample_corpus();
    test_shards();
    test_cond_upper();
    test_qr_rows_inv();
    test_shards_fused();
    test_head_and_fold(1.0);
    test_head_and_fold(0.75);
    test_fold_one_step(1.0);
    test_fold_one_step(0.75);
    test_fold_start();
    test_fold_prior();
    test_fold_progress();
    test_csr_head();
    test_plain_vs_fast();
    return tu_finish(IS_D ? "ro(double)" : "ro(float)");
}
