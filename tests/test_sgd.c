/* test_sgd.c - section 8, the SGD-SGNS baseline (word2vec): the tokenizer
   agrees with the counting section's, the alias table is the unigram^0.75
   distribution, the vectorized step matches the plain one, training finds
   planted structure and raises F(W C^T), one-thread runs are bitwise
   reproducible, the callback reports and stops, and bad input is refused
   with W and C untouched. A few seconds, also under ASan. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

#include <string.h>

typedef ro_sgns_real real;
static const int IS_D = sizeof(real) == sizeof(double);

/* ------------------------------------------------------------ corpora */

/* Two groups of 10 words (a0..a9, b0..b9); each line holds 20 words of one
   group, so words co-occur only within their group. */
static char *planted_corpus(size_t lines, uint64_t seed, size_t *size)
{
    ro_sgns_rng rng;
    size_t cap = lines * 20 * 4 + 1, len = 0, i, j;
    char *s = (char *)malloc(cap);
    ro_sgns_rng_seed(&rng, seed, 99);
    for (i = 0; i < lines; ++i) {
        char g = (ro_sgns_rng_next(&rng) >> 63) ? 'a' : 'b';
        for (j = 0; j < 20; ++j) {
            s[len++] = g;
            s[len++] = (char)('0' + (int)(ro_sgns_rng_uniform(&rng) * 10));
            s[len++] = j == 19 ? '\n' : ' ';
        }
    }
    s[len] = '\0';
    *size = len;
    return s;
}

static ro_sgns_counts *count_text(const char *text, size_t size, int window, uint64_t min_count)
{
    ro_sgns_count_config cc = ro_sgns_count_config_default();
    ro_sgns_counts *co = NULL;
    ro_sgns_error err;
    cc.window = window;
    cc.min_count = min_count;
    if (ro_sgns_count_memory(text, size, &cc, &co, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "count: %s\n", err.message);
        return NULL;
    }
    return co;
}

/* A reader that hands out at most `step` bytes a call. */
typedef struct {
    const char *p;
    size_t left, step;
    int fail_at_end;
} mem_reader;

static size_t mem_read(void *user, void *buf, size_t size)
{
    mem_reader *r = (mem_reader *)user;
    size_t k = size < r->step ? size : r->step;
    if (k > r->left) k = r->left;
    if (k == 0 && r->fail_at_end) return (size_t)-1;
    memcpy(buf, r->p, k);
    r->p += k;
    r->left -= k;
    return k;
}

/* -------------------------------------------------- tokenizer agreement */

static void test_tokenizer(void)
{
    /* CRLF, tabs, blank lines, control bytes inside words, '\r' inside a
       word, a 130-byte ASCII word, words whose cut at 100 bytes falls inside
       2-, 3- and 4-byte UTF-8 characters, no final newline. */
    char text[4096];
    size_t len = 0, i, k;
    ro_sgns_counts *co;
    ro_sgns__sgd_reader rd;
    ro_sgns_error err;
    uint64_t *seen;
    const char *parts[] = {"the cat\r\nsat on\tthe mat\n\n\nthe\x01" "dog a\rb ab \n  ",
                           "cat dog\r\n\t \n"};
    memcpy(text + len, parts[0], strlen(parts[0]));
    len += strlen(parts[0]);
    for (k = 0; k < 3; ++k) { /* long words cut inside a multi-byte char */
        static const char *ch[3] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"};
        size_t cl = strlen(ch[k]);
        for (i = 0; i < 99; ++i) text[len++] = 'x';
        for (i = 0; i < 3; ++i) {
            memcpy(text + len, ch[k], cl);
            len += cl;
        }
        text[len++] = ' ';
        for (i = 0; i < 99; ++i) text[len++] = 'x';
        memcpy(text + len, ch[k], cl); /* a second word: same prefix, then cut */
        len += cl;
        text[len++] = '\n';
    }
    for (i = 0; i < 130; ++i) text[len++] = 'y';
    text[len++] = ' ';
    memcpy(text + len, parts[1], strlen(parts[1]));
    len += strlen(parts[1]);
    memcpy(text + len, "cat sat", 7); /* no newline at the end */
    len += 7;

    co = count_text(text, len, 2, 1);
    CHECK(co != NULL);
    if (!co) return;
    memset(&rd, 0, sizeof rd);
    rd.vocab = &co->vocab;
    rd.err = &err;
    CHECK(ro_sgns__sgd_read(&rd, text, len, NULL, NULL) == RO_SGNS_OK);
    CHECKF(rd.words == co->corpus_tokens, "%llu vs %llu", (unsigned long long)rd.words,
           (unsigned long long)co->corpus_tokens);
    seen = (uint64_t *)calloc(co->n, sizeof(uint64_t));
    for (i = 0; i < rd.len; ++i) {
        CHECK(rd.id[i] == RO_SGNS__SGD_LINE || rd.id[i] < co->n);
        if (rd.id[i] != RO_SGNS__SGD_LINE) ++seen[rd.id[i]];
        if (i > 0) CHECK(!(rd.id[i] == RO_SGNS__SGD_LINE && rd.id[i - 1] == RO_SGNS__SGD_LINE));
    }
    CHECK(rd.id[0] != RO_SGNS__SGD_LINE);
    for (i = 0; i < co->n; ++i)
        CHECKF(seen[i] == co->vocab.count[i], "word %u '%s': %llu vs %llu", (unsigned)i,
               co->vocab.word[i], (unsigned long long)seen[i],
               (unsigned long long)co->vocab.count[i]);
    /* reading through a reader, 1..7 bytes at a time, gives the same stream */
    for (k = 1; k <= 7; k += 3) {
        ro_sgns__sgd_reader r2;
        mem_reader mr;
        mr.p = text;
        mr.left = len;
        mr.step = k;
        mr.fail_at_end = 0;
        memset(&r2, 0, sizeof r2);
        r2.vocab = &co->vocab;
        r2.err = &err;
        CHECK(ro_sgns__sgd_read(&r2, NULL, 0, mem_read, &mr) == RO_SGNS_OK);
        CHECK(r2.len == rd.len && memcmp(r2.id, rd.id, rd.len * sizeof(uint32_t)) == 0);
        free(r2.id);
    }
    /* the cut words are known to the vocabulary */
    {
        char w[101];
        memset(w, 'y', 100);
        CHECK(ro_sgns_vocab_find(&co->vocab, w, 100) >= 0);
        memset(w, 'x', 99);
        CHECK(ro_sgns_vocab_find(&co->vocab, w, 99) >= 0); /* 99 x + cut 2/3/4-byte chars */
        CHECK(ro_sgns_vocab_find(&co->vocab, "dog", 3) >= 0);
        CHECK(ro_sgns_vocab_find(&co->vocab, "ab", 2) >= 0); /* "a\rb" reads as "ab" */
    }
    /* words not in the vocabulary are dropped without a gap */
    ro_sgns_counts_free(co);
    co = count_text("a b c a b a\n", 12, 2, 2); /* vocabulary {a, b} */
    CHECK(co && co->n == 2);
    if (co) {
        ro_sgns__sgd_reader r3;
        memset(&r3, 0, sizeof r3);
        r3.vocab = &co->vocab;
        r3.err = &err;
        CHECK(ro_sgns__sgd_read(&r3, "a b c a\n\nz b\n", 13, NULL, NULL) == RO_SGNS_OK);
        CHECK(r3.words == 4 && r3.len == 6);
        if (r3.len == 6) {
            uint32_t a = (uint32_t)ro_sgns_vocab_find(&co->vocab, "a", 1);
            uint32_t b = (uint32_t)ro_sgns_vocab_find(&co->vocab, "b", 1);
            CHECK(r3.id[0] == a && r3.id[1] == b && r3.id[2] == a);
            CHECK(r3.id[3] == RO_SGNS__SGD_LINE && r3.id[4] == b);
            CHECK(r3.id[5] == RO_SGNS__SGD_LINE);
        }
        free(r3.id);
    }
    ro_sgns_counts_free(co);
    free(seen);
    free(rd.id);
}

