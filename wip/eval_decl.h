/* ======================================================================
   6. File formats: word vectors in memory, word2vec text/binary, GloVe
   7. Evaluation: word similarity (Spearman), nearest neighbours, analogies

   Two examples for the header's doc block:

   Vectors -> a table of Spearman scores that says what it did:

       ro_sgns_vectors v;
       ro_sgns_similarity_result r;
       ro_sgns_error err;
       char line[256];
       const char *sets[] = {"ws353.txt", "simlex999.txt", "men.txt"};
       size_t i;
       if (ro_sgns_vectors_load(&v, "vectors.bin", RO_SGNS_W2V_BINARY, 0, NULL, &err) != RO_SGNS_OK)
           return fprintf(stderr, "%s\n", err.message), 1;
       for (i = 0; i < 3; ++i) {
           if (ro_sgns_similarity_eval_file(&v, sets[i], NULL, &r, NULL, &err) == RO_SGNS_OK)
               ro_sgns_similarity_describe(&r, line, sizeof line);
           else
               snprintf(line, sizeof line, "error: %s", err.message);
           printf("%-14s %s\n", sets[i], line);
       }   // e.g. "ws353.txt  spearman 0.6812 pearson 0.6433 | 344 of 353 pairs used,
           //        9 skipped (out of vocabulary) | case folding off | all 24292 rows"
       ro_sgns_vectors_free(&v);

   Word -> its nearest neighbours:

       ro_sgns_neighbor nb[10];
       size_t i, found;
       if (ro_sgns_neighbors_of_word(&v, "king", 10, nb, &found, NULL, &err) == RO_SGNS_OK)
           for (i = 0; i < found; ++i)
               printf("%-20s %.4f\n", v.words[nb[i].row], nb[i].similarity);
   ====================================================================== */

#ifndef RO_SGNS_NO_STDIO
#include <stdio.h> /* FILE */
#endif

/* Largest dimension a reader accepts (a header that claims more is
   malformed, not a request for gigabytes). Build option, impl. */
#ifndef RO_SGNS_MAX_DIM
#define RO_SGNS_MAX_DIM 65536
#endif
/* Longest word, in bytes, a reader accepts. Build option, impl. */
#ifndef RO_SGNS_MAX_WORD
#define RO_SGNS_MAX_WORD 4096
#endif

/* "No row": a neighbour slot left empty, or no row to exclude. */
#define RO_SGNS_NO_ROW ((size_t)-1)

/* Byte-stream callbacks for readers and writers, so that they work without
   stdio (RO_SGNS_NO_STDIO) and on any stream the caller has.
   A read function stores up to size bytes at dst and returns how many it
   stored: 0 at the end of the input, (size_t)-1 on a read error.
   A write function writes size bytes and returns 0, or non-zero on error. */
typedef size_t (*ro_sgns_read_fn)(void *user, void *dst, size_t size);
typedef int (*ro_sgns_write_fn)(void *user, const void *src, size_t size);

/* ---------------------------------------------------------------------
   6. File formats
   --------------------------------------------------------------------- */

/* The three formats of word vectors users already have.
   RO_SGNS_W2V_TEXT    word2vec text: a header line "V d", then V lines of
                       a word and d numbers separated by spaces.
   RO_SGNS_W2V_BINARY  word2vec binary: the same header line, then V
                       records: the word, one space, d float32 in
                       little-endian byte order (whatever the host), and a
                       newline. Readers accept the newline missing (gensim
                       writes none); writers write it (as word2vec.c does).
   RO_SGNS_GLOVE_TEXT  GloVe text: the word2vec text body without a header;
                       d is taken from the first line and checked on all.
   Text readers tolerate CRLF line ends, tabs between fields, trailing
   blanks and blank lines. Numbers are written with "%.9g" (float build) or
   "%.17g" (double build): enough digits to read back bit-exactly. */
typedef enum ro_sgns_vectors_format {
    RO_SGNS_W2V_TEXT = 0,
    RO_SGNS_W2V_BINARY = 1,
    RO_SGNS_GLOVE_TEXT = 2
} ro_sgns_vectors_format;

