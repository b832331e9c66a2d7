/* bench/gen_counts.c - synthetic co-occurrence counts with the density of
   real ones, so that scale can be measured without a huge corpus.

   Build: make build/bench_gen_counts   (or gcc -O2 -fopenmp ... -lm)
   Run:
     bench_gen_counts fit COUNTS [MORE_COUNTS ...]
         measures the model below on real counts files (the first one fits
         it, every one is shown against it): the word sums #(w) against
         their rank, and the nonzeros per row, observed and predicted, in
         rank bins of doubling width
     bench_gen_counts stats  -n N [model flags] [-ranks P]
         the model's expected nonzeros (whole matrix, and per rank for P
         ranks holding contiguous row ranges), nothing generated
     bench_gen_counts write  -n N [model flags] [-ranks P -rank q] OUT.counts
         a counts file (format of ro_sgns.h section 1) with all rows, or
         with only rank q's rows [q n / P, (q + 1) n / P) of P (the others
         empty), for a run of that one rank
   Model flags: -s S -q Q (the Zipf-Mandelbrot law of #(w)), -gmin G
   (#(w) of the last word), -a A -beta B (the pair density), -window L
   (only for the unigram counts and the file's settings), -seed S.
   Defaults: the fit on the bundled corpus at window 5 (see below).

   THE MODEL
     Words are ranked by frequency, r = 0 .. n-1. Their sums follow a
     Zipf-Mandelbrot law, #(w_r) = g_r = C (r + q)^-s, C set by g_{n-1} =
     gmin. For a pair (w, c) let mu = g_w g_c / |D| (|D| = sum of g), the
     count independence would give. The pair is stored (#(w,c) > 0) with
         P(w, c) = 1 - exp(-a mu^beta),
     and then holds 1 + Poisson(max(0, mu / P - 1)), so its mean is
     max(mu, P) and the rows keep their sums g (up to the pairs whose mu
     is below P). With beta = 1 and a = 1 this is a Poisson count of mean
     mu: real counts are clumpier (pairs that co-occur do so more often),
     and fewer pairs are stored than independence predicts; a < 1,
     beta < 1 model that.
     Fitted on the bundled corpus's counts at window 5 (`fit`): on
     min count 20 (n = 81,212, 92.9M pairs): a = 0.54, beta = 0.92, every
     rank bin within 7% of the observed nonzeros per row; the same
     parameters predict min count 200 (n = 22,352, 60.1M pairs), which the
     fit did not see, within 4%: the density follows the vocabulary as it
     grows. #(w) on min count 20: s = 1.02, q = 2.4 (`fit` prints the
     residuals).
   DETERMINISM AND SYMMETRY
     The decision and the value of a pair come from a hash of (seed,
     min(w, c), max(w, c)): the matrix is symmetric, like fixed-window
     counts, and any rows can be generated alone, in any order, by any
     thread, with the same result. So one rank's rows of a million-word
     matrix need no million-word matrix.
   MARGINALS
     With all rows, #(w) = #(c) are the exact sums of the stored values and
     |D| their total. With one rank's rows, every #(c) is its expectation
     under the model (a sum over the rows of every rank, computed in bins
     of g, within 0.5%); #(w) of the rows held is their exact sum.
   COST
     Each row tests all n columns (a hash and a multiply each, the log
     only for the few candidates): 15,625 rows of a million, one rank of
     64, take about 1.6e10 tests. */
#define _POSIX_C_SOURCE 200809L
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ the model */

typedef struct {
    size_t n;
    double s1, s2, rb, q, gmin, a, beta;
    int window;
    size_t interleave; /* P > 1: word ids dealt round robin to P ranks */
    uint64_t seed;
    double *g;  /* n: #(w) of the law */
    double *B;  /* n: g^beta: a mu^beta = A_w B_c, A_w = aD B_w */
    double D;   /* |D|, the sum of g */
    double aD;  /* a |D|^-beta */
} model;

static void model_default(model *m)
{
    memset(m, 0, sizeof *m);
    m->n = 100000;
    m->s1 = 0.96; /* the fit on the bundled corpus, min count 20 */
    m->s2 = 1.74;
    m->rb = 7289;
    m->q = 1.0;
    m->gmin = 190; /* ~ 2 L x 0.95 x min count 20, as the fit's file */
    m->a = 0.54;
    m->beta = 0.92;
    m->window = 5;
    m->seed = 1;
}