/* ------------------------------------------------------------- tables */

static void test_alias(void)
{
    ro_sgns_vocab v;
    uint64_t count[7] = {1000, 1000, 300, 50, 7, 1, 0};
    ro_sgns__sgd_alias a[7];
    double p[7], P[7], want[7], sum = 0;
    uint32_t work[7];
    uint64_t hist[7] = {0};
    ro_sgns_rng rng;
    size_t i, N = 700000;
    memset(&v, 0, sizeof v);
    v.n = 7;
    v.count = count;
    CHECK(ro_sgns__sgd_alias_build(&v, a, p, work, NULL) == RO_SGNS_OK);
    for (i = 0; i < 7; ++i) sum += want[i] = pow((double)count[i], 0.75);
    for (i = 0; i < 7; ++i) {
        want[i] /= sum;
        P[i] = 0;
    }
    /* the exact distribution the table encodes */
    for (i = 0; i < 7; ++i) {
        double f = a[i].alias == i ? 1.0 : a[i].thr / 4294967296.0;
        P[i] += f / 7;
        P[a[i].alias] += (1 - f) / 7;
    }
    for (i = 0; i < 7; ++i) CHECK_NEAR(P[i], want[i], 1e-9);
    CHECK(P[6] == 0);
    /* and draws follow it */
    ro_sgns_rng_seed(&rng, 5, 0);
    for (i = 0; i < N; ++i) ++hist[ro_sgns__sgd_draw(a, 7, ro_sgns_rng_next(&rng))];
    for (i = 0; i < 7; ++i)
        CHECK_NEAR((double)hist[i] / (double)N, want[i], 5 * sqrt(want[i] / (double)N) + 1e-12);
    CHECK(hist[6] == 0);
    /* all-zero counts are refused */
    memset(count, 0, sizeof count);
    CHECK(ro_sgns__sgd_alias_build(&v, a, p, work, NULL) == RO_SGNS_ERR_INVALID_ARGUMENT);
    /* subsampling thresholds: word2vec's formula */
    {
        uint64_t c2[3] = {1000000, 1000, 1};
        uint32_t keep[3];
        double T = 1001001, t = 1e-3, f = 1000000;
        double pk = (sqrt(f / (t * T)) + 1) * t * T / f;
        v.n = 3;
        v.count = c2;
        ro_sgns__sgd_keep_build(&v, t, keep);
        CHECK_NEAR(keep[0] / 4294967296.0, pk, 1e-9);
        CHECK(keep[1] == RO_SGNS__SGD_ALWAYS && keep[2] == RO_SGNS__SGD_ALWAYS);
    }
    /* the sigmoid table and the clipped gradient */
    {
        real sigm[RO_SGNS__SGD_EXP_SIZE + 1];
        int bad = 0;
        ro_sgns__sgd_sigmoid_build(sigm);
        CHECK_NEAR(sigm[500], 0.5, 1e-7);
        CHECK_NEAR(ro_sgns__sgd_grad(sigm, (real)0.3, 1, &bad), 1 - 1 / (1 + exp(-0.3)), 0.004);
        CHECK_NEAR(ro_sgns__sgd_grad(sigm, (real)-2, 0, &bad), -1 / (1 + exp(2.0)), 0.004);
        CHECK(ro_sgns__sgd_grad(sigm, (real)7, 1, &bad) == 0);
        CHECK(ro_sgns__sgd_grad(sigm, (real)7, 0, &bad) == -1);
        CHECK(ro_sgns__sgd_grad(sigm, (real)-7, 1, &bad) == 1);
        CHECK(ro_sgns__sgd_grad(sigm, (real)6, 1, &bad) >= 0 && bad == 0);
        CHECK(ro_sgns__sgd_grad(sigm, (real)-6, 0, &bad) <= 0 && bad == 0);
        CHECK(ro_sgns__sgd_grad(sigm, (real)NAN, 1, &bad) == 0 && bad == 1);
    }
}

