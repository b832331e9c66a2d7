/* test_eval.c - sections 6 (file formats) and 7 (evaluation).
   Spearman against hand-worked values and an O(n^2) reference; neighbours,
   gensim's most_similar, doesnt_match and similarity, and analogies
   against brute force; format round trips (bit-exact for
   binary), a binary file built byte by byte, every malformed case, the
   path and FILE* variants, a failing allocator. Runs in a second or two.
   The locale check runs when a de_DE / fr_FR / ru_RU locale is installed
   (or LOCPATH points at one made with localedef), and says so otherwise. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include "test_util.h"

#include <locale.h>
#include <float.h>
#include <string.h>

#define IS_DOUBLE (sizeof(ro_sgns_real) == sizeof(double))

/* values outside an enum, cast from a variable (C++ -Wconversion warns
   about a constant) */
static int g_seven = 7, g_nine = 9;

/* ---- helpers ------------------------------------------------------------ */

static double urand(ro_sgns_rng *r) { return ro_sgns_rng_uniform(r); }

/* Spearman the slow, obvious way: rank_i = 1 + #(x_j < x_i) + #(x_j == x_i, j != i) / 2,
   then Pearson of the ranks from the textbook formula. */
static double ref_spearman(size_t n, const double *x, const double *y)
{
    double *rx = (double *)malloc(n * sizeof(double)), *ry = (double *)malloc(n * sizeof(double));
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0, r;
    size_t i, j;
    for (i = 0; i < n; ++i) {
        double lx = 0, ex = 0, ly = 0, ey = 0;
        for (j = 0; j < n; ++j) {
            if (j == i) continue;
            lx += x[j] < x[i];
            ex += x[j] == x[i];
            ly += y[j] < y[i];
            ey += y[j] == y[i];
        }
        rx[i] = 1 + lx + ex / 2;
        ry[i] = 1 + ly + ey / 2;
        mx += rx[i];
        my += ry[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (i = 0; i < n; ++i) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    r = sxy / sqrt(sxx * syy);
    free(rx);
    free(ry);
    return r;
}

static double ref_cos(const ro_sgns_real *a, const ro_sgns_real *b, size_t d)
{
    double ab = 0, aa = 0, bb = 0;
    size_t i;
    for (i = 0; i < d; ++i) {
        ab += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
    }
    return (aa == 0 || bb == 0) ? 0 : ab / sqrt(aa * bb);
}

/* n words "w0", "w1", ... (caller frees words[0] and words). */
static char **make_words(size_t n)
{
    char **w = (char **)malloc(n * sizeof(char *));
    char *pool = (char *)malloc(n * 32);
    size_t i;
    for (i = 0; i < n; ++i) {
        w[i] = pool + 32 * i;
        snprintf(w[i], 32, "w%lu", (unsigned long)i);
    }
    return w;
}

static void free_words(char **w)
{
    free(w[0]);
    free(w);
}

static void fill_normal(ro_sgns_rng *r, ro_sgns_real *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) x[i] = (ro_sgns_real)ro_sgns_rng_normal(r);
}

/* Same words in the same order and the same bits? */
static int same_vectors(const ro_sgns_vectors *a, const ro_sgns_vectors *b)
{
    size_t i;
    if (a->n != b->n || a->d != b->d) return 0;
    for (i = 0; i < a->n; ++i)
        if (strcmp(a->words[i], b->words[i]) != 0) return 0;
    return memcmp(a->data, b->data, a->n * a->d * sizeof(ro_sgns_real)) == 0;
}

/* a read callback that hands out 1..7 bytes at a time, to cross refills */
typedef struct chunky {
    const unsigned char *p;
    size_t len, pos, step;
} chunky;

static size_t chunky_read(void *user, void *dst, size_t size)
{
    chunky *c = (chunky *)user;
    size_t n = 1 + (c->step++ % 7);
    if (n > size) n = size;
    if (n > c->len - c->pos) n = c->len - c->pos;
    memcpy(dst, c->p + c->pos, n);
    c->pos += n;
    return n;
}

/* Read must fail with code, leave *out untouched, and name the place. */
static void expect_fail(const char *what, const char *text, size_t len, ro_sgns_vectors_format f,
                        size_t limit, ro_sgns_result code, const char *where)
{
    ro_sgns_vectors untouched, *v = &untouched;
    ro_sgns_error err;
    ro_sgns_result rc;
    rc = ro_sgns_vectors_load_memory(text, len, f, limit, &v, NULL, &err);
    CHECKF(rc == code, "%s: got %d (%s), want %d", what, (int)rc, err.message, (int)code);
    CHECKF(err.code == code, "%s: err.code %d", what, (int)err.code);
    CHECKF(v == &untouched, "%s: *out was touched", what);
    if (where)
        CHECKF(strstr(err.message, where) != NULL, "%s: message '%s' lacks '%s'", what, err.message,
               where);
    if (rc == RO_SGNS_OK) ro_sgns_vectors_free(v);
    { /* the same bytes through the callback reader, 1..7 at a time: same code, same message */
        chunky ch;
        ro_sgns_error err2;
        ch.p = (const unsigned char *)text;
        ch.len = len;
        ch.pos = ch.step = 0;
        v = &untouched;
        rc = ro_sgns_vectors_load_callback(chunky_read, &ch, f, limit, &v, NULL, &err2);
        CHECKF(rc == code && strcmp(err.message, err2.message) == 0, "%s (callback): %d '%s'", what,
               (int)rc, err2.message);
        if (rc == RO_SGNS_OK) ro_sgns_vectors_free(v);
    }
}

#define FAIL_TEXT(what, s, f, where)                                                               \
    expect_fail(what, s, sizeof(s) - 1, f, 0, RO_SGNS_ERR_FORMAT, where)

static size_t failing_read(void *user, void *dst, size_t size)
{
    size_t *calls = (size_t *)user;
    (void)dst;
    (void)size;
    if ((*calls)++ == 0) {
        memcpy(dst, "2 3\na 1 2 3\n", 12);
        return 12;
    }
    return (size_t)-1;
}

/* An allocator that counts, and fails from the budget-th call on. */
typedef struct counting {
    long live, calls, budget;
} counting;

static void *c_malloc(void *u, size_t size)
{
    counting *c = (counting *)u;
    if (c->budget >= 0 && c->calls >= c->budget) return NULL;
    c->calls++;
    c->live++;
    return malloc(size);
}

static void *c_realloc(void *u, void *p, size_t size)
{
    counting *c = (counting *)u;
    if (c->budget >= 0 && c->calls >= c->budget) return NULL;
    c->calls++;
    if (!p) c->live++;
    return realloc(p, size);
}

static void c_free(void *u, void *p)
{
    counting *c = (counting *)u;
    if (p) c->live--;
    free(p);
}

/* ---- correlations ------------------------------------------------------- */

static void test_correlations(void)
{
    ro_sgns_error err;
    double rho = 7, r = 7;
    ro_sgns_rng rng;
    size_t i, trial;
    { /* one tie in y: ranks (1,2,3,4,5) and (1,2,3.5,5,3.5): rho = 8 / sqrt(95) */
        double x[] = {1, 2, 3, 4, 5}, y[] = {5, 6, 7, 8, 7};
        CHECK(ro_sgns_spearman(5, x, y, &rho, NULL, &err) == RO_SGNS_OK);
        CHECK_NEAR(rho, 8.0 / sqrt(95.0), 1e-15);
    }
    { /* perfectly anti-correlated */
        double x[] = {1, 2, 3, 4}, y[] = {40, 30, 20, 10};
        CHECK(ro_sgns_spearman(4, x, y, &rho, NULL, &err) == RO_SGNS_OK);
        CHECK_NEAR(rho, -1.0, 1e-15);
        CHECK(ro_sgns_pearson(4, x, y, &r, &err) == RO_SGNS_OK);
        CHECK_NEAR(r, -1.0, 1e-15);
    }
    { /* monotone but not linear: rho 1, Pearson below 1 */
        double x[] = {1, 2, 3, 4, 5}, y[] = {1, 8, 27, 64, 125};
        CHECK(ro_sgns_spearman(5, x, y, &rho, NULL, &err) == RO_SGNS_OK);
        CHECK_NEAR(rho, 1.0, 1e-15);
        CHECK(ro_sgns_pearson(5, x, y, &r, &err) == RO_SGNS_OK);
        CHECK(r < 0.99 && r > 0.9);
    }
    { /* the textbook example (IQ vs hours of TV): rho = -29/165 */
        double x[] = {106, 86, 100, 101, 99, 103, 97, 113, 112, 110};
        double y[] = {7, 0, 27, 50, 28, 29, 20, 12, 6, 17};
        CHECK(ro_sgns_spearman(10, x, y, &rho, NULL, &err) == RO_SGNS_OK);
        CHECK_NEAR(rho, -29.0 / 165.0, 1e-15);
    }
    { /* ties on both sides, no association: ranks (1.5,1.5,3.5,3.5) vs (1.5,3.5,1.5,3.5) */
        double x[] = {1, 1, 2, 2}, y[] = {1, 2, 1, 2};
        CHECK(ro_sgns_spearman(4, x, y, &rho, NULL, &err) == RO_SGNS_OK);
        CHECK_NEAR(rho, 0.0, 1e-15);
    }
    { /* Pearson by hand: x (1,2,3), y (1,2,4): r = 3 / sqrt(2 * 42/9) */
        double x[] = {1, 2, 3}, y[] = {1, 2, 4};
        CHECK(ro_sgns_pearson(3, x, y, &r, &err) == RO_SGNS_OK);
        CHECK_NEAR(r, 3.0 / sqrt(2.0 * 42.0 / 9.0), 1e-15);
    }
    { /* degenerate input is an error, the output untouched */
        double x[] = {1, 2, 3}, c[] = {5, 5, 5}, nan[] = {1, 0, 2};
        nan[1] = sqrt(-1.0 + 0 * x[0]);
        rho = 7;
        CHECK(ro_sgns_spearman(3, x, c, &rho, NULL, &err) == RO_SGNS_ERR_NUMERIC && rho == 7);
        CHECK(ro_sgns_spearman(1, x, x, &rho, NULL, &err) == RO_SGNS_ERR_EMPTY && rho == 7);
        r = 7;
        CHECK(ro_sgns_pearson(3, c, x, &r, &err) == RO_SGNS_ERR_NUMERIC && r == 7);
        CHECK(ro_sgns_pearson(1, x, x, &r, &err) == RO_SGNS_ERR_EMPTY && r == 7);
        CHECK(ro_sgns_pearson(3, nan, x, &r, &err) == RO_SGNS_ERR_NUMERIC && r == 7);
        CHECK(ro_sgns_pearson(3, x, nan, &r, &err) == RO_SGNS_ERR_NUMERIC && r == 7);
        CHECK(ro_sgns_spearman(3, x, nan, &rho, NULL, &err) == RO_SGNS_ERR_NUMERIC && rho == 7);
    }
    /* random data with many ties against the O(n^2) reference */
    ro_sgns_rng_seed(&rng, 42, 1);
    for (trial = 0; trial < 20; ++trial) {
        size_t n = 2 + (size_t)(urand(&rng) * 300);
        double *x = (double *)malloc(n * sizeof(double)), *y = (double *)malloc(n * sizeof(double));
        double levels = trial % 2 ? 5 : 1000;
        for (i = 0; i < n; ++i) {
            x[i] = floor(urand(&rng) * levels);
            y[i] = floor((0.5 * x[i] / levels + urand(&rng)) * levels);
        }
        x[0] = 0;
        x[n - 1] = levels; /* never constant */
        y[0] = 0;
        y[n - 1] = 2 * levels;
        CHECK(ro_sgns_spearman(n, x, y, &rho, NULL, &err) == RO_SGNS_OK);
        CHECK_NEAR(rho, ref_spearman(n, x, y), 1e-12);
        free(x);
        free(y);
    }
}

/* ---- nearest neighbours --------------------------------------------------- */

typedef struct scored {
    double s;
    size_t row;
} scored;

static int scored_desc(const void *a, const void *b)
{
    const scored *x = (const scored *)a, *y = (const scored *)b;
    if (x->s != y->s) return x->s > y->s ? -1 : 1;
    return x->row < y->row ? -1 : 1;
}

static void test_neighbors(void)
{
    const size_t n = 1500, d = 37, nq = 600, k = 10; /* 2 query blocks, 2 row blocks */
    char **words = make_words(n);
    ro_sgns_real *data = (ro_sgns_real *)malloc(n * d * sizeof(ro_sgns_real));
    ro_sgns_real *qv = (ro_sgns_real *)malloc(nq * d * sizeof(ro_sgns_real));
    ro_sgns_neighbor *out = (ro_sgns_neighbor *)malloc(nq * k * sizeof(ro_sgns_neighbor));
    size_t *count = (size_t *)malloc(nq * sizeof(size_t)),
           *ex = (size_t *)malloc(nq * sizeof(size_t));
    scored *all = (scored *)malloc(n * sizeof(scored));
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    ro_sgns_rng rng;
    size_t i, j, bad = 0, badsim = 0;
    ro_sgns_rng_seed(&rng, 7, 0);
    fill_normal(&rng, data, n * d);
    for (j = 0; j < d; ++j) data[5 * d + j] = 0; /* a zero row: cosine 0 */
    fill_normal(&rng, qv, nq * d);
    for (i = 0; i < nq; ++i) {
        if (i % 3 == 0) ex[i] = RO_SGNS_NO_ROW;
        else ex[i] = (i * 7) % n;
    }
    CHECK(ro_sgns_vectors_create(n, d, (const char *const *)words, data, d, &v, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(ro_sgns_neighbors_of_vectors(v, nq, qv, d, ex, k, out, count, NULL, &err) == RO_SGNS_OK);
    /* RO_SGNS_TEST_QUICK: every fourth query (all blocks, both exclusion kinds) */
    for (i = 0; i < nq; i += tu_quick() ? 4u : 1u) {
        size_t m = 0;
        for (j = 0; j < n; ++j) {
            if (j == ex[i]) continue;
            all[m].s = ref_cos(qv + i * d, data + j * d, d);
            all[m].row = j;
            ++m;
        }
        qsort(all, m, sizeof *all, scored_desc);
        if (count[i] != k) ++bad;
        for (j = 0; j < k; ++j) {
            const ro_sgns_neighbor *nb = &out[i * k + j];
            double brute;
            if (nb->row >= n || nb->row == ex[i]) {
                ++bad;
                continue;
            }
            brute = ref_cos(qv + i * d, data + nb->row * d, d);
            /* the j-th returned is as good as the j-th by brute force */
            if (fabs(brute - all[j].s) > 1e-5) ++bad;
            if (fabs(nb->similarity - brute) > 1e-5) ++badsim;
            if (j > 0 && nb->similarity > out[i * k + j - 1].similarity) ++bad;
        }
    }
    CHECKF(bad == 0, "%lu neighbour mismatches", (unsigned long)bad);
    CHECKF(badsim == 0, "%lu similarity mismatches", (unsigned long)badsim);
    { /* by word: excludes itself; the nearest of a word's copy is the word */
        ro_sgns_neighbor nb[4];
        size_t cnt = 99;
        CHECK(ro_sgns_neighbors_of_word(v, "w17", 4, nb, &cnt, NULL, &err) == RO_SGNS_OK);
        CHECK(cnt == 4);
        for (j = 0; j < 4; ++j) CHECK(nb[j].row != 17);
        CHECK(ro_sgns_neighbors_of_word(v, "nope", 4, nb, &cnt, NULL, &err) ==
              RO_SGNS_ERR_NOT_FOUND);
        CHECK(strstr(err.message, "nope") != NULL);
        CHECK(ro_sgns_neighbors_of_vectors(v, 1, data + 17 * d, d, NULL, 1, nb, &cnt, NULL, &err) ==
              RO_SGNS_OK);
        CHECK(nb[0].row == 17 && fabs(nb[0].similarity - 1) < 1e-5);
    }
    { /* k larger than the vocabulary: n - 1 filled, the rest NO_ROW */
        const char *w[] = {"a", "b", "c"};
        ro_sgns_real x[] = {1, 0, 0, 1, 1, 1};
        ro_sgns_vectors *s = NULL;
        ro_sgns_neighbor nb[5];
        size_t cnt = 0;
        CHECK(ro_sgns_vectors_create(3, 2, w, x, 2, &s, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_neighbors_of_word(s, "a", 5, nb, &cnt, NULL, &err) == RO_SGNS_OK);
        CHECK(cnt == 2 && nb[0].row == 2 && nb[1].row == 1 && nb[2].row == RO_SGNS_NO_ROW &&
              nb[4].row == RO_SGNS_NO_ROW);
        CHECK_NEAR(nb[0].similarity, sqrt(0.5), 1e-6);
        CHECK_NEAR(nb[1].similarity, 0.0, 1e-12);
        ro_sgns_vectors_free(s);
    }
    ro_sgns_vectors_free(v);
    free_words(words);
    free(data);
    free(qv);
    free(out);
    free(count);
    free(ex);
    free(all);
}

/* ---- gensim's calls: similarity, most_similar, doesnt_match, normalize ---- */

/* q filled with most_similar's query, and returned */
static const ro_sgns_similar_query *ms_query(ro_sgns_similar_query *q, const char *const *pos,
                                             size_t np, const char *const *neg, size_t nn,
                                             size_t limit)
{
    q->positive = pos, q->npositive = np, q->negative = neg, q->nnegative = nn;
    q->restrict_vocab = limit;
    return q;
}

/* most_similar the obvious way: q = sum of +-unit vectors (double), the
   cosine of every row below limit that is not a query row, sorted (best
   first, ties to the lower row) into all; returns how many. */
static size_t brute_most_similar(const ro_sgns_real *x, size_t d, size_t limit, const size_t *rows,
                                 const double *sign, size_t nw, scored *all)
{
    double *q = (double *)calloc(d, sizeof(double)), qq = 0;
    size_t i, j, m = 0;
    for (i = 0; i < nw; ++i) {
        double s = 0;
        for (j = 0; j < d; ++j) s += (double)x[rows[i] * d + j] * x[rows[i] * d + j];
        if (s > 0)
            for (j = 0; j < d; ++j) q[j] += sign[i] * x[rows[i] * d + j] / sqrt(s);
    }
    for (j = 0; j < d; ++j) qq += q[j] * q[j];
    for (i = 0; i < limit; ++i) {
        double dot = 0, xx = 0;
        int query = 0;
        for (j = 0; j < nw; ++j) query |= rows[j] == i;
        if (query) continue;
        for (j = 0; j < d; ++j) {
            dot += q[j] * x[i * d + j];
            xx += (double)x[i * d + j] * x[i * d + j];
        }
        all[m].s = (qq > 0 && xx > 0) ? dot / sqrt(qq * xx) : 0;
        all[m].row = i;
        ++m;
    }
    free(q);
    qsort(all, m, sizeof *all, scored_desc);
    return m;
}

static void test_gensim_calls(void)
{
    const size_t n = 1500, d = 23; /* two row blocks */
    const size_t limits[] = {0, 700, 1024, 1499, 5000};
    char **words = make_words(n);
    ro_sgns_real *data = (ro_sgns_real *)malloc(n * d * sizeof(ro_sgns_real));
    scored *all = (scored *)malloc(n * sizeof(scored));
    ro_sgns_neighbor out[12];
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    ro_sgns_rng rng;
    ro_sgns_similar_query qy;
    size_t i, j, t, bad = 0, badsim = 0, cnt;
    double sim;
    ro_sgns_rng_seed(&rng, 11, 0);
    fill_normal(&rng, data, n * d);
    for (j = 0; j < d; ++j) data[9 * d + j] = 0; /* a zero row */
    CHECK(ro_sgns_vectors_create(n, d, (const char *const *)words, data, d, &v, NULL, &err) ==
          RO_SGNS_OK);
    /* similarity of two words; a missing one is named, never a crash */
    for (i = 0; i < 40; ++i) {
        size_t a = (i * 37) % n, b = (i * 101 + 5) % n;
        sim = 99;
        CHECK(ro_sgns_similarity_of_words(v, words[a], words[b], &sim, &err) == RO_SGNS_OK);
        CHECK_NEAR(sim, ref_cos(data + a * d, data + b * d, d), 1e-12);
    }
    sim = 99;
    CHECK(ro_sgns_similarity_of_words(v, "w3", "nope", &sim, &err) == RO_SGNS_ERR_NOT_FOUND);
    CHECKF(strcmp(err.message, "'nope' is not in the vocabulary") == 0, "%s", err.message);
    CHECK(ro_sgns_similarity_of_words(v, "gone", "w3", &sim, &err) == RO_SGNS_ERR_NOT_FOUND &&
          strstr(err.message, "'gone'") != NULL && sim == 99);
    CHECK(ro_sgns_similarity_of_words(v, NULL, "w3", &sim, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_similarity_of_words(NULL, "w3", "w3", &sim, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    sim = ro_sgns_cosine(ro_sgns_vectors_get(v, "nope"), data, d);
    CHECK(sim != sim); /* NaN */
    sim = ro_sgns_cosine(data, NULL, d);
    CHECK(sim != sim);
    /* most_similar against the brute force, with and without restrict_vocab,
       negative words, a query word beyond the restriction, the zero row */
    for (t = 0; t < 24; ++t) {
        size_t limit = limits[t % 5], k = 1 + (t * 5) % 12, nrows = limit && limit < n ? limit : n;
        size_t np = 1 + t % 3, nn = t % 4 == 3 ? 0 : (t + 1) % 3, nw = np + nn, m, expect;
        size_t rows[6];
        double sign[6];
        const char *pos[3], *neg[3];
        for (i = 0; i < nw; ++i) {
            rows[i] = (t * 131 + i * 577 + 3) % n;
            if (t == 5 && i == 0) rows[i] = 9; /* the zero row adds nothing */
            sign[i] = i < np ? 1.0 : -1.0;
            if (i < np) pos[i] = words[rows[i]];
            else neg[i - np] = words[rows[i]];
        }
        m = brute_most_similar(data, d, nrows, rows, sign, nw, all);
        expect = k < m ? k : m;
        memset(out, 0x5a, sizeof out);
        cnt = 99;
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, pos, np, neg, nn, limit),
                                   k, out, &cnt, NULL, &err) ==
              RO_SGNS_OK);
        if (cnt != expect) ++bad;
        for (j = 0; j < expect; ++j) {
            size_t r = out[j].row, s;
            double brute = 2;
            if (r >= nrows) {
                ++bad;
                continue;
            }
            for (s = 0; s < m; ++s)
                if (all[s].row == r) brute = all[s].s;
            if (brute > 1.5) ++bad; /* a query row, or beyond the limit */
            if (fabs(brute - all[j].s) > 1e-5) ++bad;
            if (fabs(out[j].similarity - brute) > 1e-5) ++badsim;
        }
    }
    CHECKF(bad == 0, "%lu most_similar mismatches", (unsigned long)bad);
    CHECKF(badsim == 0, "%lu most_similar similarity mismatches", (unsigned long)badsim);
    { /* k beyond the candidates: the rest NO_ROW; a missing word named */
        const char *p[] = {"w1"}, *q[] = {"w0"}, *miss[] = {"w2", "absent"};
        memset(out, 0x5a, sizeof out);
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, p, 1, q, 1, 4),
                                   12, out, &cnt, NULL, &err) == RO_SGNS_OK);
        CHECK(cnt == 2 && out[0].row >= 2 && out[0].row < 4 && out[1].row >= 2 &&
              out[1].row < 4 && out[2].row == RO_SGNS_NO_ROW && out[11].row == RO_SGNS_NO_ROW);
        memset(out, 0x5a, sizeof out);
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, miss, 2, NULL, 0, 0),
                                   5, out, &cnt, NULL, &err) ==
              RO_SGNS_ERR_NOT_FOUND);
        CHECKF(strcmp(err.message, "'absent' is not in the vocabulary") == 0, "%s", err.message);
        CHECK(out[0].row != RO_SGNS_NO_ROW && out[0].row != 0); /* untouched */
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, p, 1, miss, 2, 0), 5, out, &cnt, NULL, &err) ==
              RO_SGNS_ERR_NOT_FOUND);
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, NULL, 0, NULL, 0, 0),
                                   5, out, &cnt, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_most_similar(v, NULL, 5, out, &cnt, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, p, 1, NULL, 0, 0), 0, NULL, &cnt, NULL, &err) ==
              RO_SGNS_OK && cnt == 0);
        /* a zero query (a word that cancels itself) has no cosine: refused */
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, p, 1, p, 1, 0), 5, out, &cnt, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECKF(strstr(err.message, "zero vector") != NULL, "%s", err.message);
        /* only negative words: the rows farthest from w0 */
        CHECK(ro_sgns_most_similar(v, ms_query(&qy, NULL, 0, q, 1, 0),
                                   1, out, &cnt, NULL, &err) == RO_SGNS_OK);
        for (i = 1, sim = 2; i < n; ++i)
            if (ref_cos(data, data + i * d, d) < sim) sim = ref_cos(data, data + i * d, d);
        CHECK_NEAR(out[0].similarity, -sim, 1e-5);
    }
    { /* doesnt_match: the word farthest from the mean of the unit vectors */
        const char *w[] = {"a", "b", "c", "z", "e"};
        ro_sgns_real x[] = {1, 0.1f, 0, 2, 0.4f, 0.1f, 0.9f, 0, -0.1f, -1, 1, 3, 0, 0, 0};
        const char *ask[] = {"a", "z", "b", "c"}, *missing[] = {"a", "nope"};
        double sims[4], u[4][3], mean[3] = {0, 0, 0}, mm = 0, want[4];
        size_t which = 99, wbest = 0;
        ro_sgns_vectors *s = NULL;
        CHECK(ro_sgns_vectors_create(5, 3, w, x, 3, &s, NULL, &err) == RO_SGNS_OK);
        for (i = 0; i < 4; ++i) {
            size_t r = ask[i][0] == 'z' ? 3 : (size_t)(ask[i][0] - 'a');
            double nr = sqrt(x[3 * r] * x[3 * r] + x[3 * r + 1] * x[3 * r + 1] +
                             x[3 * r + 2] * x[3 * r + 2]);
            for (j = 0; j < 3; ++j) mean[j] += (u[i][j] = x[3 * r + j] / nr);
        }
        for (j = 0; j < 3; ++j) mm += mean[j] * mean[j];
        for (i = 0; i < 4; ++i) {
            want[i] = (u[i][0] * mean[0] + u[i][1] * mean[1] + u[i][2] * mean[2]) / sqrt(mm);
            if (want[i] < want[wbest]) wbest = i;
        }
        CHECK(ro_sgns_doesnt_match(s, ask, 4, &which, sims, NULL, &err) == RO_SGNS_OK);
        CHECK(which == 1 && wbest == 1); /* z */
        for (i = 0; i < 4; ++i) CHECK_NEAR(sims[i], want[i], 1e-6);
        CHECK(ro_sgns_doesnt_match(s, ask, 3, &which, NULL, NULL, &err) == RO_SGNS_OK && which == 1);
        which = 99;
        CHECK(ro_sgns_doesnt_match(s, missing, 2, &which, sims, NULL, &err) ==
              RO_SGNS_ERR_NOT_FOUND && which == 99);
        CHECKF(strcmp(err.message, "'nope' is not in the vocabulary") == 0, "%s", err.message);
        CHECK(ro_sgns_doesnt_match(s, ask, 0, &which, sims, NULL, &err) == RO_SGNS_ERR_EMPTY);
        /* one word, and a zero vector (cosine 0 with the mean) */
        CHECK(ro_sgns_doesnt_match(s, ask, 1, &which, sims, NULL, &err) == RO_SGNS_OK &&
              which == 0 && fabs(sims[0] - 1) < 1e-6);
        ask[1] = "e";
        CHECK(ro_sgns_doesnt_match(s, ask, 3, &which, sims, NULL, &err) == RO_SGNS_OK &&
              which == 1 && sims[1] == 0);
        ro_sgns_vectors_free(s);
    }
    { /* normalize: unit rows in the same directions, the zero row stays 0 */
        double eps = IS_DOUBLE ? DBL_EPSILON : FLT_EPSILON, worst = 0, dir = 1;
        ro_sgns_vectors_normalize(v);
        ro_sgns_vectors_normalize(NULL);
        for (i = 0; i < n; ++i) {
            double s = 0;
            for (j = 0; j < d; ++j) s += (double)v->data[i * d + j] * v->data[i * d + j];
            if (i == 9) {
                CHECK(s == 0);
                continue;
            }
            worst = tu_max(worst, fabs(sqrt(s) - 1));
            if (ref_cos(v->data + i * d, data + i * d, d) < dir)
                dir = ref_cos(v->data + i * d, data + i * d, d);
        }
        CHECKF(worst <= 4 * eps, "a norm is 1 + %g", worst);
        CHECK(dir > 1 - 4 * eps);
    }
    ro_sgns_vectors_free(v);
    free_words(words);
    free(data);
    free(all);
}

