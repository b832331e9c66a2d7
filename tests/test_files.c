/* tests/test_files.c - the counts file and the checkpoint as files: their
   checksum, their versions, what a loader must refuse, and row ranges.
     - CRC-32C (section 0) against a bit-at-a-time reference and the
       published check values, every length and split;
     - the version 2 layout against tests/counts_file.h (written from the
       format's documentation);
     - every single bit flip and every pair of flips within 64 bits of each
       other, over a whole counts file (one chunk, then 256-byte chunks) and
       a whole checkpoint: refused, every one;
     - files whose checksums are right but whose contents are wrong: the
       marginals against the pairs (#(w) = 0 for a word with pairs), |D|,
       a word that is not a token: refused, with the place named;
     - version 1 files (made by the documented old layout) still load, and
       a flipped bit in them is still caught;
     - row ranges: every range of a small file equals the slice of the whole
       load, bit for bit, from a buffer, a path, a FILE that cannot seek and
       a version 1 file; a corrupt chunk the range needs is refused, one it
       does not need is never read; a range makes a shard problem equal to
       ro_sgns_problem_create_shard's, its SPPMI is the rows of the whole
       one, its fingerprint the whole one's; saving refuses it;
     - checkpoints v2 keep what a resume must match, ro_sgns_ro_train records
       it, ro_sgns_factors_check_resume names every difference; version 1
       checkpoints still load; trailing bytes are refused; load errors name
       the file. */
#if !defined(_WIN32) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* popen */
#endif
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"

#include "test_util.h"
#include "counts_file.h"

#include <errno.h>
#include <math.h>
#include <string.h>

typedef ro_sgns_real real;

/* ---- helpers ------------------------------------------------------------- */


/* A corpus of nw words over lines of 7, counted with window 2. */
static ro_sgns_counts *make_counts(size_t nw, size_t tokens, uint64_t seed)
{
    char *text = (char *)malloc(tokens * 8 + 1);
    size_t len = 0, i;
    ro_sgns_count_config cfg = ro_sgns_count_config_default();
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    uint64_t s = seed;
    for (i = 0; i < tokens; ++i) {
        size_t w;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w = (size_t)((s >> 33) % nw);
        w = w * w / nw; /* more of the small ids: a skewed vocabulary */
        len += (size_t)sprintf(text + len, "w%lu%c", (unsigned long)w, i % 7 == 6 ? '\n' : ' ');
    }
    cfg.window = 2;
    cfg.min_count = 1;
    if (ro_sgns_count_memory(text, len, &cfg, &c, NULL, &err) != RO_SGNS_OK) {
        fprintf(stderr, "make_counts: %s\n", err.message);
        c = NULL;
    }
    free(text);
    return c;
}

/* c saved with chunks of 2^log2 bytes, into a new buffer. */
static unsigned char *save_counts(const ro_sgns_counts *c, unsigned log2, size_t *size)
{
    tu_grow g;
    ro_sgns_error err;
    memset(&g, 0, sizeof g);
    if (ro_sgns__counts_save(c, tu_grow_write, &g, log2, &err) != RO_SGNS_OK) {
        fprintf(stderr, "save_counts: %s\n", err.message);
        free(g.p);
        return NULL;
    }
    *size = g.len;
    return g.p;
}

/* Are c's rows those of w's rows [r0, r1), all else w's, bit for bit? */
static int is_slice(const ro_sgns_counts *c, const ro_sgns_counts *w, size_t r0, size_t r1)
{
    uint64_t base = w->row_ptr[r0], nnz = w->row_ptr[r1] - base;
    size_t i;
    if (!c || c->n != w->n || c->row_begin != r0 || c->row_end != r1 || c->nnz != nnz ||
        memcmp(&c->total, &w->total, sizeof c->total) != 0 ||
        c->config.window != w->config.window)
        return 0;
    for (i = 0; i < w->n; ++i)
        if (c->vocab.len[i] != w->vocab.len[i] || c->vocab.count[i] != w->vocab.count[i] ||
            memcmp(c->vocab.word[i], w->vocab.word[i], w->vocab.len[i] + 1) != 0 ||
            ro_sgns_vocab_find(&c->vocab, w->vocab.word[i], w->vocab.len[i]) != (int64_t)i)
            return 0;
    for (i = 0; i <= r1 - r0; ++i)
        if (c->row_ptr[i] != w->row_ptr[r0 + i] - base) return 0;
    return (nnz == 0 || (memcmp(c->col, w->col + base, (size_t)nnz * 4) == 0 &&
                         memcmp(c->val, w->val + base, (size_t)nnz * sizeof(float)) == 0)) &&
           memcmp(c->word_count, w->word_count, w->n * sizeof(double)) == 0 &&
           memcmp(c->ctx_count, w->ctx_count, w->n * sizeof(double)) == 0;
}

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(p, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}

/* ---- CRC-32C -------------------------------------------------------------- */


/* an allocator whose every allocation fails */
static void *tcf_no_alloc(void *user, size_t size)
{
    (void)user;
    (void)size;
    return NULL;
}
static void *tcf_no_realloc(void *user, void *p, size_t size)
{
    (void)user;
    (void)p;
    (void)size;
    return NULL;
}
static void tcf_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void test_crc(void)
{
    ro_sgns__crc t;
    unsigned char buf[600], z[32];
    size_t len, off, i;
    int bad = 0;
    uint64_t s = 5;
    ro_sgns__crc_init(&t);
    /* check values: the standard one and RFC 3720's (iSCSI) */
    CHECK(ro_sgns__crc_update(&t, 0, (const unsigned char *)"123456789", 9) == 0xE3069283u);
    CHECK(ro_sgns__crc_bytes(&t, 0, (const unsigned char *)"123456789", 9) == 0xE3069283u);
    CHECK(tcf_crc32c(0, (const unsigned char *)"123456789", 9) == 0xE3069283u);
    memset(z, 0, sizeof z);
    CHECK(ro_sgns__crc_update(&t, 0, z, 32) == 0x8A9136AAu);
    memset(z, 0xFF, sizeof z);
    CHECK(ro_sgns__crc_update(&t, 0, z, 32) == 0x62A8AB43u);
    for (i = 0; i < 32; ++i) z[i] = (unsigned char)i;
    CHECK(ro_sgns__crc_update(&t, 0, z, 32) == 0x46DD794Eu);
    CHECK(ro_sgns__crc_update(&t, 0, z, 0) == 0);
    for (i = 0; i < sizeof buf; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (unsigned char)(s >> 56);
    }
    /* every length at every alignment, whole and split in two anywhere */
    for (len = 0; len <= 300; ++len)
        for (off = 0; off < 9; ++off) {
            uint32_t want = tcf_crc32c(0, buf + off, len);
            size_t cut = (len * 7 + off) % (len + 1);
            if (ro_sgns__crc_update(&t, 0, buf + off, len) != want ||
                ro_sgns__crc_bytes(&t, 0, buf + off, len) != want ||
                ro_sgns__crc_update(&t, ro_sgns__crc_update(&t, 0, buf + off, cut),
                                    buf + off + cut, len - cut) != want)
                ++bad;
        }
    CHECKF(bad == 0, "%d CRCs differ from the bit-at-a-time reference", bad);
    /* the chunk accumulator: CRCs of consecutive 256-byte pieces, fed in
       pieces of odd sizes */
    {
        ro_sgns__chunks ch;
        size_t fed = 0, k;
        ro_sgns__chunks_init(&ch, 8, 0, NULL);
        while (fed < sizeof buf) {
            size_t piece = (fed * 13 + 7) % 97 + 1;
            if (piece > sizeof buf - fed) piece = sizeof buf - fed;
            ro_sgns__chunks_feed(&ch, buf + fed, piece);
            fed += piece;
        }
        ro_sgns__chunks_end(&ch);
        CHECK(!ch.oom && ch.n == 3);
        for (k = 0; k < ch.n; ++k) {
            size_t at = k * 256, n = sizeof buf - at < 256 ? sizeof buf - at : 256;
            CHECK(ch.sum[k] == tcf_crc32c(0, buf + at, n));
        }
        ro_sgns__chunks_free(&ch);
    }
    /* an allocation failure while the table grows ends the feed with oom
       set (it used to loop forever taking 0 bytes): 70 chunks of 256 bytes
       need the table to grow past its first 64 entries */
    {
        ro_sgns__chunks ch;
        ro_sgns_allocator al = {tcf_no_alloc, tcf_no_realloc, tcf_free, NULL};
        static unsigned char big[70 * 256];
        size_t fed = 0;
        ro_sgns__chunks_init(&ch, 8, 0, &al);
        while (fed < sizeof big) {
            size_t piece = sizeof big - fed < 1000 ? sizeof big - fed : 1000;
            ro_sgns__chunks_feed(&ch, big + fed, piece);
            fed += piece;
        }
        ro_sgns__chunks_end(&ch);
        CHECK(ch.oom && ch.n == 0);
        ro_sgns__chunks_free(&ch);
    }
}

