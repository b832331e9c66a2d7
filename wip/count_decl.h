/* ======================================================================
   1. Counting: tokens -> vocabulary -> windowed co-occurrence counts
      #(w,c), the marginals #(w), #(c) and |D| [paper 2.1]

   QUICK START (count the bundled corpus, save, load, look inside)
       ro_sgns_count_config cfg = ro_sgns_count_config_default();
       ro_sgns_counts *co = NULL;
       ro_sgns_error err;
       int64_t king;
       uint64_t k;
       cfg.window = 5;            // 5 words on each side
       cfg.min_count = 100;       // keep words seen >= 100 times
       if (ro_sgns_count_path("corpus.txt", &cfg, &co, NULL, &err) != RO_SGNS_OK) {
           fprintf(stderr, "count: %s\n", err.message);
           return 1;
       }
       printf("n = %zu words, nnz = %llu, |D| = %.0f\n", co->n,
              (unsigned long long)co->nnz, co->total);
       ro_sgns_counts_save_path(co, "corpus.counts", &err);   // atomic replace
       ro_sgns_counts_free(co);
       ro_sgns_counts_load_path("corpus.counts", &co, NULL, &err);
       king = ro_sgns_vocab_find(&co->vocab, "king", 4);       // -1 if absent
       for (k = co->row_ptr[king]; k < co->row_ptr[king + 1]; ++k)
           printf("%s %g\n", co->vocab.word[co->col[k]], co->val[k]); // #(king, c)
       ro_sgns_counts_free(co);

   SETTINGS OF THE PAPER AND OF ITS CODE (see NOTES.md)
     paper text:           window = 5, min_count = 201 ("more than 200")
     authors' released code: window = 2 (their 5/2 in Python 2), min_count = 200
     Both: no dynamic window, no subsampling, dropped words keep their place
     (close_gaps = 0), windows stop at sentence/line ends (cross_lines = 0).
     The defaults below are word2vec's where word2vec has one (window 5,
     min_count 5) and the paper's otherwise.

   TOKENS
     A token is a maximal run of bytes other than ' ', '\t' and '\n'. A '\r'
     is dropped wherever it is (so CRLF files read like LF files). Every other
     byte is taken as it is: no case folding, no Unicode normalisation, NUL
     bytes allowed (hence vocab.len). A token longer than
     RO_SGNS_MAX_WORD_BYTES bytes is cut to its first RO_SGNS_MAX_WORD_BYTES
     bytes, moved back to the start of a UTF-8 character when the cut would
     fall inside one (at most 3 bytes back, so valid UTF-8 is never split);
     the rest of the token is discarded (word2vec does the same, at 99 bytes).
     '\n' ends a line.

   WHAT IS COUNTED
     Stream positions: every token has one. Words that are not in the
     vocabulary (below min_count or beyond max_vocab) and words removed by
     subsampling are "dropped": with close_gaps = 0 (default, the authors'
     code and hyperwords) they keep their position, so they still take room
     in windows; with close_gaps = 1 (word2vec, GloVe) they are removed
     before windows are formed.
     For each kept word w at position i and each kept word c at position j,
     0 < |i - j| <= L (L = the half-width "window"), on the same line unless
     cross_lines = 1, the pair (w, c) gets weight 1. With dynamic_window = 1
     L is replaced, for each centre position i, by b_i drawn uniformly from
     {1, ..., L} (word2vec); with dynamic_window = 2 the pair at distance
     dist gets the expected weight (L - dist + 1) / L instead, no randomness.
     #(w, c) is the sum of the weights; #(w) = sum_c #(w, c) (row sums),
     #(c) = sum_w #(w, c) (column sums), |D| = sum_{w,c} #(w, c), as the paper
     defines them - these are not unigram counts (vocab.count holds those).
     Words and contexts share one vocabulary, so the matrix is n x n; it is
     symmetric except with dynamic_window = 1.
     Exactness: weights are summed as integers (1, or L - dist + 1) in
     doubles, which is exact below 2^53, and divided by L once at the end in
     weighted mode; so the result does not depend on the order of the sums,
     the memory budget or the thread count.

   MEMORY (see ro_sgns_estimate_memory for the formula)
     Counting holds the corpus as a stream of 4-byte word ids (one per token
     and one per line break), the table of distinct words, and the result.
     A memory_budget bounds everything counting allocates; a tight budget
     costs extra passes over the id stream, never exactness. A budget that
     cannot hold the id stream, the vocabulary and the result gives
     RO_SGNS_ERR_BUDGET and a message with the number of bytes needed.
   ====================================================================== */

