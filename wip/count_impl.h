/* ======================================================================
   1. Counting [paper 2.1]
   WHAT: raw text -> tokens -> vocabulary (exact counts, min_count,
     max_vocab, deterministic order) -> the co-occurrence counts #(w,c) of
     words within L positions as an n x n CSR matrix, with the marginals
     #(w) = sum_c #(w,c), #(c) = sum_w #(w,c) and |D| = sum #(w,c) that the
     objective F(X) [eq. 4] and the SPPMI start [5] need. Plus the counts
     file.
   HOW, in three passes:
     (a) read: tokens are interned in an open-addressing hash table of all
         distinct words (exact 64-bit counts, never pruned) and the corpus
         is kept as a stream S of 4-byte table ids, with a LINE sentinel at
         each line break (unless cross_lines) and at both ends.
     (b) vocabulary: sort the words that reach min_count by (count desc,
         bytes asc), cut at max_vocab; rewrite S in place to vocabulary ids,
         a DROP sentinel for dropped words (or nothing, with close_gaps),
         deciding subsampling and sampled windows on the way.
     (c) pairs, row by row: a counting sort of the positions by word gives,
         for each word w, where it occurs; the contexts around those
         positions are summed into a dense accumulator of n doubles (it
         fits in L2 for n ~ 30k) with a bitmap of the touched columns, and
         the bitmap, read in order, emits row w of the CSR with ascending
         columns. No pair table, no sort of pairs, no merge: the output is
         produced in its final order.
   A MEMORY BUDGET limits the positions held at once: rows are taken in
     groups whose positions (and a bound on their new nonzeros) fit; each
     group costs one more read of S (4 bytes a position, ~50 ms per 100M
     tokens). A single word whose positions do not fit is done in pieces.
     So any budget that holds S, the vocabulary and the result finishes,
     with bitwise the same counts. There are no temporary files.
   COST: time O(bytes + tokens L + nnz + groups * tokens + n^2/64) (the last
     term is the bitmap scan, one bit per column per row); memory
     4 tokens (S) + 4 tokens (positions, fewer under a budget)
     + 12 nnz (CSR) + O(distinct words).
   INVARIANTS: S[0] = S[N-1] = LINE; every other S[p] is a vocabulary id
     (< n), DROP or LINE; a window walk stops at LINE and skips DROP;
     accumulated weights are integers (1 or L - dist + 1) held in doubles,
     exact below 2^53, so sums do not depend on their order and are divided
     by L only once, at the end, in weighted mode; acc[] and the bitmap are
     all zero between rows.
   ====================================================================== */

#define RO_SGNS__LINE 0xFFFFFFFFu /* stream sentinel: a line break or an end */
#define RO_SGNS__DROP 0xFFFFFFFEu /* stream sentinel: a dropped word */
#define RO_SGNS__MAX_IDS 0xFFFFFFFDu /* ids must stay below the sentinels */
#define RO_SGNS__RNG_BLOCK_SHIFT 16   /* tokens per random stream: 65536 */

#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS__PREFETCH(p) __builtin_prefetch(p)
#define RO_SGNS__CTZ64(x) __builtin_ctzll(x)
#else
#define RO_SGNS__PREFETCH(p) ((void)0)
static int ro_sgns__ctz64_portable(uint64_t x)
{
    int k = 0;
    while (!(x & 1u)) {
        x >>= 1;
        ++k;
    }
    return k;
}
#define RO_SGNS__CTZ64(x) ro_sgns__ctz64_portable(x)
#endif

RO_SGNS_DEF ro_sgns_count_config ro_sgns_count_config_default(void)
{
    ro_sgns_count_config c;
    memset(&c, 0, sizeof c);
    c.window = 5;
    c.min_count = 5;
    c.max_vocab = 0;
    c.dynamic_window = RO_SGNS_WINDOW_FIXED;
    c.sample = 0.0;
    c.cross_lines = 0;
    c.close_gaps = 0;
    c.memory_budget = 0;
    c.seed = 1;
    return c;
}

/* ---- memory accounting --------------------------------------------------
   Every allocation of a counting run goes through these, so that in_use is
   what the run holds and a budget can be enforced. A realloc counts only
   the new size (glibc grows large blocks with mremap, without a copy). */

typedef struct ro_sgns__mem {
    const ro_sgns_allocator *al;
    uint64_t limit; /* 0 = no limit */
    uint64_t in_use, peak;
} ro_sgns__mem;

static ro_sgns_result ro_sgns__budget_fail(const ro_sgns__mem *m, uint64_t more,
                                           const char *what, ro_sgns_error *err)
{
    return ro_sgns__fail(err, RO_SGNS_ERR_BUDGET,
                         "memory budget of %llu bytes is too small: %s needs %llu more "
                         "bytes with %llu in use; counting needs at least %llu bytes",
                         (unsigned long long)m->limit, what, (unsigned long long)more,
                         (unsigned long long)m->in_use,
                         (unsigned long long)(m->in_use + more));
}

static void *ro_sgns__mem_alloc(ro_sgns__mem *m, size_t count, size_t elem, const char *what,
                                ro_sgns_error *err, ro_sgns_result *rc)
{
    int of = 0;
    size_t bytes = ro_sgns__mul(count, elem, &of);
    void *p;
    if (of) {
        *rc = ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "%s: %llu x %llu bytes overflow",
                            what, (unsigned long long)count, (unsigned long long)elem);
        return NULL;
    }
    if (m->limit && m->in_use + bytes > m->limit) {
        *rc = ro_sgns__budget_fail(m, bytes, what, err);
        return NULL;
    }
    p = ro_sgns__malloc(m->al, bytes);
    if (!p) {
        *rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "%s: cannot allocate %llu bytes",
                            what, (unsigned long long)bytes);
        return NULL;
    }
    m->in_use += bytes;
    if (m->in_use > m->peak) m->peak = m->in_use;
    return p;
}

/* Resize p from old_count to new_count elements. On failure p is still
   valid (and still counted) and NULL is returned. */
static void *ro_sgns__mem_realloc(ro_sgns__mem *m, void *p, size_t old_count, size_t new_count,
                                  size_t elem, const char *what, ro_sgns_error *err,
                                  ro_sgns_result *rc)
{
    int of = 0;
    size_t bytes = ro_sgns__mul(new_count, elem, &of);
    size_t old_bytes = old_count * elem;
    void *q;
    if (!p) return ro_sgns__mem_alloc(m, new_count, elem, what, err, rc);
    if (of) {
        *rc = ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "%s: %llu x %llu bytes overflow",
                            what, (unsigned long long)new_count, (unsigned long long)elem);
        return NULL;
    }
    if (m->limit && bytes > old_bytes && m->in_use + (bytes - old_bytes) > m->limit) {
        *rc = ro_sgns__budget_fail(m, bytes - old_bytes, what, err);
        return NULL;
    }
    q = ro_sgns__realloc(m->al, p, bytes);
    if (!q) {
        *rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "%s: cannot grow to %llu bytes",
                            what, (unsigned long long)bytes);
        return NULL;
    }
    m->in_use = m->in_use - old_bytes + bytes;
    if (m->in_use > m->peak) m->peak = m->in_use;
    return q;
}

static void ro_sgns__mem_free(ro_sgns__mem *m, void *p, size_t count, size_t elem)
{
    if (!p) return;
    ro_sgns__free(m->al, p);
    m->in_use -= (uint64_t)count * elem;
}

/* ---- hashing of word bytes (internal; table layout only, so the host's
   byte order may show through: no result depends on it) ---------------- */