/* ---- the layout ------------------------------------------------------------ */

static void test_layout(void)
{
    ro_sgns_counts *c = make_counts(40, 600, 3);
    unsigned char *f;
    size_t size = 0, i;
    tcf_layout l;
    int ok = 1;
    if (!c) {
        CHECK(0);
        return;
    }
    f = save_counts(c, 8, &size);
    CHECK(f != NULL);
    if (!f) return;
    l = tcf_layout_of(f);
    CHECK(memcmp(f, "ROSGNSCT\x02\0\0\0\0\0\0\0", 16) == 0);
    CHECK(l.n == c->n && l.nnz == c->nnz && l.size == size && l.chunk == 256 && l.nchunks > 10);
    CHECK(tcf_get32(f + 116) == tcf_crc32c(0, f, 116));
    for (i = 0; i < l.nchunks; ++i) {
        uint64_t at = i * 256, n = l.data - at < 256 ? l.data - at : 256;
        if (tcf_get32(f + l.data + 4 * i) != tcf_crc32c(0, f + at, (size_t)n)) ok = 0;
    }
    CHECKF(ok, "a chunk's CRC is not the CRC-32C of its bytes");
    CHECK(tcf_get32(f + l.data + 4 * l.nchunks) ==
          tcf_crc32c(0, f + l.data, (size_t)(4 * l.nchunks)));
    /* the sections where the documentation puts them */
    CHECK(tcf_get32(f + 120) == c->vocab.len[0] && memcmp(f + 124, c->vocab.word[0], c->vocab.len[0]) == 0);
    CHECK(tcf_get64(f + l.row_ptr + 8 * c->n) == c->nnz);
    CHECK(tcf_get32(f + l.col + 4 * (c->nnz - 1)) == c->col[c->nnz - 1]);
    CHECK(ro_sgns__f64_from_bits(tcf_get64(f + l.val)) == (double)c->val[0]);
    CHECK(ro_sgns__f64_from_bits(tcf_get64(f + l.ctx_count + 8 * (c->n - 1))) ==
          c->ctx_count[c->n - 1]);
    /* the 64 KiB chunks of the files the library writes: one chunk here */
    {
        size_t n64 = 0;
        unsigned char *g = save_counts(c, 16, &n64);
        CHECK(g && n64 == (size_t)ro_sgns_counts_saved_size(c) && n64 == l.data + 8 &&
              memcmp(g, f, 112) == 0);
        free(g);
    }
    free(f);
    ro_sgns_counts_free(c);
}

/* ---- bit flips -------------------------------------------------------------- */

typedef ro_sgns_result (*load_fn)(const unsigned char *p, size_t n);

static ro_sgns_result load_counts(const unsigned char *p, size_t n)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_result rc = ro_sgns_counts_load_memory(p, n, &c, NULL, NULL);
    if (rc == RO_SGNS_OK && !c) rc = RO_SGNS_ERR_INVALID_ARGUMENT;
    ro_sgns_counts_free(c);
    return rc;
}

static ro_sgns_result load_checkpoint(const unsigned char *p, size_t n)
{
    ro_sgns_factors *f = NULL;
    tu_reader r = tu_reader_of(p, n, 4096);
    ro_sgns_result rc = ro_sgns_factors_load_callback(tu_read, &r, &f, NULL, NULL);
    /* a stream loader stops at the end of its file: it must end there */
    if (rc == RO_SGNS_OK && r.at != n) rc = RO_SGNS_ERR_FORMAT;
    ro_sgns_factors_free(f);
    return rc;
}

/* Flip every bit, and every pair of bits at most window bits apart, of the
   file: each must be refused with RO_SGNS_ERR_FORMAT. */
static void flip_sweep(const char *what, const unsigned char *file, size_t size, load_fn load,
                       size_t window)
{
    unsigned char *b = (unsigned char *)malloc(size);
    size_t bits = 8 * size, i, j;
    long loaded = 0, other = 0, tries = 0;
    memcpy(b, file, size);
    CHECKF(load(b, size) == RO_SGNS_OK, "%s: the intact file does not load", what);
    for (i = 0; i < bits; ++i) {
        b[i / 8] ^= (unsigned char)(1u << (i % 8));
        for (j = i; j < bits && j <= i + window; ++j) {
            ro_sgns_result rc;
            if (j != i) b[j / 8] ^= (unsigned char)(1u << (j % 8));
            rc = load(b, size);
            ++tries;
            if (rc == RO_SGNS_OK) {
                if (loaded < 3) fprintf(stderr, "%s: bits %lu and %lu flipped: loads\n", what,
                                        (unsigned long)i, (unsigned long)j);
                ++loaded;
            } else if (rc != RO_SGNS_ERR_FORMAT) {
                ++other;
            }
            if (j != i) b[j / 8] ^= (unsigned char)(1u << (j % 8));
        }
        b[i / 8] ^= (unsigned char)(1u << (i % 8));
    }
    CHECKF(loaded == 0 && other == 0,
           "%s: %ld of %ld corrupt files loaded, %ld gave another error than FORMAT", what,
           loaded, tries, other);
    if (tu_quick() == 0) printf("files: %s: %ld corrupt files of %lu bytes refused\n", what, tries,
                                (unsigned long)size);
    free(b);
}

static void test_bit_flips(void)
{
    size_t window = tu_quick() ? 8 : 64, size = 0;
    ro_sgns_counts *c = make_counts(6, 40, 11);
    unsigned char *f;
    if (!c) {
        CHECK(0);
        return;
    }
    f = save_counts(c, 16, &size);
    if (f) flip_sweep("counts (one chunk)", f, size, load_counts, window);
    free(f);
    f = save_counts(c, 8, &size);
    if (f) flip_sweep("counts (256-byte chunks)", f, size, load_counts, window);
    free(f);
    {
        ro_sgns_factors *x = NULL;
        tu_grow g;
        size_t i;
        memset(&g, 0, sizeof g);
        CHECK(ro_sgns_factors_create(5, 4, 2, &x, NULL, NULL) == RO_SGNS_OK);
        if (x) {
            for (i = 0; i < 10; ++i) x->U[i] = (real)((double)i / 7 - 0.5);
            for (i = 0; i < 8; ++i) x->V[i] = (real)((double)i / 5 - 0.75);
            for (i = 0; i < 4; ++i) x->S[i] = (real)(i + 1);
            x->iteration = 7;
            x->next_step = 0.5;
            x->counts_fingerprint = ro_sgns_counts_fingerprint(c);
            x->k = 5;
            x->window = 2;
            CHECK(ro_sgns__factors_save(x, NULL, 0, NULL, tu_grow_write, &g, 8, NULL) == RO_SGNS_OK);
            flip_sweep("checkpoint (256-byte chunks)", g.p, g.len, load_checkpoint, window);
            g.len = 0;
            CHECK(ro_sgns_factors_save_callback(x, tu_grow_write, &g, NULL) == RO_SGNS_OK);
            flip_sweep("checkpoint (one chunk)", g.p, g.len, load_checkpoint, window);
            g.len = 0; /* with a best point (the point itself, at step 7) */
            CHECK(ro_sgns__factors_save(x, x, 0.5, NULL, tu_grow_write, &g, 8, NULL) == RO_SGNS_OK);
            flip_sweep("checkpoint with a best point", g.p, g.len, load_checkpoint, window);
        }
        ro_sgns_factors_free(x);
        free(g.p);
    }
    ro_sgns_counts_free(c);
}

