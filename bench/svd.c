/* bench/svd.c - the truncated SVD of the bundled corpus's SPPMI matrix:
   seconds, peak memory and accuracy side by side.
   usage: bench_svd COUNTS d [method ...]
            method: k          block Krylov, the library's defaults
                    k:p/b      block Krylov, oversample p, block b
                    s:q/p      subspace iteration, q power iterations, oversample p
                    (none: k)
          bench_svd COUNTS export      writes build/sppmi.bin for bench/svd_arpack.py
   The accuracy reference: build/sppmi_arpack_d{d}.txt, the singular values
   by ARPACK in double (bench/svd_arpack.py, needs python3-scipy); without
   it, a converged run of subspace iteration (q = 10, p = d), cached in
   build/, whose tail is less converged than its top. */
#define _POSIX_C_SOURCE 200809L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "bench_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

typedef ro_sgns_real real;

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

/* the SPPMI as raw little-endian-on-this-machine arrays: n, nnz (u64),
   row_ptr (u64), col (u32), val (f32) */
static int export_csr(const ro_sgns_csr *A)
{
    FILE *f = fopen("build/sppmi.bin", "wb");
    uint64_t n = A->rows, k;
    if (!f) return 1;
    fwrite(&n, 8, 1, f);
    fwrite(&A->nnz, 8, 1, f);
    fwrite(A->row_ptr, 8, A->rows + 1, f);
    fwrite(A->col, 4, (size_t)A->nnz, f);
    for (k = 0; k < A->nnz; ++k) {
        float v = (float)A->val[k];
        fwrite(&v, 4, 1, f);
    }
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "build/corpus_w5_m200.counts";
    size_t d = argc > 2 ? (size_t)atoi(argv[2]) : 100, j;
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    double *ref = NULL;
    const char *ref_name = "ARPACK";
    ro_sgns_error err;
    double t0;
    int a;
    if (ro_sgns_counts_load_path(path, &c, NULL, &err) != RO_SGNS_OK ||
        ro_sgns_sppmi(c, 5, 1, &A, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    ro_sgns_counts_free(c);
    if (argc > 2 && strcmp(argv[2], "export") == 0) return export_csr(A);
    printf("# truncated SVD of SPPMI (k = 5): %zu x %zu, nnz %llu, d = %zu, %s, %d threads\n\n",
           A->rows, A->cols, (unsigned long long)A->nnz, d, sizeof(real) == 4 ? "float" : "double",
           omp_get_max_threads());
    bench_print_setup(stdout, omp_get_max_threads());
    ref = (double *)malloc(d * sizeof(double));
    {
        char ref_path[256];
        FILE *rf;
        snprintf(ref_path, sizeof ref_path, "build/sppmi_arpack_d%zu.txt", d);
        rf = fopen(ref_path, "r");
        for (j = 0; rf && j < d; ++j)
            if (fscanf(rf, "%lf", &ref[j]) != 1) break;
        if (rf) fclose(rf);
        if (!rf || j < d) { /* the self-reference: q = 10, p = d, cached (it takes minutes) */
            ro_sgns_factors *rx = NULL;
            ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
            ref_name = "subspace q = 10, p = d";
            snprintf(ref_path, sizeof ref_path, "build/svd_reference_d%zu.fx", d);
            if (ro_sgns_factors_load_path(ref_path, &rx, NULL, NULL) != RO_SGNS_OK ||
                rx->n != A->rows || rx->d != d) {
                ro_sgns_factors_free(rx);
                rx = NULL;
                cfg.method = RO_SGNS_TSVD_SUBSPACE;
                cfg.power_iters = 10;
                cfg.oversample = d;
                if (ro_sgns_tsvd(A, d, &cfg, &rx, NULL, &err) != RO_SGNS_OK) {
                    fprintf(stderr, "%s\n", err.message);
                    return 1;
                }
                ro_sgns_factors_save_path(rx, ref_path, NULL);
            }
            for (j = 0; j < d; ++j) ref[j] = rx->S[j * d + j];
            ro_sgns_factors_free(rx);
        }
        printf("reference: %s; s_1 = %.6g, s_%zu = %.6g, s_%zu = %.6g\n", ref_name, ref[0], d / 2,
               ref[d / 2 - (d > 1)], d, ref[d - 1]);
        fflush(stdout);
    }
    printf("| method | settings | seconds | max rel. error, all d | top half | residual top half / s_1 | peak RSS MB |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (a = 3; a < argc || (argc <= 3 && a < 4); ++a) {
        ro_sgns_factors *f = NULL;
        ro_sgns_tsvd_config cfg = ro_sgns_tsvd_config_default();
        const char *spec = a < argc ? argv[a] : "k";
        double e_all = 0, e_top = 0, secs;
        char settings[64];
        if (spec[0] == 's') {
            cfg.method = RO_SGNS_TSVD_SUBSPACE;
            if (spec[1] == ':') sscanf(spec + 2, "%d/%zu", &cfg.power_iters, &cfg.oversample);
        } else if (spec[0] == 'k' && spec[1] == ':') {
            sscanf(spec + 2, "%zu/%zu", &cfg.oversample, &cfg.block);
        }
        t0 = omp_get_wtime();
        if (ro_sgns_tsvd(A, d, &cfg, &f, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        secs = omp_get_wtime() - t0;
        for (j = 0; j < d; ++j) {
            double e = fabs((double)f->S[j * d + j] - ref[j]) / ref[j];
            if (e > e_all) e_all = e;
            if (j < d / 2 && e > e_top) e_top = e;
        }
        if (cfg.method == RO_SGNS_TSVD_SUBSPACE)
            snprintf(settings, sizeof settings, "q = %d, p = %zu%s", cfg.power_iters,
                     cfg.oversample ? cfg.oversample : (d / 2 > 50 ? d / 2 : 50),
                     cfg.oversample ? "" : " (auto)");
        else
            snprintf(settings, sizeof settings, "p = %zu%s, b = %s", cfg.oversample ? cfg.oversample : 2 * d,
                     cfg.oversample ? "" : " (auto)", cfg.block ? spec + 2 + strcspn(spec + 2, "/") + 1 : "auto");
        printf("| %s | %s | %.1f | %.2e | %.2e | %.2e | %.0f |\n",
               cfg.method == RO_SGNS_TSVD_SUBSPACE ? "subspace" : "Krylov", settings, secs, e_all,
               e_top, residual(A, f, d / 2), bench_peak_mib());
        fflush(stdout);
        ro_sgns_factors_free(f);
    }
    free(ref);
    ro_sgns_csr_free(A);
    return 0;
}
