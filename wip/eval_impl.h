/* ======================================================================
   6. File formats
   What: the vectors object (a vocabulary with its own word -> row hash
   table, and an n x d row-major matrix), and readers and writers for the
   three formats users already have: word2vec text, word2vec binary, GloVe
   text (see ro_sgns_vectors_format for the layouts).
   Why: Step 2 of the paper ends with W = U Sigma^(1/2) [2.3]; the point of
   it is to hand W to the tools people use (gensim, word2vec's distance,
   evaluation scripts), so the files must be bit-compatible with theirs,
   and files from other trainers must load for comparison.
   How: every reader pulls bytes through one small input (a memory buffer,
   or a read callback refilled 64 KiB at a time; FILE* is such a callback),
   so a file is never slurped and the fuzzers exercise the same code as
   the file readers. Rows are appended to a builder (word pool, offsets,
   growing matrix, hash table); only a complete, checked body becomes a
   ro_sgns_vectors, so a failure leaves no partial object.
   Binary floats are assembled from bytes by shifts (b0 | b1<<8 | ...)
   into a uint32 and only then reinterpreted as an IEEE float, so the
   little-endian file reads and writes the same on a big-endian host; the
   host's float bytes are never copied to or from the file.
   Numbers in text go through strtod/snprintf with the locale's decimal
   point swapped in and out (see ro_sgns__eval_number).
   Cost: reading is O(file size) time; memory is the matrix (n d reals,
   grown by doubling and trimmed at the end, so up to 2x while reading),
   the words, and a hash table of 2-4 n slots. Writing streams through a
   64 KiB buffer.
   Invariants of a ro_sgns_vectors: see its declaration (n >= 1, d in
   [1, RO_SGNS_MAX_DIM], words unique, non-empty, whitespace-free; values
   finite); the hash table is at most half full, so probes end.
   ====================================================================== */

#include <stdlib.h> /* strtod, qsort */
#include <locale.h> /* localeconv: the decimal point strtod and printf use */

#ifndef RO_SGNS_HAVE_GEMM
/* TEMPORARY, for the lead to remove once ro_sgns_gemm (appendix A) is in
   the header: a plain GEMM with the public contract so this section builds
   on its own. The (NOTRANS, TRANS) case used here keeps 4 x 4 independent
   sums in registers; everything else is the triple loop. */
static ro_sgns_result ro_sgns__tmp_gemm(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                        size_t k, ro_sgns_real alpha, const ro_sgns_real *A,
                                        size_t lda, const ro_sgns_real *B, size_t ldb,
                                        ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                        const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    size_t i, j, p;
    (void)alloc;
    if (m == 0 || n == 0) return ro_sgns__ok(err);
    if (!C || (k && (!A || !B))) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "gemm: NULL");
    if (ta == RO_SGNS_NOTRANS && tb == RO_SGNS_TRANS) {
        for (i = 0; i < m; i += 4) {
            size_t mi = m - i < 4 ? m - i : 4;
            for (j = 0; j < n; j += 4) {
                size_t nj = n - j < 4 ? n - j : 4, a, b;
                ro_sgns_real s[4][4];
                const ro_sgns_real *ar[4], *br[4];
                for (a = 0; a < 4; ++a) {
                    ar[a] = A + (i + (a < mi ? a : 0)) * lda;
                    br[a] = B + (j + (a < nj ? a : 0)) * ldb;
                    for (b = 0; b < 4; ++b) s[a][b] = 0;
                }
                for (p = 0; p < k; ++p) {
                    ro_sgns_real a0 = ar[0][p], a1 = ar[1][p], a2 = ar[2][p], a3 = ar[3][p];
                    for (b = 0; b < 4; ++b) {
                        ro_sgns_real bv = br[b][p];
                        s[0][b] += a0 * bv;
                        s[1][b] += a1 * bv;
                        s[2][b] += a2 * bv;
                        s[3][b] += a3 * bv;
                    }
                }
                for (a = 0; a < mi; ++a)
                    for (b = 0; b < nj; ++b) {
                        ro_sgns_real *c = &C[(i + a) * ldc + j + b];
                        *c = alpha * s[a][b] + (beta == 0 ? (ro_sgns_real)0 : beta * *c);
                    }
            }
        }
        return ro_sgns__ok(err);
    }
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            ro_sgns_real s = 0;
            for (p = 0; p < k; ++p)
                s += (ta == RO_SGNS_NOTRANS ? A[i * lda + p] : A[p * lda + i]) *
                     (tb == RO_SGNS_NOTRANS ? B[p * ldb + j] : B[j * ldb + p]);
            C[i * ldc + j] = alpha * s + (beta == 0 ? (ro_sgns_real)0 : beta * C[i * ldc + j]);
        }
    return ro_sgns__ok(err);
}
#define ro_sgns_gemm ro_sgns__tmp_gemm
#endif /* RO_SGNS_HAVE_GEMM */

/* The binary format stores IEEE-754 binary32; we reinterpret a uint32 as a
   float, which needs a 4-byte float (true wherever IEEE floats are). */
typedef char ro_sgns__eval_float_is_32_bits[sizeof(float) == 4 ? 1 : -1];

#define RO_SGNS__EVAL_BUF 65536 /* refill and write buffer, bytes */
#define RO_SGNS__EVAL_TOK 255   /* longest number token, bytes */

typedef unsigned long long ro_sgns__ull; /* for printing sizes and offsets */

/* ---- growing arrays ---------------------------------------------------- */

/* Make room for need elements of elem bytes in p (capacity *cap, doubled
   as needed); *out gets the (possibly moved) block. p stays valid and
   owned by the caller when this fails. */
static ro_sgns_result ro_sgns__eval_reserve(const ro_sgns_allocator *al, void *p, size_t *cap,
                                            size_t need, size_t elem, void **out,
                                            ro_sgns_error *err)
{
    size_t nc, bytes;
    int of = 0;
    void *q;
    *out = p;
    if (need <= *cap && p) return RO_SGNS_OK;
    nc = *cap ? *cap : 16;
    while (nc < need) nc = nc > (size_t)-1 / 2 ? need : nc * 2;
    bytes = ro_sgns__mul(nc, elem, &of);
    if (of)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "%llu elements of %llu bytes overflow size_t",
                             (ro_sgns__ull)nc, (ro_sgns__ull)elem);
    q = ro_sgns__realloc(al, p, bytes);
    if (!q)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "cannot allocate %llu bytes",
                             (ro_sgns__ull)bytes);
    *out = q;
    *cap = nc;
    return RO_SGNS_OK;
}

/* A pool of NUL-terminated strings addressed by offset (offsets survive the
   pool moving when it grows). */
typedef struct ro_sgns__eval_strs {
    char *pool;
    size_t len, cap;
    size_t *offs;
    size_t n, ncap;
} ro_sgns__eval_strs;

static ro_sgns_result ro_sgns__eval_strs_add(const ro_sgns_allocator *al, ro_sgns__eval_strs *s,
                                             const char *str, size_t len, ro_sgns_error *err)
{
    void *q;
    ro_sgns_result rc;
    if (len >= (size_t)-1 - s->len - 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "string pool overflows size_t");
    if ((rc = ro_sgns__eval_reserve(al, s->pool, &s->cap, s->len + len + 1, 1, &q, err)) != RO_SGNS_OK)
        return rc;
    s->pool = (char *)q;
    if ((rc = ro_sgns__eval_reserve(al, s->offs, &s->ncap, s->n + 1, sizeof(size_t), &q, err)) !=
        RO_SGNS_OK)
        return rc;
    s->offs = (size_t *)q;
    memcpy(s->pool + s->len, str, len);
    s->pool[s->len + len] = '\0';
    s->offs[s->n++] = s->len;
    s->len += len + 1;
    return RO_SGNS_OK;
}

static void ro_sgns__eval_strs_free(const ro_sgns_allocator *al, ro_sgns__eval_strs *s)
{
    ro_sgns__free(al, s->pool);
    ro_sgns__free(al, s->offs);
    memset(s, 0, sizeof *s);
}

/* ---- word -> row hash table ---------------------------------------------
   FNV-1a (64 bit) over the word's bytes, open addressing with linear
   probing in a power-of-two table kept at most half full; a slot holds
   row + 1, 0 is empty. With fold set, ASCII letters hash and compare as
   lower case (the folded lookup of section 7). The strings of the rows
   come either from an array of pointers or from a pool + offsets (while a
   reader is still growing the pool). */

typedef struct ro_sgns__eval_keys {
    char *const *words; /* when not NULL, row r's string is words[r] */
    const char *pool;   /* else pool + offs[r] */
    const size_t *offs;
} ro_sgns__eval_keys;

static const char *ro_sgns__eval_key(const ro_sgns__eval_keys *k, size_t r)
{
    return k->words ? k->words[r] : k->pool + k->offs[r];
}