/* The vectorized step against the plain one, d not a multiple of the lanes. */
static void test_step(void)
{
    enum { D = 37, LD = 64, NR = 9 };
    real w1[LD], w2[LD], C1[NR * LD], C2[NR * D], e[LD], sigm[RO_SGNS__SGD_EXP_SIZE + 1];
    uint32_t tgt[4] = {3, 0, 7, 3};
    ro_sgns_rng rng;
    size_t i, j;
    int bad = 0;
    double tol = IS_D ? 1e-12 : 2e-5, maxd = 0;
    ro_sgns__sgd_sigmoid_build(sigm);
    ro_sgns_rng_seed(&rng, 3, 0);
    for (j = 0; j < LD; ++j) w1[j] = w2[j] = j < D ? (real)(ro_sgns_rng_uniform(&rng) - 0.5) : 0;
    for (i = 0; i < NR; ++i)
        for (j = 0; j < LD; ++j) {
            real x = j < D ? (real)(0.6 * (ro_sgns_rng_uniform(&rng) - 0.5)) : 0;
            C1[i * LD + j] = x;
            if (j < D) C2[i * D + j] = x;
        }
    ro_sgns__sgd_step(LD, w1, C1, tgt, 4, sigm, (real)0.2, e, &bad);
    ro_sgns__sgd_step_naive(D, w2, C2, D, tgt, 4, sigm, (real)0.2, e, &bad);
    CHECK(bad == 0);
    for (j = 0; j < D; ++j) maxd = tu_max(maxd, fabs((double)w1[j] - (double)w2[j]));
    for (i = 0; i < NR; ++i)
        for (j = 0; j < D; ++j)
            maxd = tu_max(maxd, fabs((double)C1[i * LD + j] - (double)C2[i * D + j]));
    CHECKF(maxd <= tol, "fast vs naive step differ by %g", maxd);
    for (j = D; j < LD; ++j) CHECK(w1[j] == 0 && C1[3 * LD + j] == 0); /* padding stays 0 */
}

/* ------------------------------------------------------------ training */

static double mean_cos(const real *W, size_t d, const ro_sgns_vocab *v, int within)
{
    double s = 0;
    size_t i, j, m = 0;
    for (i = 0; i < v->n; ++i)
        for (j = i + 1; j < v->n; ++j)
            if ((v->word[i][0] == v->word[j][0]) == (within != 0)) {
                s += ro_sgns_cosine(W + i * d, W + j * d, d);
                ++m;
            }
    return m ? s / (double)m : 0;
}

/* mean of x_wc = W_w . C_c over word pairs of one group (within) or of two */
static double mean_x(const real *W, const real *C, size_t d, const ro_sgns_vocab *v, int within)
{
    double s = 0;
    size_t i, j, k, m = 0;
    for (i = 0; i < v->n; ++i)
        for (j = 0; j < v->n; ++j)
            if (i != j && (v->word[i][0] == v->word[j][0]) == (within != 0)) {
                for (k = 0; k < d; ++k) s += (double)W[i * d + k] * (double)C[j * d + k];
                ++m;
            }
    return m ? s / (double)m : 0;
}

typedef struct {
    int calls, stop_at, monotone, threads;
    uint64_t last_words, total;
    double first_alpha, last_alpha, last_rate;
} cb_state;

static int progress_cb(const ro_sgns_sgd_progress *p, void *user)
{
    cb_state *s = (cb_state *)user;
    ++s->calls;
    if (p->words < s->last_words || (s->calls > 1 && p->alpha > s->last_alpha)) s->monotone = 0;
    if (s->calls == 1) s->first_alpha = p->alpha;
    s->last_words = p->words;
    s->last_alpha = p->alpha;
    s->last_rate = p->words_per_sec;
    s->total = p->words_total;
    s->threads = p->threads;
    return s->stop_at && s->calls >= s->stop_at;
}