static uint64_t ro_sgns__hash_bytes(const unsigned char *p, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)len * 0xC2B2AE3D27D4EB4Full);
    uint64_t x;
    size_t i;
    while (len >= 8) {
        memcpy(&x, p, 8);
        h = (h ^ x) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    if (len) {
        x = 0;
        for (i = 0; i < len; ++i) x |= (uint64_t)p[i] << (8 * i);
        h = (h ^ x) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 29;
    }
    h = (h ^ (h >> 32)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

/* ---- the vocabulary's lookup index ---------------------------------------- */

/* Build vocab->index_ (a power-of-two table of at least 2n slots holding
   id + 1). Returns RO_SGNS_ERR_FORMAT (via *dup) when two words are equal. */
static ro_sgns_result ro_sgns__vocab_index(ro_sgns_vocab *v, ro_sgns__mem *m, size_t *dup,
                                           ro_sgns_error *err)
{
    size_t size = 16, i, mask;
    ro_sgns_result rc = RO_SGNS_OK;
    while (size < 2 * v->n) size *= 2;
    v->index_ = (uint32_t *)ro_sgns__mem_alloc(m, size, sizeof(uint32_t), "vocabulary index",
                                               err, &rc);
    if (!v->index_) return rc;
    memset(v->index_, 0, size * sizeof(uint32_t));
    v->index_mask_ = mask = size - 1;
    for (i = 0; i < v->n; ++i) {
        const unsigned char *w = (const unsigned char *)v->word[i];
        size_t j = (size_t)ro_sgns__hash_bytes(w, v->len[i]) & mask;
        while (v->index_[j]) {
            uint32_t o = v->index_[j] - 1;
            if (v->len[o] == v->len[i] && memcmp(v->word[o], w, v->len[i]) == 0) {
                *dup = i;
                return RO_SGNS_ERR_FORMAT;
            }
            j = (j + 1) & mask;
        }
        v->index_[j] = (uint32_t)(i + 1);
    }
    return RO_SGNS_OK;
}

RO_SGNS_DEF int64_t ro_sgns_vocab_find(const ro_sgns_vocab *v, const char *word, size_t len)
{
    size_t j;
    if (!v || !v->index_ || (!word && len)) return -1;
    j = (size_t)ro_sgns__hash_bytes((const unsigned char *)word, len) & v->index_mask_;
    while (v->index_[j]) {
        uint32_t o = v->index_[j] - 1;
        if (v->len[o] == len && memcmp(v->word[o], word, len) == 0) return (int64_t)o;
        j = (j + 1) & v->index_mask_;
    }
    return -1;
}

RO_SGNS_DEF void ro_sgns_counts_free(ro_sgns_counts *c)
{
    ro_sgns_allocator al;
    const ro_sgns_allocator *a;
    if (!c) return;
    al = c->alloc_;
    a = c->has_alloc_ ? &al : NULL;
    ro_sgns__free(a, c->vocab.word);
    ro_sgns__free(a, c->vocab.len);
    ro_sgns__free(a, c->vocab.count);
    ro_sgns__free(a, c->vocab.arena_);
    ro_sgns__free(a, c->vocab.index_);
    ro_sgns__free(a, c->row_ptr);
    ro_sgns__free(a, c->col);
    ro_sgns__free(a, c->val);
    ro_sgns__free(a, c->word_count);
    ro_sgns__free(a, c->ctx_count);
    ro_sgns__free(a, c);
}

/* A new, zeroed counts object that remembers its allocator. */
static ro_sgns_counts *ro_sgns__counts_new(ro_sgns__mem *m, ro_sgns_error *err,
                                           ro_sgns_result *rc)
{
    ro_sgns_counts *c = (ro_sgns_counts *)ro_sgns__mem_alloc(m, 1, sizeof(ro_sgns_counts),
                                                             "counts object", err, rc);
    if (!c) return NULL;
    memset(&c->vocab, 0, sizeof c->vocab);
    c->n = 0;
    c->nnz = 0;
    c->row_ptr = NULL;
    c->col = NULL;
    c->val = NULL;
    c->word_count = NULL;
    c->ctx_count = NULL;
    c->total = 0;
    c->corpus_tokens = 0;
    c->distinct_words = 0;
    c->config = ro_sgns_count_config_default();
    c->peak_bytes = 0;
    memset(&c->alloc_, 0, sizeof c->alloc_);
    c->has_alloc_ = 0;
    if (m->al) {
        c->alloc_ = *m->al;
        c->has_alloc_ = 1;
    }
    return c;
}

/* ---- pass (a): tokens into the table of distinct words and the stream --- */

typedef struct ro_sgns__counter {
    ro_sgns__mem mem;
    ro_sgns_count_config cfg;
    ro_sgns_error *err;
    /* table of distinct words: slot = tag << 32 | (id + 1), 0 = empty */
    uint64_t *slot;
    size_t slot_mask;
    size_t nw, wcap;    /* distinct words, capacity of the entry arrays */
    uint64_t *wcount;   /* count of each distinct word */
    size_t *woff;       /* its offset in warena */
    uint32_t *wlen;     /* its length */
    unsigned char *warena;
    size_t arena_len, arena_cap;
    /* the stream */
    uint32_t *S;
    size_t slen, scap;
    uint16_t *bw;       /* sampled half-widths per position (dynamic_window 1) */
    /* tokenizer state: the word being read (up to MAX + 1 bytes kept) */
    unsigned char word[RO_SGNS_MAX_WORD_BYTES + 1];
    size_t cur;         /* bytes of the current word seen, saturating at MAX+1 */
    uint64_t tokens;
} ro_sgns__counter;

static void ro_sgns__counter_free_table(ro_sgns__counter *k)
{
    ro_sgns__mem_free(&k->mem, k->slot, k->slot_mask + 1, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, k->wcount, k->wcap, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, k->woff, k->wcap, sizeof(size_t));
    ro_sgns__mem_free(&k->mem, k->wlen, k->wcap, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, k->warena, k->arena_cap, 1);
    k->slot = NULL;
    k->wcount = NULL;
    k->woff = NULL;
    k->wlen = NULL;
    k->warena = NULL;
}

static void ro_sgns__counter_free(ro_sgns__counter *k)
{
    ro_sgns__counter_free_table(k);
    ro_sgns__mem_free(&k->mem, k->S, k->scap, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, k->bw, k->scap, sizeof(uint16_t));
    k->S = NULL;
    k->bw = NULL;
}

static ro_sgns_result ro_sgns__push(ro_sgns__counter *k, uint32_t x)
{
    if (k->slen == k->scap) {
        ro_sgns_result rc = RO_SGNS_OK;
        size_t ncap = k->scap + k->scap / 2 + 1024;
        uint32_t *q;
        if (k->scap >= (size_t)0xFFFFFFF0u)
            return ro_sgns__fail(k->err, RO_SGNS_ERR_SIZE_OVERFLOW,
                                 "corpus too long: more than %llu tokens and line breaks",
                                 (unsigned long long)0xFFFFFFF0u);
        if (ncap > (size_t)0xFFFFFFF0u) ncap = (size_t)0xFFFFFFF0u;
        q = (uint32_t *)ro_sgns__mem_realloc(&k->mem, k->S, k->scap, ncap, sizeof(uint32_t),
                                             "token id stream", k->err, &rc);
        if (!q) return rc;
        k->S = q;
        k->scap = ncap;
    }
    k->S[k->slen++] = x;
    return RO_SGNS_OK;
}

static ro_sgns_result ro_sgns__table_grow(ro_sgns__counter *k)
{
    ro_sgns_result rc = RO_SGNS_OK;
    size_t nsize = (k->slot_mask + 1) * 2, i, nmask = nsize - 1;
    uint64_t *ns = (uint64_t *)ro_sgns__mem_alloc(&k->mem, nsize, sizeof(uint64_t),
                                                  "table of distinct words", k->err, &rc);
    if (!ns) return rc;
    memset(ns, 0, nsize * sizeof(uint64_t));
    for (i = 0; i < k->nw; ++i) {
        uint64_t h = ro_sgns__hash_bytes(k->warena + k->woff[i], k->wlen[i]);
        size_t j = (size_t)h & nmask;
        while (ns[j]) j = (j + 1) & nmask;
        ns[j] = ((h >> 32) << 32) | (uint64_t)(i + 1);
    }
    ro_sgns__mem_free(&k->mem, k->slot, k->slot_mask + 1, sizeof(uint64_t));
    k->slot = ns;
    k->slot_mask = nmask;
    return RO_SGNS_OK;
}

/* One token of len bytes (already cut): count it, append its id to S. */
static ro_sgns_result ro_sgns__token(ro_sgns__counter *k, const unsigned char *w, size_t len)
{
    uint64_t h = ro_sgns__hash_bytes(w, len);
    uint64_t tag = h >> 32;
    size_t j = (size_t)h & k->slot_mask;
    uint32_t id;
    ro_sgns_result rc = RO_SGNS_OK;
    for (;;) {
        uint64_t s = k->slot[j];
        if (!s) break;
        if ((s >> 32) == tag) {
            id = (uint32_t)s - 1;
            if (k->wlen[id] == len && memcmp(k->warena + k->woff[id], w, len) == 0) {
                ++k->wcount[id];
                ++k->tokens;
                if (k->slen < k->scap) {
                    k->S[k->slen++] = id;
                    return RO_SGNS_OK;
                }
                return ro_sgns__push(k, id);
            }
        }
        j = (j + 1) & k->slot_mask;
    }
    /* a new word */
    if (k->nw >= (size_t)RO_SGNS__MAX_IDS)
        return ro_sgns__fail(k->err, RO_SGNS_ERR_SIZE_OVERFLOW,
                             "more than %llu distinct words", (unsigned long long)RO_SGNS__MAX_IDS);
    if (k->nw == k->wcap) {
        size_t nc = k->wcap * 2;
        void *p;
        p = ro_sgns__mem_realloc(&k->mem, k->wcount, k->wcap, nc, sizeof(uint64_t),
                                 "table of distinct words", k->err, &rc);
        if (!p) return rc;
        k->wcount = (uint64_t *)p;
        p = ro_sgns__mem_realloc(&k->mem, k->woff, k->wcap, nc, sizeof(size_t),
                                 "table of distinct words", k->err, &rc);
        if (!p) return rc; /* the run fails; everything is freed by the caller */
        k->woff = (size_t *)p;
        p = ro_sgns__mem_realloc(&k->mem, k->wlen, k->wcap, nc, sizeof(uint32_t),
                                 "table of distinct words", k->err, &rc);
        if (!p) return rc;
        k->wlen = (uint32_t *)p;
        k->wcap = nc;
    }
    if (k->arena_len + len > k->arena_cap) {
        size_t nc = k->arena_cap * 2 + len;
        unsigned char *p = (unsigned char *)ro_sgns__mem_realloc(
            &k->mem, k->warena, k->arena_cap, nc, 1, "words of the vocabulary", k->err, &rc);
        if (!p) return rc;
        k->warena = p;
        k->arena_cap = nc;
    }
    if (len) memcpy(k->warena + k->arena_len, w, len);
    id = (uint32_t)k->nw;
    k->woff[id] = k->arena_len;
    k->wlen[id] = (uint32_t)len;
    k->wcount[id] = 1;
    k->arena_len += len;
    k->slot[j] = (tag << 32) | (uint64_t)(id + 1);
    ++k->nw;
    ++k->tokens;
    if ((k->nw + 1) * 2 > k->slot_mask + 1) {
        rc = ro_sgns__table_grow(k);
        if (rc != RO_SGNS_OK) return rc;
    }
    return ro_sgns__push(k, id);
}

/* The current word is complete: cut it if it is too long, count it. */
static ro_sgns_result ro_sgns__end_word(ro_sgns__counter *k)
{
    size_t len = k->cur;
    k->cur = 0;
    if (len > RO_SGNS_MAX_WORD_BYTES) {
        /* word[MAX] is the first byte cut off; if it continues a UTF-8
           character (10xxxxxx), move the cut back to that character's
           first byte, at most 3 bytes (the longest character is 4). */
        int back = 0;
        len = RO_SGNS_MAX_WORD_BYTES;
        while (back < 3 && (k->word[len] & 0xC0u) == 0x80u) {
            --len;
            ++back;
        }
    }
    return ro_sgns__token(k, k->word, len);
}

static ro_sgns_result ro_sgns__line_break(ro_sgns__counter *k)
{
    if (k->cfg.cross_lines || k->S[k->slen - 1] == RO_SGNS__LINE) return RO_SGNS_OK;
    return ro_sgns__push(k, RO_SGNS__LINE);
}

/* Feed size bytes of text. Separators: ' ', '\t', '\n'; '\r' is skipped. */
static ro_sgns_result ro_sgns__feed(ro_sgns__counter *k, const unsigned char *data, size_t size)
{
    size_t i = 0;
    ro_sgns_result rc;
    while (i < size) {
        unsigned ch = data[i];
        if (ch > ' ') {
            /* a run of ordinary word bytes */
            size_t j = i + 1, run, room;
            while (j < size && data[j] > ' ') ++j;
            run = j - i;
            room = RO_SGNS_MAX_WORD_BYTES + 1 - k->cur;
            if (run > room) run = room;
            if (run) {
                memcpy(k->word + k->cur, data + i, run);
                k->cur += run;
            }
            i = j;
            continue;
        }
        ++i;
        if (ch == ' ' || ch == '\t' || ch == '\n') {
            if (k->cur) {
                rc = ro_sgns__end_word(k);
                if (rc != RO_SGNS_OK) return rc;
            }
            if (ch == '\n') {
                rc = ro_sgns__line_break(k);
                if (rc != RO_SGNS_OK) return rc;
            }
        } else if (ch != '\r') {
            /* another control byte: part of the word, as it is */
            if (k->cur <= RO_SGNS_MAX_WORD_BYTES) k->word[k->cur++] = (unsigned char)ch;
        }
    }
    return RO_SGNS_OK;
}

/* ---- pass (b): the vocabulary ------------------------------------------- */

/* Does distinct word a come before b? Count descending, then bytes. */
static int ro_sgns__word_before(const ro_sgns__counter *k, uint32_t a, uint32_t b)
{
    size_t la, lb;
    int c;
    if (k->wcount[a] != k->wcount[b]) return k->wcount[a] > k->wcount[b];
    la = k->wlen[a];
    lb = k->wlen[b];
    c = memcmp(k->warena + k->woff[a], k->warena + k->woff[b], la < lb ? la : lb);
    if (c) return c < 0;
    return la < lb;
}

/* Bottom-up merge sort of ids (n of them) with tmp as scratch. */
static void ro_sgns__sort_words(const ro_sgns__counter *k, uint32_t *ids, uint32_t *tmp,
                                size_t n)
{
    uint32_t *src = ids, *dst = tmp, *t;
    size_t width, lo;
    for (width = 1; width < n; width *= 2) {
        for (lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = ro_sgns__word_before(k, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (j < hi) dst[o++] = src[j++];
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != ids) memcpy(ids, src, n * sizeof(uint32_t));
}

/* Choose the vocabulary, fill c->vocab, and return in *remap_out (nw
   entries) the vocabulary id of each distinct word or DROP. */
static ro_sgns_result ro_sgns__build_vocab(ro_sgns__counter *k, ro_sgns_counts *c,
                                           uint32_t **remap_out)
{
    ro_sgns_result rc = RO_SGNS_OK;
    uint64_t mc = k->cfg.min_count ? k->cfg.min_count : 1, best = 0;
    size_t ncand = 0, i, n, bytes = 0;
    uint32_t *ids, *tmp, *remap;
    ro_sgns_vocab *v = &c->vocab;
    size_t dup = 0;
    for (i = 0; i < k->nw; ++i) {
        if (k->wcount[i] >= mc) ++ncand;
        if (k->wcount[i] > best) best = k->wcount[i];
    }
    if (ncand == 0)
        return ro_sgns__fail(k->err, RO_SGNS_ERR_EMPTY,
                             "no word occurs min_count = %llu times (%llu tokens, %llu "
                             "distinct words, the most frequent occurs %llu times)",
                             (unsigned long long)mc, (unsigned long long)k->tokens,
                             (unsigned long long)k->nw, (unsigned long long)best);
    ids = (uint32_t *)ro_sgns__mem_alloc(&k->mem, ncand, sizeof(uint32_t), "vocabulary sort",
                                         k->err, &rc);
    if (!ids) return rc;
    tmp = (uint32_t *)ro_sgns__mem_alloc(&k->mem, ncand, sizeof(uint32_t), "vocabulary sort",
                                         k->err, &rc);
    if (!tmp) {
        ro_sgns__mem_free(&k->mem, ids, ncand, sizeof(uint32_t));
        return rc;
    }
    ncand = 0;
    for (i = 0; i < k->nw; ++i)
        if (k->wcount[i] >= mc) ids[ncand++] = (uint32_t)i;
    ro_sgns__sort_words(k, ids, tmp, ncand);
    ro_sgns__mem_free(&k->mem, tmp, ncand, sizeof(uint32_t));
    n = ncand;
    if (k->cfg.max_vocab && n > k->cfg.max_vocab) n = (size_t)k->cfg.max_vocab;
    for (i = 0; i < n; ++i) bytes += k->wlen[ids[i]] + 1;

    remap = (uint32_t *)ro_sgns__mem_alloc(&k->mem, k->nw, sizeof(uint32_t), "word id map",
                                           k->err, &rc);
    if (remap) v->word = (char **)ro_sgns__mem_alloc(&k->mem, n, sizeof(char *),
                                                     "vocabulary", k->err, &rc);
    if (v->word) v->len = (uint32_t *)ro_sgns__mem_alloc(&k->mem, n, sizeof(uint32_t),
                                                         "vocabulary", k->err, &rc);
    if (v->len) v->count = (uint64_t *)ro_sgns__mem_alloc(&k->mem, n, sizeof(uint64_t),
                                                          "vocabulary", k->err, &rc);
    if (v->count) v->arena_ = (char *)ro_sgns__mem_alloc(&k->mem, bytes, 1, "vocabulary",
                                                         k->err, &rc);
    if (!v->arena_) {
        ro_sgns__mem_free(&k->mem, ids, ncand, sizeof(uint32_t));
        ro_sgns__mem_free(&k->mem, remap, k->nw, sizeof(uint32_t));
        return rc;
    }
    v->n = n;
    v->arena_size_ = bytes;
    for (i = 0; i < k->nw; ++i) remap[i] = RO_SGNS__DROP;
    bytes = 0;
    for (i = 0; i < n; ++i) {
        uint32_t id = ids[i];
        remap[id] = (uint32_t)i;
        v->word[i] = v->arena_ + bytes;
        v->len[i] = k->wlen[id];
        v->count[i] = k->wcount[id];
        memcpy(v->arena_ + bytes, k->warena + k->woff[id], k->wlen[id]);
        v->arena_[bytes + k->wlen[id]] = '\0';
        bytes += k->wlen[id] + 1;
    }
    ro_sgns__mem_free(&k->mem, ids, ncand, sizeof(uint32_t));
    rc = ro_sgns__vocab_index(v, &k->mem, &dup, k->err);
    if (rc != RO_SGNS_OK) {
        ro_sgns__mem_free(&k->mem, remap, k->nw, sizeof(uint32_t));
        return rc;
    }
    *remap_out = remap;
    return RO_SGNS_OK;
}

/* Rewrite S in place from distinct-word ids to vocabulary ids, applying
   subsampling, close_gaps and the sampled half-widths; count the
   positions of each word into occ (n entries, zeroed by the caller). */
static ro_sgns_result ro_sgns__remap_stream(ro_sgns__counter *k, const ro_sgns_counts *c,
                                            const uint32_t *remap, uint32_t *occ)
{
    ro_sgns_result rc = RO_SGNS_OK;
    const ro_sgns_count_config *cfg = &k->cfg;
    size_t n = c->vocab.n, p, out = 1, i;
    uint64_t raw = 0;
    double *keep = NULL;
    ro_sgns_rng rs, rw;
    uint16_t *bw = NULL;
    uint32_t L = (uint32_t)cfg->window;
    if (cfg->sample > 0) {
        double T = 0, st;
        keep = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double), "subsampling table",
                                            k->err, &rc);
        if (!keep) return rc;
        for (i = 0; i < n; ++i) T += (double)c->vocab.count[i];
        st = cfg->sample * T;
        for (i = 0; i < n; ++i) {
            double f = (double)c->vocab.count[i];
            double q = (RO_SGNS_SQRT(f / st) + 1.0) * st / f;
            keep[i] = q;
        }
    }
    if (cfg->dynamic_window == RO_SGNS_WINDOW_SAMPLED) {
        bw = (uint16_t *)ro_sgns__mem_alloc(&k->mem, k->scap, sizeof(uint16_t),
                                            "sampled window widths", k->err, &rc);
        if (!bw) {
            ro_sgns__mem_free(&k->mem, keep, n, sizeof(double));
            return rc;
        }
        k->bw = bw;
        bw[0] = 0;
    }
    ro_sgns_rng_seed(&rs, cfg->seed, 0);
    ro_sgns_rng_seed(&rw, cfg->seed, 1);
    for (p = 1; p + 1 < k->slen; ++p) {
        uint32_t x = k->S[p], v;
        if (x == RO_SGNS__LINE) {
            if (k->S[out - 1] != RO_SGNS__LINE) k->S[out++] = RO_SGNS__LINE;
            continue;
        }
        if ((raw & ((1u << RO_SGNS__RNG_BLOCK_SHIFT) - 1)) == 0) {
            uint64_t blk = raw >> RO_SGNS__RNG_BLOCK_SHIFT;
            ro_sgns_rng_seed(&rs, cfg->seed, 2 * blk);
            ro_sgns_rng_seed(&rw, cfg->seed, 2 * blk + 1);
        }
        ++raw;
        v = remap[x];
        if (v != RO_SGNS__DROP && keep && keep[v] < ro_sgns_rng_uniform(&rs)) v = RO_SGNS__DROP;
        if (v == RO_SGNS__DROP) {
            if (!cfg->close_gaps) k->S[out++] = RO_SGNS__DROP;
            continue;
        }
        ++occ[v];
        if (bw) bw[out] = (uint16_t)(1 + ro_sgns_rng_next(&rw) % L);
        k->S[out++] = v;
    }
    k->S[out++] = RO_SGNS__LINE;
    k->slen = out;
    ro_sgns__mem_free(&k->mem, keep, n, sizeof(double));
    return RO_SGNS_OK;
}

/* ---- pass (c): pairs, row by row ----------------------------------------- */

/* Add the contexts of the np positions pos[] into acc (weights wt[dist]),
   marking first touches in the bitmap bm; returns how many were new. */
static size_t ro_sgns__gather(const uint32_t *RO_SGNS__RESTRICT S, const uint16_t *bw,
                              const uint32_t *RO_SGNS__RESTRICT pos, size_t np, uint32_t L,
                              const double *RO_SGNS__RESTRICT wt,
                              double *RO_SGNS__RESTRICT acc, uint64_t *RO_SGNS__RESTRICT bm,
                              uint32_t n)
{
    size_t i, fresh = 0;
    for (i = 0; i < np; ++i) {
        const uint32_t *s = S + pos[i];
        uint32_t b = bw ? bw[pos[i]] : L, d;
        if (i + 8 < np) RO_SGNS__PREFETCH(S + pos[i + 8]);
        for (d = 1; d <= b; ++d) {
            uint32_t x = s[0 - (ptrdiff_t)d];
            if (x >= n) {
                if (x == RO_SGNS__LINE) break;
                continue;
            }
            if (acc[x] == 0) {
                bm[x >> 6] |= (uint64_t)1 << (x & 63);
                ++fresh;
            }
            acc[x] += wt[d];
        }
        for (d = 1; d <= b; ++d) {
            uint32_t x = s[d];
            if (x >= n) {
                if (x == RO_SGNS__LINE) break;
                continue;
            }
            if (acc[x] == 0) {
                bm[x >> 6] |= (uint64_t)1 << (x & 63);
                ++fresh;
            }
            acc[x] += wt[d];
        }
    }
    return fresh;
}

typedef struct ro_sgns__pairs {
    size_t cap;   /* capacity of c->col and c->val */
    double *acc;  /* n */
    uint64_t *bm; /* (n + 63) / 64 */
    double *ctx;  /* column sums in weight units */
    size_t touched; /* columns touched in the current row */
} ro_sgns__pairs;

static ro_sgns_result ro_sgns__out_reserve(ro_sgns__counter *k, ro_sgns_counts *c,
                                           ro_sgns__pairs *pr, size_t cap)
{
    ro_sgns_result rc = RO_SGNS_OK;
    void *p;
    if (cap == pr->cap) return RO_SGNS_OK;
    p = ro_sgns__mem_realloc(&k->mem, c->col, pr->cap, cap, sizeof(uint32_t),
                             "co-occurrence matrix", k->err, &rc);
    if (!p) return rc;
    c->col = (uint32_t *)p;
    p = ro_sgns__mem_realloc(&k->mem, c->val, pr->cap, cap, sizeof(double),
                             "co-occurrence matrix", k->err, &rc);
    if (!p) return rc; /* the run fails and frees both; col's size no longer matters */
    c->val = (double *)p;
    pr->cap = cap;
    return RO_SGNS_OK;
}

/* Emit the accumulated row w (pr->touched columns) into c. */
static ro_sgns_result ro_sgns__emit_row(ro_sgns__counter *k, ro_sgns_counts *c,
                                        ro_sgns__pairs *pr, size_t w)
{
    size_t nb = (c->n + 63) / 64, i;
    uint64_t nnz = c->nnz;
    double rs = 0;
    uint32_t *col;
    double *val;
    if (nnz + pr->touched > pr->cap) {
        /* only without a budget (with one, the group reserved room) */
        size_t want = pr->cap + pr->cap / 2 + 1024;
        ro_sgns_result rc;
        if (want < nnz + pr->touched) want = (size_t)nnz + pr->touched;
        rc = ro_sgns__out_reserve(k, c, pr, want);
        if (rc != RO_SGNS_OK) return rc;
    }
    col = c->col;
    val = c->val;
    for (i = 0; i < nb && pr->touched; ++i) {
        uint64_t m = pr->bm[i];
        if (!m) continue;
        pr->bm[i] = 0;
        do {
            uint32_t x = (uint32_t)(i * 64 + (size_t)RO_SGNS__CTZ64(m));
            double v = pr->acc[x];
            pr->acc[x] = 0;
            col[nnz] = x;
            val[nnz] = v;
            pr->ctx[x] += v;
            rs += v;
            ++nnz;
            --pr->touched;
            m &= m - 1;
        } while (m);
    }
    c->nnz = nnz;
    c->row_ptr[w + 1] = nnz;
    c->word_count[w] = rs;
    return RO_SGNS_OK;
}

/* The bound on the nonzeros of a row with o positions. */
static uint64_t ro_sgns__row_bound(uint64_t o, uint32_t L, size_t n)
{
    uint64_t b = o * 2u * L;
    return b < n ? b : (uint64_t)n;
}

static ro_sgns_result ro_sgns__count_pairs(ro_sgns__counter *k, ro_sgns_counts *c,
                                           const uint32_t *occ)
{
    ro_sgns_result rc = RO_SGNS_OK;
    const ro_sgns_count_config *cfg = &k->cfg;
    size_t n = c->n, nb = (n + 63) / 64, w, a, pcap = 0;
    uint32_t L = (uint32_t)cfg->window, d;
    uint32_t *pos = NULL, *offs = NULL;
    double *wts = NULL;
    uint64_t total_occ = 0;
    const uint32_t *S = k->S;
    size_t N = k->slen;
    ro_sgns__pairs pr;
    memset(&pr, 0, sizeof pr);
    for (w = 0; w < n; ++w) total_occ += occ[w];

    wts = (double *)ro_sgns__mem_alloc(&k->mem, (size_t)L + 1, sizeof(double), "window weights",
                                       k->err, &rc);
    if (wts) pr.acc = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double),
                                                   "row accumulator", k->err, &rc);
    if (pr.acc) pr.bm = (uint64_t *)ro_sgns__mem_alloc(&k->mem, nb, sizeof(uint64_t),
                                                       "row accumulator", k->err, &rc);
    if (pr.bm) offs = (uint32_t *)ro_sgns__mem_alloc(&k->mem, n + 1, sizeof(uint32_t),
                                                     "row offsets", k->err, &rc);
    if (offs) c->row_ptr = (uint64_t *)ro_sgns__mem_alloc(&k->mem, n + 1, sizeof(uint64_t),
                                                          "co-occurrence matrix", k->err, &rc);
    if (c->row_ptr) c->word_count = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double),
                                                                 "marginals", k->err, &rc);
    if (c->word_count) c->ctx_count = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double),
                                                                   "marginals", k->err, &rc);
    if (!c->ctx_count) goto done;
    pr.ctx = c->ctx_count;
    for (d = 0; d <= L; ++d)
        wts[d] = cfg->dynamic_window == RO_SGNS_WINDOW_WEIGHTED ? (double)(L - d + 1) : 1.0;
    memset(pr.acc, 0, n * sizeof(double));
    memset(pr.bm, 0, nb * sizeof(uint64_t));
    memset(pr.ctx, 0, n * sizeof(double));
    c->row_ptr[0] = 0;
    c->nnz = 0;

    if (!k->mem.limit) {
        /* everything in one group: the positions of every word at once */
        pcap = total_occ ? (size_t)total_occ : 1;
        pos = (uint32_t *)ro_sgns__mem_alloc(&k->mem, pcap, sizeof(uint32_t), "positions",
                                             k->err, &rc);
        if (!pos) goto done;
    }

    for (a = 0; a < n;) {
        size_t b = a, g, p;
        uint64_t gocc = 0, gbound = 0;
        int piecewise = 0;
        if (!k->mem.limit) {
            b = n;
            gocc = total_occ;
        } else {
            /* Free the positions, fit the output to what it holds, then take
               rows while their positions and output bound fit. */
            uint64_t avail;
            ro_sgns__mem_free(&k->mem, pos, pcap, sizeof(uint32_t));
            pos = NULL;
            rc = ro_sgns__out_reserve(k, c, &pr, (size_t)c->nnz);
            if (rc != RO_SGNS_OK) goto done;
            avail = k->mem.limit > k->mem.in_use ? k->mem.limit - k->mem.in_use : 0;
            while (b < n) {
                uint64_t o = occ[b], rb = ro_sgns__row_bound(o, L, n);
                uint64_t cost = 4 * (gocc + o) + 12 * (gbound + rb);
                if (cost > avail) break;
                gocc += o;
                gbound += rb;
                ++b;
            }
            if (b == a) {
                /* one row alone does not fit: do it in pieces */
                uint64_t rb = ro_sgns__row_bound(occ[a], L, n);
                if (avail < 12 * rb + 4) {
                    rc = ro_sgns__budget_fail(&k->mem, 12 * rb + 4 - avail,
                                              "the co-occurrences of one word", k->err);
                    goto done;
                }
                piecewise = 1;
                b = a + 1;
                gocc = (avail - 12 * rb) / 4;
                if (gocc > occ[a]) gocc = occ[a];
                gbound = rb;
            }
            rc = ro_sgns__out_reserve(k, c, &pr, (size_t)(c->nnz + gbound));
            if (rc != RO_SGNS_OK) goto done;
            pcap = gocc ? (size_t)gocc : 1;
            pos = (uint32_t *)ro_sgns__mem_alloc(&k->mem, pcap, sizeof(uint32_t), "positions",
                                                 k->err, &rc);
            if (!pos) goto done;
        }
        if (piecewise) {
            /* the positions of word a, pcap at a time */
            uint32_t wa = (uint32_t)a;
            size_t q = 1;
            pr.touched = 0;
            while (q + 1 < N) {
                size_t np = 0;
                while (q + 1 < N && np < pcap) {
                    if (S[q] == wa) pos[np++] = (uint32_t)q;
                    ++q;
                }
                pr.touched += ro_sgns__gather(S, k->bw, pos, np, L, wts, pr.acc, pr.bm,
                                              (uint32_t)n);
            }
            rc = ro_sgns__emit_row(k, c, &pr, a);
            if (rc != RO_SGNS_OK) goto done;
            a = b;
            continue;
        }
        /* counting sort of the positions of rows [a, b) */
        {
            uint32_t o = 0, lo = (uint32_t)a, span = (uint32_t)(b - a);
            for (g = 0; g < b - a; ++g) {
                offs[g] = o;
                o += occ[a + g];
            }
            offs[b - a] = o;
            for (p = 1; p + 1 < N; ++p) {
                uint32_t x = S[p] - lo;
                if (x < span) pos[offs[x]++] = (uint32_t)p;
            }
            /* offs[g] is now the end of row a+g, i.e. the start of a+g+1 */
            for (g = 0; g < b - a; ++g) {
                uint32_t start = g ? offs[g - 1] : 0;
                pr.touched = ro_sgns__gather(S, k->bw, pos + start, offs[g] - start, L, wts,
                                             pr.acc, pr.bm, (uint32_t)n);
                rc = ro_sgns__emit_row(k, c, &pr, a + g);
                if (rc != RO_SGNS_OK) goto done;
            }
        }
        a = b;
    }
    /* shrink the output to its size */
    rc = ro_sgns__out_reserve(k, c, &pr, (size_t)c->nnz);