static unsigned char ro_sgns__eval_lower(unsigned char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

static uint64_t ro_sgns__eval_hash(const char *s, size_t len, int fold)
{
    uint64_t h = 14695981039346656037ull;
    size_t i;
    for (i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (fold) c = ro_sgns__eval_lower(c);
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

/* Does the stored NUL-terminated string equal key[0..len) (folded)? */
static int ro_sgns__eval_same(const char *stored, const char *key, size_t len, int fold)
{
    size_t i;
    for (i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)key[i];
        if (stored[i] == '\0') return 0;
        if (fold) c = ro_sgns__eval_lower(c);
        if ((unsigned char)stored[i] != c) return 0;
    }
    return stored[len] == '\0';
}

/* The slot that holds key, or the empty slot where it would go. */
static size_t ro_sgns__eval_probe(const size_t *slots, size_t mask, const ro_sgns__eval_keys *keys,
                                  const char *key, size_t len, int fold)
{
    size_t i = (size_t)ro_sgns__eval_hash(key, len, fold) & mask;
    for (;;) {
        size_t s = slots[i];
        if (s == 0 || ro_sgns__eval_same(ro_sgns__eval_key(keys, s - 1), key, len, fold)) return i;
        i = (i + 1) & mask;
    }
}

/* Table size for count entries: a power of two >= 2 count, at least 16. */
static size_t ro_sgns__eval_table_size(size_t count)
{
    size_t size = 16;
    while (size / 2 < count && size <= (size_t)-1 / 4) size *= 2;
    return size;
}

/* A fresh table of size slots holding rows [0, count) (assumed unique). */
static ro_sgns_result ro_sgns__eval_table_build(const ro_sgns_allocator *al,
                                                const ro_sgns__eval_keys *keys, size_t count,
                                                size_t size, size_t **slots_out,
                                                ro_sgns_error *err)
{
    size_t *slots = (size_t *)ro_sgns__alloc_array(al, size, 1, sizeof(size_t));
    size_t r;
    if (!slots)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "cannot allocate a hash table of %llu slots",
                             (ro_sgns__ull)size);
    memset(slots, 0, size * sizeof(size_t));
    for (r = 0; r < count; ++r) {
        const char *w = ro_sgns__eval_key(keys, r);
        slots[ro_sgns__eval_probe(slots, size - 1, keys, w, strlen(w), 0)] = r + 1;
    }
    *slots_out = slots;
    return RO_SGNS_OK;
}

/* Row of key[0..len) in v, exact bytes. */
static int ro_sgns__eval_vfind(const ro_sgns_vectors *v, const char *key, size_t len, size_t *row)
{
    size_t s;
    ro_sgns__eval_keys keys;
    if (!v || v->n == 0 || !v->words) return 0;
    if (!v->slots_) { /* a hand-made object: scan */
        for (s = 0; s < v->n; ++s)
            if (ro_sgns__eval_same(v->words[s], key, len, 0)) {
                *row = s;
                return 1;
            }
        return 0;
    }
    keys.words = v->words;
    keys.pool = NULL;
    keys.offs = NULL;
    s = v->slots_[ro_sgns__eval_probe(v->slots_, v->slot_mask_, &keys, key, len, 0)];
    if (s == 0) return 0;
    *row = s - 1;
    return 1;
}

/* Can this word be written to (and read back from) every format? */
static int ro_sgns__eval_word_ok(const char *w)
{
    const char *p;
    if (!w || !*w) return 0;
    for (p = w; *p; ++p)
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\v' || *p == '\f' || *p == '\r') return 0;
    return 1;
}

/* ---- the builder: rows appended by readers and the constructor --------- */

typedef struct ro_sgns__eval_build {
    const ro_sgns_allocator *al;
    ro_sgns__eval_strs words;
    ro_sgns_real *data;
    size_t cap; /* rows data has room for */
    size_t d;   /* 0 until known (GloVe's first line) */
    size_t *slots;
    size_t nslots;
} ro_sgns__eval_build;

static void ro_sgns__eval_build_free(ro_sgns__eval_build *b)
{
    ro_sgns__eval_strs_free(b->al, &b->words);
    ro_sgns__free(b->al, b->data);
    ro_sgns__free(b->al, b->slots);
    b->data = NULL;
    b->slots = NULL;
}

/* Append a word; *row points at its d values to fill. A word already there
   gives RO_SGNS_ERR_FORMAT with *dup = its row and no message (the caller
   says where). */
static ro_sgns_result ro_sgns__eval_build_add(ro_sgns__eval_build *b, const char *w, size_t len,
                                              ro_sgns_real **row, size_t *dup, ro_sgns_error *err)
{
    ro_sgns__eval_keys keys;
    ro_sgns_result rc;
    size_t n = b->words.n, slot;
    void *q;
    if ((n + 1) * 2 > b->nslots) { /* keep the table at most half full */
        size_t size = ro_sgns__eval_table_size(n + 1 > 512 ? 2 * (n + 1) : 512), *slots = NULL;
        keys.words = NULL;
        keys.pool = b->words.pool;
        keys.offs = b->words.offs;
        if ((rc = ro_sgns__eval_table_build(b->al, &keys, n, size, &slots, err)) != RO_SGNS_OK)
            return rc;
        ro_sgns__free(b->al, b->slots);
        b->slots = slots;
        b->nslots = size;
    }
    keys.words = NULL;
    keys.pool = b->words.pool;
    keys.offs = b->words.offs;
    slot = ro_sgns__eval_probe(b->slots, b->nslots - 1, &keys, w, len, 0);
    if (b->slots[slot]) {
        *dup = b->slots[slot] - 1;
        return RO_SGNS_ERR_FORMAT;
    }
    if (n + 1 > b->cap) {
        size_t cap = b->cap, need = n + 1;
        if ((rc = ro_sgns__eval_reserve(b->al, b->data, &cap, need, b->d * sizeof(ro_sgns_real),
                                        &q, err)) != RO_SGNS_OK)
            return rc;
        b->data = (ro_sgns_real *)q;
        b->cap = cap;
    }
    if ((rc = ro_sgns__eval_strs_add(b->al, &b->words, w, len, err)) != RO_SGNS_OK) return rc;
    b->slots[slot] = n + 1;
    *row = b->data + n * b->d;
    return RO_SGNS_OK;
}

/* Turn a complete builder into *v (the builder is emptied). */
static ro_sgns_result ro_sgns__eval_build_finish(ro_sgns__eval_build *b, ro_sgns_vectors *v,
                                                 ro_sgns_error *err)
{
    size_t n = b->words.n, i;
    char **words = (char **)ro_sgns__alloc_array(b->al, n, 1, sizeof(char *));
    void *q;
    if (!words)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "cannot allocate %llu word pointers",
                             (ro_sgns__ull)n);
    for (i = 0; i < n; ++i) words[i] = b->words.pool + b->words.offs[i];
    if (b->cap > n) { /* give back the slack of the doubling */
        q = ro_sgns__realloc(b->al, b->data, n * b->d * sizeof(ro_sgns_real));
        if (q) b->data = (ro_sgns_real *)q;
    }
    memset(v, 0, sizeof *v);
    v->n = n;
    v->d = b->d;
    v->words = words;
    v->data = b->data;
    v->pool_ = b->words.pool;
    v->slots_ = b->slots;
    v->slot_mask_ = b->nslots - 1;
    if (b->al) v->alloc_ = *b->al;
    ro_sgns__free(b->al, b->words.offs);
    memset(&b->words, 0, sizeof b->words);
    b->data = NULL;
    b->slots = NULL;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_create(ro_sgns_vectors *v, size_t n, size_t d,
                                                  const char *const *words,
                                                  const ro_sgns_real *data, size_t ldd,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    ro_sgns__eval_build b;
    ro_sgns_result rc = RO_SGNS_OK;
    size_t i, j, dup = 0;
    ro_sgns_real *row;
    void *q;
    int of = 0;
    if (!v || !words || n == 0 || d == 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors_create: need v, words, n >= 1 and d >= 1");
    if (data && ldd < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_create: ldd %llu < d %llu",
                             (ro_sgns__ull)ldd, (ro_sgns__ull)d);
    if (d > RO_SGNS_MAX_DIM)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors_create: d %llu exceeds RO_SGNS_MAX_DIM %d", (ro_sgns__ull)d,
                             (int)RO_SGNS_MAX_DIM);
    (void)ro_sgns__mul(ro_sgns__mul(n, d, &of), sizeof(ro_sgns_real), &of);
    if (of)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "vectors_create: %llu x %llu overflows",
                             (ro_sgns__ull)n, (ro_sgns__ull)d);
    for (i = 0; i < n; ++i)
        if (!ro_sgns__eval_word_ok(words[i]))
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "vectors_create: word %llu is NULL, empty or has whitespace",
                                 (ro_sgns__ull)i);
    if (data)
        for (i = 0; i < n; ++i)
            for (j = 0; j < d; ++j)
                if (!ro_sgns__is_finite((double)data[i * ldd + j]))
                    return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                         "vectors_create: NaN or Inf at row %llu ('%s'), column %llu",
                                         (ro_sgns__ull)i, words[i], (ro_sgns__ull)j);
    memset(&b, 0, sizeof b);
    b.al = alloc;
    b.d = d;
    if ((rc = ro_sgns__eval_reserve(alloc, NULL, &b.cap, n, d * sizeof(ro_sgns_real), &q, err)) !=
        RO_SGNS_OK)
        return rc;
    b.data = (ro_sgns_real *)q;
    for (i = 0; i < n; ++i) {
        rc = ro_sgns__eval_build_add(&b, words[i], strlen(words[i]), &row, &dup, err);
        if (rc == RO_SGNS_ERR_FORMAT) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                               "vectors_create: words %llu and %llu are both '%s'", (ro_sgns__ull)dup,
                               (ro_sgns__ull)i, words[i]);
            break;
        }
        if (rc != RO_SGNS_OK) break;
        if (data)
            memcpy(row, data + i * ldd, d * sizeof(ro_sgns_real));
        else
            for (j = 0; j < d; ++j) row[j] = 0;
    }
    if (rc == RO_SGNS_OK) rc = ro_sgns__eval_build_finish(&b, v, err);
    ro_sgns__eval_build_free(&b);
    return rc;
}

RO_SGNS_DEF void ro_sgns_vectors_free(ro_sgns_vectors *v)
{
    ro_sgns_allocator al;
    if (!v) return;
    al = v->alloc_;
    ro_sgns__free(&al, v->words);
    ro_sgns__free(&al, v->data);
    ro_sgns__free(&al, v->pool_);
    ro_sgns__free(&al, v->slots_);
    memset(v, 0, sizeof *v);
}

RO_SGNS_DEF int ro_sgns_vectors_find(const ro_sgns_vectors *v, const char *word, size_t *row)
{
    size_t r;
    if (!word || !ro_sgns__eval_vfind(v, word, strlen(word), &r)) return 0;
    if (row) *row = r;
    return 1;
}

RO_SGNS_DEF const ro_sgns_real *ro_sgns_vectors_get(const ro_sgns_vectors *v, const char *word)
{
    size_t r;
    if (!ro_sgns_vectors_find(v, word, &r)) return NULL;
    return v->data + r * v->d;
}

/* ---- input: a memory buffer, or a read callback refilled 64 KiB at a time */

typedef struct ro_sgns__eval_in {
    const unsigned char *buf;
    size_t len, pos;
    ro_sgns__ull base; /* stream offset of buf[0] */
    ro_sgns_read_fn read_fn;
    void *user;
    unsigned char *own; /* the refill buffer of a callback stream */
    int eof, ioerr;
} ro_sgns__eval_in;

static int ro_sgns__eval_refill(ro_sgns__eval_in *in)
{
    size_t got;
    if (!in->read_fn || in->eof || in->ioerr) return -1;
    in->base += in->len;
    in->buf = in->own;
    in->pos = in->len = 0;
    got = in->read_fn(in->user, in->own, RO_SGNS__EVAL_BUF);
    if (got == (size_t)-1 || got > RO_SGNS__EVAL_BUF) {
        in->ioerr = 1;
        return -1;
    }
    if (got == 0) {
        in->eof = 1;
        return -1;
    }
    in->len = got;
    return in->buf[in->pos++];
}

/* The next byte, or -1 at the end (or on a read error: see ioerr). */
static int ro_sgns__eval_getc(ro_sgns__eval_in *in)
{
    return in->pos < in->len ? in->buf[in->pos++] : ro_sgns__eval_refill(in);
}

/* Give back the byte just read (always possible: it is still in buf). */
static void ro_sgns__eval_unget(ro_sgns__eval_in *in, int c)
{
    if (c >= 0) in->pos--;
}

static ro_sgns__ull ro_sgns__eval_offset(const ro_sgns__eval_in *in) { return in->base + in->pos; }

/* Skip a UTF-8 byte order mark at the very start of a text file. */
static void ro_sgns__eval_skip_bom(ro_sgns__eval_in *in)
{
    int c = ro_sgns__eval_getc(in);
    ro_sgns__eval_unget(in, c);
    if (in->base == 0 && in->pos == 0 && in->len >= 3 && in->buf[0] == 0xEF && in->buf[1] == 0xBB &&
        in->buf[2] == 0xBF)
        in->pos = 3;
}

/* Blanks separate fields of a line; '\n' ends it (so CRLF is a blank + LF). */
static int ro_sgns__eval_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Skip blanks; return the next byte without taking it (-1 at the end). */
static int ro_sgns__eval_skip_blanks(ro_sgns__eval_in *in)
{
    int c;
    while ((c = ro_sgns__eval_getc(in)) >= 0 && ro_sgns__eval_blank(c)) {
    }
    ro_sgns__eval_unget(in, c);
    return c;
}

/* Take the rest of the line, '\n' included. */
static void ro_sgns__eval_skip_line(ro_sgns__eval_in *in)
{
    int c;
    while ((c = ro_sgns__eval_getc(in)) >= 0 && c != '\n') {
    }
}

#define RO_SGNS__EVAL_TOO_LONG 1
#define RO_SGNS__EVAL_HAS_NUL 2

/* Read one field (up to a blank, '\n' or the end, which stay unread) into
   tok (room for cap bytes, NUL-terminated, truncated if longer). Returns
   its full length; *flags gets TOO_LONG / HAS_NUL. */
static size_t ro_sgns__eval_field(ro_sgns__eval_in *in, char *tok, size_t cap, int *flags)
{
    size_t len = 0;
    int c;
    *flags = 0;
    while ((c = ro_sgns__eval_getc(in)) >= 0 && c != '\n' && !ro_sgns__eval_blank(c)) {
        if (c == 0) *flags |= RO_SGNS__EVAL_HAS_NUL;
        if (len + 1 < cap) tok[len] = (char)c;
        ++len;
    }
    ro_sgns__eval_unget(in, c);
    if (len + 1 > cap) *flags |= RO_SGNS__EVAL_TOO_LONG;
    tok[len + 1 < cap ? len : cap - 1] = '\0';
    return len;
}

/* ---- numbers ------------------------------------------------------------
   strtod is the parser (correctly rounded on glibc, musl, MSVC), but it
   reads the decimal point of the C locale's LC_NUMERIC: after
   setlocale(LC_ALL, "de_DE.UTF-8") it stops at the '.' of "0.5". So the
   syntax is checked here first -- [+-] digits [. digits] [e [+-] digits],
   decimal only, no hex, no "inf"/"nan", no leading blanks -- and '.' is
   replaced by localeconv()->decimal_point before strtod sees the token.
   The writers do the reverse after snprintf. */

typedef struct ro_sgns__eval_num {
    char dp[8]; /* the locale's decimal point */
    size_t dp_len;
} ro_sgns__eval_num;

