/* bench/svd.c - the truncated SVD of the bundled corpus's SPPMI matrix:
   seconds, peak memory and accuracy side by side. The accuracy reference is
   a converged run of the same method (many more power iterations and a
   wide oversampling), checked by the residuals |A v - s u| of its triplets.
   usage: bench_svd COUNTS d [q or q/p ...]   (build/corpus_w5_m200.counts by default;
   no q: the library's defaults) */
#define _POSIX_C_SOURCE 199309L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef ro_sgns_real real;

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* max over the first t triplets of |A v_j - s_j u_j| / s_1 */
static double residual(const ro_sgns_csr *A, const ro_sgns_factors *f, size_t t)
{
    size_t n = A->rows, d = f->d, i, j;
    real *AV = (real *)malloc(n * d * sizeof(real));
    double worst = 0;
    ro_sgns_csr_mm(A, d, f->V, d, AV, d, NULL);
    for (j = 0; j < t && j < d; ++j) {
        double r = 0;
        for (i = 0; i < n; ++i) {
            double e = AV[i * d + j] - (double)f->S[j * d + j] * f->U[i * d + j];
            r += e * e;
        }
        r = sqrt(r) / f->S[0];
        if (r > worst) worst = r;
    }
    free(AV);
    return worst;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/corpus_w5_m200.counts";
    size_t d = argc > 2 ? (size_t)atoi(argv[2]) : 100, j;
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *ref = NULL;
    ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
    ro_sgns_error err;
    double t0;
    int a;
    if (ro_sgns_counts_load_path(path, &c, NULL, &err) != RO_SGNS_OK ||
        ro_sgns_sppmi(c, 5, 1, &A, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("# truncated SVD of SPPMI (k = 5): %zu x %zu, nnz %llu, d = %zu, %s, %d threads\n",
           A->rows, A->cols, (unsigned long long)A->nnz, d, sizeof(real) == 4 ? "float" : "double",
           omp_get_max_threads());
    /* the reference: q = 10, p = d, cached in build/ (it takes minutes) */
    {
        char ref_path[256];
        snprintf(ref_path, sizeof ref_path, "build/svd_reference_d%zu.fx", d);
        if (ro_sgns_factors_load_path(ref_path, &ref, NULL, NULL) != RO_SGNS_OK ||
            ref->n != A->rows || ref->d != d) {
            ro_sgns_factors_free(ref);
            ref = NULL;
            cfg.power_iters = 10;
            cfg.oversample = d;
            t0 = omp_get_wtime();
            if (ro_sgns_tsvd(A, d, &cfg, &ref, NULL, &err) != RO_SGNS_OK) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            printf("reference (q = 10, p = %zu): %.1f s\n", d, omp_get_wtime() - t0);
            ro_sgns_factors_save_path(ref, ref_path, NULL);
        }
        printf("reference (q = 10, p = %zu): residual of the top %zu triplets %.2e, of all %zu "
               "%.2e; s_1 = %.4g, s_%zu = %.4g\n", d, d / 2, residual(A, ref, d / 2), d,
               residual(A, ref, d), (double)ref->S[0], d, (double)ref->S[d * d - 1]);
        fflush(stdout);
    }
    printf("| q | p | seconds | max rel. error, all d | top half | residual top half | peak RSS MB |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (a = 3; a < argc || (argc <= 3 && a < 4); ++a) {
        ro_sgns_factors *f = NULL;
        double e_all = 0, e_top = 0, secs;
        const char *slash = argc > 3 ? strchr(argv[a], '/') : NULL;
        cfg = ro_sgns_tsvd_config_default(); /* "q" or "q/p"; none: the defaults */
        if (argc > 3) cfg.power_iters = atoi(argv[a]);
        if (slash) cfg.oversample = (size_t)atoi(slash + 1);
        t0 = omp_get_wtime();
        if (ro_sgns_tsvd(A, d, &cfg, &f, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        secs = omp_get_wtime() - t0;
        for (j = 0; j < d; ++j) {
            double e = fabs((double)f->S[j * d + j] - ref->S[j * d + j]) / ref->S[j * d + j];
            if (e > e_all) e_all = e;
            if (j < d / 2 && e > e_top) e_top = e;
        }
        printf("| %d | %zu | %.1f | %.2e | %.2e | %.2e | %.0f |\n", cfg.power_iters,
               cfg.oversample, secs, e_all, e_top, residual(A, f, d / 2), peak_mb());
        fflush(stdout);
        ro_sgns_factors_free(f);
    }
    ro_sgns_factors_free(ref);
    ro_sgns_csr_free(A);
    ro_sgns_counts_free(c);
    return 0;
}