static void test_train(void)
{
    size_t size, n, d = 16, i;
    char *text = planted_corpus(tu_quick() ? 800 : 1500, 7, &size); /* RO_SGNS_TEST_QUICK */
    ro_sgns_counts *co = count_text(text, size, 5, 1);
    ro_sgns_sgd_config cfg = ro_sgns_sgd_config_default();
    ro_sgns_problem *pb = NULL;
    ro_sgns_error err;
    real *W, *C, *W2, *C2, *Z, *Wr, *Cr;
    double within, across, F0 = 0, F1 = 0;
    cb_state cs;
    ro_sgns_result rc;
    CHECK(co != NULL && co->n == 20);
    if (!co) return;
    n = co->n;
    W = (real *)malloc(n * d * sizeof(real));
    C = (real *)malloc(n * d * sizeof(real));
    W2 = (real *)malloc(n * d * sizeof(real));
    C2 = (real *)malloc(n * d * sizeof(real));
    Z = (real *)calloc(n * d, sizeof(real));
    cfg.size = (int)d;
    cfg.epochs = 3;
    cfg.threads = 1;
    cfg.seed = 11;
    cfg.callback = progress_cb;
    cfg.user = &cs;
    cfg.report_words = 5000;
    memset(&cs, 0, sizeof cs);
    cs.monotone = 1;
    rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err);
    CHECKF(rc == RO_SGNS_OK, "%s", err.message);

    /* planted structure */
    within = mean_cos(W, d, &co->vocab, 1);
    across = mean_cos(W, d, &co->vocab, 0);
    CHECKF(within > 0.5 && within > across + 0.5, "within %.3f across %.3f", within, across);
    within = mean_x(W, C, d, &co->vocab, 1);
    across = mean_x(W, C, d, &co->vocab, 0);
    /* SGNS's optimum is x_wc = PMI(w, c) - log k: log 2 - log 5 = -0.92 within a
       group, -infinity across (where the clipped sigmoid stops at about -6) */
    CHECKF(fabs(within - (log(2.0) - log(5.0))) < 0.3 && across < -4,
           "x_wc: within %.3f across %.3f", within, across);

    /* F(W C^T) rises from the start point (C = 0, so X = 0 there) */
    CHECK(ro_sgns_problem_create(co, cfg.negative, 1.0, &pb, NULL, &err) == RO_SGNS_OK);
    if (pb) {
        CHECK(ro_sgns_objective_wc(pb, W, Z, d, &F0, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_objective_wc(pb, W, C, d, &F1, &err) == RO_SGNS_OK);
        CHECKF(F1 > F0 + 0.05 * fabs(F0), "F trained %.6g, F at start %.6g", F1, F0);
        ro_sgns_problem_free(pb);
    }

    /* the callback saw the whole run */
    CHECK(cs.calls >= 3 * (int)(co->corpus_tokens * 3 / 5000) / 4);
    CHECK(cs.monotone);
    CHECK(cs.total == 3 * co->corpus_tokens && cs.last_words == cs.total);
    CHECK(cs.threads == 1);
    CHECK(cs.first_alpha <= 0.025 && cs.first_alpha > 0.02);
    CHECK(cs.last_alpha < 0.001 && cs.last_alpha >= 0.025 * 1e-4);
    CHECK(cs.last_rate > 0);

    /* one thread: bitwise reproducible, with or without a callback.
       RO_SGNS_TEST_QUICK: on one epoch (Wr, Cr: a run with the callback) */
    Wr = W;
    Cr = C;
    if (tu_quick()) {
        Wr = (real *)malloc(n * d * sizeof(real));
        Cr = (real *)malloc(n * d * sizeof(real));
        cfg.epochs = 1;
        rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, Wr, Cr, NULL, &err);
        CHECK(rc == RO_SGNS_OK);
    }
    cfg.callback = NULL;
    rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W2, C2, NULL, &err);
    CHECK(rc == RO_SGNS_OK);
    CHECK(memcmp(Wr, W2, n * d * sizeof(real)) == 0 && memcmp(Cr, C2, n * d * sizeof(real)) == 0);
    /* ... through the reader, in odd-sized pieces */
    {
        mem_reader mr;
        mr.p = text;
        mr.left = size;
        mr.step = 1000;
        mr.fail_at_end = 0;
        memset(W2, 0, n * d * sizeof(real));
        rc = ro_sgns_sgd_train_callback(mem_read, &mr, &co->vocab, &cfg, W2, C2, NULL, &err);
        CHECK(rc == RO_SGNS_OK);
        CHECK(memcmp(Wr, W2, n * d * sizeof(real)) == 0 &&
              memcmp(Cr, C2, n * d * sizeof(real)) == 0);
    }
    /* ... and from a file */
#ifndef RO_SGNS_NO_STDIO
    {
        const char *path = tu_path("test_sgd_corpus.tmp");
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (f) {
            fwrite(text, 1, size, f);
            fclose(f);
            memset(W2, 0, n * d * sizeof(real));
            rc = ro_sgns_sgd_train_path(path, &co->vocab, &cfg, W2, C2, NULL, &err);
            CHECK(rc == RO_SGNS_OK);
            CHECK(memcmp(Wr, W2, n * d * sizeof(real)) == 0 &&
                  memcmp(Cr, C2, n * d * sizeof(real)) == 0);
            remove(path);
        }
        CHECK(ro_sgns_sgd_train_path("no/such/file", &co->vocab, &cfg, W2, C2, NULL, &err) ==
              RO_SGNS_ERR_IO);
    }
#endif
    /* another seed, other numbers */
    cfg.seed = 12;
    rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W2, C2, NULL, &err);
    CHECK(rc == RO_SGNS_OK && memcmp(Wr, W2, n * d * sizeof(real)) != 0);
    if (Wr != W) {
        free(Wr);
        free(Cr);
    }
    cfg.epochs = 3;

    /* two threads (Hogwild): not reproducible, as good. (Judged on X = W C^T:
       the cosines of W alone depend on which of the many W A, C A^-T with
       the same product the run drifts to, and with 20 words racing threads
       sometimes drift far.) */
    cfg.threads = 2;
    rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W2, C2, NULL, &err);
    CHECK(rc == RO_SGNS_OK);
    within = mean_x(W2, C2, d, &co->vocab, 1);
    across = mean_x(W2, C2, d, &co->vocab, 0);
    CHECKF(fabs(within - (log(2.0) - log(5.0))) < 0.3 && across < -4,
           "2 threads, x_wc: within %.3f across %.3f", within, across);

    /* subsampling: still learns; every word is counted as processed */
    cfg.threads = 1;
    cfg.sample = 1e-2;
    cfg.callback = progress_cb;
    memset(&cs, 0, sizeof cs);
    cs.monotone = 1;
    rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W2, C2, NULL, &err);
    CHECK(rc == RO_SGNS_OK);
    CHECK(cs.last_words == 3 * co->corpus_tokens);
    CHECK(memcmp(W, W2, n * d * sizeof(real)) != 0);
    within = mean_cos(W2, d, &co->vocab, 1);
    across = mean_cos(W2, d, &co->vocab, 0);
    CHECKF(within > across + 0.3, "subsampled: within %.3f across %.3f", within, across);
    cfg.sample = 0;

    /* the callback stops training: RO_SGNS_STOPPED, W and C as they are */
    memset(&cs, 0, sizeof cs);
    cs.monotone = 1;
    cs.stop_at = 2;
    memset(W2, 0, n * d * sizeof(real));
    rc = ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W2, C2, NULL, &err);
    CHECKF(rc == RO_SGNS_STOPPED, "%d %s", (int)rc, err.message);
    CHECK(err.code == RO_SGNS_STOPPED);
    CHECK(cs.calls == 2 && cs.last_words < cs.total);
    CHECK(memcmp(W, W2, n * d * sizeof(real)) != 0);
    {
        double nz = 0;
        for (i = 0; i < n * d; ++i) nz += fabs((double)C2[i]);
        CHECK(nz > 0); /* trained part-way */
    }

    free(W);
    free(C);
    free(W2);
    free(C2);
    free(Z);
    free(text);
    ro_sgns_counts_free(co);
}

