/* tests/fuzz_count.c - libFuzzer target for the tokenizer and the counter.
   Build and run (not part of the default test run):
       clang -g -O1 -fsanitize=fuzzer,address,undefined tests/fuzz_count.c \
             -o build/fuzz_count -lm
       mkdir -p build/fuzz_count_corpus
       ./build/fuzz_count -max_total_time=20 -max_len=4096 build/fuzz_count_corpus
   The first 8 bytes pick the settings (window, min_count, dynamic window,
   lines, gaps, subsampling, the check for text, a memory budget, the reader's block size); the
   rest is the text. Checks: counting never crashes or leaks; a success
   satisfies the CSR invariants; the buffer, a chunked reader and a budgeted
   run agree bit for bit; the counts survive a save/load round trip. */
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

static void fz_invariants(const ro_sgns_counts *c)
{
    size_t w;
    uint64_t k;
    FUZZ_REQUIRE(c->n >= 1 && c->nnz >= 1 && c->row_ptr[0] == 0 && c->row_ptr[c->n] == c->nnz);
    for (w = 0; w < c->n; ++w) {
        FUZZ_REQUIRE(c->vocab.len[w] >= 1 && c->vocab.len[w] <= RO_SGNS_MAX_WORD_BYTES);
        FUZZ_REQUIRE(ro_sgns_vocab_find(&c->vocab, c->vocab.word[w], c->vocab.len[w]) ==
                     (int64_t)w);
        if (w) FUZZ_REQUIRE(c->vocab.count[w] <= c->vocab.count[w - 1]);
        FUZZ_REQUIRE(c->row_ptr[w] <= c->row_ptr[w + 1]);
        for (k = c->row_ptr[w]; k < c->row_ptr[w + 1]; ++k) {
            FUZZ_REQUIRE(c->col[k] < c->n && c->val[k] > 0);
            if (k > c->row_ptr[w]) FUZZ_REQUIRE(c->col[k] > c->col[k - 1]);
        }
        /* no separator byte inside a word, no '\r' */
        FUZZ_REQUIRE(memchr(c->vocab.word[w], ' ', c->vocab.len[w]) == NULL);
        FUZZ_REQUIRE(memchr(c->vocab.word[w], '\n', c->vocab.len[w]) == NULL);
        FUZZ_REQUIRE(memchr(c->vocab.word[w], '\t', c->vocab.len[w]) == NULL);
        FUZZ_REQUIRE(memchr(c->vocab.word[w], '\r', c->vocab.len[w]) == NULL);
    }
    FUZZ_REQUIRE(c->total > 0);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    ro_sgns_count_config cfg = ro_sgns_count_config_default();
    ro_sgns_counts *a = NULL, *b = NULL;
    ro_sgns_error err;
    ro_sgns_result rc, rc2;
    tu_reader r;
    if (size < 8) return 0;
    cfg.window = 1 + data[0] % 8;
    cfg.min_count = data[1] % 4;
    cfg.dynamic_window = data[2] % 3;
    cfg.cross_lines = data[3] & 1;
    cfg.close_gaps = (data[3] >> 1) & 1;
    cfg.sample = (data[3] >> 2) & 1 ? 0.01 : 0;
    cfg.max_vocab = (data[3] >> 3) & 1 ? data[4] % 8 : 0;
    cfg.allow_binary = (data[3] >> 4) & 1; /* the NOT TEXT check or any bytes */
    cfg.seed = data[5];
    r.chunk = 1 + data[6] % 64;
    r.fail_after = -1;
    data += 8;
    size -= 8;
    rc = ro_sgns_count_memory(data, size, &cfg, &a, NULL, &err);
    FUZZ_REQUIRE(rc == RO_SGNS_OK || rc == RO_SGNS_ERR_EMPTY ||
                 (rc == RO_SGNS_ERR_FORMAT && !cfg.allow_binary));
    FUZZ_REQUIRE((rc == RO_SGNS_OK) == (a != NULL));
    r.p = data;
    r.size = size;
    r.at = 0;
    rc2 = ro_sgns_count_callback(tu_read, &r, &cfg, &b, NULL, &err);
    FUZZ_REQUIRE(rc2 == rc);
    if (rc != RO_SGNS_OK) return 0;
    fz_invariants(a);
    FUZZ_REQUIRE(tu_same_counts(a, b));
    ro_sgns_counts_free(b);
    b = NULL;
    /* a budget a little under the unbudgeted peak: same counts or BUDGET */
    cfg.memory_budget = a->peak_bytes - a->peak_bytes / 4;
    rc2 = ro_sgns_count_memory(data, size, &cfg, &b, NULL, &err);
    FUZZ_REQUIRE(rc2 == RO_SGNS_OK || rc2 == RO_SGNS_ERR_BUDGET);
    if (rc2 == RO_SGNS_OK) {
        FUZZ_REQUIRE(tu_same_counts(a, b) && b->peak_bytes <= cfg.memory_budget);
        ro_sgns_counts_free(b);
        b = NULL;
    }
    /* save / load */
    {
        void *buf = NULL;
        size_t fsize = 0;
        FUZZ_REQUIRE(ro_sgns_counts_save_memory(a, &buf, &fsize, NULL, &err) == RO_SGNS_OK);
        FUZZ_REQUIRE(fsize == (size_t)ro_sgns_counts_saved_size(a));
        FUZZ_REQUIRE(ro_sgns_counts_load_memory(buf, fsize, &b, NULL, &err) == RO_SGNS_OK);
        FUZZ_REQUIRE(tu_same_counts(a, b));
        ro_sgns_counts_free(b);
        free(buf);
    }
    ro_sgns_counts_free(a);
    return 0;
}