done:
    ro_sgns__mem_free(&k->mem, pos, pcap, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, offs, n + 1, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, pr.bm, nb, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, pr.acc, n, sizeof(double));
    ro_sgns__mem_free(&k->mem, wts, (size_t)L + 1, sizeof(double));
    return rc;
}

/* ---- the counting run ------------------------------------------------------ */

static ro_sgns_result ro_sgns__check_count_config(const ro_sgns_count_config *cfg,
                                                  ro_sgns_error *err)
{
    if (cfg->window < 1 || cfg->window > 65535)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "window = %d: must be 1 .. 65535", cfg->window);
    if (cfg->dynamic_window < 0 || cfg->dynamic_window > 2)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "dynamic_window = %d: must be 0 (fixed), 1 (sampled) or 2 "
                             "(weighted)", cfg->dynamic_window);
    if (!(cfg->sample >= 0) || !ro_sgns__is_finite(cfg->sample))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "sample = %g: must be finite and >= 0 (0 = off)", cfg->sample);
    return RO_SGNS_OK;
}

/* Count from a memory block (read == NULL) or from a reader. */
static ro_sgns_result ro_sgns__count_run(const void *text, size_t size, ro_sgns_read_fn read,
                                         void *user, const ro_sgns_count_config *config,
                                         ro_sgns_counts **out, const ro_sgns_allocator *alloc,
                                         ro_sgns_error *err)
{
    ro_sgns__counter k;
    ro_sgns_counts *c = NULL;
    ro_sgns_result rc = RO_SGNS_OK;
    uint32_t *remap = NULL, *occ = NULL;
    unsigned char *block = NULL;
    size_t block_size = (size_t)1 << 18, nw = 0, w;
    uint64_t bytes_read = 0;

    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!read && !text && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "text is NULL, size %llu",
                             (unsigned long long)size);
    memset(&k, 0, sizeof k);
    k.cfg = config ? *config : ro_sgns_count_config_default();
    rc = ro_sgns__check_count_config(&k.cfg, err);
    if (rc != RO_SGNS_OK) return rc;
    k.mem.al = alloc;
    k.mem.limit = k.cfg.memory_budget;
    k.err = err;

    /* (a) read */
    k.slot_mask = 1023;
    k.wcap = 256;
    k.arena_cap = 4096;
    k.scap = 4096;
    k.slot = (uint64_t *)ro_sgns__mem_alloc(&k.mem, k.slot_mask + 1, sizeof(uint64_t),
                                            "table of distinct words", err, &rc);
    if (k.slot) k.wcount = (uint64_t *)ro_sgns__mem_alloc(&k.mem, k.wcap, sizeof(uint64_t),
                                                          "table of distinct words", err, &rc);
    if (k.wcount) k.woff = (size_t *)ro_sgns__mem_alloc(&k.mem, k.wcap, sizeof(size_t),
                                                        "table of distinct words", err, &rc);
    if (k.woff) k.wlen = (uint32_t *)ro_sgns__mem_alloc(&k.mem, k.wcap, sizeof(uint32_t),
                                                        "table of distinct words", err, &rc);
    if (k.wlen) k.warena = (unsigned char *)ro_sgns__mem_alloc(&k.mem, k.arena_cap, 1,
                                                               "words", err, &rc);
    if (k.warena) k.S = (uint32_t *)ro_sgns__mem_alloc(&k.mem, k.scap, sizeof(uint32_t),
                                                       "token id stream", err, &rc);
    if (!k.S) goto fail;
    memset(k.slot, 0, (k.slot_mask + 1) * sizeof(uint64_t));
    k.S[k.slen++] = RO_SGNS__LINE;
    if (!read) {
        rc = ro_sgns__feed(&k, (const unsigned char *)text, size);
        if (rc != RO_SGNS_OK) goto fail;
    } else {
        block = (unsigned char *)ro_sgns__mem_alloc(&k.mem, block_size, 1, "read buffer", err,
                                                    &rc);
        if (!block) goto fail;
        for (;;) {
            size_t got = read(user, block, block_size);
            if (got == 0) break;
            if (got > block_size) {
                rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read failed after %llu bytes",
                                   (unsigned long long)bytes_read);
                goto fail;
            }
            bytes_read += got;
            rc = ro_sgns__feed(&k, block, got);
            if (rc != RO_SGNS_OK) goto fail;
        }
        ro_sgns__mem_free(&k.mem, block, block_size, 1);
        block = NULL;
    }
    if (k.cur) {
        rc = ro_sgns__end_word(&k);
        if (rc != RO_SGNS_OK) goto fail;
    }
    rc = ro_sgns__push(&k, RO_SGNS__LINE);
    if (rc != RO_SGNS_OK) goto fail;
    if (k.tokens == 0) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "empty input: no tokens");
        goto fail;
    }

    /* (b) vocabulary, then the table of distinct words goes */
    c = ro_sgns__counts_new(&k.mem, err, &rc);
    if (!c) goto fail;
    c->config = k.cfg;
    c->corpus_tokens = k.tokens;
    c->distinct_words = nw = k.nw;
    rc = ro_sgns__build_vocab(&k, c, &remap);
    if (rc != RO_SGNS_OK) goto fail;
    ro_sgns__counter_free_table(&k);
    c->n = c->vocab.n;
    occ = (uint32_t *)ro_sgns__mem_alloc(&k.mem, c->n, sizeof(uint32_t), "word positions",
                                         err, &rc);
    if (!occ) goto fail;
    memset(occ, 0, c->n * sizeof(uint32_t));
    rc = ro_sgns__remap_stream(&k, c, remap, occ);
    if (rc != RO_SGNS_OK) goto fail;
    ro_sgns__mem_free(&k.mem, remap, nw, sizeof(uint32_t));
    remap = NULL;

    /* (c) pairs */
    rc = ro_sgns__count_pairs(&k, c, occ);
    if (rc != RO_SGNS_OK) goto fail;
    ro_sgns__mem_free(&k.mem, occ, c->n, sizeof(uint32_t));
    occ = NULL;
    if (c->nnz == 0) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY,
                           "no co-occurring pairs: %llu tokens, %llu vocabulary words, no "
                           "two of them within window %d", (unsigned long long)k.tokens,
                           (unsigned long long)c->n, k.cfg.window);
        goto fail;
    }
    /* totals, exact in weight units; the weighted mode divides once */
    c->total = 0;
    for (w = 0; w < c->n; ++w) c->total += c->word_count[w];
    if (k.cfg.dynamic_window == RO_SGNS_WINDOW_WEIGHTED) {
        double L = (double)k.cfg.window;
        uint64_t i;
        for (i = 0; i < c->nnz; ++i) c->val[i] /= L;
        for (w = 0; w < c->n; ++w) {
            c->word_count[w] /= L;
            c->ctx_count[w] /= L;
        }
        c->total /= L;
    }
    c->peak_bytes = k.mem.peak;
    ro_sgns__counter_free(&k);
    *out = c;
    return ro_sgns__ok(err);

