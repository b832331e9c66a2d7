/* tests/test_count.c - "1. Counting": tokenizer, vocabulary, windows, the
   CSR of #(w,c), the memory budget and the counts file.
   Hand-made corpora with counts worked out in the comments, a brute-force
   reference for every option on random corpora, the budgeted path against
   the unbudgeted one on data/corpus/sample.txt (bit for bit), and every
   failure path (truncated/corrupt files, allocation failures, bad input)
   giving an error and no leak. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include "test_util.h"
#include "counts_file.h"

#include <string.h>

/* relative to the repository root, where make runs the tests; CI has shared/ beside the clone */
#ifndef SAMPLE_PATH
#define SAMPLE_PATH "../shared/data/corpus/sample.txt"
#endif

/* ---- helpers ------------------------------------------------------------- */

static ro_sgns_count_config cfg_min(int window, uint64_t min_count)
{
    ro_sgns_count_config c = ro_sgns_count_config_default();
    c.window = window;
    c.min_count = min_count;
    return c;
}

static ro_sgns_counts *count_str(const char *text, const ro_sgns_count_config *cfg)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    ro_sgns_result rc = ro_sgns_count_memory(text, strlen(text), cfg, &c, NULL, &err);
    CHECKF(rc == RO_SGNS_OK, "%s: %s", ro_sgns_result_string(rc), err.message);
    return rc == RO_SGNS_OK ? c : NULL;
}

/* The counts file in a new buffer (free() it), *size its size; NULL on failure. */
static unsigned char *save_to_memory(const ro_sgns_counts *c, size_t *size)
{
    void *buf = NULL;
    ro_sgns_error err;
    ro_sgns_result rc = ro_sgns_counts_save_memory(c, &buf, size, NULL, &err);
    CHECKF(rc == RO_SGNS_OK, "%s: %s", ro_sgns_result_string(rc), err.message);
    return (unsigned char *)buf;
}

static int64_t id_of(const ro_sgns_counts *c, const char *w)
{
    return ro_sgns_vocab_find(&c->vocab, w, strlen(w));
}

/* #(w, c) by words; 0 when absent, -1 when a word is not in the vocabulary. */
static double pair(const ro_sgns_counts *c, const char *w, const char *x)
{
    int64_t i = id_of(c, w), j = id_of(c, x);
    uint64_t k;
    if (i < 0 || j < 0) return -1;
    for (k = c->row_ptr[i]; k < c->row_ptr[i + 1]; ++k)
        if (c->col[k] == (uint32_t)j) return c->val[k];
    return 0;
}

/* CSR invariants and marginals: row/column sums, |D|, ascending columns.
   The marginals are sums of the values before they were rounded to float:
   exactly the sums of val for integer counts (below 2^24), within float
   rounding for the weighted window's fractions. */
static void check_invariants(const ro_sgns_counts *c)
{
    size_t w;
    uint64_t k;
    double *cs = (double *)calloc(c->n, sizeof(double));
    double tot = 0;
    double tol = c->config.dynamic_window == RO_SGNS_WINDOW_WEIGHTED ? FLT_EPSILON : 1e-9;
    int ok = 1;
    CHECK(c->n == c->vocab.n);
    CHECK(c->row_ptr[0] == 0 && c->row_ptr[c->n] == c->nnz);
    for (w = 0; w < c->n; ++w) {
        double rs = 0;
        for (k = c->row_ptr[w]; k < c->row_ptr[w + 1]; ++k) {
            if (c->col[k] >= c->n || !(c->val[k] > 0)) ok = 0;
            if (k > c->row_ptr[w] && c->col[k] <= c->col[k - 1]) ok = 0;
            rs += c->val[k];
            cs[c->col[k]] += c->val[k];
        }
        tot += rs;
        if (fabs(rs - c->word_count[w]) > tol * (1 + rs)) ok = 0;
        if (w > 0 && c->vocab.count[w] > c->vocab.count[w - 1]) ok = 0;
        if (ro_sgns_vocab_find(&c->vocab, c->vocab.word[w], c->vocab.len[w]) != (int64_t)w)
            ok = 0;
    }
    for (w = 0; w < c->n; ++w)
        if (fabs(cs[w] - c->ctx_count[w]) > tol * (1 + cs[w])) ok = 0;
    /* no word is empty; NULL is allowed with length 0 only */
    if (ro_sgns_vocab_find(&c->vocab, "", 0) != -1 || ro_sgns_vocab_find(&c->vocab, NULL, 0) != -1 ||
        ro_sgns_vocab_find(&c->vocab, NULL, 3) != -1)
        ok = 0;
    CHECKF(ok, "CSR/marginal invariants");
    CHECK_NEAR(tot, c->total, tol * tot);
    free(cs);
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (char *)malloc((size_t)len + 1);
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[len] = 0;
    *size = (size_t)len;
    return buf;
}

/* A counting allocator that can be told to fail the k-th allocation. */
typedef struct test_alloc {
    long live, calls, fail_at; /* fail_at < 0: never */
} test_alloc;

static void *ta_malloc(void *user, size_t size)
{
    test_alloc *t = (test_alloc *)user;
    void *p;
    if (t->fail_at >= 0 && t->calls++ >= t->fail_at) return NULL;
    p = malloc(size);
    if (p) ++t->live;
    return p;
}
static void *ta_realloc(void *user, void *ptr, size_t size)
{
    test_alloc *t = (test_alloc *)user;
    void *p;
    if (t->fail_at >= 0 && t->calls++ >= t->fail_at) return NULL;
    p = realloc(ptr, size);
    if (p && !ptr) ++t->live;
    return p;
}
static void ta_free(void *user, void *ptr)
{
    test_alloc *t = (test_alloc *)user;
    if (ptr) --t->live;
    free(ptr);
}

/* ---- hand-made corpora ---------------------------------------------------- */

static void test_window_1_and_2(void)
{
    ro_sgns_count_config cfg = cfg_min(1, 1);
    ro_sgns_counts *c;
    /* "a b c a b", window 1: neighbours (a,b) (b,a) (b,c) (c,b) (c,a) (a,c)
       (a,b) (b,a): #(a,b) = #(b,a) = 2, the others 1. Vocabulary: a and b
       occur twice (tie: "a" < "b"), c once -> a = 0, b = 1, c = 2. */
    c = count_str("a b c a b", &cfg);
    if (!c) return;
    CHECK(c->n == 3 && c->nnz == 6);
    CHECK(strcmp(c->vocab.word[0], "a") == 0 && strcmp(c->vocab.word[1], "b") == 0 &&
          strcmp(c->vocab.word[2], "c") == 0);
    CHECK(c->vocab.count[0] == 2 && c->vocab.count[1] == 2 && c->vocab.count[2] == 1);
    CHECK(pair(c, "a", "b") == 2 && pair(c, "b", "a") == 2);
    CHECK(pair(c, "b", "c") == 1 && pair(c, "c", "b") == 1);
    CHECK(pair(c, "a", "c") == 1 && pair(c, "c", "a") == 1);
    CHECK(pair(c, "a", "a") == 0);
    /* #(w) = row sums: a 3, b 3, c 2; |D| = 8 */
    CHECK(c->word_count[0] == 3 && c->word_count[1] == 3 && c->word_count[2] == 2);
    CHECK(c->ctx_count[0] == 3 && c->ctx_count[1] == 3 && c->ctx_count[2] == 2);
    CHECK(c->total == 8);
    CHECK(c->corpus_tokens == 5 && c->distinct_words == 3);
    check_invariants(c);
    ro_sgns_counts_free(c);

    /* window 2 on positions 0a 1b 2c 3a 4b:
       a@0: b c;  b@1: a c a;  c@2: a b a b;  a@3: b c b;  b@4: c a
       -> #(a,b) = 1+2 = 3, #(a,c) = 1+1 = 2, #(b,a) = 2+1 = 3,
          #(b,c) = 1+1 = 2, #(c,a) = 2, #(c,b) = 2; |D| = 14 */
    cfg.window = 2;
    c = count_str("a b c a b", &cfg);
    if (!c) return;
    CHECK(pair(c, "a", "b") == 3 && pair(c, "a", "c") == 2);
    CHECK(pair(c, "b", "a") == 3 && pair(c, "b", "c") == 2);
    CHECK(pair(c, "c", "a") == 2 && pair(c, "c", "b") == 2);
    CHECK(c->total == 14);
    check_invariants(c);
    ro_sgns_counts_free(c);

    /* weighted, L = 2: distance 1 weighs 2/2 = 1, distance 2 weighs 1/2.
       a@0: b(1) c(1/2);  a@3: b@1 (1/2), c@2 (1), b@4 (1)
       -> #(a,b) = 1 + 1/2 + 1 = 2.5, #(a,c) = 1/2 + 1 = 1.5
       c@2: a@0 (1/2) b@1 (1) a@3 (1) b@4 (1/2) -> #(c,a) = #(c,b) = 1.5 */
    cfg.dynamic_window = RO_SGNS_WINDOW_WEIGHTED;
    c = count_str("a b c a b", &cfg);
    if (!c) return;
    CHECK(pair(c, "a", "b") == 2.5 && pair(c, "a", "c") == 1.5);
    CHECK(pair(c, "c", "a") == 1.5 && pair(c, "c", "b") == 1.5);
    CHECK(pair(c, "b", "a") == 2.5);
    check_invariants(c);
    ro_sgns_counts_free(c);

    /* weighted L = 5 gives 5/5 .. 1/5; 0.2 * 3 is exact only as 3/5 */
    cfg.window = 5;
    c = count_str("x y x y x y", &cfg);
    if (!c) return;
    /* x at 0, 2, 4; y at 1, 3, 5. #(x,y): x@0: y@1 d1, y@3 d3, y@5 d5 ->
       5+3+1; x@2: y@1 d1, y@3 d1, y@5 d3 -> 5+5+3; x@4: y@1 d3, y@3 d1, y@5
       d1 -> 3+5+5; units 35 -> 35/5 = 7. #(x,x): x@0: x@2 d2, x@4 d4 ->
       4+2; x@2: 4+4; x@4: 2+4 -> 20 units = 4 */
    CHECK(pair(c, "x", "y") == 7.0 && pair(c, "x", "x") == 4.0);
    ro_sgns_counts_free(c);
}

/* val is float, rounded once from the double sum; the marginals keep the
   unrounded double sums. */
static void test_float_values(void)
{
    ro_sgns_count_config cfg = cfg_min(3, 1);
    ro_sgns_counts *c;
    char *text;
    size_t i, N = 5795;
    /* weighted, L = 3, "a b a b" (a at 0, 2; b at 1, 3): weights 3, 2, 1 at
       distances 1, 2, 3. #(a,b): a@0: b@1 3, b@3 1; a@2: b@1 3, b@3 3 -> 10
       units = 10/3; #(a,a): 2 + 2 = 4 units = 4/3; likewise #(b,b) = 4/3,
       #(b,a) = 10/3. #(a) = 14/3, |D| = 28/3: the double quotients, not
       sums of the floats */
    cfg.dynamic_window = RO_SGNS_WINDOW_WEIGHTED;
    c = count_str("a b a b", &cfg);
    if (c) {
        CHECK(c->n == 2 && c->nnz == 4);
        CHECK(pair(c, "a", "b") == (double)(float)(10.0 / 3) &&
              pair(c, "a", "a") == (double)(float)(4.0 / 3));
        /* (double): on x87 (FLT_EVAL_METHOD 2) 14.0 / 3 alone is a long double */
        CHECK(c->word_count[0] == (double)(14.0 / 3) && c->ctx_count[1] == (double)(14.0 / 3));
        CHECK(c->total == (double)(28.0 / 3));
        check_invariants(c);
        ro_sgns_counts_free(c);
    }
    /* an integer count beyond 2^24: N = 5795 copies of "a" in one window
       give #(a,a) = N (N - 1) = 33,576,230, between the floats 33,576,228
       and 33,576,232 (spacing 4 above 2^25): val is the nearest float,
       #(a) and |D| the exact integer */
    text = (char *)malloc(2 * N + 1);
    if (!text) return;
    for (i = 0; i < N; ++i) {
        text[2 * i] = 'a';
        text[2 * i + 1] = ' ';
    }
    text[2 * N] = 0;
    cfg = cfg_min((int)N, 1);
    c = count_str(text, &cfg);
    if (c) {
        CHECK(c->n == 1 && c->nnz == 1);
        CHECK(c->val[0] == (float)33576230.0 && (double)c->val[0] != 33576230.0);
        CHECK(c->word_count[0] == 33576230.0 && c->ctx_count[0] == 33576230.0 &&
              c->total == 33576230.0);
        ro_sgns_counts_free(c);
    }
    free(text);
}