/* --------------------------------------------------- virtual workers */

/* The merge against its definition, in double: a row one worker touched
   becomes its copy (bit for bit), a row c > 1 touched becomes shared +
   sum_k (copy_k - shared) / c, and every copy takes it; a row no one
   touched stays as it was everywhere. */
static void test_merge(void)
{
    enum { N = 7, LD = 16, K = 3 };
    static real shared[2 * N * LD], copy[K][2 * N * LD], before[K][2 * N * LD], sh0[2 * N * LD];
    unsigned char touched[K][2 * N], merged[2 * N];
    uint32_t list[K][2 * N], rows[2 * N];
    ro_sgns__sgd_local loc[K];
    ro_sgns__sgd s;
    ro_sgns_rng rng;
    size_t r, j, k, bad = 0, mism = 0, c[2 * N], last[2 * N];
    int nt;
    for (nt = 1; nt <= 2; ++nt) {
        ro_sgns_rng_seed(&rng, 5, (uint64_t)nt);
        memset(&s, 0, sizeof s);
        memset(touched, 0, sizeof touched);
        memset(merged, 0, sizeof merged);
        s.n = N;
        s.ld = LD;
        s.W = shared;
        s.C = shared + N * LD;
        s.merged = merged;
        s.rows = rows;
        for (j = 0; j < 2 * N * LD; ++j) sh0[j] = shared[j] = (real)ro_sgns_rng_normal(&rng);
        memset(c, 0, sizeof c);
        for (k = 0; k < K; ++k) {
            memset(&loc[k], 0, sizeof loc[k]);
            loc[k].W = copy[k];
            loc[k].C = copy[k] + N * LD;
            loc[k].touched = touched[k];
            loc[k].list = list[k];
            memcpy(copy[k], shared, sizeof shared);
            /* each worker changes a random set of rows (row 3 of W and row 0
               of C by all, row 5 of W by none) */
            for (r = 0; r < 2 * N; ++r) {
                int all = r == 3 || r == N, none = r == 5;
                if (none || (!all && ro_sgns_rng_uniform(&rng) < 0.5)) continue;
                ro_sgns__sgd_touch(&loc[k], r);
                ++c[r];
                last[r] = k;
                for (j = 0; j < LD; ++j) copy[k][r * LD + j] += (real)ro_sgns_rng_normal(&rng);
            }
            memcpy(before[k], copy[k], sizeof shared);
        }
        ro_sgns__sgd_merge(&s, loc, K, nt);
        CHECK(c[3] == K && c[N] == K && c[5] == 0);
        for (r = 0; r < 2 * N; ++r) {
            for (j = 0; j < LD; ++j) {
                double want = 0;
                for (k = 0; k < K; ++k) want += (double)before[k][r * LD + j] - (double)sh0[r * LD + j];
                want = sh0[r * LD + j] + (c[r] ? want / (double)c[r] : 0);
                if (c[r] == 0 && shared[r * LD + j] != sh0[r * LD + j]) ++bad;
                if (c[r] == 1 && shared[r * LD + j] != before[last[r]][r * LD + j]) ++bad;
                if (fabs((double)shared[r * LD + j] - want) > (IS_D ? 1e-12 : 1e-5) * (1 + fabs(want)))
                    ++bad;
                for (k = 0; k < K; ++k) mism += copy[k][r * LD + j] != shared[r * LD + j];
            }
        }
        CHECKF(bad == 0, "%lu merged values off", (unsigned long)bad);
        CHECKF(mism == 0, "%lu copies differ from the shared row", (unsigned long)mism);
        for (k = 0; k < K; ++k) CHECK(loc[k].nlist == 0);
        for (r = 0; r < 2 * N; ++r) {
            CHECK(merged[r] == 0);
            for (k = 0; k < K; ++k) CHECK(touched[k][r] == 0);
        }
    }
}

/* K virtual workers: one is the one-thread Hogwild run; two and three give
   the same bits on 1, 2 and 3 threads and learn the planted groups; two
   report progress in order and stop when told. */