/* Tokens longer than this many bytes are cut (see TOKENS above). */
#define RO_SGNS_MAX_WORD_BYTES 100

/* dynamic_window values */
#define RO_SGNS_WINDOW_FIXED 0    /* every pair within L counts 1 */
#define RO_SGNS_WINDOW_SAMPLED 1  /* word2vec: per centre, L' uniform in 1..L */
#define RO_SGNS_WINDOW_WEIGHTED 2 /* pair at distance dist counts (L-dist+1)/L */

/* Reading: put up to size bytes at buf and return how many (fewer is fine);
   return 0 at the end of the input and (size_t)-1 on an error. */
typedef size_t (*ro_sgns_read_fn)(void *user, void *buf, size_t size);
/* Writing: write all size bytes; return 0 on success, non-zero on error. */
typedef int (*ro_sgns_write_fn)(void *user, const void *data, size_t size);

/* Settings for counting. Make one with ro_sgns_count_config_default() and
   change what you need; zero is a meaningful value for several fields. */
typedef struct ro_sgns_count_config {
    int window;            /* L, words on each side, 1..65535. Default 5. The
                              authors' code used 2 (see above). */
    uint64_t min_count;    /* keep words whose count is >= min_count (word2vec's
                              rule; 0 acts as 1). Default 5. The paper's "more
                              than 200" is min_count = 201. */
    uint64_t max_vocab;    /* keep at most this many words, the most frequent
                              (ties by byte order); 0 = no limit. Default 0. */
    int dynamic_window;    /* RO_SGNS_WINDOW_FIXED (default), _SAMPLED, _WEIGHTED */
    double sample;         /* subsampling threshold t, 0 = off (default); word2vec
                              uses 1e-3. A kept-vocabulary token of word w is
                              kept with probability
                                min(1, (sqrt(f / (t T)) + 1) t T / f),
                              f = count of w, T = sum of the counts of all
                              vocabulary words (word2vec's formula). The counts
                              in vocab.count are never subsampled. */
    int cross_lines;       /* 0 = windows stop at '\n' (default), 1 = lines are
                              one stream. The start and end of the input are
                              always boundaries. */
    int close_gaps;        /* 0 = dropped words keep their position (default),
                              1 = they are removed before windowing (word2vec) */
    uint64_t memory_budget; /* bytes counting may hold at once, result included;
                              0 = no limit (default) */
    uint64_t seed;         /* for dynamic_window = 1 and sample > 0. Default 1.
                              The draws for token t (t-th token of the input)
                              come from streams seeded with (seed, t / 65536),
                              so they do not depend on the budget. */
} ro_sgns_count_config;

/* A vocabulary: n words with ids 0..n-1, ordered by descending count, ties
   by byte order (memcmp, then the shorter first). */
typedef struct ro_sgns_vocab {
    size_t n;
    char **word;     /* word[i]: the bytes of word i, NUL-terminated, in one arena */
    uint32_t *len;   /* byte length of word i (a word may contain NUL bytes) */
    uint64_t *count; /* how often word i occurs in the corpus (exact, the
                        unigram count, before subsampling) */
    /* private */
    char *arena_;
    size_t arena_size_;
    uint32_t *index_;   /* open-addressing hash: id + 1, 0 = empty */
    size_t index_mask_; /* table size - 1 (a power of two minus one) */
} ro_sgns_vocab;