/* ---- intact files with wrong contents ---------------------------------------- */

static void expect_refused(const char *what, const unsigned char *f, size_t size,
                           const char *want)
{
    ro_sgns_counts *c = NULL;
    ro_sgns_error err;
    ro_sgns_result rc = ro_sgns_counts_load_memory(f, size, &c, NULL, &err);
    CHECKF(rc == RO_SGNS_ERR_FORMAT && !c && strstr(err.message, want),
           "%s: %s (%s), want a format error naming '%s'", what, ro_sgns_result_string(rc),
           err.message, want);
    ro_sgns_counts_free(c);
}

static void put_f64(unsigned char *p, double x) { tcf_put64(p, ro_sgns__f64_bits(x)); }

static void test_wrong_contents(void)
{
    ro_sgns_counts *c = make_counts(30, 400, 7);
    unsigned char *f, *b;
    size_t size = 0;
    tcf_layout l;
    char want[64];
    if (!c) {
        CHECK(0);
        return;
    }
    f = save_counts(c, 16, &size);
    b = (unsigned char *)malloc(size);
    l = tcf_layout_of(f);
    /* the refresh alone changes nothing */
    memcpy(b, f, size);
    tcf_refresh(b);
    CHECK(memcmp(b, f, size) == 0 && load_counts(b, size) == RO_SGNS_OK);
    /* #(w) = 0 for word 0, which has pairs (the file loaded before and
       failed later, in the QR, with "NaN or Inf") */
    put_f64(b + l.word_count, 0);
    tcf_refresh(b);
    sprintf(want, "offset %lu", (unsigned long)l.word_count);
    expect_refused("#(w) = 0", b, size, want);
    expect_refused("#(w) = 0", b, size, "#(w) of word 0");
    /* #(w) a little off: more than float rounding explains */
    memcpy(b, f, size);
    put_f64(b + l.word_count + 8 * 3, c->word_count[3] * (1 + 1e-6));
    tcf_refresh(b);
    expect_refused("#(w) off by 1e-6", b, size, "#(w) of word 3");
    /* ... within it: fine (#(c) and |D| moved alike: the counts of a
       fixed window are symmetric, #(3) = #(c = 3)) */
    memcpy(b, f, size);
    CHECK(c->word_count[3] == c->ctx_count[3]);
    put_f64(b + l.word_count + 8 * 3, c->word_count[3] * (1 + 3e-8));
    put_f64(b + l.ctx_count + 8 * 3, c->word_count[3] * (1 + 3e-8));
    put_f64(b + 104, c->total + c->word_count[3] * 3e-8);
    tcf_refresh(b);
    CHECK(load_counts(b, size) == RO_SGNS_OK);
    /* a column sum */
    memcpy(b, f, size);
    put_f64(b + l.ctx_count + 8 * 5, c->ctx_count[5] + 1);
    tcf_refresh(b);
    expect_refused("#(c) + 1", b, size, "#(c) of context 5");
    /* |D| */
    memcpy(b, f, size);
    put_f64(b + 104, c->total * 2);
    tcf_refresh(b);
    expect_refused("|D| doubled", b, size, "|D|");
    /* a word that is not a token: a byte <= 0x20 in it */
    {
        const unsigned char bytes[4] = {0x20, 0x0b, 0x00, 0x0d};
        int k;
        for (k = 0; k < 4; ++k) {
            memcpy(b, f, size);
            b[124 + 1] = bytes[k]; /* word 0, its second byte */
            tcf_refresh(b);
            expect_refused("a blank in a word", b, size, "word 0 'w");
        }
    }
    free(b);
    free(f);
    ro_sgns_counts_free(c);
}

/* ---- version 1 --------------------------------------------------------------- */

static void test_version_1(void)
{
    ro_sgns_counts *c = make_counts(30, 400, 9), *d = NULL;
    unsigned char *f, *v1;
    size_t size = 0, n1 = 0, i;
    ro_sgns_error err;
    int loads = 0;
    if (!c) {
        CHECK(0);
        return;
    }
    f = save_counts(c, 16, &size);
    v1 = tcf_v1_of(f, &n1);
    CHECK(v1 && n1 == size - 8); /* the header 8 bytes shorter, one u64 for two u32 */
    if (!v1) return;
    CHECK(ro_sgns_counts_load_memory(v1, n1, &d, NULL, &err) == RO_SGNS_OK && d &&
          tu_same_counts(c, d));
    ro_sgns_counts_free(d);
    d = NULL;
    {
        tu_reader r = tu_reader_of(v1, n1, 4096);
        CHECK(ro_sgns_counts_load_callback(tu_read, &r, &d, NULL, &err) == RO_SGNS_OK && d &&
              tu_same_counts(c, d) && r.at == n1);
        ro_sgns_counts_free(d);
        d = NULL;
    }
    /* the old check still guards it: every single flipped bit */
    for (i = 0; i < 8 * n1; ++i) {
        v1[i / 8] ^= (unsigned char)(1u << (i % 8));
        if (load_counts(v1, n1) != RO_SGNS_ERR_FORMAT) ++loads;
        v1[i / 8] ^= (unsigned char)(1u << (i % 8));
    }
    CHECKF(loads == 0, "version 1: %d single flips not refused", loads);
    /* a version 1 file of an older count with a word that is no token */
    {
        unsigned char *bad = (unsigned char *)malloc(size);
        size_t m1 = 0;
        unsigned char *w1;
        memcpy(bad, f, size);
        bad[125] = 0x0b;
        tcf_refresh(bad);
        w1 = tcf_v1_of(bad, &m1);
        CHECK(ro_sgns_counts_load_memory(w1, m1, &d, NULL, &err) == RO_SGNS_ERR_FORMAT &&
              strstr(err.message, "count the corpus again"));
        free(w1);
        free(bad);
    }
    free(v1);
    free(f);
    ro_sgns_counts_free(c);
}

/* ---- row ranges ----------------------------------------------------------------- */