/* A vocabulary and its n x d matrix of vectors, row i the vector of
   words[i], rows in the order of the file or of the constructor (for our
   training results and for most published files: descending frequency).
   Invariants: n >= 1, 1 <= d <= RO_SGNS_MAX_DIM, every word non-empty,
   unique, free of ASCII whitespace (space, \t, \n, \v, \f, \r) and NUL;
   every value finite. Words are bytes: UTF-8 is kept as it is.
   Read the public fields; the ones ending in _ are private. Lookups of a
   word cost O(length) through a private hash table (FNV-1a, open
   addressing, at most half full). Free with ro_sgns_vectors_free(). */
typedef struct ro_sgns_vectors {
    size_t n;           /* number of words (rows) */
    size_t d;           /* dimension (columns) */
    char **words;       /* n NUL-terminated words */
    ro_sgns_real *data; /* n x d, row-major, leading dimension d */
    /* private */
    char *pool_;        /* the words' bytes, one block */
    size_t *slots_;     /* hash table: row + 1, 0 = empty */
    size_t slot_mask_;  /* table size - 1 (a power of two) */
    ro_sgns_allocator alloc_;
} ro_sgns_vectors;

/* Make a vectors object from our training results (or any words + matrix):
   copies the n words and the n x d matrix data (leading dimension ldd >= d;
   data NULL gives zeros to be filled in v->data). Words that are empty,
   contain whitespace or repeat give RO_SGNS_ERR_INVALID_ARGUMENT, a NaN or
   Inf in data RO_SGNS_ERR_NUMERIC. On failure *v is untouched. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_create(ro_sgns_vectors *v, size_t n, size_t d,
                                                  const char *const *words,
                                                  const ro_sgns_real *data, size_t ldd,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
/* Free what v holds and zero it; NULL and zeroed objects are fine. */
RO_SGNS_DEF void ro_sgns_vectors_free(ro_sgns_vectors *v);
/* The row of a word: 1 and *row set when found, 0 otherwise. Exact bytes. */
RO_SGNS_DEF int ro_sgns_vectors_find(const ro_sgns_vectors *v, const char *word, size_t *row);
/* The vector of a word (d values), or NULL when it is not in v. */
RO_SGNS_DEF const ro_sgns_real *ro_sgns_vectors_get(const ro_sgns_vectors *v,
                                                    const char *word);

/* Readers. limit = 0 reads every vector; limit = N reads the first N (the
   rest of the file is then not looked at). Malformed input -- a header
   that disagrees with the body, a short or long line, a non-number, NaN or
   Inf, a truncated binary record, zero or absurd (> RO_SGNS_MAX_DIM)
   dimensions, a duplicate word, a word with a NUL byte or longer than
   RO_SGNS_MAX_WORD -- gives RO_SGNS_ERR_FORMAT with the line (text) or
   byte offset (binary) in err->message; a file without any vector gives
   RO_SGNS_ERR_EMPTY. On failure *v is untouched: there is never a partial
   object.
   Numbers are parsed by strtod after a strict syntax check (decimal only:
   no hex, no "inf"/"nan"); because strtod follows LC_NUMERIC, the reader
   puts the current locale's decimal point in place of '.' before calling
   it, and the writers put '.' back after snprintf, so files are the same
   under a "de_DE" locale. This reads localeconv(): do not call setlocale()
   in another thread while reading or writing. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_read_memory(ro_sgns_vectors *v, const void *data,
                                                       size_t size,
                                                       ro_sgns_vectors_format format,
                                                       size_t limit,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_read_cb(ro_sgns_vectors *v, ro_sgns_read_fn read_fn,
                                                   void *user, ro_sgns_vectors_format format,
                                                   size_t limit, const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err);
/* Writers. Words with whitespace cannot be written (the object's
   invariants exclude them). In the double build a value beyond the float32
   range cannot go into the binary format: RO_SGNS_ERR_NUMERIC.
   ro_sgns_vectors_write_memory returns the whole file in *out, allocated
   through alloc (NULL: RO_SGNS_MALLOC, i.e. malloc); release it with the
   matching free function. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_write_cb(const ro_sgns_vectors *v,
                                                    ro_sgns_vectors_format format,
                                                    ro_sgns_write_fn write_fn, void *user,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_write_memory(const ro_sgns_vectors *v,
                                                        ro_sgns_vectors_format format,
                                                        void **out, size_t *out_size,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
/* FILE* and path variants. The file is read as a stream (64 KiB at a
   time), never slurped. ro_sgns_vectors_save writes "<path>.tmp" and
   renames it over path, so path holds the old file or the whole new one,
   never half of one; on Windows, where rename() fails when the target
   exists, the old file is removed first (a crash between the two leaves
   only "<path>.tmp"). Files are opened in binary mode. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_read_file(ro_sgns_vectors *v, FILE *f,
                                                     ro_sgns_vectors_format format,
                                                     size_t limit,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load(ro_sgns_vectors *v, const char *path,
                                                ro_sgns_vectors_format format, size_t limit,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_write_file(const ro_sgns_vectors *v, FILE *f,
                                                      ro_sgns_vectors_format format,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save(const ro_sgns_vectors *v, const char *path,
                                                ro_sgns_vectors_format format,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);
#endif

/* ---------------------------------------------------------------------
   7. Evaluation
   Every result carries the policy it was computed under (out-of-
   vocabulary handling, case folding, vocabulary restriction, 3CosMul
   epsilon, query-word exclusion) and its counts; the _describe functions
   print all of it, because scores are not comparable without it.
   Similarities are cosines, computed in double; a zero vector has cosine
   0 with everything.
   --------------------------------------------------------------------- */