static void test_workers(void)
{
    size_t size, small_size, n, d = 16;
    /* 8000 lines: 164 blocks; with sync 24 K = 2 merges in four rounds of
       48 blocks an epoch, the last with worker 1 on 4 of its 24, and K = 3
       in three rounds of 72 (4000 lines in quick mode: 82 blocks) */
    char *text = planted_corpus(tu_quick() ? 4000 : 8000, 9, &size);
    char *small = planted_corpus(300, 4, &small_size);
    ro_sgns_counts *co = count_text(text, size, 5, 1);
    ro_sgns_sgd_config cfg = ro_sgns_sgd_config_default();
    ro_sgns_error err;
    real *W[3], *C[3];
    double within, across;
    cb_state cs;
    int i, K, t;
    CHECK(co != NULL && co->n == 20);
    if (!co) return;
    n = co->n;
    for (i = 0; i < 3; ++i) {
        W[i] = (real *)malloc(n * d * sizeof(real));
        C[i] = (real *)malloc(n * d * sizeof(real));
    }
    cfg.size = (int)d;
    cfg.epochs = 2;
    cfg.seed = 21;
    cfg.sync = 24;
    /* K = 1 on 2 threads (one works) = Hogwild on one, also on a text of one
       round; and K = 2 on that small text: worker 1 has no block, so the
       merges hand worker 0's rows on unchanged */
    cfg.threads = 1;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[0], C[0], NULL, &err) == RO_SGNS_OK);
    cfg.threads = 2;
    cfg.workers = 1;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[1], C[1], NULL, &err) == RO_SGNS_OK);
    CHECK(memcmp(W[0], W[1], n * d * sizeof(real)) == 0 && memcmp(C[0], C[1], n * d * sizeof(real)) == 0);
    cfg.workers = 0;
    cfg.threads = 1;
    CHECK(ro_sgns_sgd_train_memory(small, small_size, &co->vocab, &cfg, W[0], C[0], NULL, &err) ==
          RO_SGNS_OK);
    cfg.workers = 2;
    cfg.threads = 2;
    CHECK(ro_sgns_sgd_train_memory(small, small_size, &co->vocab, &cfg, W[1], C[1], NULL, &err) ==
          RO_SGNS_OK);
    CHECK(memcmp(W[0], W[1], n * d * sizeof(real)) == 0 && memcmp(C[0], C[1], n * d * sizeof(real)) == 0);

    for (K = 3; K >= 2; --K) { /* K = 2 last: W[0] is its run */
        cfg.workers = K;
        for (t = 1; t <= 3; ++t) {
            cfg.threads = t;
            for (i = 0; i < (int)(n * d); ++i) W[t - 1][i] = C[t - 1][i] = 0;
            CHECKF(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[t - 1], C[t - 1], NULL,
                                            &err) == RO_SGNS_OK, "%s", err.message);
        }
        for (t = 2; t <= 3; ++t)
            CHECKF(memcmp(W[0], W[t - 1], n * d * sizeof(real)) == 0 &&
                       memcmp(C[0], C[t - 1], n * d * sizeof(real)) == 0,
                   "K = %d: %d threads differ from 1", K, t);
        within = mean_x(W[0], C[0], d, &co->vocab, 1);
        across = mean_x(W[0], C[0], d, &co->vocab, 0);
        CHECKF(fabs(within - (log(2.0) - log(5.0))) < 0.3 && across < -4,
               "K = %d, x_wc: within %.3f across %.3f", K, within, across);
    }

    /* progress: in order, to the end; a stop leaves a merged point */
    cfg.workers = 2;
    cfg.threads = 2;
    cfg.callback = progress_cb;
    cfg.user = &cs;
    cfg.report_words = 20000;
    memset(&cs, 0, sizeof cs);
    cs.monotone = 1;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[1], C[1], NULL, &err) == RO_SGNS_OK);
    CHECK(memcmp(W[0], W[1], n * d * sizeof(real)) == 0); /* a callback changes nothing */
#ifdef _OPENMP
    CHECK(cs.threads == 2);
#else
    CHECK(cs.threads == 1); /* without OpenMP one thread runs both workers */
#endif
    CHECK(cs.monotone && cs.calls >= 3);
    CHECK(cs.total == 2 * co->corpus_tokens && cs.last_words == cs.total);
    CHECK(cs.last_alpha < 0.005 && cs.last_alpha >= 0.025 * 1e-4);
    memset(&cs, 0, sizeof cs);
    cs.monotone = 1;
    cs.stop_at = 2;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[1], C[1], NULL, &err) ==
          RO_SGNS_STOPPED);
    CHECK(cs.calls == 2 && cs.last_words < cs.total);

    /* share 0.5: the first half of the blocks (82 of 164), so about half
       the words (a block holds at most RO_SGNS_SGD_BLOCK); other bits, the
       same on 1 and 2 threads */
    cfg.share = 0.5;
    cs.stop_at = 0;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[1], C[1], NULL, &err) == RO_SGNS_OK);
    CHECKF(cs.total <= co->corpus_tokens + 2 * RO_SGNS_SGD_BLOCK &&
               cs.total + 2 * RO_SGNS_SGD_BLOCK >= co->corpus_tokens && cs.last_words == cs.total,
           "share 0.5: %llu words of 2 x %llu", (unsigned long long)cs.total,
           (unsigned long long)co->corpus_tokens);
    CHECK(memcmp(W[0], W[1], n * d * sizeof(real)) != 0);
    cfg.threads = 1;
    cfg.callback = NULL;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W[2], C[2], NULL, &err) == RO_SGNS_OK);
    CHECK(memcmp(W[1], W[2], n * d * sizeof(real)) == 0 && memcmp(C[1], C[2], n * d * sizeof(real)) == 0);

    for (i = 0; i < 3; ++i) {
        free(W[i]);
        free(C[i]);
    }
    free(text);
    free(small);
    ro_sgns_counts_free(co);
}

/* A save callback that records the states it sees and stops at round
   stop_at (0: never). */
typedef struct {
    uint64_t stop_at, calls, last_round, rounds_total, last_words, words_total;
    int ordered;
} save_state;

static int save_cb(const ro_sgns_sgd_state *st, void *user)
{
    save_state *s = (save_state *)user;
    if (st->round <= s->last_round || st->words < s->last_words) s->ordered = 0;
    s->calls++;
    s->last_round = st->round;
    s->rounds_total = st->rounds_total;
    s->last_words = st->words;
    s->words_total = st->words_total;
    return s->stop_at && st->round == s->stop_at;
}