/* Rows with entries near the largest real: the GEMM's dot products with
   them overflow the real type, the cosines must not. Neighbours of
   a = (1, 1, 1, 1): b = big (1, 1, 1, 1) at 1, c = (1, 1, 1, -1) at 0.5,
   d = -a at -1. The analogy e f g ? (e = (1, 0, 0, 0), f = (0, 1, 0, 0),
   g = (1, 1, 0, 0)): 3CosAdd's query f^ - e^ + g^ = (-0.29, 1.71, 0, 0)
   has cosine 0.99998 with y = (-0.17, 1, 0, 0) and 0.93 with the huge
   x = big (0.2, 1, 0, 0), whose dot product with it is 1.65 big: Inf in
   the real type, so x would win. The answer is y. */
static void test_huge_vectors(void)
{
    const ro_sgns_real big =
        (ro_sgns_real)((sizeof(ro_sgns_real) == sizeof(double) ? DBL_MAX : FLT_MAX) / 1.5);
    const char *w[] = {"a", "b", "c", "d", "e", "f", "g", "x", "y"};
    ro_sgns_real x[9 * 4] = {1,  1,  1,  1,  /* a */
                             0,  0,  0,  0,  /* b: big (1, 1, 1, 1), below */
                             1,  1,  1,  -1, /* c */
                             -1, -1, -1, -1, /* d */
                             1,  0,  0,  0,  /* e */
                             0,  1,  0,  0,  /* f */
                             1,  1,  0,  0,  /* g */
                             0,  0,  0,  0,  /* x: big (0.2, 1, 0, 0), below */
                             (ro_sgns_real)-0.17, 1, 0, 0}; /* y */
    ro_sgns_vectors *v = NULL;
    ro_sgns_analogies *q = NULL;
    ro_sgns_analogy_result *r = NULL;
    ro_sgns_analogy_config c = ro_sgns_analogy_config_default();
    ro_sgns_error err;
    size_t cnt = 0, j;
    for (j = 0; j < 4; ++j) x[4 + j] = big;
    x[7 * 4] = (ro_sgns_real)(0.2 * (double)big);
    x[7 * 4 + 1] = big;
    CHECK(ro_sgns_vectors_create(9, 4, w, x, 4, &v, NULL, &err) == RO_SGNS_OK);
    if (!v) return;
    /* the 8 others of a, against the cosines by hand */
    {
        ro_sgns_neighbor all[8];
        const double want[9] = {0, 1, 0.5, -1, 0.5, 0.5, 0.5 * sqrt(2.0),
                                1.2 / (2 * sqrt(1.04)), 0.83 / (2 * sqrt(1.0289))};
        size_t bad = 0;
        CHECK(ro_sgns_neighbors_of_word(v, "a", 8, all, &cnt, NULL, &err) == RO_SGNS_OK &&
              cnt == 8);
        for (j = 0; j < 8; ++j)
            if (!(all[j].row >= 1 && all[j].row < 9 &&
                  fabs(all[j].similarity - want[all[j].row]) < 1e-6))
                ++bad;
        CHECKF(bad == 0, "%lu cosines with a wrong; the first: row %lu, %g", (unsigned long)bad,
               (unsigned long)all[0].row, all[0].similarity);
        CHECK(all[0].row == 1 && all[7].row == 3);
        CHECK(fabs(ro_sgns_cosine(x, x + 4, 4) - 1) < 1e-12);
        CHECK(fabs(ro_sgns_cosine(x + 7 * 4, x + 8 * 4, 4) - 0.966 / sqrt(1.04 * 1.0289)) <
              1e-6);
    }
    CHECK(ro_sgns_analogies_load_memory("e f g y\n", 8, &q, NULL, &err) == RO_SGNS_OK);
    c.restrict_vocab = 0;
    if (q && ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_OK) {
        CHECKF(r->seen == 1 && r->correct == 1, "3CosAdd with a huge row: %lu of %lu",
               (unsigned long)r->correct, (unsigned long)r->seen);
        ro_sgns_analogy_result_free(r);
    } else {
        CHECKF(0, "analogy_eval: %s", err.message);
    }
    ro_sgns_analogies_free(q);
    ro_sgns_vectors_free(v);
}