/* the shape of #(w) against rank: a power law with exponent s1 up to
   rank rb and s2 beyond, continuous (log scale, up to a constant) */
static double law(double r, double s1, double s2, double rb, double q)
{
    return r < rb ? -s1 * log(r + q) : -s1 * log(rb + q) - s2 * (log(r + q) - log(rb + q));
}

static int model_init(model *m)
{
    size_t r;
    double top = m->gmin / exp(law((double)(m->n - 1), m->s1, m->s2, m->rb, m->q));
    m->g = (double *)malloc(m->n * sizeof(double));
    m->B = (double *)malloc(m->n * sizeof(double));
    if (!m->g || !m->B) return 1;
    m->D = 0;
    for (r = 0; r < m->n; ++r) {
        /* id r is the word of frequency rank r, or with interleave P the
           (r mod n_s)-th word dealt to rank r div n_s (n_s = n / P) */
        size_t ns = m->interleave > 1 ? m->n / m->interleave : m->n;
        size_t rank = m->interleave > 1 ? (r % ns) * m->interleave + r / ns : r;
        m->g[r] = top * exp(law((double)rank, m->s1, m->s2, m->rb, m->q));
        m->D += m->g[r];
    }
    for (r = 0; r < m->n; ++r) m->B[r] = pow(m->g[r], m->beta);
    m->aD = m->a * pow(m->D, -m->beta);
    return 0;
}

static void model_free(model *m)
{
    free(m->g);
    free(m->B);
}

/* splitmix64's finalizer: a 64-bit mix good enough for pair decisions */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

/* Poisson(lam) from the stream h: inversion for small means, the normal
   approximation (rounded, >= 0) for large ones */
static double poisson(double lam, uint64_t h)
{
    if (lam <= 0) return 0;
    if (lam < 30) {
        double u = unit(mix(h)), p = exp(-lam), cdf = p, k = 0;
        while (u > cdf && k < 1000) {
            k += 1;
            p *= lam / k;
            cdf += p;
        }
        return k;
    } else {
        double u1 = 1.0 - unit(mix(h)), u2 = unit(mix(h ^ 0x5851F42D4C957F2Dull));
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        double v = floor(lam + sqrt(lam) * z + 0.5);
        return v > 0 ? v : 0;
    }
}

/* row w of the model into col/val (room for n); returns its length */
static size_t model_row(const model *m, size_t w, uint32_t *col, float *val)
{
    const double Aw = m->aD * m->B[w];
    const uint64_t sw = mix(m->seed * 0x2545F4914F6CDD1Dull + 17);
    size_t c, len = 0;
    for (c = 0; c < m->n; ++c) {
        const double x = Aw * m->B[c]; /* a mu^beta; P = 1 - exp(-x) <= x */
        const uint64_t key = w < c ? ((uint64_t)w << 32) | c : ((uint64_t)c << 32) | w;
        const uint64_t h = mix(key ^ sw);
        const double u = unit(h);
        double P, mu;
        if (u >= x) continue;
        P = -expm1(-x);
        if (u >= P) continue;
        mu = m->g[w] * m->g[c] / m->D;
        col[len] = (uint32_t)c;
        val[len] = (float)(1 + poisson(mu / P - 1, h ^ 0xD1B54A32D192ED03ull));
        ++len;
    }
    return len;
}

/* Expected stored pairs of row w, and the expected sum of its values,
   over the columns in nb log-spaced bins of g (bin centre = the mean of
   its members) */
typedef struct {
    size_t nb;
    double *cnt, *B, *g; /* per bin: members, mean g^beta, mean g */
    size_t *bin;         /* n: the bin of each word */
} bins;