static void test_ranges_every(void)
{
    ro_sgns_counts *w = make_counts(14, 120, 5), *r = NULL;
    unsigned char *f8, *f16, *v1;
    size_t n8 = 0, n16 = 0, n1 = 0, r0, r1;
    int bad[4] = {0, 0, 0, 0};
    const char *path = tu_path("files_rows.counts");
    if (!w) {
        CHECK(0);
        return;
    }
    f8 = save_counts(w, 8, &n8);
    f16 = save_counts(w, 16, &n16);
    v1 = tcf_v1_of(f16, &n1);
    CHECK(f8 && f16 && v1 && write_file(path, f8, n8));
    for (r0 = 0; r0 < w->n; ++r0)
        for (r1 = r0 + 1; r1 <= w->n; ++r1) {
            ro_sgns_error err;
            if (ro_sgns_counts_load_rows_memory(f8, n8, r0, r1, &r, NULL, &err) != RO_SGNS_OK ||
                !is_slice(r, w, r0, r1))
                ++bad[0];
            ro_sgns_counts_free(r);
            r = NULL;
            if (ro_sgns_counts_load_rows_memory(f16, n16, r0, r1, &r, NULL, &err) != RO_SGNS_OK ||
                !is_slice(r, w, r0, r1))
                ++bad[1];
            ro_sgns_counts_free(r);
            r = NULL;
            if (ro_sgns_counts_load_rows_memory(v1, n1, r0, r1, &r, NULL, &err) != RO_SGNS_OK ||
                !is_slice(r, w, r0, r1))
                ++bad[2];
            ro_sgns_counts_free(r);
            r = NULL;
            if (ro_sgns_counts_load_rows_path(path, r0, r1, &r, NULL, &err) != RO_SGNS_OK ||
                !is_slice(r, w, r0, r1))
                ++bad[3];
            ro_sgns_counts_free(r);
            r = NULL;
        }
    CHECKF(bad[0] + bad[1] + bad[2] + bad[3] == 0,
           "ranges differing from the whole load's slices: %d (256-byte chunks), %d (64 KiB), "
           "%d (version 1), %d (path)", bad[0], bad[1], bad[2], bad[3]);
    /* 0..n is the whole matrix, as a whole load gives it */
    CHECK(ro_sgns_counts_load_rows_memory(f16, n16, 0, w->n, &r, NULL, NULL) == RO_SGNS_OK && r &&
          tu_same_counts(r, w));
    ro_sgns_counts_free(r);
    r = NULL;
    /* not a range */
    {
        ro_sgns_error err;
        CHECK(ro_sgns_counts_load_rows_memory(f16, n16, 3, 3, &r, NULL, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT && !r);
        CHECK(ro_sgns_counts_load_rows_memory(f16, n16, 2, w->n + 1, &r, NULL, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT && !r);
        CHECK(ro_sgns_counts_load_rows_memory(f16, n16 - 1, 0, 2, &r, NULL, &err) ==
                  RO_SGNS_ERR_FORMAT && !r);
        CHECK(ro_sgns_counts_load_rows_path("/nonexistent/x.counts", 0, 2, &r, NULL, &err) ==
                  RO_SGNS_ERR_IO && strstr(err.message, "/nonexistent/x.counts"));
    }
    /* a trailing byte after a file read by ranges from a path */
    {
        unsigned char *t = (unsigned char *)malloc(n8 + 1);
        ro_sgns_error err;
        memcpy(t, f8, n8);
        t[n8] = 0;
        CHECK(write_file(path, t, n8 + 1));
        CHECK(ro_sgns_counts_load_rows_path(path, 1, 3, &r, NULL, &err) == RO_SGNS_ERR_FORMAT &&
              strstr(err.message, "trailing") && strstr(err.message, path));
        CHECK(ro_sgns_counts_load_rows_memory(t, n8 + 1, 1, 3, &r, NULL, &err) ==
              RO_SGNS_ERR_FORMAT);
        free(t);
    }
#if defined(__unix__) || defined(__APPLE__)
    /* a FILE that cannot seek (a pipe): read through once */
    {
        FILE *p;
        ro_sgns_error err;
        char cmd[600];
        snprintf(cmd, sizeof cmd, "cat '%s'", path);
        CHECK(write_file(path, f8, n8));
        p = popen(cmd, "r");
        if (p) {
            CHECKF(ro_sgns_counts_load_rows_file(p, 4, 9, &r, NULL, &err) == RO_SGNS_OK &&
                       is_slice(r, w, 4, 9),
                   "a pipe: %s", err.message);
            ro_sgns_counts_free(r);
            r = NULL;
            pclose(p);
        }
    }
#endif
    remove(path);
    free(f8);
    free(f16);
    free(v1);
    ro_sgns_counts_free(w);
}

/* Which chunks (of 2^log2 bytes) a range load of [r0, r1) needs: the
   header, vocabulary and row_ptr, the rows' col and val, the marginals. */
static int chunk_needed(const tcf_layout *l, const ro_sgns_counts *w, size_t r0, size_t r1,
                        uint64_t i)
{
    uint64_t a = i * l->chunk, b = a + l->chunk, base = w->row_ptr[r0], end = w->row_ptr[r1];
    uint64_t from[4], to[4];
    int k;
    from[0] = 0;
    to[0] = l->col;
    from[1] = l->col + 4 * base;
    to[1] = l->col + 4 * end;
    from[2] = l->val + 8 * base;
    to[2] = l->val + 8 * end;
    from[3] = l->word_count;
    to[3] = l->data;
    for (k = 0; k < 4; ++k)
        if (from[k] < to[k] && from[k] < b && a < to[k]) return 1;
    return 0;
}

static void test_ranges_corrupt(void)
{
    ro_sgns_counts *w = make_counts(60, 3000, 13), *r = NULL;
    unsigned char *f, *b;
    size_t size = 0, r0, r1;
    uint64_t i;
    tcf_layout l;
    int wrong = 0, needed = 0, unneeded = 0, tables = 0;
    const char *path = tu_path("files_corrupt.counts");
    if (!w) {
        CHECK(0);
        return;
    }
    f = save_counts(w, 8, &size);
    b = (unsigned char *)malloc(size);
    l = tcf_layout_of(f);
    r0 = w->n / 3;
    r1 = 2 * w->n / 3;
    CHECK(l.nchunks > 50 && w->row_ptr[r1] - w->row_ptr[r0] > 200);
    for (i = 0; i < l.nchunks; ++i) {
        ro_sgns_error err;
        ro_sgns_result rc;
        int need = chunk_needed(&l, w, r0, r1, i), pass;
        for (pass = 0; pass < 2; ++pass) {
            memcpy(b, f, size);
            b[i * l.chunk + (i * 37) % (l.data - i * l.chunk < l.chunk ? l.data - i * l.chunk
                                                                        : l.chunk)] ^= 0x10;
            if (pass == 0) {
                rc = ro_sgns_counts_load_rows_memory(b, size, r0, r1, &r, NULL, &err);
            } else {
                if (!write_file(path, b, size)) break;
                rc = ro_sgns_counts_load_rows_path(path, r0, r1, &r, NULL, &err);
            }
            if (need ? !(rc == RO_SGNS_ERR_FORMAT && !r)
                     : !(rc == RO_SGNS_OK && is_slice(r, w, r0, r1))) {
                if (wrong < 3)
                    fprintf(stderr, "chunk %lu (%s, %s): %s\n", (unsigned long)i,
                            need ? "needed" : "not needed", pass ? "path" : "memory",
                            err.message);
                ++wrong;
            }
            ro_sgns_counts_free(r);
            r = NULL;
        }
        if (need) ++needed;
        else ++unneeded;
    }
    CHECKF(wrong == 0 && needed > 5 && unneeded > 5,
           "%d of %d chunks: a corrupt one needed not refused or one not needed read (%d needed)",
           wrong, needed + unneeded, needed);
    /* the chunk table is read whole: a flip in any entry, or in its CRC, is
       refused */
    for (i = 0; i <= l.nchunks; ++i) {
        memcpy(b, f, size);
        b[l.data + 4 * i + i % 4] ^= 0x01;
        if (ro_sgns_counts_load_rows_memory(b, size, r0, r1, &r, NULL, NULL) !=
            RO_SGNS_ERR_FORMAT)
            ++tables;
        ro_sgns_counts_free(r);
        r = NULL;
    }
    CHECKF(tables == 0, "%d flips in the chunk table not refused", tables);
    remove(path);
    free(b);
    free(f);
    ro_sgns_counts_free(w);
}

/* What takes counts handles a range, or refuses it. */
static void test_ranges_users(void)
{
    ro_sgns_counts *w = make_counts(40, 1500, 17), *r = NULL;
    unsigned char *f;
    size_t size = 0, r0, r1, i;
    ro_sgns_error err;
    ro_sgns_csr *aw = NULL, *ar = NULL;
    ro_sgns_problem *pr = NULL, *ps = NULL;
    if (!w) {
        CHECK(0);
        return;
    }
    f = save_counts(w, 16, &size);
    r0 = 7;
    r1 = 23;
    CHECK(ro_sgns_counts_load_rows_memory(f, size, r0, r1, &r, NULL, &err) == RO_SGNS_OK);
    if (!r) return;
    /* the fingerprint is the whole matrix's */
    CHECK(ro_sgns_counts_fingerprint(r) == ro_sgns_counts_fingerprint(w) &&
          ro_sgns_counts_fingerprint(w) != 0);
    /* saving refuses a range */
    {
        void *buf = NULL;
        size_t got = 0;
        tu_grow g;
        memset(&g, 0, sizeof g);
        CHECK(ro_sgns_counts_saved_size(r) == 0);
        CHECK(ro_sgns_counts_save_memory(r, &buf, &got, NULL, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT &&
              strstr(err.message, "rows") && buf == NULL);
        CHECK(ro_sgns_counts_save_callback(r, tu_grow_write, &g, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT && g.len == 0);
        CHECK(ro_sgns_counts_save_path(r, tu_path("files_never.counts"), &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
        free(buf);
        free(g.p);
    }
    /* SPPMI: the range's rows of the whole matrix's */
    CHECK(ro_sgns_sppmi(w, 2, 0.75, &aw, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_sppmi(r, 2, 0.75, &ar, NULL, &err) == RO_SGNS_OK);
    if (aw && ar) {
        uint64_t base = aw->row_ptr[r0], nnz = aw->row_ptr[r1] - base;
        int same = ar->rows == r1 - r0 && ar->cols == w->n && ar->nnz == nnz;
        for (i = 0; same && i <= r1 - r0; ++i)
            same = ar->row_ptr[i] == aw->row_ptr[r0 + i] - base;
        CHECK(same && memcmp(ar->col, aw->col + base, (size_t)nnz * 4) == 0 &&
              memcmp(ar->val, aw->val + base, (size_t)nnz * sizeof(real)) == 0);
    }
    /* the problem: a shard, the same as ro_sgns_problem_create_shard's from
       the whole matrix's rows, #(c) and |D| */
    CHECK(ro_sgns_problem_create(r, 5, 1.0, &pr, NULL, &err) == RO_SGNS_OK);
    {
        const ro_sgns_shard_spec sp = {w->n,   w->n,   r0,           r1,       w->row_ptr + r0,
                                       w->col, w->val, w->ctx_count, w->total, 5, 1.0};
        CHECK(ro_sgns_problem_create_shard(&sp, &ps, NULL, &err) == RO_SGNS_OK);
    }
    if (pr && ps) {
        size_t rows = r1 - r0, m = w->n;
        uint64_t nnz = pr->fwd.row_ptr[rows] - pr->fwd.row_ptr[0];
        CHECK(pr->r0 == r0 && pr->r1 == r1 && pr->n == w->n && pr->m == w->n);
        CHECK(memcmp(pr->rowfac, ps->rowfac, (rows + m) * sizeof(double)) == 0 &&
              memcmp(pr->colfac, ps->colfac, (rows + m) * sizeof(real)) == 0);
        CHECK(memcmp(pr->t_row_ptr, ps->t_row_ptr, (m + 1) * sizeof(uint64_t)) == 0 &&
              memcmp(pr->t_col, ps->t_col, (size_t)nnz * 4) == 0 &&
              memcmp(pr->t_val, ps->t_val, (size_t)nnz * sizeof(float)) == 0);
        CHECK(pr->fingerprint == ro_sgns_counts_fingerprint(w) && pr->window == 2);
        /* it is a shard: ro_sgns_ro_train refuses it */
        {
            ro_sgns_factors *x = NULL;
            CHECK(ro_sgns_factors_create(rows, m, 3, &x, NULL, NULL) == RO_SGNS_OK);
            CHECK(ro_sgns_ro_train(pr, x, NULL, &err) == RO_SGNS_ERR_INVALID_ARGUMENT);
            ro_sgns_factors_free(x);
        }
    }
    ro_sgns_problem_free(pr);
    ro_sgns_problem_free(ps);
    ro_sgns_csr_free(aw);
    ro_sgns_csr_free(ar);
    ro_sgns_counts_free(r);
    ro_sgns_counts_free(w);
    free(f);
}

/* ---- checkpoints -------------------------------------------------------------- */

/* A version 1 checkpoint of x, as the old writer made it (the layout in
   section 4's declarations). */
static unsigned char *fx_v1(const ro_sgns_factors *x, size_t *size)
{
    size_t nv = x->n * x->d + x->d * x->d + x->m * x->d, n = 56 + 8 * nv + 8, i;
    unsigned char *b = (unsigned char *)malloc(n);
    uint64_t h;
    memcpy(b, "ROSGNSFX", 8);
    tcf_put32(b + 8, 1);
    tcf_put32(b + 12, 0);
    tcf_put64(b + 16, x->n);
    tcf_put64(b + 24, x->m);
    tcf_put64(b + 32, x->d);
    tcf_put64(b + 40, x->iteration);
    tcf_put64(b + 48, ro_sgns__f64_bits(x->next_step));
    for (i = 0; i < nv; ++i) {
        double v = i < x->n * x->d ? (double)x->U[i]
                   : i < x->n * x->d + x->d * x->d ? (double)x->S[i - x->n * x->d]
                                                   : (double)x->V[i - x->n * x->d - x->d * x->d];
        tcf_put64(b + 56 + 8 * i, ro_sgns__f64_bits(v));
    }
    /* the header check: the old checksum of bytes 0-11 and 16-55, folded */
    {
        unsigned char hb[52];
        memcpy(hb, b, 12);
        memcpy(hb + 12, b + 16, 40);
        h = tcf_v1_hash(hb, 52);
        tcf_put32(b + 12, (uint32_t)(h >> 32) ^ (uint32_t)h);
    }
    tcf_put64(b + n - 8, tcf_v1_hash(b, n - 8));
    *size = n;
    return b;
}

static int same_point(const ro_sgns_factors *a, const ro_sgns_factors *b)
{
    return a->n == b->n && a->m == b->m && a->d == b->d && a->iteration == b->iteration &&
           a->next_step == b->next_step && memcmp(a->U, b->U, a->n * a->d * sizeof(real)) == 0 &&
           memcmp(a->S, b->S, a->d * a->d * sizeof(real)) == 0 &&
           memcmp(a->V, b->V, a->m * a->d * sizeof(real)) == 0;
}

static void test_checkpoints(void)
{
    ro_sgns_counts *c = make_counts(30, 600, 21), *other = make_counts(30, 600, 22);
    ro_sgns_csr *a = NULL;
    ro_sgns_factors *x = NULL, *y = NULL;
    ro_sgns_problem *p = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_error err;
    const char *path = tu_path("files.fx");
    tu_grow g;
    if (!c || !other) {
        CHECK(0);
        return;
    }
    memset(&g, 0, sizeof g);
    CHECK(ro_sgns_sppmi(c, 1, 1, &a, NULL, &err) == RO_SGNS_OK);
    CHECK(a && ro_sgns_tsvd(a, 4, NULL, &x, NULL, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_problem_create(c, 5, 1.0, &p, NULL, &err) == RO_SGNS_OK);
    if (!x || !p) return;
    /* a start point records nothing but cds = 1; training records the rest */
    CHECK(x->counts_fingerprint == 0 && x->k == 0 && x->window == 0 && x->cds == 1);
    cfg.iterations = 2;
    CHECK(ro_sgns_ro_train(p, x, &cfg, &err) == RO_SGNS_OK && x->iteration >= 1);
    CHECK(x->counts_fingerprint == ro_sgns_counts_fingerprint(c) && x->k == 5 &&
          x->window == 2 && x->cds == 1);
    /* round trip through a path: every field */
    CHECK(ro_sgns_factors_save_path(x, path, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_factors_load_path(path, &y, NULL, &err) == RO_SGNS_OK);
    if (y) {
        CHECK(same_point(x, y) && y->counts_fingerprint == x->counts_fingerprint && y->k == 5 &&
              y->window == 2 && y->cds == 1);
        /* what a resume must match */
        CHECK(ro_sgns_factors_check_resume(y, c, 5, 1, 4, &err) == RO_SGNS_OK);
        CHECK(ro_sgns_factors_check_resume(y, other, 5, 1, 4, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT &&
              strstr(err.message, "other counts"));
        CHECK(ro_sgns_factors_check_resume(y, c, 10, 0.75, 8, &err) ==
                  RO_SGNS_ERR_INVALID_ARGUMENT &&
              strstr(err.message, "k 10 here, 5 in the checkpoint") &&
              strstr(err.message, "cds 0.75 here, 1 in the checkpoint") &&
              strstr(err.message, "d 8 here, 4 in the checkpoint") &&
              !strstr(err.message, "other counts"));
        {
            ro_sgns_counts *c5 = make_counts(30, 600, 21);
            if (c5) {
                c5->config.window = 5; /* the same pairs said to come from another window */
                CHECK(ro_sgns_factors_check_resume(y, c5, 5, 1, 4, &err) ==
                          RO_SGNS_ERR_INVALID_ARGUMENT &&
                      strstr(err.message, "window 5 here, 2 in the checkpoint"));
                ro_sgns_counts_free(c5);
            }
        }
        ro_sgns_factors_free(y);
        y = NULL;
    }
    /* trailing bytes */
    {
        FILE *f = fopen(path, "ab");
        CHECK(f != NULL);
        if (f) {
            fputc('!', f);
            fclose(f);
        }
        CHECK(ro_sgns_factors_load_path(path, &y, NULL, &err) == RO_SGNS_ERR_FORMAT && !y &&
              strstr(err.message, "trailing") && strstr(err.message, path));
    }
    /* version 1: loads, records nothing, so nothing is compared */
    {
        size_t n1 = 0, i;
        unsigned char *v1 = fx_v1(x, &n1);
        int loads = 0;
        CHECK(write_file(path, v1, n1));
        CHECK(ro_sgns_factors_load_path(path, &y, NULL, &err) == RO_SGNS_OK);
        if (y) {
            CHECK(same_point(x, y) && y->counts_fingerprint == 0 && y->k == 0 && y->window == 0 &&
                  y->cds == 0);
            CHECK(ro_sgns_factors_check_resume(y, other, 10, 0.75, 4, &err) == RO_SGNS_OK);
            ro_sgns_factors_free(y);
            y = NULL;
        }
        for (i = 0; i < 8 * n1; i += 3) {
            v1[i / 8] ^= (unsigned char)(1u << (i % 8));
            if (load_checkpoint(v1, n1) != RO_SGNS_ERR_FORMAT) ++loads;
            v1[i / 8] ^= (unsigned char)(1u << (i % 8));
        }
        CHECKF(loads == 0, "version 1 checkpoint: %d flips not refused", loads);
        free(v1);
    }
    /* a value beyond the real type (float: 3.4e38) is refused, never loaded
       as Inf; the same file loads in a double build */
    {
        size_t n1 = 0;
        unsigned char *v1 = fx_v1(x, &n1);
        tcf_put64(v1 + 56 + 8 * 3, ro_sgns__f64_bits(-1e300));
        tcf_put64(v1 + n1 - 8, tcf_v1_hash(v1, n1 - 8));
        if (sizeof(real) == sizeof(float))
            CHECK(load_checkpoint(v1, n1) == RO_SGNS_ERR_FORMAT);
        else
            CHECK(load_checkpoint(v1, n1) == RO_SGNS_OK);
        CHECK(write_file(path, v1, n1));
        if (sizeof(real) == sizeof(float))
            CHECKF(ro_sgns_factors_load_path(path, &y, NULL, &err) == RO_SGNS_ERR_FORMAT && !y &&
                       strstr(err.message, "-1e+300 is beyond the float range") &&
                       strstr(err.message, "offset 80"), "%s", err.message);
        ro_sgns_factors_free(y);
        y = NULL;
        free(v1);
    }
    /* k, window and the fingerprint are recorded together or not at all:
       a zero among them (which ro_sgns_factors_check_resume would skip)
       or cds 0 is refused; none recorded (a start point) loads */
    {
        ro_sgns_factors keep = *x;
        int field;
        for (field = 0; field < 4; ++field) {
            *x = keep;
            if (field == 0) x->k = 0;
            if (field == 1) x->window = 0;
            if (field == 2) x->counts_fingerprint = 0;
            if (field == 3) x->cds = 0;
            g.len = 0;
            CHECK(ro_sgns_factors_save_callback(x, tu_grow_write, &g, NULL) == RO_SGNS_OK);
            CHECKF(load_checkpoint(g.p, g.len) == RO_SGNS_ERR_FORMAT, "field %d zeroed: loaded",
                   field);
        }
        x->k = 0;
        x->window = 0;
        x->counts_fingerprint = 0;
        x->cds = 1;
        g.len = 0;
        CHECK(ro_sgns_factors_save_callback(x, tu_grow_write, &g, NULL) == RO_SGNS_OK);
        CHECK(load_checkpoint(g.p, g.len) == RO_SGNS_OK);
        /* k alone: a step on a problem from a bare CSR matrix (no counts) */
        x->k = 5;
        g.len = 0;
        CHECK(ro_sgns_factors_save_callback(x, tu_grow_write, &g, NULL) == RO_SGNS_OK);
        CHECK(load_checkpoint(g.p, g.len) == RO_SGNS_OK);
        *x = keep;
    }
    /* a corrupt checkpoint's error names the file */
    CHECK(ro_sgns_factors_save_path(x, path, &err) == RO_SGNS_OK);
    {
        FILE *f = fopen(path, "r+b");
        if (f) {
            fseek(f, 200, SEEK_SET);
            fputc(0x55, f);
            fclose(f);
        }
        CHECK(ro_sgns_factors_load_path(path, &y, NULL, &err) == RO_SGNS_ERR_FORMAT &&
              strstr(err.message, path) && strstr(err.message, "chunk 0"));
    }
    remove(path);
    free(g.p);
    ro_sgns_csr_free(a);
    ro_sgns_problem_free(p);
    ro_sgns_factors_free(x);
    ro_sgns_counts_free(c);
    ro_sgns_counts_free(other);
}

static ro_sgns_result load_run(const unsigned char *p, size_t n)
{
    ro_sgns_factors *f = NULL, *b = NULL;
    ro_sgns_run_record rec;
    tu_reader r = tu_reader_of(p, n, 4096);
    ro_sgns_result rc = ro_sgns_factors_load_run_callback(tu_read, &r, &f, &b, NULL, &rec, NULL, NULL);
    if (rc == RO_SGNS_OK && r.at != n) rc = RO_SGNS_ERR_FORMAT;
    if (rc == RO_SGNS_OK) ro_sgns_run_record_free(&rec, NULL);
    ro_sgns_factors_free(f);
    ro_sgns_factors_free(b);
    return rc;
}

/* Version 3, a run record: the SGD stage's (rows, no point) and the
   steps' (a point, its best, the fold's start rows) round trip bit for
   bit; the plain loaders read the point and refuse a file of none; every
   flip is refused; a version 2 file still loads, with no record. */
static void test_run_record(void)
{
    ro_sgns_factors *x = NULL, *y = NULL, *b = NULL;
    ro_sgns_run_record run, got;
    real W[12], C[12];
    tu_grow g;
    tu_reader r;
    double score = 0;
    size_t i, window = tu_quick() ? 4 : 16;
    memset(&g, 0, sizeof g);
    memset(&run, 0, sizeof run);
    for (i = 0; i < 12; ++i) {
        W[i] = (real)((double)i / 3 - 1.7);
        C[i] = (real)(0.1 / ((double)i + 1));
    }
    CHECK(ro_sgns_factors_create(5, 5, 2, &x, NULL, NULL) == RO_SGNS_OK);
    if (!x) return;
    for (i = 0; i < 10; ++i) x->U[i] = x->V[i] = (real)((double)i / 7 - 0.5);
    for (i = 0; i < 4; ++i) x->S[i] = (real)(i + 1);
    x->iteration = 4;
    run.stage = RO_SGNS_RUN_SGD;
    run.fingerprint = 0x1234567890abcdefull;
    run.round = 17;
    run.words = 123456;
    run.rows = 6;
    run.d = 2;
    run.W = W;
    run.C = C;
    /* the SGD stage: no point */
    CHECK(ro_sgns_factors_save_run_callback(NULL, NULL, 0, &run, tu_grow_write, &g, NULL) == RO_SGNS_OK);
    CHECK(g.len > 12 && tcf_get32(g.p + 8) == 3);
    r = tu_reader_of(g.p, g.len, 4096);
    CHECK(ro_sgns_factors_load_run_callback(tu_read, &r, &y, NULL, NULL, &got, NULL, NULL) == RO_SGNS_OK);
    CHECK(y == NULL && got.stage == RO_SGNS_RUN_SGD && got.fingerprint == run.fingerprint &&
          got.round == 17 && got.words == 123456 && got.rows == 6 && got.d == 2 && got.W &&
          memcmp(got.W, W, sizeof W) == 0 && memcmp(got.C, C, sizeof C) == 0);
    ro_sgns_run_record_free(&got, NULL);
    CHECK(load_checkpoint(g.p, g.len) == RO_SGNS_ERR_FORMAT);
    flip_sweep("checkpoint of the SGD stage", g.p, g.len, load_run, window);
    /* the steps: a point, its best and the rows */
    run.stage = RO_SGNS_RUN_DONE;
    run.last_gain = 0.0625;
    run.rows = 5;
    g.len = 0;
    CHECK(ro_sgns_factors_save_run_callback(x, x, 0.5, &run, tu_grow_write, &g, NULL) == RO_SGNS_OK);
    r = tu_reader_of(g.p, g.len, 4096);
    CHECK(ro_sgns_factors_load_run_callback(tu_read, &r, &y, &b, &score, &got, NULL, NULL) == RO_SGNS_OK);
    CHECK(y && b && same_point(x, y) && same_point(x, b) && score == 0.5 &&
          got.stage == RO_SGNS_RUN_DONE && got.last_gain == 0.0625 && got.rows == 5 &&
          memcmp(got.W, W, 10 * sizeof(real)) == 0 && memcmp(got.C, C, 10 * sizeof(real)) == 0);
    ro_sgns_run_record_free(&got, NULL);
    ro_sgns_factors_free(y);
    ro_sgns_factors_free(b);
    y = b = NULL;
    r = tu_reader_of(g.p, g.len, 4096); /* the plain loader: the point, the record read past */
    CHECK(ro_sgns_factors_load_callback(tu_read, &r, &y, NULL, NULL) == RO_SGNS_OK && y &&
          same_point(x, y) && r.at == g.len);
    ro_sgns_factors_free(y);
    y = NULL;
    flip_sweep("checkpoint with a run record", g.p, g.len, load_run, window);
    /* refused saves: a record that does not fit its point */
    CHECK(ro_sgns_factors_save_run_callback(NULL, NULL, 0, &run, tu_grow_write, &g, NULL) ==
          RO_SGNS_ERR_INVALID_ARGUMENT); /* stage DONE without a point */
    run.stage = RO_SGNS_RUN_SGD;
    CHECK(ro_sgns_factors_save_run_callback(x, NULL, 0, &run, tu_grow_write, &g, NULL) ==
          RO_SGNS_ERR_INVALID_ARGUMENT); /* the SGD stage with one */
    run.stage = RO_SGNS_RUN_STEPS;
    run.d = 3;
    CHECK(ro_sgns_factors_save_run_callback(x, NULL, 0, &run, tu_grow_write, &g, NULL) ==
          RO_SGNS_ERR_INVALID_ARGUMENT); /* rows of another d */
    run.d = 2;
    W[3] = (real)NAN;
    CHECK(ro_sgns_factors_save_run_callback(x, NULL, 0, &run, tu_grow_write, &g, NULL) ==
          RO_SGNS_ERR_NUMERIC);
    /* version 2 (no record) still loads through the run loader: stage 0 */
    g.len = 0;
    CHECK(ro_sgns_factors_save_best_callback(x, NULL, 0, tu_grow_write, &g, NULL) == RO_SGNS_OK);
    CHECK(g.len > 12 && tcf_get32(g.p + 8) == 2);
    r = tu_reader_of(g.p, g.len, 4096);
    CHECK(ro_sgns_factors_load_run_callback(tu_read, &r, &y, NULL, NULL, &got, NULL, NULL) == RO_SGNS_OK &&
          y && same_point(x, y) && got.stage == 0 && got.rows == 0 && got.W == NULL);
    ro_sgns_factors_free(y);
    ro_sgns_factors_free(x);
    free(g.p);
}

/* The file's word i: the offset of its unigram count (version 2). */
static size_t count_at(const unsigned char *f, size_t i)
{
    size_t at = 120, k;
    for (k = 0; k < i; ++k) at += 4 + tcf_get32(f + at) + 8;
    return at + 4 + tcf_get32(f + at);
}

/* Counts whose checksums are right but whose numbers cannot be: unigram
   counts out of the vocabulary's descending order, summing beyond 2^64,
   or more than corpus_tokens; corpus_tokens and distinct_words both 0
   (not recorded) load. */
static void test_counts_numbers(void)
{
    ro_sgns_counts *c = make_counts(10, 100, 3), *d = NULL;
    unsigned char *f;
    size_t size = 0;
    ro_sgns_error err;
    uint64_t c0, c1;
    if (!c) {
        CHECK(0);
        return;
    }
    f = save_counts(c, 16, &size);
    CHECK(f != NULL && c->n >= 2);
    if (!f || c->n < 2) {
        ro_sgns_counts_free(c);
        free(f);
        return;
    }
    c0 = tcf_get64(f + count_at(f, 0));
    c1 = tcf_get64(f + count_at(f, 1));
    CHECK(load_counts(f, size) == RO_SGNS_OK);
    /* word 1 above word 0 */
    tcf_put64(f + count_at(f, 1), c0 + 1);
    tcf_refresh(f);
    CHECKF(ro_sgns_counts_load_memory(f, size, &d, NULL, &err) == RO_SGNS_ERR_FORMAT && !d &&
               strstr(err.message, "descending order"), "%s", err.message);
    tcf_put64(f + count_at(f, 1), c1);
    /* word 0 at 2^64 - 1: the sum overflows */
    tcf_put64(f + count_at(f, 0), ~(uint64_t)0);
    tcf_refresh(f);
    CHECKF(ro_sgns_counts_load_memory(f, size, &d, NULL, &err) == RO_SGNS_ERR_FORMAT && !d &&
               strstr(err.message, "beyond 2^64"), "%s", err.message);
    tcf_put64(f + count_at(f, 0), c0);
    /* fewer tokens read than the vocabulary's counts add up to */
    tcf_put64(f + 32, c0);
    tcf_refresh(f);
    CHECKF(ro_sgns_counts_load_memory(f, size, &d, NULL, &err) == RO_SGNS_ERR_FORMAT && !d &&
               strstr(err.message, "corpus_tokens"), "%s", err.message);
    /* fewer distinct words than the vocabulary has */
    tcf_put64(f + 32, c->corpus_tokens);
    tcf_put64(f + 40, 1);
    tcf_refresh(f);
    CHECK(load_counts(f, size) == RO_SGNS_ERR_FORMAT);
    /* neither recorded */
    tcf_put64(f + 32, 0);
    tcf_put64(f + 40, 0);
    tcf_refresh(f);
    CHECK(load_counts(f, size) == RO_SGNS_OK);
    free(f);
    ro_sgns_counts_free(c);
}

/* load errors of the counts name the file */
/* A checkpoint with a best point (flags bit 0; section 9): the point and
   the best one with its step, next step and score read back; without one
   the bytes are the plain save's, and the best loader says none; the plain
   loader reads the point of a file with one; the best point's own checks
   (its step beyond the point's) refuse the file, and a save refuses a
   best point of other sizes or a score that is not finite. */
static void test_checkpoint_best(void)
{
    ro_sgns_factors *x = NULL, *b = NULL, *y = NULL, *yb = NULL;
    ro_sgns_error err;
    tu_grow plain, with;
    tu_reader r;
    double score = -1;
    size_t i;
    memset(&plain, 0, sizeof plain);
    memset(&with, 0, sizeof with);
    CHECK(ro_sgns_factors_create(6, 5, 2, &x, NULL, NULL) == RO_SGNS_OK &&
          ro_sgns_factors_create(6, 5, 2, &b, NULL, NULL) == RO_SGNS_OK);
    if (!x || !b) goto done;
    for (i = 0; i < 12; ++i) x->U[i] = (real)((double)i / 9 - 0.5), b->U[i] = (real)(0.25 - (double)i / 11);
    for (i = 0; i < 10; ++i) x->V[i] = (real)((double)i / 4 - 1), b->V[i] = (real)((double)i / 3);
    for (i = 0; i < 4; ++i) x->S[i] = (real)(i + 2), b->S[i] = (real)(5 - (double)i);
    x->iteration = 9;
    x->next_step = 0.5;
    x->k = 5;
    x->window = 3;
    x->counts_fingerprint = 0x0123456789abcdefull; /* recorded whole, as a step does */
    b->iteration = 4;
    b->next_step = 0.25;
    /* no best point: byte for byte the plain save; the best loader says none */
    CHECK(ro_sgns_factors_save_callback(x, tu_grow_write, &plain, &err) == RO_SGNS_OK);
    CHECK(ro_sgns_factors_save_best_callback(x, NULL, 0.75, tu_grow_write, &with, &err) == RO_SGNS_OK);
    CHECK(with.len == plain.len && memcmp(with.p, plain.p, plain.len) == 0);
    r = tu_reader_of(plain.p, plain.len, 100);
    CHECK(ro_sgns_factors_load_best_callback(tu_read, &r, &y, &yb, &score, NULL, &err) == RO_SGNS_OK &&
          y && same_point(x, y) && yb == NULL && score == 0);
    ro_sgns_factors_free(y);
    y = NULL;
    /* with one: both points back, the best's step, next step and score */
    with.len = 0;
    CHECK(ro_sgns_factors_save_best_callback(x, b, 0.75, tu_grow_write, &with, &err) == RO_SGNS_OK);
    CHECK(with.len == plain.len + 24 + 8 * (12 + 4 + 10) && with.p[12] == 1 &&
          memcmp(with.p + 16, plain.p + 16, 76) == 0);
    r = tu_reader_of(with.p, with.len, 100);
    CHECK(ro_sgns_factors_load_best_callback(tu_read, &r, &y, &yb, &score, NULL, &err) == RO_SGNS_OK &&
          y && yb && same_point(x, y) && same_point(b, yb) && yb->iteration == 4 &&
          yb->next_step == 0.25 && yb->k == 5 && yb->window == 3 && score == 0.75);
    ro_sgns_factors_free(y);
    ro_sgns_factors_free(yb);
    y = yb = NULL;
    /* the plain loader: the point, the best one's bytes checked */
    r = tu_reader_of(with.p, with.len, 100);
    CHECK(ro_sgns_factors_load_callback(tu_read, &r, &y, NULL, &err) == RO_SGNS_OK && y &&
          same_point(x, y) && r.at == with.len);
    ro_sgns_factors_free(y);
    y = NULL;
    /* what a save refuses: a score that is not finite, other sizes */
    CHECK(ro_sgns_factors_save_best_callback(x, b, HUGE_VAL, tu_grow_write, &plain, &err) ==
          RO_SGNS_ERR_INVALID_ARGUMENT);
    CHECK(ro_sgns_factors_create(6, 4, 2, &y, NULL, NULL) == RO_SGNS_OK &&
          ro_sgns_factors_save_best_callback(x, y, 0.75, tu_grow_write, &plain, &err) ==
              RO_SGNS_ERR_INVALID_ARGUMENT);
    ro_sgns_factors_free(y);
    y = NULL;
    b->iteration = 10; /* beyond the point's step 9: written, refused when read */
    with.len = 0;
    CHECK(ro_sgns_factors_save_best_callback(x, b, 0.75, tu_grow_write, &with, &err) == RO_SGNS_OK);
    r = tu_reader_of(with.p, with.len, 100);
    CHECK(ro_sgns_factors_load_best_callback(tu_read, &r, &y, &yb, &score, NULL, &err) ==
              RO_SGNS_ERR_FORMAT &&
          !y && !yb && strstr(err.message, "best point"));
done:
    ro_sgns_factors_free(x);
    ro_sgns_factors_free(b);
    free(plain.p);
    free(with.p);
}

static void test_named(void)
{
    ro_sgns_counts *c = make_counts(10, 100, 1), *d = NULL;
    unsigned char *f;
    size_t size = 0;
    ro_sgns_error err;
    const char *path = tu_path("files_named.counts");
    if (!c) {
        CHECK(0);
        return;
    }
    f = save_counts(c, 16, &size);
    f[size / 2] ^= 0x40;
    CHECK(write_file(path, f, size));
    CHECK(ro_sgns_counts_load_path(path, &d, NULL, &err) == RO_SGNS_ERR_FORMAT && !d &&
          strstr(err.message, path) && strstr(err.message, "offset"));
    CHECK(ro_sgns_counts_load_path("/nonexistent/c.counts", &d, NULL, &err) == RO_SGNS_ERR_IO &&
          strstr(err.message, "/nonexistent/c.counts") && strstr(err.message, strerror(ENOENT)));
    /* every path reader says why the OS refused, and names the path once */
    {
        ro_sgns_vectors *v = NULL;
        ro_sgns_pairs *p = NULL;
        ro_sgns_analogies *q = NULL;
        ro_sgns_factors *x = NULL;
        const char *bad = "/nonexistent/f.txt";
        const char *msg[5];
        char m[5][RO_SGNS_MESSAGE_SIZE];
        int k;
        CHECK(ro_sgns_vectors_load_path(bad, RO_SGNS_W2V_TEXT, 0, &v, NULL, &err) ==
              RO_SGNS_ERR_IO);
        memcpy(m[0], err.message, sizeof err.message);
        CHECK(ro_sgns_pairs_load_path(bad, &p, NULL, &err) == RO_SGNS_ERR_IO);
        memcpy(m[1], err.message, sizeof err.message);
        CHECK(ro_sgns_analogies_load_path(bad, &q, NULL, &err) == RO_SGNS_ERR_IO);
        memcpy(m[2], err.message, sizeof err.message);
        CHECK(ro_sgns_factors_load_path(bad, &x, NULL, &err) == RO_SGNS_ERR_IO);
        memcpy(m[3], err.message, sizeof err.message);
        CHECK(ro_sgns_count_path(bad, NULL, &d, NULL, &err) == RO_SGNS_ERR_IO);
        memcpy(m[4], err.message, sizeof err.message);
        for (k = 0; k < 5; ++k) {
            const char *at;
            msg[k] = m[k];
            at = strstr(msg[k], bad);
            CHECKF(at && !strstr(at + 1, bad) && strstr(msg[k], strerror(ENOENT)),
                   "reader %d: '%s'", k, msg[k]);
        }
    }
    remove(path);
    free(f);
    ro_sgns_counts_free(c);
}

int main(void)
{
    test_crc();
    test_layout();
    test_wrong_contents();
    test_version_1();
    test_ranges_every();
    test_ranges_corrupt();
    test_ranges_users();
    test_checkpoints();
    test_run_record();
    test_checkpoint_best();
    test_named();
    test_counts_numbers();
    test_bit_flips();
    return tu_finish(sizeof(real) == sizeof(double) ? "files(double)" : "files(float)");
}