fail:
    ro_sgns__mem_free(&k.mem, block, block_size, 1);
    ro_sgns__mem_free(&k.mem, remap, nw, sizeof(uint32_t));
    ro_sgns__mem_free(&k.mem, occ, c ? c->vocab.n : 0, sizeof(uint32_t));
    ro_sgns__counter_free(&k);
    ro_sgns_counts_free(c);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_count_buffer(const void *text, size_t size,
                                                const ro_sgns_count_config *config,
                                                ro_sgns_counts **out,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    return ro_sgns__count_run(text, size, NULL, NULL, config, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_count_callback(ro_sgns_read_fn read, void *user,
                                                  const ro_sgns_count_config *config,
                                                  ro_sgns_counts **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    if (!read) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "read is NULL");
    return ro_sgns__count_run(NULL, 0, read, user, config, out, alloc, err);
}

#ifndef RO_SGNS_NO_STDIO
static size_t ro_sgns__fread_fn(void *user, void *buf, size_t size)
{
    FILE *f = (FILE *)user;
    size_t got = fread(buf, 1, size, f);
    if (got == 0 && ferror(f)) return (size_t)-1;
    return got;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_count_file(FILE *f, const ro_sgns_count_config *config,
                                              ro_sgns_counts **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "FILE is NULL");
    return ro_sgns__count_run(NULL, 0, ro_sgns__fread_fn, f, config, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_count_path(const char *path,
                                              const ro_sgns_count_config *config,
                                              ro_sgns_counts **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    FILE *f;
    ro_sgns_result rc;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "path is NULL");
    f = fopen(path, "rb");
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%s' for reading", path);
    rc = ro_sgns__count_run(NULL, 0, ro_sgns__fread_fn, f, config, out, alloc, err);
    if (rc == RO_SGNS_ERR_IO && err)
        ro_sgns__fail(err, RO_SGNS_ERR_IO, "reading '%s' failed", path);
    fclose(f);
    return rc;
}
#endif

RO_SGNS_DEF ro_sgns_memory_estimate ro_sgns_estimate_memory(uint64_t n_words, uint64_t nnz,
                                                            size_t d, uint64_t n_tokens,
                                                            uint64_t n_distinct)
{
    ro_sgns_memory_estimate e;
    uint64_t n = n_words, vocab, reading, pairs, idx = 16;
    while (idx < 2 * n) idx *= 2;
    /* vocabulary: pointers, lengths, counts, ~8 bytes of words, index */
    vocab = n * (sizeof(char *) + 4 + 8 + 8) + 4 * idx;
    e.counts = 12 * nnz + 8 * (n + 1) + 16 * n + vocab + sizeof(ro_sgns_counts);
    /* reading: the id stream and the table of distinct words (slots at
       load <= 1/2, 8 + 8 + 4 bytes of entry, ~8 bytes of word, growth) */
    reading = 4 * n_tokens + n_distinct * (2 * 8 * 2 + 20 * 2 + 8 * 2);
    /* pairs: id stream, positions, accumulator + bitmap, counters, result */
    pairs = e.counts + 4 * n_tokens + 4 * n_tokens + 8 * n + n / 8 + 8 * n;
    e.counting = reading > pairs ? reading : pairs;
    e.training = e.counts + 12 * nnz + 6 * n * (uint64_t)d * sizeof(ro_sgns_real) +
                 2 * 256 * n * sizeof(ro_sgns_real) + 32 * (uint64_t)d * d;
    e.peak = e.counting > e.training ? e.counting : e.training;
    e.file_bytes = 112 + 12 * n + 8 * n /* words, ~8 bytes each */ + 8 * (n + 1) +
                   12 * nnz + 16 * n + 8;
    return e;
}

/* ---- the counts file ------------------------------------------------------- */

#define RO_SGNS__CK_INIT 0x84222325CBF29CE4ull
#define RO_SGNS__CK_MUL 0x100000001B3ull
#define RO_SGNS__COUNTS_VERSION 1u
#define RO_SGNS__COUNTS_HEADER 112u

/* The checksum over a byte stream, fed in pieces of any size. */
typedef struct ro_sgns__ck {
    uint64_t h, word, count;
    unsigned fill; /* bytes in word */
} ro_sgns__ck;

static void ro_sgns__ck_init(ro_sgns__ck *ck)
{
    ck->h = RO_SGNS__CK_INIT;
    ck->word = 0;
    ck->count = 0;
    ck->fill = 0;
}

static void ro_sgns__ck_update(ro_sgns__ck *ck, const unsigned char *p, size_t len)
{
    uint64_t h = ck->h;
    ck->count += len;
    while (len && ck->fill) {
        ck->word |= (uint64_t)*p++ << (8 * ck->fill);
        --len;
        if (++ck->fill == 8) {
            h = (h ^ ck->word) * RO_SGNS__CK_MUL;
            ck->word = 0;
            ck->fill = 0;
        }
    }
    while (len >= 8) {
        uint64_t x = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                     (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
                     (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
        h = (h ^ x) * RO_SGNS__CK_MUL;
        p += 8;
        len -= 8;
    }
    while (len) {
        ck->word |= (uint64_t)*p++ << (8 * ck->fill);
        ++ck->fill;
        --len;
    }
    ck->h = h;
}

static uint64_t ro_sgns__ck_final(const ro_sgns__ck *ck)
{
    uint64_t h = ck->h;
    if (ck->fill) h = (h ^ ck->word) * RO_SGNS__CK_MUL;
    return (h ^ ck->count) * RO_SGNS__CK_MUL;
}

static uint64_t ro_sgns__f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u); /* the value's bits, not its bytes in memory */
    return u;
}

static double ro_sgns__f64_from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t ro_sgns__get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ro_sgns__get_u64(const unsigned char *p)
{
    return (uint64_t)ro_sgns__get_u32(p) | (uint64_t)ro_sgns__get_u32(p + 4) << 32;
}

static void ro_sgns__put_u32(unsigned char *p, uint32_t x)
{
    p[0] = (unsigned char)x;
    p[1] = (unsigned char)(x >> 8);
    p[2] = (unsigned char)(x >> 16);
    p[3] = (unsigned char)(x >> 24);
}

static void ro_sgns__put_u64(unsigned char *p, uint64_t x)
{
    ro_sgns__put_u32(p, (uint32_t)x);
    ro_sgns__put_u32(p + 4, (uint32_t)(x >> 32));
}

/* A buffered writer that checksums what it writes. */
#define RO_SGNS__IO_BUF 8192
typedef struct ro_sgns__writer {
    ro_sgns_write_fn fn;
    void *user;
    unsigned char buf[RO_SGNS__IO_BUF];
    size_t len;
    int failed;
    ro_sgns__ck ck;
} ro_sgns__writer;

static void ro_sgns__w_flush(ro_sgns__writer *wr)
{
    if (wr->len && !wr->failed) {
        ro_sgns__ck_update(&wr->ck, wr->buf, wr->len);
        if (wr->fn(wr->user, wr->buf, wr->len) != 0) wr->failed = 1;
    }
    wr->len = 0;
}

/* Room for m more bytes (m <= RO_SGNS__IO_BUF); returns where to put them. */
static unsigned char *ro_sgns__w_room(ro_sgns__writer *wr, size_t m)
{
    unsigned char *p;
    if (wr->len + m > RO_SGNS__IO_BUF) ro_sgns__w_flush(wr);
    p = wr->buf + wr->len;
    wr->len += m;
    return p;
}

static void ro_sgns__w_u32(ro_sgns__writer *wr, uint32_t x)
{
    ro_sgns__put_u32(ro_sgns__w_room(wr, 4), x);
}

static void ro_sgns__w_u64(ro_sgns__writer *wr, uint64_t x)
{
    ro_sgns__put_u64(ro_sgns__w_room(wr, 8), x);
}

static void ro_sgns__w_f64(ro_sgns__writer *wr, double x)
{
    ro_sgns__w_u64(wr, ro_sgns__f64_bits(x));
}

static void ro_sgns__w_bytes(ro_sgns__writer *wr, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    while (len) {
        size_t m = len < RO_SGNS__IO_BUF ? len : RO_SGNS__IO_BUF;
        memcpy(ro_sgns__w_room(wr, m), p, m);
        p += m;
        len -= m;
    }
}

static uint64_t ro_sgns__word_bytes(const ro_sgns_counts *c)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < c->vocab.n; ++i) s += c->vocab.len[i];
    return s;
}