/* A run stopped at a round's end and resumed from its state (start_w,
   start_c, start_round) ends with the straight run's bits, at 1 and 2
   threads, K = 1 and 2, mid-epoch and at an epoch's end; Hogwild and half
   a state are refused. */
static void test_resume(void)
{
    size_t size, n, d = 12;
    /* 4000 lines: 82 blocks; K = 2, sync 24: two rounds an epoch (48, 34
       blocks), 3 epochs: rounds 1..5 can stop; K = 1: four an epoch */
    char *text = planted_corpus(4000, 5, &size);
    ro_sgns_counts *co = count_text(text, size, 5, 1);
    ro_sgns_sgd_config cfg = ro_sgns_sgd_config_default();
    ro_sgns_error err;
    real *Wf, *Cf, *W, *C;
    save_state ss;
    const uint64_t stops[] = {1, 2, 3, 5};
    int K, t, i;
    CHECK(co != NULL);
    if (!co) return;
    n = co->n;
    Wf = (real *)malloc(n * d * sizeof(real));
    Cf = (real *)malloc(n * d * sizeof(real));
    W = (real *)malloc(n * d * sizeof(real));
    C = (real *)malloc(n * d * sizeof(real));
    cfg.size = (int)d;
    cfg.epochs = 3;
    cfg.seed = 33;
    cfg.sync = 24;
    cfg.sample = 0.05; /* the subsampling's draws too */
    for (K = 1; K <= 2; ++K) {
        cfg.workers = K;
        cfg.threads = 1;
        cfg.save = NULL;
        cfg.start_w = cfg.start_c = NULL;
        cfg.start_round = 0;
        CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, Wf, Cf, NULL, &err) == RO_SGNS_OK);
        /* every state seen in order, none after the last round */
        memset(&ss, 0, sizeof ss);
        ss.ordered = 1;
        cfg.save = save_cb;
        cfg.user = &ss;
        CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) == RO_SGNS_OK);
        CHECK(memcmp(W, Wf, n * d * sizeof(real)) == 0 && memcmp(C, Cf, n * d * sizeof(real)) == 0);
        CHECKF(ss.ordered && ss.rounds_total == (K == 1 ? 12u : 6u) && ss.calls == ss.rounds_total - 1 &&
                   ss.last_round == ss.rounds_total - 1 && ss.words_total == 3 * co->corpus_tokens,
               "K = %d: %llu calls, last round %llu of %llu", K, (unsigned long long)ss.calls,
               (unsigned long long)ss.last_round, (unsigned long long)ss.rounds_total);
        for (i = 0; i < 4; ++i) {
            for (t = 1; t <= 2; ++t) {
                uint64_t at = K == 1 ? 2 * stops[i] : stops[i];
                memset(&ss, 0, sizeof ss);
                ss.ordered = 1;
                ss.stop_at = at;
                cfg.save = save_cb;
                cfg.start_w = cfg.start_c = NULL;
                cfg.start_round = 0;
                cfg.threads = 3 - t; /* the first half on the other thread count */
                CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
                      RO_SGNS_STOPPED);
                CHECK(ss.last_round == at && ss.last_words < ss.words_total);
                CHECK(memcmp(W, Wf, n * d * sizeof(real)) != 0);
                /* the second half: the state given back (W, C are also the output) */
                memset(&ss, 0, sizeof ss);
                ss.ordered = 1;
                ss.last_round = at; /* states after it only */
                cfg.threads = t;
                cfg.start_w = W;
                cfg.start_c = C;
                cfg.start_round = at;
                CHECKF(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
                           RO_SGNS_OK, "%s", err.message);
                CHECKF(memcmp(W, Wf, n * d * sizeof(real)) == 0 && memcmp(C, Cf, n * d * sizeof(real)) == 0,
                       "K = %d, stopped at round %llu, resumed on %d thread(s): other bits", K,
                       (unsigned long long)at, t);
                CHECK(ss.ordered);
            }
        }
        /* the last round's state resumes to itself */
        cfg.start_w = Wf;
        cfg.start_c = Cf;
        cfg.start_round = K == 1 ? 12 : 6;
        cfg.save = NULL;
        CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) == RO_SGNS_OK);
        CHECK(memcmp(W, Wf, n * d * sizeof(real)) == 0 && memcmp(C, Cf, n * d * sizeof(real)) == 0);
    }
    /* refused: a round past the end, half a state, a round without one, Hogwild */
    cfg.start_round = 7;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg.start_round = 1;
    cfg.start_c = NULL;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg.start_w = NULL;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg.start_round = 0;
    cfg.workers = 0;
    cfg.save = save_cb;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg.workers = 2;
    cfg.save_rounds = 0;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    free(Wf);
    free(Cf);
    free(W);
    free(C);
    free(text);
    ro_sgns_counts_free(co);
}

/* ------------------------------------------------------ allocator, errors */

typedef struct {
    long live, calls;
} alloc_state;
static void *t_malloc(void *u, size_t s)
{
    ++((alloc_state *)u)->live;
    ++((alloc_state *)u)->calls;
    return malloc(s);
}
static void *t_realloc(void *u, void *p, size_t s)
{
    if (!p) ++((alloc_state *)u)->live;
    ++((alloc_state *)u)->calls;
    return realloc(p, s);
}
static void t_free(void *u, void *p)
{
    if (p) --((alloc_state *)u)->live;
    free(p);
}

static int untouched(const real *A, size_t m)
{
    size_t i;
    for (i = 0; i < m; ++i)
        if (A[i] != (real)42) return 0;
    return 1;
}

