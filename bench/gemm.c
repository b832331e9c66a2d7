#define _POSIX_C_SOURCE 199309L
/* bench/gemm.c - ours vs OpenBLAS/LAPACKE, side by side in one run.
   GEMM on the shapes the RO-SGNS step runs (a block of 1024 rows of the
   implicit n x m matrix against a factor), square 2048, 1 and 2 threads;
   then QR of 24292 x 500 and SVD of 500 x 500 against LAPACKE.
   Build: make bench (float and double binaries). Each timing is the best of
   several repetitions; results are checked against OpenBLAS's. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

typedef ro_sgns_real real;
#define IS_D (sizeof(real) == sizeof(double))

void openblas_set_num_threads(int);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

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

static void cpu_model(char *out, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(out, n, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                snprintf(out, n, "%s", p + 2);
                out[strcspn(out, "\n")] = 0;
            }
            break;
        }
    fclose(f);
}

/* Let the other library's worker threads stop spinning before timing. */
static void settle(void)
{
    struct timespec t;
    t.tv_sec = 0;
    t.tv_nsec = 300000000L;
    nanosleep(&t, NULL);
}

/* best-of timing of ours (which = 0) or OpenBLAS (which = 1) */
static double time_gemm(int which, int ta, int tb, size_t m, size_t n, size_t k, const real *A,
                        const real *B, real *C)
{
    size_t lda = ta ? m : k, ldb = tb ? k : n;
    double best = 1e30, total = 0;
    int rep;
    settle();
    for (rep = 0; rep < 20 && (rep < 3 || total < 1.0); ++rep) {
        double t0 = now(), t;
        if (which == 0)
            ro_sgns_gemm_builtin((ro_sgns_trans)ta, (ro_sgns_trans)tb, m, n, k, 1, A, lda, B, ldb,
                                 0, C, n, NULL, NULL);
        else
            blas_gemm(ta, tb, m, n, k, A, lda, B, ldb, C, n);
        t = now() - t0;
        total += t;
        if (t < best) best = t;
    }
    return best;
}

int main(void)
{
    static const size_t shapes[][5] = {
        /* m, n, k, ta, tb */
        {1024, 100, 24292, 0, 0}, {1024, 200, 24292, 0, 0}, {1024, 500, 24292, 0, 0},
        {1024, 24292, 100, 0, 1}, {1024, 24292, 200, 0, 1}, {1024, 24292, 500, 0, 1},
        {2048, 2048, 2048, 0, 0}};
    char cpu[256];
    size_t s;
    int threads;
    cpu_model(cpu, sizeof cpu);
    printf("# GEMM, %s, CPU: %s, OpenMP max threads %d\n", IS_D ? "double" : "float", cpu,
           omp_get_max_threads());
    printf("| shape (m x n x k, op) | threads | ours GFLOP/s | OpenBLAS GFLOP/s | ours/OpenBLAS | max |diff| |\n");
    printf("|---|---|---|---|---|---|\n");
    for (s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        int ta = (int)shapes[s][3], tb = (int)shapes[s][4];
        real *A = (real *)malloc(m * k * sizeof(real)), *B = (real *)malloc(k * n * sizeof(real));
        real *C1 = (real *)malloc(m * n * sizeof(real)), *C2 = (real *)malloc(m * n * sizeof(real));
        fill(A, m * k, 1);
        fill(B, k * n, 2);
        for (threads = 1; threads <= 2; ++threads) {
            double t_ours, t_blas, flops = 2.0 * (double)m * (double)n * (double)k, diff = 0;
            size_t i;
            omp_set_num_threads(threads);
            openblas_set_num_threads(threads);
            t_ours = time_gemm(0, ta, tb, m, n, k, A, B, C1);
            t_blas = time_gemm(1, ta, tb, m, n, k, A, B, C2);
            for (i = 0; i < m * n; ++i) {
                double d = fabs((double)C1[i] - (double)C2[i]);
                if (d > diff) diff = d;
            }
            printf("| %zu x %zu x %zu %s%s | %d | %.1f | %.1f | %.2f | %.1e |\n", m, n, k,
                   ta ? "T" : "N", tb ? "T" : "N", threads, flops / t_ours * 1e-9,
                   flops / t_blas * 1e-9, t_blas / t_ours, diff);
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
        double t_ours = 1e30, t_lap = 1e30, t0;
        int rep;
        fill(A, n * d, 3);
        for (rep = 0; rep < 3; ++rep) {
            memcpy(Q, A, n * d * sizeof(real));
            t0 = now();
            ro_sgns_qr_builtin(n, d, Q, d, R, d, NULL, NULL);
            if (now() - t0 < t_ours) t_ours = now() - t0;
            memcpy(Q, A, n * d * sizeof(real));
            t0 = now();
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
            if (now() - t0 < t_lap) t_lap = now() - t0;
        }
        printf("\n| kernel (%s, 2 threads) | ours s | LAPACKE s | ours/LAPACKE time |\n",
               IS_D ? "double" : "float");
        printf("|---|---|---|---|\n");
        printf("| QR 24292 x 500 (R and explicit Q) | %.3f | %.3f | %.2f |\n", t_ours, t_lap,
               t_ours / t_lap);
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
            t0 = now();
            ro_sgns_svd_builtin(m, m, S, m, U, m, sv, V, m, NULL, NULL);
            t_ours = now() - t0;
            memcpy(W, S, m * m * sizeof(real));
            t0 = now();
            if (IS_D)
                LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', (int)m, (int)m, (double *)(void *)W,
                               (int)m, (double *)(void *)sv2, (double *)(void *)U, (int)m,
                               (double *)(void *)V, (int)m);
            else
                LAPACKE_sgesdd(LAPACK_ROW_MAJOR, 'S', (int)m, (int)m, (float *)(void *)W, (int)m,
                               (float *)(void *)sv2, (float *)(void *)U, (int)m,
                               (float *)(void *)V, (int)m);
            t_lap = now() - t0;
            for (i = 0; i < m; ++i)
                if (fabs((double)sv[i] - (double)sv2[i]) > diff) diff = fabs((double)sv[i] - (double)sv2[i]);
            printf("| SVD 500 x 500 (U, s, V; max |s - s_lapack| = %.1e) | %.3f | %.3f | %.2f |\n",
                   diff, t_ours, t_lap, t_ours / t_lap);
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