static void ro_sgns__eval_num_init(ro_sgns__eval_num *nf)
{
    struct lconv *lc = localeconv();
    const char *dp = (lc && lc->decimal_point && lc->decimal_point[0]) ? lc->decimal_point : ".";
    size_t l = strlen(dp);
    if (l >= sizeof nf->dp) {
        dp = ".";
        l = 1;
    }
    memcpy(nf->dp, dp, l + 1);
    nf->dp_len = l;
}

#define RO_SGNS__EVAL_NUM_OK 0
#define RO_SGNS__EVAL_NUM_SYNTAX 1
#define RO_SGNS__EVAL_NUM_NONFINITE 2
#define RO_SGNS__EVAL_NUM_RANGE 3

static int ro_sgns__eval_digit(char c) { return c >= '0' && c <= '9'; }

static int ro_sgns__eval_number(const char *tok, size_t len, const ro_sgns__eval_num *nf,
                                double *out)
{
    char buf[RO_SGNS__EVAL_TOK * 8 + 1];
    size_t i = 0, j = 0, nd = 0, ne = 0;
    char *end;
    double x;
    if (len == 0 || len > RO_SGNS__EVAL_TOK) return RO_SGNS__EVAL_NUM_SYNTAX;
    if (tok[i] == '+' || tok[i] == '-') ++i;
    if (i < len && ((tok[i] | 32) == 'n' || (tok[i] | 32) == 'i')) {
        if (len - i >= 3 && (((tok[i] | 32) == 'n' && (tok[i + 1] | 32) == 'a' && (tok[i + 2] | 32) == 'n') ||
                             ((tok[i] | 32) == 'i' && (tok[i + 1] | 32) == 'n' && (tok[i + 2] | 32) == 'f')))
            return RO_SGNS__EVAL_NUM_NONFINITE;
        return RO_SGNS__EVAL_NUM_SYNTAX;
    }
    while (i < len && ro_sgns__eval_digit(tok[i])) ++i, ++nd;
    if (i < len && tok[i] == '.') {
        ++i;
        while (i < len && ro_sgns__eval_digit(tok[i])) ++i, ++nd;
    }
    if (nd == 0) return RO_SGNS__EVAL_NUM_SYNTAX;
    if (i < len && (tok[i] == 'e' || tok[i] == 'E')) {
        ++i;
        if (i < len && (tok[i] == '+' || tok[i] == '-')) ++i;
        while (i < len && ro_sgns__eval_digit(tok[i])) ++i, ++ne;
        if (ne == 0) return RO_SGNS__EVAL_NUM_SYNTAX;
    }
    if (i != len) return RO_SGNS__EVAL_NUM_SYNTAX;
    for (i = 0; i < len; ++i) {
        if (tok[i] == '.') {
            memcpy(buf + j, nf->dp, nf->dp_len);
            j += nf->dp_len;
        } else {
            buf[j++] = tok[i];
        }
    }
    buf[j] = '\0';
    x = strtod(buf, &end);
    if (end != buf + j) return RO_SGNS__EVAL_NUM_SYNTAX;
    if (!ro_sgns__is_finite(x)) return RO_SGNS__EVAL_NUM_RANGE;
    if (!RO_SGNS__IS_DOUBLE && (x > FLT_MAX || x < -FLT_MAX)) return RO_SGNS__EVAL_NUM_RANGE;
    *out = x;
    return RO_SGNS__EVAL_NUM_OK;
}

static const char *ro_sgns__eval_num_problem(int code)
{
    switch (code) {
    case RO_SGNS__EVAL_NUM_NONFINITE: return "NaN or Inf";
    case RO_SGNS__EVAL_NUM_RANGE: return "a number out of range";
    default: return "not a number";
    }
}

/* Read one number field of a text line into *x; on failure a FORMAT error
   naming the line. */
static ro_sgns_result ro_sgns__eval_read_number(ro_sgns__eval_in *in, const ro_sgns__eval_num *nf,
                                                ro_sgns__ull line, double *x, ro_sgns_error *err)
{
    char tok[RO_SGNS__EVAL_TOK + 1];
    int flags, code;
    size_t len = ro_sgns__eval_field(in, tok, sizeof tok, &flags);
    if (flags & RO_SGNS__EVAL_TOO_LONG)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a number longer than %d bytes",
                             line, RO_SGNS__EVAL_TOK);
    code = (flags & RO_SGNS__EVAL_HAS_NUL) ? RO_SGNS__EVAL_NUM_SYNTAX
                                           : ro_sgns__eval_number(tok, len, nf, x);
    if (code != RO_SGNS__EVAL_NUM_OK)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: %s: '%.40s'", line,
                             ro_sgns__eval_num_problem(code), tok);
    return RO_SGNS_OK;
}

/* ---- text readers (word2vec text, GloVe) -------------------------------- */

/* Read a non-negative decimal integer field (the header's V or d). */
static int ro_sgns__eval_read_count(ro_sgns__eval_in *in, ro_sgns__ull *out)
{
    ro_sgns__ull x = 0;
    int c, any = 0;
    while ((c = ro_sgns__eval_getc(in)) >= '0' && c <= '9') {
        if (x > ((ro_sgns__ull)-1 - 9) / 10) return 0;
        x = x * 10 + (ro_sgns__ull)(c - '0');
        any = 1;
    }
    ro_sgns__eval_unget(in, c);
    *out = x;
    return any;
}

/* The word2vec header line "V d" (both formats). */
static ro_sgns_result ro_sgns__eval_header(ro_sgns__eval_in *in, size_t *count, size_t *dim,
                                           ro_sgns_error *err)
{
    ro_sgns__ull V = 0, d = 0;
    int c, ok;
    ro_sgns__eval_skip_blanks(in);
    ok = ro_sgns__eval_read_count(in, &V);
    ok = ok && ro_sgns__eval_blank(ro_sgns__eval_getc(in));
    ro_sgns__eval_skip_blanks(in);
    ok = ok && ro_sgns__eval_read_count(in, &d);
    if (!ok)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "line 1: not a word2vec header 'V d' (vector count, dimension)");
    c = ro_sgns__eval_skip_blanks(in);
    if (c >= 0 && c != '\n')
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "line 1: the word2vec header 'V d' has more after d");
    (void)ro_sgns__eval_getc(in);
    if (V == 0) return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line 1: header says 0 vectors");
    if (d == 0) return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line 1: header says dimension 0");
    if (d > RO_SGNS_MAX_DIM)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "line 1: header says dimension %llu, more than RO_SGNS_MAX_DIM %d", d,
                             (int)RO_SGNS_MAX_DIM);
    if (V > (ro_sgns__ull)(size_t)-1)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line 1: header says %llu vectors", V);
    *count = (size_t)V;
    *dim = (size_t)d;
    return RO_SGNS_OK;
}

/* The text body: lines "word x1 ... xd" until target rows or the end. With
   b->d == 0 (GloVe) d is the number of fields on the first line. *line is
   the number of the next line to read. */
static ro_sgns_result ro_sgns__eval_text_body(ro_sgns__eval_in *in, ro_sgns__eval_build *b,
                                              size_t target, const ro_sgns__eval_num *nf,
                                              ro_sgns__ull *line, ro_sgns_error *err)
{
    char word[RO_SGNS_MAX_WORD + 1];
    double *first = NULL, x;
    size_t firstcap = 0, len, j, dup = 0;
    ro_sgns_real *row;
    ro_sgns_result rc = RO_SGNS_OK;
    int c, flags;
    void *q;
    while (b->words.n < target) {
        c = ro_sgns__eval_skip_blanks(in);
        if (c < 0) break;
        if (c == '\n') { /* blank line */
            (void)ro_sgns__eval_getc(in);
            ++*line;
            continue;
        }
        len = ro_sgns__eval_field(in, word, sizeof word, &flags);
        if (flags & RO_SGNS__EVAL_TOO_LONG) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a word longer than %d bytes",
                               *line, (int)RO_SGNS_MAX_WORD);
            break;
        }
        if (flags & RO_SGNS__EVAL_HAS_NUL) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a NUL byte in the word", *line);
            break;
        }
        if (b->d == 0) { /* GloVe's first line sets d */
            size_t cnt = 0;
            for (;;) {
                c = ro_sgns__eval_skip_blanks(in);
                if (c < 0 || c == '\n') break;
                if (cnt == RO_SGNS_MAX_DIM) {
                    rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                       "line %llu: more than RO_SGNS_MAX_DIM %d numbers", *line,
                                       (int)RO_SGNS_MAX_DIM);
                    break;
                }
                if ((rc = ro_sgns__eval_read_number(in, nf, *line, &x, err)) != RO_SGNS_OK) break;
                if ((rc = ro_sgns__eval_reserve(b->al, first, &firstcap, cnt + 1, sizeof(double), &q,
                                                err)) != RO_SGNS_OK)
                    break;
                first = (double *)q;
                first[cnt++] = x;
            }
            if (rc != RO_SGNS_OK) break;
            if (cnt == 0) {
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a word without numbers",
                                   *line);
                break;
            }
            b->d = cnt;
            if ((rc = ro_sgns__eval_build_add(b, word, len, &row, &dup, err)) != RO_SGNS_OK) break;
            for (j = 0; j < cnt; ++j) row[j] = (ro_sgns_real)first[j];
        } else {
            rc = ro_sgns__eval_build_add(b, word, len, &row, &dup, err);
            if (rc == RO_SGNS_ERR_FORMAT) {
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "line %llu: duplicate word '%.64s' (also vector %llu)", *line,
                                   word, (ro_sgns__ull)dup + 1);
                break;
            }
            if (rc != RO_SGNS_OK) break;
            for (j = 0; j < b->d; ++j) {
                c = ro_sgns__eval_skip_blanks(in);
                if (c < 0 || c == '\n') {
                    rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                       "line %llu: %llu numbers after the word, expected %llu",
                                       *line, (ro_sgns__ull)j, (ro_sgns__ull)b->d);
                    break;
                }
                if ((rc = ro_sgns__eval_read_number(in, nf, *line, &x, err)) != RO_SGNS_OK) break;
                row[j] = (ro_sgns_real)x;
            }
            if (rc != RO_SGNS_OK) break;
            c = ro_sgns__eval_skip_blanks(in);
            if (c >= 0 && c != '\n') {
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "line %llu: more than %llu numbers after the word%s", *line,
                                   (ro_sgns__ull)b->d,
                                   (*line == 2 && b->d == 1 && b->words.n == 2)
                                       ? " (a word2vec header read as GloVe?)"
                                       : "");
                break;
            }
        }
        (void)ro_sgns__eval_getc(in); /* the '\n' */
        ++*line;
    }
    ro_sgns__free(b->al, first);
    if (rc == RO_SGNS_OK && in->ioerr)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__eval_offset(in));
    return rc;
}

/* Is the rest of the input only blanks and newlines? */
static int ro_sgns__eval_rest_blank(ro_sgns__eval_in *in, ro_sgns__ull *line)
{
    int c;
    while ((c = ro_sgns__eval_getc(in)) >= 0) {
        if (c == '\n')
            ++*line;
        else if (!ro_sgns__eval_blank(c))
            return 0;
    }
    return 1;
}

/* ---- the binary body --------------------------------------------------- */

