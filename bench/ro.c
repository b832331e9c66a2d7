/* bench/ro.c - the RO-SGNS step at the paper's scale on the bundled corpus.
   Counts (window 5, min_count 200 -> ~22k words, cached in build/), the
   SVD-SPPMI start, then K steps; per step F, seconds; and the floor: the same
   four n x m x d products by OpenBLAS in the same run (its best kernel for
   this CPU: bench/bench_util.h), and by our GEMM.
   usage: bench_ro [d] [iterations] [plain|scaled] [step] [safeguard 0|1] [keep 0..1]
                   [block_rows (0: the library's)]
   keep 1: the same steps again from the same start with the direction kept
   between sweeps (keep_direction_bytes = n m reals: 3 products a step);
   keep 0 < f < 1: its first f n rows kept (4 - f products a step),
   both rows in one table against the same floor; keep -1: the same steps
   again with fuse = 0 (two sweeps a step, 4 products; the default fuses:
   3 products a step).
   BENCH_FLOOR_ROUNDS=R in the environment: the floor is the best of R
   rounds (default 3). BENCH_FLOOR_PAIRED=1: instead, one round of the
   floor right after each step (from the progress callback, outside the
   step's clock), and each step's ratio to the floor beside it: on a host
   whose speed drifts between minutes (a VM with busy neighbours), a step
   and a floor measured a minute apart disagree by more than the changes
   being measured. BENCH_RO_OVERSAMPLE=p: the SVD-SPPMI start with
   oversampling p instead of the library's default (a cheaper, rougher
   start for short runs: the steps' cost does not depend on it).
   BENCH_FLOOR_OURS_ONCE=1 (with BENCH_FLOOR_PAIRED): our GEMM's floor only
   after the first step, OpenBLAS's after each (the ratios are to
   OpenBLAS's): a sixth less time a run (bench/cpu.sh's seven step
   runs on Zen 5: 269 -> 221 s), for a machine lent by the minute; "our
   floor" is then one round, not the best of one a step.
   The counts come from build/corpus_w5_m200.counts, made from
   build/corpus.txt on the first run (make bench-corpus does both);
   BENCH_COUNTS=path reads (or makes and saves) another counts file
   instead, e.g. a prefix of the corpus counted by bench/cpu.sh. */
#define _POSIX_C_SOURCE 200809L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "bench_util.h"

#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ro_sgns_real real;

static double step_seconds[1000], first_steps[1000]; /* first_steps: the first run's */
static int n_steps;

/* BENCH_FLOOR_PAIRED: the floor measured after each step */
static double paired_blas[1000], paired_ours[1000];
static size_t paired_n, paired_d;
static int paired, paired_mode; /* paired: the callback measures now; paired_mode: asked for */
static int ours_once;           /* BENCH_FLOOR_OURS_ONCE: our floor after the first step only */
static double floor_seconds(size_t n, size_t d, int ours);

static double fastest_step(void)
{
    double fastest = 1e30;
    int i;
    for (i = 0; i < n_steps; ++i)
        if (step_seconds[i] < fastest) fastest = step_seconds[i];
    return fastest;
}

static int report(const ro_sgns_ro_progress *p, const ro_sgns_factors *x, void *user)
{
    (void)x;
    (void)user;
    if (n_steps < 1000) step_seconds[n_steps++] = p->seconds;
    printf("| %llu | %.4f | %.3g | %d | %.3g | %.2f |", (unsigned long long)p->iteration,
           p->objective * 1e-9, p->step, p->halvings, p->step_norm, p->seconds);
    if (paired && n_steps <= 1000) {
        int threads = openblas_get_num_threads();
        openblas_set_num_threads(1); /* as in the floor after the steps */
        paired_blas[n_steps - 1] = floor_seconds(paired_n, paired_d, 0);
        paired_ours[n_steps - 1] =
            ours_once && n_steps > 1 ? 1e30 : floor_seconds(paired_n, paired_d, 1);
        openblas_set_num_threads(threads);
        printf(" floor %.2f s", paired_blas[n_steps - 1]);
        if (paired_ours[n_steps - 1] < 1e30) printf(" (ours %.2f s)", paired_ours[n_steps - 1]);
        printf(": step / floor %.2f |", p->seconds / paired_blas[n_steps - 1]);
    }
    printf("\n");
    fflush(stdout);
    return 0;
}