static void test_lines(void)
{
    ro_sgns_count_config cfg = cfg_min(2, 1);
    ro_sgns_counts *c;
    /* lines "a b" and "c a": windows stop at the line break:
       #(a,b) = #(b,a) = #(c,a) = #(a,c) = 1, nothing else */
    c = count_str("a b\nc a\n", &cfg);
    if (!c) return;
    CHECK(c->nnz == 4 && c->total == 4);
    CHECK(pair(c, "a", "b") == 1 && pair(c, "b", "a") == 1);
    CHECK(pair(c, "c", "a") == 1 && pair(c, "a", "c") == 1);
    CHECK(pair(c, "b", "c") == 0 && pair(c, "a", "a") == 0);
    ro_sgns_counts_free(c);
    /* crossing lines: the stream a b c a, window 2:
       a@0: b c; b@1: a c a; c@2: a b a; a@3: b c
       -> #(a,b) 2, #(a,c) 2, #(b,a) 2, #(b,c) 1, #(c,a) 2, #(c,b) 1 */
    cfg.cross_lines = 1;
    c = count_str("a b\nc a\n", &cfg);
    if (!c) return;
    CHECK(pair(c, "a", "b") == 2 && pair(c, "a", "c") == 2 && pair(c, "b", "a") == 2);
    CHECK(pair(c, "b", "c") == 1 && pair(c, "c", "a") == 2 && pair(c, "c", "b") == 1);
    CHECK(c->total == 10);
    ro_sgns_counts_free(c);
    /* empty lines, CRLF, tabs, runs of blanks change nothing */
    cfg.cross_lines = 0;
    c = count_str("\n\n  a\t b \r\n\r\n\n c\ta\r\n", &cfg);
    if (!c) return;
    CHECK(c->n == 3 && c->nnz == 4 && c->total == 4 && c->corpus_tokens == 4);
    CHECK(pair(c, "a", "b") == 1 && pair(c, "c", "a") == 1 && pair(c, "b", "c") == 0);
    ro_sgns_counts_free(c);
    /* every byte from 0x00 to 0x20 separates tokens (section 8's TOKENS):
       "a<b>b a<b>b" is two words a and b twice, for each such byte b; bytes
       above 0x20 (DEL, UTF-8) are word bytes */
    {
        unsigned b;
        int bad = 0;
        ro_sgns_error err;
        cfg.allow_binary = 1; /* lone bytes >= 0x80 and NUL are not text */
        for (b = 0; b <= 0xFF; ++b) {
            char t[8];
            int sep = b <= 0x20;
            t[0] = 'a';
            t[1] = (char)b;
            t[2] = 'b';
            t[3] = ' ';
            memcpy(t + 4, t, 3);
            c = NULL;
            if (ro_sgns_count_memory(t, 7, &cfg, &c, NULL, &err) != RO_SGNS_OK ||
                (sep && (c->n != 2 || id_of(c, "a") < 0 || id_of(c, "b") < 0 ||
                         c->vocab.count[0] != 2 || c->vocab.count[1] != 2)) ||
                (!sep && (c->n != 1 || c->vocab.len[0] != 3 ||
                          ro_sgns_vocab_find(&c->vocab, t, 3) != 0 || c->vocab.count[0] != 2))) {
                if (!bad) fprintf(stderr, "byte 0x%02x: %s\n", b, c ? "wrong words" : err.message);
                ++bad;
            }
            ro_sgns_counts_free(c);
        }
        CHECKF(bad == 0, "%d bytes tokenized against the definition", bad);
        cfg.allow_binary = 0;
    }
    /* "a\rb" is two words now ('\r' was dropped inside a word before) */
    c = count_str("a\rb ab a\rb", &cfg);
    if (!c) return;
    CHECK(c->n == 3 && id_of(c, "a") >= 0 && id_of(c, "b") >= 0 && id_of(c, "ab") >= 0);
    ro_sgns_counts_free(c);
}

static void test_repeats_and_min_count(void)
{
    ro_sgns_count_config cfg = cfg_min(1, 1);
    ro_sgns_counts *c;
    ro_sgns_error err;
    ro_sgns_result rc;
    /* "a a a", window 1: a@0: a; a@1: a a; a@2: a -> #(a,a) = 4 */
    c = count_str("a a a", &cfg);
    if (!c) return;
    CHECK(c->n == 1 && c->nnz == 1 && c->val[0] == 4 && c->total == 4);
    ro_sgns_counts_free(c);
    /* window 2: each of the 3 sees the 2 others -> 6 */
    cfg.window = 2;
    c = count_str("a a a", &cfg);
    if (!c) return;
    CHECK(c->val[0] == 6);
    ro_sgns_counts_free(c);

    /* min_count is ">=": a:2 b:3 c:1 */
    cfg = cfg_min(1, 2);
    c = count_str("a a b b b c", &cfg);
    if (!c) return;
    CHECK(c->n == 2 && strcmp(c->vocab.word[0], "b") == 0 && strcmp(c->vocab.word[1], "a") == 0);
    CHECK(id_of(c, "c") == -1);
    ro_sgns_counts_free(c);
    cfg.min_count = 3;
    c = count_str("a a b b b c", &cfg);
    if (!c) return;
    CHECK(c->n == 1 && c->vocab.count[0] == 3);
    /* b b b: #(b,b) = 4 (as "a a a" above) */
    CHECK(c->val[0] == 4);
    ro_sgns_counts_free(c);
    cfg.min_count = 4;
    rc = ro_sgns_count_memory("a a b b b c", 11, &cfg, &c, NULL, &err);
    CHECK(rc == RO_SGNS_ERR_EMPTY && strstr(err.message, "min_count") != NULL);
    cfg.min_count = 0; /* acts as 1 */
    c = count_str("a a b b b c", &cfg);
    if (!c) return;
    CHECK(c->n == 3);
    ro_sgns_counts_free(c);

    /* dropped words keep their place (default): "a c a" with c dropped
       leaves the a's 2 apart: nothing within window 1 */
    cfg = cfg_min(1, 2);
    c = NULL;
    rc = ro_sgns_count_memory("a c a", 5, &cfg, &c, NULL, &err);
    CHECK(rc == RO_SGNS_ERR_EMPTY && c == NULL);
    /* ... with close_gaps the a's become neighbours: #(a,a) = 2 */
    cfg.close_gaps = 1;
    c = count_str("a c a", &cfg);
    if (!c) return;
    CHECK(c->n == 1 && c->val[0] == 2);
    ro_sgns_counts_free(c);
    /* window 2 without closing: a c a -> #(a,a) = 2 */
    cfg.close_gaps = 0;
    cfg.window = 2;
    c = count_str("a c a", &cfg);
    if (!c) return;
    CHECK(c->val[0] == 2);
    ro_sgns_counts_free(c);

    /* max_vocab keeps the most frequent: a:3 b:2 c:1 -> a, b */
    cfg = cfg_min(1, 1);
    cfg.max_vocab = 2;
    c = count_str("a a a b b c", &cfg);
    if (!c) return;
    CHECK(c->n == 2 && id_of(c, "c") == -1 && id_of(c, "a") == 0);
    ro_sgns_counts_free(c);
    /* a tie at the max_vocab cut is broken by bytes: b, a, c all 2 -> a, b */
    c = count_str("b a c a b c", &cfg);
    if (!c) return;
    CHECK(c->n == 2 && id_of(c, "a") == 0 && id_of(c, "b") == 1 && id_of(c, "c") == -1);
    ro_sgns_counts_free(c);
}

static void test_ties(void)
{
    ro_sgns_count_config cfg = cfg_min(1, 1);
    ro_sgns_counts *c;
    /* all once: order by bytes, shorter first on a common prefix, bytes
       unsigned ("\xc3\xa9" after "z") */
    c = count_str("zz z \xc3\xa9 b ab a", &cfg);
    if (!c) return;
    CHECK(c->n == 6);
    if (c->n == 6) {
        CHECK(strcmp(c->vocab.word[0], "a") == 0);
        CHECK(strcmp(c->vocab.word[1], "ab") == 0);
        CHECK(strcmp(c->vocab.word[2], "b") == 0);
        CHECK(strcmp(c->vocab.word[3], "z") == 0);
        CHECK(strcmp(c->vocab.word[4], "zz") == 0);
        CHECK(strcmp(c->vocab.word[5], "\xc3\xa9") == 0);
    }
    ro_sgns_counts_free(c);
    /* counts first: q twice beats a once */
    c = count_str("a q q", &cfg);
    if (!c) return;
    CHECK(id_of(c, "q") == 0 && id_of(c, "a") == 1);
    ro_sgns_counts_free(c);
}

static void test_long_words(void)
{
    ro_sgns_count_config cfg = cfg_min(1, 1);
    ro_sgns_counts *c;
    char text[1024], w99[128], w98[128];
    int i;
    memset(w99, 'x', 99);
    w99[99] = 0;
    memset(w98, 'y', 98);
    w98[98] = 0;
    /* token 1: 99 x + "\xc3\xa9" (2 bytes, at bytes 99..100): 101 bytes; the
       cut at 100 would split the character -> the word is the 99 x.
       token 2: 98 y + "\xe2\x82\xac" (euro sign, bytes 98..100) + "abc": the
       cut at 100 would fall 2 bytes into the character -> 98 y.
       token 3: exactly 100 bytes (98 y + "\xc3\xa9"): kept whole.
       token 4: 150 'z': cut to 100 z.
       token 5: 100 z + "more": the same word as token 4. */
    strcpy(text, w99);
    strcat(text, "\xc3\xa9 ");
    strcat(text, w98);
    strcat(text, "\xe2\x82\xac" "abc ");
    strcat(text, w98);
    strcat(text, "\xc3\xa9 ");
    for (i = 0; i < 150; ++i) strcat(text, "z");
    strcat(text, " ");
    for (i = 0; i < 100; ++i) strcat(text, "z");
    strcat(text, "more\n");
    c = count_str(text, &cfg);
    if (!c) return;
    CHECK(c->corpus_tokens == 5 && c->n == 4);
    {
        int64_t a = ro_sgns_vocab_find(&c->vocab, w99, 99);
        int64_t b = ro_sgns_vocab_find(&c->vocab, w98, 98);
        char full[128], zz[128];
        int64_t d, z;
        strcpy(full, w98);
        strcat(full, "\xc3\xa9");
        d = ro_sgns_vocab_find(&c->vocab, full, 100);
        memset(zz, 'z', 100);
        z = ro_sgns_vocab_find(&c->vocab, zz, 100);
        CHECK(a >= 0 && b >= 0 && d >= 0 && z >= 0);
        if (a >= 0 && b >= 0 && d >= 0 && z >= 0) {
            CHECK(c->vocab.len[a] == 99 && c->vocab.len[b] == 98 && c->vocab.len[d] == 100);
            CHECK(c->vocab.count[z] == 2 && z == 0);
        }
        for (i = 0; i < (int)c->n; ++i) CHECK(c->vocab.len[i] <= RO_SGNS_MAX_WORD_BYTES);
    }
    ro_sgns_counts_free(c);
    /* a 4-byte character (U+1F600, F0 9F 98 80) at bytes 97..100: byte 100
       is its third continuation byte; the cut goes back 3 bytes, to 97.
       With 96 w in front (bytes 96..99) it ends exactly at 100: kept. */
    {
        char t2[512], w97[128];
        memset(w97, 'w', 97);
        w97[97] = 0;
        strcpy(t2, w97);
        strcat(t2, "\xf0\x9f\x98\x80tail ");
        strcat(t2, w97 + 1);
        strcat(t2, "\xf0\x9f\x98\x80");
        c = count_str(t2, &cfg);
        if (!c) return;
        CHECK(c->n == 2);
        CHECK(ro_sgns_vocab_find(&c->vocab, w97, 97) >= 0);
        strcpy(t2, w97 + 1);
        strcat(t2, "\xf0\x9f\x98\x80");
        CHECK(ro_sgns_vocab_find(&c->vocab, t2, 100) >= 0);
        ro_sgns_counts_free(c);
    }
    /* the same through a reader that hands out 7 bytes at a time (words
       straddle the blocks) */
    {
        tu_reader r;
        ro_sgns_counts *c2 = NULL, *c1;
        ro_sgns_error err;
        c1 = count_str(text, &cfg);
        r.p = (const unsigned char *)text;
        r.size = strlen(text);
        r.at = 0;
        r.chunk = 7;
        r.fail_after = -1;
        CHECK(ro_sgns_count_callback(tu_read, &r, &cfg, &c2, NULL, &err) == RO_SGNS_OK);
        CHECK(c1 && c2 && tu_same_counts(c1, c2));
        ro_sgns_counts_free(c1);
        ro_sgns_counts_free(c2);
    }
}