/* Cosine of two d-vectors, accumulated in double; 0 when either is zero. */
RO_SGNS_DEF double ro_sgns_cosine(const ro_sgns_real *a, const ro_sgns_real *b, size_t d);

/* Pearson's r and Spearman's rho (Pearson's r of the ranks; tied values
   get the mean of the ranks they span, as in scipy.stats.spearmanr).
   n < 2 gives RO_SGNS_ERR_EMPTY, a constant x or y (correlation undefined)
   RO_SGNS_ERR_NUMERIC; *r is then untouched. */
RO_SGNS_DEF ro_sgns_result ro_sgns_pearson(size_t n, const double *x, const double *y,
                                           double *r, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_spearman(size_t n, const double *x, const double *y,
                                            double *rho, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err);

/* A word-pair file (wordsim353, SimLex-999, MEN, ...): one pair a line,
   "word1 word2 score", fields separated by tabs or spaces; lines whose
   first non-blank character is '#' and blank lines are skipped, and a '#'
   field after the score starts a comment. CRLF tolerated. */
typedef struct ro_sgns_pairs {
    size_t n;      /* number of pairs */
    char **word1;  /* n words */
    char **word2;  /* n words */
    double *score; /* n human scores */
    /* private */
    char *pool_;
    ro_sgns_allocator alloc_;
} ro_sgns_pairs;

/* RO_SGNS_ERR_FORMAT (with the line) for a line that is not two words and a
   finite number, RO_SGNS_ERR_EMPTY when there is no pair. */
RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_read_memory(ro_sgns_pairs *p, const void *data,
                                                     size_t size,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_load(ro_sgns_pairs *p, const char *path,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);
#endif
RO_SGNS_DEF void ro_sgns_pairs_free(ro_sgns_pairs *p);

/* What to do with a pair one of whose words is not in the vocabulary. */
typedef enum ro_sgns_oov_policy {
    RO_SGNS_OOV_SKIP = 0, /* leave the pair out (the paper's authors, hyperwords) */
    RO_SGNS_OOV_ZERO = 1  /* keep it with cosine 0 (gensim's dummy4unknown) */
} ro_sgns_oov_policy;

typedef struct ro_sgns_similarity_config {
    ro_sgns_oov_policy oov; /* default RO_SGNS_OOV_SKIP */
    int fold_case;          /* default 0. 1: fold test words and vocabulary to
                               ASCII lower case (other bytes as they are);
                               when several rows fold to one word, the first
                               (most frequent) is used, as gensim does */
    size_t restrict_vocab;  /* default 0 = all rows; N: only the first N rows
                               count as in the vocabulary */
} ro_sgns_similarity_config;

RO_SGNS_DEF ro_sgns_similarity_config ro_sgns_similarity_config_default(void);

typedef struct ro_sgns_similarity_result {
    double spearman;       /* Spearman's rho, human scores vs cosines */
    double pearson;        /* Pearson's r, same data */
    size_t pairs_total;    /* pairs in the file */
    size_t pairs_used;     /* pairs that went into the correlations */
    size_t pairs_oov;      /* pairs with a word out of vocabulary: skipped
                              (SKIP) or scored 0 (ZERO, then counted in used) */
    ro_sgns_similarity_config config; /* the policy it was computed under */
    size_t vocab_rows;     /* rows that counted as vocabulary */
} ro_sgns_similarity_result;

/* Spearman and Pearson correlation of the pairs' scores with the cosines of
   their words' vectors. cfg NULL = defaults. Fewer than 2 usable pairs give
   RO_SGNS_ERR_EMPTY, constant cosines RO_SGNS_ERR_NUMERIC (the message says
   how many pairs were out of vocabulary); *res is then untouched. Cost
   O(pairs * d), plus O(n) for a folded lookup table with fold_case. */
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval(const ro_sgns_vectors *v,
                                                   const ro_sgns_pairs *pairs,
                                                   const ro_sgns_similarity_config *cfg,
                                                   ro_sgns_similarity_result *res,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
/* Load a pair file and evaluate it (ro_sgns_pairs_load + _similarity_eval). */
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval_file(const ro_sgns_vectors *v,
                                                        const char *path,
                                                        const ro_sgns_similarity_config *cfg,
                                                        ro_sgns_similarity_result *res,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
#endif
/* One line that says what was computed, e.g. "spearman 0.6812 pearson
   0.6433 | 344 of 353 pairs used, 9 skipped (out of vocabulary) | case
   folding off | all 24292 rows". Returns what snprintf returns. */
RO_SGNS_DEF int ro_sgns_similarity_describe(const ro_sgns_similarity_result *res, char *buf,
                                            size_t size);

/* Nearest neighbours by cosine, over all n rows, best first; ties go to the
   lower row. One call normalizes the queries, multiplies them by the
   matrix block by block with ro_sgns_gemm (scaled by the rows' inverse
   norms), and keeps a heap of the k best per query: O(nq n d) time, and
   O(n + 256 x 1024) workspace besides out, whatever n. Batch many queries
   into one call. */
typedef struct ro_sgns_neighbor {
    size_t row;        /* row of v (RO_SGNS_NO_ROW in an unfilled slot) */
    double similarity; /* cosine with the query */
} ro_sgns_neighbor;

/* The k nearest rows to a word, the word itself excluded. *count (may be
   NULL) gets the number filled, min(k, n - 1). RO_SGNS_ERR_NOT_FOUND when
   the word is not in v. out has room for k. */
RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_word(const ro_sgns_vectors *v,
                                                     const char *word, size_t k,
                                                     ro_sgns_neighbor *out, size_t *count,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
/* The k nearest rows to each of nq query vectors (nq x v->d, leading
   dimension ldq). exclude (NULL = none) has nq rows to leave out, each may
   be RO_SGNS_NO_ROW. out is nq x k: query i's neighbours at out[i*k ..],
   unfilled slots (when k exceeds the rows left) get RO_SGNS_NO_ROW and
   similarity 0; count (NULL or nq entries) gets the number filled. */
RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_vectors(const ro_sgns_vectors *v, size_t nq,
                                                        const ro_sgns_real *queries,
                                                        size_t ldq, const size_t *exclude,
                                                        size_t k, ro_sgns_neighbor *out,
                                                        size_t *count,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);

/* Analogy questions "a b c d" (a is to b as c is to d) in the format of
   word2vec's questions-words.txt: lines ": section name" open a section,
   every other non-blank line holds 4 words; '#' lines are comments.
   Questions before the first section line go to a section named "". */
typedef struct ro_sgns_analogies {
    size_t n;             /* questions */
    char **words;         /* 4 n words: question i is words[4i .. 4i+3] = a b c d */
    size_t *section;      /* n: section index of each question */
    size_t nsections;
    char **section_names; /* nsections names, in file order */
    /* private */
    char *pool_;
    ro_sgns_allocator alloc_;
} ro_sgns_analogies;

RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_read_memory(ro_sgns_analogies *q,
                                                         const void *data, size_t size,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_load(ro_sgns_analogies *q, const char *path,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
#endif
RO_SGNS_DEF void ro_sgns_analogies_free(ro_sgns_analogies *q);

typedef enum ro_sgns_analogy_method {
    /* argmax_x cos(x,b) - cos(x,a) + cos(x,c) (Mikolov et al. 2013) */
    RO_SGNS_3COSADD = 0,
    /* argmax_x cos'(x,b) cos'(x,c) / (cos'(x,a) + epsilon) with
       cos' = (1 + cos) / 2 in [0, 1] (Levy and Goldberg 2014) */
    RO_SGNS_3COSMUL = 1
} ro_sgns_analogy_method;

typedef struct ro_sgns_analogy_config {
    ro_sgns_analogy_method method; /* default RO_SGNS_3COSADD */
    double epsilon;                /* 3CosMul only; default 0.001 (Levy and
                                      Goldberg 2014; gensim uses 1e-6) */
    size_t restrict_vocab;         /* default 0 = all rows; N: answers and
                                      questions only from the first N rows
                                      (the N most frequent); questions with a
                                      word beyond are skipped */
    int fold_case;                 /* default 0; 1: ASCII case folding as in
                                      ro_sgns_similarity_config */
    int exclude_query_words;       /* default 1: a, b, c are never the answer */
} ro_sgns_analogy_config;

RO_SGNS_DEF ro_sgns_analogy_config ro_sgns_analogy_config_default(void);

typedef struct ro_sgns_analogy_section {
    const char *name; /* points into the result's own storage */
    size_t total;     /* questions in the section */
    size_t seen;      /* questions with all four words in the vocabulary */
    size_t correct;   /* answered right, of seen */
} ro_sgns_analogy_section;

typedef struct ro_sgns_analogy_result {
    size_t total;    /* questions in the file */
    size_t seen;     /* questions answered (all four words in vocabulary) */
    size_t skipped;  /* total - seen */
    size_t correct;  /* of seen */
    double accuracy; /* correct / seen (0 when seen = 0) */
    size_t nsections;
    ro_sgns_analogy_section *sections; /* per section, file order */
    ro_sgns_analogy_config config;     /* the policy it was computed under */
    size_t vocab_rows;                 /* rows that counted as vocabulary */
    /* private */
    void *mem_;
    ro_sgns_allocator alloc_;
} ro_sgns_analogy_result;

/* Answer every question: the best row by the chosen method over the first
   restrict_vocab rows (all with 0), query words excluded by default, and
   compare it with d. Questions are batched: 3CosAdd multiplies 256 query
   vectors b^ - a^ + c^ at a time with the matrix, 3CosMul 3 x 256 unit
   vectors, through ro_sgns_gemm: O(questions x rows x d) flops, O(rows +
   256 x 3 x (d + 1024)) workspace. Free the result with
   ro_sgns_analogy_result_free(). cfg NULL = defaults. */
RO_SGNS_DEF ro_sgns_result ro_sgns_analogy_eval(const ro_sgns_vectors *v,
                                                const ro_sgns_analogies *q,
                                                const ro_sgns_analogy_config *cfg,
                                                ro_sgns_analogy_result *res,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);
RO_SGNS_DEF void ro_sgns_analogy_result_free(ro_sgns_analogy_result *res);
/* e.g. "3CosAdd: accuracy 0.7120 (8012 of 11254 correct; 19544 questions,
   8290 skipped: out of vocabulary) | query words excluded | case folding off
   | first 30000 rows". Returns what snprintf returns. */
RO_SGNS_DEF int ro_sgns_analogy_describe(const ro_sgns_analogy_result *res, char *buf,
                                         size_t size);