/* The floor: the four products of one step (X blocks and D V, then X^T
   blocks and D^T U) as plain GEMMs over the same row blocks, with no
   elementwise work. Two threads, each on its own row blocks with a
   single-threaded OpenBLAS call (OpenBLAS's own threading inside each call
   was measured too: never faster at these shapes). ours = 1 does the same
   with ro_sgns_gemm, so "ours - ours_floor" is the time spent outside the
   products. */
static double floor_seconds(size_t n, size_t d, int ours)
{
    size_t br = 512, i;
    real *L = (real *)malloc(n * d * sizeof(real)), *V = (real *)malloc(n * d * sizeof(real));
    real *T = (real *)malloc(2 * br * n * sizeof(real)), *Y = (real *)malloc(n * d * sizeof(real));
    double t0, best = 1e30;
    int rep;
    for (i = 0; i < n * d; ++i) L[i] = V[i] = (real)((double)(i % 7) - 3) * 0.01f;
    for (rep = 0; rep < 1; ++rep) {
        int pass;
        t0 = omp_get_wtime();
        for (pass = 0; pass < 2; ++pass) {
            long blk, nb = (long)((n + br - 1) / br);
#pragma omp parallel for schedule(dynamic, 1) num_threads(2)
            for (blk = 0; blk < nb; ++blk) {
                size_t r0 = (size_t)blk * br, b = n - r0 < br ? n - r0 : br;
                real *Tt = T + (size_t)omp_get_thread_num() * br * n;
                if (ours) {
                    ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, b, n, d, 1, L + r0 * d, d, V, d,
                                 0, Tt, n, NULL, NULL);
                    ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, b, d, n, 1, Tt, n, V, d, 0,
                                 Y + r0 * d, d, NULL, NULL);
                } else if (sizeof(real) == 4) {
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)b, (int)n, (int)d, 1,
                                (float *)(void *)(L + r0 * d), (int)d, (float *)(void *)V, (int)d,
                                0, (float *)(void *)Tt, (int)n);
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)d, (int)n,
                                1, (float *)(void *)Tt, (int)n, (float *)(void *)V, (int)d, 0,
                                (float *)(void *)(Y + r0 * d), (int)d);
                } else {
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)b, (int)n, (int)d, 1,
                                (double *)(void *)(L + r0 * d), (int)d, (double *)(void *)V,
                                (int)d, 0, (double *)(void *)Tt, (int)n);
                    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)d, (int)n,
                                1, (double *)(void *)Tt, (int)n, (double *)(void *)V, (int)d, 0,
                                (double *)(void *)(Y + r0 * d), (int)d);
                }
            }
        }
        if (omp_get_wtime() - t0 < best) best = omp_get_wtime() - t0;
    }
    free(L);
    free(V);
    free(T);
    free(Y);
    return best;
}

