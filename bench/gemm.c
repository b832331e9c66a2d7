#define _POSIX_C_SOURCE 200809L
/* bench/gemm.c - ours vs OpenBLAS/LAPACKE, side by side in one run.
   GEMM on the shapes the RO-SGNS step runs (a block of 1024 rows of the
   implicit n x m matrix against a factor, and the transposed block against
   n x d, the fused step's third product), square 2048, 1 and 2 threads;
   then QR of 24292 x 500 (the Householder QR and the RO step's Cholesky QR twice) and SVD of
   500 x 500 against LAPACKE.
   Build: make bench (float and double binaries).
   usage: bench_gemm [rounds]   (default 5)
   BENCH_GEMM_THREADS=2 in the environment: the 2-thread rows only.
   Each GEMM timing is the best of `rounds` calls, ours and OpenBLAS's
   alternating (a sleep before each lets the other library's threads stop
   spinning), so a burst of load from elsewhere hits both; the load average
   is printed on every row. Results are checked against OpenBLAS's.
   OpenBLAS runs its best kernel for this CPU (bench/bench_util.h); when its
   own pick was weaker, that pick's numbers are measured first, in the
   process that OpenBLAS configured itself, and printed beside. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "bench_util.h"

#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef ro_sgns_real real;
#define IS_D (sizeof(real) == sizeof(double))

static void blas_gemm(int ta, int tb, size_t m, size_t n, size_t k, const real *A, size_t lda,
                      const real *B, size_t ldb, real *C, size_t ldc)
{
    if (IS_D)
        cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    (int)m, (int)n, (int)k, 1.0, (const double *)(const void *)A, (int)lda,
                    (const double *)(const void *)B, (int)ldb, 0.0, (double *)(void *)C,
                    (int)ldc);
    else
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    (int)m, (int)n, (int)k, 1.0f, (const float *)(const void *)A, (int)lda,
                    (const float *)(const void *)B, (int)ldb, 0.0f, (float *)(void *)C, (int)ldc);
}

static void fill(real *a, size_t n, unsigned seed)
{
    ro_sgns_rng r;
    size_t i;
    ro_sgns_rng_seed(&r, seed, 0);
    for (i = 0; i < n; ++i) a[i] = (real)(ro_sgns_rng_uniform(&r) - 0.5);
}

static double time_one(int which, int ta, int tb, size_t m, size_t n, size_t k, const real *A,
                       const real *B, real *C)
{
    size_t lda = ta ? m : k, ldb = tb ? k : n;
    double t0;
    bench_settle(0.2);
    t0 = bench_now();
    if (which == 0)
        ro_sgns_gemm_builtin((ro_sgns_trans)ta, (ro_sgns_trans)tb, m, n, k, 1, A, lda, B, ldb, 0,
                             C, n, NULL, NULL);
    else
        blas_gemm(ta, tb, m, n, k, A, lda, B, ldb, C, n);
    return bench_now() - t0;
}

static const size_t shapes[][5] = {
    /* m, n, k, ta, tb */
    {1024, 100, 24292, 0, 0}, {1024, 200, 24292, 0, 0}, {1024, 500, 24292, 0, 0},
    {1024, 24292, 100, 0, 1}, {1024, 24292, 200, 0, 1}, {1024, 24292, 500, 0, 1},
    /* the fused step's third product, G += D^T (M V), over a block of 1024 rows */
    {24292, 100, 1024, 1, 0}, {24292, 200, 1024, 1, 0}, {24292, 500, 1024, 1, 0},
    {2048, 2048, 2048, 0, 0}};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

/* OpenBLAS's GFLOP/s with the kernel it picked itself, for every shape and
   1, 2 threads, as "x,x,...": taken before the re-execution */