RO_SGNS_DEF uint64_t ro_sgns_counts_file_size(const ro_sgns_counts *c)
{
    uint64_t n;
    if (!c) return 0;
    n = c->n;
    return RO_SGNS__COUNTS_HEADER + 12 * n + ro_sgns__word_bytes(c) + 8 * (n + 1) +
           12 * c->nnz + 16 * n + 8;
}

static ro_sgns_result ro_sgns__check_counts_arg(const ro_sgns_counts *c, ro_sgns_error *err)
{
    if (!c) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "counts is NULL");
    if (c->n == 0 || c->n != c->vocab.n || !c->row_ptr || (c->nnz && (!c->col || !c->val)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "counts object is incomplete");
    return RO_SGNS_OK;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_callback(const ro_sgns_counts *c,
                                                        ro_sgns_write_fn write, void *user,
                                                        ro_sgns_error *err)
{
    ro_sgns__writer wr;
    const ro_sgns_count_config *g;
    unsigned char *h;
    size_t i;
    uint64_t k;
    ro_sgns_result rc = ro_sgns__check_counts_arg(c, err);
    if (rc != RO_SGNS_OK) return rc;
    if (!write) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "write is NULL");
    g = &c->config;
    wr.fn = write;
    wr.user = user;
    wr.len = 0;
    wr.failed = 0;
    ro_sgns__ck_init(&wr.ck);
    h = ro_sgns__w_room(&wr, RO_SGNS__COUNTS_HEADER);
    memcpy(h, "ROSGNSCT", 8);
    ro_sgns__put_u32(h + 8, RO_SGNS__COUNTS_VERSION);
    ro_sgns__put_u32(h + 12, 0);
    ro_sgns__put_u64(h + 16, c->n);
    ro_sgns__put_u64(h + 24, c->nnz);
    ro_sgns__put_u64(h + 32, c->corpus_tokens);
    ro_sgns__put_u64(h + 40, c->distinct_words);
    ro_sgns__put_u64(h + 48, ro_sgns__word_bytes(c));
    ro_sgns__put_u32(h + 56, (uint32_t)g->window);
    ro_sgns__put_u32(h + 60, (uint32_t)g->dynamic_window);
    ro_sgns__put_u64(h + 64, g->min_count);
    ro_sgns__put_u64(h + 72, g->max_vocab);
    ro_sgns__put_u64(h + 80, ro_sgns__f64_bits(g->sample));
    ro_sgns__put_u32(h + 88, g->cross_lines ? 1u : 0u);
    ro_sgns__put_u32(h + 92, g->close_gaps ? 1u : 0u);
    ro_sgns__put_u64(h + 96, g->seed);
    ro_sgns__put_u64(h + 104, ro_sgns__f64_bits(c->total));
    for (i = 0; i < c->n; ++i) {
        ro_sgns__w_u32(&wr, c->vocab.len[i]);
        ro_sgns__w_bytes(&wr, c->vocab.word[i], c->vocab.len[i]);
        ro_sgns__w_u64(&wr, c->vocab.count[i]);
    }
    for (i = 0; i <= c->n; ++i) ro_sgns__w_u64(&wr, c->row_ptr[i]);
    for (k = 0; k < c->nnz; ++k) ro_sgns__w_u32(&wr, c->col[k]);
    for (k = 0; k < c->nnz; ++k) ro_sgns__w_f64(&wr, c->val[k]);
    for (i = 0; i < c->n; ++i) ro_sgns__w_f64(&wr, c->word_count[i]);
    for (i = 0; i < c->n; ++i) ro_sgns__w_f64(&wr, c->ctx_count[i]);
    ro_sgns__w_flush(&wr);
    if (!wr.failed) {
        unsigned char t[8];
        ro_sgns__put_u64(t, ro_sgns__ck_final(&wr.ck));
        if (write(user, t, 8) != 0) wr.failed = 1;
    }
    if (wr.failed) return ro_sgns__fail(err, RO_SGNS_ERR_IO, "writing the counts failed");
    return ro_sgns__ok(err);
}