static ro_sgns_result ro_sgns__eval_binary_body(ro_sgns__eval_in *in, ro_sgns__eval_build *b,
                                                size_t target, size_t header_n,
                                                ro_sgns_error *err)
{
    char word[RO_SGNS_MAX_WORD + 1];
    size_t len, j, dup = 0;
    ro_sgns_real *row;
    ro_sgns_result rc;
    ro_sgns__ull at, vec = 0;
    int c, k;
    while (b->words.n < target) {
        vec = b->words.n + 1; /* 1-based number of the vector being read */
        /* the newline after the previous vector: optional (gensim writes none) */
        while ((c = ro_sgns__eval_getc(in)) == '\n' || c == '\r') {
        }
        at = ro_sgns__eval_offset(in) - (c >= 0);
        if (c < 0) goto truncated;
        len = 0;
        while (c >= 0 && c != ' ') {
            if (c == 0 || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r')
                return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                     "byte %llu: a control byte 0x%02x in word %llu",
                                     ro_sgns__eval_offset(in) - 1, (unsigned)c,
                                     (ro_sgns__ull)b->words.n + 1);
            if (len == RO_SGNS_MAX_WORD)
                return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                     "byte %llu: word %llu longer than %d bytes", at,
                                     (ro_sgns__ull)b->words.n + 1, (int)RO_SGNS_MAX_WORD);
            word[len++] = (char)c;
            c = ro_sgns__eval_getc(in);
        }
        if (c < 0) goto truncated;
        if (len == 0)
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "byte %llu: empty word (vector %llu)", at,
                                 (ro_sgns__ull)b->words.n + 1);
        word[len] = '\0';
        rc = ro_sgns__eval_build_add(b, word, len, &row, &dup, err);
        if (rc == RO_SGNS_ERR_FORMAT)
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                 "byte %llu: duplicate word '%.64s' (vectors %llu and %llu)", at,
                                 word, (ro_sgns__ull)dup + 1, (ro_sgns__ull)b->words.n + 1);
        if (rc != RO_SGNS_OK) return rc;
        for (j = 0; j < b->d; ++j) {
            uint32_t u = 0;
            float f;
            for (k = 0; k < 4; ++k) {
                if ((c = ro_sgns__eval_getc(in)) < 0) goto truncated;
                u |= (uint32_t)c << (8 * k); /* little-endian, whatever the host */
            }
            if ((u & 0x7F800000u) == 0x7F800000u)
                return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                     "byte %llu: NaN or Inf (vector %llu '%.64s', component %llu)",
                                     ro_sgns__eval_offset(in) - 4, (ro_sgns__ull)b->words.n,
                                     word, (ro_sgns__ull)j);
            memcpy(&f, &u, sizeof f); /* the bits of a uint32, not file bytes */
            row[j] = (ro_sgns_real)f;
        }
    }
    return RO_SGNS_OK;
truncated:
    if (in->ioerr)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__eval_offset(in));
    return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                         "byte %llu: truncated: the header says %llu vectors, the data ends in vector %llu",
                         ro_sgns__eval_offset(in), (ro_sgns__ull)header_n, vec);
}

/* ---- the reader all entry points share ---------------------------------- */

static ro_sgns_result ro_sgns__eval_read(ro_sgns_vectors *v, ro_sgns__eval_in *in,
                                         ro_sgns_vectors_format format, size_t limit,
                                         const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__eval_build b;
    ro_sgns__eval_num nf;
    ro_sgns_result rc = RO_SGNS_OK;
    size_t V = 0, d = 0, target;
    ro_sgns__ull line = 1;
    if (!v)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors reader: v is NULL");
    if (format != RO_SGNS_W2V_TEXT && format != RO_SGNS_W2V_BINARY && format != RO_SGNS_GLOVE_TEXT)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors reader: unknown format %d",
                             (int)format);
    memset(&b, 0, sizeof b);
    b.al = alloc;
    ro_sgns__eval_num_init(&nf);
    if (format != RO_SGNS_W2V_BINARY) ro_sgns__eval_skip_bom(in);
    if (format == RO_SGNS_GLOVE_TEXT) {
        target = limit ? limit : (size_t)-1;
        rc = ro_sgns__eval_text_body(in, &b, target, &nf, &line, err);
        if (rc == RO_SGNS_OK && b.words.n == 0)
            rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "GloVe file without vectors");
    } else {
        if ((rc = ro_sgns__eval_header(in, &V, &d, err)) != RO_SGNS_OK) return rc;
        b.d = d;
        ++line;
        target = (limit && limit < V) ? limit : V;
        if (format == RO_SGNS_W2V_TEXT) {
            rc = ro_sgns__eval_text_body(in, &b, target, &nf, &line, err);
            if (rc == RO_SGNS_OK && b.words.n < target)
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "line %llu: the header says %llu vectors, the file ends after %llu",
                                   line, (ro_sgns__ull)V, (ro_sgns__ull)b.words.n);
            if (rc == RO_SGNS_OK && target == V && !ro_sgns__eval_rest_blank(in, &line))
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "line %llu: more vectors than the %llu the header says", line,
                                   (ro_sgns__ull)V);
        } else {
            rc = ro_sgns__eval_binary_body(in, &b, target, V, err);
            if (rc == RO_SGNS_OK && target == V && !ro_sgns__eval_rest_blank(in, &line))
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "byte %llu: data after the %llu vectors the header says",
                                   ro_sgns__eval_offset(in) - 1, (ro_sgns__ull)V);
        }
    }
    if (rc == RO_SGNS_OK && in->ioerr)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__eval_offset(in));
    if (rc == RO_SGNS_OK) rc = ro_sgns__eval_build_finish(&b, v, err);
    ro_sgns__eval_build_free(&b);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_read_memory(ro_sgns_vectors *v, const void *data,
                                                       size_t size,
                                                       ro_sgns_vectors_format format,
                                                       size_t limit,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err)
{
    ro_sgns__eval_in in;
    if (!data && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_read_memory: data is NULL");
    memset(&in, 0, sizeof in);
    in.buf = (const unsigned char *)data;
    in.len = size;
    return ro_sgns__eval_read(v, &in, format, limit, alloc, err);
}

/* Set up a callback input with its refill buffer. */
static ro_sgns_result ro_sgns__eval_in_cb(ro_sgns__eval_in *in, ro_sgns_read_fn read_fn,
                                          void *user, const ro_sgns_allocator *alloc,
                                          ro_sgns_error *err)
{
    memset(in, 0, sizeof *in);
    if (!read_fn)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "reader: the read callback is NULL");
    in->own = (unsigned char *)ro_sgns__malloc(alloc, RO_SGNS__EVAL_BUF);
    if (!in->own) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "reader: no input buffer");
    in->buf = in->own;
    in->read_fn = read_fn;
    in->user = user;
    return RO_SGNS_OK;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_read_cb(ro_sgns_vectors *v, ro_sgns_read_fn read_fn,
                                                   void *user, ro_sgns_vectors_format format,
                                                   size_t limit, const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err)
{
    ro_sgns__eval_in in;
    ro_sgns_result rc = ro_sgns__eval_in_cb(&in, read_fn, user, alloc, err);
    if (rc != RO_SGNS_OK) return rc;
    rc = ro_sgns__eval_read(v, &in, format, limit, alloc, err);
    ro_sgns__free(alloc, in.own);
    return rc;
}

/* ---- writers ------------------------------------------------------------ */

typedef struct ro_sgns__eval_out {
    ro_sgns_write_fn write_fn;
    void *user;
    unsigned char *buf;
    size_t len;
    int failed;
} ro_sgns__eval_out;

static void ro_sgns__eval_flush(ro_sgns__eval_out *o)
{
    if (!o->failed && o->len && o->write_fn(o->user, o->buf, o->len) != 0) o->failed = 1;
    o->len = 0;
}

static void ro_sgns__eval_put(ro_sgns__eval_out *o, const void *p, size_t n)
{
    if (o->failed) return;
    if (o->len + n > RO_SGNS__EVAL_BUF) ro_sgns__eval_flush(o);
    if (n > RO_SGNS__EVAL_BUF) {
        if (!o->failed && o->write_fn(o->user, p, n) != 0) o->failed = 1;
        return;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* Format x with enough digits to read back bit-exactly, '.' as the
   decimal point whatever the locale; returns the length. */
static size_t ro_sgns__eval_format(char *s, size_t cap, double x, const ro_sgns__eval_num *nf)
{
    int n = RO_SGNS__IS_DOUBLE ? snprintf(s, cap, "%.17g", x) : snprintf(s, cap, "%.9g", x);
    size_t len = n < 0 ? 0 : ((size_t)n >= cap ? cap - 1 : (size_t)n), i;
    if (nf->dp_len == 1 && nf->dp[0] == '.') return len;
    for (i = 0; i + nf->dp_len <= len; ++i)
        if (memcmp(s + i, nf->dp, nf->dp_len) == 0) {
            s[i] = '.';
            memmove(s + i + 1, s + i + nf->dp_len, len - i - nf->dp_len + 1);
            len -= nf->dp_len - 1;
            break;
        }
    return len;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_write_cb(const ro_sgns_vectors *v,
                                                    ro_sgns_vectors_format format,
                                                    ro_sgns_write_fn write_fn, void *user,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err)
{
    ro_sgns__eval_out o;
    ro_sgns__eval_num nf;
    char num[64];
    size_t i, j;
    if (!v || !v->words || !v->data || v->n == 0 || v->d == 0 || !write_fn)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors writer: need a non-empty vectors object and a write callback");
    if (format != RO_SGNS_W2V_TEXT && format != RO_SGNS_W2V_BINARY && format != RO_SGNS_GLOVE_TEXT)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors writer: unknown format %d",
                             (int)format);
    /* check everything first, so a failed write leaves nothing behind */
    for (i = 0; i < v->n; ++i) {
        if (!ro_sgns__eval_word_ok(v->words[i]))
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "vectors writer: word %llu is empty or has whitespace",
                                 (ro_sgns__ull)i);
        for (j = 0; j < v->d; ++j) {
            double x = (double)v->data[i * v->d + j];
            if (!ro_sgns__is_finite(x) ||
                (format == RO_SGNS_W2V_BINARY && (x > FLT_MAX || x < -FLT_MAX)))
                return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                     "vectors writer: row %llu ('%.64s') column %llu is %s",
                                     (ro_sgns__ull)i, v->words[i], (ro_sgns__ull)j,
                                     ro_sgns__is_finite(x) ? "beyond the float32 range"
                                                           : "NaN or Inf");
        }
    }
    memset(&o, 0, sizeof o);
    o.write_fn = write_fn;
    o.user = user;
    o.buf = (unsigned char *)ro_sgns__malloc(alloc, RO_SGNS__EVAL_BUF);
    if (!o.buf) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "vectors writer: no buffer");
    ro_sgns__eval_num_init(&nf);
    if (format != RO_SGNS_GLOVE_TEXT) {
        int n = snprintf(num, sizeof num, "%llu %llu\n", (ro_sgns__ull)v->n, (ro_sgns__ull)v->d);
        ro_sgns__eval_put(&o, num, (size_t)n);
    }
    for (i = 0; i < v->n && !o.failed; ++i) {
        const ro_sgns_real *row = v->data + i * v->d;
        ro_sgns__eval_put(&o, v->words[i], strlen(v->words[i]));
        if (format == RO_SGNS_W2V_BINARY) {
            unsigned char bytes[4];
            ro_sgns__eval_put(&o, " ", 1);
            for (j = 0; j < v->d; ++j) {
                float f = (float)row[j];
                uint32_t u;
                memcpy(&u, &f, sizeof u); /* the float's bits as a uint32 ... */
                bytes[0] = (unsigned char)(u & 0xFF); /* ... written little-endian */
                bytes[1] = (unsigned char)((u >> 8) & 0xFF);
                bytes[2] = (unsigned char)((u >> 16) & 0xFF);
                bytes[3] = (unsigned char)(u >> 24);
                ro_sgns__eval_put(&o, bytes, 4);
            }
        } else {
            for (j = 0; j < v->d; ++j) {
                num[0] = ' ';
                ro_sgns__eval_put(&o, num,
                                  1 + ro_sgns__eval_format(num + 1, sizeof num - 1, (double)row[j], &nf));
            }
        }
        ro_sgns__eval_put(&o, "\n", 1);
    }
    ro_sgns__eval_flush(&o);
    ro_sgns__free(alloc, o.buf);
    if (o.failed) return ro_sgns__fail(err, RO_SGNS_ERR_IO, "vectors writer: the write callback failed");
    return ro_sgns__ok(err);
}

typedef struct ro_sgns__eval_membuf {
    const ro_sgns_allocator *al;
    unsigned char *p;
    size_t len, cap;
} ro_sgns__eval_membuf;