/* The counts: an n x n CSR matrix of #(w, c) and its marginals, with the
   vocabulary they index. Everything is owned by this one object; free it
   with ro_sgns_counts_free(). Row w holds the contexts of word w:
   #(w, col[k]) = val[k] for k in [row_ptr[w], row_ptr[w+1]), columns
   strictly ascending, every val > 0. */
typedef struct ro_sgns_counts {
    ro_sgns_vocab vocab;     /* words = contexts */
    size_t n;                /* rows = columns = vocab.n */
    uint64_t nnz;            /* number of stored pairs */
    uint64_t *row_ptr;       /* n + 1 offsets, row_ptr[0] = 0, row_ptr[n] = nnz */
    uint32_t *col;           /* nnz context ids */
    double *val;             /* nnz counts #(w, c) */
    double *word_count;      /* n: #(w) = sum_c #(w, c) */
    double *ctx_count;       /* n: #(c) = sum_w #(w, c) */
    double total;            /* |D| = sum of all #(w, c) */
    uint64_t corpus_tokens;  /* tokens read, all words */
    uint64_t distinct_words; /* distinct words read, before min_count/max_vocab */
    ro_sgns_count_config config; /* the settings that made these counts */
    uint64_t peak_bytes;     /* most memory counting held at once (0 if loaded) */
    /* private */
    ro_sgns_allocator alloc_;
    int has_alloc_;
} ro_sgns_counts;

/* window 5, min_count 5, max_vocab 0, fixed window, sample 0, lines are
   boundaries, gaps kept, no memory budget, seed 1. */
RO_SGNS_DEF ro_sgns_count_config ro_sgns_count_config_default(void);

/* Count a corpus. config NULL means the defaults. On success *out receives a
   new object (free it with ro_sgns_counts_free); on failure *out is not
   touched. Errors: RO_SGNS_ERR_INVALID_ARGUMENT (a setting out of range),
   RO_SGNS_ERR_EMPTY (no tokens, no word reaching min_count, or no pair at
   all), RO_SGNS_ERR_BUDGET, RO_SGNS_ERR_OUT_OF_MEMORY, RO_SGNS_ERR_IO (a read
   failed), RO_SGNS_ERR_SIZE_OVERFLOW (more than about 4.29e9 tokens). */