static void test_errors(void)
{
    size_t size, n, d = 8;
    char *text = planted_corpus(50, 3, &size);
    ro_sgns_counts *co = count_text(text, size, 5, 1);
    ro_sgns_sgd_config cfg = ro_sgns_sgd_config_default(), bad;
    ro_sgns_allocator al;
    alloc_state as = {0, 0};
    ro_sgns_error err;
    real *W, *C;
    size_t i;
    CHECK(co != NULL);
    if (!co) return;
    n = co->n;
    W = (real *)malloc(n * d * sizeof(real));
    C = (real *)malloc(n * d * sizeof(real));
    for (i = 0; i < n * d; ++i) W[i] = C[i] = 42;
    cfg.size = (int)d;
    cfg.epochs = 1;
    cfg.threads = 1;

#define EXPECT(call, want_)                                                                 \
    do {                                                                                   \
        ro_sgns_result r_ = (call);                                                        \
        CHECKF(r_ == (want_), "got %d (%s), want %d", (int)r_, err.message, (int)(want_));   \
        CHECK(err.code == (want_) && err.message[0] != 0);                               \
        CHECK(untouched(W, n * d) && untouched(C, n * d));                                 \
    } while (0)

    bad = cfg;
    bad.size = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.negative = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.window = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.epochs = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.alpha = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad.alpha = NAN;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.sample = -1;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.threads = -1;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad = cfg;
    bad.workers = -1;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad.workers = 2;
    bad.sync = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad.workers = 0;
    bad.sync = 256;
    bad.share = 0;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad.share = 1.5;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    bad.share = NAN;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    { /* a share of less than one of the tokens in the vocabulary: no text
         to train on (it was a whole block); one token or more trains */
        double words = 0;
        for (i = 0; i < n; ++i) words += (double)co->vocab.count[i];
        bad = cfg;
        bad.share = 0.99 / words;
        EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
               RO_SGNS_ERR_EMPTY);
        CHECK(strstr(err.message, "less than one token") != NULL);
        bad.share = 1.01 / words;
        CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err) ==
              RO_SGNS_OK);
        for (i = 0; i < n * d; ++i) W[i] = C[i] = 42;
    }
    EXPECT(ro_sgns_sgd_train_memory(text, size, NULL, &cfg, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    EXPECT(ro_sgns_sgd_train_memory(NULL, 5, &co->vocab, &cfg, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, NULL, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    EXPECT(ro_sgns_sgd_train_callback(NULL, NULL, &co->vocab, &cfg, W, C, NULL, &err),
           RO_SGNS_ERR_INVALID_ARGUMENT);
    /* empty corpora: nothing, blanks only, no vocabulary word */
    EXPECT(ro_sgns_sgd_train_memory("", 0, &co->vocab, &cfg, W, C, NULL, &err), RO_SGNS_ERR_EMPTY);
    EXPECT(ro_sgns_sgd_train_memory(NULL, 0, &co->vocab, &cfg, W, C, NULL, &err),
           RO_SGNS_ERR_EMPTY);
    EXPECT(ro_sgns_sgd_train_memory(" \n\r\n\t", 5, &co->vocab, &cfg, W, C, NULL, &err),
           RO_SGNS_ERR_EMPTY);
    EXPECT(ro_sgns_sgd_train_memory("foo bar\nbaz", 11, &co->vocab, &cfg, W, C, NULL, &err),
           RO_SGNS_ERR_EMPTY);
    /* a failing reader */
    {
        mem_reader mr;
        mr.p = text;
        mr.left = size;
        mr.step = 4096;
        mr.fail_at_end = 1;
        EXPECT(ro_sgns_sgd_train_callback(mem_read, &mr, &co->vocab, &cfg, W, C, NULL, &err),
               RO_SGNS_ERR_IO);
    }
    /* divergence is an error, not NaN vectors */
    bad = cfg;
    bad.alpha = 1e30;
    bad.epochs = 2;
    EXPECT(ro_sgns_sgd_train_memory(text, size, &co->vocab, &bad, W, C, NULL, &err),
           RO_SGNS_ERR_NUMERIC);
    /* a custom allocator: used, and everything returned */
    al.malloc_fn = t_malloc;
    al.realloc_fn = t_realloc;
    al.free_fn = t_free;
    al.user = &as;
    CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, &cfg, W, C, &al, &err) == RO_SGNS_OK);
    CHECK(as.calls > 5 && as.live == 0);
    as.calls = 0;
    CHECK(ro_sgns_sgd_train_memory("zzz", 3, &co->vocab, &cfg, W, C, &al, &err) ==
          RO_SGNS_ERR_EMPTY);
    CHECK(as.live == 0);
    /* NULL config = the defaults (d = 100: W and C must be n x 100) */
    {
        real *Wb = (real *)malloc(n * 100 * sizeof(real)), *Cb = (real *)malloc(n * 100 * sizeof(real));
        ro_sgns_sgd_config def = ro_sgns_sgd_config_default();
        CHECK(def.size == 100 && def.window == 5 && def.negative == 5 && def.alpha == (double)0.025 &&
              def.sample == 0 && def.epochs == 5 && def.threads == 0 && def.callback == NULL);
        CHECK(ro_sgns_sgd_train_memory(text, size, &co->vocab, NULL, Wb, Cb, NULL, NULL) ==
              RO_SGNS_OK);
        free(Wb);
        free(Cb);
    }
#undef EXPECT
    free(W);
    free(C);
    free(text);
    ro_sgns_counts_free(co);
}

int main(void)
{
    test_tokenizer();
    test_alias();
    test_step();
    test_train();
    test_merge();
    test_workers();
    test_resume();
    test_errors();
    return tu_finish("sgd");
}