/* ---- analogies ------------------------------------------------------------ */

static void test_analogy_hand(void)
{
    /* dimensions: royal, male, female, capital-of, france, italy, fruit */
    const char *w[] = {"man",    "woman", "king",  "queen", "paris",
                       "france", "rome",  "italy", "apple", "Boy"};
    ro_sgns_real x[10 * 7] = {0, 1, 0, 0, 0, 0, 0,     /* man */
                              0, 0, 1, 0, 0, 0, 0,     /* woman */
                              1, 1, 0, 0, 0, 0, 0,     /* king */
                              1, 0, 1, 0, 0, 0, 0,     /* queen */
                              0, 0, 0, 1, 1, 0, 0,     /* paris */
                              0, 0, 0, 0, 1, 0, 0,     /* france */
                              0, 0, 0, 1, 0, 1, 0,     /* rome */
                              0, 0, 0, 0, 0, 1, 0,     /* italy */
                              0, 0, 0, 0, 0, 0, 1,     /* apple */
                              0, 1, 0, 0, 0, 0, 0.2f}; /* Boy */
    const char *file = ": gender\n"
                       "man woman king queen\n"
                       "king queen man woman\n"
                       "man woman boy girl\n" /* girl is not in the vocabulary */
                       "\n"
                       ": capital-country\r\n"
                       "paris france rome italy\r\n"
                       "france paris italy rome\n"
                       "MAN WOMAN KING QUEEN\n";
    ro_sgns_vectors *v = NULL;
    ro_sgns_analogies *q = NULL;
    ro_sgns_analogy_result *r = NULL;
    ro_sgns_analogy_config c = ro_sgns_analogy_config_default();
    ro_sgns_error err;
    char line[512];
    CHECK(c.method == RO_SGNS_3COSADD && c.epsilon == (double)0.001 && c.exclude_query_words == 1 &&
          c.fold_case == 0 && c.restrict_vocab == 0);
    CHECK(ro_sgns_vectors_create(10, 7, w, x, 7, &v, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_analogies_load_memory(file, strlen(file), &q, NULL, &err) == RO_SGNS_OK);
    CHECK(q->n == 6 && q->nsections == 2);
    CHECK(strcmp(q->section_names[0], "gender") == 0 &&
          strcmp(q->section_names[1], "capital-country") == 0);
    CHECK(strcmp(q->words[4 * 3 + 3], "italy") == 0 && q->section[3] == 1);

    CHECK(ro_sgns_analogy_eval(v, q, NULL, &r, NULL, &err) == RO_SGNS_OK);
    CHECKF(r->total == 6 && r->seen == 4 && r->skipped == 2 && r->correct == 4,
           "seen %lu correct %lu", (unsigned long)r->seen, (unsigned long)r->correct);
    CHECK(r->nsections == 2 && r->sections[0].total == 3 && r->sections[0].seen == 2 &&
          r->sections[0].correct == 2 && r->sections[1].total == 3 && r->sections[1].seen == 2);
    CHECK(strcmp(r->sections[1].name, "capital-country") == 0);
    CHECK_NEAR(r->accuracy, 1.0, 0);
    ro_sgns_analogy_describe(r, line, sizeof line);
    CHECKF(strstr(line, "3CosAdd") && strstr(line, "2 skipped") && strstr(line, "excluded") &&
               strstr(line, "case folding off"),
           "%s", line);
    ro_sgns_analogy_result_free(r);

    c.method = RO_SGNS_3COSMUL;
    CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r->seen == 4 && r->correct == 4);
    ro_sgns_analogy_describe(r, line, sizeof line);
    CHECKF(strstr(line, "3CosMul (epsilon 0.001)") != NULL, "%s", line);
    ro_sgns_analogy_result_free(r);

    /* case folding: "MAN WOMAN KING QUEEN" is answered, boy finds Boy (girl still missing) */
    c.fold_case = 1;
    CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r->seen == 5 && r->correct == 5 && r->sections[1].seen == 3);
    ro_sgns_analogy_result_free(r);

    /* query words allowed: "apple apple man ?" is man itself (b^ - a^ + c^ = man^);
       excluded, it is Boy, the nearest other word */
    {
        ro_sgns_analogies *q2 = NULL;
        CHECK(ro_sgns_analogies_load_memory("apple apple man man\n", 20, &q2, NULL, &err) ==
              RO_SGNS_OK);
        c = ro_sgns_analogy_config_default();
        c.exclude_query_words = 0;
        CHECK(ro_sgns_analogy_eval(v, q2, &c, &r, NULL, &err) == RO_SGNS_OK);
        CHECK(r->seen == 1 && r->correct == 1);
        ro_sgns_analogy_describe(r, line, sizeof line);
        CHECK(strstr(line, "query words allowed") != NULL);
        ro_sgns_analogy_result_free(r);
        c.method = RO_SGNS_3COSMUL;
        CHECK(ro_sgns_analogy_eval(v, q2, &c, &r, NULL, &err) == RO_SGNS_OK);
        CHECK(r->seen == 1 && r->correct == 1);
        ro_sgns_analogy_result_free(r);
        c.exclude_query_words = 1;
        CHECK(ro_sgns_analogy_eval(v, q2, &c, &r, NULL, &err) == RO_SGNS_OK);
        CHECK(r->seen == 1 && r->correct == 0);
        ro_sgns_analogy_result_free(r);
        ro_sgns_analogies_free(q2);
    }

    /* the first 4 rows only: the capital questions fall out */
    c = ro_sgns_analogy_config_default();
    c.restrict_vocab = 4;
    CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r->seen == 2 && r->correct == 2 && r->sections[1].seen == 0 && r->vocab_rows == 4);
    ro_sgns_analogy_describe(r, line, sizeof line);
    CHECKF(strstr(line, "first 4 rows") != NULL, "%s", line);
    ro_sgns_analogy_result_free(r);

    c.method = (ro_sgns_analogy_method)g_seven; /* not a method (through an int for C++) */
    CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    c = ro_sgns_analogy_config_default();
    c.method = RO_SGNS_3COSMUL;
    c.epsilon = 0;
    CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    c.epsilon = HUGE_VAL;
    CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);

    ro_sgns_analogies_free(q);
    ro_sgns_vectors_free(v);

    /* malformed question files */
    CHECK(ro_sgns_analogies_load_memory("a b c\n", 6, &q, NULL, &err) == RO_SGNS_ERR_FORMAT &&
          strstr(err.message, "line 1"));
    CHECK(ro_sgns_analogies_load_memory(": s\na b c d\na b c d e\n", 22, &q, NULL, &err) ==
              RO_SGNS_ERR_FORMAT &&
          strstr(err.message, "line 3"));
    CHECK(ro_sgns_analogies_load_memory(": s\n# only a comment\n", 20, &q, NULL, &err) ==
          RO_SGNS_ERR_EMPTY);
    CHECK(ro_sgns_analogies_load_memory("a b c d\n", 8, &q, NULL, &err) == RO_SGNS_OK &&
          q->nsections == 1 && q->section_names[0][0] == '\0');
    ro_sgns_analogies_free(q);
}