static int ro_sgns__eval_mem_write(void *user, const void *src, size_t size)
{
    ro_sgns__eval_membuf *m = (ro_sgns__eval_membuf *)user;
    void *q;
    if (size > (size_t)-1 - m->len) return 1;
    if (ro_sgns__eval_reserve(m->al, m->p, &m->cap, m->len + size, 1, &q, NULL) != RO_SGNS_OK)
        return 1;
    m->p = (unsigned char *)q;
    memcpy(m->p + m->len, src, size);
    m->len += size;
    return 0;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_write_memory(const ro_sgns_vectors *v,
                                                        ro_sgns_vectors_format format,
                                                        void **out, size_t *out_size,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    ro_sgns__eval_membuf m;
    ro_sgns_result rc;
    if (!out || !out_size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_write_memory: out is NULL");
    memset(&m, 0, sizeof m);
    m.al = alloc;
    rc = ro_sgns_vectors_write_cb(v, format, ro_sgns__eval_mem_write, &m, alloc, err);
    if (rc == RO_SGNS_ERR_IO)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "vectors_write_memory: out of memory");
    if (rc != RO_SGNS_OK) {
        ro_sgns__free(alloc, m.p);
        return rc;
    }
    *out = m.p;
    *out_size = m.len;
    return rc;
}

#ifndef RO_SGNS_NO_STDIO
static size_t ro_sgns__eval_file_read(void *user, void *dst, size_t size)
{
    FILE *f = (FILE *)user;
    size_t got = fread(dst, 1, size, f);
    if (got == 0 && ferror(f)) return (size_t)-1;
    return got;
}

static int ro_sgns__eval_file_write(void *user, const void *src, size_t size)
{
    return fwrite(src, 1, size, (FILE *)user) != size;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_read_file(ro_sgns_vectors *v, FILE *f,
                                                     ro_sgns_vectors_format format,
                                                     size_t limit,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_read_file: f is NULL");
    return ro_sgns_vectors_read_cb(v, ro_sgns__eval_file_read, f, format, limit, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load(ro_sgns_vectors *v, const char *path,
                                                ro_sgns_vectors_format format, size_t limit,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    FILE *f;
    ro_sgns_result rc;
    size_t plen;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_load: path is NULL");
    f = fopen(path, "rb");
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s'", path);
    rc = ro_sgns_vectors_read_file(v, f, format, limit, alloc, err);
    fclose(f);
    if (rc != RO_SGNS_OK && err) { /* prefix the file name */
        char msg[RO_SGNS_MESSAGE_SIZE];
        plen = strlen(path);
        memcpy(msg, err->message, sizeof msg);
        snprintf(err->message, sizeof err->message, "%.*s: %.128s", (int)(plen > 120 ? 120 : plen),
                 plen > 120 ? path + plen - 120 : path, msg);
    }
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_write_file(const ro_sgns_vectors *v, FILE *f,
                                                      ro_sgns_vectors_format format,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    ro_sgns_result rc;
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_write_file: f is NULL");
    rc = ro_sgns_vectors_write_cb(v, format, ro_sgns__eval_file_write, f, alloc, err);
    if (rc == RO_SGNS_OK && fflush(f) != 0)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "vectors_write_file: flush failed");
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save(const ro_sgns_vectors *v, const char *path,
                                                ro_sgns_vectors_format format,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    char *tmp;
    size_t plen;
    FILE *f;
    ro_sgns_result rc;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_save: path is NULL");
    plen = strlen(path);
    tmp = (char *)ro_sgns__malloc(alloc, plen + 5);
    if (!tmp) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "vectors_save: no memory");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    f = fopen(tmp, "wb");
    if (!f) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot create '%.200s'", tmp);
    } else {
        rc = ro_sgns_vectors_write_file(v, f, format, alloc, err);
        if (fclose(f) != 0 && rc == RO_SGNS_OK)
            rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot close '%.200s'", tmp);
        if (rc == RO_SGNS_OK) {
#ifdef _WIN32
            remove(path); /* rename() does not replace an existing file on Windows */
#endif
            if (rename(tmp, path) != 0)
                rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot rename '%.120s' to '%.120s'", tmp,
                                   path);
        }
        if (rc != RO_SGNS_OK) remove(tmp);
    }
    ro_sgns__free(alloc, tmp);
    return rc;
}
#endif /* RO_SGNS_NO_STDIO */

/* ======================================================================
   7. Evaluation
   What: the paper's "linguistic" quality measure [4.2, Table 2]:
   Spearman's rho between human similarity scores of word pairs and the
   cosines of the pairs' embeddings; and the usual companions: nearest
   neighbours by cosine [Table 3 style], and analogies a:b :: c:? by
   3CosAdd and 3CosMul (Levy and Goldberg 2014).
   Why here: scores are only comparable when the policy is the same, and
   tools differ on every point (pairs out of vocabulary dropped or scored
   0, case folding, top-N restriction, 3CosMul epsilon, query words
   excluded). Every result struct records its policy and counts, and the
   _describe functions print them with the score.
   How and cost: similarity is O(pairs d) with cosines in double and ranks
   averaged over ties (scipy's definition). Neighbours and analogies are
   many dot products with the whole vocabulary, so they are a GEMM:
   queries (unit vectors; b^ - a^ + c^ for 3CosAdd) times the matrix
   transposed, 256 queries x 1024 rows at a time, each column scaled by
   the row's inverse norm -- the matrix is never copied or normalized in
   place. O(queries n d) flops; workspace O(n + 256 (3 d + 3072)) reals.
   Invariants: a zero vector has cosine 0 with everything; ties go to the
   lower row (the more frequent word); results never depend on the order
   of blocks.
   ====================================================================== */

RO_SGNS_DEF double ro_sgns_cosine(const ro_sgns_real *a, const ro_sgns_real *b, size_t d)
{
    double ab = 0, aa = 0, bb = 0;
    size_t i;
    for (i = 0; i < d; ++i) {
        ab += (double)a[i] * (double)b[i];
        aa += (double)a[i] * (double)a[i];
        bb += (double)b[i] * (double)b[i];
    }
    if (aa == 0 || bb == 0) return 0;
    return ab / (RO_SGNS_SQRT(aa) * RO_SGNS_SQRT(bb));
}

RO_SGNS_DEF ro_sgns_result ro_sgns_pearson(size_t n, const double *x, const double *y,
                                           double *r, ro_sgns_error *err)
{
    double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0, c;
    size_t i;
    if (n < 2 || !x || !y)
        return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "correlation of %llu values", (ro_sgns__ull)n);
    for (i = 0; i < n; ++i) {
        if (!ro_sgns__is_finite(x[i]) || !ro_sgns__is_finite(y[i]))
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "correlation: NaN or Inf at %llu",
                                 (ro_sgns__ull)i);
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    for (i = 0; i < n; ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx == 0 || syy == 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "correlation: constant %s",
                             sxx == 0 ? "x" : "y");
    c = sxy / RO_SGNS_SQRT(sxx * syy);
    *r = c > 1 ? 1 : (c < -1 ? -1 : c);
    return ro_sgns__ok(err);
}

typedef struct ro_sgns__eval_rank_item {
    double v;
    size_t i;
} ro_sgns__eval_rank_item;

static int ro_sgns__eval_rank_cmp(const void *pa, const void *pb)
{
    const ro_sgns__eval_rank_item *a = (const ro_sgns__eval_rank_item *)pa;
    const ro_sgns__eval_rank_item *b = (const ro_sgns__eval_rank_item *)pb;
    if (a->v < b->v) return -1;
    if (a->v > b->v) return 1;
    return a->i < b->i ? -1 : (a->i > b->i);
}

/* Ranks 1..n of x, tied values getting the mean of the ranks they span. */
static void ro_sgns__eval_ranks(size_t n, const double *x, ro_sgns__eval_rank_item *tmp,
                                double *rank)
{
    size_t i, j, t;
    for (i = 0; i < n; ++i) {
        tmp[i].v = x[i];
        tmp[i].i = i;
    }
    qsort(tmp, n, sizeof *tmp, ro_sgns__eval_rank_cmp);
    for (i = 0; i < n; i = j + 1) {
        double avg;
        j = i;
        while (j + 1 < n && tmp[j + 1].v == tmp[i].v) ++j;
        avg = 0.5 * ((double)i + (double)j) + 1.0;
        for (t = i; t <= j; ++t) rank[tmp[t].i] = avg;
    }
}

RO_SGNS_DEF ro_sgns_result ro_sgns_spearman(size_t n, const double *x, const double *y,
                                            double *rho, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err)
{
    ro_sgns__eval_rank_item *tmp;
    double *rx, *ry;
    ro_sgns_result rc;
    size_t i;
    if (n < 2 || !x || !y)
        return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "correlation of %llu values", (ro_sgns__ull)n);
    for (i = 0; i < n; ++i)
        if (!ro_sgns__is_finite(x[i]) || !ro_sgns__is_finite(y[i]))
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "correlation: NaN or Inf at %llu",
                                 (ro_sgns__ull)i);
    tmp = (ro_sgns__eval_rank_item *)ro_sgns__alloc_array(alloc, n, 1, sizeof *tmp);
    rx = (double *)ro_sgns__alloc_array(alloc, n, 2, sizeof(double));
    if (!tmp || !rx) {
        ro_sgns__free(alloc, tmp);
        ro_sgns__free(alloc, rx);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "spearman: no memory for %llu ranks",
                             (ro_sgns__ull)n);
    }
    ry = rx + n;
    ro_sgns__eval_ranks(n, x, tmp, rx);
    ro_sgns__eval_ranks(n, y, tmp, ry);
    rc = ro_sgns_pearson(n, rx, ry, rho, err);
    ro_sgns__free(alloc, tmp);
    ro_sgns__free(alloc, rx);
    return rc;
}

/* ---- reading pair and question files ------------------------------------ */

/* The rest of the line's fields: up to maxf stored at buf + i (RO_SGNS_MAX_WORD
   + 1), lens[i] their full lengths, flags[i] TOO_LONG/HAS_NUL. Takes the
   '\n'. Returns the number of fields (may exceed maxf). */
static size_t ro_sgns__eval_fields(ro_sgns__eval_in *in, char *buf, size_t maxf, size_t *lens,
                                   int *flags)
{
    size_t nf = 0;
    int c, fl;
    char scratch[8];
    for (;;) {
        c = ro_sgns__eval_skip_blanks(in);
        if (c < 0 || c == '\n') break;
        if (nf < maxf) {
            lens[nf] = ro_sgns__eval_field(in, buf + nf * (RO_SGNS_MAX_WORD + 1), RO_SGNS_MAX_WORD + 1,
                                           &flags[nf]);
        } else {
            (void)ro_sgns__eval_field(in, scratch, sizeof scratch, &fl);
        }
        ++nf;
    }
    (void)ro_sgns__eval_getc(in);
    return nf;
}

static ro_sgns_result ro_sgns__eval_pairs_read(ro_sgns_pairs *p, ro_sgns__eval_in *in,
                                               const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__eval_strs s;
    ro_sgns__eval_num nf;
    char *buf = NULL;
    double *score = NULL, x;
    char **w = NULL;
    size_t scap = 0, nfld, lens[4], i, n = 0;
    int flags[4], c, code;
    ro_sgns__ull line = 1;
    ro_sgns_result rc = RO_SGNS_OK;
    void *q;
    if (!p) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "pairs reader: p is NULL");
    memset(&s, 0, sizeof s);
    ro_sgns__eval_num_init(&nf);
    buf = (char *)ro_sgns__alloc_array(alloc, 4, RO_SGNS_MAX_WORD + 1, 1);
    if (!buf) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "pairs reader: no memory");
    ro_sgns__eval_skip_bom(in);
    for (;; ++line) {
        c = ro_sgns__eval_skip_blanks(in);
        if (c < 0) break;
        if (c == '#' || c == '\n') {
            ro_sgns__eval_skip_line(in);
            continue;
        }
        nfld = ro_sgns__eval_fields(in, buf, 4, lens, flags);
        if (nfld < 3 || (nfld > 3 && buf[3 * (RO_SGNS_MAX_WORD + 1)] != '#')) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                               "line %llu: %llu fields, expected 'word1 word2 score'", line,
                               (ro_sgns__ull)nfld);
            goto done;
        }
        for (i = 0; i < 2; ++i)
            if (flags[i]) {
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: word %d is %s", line,
                                   (int)i + 1,
                                   (flags[i] & RO_SGNS__EVAL_TOO_LONG) ? "too long" : "has a NUL byte");
                goto done;
            }
        code = flags[2] ? RO_SGNS__EVAL_NUM_SYNTAX
                        : ro_sgns__eval_number(buf + 2 * (RO_SGNS_MAX_WORD + 1), lens[2], &nf, &x);
        if (code != RO_SGNS__EVAL_NUM_OK) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: score is %s: '%.40s'", line,
                               ro_sgns__eval_num_problem(code), buf + 2 * (RO_SGNS_MAX_WORD + 1));
            goto done;
        }
        if ((rc = ro_sgns__eval_strs_add(alloc, &s, buf, lens[0], err)) != RO_SGNS_OK ||
            (rc = ro_sgns__eval_strs_add(alloc, &s, buf + RO_SGNS_MAX_WORD + 1, lens[1], err)) !=
                RO_SGNS_OK ||
            (rc = ro_sgns__eval_reserve(alloc, score, &scap, n + 1, sizeof(double), &q, err)) !=
                RO_SGNS_OK)
            goto done;
        score = (double *)q;
        score[n++] = x;
    }
    if (in->ioerr) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__eval_offset(in));
        goto done;
    }
    if (n == 0) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "no word pairs");
        goto done;
    }
    w = (char **)ro_sgns__alloc_array(alloc, n, 2, sizeof(char *));
    if (!w) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "pairs reader: no memory");
        goto done;
    }
    for (i = 0; i < 2 * n; ++i) w[i / 2 + (i % 2) * n] = s.pool + s.offs[i];
    memset(p, 0, sizeof *p);
    p->n = n;
    p->word1 = w;
    p->word2 = w + n;
    p->score = score;
    p->pool_ = s.pool;
    if (alloc) p->alloc_ = *alloc;
    s.pool = NULL;
    score = NULL;
    rc = ro_sgns__ok(err);