typedef struct ro_sgns__membuf {
    unsigned char *p;
    size_t len, cap;
} ro_sgns__membuf;

static int ro_sgns__membuf_write(void *user, const void *data, size_t size)
{
    ro_sgns__membuf *m = (ro_sgns__membuf *)user;
    if (size > m->cap - m->len) return 1;
    memcpy(m->p + m->len, data, size);
    m->len += size;
    return 0;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_buffer(const ro_sgns_counts *c, void *buf,
                                                      size_t capacity, size_t *written,
                                                      ro_sgns_error *err)
{
    ro_sgns__membuf m;
    uint64_t need;
    ro_sgns_result rc = ro_sgns__check_counts_arg(c, err);
    if (rc != RO_SGNS_OK) return rc;
    need = ro_sgns_counts_file_size(c);
    if (!buf || capacity < need)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "buffer of %llu bytes too small: the counts need %llu",
                             (unsigned long long)capacity, (unsigned long long)need);
    m.p = (unsigned char *)buf;
    m.len = 0;
    m.cap = capacity;
    rc = ro_sgns_counts_save_callback(c, ro_sgns__membuf_write, &m, err);
    if (rc == RO_SGNS_OK && written) *written = m.len;
    return rc;
}

/* A buffered reader that tracks the byte offset and the checksum. With
   mem set it reads from memory and knows how much is left. */
typedef struct ro_sgns__reader {
    ro_sgns_read_fn fn;
    void *user;
    const unsigned char *mem;
    size_t mem_size;
    unsigned char buf[RO_SGNS__IO_BUF];
    size_t pos, len;     /* unread bytes are buf[pos, len) (or mem[offset..]) */
    uint64_t offset;     /* bytes consumed */
    ro_sgns__ck ck;
    ro_sgns_error *err;
} ro_sgns__reader;

/* Make m (<= RO_SGNS__IO_BUF) bytes available and return them, or NULL
   (and an error) when the input ends first. Consume them with _take. */