static void test_bad_input(void)
{
    ro_sgns_count_config cfg = cfg_min(2, 1);
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    unsigned char garbage[4096];
    unsigned x = 12345;
    size_t i;
    tu_reader r;
    CHECK(ro_sgns_count_memory("", 0, &cfg, &c, NULL, &err) == RO_SGNS_ERR_EMPTY && !c);
    CHECK(ro_sgns_count_memory(NULL, 0, &cfg, &c, NULL, &err) == RO_SGNS_ERR_EMPTY && !c);
    CHECK(ro_sgns_count_memory(" \n\t\r\n ", 6, &cfg, &c, NULL, &err) == RO_SGNS_ERR_EMPTY);
    /* one token: a vocabulary but no pair */
    CHECK(ro_sgns_count_memory("lonely", 6, &cfg, &c, NULL, &err) == RO_SGNS_ERR_EMPTY && !c);
    CHECK(strstr(err.message, "pairs") != NULL);
    /* words only on separate lines: no pair either */
    CHECK(ro_sgns_count_memory("a\nb\na\nb\n", 8, &cfg, &c, NULL, &err) == RO_SGNS_ERR_EMPTY);
    /* binary garbage: no word repeats 5 times */
    for (i = 0; i < sizeof garbage; ++i) {
        x = x * 1103515245u + 12345u;
        garbage[i] = (unsigned char)(x >> 16);
    }
    cfg.min_count = 5;
    CHECK(ro_sgns_count_memory(garbage, sizeof garbage, &cfg, &c, NULL, &err) ==
              RO_SGNS_ERR_FORMAT && !c);
    cfg.allow_binary = 1;
    CHECK(ro_sgns_count_memory(garbage, sizeof garbage, &cfg, &c, NULL, &err) ==
              RO_SGNS_ERR_EMPTY && !c);
    cfg.allow_binary = 0;
    /* bad settings */
    cfg = cfg_min(0, 1);
    CHECK(ro_sgns_count_memory("a b", 3, &cfg, &c, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg = cfg_min(65536, 1);
    CHECK(ro_sgns_count_memory("a b", 3, &cfg, &c, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg = cfg_min(2, 1);
    cfg.dynamic_window = 3;
    CHECK(ro_sgns_count_memory("a b", 3, &cfg, &c, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg = cfg_min(2, 1);
    cfg.sample = -1;
    CHECK(ro_sgns_count_memory("a b", 3, &cfg, &c, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    cfg.sample = 0;
    CHECK(ro_sgns_count_memory("a b", 3, &cfg, NULL, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_count_memory(NULL, 3, &cfg, &c, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_count_callback(NULL, NULL, &cfg, &c, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_count_path("/nonexistent/dir/x.txt", &cfg, &c, NULL, &err) == RO_SGNS_ERR_IO);
    CHECK(strstr(err.message, "/nonexistent/dir/x.txt") != NULL);
    /* a failing reader */
    r.p = (const unsigned char *)"a b a b a b";
    r.size = 11;
    r.at = 0;
    r.chunk = 2;
    r.fail_after = 2;
    CHECK(ro_sgns_count_callback(tu_read, &r, &cfg, &c, NULL, &err) == RO_SGNS_ERR_IO);
    CHECK(c == NULL);
    /* NULL config = defaults (window 5, min_count 5) */
    CHECK(ro_sgns_count_memory("a b a b a b a b a b", 19, NULL, &c, NULL, &err) == RO_SGNS_OK);
    if (c) {
        CHECK(c->config.window == 5 && c->config.min_count == 5 && c->n == 2);
        ro_sgns_counts_free(c);
    }
    /* a NUL byte separates tokens like a blank: "a\0b" is a and b */
    {
        ro_sgns_counts *z = NULL;
        cfg = cfg_min(1, 1);
        cfg.allow_binary = 1; /* a NUL is not text (test_not_text) */
        CHECK(ro_sgns_count_memory("a\0b q a\0b", 9, &cfg, &z, NULL, &err) == RO_SGNS_OK);
        if (z) {
            CHECK(z->n == 3 && ro_sgns_vocab_find(&z->vocab, "a\0b", 3) == -1);
            CHECK(ro_sgns_vocab_find(&z->vocab, "a", 1) >= 0);
            CHECK(ro_sgns_vocab_find(&z->vocab, "q", 1) >= 0);
            CHECK(ro_sgns_vocab_find(&z->vocab, "", 0) == -1);
            ro_sgns_counts_free(z);
        }
    }
}

/* Count text (len bytes) whole and through readers of 1 and 7 bytes a
   read: the same result code (the check does not depend on the split),
   and a message that holds want. */
static void not_text_case(const char *what, const unsigned char *text, size_t len,
                          const ro_sgns_count_config *cfg, ro_sgns_result want_rc,
                          const char *want)
{
    static const size_t chunks[2] = {1, 7};
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    ro_sgns_result rc = ro_sgns_count_memory(text, len, cfg, &c, NULL, &err);
    size_t i;
    CHECKF(rc == want_rc, "%s: %d, not %d (%s)", what, (int)rc, (int)want_rc, err.message);
    CHECKF(!want || strstr(err.message, want) != NULL, "%s: '%s' lacks '%s'", what, err.message,
           want);
    ro_sgns_counts_free(c);
    for (i = 0; i < 2; ++i) {
        tu_reader r = tu_reader_of(text, len, chunks[i]);
        c = NULL;
        rc = ro_sgns_count_callback(tu_read, &r, cfg, &c, NULL, &err);
        CHECKF(rc == want_rc, "%s, reads of %lu: %d, not %d (%s)", what,
               (unsigned long)chunks[i], (int)rc, (int)want_rc, err.message);
        ro_sgns_counts_free(c);
    }
}

/* Input that is not text (section 8, NOT TEXT) is refused with what it
   looks like: random bytes, NUL bytes, UTF-16 with and without a byte
   order mark, UTF-32; Latin-1 and valid UTF-8 pass; allow_binary counts
   anything; only the first RO_SGNS_SNIFF_BYTES are looked at. */
static void test_not_text(void)
{
    static const char *words[6] = {"the", "cat", "sat", "on", "\xc3\xa9t\xc3\xa9", "mat"};
    ro_sgns_count_config cfg = cfg_min(1, 1), any;
    size_t n = 4000, i, len = 0;
    unsigned char *buf = (unsigned char *)malloc(2 * RO_SGNS_SNIFF_BYTES + 64);
    unsigned char *u16 = (unsigned char *)malloc(2 * n + 4);
    uint64_t s = 7;
    any = cfg;
    any.allow_binary = 1;
    CHECK(buf && u16);
    if (!buf || !u16) {
        free(buf);
        free(u16);
        return;
    }
    /* random bytes without NULs: mostly invalid UTF-8 */
    for (i = 0; i < n; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (unsigned char)(1 + (s >> 33) % 255);
    }
    not_text_case("random bytes", buf, n, &cfg, RO_SGNS_ERR_FORMAT, "invalid UTF-8");
    not_text_case("random bytes, allowed", buf, n, &any, RO_SGNS_OK, NULL);
    /* text with one NUL */
    for (i = 0; i < 500; ++i) {
        size_t l = strlen(words[i % 6]);
        memcpy(buf + len, words[i % 6], l);
        len += l;
        buf[len++] = (unsigned char)(i % 10 == 9 ? '\n' : ' ');
    }
    not_text_case("text", buf, len, &cfg, RO_SGNS_OK, NULL);
    buf[100] = 0;
    not_text_case("a NUL", buf, len, &cfg, RO_SGNS_ERR_FORMAT, "the first at byte 100");
    not_text_case("a NUL, allowed", buf, len, &any, RO_SGNS_OK, NULL);
    buf[100] = ' ';
    /* Latin-1: one byte in ten above 0x7F is still text */
    for (i = 5; i < len; i += 10) buf[i] = 0xE9;
    not_text_case("Latin-1", buf, len, &cfg, RO_SGNS_OK, NULL);
    /* UTF-16 of the ASCII words, both byte orders, without and with a mark */
    for (i = 0; i < n && i < len; ++i) {
        unsigned char ch = buf[i] >= 0x80 ? 'e' : buf[i];
        u16[2 + 2 * i] = ch;
        u16[3 + 2 * i] = 0;
    }
    not_text_case("UTF-16LE", u16 + 2, 2 * i, &cfg, RO_SGNS_ERR_FORMAT, "UTF-16LE (a NUL");
    not_text_case("UTF-16BE", u16 + 3, 2 * i - 1, &cfg, RO_SGNS_ERR_FORMAT, "UTF-16BE (a NUL");
    u16[0] = 0xFF;
    u16[1] = 0xFE;
    not_text_case("UTF-16LE, marked", u16, 2 * i + 2, &cfg, RO_SGNS_ERR_FORMAT,
                  "UTF-16LE (a byte order mark)");
    not_text_case("UTF-16LE, allowed", u16, 2 * i + 2, &any, RO_SGNS_OK, NULL);
    memcpy(u16, "\xFF\xFE\0\0", 4);
    not_text_case("UTF-32LE, marked", u16, 2 * i + 2, &cfg, RO_SGNS_ERR_FORMAT, "UTF-32");
    /* only the first RO_SGNS_SNIFF_BYTES count: a NUL just past them is
       counted, one just before is refused */
    len = 0;
    while (len < RO_SGNS_SNIFF_BYTES + 16) {
        memcpy(buf + len, "ab cd\n", 6);
        len += 6;
    }
    buf[RO_SGNS_SNIFF_BYTES] = 0;
    not_text_case("a NUL past the check", buf, len, &cfg, RO_SGNS_OK, NULL);
    buf[RO_SGNS_SNIFF_BYTES] = 'x';
    buf[RO_SGNS_SNIFF_BYTES - 1] = 0;
    not_text_case("a NUL at its end", buf, len, &cfg, RO_SGNS_ERR_FORMAT, "NUL");
    free(buf);
    free(u16);
}

typedef struct progress_log {
    uint64_t last, total, calls, stop_after;
    int bad;
} progress_log;

static int log_progress(const ro_sgns_count_progress *p, void *user)
{
    progress_log *g = (progress_log *)user;
    if (p->positions < g->last || p->positions > p->positions_total ||
        (g->calls && p->positions_total != g->total))
        g->bad = 1;
    g->last = p->positions;
    g->total = p->positions_total;
    return ++g->calls == g->stop_after;
}

/* The pair pass reports its progress: positions rise to their total (the
   vocabulary's tokens) with and without a budget (rows in pieces); the
   counts are the same bits; a callback that stops gives RO_SGNS_STOPPED
   and no counts. */
static void test_progress(void)
{
    const char *text = "a b c a b d a b c e a a a b b c d e f g a b\nc a b a\n";
    ro_sgns_count_config cfg = cfg_min(3, 1);
    ro_sgns_counts *ref = NULL, *c = NULL;
    ro_sgns_error err;
    uint64_t tokens = 0;
    size_t w;
    int budget;
    CHECK(ro_sgns_count_memory(text, strlen(text), &cfg, &ref, NULL, &err) == RO_SGNS_OK);
    if (!ref) return;
    for (w = 0; w < ref->n; ++w) tokens += ref->vocab.count[w];
    for (budget = 0; budget < 2; ++budget) {
        progress_log g;
        memset(&g, 0, sizeof g);
        cfg.callback = log_progress;
        cfg.user = &g;
        cfg.memory_budget = budget ? ref->peak_bytes : 0;
        c = NULL;
        CHECKF(ro_sgns_count_memory(text, strlen(text), &cfg, &c, NULL, &err) == RO_SGNS_OK,
               "%s", err.message);
        CHECKF(g.calls >= 1 && !g.bad && g.last == tokens && g.total == tokens,
               "budget %d: %llu calls, last %llu of %llu, want %llu", budget,
               (unsigned long long)g.calls, (unsigned long long)g.last,
               (unsigned long long)g.total, (unsigned long long)tokens);
        CHECK(c && tu_same_counts(ref, c));
        CHECK(c && !c->config.callback && !c->config.user);
        ro_sgns_counts_free(c);
        memset(&g, 0, sizeof g);
        g.stop_after = 1;
        c = NULL;
        CHECK(ro_sgns_count_memory(text, strlen(text), &cfg, &c, NULL, &err) == RO_SGNS_STOPPED &&
              !c && err.code == RO_SGNS_STOPPED);
    }
    ro_sgns_counts_free(ref);
}

/* A vocabulary word whose every occurrence is subsampled away has an empty
   row (and column); with and without a budget. */
static void test_empty_rows(void)
{
    char text[20000];
    size_t len = 0;
    int i, found = 0;
    uint64_t seed;
    for (i = 0; i < 2000; ++i) len += (size_t)sprintf(text + len, "the ");
    for (i = 0; i < 40; ++i) len += (size_t)sprintf(text + len, "x y ");
    len += (size_t)sprintf(text + len, "rare rare\n");
    for (seed = 1; seed < 200 && !found; ++seed) {
        ro_sgns_count_config cfg = cfg_min(2, 2);
        ro_sgns_counts *c = NULL, *d = NULL;
        ro_sgns_error err;
        int64_t r;
        /* T = 2082, t T = 0.25: "rare" (2) is kept with probability 0.3,
           "the" (2000) 0.011, "x" and "y" (40) 0.085; the kept ones close
           ranks, so there are pairs */
        cfg.sample = 1.2e-4;
        cfg.close_gaps = 1;
        cfg.seed = seed;
        if (ro_sgns_count_memory(text, len, &cfg, &c, NULL, &err) != RO_SGNS_OK) continue;
        r = id_of(c, "rare");
        if (r >= 0 && c->row_ptr[r] == c->row_ptr[r + 1]) {
            found = 1;
            CHECK(c->word_count[r] == 0 && c->ctx_count[r] == 0);
            check_invariants(c);
            cfg.memory_budget = c->peak_bytes;
            CHECK(ro_sgns_count_memory(text, len, &cfg, &d, NULL, &err) == RO_SGNS_OK);
            CHECK(d && tu_same_counts(c, d));
            ro_sgns_counts_free(d);
        }
        ro_sgns_counts_free(c);
    }
    CHECK(found);
}

/* ---- a brute-force reference for every option ------------------------------ */

#define REF_MAXW 64
typedef struct ref_corpus {
    char words[REF_MAXW][8]; /* the distinct words */
    int nw;
} ref_corpus;

/* The reference: tokens are the words of the text (no long words and no
   '\r' here), lines split at '\n'. Builds the vocabulary the documented
   way, replays the documented random draws, and counts by the definition:
   every pair of kept positions within the (sampled) half-width on one line. */
static double *ref_count(const char *text, const ro_sgns_count_config *cfg, size_t *n_out,
                         char (*vw)[8])
{
    int tok[4096], line[4096], ntok = 0, nd = 0, cur_line = 0;
    char dw[REF_MAXW][8];
    uint64_t cnt[REF_MAXW];
    int order[REF_MAXW], vid[REF_MAXW], n, i, j;
    int kept[4096], kpos[4096], kline[4096], nk = 0, b[4096];
    const char *p = text;
    double *D;
    uint64_t mc = cfg->min_count ? cfg->min_count : 1, raw = 0;
    int L = cfg->window;
    ro_sgns_rng rs, rw;
    double keepp[REF_MAXW];
    /* tokenize */
    while (*p) {
        if (*p == ' ' || *p == '\t') {
            ++p;
            continue;
        }
        if (*p == '\n') {
            ++cur_line;
            ++p;
            continue;
        }
        {
            char w[8];
            int len = 0, k;
            while (*p && *p != ' ' && *p != '\t' && *p != '\n') w[len++] = *p++;
            w[len] = 0;
            for (k = 0; k < nd; ++k)
                if (strcmp(dw[k], w) == 0) break;
            if (k == nd) {
                strcpy(dw[nd], w);
                cnt[nd++] = 0;
            }
            ++cnt[k];
            tok[ntok] = k;
            line[ntok++] = cfg->cross_lines ? 0 : cur_line;
        }
    }
    /* vocabulary: count desc, bytes asc (selection sort) */
    for (i = 0; i < nd; ++i) order[i] = i;
    for (i = 0; i < nd; ++i)
        for (j = i + 1; j < nd; ++j) {
            int a = order[i], c = order[j];
            if (cnt[c] > cnt[a] || (cnt[c] == cnt[a] && strcmp(dw[c], dw[a]) < 0)) {
                order[i] = c;
                order[j] = a;
            }
        }
    n = 0;
    for (i = 0; i < nd; ++i) vid[i] = -1;
    for (i = 0; i < nd; ++i) {
        if (cnt[order[i]] < mc) break;
        if (cfg->max_vocab && (uint64_t)n >= cfg->max_vocab) break;
        vid[order[i]] = n;
        strcpy(vw[n], dw[order[i]]);
        ++n;
    }
    *n_out = (size_t)n;
    if (cfg->sample > 0) {
        double T = 0, st;
        for (i = 0; i < n; ++i) T += (double)cnt[order[i]];
        st = cfg->sample * T;
        for (i = 0; i < n; ++i) {
            double f = (double)cnt[order[i]];
            keepp[i] = (sqrt(f / st) + 1.0) * st / f;
        }
    }
    /* kept positions, replaying the draws */
    {
        int pos = 0;
        for (i = 0; i < ntok; ++i) {
            int v = vid[tok[i]];
            if (raw % 65536 == 0) {
                ro_sgns_rng_seed(&rs, cfg->seed, 2 * (raw / 65536));
                ro_sgns_rng_seed(&rw, cfg->seed, 2 * (raw / 65536) + 1);
            }
            ++raw;
            if (v >= 0 && cfg->sample > 0 && keepp[v] < ro_sgns_rng_uniform(&rs)) v = -1;
            if (v < 0 && cfg->close_gaps) continue;
            kept[nk] = v;
            kpos[nk] = pos++;
            kline[nk] = line[i];
            b[nk] = L;
            if (v >= 0 && cfg->dynamic_window == RO_SGNS_WINDOW_SAMPLED)
                b[nk] = 1 + (int)(ro_sgns_rng_next(&rw) % (uint64_t)L);
            ++nk;
        }
    }
    D = (double *)calloc((size_t)(n ? n : 1) * (size_t)(n ? n : 1), sizeof(double));
    for (i = 0; i < nk; ++i) {
        if (kept[i] < 0) continue;
        for (j = 0; j < nk; ++j) {
            int d = kpos[j] > kpos[i] ? kpos[j] - kpos[i] : kpos[i] - kpos[j];
            if (j == i || kept[j] < 0 || kline[j] != kline[i] || d > b[i]) continue;
            D[kept[i] * n + kept[j]] +=
                cfg->dynamic_window == RO_SGNS_WINDOW_WEIGHTED ? (double)(L - d + 1) : 1.0;
        }
    }
    if (cfg->dynamic_window == RO_SGNS_WINDOW_WEIGHTED)
        for (i = 0; i < n * n; ++i) D[i] /= (double)L;
    return D;
}

static void test_reference(void)
{
    unsigned x = 777;
    int trial, fails = 0, runs = 0;
    static const char *pool[] = {"the", "of", "a", "cat", "dog", "sat", "on", "mat", "x",
                                 "y", "z", "zz", "q"};
    for (trial = 0; trial < 300; ++trial) {
        char text[8192];
        size_t len = 0, n = 0, i;
        int ntok, t;
        char vw[REF_MAXW][8];
        ro_sgns_count_config cfg = ro_sgns_count_config_default();
        ro_sgns_counts *c = NULL, *c2 = NULL;
        ro_sgns_error err;
        ro_sgns_result rc;
        double *D;
#define RND() (x = x * 1103515245u + 12345u, (x >> 16) & 0x7FFF)
        ntok = 1 + (int)(RND() % 300);
        for (t = 0; t < ntok; ++t) {
            /* Zipf-ish: low indices more often */
            int k = (int)(RND() % 13);
            if (RND() % 2) k = k / 3;
            len += (size_t)sprintf(text + len, "%s", pool[k]);
            text[len++] = RND() % 9 == 0 ? '\n' : (RND() % 7 == 0 ? '\t' : ' ');
        }
        text[len] = 0;
        cfg.window = 1 + (int)(RND() % 4);
        cfg.min_count = RND() % 4;
        cfg.max_vocab = RND() % 3 == 0 ? 1 + RND() % 6 : 0;
        cfg.dynamic_window = (int)(RND() % 3);
        cfg.cross_lines = (int)(RND() % 2);
        cfg.close_gaps = (int)(RND() % 2);
        cfg.sample = RND() % 3 == 0 ? 0.01 : 0;
        cfg.seed = RND();
        D = ref_count(text, &cfg, &n, vw);
        rc = ro_sgns_count_memory(text, len, &cfg, &c, NULL, &err);
        ++runs;
        if (rc != RO_SGNS_OK) {
            /* then the reference must have no pair (or no vocabulary) */
            double s = 0;
            for (i = 0; i < n * n; ++i) s += D[i];
            if (!(rc == RO_SGNS_ERR_EMPTY && s == 0)) {
                ++fails;
                fprintf(stderr, "trial %d: %s\n", trial, err.message);
            }
        } else {
            size_t w;
            uint64_t k;
            int ok = c->n == n;
            for (w = 0; ok && w < n; ++w) {
                size_t cc;
                ok = strcmp(c->vocab.word[w], vw[w]) == 0;
                for (cc = 0; ok && cc < n; ++cc) {
                    double got = 0;
                    for (k = c->row_ptr[w]; k < c->row_ptr[w + 1]; ++k)
                        if (c->col[k] == cc) got = c->val[k];
                    /* the exact value rounded to float once */
                    if (got != (double)(float)D[w * n + cc]) ok = 0;
                }
            }
            if (!ok) {
                ++fails;
                fprintf(stderr, "trial %d: counts differ from the reference (window %d, dyn %d,"
                        " cross %d, gaps %d, sample %g, min %llu, max %llu)\n", trial,
                        cfg.window, cfg.dynamic_window, cfg.cross_lines, cfg.close_gaps,
                        cfg.sample, (unsigned long long)cfg.min_count,
                        (unsigned long long)cfg.max_vocab);
            }
            check_invariants(c);
            /* a reader with tiny blocks and a tight budget agree bit for bit */
            {
                tu_reader r;
                r.p = (const unsigned char *)text;
                r.size = len;
                r.at = 0;
                r.chunk = 1 + RND() % 5;
                r.fail_after = -1;
                cfg.memory_budget = c->peak_bytes * 3 / 4 + 4096;
                rc = ro_sgns_count_callback(tu_read, &r, &cfg, &c2, NULL, &err);
                if (rc == RO_SGNS_OK) {
                    if (!tu_same_counts(c, c2)) {
                        ++fails;
                        fprintf(stderr, "trial %d: reader/budget run differs\n", trial);
                    }
                    ro_sgns_counts_free(c2);
                } else if (rc != RO_SGNS_ERR_BUDGET) {
                    ++fails;
                    fprintf(stderr, "trial %d: budget run: %s\n", trial, err.message);
                }
            }
            ro_sgns_counts_free(c);
        }
        free(D);
    }
    CHECKF(fails == 0, "%d of %d random corpora disagree with the reference", fails, runs);
}

static int g_enough_followed; /* follow_enough's successes, for the sample's check */

/* A failure's "N are enough" (the budget error of the pairs' pass), followed:
   a run with that budget must work, agree with ref and stay within it;
   the least figure must lie above the budget that failed.
   Returns 1 when the message had the figure and following it worked, 0
   when it had none, -1 when following it failed. */
static int follow_enough(const char *text, size_t len, const ro_sgns_count_config *cfg0,
                         const ro_sgns_counts *ref, const char *message, uint64_t failed)
{
    ro_sgns_count_config cfg = *cfg0;
    const char *p = strstr(message, " bytes, and ");
    unsigned long long enough = 0, least = 0;
    const char *q = strstr(message, "needs at least ");
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    int ok;
    if (!p || !q || sscanf(p, " bytes, and %llu are enough", &enough) != 1 ||
        sscanf(q, "needs at least %llu", &least) != 1)
        return 0;
    /* the bounds in order: above the budget that failed, least <= enough */
    if (least <= failed || least > enough) return -1;
    cfg.memory_budget = (uint64_t)enough;
    ok = ro_sgns_count_memory(text, len, &cfg, &c, NULL, &err) == RO_SGNS_OK &&
         tu_same_counts(ref, c) && c->peak_bytes <= enough;
    if (!ok) printf("count: a budget of %llu bytes, said to be enough, fails: %s\n", enough,
                    c ? "other counts" : err.message);
    ro_sgns_counts_free(c);
    return ok ? 1 : -1;
}

/* Bisect for the smallest budget that works; every success must agree
   with ref bit for bit, every failure must be RO_SGNS_ERR_BUDGET and say
   how much counting needs at least; where it also says how much is
   enough, a run with that much must work (follow_enough). */
static uint64_t check_tight_budgets(const char *text, size_t len,
                                    const ro_sgns_count_config *cfg0, const ro_sgns_counts *ref)
{
    ro_sgns_count_config cfg = *cfg0;
    uint64_t lo = 1024, hi = ref->peak_bytes;
    /* RO_SGNS_TEST_QUICK: to 1/64 of the peak (6 counts instead of 13) */
    uint64_t tol = tu_quick() && ref->peak_bytes / 64 > 2048 ? ref->peak_bytes / 64 : 2048;
    int bad = 0, followed = 0, fr;
    while (hi - lo > tol) {
        uint64_t mid = lo + (hi - lo) / 2;
        ro_sgns_counts *c = NULL;
        ro_sgns_error err;
        ro_sgns_result rc;
        cfg.memory_budget = mid;
        rc = ro_sgns_count_memory(text, len, &cfg, &c, NULL, &err);
        if (rc == RO_SGNS_OK) {
            hi = mid;
            if (!tu_same_counts(ref, c) || c->peak_bytes > mid) ++bad;
            ro_sgns_counts_free(c);
        } else {
            if (rc != RO_SGNS_ERR_BUDGET || !strstr(err.message, "at least")) ++bad;
            lo = mid;
            fr = rc == RO_SGNS_ERR_BUDGET ? follow_enough(text, len, &cfg, ref, err.message, mid) : 0;
            if (fr < 0) ++bad;
            followed += fr > 0;
        }
    }
    CHECKF(bad == 0, "%d budgeted runs disagree or fail wrongly", bad);
    g_enough_followed += followed;
    CHECKF(hi <= ref->peak_bytes, "tightest budget %llu", (unsigned long long)hi);
    return hi;
}

/* ---- big vocabularies: escaped ids (>= 0xFFF0) and 4-byte streams --------- */

static void test_big_vocab(void)
{
    size_t cap = 2000000, len = 0, i;
    char *a = (char *)malloc(cap), *b = (char *)malloc(cap);
    ro_sgns_count_config cfg = cfg_min(2, 2);
    ro_sgns_counts *ca = NULL, *cb = NULL;
    ro_sgns_error err;
    unsigned x = 5;
    /* A: 70000 words seen once on line 1 (ids 0..69999), then line 2 uses
       50 words first seen there (ids >= 70000, escaped in the stream).
       B: line 1 is one word. Line 1 adds nothing (its words are dropped,
       windows stop at the line end), so A and B have the same counts. */
    for (i = 0; i < 70000; ++i) len += (size_t)sprintf(a + len, "s%u ", (unsigned)i);
    a[len++] = '\n';
    memcpy(b, "x\n", 2);
    {
        size_t lb = 2, start = len;
        for (i = 0; i < 3000; ++i) {
            x = x * 1103515245u + 12345u;
            len += (size_t)sprintf(a + len, "p%u ", (x >> 16) % 50);
        }
        memcpy(b + lb, a + start, len - start);
        lb += len - start;
        b[lb] = 0;
        a[len] = 0;
    }
    CHECK(ro_sgns_count_memory(a, strlen(a), &cfg, &ca, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_count_memory(b, strlen(b), &cfg, &cb, NULL, &err) == RO_SGNS_OK);
    if (ca && cb) {
        CHECK(ca->distinct_words == 70050 && ca->n == 50 && cb->n == 50);
        cb->corpus_tokens = ca->corpus_tokens;
        cb->distinct_words = ca->distinct_words;
        CHECK(tu_same_counts(ca, cb));
    }
    ro_sgns_counts_free(ca);
    ro_sgns_counts_free(cb);
    ca = cb = NULL;

    /* n = 70000 > 65533 (4-byte ids): "w0 .. w69999" twice on one line,
       window 1: #(w_i, w_i+1) = #(w_i+1, w_i) = 2, and the seam gives
       #(w69999, w0) = #(w0, w69999) = 1; nnz = 2 * 69999 + 2. */
    len = 0;
    for (i = 0; i < 140000; ++i) len += (size_t)sprintf(a + len, "w%u ", (unsigned)(i % 70000));
    a[len] = 0;
    cfg = cfg_min(1, 2);
    CHECK(ro_sgns_count_memory(a, len, &cfg, &ca, NULL, &err) == RO_SGNS_OK);
    if (ca) {
        CHECK(ca->n == 70000 && ca->nnz == 2 * 69999 + 2 && ca->total == 4 * 69999 + 2);
        CHECK(pair(ca, "w5", "w6") == 2 && pair(ca, "w6", "w5") == 2);
        CHECK(pair(ca, "w69999", "w0") == 1 && pair(ca, "w0", "w69999") == 1);
        CHECK(pair(ca, "w5", "w7") == 0);
        /* all counts are 2: byte order, "w0" < "w1" < "w10" */
        CHECK(id_of(ca, "w0") == 0 && id_of(ca, "w1") == 1 && id_of(ca, "w10") == 2);
        check_invariants(ca);
        /* with a budget that forces several groups */
        /* the tightest budgets agree (the pass-1 table is the peak here, so
           the pair pass runs in many groups) */
        check_tight_budgets(a, len, &cfg, ca);
    }
    ro_sgns_counts_free(ca);
    free(a);
    free(b);
}

/* ---- one word with most of the positions: its row counted in pieces ------ */

/* A row is counted from the positions of its word. When one word's
   positions do not fit (under a budget: beside the token stream; without
   one: more than the position buffer of max(1/16 of the stream, 4M)), its
   row is gathered a buffer at a time. A run under a budget below
   stream + 4 bytes x that word's occurrences cannot hold them all, so a
   success there came that way; it must agree with the unbudgeted run bit
   for bit. */
static void check_in_pieces(const char *text, size_t len, const ro_sgns_count_config *cfg,
                            size_t n, uint64_t stream_bytes, uint64_t occ)
{
    ro_sgns_counts *c = count_str(text, cfg);
    uint64_t tight;
    if (!c) return;
    CHECK(c->n == n && id_of(c, "x") == 0);
    check_invariants(c);
    tight = check_tight_budgets(text, len, cfg, c);
    CHECKF(tight < stream_bytes + 4 * occ, "tightest budget %llu, x's positions %llu bytes",
           (unsigned long long)tight, (unsigned long long)(4 * occ));
    ro_sgns_counts_free(c);
}

static void test_dominant_word(void)
{
    size_t len = 0, i, l, cap = 16000000;
    char *a = (char *)malloc(cap);
    ro_sgns_count_config cfg = cfg_min(2, 1);
    ro_sgns_counts *c = NULL;
    unsigned x = 99;
    uint64_t occ = 0;
    if (!a) {
        CHECK(a != NULL);
        return;
    }
    /* 2-byte ids: 60000 tokens, 9 in 10 of them "x", the rest 40 words */
    for (i = 0; i < 60000; ++i) {
        x = x * 1103515245u + 12345u;
        if ((x >> 16) % 10) {
            memcpy(a + len, "x ", 2);
            len += 2;
            ++occ;
        } else {
            len += (size_t)sprintf(a + len, "p%u ", (x >> 20) % 40);
        }
        if (i % 50 == 49) a[len - 1] = '\n';
    }
    a[len] = 0;
    check_in_pieces(a, len, &cfg, 41, 2 * 60000, occ);

    if (tu_quick()) { /* the rest counts 4.3M tokens about 10 times */
        free(a);
        return;
    }
    /* 4-byte ids (n > 65533): 70000 words, each followed by 60 "x" (the
       vocabulary's table in the first pass needs about 15 MB, the x's
       positions 17 MB) */
    len = 0;
    occ = 0;
    for (i = 0; i < 70000; ++i) {
        len += (size_t)sprintf(a + len, "w%u", (unsigned)i);
        for (l = 0; l < 60; ++l) {
            memcpy(a + len, " x", 2);
            len += 2;
        }
        a[len++] = i % 10 == 9 ? '\n' : ' ';
        occ += 60;
    }
    a[len] = 0;
    check_in_pieces(a, len, &cfg, 70001, 4 * (uint64_t)(70000 + occ), occ);

    /* no budget, 4.6M tokens: lines "y x x ... x" of 100 tokens, window 2,
       so x has 4.55M > 4M positions, over 1/16 of the stream. Per line:
       #(y,x) = #(x,y) = 2, and the 99 x's give 2 x (98 + 97) = 390 ordered
       pairs #(x,x). */
    {
        size_t lines = 46000;
        len = 0;
        for (l = 0; l < lines; ++l) {
            memcpy(a + len, "y", 1);
            len += 1;
            for (i = 0; i < 99; ++i) {
                memcpy(a + len, " x", 2);
                len += 2;
            }
            a[len++] = '\n';
        }
        a[len] = 0;
        c = count_str(a, &cfg);
        if (c) {
            CHECK(c->n == 2 && id_of(c, "x") == 0 && c->nnz == 3);
            CHECK(pair(c, "x", "x") == 390.0 * (double)lines);
            CHECK(pair(c, "x", "y") == 2.0 * (double)lines);
            CHECK(pair(c, "y", "x") == 2.0 * (double)lines && pair(c, "y", "y") == 0);
            CHECK(c->word_count[0] == 392.0 * (double)lines);
            CHECK(c->total == 394.0 * (double)lines);
            check_invariants(c);
        }
        ro_sgns_counts_free(c);
    }
    free(a);
}

/* ---- sample.txt: budgets, options, files --------------------------------- */

static void test_sample(void)
{
    size_t size = 0;
    char *text = read_file(SAMPLE_PATH, &size);
    ro_sgns_count_config cfg = cfg_min(5, 5);
    ro_sgns_counts *ref = NULL, *c = NULL;
    ro_sgns_error err;
    ro_sgns_result rc;
    uint64_t budget;
    int ok_runs = 0, saw_budget_error = 0;
    size_t w;
    uint64_t k;
    CHECKF(text != NULL, "cannot read %s", SAMPLE_PATH);
    if (!text) return;
    rc = ro_sgns_count_memory(text, size, &cfg, &ref, NULL, &err);
    CHECKF(rc == RO_SGNS_OK, "%s", err.message);
    if (rc != RO_SGNS_OK) {
        free(text);
        return;
    }
    CHECK(ref->corpus_tokens == 175034 && ref->distinct_words == 18421 && ref->n == 4455);
    check_invariants(ref);
    /* fixed windows give a symmetric matrix */
    {
        int sym = 1;
        for (w = 0; w < ref->n && sym; ++w)
            for (k = ref->row_ptr[w]; k < ref->row_ptr[w + 1]; ++k) {
                uint32_t x = ref->col[k];
                uint64_t q;
                double back = 0;
                for (q = ref->row_ptr[x]; q < ref->row_ptr[x + 1]; ++q)
                    if (ref->col[q] == w) back = ref->val[q];
                if (back != ref->val[k]) sym = 0;
            }
        CHECK(sym);
    }
    /* |D|: each token has up to 10 neighbours on its line */
    CHECK(ref->total <= 10.0 * (double)ref->corpus_tokens && ref->total > 0);

    /* the same through FILE*, path and a reader of 1000-byte blocks */
    {
        tu_reader r;
        FILE *f = fopen(SAMPLE_PATH, "rb");
        ro_sgns_counts *c2 = NULL;
        CHECK(ro_sgns_count_file(f, &cfg, &c2, NULL, &err) == RO_SGNS_OK);
        CHECK(c2 && tu_same_counts(ref, c2));
        ro_sgns_counts_free(c2);
        c2 = NULL;
        fclose(f);
        CHECK(ro_sgns_count_path(SAMPLE_PATH, &cfg, &c2, NULL, &err) == RO_SGNS_OK);
        CHECK(c2 && tu_same_counts(ref, c2));
        ro_sgns_counts_free(c2);
        c2 = NULL;
        r.p = (const unsigned char *)text;
        r.size = size;
        r.at = 0;
        r.chunk = 1000;
        r.fail_after = -1;
        CHECK(ro_sgns_count_callback(tu_read, &r, &cfg, &c2, NULL, &err) == RO_SGNS_OK);
        CHECK(c2 && tu_same_counts(ref, c2));
        ro_sgns_counts_free(c2);
    }

    /* budgets from generous down to too small: every run that succeeds is
       bit for bit the unbudgeted one and stays within its budget; the first
       failure is RO_SGNS_ERR_BUDGET saying how much is needed */
    for (budget = ref->peak_bytes * 2; budget > 4096; budget = budget * 3 / 4) {
        cfg.memory_budget = budget;
        c = NULL;
        rc = ro_sgns_count_memory(text, size, &cfg, &c, NULL, &err);
        if (rc == RO_SGNS_OK) {
            CHECKF(tu_same_counts(ref, c), "budget %llu", (unsigned long long)budget);
            CHECK(c->peak_bytes <= budget);
            ++ok_runs;
            ro_sgns_counts_free(c);
        } else {
            CHECKF(rc == RO_SGNS_ERR_BUDGET, "%s", err.message);
            CHECK(strstr(err.message, "at least") != NULL);
            saw_budget_error = 1;
            break;
        }
    }
    CHECK(ok_runs >= 3 && saw_budget_error);
    /* the tightest budget that works, found by bisection, still agrees; it
       is well below the unbudgeted peak (the pair pass then runs in many
       groups) and not far above the result itself */
    {
        uint64_t tight, result;
        int followed0 = g_enough_followed;
        tight = check_tight_budgets(text, size, &cfg, ref);
        /* here the failures nearest the least budget are in the pairs'
           pass, whose error says what is enough: followed, it worked */
        CHECKF(g_enough_followed > followed0, "no budget error said how much is enough");
        result = ro_sgns_estimate_memory(ref->n, ref->nnz, 0, 0, 0).counts;
        printf("sample.txt: unbudgeted peak %llu bytes, tightest budget %llu, result %llu\n",
               (unsigned long long)ref->peak_bytes, (unsigned long long)tight,
               (unsigned long long)result);
        CHECK(tight < ref->peak_bytes * 9 / 10);
    }
    cfg.memory_budget = 0;

    /* window 2 (the authors' setting) and min_count 5: fewer pairs */
    cfg.window = 2;
    c = NULL;
    CHECK(ro_sgns_count_memory(text, size, &cfg, &c, NULL, &err) == RO_SGNS_OK);
    if (c) {
        CHECK(c->nnz < ref->nnz && c->total <= 4.0 * (double)c->corpus_tokens);
        check_invariants(c);
        ro_sgns_counts_free(c);
    }
    cfg.window = 5;

    /* sampled windows: deterministic for a seed, different for another,
       never above the fixed window's counts */
    {
        ro_sgns_counts *s1 = NULL, *s2 = NULL, *s3 = NULL;
        cfg.dynamic_window = RO_SGNS_WINDOW_SAMPLED;
        CHECK(ro_sgns_count_memory(text, size, &cfg, &s1, NULL, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_count_memory(text, size, &cfg, &s2, NULL, &err) == RO_SGNS_OK);
        cfg.seed = 99;
        CHECK(ro_sgns_count_memory(text, size, &cfg, &s3, NULL, &err) == RO_SGNS_OK);
        if (s1 && s2 && s3) {
            int below = 1;
            CHECK(tu_same_counts(s1, s2));
            CHECK(!tu_same_counts(s1, s3));
            for (w = 0; w < s1->n; ++w)
                if (s1->word_count[w] > ref->word_count[w]) below = 0;
            CHECK(below);
            /* E[b] = 3 for L = 5: about 3/5 of the fixed window's pairs */
            CHECK(s1->total > 0.55 * ref->total && s1->total < 0.65 * ref->total);
            check_invariants(s1);
        }
        ro_sgns_counts_free(s1);
        ro_sgns_counts_free(s2);
        ro_sgns_counts_free(s3);
        cfg.dynamic_window = RO_SGNS_WINDOW_WEIGHTED;
        cfg.seed = 1;
        s1 = NULL;
        CHECK(ro_sgns_count_memory(text, size, &cfg, &s1, NULL, &err) == RO_SGNS_OK);
        if (s1) {
            /* expected weights: the same 3/5 on average, exactly for the nnz */
            CHECK(s1->nnz == ref->nnz);
            CHECK(s1->total > 0.55 * ref->total && s1->total < 0.65 * ref->total);
            check_invariants(s1);
            ro_sgns_counts_free(s1);
        }
        cfg.dynamic_window = RO_SGNS_WINDOW_FIXED;
    }
    /* subsampling: the vocabulary is unchanged, the pairs fewer */
    {
        ro_sgns_counts *s1 = NULL;
        cfg.sample = 1e-3;
        CHECK(ro_sgns_count_memory(text, size, &cfg, &s1, NULL, &err) == RO_SGNS_OK);
        if (s1) {
            CHECK(s1->n == ref->n && s1->vocab.count[0] == ref->vocab.count[0]);
            CHECK(s1->total < ref->total);
            check_invariants(s1);
            ro_sgns_counts_free(s1);
        }
        cfg.sample = 0;
    }
    ro_sgns_counts_free(ref);
    free(text);
}

/* The counts are bitwise the same for any number of threads. */
static void test_threads(void)
{
#ifdef _OPENMP
    size_t size = 0;
    char *text = read_file(SAMPLE_PATH, &size);
    int mode, t, bad = 0;
    if (!text) return;
    for (mode = 0; mode < 3; ++mode) {
        ro_sgns_count_config cfg = cfg_min(5, 2);
        ro_sgns_counts *ref = NULL;
        ro_sgns_error err;
        cfg.dynamic_window = mode;
        cfg.sample = mode == 1 ? 1e-3 : 0;
        omp_set_num_threads(1);
        if (ro_sgns_count_memory(text, size, &cfg, &ref, NULL, &err) != RO_SGNS_OK) {
            ++bad;
            continue;
        }
        for (t = 2; t <= 4; ++t) {
            ro_sgns_counts *c = NULL;
            omp_set_num_threads(t);
            if (ro_sgns_count_memory(text, size, &cfg, &c, NULL, &err) != RO_SGNS_OK ||
                !tu_same_counts(ref, c))
                ++bad;
            ro_sgns_counts_free(c);
        }
        ro_sgns_counts_free(ref);
    }
    omp_set_num_threads(2);
    CHECKF(bad == 0, "%d runs differ between thread counts", bad);
    free(text);
#endif
}

static void test_alloc_failures(void)
{
    const char *text = "the cat sat on the mat the dog sat on the cat\nthe end of the mat";
    ro_sgns_count_config cfg = cfg_min(2, 1);
    ro_sgns_allocator al;
    test_alloc t;
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    ro_sgns_result rc;
    long k;
    int bad = 0, oom = 0;
    unsigned char *file = NULL;
    size_t fsize = 0;
    al.malloc_fn = ta_malloc;
    al.realloc_fn = ta_realloc;
    al.free_fn = ta_free;
    al.user = &t;
    /* fail allocation k for k = 0, 1, ... until counting succeeds: each
       failure is RO_SGNS_ERR_OUT_OF_MEMORY and leaves nothing allocated */
    for (k = 0; k < 10000; ++k) {
        t.live = 0;
        t.calls = 0;
        t.fail_at = k;
        c = NULL;
        rc = ro_sgns_count_memory(text, strlen(text), &cfg, &c, &al, &err);
        if (rc == RO_SGNS_OK) break;
        ++oom;
        if (rc != RO_SGNS_ERR_OUT_OF_MEMORY || t.live != 0 || c != NULL) ++bad;
    }
    CHECKF(bad == 0 && oom > 5, "%d bad of %d failed allocations", bad, oom);
    CHECK(c != NULL);
    if (!c) return;
    check_invariants(c);
    t.fail_at = -1; /* saving allocates (the chunk table) with the counts' allocator */
    file = save_to_memory(c, &fsize);
    CHECK(file && fsize == (size_t)ro_sgns_counts_saved_size(c));
    ro_sgns_counts_free(c); /* with its own allocator */
    CHECK(t.live == 0);
    /* the same for loading */
    bad = oom = 0;
    for (k = 0; k < 10000; ++k) {
        t.live = 0;
        t.calls = 0;
        t.fail_at = k;
        c = NULL;
        rc = ro_sgns_counts_load_memory(file, fsize, &c, &al, &err);
        if (rc == RO_SGNS_OK) break;
        ++oom;
        if (rc != RO_SGNS_ERR_OUT_OF_MEMORY || t.live != 0 || c != NULL) ++bad;
    }
    CHECKF(bad == 0 && oom > 3, "%d bad of %d failed allocations (load)", bad, oom);
    ro_sgns_counts_free(c);
    CHECK(t.live == 0);
    free(file);
}

static int fail_write(void *user, const void *data, size_t size)
{
    (void)user;
    (void)data;
    (void)size;
    return 1;
}

static void test_files(void)
{
    const char *text = "the cat sat on the mat\nthe dog sat on the log\na cat and a dog\n"
                       "\xc3\xa9t\xc3\xa9 the cat\n";
    ro_sgns_count_config cfg = cfg_min(2, 1);
    ro_sgns_counts *c, *d = NULL;
    ro_sgns_error err;
    tu_grow g;
    unsigned char *buf, *bad;
    size_t size, i, written = 0;
    int bad_trunc = 0, bad_flip = 0, no_offset = 0;
    const char *path = tu_path("test_count_tmp.counts");
    cfg.dynamic_window = RO_SGNS_WINDOW_WEIGHTED;
    cfg.sample = 0.5;
    cfg.seed = 42;
    c = count_str(text, &cfg);
    if (!c) return;
    size = (size_t)ro_sgns_counts_saved_size(c);
    CHECK(ro_sgns_counts_save_memory(c, NULL, &written, NULL, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    buf = save_to_memory(c, &written);
    if (!buf) {
        ro_sgns_counts_free(c);
        return;
    }
    CHECK(written == size);
    CHECK(memcmp(buf, "ROSGNSCT\x02\0\0\0", 12) == 0);
    /* n at offset 16, little-endian */
    CHECK(buf[16] == (unsigned char)c->n && buf[17] == 0);
    /* buffer round trip: everything bit for bit, settings included */
    CHECK(ro_sgns_counts_load_memory(buf, size, &d, NULL, &err) == RO_SGNS_OK);
    if (d) {
        CHECK(tu_same_counts(c, d));
        CHECK(d->config.window == 2 && d->config.dynamic_window == 2 &&
              d->config.sample == 0.5 && d->config.seed == 42 && d->config.min_count == 1);
        CHECK(ro_sgns_vocab_find(&d->vocab, "\xc3\xa9t\xc3\xa9", 5) >= 0);
        ro_sgns_counts_free(d);
        d = NULL;
    }
    /* callback writer and reader (3-byte reads) */
    g.p = NULL;
    g.len = g.cap = 0;
    CHECK(ro_sgns_counts_save_callback(c, tu_grow_write, &g, &err) == RO_SGNS_OK);
    CHECK(g.len == size && memcmp(g.p, buf, size) == 0);
    {
        tu_reader r;
        r.p = g.p;
        r.size = g.len;
        r.at = 0;
        r.chunk = 3;
        r.fail_after = -1;
        CHECK(ro_sgns_counts_load_callback(tu_read, &r, &d, NULL, &err) == RO_SGNS_OK);
        CHECK(d && tu_same_counts(c, d));
        ro_sgns_counts_free(d);
        d = NULL;
        r.at = 0;
        r.fail_after = 3;
        CHECK(ro_sgns_counts_load_callback(tu_read, &r, &d, NULL, &err) == RO_SGNS_ERR_IO);
    }
    free(g.p);
    CHECK(ro_sgns_counts_save_callback(c, fail_write, NULL, &err) == RO_SGNS_ERR_IO);
    /* path: saved through a temporary name of its own, loaded back; a
       file of the user's named like the old temporary one is left alone */
    {
        FILE *f = fopen(tu_path("test_count_tmp.counts.tmp"), "wb");
        CHECK(f != NULL);
        if (f) {
            fputs("the user's own", f);
            fclose(f);
        }
    }
    CHECK(ro_sgns_counts_save_path(c, path, &err) == RO_SGNS_OK);
    {
        char got[32] = {0};
        FILE *f = fopen(tu_path("test_count_tmp.counts.tmp"), "rb");
        CHECK(f != NULL);
        if (f) {
            CHECK(fread(got, 1, sizeof got - 1, f) == 14 && strcmp(got, "the user's own") == 0);
            fclose(f);
        }
        remove(tu_path("test_count_tmp.counts.tmp"));
    }
    CHECK(ro_sgns_counts_save_path(c, path, &err) == RO_SGNS_OK); /* replaces */
    CHECK(ro_sgns_counts_load_path(path, &d, NULL, &err) == RO_SGNS_OK);
    CHECK(d && tu_same_counts(c, d));
    ro_sgns_counts_free(d);
    d = NULL;
    CHECK(ro_sgns_counts_save_path(c, "/nonexistent/dir/c.bin", &err) == RO_SGNS_ERR_IO);
    CHECK(ro_sgns_counts_load_path("/nonexistent/dir/c.bin", &d, NULL, &err) == RO_SGNS_ERR_IO);
    /* a file with a byte after it */
    {
        FILE *f = fopen(path, "ab");
        fputc('!', f);
        fclose(f);
        CHECK(ro_sgns_counts_load_path(path, &d, NULL, &err) == RO_SGNS_ERR_FORMAT && !d);
        CHECK(strstr(err.message, "trailing") != NULL);
        remove(path);
    }
    /* every truncation: RO_SGNS_ERR_FORMAT, with an offset */
    for (i = 0; i < size; ++i) {
        ro_sgns_result rc = ro_sgns_counts_load_memory(buf, i, &d, NULL, &err);
        if (rc != RO_SGNS_ERR_FORMAT || d) ++bad_trunc;
        if (!strstr(err.message, "offset")) ++no_offset;
    }
    /* ... also through a reader */
    for (i = 0; i < size; i += 7) {
        tu_reader r;
        r.p = buf;
        r.size = i;
        r.at = 0;
        r.chunk = 5;
        r.fail_after = -1;
        if (ro_sgns_counts_load_callback(tu_read, &r, &d, NULL, &err) != RO_SGNS_ERR_FORMAT)
            ++bad_trunc;
    }
    /* every single-byte corruption: RO_SGNS_ERR_FORMAT (structure checks or
       the checksum), with an offset */
    bad = (unsigned char *)malloc(size + 1);
    for (i = 0; i < size; ++i) {
        ro_sgns_result rc;
        memcpy(bad, buf, size);
        bad[i] ^= (unsigned char)(1u << (i % 8));
        rc = ro_sgns_counts_load_memory(bad, size, &d, NULL, &err);
        if (rc != RO_SGNS_ERR_FORMAT || d) ++bad_flip;
        if (!strstr(err.message, "offset")) ++no_offset;
    }
    memcpy(bad, buf, size);
    bad[size] = 0;
    CHECK(ro_sgns_counts_load_memory(bad, size + 1, &d, NULL, &err) == RO_SGNS_ERR_FORMAT);
    CHECK(ro_sgns_counts_load_memory("ROSGNSCT", 8, &d, NULL, &err) == RO_SGNS_ERR_FORMAT);
    CHECK(ro_sgns_counts_load_memory("hello world, this is not a counts file at all, no", 49, &d,
                                     NULL, &err) == RO_SGNS_ERR_FORMAT);
    CHECK(strstr(err.message, "offset 0") != NULL);
    CHECK(ro_sgns_counts_load_memory(NULL, 0, &d, NULL, &err) == RO_SGNS_ERR_FORMAT);
    /* a different version */
    memcpy(bad, buf, size);
    bad[8] = 3;
    CHECK(ro_sgns_counts_load_memory(bad, size, &d, NULL, &err) == RO_SGNS_ERR_FORMAT);
    CHECK(strstr(err.message, "version 3") != NULL);
    /* a huge n in the header (its CRC made right) must not make the
       loader allocate it */
    memcpy(bad, buf, size);
    bad[16 + 3] = 0x7F;
    tcf_put32(bad + 116, tcf_crc32c(0, bad, 116));
    CHECK(ro_sgns_counts_load_memory(bad, size, &d, NULL, &err) == RO_SGNS_ERR_FORMAT);
    {
        tu_reader r;
        r.p = bad;
        r.size = size;
        r.at = 0;
        r.chunk = 4096;
        r.fail_after = -1;
        CHECK(ro_sgns_counts_load_callback(tu_read, &r, &d, NULL, &err) == RO_SGNS_ERR_FORMAT);
    }
    free(bad);
    CHECKF(bad_trunc == 0, "%d truncations not reported as format errors", bad_trunc);
    CHECKF(bad_flip == 0, "%d corruptions not reported as format errors", bad_flip);
    CHECKF(no_offset == 0, "%d format errors without an offset", no_offset);
    free(buf);
    ro_sgns_counts_free(c);
}

/* Put x as val[k] (f64) into a saved counts file, move #(w), #(c) and |D|
   by as much (with adjust), and fix its checksums: a file as another
   writer may make it. */
static void put_file_val(unsigned char *buf, const ro_sgns_counts *c, uint64_t k, double x,
                         int adjust)
{
    tcf_layout l = tcf_layout_of(buf);
    size_t at = (size_t)(l.val + 8 * k), w = 0;
    double old = ro_sgns__f64_from_bits(tcf_get64(buf + at)), delta;
    uint64_t pos[3];
    int i;
    while (c->row_ptr[w + 1] <= k) ++w;
    delta = x - old;
    tcf_put64(buf + at, ro_sgns__f64_bits(x));
    pos[0] = l.word_count + 8 * w;
    pos[1] = l.ctx_count + 8 * (uint64_t)c->col[k];
    pos[2] = 104;
    for (i = 0; i < 3 && adjust; ++i) {
        double v = ro_sgns__f64_from_bits(tcf_get64(buf + pos[i])) + delta;
        tcf_put64(buf + pos[i], ro_sgns__f64_bits(v));
    }
    tcf_refresh(buf);
}

/* The file keeps val in f64; loading rounds to float and refuses what a
   float cannot hold. */
static void test_file_values(void)
{
    ro_sgns_count_config cfg = cfg_min(1, 1);
    ro_sgns_counts *c = count_str("a b c a b", &cfg), *d = NULL;
    ro_sgns_error err;
    unsigned char *buf;
    size_t size, i;
    const double bad[] = {1e39, 1e-50, 0.0, -1.0, HUGE_VAL, -HUGE_VAL, NAN};
    if (!c) return;
    buf = save_to_memory(c, &size);
    if (!buf) {
        ro_sgns_counts_free(c);
        return;
    }
    /* the helper writes where the writer does */
    put_file_val(buf, c, 1, (double)c->val[1], 1);
    CHECK(ro_sgns_counts_load_memory(buf, size, &d, NULL, &err) == RO_SGNS_OK);
    CHECK(d && tu_same_counts(c, d));
    ro_sgns_counts_free(d);
    d = NULL;
    /* a value no float holds exactly: the nearest float; FLT_MAX fits */
    put_file_val(buf, c, 1, 1.0 / 3, 1);
    put_file_val(buf, c, 2, (double)FLT_MAX, 1);
    CHECK(ro_sgns_counts_load_memory(buf, size, &d, NULL, &err) == RO_SGNS_OK);
    if (d) {
        CHECK(d->val[1] == (float)(1.0 / 3) && d->val[2] == FLT_MAX && d->val[0] == c->val[0]);
        ro_sgns_counts_free(d);
        d = NULL;
    }
    /* beyond FLT_MAX, rounding to 0, not positive, not finite: a format
       error at the value's offset */
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        double x = bad[i];
        char want[64];
        sprintf(want, "offset %lu", (unsigned long)tcf_layout_of(buf).val + 8 * 3);
        free(buf);
        buf = save_to_memory(c, &size);
        if (!buf) break;
        put_file_val(buf, c, 3, x, 0);
        CHECKF(ro_sgns_counts_load_memory(buf, size, &d, NULL, &err) == RO_SGNS_ERR_FORMAT && !d &&
                   strstr(err.message, "val[3]") && strstr(err.message, want),
               "val = %g: %s", x, err.message);
    }
    free(buf);
    ro_sgns_counts_free(c);
}

static void test_estimate(void)
{
    ro_sgns_memory_estimate e = ro_sgns_estimate_memory(33847, 72470837, 200, 90148450, 633446);
    CHECK(e.counts >= 8ull * 72470837 && e.counts < 12ull * 72470837);
    CHECK(e.counting >= e.counts && e.training >= e.counts);
    CHECK(e.peak >= e.counting && e.peak >= e.training);
    CHECK(e.file_bytes > 12ull * 72470837);
    {
        ro_sgns_count_config cfg = cfg_min(1, 1);
        ro_sgns_counts *c = count_str("a b c a b", &cfg);
        if (c) {
            ro_sgns_memory_estimate f =
                ro_sgns_estimate_memory(c->n, c->nnz, 10, c->corpus_tokens, c->distinct_words);
            /* exact file size for 1-byte words is D = 120 + 12n + n +
               8(n+1) + 12 nnz + 16 n, one chunk: D + 4 + 4; the estimate
               assumes 8-byte words */
            CHECK(ro_sgns_counts_saved_size(c) ==
                  120 + 12 * 3 + 3 + 8 * 4 + 12 * 6 + 16 * 3 + 4 + 4);
            CHECK(f.file_bytes >= ro_sgns_counts_saved_size(c));
            ro_sgns_counts_free(c);
        }
    }
}

/* ---- merging counts (ro_sgns_counts_merge) --------------------------------- */

/* The text's cut point: the start of the line holding byte at (at line
   ends), or at itself (mid_line). */
static size_t merge_cut(const char *text, size_t size, size_t at, int mid_line)
{
    size_t back = at;
    while (!mid_line && back > 0 && back < size && text[back - 1] != '\n') --back;
    if (!mid_line && back == 0) /* the first line: its end */
        while (at < size && (at == 0 || text[at - 1] != '\n')) ++at;
    else if (!mid_line)
        at = back;
    while (mid_line && at < size && (text[at] == ' ' || text[at] == '\n')) ++at;
    return at;
}

/* Counts of text[0, cut) with every word kept, of text[cut, size), their
   merge with min_count mc and max_vocab mv against counting the whole
   (with a line break at the cut when it falls inside a line): the same
   objects and the same file bytes, and info says exact. */
static int merge_matches(const char *text, size_t size, size_t cut, int mid_line,
                         ro_sgns_count_config cfg, uint64_t mc, uint64_t mv)
{
    ro_sgns_counts *a = NULL, *b = NULL, *m = NULL, *whole = NULL;
    ro_sgns_merge_info info;
    ro_sgns_error err;
    ro_sgns_count_config part = cfg;
    char *joined = (char *)malloc(size + 2);
    unsigned char *fm = NULL, *fw = NULL;
    size_t sm = 0, sw = 0, len = size;
    int ok = 0;
    if (!joined) return 0;
    memcpy(joined, text, cut);
    if (mid_line) joined[cut] = '\n';
    memcpy(joined + cut + (mid_line ? 1 : 0), text + cut, size - cut);
    len += mid_line ? 1u : 0u;
    part.min_count = 1;
    part.max_vocab = 0;
    cfg.min_count = mc;
    cfg.max_vocab = mv;
    if (ro_sgns_count_memory(text, cut, &part, &a, NULL, &err) == RO_SGNS_OK &&
        ro_sgns_count_memory(text + cut, size - cut, &part, &b, NULL, &err) == RO_SGNS_OK &&
        ro_sgns_count_memory(joined, len, &cfg, &whole, NULL, &err) == RO_SGNS_OK &&
        ro_sgns_counts_merge(a, b, mc, mv, &m, &info, NULL, &err) == RO_SGNS_OK) {
        fm = save_to_memory(m, &sm);
        fw = save_to_memory(whole, &sw);
        ok = info.inexact == 0 && tu_same_counts(m, whole) && fm && fw && sm == sw &&
             memcmp(fm, fw, sm) == 0;
        if (!ok)
            fprintf(stderr, "merge at %lu (mid-line %d, window %d/%d, mc %llu, mv %llu): "
                    "inexact %u, same objects %d\n", (unsigned long)cut, mid_line, cfg.window,
                    cfg.dynamic_window, (unsigned long long)mc, (unsigned long long)mv,
                    info.inexact, tu_same_counts(m, whole));
    } else {
        fprintf(stderr, "merge at %lu: %s\n", (unsigned long)cut, err.message);
    }
    free(fm);
    free(fw);
    free(joined);
    ro_sgns_counts_free(a);
    ro_sgns_counts_free(b);
    ro_sgns_counts_free(m);
    ro_sgns_counts_free(whole);
    return ok;
}

static void test_merge_exact(void)
{
    size_t size = 0;
    char *text = read_file(SAMPLE_PATH, &size);
    static const double at[] = {0.1, 0.5, 0.93};
    int i, mode, bad = 0, runs = 0;
    if (!text) {
        tu_skip("count merge", SAMPLE_PATH " not found", 0);
        return;
    }
    if (tu_quick()) size /= 4;
    size = merge_cut(text, size, size, 0); /* whole lines */
    for (mode = 0; mode < 3; ++mode) {
        ro_sgns_count_config cfg = cfg_min(mode == 2 ? 3 : 5, 5);
        cfg.dynamic_window = mode == 1 ? RO_SGNS_WINDOW_WEIGHTED : RO_SGNS_WINDOW_FIXED;
        for (i = 0; i < 3; ++i) {
            size_t cut = merge_cut(text, size, (size_t)(at[i] * (double)size), mode == 2 && i == 1);
#ifdef _OPENMP
            omp_set_num_threads(1 + (i & 1));
#endif
            ++runs;
            if (!merge_matches(text, size, cut, mode == 2 && i == 1, cfg,
                               mode == 2 ? 2 : 5, mode == 2 ? 2000 : 0))
                ++bad;
        }
    }
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    CHECKF(bad == 0, "%d of %d merges differ from counting the whole", bad, runs);
    free(text);
}

/* Small cases: what a merge cannot know is said, settings that differ are
   refused, and a failed allocation leaves nothing behind. */
static void test_merge_refusals(void)
{
    ro_sgns_count_config c1 = cfg_min(2, 1), c5 = cfg_min(2, 2), w3 = cfg_min(3, 1);
    ro_sgns_counts *a = count_str("x y z x y\nq r s\n", &c1);
    ro_sgns_counts *a5 = count_str("x y z x y\nq r s\n", &c5);
    ro_sgns_counts *b = count_str("z w x\nw v w\n", &c1), *b3 = count_str("z w x\n", &w3);
    ro_sgns_counts *m = NULL, *r = NULL;
    ro_sgns_merge_info info;
    ro_sgns_error err;
    ro_sgns_allocator al;
    test_alloc t;
    long k;
    int oom = 0, badoom = 0;
    if (!a || !a5 || !b || !b3) goto done;
    /* the old counts kept every word: exact; x = 2 + 1 */
    CHECK(ro_sgns_counts_merge(a, b, 1, 0, &m, &info, NULL, &err) == RO_SGNS_OK && m &&
          info.inexact == 0);
    if (m) {
        CHECK(m->vocab.count[id_of(m, "x")] == 3 && m->corpus_tokens == 14 &&
              m->distinct_words == 8 && pair(m, "z", "w") == 1 && pair(m, "x", "y") == 3);
        ro_sgns_counts_free(m);
        m = NULL;
    }
    /* a5 dropped z, q, r, s (once each): z, w, v could have been there */
    CHECK(ro_sgns_counts_merge(a5, b, 2, 0, &m, &info, NULL, &err) == RO_SGNS_OK &&
          (info.inexact & RO_SGNS_MERGE_DROPPED) && info.unknown_words == 3 &&
          strcmp(info.example, "w") == 0);
    ro_sgns_counts_free(m);
    m = NULL;
    CHECKF(ro_sgns_counts_merge(a, b3, 1, 0, &m, &info, NULL, &err) ==
               RO_SGNS_ERR_INVALID_ARGUMENT && !m && strstr(err.message, "window"),
           "%s", err.message);
    CHECK(ro_sgns_counts_merge(a, b, 1000, 0, &m, &info, NULL, &err) == RO_SGNS_ERR_EMPTY && !m);
    CHECK(ro_sgns_counts_merge(NULL, b, 1, 0, &m, &info, NULL, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT && !m);
    {
        size_t size = 0;
        unsigned char *file = save_to_memory(a, &size);
        if (file && ro_sgns_counts_load_rows_memory(file, size, 0, 1, &r, NULL, &err) ==
                        RO_SGNS_OK) {
            CHECKF(ro_sgns_counts_merge(r, b, 1, 0, &m, &info, NULL, &err) ==
                       RO_SGNS_ERR_INVALID_ARGUMENT && !m && strstr(err.message, "row range"),
                   "%s", err.message);
        }
        free(file);
    }
    {   /* random draws and windows across lines are named */
        ro_sgns_count_config s = cfg_min(2, 1), s2;
        ro_sgns_counts *sa, *sb;
        s.sample = 0.5;
        s.cross_lines = 1;
        s2 = s;
        s2.seed = 7;
        sa = count_str("x y z x y\nq r s\n", &s);
        sb = count_str("z w x\nw v w\n", &s);
        CHECK(sa && sb && ro_sgns_counts_merge(sa, sb, 1, 0, &m, &info, NULL, &err) == RO_SGNS_OK &&
              (info.inexact & RO_SGNS_MERGE_DRAWS) && (info.inexact & RO_SGNS_MERGE_CROSS));
        ro_sgns_counts_free(m);
        m = NULL;
        ro_sgns_counts_free(sb);
        sb = count_str("z w x\nw v w\n", &s2);
        CHECKF(sa && sb && ro_sgns_counts_merge(sa, sb, 1, 0, &m, &info, NULL, &err) ==
                   RO_SGNS_ERR_INVALID_ARGUMENT && strstr(err.message, "seed"), "%s", err.message);
        ro_sgns_counts_free(sa);
        ro_sgns_counts_free(sb);
    }
    al.malloc_fn = ta_malloc;
    al.realloc_fn = ta_realloc;
    al.free_fn = ta_free;
    al.user = &t;
    for (k = 0; k < 1000; ++k) {
        ro_sgns_result rc;
        t.live = 0;
        t.calls = 0;
        t.fail_at = k;
        m = NULL;
        rc = ro_sgns_counts_merge(a, b, 1, 0, &m, NULL, &al, &err);
        if (rc == RO_SGNS_OK) break;
        ++oom;
        if (rc != RO_SGNS_ERR_OUT_OF_MEMORY || t.live != 0 || m) ++badoom;
    }
    CHECKF(badoom == 0 && oom > 5, "%d bad of %d failed allocations (merge)", badoom, oom);
    ro_sgns_counts_free(m);
    m = NULL;
    CHECK(t.live == 0);
    /* a part that did not record its tokens: neither does the result, which loads */
    a->corpus_tokens = a->distinct_words = 0;
    if (ro_sgns_counts_merge(a, b, 1, 0, &m, &info, NULL, &err) == RO_SGNS_OK) {
        size_t size = 0;
        unsigned char *file = save_to_memory(m, &size);
        ro_sgns_counts *back = NULL;
        CHECK(m->corpus_tokens == 0 && m->distinct_words == 0 && file &&
              ro_sgns_counts_load_memory(file, size, &back, NULL, &err) == RO_SGNS_OK);
        ro_sgns_counts_free(back);
        free(file);
    } else {
        CHECKF(0, "%s", err.message);
    }
    ro_sgns_counts_free(m);
done:
    ro_sgns_counts_free(r);
    ro_sgns_counts_free(a);
    ro_sgns_counts_free(a5);
    ro_sgns_counts_free(b);
    ro_sgns_counts_free(b3);
}

int main(void)
{
    test_window_1_and_2();
    test_float_values();
    test_lines();
    test_repeats_and_min_count();
    test_ties();
    test_long_words();
    test_bad_input();
    test_not_text();
    test_progress();
    test_empty_rows();
    test_reference();
    test_big_vocab();
    test_dominant_word();
    test_files();
    test_file_values();
    test_alloc_failures();
    test_threads();
    test_estimate();
    test_sample();
    test_merge_exact();
    test_merge_refusals();
    return tu_finish("count");
}