done:
    ro_sgns__eval_strs_free(alloc, &s);
    ro_sgns__free(alloc, score);
    ro_sgns__free(alloc, buf);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_read_memory(ro_sgns_pairs *p, const void *data,
                                                     size_t size,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    ro_sgns__eval_in in;
    if (!data && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "pairs_read_memory: data is NULL");
    memset(&in, 0, sizeof in);
    in.buf = (const unsigned char *)data;
    in.len = size;
    return ro_sgns__eval_pairs_read(p, &in, alloc, err);
}

RO_SGNS_DEF void ro_sgns_pairs_free(ro_sgns_pairs *p)
{
    ro_sgns_allocator al;
    if (!p) return;
    al = p->alloc_;
    ro_sgns__free(&al, p->word1); /* word2 lives in the same block */
    ro_sgns__free(&al, p->score);
    ro_sgns__free(&al, p->pool_);
    memset(p, 0, sizeof *p);
}

static ro_sgns_result ro_sgns__eval_analogies_read(ro_sgns_analogies *out, ro_sgns__eval_in *in,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err)
{
    ro_sgns__eval_strs s;
    char *buf = NULL;
    size_t *first = NULL, *names = NULL, *sect = NULL, fcap = 0, ncap = 0, scap = 0;
    size_t nq = 0, ns = 0, nfld, lens[5], i, j;
    char **words = NULL, **snames = NULL;
    int flags[5], c;
    ro_sgns__ull line = 1;
    ro_sgns_result rc = RO_SGNS_OK;
    void *q;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogies reader: q is NULL");
    memset(&s, 0, sizeof s);
    buf = (char *)ro_sgns__alloc_array(alloc, 5, RO_SGNS_MAX_WORD + 1, 1);
    if (!buf) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogies reader: no memory");
    ro_sgns__eval_skip_bom(in);
    for (;; ++line) {
        c = ro_sgns__eval_skip_blanks(in);
        if (c < 0) break;
        if (c == '#' || c == '\n') {
            ro_sgns__eval_skip_line(in);
            continue;
        }
        if (c == ':') { /* ": section name": the rest of the line, trimmed */
            size_t len = 0, cap = RO_SGNS_MAX_WORD + 1;
            (void)ro_sgns__eval_getc(in);
            ro_sgns__eval_skip_blanks(in);
            while ((c = ro_sgns__eval_getc(in)) >= 0 && c != '\n') {
                if (c == 0) {
                    rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: NUL byte", line);
                    goto done;
                }
                if (len + 1 < cap) buf[len++] = (char)c;
            }
            while (len > 0 && ro_sgns__eval_blank((unsigned char)buf[len - 1])) --len;
            if ((rc = ro_sgns__eval_reserve(alloc, names, &ncap, ns + 1, sizeof(size_t), &q, err)) !=
                RO_SGNS_OK)
                goto done;
            names = (size_t *)q;
            names[ns++] = s.n;
            if ((rc = ro_sgns__eval_strs_add(alloc, &s, buf, len, err)) != RO_SGNS_OK) goto done;
            continue;
        }
        nfld = ro_sgns__eval_fields(in, buf, 5, lens, flags);
        if (nfld != 4) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                               "line %llu: %llu words, expected 4 ('a b c d': a is to b as c is to d)",
                               line, (ro_sgns__ull)nfld);
            goto done;
        }
        for (i = 0; i < 4; ++i)
            if (flags[i]) {
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: word %d is %s", line,
                                   (int)i + 1,
                                   (flags[i] & RO_SGNS__EVAL_TOO_LONG) ? "too long" : "has a NUL byte");
                goto done;
            }
        if (ns == 0) { /* questions before any section: section "" */
            if ((rc = ro_sgns__eval_reserve(alloc, names, &ncap, 1, sizeof(size_t), &q, err)) !=
                RO_SGNS_OK)
                goto done;
            names = (size_t *)q;
            names[ns++] = s.n;
            if ((rc = ro_sgns__eval_strs_add(alloc, &s, "", 0, err)) != RO_SGNS_OK) goto done;
        }
        if ((rc = ro_sgns__eval_reserve(alloc, first, &fcap, nq + 1, sizeof(size_t), &q, err)) !=
            RO_SGNS_OK)
            goto done;
        first = (size_t *)q;
        if ((rc = ro_sgns__eval_reserve(alloc, sect, &scap, nq + 1, sizeof(size_t), &q, err)) !=
            RO_SGNS_OK)
            goto done;
        sect = (size_t *)q;
        first[nq] = s.n;
        sect[nq] = ns - 1;
        ++nq;
        for (i = 0; i < 4; ++i)
            if ((rc = ro_sgns__eval_strs_add(alloc, &s, buf + i * (RO_SGNS_MAX_WORD + 1), lens[i],
                                             err)) != RO_SGNS_OK)
                goto done;
    }
    if (in->ioerr) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__eval_offset(in));
        goto done;
    }
    if (nq == 0) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "no analogy questions");
        goto done;
    }
    words = (char **)ro_sgns__alloc_array(alloc, nq, 4, sizeof(char *));
    snames = (char **)ro_sgns__alloc_array(alloc, ns, 1, sizeof(char *));
    if (!words || !snames) {
        ro_sgns__free(alloc, words);
        ro_sgns__free(alloc, snames);
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogies reader: no memory");
        goto done;
    }
    for (i = 0; i < nq; ++i)
        for (j = 0; j < 4; ++j) words[4 * i + j] = s.pool + s.offs[first[i] + j];
    for (i = 0; i < ns; ++i) snames[i] = s.pool + s.offs[names[i]];
    memset(out, 0, sizeof *out);
    out->n = nq;
    out->words = words;
    out->section = sect;
    out->nsections = ns;
    out->section_names = snames;
    out->pool_ = s.pool;
    if (alloc) out->alloc_ = *alloc;
    s.pool = NULL;
    sect = NULL;
    rc = ro_sgns__ok(err);