RO_SGNS_DEF ro_sgns_result ro_sgns_count_buffer(const void *text, size_t size,
                                                const ro_sgns_count_config *config,
                                                ro_sgns_counts **out,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_count_callback(ro_sgns_read_fn read, void *user,
                                                  const ro_sgns_count_config *config,
                                                  ro_sgns_counts **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
#include <stdio.h> /* FILE */
/* Reads f from its current position to its end; does not close it. */
RO_SGNS_DEF ro_sgns_result ro_sgns_count_file(FILE *f, const ro_sgns_count_config *config,
                                              ro_sgns_counts **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_count_path(const char *path,
                                              const ro_sgns_count_config *config,
                                              ro_sgns_counts **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);
#endif

/* Free the object and everything it owns (with the allocator it was made
   with). NULL is fine. */
RO_SGNS_DEF void ro_sgns_counts_free(ro_sgns_counts *counts);

/* The id of a word (len bytes at word), or -1 if it is not in the
   vocabulary. O(1): a hash lookup. */
RO_SGNS_DEF int64_t ro_sgns_vocab_find(const ro_sgns_vocab *vocab, const char *word,
                                       size_t len);

/* What a run needs, in bytes. n_words: vocabulary size n; nnz: stored pairs;
   d: embedding dimension; n_tokens and n_distinct: corpus tokens and
   distinct words (0 if unknown: the counting estimate then leaves out the id
   stream and the table of distinct words). The formulas:
     counts   = 12 nnz + 8 (n + 1) + 16 n + 28 n + word bytes (~ 8 n)
                (CSR, marginals, vocabulary with its hash index)
     counting = counts + 4 (n_tokens + lines) (id stream)
                + 4 n_tokens (positions, fewer under a budget)
                + 40 n (per-row accumulator, counters) , and before that,
                while reading: 4 n_tokens + 56 n_distinct + distinct word bytes
     training = counts + 12 nnz (SPPMI) + 6 n d sizeof(ro_sgns_real) (U, V, the
                next U, V, the QR/SVD copies) + 2 * 256 n sizeof(ro_sgns_real)
                (row blocks of M) + 8 d^2 * 4 (the core and its SVD)
   peak is the largest of counting and training. The counts file is
   112 + 12 n + (word bytes) + 8 (n + 1) + 12 nnz + 16 n + 8 bytes. */
typedef struct ro_sgns_memory_estimate {
    uint64_t counts;     /* the ro_sgns_counts object */
    uint64_t counting;   /* peak while counting */
    uint64_t training;   /* peak while training (steps after counting) */
    uint64_t peak;       /* max(counting, training) */
    uint64_t file_bytes; /* size of the counts file */
} ro_sgns_memory_estimate;
RO_SGNS_DEF ro_sgns_memory_estimate ro_sgns_estimate_memory(uint64_t n_words, uint64_t nnz,
                                                            size_t d, uint64_t n_tokens,
                                                            uint64_t n_distinct);

/* ---------------------------------------------------------------------
   The counts file (format version 1). All integers little-endian, doubles
   IEEE 754 binary64 little-endian, written byte by byte (right on any
   host). Offsets in bytes:
        0  8   magic "ROSGNSCT"
        8  4   u32 format version = 1
       12  4   u32 flags = 0 (reserved)
       16  8   u64 n (vocabulary size, 1 .. 2^32 - 3)
       24  8   u64 nnz
       32  8   u64 corpus_tokens
       40  8   u64 distinct_words
       48  8   u64 word_bytes (sum of the word lengths)
       56  4   u32 window            60  4  u32 dynamic_window
       64  8   u64 min_count         72  8  u64 max_vocab
       80  8   f64 sample            88  4  u32 cross_lines
       92  4   u32 close_gaps        96  8  u64 seed
      104  8   f64 total (|D|)
      112      vocabulary, n records: u32 len (1..RO_SGNS_MAX_WORD_BYTES),
               len bytes of the word, u64 unigram count
       ..      row_ptr: n + 1 u64;  col: nnz u32;  val: nnz f64;
               word_count: n f64;  ctx_count: n f64
       ..  8   u64 checksum of every byte before it: h = 0x84222325CBF29CE4,
               for each 8-byte little-endian word x of the data (the last
               one padded with zero bytes): h = (h XOR x) * 0x100000001B3
               (mod 2^64); then h = (h XOR byte_count) * 0x100000001B3.
   A loader checks everything (structure, ranges, column order, finite and
   positive values, unique words, the checksum) and reports
   RO_SGNS_ERR_FORMAT with the byte offset of the first bad or missing byte.
   Saving to a path writes "<path>.tmp" and renames it over <path>, so a
   crash never leaves a half-written file under the final name. On Windows,
   where rename() fails if the target exists, the old file is removed first:
   between the two calls no file has the final name (the complete new one
   is still there as <path>.tmp).
   --------------------------------------------------------------------- */

/* The exact size of the file ro_sgns_counts_save_* writes. */
RO_SGNS_DEF uint64_t ro_sgns_counts_file_size(const ro_sgns_counts *counts);
/* Write into buf (capacity bytes, at least ro_sgns_counts_file_size);
   *written receives the size (may be NULL). */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_buffer(const ro_sgns_counts *counts, void *buf,
                                                      size_t capacity, size_t *written,
                                                      ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_callback(const ro_sgns_counts *counts,
                                                        ro_sgns_write_fn write, void *user,
                                                        ro_sgns_error *err);
/* Load; *out untouched on failure. The buffer must hold exactly one file
   (trailing bytes are an error); the callback reader stops after the
   checksum. */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_buffer(const void *buf, size_t size,
                                                      ro_sgns_counts **out,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_callback(ro_sgns_read_fn read, void *user,
                                                        ro_sgns_counts **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_path(const ro_sgns_counts *counts,
                                                    const char *path, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_path(const char *path, ro_sgns_counts **out,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err);
#endif