/* Brute-force analogy answer in double over all rows, query rows excluded;
   *gap gets best - second best. */
static size_t brute_analogy(const ro_sgns_real *x, size_t n, size_t d, const size_t *rw, int mul,
                            double eps, double *gap)
{
    double best = -1e300, second = -1e300;
    size_t r, arg = 0;
    for (r = 0; r < n; ++r) {
        double s, ca, cb, cc;
        if (r == rw[0] || r == rw[1] || r == rw[2]) continue;
        ca = ref_cos(x + r * d, x + rw[0] * d, d);
        cb = ref_cos(x + r * d, x + rw[1] * d, d);
        cc = ref_cos(x + r * d, x + rw[2] * d, d);
        s = mul ? (0.5 * (1 + cb)) * (0.5 * (1 + cc)) / (0.5 * (1 + ca) + eps) : cb - ca + cc;
        if (s > best) {
            second = best;
            best = s;
            arg = r;
        } else if (s > second) {
            second = s;
        }
    }
    *gap = best - second;
    return arg;
}

static void test_analogy_random(void)
{
    const size_t n = 1100, nq = 600; /* 2 question blocks, 2 row blocks */
    const size_t d = tu_quick() ? 8 : 24;   /* RO_SGNS_TEST_QUICK: less brute force */
    char **words = make_words(n);
    ro_sgns_real *x = (ro_sgns_real *)malloc(n * d * sizeof(ro_sgns_real));
    char *file = (char *)malloc(nq * 64 + 64);
    size_t len = 0, i, t, expect[2] = {0, 0};
    int mul;
    ro_sgns_vectors *v = NULL;
    ro_sgns_analogies *q = NULL;
    ro_sgns_analogy_result *r = NULL;
    ro_sgns_analogy_config c = ro_sgns_analogy_config_default();
    ro_sgns_error err;
    ro_sgns_rng rng;
    ro_sgns_rng_seed(&rng, 99, 0);
    fill_normal(&rng, x, n * d);
    CHECK(ro_sgns_vectors_create(n, d, (const char *const *)words, x, d, &v, NULL, &err) ==
          RO_SGNS_OK);
    for (mul = 0; mul < 2; ++mul) {
        len = (size_t)sprintf(file, ": random\n");
        expect[mul] = 0;
        for (i = 0; i < nq; ++i) {
            size_t rw[4], ans;
            double gap;
            for (t = 0; t < 3; ++t) rw[t] = (size_t)(urand(&rng) * (double)n);
            if (rw[0] == rw[1] || rw[1] == rw[2] || rw[0] == rw[2])
                rw[1] = (rw[0] + 1) % n, rw[2] = (rw[0] + 2) % n;
            ans = brute_analogy(x, n, d, rw, mul, 0.001, &gap);
            /* every other question asks for the brute-force answer, when it is clear */
            rw[3] = (i % 2 == 0 && gap > 1e-4) ? ans : (ans + 1 + i) % n;
            if (rw[3] == ans) ++expect[mul];
            len += (size_t)sprintf(file + len, "%s %s %s %s\n", words[rw[0]], words[rw[1]],
                                   words[rw[2]], words[rw[3]]);
        }
        CHECK(ro_sgns_analogies_load_memory(file, len, &q, NULL, &err) == RO_SGNS_OK);
        c.method = mul ? RO_SGNS_3COSMUL : RO_SGNS_3COSADD;
        CHECK(ro_sgns_analogy_eval(v, q, &c, &r, NULL, &err) == RO_SGNS_OK);
        CHECKF(r->seen == nq && r->correct == expect[mul], "%s: %lu correct, brute force %lu",
               mul ? "3CosMul" : "3CosAdd", (unsigned long)r->correct, (unsigned long)expect[mul]);
        CHECK(expect[mul] > nq / 4);
        ro_sgns_analogy_result_free(r);
        ro_sgns_analogies_free(q);
    }
    ro_sgns_vectors_free(v);
    free_words(words);
    free(x);
    free(file);
}