done:
    ro_sgns__eval_strs_free(alloc, &s);
    ro_sgns__free(alloc, buf);
    ro_sgns__free(alloc, first);
    ro_sgns__free(alloc, names);
    ro_sgns__free(alloc, sect);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_read_memory(ro_sgns_analogies *q,
                                                         const void *data, size_t size,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    ro_sgns__eval_in in;
    if (!data && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogies_read_memory: data is NULL");
    memset(&in, 0, sizeof in);
    in.buf = (const unsigned char *)data;
    in.len = size;
    return ro_sgns__eval_analogies_read(q, &in, alloc, err);
}

RO_SGNS_DEF void ro_sgns_analogies_free(ro_sgns_analogies *q)
{
    ro_sgns_allocator al;
    if (!q) return;
    al = q->alloc_;
    ro_sgns__free(&al, q->words);
    ro_sgns__free(&al, q->section);
    ro_sgns__free(&al, q->section_names);
    ro_sgns__free(&al, q->pool_);
    memset(q, 0, sizeof *q);
}

#ifndef RO_SGNS_NO_STDIO
/* Open path and run a reader over it as a stream; the file name goes in
   front of any message. */
typedef ro_sgns_result (*ro_sgns__eval_text_reader)(void *obj, ro_sgns__eval_in *in,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err);

static ro_sgns_result ro_sgns__eval_pairs_reader(void *obj, ro_sgns__eval_in *in,
                                                 const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    return ro_sgns__eval_pairs_read((ro_sgns_pairs *)obj, in, alloc, err);
}

static ro_sgns_result ro_sgns__eval_analogies_reader(void *obj, ro_sgns__eval_in *in,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    return ro_sgns__eval_analogies_read((ro_sgns_analogies *)obj, in, alloc, err);
}

static ro_sgns_result ro_sgns__eval_load(void *obj, const char *path,
                                         ro_sgns__eval_text_reader reader,
                                         const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__eval_in in;
    FILE *f;
    ro_sgns_result rc;
    size_t plen;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "load: path is NULL");
    f = fopen(path, "rb");
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s'", path);
    rc = ro_sgns__eval_in_cb(&in, ro_sgns__eval_file_read, f, alloc, err);
    if (rc == RO_SGNS_OK) rc = reader(obj, &in, alloc, err);
    ro_sgns__free(alloc, in.own);
    fclose(f);
    if (rc != RO_SGNS_OK && err) {
        char msg[RO_SGNS_MESSAGE_SIZE];
        plen = strlen(path);
        memcpy(msg, err->message, sizeof msg);
        snprintf(err->message, sizeof err->message, "%.*s: %.128s", (int)(plen > 120 ? 120 : plen),
                 plen > 120 ? path + plen - 120 : path, msg);
    }
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_load(ro_sgns_pairs *p, const char *path,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    if (!p) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "pairs_load: p is NULL");
    return ro_sgns__eval_load(p, path, ro_sgns__eval_pairs_reader, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_load(ro_sgns_analogies *q, const char *path,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    if (!q) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogies_load: q is NULL");
    return ro_sgns__eval_load(q, path, ro_sgns__eval_analogies_reader, alloc, err);
}
#endif /* RO_SGNS_NO_STDIO */

/* ---- vocabulary lookup under a policy ------------------------------------
   Rows [0, limit) count as the vocabulary. Without folding, a word is
   looked up in v's own table. With folding, a second table maps the
   lower-cased first `limit` words to the first row that folds to each, and
   canon[r] marks those rows (the others can't be an analogy answer). */

typedef struct ro_sgns__eval_lookup {
    const ro_sgns_vectors *v;
    size_t limit;
    int fold;
    char **fwords;        /* limit pointers into v->words (compared folded) */
    size_t *fslots;       /* folded table */
    size_t fmask;
    unsigned char *canon; /* limit flags */
} ro_sgns__eval_lookup;

static void ro_sgns__eval_lookup_free(ro_sgns__eval_lookup *L, const ro_sgns_allocator *al)
{
    ro_sgns__free(al, L->fwords);
    ro_sgns__free(al, L->fslots);
    ro_sgns__free(al, L->canon);
    memset(L, 0, sizeof *L);
}

static ro_sgns_result ro_sgns__eval_lookup_init(ro_sgns__eval_lookup *L, const ro_sgns_vectors *v,
                                                size_t restrict_vocab, int fold,
                                                const ro_sgns_allocator *al, ro_sgns_error *err)
{
    size_t r, size;
    memset(L, 0, sizeof *L);
    L->v = v;
    L->limit = (restrict_vocab && restrict_vocab < v->n) ? restrict_vocab : v->n;
    L->fold = fold != 0;
    if (!L->fold) return RO_SGNS_OK;
    size = ro_sgns__eval_table_size(L->limit);
    L->fslots = (size_t *)ro_sgns__alloc_array(al, size, 1, sizeof(size_t));
    L->canon = (unsigned char *)ro_sgns__malloc(al, L->limit);
    if (!L->fslots || !L->canon) {
        ro_sgns__eval_lookup_free(L, al);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "case-folded lookup: no memory");
    }
    memset(L->fslots, 0, size * sizeof(size_t));
    L->fmask = size - 1;
    for (r = 0; r < L->limit; ++r) {
        const char *w = v->words[r];
        size_t len = strlen(w), i = (size_t)ro_sgns__eval_hash(w, len, 1) & L->fmask;
        for (;;) { /* probe comparing both sides folded */
            size_t s = L->fslots[i], t;
            const char *o;
            if (s == 0) break;
            o = v->words[s - 1];
            for (t = 0; t < len && o[t] &&
                        ro_sgns__eval_lower((unsigned char)o[t]) == ro_sgns__eval_lower((unsigned char)w[t]);
                 ++t) {
            }
            if (t == len && o[t] == '\0') break;
            i = (i + 1) & L->fmask;
        }
        L->canon[r] = L->fslots[i] == 0;
        if (L->canon[r]) L->fslots[i] = r + 1;
    }
    return RO_SGNS_OK;
}

/* Row of word under the policy, or 0 when out of vocabulary. */
static int ro_sgns__eval_lookup_find(const ro_sgns__eval_lookup *L, const char *word, size_t *row)
{
    size_t len = strlen(word), i, s, t;
    if (!L->fold) {
        if (!ro_sgns__eval_vfind(L->v, word, len, &s) || s >= L->limit) return 0;
        *row = s;
        return 1;
    }
    i = (size_t)ro_sgns__eval_hash(word, len, 1) & L->fmask;
    for (;;) {
        const char *o;
        s = L->fslots[i];
        if (s == 0) return 0;
        o = L->v->words[s - 1];
        for (t = 0; t < len && o[t] &&
                    ro_sgns__eval_lower((unsigned char)o[t]) == ro_sgns__eval_lower((unsigned char)word[t]);
             ++t) {
        }
        if (t == len && o[t] == '\0') {
            *row = s - 1;
            return 1;
        }
        i = (i + 1) & L->fmask;
    }
}

static ro_sgns_result ro_sgns__eval_check_vectors(const ro_sgns_vectors *v, const char *who,
                                                  ro_sgns_error *err)
{
    if (!v || v->n == 0 || v->d == 0 || !v->data || !v->words)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: empty or NULL vectors", who);
    return RO_SGNS_OK;
}

/* ---- word similarity ---------------------------------------------------- */

RO_SGNS_DEF ro_sgns_similarity_config ro_sgns_similarity_config_default(void)
{
    ro_sgns_similarity_config c;
    memset(&c, 0, sizeof c);
    c.oov = RO_SGNS_OOV_SKIP;
    c.fold_case = 0;
    c.restrict_vocab = 0;
    return c;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval(const ro_sgns_vectors *v,
                                                   const ro_sgns_pairs *pairs,
                                                   const ro_sgns_similarity_config *cfg,
                                                   ro_sgns_similarity_result *res,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err)
{
    ro_sgns_similarity_config c = cfg ? *cfg : ro_sgns_similarity_config_default();
    ro_sgns__eval_lookup L;
    ro_sgns_similarity_result r;
    double *human = NULL, *cosv;
    size_t i, r1 = 0, r2 = 0, used = 0, oov = 0;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "similarity_eval", err)) != RO_SGNS_OK) return rc;
    if (!pairs || !res || (pairs->n && (!pairs->word1 || !pairs->word2 || !pairs->score)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "similarity_eval: NULL pairs or res");
    if (c.oov != RO_SGNS_OOV_SKIP && c.oov != RO_SGNS_OOV_ZERO)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "similarity_eval: unknown oov policy");
    if ((rc = ro_sgns__eval_lookup_init(&L, v, c.restrict_vocab, c.fold_case, alloc, err)) !=
        RO_SGNS_OK)
        return rc;
    human = (double *)ro_sgns__alloc_array(alloc, pairs->n, 2, sizeof(double));
    if (!human) {
        ro_sgns__eval_lookup_free(&L, alloc);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "similarity_eval: no memory");
    }
    cosv = human + pairs->n;
    for (i = 0; i < pairs->n; ++i) {
        int ok = ro_sgns__eval_lookup_find(&L, pairs->word1[i], &r1) &&
                 ro_sgns__eval_lookup_find(&L, pairs->word2[i], &r2);
        if (!ok) {
            ++oov;
            if (c.oov == RO_SGNS_OOV_SKIP) continue;
        }
        human[used] = pairs->score[i];
        cosv[used] = ok ? ro_sgns_cosine(v->data + r1 * v->d, v->data + r2 * v->d, v->d) : 0.0;
        ++used;
    }
    memset(&r, 0, sizeof r);
    r.pairs_total = pairs->n;
    r.pairs_used = used;
    r.pairs_oov = oov;
    r.config = c;
    r.vocab_rows = L.limit;
    rc = ro_sgns_spearman(used, human, cosv, &r.spearman, alloc, err);
    if (rc == RO_SGNS_OK) rc = ro_sgns_pearson(used, human, cosv, &r.pearson, err);
    if (rc != RO_SGNS_OK && err) {
        char msg[RO_SGNS_MESSAGE_SIZE];
        memcpy(msg, err->message, sizeof msg);
        snprintf(err->message, sizeof err->message,
                 "similarity_eval: %llu of %llu pairs out of vocabulary (%s): %.128s", (ro_sgns__ull)oov,
                 (ro_sgns__ull)pairs->n, c.oov == RO_SGNS_OOV_SKIP ? "skipped" : "scored 0", msg);
    }
    ro_sgns__free(alloc, human);
    ro_sgns__eval_lookup_free(&L, alloc);
    if (rc != RO_SGNS_OK) return rc;
    *res = r;
    return ro_sgns__ok(err);
}

#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval_file(const ro_sgns_vectors *v,
                                                        const char *path,
                                                        const ro_sgns_similarity_config *cfg,
                                                        ro_sgns_similarity_result *res,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    ro_sgns_pairs p;
    ro_sgns_result rc = ro_sgns_pairs_load(&p, path, alloc, err);
    if (rc != RO_SGNS_OK) return rc;
    rc = ro_sgns_similarity_eval(v, &p, cfg, res, alloc, err);
    ro_sgns_pairs_free(&p);
    return rc;
}
#endif

RO_SGNS_DEF int ro_sgns_similarity_describe(const ro_sgns_similarity_result *res, char *buf,
                                            size_t size)
{
    char rows[64];
    if (!res || !buf) return -1;
    if (res->vocab_rows && res->config.restrict_vocab && res->config.restrict_vocab <= res->vocab_rows)
        snprintf(rows, sizeof rows, "first %llu rows", (ro_sgns__ull)res->vocab_rows);
    else
        snprintf(rows, sizeof rows, "all %llu rows", (ro_sgns__ull)res->vocab_rows);
    if (res->config.oov == RO_SGNS_OOV_SKIP)
        return snprintf(buf, size,
                        "spearman %.4f pearson %.4f | %llu of %llu pairs used, %llu skipped (out of "
                        "vocabulary) | case folding %s | %s",
                        res->spearman, res->pearson, (ro_sgns__ull)res->pairs_used,
                        (ro_sgns__ull)res->pairs_total, (ro_sgns__ull)res->pairs_oov,
                        res->config.fold_case ? "on" : "off", rows);
    return snprintf(buf, size,
                    "spearman %.4f pearson %.4f | %llu of %llu pairs used, %llu out of vocabulary "
                    "scored 0 | case folding %s | %s",
                    res->spearman, res->pearson, (ro_sgns__ull)res->pairs_used,
                    (ro_sgns__ull)res->pairs_total, (ro_sgns__ull)res->pairs_oov,
                    res->config.fold_case ? "on" : "off", rows);
}

/* ---- blocked scoring: queries x rows through GEMM ------------------------ */

#define RO_SGNS__EVAL_QB 256  /* queries (questions) per block */
#define RO_SGNS__EVAL_NB 1024 /* matrix rows per block */

/* inv[r] = 1 / ||row r|| for r < rows (0 for a zero row). */
static void ro_sgns__eval_inv_norms(const ro_sgns_vectors *v, size_t rows, double *inv)
{
    size_t r, j;
    for (r = 0; r < rows; ++r) {
        const ro_sgns_real *x = v->data + r * v->d;
        double s = 0;
        for (j = 0; j < v->d; ++j) s += (double)x[j] * (double)x[j];
        inv[r] = s > 0 ? 1.0 / RO_SGNS_SQRT(s) : 0.0;
    }
}

/* dst = x / ||x|| (zero stays zero), d values. */
static void ro_sgns__eval_unit(const ro_sgns_real *x, size_t d, ro_sgns_real *dst)
{
    double s = 0, inv;
    size_t j;
    for (j = 0; j < d; ++j) s += (double)x[j] * (double)x[j];
    inv = s > 0 ? 1.0 / RO_SGNS_SQRT(s) : 0.0;
    for (j = 0; j < d; ++j) dst[j] = (ro_sgns_real)((double)x[j] * inv);
}

/* Is a worse than b: lower similarity, or equal and a later row? */
static int ro_sgns__eval_worse(const ro_sgns_neighbor *a, const ro_sgns_neighbor *b)
{
    return a->similarity < b->similarity || (a->similarity == b->similarity && a->row > b->row);
}

/* Min-heap of the k best so far (worst on top). */
static void ro_sgns__eval_sift_down(ro_sgns_neighbor *h, size_t size, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        ro_sgns_neighbor t;
        if (l < size && ro_sgns__eval_worse(&h[l], &h[m])) m = l;
        if (l + 1 < size && ro_sgns__eval_worse(&h[l + 1], &h[m])) m = l + 1;
        if (m == i) return;
        t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void ro_sgns__eval_heap_offer(ro_sgns_neighbor *h, size_t *size, size_t k, size_t row,
                                     double sim)
{
    ro_sgns_neighbor c;
    c.row = row;
    c.similarity = sim;
    if (*size < k) {
        size_t i = (*size)++;
        h[i] = c;
        while (i > 0 && ro_sgns__eval_worse(&h[i], &h[(i - 1) / 2])) {
            ro_sgns_neighbor t = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (ro_sgns__eval_worse(&h[0], &c)) {
        h[0] = c;
        ro_sgns__eval_sift_down(h, *size, 0);
    }
}

/* Heap -> best first. */
static void ro_sgns__eval_heap_sort(ro_sgns_neighbor *h, size_t size)
{
    while (size > 1) {
        ro_sgns_neighbor t = h[0];
        h[0] = h[size - 1];
        h[size - 1] = t;
        --size;
        ro_sgns__eval_sift_down(h, size, 0);
    }
}

RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_vectors(const ro_sgns_vectors *v, size_t nq,
                                                        const ro_sgns_real *queries,
                                                        size_t ldq, const size_t *exclude,
                                                        size_t k, ro_sgns_neighbor *out,
                                                        size_t *count,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    double *inv = NULL;
    ro_sgns_real *Q = NULL, *S = NULL;
    size_t *size = NULL, q0, qb, r0, nb, i, j, d;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "neighbors", err)) != RO_SGNS_OK) return rc;
    d = v->d;
    if (nq == 0 || k == 0) return ro_sgns__ok(err);
    if (!queries || !out || ldq < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "neighbors: NULL queries or out, or ldq < d");
    inv = (double *)ro_sgns__alloc_array(alloc, v->n, 1, sizeof(double));
    Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB, d, sizeof(ro_sgns_real));
    S = (ro_sgns_real *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB, RO_SGNS__EVAL_NB,
                                             sizeof(ro_sgns_real));
    size = (size_t *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB, 1, sizeof(size_t));
    if (!inv || !Q || !S || !size) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "neighbors: no memory for the workspace");
        goto done;
    }
    ro_sgns__eval_inv_norms(v, v->n, inv);
    for (q0 = 0; q0 < nq; q0 += qb) {
        qb = ro_sgns__min(RO_SGNS__EVAL_QB, nq - q0);
        for (i = 0; i < qb; ++i) {
            ro_sgns__eval_unit(queries + (q0 + i) * ldq, d, Q + i * d);
            size[i] = 0;
        }
        for (r0 = 0; r0 < v->n; r0 += nb) {
            nb = ro_sgns__min(RO_SGNS__EVAL_NB, v->n - r0);
            /* S = Q * rows^T: qb x nb dot products */
            rc = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, qb, nb, d, 1, Q, d, v->data + r0 * d, d,
                              0, S, nb, alloc, err);
            if (rc != RO_SGNS_OK) goto done;
            for (i = 0; i < qb; ++i) {
                size_t ex = exclude ? exclude[q0 + i] : RO_SGNS_NO_ROW;
                for (j = 0; j < nb; ++j)
                    if (r0 + j != ex)
                        ro_sgns__eval_heap_offer(out + (q0 + i) * k, &size[i], k, r0 + j,
                                                 (double)S[i * nb + j] * inv[r0 + j]);
            }
        }
        for (i = 0; i < qb; ++i) {
            ro_sgns_neighbor *h = out + (q0 + i) * k;
            ro_sgns__eval_heap_sort(h, size[i]);
            for (j = size[i]; j < k; ++j) {
                h[j].row = RO_SGNS_NO_ROW;
                h[j].similarity = 0;
            }
            if (count) count[q0 + i] = size[i];
        }
    }
    rc = ro_sgns__ok(err);
