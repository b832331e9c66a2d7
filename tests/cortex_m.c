/* cortex_m.c - the step-alone configuration (RO_SGNS_STEP_ONLY) as a
   microcontroller program: counts filled in memory (a static CSR, no
   corpus, no files), the SPPMI start (Part I's dense SVD: the block
   Krylov one is not in this build), a few RO steps and the word vectors.
   It prints F after each step and the vectors, one number a line, "%.9g";
   tests/cortex_m.sh runs it built for x86-64 and for 32-bit Arm Linux (the
   same configuration and floating-point unit, under qemu-arm) and compares
   the numbers. mk/cross.mk's cortex-m target links it for a Cortex-M4
   (arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard, newlib) and
   reports its size; there it prints through newlib's stubs (nosys).
   Memory: about 20 KB of heap for N = 32 words at rank 4. */
#define RO_SGNS_STEP_ONLY
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <stdio.h>

#include "sppmi_csr.h"

#define N 32
#define D 4
#define STEPS 5

/* Counts of a stand-in corpus, symmetric: words i and j meet more often when
   close in index and when frequent (low index); every fifth pair never. */
static uint64_t row_ptr[N + 1];
static uint32_t col[N * N];
static float val[N * N];

static void fill_counts(void)
{
    size_t i, j;
    uint64_t e = 0;
    for (i = 0; i < N; ++i) {
        for (j = 0; j < N; ++j) {
            size_t lo = i < j ? i : j, hi = i < j ? j : i;
            if (i == j || (lo * 7 + hi * 3) % 5 == 0) continue;
            col[e] = (uint32_t)j;
            val[e] = (float)(1 + (200 / (1 + lo + hi)) % 37 + (lo * hi) % 3);
            ++e;
        }
        row_ptr[i + 1] = e;
    }
}

int main(void)
{
    static ro_sgns_real W[N * D];
    const double k = 5;
    ro_sgns_problem *p = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_error err;
    double F;
    size_t i, j;
    int s, bad = 1;

    fill_counts();
    cfg.iterations = 1;
    if (ro_sgns_problem_create_csr(N, N, row_ptr, col, val, k, 1.0, &p, NULL, &err) ||
        sppmi_csr(N, row_ptr, col, val, k, &A, &err) || ro_sgns_tsvd_naive(A, D, &x, NULL, &err) ||
        ro_sgns_objective(p, x, &F, &err))
        goto done;
    printf("%.9g\n", F);
    for (s = 0; s < STEPS; ++s) {
        if (ro_sgns_ro_train(p, x, &cfg, &err) || ro_sgns_objective(p, x, &F, &err)) goto done;
        printf("%.9g\n", F);
    }
    if (ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_W, W, D, NULL, &err)) goto done;
    /* each column's sign made definite (its largest entry positive): a
       singular vector's sign is the SVD's choice */
    for (j = 0; j < D; ++j) {
        size_t at = 0;
        for (i = 1; i < N; ++i)
            if (RO_SGNS_FABS(W[i * D + j]) > RO_SGNS_FABS(W[at * D + j])) at = i;
        if (W[at * D + j] < 0)
            for (i = 0; i < N; ++i) W[i * D + j] = -W[i * D + j];
    }
    for (i = 0; i < N * D; ++i) printf("%.9g\n", (double)W[i]);
    bad = 0;
done:
    if (bad) printf("error: %s\n", err.message);
    ro_sgns_factors_free(x);
    ro_sgns_csr_free(A);
    ro_sgns_problem_free(p);
    return bad;
}
