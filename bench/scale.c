/* bench/scale.c - the whole pipeline at one vocabulary size: the counts
   (loaded), SVD-SPPMI at rank d, K RO-SGNS steps; the seconds of every
   stage, the peak resident memory after each, and the counts' size, so
   bench/scale.sh can set runs at 22k and 81k words side by side and check
   the step against docs/SCALING.md's n m d cost model.
   usage: bench_scale COUNTS d [steps]
   BENCH_RO_FUSE=0 in the environment: two sweeps a step (fuse = 0). */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

static double g_step[64];
static int g_steps;

static int on_step(const ro_sgns_ro_progress *p, const ro_sgns_factors *x, void *user)
{
    (void)x;
    (void)user;
    if (g_steps < 64) g_step[g_steps++] = p->seconds;
    fprintf(stderr, "  step %llu: F %.4f x 1e9, %.1f s, %d halvings\n",
            (unsigned long long)p->iteration, p->objective * 1e-9, p->seconds, p->halvings);
    return 0;
}

int main(int argc, char **argv)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_problem *p = NULL;
    ro_sgns_ro_config rc = ro_sgns_ro_config_default();
    ro_sgns_error err;
    size_t d;
    double t0, t_load, t_sppmi, t_svd, t_prob, m_load, m_svd, m_ro, F0 = 0, mean = 0;
    int i;
    if (argc < 3) {
        fprintf(stderr, "usage: %s COUNTS d [steps]\n", argv[0]);
        return 2;
    }
    d = (size_t)atol(argv[2]);
    rc.iterations = argc > 3 ? atoi(argv[3]) : 2;
    rc.callback = on_step;
    if (getenv("BENCH_RO_FUSE")) rc.fuse = atoi(getenv("BENCH_RO_FUSE"));
    fprintf(stderr, "fuse = %d\n", rc.fuse); /* stdout is the one line bench/scale.sh reads */
    t0 = omp_get_wtime();
    if (ro_sgns_counts_load_path(argv[1], &c, NULL, &err) != RO_SGNS_OK) goto fail;
    t_load = omp_get_wtime() - t0;
    m_load = peak_mib();
    t0 = omp_get_wtime();
    if (ro_sgns_sppmi(c, 5, 1, &A, NULL, &err) != RO_SGNS_OK) goto fail;
    t_sppmi = omp_get_wtime() - t0;
    t0 = omp_get_wtime();
    if (ro_sgns_tsvd(A, d, NULL, &x, NULL, &err) != RO_SGNS_OK) goto fail;
    t_svd = omp_get_wtime() - t0;
    m_svd = peak_mib();
    ro_sgns_csr_free(A);
    A = NULL;
    t0 = omp_get_wtime();
    if (ro_sgns_problem_create(c, 5, 1.0, &p, NULL, &err) != RO_SGNS_OK) goto fail;
    t_prob = omp_get_wtime() - t0;
    if (ro_sgns_objective(p, x, &F0, &err) != RO_SGNS_OK) goto fail;
    if (ro_sgns_ro_train(p, x, &rc, &err) != RO_SGNS_OK) goto fail;
    m_ro = peak_mib();
    for (i = 0; i < g_steps; ++i) mean += g_step[i] / g_steps;
    /* one line for bench/scale.sh: n nnz d threads load sppmi svd problem
       step_mean peak_load peak_svd peak_ro (seconds, MiB) */
    printf("%lu %llu %lu %d %.2f %.2f %.2f %.2f %.2f %.0f %.0f %.0f\n", (unsigned long)c->n,
           (unsigned long long)c->nnz, (unsigned long)d, omp_get_max_threads(), t_load, t_sppmi,
           t_svd, t_prob, mean, m_load, m_svd, m_ro);
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    ro_sgns_counts_free(c);
    return 0;
fail:
    fprintf(stderr, "bench_scale: %s\n", err.message);
    ro_sgns_csr_free(A);
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    ro_sgns_counts_free(c);
    return 1;
}