static void measure_picked(int rounds, char *out, size_t size)
{
    size_t s, len = 0;
    out[0] = '\0';
    for (s = 0; s < N_SHAPES; ++s) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        int ta = (int)shapes[s][3], tb = (int)shapes[s][4], threads, r;
        real *A = (real *)malloc(m * k * sizeof(real)), *B = (real *)malloc(k * n * sizeof(real));
        real *C = (real *)malloc(m * n * sizeof(real));
        fill(A, m * k, 1);
        fill(B, k * n, 2);
        for (threads = 1; threads <= 2; ++threads) {
            double best = 1e30, t;
            openblas_set_num_threads(threads);
            for (r = 0; r < rounds; ++r)
                if ((t = time_one(1, ta, tb, m, n, k, A, B, C)) < best) best = t;
            len += (size_t)snprintf(out + len, size - len, "%s%.2f", len ? "," : "",
                                    2.0 * (double)m * (double)n * (double)k / best * 1e-9);
        }
        free(A);
        free(B);
        free(C);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    const char *picked_env;
    double picked[2 * N_SHAPES];
    int have_picked = 0;
    size_t s;
    const char *only = getenv("BENCH_GEMM_THREADS");
    int threads, first_threads = only && atoi(only) == 2 ? 2 : 1;
    if (rounds < 1) rounds = 1;
    if (bench_openblas_weak()) {
        char buf[1024];
        fprintf(stderr, "bench_gemm: timing OpenBLAS's own pick (%s) first\n",
                openblas_get_corename());
        measure_picked(rounds, buf, sizeof buf);
        setenv("BENCH_GEMM_PICKED_GFLOPS", buf, 1);
        bench_openblas_anchor(argv);
    }
    picked_env = getenv("BENCH_GEMM_PICKED_GFLOPS");
    if (picked_env && getenv("BENCH_OPENBLAS_PICKED")) {
        const char *p = picked_env;
        for (s = 0; s < 2 * N_SHAPES && *p; ++s) {
            picked[s] = atof(p);
            p += strcspn(p, ",");
            if (*p == ',') ++p;
        }
        have_picked = s == 2 * N_SHAPES;
    }
    printf("# GEMM, %s, ours vs OpenBLAS, best of %d alternating calls\n\n", IS_D ? "double" : "float",
           rounds);
    bench_print_setup(stdout, omp_get_max_threads());
    printf("\n| shape (m x n x k, op) | threads | ours GFLOP/s | OpenBLAS %s GFLOP/s | ours/OpenBLAS |%s max abs diff | load |\n",
           openblas_get_corename(), have_picked ? " OpenBLAS own pick GFLOP/s | ours/own pick |" : "");
    printf("|---|---|---|---|---|%s---|---|\n", have_picked ? "---|---|" : "");
    for (s = 0; s < N_SHAPES; ++s) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        int ta = (int)shapes[s][3], tb = (int)shapes[s][4];
        real *A = (real *)malloc(m * k * sizeof(real)), *B = (real *)malloc(k * n * sizeof(real));
        real *C1 = (real *)malloc(m * n * sizeof(real)), *C2 = (real *)malloc(m * n * sizeof(real));
        fill(A, m * k, 1);
        fill(B, k * n, 2);
        for (threads = first_threads; threads <= 2; ++threads) {
            double t_ours = 1e30, t_blas = 1e30, t, flops = 2.0 * (double)m * (double)n * (double)k;
            double diff = 0;
            size_t i;
            int r;
            omp_set_num_threads(threads);
            openblas_set_num_threads(threads);
            for (r = 0; r < rounds; ++r) {
                if ((t = time_one(0, ta, tb, m, n, k, A, B, C1)) < t_ours) t_ours = t;
                if ((t = time_one(1, ta, tb, m, n, k, A, B, C2)) < t_blas) t_blas = t;
            }
            for (i = 0; i < m * n; ++i) {
                double d = fabs((double)C1[i] - (double)C2[i]);
                if (d > diff) diff = d;
            }
            printf("| %zu x %zu x %zu %s%s | %d | %.1f | %.1f | %.2f |", m, n, k, ta ? "T" : "N",
                   tb ? "T" : "N", threads, flops / t_ours * 1e-9, flops / t_blas * 1e-9,
                   t_blas / t_ours);
            if (have_picked)
                printf(" %.1f | %.2f |", picked[2 * s + (size_t)threads - 1],
                       flops / t_ours * 1e-9 / picked[2 * s + (size_t)threads - 1]);
            printf(" %.1e | %.2f |\n", diff, bench_load());
            fflush(stdout);
        }
        free(A);
        free(B);
        free(C1);
        free(C2);
    }

    /* QR of 24292 x 500 and SVD of 500 x 500, 2 threads */
    omp_set_num_threads(2);
    openblas_set_num_threads(2);
    {
        size_t n = 24292, d = 500, i;
        real *A = (real *)malloc(n * d * sizeof(real)), *Q = (real *)malloc(n * d * sizeof(real));
        real *R = (real *)malloc(d * d * sizeof(real)), *tau = (real *)malloc(d * sizeof(real));
        real *W = (real *)malloc(n * d * sizeof(real)); /* the step's QR's scratch */
        double t_ours = 1e30, t_lap = 1e30, t_step = 1e30, t0;
        int rep, chol2;
        fill(A, n * d, 3);
        memcpy(Q, A, n * d * sizeof(real)); /* does Cholesky QR answer for this matrix? */
        chol2 = ro_sgns__qr_chol2(n, d, Q, d, R, d, W, NULL, NULL) == 1;
        for (rep = 0; rep < rounds; ++rep) {
            memcpy(Q, A, n * d * sizeof(real));
            bench_settle(0.2);
            t0 = bench_now();
            ro_sgns__qr_step(n, d, Q, R, W, NULL, NULL);
            if (bench_now() - t0 < t_step) t_step = bench_now() - t0;
            memcpy(Q, A, n * d * sizeof(real));
            bench_settle(0.2);
            t0 = bench_now();
            ro_sgns_qr_builtin(n, d, Q, d, R, d, NULL, NULL);
            if (bench_now() - t0 < t_ours) t_ours = bench_now() - t0;
            memcpy(Q, A, n * d * sizeof(real));
            bench_settle(0.2);
            t0 = bench_now();
            if (IS_D) {
                LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (int)n, (int)d, (double *)(void *)Q, (int)d,
                               (double *)(void *)tau);
                LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (int)n, (int)d, (int)d, (double *)(void *)Q,
                               (int)d, (const double *)(const void *)tau);
            } else {
                LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, (int)n, (int)d, (float *)(void *)Q, (int)d,
                               (float *)(void *)tau);
                LAPACKE_sorgqr(LAPACK_ROW_MAJOR, (int)n, (int)d, (int)d, (float *)(void *)Q,
                               (int)d, (const float *)(const void *)tau);
            }
            if (bench_now() - t0 < t_lap) t_lap = bench_now() - t0;
        }
        printf("\n| kernel (%s, 2 threads, best of %d) | ours s | LAPACKE s | ours/LAPACKE time | load |\n",
               IS_D ? "double" : "float", rounds);
        printf("|---|---|---|---|---|\n");
        printf("| QR 24292 x 500 (R and explicit Q) | %.3f | %.3f | %.2f | %.2f |\n", t_ours, t_lap,
               t_ours / t_lap, bench_load());
        printf("| QR 24292 x 500, the RO step's (%s) | %.3f | %.3f | %.2f | %.2f |\n",
               chol2 ? "Cholesky QR twice" : "Cholesky QR refused: Householder", t_step, t_lap,
               t_step / t_lap, bench_load());
        free(W);
        free(A);
        free(Q);
        free(R);
        free(tau);
        {
            size_t m = 500;
            real *S = (real *)malloc(m * m * sizeof(real)), *U = (real *)malloc(m * m * sizeof(real));
            real *V = (real *)malloc(m * m * sizeof(real)), *sv = (real *)malloc(m * sizeof(real));
            real *sv2 = (real *)malloc(m * sizeof(real)), *W = (real *)malloc(m * m * sizeof(real));
            double diff = 0;
            fill(S, m * m, 4);
            bench_settle(0.2);
            t0 = bench_now();
            ro_sgns_svd_builtin(m, m, S, m, U, m, sv, V, m, NULL, NULL);
            t_ours = bench_now() - t0;
            memcpy(W, S, m * m * sizeof(real));
            bench_settle(0.2);
            t0 = bench_now();
            if (IS_D)
                LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', (int)m, (int)m, (double *)(void *)W,
                               (int)m, (double *)(void *)sv2, (double *)(void *)U, (int)m,
                               (double *)(void *)V, (int)m);
            else
                LAPACKE_sgesdd(LAPACK_ROW_MAJOR, 'S', (int)m, (int)m, (float *)(void *)W, (int)m,
                               (float *)(void *)sv2, (float *)(void *)U, (int)m,
                               (float *)(void *)V, (int)m);
            t_lap = bench_now() - t0;
            for (i = 0; i < m; ++i)
                if (fabs((double)sv[i] - (double)sv2[i]) > diff) diff = fabs((double)sv[i] - (double)sv2[i]);
            printf("| SVD 500 x 500 (U, s, V; max abs(s - s_lapack) = %.1e), once | %.3f | %.3f | %.2f | %.2f |\n",
                   diff, t_ours, t_lap, t_ours / t_lap, bench_load());
            free(S);
            free(U);
            free(V);
            free(sv);
            free(sv2);
            free(W);
        }
    }
    return 0;
}