static const unsigned char *ro_sgns__r_peek(ro_sgns__reader *r, size_t m, const char *what,
                                            ro_sgns_result *rc)
{
    if (r->mem) {
        if (r->mem_size - r->offset < m) {
            *rc = ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                                "truncated at offset %llu: %s needs %llu bytes, the input "
                                "ends at %llu", (unsigned long long)r->offset, what,
                                (unsigned long long)m, (unsigned long long)r->mem_size);
            return NULL;
        }
        return r->mem + r->offset;
    }
    if (r->len - r->pos < m) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        while (r->len < m) {
            size_t got = r->fn(r->user, r->buf + r->len, RO_SGNS__IO_BUF - r->len);
            if (got == (size_t)-1 || got > RO_SGNS__IO_BUF - r->len) {
                *rc = ro_sgns__fail(r->err, RO_SGNS_ERR_IO, "read failed at offset %llu",
                                    (unsigned long long)(r->offset + r->len));
                return NULL;
            }
            if (got == 0) {
                *rc = ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                                    "truncated at offset %llu: %s needs %llu bytes, the "
                                    "input ends at %llu", (unsigned long long)r->offset,
                                    what, (unsigned long long)m,
                                    (unsigned long long)(r->offset + r->len));
                return NULL;
            }
            r->len += got;
        }
    }
    return r->buf + r->pos;
}

static void ro_sgns__r_take(ro_sgns__reader *r, size_t m, int checksum)
{
    const unsigned char *p = r->mem ? r->mem + r->offset : r->buf + r->pos;
    if (checksum) ro_sgns__ck_update(&r->ck, p, m);
    if (!r->mem) r->pos += m;
    r->offset += m;
}

/* Is it plausible that count elements of elem bytes follow? With a memory
   source this is exact; a stream is trusted and read in pieces. */
static ro_sgns_result ro_sgns__r_need(ro_sgns__reader *r, uint64_t count, uint64_t elem,
                                      const char *what)
{
    if (r->mem && (elem && count > (r->mem_size - r->offset) / elem))
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "truncated at offset %llu: %s needs %llu x %llu bytes, the "
                             "input ends at %llu", (unsigned long long)r->offset, what,
                             (unsigned long long)count, (unsigned long long)elem,
                             (unsigned long long)r->mem_size);
    return RO_SGNS_OK;
}

/* A growing array for the loader: never allocates much more than the bytes
   seen so far, so a corrupt size in a header cannot ask for terabytes. */
static void *ro_sgns__r_grow(ro_sgns__reader *r, ro_sgns__mem *m, void *p, size_t *cap,
                             size_t need, size_t total, size_t elem, const char *what,
                             ro_sgns_result *rc)
{
    size_t nc;
    void *q;
    if (need <= *cap) return p;
    nc = *cap * 2 > need ? *cap * 2 : need;
    if (nc < 4096) nc = 4096;
    if (r->mem || nc > total) nc = total; /* memory sources were size-checked */
    q = ro_sgns__mem_realloc(m, p, *cap, nc, elem, what, r->err, rc);
    if (!q) return NULL;
    *cap = nc;
    return q;
}

static ro_sgns_result ro_sgns__bad(ro_sgns__reader *r, uint64_t at, const char *fmt, ...)
    RO_SGNS__PRINTF(3, 4);
static ro_sgns_result ro_sgns__bad(ro_sgns__reader *r, uint64_t at, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT, "corrupt counts at offset %llu: %s",
                         (unsigned long long)at, what);
}

static ro_sgns_result ro_sgns__load(ro_sgns__reader *r, ro_sgns_counts **out,
                                    const ro_sgns_allocator *alloc)
{
    ro_sgns__mem m;
    ro_sgns_counts *c = NULL;
    ro_sgns_result rc = RO_SGNS_OK;
    const unsigned char *h;
    uint64_t n, nnz, word_bytes, sum = 0, k, prev;
    size_t i, cap_w = 0, cap_l = 0, cap_c = 0, cap_a = 0, cap_r = 0, cap_col = 0, cap_val = 0,
              cap_wc = 0, cap_cc = 0, dup = 0;
    uint32_t wnd, dyn, cl, cg, flags, version;
    double sample, total;
    ro_sgns_error *err = r->err;

    memset(&m, 0, sizeof m);
    m.al = alloc;
    ro_sgns__ck_init(&r->ck);
    h = ro_sgns__r_peek(r, RO_SGNS__COUNTS_HEADER, "the header", &rc);
    if (!h) return rc;
    if (memcmp(h, "ROSGNSCT", 8) != 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "not a counts file: bad magic at offset 0 (want \"ROSGNSCT\")");
    version = ro_sgns__get_u32(h + 8);
    flags = ro_sgns__get_u32(h + 12);
    n = ro_sgns__get_u64(h + 16);
    nnz = ro_sgns__get_u64(h + 24);
    word_bytes = ro_sgns__get_u64(h + 48);
    wnd = ro_sgns__get_u32(h + 56);
    dyn = ro_sgns__get_u32(h + 60);
    sample = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 80));
    cl = ro_sgns__get_u32(h + 88);
    cg = ro_sgns__get_u32(h + 92);
    total = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 104));
    if (version != RO_SGNS__COUNTS_VERSION)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "unsupported counts format version %u at offset 8 (this "
                             "library reads version %u)", version, RO_SGNS__COUNTS_VERSION);
    if (flags) return ro_sgns__bad(r, 12, "flags %u, want 0", flags);
    if (n == 0 || n > RO_SGNS__MAX_IDS || n > (size_t)-1 / 16)
        return ro_sgns__bad(r, 16, "vocabulary size n = %llu out of range 1..%u",
                            (unsigned long long)n, RO_SGNS__MAX_IDS);
    if (nnz > n * n) return ro_sgns__bad(r, 24, "nnz = %llu > n^2 = %llu", (unsigned long long)nnz,
                                     (unsigned long long)(n * n));
    if (nnz > (size_t)-1 / 16) return ro_sgns__bad(r, 24, "nnz = %llu too large", (unsigned long long)nnz);
    if (word_bytes < n || word_bytes > n * RO_SGNS_MAX_WORD_BYTES)
        return ro_sgns__bad(r, 48, "word bytes %llu, want n .. %d x n",
                            (unsigned long long)word_bytes, RO_SGNS_MAX_WORD_BYTES);
    if (wnd < 1 || wnd > 65535) return ro_sgns__bad(r, 56, "window %u", wnd);
    if (dyn > 2) return ro_sgns__bad(r, 60, "dynamic_window %u", dyn);
    if (!(sample >= 0) || !ro_sgns__is_finite(sample))
        return ro_sgns__bad(r, 80, "sample is negative or not finite");
    if (cl > 1) return ro_sgns__bad(r, 88, "cross_lines %u", cl);
    if (cg > 1) return ro_sgns__bad(r, 92, "close_gaps %u", cg);
    if (!(total > 0) || !ro_sgns__is_finite(total))
        return ro_sgns__bad(r, 104, "total is not a positive finite number");

    c = ro_sgns__counts_new(&m, err, &rc);
    if (!c) return rc;
    c->n = (size_t)n;
    c->nnz = nnz;
    c->corpus_tokens = ro_sgns__get_u64(h + 32);
    c->distinct_words = ro_sgns__get_u64(h + 40);
    c->config.window = (int)wnd;
    c->config.dynamic_window = (int)dyn;
    c->config.min_count = ro_sgns__get_u64(h + 64);
    c->config.max_vocab = ro_sgns__get_u64(h + 72);
    c->config.sample = sample;
    c->config.cross_lines = (int)cl;
    c->config.close_gaps = (int)cg;
    c->config.seed = ro_sgns__get_u64(h + 96);
    c->config.memory_budget = 0;
    c->total = total;
    ro_sgns__r_take(r, RO_SGNS__COUNTS_HEADER, 1);

    /* vocabulary */
    rc = ro_sgns__r_need(r, n, 12, "the vocabulary");
    if (rc == RO_SGNS_OK) rc = ro_sgns__r_need(r, word_bytes + 12 * n, 1, "the vocabulary");
    if (rc != RO_SGNS_OK) goto fail;
    for (i = 0; i < n; ++i) {
        uint64_t at = r->offset;
        uint32_t len;
        const unsigned char *p = ro_sgns__r_peek(r, 4, "a word length", &rc);
        if (!p) goto fail;
        len = ro_sgns__get_u32(p);
        if (len < 1 || len > RO_SGNS_MAX_WORD_BYTES) {
            rc = ro_sgns__bad(r, at, "word %llu has length %u", (unsigned long long)i, len);
            goto fail;
        }
        if (sum + len > word_bytes) {
            rc = ro_sgns__bad(r, at, "words are longer than the header's %llu bytes",
                              (unsigned long long)word_bytes);
            goto fail;
        }
        ro_sgns__r_take(r, 4, 1);
        p = ro_sgns__r_peek(r, (size_t)len + 8, "a word", &rc);
        if (!p) goto fail;
        c->vocab.word = (char **)ro_sgns__r_grow(r, &m, c->vocab.word, &cap_w, i + 1,
                                                 (size_t)n, sizeof(char *), "vocabulary", &rc);
        if (!c->vocab.word) goto fail;
        c->vocab.len = (uint32_t *)ro_sgns__r_grow(r, &m, c->vocab.len, &cap_l, i + 1,
                                                   (size_t)n, 4, "vocabulary", &rc);
        if (!c->vocab.len) goto fail;
        c->vocab.count = (uint64_t *)ro_sgns__r_grow(r, &m, c->vocab.count, &cap_c, i + 1,
                                                     (size_t)n, 8, "vocabulary", &rc);
        if (!c->vocab.count) goto fail;
        c->vocab.arena_ = (char *)ro_sgns__r_grow(r, &m, c->vocab.arena_, &cap_a,
                                                  (size_t)(sum + i + len + 1),
                                                  (size_t)(word_bytes + n), 1, "vocabulary",
                                                  &rc);
        if (!c->vocab.arena_) goto fail;
        memcpy(c->vocab.arena_ + sum + i, p, len);
        c->vocab.arena_[sum + i + len] = '\0';
        c->vocab.len[i] = len;
        c->vocab.count[i] = ro_sgns__get_u64(p + len);
        if (c->vocab.count[i] == 0) {
            rc = ro_sgns__bad(r, at + 4 + len, "word %llu has count 0", (unsigned long long)i);
            goto fail;
        }
        sum += len;
        ro_sgns__r_take(r, (size_t)len + 8, 1);
    }
    if (sum != word_bytes) {
        rc = ro_sgns__bad(r, 48, "header says %llu word bytes, the words have %llu",
                          (unsigned long long)word_bytes, (unsigned long long)sum);
        goto fail;
    }
    c->vocab.n = (size_t)n;
    c->vocab.arena_size_ = (size_t)(word_bytes + n);
    /* the arena may have moved while growing: pointers only now */
    for (i = 0, k = 0; i < n; ++i) {
        c->vocab.word[i] = c->vocab.arena_ + k;
        k += c->vocab.len[i] + 1;
    }
    rc = ro_sgns__vocab_index(&c->vocab, &m, &dup, err);
    if (rc == RO_SGNS_ERR_FORMAT) {
        uint64_t at = RO_SGNS__COUNTS_HEADER + 12 * (uint64_t)dup +
                      (uint64_t)(c->vocab.word[dup] - c->vocab.arena_) - dup;
        rc = ro_sgns__bad(r, at, "word %llu repeats an earlier word", (unsigned long long)dup);
    }
    if (rc != RO_SGNS_OK) goto fail;

    /* row_ptr */
    rc = ro_sgns__r_need(r, n + 1, 8, "row_ptr");
    if (rc != RO_SGNS_OK) goto fail;
    prev = 0;
    for (i = 0; i <= n;) {
        size_t j, m8 = (size_t)(n + 1 - i) < RO_SGNS__IO_BUF / 8 ? (size_t)(n + 1 - i)
                                                                 : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "row_ptr", &rc);
        if (!p) goto fail;
        c->row_ptr = (uint64_t *)ro_sgns__r_grow(r, &m, c->row_ptr, &cap_r, i + m8,
                                                 (size_t)n + 1, 8, "row_ptr", &rc);
        if (!c->row_ptr) goto fail;
        for (j = 0; j < m8; ++j) {
            uint64_t x = ro_sgns__get_u64(p + 8 * j);
            if ((i + j == 0 && x != 0) || x < prev || x > nnz || (i + j == n && x != nnz)) {
                rc = ro_sgns__bad(r, r->offset + 8 * j,
                                  "row_ptr[%llu] = %llu is out of order or range",
                                  (unsigned long long)(i + j), (unsigned long long)x);
                goto fail;
            }
            c->row_ptr[i + j] = prev = x;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        i += m8;
    }

    /* col, checked row by row */
    rc = ro_sgns__r_need(r, nnz, 12, "col and val");
    if (rc != RO_SGNS_OK) goto fail;
    {
        size_t row = 0;
        for (k = 0; k < nnz;) {
            size_t j, m4 = nnz - k < RO_SGNS__IO_BUF / 4 ? (size_t)(nnz - k)
                                                         : RO_SGNS__IO_BUF / 4;
            const unsigned char *p = ro_sgns__r_peek(r, 4 * m4, "col", &rc);
            if (!p) goto fail;
            c->col = (uint32_t *)ro_sgns__r_grow(r, &m, c->col, &cap_col, (size_t)k + m4,
                                                 (size_t)nnz, 4, "col", &rc);
            if (!c->col) goto fail;
            for (j = 0; j < m4; ++j) {
                uint64_t kk = k + j;
                uint32_t x = ro_sgns__get_u32(p + 4 * j);
                while (c->row_ptr[row + 1] <= kk) ++row;
                if (x >= n || (kk > c->row_ptr[row] && x <= c->col[kk - 1])) {
                    rc = ro_sgns__bad(r, r->offset + 4 * j,
                                      "col[%llu] = %u is out of range or order",
                                      (unsigned long long)kk, x);
                    goto fail;
                }
                c->col[kk] = x;
            }
            ro_sgns__r_take(r, 4 * m4, 1);
            k += m4;
        }
    }
    /* val, word_count, ctx_count */
    for (k = 0; k < nnz;) {
        size_t j, m8 = nnz - k < RO_SGNS__IO_BUF / 8 ? (size_t)(nnz - k) : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "val", &rc);
        if (!p) goto fail;
        c->val = (double *)ro_sgns__r_grow(r, &m, c->val, &cap_val, (size_t)k + m8,
                                           (size_t)nnz, 8, "val", &rc);
        if (!c->val) goto fail;
        for (j = 0; j < m8; ++j) {
            double x = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8 * j));
            if (!(x > 0) || !ro_sgns__is_finite(x)) {
                rc = ro_sgns__bad(r, r->offset + 8 * j,
                                  "val[%llu] is not a positive finite number",
                                  (unsigned long long)(k + j));
                goto fail;
            }
            c->val[k + j] = x;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        k += m8;
    }
    rc = ro_sgns__r_need(r, 2 * n + 1, 8, "the marginals");
    if (rc != RO_SGNS_OK) goto fail;
    for (k = 0; k < 2 * n;) {
        size_t j, m8 = 2 * n - k < RO_SGNS__IO_BUF / 8 ? (size_t)(2 * n - k) : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "the marginals", &rc);
        if (!p) goto fail;
        for (j = 0; j < m8; ++j) {
            uint64_t kk = k + j;
            double x = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8 * j));
            double *dst;
            if (!(x >= 0) || !ro_sgns__is_finite(x)) {
                rc = ro_sgns__bad(r, r->offset + 8 * j,
                                  "marginal %llu is negative or not finite",
                                  (unsigned long long)kk);
                goto fail;
            }
            if (kk < n) {
                c->word_count = (double *)ro_sgns__r_grow(r, &m, c->word_count, &cap_wc,
                                                          (size_t)kk + 1, (size_t)n, 8,
                                                          "word_count", &rc);
                if (!c->word_count) goto fail;
                dst = c->word_count + kk;
            } else {
                c->ctx_count = (double *)ro_sgns__r_grow(r, &m, c->ctx_count, &cap_cc,
                                                         (size_t)(kk - n) + 1, (size_t)n, 8,
                                                         "ctx_count", &rc);
                if (!c->ctx_count) goto fail;
                dst = c->ctx_count + (kk - n);
            }
            *dst = x;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        k += m8;
    }
    /* checksum */
    {
        uint64_t want = ro_sgns__ck_final(&r->ck), got;
        const unsigned char *p = ro_sgns__r_peek(r, 8, "the checksum", &rc);
        if (!p) goto fail;
        got = ro_sgns__get_u64(p);
        if (got != want) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                               "corrupt counts: checksum at offset %llu is %016llx, the data "
                               "before it gives %016llx", (unsigned long long)r->offset,
                               (unsigned long long)got, (unsigned long long)want);
            goto fail;
        }
        ro_sgns__r_take(r, 8, 0);
    }
    if (r->mem && r->offset != r->mem_size) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                           "%llu trailing bytes after the counts at offset %llu",
                           (unsigned long long)(r->mem_size - r->offset),
                           (unsigned long long)r->offset);
        goto fail;
    }
    c->peak_bytes = 0;
    *out = c;
    return ro_sgns__ok(err);