done:
    ro_sgns__free(alloc, inv);
    ro_sgns__free(alloc, Q);
    ro_sgns__free(alloc, S);
    ro_sgns__free(alloc, size);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_word(const ro_sgns_vectors *v,
                                                     const char *word, size_t k,
                                                     ro_sgns_neighbor *out, size_t *count,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    size_t row;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "neighbors_of_word", err)) != RO_SGNS_OK) return rc;
    if (!word) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "neighbors_of_word: word is NULL");
    if (!ro_sgns_vectors_find(v, word, &row))
        return ro_sgns__fail(err, RO_SGNS_ERR_NOT_FOUND, "'%.100s' is not in the vocabulary", word);
    if (k == 0) {
        if (count) *count = 0;
        return ro_sgns__ok(err);
    }
    return ro_sgns_neighbors_of_vectors(v, 1, v->data + row * v->d, v->d, &row, k, out, count,
                                        alloc, err);
}

/* ---- analogies ---------------------------------------------------------- */

RO_SGNS_DEF ro_sgns_analogy_config ro_sgns_analogy_config_default(void)
{
    ro_sgns_analogy_config c;
    memset(&c, 0, sizeof c);
    c.method = RO_SGNS_3COSADD;
    c.epsilon = 0.001;
    c.restrict_vocab = 0;
    c.fold_case = 0;
    c.exclude_query_words = 1;
    return c;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_analogy_eval(const ro_sgns_vectors *v,
                                                const ro_sgns_analogies *q,
                                                const ro_sgns_analogy_config *cfg,
                                                ro_sgns_analogy_result *res,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    ro_sgns_analogy_config c = cfg ? *cfg : ro_sgns_analogy_config_default();
    ro_sgns__eval_lookup L;
    ro_sgns_analogy_result r;
    double *inv = NULL, *best = NULL;
    ro_sgns_real *Q = NULL, *S = NULL, *tmp = NULL;
    size_t *rows = NULL, *bestrow = NULL, *qidx = NULL, names = 0;
    size_t i, j, t, d, nrows, per, nseen = 0, q0, qb, r0, nb;
    unsigned char *mem = NULL;
    ro_sgns_result rc;
    memset(&L, 0, sizeof L);
    if ((rc = ro_sgns__eval_check_vectors(v, "analogy_eval", err)) != RO_SGNS_OK) return rc;
    if (!q || !res || (q->n && (!q->words || !q->section)) || (q->nsections && !q->section_names))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogy_eval: NULL questions or res");
    if (c.method != RO_SGNS_3COSADD && c.method != RO_SGNS_3COSMUL)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogy_eval: unknown method");
    if (c.method == RO_SGNS_3COSMUL && !(c.epsilon > 0 && ro_sgns__is_finite(c.epsilon)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "analogy_eval: 3CosMul needs epsilon > 0");
    for (i = 0; i < q->n; ++i)
        if (q->section[i] >= q->nsections)
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "analogy_eval: question %llu has section %llu of %llu",
                                 (ro_sgns__ull)i, (ro_sgns__ull)q->section[i],
                                 (ro_sgns__ull)q->nsections);
    d = v->d;
    per = c.method == RO_SGNS_3COSMUL ? 3 : 1; /* query rows per question */
    memset(&r, 0, sizeof r);
    r.config = c;
    r.total = q->n;
    r.nsections = q->nsections;
    /* the result's own block: sections, then their names */
    for (i = 0; i < q->nsections; ++i) names += strlen(q->section_names[i]) + 1;
    {
        int of = 0;
        size_t bytes = ro_sgns__mul(q->nsections, sizeof(ro_sgns_analogy_section), &of);
        if (of || bytes > (size_t)-1 - names) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "analogy_eval: too many sections");
            goto done;
        }
        mem = (unsigned char *)ro_sgns__malloc(alloc, bytes + names);
        if (!mem) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogy_eval: no memory");
            goto done;
        }
        r.sections = (ro_sgns_analogy_section *)(void *)mem;
        names = bytes;
        for (i = 0; i < q->nsections; ++i) {
            size_t len = strlen(q->section_names[i]) + 1;
            memcpy(mem + names, q->section_names[i], len);
            r.sections[i].name = (const char *)(mem + names);
            r.sections[i].total = r.sections[i].seen = r.sections[i].correct = 0;
            names += len;
        }
    }
    if ((rc = ro_sgns__eval_lookup_init(&L, v, c.restrict_vocab, c.fold_case, alloc, err)) !=
        RO_SGNS_OK)
        goto done;
    nrows = L.limit;
    r.vocab_rows = nrows;
    rows = (size_t *)ro_sgns__alloc_array(alloc, q->n ? q->n : 1, 4, sizeof(size_t));
    qidx = (size_t *)ro_sgns__alloc_array(alloc, q->n ? q->n : 1, 1, sizeof(size_t));
    inv = (double *)ro_sgns__alloc_array(alloc, nrows, 1, sizeof(double));
    Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB * per, d, sizeof(ro_sgns_real));
    S = (ro_sgns_real *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB * per, RO_SGNS__EVAL_NB,
                                             sizeof(ro_sgns_real));
    tmp = (ro_sgns_real *)ro_sgns__alloc_array(alloc, 3, d, sizeof(ro_sgns_real));
    best = (double *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB, 1, sizeof(double));
    bestrow = (size_t *)ro_sgns__alloc_array(alloc, RO_SGNS__EVAL_QB, 1, sizeof(size_t));
    if (!rows || !qidx || !inv || !Q || !S || !tmp || !best || !bestrow) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogy_eval: no memory for the workspace");
        goto done;
    }
    /* resolve the words; questions with one out of vocabulary are skipped */
    for (i = 0; i < q->n; ++i) {
        int ok = 1;
        r.sections[q->section[i]].total++;
        for (j = 0; j < 4 && ok; ++j) ok = ro_sgns__eval_lookup_find(&L, q->words[4 * i + j], &rows[4 * i + j]);
        if (ok) qidx[nseen++] = i;
    }
    ro_sgns__eval_inv_norms(v, nrows, inv);
    for (q0 = 0; q0 < nseen; q0 += qb) {
        qb = ro_sgns__min(RO_SGNS__EVAL_QB, nseen - q0);
        for (i = 0; i < qb; ++i) {
            const size_t *rw = rows + 4 * qidx[q0 + i];
            for (t = 0; t < 3; ++t) ro_sgns__eval_unit(v->data + rw[t] * d, d, tmp + t * d);
            if (per == 1) /* 3CosAdd: one query b^ - a^ + c^ */
                for (j = 0; j < d; ++j) Q[i * d + j] = tmp[d + j] - tmp[j] + tmp[2 * d + j];
            else /* 3CosMul: a^, b^, c^ */
                memcpy(Q + 3 * i * d, tmp, 3 * d * sizeof(ro_sgns_real));
            best[i] = 0;
            bestrow[i] = RO_SGNS_NO_ROW;
        }
        for (r0 = 0; r0 < nrows; r0 += nb) {
            nb = ro_sgns__min(RO_SGNS__EVAL_NB, nrows - r0);
            rc = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, qb * per, nb, d, 1, Q, d,
                              v->data + r0 * d, d, 0, S, nb, alloc, err);
            if (rc != RO_SGNS_OK) goto done;
            for (i = 0; i < qb; ++i) {
                const size_t *rw = rows + 4 * qidx[q0 + i];
                for (j = 0; j < nb; ++j) {
                    size_t x = r0 + j;
                    double s;
                    if (L.fold && !L.canon[x]) continue;
                    if (c.exclude_query_words && (x == rw[0] || x == rw[1] || x == rw[2])) continue;
                    if (per == 1) {
                        s = (double)S[i * nb + j] * inv[x];
                    } else {
                        double ca = 0.5 * (1.0 + (double)S[(3 * i) * nb + j] * inv[x]);
                        double cb = 0.5 * (1.0 + (double)S[(3 * i + 1) * nb + j] * inv[x]);
                        double cc = 0.5 * (1.0 + (double)S[(3 * i + 2) * nb + j] * inv[x]);
                        s = cb * cc / (ca + c.epsilon);
                    }
                    if (bestrow[i] == RO_SGNS_NO_ROW || s > best[i]) {
                        best[i] = s;
                        bestrow[i] = x;
                    }
                }
            }
        }
        for (i = 0; i < qb; ++i) {
            size_t qi = qidx[q0 + i];
            ro_sgns_analogy_section *sec = &r.sections[q->section[qi]];
            sec->seen++;
            r.seen++;
            if (bestrow[i] == rows[4 * qi + 3]) {
                sec->correct++;
                r.correct++;
            }
        }
    }
    r.skipped = r.total - r.seen;
    r.accuracy = r.seen ? (double)r.correct / (double)r.seen : 0.0;
    r.mem_ = mem;
    if (alloc) r.alloc_ = *alloc;
    mem = NULL;
    *res = r;
    rc = ro_sgns__ok(err);
done:
    ro_sgns__eval_lookup_free(&L, alloc);
    ro_sgns__free(alloc, mem);
    ro_sgns__free(alloc, rows);
    ro_sgns__free(alloc, qidx);
    ro_sgns__free(alloc, inv);
    ro_sgns__free(alloc, Q);
    ro_sgns__free(alloc, S);
    ro_sgns__free(alloc, tmp);
    ro_sgns__free(alloc, best);
    ro_sgns__free(alloc, bestrow);
    return rc;
}

RO_SGNS_DEF void ro_sgns_analogy_result_free(ro_sgns_analogy_result *res)
{
    ro_sgns_allocator al;
    if (!res) return;
    al = res->alloc_;
    ro_sgns__free(&al, res->mem_);
    memset(res, 0, sizeof *res);
}

RO_SGNS_DEF int ro_sgns_analogy_describe(const ro_sgns_analogy_result *res, char *buf,
                                         size_t size)
{
    char method[48], rows[64];
    if (!res || !buf) return -1;
    if (res->config.method == RO_SGNS_3COSMUL)
        snprintf(method, sizeof method, "3CosMul (epsilon %g)", res->config.epsilon);
    else
        snprintf(method, sizeof method, "3CosAdd");
    if (res->config.restrict_vocab && res->config.restrict_vocab <= res->vocab_rows)
        snprintf(rows, sizeof rows, "first %llu rows", (ro_sgns__ull)res->vocab_rows);
    else
        snprintf(rows, sizeof rows, "all %llu rows", (ro_sgns__ull)res->vocab_rows);
    return snprintf(buf, size,
                    "%s: accuracy %.4f (%llu of %llu correct; %llu questions, %llu skipped: out of "
                    "vocabulary) | query words %s | case folding %s | %s",
                    method, res->accuracy, (ro_sgns__ull)res->correct, (ro_sgns__ull)res->seen,
                    (ro_sgns__ull)res->total, (ro_sgns__ull)res->skipped,
                    res->config.exclude_query_words ? "excluded" : "allowed",
                    res->config.fold_case ? "on" : "off", rows);
}