/* ---- similarity ----------------------------------------------------------- */

static void test_similarity(void)
{
    const char *w[] = {"cat", "dog", "car", "bus", "tree", "Cat", "Tiger", "cat2"};
    ro_sgns_real x[8 * 3] = {1,    0.1f, 0,    0.9f, 0.3f, 0, 0,    1,    0.2f, 0.1f, 0.9f, 0.4f,
                             0.5f, 0.5f, 0.5f, -1,   0,    0, 0.8f, 0.2f, 0.1f, 3,    1,    1};
    const char *pairs = "# a comment\n"
                        "cat\tdog\t9.0\n"
                        "car bus 8.5   # trailing comment\n"
                        "\n"
                        "cat car 2\r\n"
                        "dog tree 3.5\n"
                        "tiger cat 7\n" /* tiger only with case folding */
                        "cat unicorn 5\n";
    ro_sgns_vectors *v = NULL;
    ro_sgns_pairs *p = NULL;
    ro_sgns_similarity_result r;
    ro_sgns_similarity_config c = ro_sgns_similarity_config_default();
    ro_sgns_error err;
    double h[6], s[6], rho;
    char line[512];
    CHECK(c.oov == RO_SGNS_OOV_SKIP && c.fold_case == 0 && c.restrict_vocab == 0);
    CHECK(ro_sgns_vectors_create(8, 3, w, x, 3, &v, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_pairs_load_memory(pairs, strlen(pairs), &p, NULL, &err) == RO_SGNS_OK);
    CHECK(p->n == 6 && strcmp(p->word1[1], "car") == 0 && strcmp(p->word2[5], "unicorn") == 0 &&
          p->score[1] == 8.5);

    /* skip: 4 pairs */
    CHECK(ro_sgns_similarity_eval(v, p, NULL, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r.pairs_total == 6 && r.pairs_used == 4 && r.pairs_oov == 2 && r.vocab_rows == 8);
    h[0] = 9, s[0] = ref_cos(x + 0, x + 3, 3);
    h[1] = 8.5, s[1] = ref_cos(x + 6, x + 9, 3);
    h[2] = 2, s[2] = ref_cos(x + 0, x + 6, 3);
    h[3] = 3.5, s[3] = ref_cos(x + 3, x + 12, 3);
    CHECK_NEAR(r.spearman, ref_spearman(4, h, s), 1e-12);
    ro_sgns_similarity_describe(&r, line, sizeof line);
    CHECKF(strstr(line, "4 of 6 pairs used, 2 skipped (out of vocabulary)") &&
               strstr(line, "case folding off") && strstr(line, "all 8 rows"),
           "%s", line);

    /* zero: 6 pairs, the missing ones at cosine 0 */
    c.oov = RO_SGNS_OOV_ZERO;
    CHECK(ro_sgns_similarity_eval(v, p, &c, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r.pairs_used == 6 && r.pairs_oov == 2);
    h[4] = 7, s[4] = 0;
    h[5] = 5, s[5] = 0;
    CHECK_NEAR(r.spearman, ref_spearman(6, h, s), 1e-12);
    ro_sgns_similarity_describe(&r, line, sizeof line);
    CHECKF(strstr(line, "2 out of vocabulary scored 0") != NULL, "%s", line);

    /* folding: tiger -> Tiger; "cat" -> row 0 (the first of cat/Cat) */
    c = ro_sgns_similarity_config_default();
    c.fold_case = 1;
    CHECK(ro_sgns_similarity_eval(v, p, &c, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r.pairs_used == 5 && r.pairs_oov == 1);
    h[4] = 7, s[4] = ref_cos(x + 18, x + 0, 3);
    CHECK_NEAR(r.spearman, ref_spearman(5, h, s), 1e-12);
    CHECK(ro_sgns_spearman(5, h, s, &rho, NULL, &err) == RO_SGNS_OK &&
          fabs(rho - r.spearman) < 1e-15);

    /* restriction to the first 2 rows: only "cat dog" is left -> too few pairs */
    c = ro_sgns_similarity_config_default();
    c.restrict_vocab = 2;
    memset(&r, 0x5A, sizeof r);
    CHECK(ro_sgns_similarity_eval(v, p, &c, &r, NULL, &err) == RO_SGNS_ERR_EMPTY);
    CHECKF(strstr(err.message, "5 of 6 pairs out of vocabulary") != NULL, "%s", err.message);
    CHECK(r.pairs_total == (size_t)0x5A5A5A5A5A5A5A5Aull); /* untouched */
    c.restrict_vocab = 4;
    CHECK(ro_sgns_similarity_eval(v, p, &c, &r, NULL, &err) == RO_SGNS_OK);
    CHECK(r.pairs_used == 3 && r.vocab_rows == 4);
    ro_sgns_similarity_describe(&r, line, sizeof line);
    CHECKF(strstr(line, "first 4 rows") != NULL, "%s", line);
    ro_sgns_pairs_free(p);

    /* malformed pair files */
    CHECK(ro_sgns_pairs_load_memory("a b 1\na b\n", 10, &p, NULL, &err) == RO_SGNS_ERR_FORMAT &&
          strstr(err.message, "line 2"));
    CHECK(ro_sgns_pairs_load_memory("a b x\n", 6, &p, NULL, &err) == RO_SGNS_ERR_FORMAT &&
          strstr(err.message, "not a number"));
    CHECK(ro_sgns_pairs_load_memory("a b nan\n", 8, &p, NULL, &err) == RO_SGNS_ERR_FORMAT &&
          strstr(err.message, "NaN"));
    CHECK(ro_sgns_pairs_load_memory("a b 1 2\n", 8, &p, NULL, &err) == RO_SGNS_ERR_FORMAT);
    CHECK(ro_sgns_pairs_load_memory("# nothing\n\n", 11, &p, NULL, &err) == RO_SGNS_ERR_EMPTY);
    CHECK(ro_sgns_pairs_load_memory("", 0, &p, NULL, &err) == RO_SGNS_ERR_EMPTY);
    CHECK(ro_sgns_pairs_load_memory("a\0 b 1\n", 7, &p, NULL, &err) == RO_SGNS_ERR_FORMAT);
    CHECK(ro_sgns_pairs_load_memory("\xEF\xBB\xBF"
                                    "a b 1\n",
                                    9, &p, NULL, &err) == RO_SGNS_OK &&
          strcmp(p->word1[0], "a") == 0); /* a byte order mark is skipped */
    ro_sgns_pairs_free(p);
    ro_sgns_vectors_free(v);
}

/* The shipped word-similarity files load, with the pair counts of SOURCES.md. */
static void test_wordsim_files(void)
{
    const char *dir[] = {"../shared/data/wordsim/", "../../shared/data/wordsim/"};
    const char *name[] = {"ws353.txt", "ws353_sim.txt", "ws353_rel.txt", "simlex999.txt",
                          "men.txt"};
    const size_t count[] = {353, 203, 252, 999, 3000};
    char path[256];
    size_t i, k;
    ro_sgns_pairs *p = NULL;
    ro_sgns_error err;
    FILE *f = NULL;
    for (k = 0; k < 2 && !f; ++k) {
        snprintf(path, sizeof path, "%s%s", dir[k], name[0]);
        f = fopen(path, "rb");
    }
    if (!f) {
        tu_skip("eval", "../shared/data/wordsim not found (the pair files)", 1);
        return;
    }
    fclose(f);
    --k;
    for (i = 0; i < 5; ++i) {
        snprintf(path, sizeof path, "%s%s", dir[k], name[i]);
        CHECKF(ro_sgns_pairs_load_path(path, &p, NULL, &err) == RO_SGNS_OK, "%s", err.message);
        CHECKF(p->n == count[i], "%s: %lu pairs", name[i], (unsigned long)p->n);
        ro_sgns_pairs_free(p);
    }
    CHECK(ro_sgns_pairs_load_path("no/such/file.txt", &p, NULL, &err) == RO_SGNS_ERR_IO);
}

/* ---- formats: round trips ------------------------------------------------- */

static void test_round_trips(void)
{
    const size_t n = 60, d = 7;
    char **words = make_words(n);
    ro_sgns_real *x = (ro_sgns_real *)malloc(n * d * sizeof(ro_sgns_real));
    ro_sgns_vectors *v = NULL, *u = NULL;
    ro_sgns_error err;
    ro_sgns_rng rng;
    void *buf = NULL;
    size_t len = 0, i, j;
    int f;
    const ro_sgns_vectors_format fmts[] = {RO_SGNS_W2V_TEXT, RO_SGNS_W2V_BINARY,
                                           RO_SGNS_GLOVE_TEXT};
    ro_sgns_rng_seed(&rng, 5, 0);
    fill_normal(&rng, x, n * d);
    /* awkward values: exact and inexact decimals, signed zero, tiny, huge, subnormal */
    x[0] = (ro_sgns_real)0.1;
    x[1] = (ro_sgns_real)-0.0;
    x[2] = (ro_sgns_real)1e-30;
    x[3] = (ro_sgns_real)3.0e38;
    x[4] = (ro_sgns_real)1.4e-45; /* the smallest float subnormal */
    x[5] = (ro_sgns_real)-123456.789;
    x[6] = (ro_sgns_real)(1.0 / 3.0);
    x[7] = (ro_sgns_real)16777217.0;
    /* UTF-8 words kept as they are */
    strcpy(words[1], "na\xc3\xafve");             /* naive with i-diaeresis */
    strcpy(words[2], "\xe6\x97\xa5\xe6\x9c\xac"); /* Japanese "nihon" */
    strcpy(words[3], "stra\xc3\x9f"
                     "e");                /* strasse with sharp s */
    strcpy(words[4], "\xf0\x9f\x98\x80"); /* an emoji, 4 bytes */
    CHECK(ro_sgns_vectors_create(n, d, (const char *const *)words, x, d, &v, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(ro_sgns_vectors_get(v, "\xe6\x97\xa5\xe6\x9c\xac") == v->data + 2 * d);
    CHECK(ro_sgns_vectors_get(v, "nope") == NULL);
    for (f = 0; f < 3; ++f) {
        CHECK(ro_sgns_vectors_save_memory(v, fmts[f], &buf, &len, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_vectors_load_memory(buf, len, fmts[f], 0, &u, NULL, &err) == RO_SGNS_OK);
        if (fmts[f] == RO_SGNS_W2V_BINARY && IS_DOUBLE) { /* binary holds float32 */
            int ok = u->n == n && u->d == d;
            for (i = 0; ok && i < n * d; ++i) ok = u->data[i] == (ro_sgns_real)(float)x[i];
            CHECK(ok);
        } else {
            CHECKF(same_vectors(v, u), "format %d not bit-exact", f);
        }
        CHECK(u->data[1] == 0 && 1 / u->data[1] < 0); /* -0 stays -0 */
        { /* the same bytes in 1..7-byte chunks through the callback reader */
            chunky ch;
            ro_sgns_vectors *w = NULL;
            ch.p = (const unsigned char *)buf;
            ch.len = len;
            ch.pos = ch.step = 0;
            CHECK(ro_sgns_vectors_load_callback(chunky_read, &ch, fmts[f], 0, &w, NULL, &err) ==
                  RO_SGNS_OK);
            CHECK(same_vectors(u, w));
            ro_sgns_vectors_free(w);
        }
        { /* limit: the first 10 */
            ro_sgns_vectors *w = NULL;
            CHECK(ro_sgns_vectors_load_memory(buf, len, fmts[f], 10, &w, NULL, &err) == RO_SGNS_OK);
            CHECK(w->n == 10 && w->d == d &&
                  memcmp(w->data, u->data, 10 * d * sizeof(ro_sgns_real)) == 0 &&
                  strcmp(w->words[9], u->words[9]) == 0);
            ro_sgns_vectors_free(w);
            CHECK(ro_sgns_vectors_load_memory(buf, len, fmts[f], n + 5, &w, NULL, &err) ==
                  RO_SGNS_OK);
            CHECK(w->n == n);
            ro_sgns_vectors_free(w);
        }
        if (fmts[f] == RO_SGNS_W2V_BINARY) {
            /* gensim's layout, no newline after a vector, reads the same */
            unsigned char *g = (unsigned char *)malloc(len);
            const unsigned char *b = (const unsigned char *)buf;
            size_t gl = 0, p = 0, row = 0;
            ro_sgns_vectors *w = NULL;
            while (b[p] != '\n') g[gl++] = b[p++];
            g[gl++] = b[p++];
            for (row = 0; row < n; ++row) {
                while (b[p] != ' ') g[gl++] = b[p++];
                for (j = 0; j < 1 + 4 * d; ++j) g[gl++] = b[p++];
                CHECK(b[p] == '\n');
                ++p;
            }
            CHECK(ro_sgns_vectors_load_memory(g, gl, RO_SGNS_W2V_BINARY, 0, &w, NULL, &err) ==
                  RO_SGNS_OK);
            CHECK(same_vectors(u, w));
            ro_sgns_vectors_free(w);
            free(g);
        }
        ro_sgns_vectors_free(u);
        free(buf);
    }
    { /* a text file's exact bytes */
        const char *wd[] = {"a", "b"};
        ro_sgns_real y[] = {1, (ro_sgns_real)-2.5, (ro_sgns_real)0.25, 0};
        ro_sgns_vectors *s = NULL;
        CHECK(ro_sgns_vectors_create(2, 2, wd, y, 2, &s, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_vectors_save_memory(s, RO_SGNS_W2V_TEXT, &buf, &len, NULL, &err) ==
              RO_SGNS_OK);
        CHECK(len == 22 && memcmp(buf, "2 2\na 1 -2.5\nb 0.25 0\n", 22) == 0);
        free(buf);
        CHECK(ro_sgns_vectors_save_memory(s, RO_SGNS_GLOVE_TEXT, &buf, &len, NULL, &err) ==
              RO_SGNS_OK);
        CHECK(len == 18 && memcmp(buf, "a 1 -2.5\nb 0.25 0\n", 18) == 0);
        free(buf);
        CHECK(ro_sgns_vectors_save_memory(s, RO_SGNS_W2V_BINARY, &buf, &len, NULL, &err) ==
              RO_SGNS_OK);
        CHECK(
            len == 4 + 2 * (2 + 8 + 1) &&
            memcmp(buf,
                   "2 2\na \x00\x00\x80\x3f\x00\x00\x20\xc0\nb \x00\x00\x80\x3e\x00\x00\x00\x00\n",
                   len) == 0);
        free(buf);
        ro_sgns_vectors_free(s);
    }
    ro_sgns_vectors_free(v);
    free_words(words);
    free(x);
}

/* A binary file built byte by byte: the little-endian bytes decode to the same
   values on any host (this is what a big-endian machine reads too). */
static void test_binary_by_hand(void)
{
    static const unsigned char file[] = {
        '2',  ' ',  '3',  '\r', '\n', 'o',  'n',
        'e',  ' ',  0x00, 0x00, 0x80, 0x3F,      /* 1.0f     = 0x3F800000 */
        0x00, 0x00, 0x20, 0xC0,                  /* -2.5f    = 0xC0200000 */
        0x00, 0x00, 0x20, 0x3E,                  /* 0.15625f = 0x3E200000 */
        '\n', 0xC3, 0xA9, 't',  0xC3, 0xA9, ' ', /* "ete" with accents, UTF-8 */
        0x01, 0x00, 0x00, 0x00,                  /* the smallest subnormal, 2^-149 */
        0xFF, 0xFF, 0x7F, 0x7F,                  /* FLT_MAX = 0x7F7FFFFF */
        0x00, 0x00, 0x00, 0x80                   /* -0.0f */
        /* no final newline, as gensim writes it */
    };
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    CHECK(ro_sgns_vectors_load_memory(file, sizeof file, RO_SGNS_W2V_BINARY, 0, &v, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(v->n == 2 && v->d == 3);
    CHECK(strcmp(v->words[0], "one") == 0 && strcmp(v->words[1], "\xc3\xa9t\xc3\xa9") == 0);
    CHECK(v->data[0] == 1.0f && v->data[1] == -2.5f && v->data[2] == 0.15625f);
    CHECK(v->data[3] == (ro_sgns_real)ldexp(1.0, -149) && v->data[4] == (ro_sgns_real)FLT_MAX);
    CHECK(v->data[5] == 0 && 1 / v->data[5] < 0);
    CHECK(ro_sgns_vectors_find(v, "\xc3\xa9t\xc3\xa9", NULL) == 1);
    ro_sgns_vectors_free(v);
}

static void test_text_tolerance(void)
{
    const char crlf[] = "2 3\r\nalpha 1 2 3\r\nbeta\t4\t5 6  \r\n\r\n";
    const char glove[] = "\xEF\xBB\xBFx 0.5 -1e-3 +2\ny .25 5. 1E2\n";
    const char tail[] = "1 2\nw 1 2\n  \n";
    ro_sgns_vectors *v = NULL;
    ro_sgns_error err;
    CHECK(ro_sgns_vectors_load_memory(crlf, sizeof crlf - 1, RO_SGNS_W2V_TEXT, 0, &v, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(v->n == 2 && v->d == 3 && strcmp(v->words[1], "beta") == 0 && v->data[5] == 6);
    ro_sgns_vectors_free(v);
    CHECK(ro_sgns_vectors_load_memory(glove, sizeof glove - 1, RO_SGNS_GLOVE_TEXT, 0, &v, NULL,
                                      &err) == RO_SGNS_OK);
    CHECK(v->n == 2 && v->d == 3 &&
          strcmp(v->words[0], "\xEF\xBB\xBFx") == 0 && /* BOM kept, as gensim */
          v->data[1] == (ro_sgns_real)-1e-3 && v->data[3] == 0.25 && v->data[4] == 5 &&
          v->data[5] == 100);
    ro_sgns_vectors_free(v);
    CHECK(ro_sgns_vectors_load_memory(tail, sizeof tail - 1, RO_SGNS_W2V_TEXT, 0, &v, NULL, &err) ==
          RO_SGNS_OK);
    CHECK(v->n == 1 && v->data[1] == 2);
    ro_sgns_vectors_free(v);
}

/* ---- formats: malformed input --------------------------------------------- */

static void test_malformed(void)
{
    char *big;
    size_t i;
    const ro_sgns_vectors_format T = RO_SGNS_W2V_TEXT, B = RO_SGNS_W2V_BINARY,
                                 G = RO_SGNS_GLOVE_TEXT;
    /* word2vec text */
    FAIL_TEXT("fewer vectors than the header", "3 2\na 1 2\nb 3 4\n", T, "file ends after 2");
    /* a file cut inside its last number (no final newline): not read with
       the number's first digits */
    FAIL_TEXT("cut in the last number", "2 2\na 1 2\nb 3 4.2", T,
              "line 3: the file ends inside the line");
    FAIL_TEXT("cut in the last number, GloVe", "a 1 2\nb 3 4.2", G,
              "line 2: the file ends inside the line");
    FAIL_TEXT("cut in the only line, GloVe", "a 1 2.7", G, "line 1: the file ends inside");
    FAIL_TEXT("cut after the last number", "1 2\na 1 2", T, "without its newline");
    FAIL_TEXT("more vectors than the header", "1 2\na 1 2\nb 3 4\n", T, "line 3");
    FAIL_TEXT("short line", "2 3\na 1 2 3\nb 4 5\n", T, "line 3");
    FAIL_TEXT("long line", "2 3\na 1 2 3 4\nb 4 5 6\n", T, "line 2");
    FAIL_TEXT("not a number", "1 2\na 1 x\n", T, "line 2: not a number");
    FAIL_TEXT("number with junk", "1 2\na 1 2.5q\n", T, "line 2");
    FAIL_TEXT("NaN", "1 2\na nan 1\n", T, "NaN or Inf");
    FAIL_TEXT("Inf", "1 2\na 1 -Inf\n", T, "NaN or Inf");
    FAIL_TEXT("infinity", "1 2\na 1 infinity\n", T, "NaN or Inf");
    FAIL_TEXT("overflow", "1 2\na 1 1e999\n", T, "out of range");
    FAIL_TEXT("hex", "1 2\na 1 0x1p3\n", T, "not a number");
    FAIL_TEXT("lone dot", "1 2\na 1 .\n", T, "not a number");
    FAIL_TEXT("exponent without digits", "1 2\na 1 1e\n", T, "not a number");
    if (!IS_DOUBLE) FAIL_TEXT("beyond float", "1 2\na 1 1e39\n", T, "out of range");
    FAIL_TEXT("zero vectors", "0 3\n", T, "0 vectors");
    FAIL_TEXT("zero dimension", "2 0\na\nb\n", T, "dimension 0");
    FAIL_TEXT("absurd dimension", "1 100000000\na 1\n", T, "RO_SGNS_FILE_MAX_DIM");
    FAIL_TEXT("absurd count", "99999999999999999999999 3\n", T, "line 1");
    /* 10^12 vectors: fine for a 64-bit size_t (the body is short), absurd for 32 bits */
    expect_fail("huge count, short body", "1000000000000 2\na 1 2\n", 22, T, 0, RO_SGNS_ERR_FORMAT,
                sizeof(size_t) >= 8 ? "file ends after 1" : "line 1: header says");
    FAIL_TEXT("no header", "a 1 2\n", T, "line 1");
    FAIL_TEXT("header without d", "5\n", T, "line 1");
    FAIL_TEXT("header with more", "1 2 3\na 1 2\n", T, "line 1");
    FAIL_TEXT("negative dimension", "1 -2\na 1 2\n", T, "line 1");
    FAIL_TEXT("empty file", "", T, "line 1");
    FAIL_TEXT("duplicate word", "2 2\na 1 2\na 3 4\n", T, "line 3: duplicate word 'a'");
    expect_fail("NUL in word", "1 1\na\0b 1\n", 10, T, 0, RO_SGNS_ERR_FORMAT, "control byte");
    expect_fail("NUL in number", "1 1\nab 1\0\n", 10, T, 0, RO_SGNS_ERR_FORMAT, "line 2");
    big = (char *)malloc(20000);
    memcpy(big, "1 1\n", 4);
    for (i = 4; i < 4 + 5000; ++i) big[i] = 'w';
    memcpy(big + i, " 1\n", 3);
    expect_fail("word too long", big, i + 3, T, 0, RO_SGNS_ERR_FORMAT, "longer than");
    memcpy(big, "1 1\nw 1", 7);
    for (i = 7; i < 7 + 400; ++i) big[i] = '0';
    big[i++] = '\n';
    expect_fail("number too long", big, i, T, 0, RO_SGNS_ERR_FORMAT, "longer than");
    free(big);

    /* GloVe */
    FAIL_TEXT("GloVe short line", "a 1 2 3\nb 1 2\n", G, "line 2");
    FAIL_TEXT("GloVe long line", "a 1 2\nb 1 2 3\n", G, "line 2");
    FAIL_TEXT("GloVe word alone", "a\nb 1\n", G, "line 1: a word without numbers");
    FAIL_TEXT("GloVe with a word2vec header", "2 3\na 1 2 3\nb 4 5 6\n", G, "word2vec header");
    FAIL_TEXT("GloVe duplicate", "a 1\nb 2\na 3\n", G, "line 3: duplicate");
    FAIL_TEXT("GloVe NaN", "a 1\nb NaN\n", G, "line 2: NaN");
    expect_fail("GloVe empty", "", 0, G, 0, RO_SGNS_ERR_EMPTY, NULL);
    expect_fail("GloVe blank", "\n \r\n\n", 5, G, 0, RO_SGNS_ERR_EMPTY, NULL);

    /* binary */
#define BIN(s) s, sizeof(s) - 1
    expect_fail("binary truncated in a vector", BIN("1 2\na \x00\x00\x80\x3f\x00\x00"), B, 0,
                RO_SGNS_ERR_FORMAT, "byte 12: truncated");
    expect_fail("binary truncated in a word", BIN("2 1\na \x00\x00\x80\x3f\nbc"), B, 0,
                RO_SGNS_ERR_FORMAT, "truncated");
    expect_fail("binary fewer records", BIN("2 1\na \x00\x00\x80\x3f\n"), B, 0, RO_SGNS_ERR_FORMAT,
                "header says 2 vectors");
    expect_fail("binary NaN", BIN("1 2\na \x00\x00\x80\x3f\x00\x00\xc0\x7f\n"), B, 0,
                RO_SGNS_ERR_FORMAT, "byte 10: NaN or Inf");
    expect_fail("binary Inf", BIN("1 1\na \x00\x00\x80\xff\n"), B, 0, RO_SGNS_ERR_FORMAT,
                "NaN or Inf");
    expect_fail("binary data after the end", BIN("1 1\na \x00\x00\x80\x3f\nb"), B, 0,
                RO_SGNS_ERR_FORMAT, "data after");
    expect_fail("binary empty word", BIN("1 1\n \x00\x00\x80\x3f\n"), B, 0, RO_SGNS_ERR_FORMAT,
                "empty word");
    expect_fail("binary tab in word", BIN("1 1\na\tb \x00\x00\x80\x3f\n"), B, 0, RO_SGNS_ERR_FORMAT,
                "byte 5: a control byte");
    expect_fail("binary NUL in word", BIN("1 1\na\0b \x00\x00\x80\x3f\n"), B, 0, RO_SGNS_ERR_FORMAT,
                "control byte");
    expect_fail("binary duplicate", BIN("2 1\na \x00\x00\x80\x3f\na \x00\x00\x80\x3f\n"), B, 0,
                RO_SGNS_ERR_FORMAT, "byte 11: duplicate word 'a'");
    expect_fail("binary zero dimension", BIN("1 0\na \n"), B, 0, RO_SGNS_ERR_FORMAT, "dimension 0");
    expect_fail("binary absurd dimension", BIN("1 70000\na "), B, 0, RO_SGNS_ERR_FORMAT,
                "RO_SGNS_FILE_MAX_DIM");
    expect_fail("binary header only", BIN("3 4\n"), B, 0, RO_SGNS_ERR_FORMAT, "truncated");
    /* with a limit the rest is not looked at */
    {
        ro_sgns_vectors *v = NULL;
        ro_sgns_error err;
        CHECK(ro_sgns_vectors_load_memory(BIN("2 1\na \x00\x00\x80\x3f\nb\tjunk"), B, 1, &v, NULL,
                                          &err) == RO_SGNS_OK);
        CHECK(v->n == 1 && v->data[0] == 1);
        ro_sgns_vectors_free(v);
        CHECK(ro_sgns_vectors_load_memory(BIN("3 2\na 1 2\nb 3\n"), T, 1, &v, NULL, &err) ==
              RO_SGNS_OK);
        CHECK(v->n == 1);
        ro_sgns_vectors_free(v);
    }
#undef BIN
    /* bad arguments */
    {
        ro_sgns_vectors *v = NULL;
        ro_sgns_error err;
        const char *w2[] = {"a", "a"}, *ws[] = {"a b"}, *we[] = {""}, *wab[] = {"a", "b"};
        ro_sgns_real x[2] = {1, 2};
        x[1] = (ro_sgns_real)sqrt(-1.0 + 0 * x[0]);
        CHECK(ro_sgns_vectors_load_memory("1 1\na 1\n", 8, (ro_sgns_vectors_format)g_nine, 0, &v,
                                          NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_vectors_create(2, 1, w2, NULL, 1, &v, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(strstr(err.message, "both 'a'") != NULL);
        CHECK(ro_sgns_vectors_create(1, 1, ws, NULL, 1, &v, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_vectors_create(1, 1, we, NULL, 1, &v, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_vectors_create(1, 2, ws, x, 2, &v, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_vectors_create(1, 2, w2, x, 2, &v, NULL, &err) == RO_SGNS_ERR_NUMERIC);
        CHECK(ro_sgns_vectors_create(1, 2, w2, x, 1, &v, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_vectors_create(0, 2, w2, x, 2, &v, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        CHECK(ro_sgns_vectors_create(2, 1, wab, NULL, 1, &v, NULL, &err) == RO_SGNS_OK);
        CHECK(v->n == 2 && v->data[0] == 0 && v->data[1] == 0 && v->words[1] != wab[1]);
        ro_sgns_vectors_free(v);
        ro_sgns_vectors_free(NULL);
    }
    { /* a read error in the middle is an I/O error, not a format error */
        ro_sgns_vectors *v = NULL;
        ro_sgns_error err;
        size_t calls = 0;
        CHECK(ro_sgns_vectors_load_callback(failing_read, &calls, RO_SGNS_W2V_TEXT, 0, &v, NULL,
                                            &err) == RO_SGNS_ERR_IO);
    }
}

/* ---- files, FILE*, the failing allocator, the locale ---------------------- */

static int write_fail(void *user, const void *src, size_t size)
{
    (void)user;
    (void)src;
    (void)size;
    return 1;
}

static void test_files(void)
{
    const char *w[] = {"x", "y", "z"};
    ro_sgns_real d[] = {1, 2, 3, 4, 5, 6};
    const char *path = tu_path("eval_test_vectors.bin");
    char tmp[300];
    ro_sgns_vectors *v = NULL, *u = NULL;
    ro_sgns_error err;
    FILE *f;
    CHECK(ro_sgns_vectors_create(3, 2, w, d, 2, &v, NULL, &err) == RO_SGNS_OK);
    f = fopen(tu_path(".probe"), "wb");
    if (!f) {
        tu_skip("eval", "no build/ directory here (the file tests)", 1);
        ro_sgns_vectors_free(v);
        return;
    }
    fclose(f);
    remove(tu_path(".probe"));
    /* save twice: the second replaces the first; no temp file is left */
    CHECK(ro_sgns_vectors_save_path(v, RO_SGNS_W2V_TEXT, path, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_vectors_save_path(v, RO_SGNS_W2V_BINARY, path, NULL, &err) == RO_SGNS_OK);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "rb");
    CHECK(f == NULL);
    if (f) fclose(f);
    CHECK(ro_sgns_vectors_load_path(path, RO_SGNS_W2V_BINARY, 0, &u, NULL, &err) == RO_SGNS_OK);
    CHECK(same_vectors(v, u));
    ro_sgns_vectors_free(u);
    /* reading a binary file as text fails with the file's name in the message */
    CHECK(ro_sgns_vectors_load_path(path, RO_SGNS_W2V_TEXT, 0, &u, NULL, &err) ==
          RO_SGNS_ERR_FORMAT);
    CHECKF(strstr(err.message, "eval_test_vectors.bin: line 2") != NULL, "%s", err.message);
    f = fopen(path, "rb");
    CHECK(f && ro_sgns_vectors_load_file(f, RO_SGNS_W2V_BINARY, 2, &u, NULL, &err) == RO_SGNS_OK);
    CHECK(u->n == 2);
    if (f) fclose(f);
    ro_sgns_vectors_free(u);
    f = fopen(path, "wb");
    CHECK(f && ro_sgns_vectors_save_file(v, RO_SGNS_GLOVE_TEXT, f, NULL, &err) == RO_SGNS_OK);
    if (f) fclose(f);
    CHECK(ro_sgns_vectors_load_path(path, RO_SGNS_GLOVE_TEXT, 0, &u, NULL, &err) == RO_SGNS_OK);
    CHECK(same_vectors(v, u));
    ro_sgns_vectors_free(u);
    remove(path);
    CHECK(ro_sgns_vectors_load_path(path, RO_SGNS_GLOVE_TEXT, 0, &u, NULL, &err) == RO_SGNS_ERR_IO);
    CHECK(ro_sgns_vectors_save_path(v, RO_SGNS_W2V_TEXT, "build/no/such/dir/v.txt", NULL, &err) ==
          RO_SGNS_ERR_IO);
    CHECK(ro_sgns_vectors_save_callback(v, RO_SGNS_W2V_TEXT, write_fail, NULL, NULL, &err) ==
          RO_SGNS_ERR_IO);
    ro_sgns_vectors_free(v);
}

static void test_allocator(void)
{
    const char text[] = "4 3\nthe 0.1 0.2 0.3\nof 1 2 3\nand -1 -2 -3\nto 4 5 6\n";
    const char pairs[] = "the of 1\nand to 2\nthe to 3\n";
    const char quest[] = ": s\nthe of and to\nof the to and\n";
    counting c;
    ro_sgns_allocator al;
    ro_sgns_vectors *v = NULL;
    ro_sgns_pairs *p = NULL;
    ro_sgns_analogies *q = NULL;
    ro_sgns_similarity_result sr;
    ro_sgns_analogy_result *ar = NULL;
    ro_sgns_neighbor nb[3];
    ro_sgns_error err;
    void *buf;
    size_t len;
    long budget;
    int done = 0, failures_ok = 1;
    al.malloc_fn = c_malloc;
    al.realloc_fn = c_realloc;
    al.free_fn = c_free;
    al.user = &c;
    /* every allocation in turn fails; each failure is clean (ASan: no leak) */
    for (budget = 0; !done && budget < 500; ++budget) {
        ro_sgns_result rc;
        c.live = c.calls = 0;
        c.budget = budget;
        rc = ro_sgns_vectors_load_memory(text, sizeof text - 1, RO_SGNS_W2V_TEXT, 0, &v, &al, &err);
        if (rc == RO_SGNS_OK) {
            rc = ro_sgns_pairs_load_memory(pairs, sizeof pairs - 1, &p, &al, &err);
            if (rc == RO_SGNS_OK) {
                rc = ro_sgns_analogies_load_memory(quest, sizeof quest - 1, &q, &al, &err);
                if (rc == RO_SGNS_OK) {
                    rc = ro_sgns_similarity_eval(v, p, NULL, &sr, &al, &err);
                    if (rc == RO_SGNS_OK)
                        rc = ro_sgns_neighbors_of_word(v, "the", 3, nb, NULL, &al, &err);
                    if (rc == RO_SGNS_OK)
                        rc = ro_sgns_vectors_save_memory(v, RO_SGNS_W2V_BINARY, &buf, &len, &al,
                                                         &err);
                    if (rc == RO_SGNS_OK) {
                        al.free_fn(al.user, buf);
                        rc = ro_sgns_analogy_eval(v, q, NULL, &ar, &al, &err);
                        if (rc == RO_SGNS_OK) {
                            ro_sgns_analogy_result_free(ar);
                            done = 1;
                        }
                    }
                    ro_sgns_analogies_free(q);
                }
                ro_sgns_pairs_free(p);
            }
            ro_sgns_vectors_free(v);
        }
        if (!done && rc != RO_SGNS_ERR_OUT_OF_MEMORY) failures_ok = 0;
        if (c.live != 0) failures_ok = 0;
    }
    CHECK(done);
    CHECKF(failures_ok, "an allocation failure gave another code or leaked (budget %ld)", budget);
}

static void test_locale(void)
{
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "ru_RU.UTF-8",
                           "German_Germany.1252", "de-DE"};
    const char *w[] = {"a"};
    ro_sgns_real x[] = {(ro_sgns_real)0.5, (ro_sgns_real)-1.25};
    ro_sgns_vectors *v = NULL, *u = NULL;
    ro_sgns_error err;
    void *buf;
    size_t len, i;
    const char *got = NULL;
    for (i = 0; i < sizeof names / sizeof names[0] && !got; ++i)
        got = setlocale(LC_NUMERIC, names[i]);
    if (got) got = names[i - 1]; /* setlocale's string dies with the next call */
    if (!got || localeconv()->decimal_point[0] == '.') {
        /* .ci/run installs de_DE.UTF-8: under CI=true its absence fails,
           but for the emulated and Windows runs (RO_SGNS_TEST_QUICK), whose
           C libraries cannot read the host's locales */
        tu_skip("eval", "no locale with a decimal comma installed (the locale check)",
                !tu_quick());
        setlocale(LC_NUMERIC, "C");
        return;
    }
    CHECK(ro_sgns_vectors_create(1, 2, w, x, 2, &v, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_vectors_save_memory(v, RO_SGNS_W2V_TEXT, &buf, &len, NULL, &err) == RO_SGNS_OK);
    CHECKF(len == 16 && memcmp(buf, "1 2\na 0.5 -1.25\n", 16) == 0, "under %s: %.*s", got, (int)len,
           (const char *)buf);
    CHECK(ro_sgns_vectors_load_memory(buf, len, RO_SGNS_W2V_TEXT, 0, &u, NULL, &err) == RO_SGNS_OK);
    CHECK(same_vectors(u, v));
    ro_sgns_vectors_free(u);
    /* a decimal comma in the file is not a number */
    CHECK(ro_sgns_vectors_load_memory("1 1\na 0,5\n", 10, RO_SGNS_W2V_TEXT, 0, &u, NULL, &err) ==
          RO_SGNS_ERR_FORMAT);
    free(buf);
    ro_sgns_vectors_free(v);
    setlocale(LC_NUMERIC, "C");
    printf("eval: locale check ran under %s\n", got);
}

int main(void)
{
    test_correlations();
    test_neighbors();
    test_gensim_calls();
    test_huge_vectors();
    test_analogy_hand();
    test_analogy_random();
    test_similarity();
    test_wordsim_files();
    test_round_trips();
    test_binary_by_hand();
    test_text_tolerance();
    test_malformed();
    test_files();
    test_allocator();
    test_locale();
    return tu_finish("eval");
}