int main(int argc, char **argv)
{
    size_t d = argc > 1 ? (size_t)atoi(argv[1]) : 100;
    int iters = argc > 2 ? atoi(argv[2]) : 5;
    const char *dir = argc > 3 ? argv[3] : "scaled";
    double step = argc > 4 ? atof(argv[4]) : 0;
    const char *counts_path =
        getenv("BENCH_COUNTS") ? getenv("BENCH_COUNTS") : "build/corpus_w5_m200.counts";
    ro_sgns_counts *c = NULL;
    ro_sgns_csr *A = NULL;
    ro_sgns_factors *x = NULL, *x0 = NULL;
    double keep = argc > 6 ? atof(argv[6]) : 0;
    size_t keep_rows;
    double fastest, fastest_keep = 0, rss_keep = 0, peak_plain;
    int steps;
    ro_sgns_problem *p = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_tsvd_config sc = ro_sgns_tsvd_config_default();
    ro_sgns_error err;
    double t0, F0, t_floor;
    bench_openblas_anchor(argv);
    if (ro_sgns_counts_load_path(counts_path, &c, NULL, &err) != RO_SGNS_OK) {
        ro_sgns_count_config cc = ro_sgns_count_config_default();
        cc.window = 5;
        cc.min_count = 200;
        t0 = omp_get_wtime();
        if (ro_sgns_count_path("build/corpus.txt", &cc, &c, NULL, &err) != RO_SGNS_OK) {
            fprintf(stderr, "count: %s (run make corpus)\n", err.message);
            return 1;
        }
        printf("counted in %.1f s\n", omp_get_wtime() - t0);
        ro_sgns_counts_save_path(c, counts_path, &err);
    }
    printf("# RO-SGNS bench: %s, n = %zu, nnz = %llu, |D| = %.0f, d = %zu, threads %d, %s\n",
           sizeof(real) == 4 ? "float" : "double", c->n, (unsigned long long)c->nnz, c->total,
           d, omp_get_max_threads(), dir);
    printf("counts: %s\n", counts_path);
    bench_print_setup(stdout, omp_get_max_threads());
    /* the start: the library's truncated SVD as configured by default (the
       RO steps are what is timed) */
    if (getenv("BENCH_RO_OVERSAMPLE")) {
        sc.oversample = (size_t)atoi(getenv("BENCH_RO_OVERSAMPLE"));
        printf("SVD-SPPMI start with oversampling %zu (BENCH_RO_OVERSAMPLE)\n", sc.oversample);
    }
    t0 = omp_get_wtime();
    if (ro_sgns_sppmi(c, 5, 1, &A, NULL, &err) != RO_SGNS_OK ||
        ro_sgns_tsvd(A, d, &sc, &x, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "svd: %s\n", err.message);
        return 1;
    }
    printf("SVD-SPPMI: %.1f s (SPPMI nnz %llu)\n", omp_get_wtime() - t0, (unsigned long long)A->nnz);
    ro_sgns_csr_free(A);
    ro_sgns_problem_create(c, 5, 1.0, &p, NULL, &err);
    t0 = omp_get_wtime();
    ro_sgns_objective(p, x, &F0, &err);
    printf("F(SVD-SPPMI) = %.4f e9 (objective pass %.2f s)\n", F0 * 1e-9, omp_get_wtime() - t0);
    cfg.iterations = iters;
    cfg.direction = strcmp(dir, "plain") == 0 ? RO_SGNS_DIRECTION_PLAIN : RO_SGNS_DIRECTION_SCALED;
    if (argc > 5) cfg.safeguard = atoi(argv[5]);
    if (argc > 7) cfg.block_rows = (size_t)atoi(argv[7]);
    if (step > 0) cfg.step = step;
    else if (cfg.direction == RO_SGNS_DIRECTION_PLAIN) cfg.step = 5e-5;
    cfg.callback = report;
    paired = paired_mode = getenv("BENCH_FLOOR_PAIRED") && atoi(getenv("BENCH_FLOOR_PAIRED")) > 0;
    ours_once = getenv("BENCH_FLOOR_OURS_ONCE") && atoi(getenv("BENCH_FLOOR_OURS_ONCE")) > 0;
    paired_n = c->n;
    paired_d = d;
    if (keep > 1) keep = 1;
    keep_rows = keep > 0 ? (size_t)(keep * (double)c->n) : 0;
    printf("fuse = %d (the step's D^T U' from the sweep at the new point)\n", cfg.fuse);
    if (keep != 0) { /* the start, for the second run */
        ro_sgns_factors_create(x->n, x->m, d, &x0, NULL, &err);
        memcpy(x0->U, x->U, x->n * d * sizeof(real));
        memcpy(x0->V, x->V, x->m * d * sizeof(real));
        memcpy(x0->S, x->S, d * d * sizeof(real));
    }
    printf("| iter | F x 1e-9 | step | halvings | |dX| | seconds |\n|---|---|---|---|---|---|\n");
    t0 = omp_get_wtime();
    if (ro_sgns_ro_train(p, x, &cfg, &err) != RO_SGNS_OK) fprintf(stderr, "ro: %s\n", err.message);
    peak_plain = bench_peak_mib();
    printf("RO: %.1f s for %llu steps; peak RSS %.0f MB\n", omp_get_wtime() - t0,
           (unsigned long long)x->iteration, peak_plain);
    fastest = fastest_step();
    steps = n_steps;
    memcpy(first_steps, step_seconds, sizeof first_steps); /* a second run writes over them */
    if (keep != 0) {
        n_steps = 0;
        paired = 0; /* the kept steps against the default steps' floors */
        cfg.keep_direction_bytes = keep_rows * c->n * sizeof(real);
        if (keep < 0) {
            cfg.fuse = 0;
            printf("\nthe same from the same start, two sweeps a step (fuse = 0):\n");
        } else
            printf("\nthe same from the same start, the direction kept (%zu of its %zu rows, "
                   "%.0f MB):\n", keep_rows, (size_t)c->n,
                   (double)keep_rows * c->n * sizeof(real) / 1048576.0);
        printf("| iter | F x 1e-9 | step | halvings | |dX| | seconds |\n|---|---|---|---|---|---|\n");
        t0 = omp_get_wtime();
        if (ro_sgns_ro_train(p, x0, &cfg, &err) != RO_SGNS_OK)
            fprintf(stderr, "ro: %s\n", err.message);
        rss_keep = bench_peak_mib();
        printf("RO, %s: %.1f s for %llu steps; peak RSS %.0f MB\n",
               keep < 0 ? "two sweeps a step" : "direction kept",
               omp_get_wtime() - t0, (unsigned long long)x0->iteration, rss_keep);
        fastest_keep = fastest_step();
    }
    openblas_set_num_threads(1); /* one GEMM per thread, two threads over blocks */
    {
        double t_ours;
        int i;
        /* best of BENCH_FLOOR_ROUNDS (3), OpenBLAS and ours alternating */
        const char *fr = getenv("BENCH_FLOOR_ROUNDS");
        int rounds = fr && atoi(fr) > 0 ? atoi(fr) : 3;
        t_floor = t_ours = 1e30;
        if (paired_mode && steps > 0) {
            double ratio[1000], tmp;
            int j;
            rounds = steps < 1000 ? steps : 1000;
            for (i = 0; i < rounds; ++i) {
                if (paired_blas[i] < t_floor) t_floor = paired_blas[i];
                if (paired_ours[i] < t_ours) t_ours = paired_ours[i];
                ratio[i] = first_steps[i] / paired_blas[i];
                for (j = i; j > 0 && ratio[j - 1] > ratio[j]; --j) /* insertion sort */
                    tmp = ratio[j], ratio[j] = ratio[j - 1], ratio[j - 1] = tmp;
            }
            printf("paired: step / the floor measured right after it, over %d steps: median "
                   "%.2f, lowest %.2f, highest %.2f\n", rounds,
                   rounds % 2 ? ratio[rounds / 2] : 0.5 * (ratio[rounds / 2 - 1] + ratio[rounds / 2]),
                   ratio[0], ratio[rounds - 1]);
        } else
            for (i = 0; i < rounds; ++i) {
                double a = floor_seconds(c->n, d, 0), b = floor_seconds(c->n, d, 1);
                if (a < t_floor) t_floor = a;
                if (b < t_ours) t_ours = b;
            }
        printf("floor (best of %d%s), the step's 4 products of %zu x %zu x %zu over 512-row blocks, 2 threads: "
               "OpenBLAS %.2f s, ours %.2f s\n", rounds,
               paired_mode && steps > 0
                   ? (ours_once ? ", one after each step; ours after the first only" : ", one after each step")
                   : "",
               c->n, c->n, d, t_floor, t_ours);
        if (steps > 0) {
            printf("fastest step %.2f s (no halving steps counted separately): ours/floor(OpenBLAS) "
                   "%.2f, outside the products %.0f%%\n", fastest, fastest / t_floor,
                   100.0 * (fastest - t_ours) / fastest);
            printf("\n| d | real | threads | fastest step s | floor, OpenBLAS %s s | floor, our GEMM s | "
                   "step / OpenBLAS floor | our floor / OpenBLAS floor | outside the products | load |\n",
                   openblas_get_corename());
            printf("|---|---|---|---|---|---|---|---|---|---|\n");
            printf("| %zu | %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f%% | %.2f |\n", d,
                   sizeof(real) == 4 ? "float" : "double", omp_get_max_threads(), fastest,
                   t_floor, t_ours, fastest / t_floor, t_ours / t_floor,
                   100.0 * (fastest - t_ours) / fastest, bench_load());
            if (keep > 0)
                printf("| %zu | %s, direction kept (%.0f%% of rows) | %d | %.2f | %.2f | %.2f | "
                       "%.2f | %.2f | - | %.2f |\n", d, sizeof(real) == 4 ? "float" : "double",
                       100.0 * (double)keep_rows / (double)c->n, omp_get_max_threads(),
                       fastest_keep, t_floor, t_ours, fastest_keep / t_floor, t_ours / t_floor,
                       bench_load());
            if (keep < 0)
                printf("| %zu | %s, two sweeps a step (fuse = 0) | %d | %.2f | %.2f | %.2f | "
                       "%.2f | %.2f | - | %.2f |\n", d, sizeof(real) == 4 ? "float" : "double",
                       omp_get_max_threads(), fastest_keep, t_floor, t_ours,
                       fastest_keep / t_floor, t_ours / t_floor, bench_load());
            if (keep != 0)
                printf("peak RSS: %.0f MB after the default steps, %.0f MB after the second "
                       "run's\n", peak_plain, rss_keep);
        }
    }
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    ro_sgns_factors_free(x0);
    ro_sgns_counts_free(c);
    return 0;
}