static int bins_make(const model *m, size_t nb, bins *b)
{
    double lo = 1e300, hi = -1e300;
    size_t r, k;
    for (r = 0; r < m->n; ++r) {
        if (log(m->g[r]) < lo) lo = log(m->g[r]);
        if (log(m->g[r]) > hi) hi = log(m->g[r]);
    }
    hi += 1e-9;
    b->nb = nb;
    b->cnt = (double *)calloc(3 * nb, sizeof(double));
    b->bin = (size_t *)malloc(m->n * sizeof(size_t));
    if (!b->cnt || !b->bin) return 1;
    b->B = b->cnt + nb;
    b->g = b->B + nb;
    for (r = 0; r < m->n; ++r) {
        k = hi > lo ? (size_t)((log(m->g[r]) - lo) / (hi - lo) * (double)nb) : 0;
        if (k >= nb) k = nb - 1;
        b->bin[r] = k;
        b->cnt[k] += 1;
        b->B[k] += m->B[r];
        b->g[k] += m->g[r];
    }
    for (k = 0; k < nb; ++k)
        if (b->cnt[k] > 0) {
            b->B[k] /= b->cnt[k];
            b->g[k] /= b->cnt[k];
        }
    return 0;
}

static void bins_free(bins *b)
{
    free(b->cnt);
    free(b->bin);
}

static void row_expect(const model *m, const bins *b, double Aw, double gw, double *nnz, double *sum)
{
    size_t k;
    double z = 0, s = 0;
    for (k = 0; k < b->nb; ++k)
        if (b->cnt[k] > 0) {
            double P = -expm1(-Aw * b->B[k]), mu = gw * b->g[k] / m->D;
            z += b->cnt[k] * P;
            s += b->cnt[k] * (mu > P ? mu : P);
        }
    *nnz = z;
    *sum = s;
}

/* ---------------------------------------------------------------- flags */

static const char *flag(int argc, char **argv, const char *name)
{
    int i;
    for (i = 2; i + 1 < argc; ++i)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return NULL;
}

static void model_flags(int argc, char **argv, model *m)
{
    const char *v;
    if ((v = flag(argc, argv, "-n"))) m->n = (size_t)atof(v);
    if ((v = flag(argc, argv, "-s1"))) m->s1 = atof(v);
    if ((v = flag(argc, argv, "-s2"))) m->s2 = atof(v);
    if ((v = flag(argc, argv, "-rb"))) m->rb = atof(v);
    if ((v = flag(argc, argv, "-q"))) m->q = atof(v);
    if ((v = flag(argc, argv, "-gmin"))) m->gmin = atof(v);
    if ((v = flag(argc, argv, "-a"))) m->a = atof(v);
    if ((v = flag(argc, argv, "-beta"))) m->beta = atof(v);
    if ((v = flag(argc, argv, "-window"))) m->window = atoi(v);
    if ((v = flag(argc, argv, "-seed"))) m->seed = (uint64_t)atof(v);
    if ((v = flag(argc, argv, "-interleave"))) m->interleave = (size_t)atof(v);
    if (m->interleave > 1 && m->n % m->interleave != 0) {
        fprintf(stderr, "gen_counts: -interleave P needs P to divide n\n");
        exit(1);
    }
    if (m->n < 2 || m->n > 0xFFFFFFF0u || !(m->s1 > 0) || !(m->s2 > 0) || !(m->rb > 0) ||
        !(m->q >= 0) || !(m->gmin > 0) ||
        !(m->a > 0) || !(m->beta > 0) || m->window < 1) {
        fprintf(stderr, "gen_counts: bad model flags\n");
        exit(1);
    }
}

static void print_model(const model *m)
{
    printf("model: n = %lu, #(w) ~ (r + %.3g)^-%.3g to rank %.0f, then ^-%.3g; #(w_last) = %.4g, "
           "#(w_first) = %.4g, |D| = %.4g; P(pair) = 1 - exp(-%.3g mu^%.3g); seed %llu\n",
           (unsigned long)m->n, m->q, m->s1, m->rb, m->s2, m->gmin,
           m->gmin / exp(law((double)(m->n - 1), m->s1, m->s2, m->rb, m->q) - law(0, m->s1, m->s2, m->rb, m->q)),
           m->D, m->a, m->beta, (unsigned long long)m->seed);
    if (m->interleave > 1)
        printf("word ids dealt round robin to %lu ranks: rank q holds the words of frequency rank "
               "q, q + %lu, q + %lu, ...\n",
               (unsigned long)m->interleave, (unsigned long)m->interleave,
               (unsigned long)(2 * m->interleave));
}