fail:
    ro_sgns_counts_free(c);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_buffer(const void *buf, size_t size,
                                                      ro_sgns_counts **out,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    ro_sgns__reader *r;
    ro_sgns_result rc;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!buf && size) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "buf is NULL");
    r = (ro_sgns__reader *)ro_sgns__malloc(alloc, sizeof *r);
    if (!r) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a reader");
    memset(r, 0, sizeof *r);
    r->mem = buf ? (const unsigned char *)buf : (const unsigned char *)"";
    r->mem_size = size;
    r->err = err;
    rc = ro_sgns__load(r, out, alloc);
    ro_sgns__free(alloc, r);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_callback(ro_sgns_read_fn read, void *user,
                                                        ro_sgns_counts **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    ro_sgns__reader *r;
    ro_sgns_result rc;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!read) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "read is NULL");
    r = (ro_sgns__reader *)ro_sgns__malloc(alloc, sizeof *r);
    if (!r) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a reader");
    memset(r, 0, sizeof *r);
    r->fn = read;
    r->user = user;
    r->err = err;
    rc = ro_sgns__load(r, out, alloc);
    ro_sgns__free(alloc, r);
    return rc;
}

#ifndef RO_SGNS_NO_STDIO
static int ro_sgns__fwrite_fn(void *user, const void *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)user) == size ? 0 : 1;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_path(const ro_sgns_counts *c, const char *path,
                                                    ro_sgns_error *err)
{
    ro_sgns_allocator al;
    const ro_sgns_allocator *a;
    size_t plen;
    char *tmp;
    FILE *f;
    ro_sgns_result rc = ro_sgns__check_counts_arg(c, err);
    if (rc != RO_SGNS_OK) return rc;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "path is NULL");
    al = c->alloc_;
    a = c->has_alloc_ ? &al : NULL;
    plen = strlen(path);
    tmp = (char *)ro_sgns__malloc(a, plen + 5);
    if (!tmp) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a file name");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    f = fopen(tmp, "wb");
    if (!f) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%s' for writing", tmp);
        ro_sgns__free(a, tmp);
        return rc;
    }
    rc = ro_sgns_counts_save_callback(c, ro_sgns__fwrite_fn, f, err);
    if (fclose(f) != 0 && rc == RO_SGNS_OK)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "closing '%s' failed", tmp);
    else if (rc == RO_SGNS_ERR_IO)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "writing '%s' failed", tmp);
    if (rc == RO_SGNS_OK) {
#ifdef _WIN32
        /* rename() does not replace an existing file on Windows */
        remove(path);
#endif
        if (rename(tmp, path) != 0)
            rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot rename '%s' to '%s'", tmp, path);
    }
    if (rc != RO_SGNS_OK) remove(tmp);
    ro_sgns__free(a, tmp);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_path(const char *path, ro_sgns_counts **out,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err)
{
    FILE *f;
    ro_sgns_result rc;
    ro_sgns_counts *c = NULL;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "path is NULL");
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    f = fopen(path, "rb");
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%s' for reading", path);
    rc = ro_sgns_counts_load_callback(ro_sgns__fread_fn, f, &c, alloc, err);
    if (rc == RO_SGNS_OK && fgetc(f) != EOF) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                           "'%s': trailing bytes after the counts at offset %llu", path,
                           (unsigned long long)ro_sgns_counts_file_size(c));
        ro_sgns_counts_free(c);
        c = NULL;
    }
    fclose(f);
    if (rc == RO_SGNS_OK) *out = c;
    return rc;
}
#endif
