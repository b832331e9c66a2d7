/* bench/elementwise.c - the RO step's elementwise work alone, per entry.
   ro_sgns__row_exp and ro_sgns__dense_rest on one 288 x 512 tile (the sweep's default tile), with
   the objective's terms (the sweep that gives F) and without (the other
   sweep), one thread, best of 5 repetitions of 200 tiles; beside it the
   same formulas written plainly with libm's exp and log1p, scalar, as the
   reference. Inputs: x spread over [-10, 10], B_wc factors of the corpus's
   range. No OpenBLAS.
   usage: bench_elementwise   (make bench-elementwise builds it at the bench
   flags and at plain -O2, and runs both) */
#define _POSIX_C_SOURCE 200809L
#define BENCH_NO_OPENBLAS
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "bench_util.h"

#include <math.h>

typedef ro_sgns_real real;
enum { BR = 288, CB = 512, TILES = 200, REPS = 5 };

/* the reference: the dense part with libm, as the paper writes it */
static void dense_row_libm(real *t, size_t cb, const real *cf, double rf, real *f)
{
    size_t j;
    for (j = 0; j < cb; ++j) {
        double x = t[j], B = rf * cf[j], s = 1 / (1 + exp(-x));
        if (f) f[j] = (real)(-B * (x > 0 ? x + log1p(exp(-x)) : log1p(exp(x))));
        t[j] = (real)(-s);
    }
}

static double ns_per_entry(int ours, int with_f, const real *src, real *t, const real *cf,
                           real *f, real *es, double *sink)
{
    double best = 1e30;
    int rep, k;
    size_t i;
    for (rep = 0; rep < REPS; ++rep) {
        double t0 = bench_now();
        for (k = 0; k < TILES; ++k) {
            memcpy(t, src, (size_t)BR * CB * sizeof(real));
            for (i = 0; i < BR; ++i) {
                if (ours) {
                    ro_sgns__row_exp(t + i * CB, CB, es);
                    ro_sgns__dense_rest(t + i * CB, CB, cf, (real)0.37, 0, with_f ? f : NULL, es);
                } else
                    dense_row_libm(t + i * CB, CB, cf, 0.37, with_f ? f : NULL);
                *sink += t[i * CB] + (with_f ? f[0] : 0);
            }
        }
        t0 = bench_now() - t0;
        if (t0 < best) best = t0;
    }
    return best * 1e9 / ((double)TILES * BR * CB);
}

int main(void)
{
    real *src = (real *)malloc((size_t)BR * CB * sizeof(real));
    real *t = (real *)malloc((size_t)BR * CB * sizeof(real));
    real cf[CB], f[CB], es[CB];
    double sink = 0, copy = 1e30;
    size_t i;
    int with_f, rep;
    ro_sgns_rng g;
    if (!src || !t) return 1;
    ro_sgns_rng_seed(&g, 1, 0);
    for (i = 0; i < (size_t)BR * CB; ++i) src[i] = (real)(20 * ro_sgns_rng_uniform(&g) - 10);
    for (i = 0; i < CB; ++i) cf[i] = (real)(200 + 1e6 * ro_sgns_rng_uniform(&g));
    printf("# the dense elementwise part, %s, one %d x %d tile, 1 thread\n",
           sizeof(real) == 4 ? "float" : "double", BR, CB);
    bench_print_setup(stdout, 1);
    /* the tile copy each repetition starts with, to subtract */
    for (rep = 0; rep < REPS; ++rep) {
        double t0 = bench_now();
        int k;
        for (k = 0; k < TILES; ++k) {
            memcpy(t, src, (size_t)BR * CB * sizeof(real));
            sink += t[k];
        }
        t0 = bench_now() - t0;
        if (t0 < copy) copy = t0;
    }
    copy = copy * 1e9 / ((double)TILES * BR * CB);
    printf("\n| pass | ours ns/entry | libm reference ns/entry | reference / ours |\n");
    printf("|---|---|---|---|\n");
    for (with_f = 1; with_f >= 0; --with_f) {
        double a = ns_per_entry(1, with_f, src, t, cf, f, es, &sink) - copy;
        double b = ns_per_entry(0, with_f, src, t, cf, f, es, &sink) - copy;
        printf("| %s | %.2f | %.2f | %.1f |\n", with_f ? "with F (the sweep at a new point)"
                                                        : "direction only (the other sweep)",
               a, b, b / a);
    }
    printf("\n(tile copy, subtracted: %.3f ns/entry; checksum %g)\n", copy, sink);
    free(src);
    free(t);
    return 0;
}