/* ------------------------------------------------------------------ fit */

/* observed nonzeros per row in rank bins [2^k - 1, 2^(k+1) - 1), and the
   model's prediction from the file's own #(w), #(c), |D| */
typedef struct {
    size_t n, nb;
    double D;
    double obs[40];
    double lw[40][16]; /* log #(w) of up to 16 rows a bin */
    int rows[40];
    double chist[400], cmid[400]; /* columns in 400 bins of log #(c) */
} observed;

static int observe(const char *path, observed *o, ro_sgns_counts **keep)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    size_t r, b, k, j, n;
    double lmin = 1e300, lmax = -1e300;
    if (ro_sgns_counts_load_path(path, &c, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    memset(o, 0, sizeof *o);
    n = o->n = c->n;
    o->D = c->total;
    for (j = 0; j < n; ++j)
        if (c->ctx_count[j] > 0) {
            double l = log(c->ctx_count[j]);
            if (l < lmin) lmin = l;
            if (l > lmax) lmax = l;
        }
    for (j = 0; j < n; ++j)
        if (c->ctx_count[j] > 0) {
            double l = log(c->ctx_count[j]);
            size_t q = (size_t)((l - lmin) / (lmax - lmin + 1e-9) * 400);
            o->chist[q] += 1;
            o->cmid[q] += l;
        }
    for (k = 0; k < 400; ++k)
        if (o->chist[k] > 0) o->cmid[k] /= o->chist[k];
    for (b = 1, k = 0; b <= n && k < 40; b *= 2, ++k) {
        size_t lo = b - 1, hi = 2 * b - 1 < n ? 2 * b - 1 : n, step = (hi - lo) / 16 + 1;
        double nz = 0;
        int cnt = 0;
        for (r = lo; r < hi; ++r) nz += (double)(c->row_ptr[r + 1] - c->row_ptr[r]);
        o->obs[k] = nz / (double)(hi - lo);
        for (r = lo; r < hi && cnt < 16; r += step) o->lw[k][cnt++] = log(c->word_count[r]);
        o->rows[k] = cnt;
    }
    o->nb = k;
    *keep = c;
    return 0;
}

static double predicted(const observed *o, size_t k, double a, double beta)
{
    double tot = 0;
    int i;
    size_t q;
    for (i = 0; i < o->rows[k]; ++i)
        for (q = 0; q < 400; ++q)
            if (o->chist[q] > 0)
                tot += o->chist[q] * -expm1(-a * exp(beta * (o->lw[k][i] + o->cmid[q] - log(o->D))));
    return tot / o->rows[k];
}

static double fit_loss(const observed *o, double a, double beta)
{
    size_t k;
    double L = 0;
    for (k = 0; k < o->nb; ++k) {
        double e = log(predicted(o, k, a, beta) / o->obs[k]);
        L += e * e;
    }
    return L;
}

/* #(w) against rank: the law above, fitted in log over rank bins of
   doubling width (each bin's mean log rank and mean log #(w), so every
   scale of rank weighs the same); a grid over q, rb, s1, s2, the constant
   by least squares */
typedef struct {
    double s1, s2, rb, q, rms;
} zipf_fit;

static zipf_fit fit_zipf(const ro_sgns_counts *c)
{
    double x[40], y[40], q, rb, s1, s2;
    size_t lo, hi, r, k = 0, j;
    zipf_fit best;
    best.rms = 1e300;
    for (lo = 1; lo <= c->n && k < 40; lo *= 2, ++k) {
        hi = 2 * lo < c->n + 1 ? 2 * lo : c->n + 1;
        x[k] = y[k] = 0;
        for (r = lo - 1; r < hi - 1; ++r) {
            x[k] += (double)r;
            y[k] += log(c->word_count[r]);
        }
        x[k] /= (double)(hi - lo); /* mean rank of the bin */
        y[k] /= (double)(hi - lo);
    }
    for (q = 0; q <= 5.0001; q += 0.5)
        for (rb = 100; rb <= (double)c->n; rb *= 1.1)
            for (s1 = 0.6; s1 <= 1.40001; s1 += 0.01)
                for (s2 = 0.8; s2 <= 2.50001; s2 += 0.01) {
                    double off = 0, e = 0;
                    for (j = 0; j < k; ++j) off += y[j] - law(x[j], s1, s2, rb, q);
                    off /= (double)k;
                    for (j = 0; j < k; ++j) {
                        double d = y[j] - off - law(x[j], s1, s2, rb, q);
                        e += d * d;
                    }
                    e = sqrt(e / (double)k);
                    if (e < best.rms) {
                        best.rms = e;
                        best.s1 = s1;
                        best.s2 = s2;
                        best.rb = rb;
                        best.q = q;
                    }
                }
    return best;
}

static int cmd_fit(int argc, char **argv)
{
    observed *o = (observed *)calloc((size_t)argc, sizeof(observed));
    ro_sgns_counts *c = NULL;
    double a, beta, best = 1e300, ba = 0, bb = 0;
    size_t k;
    int f;
    if (!o) return 1;
    for (f = 2; f < argc; ++f) {
        zipf_fit z;
        if (observe(argv[f], &o[f], &c)) return 1;
        z = fit_zipf(c);
        printf("%s: n = %lu, nnz = %llu, |D| = %.4g, window %d, min count %llu\n"
               "  #(w) ~ (r + %.1f)^-%.2f to rank %.0f, then ^-%.2f: rms %.3f in log over rank "
               "bins; #(w_last) = %.4g\n",
               argv[f], (unsigned long)c->n, (unsigned long long)c->nnz, c->total,
               c->config.window, (unsigned long long)c->config.min_count, z.q, z.s1, z.rb, z.s2,
               z.rms, c->word_count[c->n - 1]);
        ro_sgns_counts_free(c);
    }
    for (a = 0.20; a <= 1.5; a += 0.01)
        for (beta = 0.50; beta <= 1.00001; beta += 0.01) {
            double L = fit_loss(&o[2], a, beta);
            if (L < best) {
                best = L;
                ba = a;
                bb = beta;
            }
        }
    printf("pair density fitted on %s: a = %.2f, beta = %.2f (rms %.3f in log over rank bins); "
           "independence (a = beta = 1) for comparison\n",
           argv[2], ba, bb, sqrt(best / (double)o[2].nb));
    for (f = 2; f < argc; ++f) {
        printf("%s\n  %-17s %12s %12s %7s %12s %7s\n", argv[f], "ranks", "nnz/row",
               "model", "ratio", "independent", "ratio");
        for (k = 0; k < o[f].nb; ++k) {
            double p = predicted(&o[f], k, ba, bb), pi = predicted(&o[f], k, 1, 1);
            size_t lo = ((size_t)1 << k) - 1, hi = ((size_t)2 << k) - 1;
            printf("  %7lu-%-9lu %12.1f %12.1f %7.3f %12.1f %7.3f\n", (unsigned long)lo,
                   (unsigned long)(hi < o[f].n ? hi : o[f].n), o[f].obs[k], p, p / o[f].obs[k],
                   pi, pi / o[f].obs[k]);
        }
    }
    free(o);
    return 0;
}

/* ---------------------------------------------------------------- stats */

static int cmd_stats(int argc, char **argv)
{
    model m;
    bins b;
    const char *v = flag(argc, argv, "-ranks");
    size_t P = v ? (size_t)atof(v) : 64, q, w;
    double total = 0, *per = (double *)calloc(P, sizeof(double));
    model_default(&m);
    model_flags(argc, argv, &m);
    if (!per || model_init(&m) || bins_make(&m, 4096, &b)) return 1;
    print_model(&m);
    for (q = 0; q < P; ++q)
        for (w = q * m.n / P; w < (q + 1) * m.n / P; ++w) {
            double z, s;
            row_expect(&m, &b, m.aD * m.B[w], m.g[w], &z, &s);
            per[q] += z;
            total += z;
        }
    printf("expected nonzeros: %.4g in all (%.1f a row); the counts of a rank take 16 bytes a "
           "nonzero (the rows and their transpose, 4-byte column and 4-byte value each)\n",
           total, total / (double)m.n);
    printf("rank   rows              nonzeros      GB\n");
    for (q = 0; q < P; ++q) {
        size_t r0 = q * m.n / P, r1 = (q + 1) * m.n / P;
        if (q < 4 || q + 2 >= P || q == P / 2)
            printf("%4lu   %8lu-%-8lu %12.4g %7.2f\n", (unsigned long)q, (unsigned long)r0,
                   (unsigned long)r1, per[q], per[q] * 16 / 1e9);
    }
    bins_free(&b);
    model_free(&m);
    free(per);
    return 0;
}

/* ---------------------------------------------------------------- write */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmd_write(int argc, char **argv)
{
    model m;
    bins b;
    ro_sgns_counts c;
    ro_sgns_error err;
    const char *out = argv[argc - 1], *vP = flag(argc, argv, "-ranks"), *vq = flag(argc, argv, "-rank");
    size_t P = vP ? (size_t)atof(vP) : 1, q = vq ? (size_t)atof(vq) : 0, r0, r1, w, i;
    size_t n, wbytes = 12;
    uint32_t **cols;
    float **vals;
    size_t *lens;
    char *arena;
    uint64_t nnz = 0, e;
    double t0 = now();
    model_default(&m);
    model_flags(argc, argv, &m);
    if (P < 1 || q >= P || argc < 4 || out[0] == '-') {
        fprintf(stderr, "gen_counts write: need -ranks P >= 1, -rank q < P and OUT.counts last\n");
        return 1;
    }
    if (model_init(&m)) return 1;
    n = m.n;
    r0 = q * n / P;
    r1 = (q + 1) * n / P;
    print_model(&m);
    /* the rows, in parallel (each row alone: the hash makes it so) */
    cols = (uint32_t **)calloc(n, sizeof *cols);
    vals = (float **)calloc(n, sizeof *vals);
    lens = (size_t *)calloc(n, sizeof *lens);
    if (!cols || !vals || !lens) return 1;
#pragma omp parallel
    {
        uint32_t *tc = (uint32_t *)malloc(n * sizeof(uint32_t));
        float *tv = (float *)malloc(n * sizeof(float));
        long wl;
#pragma omp for schedule(dynamic, 16)
        for (wl = (long)r0; wl < (long)r1; ++wl) {
            size_t len = model_row(&m, (size_t)wl, tc, tv);
            cols[wl] = (uint32_t *)malloc((len ? len : 1) * sizeof(uint32_t));
            vals[wl] = (float *)malloc((len ? len : 1) * sizeof(float));
            if (cols[wl] && vals[wl]) {
                memcpy(cols[wl], tc, len * sizeof(uint32_t));
                memcpy(vals[wl], tv, len * sizeof(float));
                lens[wl] = len;
            }
        }
        free(tc);
        free(tv);
    }
    for (w = r0; w < r1; ++w) {
        if (!cols[w] || !vals[w]) {
            fprintf(stderr, "gen_counts: out of memory\n");
            return 1;
        }
        nnz += lens[w];
    }
    fprintf(stderr, "gen_counts: rows %lu..%lu: %llu nonzeros in %.1f s\n", (unsigned long)r0,
            (unsigned long)r1, (unsigned long long)nnz, now() - t0);
    /* a counts object from the public fields, saved by the library */
    memset(&c, 0, sizeof c);
    c.n = n;
    c.row_begin = 0; /* the whole matrix (the rows not generated are empty) */
    c.row_end = n;
    c.nnz = nnz;
    c.vocab.n = n;
    c.row_ptr = (uint64_t *)calloc(n + 1, sizeof(uint64_t));
    c.col = (uint32_t *)malloc((nnz ? nnz : 1) * sizeof(uint32_t));
    c.val = (float *)malloc((nnz ? nnz : 1) * sizeof(float));
    c.word_count = (double *)calloc(n, sizeof(double));
    c.ctx_count = (double *)calloc(n, sizeof(double));
    c.vocab.word = (char **)malloc(n * sizeof(char *));
    c.vocab.len = (uint32_t *)malloc(n * sizeof(uint32_t));
    c.vocab.count = (uint64_t *)malloc(n * sizeof(uint64_t));
    arena = (char *)malloc(n * wbytes);
    if (!c.row_ptr || !c.col || !c.val || !c.word_count || !c.ctx_count || !c.vocab.word ||
        !c.vocab.len || !c.vocab.count || !arena)
        return 1;
    for (w = 0, e = 0; w < n; ++w) {
        c.row_ptr[w] = e;
        if (w >= r0 && w < r1) {
            memcpy(c.col + e, cols[w], lens[w] * sizeof(uint32_t));
            memcpy(c.val + e, vals[w], lens[w] * sizeof(float));
            for (i = 0; i < lens[w]; ++i) {
                c.word_count[w] += vals[w][i];
                if (P == 1) c.ctx_count[cols[w][i]] += vals[w][i];
            }
            e += lens[w];
            free(cols[w]);
            free(vals[w]);
        }
        /* fixed width: byte order = rank order, as the vocabulary's ties need */
        c.vocab.word[w] = arena + w * wbytes;
        c.vocab.len[w] = (uint32_t)snprintf(c.vocab.word[w], wbytes, "w%09lu", (unsigned long)w);
        /* the unigram count: #(w) / 2L (what a window of L on each side gives) */
        c.vocab.count[w] = (uint64_t)(m.g[w] / (2.0 * m.window) + 0.5);
        if (c.vocab.count[w] == 0) c.vocab.count[w] = 1;
    }
    c.row_ptr[n] = e;
    if (P > 1) { /* the marginals of the rows not generated: expectations */
        if (bins_make(&m, 4096, &b)) return 1;
        {
            double *bin_sum = (double *)calloc(b.nb, sizeof(double));
            size_t k;
            if (!bin_sum) return 1;
            for (k = 0; k < b.nb; ++k)
                if (b.cnt[k] > 0) {
                    double z;
                    row_expect(&m, &b, m.aD * b.B[k], b.g[k], &z, &bin_sum[k]);
                }
            /* symmetric: #(c) of word w is its #(w); the rows made have
               their sums, the others their expectations, so that the sums
               of #(w) and of #(c) are the same numbers (|D|) */
            for (w = 0; w < n; ++w) {
                if (w < r0 || w >= r1) c.word_count[w] = bin_sum[b.bin[w]];
                c.ctx_count[w] = c.word_count[w];
            }
            free(bin_sum);
        }
        bins_free(&b);
    }
    for (w = 0; w < n; ++w) c.total += c.ctx_count[w];
    for (w = 0; w < n; ++w) c.corpus_tokens += c.vocab.count[w];
    c.distinct_words = n;
    c.config = ro_sgns_count_config_default();
    c.config.window = m.window;
    c.config.min_count = c.vocab.count[n - 1];
    if (ro_sgns_counts_save_path(&c, out, &err) != RO_SGNS_OK) {
        fprintf(stderr, "gen_counts: %s\n", err.message);
        return 1;
    }
    fprintf(stderr, "gen_counts: %s: n = %lu, rows %lu..%lu, %llu nonzeros, |D| = %.4g (%.1f s)\n",
            out, (unsigned long)n, (unsigned long)r0, (unsigned long)r1,
            (unsigned long long)nnz, c.total, now() - t0);
    free(c.row_ptr);
    free(c.col);
    free(c.val);
    free(c.word_count);
    free(c.ctx_count);
    free(c.vocab.word);
    free(c.vocab.len);
    free(c.vocab.count);
    free(arena);
    free(cols);
    free(vals);
    free(lens);
    model_free(&m);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "fit") == 0) return cmd_fit(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "stats") == 0) return cmd_stats(argc, argv);
    if (argc >= 3 && strcmp(argv[1], "write") == 0) return cmd_write(argc, argv);
    fprintf(stderr, "usage: bench_gen_counts fit COUNTS [MORE_COUNTS ...]\n"
                    "       bench_gen_counts stats -n N [model flags] [-ranks P]\n"
                    "       bench_gen_counts write -n N [model flags] [-ranks P -rank q] OUT.counts\n"
                    "model flags: -s S -q Q -gmin G -a A -beta B -window L -seed S\n");
    return 1;
}
