/* ro_sgns.h - v0.4.0 - Riemannian optimization for Skip-Gram Negative Sampling
   word embeddings, in one C99/C++ header - public domain or MIT, see end of file.

   WHAT IT IS
     A single-header library that trains word embeddings the way Fonarev et al.,
     "Riemannian Optimization for Skip-Gram Negative Sampling" (ACL 2017) do:
       Step 1: find a rank-d matrix X (words x contexts) that maximizes the SGNS
               objective F(X), by projector-splitting on the manifold of rank-d
               matrices, starting from the SVD of the shifted positive PMI matrix;
       Step 2: turn X = U Sigma V^T into embeddings W = U Sigma^(1/2).
     It depends on libc and libm only. It carries its own GEMM, Householder QR
     and one-sided Jacobi SVD, which can be swapped for CBLAS/LAPACKE with a
     define. Around the method, each part optional: counting a corpus, files
     (counts, checkpoints, word2vec and GloVe vectors), evaluation (word
     similarity, analogies) and word2vec's SGD as a baseline.

   DO THIS
     In exactly one C or C++ file of your program:
         #define RO_SGNS_IMPLEMENTATION
         #include "ro_sgns.h"
     Everywhere else just #include "ro_sgns.h". Link with -lm.
     Compile with -fopenmp to use all cores; without it everything runs serially
     and gives bitwise the same numbers.

   QUICK START: text -> counts -> SVD-SPPMI -> RO-SGNS -> word vectors
     The body of int main(void), in C99 or C++, after #include <stdio.h>,
     <stdlib.h> and the two lines above; build with cc -O2 prog.c -lm
     (tests/test_quickstart.sh compiles and runs it as printed here, both ways):
         ro_sgns_count_config cc = ro_sgns_count_config_default(); // window 5, min_count 5
         ro_sgns_counts *counts = NULL;  ro_sgns_csr *sppmi = NULL;
         ro_sgns_factors *x = NULL;  ro_sgns_problem *problem = NULL;
         ro_sgns_vectors *vec = NULL;  ro_sgns_real *W = NULL;
         ro_sgns_similarity_result sim;  ro_sgns_error err;
         size_t d = 100;
         int status = 1;
         if (ro_sgns_count_path("corpus.txt", &cc, &counts, NULL, &err) ||
             ro_sgns_sppmi(counts, 5.0, 1.0, &sppmi, NULL, &err) ||       // k = 5
             ro_sgns_tsvd(sppmi, d, NULL, &x, NULL, &err) ||              // X_0
             ro_sgns_problem_create(counts, 5.0, 1.0, &problem, NULL, &err) ||
             ro_sgns_ro_train(problem, x, NULL, &err))                    // 10 steps
             goto fail;
         W = (ro_sgns_real *)malloc(counts->n * d * sizeof *W);
         if (!W) {
             fprintf(stderr, "out of memory\n");
             goto fail;
         }
         if (ro_sgns_factors_embeddings(x, 0.5, RO_SGNS_EMBED_W, W, d, NULL, &err) ||
             ro_sgns_vectors_create(counts->n, d, (const char *const *)counts->vocab.word,
                                    W, d, &vec, NULL, &err) ||
             ro_sgns_vectors_save_path(vec, RO_SGNS_W2V_BINARY, "vectors.bin", NULL, &err) ||
             ro_sgns_similarity_eval_path(vec, "ws353.txt", NULL, &sim, NULL, &err))
             goto fail;
         printf("%lu words -> vectors.bin; ws353 Spearman %.3f (%lu of %lu pairs)\n",
                (unsigned long)vec->n, sim.spearman, (unsigned long)sim.pairs_used,
                (unsigned long)sim.pairs_total);
         status = 0;
       fail:   // on success too: every pointer starts NULL, every free takes NULL
         if (status && err.code) fprintf(stderr, "%s\n", err.message);
         ro_sgns_vectors_free(vec);  free(W);  ro_sgns_problem_free(problem);
         ro_sgns_factors_free(x);  ro_sgns_csr_free(sppmi);  ro_sgns_counts_free(counts);
         return status;
     (err.code is RO_SGNS_OK after every call that succeeds.) The same as a
     whole program: examples/train.c in the repository; the ro-sgns
     program (examples/ro_sgns_cli.c) is a larger user.

   NAMING (every public call follows it)
     ro_sgns_<object>_<verb> for calls on an object (ro_sgns_counts_load_path),
     ro_sgns_<verb> for the pipeline's steps (ro_sgns_count_*, ro_sgns_sppmi,
     ro_sgns_tsvd, ...); ro_sgns__* is private; *_naive is the plain
     reference of a fast call (Part I). load/save are file formats, count_*
     and sgd_train_* read a corpus. The last word says where the bytes are:
     _path a file name (saved to "<path>.<16 hex digits>.tmp", then renamed
     over it); _file an open FILE* (at its position, never closed); _memory
     a buffer (loading: data, size; saving: a new one in *out, *size from
     alloc, which the caller frees); _callback a ro_sgns_read_fn or
     ro_sgns_write_fn and its user pointer. Objects the library makes come
     back in T **out (untouched on failure) and go with ro_sgns_T_free
     (NULL is fine); results that own no memory fill the caller's struct;
     arrays of a size the caller knows are the caller's. Settings: const
     ro_sgns_<x>_config * (NULL = ro_sgns_<x>_config_default()). Arguments:
     inputs, settings, outputs, allocator, ro_sgns_error *err (NULL ok);
     fallible calls return ro_sgns_result.

   CONTENTS
     The declarations come first, grouped by what a user does (the method,
     then each optional part, behind its switch); then the implementation
     (behind RO_SGNS_IMPLEMENTATION) in three parts:
     Part I.   RO-SGNS plainly: the method in plain code, in the paper's
               order; it compiles and links alone (RO_SGNS_PLAIN), and each
               piece is the reference its fast twin in Part II is tested
               against.
         I.1  the objective and its gradient, one entry       [paper 2.2, 3.2]
         I.2  the problem: counts and B_wc       ro_sgns_problem_create_naive
         I.3  F(X) entry by entry                    ro_sgns_objective_naive
         I.4  GEMM: the triple loop                       ro_sgns_gemm_naive
         I.5  Householder QR, one reflector at a time       ro_sgns_qr_naive
         I.6  one-sided Jacobi SVD, cyclic                 ro_sgns_svd_naive
         I.7  the manifold of rank-d matrices, its tangent space and the
              retraction (projector splitting)                   [paper 3.1]
         I.8  the start: SPPMI and its SVD, dense  [paper 5] ro_sgns_start_naive,
                                                          ro_sgns_tsvd_naive
         I.9  the step, every matrix formed  [Algorithm 1] ro_sgns_ro_step_naive
         I.10 embeddings from the point (Step 2)    [paper 2.3]
                                            ro_sgns_factors_embeddings_naive
         I.11 the run: K steps, a step size, halving  ro_sgns_ro_train_naive
     Part II.  The same, fast: nothing here changes what a result means.
         II.0 what Part II builds on: the problem's helpers, MR/NR/KC and
              the portable micro-kernel, the blocked Jacobi SVD
              (ro_sgns_svd_builtin), ro_sgns_rng_*, ro_sgns_csr_create,
              ro_sgns_sppmi, ro_sgns_factors_embeddings
         II.1 GEMM: packed, blocked, SIMD micro-kernels  ro_sgns_gemm(_builtin)
         II.2 QR by blocks and by Cholesky QR twice    ro_sgns_qr(_builtin), ro_sgns_svd
         II.3 the counts object and the problem  ro_sgns_problem_create(_csr),
                                                      ro_sgns_csr_*, ...
         II.4 the transport under the step: sums and TSQR over row shards
              (on one machine: plain QRs and nothing)
         II.5 the sweep: F and D(X) P by blocks of rows, never storing X
                                   ro_sgns_objective(_wc), ro_sgns_direction_dense
         II.6 the step: Algorithm 1 at three products a step   ro_sgns_ro_train
         II.6b the metric direction: the gradient in B's metric, whose steps
              stop only at a critical point         (RO_SGNS_NO_METRIC)
         II.7 the start: block Krylov truncated SVD    ro_sgns_tsvd, ..._from_wc
              (RO_SGNS_NO_TSVD leaves out ro_sgns_tsvd)
         II.8 shards: the start and the step over processes (RO_SGNS_NO_SHARDS)
         II.9 the head and the tail: a large vocabulary's rare words folded
              in  ro_sgns_problem_create_head, ro_sgns_fold_in  (RO_SGNS_NO_FOLD)
     Part III. Around the method, each part behind its switch:
         III.1 counting a corpus                               (RO_SGNS_NO_COUNT)
         III.2 persistence: CRC-32C, chunk tables, readers and writers,
               the atomic save                                 (RO_SGNS_NO_FILES)
         III.3 the counts file                                 (RO_SGNS_NO_FILES)
         III.4 checkpoints                                     (RO_SGNS_NO_FILES)
         III.5 word vectors in memory, word2vec and GloVe files
                                       (RO_SGNS_NO_FILES; RO_SGNS_NO_EVAL too)
         III.6 evaluation: similarity, neighbours, analogies    (RO_SGNS_NO_EVAL)
         III.7 the SGD-SGNS baseline (word2vec)                  (RO_SGNS_NO_SGD)
     License (dual MIT / public domain) at the end.

   CHOOSING THE SETTINGS (the reasons, per section: docs/GUIDE.md)
     Start from the defaults: k = 5, cds = 1, the SVD-SPPMI start by block
     Krylov, 10 steps in the scaled direction at step 1, safeguarded and
     fused (three n x m x d products a step). ro_sgns_estimate_memory and
     ro_sgns_estimate_step_seconds say what a run costs before it starts.
     A large vocabulary: train its head (the ro-sgns program's: the words
     seen 200 times or more) and fold the tail in (ro_sgns_fold_in). An SGD
     start (ro_sgns_factors_from_wc) keeps more analogies. Embeddings:
     alpha = 0 and W + C for similarity, W for analogies. To keep the best
     step by a validation score, copy the point in the step callback.

   HOW TO READ THIS HEADER
     To learn RO-SGNS, read THE ALGORITHM ON ONE PAGE below, then Part I of
     the implementation, top to bottom (under 1,200 lines with their
     comments): every matrix of Algorithm 1 is formed there, every kernel is
     a plain loop, and it builds alone (RO_SGNS_PLAIN). Part II does the same
     in O((n + m) d + nnz) memory and at the speed of the machine; each
     function there names its Part I twin. Read II.5 and II.6 next to see
     how an n x m matrix is used without being stored. Part III is
     plumbing: read what you use.

   GLOSSARY (the paper's symbols, the code's names)
     #(w,c) counts->val (CSR),  #(w) word_count,  #(c) ctx_count,
     |D| total,  k negatives,  B_wc = k #(w)#(c)/|D| (rowfac * colfac),
     cds the smoothing exponent: B_wc = k #(w) P(c), P(c) ~ #(c)^cds (1 = paper),
     n, m words and contexts,  d rank,  X = U S V^T (ro_sgns_factors),
     lambda / eta the step,  D(X) the step's direction (grad F, or grad F / B),
     W, C embeddings,  s(x) the logistic sigmoid.

   THE ALGORITHM ON ONE PAGE (paper section in brackets)
     Counts from a corpus [2.1]: #(w,c) pairs of word w and context c within a
     window, #(w) = sum_c #(w,c), #(c) = sum_w #(w,c), |D| = sum #(w,c).
     Objective [2.2, eq. 4]: for X in R^{n x m},
         F(X) = sum_{w,c} #(w,c) log s(x_wc) + k #(w)#(c)/|D| log s(-x_wc),
     s the logistic sigmoid, k the number of negative samples. Maximize F over
     rank-d matrices [Proposition 1].
     Gradient [3.2]: (grad F)_wc = #(w,c) s(-x_wc) - k #(w)#(c)/|D| s(x_wc).
     (Beyond the paper: #(c)/|D| may be replaced by the smoothed
     P(c) = #(c)^cds / sum #(c')^cds that word2vec draws negatives from,
     cds = 0.75; and the step may follow grad F / B_wc, entry by entry,
     which one step size fits better: the default.)
     Start [5]: X_0 = U_0 S_0 V_0^T, the rank-d truncated SVD of
         SPPMI_wc = max(log(#(w,c)|D| / (#(w)#(c))) - log k, 0).
     Step i [Algorithm 1], with M = X_i + lambda grad F(X_i):
         U_{i+1}, S_{i+1}   = QR(M V_i)
         V_{i+1}, S_{i+1}^T = QR(M^T U_{i+1})
     M is n x m and dense. Part I forms it; Part II never stores it: each
     product walks it in blocks of rows (block of X from the factors ->
     gradient -> product), three such products a step.
     Embeddings [2.3]: SVD of the small core S = P Sigma Q^T gives
         W = U P Sigma^(1/2),  C = V Q Sigma^(1/2).

   BUILD OPTIONS (define before including; "all" = in every file that includes
   the header, "impl" = only in the file that defines RO_SGNS_IMPLEMENTATION)
     RO_SGNS_REAL          all   float (default) or double: the type of every
                                 big matrix. Sums of many terms (objective,
                                 norms) are accumulated in double either way.
     RO_SGNS_STATIC        all   make every function static (private copy per
                                 translation unit; several may coexist).
     RO_SGNS_MALLOC(c,sz)  impl  allocator; define all three or none. c is the
     RO_SGNS_REALLOC(c,p,sz)     user context from ro_sgns_allocator.user (NULL
     RO_SGNS_FREE(c,p)           when no runtime allocator is given). A runtime
                                 ro_sgns_allocator passed to a call wins.
     RO_SGNS_ASSERT(x)     impl  internal invariants only (default assert()).
                                 User input is never asserted; it gets an error.
     RO_SGNS_SQRT, _EXP, _LOG, _FABS, _POW, _FLOOR, _COS  impl   libm replacements
                                 (double -> double), for targets without libm.
     RO_SGNS_PLAIN         impl  with RO_SGNS_IMPLEMENTATION: compile only the
                                 basics and Part I (the plain method, O(n m)
                                 memory; libc and libm, no OpenMP): the *_naive
                                 calls and ro_sgns_factors_create work, the
                                 rest is declared but not defined.
     Leaving parts out (each is independent of the others: what stays never
     calls into what goes; "impl" suffices, "all" also hides the declarations):
     RO_SGNS_NO_COUNT      all   no counting of a corpus (Part III.1); counts
                                 can still be filled in memory or loaded.
     RO_SGNS_NO_FILES      all   no file formats: counts files, checkpoints,
                                 word vector files, saving to a path (III.2-5).
     RO_SGNS_NO_EVAL       all   no similarity, neighbours, analogies (III.6).
     RO_SGNS_NO_SGD        all   no SGD-SGNS baseline (III.7).
     RO_SGNS_NO_SHARDS     all   no multi-process start and step (II.8); the
                                 one-machine step is the same code.
     RO_SGNS_NO_STDIO      all   no FILE* or path functions; memory and
                                 callback I/O remain.
     RO_SGNS_NO_FOLD       all   no head and tail (II.9): no
                                 ro_sgns_problem_create_head, ro_sgns_csr_head
                                 or ro_sgns_fold_in.
     RO_SGNS_NO_METRIC     all   no metric direction (II.6b): ro_sgns_ro_train
                                 with direction = RO_SGNS_DIRECTION_METRIC
                                 returns RO_SGNS_ERR_UNSUPPORTED (the enum
                                 value and cg_iterations stay: the config is
                                 the same in every build).
     RO_SGNS_NO_TSVD       all   no fast truncated SVD (II.7: ro_sgns_tsvd,
                                 ro_sgns_tsvd_shard, ro_sgns_tsvd_config); a
                                 start comes from ro_sgns_tsvd_naive (dense:
                                 small problems) or from any W0, C0
                                 (ro_sgns_factors_from_wc).
     RO_SGNS_STEP_ONLY     all   all nine above: the step alone, from counts
                                 the caller fills in memory and a start from
                                 ro_sgns_tsvd_naive or ro_sgns_factors_from_wc
                                 (no file API of POSIX or Win32 is included;
                                 tests/configs.sh bounds its object's size).
     Swapping the linear algebra:
     RO_SGNS_USE_CBLAS     impl  ro_sgns_gemm calls cblas_sgemm/cblas_dgemm
                                 (include <cblas.h>, link e.g. -lopenblas;
                                 OpenBLAS's kernels: docs/GUIDE.md, 6).
                                 The RO step's tile products stay on the
                                 built-in kernel unless
     RO_SGNS_CBLAS_TILES   impl  is defined too: then each OpenMP thread of
                                 the sweep calls the BLAS on its own tile, so
                                 the BLAS must run one thread there (OpenBLAS's
                                 OpenMP or serial build, MKL, BLIS; a pthreads
                                 OpenBLAS oversubscribes the cores). In this
                                 mode the bits depend on the row blocking (the
                                 BLAS picks kernels by shape), never on thread
                                 counts.
     RO_SGNS_USE_LAPACKE   impl  ro_sgns_qr / ro_sgns_svd call LAPACKE
                                 ?geqrf+?orgqr and ?gesdd (link -llapacke).
                                 The built-in kernels stay compiled and are
                                 reachable as ro_sgns_*_builtin.
     RO_SGNS_NO_SIMD       impl  never use SIMD intrinsics, even when the
                                 compiler targets AVX-512 or AVX2 + FMA
                                 (testing aid: the portable GEMM kernel).
     RO_SGNS_NO_MADVISE    impl  do not ask Linux for huge pages under the
                                 SGD baseline's W and C (madvise
                                 MADV_HUGEPAGE; only speed changes).
     RO_SGNS_NO_CPUID      impl  do not read cache sizes with cpuid (x86):
                                 the GEMM's MC and NC come from a fixed
                                 table. Only speed changes, never a bit.

   WHAT IT DOES NOT DO
     No threads of its own (OpenMP only), no global state, no printing, no
     abort()/exit(), no -ffast-math assumptions (NaN checks must survive).

   DETERMINISM
     Same input -> bitwise the same output for any number of OpenMP threads,
     except SGD (III.7) with Hogwild threads: bitwise only with 1 thread.
     Work is split only over independent output blocks; the order in which
     any one sum is accumulated is fixed by the block layout (KC, see II.1),
     never by the thread count.
*/
#ifndef RO_SGNS_H
#define RO_SGNS_H

#define RO_SGNS_VERSION_MAJOR 0
#define RO_SGNS_VERSION_MINOR 4
#define RO_SGNS_VERSION_PATCH 0
#define RO_SGNS_VERSION_STRING "0.4.0"

/* The switches that leave parts out (BUILD OPTIONS at the top).
   RO_SGNS_STEP_ONLY is all of them. No switch needs another: what stays
   in never calls into what goes. */
#ifdef RO_SGNS_STEP_ONLY
#ifndef RO_SGNS_NO_COUNT
#define RO_SGNS_NO_COUNT
#endif
#ifndef RO_SGNS_NO_FILES
#define RO_SGNS_NO_FILES
#endif
#ifndef RO_SGNS_NO_EVAL
#define RO_SGNS_NO_EVAL
#endif
#ifndef RO_SGNS_NO_SGD
#define RO_SGNS_NO_SGD
#endif
#ifndef RO_SGNS_NO_SHARDS
#define RO_SGNS_NO_SHARDS
#endif
#ifndef RO_SGNS_NO_STDIO
#define RO_SGNS_NO_STDIO
#endif
#ifndef RO_SGNS_NO_FOLD
#define RO_SGNS_NO_FOLD
#endif
#ifndef RO_SGNS_NO_METRIC
#define RO_SGNS_NO_METRIC
#endif
#ifndef RO_SGNS_NO_TSVD
#define RO_SGNS_NO_TSVD
#endif
#endif

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t, uint32_t */
#ifndef RO_SGNS_NO_STDIO
#include <stdio.h> /* FILE */
#endif

#ifndef RO_SGNS_REAL
#define RO_SGNS_REAL float
#endif
typedef RO_SGNS_REAL ro_sgns_real;

#ifndef RO_SGNS_DEF
#ifdef RO_SGNS_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS_DEF static __attribute__((unused))
#else
#define RO_SGNS_DEF static
#endif
#else
#define RO_SGNS_DEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
   0. Basics: result codes, errors, allocator, byte-stream callbacks
      Matrices are row-major: (i, j) of A with leading dimension lda is
      A[i*lda + j], lda >= the columns stored. Products of sizes are checked
      for overflow before anything is allocated.
   ====================================================================== */

/* What every fallible call returns: 0 success, 1 stopped, negative an
   error (numbered from -1 without gaps). */
typedef enum ro_sgns_result {
    RO_SGNS_OK = 0,
    RO_SGNS_STOPPED = 1,                 /* a callback asked to stop (not an error) */
    RO_SGNS_ERR_INVALID_ARGUMENT = -1,   /* a bad parameter: NULL, zero size, d > n, ... */
    RO_SGNS_ERR_OUT_OF_MEMORY = -2,      /* an allocation failed */
    RO_SGNS_ERR_SIZE_OVERFLOW = -3,      /* n*m*sizeof does not fit in size_t */
    RO_SGNS_ERR_IO = -4,                 /* read/write/open/rename failed */
    RO_SGNS_ERR_FORMAT = -5,             /* malformed or truncated input file */
    RO_SGNS_ERR_EMPTY = -6,              /* no data: empty corpus, empty vocabulary */
    RO_SGNS_ERR_NUMERIC = -7,            /* NaN or Inf appeared */
    RO_SGNS_ERR_NOT_CONVERGED = -8,      /* an iteration hit its limit */
    RO_SGNS_ERR_BUDGET = -9,             /* the memory budget is too small */
    RO_SGNS_ERR_UNSUPPORTED = -10,       /* not available in this build */
    RO_SGNS_ERR_NOT_FOUND = -11          /* a word is not in the vocabulary */
} ro_sgns_result;

/* A static, never-NULL name for every code ("ok", "out of memory", ...). */
RO_SGNS_DEF const char *ro_sgns_result_string(ro_sgns_result code);

/* A failure's code and a message naming the file, line or byte, or the
   dimension at fault. Calls take an optional ro_sgns_error * (NULL = don't
   care); on success code is RO_SGNS_OK and message "". No global state. */
#define RO_SGNS_MESSAGE_SIZE 256
typedef struct ro_sgns_error {
    ro_sgns_result code;
    char message[RO_SGNS_MESSAGE_SIZE];
} ro_sgns_error;

/* A runtime allocator, passed as const ro_sgns_allocator * (NULL = the
   RO_SGNS_MALLOC/REALLOC/FREE macros, by default malloc/realloc/free).
   Set all three functions; user is passed back to each. */
typedef struct ro_sgns_allocator {
    void *(*malloc_fn)(void *user, size_t size);
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    void (*free_fn)(void *user, void *ptr);
    void *user;
} ro_sgns_allocator;

/* Byte streams for every format (builds without stdio use them too).
   Read: put up to size bytes at buf, return how many (fewer is fine), 0 at
   the end, (size_t)-1 on error. Write: all size bytes; 0 = ok, else error. */
typedef size_t (*ro_sgns_read_fn)(void *user, void *buf, size_t size);
typedef int (*ro_sgns_write_fn)(void *user, const void *data, size_t size);

/* ######################################################################
   THE METHOD: sections 1-7, always there. The counts (1), the start (2),
   the problem and its objective (3), the step (4), the embeddings (5), the
   dense linear algebra under them (6) and the transport for shards (7).
   Their code is Part I (plainly) and Part II (fast) of the implementation.
   ###################################################################### */

/* ======================================================================
   1. The counts: #(w,c) as a CSR matrix, its marginals and vocabulary
      [paper 2.1] (implementation: II.3)
      From counting a corpus (section 8), a counts file (section 9) or your
      own code; ro_sgns_problem_create_csr (section 3) takes any n x m
      count matrix in CSR form without this object.
   ====================================================================== */

/* Tokens longer than this many bytes are cut (section 8, TOKENS). */
#define RO_SGNS_MAX_WORD_BYTES 100

/* dynamic_window values */
#define RO_SGNS_WINDOW_FIXED 0    /* every pair within L counts 1 */
#define RO_SGNS_WINDOW_SAMPLED 1  /* word2vec: per centre, L' uniform in 1..L */
#define RO_SGNS_WINDOW_WEIGHTED 2 /* pair at distance dist counts (L-dist+1)/L */

/* Progress of counting's pair pass (section 8), in word occurrences
   whose windows are summed. */
typedef struct ro_sgns_count_progress {
    uint64_t positions;       /* positions whose windows are summed so far */
    uint64_t positions_total; /* where positions ends: the vocabulary's tokens */
} ro_sgns_count_progress;

/* Called between rows (rounds of rows with OpenMP), from one thread; it
   changes no count. Non-zero stops: counting returns RO_SGNS_STOPPED and
   *out is untouched. */
typedef int (*ro_sgns_count_progress_fn)(const ro_sgns_count_progress *progress, void *user);

/* Settings for counting: start from ro_sgns_count_config_default() (zero
   means something for several fields). */
typedef struct ro_sgns_count_config {
    int window;            /* L, words on each side, 1..65535. Default 5 (the
                              authors' code used 2) */
    uint64_t min_count;    /* keep words counted >= min_count times (0 acts as
                              1). Default 5; the paper's "more than 200" is 201 */
    uint64_t max_vocab;    /* keep at most this many words, the most frequent
                              (ties by byte order); 0 = no limit (default) */
    int dynamic_window;    /* RO_SGNS_WINDOW_FIXED (default), _SAMPLED, _WEIGHTED */
    double sample;         /* subsampling threshold t (section 8, WHAT IS
                              COUNTED); 0 = off (default), word2vec 1e-3 */
    int cross_lines;       /* 0 = windows stop at '\n' (default), 1 = lines are
                              one stream; the input's two ends always stop them */
    int close_gaps;        /* 0 = dropped words keep their position (default),
                              1 = they are removed before windowing (word2vec) */
    uint64_t memory_budget; /* bytes counting may hold at once, result included;
                              0 = no limit (default) */
    uint64_t seed;         /* for the sampled window and sample > 0. Default 1 */
    int allow_binary;      /* 0 = refuse input that is not text (default; section
                              8, NOT TEXT), 1 = count any bytes */
    ro_sgns_count_progress_fn callback; /* progress of the pair pass; NULL (default) */
    void *user;            /* passed to callback */
} ro_sgns_count_config;

/* A vocabulary: n words with ids 0..n-1 by descending count, ties by byte
   order (memcmp, then the shorter first). */
typedef struct ro_sgns_vocab {
    size_t n;
    char **word;     /* word[i]: the bytes of word i, NUL-terminated, in one arena */
    uint32_t *len;   /* byte length of word i */
    uint64_t *count; /* occurrences of word i in the corpus (exact, before
                        subsampling) */
    /* private */
    char *arena_;
    size_t arena_size_;
    uint32_t *index_;   /* open-addressing hash: id + 1, 0 = empty */
    size_t index_mask_; /* table size - 1 (a power of two minus one) */
} ro_sgns_vocab;

/* The counts: an n x n CSR matrix of #(w, c), its marginals and vocabulary,
   all owned by this object (ro_sgns_counts_free). Row w: #(w, col[k]) =
   val[k] for k in [row_ptr[w], row_ptr[w+1]), columns strictly ascending,
   val > 0, rounded to float once (exact integers up to 2^24); the
   marginals and |D| are doubles from the unrounded sums. A row range holds
   rows [row_begin, row_end) only (docs/GUIDE.md, section 1). */
typedef struct ro_sgns_counts {
    ro_sgns_vocab vocab;     /* words = contexts */
    size_t n;                /* rows = columns = vocab.n */
    uint64_t nnz;            /* number of stored pairs (of the rows held) */
    uint64_t *row_ptr;       /* rows held + 1 offsets, row_ptr[0] = 0, the
                                last = nnz (n + 1 for the whole matrix) */
    uint32_t *col;           /* nnz context ids (global in a row range) */
    float *val;              /* nnz counts #(w, c), rounded to float */
    double *word_count;      /* n: #(w) = sum_c #(w, c) */
    double *ctx_count;       /* n: #(c) = sum_w #(w, c) */
    double total;            /* |D| = sum of all #(w, c) */
    size_t row_begin;        /* the rows held: [row_begin, row_end); 0 and */
    size_t row_end;          /* n for the whole matrix */
    uint64_t corpus_tokens;  /* tokens read, all words */
    uint64_t distinct_words; /* distinct words read, before min_count/max_vocab */
    ro_sgns_count_config config; /* the settings that made these counts
                                    (callback and user NULL) */
    uint64_t peak_bytes;     /* most memory counting held at once (0 if loaded) */
    /* private */
    ro_sgns_allocator alloc_;
    int has_alloc_;
} ro_sgns_counts;

/* window 5, min_count 5, max_vocab 0, fixed window, sample 0, lines are
   boundaries, gaps kept, no memory budget, seed 1, binary input refused. */
RO_SGNS_DEF ro_sgns_count_config ro_sgns_count_config_default(void);

/* Free the counts and all they own, with their allocator. NULL is fine. */
RO_SGNS_DEF void ro_sgns_counts_free(ro_sgns_counts *counts);

/* The id of a word (len bytes at word), or -1 if it is not in the
   vocabulary. O(1): a hash lookup. */
RO_SGNS_DEF int64_t ro_sgns_vocab_find(const ro_sgns_vocab *vocab, const char *word,
                                       size_t len);

/* A 64-bit hash (never 0) of n, the words, their counts, #(w), #(c) and
   |D|: the same for the whole matrix and any row range of it, loaded or
   counted, on any host. Checkpoints store it (section 9). 0 for NULL or
   incomplete counts. */
RO_SGNS_DEF uint64_t ro_sgns_counts_fingerprint(const ro_sgns_counts *counts);

/* Upper estimates, in bytes on a 64-bit host, of what a run needs, from
   the vocabulary size n_words, the stored pairs nnz, the dimension d and,
   for counting, the corpus's n_tokens and n_distinct words (0 = unknown:
   left out). The formulas: docs/GUIDE.md, section 1. */
typedef struct ro_sgns_memory_estimate {
    uint64_t counts;     /* the ro_sgns_counts object */
    uint64_t counting;   /* peak while counting (about the least memory_budget) */
    uint64_t training;   /* peak while training (steps after counting) */
    uint64_t peak;       /* max(counting, training) */
    uint64_t file_bytes; /* size of the counts file */
} ro_sgns_memory_estimate;
RO_SGNS_DEF ro_sgns_memory_estimate ro_sgns_estimate_memory(uint64_t n_words, uint64_t nnz,
                                                            size_t d, uint64_t n_tokens,
                                                            uint64_t n_distinct);

/* ======================================================================
   2. SPPMI and the start X_0 [paper 5; Levy and Goldberg 2014]
      (implementation: ro_sgns_tsvd_naive plainly, II.7 fast)
   ====================================================================== */

/* A sparse matrix in compressed sparse row form: row i's entries are
   val[k] at column col[k] for k in [row_ptr[i], row_ptr[i+1]), columns
   ascending. Owned by one object; free with ro_sgns_csr_free. */
typedef struct ro_sgns_csr {
    size_t rows, cols;
    uint64_t nnz;
    uint64_t *row_ptr; /* rows + 1 */
    uint32_t *col;     /* nnz */
    ro_sgns_real *val; /* nnz */
    /* private */
    ro_sgns_allocator alloc_;
    int has_alloc_;
} ro_sgns_csr;

/* A new rows x cols matrix with room for nnz entries, row_ptr all zero:
   fill row_ptr, col and val yourself. The calls that take it check in
   O(rows + nnz) that row_ptr runs from 0 without falling to at most nnz
   and every column is below cols (else INVALID_ARGUMENT). */
RO_SGNS_DEF ro_sgns_result ro_sgns_csr_create(size_t rows, size_t cols, uint64_t nnz,
                                              ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);
RO_SGNS_DEF void ro_sgns_csr_free(ro_sgns_csr *A);
/* A^T as a new CSR matrix (columns ascending in every row). */
RO_SGNS_DEF ro_sgns_result ro_sgns_csr_transpose(const ro_sgns_csr *A, ro_sgns_csr **out,
                                                 const ro_sgns_allocator *alloc,
                                                 ro_sgns_error *err);
/* Y = A X: X is A->cols x l (leading dimension ldx), Y is A->rows x l (ldy).
   Each row of Y is summed in column order: the same bits for any thread
   count. */
RO_SGNS_DEF ro_sgns_result ro_sgns_csr_mm(const ro_sgns_csr *A, size_t l,
                                          const ro_sgns_real *X, size_t ldx, ro_sgns_real *Y,
                                          size_t ldy, ro_sgns_error *err);

/* SPPMI_wc = max(log(#(w,c) / (#(w) P(c))) - log k, 0) on the counts'
   pattern, P(c) = #(c)^cds / sum #(c')^cds (cds = 1: #(c)/|D|), k the
   negative samples; entries <= 0 dropped. A row range gives its rows (may
   be empty). Errors: k or cds not finite and > 0 (INVALID_ARGUMENT), the
   sum overflowing a double (NUMERIC), no positive entry in a whole matrix
   (EMPTY). */
RO_SGNS_DEF ro_sgns_result ro_sgns_sppmi(const ro_sgns_counts *counts, double k, double cds,
                                         ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                         ro_sgns_error *err);

/* A point on the manifold of rank-d matrices, X = U S V^T: U (n x d) and
   V (m x d) with orthonormal columns, S (d x d) the core, all row-major.
   The truncated SVD returns S diagonal; the RO step keeps it triangular. */
typedef struct ro_sgns_factors {
    size_t n, m, d;
    ro_sgns_real *U, *S, *V;
    uint64_t iteration; /* RO steps taken from the start point */
    double next_step;   /* the safeguarded step size to try next (0 = the
                           configured one); kept so a resumed run matches */
    /* What the point was trained for, so a resume can be checked
       (ro_sgns_factors_check_resume); 0 = not recorded. Set from the
       problem by every step (ro_sgns_factors_create starts cds at 1). */
    uint64_t counts_fingerprint; /* ro_sgns_counts_fingerprint of the counts */
    double k;                    /* negative samples */
    int window;                  /* the counts' window L */
    double cds;                  /* context distribution smoothing (1 = none) */
    /* private */
    ro_sgns_allocator alloc_;
    int has_alloc_;
} ro_sgns_factors;

/* A new n x m point of rank d (d <= min(n, m)); free with
   ro_sgns_factors_free (NULL is fine). */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_create(size_t n, size_t m, size_t d,
                                                  ro_sgns_factors **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
RO_SGNS_DEF void ro_sgns_factors_free(ro_sgns_factors *f);

#ifndef RO_SGNS_NO_TSVD
/* How the truncated SVD searches a space of l = d + p columns:
   KRYLOV (default) block Krylov grown b columns at a time, then
   Rayleigh-Ritz; SUBSPACE randomized subspace iteration, q passes. A
   singular value repeated more than b times can escape Krylov. Which to
   choose: docs/GUIDE.md, section 2. */
typedef enum ro_sgns_tsvd_method {
    RO_SGNS_TSVD_KRYLOV = 0,
    RO_SGNS_TSVD_SUBSPACE = 1
} ro_sgns_tsvd_method;

/* The truncated SVD's progress: after each Krylov block or subspace pass,
   and once after the final small SVD (done = total). */
typedef struct ro_sgns_tsvd_progress {
    size_t done;    /* blocks (Krylov) or passes over A (subspace) finished */
    size_t total;   /* of how many (the last one: the final small SVD) */
    double seconds; /* wall seconds since the SVD began (CPU seconds
                       without OpenMP) */
} ro_sgns_tsvd_progress;

/* Non-zero stops: ro_sgns_tsvd returns RO_SGNS_STOPPED and no factors. A
   callback that does not stop changes no bit of the result. */
typedef int (*ro_sgns_tsvd_callback)(const ro_sgns_tsvd_progress *progress, void *user);

/* Settings of ro_sgns_tsvd (NULL there = ro_sgns_tsvd_config_default()). */
typedef struct ro_sgns_tsvd_config {
    int method;        /* RO_SGNS_TSVD_KRYLOV (default) or _SUBSPACE */
    size_t oversample; /* p: l = d + p columns, at most min(rows, cols).
                          0 (default): 2 d (Krylov), max(50, d / 2) */
    size_t block;      /* Krylov: b, columns per block. 0 (default): l / 16,
                          between 8 and 50 */
    int power_iters;   /* subspace iteration: q. Default 5 */
    uint64_t seed;     /* the Gaussian test matrix. Default 1 */
    ro_sgns_tsvd_callback callback; /* progress; default NULL */
    void *user;                     /* passed to the callback */
} ro_sgns_tsvd_config;
RO_SGNS_DEF ro_sgns_tsvd_config ro_sgns_tsvd_config_default(void);

/* The rank-d truncated SVD A ~ U diag(s) V^T of a sparse matrix, into new
   factors (S = diag(s), s descending). d > min(rows, cols) is
   INVALID_ARGUMENT ("d larger than the vocabulary"). The same seed gives
   the same bits for any thread count. */
RO_SGNS_DEF ro_sgns_result ro_sgns_tsvd(const ro_sgns_csr *A, size_t d,
                                        const ro_sgns_tsvd_config *config,
                                        ro_sgns_factors **out, const ro_sgns_allocator *alloc,
                                        ro_sgns_error *err);
#endif /* RO_SGNS_NO_TSVD */

/* The same from A formed dense and its whole Jacobi SVD
   (ro_sgns_svd_naive): O(rows cols) memory. The plain reference
   ro_sgns_tsvd is tested against; for tests and small problems. */
RO_SGNS_DEF ro_sgns_result ro_sgns_tsvd_naive(const ro_sgns_csr *A, size_t d,
                                              ro_sgns_factors **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);

/* A start from any W0 (n x d) and C0 (m x d): X0 = W0 C0^T as U S V^T by
   a QR of each factor (S = R_W R_C^T), never forming X0. NaN or Inf in W0
   or C0, or an S beyond the real type: NUMERIC. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_from_wc(size_t n, size_t m, size_t d,
                                                   const ro_sgns_real *W0,
                                                   const ro_sgns_real *C0,
                                                   ro_sgns_factors **out,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err);

/* ======================================================================
   3. The problem, the objective and its gradient [paper 2.2 eq. 4, 3.2]
      (implementation: ro_sgns_objective_naive plainly, II.3 and II.5 fast)
   ====================================================================== */

/* The SGNS problem: counts (borrowed: they must outlive it), k negatives
   and B_wc = k #(w) P(c), P(c) = #(c)^cds / sum #(c')^cds (cds = 1: the
   paper's; docs/GUIDE.md, section 3). k and cds finite and > 0, else
   INVALID_ARGUMENT; a #(c)^cds or sum beyond the real type: NUMERIC. A row
   range makes a shard (as ro_sgns_problem_create_shard, section 7). It
   keeps the counts' fingerprint and window for the factors. */
typedef struct ro_sgns_problem ro_sgns_problem;

RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create(const ro_sgns_counts *counts, double k,
                                                  double cds, ro_sgns_problem **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
/* The same from any n x m count matrix in CSR form, row_ptr (n + 1
   offsets), col and val (borrowed: they must outlive the problem; columns
   ascending, values > 0). #(w), #(c) and |D| are its row sums, column
   sums and total, summed in double. */
RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_csr(size_t n, size_t m,
                                                      const uint64_t *row_ptr,
                                                      const uint32_t *col, const float *val,
                                                      double k, double cds,
                                                      ro_sgns_problem **out,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);
RO_SGNS_DEF void ro_sgns_problem_free(ro_sgns_problem *problem);

/* F(X) = sum over all n x m pairs of #(w,c) log s(x_wc) + B_wc log
   s(-x_wc), in double in a fixed order (the same bits for any thread
   count); larger is better (the paper prints F x 1e-9). For X = U S V^T: */
RO_SGNS_DEF ro_sgns_result ro_sgns_objective(const ro_sgns_problem *problem,
                                             const ro_sgns_factors *x, double *F,
                                             ro_sgns_error *err);
/* ... and for X = W C^T from embeddings W (n x d) and C (m x d), row-major,
   so SGD and SVD embeddings are scored by the same code. For a problem of
   rows [r0, r1) (ro_sgns_problem_create_rows) W holds those r1 - r0 rows
   and F is their part of the whole F (the part of held-out text's F that a
   band of rows has: ro-sgns objective -bands). */
RO_SGNS_DEF ro_sgns_result ro_sgns_objective_wc(const ro_sgns_problem *problem,
                                                const ro_sgns_real *W, const ro_sgns_real *C,
                                                size_t d, double *F, ro_sgns_error *err);

/* The direction D(X) of a step, M = X + step D(X) (docs/GUIDE.md,
   section 3): PLAIN grad F (the paper; step lambda); SCALED grad F / B
   entry by entry, step about 1 (default); METRIC the Riemannian gradient
   in B's metric (ro_sgns_ro_train only; II.6b). */
typedef enum ro_sgns_direction {
    RO_SGNS_DIRECTION_PLAIN = 0,
    RO_SGNS_DIRECTION_SCALED = 1,
    RO_SGNS_DIRECTION_METRIC = 2
} ro_sgns_direction;

/* The whole direction dir (PLAIN or SCALED) as a dense n x m matrix into
   out (n rows of m values): for tests and tiny problems, since it is what
   the library otherwise never stores. */
RO_SGNS_DEF ro_sgns_result ro_sgns_direction_dense(const ro_sgns_problem *problem,
                                                   const ro_sgns_factors *x,
                                                   ro_sgns_direction dir, ro_sgns_real *out,
                                                   ro_sgns_error *err);

/* |P_T(D(X))|_F, the norm of the direction's part in the tangent space at
   X = U S V^T; with PLAIN, 0 exactly at a critical point of F on the
   manifold (docs/GUIDE.md, section 3). Two sweeps, 2 (n + m) d reals more.
   A shard or dir METRIC: INVALID_ARGUMENT; a NaN or Inf norm: NUMERIC. */
RO_SGNS_DEF ro_sgns_result ro_sgns_tangent_norm(const ro_sgns_problem *problem,
                                                const ro_sgns_factors *x, ro_sgns_direction dir,
                                                double *norm, ro_sgns_error *err);

/* The same F with every entry computed from the factors in double with
   libm (O(n m d) time, O(d) memory): the plain reference, for tests and
   small problems. A shard problem: INVALID_ARGUMENT. */
RO_SGNS_DEF ro_sgns_result ro_sgns_objective_naive(const ro_sgns_problem *problem,
                                                   const ro_sgns_factors *x, double *F,
                                                   ro_sgns_error *err);

/* ======================================================================
   4. The Riemannian step [paper 3.1-3.2, Algorithm 1]
      (implementation: ro_sgns_ro_step_naive plainly, II.6 fast)
      Step size, fuse, the best iterate, the SGD start, a large vocabulary's
      head and tail: docs/GUIDE.md, section 4.
   ====================================================================== */

/* What the progress callback sees after every step (and, with
   report_blocks, inside one). */
typedef struct ro_sgns_ro_progress {
    uint64_t iteration; /* steps taken (the factors' iteration count) */
    double objective;   /* F at the new point */
    double objective_prev; /* F at the point before */
    double step;        /* the step (lambda or eta) that was accepted */
    double step_norm;   /* |X_new - X_old|_F; / step, |P_T(D)|_F to first
                           order: 0 as the steps converge. Below about
                           sqrt(8 eps) |S|_F rounding (0 if negative) */
    int halvings;       /* how often the step was halved in this iteration */
    double seconds;     /* wall seconds of this iteration */
    /* Inside a step (only with report_blocks = 1) */
    int within_step;    /* 0: the report after a step; 1: inside one */
    int sweep;          /* inside: the sweeps begun in this step (1, 2, ...;
                           0: the sweep at the start, before step 1) */
    uint64_t blocks_done, blocks_total; /* inside: the sweep's blocks of rows */
} ro_sgns_ro_progress;

/* After each step, x is the new point (readable during the call); non-zero
   stops: ro_sgns_ro_train returns RO_SGNS_STOPPED with x as reported.
   Inside a step (report_blocks) x is the last accepted point, the call
   comes from a sweep's thread, one at a time: keep it short, do not call
   the library, the return value is ignored. No bit of a result changes. */
typedef int (*ro_sgns_ro_callback)(const ro_sgns_ro_progress *progress,
                                   const ro_sgns_factors *x, void *user);

/* Settings of ro_sgns_ro_train (NULL there = ro_sgns_ro_config_default()). */
typedef struct ro_sgns_ro_config {
    int iterations;              /* K, >= 0. Default 10. */
    ro_sgns_direction direction; /* Default RO_SGNS_DIRECTION_SCALED. */
    double step;                 /* lambda (plain) or eta (scaled), finite, > 0.
                                    Default 1 (plain: near 1 / max B_wc) */
    int safeguard;               /* 1 (default): a step that lowers F is halved
                                    and retried; 0: the paper's fixed step. */
    int max_halvings;            /* halvings a step may try, >= 0. Default 8; if
                                    all still lower F, training ends (OK) */
    double grow;                 /* >= 1, default 2: an accepted step s makes the
                                    next start at min(s grow, step_max) */
    double step_max;             /* 0 (default): step; else >= step, the cap
                                    grow raises accepted steps to */
    size_t block_rows;           /* rows of M per block (0 = 288) */
    size_t block_cols;           /* columns per tile (0 = 512) */
    size_t keep_direction_bytes; /* bytes for rows of D kept for the next step,
                                    the most frequent first. Default 0: off */
    int fuse;                    /* 1 (default): 3 big products a step, one
                                    block of D's rows a thread; 0: 4. Not with
                                    keep_direction_bytes */
    ro_sgns_ro_callback callback; /* after each step; NULL (default) */
    void *user;                  /* passed to the callback */
    int report_blocks;           /* 1: the callback also inside the sweeps,
                                    after each block of rows. Default 0 */
    int cg_iterations;           /* METRIC: conjugate gradients a step for
                                    its direction (0: the preconditioner
                                    alone). Default 4 */
} ro_sgns_ro_config;
RO_SGNS_DEF ro_sgns_ro_config ro_sgns_ro_config_default(void);

/* K steps of Algorithm 1 from x, in place: U', S' = QR(M V), V', S'^T =
   QR(M^T U'), M = X + step D(X) never stored. x changes only when a step
   is accepted, all at once, so after any error (NUMERIC without the
   safeguard, OUT_OF_MEMORY, IO from a shard's transport) x is the last
   accepted point (x->iteration says which) and a resumed run goes on as an
   uninterrupted one would; an error before step 1 leaves x untouched. */
RO_SGNS_DEF ro_sgns_result ro_sgns_ro_train(const ro_sgns_problem *problem,
                                            ro_sgns_factors *x,
                                            const ro_sgns_ro_config *config,
                                            ro_sgns_error *err);

/* One step of Algorithm 1 at step lambda in direction dir (PLAIN or
   SCALED, a whole problem: else INVALID_ARGUMENT), no safeguard, with X,
   D(X) and M formed dense n x m and the products by ro_sgns_gemm_naive; x
   updated (iteration + 1). The plain reference the fused step is tested
   against: O(n m) memory, small problems only. */
RO_SGNS_DEF ro_sgns_result ro_sgns_ro_step_naive(const ro_sgns_problem *problem,
                                                 ro_sgns_factors *x, ro_sgns_direction dir,
                                                 double lambda, ro_sgns_error *err);

/* *seconds, the wall seconds of one default step of an n x m problem at
   dimension d: its work W = 6 n m d + 40 n m + 12 (n + m) d^2 operations
   over *rate (operations a second). *rate <= 0: measured here on a small
   random problem (two steps, at d or below) and stored for later calls
   (docs/GUIDE.md, section 4). Errors: INVALID_ARGUMENT (rate or seconds
   NULL, d = 0, d > min(n, m)), OUT_OF_MEMORY. */
RO_SGNS_DEF ro_sgns_result ro_sgns_estimate_step_seconds(size_t n, size_t m, size_t d,
                                                         double *rate, double *seconds,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);

#ifndef RO_SGNS_NO_FOLD
/* THE HEAD AND THE TAIL (II.9; docs/GUIDE.md, section 4): train on the
   first n_h rows and m_h columns of a whole problem (the most frequent),
   with its B, so F of the head is the whole F's head block; then fold the
   tail in. Owns a copy of those counts (problem may go). 1 <= n_h <= n,
   1 <= m_h <= m. */
RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_head(const ro_sgns_problem *problem,
                                                       size_t n_h, size_t m_h,
                                                       ro_sgns_problem **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err);

/* The first rows x cols block of A as a new matrix (an SPPMI's head: the
   head's start for ro_sgns_tsvd). rows <= A->rows, cols <= A->cols. */
RO_SGNS_DEF ro_sgns_result ro_sgns_csr_head(const ro_sgns_csr *A, size_t rows, size_t cols,
                                            ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err);

/* The fold's progress: tail rows done of both sides (words, then
   contexts), of rows_total, and the wall seconds since the fold began. */
typedef struct ro_sgns_fold_progress {
    size_t rows_done, rows_total;
    double seconds;
} ro_sgns_fold_progress;

/* Called from one thread after each block of rows. Non-zero stops:
   ro_sgns_fold_in returns RO_SGNS_STOPPED and no point. */
typedef int (*ro_sgns_fold_callback)(const ro_sgns_fold_progress *progress, void *user);

/* How each tail row's z is solved: minorize-maximize steps from z = 0,
   the first of them Newton's (docs/GUIDE.md, section 4, "Folding in"). */
typedef struct ro_sgns_fold_config {
    int iterations;    /* steps a row, >= 0. Default 1 */
    int line_search;   /* 0 (default): the MM step (1 along the direction);
                          1: the step by a line search */
    size_t block_rows; /* rows solved together (0 = 256); sets the bits */
    /* The start (both or neither; default NULL: rows from z = 0): W0 (n x d)
       and C0 (m x d) of a point W0 C0^T over the whole problem (an SGD
       start). Each tail row starts from its least-squares fit over the
       head's lines (iterations = 0: that alone). */
    const ro_sgns_real *start_w;
    const ro_sgns_real *start_c;
    /* A prior for the rows (needs the start; 0, the default: none). With
       prior = t > 0 each tail row is the MAP estimate under a Gaussian
       prior around its start, covariance t Sigma, Sigma the mean of
       (z - z0)(z - z0)^T over the rarer half of the head's rows (their
       trained z against their own projected start: empirical Bayes).
       A row with few counts stays near its start, one with many moves
       as without it (docs/GUIDE.md, "Folding in", "A prior"). */
    double prior;
    ro_sgns_fold_callback callback; /* progress (NULL: none); no bit depends on it */
    void *user;                     /* passed to callback */
} ro_sgns_fold_config;
RO_SGNS_DEF ro_sgns_fold_config ro_sgns_fold_config_default(void);

/* What the fold did, both sides together: the tail rows' f and |grad f|^2
   summed, at their start and at the end. */
typedef struct ro_sgns_fold_report {
    double f_start, f_end;
    double grad2_start, grad2_end;
    size_t rows;       /* tail rows folded in (words and contexts) */
    size_t rows_empty; /* of which no count in the head: left at their start */
} ro_sgns_fold_report;

/* The whole problem's point from head (trained on create_head's problem):
   U = QR of [U_h; Z], V = QR of [V_h; Y], S from both R and S_h, so X's
   head block is the head's X. report may be NULL (skips the final
   evaluation). Bits set by block_rows, never threads. Errors:
   INVALID_ARGUMENT (sizes, a shard, one start of two), OUT_OF_MEMORY,
   NUMERIC (a NaN, or with a start a head factor of rank below d). */
RO_SGNS_DEF ro_sgns_result ro_sgns_fold_in(const ro_sgns_problem *problem,
                                           const ro_sgns_factors *head,
                                           const ro_sgns_fold_config *config,
                                           ro_sgns_factors **out, ro_sgns_fold_report *report,
                                           const ro_sgns_allocator *alloc, ro_sgns_error *err);
#endif /* RO_SGNS_NO_FOLD */

/* ======================================================================
   5. Embeddings from the point: Step 2 [paper 2.3, Algorithm 1 lines 7-8]
      (implementation: II.0; plain twin ro_sgns_factors_embeddings_naive)
   ====================================================================== */

/* Which embeddings ro_sgns_factors_embeddings returns. */
typedef enum ro_sgns_embedding_kind {
    RO_SGNS_EMBED_W = 0,       /* words:    W = U P Sigma^alpha          */
    RO_SGNS_EMBED_C = 1,       /* contexts: C = V Q Sigma^alpha          */
    RO_SGNS_EMBED_W_PLUS_C = 2 /* W + C (needs n = m)                    */
} ro_sgns_embedding_kind;

/* Embeddings from X = U S V^T by the SVD of the core, S = P Sigma Q^T,
   into out (n rows, m for C, of d values; ldo >= d). alpha = 0.5 is the
   paper's; alpha = 0 with W + C usually better (docs/GUIDE.md, section
   5). alpha not finite: INVALID_ARGUMENT; a Sigma^alpha beyond the real
   type: NUMERIC, out untouched. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_embeddings(const ro_sgns_factors *f, double alpha,
                                                      ro_sgns_embedding_kind which,
                                                      ro_sgns_real *out, size_t ldo,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);

/* ======================================================================
   6. Dense linear algebra: GEMM, Householder QR, one-sided Jacobi SVD,
      random numbers (implementation: ro_sgns_gemm_naive, ro_sgns_qr_naive,
      ro_sgns_svd_naive plainly; II.0-II.2 fast)
      BLAS- and LAPACK-shaped, row-major. Under RO_SGNS_USE_CBLAS /
      RO_SGNS_USE_LAPACKE the built-in kernels stay as *_builtin.
   ====================================================================== */

typedef enum ro_sgns_trans {
    RO_SGNS_NOTRANS = 0,
    RO_SGNS_TRANS = 1
} ro_sgns_trans;

/* C = alpha op(A) op(B) + beta C, op(A) m x k, op(B) k x n, C m x n, op(X)
   X or X^T. beta = 0: C is not read (it may hold NaN); k = 0 or alpha = 0:
   C = beta C. Errors: INVALID_ARGUMENT (a leading dimension too small, a
   NULL where data is needed), OUT_OF_MEMORY (packing buffers). CBLAS under
   RO_SGNS_USE_CBLAS. */
RO_SGNS_DEF ro_sgns_result ro_sgns_gemm(ro_sgns_trans trans_a, ro_sgns_trans trans_b,
                                        size_t m, size_t n, size_t k, ro_sgns_real alpha,
                                        const ro_sgns_real *A, size_t lda,
                                        const ro_sgns_real *B, size_t ldb, ro_sgns_real beta,
                                        ro_sgns_real *C, size_t ldc,
                                        const ro_sgns_allocator *alloc, ro_sgns_error *err);
/* The built-in blocked GEMM, whatever the options. */
RO_SGNS_DEF ro_sgns_result ro_sgns_gemm_builtin(ro_sgns_trans trans_a, ro_sgns_trans trans_b,
                                                size_t m, size_t n, size_t k, ro_sgns_real alpha,
                                                const ro_sgns_real *A, size_t lda,
                                                const ro_sgns_real *B, size_t ldb,
                                                ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);
/* The textbook triple loop, same contract, no checks, no allocation: the
   reference the blocked one is tested against, and the one to read first. */
RO_SGNS_DEF void ro_sgns_gemm_naive(ro_sgns_trans trans_a, ro_sgns_trans trans_b, size_t m,
                                    size_t n, size_t k, ro_sgns_real alpha,
                                    const ro_sgns_real *A, size_t lda, const ro_sgns_real *B,
                                    size_t ldb, ro_sgns_real beta, ro_sgns_real *C, size_t ldc);

/* Thin QR of A (n x d, n >= d >= 1), overwritten by Q (Q^T Q = I); R
   (d x d, ldr) gets R upper triangular, R_jj >= 0, zeros below. Rank
   deficiency gives a valid Q and zeros on R's diagonal. NaN/Inf or an
   overflowing column norm: NUMERIC, A and R unspecified; OUT_OF_MEMORY
   leaves them untouched. LAPACKE ?geqrf+?orgqr under RO_SGNS_USE_LAPACKE. */
RO_SGNS_DEF ro_sgns_result ro_sgns_qr(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                      ro_sgns_real *R, size_t ldr,
                                      const ro_sgns_allocator *alloc, ro_sgns_error *err);
/* The built-in blocked QR, whatever the options. */
RO_SGNS_DEF ro_sgns_result ro_sgns_qr_builtin(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                              ro_sgns_real *R, size_t ldr,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);

/* The same QR unblocked: each Householder reflector applied on its own, in
   plain loops (the reference ro_sgns_qr_builtin is tested against). */
RO_SGNS_DEF ro_sgns_result ro_sgns_qr_naive(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                            ro_sgns_real *R, size_t ldr,
                                            const ro_sgns_allocator *alloc, ro_sgns_error *err);

/* Thin SVD A = U diag(s) V^T of an m x n A (unchanged), r = min(m, n): U
   m x r, V n x r orthonormal (either may be NULL), s r values descending,
   >= 0, to full relative accuracy (docs/GUIDE.md, section 6). NaN/Inf in
   A or a largest singular value beyond the real type: NUMERIC; more than
   60 sweeps: NOT_CONVERGED. LAPACKE ?gesdd under RO_SGNS_USE_LAPACKE;
   ro_sgns_svd_builtin is one-sided Jacobi in double. */
RO_SGNS_DEF ro_sgns_result ro_sgns_svd(size_t m, size_t n, const ro_sgns_real *A, size_t lda,
                                       ro_sgns_real *U, size_t ldu, ro_sgns_real *s,
                                       ro_sgns_real *V, size_t ldv,
                                       const ro_sgns_allocator *alloc, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_svd_builtin(size_t m, size_t n, const ro_sgns_real *A,
                                               size_t lda, ro_sgns_real *U, size_t ldu,
                                               ro_sgns_real *s, ro_sgns_real *V, size_t ldv,
                                               const ro_sgns_allocator *alloc,
                                               ro_sgns_error *err);

/* xoshiro256** seeded through splitmix64. Parallel blocks draw from
   streams of (seed, block index), never of the thread. */
typedef struct ro_sgns_rng {
    uint64_t s[4];
} ro_sgns_rng;

/* Seed a stream; stream distinguishes independent streams of one seed. */
RO_SGNS_DEF void ro_sgns_rng_seed(ro_sgns_rng *rng, uint64_t seed, uint64_t stream);
/* The next 64 random bits. */
RO_SGNS_DEF uint64_t ro_sgns_rng_next(ro_sgns_rng *rng);
/* Uniform double in [0, 1) with 53 random bits. */
RO_SGNS_DEF double ro_sgns_rng_uniform(ro_sgns_rng *rng);
/* Standard normal (Box-Muller, one value per call). */
RO_SGNS_DEF double ro_sgns_rng_normal(ro_sgns_rng *rng);

/* ======================================================================
   7. Shards: the start and the step over rows spread across processes
      (implementation: II.4, II.8; RO_SGNS_NO_SHARDS leaves out the calls
      after ro_sgns_comm; docs/GUIDE.md section 7 shows how they fit)
   ====================================================================== */

/* The transport between P processes (MPI or anything else), each holding
   a shard: the rows [r0, r1) of the words, with the global marginals.
   Every callback returns 0 on success. II.4 has the scheme and its costs. */
typedef struct ro_sgns_comm {
    int rank, size; /* this shard's index and the number of shards */
    /* recv = the count values of every shard's send, in shard order */
    int (*allgather)(void *user, const ro_sgns_real *send, size_t count, ro_sgns_real *recv);
    /* buf = the sum over the shards of their buf, on every shard; the same
       bits everywhere (sum in a fixed order) */
    int (*sum)(void *user, ro_sgns_real *buf, size_t count);
    int (*sum_double)(void *user, double *buf, size_t count);
    void *user;
} ro_sgns_comm;

#ifndef RO_SGNS_NO_SHARDS

/* The rows [r0, r1) of a whole problem as a problem of their own: it
   borrows the whole problem's arrays (which must outlive it) and builds
   the rows' transpose. */
RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_rows(const ro_sgns_problem *problem,
                                                       size_t r0, size_t r1,
                                                       ro_sgns_problem **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err);
/* A shard from its own rows of the counts (borrowed: row_ptr for rows
   r0..r1, its values absolute into col / val), the column sums ctx_sum (m
   values) and |D| = total (ro_sgns_counts' ctx_count and total will do);
   k and cds as in ro_sgns_problem_create, the same on every shard. A NULL
   spec is INVALID_ARGUMENT. */
typedef struct ro_sgns_shard_spec {
    size_t n, m;                 /* the whole problem's words and contexts */
    size_t r0, r1;               /* the shard's rows [r0, r1) */
    const uint64_t *row_ptr;     /* r1 - r0 + 1 offsets into col and val */
    const uint32_t *col;
    const float *val;
    const double *ctx_sum;       /* m column sums #(c) */
    double total;                /* |D| */
    double k, cds;
} ro_sgns_shard_spec;
RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_shard(const ro_sgns_shard_spec *spec,
                                                        ro_sgns_problem **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
/* ro_sgns_ro_train on a shard: x holds U's rows of the shard (at least d)
   and all of S and V; comm NULL (or size 1) for a problem of every row.
   All shards pass the same config, S and V, and end with the same S, V and
   step state; the run stops when any shard's callback returns non-zero.
   An error on one shard reaches all at the next exchange (the same code on
   each), except a failing transport (RO_SGNS_ERR_IO): then abort the job. */
RO_SGNS_DEF ro_sgns_result ro_sgns_ro_train_shard(const ro_sgns_problem *shard,
                                                  const ro_sgns_comm *comm, ro_sgns_factors *x,
                                                  const ro_sgns_ro_config *config,
                                                  ro_sgns_error *err);

/* The SPPMI (ro_sgns_sppmi) of the words' rows [r0, r1) only, as an
   (r1 - r0) x n matrix with global column ids. It needs only those rows of
   the counts and the global marginals, so counts may be a row range
   (ro_sgns_counts_load_rows_path) that contains [r0, r1). Rows without a
   positive entry are no error here. */
RO_SGNS_DEF ro_sgns_result ro_sgns_sppmi_rows(const ro_sgns_counts *counts, size_t r0,
                                              size_t r1, double k, double cds,
                                              ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);
#ifndef RO_SGNS_NO_TSVD
/* ro_sgns_tsvd of a matrix whose rows the shards hold, shard q the q-th
   block (rows: rows x m): *out gets this shard's rows of U and all of S
   and V, the same on every shard; all pass the same d and config. comm
   NULL (or size 1): ro_sgns_tsvd's bits; P shards: equal to rounding and
   repeatable for that P. Each shard needs >= d and >= b (Krylov) or l
   (subspace) rows, else INVALID_ARGUMENT; errors: ro_sgns_ro_train_shard's. */
RO_SGNS_DEF ro_sgns_result ro_sgns_tsvd_shard(const ro_sgns_csr *rows, const ro_sgns_comm *comm,
                                              size_t d, const ro_sgns_tsvd_config *config,
                                              ro_sgns_factors **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);
#endif /* RO_SGNS_NO_TSVD */

#endif /* RO_SGNS_NO_SHARDS */

/* ######################################################################
   AROUND THE METHOD: sections 8-12, each behind its switch (BUILD OPTIONS
   at the top). Their code is Part III of the implementation.
   ###################################################################### */

#ifndef RO_SGNS_NO_COUNT

/* ======================================================================
   8. Counting a corpus: tokens -> vocabulary -> windowed co-occurrence
      counts #(w,c), the marginals #(w), #(c) and |D| [paper 2.1]
      (implementation: III.1; RO_SGNS_NO_COUNT leaves it out; the types
      these fill, ro_sgns_counts and ro_sgns_count_config, are section 1's;
      docs/GUIDE.md section 8: an example, the paper's settings, memory)

   TOKENS
     A token is a maximal run of bytes above 0x20: every byte 0x00..0x20
     separates tokens, and '\n' also ends a line (CRLF reads as LF). This
     holds for counting, the SGD baseline, the counts file and every
     vectors format. Bytes are kept as they are (no case folding, no
     Unicode normalisation). A token longer than RO_SGNS_MAX_WORD_BYTES is
     cut to that many bytes, moved back (at most 3) to the start of a UTF-8
     character; the rest of it is discarded.

   NOT TEXT
     Unless allow_binary = 1, the first RO_SGNS_SNIFF_BYTES bytes are
     looked at first: a UTF-16 or UTF-32 byte order mark, any NUL byte, or
     invalid UTF-8 in more than one byte in ten gives RO_SGNS_ERR_FORMAT,
     the message naming what was seen. The verdict depends on those bytes
     alone, not on how a reader splits them; later bytes are not checked.

   WHAT IS COUNTED
     Words out of the vocabulary (below min_count, beyond max_vocab) and
     tokens removed by subsampling are dropped: with close_gaps = 0 they
     keep their place in windows, with close_gaps = 1 they are removed
     first. Subsampling (sample = t > 0) keeps a token of word w with
     probability min(1, (sqrt(f / (t T)) + 1) t T / f), f = vocab.count[w]
     and T its sum (vocab.count itself is never subsampled); token i draws
     from the stream (seed, i / 65536). Two kept words at distance
     0 < dist <= L (L = window), on one line unless cross_lines = 1, add 1
     to #(w, c); dynamic_window = 1 draws L for each centre from {1..L},
     dynamic_window = 2 weighs the pair (L - dist + 1) / L. #(w), #(c) are
     the row and column sums and |D| the total (vocab.count holds the
     unigram counts). The matrix is symmetric unless dynamic_window = 1.
     Exactness: weights are summed as integers in doubles (exact below
     2^53) and divided by L once, so nothing depends on the order of the
     sums, the memory budget or the thread count; the marginals and |D|
     keep these doubles, and each pair's value is rounded to float once.

   MEMORY
     memory_budget bounds all that counting allocates, the result included
     (ro_sgns_estimate_memory has the formula); a tighter budget costs more
     passes over the id stream, never exactness or a temporary file. Too
     small a one gives RO_SGNS_ERR_BUDGET, saying how many bytes it needs.
   ====================================================================== */

/* How much of the input the NOT TEXT check looks at: 1 MiB. */
#define RO_SGNS_SNIFF_BYTES ((uint64_t)1 << 20)

/* Count a corpus; config NULL means the defaults. *out receives a new
   object (free it with ro_sgns_counts_free), untouched on failure. Errors
   (RO_SGNS_ERR_*): INVALID_ARGUMENT (a setting out of range), FORMAT (NOT
   TEXT), EMPTY (no token, no word at min_count, no pair), BUDGET,
   OUT_OF_MEMORY, IO (a read failed), SIZE_OVERFLOW (about 2^32 tokens and
   line breaks); RO_SGNS_STOPPED when config->callback asked to stop. */
RO_SGNS_DEF ro_sgns_result ro_sgns_count_memory(const void *text, size_t size,
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

/* ---- merging counts: the counts of two texts one after the other ----------

   ro_sgns_counts_merge(a, b, ...) gives the counts of text A followed by
   text B (a line break between them) from the counts of each: unigram
   counts, pairs, marginals and |D| are sums. The result has a's settings
   with min_count and max_vocab replaced by the arguments; its vocabulary is
   chosen from the summed unigram counts as counting chooses it (section
   8), its pairs are the parts' pairs among the kept words, corpus_tokens
   the sum (0 with distinct_words when a part has not recorded them). It
   is exactly, bit for bit, what counting the two texts one after the
   other gives when info->inexact is 0, which needs:
     - sample = 0 and dynamic_window != 1 (no random draws: a part's draws
       depend on its own text's frequencies and token positions);
     - cross_lines = 0 (no window crosses from A into B);
     - each part complete for the result: a part whose counts dropped words
       (distinct_words > n: under its min_count or beyond its max_vocab)
       must not lack a word that could be in the result (an unseen word's
       count there is unknown; counting A with min_count 1 and no max_vocab
       keeps every word);
     - with close_gaps = 1 also that the result drops no word a part kept;
     - every pair's count recoverable as an integer from its float: at
       most 2^24 (with the weighted window, L times it at most 2^22).
   Otherwise the result is still made and info says what it could not know
   (RO_SGNS_MERGE_* bits): an unseen word counts as absent from that part,
   the draws stay each part's, windows stop at the boundary, a pair's count
   is its float. Settings a and b must share and do not (window,
   dynamic_window, sample, cross_lines, close_gaps, and seed when sample >
   0 or dynamic_window = 1) give RO_SGNS_ERR_INVALID_ARGUMENT naming the
   setting; so does a row range. EMPTY: no word at min_count or no pair
   left. */
#define RO_SGNS_MERGE_DROPPED 1u /* a part lacks a word that may be in the result */
#define RO_SGNS_MERGE_UNSEEN 2u  /* words both parts dropped may reach min_count together */
#define RO_SGNS_MERGE_DRAWS 4u   /* sample > 0 or dynamic_window 1: each part's own draws */
#define RO_SGNS_MERGE_CROSS 8u   /* cross_lines 1: no window crosses the boundary */
#define RO_SGNS_MERGE_GAPS 16u   /* close_gaps 1 and the result drops a word a part kept */
#define RO_SGNS_MERGE_ROUNDED 32u /* a pair's count beyond float's exact integers */

/* What ro_sgns_counts_merge could not know (all 0: the result is exact). */
typedef struct ro_sgns_merge_info {
    unsigned inexact;       /* RO_SGNS_MERGE_* bits */
    uint64_t unknown_words; /* words of one part a dropping part lacks (DROPPED) */
    uint64_t rounded_pairs; /* pairs whose float hid the integer (ROUNDED) */
    char example[RO_SGNS_MAX_WORD_BYTES + 1]; /* the most frequent such word */
} ro_sgns_merge_info;

/* Merge (above); info may be NULL. *out receives a new object (free it with
   ro_sgns_counts_free), untouched on failure. Time O(n log n + nnz log of a
   row), memory the result plus about 60 bytes a word of either part. */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_merge(const ro_sgns_counts *a, const ro_sgns_counts *b,
                                                uint64_t min_count, uint64_t max_vocab,
                                                ro_sgns_counts **out, ro_sgns_merge_info *info,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);

#endif /* RO_SGNS_NO_COUNT */

#ifndef RO_SGNS_NO_FILES

/* ======================================================================
   9. Files: saving to a path, the counts file, checkpoints
      (implementation: III.2-III.4; RO_SGNS_NO_FILES leaves them out, and
      the word vector files of section 10 with them; docs/GUIDE.md section
      9 has the byte layouts of the counts file and of checkpoints)
   ====================================================================== */

/* SAVING TO A PATH: every *_save_path (counts, checkpoints, vectors)
   replaces a regular file (or creates one) atomically: it writes a new
   file "<path>.<16 hex digits>.tmp" in the same folder, created
   exclusively, private until it has the old file's permission bits and,
   where allowed, owner and group (else no group bits), flushes it to the disk,
   renames it over the path and flushes the folder (POSIX), so the path
   holds the old file or the whole new one, even after a crash (which may
   leave the temporary file beside it). A symbolic link's target is
   replaced (at most 40 links deep); a device, a FIFO or "-" (standard
   output) is written in place; a directory is an error. Any error is
   RO_SGNS_ERR_IO with the OS's reason and the path, the temporary file
   removed and the old file unchanged. Windows and plain C: docs/GUIDE.md. */
#ifndef RO_SGNS_NO_STDIO
/* Can a save to path work? Checks what saving checks before long work
   that ends in a save (a temporary file created and removed again; a
   device or FIFO writable; "-" fine), changing nothing the path names.
   RO_SGNS_ERR_IO with the OS's reason and the path for a directory, a
   missing or unwritable folder. A later save can still fail (a full disk). */
RO_SGNS_DEF ro_sgns_result ro_sgns_check_output_path(const char *path, ro_sgns_error *err);
#endif

/* The counts file, format version 2: a header (the counting settings, n,
   nnz, |D|) under its own CRC-32C, the vocabulary, row_ptr, col, the
   values in f64 (rounded to float on loading), the marginals, and a table
   of CRC-32Cs, one per 64 KiB chunk, so a row range is checked by the
   chunks it reads. Little-endian, right on any host; version 1 still
   loads. A loader checks everything (structure, ranges, words that are
   tokens, unique, finite positive values, checksums, the marginals against
   the pairs) and reports RO_SGNS_ERR_FORMAT with the byte offset of the
   first bad or missing byte, and the path. Layout: docs/GUIDE.md. */

/* The exact size in bytes of the file ro_sgns_counts_save_* writes (0 for
   a NULL or incomplete object or a row range). */
RO_SGNS_DEF uint64_t ro_sgns_counts_saved_size(const ro_sgns_counts *counts);
/* Save into a new buffer of ro_sgns_counts_saved_size bytes: *out receives
   it, allocated through alloc (NULL: RO_SGNS_MALLOC), and *size its size;
   release it with the matching free. Both untouched on failure. */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_memory(const ro_sgns_counts *counts, void **out,
                                                      size_t *size,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);
/* Save through a write callback, in pieces of at most 8 KiB; allocates
   the chunk table (4 bytes per 64 KiB). */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_callback(const ro_sgns_counts *counts,
                                                        ro_sgns_write_fn write, void *user,
                                                        ro_sgns_error *err);
/* Load; *out untouched on failure. The buffer must hold exactly one file
   (trailing bytes are an error); the callback reader stops after the
   checksum. */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_memory(const void *data, size_t size,
                                                      ro_sgns_counts **out,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_callback(ro_sgns_read_fn read, void *user,
                                                        ro_sgns_counts **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
/* Rows [r0, r1) of a counts file (0 <= r0 < r1 <= n; 0, n is a whole
   load): the header, vocabulary, row_ptr, marginals and |D|, and the pairs
   of those rows only. A version 2 file is read by seeking, each chunk read
   checked (chunks not read, and the column sums, are not); a version 1
   file or a FILE* that cannot seek is read through and checked whole.
   Memory O(n + nnz of the rows). */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_rows_memory(const void *data, size_t size,
                                                           size_t r0, size_t r1,
                                                           ro_sgns_counts **out,
                                                           const ro_sgns_allocator *alloc,
                                                           ro_sgns_error *err);

#ifndef RO_SGNS_NO_STDIO
/* Atomic saves: SAVING TO A PATH above. */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_path(const ro_sgns_counts *counts,
                                                    const char *path, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_path(const char *path, ro_sgns_counts **out,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err);
/* Row ranges (as ro_sgns_counts_load_rows_memory) from a FILE* (the file
   starts at its position; f is left somewhere after it) or a path. */
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_rows_file(FILE *f, size_t r0, size_t r1,
                                                         ro_sgns_counts **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_rows_path(const char *path, size_t r0,
                                                         size_t r1, ro_sgns_counts **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
#endif

/* Checkpoints: the point (U, S, V) in f64, the steps taken, the next step
   size and what it was trained for (counts fingerprint, k, cds, window; 0 =
   not recorded), so a resumed run repeats a straight run's bits. Chunk
   CRC-32Cs as in the counts file; layout in docs/GUIDE.md. Loading refuses
   (RO_SGNS_ERR_FORMAT, byte offset) NaN, Inf, values beyond ro_sgns_real's
   range, k, window and fingerprint recorded in part, and a cds not > 0. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_callback(const ro_sgns_factors *f,
                                                         ro_sgns_write_fn write, void *user,
                                                         ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_callback(ro_sgns_read_fn read, void *user,
                                                         ro_sgns_factors **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
/* The same with a second point, the best so far by a score (so a resumed
   ro-sgns -keep-best keeps it): saved when best is not NULL (its n, m, d
   those of f; score finite). Loading sets *best (NULL when the file has
   none; free it with ro_sgns_factors_free) and *best_score (0 if none).
   The plain loaders read the current point of such a file. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_best_callback(const ro_sgns_factors *f,
                                                              const ro_sgns_factors *best,
                                                              double score,
                                                              ro_sgns_write_fn write,
                                                              void *user, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_best_callback(ro_sgns_read_fn read, void *user,
                                                              ro_sgns_factors **out,
                                                              ro_sgns_factors **best,
                                                              double *best_score,
                                                              const ro_sgns_allocator *alloc,
                                                              ro_sgns_error *err);
/* A run of stages' record (version 3 checkpoints, flags bit 1): its stage
   (RO_SGNS_RUN_*), the steps' stop decision, the SGD start's position
   (ro_sgns_sgd_state) and rows W, C (rows x d each; the SGD stage's state,
   later a fold's start rows; 0 rows: none), a fingerprint of the caller's
   choosing (0: none). Layout in docs/GUIDE.md, section 9. */
#define RO_SGNS_RUN_SGD 1   /* the SGD start at round `round`: no point */
#define RO_SGNS_RUN_STEPS 2 /* steps on the point */
#define RO_SGNS_RUN_DONE 3  /* the steps stopped (converged): none to take */
typedef struct ro_sgns_run_record {
    int stage;
    double last_gain;     /* the last step's gain, the stop decision's input */
    uint64_t fingerprint; /* e.g. the counts' */
    uint64_t round, words;
    size_t rows, d;
    ro_sgns_real *W, *C;
} ro_sgns_run_record;
/* Save a point (NULL for stage RO_SGNS_RUN_SGD), its best point (or NULL)
   and run, a version 3 file. INVALID_ARGUMENT for a record that does not
   fit the point; NUMERIC for NaN or Inf in W or C. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_run_callback(const ro_sgns_factors *f,
                                                             const ro_sgns_factors *best,
                                                             double score,
                                                             const ro_sgns_run_record *run,
                                                             ro_sgns_write_fn write, void *user,
                                                             ro_sgns_error *err);
/* Load any version; *out NULL for a file of stage RO_SGNS_RUN_SGD (the
   plain loaders refuse one), *run the record (stage 0 and no rows for a
   file without; W, C one block from alloc: ro_sgns_run_record_free). */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_run_callback(ro_sgns_read_fn read, void *user,
                                                             ro_sgns_factors **out,
                                                             ro_sgns_factors **best,
                                                             double *best_score,
                                                             ro_sgns_run_record *run,
                                                             const ro_sgns_allocator *alloc,
                                                             ro_sgns_error *err);
RO_SGNS_DEF void ro_sgns_run_record_free(ro_sgns_run_record *run, const ro_sgns_allocator *alloc);
/* Does a checkpoint fit the run about to resume from it: the same counts
   (fingerprint), k, window, cds and d, and n = m = the counts' n? A field
   the checkpoint did not record (0) is not compared. RO_SGNS_OK, or
   RO_SGNS_ERR_INVALID_ARGUMENT naming every field that differs. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_check_resume(const ro_sgns_factors *checkpoint,
                                                        const ro_sgns_counts *counts, double k,
                                                        double cds, size_t d,
                                                        ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
/* Atomic saves: SAVING TO A PATH above. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_path(const ro_sgns_factors *f,
                                                     const char *path, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_best_path(const ro_sgns_factors *f,
                                                          const ro_sgns_factors *best,
                                                          double score, const char *path,
                                                          ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_run_path(const ro_sgns_factors *f,
                                                         const ro_sgns_factors *best,
                                                         double score,
                                                         const ro_sgns_run_record *run,
                                                         const char *path, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_path(const char *path, ro_sgns_factors **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
#endif

#endif /* RO_SGNS_NO_FILES */

#if !defined(RO_SGNS_NO_FILES) || !defined(RO_SGNS_NO_EVAL)

/* ======================================================================
   10. Word vectors in memory; word2vec text and binary and GloVe files
       (implementation: III.5; the files need RO_SGNS_NO_FILES unset, the
       vectors in memory are there unless both it and RO_SGNS_NO_EVAL are
       set; docs/GUIDE.md section 10 has an example)
   ====================================================================== */

/* Limits of the file readers (build options: define them before the
   header, in every file that uses them). The largest dimension accepted. */
#ifndef RO_SGNS_FILE_MAX_DIM
#define RO_SGNS_FILE_MAX_DIM 65536
#endif
/* The longest word, in bytes, a file reader accepts. */
#ifndef RO_SGNS_FILE_MAX_WORD
#define RO_SGNS_FILE_MAX_WORD 4096
#endif

/* "No row": a neighbour slot left empty, or no row to exclude. */
#define RO_SGNS_NO_ROW ((size_t)-1)

/* The readers and writers also take section 0's byte-stream callbacks,
   so they work without stdio (RO_SGNS_NO_STDIO). */

/* The three formats of word vectors. Text readers take CRLF, tabs,
   trailing blanks and blank lines; numbers are written with the digits to
   read back bit-exactly ("%.9g" float, "%.17g" double).
   RO_SGNS_W2V_TEXT    word2vec text: a line "V d", then V lines of a word
                       and d numbers.
   RO_SGNS_W2V_BINARY  the same first line, then V records: the word, a
                       space, d little-endian float32, '\n' (optional read).
   RO_SGNS_GLOVE_TEXT  GloVe: word2vec text without the "V d" line. */
typedef enum ro_sgns_vectors_format {
    RO_SGNS_W2V_TEXT = 0,
    RO_SGNS_W2V_BINARY = 1,
    RO_SGNS_GLOVE_TEXT = 2
} ro_sgns_vectors_format;

/* A vocabulary and its n x d matrix, row i the vector of words[i], in the
   order of the file or of the constructor. Invariants: n >= 1, 1 <= d <=
   RO_SGNS_FILE_MAX_DIM, every word a token (TOKENS, section 8) and unique,
   every value finite. Read the public fields; those ending in _ are
   private (a hash table: a lookup costs O(length)). Made by create and the
   loaders; free it with ro_sgns_vectors_free(). */
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

/* Make a vectors object from words + matrix: copies the n words and the
   n x d data (leading dimension ldd >= d; data NULL gives zeros to fill
   in). A word that is not a token or repeats gives
   RO_SGNS_ERR_INVALID_ARGUMENT (the message gives its index), a NaN or Inf
   RO_SGNS_ERR_NUMERIC. *out untouched on failure. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_create(size_t n, size_t d, const char *const *words,
                                                  const ro_sgns_real *data, size_t ldd,
                                                  ro_sgns_vectors **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
/* Free v and everything it owns; NULL is fine. */
RO_SGNS_DEF void ro_sgns_vectors_free(ro_sgns_vectors *v);
/* The row of a word: 1 and *row set when found, 0 otherwise. Exact bytes. */
RO_SGNS_DEF int ro_sgns_vectors_find(const ro_sgns_vectors *v, const char *word, size_t *row);
/* The vector of a word (d values), or NULL when it is not in v. */
RO_SGNS_DEF const ro_sgns_real *ro_sgns_vectors_get(const ro_sgns_vectors *v,
                                                    const char *word);
/* Scale every row of v to unit length in place (norms in double; each
   value rounded once); a zero row stays zero. NULL is fine. */
RO_SGNS_DEF void ro_sgns_vectors_normalize(ro_sgns_vectors *v);

#endif

#ifndef RO_SGNS_NO_FILES

/* Readers. limit = 0 reads every vector, N the first N (the rest unread).
   Malformed input (a header at odds with the body, a bad or cut line or
   record, NaN, Inf, d = 0 or d > RO_SGNS_FILE_MAX_DIM, a duplicate word, a
   word with a control byte or over RO_SGNS_FILE_MAX_WORD bytes) gives
   RO_SGNS_ERR_FORMAT with the line or offset, no vector RO_SGNS_ERR_EMPTY;
   *out untouched then. Any locale; no setlocale() in another thread. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_memory(const void *data, size_t size,
                                                       ro_sgns_vectors_format format,
                                                       size_t limit, ro_sgns_vectors **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_callback(ro_sgns_read_fn read_fn, void *user,
                                                         ro_sgns_vectors_format format,
                                                         size_t limit, ro_sgns_vectors **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
/* Writers. In the double build a value beyond float32's range cannot go
   into the binary format: RO_SGNS_ERR_NUMERIC. save_memory returns the
   whole file in a new buffer *out of *size bytes, allocated through alloc
   (NULL: RO_SGNS_MALLOC); release it with the matching free. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_callback(const ro_sgns_vectors *v,
                                                         ro_sgns_vectors_format format,
                                                         ro_sgns_write_fn write_fn, void *user,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_memory(const ro_sgns_vectors *v,
                                                       ro_sgns_vectors_format format,
                                                       void **out, size_t *size,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
/* FILE* and path variants, opened in binary mode and read 64 KiB at a
   time (load_file starts at f's position and may read up to 64 KiB past a
   limited read). save_path is atomic: SAVING TO A PATH, section 9. */
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_file(FILE *f, ro_sgns_vectors_format format,
                                                     size_t limit, ro_sgns_vectors **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_path(const char *path,
                                                     ro_sgns_vectors_format format,
                                                     size_t limit, ro_sgns_vectors **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_file(const ro_sgns_vectors *v,
                                                     ro_sgns_vectors_format format, FILE *f,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_path(const ro_sgns_vectors *v,
                                                     ro_sgns_vectors_format format,
                                                     const char *path,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
#endif

#endif /* RO_SGNS_NO_FILES */

#ifndef RO_SGNS_NO_EVAL

/* ======================================================================
   11. Evaluation: word similarity (Spearman), nearest neighbours, analogies
   [paper 4.2] (implementation: III.6; RO_SGNS_NO_EVAL leaves it out)
   Every result carries the policy it was computed under and its counts;
   the _describe functions print all of it. Similarities are cosines in
   double; a zero vector has cosine 0 with everything.

   CASE FOLDING (fold_case = 1): test words and vocabulary folded to ASCII
     lower case; when several rows fold to one word, the first counts.
   A RESTRICTED VOCABULARY (restrict_vocab = N > 0): only the first N rows
     are the vocabulary (answers and questions of analogies included).
   ====================================================================== */

/* Cosine of two d-vectors in double; 0 when either is zero, NaN when a or
   b is NULL (ro_sgns_vectors_get of a missing word). */
RO_SGNS_DEF double ro_sgns_cosine(const ro_sgns_real *a, const ro_sgns_real *b, size_t d);

/* gensim's similarity(word1, word2): the cosine of two words' vectors in
   *sim. A word not in v (exact bytes) gives RO_SGNS_ERR_NOT_FOUND naming
   it; *sim is then untouched. O(d), no allocation. */
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_of_words(const ro_sgns_vectors *v,
                                                       const char *word1, const char *word2,
                                                       double *sim, ro_sgns_error *err);

/* Pearson's r and Spearman's rho (ties get their mean rank, as in scipy).
   n < 2 gives RO_SGNS_ERR_EMPTY, a constant x or y RO_SGNS_ERR_NUMERIC;
   *r is then untouched. */
RO_SGNS_DEF ro_sgns_result ro_sgns_pearson(size_t n, const double *x, const double *y,
                                           double *r, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_spearman(size_t n, const double *x, const double *y,
                                            double *rho, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err);

/* A word-pair file (wordsim353, SimLex-999, MEN): one "word1 word2 score"
   a line, tabs or spaces; blank lines, '#' lines and a '#' field after the
   score are comments. */
typedef struct ro_sgns_pairs {
    size_t n;      /* number of pairs */
    char **word1;  /* n words */
    char **word2;  /* n words */
    double *score; /* n human scores */
    /* private */
    char *pool_;
    ro_sgns_allocator alloc_;
} ro_sgns_pairs;

/* Load into a new object (*out untouched on failure; free it with
   ro_sgns_pairs_free, NULL is fine). RO_SGNS_ERR_FORMAT (with the line)
   for a line not two words and a finite number, RO_SGNS_ERR_EMPTY for no
   pair. */
RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_load_memory(const void *data, size_t size,
                                                     ro_sgns_pairs **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_load_path(const char *path, ro_sgns_pairs **out,
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
    int fold_case;          /* default 0; 1: CASE FOLDING above */
    size_t restrict_vocab;  /* default 0 = all rows; N: the first N rows */
} ro_sgns_similarity_config;

RO_SGNS_DEF ro_sgns_similarity_config ro_sgns_similarity_config_default(void);

typedef struct ro_sgns_similarity_result {
    double spearman;       /* Spearman's rho, human scores vs cosines */
    double pearson;        /* Pearson's r, same data */
    size_t pairs_total;    /* pairs in the file */
    size_t pairs_used;     /* pairs that went into the correlations */
    size_t pairs_oov;      /* pairs with a word out of vocabulary (with ZERO
                              also counted in used) */
    ro_sgns_similarity_config config; /* the policy it was computed under */
    size_t vocab_rows;     /* rows that counted as vocabulary */
} ro_sgns_similarity_result;

/* Spearman and Pearson correlation of the pairs' scores with their
   words' cosines; cfg NULL = defaults. Fewer than 2 usable pairs give
   RO_SGNS_ERR_EMPTY, constant cosines RO_SGNS_ERR_NUMERIC; *res is then
   untouched. O(pairs d), plus O(n) with fold_case. */
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval(const ro_sgns_vectors *v,
                                                   const ro_sgns_pairs *pairs,
                                                   const ro_sgns_similarity_config *cfg,
                                                   ro_sgns_similarity_result *res,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
/* Load a pair file and evaluate it (ro_sgns_pairs_load_path +
   ro_sgns_similarity_eval). */
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval_path(const ro_sgns_vectors *v,
                                                        const char *path,
                                                        const ro_sgns_similarity_config *cfg,
                                                        ro_sgns_similarity_result *res,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
#endif
/* One line of what was computed: "spearman R pearson R | U of T pairs
   used, S skipped (out of vocabulary) | case folding off | all N rows".
   Returns what snprintf returns. */
RO_SGNS_DEF int ro_sgns_similarity_describe(const ro_sgns_similarity_result *res, char *buf,
                                            size_t size);

/* Nearest neighbours by cosine over all n rows, best first, ties to the
   lower row: O(nq n d) time, O(n + 512 (d + 1024)) workspace besides out.
   Batch many queries into one call. */
typedef struct ro_sgns_neighbor {
    size_t row;        /* row of v (RO_SGNS_NO_ROW in an unfilled slot) */
    double similarity; /* cosine with the query */
} ro_sgns_neighbor;

/* The k nearest rows to a word, itself excluded; out has room for k and
   *count (may be NULL) gets min(k, n - 1). RO_SGNS_ERR_NOT_FOUND when the
   word is not in v. */
RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_word(const ro_sgns_vectors *v,
                                                     const char *word, size_t k,
                                                     ro_sgns_neighbor *out, size_t *count,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err);
/* The k nearest rows to each of nq query vectors (nq x v->d, leading
   dimension ldq). exclude (NULL = none): nq rows to leave out, each may be
   RO_SGNS_NO_ROW. out is nq x k, query i's at out[i*k ..]; unfilled slots
   get RO_SGNS_NO_ROW and 0; count (NULL or nq entries) the number filled. */
RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_vectors(const ro_sgns_vectors *v, size_t nq,
                                                        const ro_sgns_real *queries,
                                                        size_t ldq, const size_t *exclude,
                                                        size_t k, ro_sgns_neighbor *out,
                                                        size_t *count,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);

/* gensim's most_similar(positive, negative, topn = k, restrict_vocab): the
   k rows nearest to the sum of the positive words' unit vectors minus the
   negative ones' (3CosAdd), query words left out, candidates the first
   restrict_vocab rows (0 = all). A word not in v: RO_SGNS_ERR_NOT_FOUND;
   no word or a NULL query: RO_SGNS_ERR_INVALID_ARGUMENT. out and *count
   as in ro_sgns_neighbors_of_vectors. O(rows d), workspace O(rows + 1024 + d). */
typedef struct ro_sgns_similar_query {
    const char *const *positive; /* npositive words added */
    size_t npositive;
    const char *const *negative; /* nnegative words subtracted */
    size_t nnegative;
    size_t restrict_vocab;       /* candidates: the first rows; 0 = all */
} ro_sgns_similar_query;
RO_SGNS_DEF ro_sgns_result ro_sgns_most_similar(const ro_sgns_vectors *v,
                                                const ro_sgns_similar_query *query, size_t k,
                                                ro_sgns_neighbor *out, size_t *count,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);

/* gensim's doesnt_match(words): *which gets the index of the word whose
   unit vector is least like the mean of them all (ties to the earlier);
   sims (NULL or nwords values) every word's cosine with that mean. A word
   not in v gives RO_SGNS_ERR_NOT_FOUND naming it, nwords = 0
   RO_SGNS_ERR_EMPTY; *which and sims are then untouched. O(nwords d). */
RO_SGNS_DEF ro_sgns_result ro_sgns_doesnt_match(const ro_sgns_vectors *v,
                                                const char *const *words, size_t nwords,
                                                size_t *which, double *sims,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);

/* Analogy questions "a b c d" (a is to b as c is to d) as in word2vec's
   questions-words.txt: ": name" lines open a section, other non-blank
   lines hold 4 words, '#' lines are comments; questions before the first
   section go to a section named "". */
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

/* Load into a new object (*out untouched on failure; free it with
   ro_sgns_analogies_free, NULL is fine). RO_SGNS_ERR_FORMAT (with the line)
   for a malformed line, RO_SGNS_ERR_EMPTY when there is no question. */
RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_load_memory(const void *data, size_t size,
                                                         ro_sgns_analogies **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_load_path(const char *path,
                                                       ro_sgns_analogies **out,
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
    double epsilon;                /* 3CosMul only; default 0.001 */
    size_t restrict_vocab;         /* default 0 = all rows; N: the first N */
    int fold_case;                 /* default 0; 1: CASE FOLDING above */
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
    /* private: the result, its sections and their names are one block */
    ro_sgns_allocator alloc_;
} ro_sgns_analogy_result;

/* Answer every question: the best row by the method over the first
   restrict_vocab rows (0 = all), compared with d; cfg NULL = defaults.
   O(questions rows d) flops through ro_sgns_gemm, O(rows + 1536 (d +
   1024)) workspace. *out gets a new result (untouched on failure); free it
   with ro_sgns_analogy_result_free() (NULL is fine). */
RO_SGNS_DEF ro_sgns_result ro_sgns_analogy_eval(const ro_sgns_vectors *v,
                                                const ro_sgns_analogies *q,
                                                const ro_sgns_analogy_config *cfg,
                                                ro_sgns_analogy_result **out,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err);
RO_SGNS_DEF void ro_sgns_analogy_result_free(ro_sgns_analogy_result *res);
/* "3CosAdd: accuracy A (C of S correct; T questions, K skipped: out of
   vocabulary) | query words excluded | case folding off | first N rows".
   Returns what snprintf returns. */
RO_SGNS_DEF int ro_sgns_analogy_describe(const ro_sgns_analogy_result *res, char *buf,
                                         size_t size);

#endif /* RO_SGNS_NO_EVAL */

#ifndef RO_SGNS_NO_SGD

/* ======================================================================
   12. SGD-SGNS baseline (word2vec) (implementation: III.7;
       RO_SGNS_NO_SGD leaves it out)
      Skip-gram with negative sampling trained by stochastic gradient
      ascent over the token stream, as word2vec -cbow 0 -hs 0 does: the
      paper's "SGD-SGNS" baseline [paper 4]. Its W, C can be scored with
      ro_sgns_objective_wc and section 11. docs/GUIDE.md section 12 has an
      example, the algorithm, where it differs from word2vec.c and its cost.

   THREADS AND REPRODUCIBILITY
     workers = 0 (Hogwild, as word2vec): threads update W and C without
     locks, so only threads = 1 gives the same bits for the same seed,
     corpus, vocabulary and build: the one part of the library that is not
     deterministic for any thread count. workers = K >= 1: K virtual
     workers train sync blocks each on their own copies, merged at the end
     of each round (a row changed by several takes the mean of their
     changes); the same bits for any thread count, and K = 1 is the
     one-thread Hogwild run bit for bit. At the end of a round every copy
     equals the shared W and C, so W, C and the round are the whole state:
     a save callback receives it, and a run given it as its start ends
     with the bits of the run that never stopped (a checkpoint; test_sgd's
     test_resume). Hogwild has no such state: a stopped run starts over.
   ====================================================================== */

/* Stream positions per block: the unit of work, of random streams and of
   learning-rate updates; no window crosses a block boundary. */
#define RO_SGNS_SGD_BLOCK 1024

/* What the progress callback sees. */
typedef struct ro_sgns_sgd_progress {
    uint64_t words;       /* vocabulary tokens processed, all threads and
                             epochs (subsampled ones included) */
    uint64_t words_total; /* epochs x tokens: where words ends */
    double words_per_sec; /* words / seconds (all threads together) */
    double alpha;         /* the learning rate in use */
    double seconds;       /* wall seconds since training (after reading;
                             CPU seconds without OpenMP) */
    int threads;          /* workers running */
} ro_sgns_sgd_progress;

/* Called every report_words words (by one worker at a time) and once at
   the end. Non-zero stops: the workers finish their block and training
   returns RO_SGNS_STOPPED with W and C as they are. */
typedef int (*ro_sgns_sgd_callback)(const ro_sgns_sgd_progress *progress, void *user);

/* Virtual workers' state at the end of a round: W, C (n x d; the arrays
   given to train), rounds and words done and in all. Given back as a
   start (start_w, start_c, start_round), a run ends with the bits of one
   that never stopped. Hogwild (workers 0) has no such state. */
typedef struct ro_sgns_sgd_state {
    const ro_sgns_real *W, *C;
    uint64_t round, rounds_total, words, words_total;
} ro_sgns_sgd_state;

/* Called from one thread between rounds when a state is due (save_rounds
   and save_seconds since the last; not after the last round). Non-zero
   stops as the progress callback does, W and C left at this state. */
typedef int (*ro_sgns_sgd_save_fn)(const ro_sgns_sgd_state *state, void *user);

/* Settings. Make one with ro_sgns_sgd_config_default() and change what you
   need (zero is meaningful for sample and threads). The vocabulary comes
   from the ro_sgns_vocab passed to the train call. */
typedef struct ro_sgns_sgd_config {
    int size;              /* d, the dimension, >= 1 */
    int window;            /* L, the largest half-width, >= 1 */
    int negative;          /* k, negatives per pair, >= 1 */
    double alpha;          /* starting learning rate, > 0 */
    double sample;         /* subsampling threshold t, >= 0; 0 = off */
    int epochs;            /* passes over the corpus, >= 1 */
    double share;          /* train on the corpus's first share, in (0, 1]
                              (whole blocks; under one token: EMPTY) */
    int threads;           /* 0 = OpenMP's maximum (1 without OpenMP) */
    int workers;           /* 0 = Hogwild; K >= 1 virtual workers (THREADS
                              AND REPRODUCIBILITY), at most K threads */
    int sync;              /* blocks a virtual worker trains between merges,
                              >= 1; part of the result, as the seed is */
    uint64_t seed;
    uint64_t report_words; /* the callback's period in words; 0 = at the end */
    ro_sgns_sgd_callback callback;
    void *user;            /* passed to the callback and to save */
    /* resuming (workers >= 1 only): a state's W and C (n x d, both or
       neither; NULL: word2vec's start) and its round (0 without one) */
    const ro_sgns_real *start_w, *start_c;
    uint64_t start_round;
    ro_sgns_sgd_save_fn save; /* NULL, or given states (ro_sgns_sgd_state) */
    uint64_t save_rounds;     /* every so many rounds at most, >= 1 */
    double save_seconds;      /* and so many seconds at least, >= 0 */
} ro_sgns_sgd_config;

/* size 100, window 5, negative 5, alpha 0.025 (word2vec's skip-gram),
   sample 0 (word2vec: 1e-3), epochs 5, share 1, threads 0, workers 0,
   sync 64, seed 1, report_words 100000, no callback, no start state, no
   save, save_rounds 1, save_seconds 0. */
RO_SGNS_DEF ro_sgns_sgd_config ro_sgns_sgd_config_default(void);

/* Train on a corpus (TOKENS, section 8) with vocab (e.g. &counts->vocab;
   its counts give the negatives' and subsampling's distributions) into W,
   C: n x d row-major, n = vocab->n, d = cfg->size; cfg NULL = defaults.
   RO_SGNS_STOPPED: W, C as they were then. Errors, W and C untouched:
   INVALID_ARGUMENT (a bad setting; a vocab without counts or index), EMPTY
   (no token in vocab or in share), OUT_OF_MEMORY, SIZE_OVERFLOW, IO, NUMERIC (NaN). */
RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_memory(const void *text, size_t size,
                                                    const ro_sgns_vocab *vocab,
                                                    const ro_sgns_sgd_config *cfg,
                                                    ro_sgns_real *W, ro_sgns_real *C,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err);
/* The same from a reader (section 0): the text is read once, 64 KiB at a
   time, and only its id stream is kept. */
RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_callback(ro_sgns_read_fn read, void *user,
                                                      const ro_sgns_vocab *vocab,
                                                      const ro_sgns_sgd_config *cfg,
                                                      ro_sgns_real *W, ro_sgns_real *C,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err);
#ifndef RO_SGNS_NO_STDIO
/* Reads f from its current position to its end; does not close it. */
RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_file(FILE *f, const ro_sgns_vocab *vocab,
                                                  const ro_sgns_sgd_config *cfg,
                                                  ro_sgns_real *W, ro_sgns_real *C,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_path(const char *path, const ro_sgns_vocab *vocab,
                                                  const ro_sgns_sgd_config *cfg,
                                                  ro_sgns_real *W, ro_sgns_real *C,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err);
#endif

#endif /* RO_SGNS_NO_SGD */

/* ----------------------------------------------------------------------
   Part I's plain path (RO_SGNS_PLAIN compiles Part I alone): the method
   with every n x m matrix formed, O(n m) memory, for small problems, for
   learning, and as the references of the fast calls.
   ---------------------------------------------------------------------- */

/* The problem from an n x m count matrix in CSR (row_ptr n + 1 offsets;
   col, val its entries, columns ascending, values > 0; all borrowed, they
   must outlive the problem); k negatives, no context smoothing. The same
   B as ro_sgns_problem_create_csr. Errors: INVALID_ARGUMENT (NULL, a bad
   entry, k <= 0), EMPTY (no counts), OUT_OF_MEMORY. */
RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_naive(size_t n, size_t m,
                                                        const uint64_t *row_ptr,
                                                        const uint32_t *col, const float *val,
                                                        double k, ro_sgns_problem **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err);
/* ro_sgns_svd's contract by the cyclic one-sided Jacobi method (Part I's
   plain SVD): A m x n (not changed), U m x r, s r descending, V n x r,
   r = min(m, n); U or V may be NULL. Errors: INVALID_ARGUMENT, NUMERIC
   (NaN or Inf in A), NOT_CONVERGED (60 sweeps), OUT_OF_MEMORY. */
RO_SGNS_DEF ro_sgns_result ro_sgns_svd_naive(size_t m, size_t n, const ro_sgns_real *A,
                                             size_t lda, ro_sgns_real *U, size_t ldu,
                                             ro_sgns_real *s, ro_sgns_real *V, size_t ldv,
                                             const ro_sgns_allocator *alloc, ro_sgns_error *err);
/* The start X_0: the dense SPPMI of a whole problem, max(log(#(w,c) /
   B_wc), 0), and its rank-d truncated SVD by ro_sgns_svd_naive, as new
   factors in *out (S diagonal; free with ro_sgns_factors_free). Errors:
   INVALID_ARGUMENT (d not in 1..min(n, m), a shard), OUT_OF_MEMORY,
   those of the SVD. */
RO_SGNS_DEF ro_sgns_result ro_sgns_start_naive(const ro_sgns_problem *problem, size_t d,
                                               ro_sgns_factors **out, ro_sgns_error *err);
/* steps steps of ro_sgns_ro_step_naive from x (updated in place), each
   kept only if F does not fall, else undone and retried at half the step
   (up to 8 times; then the run ends, RO_SGNS_OK); after a kept step the
   next tries twice its size, at most step. F (NULL, or steps + 1
   doubles): F at the start and after each step. Errors: INVALID_ARGUMENT
   (dir not plain or scaled, step <= 0), OUT_OF_MEMORY. */
RO_SGNS_DEF ro_sgns_result ro_sgns_ro_train_naive(const ro_sgns_problem *problem,
                                                  ro_sgns_factors *x, ro_sgns_direction dir,
                                                  double step, int steps, double *F,
                                                  ro_sgns_error *err);
/* ro_sgns_factors_embeddings' contract, plainly (ro_sgns_svd_naive of S,
   the products by loops): W = U P Sigma^alpha, C = V Q Sigma^alpha or
   W + C into out (n x d, row stride ldo). Errors: INVALID_ARGUMENT,
   NUMERIC (Sigma^alpha overflows), OUT_OF_MEMORY. */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_embeddings_naive(const ro_sgns_factors *f,
                                                            double alpha,
                                                            ro_sgns_embedding_kind which,
                                                            ro_sgns_real *out, size_t ldo,
                                                            const ro_sgns_allocator *alloc,
                                                            ro_sgns_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RO_SGNS_H */

/* ######################################################################
   Implementation
   ###################################################################### */

#if defined(RO_SGNS_IMPLEMENTATION) && !defined(RO_SGNS_IMPLEMENTATION_DONE)
#define RO_SGNS_IMPLEMENTATION_DONE

#include <string.h> /* memcpy, memset */
#include <stdarg.h> /* va_list for error messages */
#include <stdio.h>  /* vsnprintf (also used with RO_SGNS_NO_STDIO) */
#include <float.h>  /* DBL_EPSILON, FLT_EPSILON */
#include <limits.h> /* LONG_MAX */
#include <errno.h>  /* errno for strerror in messages from the OS */
#if !defined(RO_SGNS_NO_STDIO) && !defined(RO_SGNS_NO_FILES)
/* saving to a path: descriptors, exclusive creation, fsync, rename */
#if defined(_WIN32)
#include <io.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <process.h>
#define RO_SGNS__WIN_IO 1
#define RO_SGNS__IS_DIR(m) (((m) & _S_IFMT) == _S_IFDIR)
#define RO_SGNS__IS_REG(m) (((m) & _S_IFMT) == _S_IFREG)
#ifdef __cplusplus
extern "C" {
#endif
/* declared here instead of including <windows.h> */
__declspec(dllimport) int __stdcall MoveFileExA(const char *from, const char *to,
                                                unsigned long flags);
__declspec(dllimport) unsigned long __stdcall GetLastError(void);
#ifdef __cplusplus
}
#endif
#elif defined(__unix__) || defined(__unix) || defined(__APPLE__) || defined(__wasi__)
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#define RO_SGNS__POSIX_IO 1
#ifdef __wasi__
/* WASI (wasi-libc) has POSIX files, in the folders the runtime gives the
   program, but no process ids and no permission bits: a new file's name
   takes no pid and a replaced file's mode is not copied */
#define RO_SGNS__GETPID() 0
#define RO_SGNS__FCHMOD(fd, mode) ((void)(fd), (void)(mode), 0)
#define RO_SGNS__FCHOWN(fd, uid, gid) ((void)(fd), (void)(uid), (void)(gid), 0)
#else
#define RO_SGNS__GETPID() getpid()
#define RO_SGNS__FCHMOD(fd, mode) fchmod(fd, mode)
#define RO_SGNS__FCHOWN(fd, uid, gid) fchown(fd, uid, gid)
#endif
#define RO_SGNS__IS_DIR(m) S_ISDIR(m)
#define RO_SGNS__IS_REG(m) S_ISREG(m)
#ifndef __cplusplus
/* POSIX, hidden by <unistd.h> under -std=c99 without feature macros (C++
   compilers define them); a repeated declaration is harmless in C */
ssize_t readlink(const char *path, char *buf, size_t size);
int fchmod(int fd, mode_t mode);
int fchown(int fd, uid_t uid, gid_t gid);
#endif
#endif
#endif
#include <time.h>   /* clock() for progress timings without OpenMP */
#if defined(__linux__) && !defined(RO_SGNS_NO_MADVISE) && !defined(RO_SGNS_NO_SGD)
/* madvise(MADV_HUGEPAGE) for the SGD baseline's W and C (III.7); glibc
   and musl declare it unless strict feature macros hide it, and then the
   advice is left out (ro_sgns__sgd_advise) */
#include <sys/mman.h>
#endif
#if defined(__wasi__) && !defined(_WASI_EMULATED_PROCESS_CLOCKS)
/* WASI has no process clock: the monotonic wall clock instead, in clock()'s
   units (progress reports' seconds count time waited too) */
#include <wasi/api.h>
static clock_t ro_sgns__wasi_clock(void)
{
    __wasi_timestamp_t ns = 0; /* nanoseconds */
    if (__wasi_clock_time_get(__WASI_CLOCKID_MONOTONIC, 1000, &ns) != 0) return (clock_t)-1;
    return (clock_t)(ns / (1000000000u / CLOCKS_PER_SEC));
}
#define RO_SGNS__CLOCK() ro_sgns__wasi_clock()
#else
#define RO_SGNS__CLOCK() clock()
#endif

#if defined(RO_SGNS_MALLOC) && defined(RO_SGNS_REALLOC) && defined(RO_SGNS_FREE)
/* all three given */
#elif !defined(RO_SGNS_MALLOC) && !defined(RO_SGNS_REALLOC) && !defined(RO_SGNS_FREE)
#include <stdlib.h>
#define RO_SGNS_MALLOC(c, sz) ((void)(c), malloc(sz))
#define RO_SGNS_REALLOC(c, p, sz) ((void)(c), realloc(p, sz))
#define RO_SGNS_FREE(c, p) ((void)(c), free(p))
#else
#error "ro_sgns.h: define all of RO_SGNS_MALLOC, RO_SGNS_REALLOC and RO_SGNS_FREE, or none"
#endif

#ifndef RO_SGNS_ASSERT
#include <assert.h>
#define RO_SGNS_ASSERT(x) assert(x)
#endif

#if !defined(RO_SGNS_SQRT) || !defined(RO_SGNS_EXP) || !defined(RO_SGNS_LOG) || \
    !defined(RO_SGNS_FABS) || !defined(RO_SGNS_POW) || !defined(RO_SGNS_FLOOR) || \
    !defined(RO_SGNS_COS)
#include <math.h>
#endif
#ifndef RO_SGNS_SQRT
#define RO_SGNS_SQRT(x) sqrt(x)
#endif
#ifndef RO_SGNS_EXP
#define RO_SGNS_EXP(x) exp(x)
#endif
#ifndef RO_SGNS_LOG
#define RO_SGNS_LOG(x) log(x)
#endif
#ifndef RO_SGNS_FABS
#define RO_SGNS_FABS(x) fabs(x)
#endif
#ifndef RO_SGNS_POW
#define RO_SGNS_POW(x, y) pow(x, y)
#endif
#ifndef RO_SGNS_FLOOR
#define RO_SGNS_FLOOR(x) floor(x)
#endif
#ifndef RO_SGNS_COS
#define RO_SGNS_COS(x) cos(x)
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

/* The GEMM's micro-kernel (II.0, II.1) follows the instruction set the
   compiler targets: AVX-512F, else AVX2 + FMA, else portable C. */
#if defined(__AVX512F__) && !defined(RO_SGNS_NO_SIMD)
#include <immintrin.h>
#define RO_SGNS__AVX512 1
#elif defined(__AVX2__) && defined(__FMA__) && !defined(RO_SGNS_NO_SIMD)
#include <immintrin.h>
#define RO_SGNS__AVX2 1
#endif
/* The GEMM's cache blocking (II.1) reads the cache sizes with the
   cpuid instruction on x86 (GCC 5+, clang, MSVC); elsewhere, or with
   RO_SGNS_NO_CPUID, it uses a fixed table. <cpuid.h> is the compiler's
   own header, not libc's: a compiler that defines __GNUC__ may lack it
   (pcc), so it is taken only where __has_include finds it. */
#if !defined(RO_SGNS_NO_CPUID) && (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__)) && defined(__has_include)
#if __has_include(<cpuid.h>)
#include <cpuid.h>
#define RO_SGNS__CPUID_GNU 1
#endif
#elif !defined(RO_SGNS_NO_CPUID) && (defined(_M_X64) || defined(_M_IX86)) && defined(_MSC_VER)
#include <intrin.h>
#define RO_SGNS__CPUID_MSVC 1
#endif

#ifdef RO_SGNS_USE_CBLAS
#include <cblas.h>
#endif
#ifdef RO_SGNS_USE_LAPACKE
#include <lapacke.h>
#endif

#if defined(__cplusplus)
#define RO_SGNS__RESTRICT __restrict
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define RO_SGNS__RESTRICT restrict
#else
#define RO_SGNS__RESTRICT
#endif

/* Small hot helpers are marked inline so -O2 builds vectorize the loops
   that call them. */
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define RO_SGNS__INLINE inline
#else
#define RO_SGNS__INLINE
#endif

/* Is the build's real type double? A compile-time constant; branches on it
   are folded away. Used where a kernel exists in float and double flavours
   (CBLAS/LAPACKE routing, SIMD micro-kernels). */
#define RO_SGNS__IS_DOUBLE (sizeof(ro_sgns_real) == sizeof(double))

/* ======================================================================
   0. Basics: errors, allocation, checked sizes, threads, a clock
   ====================================================================== */

RO_SGNS_DEF const char *ro_sgns_result_string(ro_sgns_result code)
{
    switch (code) {
    case RO_SGNS_OK: return "ok";
    case RO_SGNS_STOPPED: return "stopped by callback";
    case RO_SGNS_ERR_INVALID_ARGUMENT: return "invalid argument";
    case RO_SGNS_ERR_OUT_OF_MEMORY: return "out of memory";
    case RO_SGNS_ERR_SIZE_OVERFLOW: return "size overflow";
    case RO_SGNS_ERR_IO: return "i/o error";
    case RO_SGNS_ERR_FORMAT: return "malformed input";
    case RO_SGNS_ERR_EMPTY: return "empty input";
    case RO_SGNS_ERR_NUMERIC: return "NaN or Inf";
    case RO_SGNS_ERR_NOT_CONVERGED: return "did not converge";
    case RO_SGNS_ERR_BUDGET: return "memory budget too small";
    case RO_SGNS_ERR_UNSUPPORTED: return "not supported in this build";
    case RO_SGNS_ERR_NOT_FOUND: return "not found";
    }
    return "unknown result code";
}

/* The error codes run from -1 down to the last without a gap; the shards
   agree on one count per code (II.4). A new code goes below the last
   and becomes it here (the switch above must name it too: -Wall says so). */
#define RO_SGNS__ERR_LAST RO_SGNS_ERR_NOT_FOUND
#define RO_SGNS__N_ERRORS (-(int)RO_SGNS__ERR_LAST)

#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define RO_SGNS__PRINTF(f, a)
#endif

/* Record a failure (printf-style message) and return its code, so a failing
   path reads  return ro_sgns__fail(err, RO_SGNS_ERR_..., "what %d", x);  */
static ro_sgns_result ro_sgns__fail(ro_sgns_error *err, ro_sgns_result code, const char *fmt,
                                    ...) RO_SGNS__PRINTF(3, 4);
static ro_sgns_result ro_sgns__fail(ro_sgns_error *err, ro_sgns_result code, const char *fmt,
                                    ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static ro_sgns_result ro_sgns__ok(ro_sgns_error *err)
{
    if (err) {
        err->code = RO_SGNS_OK;
        err->message[0] = '\0';
    }
    return RO_SGNS_OK;
}

static void *ro_sgns__malloc(const ro_sgns_allocator *al, size_t size)
{
    if (size == 0) size = 1; /* never ask for 0 bytes: malloc(0) may return NULL */
    if (al && al->malloc_fn) return al->malloc_fn(al->user, size);
    return RO_SGNS_MALLOC(al ? al->user : NULL, size);
}

#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS__MAYBE_UNUSED __attribute__((unused))
#else
#define RO_SGNS__MAYBE_UNUSED
#endif

static RO_SGNS__MAYBE_UNUSED void *ro_sgns__realloc(const ro_sgns_allocator *al, void *p, size_t size)
{
    if (size == 0) size = 1;
    if (al && al->realloc_fn) return al->realloc_fn(al->user, p, size);
    return RO_SGNS_REALLOC(al ? al->user : NULL, p, size);
}

static void ro_sgns__free(const ro_sgns_allocator *al, void *p)
{
    if (!p) return;
    if (al && al->free_fn) {
        al->free_fn(al->user, p);
        return;
    }
    RO_SGNS_FREE(al ? al->user : NULL, p);
}

/* a * b, or 0 with *overflow set when it does not fit in size_t. */
static size_t ro_sgns__mul(size_t a, size_t b, int *overflow)
{
    if (a != 0 && b > (size_t)-1 / a) {
        *overflow = 1;
        return 0;
    }
    return a * b;
}

/* Allocate rows * cols elements of elem bytes each, overflow-checked. */
static void *ro_sgns__alloc_array(const ro_sgns_allocator *al, size_t rows, size_t cols,
                                  size_t elem)
{
    int of = 0;
    size_t bytes = ro_sgns__mul(ro_sgns__mul(rows, cols, &of), elem, &of);
    if (of) return NULL;
    return ro_sgns__malloc(al, bytes);
}

static int ro_sgns__is_finite(double x)
{
    /* x - x is 0 for finite x and NaN for NaN or Inf; NaN != NaN. Survives
       any compiler that keeps IEEE semantics (we never use -ffast-math). */
    double z = x - x;
    return z == z;
}

/* Is every entry of the rows x cols matrix A (row stride lda) finite? */
static int ro_sgns__all_finite(size_t rows, size_t cols, const ro_sgns_real *A, size_t lda)
{
    size_t i, j;
    for (i = 0; i < rows; ++i)
        for (j = 0; j < cols; ++j)
            if (!ro_sgns__is_finite((double)A[i * lda + j])) return 0;
    return 1;
}

static size_t ro_sgns__min(size_t a, size_t b) { return a < b ? a : b; }

static RO_SGNS__MAYBE_UNUSED int ro_sgns__num_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

static void ro_sgns__keep_alloc(ro_sgns_allocator *dst, int *has, const ro_sgns_allocator *src)
{
    if (src) {
        *dst = *src;
        *has = 1;
    } else {
        memset(dst, 0, sizeof *dst);
        *has = 0;
    }
}

#ifndef RO_SGNS_NO_STDIO

static RO_SGNS__MAYBE_UNUSED size_t ro_sgns__fread_fn(void *user, void *buf, size_t size)
{
    FILE *f = (FILE *)user;
    size_t got = fread(buf, 1, size, f);
    if (got == 0 && ferror(f)) return (size_t)-1;
    return got;
}

static RO_SGNS__MAYBE_UNUSED int ro_sgns__fwrite_fn(void *user, const void *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)user) == size ? 0 : 1;
}

#endif

static RO_SGNS__MAYBE_UNUSED double ro_sgns__now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)RO_SGNS__CLOCK() / CLOCKS_PER_SEC;
#endif
}

#if !defined(RO_SGNS_NO_FILES) || !defined(RO_SGNS_NO_EVAL)

/* A word for a message: printable ASCII as it is, every other byte as
   \xHH, at most about 40 bytes of the word. */
static RO_SGNS__MAYBE_UNUSED void ro_sgns__escape_word(char *out, size_t size, const unsigned char *w, size_t len)
{
    size_t o = 0, i;
    for (i = 0; i < len && o + 8 < size; ++i) {
        unsigned ch = w[i];
        if (o >= 40) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (ch > 0x20 && ch < 0x7F && ch != '\\' && ch != '\'') {
            out[o++] = (char)ch;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = "0123456789abcdef"[ch >> 4];
            out[o++] = "0123456789abcdef"[ch & 15u];
        }
    }
    out[o] = '\0';
}

#endif

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

/* ######################################################################
   PART I. RO-SGNS PLAINLY

   The whole method in plain code, in the order of the paper, for a reader
   who wants to learn it: one entry of the objective and its gradient
   (I.1), the problem they are summed over and a constructor for it (I.2),
   F (I.3), the three dense kernels the method stands on (GEMM I.4, QR
   I.5, SVD I.6), the manifold the method moves on (I.7), the start (I.8),
   one step of Algorithm 1 with every n x m matrix formed (I.9), the
   embeddings (I.10), and the loop that runs it all, counts to embeddings
   (I.11). A triple loop is a triple loop; each piece is the reference
   its fast twin in Part II is tested against (tests/). Memory is O(n m):
   small problems only. It stands alone: with RO_SGNS_PLAIN beside
   RO_SGNS_IMPLEMENTATION only this part is compiled, and a program linked
   with libc and libm trains a small problem (tests/test_plain.c).
   ###################################################################### */

/* ======================================================================
   I.1 The objective and its gradient, one entry at a time
       [paper 2.2 eq. 4, 3.2]

   For one pair (w, c), with a = #(w,c) its count, B = B_wc = k #(w)#(c)/|D|
   the weight of its negative samples and x = x_wc:
       f(x)  = a log s(x) + B log s(-x)        (F(X) is the sum over all
       f'(x) = a s(-x) - B s(x)                 n x m pairs; grad F = f')
   with s the logistic sigmoid. Every s and log s below comes from
   e = exp(-|x|) <= 1, so nothing overflows for any finite x:
       s(x)  = 1 / (1 + e) if x >= 0, else e / (1 + e)
       log s(x) = -(max(-x, 0) + log(1 + e))
   Returns f(x); *grad (if not NULL) gets f'(x). Fast twin: Part II's
   elementwise code (II.5, ro_sgns__row_exp .. ro_sgns__sparse_terms), tested
   through the objective and the step (tests/test_ro.c).
   ====================================================================== */

static double ro_sgns__sgns_entry(double a, double B, double x, double *grad)
{
    double e = RO_SGNS_EXP(-RO_SGNS_FABS(x)), log1pe = RO_SGNS_LOG(1 + e);
    double s_x = x >= 0 ? 1 / (1 + e) : e / (1 + e);     /* s(x) */
    double s_minus_x = x >= 0 ? e / (1 + e) : 1 / (1 + e); /* s(-x) = 1 - s(x) */
    if (grad) *grad = a * s_minus_x - B * s_x;
    return -a * ((x < 0 ? -x : 0) + log1pe) - B * ((x > 0 ? x : 0) + log1pe);
}

/* ======================================================================
   I.2 The problem: the counts #(w,c) and the weights B_wc  [paper 2.2]

   F sums f over every pair (w, c) of an n x m matrix. Two numbers
   decide each pair's term: its count a = #(w,c), stored sparse (CSR: the
   pairs that occur), and the weight of its negative samples,
       B_wc = k #(w) #(c) / |D|,
   dense but rank one: rowfac[w] * colfac[c] with rowfac = k #(w) / |D| and
   colfac = #(c). The problem holds the counts both ways (fwd: words x
   contexts; bwd: its transpose, for products with M^T) with B's two
   factors for each; ro_sgns_problem_create_naive below builds one.
   ====================================================================== */

/* One orientation of the problem: rows x cols counts in CSR and the rank-one
   factors of B. Forward: words x contexts; backward: the transpose. */
typedef struct ro_sgns__side {
    size_t rows, cols;
    const uint64_t *row_ptr;
    const uint32_t *col;
    const float *val;
    const double *rowfac;      /* k #(row)/|D| */
    const ro_sgns_real *colfac; /* #(col) */
} ro_sgns__side;

/* The problem: the counts of the rows r0..r1 it holds (all n rows, except
   for a shard, II.8) and the factors of B. rowfac holds k #(w)/|D|
   for the rows held, then k #(c)/|D| for the m contexts; colfac holds #(c)
   for the m contexts, then #(w) for the rows held (context smoothing,
   cds != 1, changes #(c) and |D|: II.0), so that B_wc = rowfac[w] *
   colfac[c] forward and B_cw = rowfac[rows + c] * colfac[m + w] backward. */
struct ro_sgns_problem {
    size_t n, m;          /* words x contexts of the whole problem */
    size_t r0, r1;        /* the rows held here */
    double k, total;      /* negatives, |D| */
    double cds;           /* context distribution smoothing exponent (1 = off) */
    ro_sgns__side fwd;    /* rows r0..r1 of #(w,c): (r1 - r0) x m */
    ro_sgns__side bwd;    /* their transpose: m x (r1 - r0) */
    double *rowfac;       /* owned, or NULL when borrowed from a whole problem */
    ro_sgns_real *colfac; /* owned, or NULL when borrowed */
    uint64_t *t_row_ptr;  /* owned transpose, or NULL when bwd is fwd itself */
    uint32_t *t_col;      /* (symmetric counts) or borrowed */
    float *t_val;
    uint64_t *h_row_ptr;  /* owned forward counts (a head problem), or NULL */
    uint32_t *h_col;
    float *h_val;
    uint64_t fingerprint; /* of the counts it was made from (0: unknown) */
    int window;           /* their window (0: unknown) */
    ro_sgns_allocator alloc_;
    int has_alloc_;
};

static const ro_sgns_allocator *ro_sgns__problem_alloc(const ro_sgns_problem *p)
{
    return p->has_alloc_ ? &p->alloc_ : NULL;
}

RO_SGNS_DEF void ro_sgns_problem_free(ro_sgns_problem *p)
{
    const ro_sgns_allocator *al;
    if (!p) return;
    al = ro_sgns__problem_alloc(p);
    ro_sgns__free(al, p->rowfac);
    ro_sgns__free(al, p->colfac);
    ro_sgns__free(al, p->t_row_ptr);
    ro_sgns__free(al, p->t_col);
    ro_sgns__free(al, p->t_val);
    ro_sgns__free(al, p->h_row_ptr);
    ro_sgns__free(al, p->h_col);
    ro_sgns__free(al, p->h_val);
    ro_sgns__free(al, p);
}

/* The transpose of a rows x cols CSR matrix by a counting sort into
   t_row_ptr (cols + 1), t_col and t_val (row_ptr[rows] - row_ptr[0]
   entries each: row_ptr may start anywhere, as a shard's rows do); the
   result's columns are the input's row numbers from 0, ascending in every
   row. val_size is sizeof(float) or sizeof(double): values are copied as
   they are. next is workspace of cols + 1. The library's one transpose
   (ro_sgns_csr_transpose, the problem's backward side). */
static void ro_sgns__transpose_csr(size_t rows, size_t cols, const uint64_t *row_ptr,
                                   const uint32_t *col, const void *val, size_t val_size,
                                   uint64_t *t_row_ptr, uint32_t *t_col, void *t_val,
                                   uint64_t *next)
{
    size_t i;
    uint64_t e;
    memset(t_row_ptr, 0, (cols + 1) * sizeof(uint64_t));
    for (e = row_ptr[0]; e < row_ptr[rows]; ++e) ++t_row_ptr[col[e] + 1];
    for (i = 0; i < cols; ++i) t_row_ptr[i + 1] += t_row_ptr[i];
    memcpy(next, t_row_ptr, (cols + 1) * sizeof(uint64_t));
    for (i = 0; i < rows; ++i)
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
            uint64_t dst = next[col[e]]++;
            t_col[dst] = (uint32_t)i;
            if (val_size == sizeof(float))
                ((float *)t_val)[dst] = ((const float *)val)[e];
            else
                ((double *)t_val)[dst] = ((const double *)val)[e];
        }
}

/* Rows that index only what is there: row_ptr never falls from row 0 to
   row rows, and col, val are not NULL when the rows hold entries. Then
   every row lies within [row_ptr[0], row_ptr[rows]). */
static ro_sgns_result ro_sgns__check_rows(const char *who, size_t rows, const uint64_t *row_ptr,
                                          const void *col, const void *val, ro_sgns_error *err)
{
    size_t i;
    for (i = 0; i < rows; ++i)
        if (row_ptr[i + 1] < row_ptr[i])
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "%s: row_ptr falls at row %lu (%llu, then %llu)", who,
                                 (unsigned long)i, (unsigned long long)row_ptr[i],
                                 (unsigned long long)row_ptr[i + 1]);
    if (row_ptr[rows] > row_ptr[0] && (!col || !val))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: NULL col or val", who);
    return ro_sgns__ok(err);
}

/* The problem from n x m CSR counts (borrowed), plainly: #(w) the row
   sums, #(c) the column sums, |D| the total, B's factors as above, the
   transpose for the backward side. Fast twin: ro_sgns_problem_create_csr
   (II.3), the same B, with context smoothing. */
RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_naive(size_t n, size_t m,
                                                        const uint64_t *row_ptr,
                                                        const uint32_t *col, const float *val,
                                                        double k, ro_sgns_problem **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    ro_sgns_problem *p;
    double total = 0;
    size_t i, nnz;
    uint64_t e, *next;
    ro_sgns_result res;
    if (!row_ptr || !out || !(k > 0) || !ro_sgns__is_finite(k) || n == 0 || m == 0 ||
        n > 0xFFFFFFFFu || m > 0xFFFFFFFFu)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "problem_naive: need a non-empty n x m count matrix and k > 0");
    res = ro_sgns__check_rows("problem_naive", n, row_ptr, col, val, err);
    if (res != RO_SGNS_OK) return res;
    for (i = 0; i < n; ++i)
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e)
            if (col[e] >= m || (e > row_ptr[i] && col[e] <= col[e - 1]) || !(val[e] > 0) ||
                !ro_sgns__is_finite(val[e]))
                return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                     "problem_naive: row %lu: bad column %lu or value %g",
                                     (unsigned long)i, (unsigned long)col[e], (double)val[e]);
    p = (ro_sgns_problem *)ro_sgns__malloc(alloc, sizeof *p);
    if (!p) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "problem_naive: out of memory");
    memset(p, 0, sizeof *p);
    ro_sgns__keep_alloc(&p->alloc_, &p->has_alloc_, alloc);
    p->n = p->r1 = n;
    p->m = m;
    p->k = k;
    p->cds = 1;
    nnz = (size_t)(row_ptr[n] - row_ptr[0]);
    p->rowfac = (double *)ro_sgns__alloc_array(alloc, n + m, sizeof(double), 1);
    p->colfac = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n + m, sizeof(ro_sgns_real), 1);
    p->t_row_ptr = (uint64_t *)ro_sgns__alloc_array(alloc, m + 1, sizeof(uint64_t), 1);
    p->t_col = (uint32_t *)ro_sgns__alloc_array(alloc, nnz, sizeof(uint32_t), 1);
    p->t_val = (float *)ro_sgns__alloc_array(alloc, nnz, sizeof(float), 1);
    next = (uint64_t *)ro_sgns__alloc_array(alloc, m + 1, sizeof(uint64_t), 1);
    if (!p->rowfac || !p->colfac || !p->t_row_ptr || !p->t_col || !p->t_val || !next) {
        ro_sgns__free(alloc, next);
        ro_sgns_problem_free(p);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "problem_naive: out of memory");
    }
    /* #(w) in rowfac[w], #(c) in rowfac[n + c] for now; |D| */
    for (i = 0; i < m; ++i) p->rowfac[n + i] = 0;
    for (i = 0; i < n; ++i) {
        double s = 0;
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
            s += val[e];
            p->rowfac[n + col[e]] += val[e];
        }
        p->rowfac[i] = s;
        total += s;
    }
    /* B_wc = (k #(w) / |D|) #(c): colfac = #(c), then #(w) for the
       backward side; rowfac = k #(w) / |D|, then k #(c) / |D| */
    for (i = 0; i < m; ++i) p->colfac[i] = (ro_sgns_real)p->rowfac[n + i];
    for (i = 0; i < n; ++i) p->colfac[m + i] = (ro_sgns_real)p->rowfac[i];
    for (i = 0; i < n + m; ++i) p->rowfac[i] = k * p->rowfac[i] / total;
    p->total = total;
    ro_sgns__transpose_csr(n, m, row_ptr, col, val, sizeof(float), p->t_row_ptr, p->t_col,
                           p->t_val, next);
    ro_sgns__free(alloc, next);
    if (!(total > 0)) {
        ro_sgns_problem_free(p);
        return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "problem_naive: the counts are all zero");
    }
    p->fwd.rows = p->bwd.cols = n;
    p->fwd.cols = p->bwd.rows = m;
    p->fwd.row_ptr = row_ptr;
    p->fwd.col = col;
    p->fwd.val = val;
    p->fwd.rowfac = p->rowfac;
    p->fwd.colfac = p->colfac;
    p->bwd.row_ptr = p->t_row_ptr;
    p->bwd.col = p->t_col;
    p->bwd.val = p->t_val;
    p->bwd.rowfac = p->rowfac + n;
    p->bwd.colfac = p->colfac + m;
    *out = p;
    return ro_sgns__ok(err);
}

static ro_sgns_result ro_sgns__check_fit(const ro_sgns_problem *p, size_t n, size_t m,
                                         ro_sgns_error *err)
{
    if (!p || n != p->r1 - p->r0 || m != p->m)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "sgns: a %lu x %lu point does not fit the %lu x %lu counts",
                             (unsigned long)n, (unsigned long)m,
                             (unsigned long)(p ? p->r1 - p->r0 : 0), (unsigned long)(p ? p->m : 0));
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_create(size_t n, size_t m, size_t d,
                                                  ro_sgns_factors **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    ro_sgns_factors *f;
    if (!out || d == 0 || n < d || m < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "factors: need 1 <= d <= min(n, m), got n = %lu, m = %lu, d = %lu",
                             (unsigned long)n, (unsigned long)m, (unsigned long)d);
    f = (ro_sgns_factors *)ro_sgns__malloc(alloc, sizeof *f);
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "factors: out of memory");
    memset(f, 0, sizeof *f);
    ro_sgns__keep_alloc(&f->alloc_, &f->has_alloc_, alloc);
    f->n = n;
    f->m = m;
    f->d = d;
    f->U = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, d, sizeof(ro_sgns_real));
    f->S = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, d, sizeof(ro_sgns_real));
    f->V = (ro_sgns_real *)ro_sgns__alloc_array(alloc, m, d, sizeof(ro_sgns_real));
    if (!f->U || !f->S || !f->V) {
        ro_sgns_factors_free(f);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "factors: cannot allocate (%lu + %lu) x %lu", (unsigned long)n,
                             (unsigned long)m, (unsigned long)d);
    }
    memset(f->S, 0, d * d * sizeof(ro_sgns_real));
    f->cds = 1;
    *out = f;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF void ro_sgns_factors_free(ro_sgns_factors *f)
{
    const ro_sgns_allocator *al;
    if (!f) return;
    al = f->has_alloc_ ? &f->alloc_ : NULL;
    ro_sgns__free(al, f->U);
    ro_sgns__free(al, f->S);
    ro_sgns__free(al, f->V);
    ro_sgns__free(al, f);
}

/* ======================================================================
   I.3 F(X) plainly [paper 2.2 eq. 4]

   The sum of f over every entry, x_wc = (U S)_w . V_c made one at a time,
   in double: O(n m d) time. Fast twin: ro_sgns_objective (II.5).
   ====================================================================== */

RO_SGNS_DEF ro_sgns_result ro_sgns_objective_naive(const ro_sgns_problem *p,
                                                   const ro_sgns_factors *x, double *F,
                                                   ro_sgns_error *err)
{
    const ro_sgns__side *sd;
    double *us, sum = 0;
    size_t d, w, c, j, t;
    ro_sgns_result res;
    if (!x || !F) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "objective: NULL");
    res = ro_sgns__check_fit(p, x->n, x->m, err);
    if (res == RO_SGNS_OK && (p->r0 != 0 || p->r1 != p->n))
        res = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "objective_naive: needs every row");
    if (res != RO_SGNS_OK) return res;
    d = x->d;
    sd = &p->fwd;
    us = (double *)ro_sgns__alloc_array(ro_sgns__problem_alloc(p), d, sizeof(double), 1);
    if (!us) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "objective: out of memory");
    for (w = 0; w < x->n; ++w) {
        uint64_t e = sd->row_ptr[w];
        for (j = 0; j < d; ++j) { /* row w of U S */
            us[j] = 0;
            for (t = 0; t < d; ++t) us[j] += (double)x->U[w * d + t] * x->S[t * d + j];
        }
        for (c = 0; c < x->m; ++c) {
            double xwc = 0, a = 0;
            for (j = 0; j < d; ++j) xwc += us[j] * x->V[c * d + j];
            if (e < sd->row_ptr[w + 1] && sd->col[e] == c) a = sd->val[e++];
            sum += ro_sgns__sgns_entry(a, sd->rowfac[w] * (double)sd->colfac[c], xwc, NULL);
        }
    }
    ro_sgns__free(ro_sgns__problem_alloc(p), us);
    *F = sum;
    if (!ro_sgns__is_finite(sum))
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "objective: F is NaN or Inf");
    return ro_sgns__ok(err);
}

/* ======================================================================
   I.4 GEMM plainly: C = alpha op(A) op(B) + beta C

   The step is products of an n x m matrix with n x d and m x d factors;
   the QRs, the SVD and the embeddings are built from products too.
   ====================================================================== */

/* The textbook triple loop, each entry's sum in double: the reference
   every product of the library is checked against. BLAS's argument list,
   as ro_sgns_gemm's. Fast twin: ro_sgns_gemm_builtin (II.1), compared in
   tests/test_linalg.c (test_gemm, through check_gemm). */
RO_SGNS_DEF void ro_sgns_gemm_naive(ro_sgns_trans trans_a, ro_sgns_trans trans_b, size_t m,
                                    size_t n, size_t k, ro_sgns_real alpha,
                                    const ro_sgns_real *A, size_t lda, const ro_sgns_real *B,
                                    size_t ldb, ro_sgns_real beta, ro_sgns_real *C, size_t ldc)
{
    size_t i, j, p;
    for (i = 0; i < m; ++i) {
        for (j = 0; j < n; ++j) {
            double sum = 0.0; /* in double: the reference should be the more accurate one */
            for (p = 0; p < k; ++p) {
                double a = trans_a ? A[p * lda + i] : A[i * lda + p];
                double b = trans_b ? B[j * ldb + p] : B[p * ldb + j];
                sum += a * b;
            }
            C[i * ldc + j] = (ro_sgns_real)(alpha * sum + (beta == 0 ? 0 : beta * C[i * ldc + j]));
        }
    }
}

/* ======================================================================
   I.5 Householder QR, one reflector at a time: A = Q R, A tall n x d

   What the retraction needs twice a step (the QRs of M V and of
   M^T U'): an n x d Q with orthonormal columns, whatever A's
   conditioning (Gram-Schmidt loses orthogonality; reflections do not).
   (Golub and Van Loan, "Matrix Computations", 4th ed., 5.1-5.2.) For
   each column j a reflector H_j = I - tau v v^T, v = [1; v'], maps
   A(j:, j) to (beta, 0, ..., 0) and is applied to the columns right of
   j (ro_sgns__geqr2); Q = H_0 ... H_{d-1} [I; 0] is then formed from the
   last reflector back (ro_sgns_qr_naive), and the signs are fixed so
   that R_jj >= 0. About 4 n d^2 flops.
   Fast twins (II.2): the same reflectors by blocks (ro_sgns_qr_builtin),
   and Cholesky QR twice for the step's well conditioned matrices.
   ====================================================================== */

/* The 2-norm of n values x[0], x[inc], ... in double, scaled by the largest
   magnitude so no square overflows or underflows. */
static double ro_sgns__nrm2(size_t n, const ro_sgns_real *x, size_t inc)
{
    double scale = 0, ssq = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        double a = RO_SGNS_FABS((double)x[i * inc]);
        if (a > scale) scale = a;
    }
    if (scale == 0) return 0;
    for (i = 0; i < n; ++i) {
        double a = (double)x[i * inc] / scale;
        ssq += a * a;
    }
    return scale * RO_SGNS_SQRT(ssq);
}

/* sqrt(a^2 + b^2) without overflow or underflow. */
static double ro_sgns__hypot(double a, double b)
{
    double x = RO_SGNS_FABS(a), y = RO_SGNS_FABS(b), big = x > y ? x : y, small = x > y ? y : x;
    if (big == 0) return 0;
    small /= big;
    return big * RO_SGNS_SQRT(1 + small * small);
}

/* Unblocked Householder QR of the n x d matrix A (n >= d) in place: R on and
   above the diagonal, v' of each reflector below it, tau[j] the reflector
   scales. w is scratch of d doubles. Fast twin: ro_sgns_qr_builtin (II.2,
   which runs this on each panel; tests/test_linalg.c, test_qr_unblocked). */
static void ro_sgns__geqr2(size_t n, size_t d, ro_sgns_real *A, size_t lda, double *tau,
                           double *w)
{
    size_t i, j, c;
    for (j = 0; j < d; ++j) {
        ro_sgns_real *ajj = A + j * lda + j;
        double xnorm = ro_sgns__nrm2(n - j - 1, ajj + lda, lda);
        double alpha = (double)*ajj, beta, scal;
        if (xnorm == 0) { /* already (alpha, 0, ..., 0): H_j = I */
            tau[j] = 0;
            continue;
        }
        beta = ro_sgns__hypot(alpha, xnorm);
        if (alpha > 0) beta = -beta; /* the sign that avoids cancellation in alpha - beta */
        tau[j] = (beta - alpha) / beta;
        scal = 1.0 / (alpha - beta);
        for (i = j + 1; i < n; ++i) A[i * lda + j] = (ro_sgns_real)(A[i * lda + j] * scal);
        *ajj = (ro_sgns_real)beta;
        /* A(j:, j+1:) -= tau v (v^T A(j:, j+1:)), v = [1; A(j+1:, j)] */
        if (j + 1 < d) {
            for (c = j + 1; c < d; ++c) w[c] = A[j * lda + c];
            for (i = j + 1; i < n; ++i) {
                double vi = A[i * lda + j];
                const ro_sgns_real *row = A + i * lda;
                for (c = j + 1; c < d; ++c) w[c] += vi * row[c];
            }
            for (c = j + 1; c < d; ++c) A[j * lda + c] -= (ro_sgns_real)(tau[j] * w[c]);
            for (i = j + 1; i < n; ++i) {
                double f = tau[j] * A[i * lda + j];
                ro_sgns_real *row = A + i * lda;
                for (c = j + 1; c < d; ++c) row[c] -= (ro_sgns_real)(f * w[c]);
            }
        }
    }
}

static ro_sgns_result ro_sgns__qr_check(size_t n, size_t d, const ro_sgns_real *A, size_t lda,
                                        const ro_sgns_real *R, size_t ldr, ro_sgns_error *err)
{
    if (d == 0 || n < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "qr: need n >= d >= 1, got n = %lu, d = %lu", (unsigned long)n,
                             (unsigned long)d);
    if (!A || !R || lda < d || ldr < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "qr: NULL matrix or leading dimension < d (%lu)",
                             (unsigned long)d);
    if (!ro_sgns__all_finite(n, d, A, lda))
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "qr: the %lu x %lu input has NaN or Inf",
                             (unsigned long)n, (unsigned long)d);
    return ro_sgns__ok(err);
}

/* Make R's diagonal >= 0 by flipping the sign of row j of R and column j of Q. */
static void ro_sgns__qr_fix_signs(size_t n, size_t d, ro_sgns_real *Q, size_t ldq,
                                  ro_sgns_real *R, size_t ldr)
{
    size_t i, j, c;
    for (j = 0; j < d; ++j) {
        if (!(R[j * ldr + j] < 0)) continue;
        for (c = j; c < d; ++c) R[j * ldr + c] = -R[j * ldr + c];
        for (i = 0; i < n; ++i) Q[i * ldq + j] = -Q[i * ldq + j];
    }
}

/* Thin QR, A = Q R, plainly (ro_sgns_qr's contract): geqr2's reflectors,
   R from the upper triangle, Q = H_0 ... H_{d-1} [I; 0] formed in place
   from the last reflector back (H_j touches rows j.. only), R_jj >= 0. */
RO_SGNS_DEF ro_sgns_result ro_sgns_qr_naive(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                            ro_sgns_real *R, size_t ldr,
                                            const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    double *tau;
    size_t i, j, c;
    ro_sgns_result res = ro_sgns__qr_check(n, d, A, lda, R, ldr, err);
    if (res != RO_SGNS_OK) return res;
    tau = (double *)ro_sgns__alloc_array(alloc, 2, d, sizeof(double));
    if (!tau)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "qr: out of memory (d = %lu)",
                             (unsigned long)d);
    ro_sgns__geqr2(n, d, A, lda, tau, tau + d);
    for (i = 0; i < d; ++i)
        for (c = 0; c < d; ++c) R[i * ldr + c] = c >= i ? A[i * lda + c] : 0;
    for (j = d; j-- > 0;) {
        /* A(j:, j+1:) = H_j A(j:, j+1:), with v_j = [1; A(j+1:, j)] */
        for (c = j + 1; c < d; ++c) {
            double s = A[j * lda + c];
            for (i = j + 1; i < n; ++i) s += (double)A[i * lda + j] * A[i * lda + c];
            s *= tau[j];
            A[j * lda + c] = (ro_sgns_real)(A[j * lda + c] - s);
            for (i = j + 1; i < n; ++i) A[i * lda + c] = (ro_sgns_real)(A[i * lda + c] - s * A[i * lda + j]);
        }
        /* column j = H_j e_j */
        for (i = j + 1; i < n; ++i) A[i * lda + j] = (ro_sgns_real)(-tau[j] * A[i * lda + j]);
        A[j * lda + j] = (ro_sgns_real)(1 - tau[j]);
        for (i = 0; i < j; ++i) A[i * lda + j] = 0;
    }
    ro_sgns__free(alloc, tau);
    ro_sgns__qr_fix_signs(n, d, A, lda, R, ldr);
    if (!ro_sgns__all_finite(d, d, R, ldr) || !ro_sgns__all_finite(n, d, A, lda))
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "qr: R overflows the real type");
    return ro_sgns__ok(err);
}

/* ======================================================================
   I.6 One-sided Jacobi SVD, cyclic

   A = U Sigma V^T of small dense matrices: the start's SPPMI (I.8) and
   the d x d core S = P Sigma Q^T of the embeddings (I.10).
   How (Hestenes 1958; Demmel and Veselic 1992): rotate pairs of columns
   (g_p, g_q) of G = A V, starting from G = A, V = I, until every pair is
   orthogonal to working precision: |g_p . g_q| <= tol |g_p| |g_q| with
   tol = m eps. Then A V = G = U Sigma with sigma_j = |g_j| and
   u_j = g_j / sigma_j. The rotation of a pair is the Jacobi rotation that
   diagonalizes the pair's 2 x 2 Gram matrix [a c; c b]:
       zeta = (b - a) / (2c),  t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)),
       cs = 1 / sqrt(1 + t^2), sn = cs t,
       g_p <- cs g_p - sn g_q,  g_q <- sn g_p + cs g_q  (and the same on V).
   A sweep visits every pair p < q in order (cyclic); a rotation spoils
   other pairs a little, but the off-diagonal mass falls every time and
   after a few sweeps (6-10) no pair needs a turn. a, b, c are computed
   afresh for every pair (updated by formula they drift). The test is
   relative to each pair's norms, so small singular values keep their
   relative accuracy. In double, on A scaled by its largest entry; a wide
   A is done as A^T = V Sigma U^T; a column rotated to zero gets a unit
   vector orthogonal to the others. ~6 m n^2 flops a sweep.
   Fast twin: ro_sgns_svd_builtin (II.0), the same rotations in blocks of
   columns, after a QR of a tall A (tests/test_ro.c, test_plain_vs_fast).
   ====================================================================== */

#define RO_SGNS__JACOBI_MAX_SWEEPS 60

/* Replace column j of U (m x r, column k at U + k*m) by a unit vector
   orthogonal to all columns marked good, by Gram-Schmidt (twice) on the
   unit vectors e_0, e_1, ... until one survives. */
static void ro_sgns__complete_column(size_t m, size_t r, double *U, const unsigned char *good,
                                     size_t j)
{
    size_t e, k, i;
    int pass;
    double *u = U + j * m;
    for (e = 0; e < m; ++e) {
        double nrm = 0;
        for (i = 0; i < m; ++i) u[i] = (double)(i == e);
        for (pass = 0; pass < 2; ++pass) {
            for (k = 0; k < r; ++k) {
                const double *v = U + k * m;
                double dot = 0;
                if (!good[k] || k == j) continue;
                for (i = 0; i < m; ++i) dot += v[i] * u[i];
                for (i = 0; i < m; ++i) u[i] -= dot * v[i];
            }
        }
        for (i = 0; i < m; ++i) nrm += u[i] * u[i];
        nrm = RO_SGNS_SQRT(nrm);
        if (nrm > 0.5) {
            for (i = 0; i < m; ++i) u[i] /= nrm;
            return;
        }
    }
}

/* After the rotations: sigma_j = |g_j| into norm2, order[] the columns by
   it, descending, and each column of G (mm x n) made a unit vector, or
   completed (sigma_j 0) when too small (good: n bytes of scratch). */
static void ro_sgns__svd_columns(size_t mm, size_t n, double *G, double *norm2, size_t *order,
                                 unsigned char *good)
{
    size_t i, j, k;
    for (j = 0; j < n; ++j) {
        double nrm = 0, big = 0;
        const double *g = G + j * mm;
        for (i = 0; i < mm; ++i)
            if (RO_SGNS_FABS(g[i]) > big) big = RO_SGNS_FABS(g[i]);
        if (big > 0)
            for (i = 0; i < mm; ++i) nrm += (g[i] / big) * (g[i] / big);
        norm2[j] = big * RO_SGNS_SQRT(nrm);
        order[j] = j;
    }
    for (j = 1; j < n; ++j) {
        size_t o = order[j];
        k = j;
        while (k > 0 && norm2[order[k - 1]] < norm2[o]) {
            order[k] = order[k - 1];
            --k;
        }
        order[k] = o;
    }
    for (j = 0; j < n; ++j) {
        double *g = G + j * mm;
        good[j] = norm2[j] > 1e-150;
        if (good[j])
            for (i = 0; i < mm; ++i) g[i] /= norm2[j];
        else
            norm2[j] = 0;
    }
    for (j = 0; j < n; ++j)
        if (!good[j]) {
            ro_sgns__complete_column(mm, n, G, good, j);
            good[j] = 1;
        }
}

static ro_sgns_result ro_sgns__svd_check(size_t m, size_t n, const ro_sgns_real *A, size_t lda,
                                         const ro_sgns_real *U, size_t ldu,
                                         const ro_sgns_real *s, const ro_sgns_real *V,
                                         size_t ldv, ro_sgns_error *err)
{
    size_t r = ro_sgns__min(m, n);
    if (m == 0 || n == 0 || !A || !s || lda < n || (U && ldu < r) || (V && ldv < r))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "svd: bad arguments (m = %lu, n = %lu, lda = %lu)",
                             (unsigned long)m, (unsigned long)n, (unsigned long)lda);
    if (!ro_sgns__all_finite(m, n, A, lda))
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "svd: the %lu x %lu input has NaN or Inf",
                             (unsigned long)m, (unsigned long)n);
    return ro_sgns__ok(err);
}

/* Rotate the pair of columns x, y (len values each) by the angle whose
   cosine is cs and sine sn. */
static void ro_sgns__rotate(size_t len, double *x, double *y, double cs, double sn)
{
    size_t i;
    for (i = 0; i < len; ++i) {
        double a = x[i], b = y[i];
        x[i] = cs * a - sn * b;
        y[i] = sn * a + cs * b;
    }
}

/* The cyclic sweeps on G (n columns of length m, column j at G + j*m),
   V (n x n, column j at V + j*n) turned with it. */
static ro_sgns_result ro_sgns__jacobi_cyclic(size_t m, size_t n, double *G, double *V,
                                             ro_sgns_error *err)
{
    const double tol = DBL_EPSILON * (double)(m > 1 ? m : 1);
    size_t p, q, i;
    int sweep;
    for (sweep = 0; sweep < RO_SGNS__JACOBI_MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        for (p = 0; p + 1 < n; ++p)
            for (q = p + 1; q < n; ++q) {
                double *gp = G + p * m, *gq = G + q * m, a = 0, b = 0, c = 0, zeta, t, cs;
                for (i = 0; i < m; ++i) {
                    a += gp[i] * gp[i];
                    b += gq[i] * gq[i];
                    c += gp[i] * gq[i];
                }
                if (a == 0 || b == 0 || !(RO_SGNS_FABS(c) > tol * RO_SGNS_SQRT(a) * RO_SGNS_SQRT(b)))
                    continue; /* orthogonal already (or a zero column) */
                zeta = (b - a) / (2 * c);
                t = RO_SGNS_FABS(zeta) > 1e150 ? 0.5 / zeta
                    : (zeta >= 0 ? 1.0 : -1.0) / (RO_SGNS_FABS(zeta) + RO_SGNS_SQRT(1 + zeta * zeta));
                cs = 1 / RO_SGNS_SQRT(1 + t * t);
                ro_sgns__rotate(m, gp, gq, cs, cs * t);
                ro_sgns__rotate(n, V + p * n, V + q * n, cs, cs * t);
                rotated = 1;
            }
        if (!rotated) return ro_sgns__ok(err);
    }
    return ro_sgns__fail(err, RO_SGNS_ERR_NOT_CONVERGED,
                         "svd_naive: Jacobi did not converge in %d sweeps (%lu x %lu)",
                         RO_SGNS__JACOBI_MAX_SWEEPS, (unsigned long)m, (unsigned long)n);
}

/* The SVD plainly, ro_sgns_svd's contract (LAPACK's argument list): A is
   m x n (row stride lda), U m x r, s r, V n x r with r = min(m, n), s
   descending; U or V may be NULL. The wide case is A^T's SVD with U and V
   swapped. */
RO_SGNS_DEF ro_sgns_result ro_sgns_svd_naive(size_t m, size_t n, const ro_sgns_real *A,
                                             size_t lda, ro_sgns_real *U, size_t ldu,
                                             ro_sgns_real *s, ro_sgns_real *V, size_t ldv,
                                             const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    const int wide = m < n;
    const size_t rows = wide ? n : m, r = wide ? m : n; /* of the tall one, A or A^T */
    ro_sgns_real *Ut = wide ? V : U, *Vt = wide ? U : V;
    const size_t ldut = wide ? ldv : ldu, ldvt = wide ? ldu : ldv;
    double scale = 0, *G = NULL, *W = NULL, *norm2 = NULL;
    size_t *order = NULL, i, j;
    ro_sgns_result res = ro_sgns__svd_check(m, n, A, lda, U, ldu, s, V, ldv, err);
    if (res != RO_SGNS_OK) return res;
    G = (double *)ro_sgns__alloc_array(alloc, rows + r + 1, r, sizeof(double));
    order = (size_t *)ro_sgns__alloc_array(alloc, r, sizeof(size_t) + 1, 1);
    if (!G || !order) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "svd_naive: out of memory");
        goto done;
    }
    W = G + rows * r;  /* r x r, column j at W + j*r */
    norm2 = W + r * r; /* r */
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j)
            if (RO_SGNS_FABS((double)A[i * lda + j]) > scale) scale = RO_SGNS_FABS((double)A[i * lda + j]);
    if (scale == 0) scale = 1;
    /* G = A / scale (or A^T / scale), column by column; W = I */
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j)
            G[wide ? i * rows + j : j * rows + i] = (double)A[i * lda + j] / scale;
    for (i = 0; i < r * r; ++i) W[i] = (double)(i % (r + 1) == 0);
    res = ro_sgns__jacobi_cyclic(rows, r, G, W, err);
    if (res != RO_SGNS_OK) goto done;
    /* sigma_j = |g_j|, the columns sorted by it and made unit vectors */
    ro_sgns__svd_columns(rows, r, G, norm2, order, (unsigned char *)(void *)(order + r));
    for (j = 0; j < r; ++j) {
        size_t o = order[j];
        s[j] = (ro_sgns_real)(norm2[o] * scale);
        for (i = 0; Ut && i < rows; ++i) Ut[i * ldut + j] = (ro_sgns_real)G[o * rows + i];
        for (i = 0; Vt && i < r; ++i) Vt[i * ldvt + j] = (ro_sgns_real)W[o * r + i];
    }
    res = ro_sgns__is_finite((double)s[0])
              ? ro_sgns__ok(err)
              : ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "svd_naive: sigma_1 overflows the real type");
done:
    ro_sgns__free(alloc, G);
    ro_sgns__free(alloc, order);
    return res;
}

/* ======================================================================
   I.7 The manifold of rank-d matrices, its tangent space, and a
       retraction  [paper 3.1; Lubich and Oseledets 2014; Absil and
       Oseledets 2015]

   The method looks for the best n x m matrix X of rank d. Those matrices
   form a smooth surface, a manifold M_d = { X : rank X = d } of
   dimension (n + m - d) d, and "Riemannian" optimization walks on it,
   measuring with the inner product <A, B> = sum_wc A_wc B_wc. A point is
   X = U S V^T, U (n x d) and V (m x d) with orthonormal columns, S
   (d x d) invertible and not necessarily diagonal (ro_sgns_factors).

   Tangent space. Move X along a curve on M_d, X(t) = U(t) S(t) V(t)^T;
   its velocity is U' S V^T + U S' V^T + U S V'^T, and every such velocity
   can be written
       xi = U K V^T + Up V^T + U Vp^T,   U^T Up = 0,  V^T Vp = 0
   (K d x d, Up n x d, Vp m x d), (n + m - d) d numbers: the tangent
   space T at X, the flat plane that touches M_d at X. The orthogonal
   projection of any n x m Z onto it, with P_U = U U^T, P_V = V V^T, is
       P_T(Z) = P_U Z + Z P_V - P_U Z P_V
   (K = U^T Z V, Up = (I - P_U) Z V, Vp = (I - P_V) Z^T U). The gradient
   of F on the manifold, the Riemannian gradient, is P_T(grad F): the
   part of the ordinary gradient (I.1) that the surface can follow.
   Where it is zero, no curve through X raises F to first order.

   Retraction. A step X + lambda xi leaves the manifold (its rank is up
   to 2d). A retraction R maps it back onto M_d with, for tangent xi,
       R(X) = X  and  R(X + xi) = X + xi + O(|xi|^2):
   to first order the step itself, so a short step's ascent survives. The
   truncated SVD (the closest point) is one, at an n x m SVD a step.

   Projector splitting (Algorithm 1, lines 4-5) is a cheaper one: with
   M = X + lambda D,
       U', R1   = QR(M V)       (U' orthonormal, n x d)
       V', R2   = QR(M^T U')    (V' orthonormal, m x d)
       X'       = U' R2^T V'^T  = P_U' M P_V'
   one step of the block power method for M's top singular subspaces,
   started from the current ones. Why it is a retraction: take M = X + xi
   with xi tangent as above. Then M V = U (S + K) + Up (as V^T Vp = 0),
   and U' spans exactly that, so (I - P_U') (U (S + K) + Up) = 0, which
   leaves
       M - P_U' M = (I - P_U') U Vp^T,
       (I - P_U') U = -(I - P_U') Up (S + K)^-1:
   the first projection removes O(|xi|^2). The second removes nothing:
   V' spans the rows of P_U' M (M^T U' U'^T = (P_U' M)^T), a matrix of
   rank d, so P_U' M P_V' = P_U' M. Hence X' = X + xi + O(|xi|^2), X' has
   rank d whenever M V and M^T U' do, and X' = X when xi = 0. Lubich and
   Oseledets derive it as their projector-splitting integrator of the
   flow dX/dt = P_T(grad F); Absil and Oseledets call it the Lie-Trotter
   retraction, second order (the paper, 3.1).
   The paper steps along grad F itself, not P_T(grad F), and the
   splitting makes up the difference: the normal part
   N = (I - P_U) grad F (I - P_V) has N V = 0, so line 4 sees only the
   tangent part, and in line 5 it enters as N^T U', where
   (I - P_U) U' is O(lambda): it changes X' at second order only.
   Cost: two n x m x d products and two thin QRs, never an SVD; no
   gradient in U, S or V is formed, so a nearly singular S does no harm
   (the paper, 3.2).
   ====================================================================== */

/* ======================================================================
   I.8 The start: SPPMI and its truncated SVD  [paper 5; Levy and
       Goldberg 2014]

   X_0 = U_d diag(s_d) V_d^T, the best rank-d approximation of the shifted
   positive PMI matrix
       SPPMI_wc = max(log(#(w,c) / (#(w) P(c))) - log k, 0),
   P(c) = #(c) / |D|, on the counts' nonzero pattern only (a pair never
   seen has PMI -inf, kept at 0). With B_wc = k #(w) #(c) / |D| (I.2) that
   is max(log(#(w,c) / B_wc), 0): the log of how much more often the pair
   occurs than its negative samples. It is the strongest baseline of the
   paper and the start of RO-SGNS, its closest point on M_d (I.7).
   ro_sgns_start_naive forms it dense from a problem and keeps the top d
   triplets of its SVD (I.6); ro_sgns_tsvd_naive does that for any CSR
   matrix. Fast twins: ro_sgns_sppmi (II.0, from the counts object) and
   ro_sgns_tsvd (II.7, block Krylov, never forming the matrix).
   ====================================================================== */

/* A matrix the caller may have filled by hand: rows from entry 0 within
   its nnz, every column below cols (an error, not a read out of bounds). */
static ro_sgns_result ro_sgns__csr_check(const ro_sgns_csr *A, const char *who,
                                         ro_sgns_error *err)
{
    uint64_t e;
    ro_sgns_result res;
    if (!A->row_ptr || A->row_ptr[0] != 0 || A->row_ptr[A->rows] > A->nnz)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "%s: row_ptr must run from 0 to at most nnz = %llu", who,
                             (unsigned long long)A->nnz);
    res = ro_sgns__check_rows(who, A->rows, A->row_ptr, A->col, A->val, err);
    if (res != RO_SGNS_OK) return res;
    for (e = 0; e < A->row_ptr[A->rows]; ++e)
        if (A->col[e] >= A->cols)
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "%s: entry %llu is in column %lu of %lu", who,
                                 (unsigned long long)e, (unsigned long)A->col[e],
                                 (unsigned long)A->cols);
    return ro_sgns__ok(err);
}

/* U_d, diag(s_d), V_d of the dense rows x cols M (freed here) into *out. */
static ro_sgns_result ro_sgns__top_d(size_t rows, size_t cols, ro_sgns_real *M, size_t d,
                                     ro_sgns_factors **out, const ro_sgns_allocator *alloc,
                                     ro_sgns_error *err)
{
    const size_t r = rows < cols ? rows : cols;
    size_t i, j;
    ro_sgns_real *U = (ro_sgns_real *)ro_sgns__alloc_array(alloc, rows, r, sizeof(ro_sgns_real));
    ro_sgns_real *V = (ro_sgns_real *)ro_sgns__alloc_array(alloc, cols, r, sizeof(ro_sgns_real));
    ro_sgns_real *s = (ro_sgns_real *)ro_sgns__alloc_array(alloc, r, 1, sizeof(ro_sgns_real));
    ro_sgns_factors *f = NULL;
    ro_sgns_result res = !M || !U || !V || !s
                             ? ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                             "tsvd: out of memory (%lu x %lu)",
                                             (unsigned long)rows, (unsigned long)cols)
                             : ro_sgns_svd_naive(rows, cols, M, cols, U, r, s, V, r, alloc, err);
    if (res == RO_SGNS_OK) res = ro_sgns_factors_create(rows, cols, d, &f, alloc, err);
    if (res == RO_SGNS_OK) {
        for (i = 0; i < rows; ++i)
            for (j = 0; j < d; ++j) f->U[i * d + j] = U[i * r + j];
        for (i = 0; i < cols; ++i)
            for (j = 0; j < d; ++j) f->V[i * d + j] = V[i * r + j];
        for (j = 0; j < d; ++j) f->S[j * d + j] = s[j];
        *out = f;
    }
    ro_sgns__free(alloc, M);
    ro_sgns__free(alloc, U);
    ro_sgns__free(alloc, V);
    ro_sgns__free(alloc, s);
    return res;
}

/* The rank-d truncated SVD of a sparse matrix plainly: A dense, its whole
   SVD (I.6), the top d triplets kept. ro_sgns_tsvd's contract (II.7: the
   same triplets, to its accuracy, signs of the columns free). */
RO_SGNS_DEF ro_sgns_result ro_sgns_tsvd_naive(const ro_sgns_csr *A, size_t d,
                                              ro_sgns_factors **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    size_t rows, cols, i;
    uint64_t e;
    ro_sgns_real *M;
    ro_sgns_result res;
    if (!A || !out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "tsvd: NULL");
    res = ro_sgns__csr_check(A, "tsvd", err);
    if (res != RO_SGNS_OK) return res;
    rows = A->rows, cols = A->cols;
    if (d == 0 || d > rows || d > cols)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "tsvd: d = %lu must be in 1..%lu (d larger than the vocabulary?)",
                             (unsigned long)d, (unsigned long)ro_sgns__min(rows, cols));
    M = (ro_sgns_real *)ro_sgns__alloc_array(alloc, rows, cols, sizeof(ro_sgns_real));
    if (M) {
        memset(M, 0, rows * cols * sizeof(ro_sgns_real));
        for (i = 0; i < rows; ++i)
            for (e = A->row_ptr[i]; e < A->row_ptr[i + 1]; ++e) M[i * cols + A->col[e]] = A->val[e];
    }
    return ro_sgns__top_d(rows, cols, M, d, out, alloc, err);
}

/* The start: a whole problem's SPPMI max(log(#(w,c) / B_wc), 0), dense,
   and the top d triplets of its SVD into *out. */
RO_SGNS_DEF ro_sgns_result ro_sgns_start_naive(const ro_sgns_problem *p, size_t d,
                                               ro_sgns_factors **out, ro_sgns_error *err)
{
    const ro_sgns__side *sd;
    ro_sgns_real *M;
    size_t w;
    uint64_t e;
    ro_sgns_result res;
    if (!p || !out || p->r0 != 0 || p->r1 != p->n || d == 0 || d > p->n || d > p->m)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "start_naive: need a whole problem and 1 <= d <= min(n, m)");
    sd = &p->fwd;
    M = (ro_sgns_real *)ro_sgns__alloc_array(ro_sgns__problem_alloc(p), p->n, p->m,
                                             sizeof(ro_sgns_real));
    if (M) {
        memset(M, 0, p->n * p->m * sizeof(ro_sgns_real));
        for (w = 0; w < p->n; ++w)
            for (e = sd->row_ptr[w]; e < sd->row_ptr[w + 1]; ++e) {
                double v = RO_SGNS_LOG((double)sd->val[e] /
                                       (sd->rowfac[w] * (double)sd->colfac[sd->col[e]]));
                M[w * p->m + sd->col[e]] = (ro_sgns_real)(v > 0 ? v : 0);
            }
    }
    res = ro_sgns__top_d(p->n, p->m, M, d, out, ro_sgns__problem_alloc(p), err);
    return res;
}

/* ======================================================================
   I.9 The step, every matrix formed  [paper 3.1-3.2, Algorithm 1]

   X_{i+1} = R(X_i + lambda D(X_i)), R the projector-splitting retraction
   (I.7) of
       M = X + lambda D(X),       D = grad F (the paper), or grad F / B
   (the scaled direction, the default of ro_sgns_ro_train: B spans six
   orders of magnitude, so one lambda cannot fit every entry's curvature
   (#(w,c) + B_wc) s(x) s(-x); dividing by B lets one step of about 1 fit
   them all):
       U', S'   = QR(M V)                          Algorithm 1, line 4
       V', S'^T = QR(M^T U')                       line 5
       X'       = U' S' V'^T                       line 6
   ro_sgns_ro_step_naive is that, with X, D(X) and M dense n x m matrices.
   Fast twin: the step of ro_sgns_ro_train (II.6), O((n + m) d) memory.
   ====================================================================== */

/* The point is now one of p's: record what it was trained for (what a
   checkpoint stores, ro_sgns_factors_check_resume compares). */
static void ro_sgns__stamp(const ro_sgns_problem *p, ro_sgns_factors *x)
{
    x->counts_fingerprint = p->fingerprint;
    x->k = p->k;
    x->window = p->window;
    x->cds = p->cds;
}

/* What the entry points that need a whole problem and a dense direction
   (plain or scaled) check: the point fits, every row is held. */
static ro_sgns_result ro_sgns__check_whole(const ro_sgns_problem *p, const ro_sgns_factors *x,
                                           ro_sgns_direction dir, const char *who,
                                           ro_sgns_error *err)
{
    ro_sgns_result res = ro_sgns__check_fit(p, x->n, x->m, err);
    if (res == RO_SGNS_OK && (p->r0 != 0 || p->r1 != p->n))
        res = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: needs every row", who);
    if (res == RO_SGNS_OK && dir != RO_SGNS_DIRECTION_PLAIN && dir != RO_SGNS_DIRECTION_SCALED)
        res = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: plain or scaled direction",
                            who);
    return res;
}

/* One step of Algorithm 1, everything dense: X and M = X + lambda D(X)
   n x m, the products by I.4, the QRs by I.5, the gradient by I.1. */
RO_SGNS_DEF ro_sgns_result ro_sgns_ro_step_naive(const ro_sgns_problem *p, ro_sgns_factors *x,
                                                 ro_sgns_direction dir, double lambda,
                                                 ro_sgns_error *err)
{
    const ro_sgns_allocator *al;
    size_t n, m, d, w, c;
    ro_sgns_real *US, *M, *MV, *MtU, *R;
    ro_sgns_result res;
    if (!x) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "ro_step_naive: NULL point");
    res = ro_sgns__check_whole(p, x, dir, "ro_step_naive", err);
    if (res != RO_SGNS_OK) return res;
    al = ro_sgns__problem_alloc(p);
    n = x->n, m = x->m, d = x->d;
    US = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, sizeof(ro_sgns_real));
    M = (ro_sgns_real *)ro_sgns__alloc_array(al, n, m, sizeof(ro_sgns_real));
    MV = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, sizeof(ro_sgns_real));
    MtU = (ro_sgns_real *)ro_sgns__alloc_array(al, m, d, sizeof(ro_sgns_real));
    R = (ro_sgns_real *)ro_sgns__alloc_array(al, d, d, sizeof(ro_sgns_real));
    if (!US || !M || !MV || !MtU || !R) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "ro_step_naive: out of memory");
        goto done;
    }
    /* X = U S V^T */
    ro_sgns_gemm_naive(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, 1, x->U, d, x->S, d, 0, US, d);
    ro_sgns_gemm_naive(RO_SGNS_NOTRANS, RO_SGNS_TRANS, n, m, d, 1, US, d, x->V, d, 0, M, m);
    /* M = X + lambda D(X), D = grad F (plain) or grad F / B (scaled) */
    for (w = 0; w < n; ++w) {
        uint64_t e = p->fwd.row_ptr[w];
        for (c = 0; c < m; ++c) {
            double xwc = M[w * m + c], B = p->fwd.rowfac[w] * (double)p->fwd.colfac[c], a = 0, g;
            if (e < p->fwd.row_ptr[w + 1] && p->fwd.col[e] == c) a = p->fwd.val[e++];
            ro_sgns__sgns_entry(a, B, xwc, &g);
            M[w * m + c] = (ro_sgns_real)(xwc + lambda * (dir == RO_SGNS_DIRECTION_SCALED ? g / B : g));
        }
    }
    /* U', S' = QR(M V)                                           [line 4] */
    ro_sgns_gemm_naive(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, m, 1, M, m, x->V, d, 0, MV, d);
    res = ro_sgns_qr_naive(n, d, MV, d, R, d, al, err);
    if (res != RO_SGNS_OK) goto done;
    /* V', S'^T = QR(M^T U')                                       [line 5] */
    ro_sgns_gemm_naive(RO_SGNS_TRANS, RO_SGNS_NOTRANS, m, d, n, 1, M, m, MV, d, 0, MtU, d);
    res = ro_sgns_qr_naive(m, d, MtU, d, R, d, al, err);
    if (res != RO_SGNS_OK) goto done;
    /* X' = U' S' V'^T                                             [line 6] */
    memcpy(x->U, MV, n * d * sizeof(ro_sgns_real));
    memcpy(x->V, MtU, m * d * sizeof(ro_sgns_real));
    for (w = 0; w < d; ++w)
        for (c = 0; c < d; ++c) x->S[w * d + c] = R[c * d + w];
    ++x->iteration;
    ro_sgns__stamp(p, x);
done:
    ro_sgns__free(al, US);
    ro_sgns__free(al, M);
    ro_sgns__free(al, MV);
    ro_sgns__free(al, MtU);
    ro_sgns__free(al, R);
    return res;
}

/* ======================================================================
   I.10 Embeddings from the point: Step 2  [paper 2.3, Algorithm 1
        lines 7-8]

   The SVD of the d x d core, S = P Sigma Q^T (I.6), gives X's own SVD
   X = (U P) Sigma (V Q)^T without a big one, and W = U P Sigma^alpha,
   C = V Q Sigma^alpha (alpha = 1/2 in the paper: W C^T = X). Fast twin:
   ro_sgns_factors_embeddings (II.0), with ro_sgns_svd and ro_sgns_gemm.
   ====================================================================== */

/* The arguments every embeddings call checks. */
static ro_sgns_result ro_sgns__embed_args(const ro_sgns_factors *f, double alpha,
                                          ro_sgns_embedding_kind which, const ro_sgns_real *out,
                                          size_t ldo, ro_sgns_error *err)
{
    if (!f || !out || ldo < f->d || (which == RO_SGNS_EMBED_W_PLUS_C && f->n != f->m) ||
        (unsigned)which > 2u || !ro_sgns__is_finite(alpha))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "embeddings: bad arguments (W + C needs n = m, alpha finite)");
    return RO_SGNS_OK;
}

/* out (rows x d, row stride ldo) = F P diag(w), or += it when add. */
static void ro_sgns__embed_side(size_t rows, size_t d, const ro_sgns_real *F,
                                const ro_sgns_real *P, const double *w, int add,
                                ro_sgns_real *out, size_t ldo)
{
    size_t i, j, t;
    for (i = 0; i < rows; ++i)
        for (j = 0; j < d; ++j) {
            double sum = 0;
            for (t = 0; t < d; ++t) sum += (double)F[i * d + t] * P[t * d + j];
            out[i * ldo + j] = (ro_sgns_real)((add ? (double)out[i * ldo + j] : 0) + sum * w[j]);
        }
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_embeddings_naive(const ro_sgns_factors *f,
                                                            double alpha,
                                                            ro_sgns_embedding_kind which,
                                                            ro_sgns_real *out, size_t ldo,
                                                            const ro_sgns_allocator *alloc,
                                                            ro_sgns_error *err)
{
    size_t d, j;
    ro_sgns_real *P, *Q, *sig;
    double *w;
    ro_sgns_result res = ro_sgns__embed_args(f, alpha, which, out, ldo, err);
    if (res != RO_SGNS_OK) return res;
    d = f->d;
    P = (ro_sgns_real *)ro_sgns__alloc_array(alloc, 2 * d + 1, d, sizeof(ro_sgns_real));
    w = (double *)ro_sgns__alloc_array(alloc, d, sizeof(double), 1);
    if (!P || !w) {
        ro_sgns__free(alloc, P);
        ro_sgns__free(alloc, w);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "embeddings_naive: out of memory");
    }
    Q = P + d * d;
    sig = Q + d * d;
    /* S = P Sigma Q^T, and the weights Sigma^alpha of the columns */
    res = ro_sgns_svd_naive(d, d, f->S, d, P, d, sig, Q, d, alloc, err);
    for (j = 0; res == RO_SGNS_OK && j < d; ++j) {
        w[j] = sig[j] > 0 ? RO_SGNS_POW((double)sig[j], alpha) : 0;
        if (!ro_sgns__is_finite((double)(ro_sgns_real)w[j]))
            res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                "embeddings_naive: singular value %g to the power %g overflows",
                                (double)sig[j], alpha);
    }
    if (res == RO_SGNS_OK && which != RO_SGNS_EMBED_C) /* W = U P Sigma^alpha */
        ro_sgns__embed_side(f->n, d, f->U, P, w, 0, out, ldo);
    if (res == RO_SGNS_OK && which != RO_SGNS_EMBED_W) /* C = V Q Sigma^alpha (or W + C) */
        ro_sgns__embed_side(f->m, d, f->V, Q, w, which == RO_SGNS_EMBED_W_PLUS_C, out, ldo);
    ro_sgns__free(alloc, P);
    ro_sgns__free(alloc, w);
    return res;
}

/* ======================================================================
   I.11 The run: K steps with a step size, counts to embeddings
        [paper 3.2, Algorithm 1 lines 2-8]

   The whole method, plainly:
       p = ro_sgns_problem_create_naive(counts)        the problem (I.2)
       x = ro_sgns_start_naive(p, d)                   X_0 from SPPMI (I.8)
       ro_sgns_ro_train_naive(p, x, dir, step, K)      K steps (below)
       ro_sgns_factors_embeddings_naive(x, 1/2, W)     W = U P Sigma^1/2 (I.10)
   A step that lowers F (too long for the curvature: it overshoots) is
   undone and tried at lambda / 2, up to 8 times; after a kept step the
   next tries twice the size, at most the one given. The paper keeps one
   lambda; this is the safeguard of ro_sgns_ro_train (II.6, the fast
   twin), at its defaults, so that both take the same steps.
   ====================================================================== */

#define RO_SGNS__NAIVE_HALVINGS 8

/* Copy the point's U, S, V into keep (n d + d d + m d reals), or back
   from it when back is set. */
static void ro_sgns__keep_point(ro_sgns_factors *x, ro_sgns_real *keep, int back)
{
    ro_sgns_real *part[3];
    size_t len[3], i;
    part[0] = x->U, part[1] = x->S, part[2] = x->V;
    len[0] = x->n * x->d, len[1] = x->d * x->d, len[2] = x->m * x->d;
    for (i = 0; i < 3; keep += len[i++])
        memcpy(back ? part[i] : keep, back ? keep : part[i], len[i] * sizeof(ro_sgns_real));
}

RO_SGNS_DEF ro_sgns_result ro_sgns_ro_train_naive(const ro_sgns_problem *p, ro_sgns_factors *x,
                                                  ro_sgns_direction dir, double step, int steps,
                                                  double *F, ro_sgns_error *err)
{
    double f0, f1 = 0, lambda = step;
    ro_sgns_real *keep;
    uint64_t it0 = 0;
    int k, halvings;
    ro_sgns_result res;
    if (!x || steps < 0 || !(step > 0) || !ro_sgns__is_finite(step))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "ro_train_naive: need a point, steps >= 0 and a step > 0");
    res = ro_sgns__check_whole(p, x, dir, "ro_train_naive", err);
    if (res == RO_SGNS_OK) res = ro_sgns_objective_naive(p, x, &f0, err);
    if (res != RO_SGNS_OK) return res;
    keep = (ro_sgns_real *)ro_sgns__alloc_array(ro_sgns__problem_alloc(p), x->n + x->m + x->d,
                                                x->d, sizeof(ro_sgns_real));
    if (!keep) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "ro_train_naive: out of memory");
    if (F) F[0] = f0;
    for (k = 0; k < steps; ++k) {
        ro_sgns__keep_point(x, keep, 0);
        it0 = x->iteration;
        for (halvings = 0;; ++halvings) { /* X' = R(X + lambda D(X)), kept if F(X') >= F(X) */
            res = ro_sgns_ro_step_naive(p, x, dir, lambda, err);
            if (res == RO_SGNS_OK) res = ro_sgns_objective_naive(p, x, &f1, err);
            if (res == RO_SGNS_OK && !(f1 < f0)) break;
            ro_sgns__keep_point(x, keep, 1);
            x->iteration = it0;
            if (res != RO_SGNS_OK && res != RO_SGNS_ERR_NUMERIC) goto done;
            if (halvings == RO_SGNS__NAIVE_HALVINGS) { /* no step raises F: done */
                res = ro_sgns__ok(err);
                goto done;
            }
            lambda *= 0.5;
        }
        f0 = f1;
        lambda = 2 * lambda < step ? 2 * lambda : step;
        if (F) F[k + 1] = f0;
    }
    res = ro_sgns__ok(err);
done:
    for (; F && k < steps; ++k) F[k + 1] = f0;
    ro_sgns__free(ro_sgns__problem_alloc(p), keep);
    return res;
}

#ifndef RO_SGNS_PLAIN
/* ######################################################################
   PART II. THE SAME, FAST

   Part I's method at the machine's speed and in O((n + m) d + nnz)
   memory. NOTHING HERE CHANGES WHAT A RESULT MEANS: every function computes
   what its Part I twin computes (named in its comment), to rounding, and
   the tests compare the two (in the repository: tests/). What changes is
   the order of operations, which is fixed by the block layout and never by
   the thread count, so a result is bitwise the same for any number of
   threads.
   The order: what Part II builds on (II.0: pieces once parked in Part I),
   the dense kernels (GEMM II.1, QR II.2), the data the step reads (II.3),
   the layer under the step that is trivial on one machine and a transport
   on many (II.4), then the sweep that walks the dense n x m matrices by
   blocks (II.5), the step built on it (II.6), the truncated SVD for the
   start (II.7) and the public calls for shards (II.8).
   ###################################################################### */

/* ======================================================================
   II.0 What Part II builds on: the problem's helpers, the micro-kernel's
        block sizes, the blocked Jacobi SVD, random numbers, sparse
        matrices and the SPPMI from the counts, the embeddings at GEMM
        speed

   Moved here from Part I unchanged (Part I's plain twins: the
   constructor ro_sgns_problem_create_naive (I.2), ro_sgns_svd_naive
   (I.6), ro_sgns_start_naive (I.8), ro_sgns_factors_embeddings_naive
   (I.10)); the fast code of II.1 onwards calls them. Compared in the
   repository's tests/test_linalg.c (test_svd), tests/test_sppmi.c
   (test_sppmi_by_hand, test_embeddings) and tests/test_ro.c
   (test_plain_vs_fast).
   ====================================================================== */

/* The problem's pieces shared by every constructor of II.3 and II.8
   (ro_sgns_problem_create_csr, ..._shard, ..._rows, ..._head). */

/* A problem over rows r0..r1 of an n x m count matrix, nothing allocated
   but the struct. */
static ro_sgns_problem *ro_sgns__problem_new(size_t n, size_t m, size_t r0, size_t r1,
                                             double k, double cds,
                                             const ro_sgns_allocator *alloc)
{
    ro_sgns_problem *p = (ro_sgns_problem *)ro_sgns__malloc(alloc, sizeof *p);
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    ro_sgns__keep_alloc(&p->alloc_, &p->has_alloc_, alloc);
    p->n = n;
    p->m = m;
    p->r0 = r0;
    p->r1 = r1;
    p->k = k;
    p->cds = cds;
    return p;
}

/* The marginals of rows x cols counts: wsum[i] = the sum of row i and, when
   csum is given (zeroed by the caller), csum[c] += the entries of column c,
   in row order. The one routine behind #(w), #(c) of every problem. */
static void ro_sgns__row_col_sums(size_t rows, const uint64_t *row_ptr, const uint32_t *col,
                                  const float *val, double *wsum, double *csum)
{
    size_t i;
    uint64_t e;
    for (i = 0; i < rows; ++i) {
        double s = 0;
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
            s += val[e];
            if (csum) csum[col[e]] += val[e];
        }
        wsum[i] = s;
    }
}

/* rowfac and colfac (allocated: the rows held + m each) from the row sums
   wsum (rows), the column sums csum (m) and |D|. B_wc = k #(w) P(c) with
   P(c) = #(c) / |D| at cds = 1 (the paper: these very operations, so the
   bits do not change) and P(c) = #(c)^cds / Z, Z = sum_c #(c)^cds (summed
   in context order: the same on every shard) otherwise. B stays rank one:
   forward rowfac k #(w) / Z and colfac #(c)^cds, backward rowfac
   k #(c)^cds / Z and colfac #(w). */
static ro_sgns_result ro_sgns__problem_factors(ro_sgns_problem *p, const double *wsum,
                                               const double *csum, double total,
                                               ro_sgns_error *err)
{
    size_t rows = p->r1 - p->r0, m = p->m, i;
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(p);
    double z = 0, top = 0;
    p->total = total;
    if (p->cds != 1.0) {
        for (i = 0; i < m; ++i) {
            double pc = RO_SGNS_POW(csum[i], p->cds);
            z += pc;
            if (pc > top) top = pc;
        }
        if (!(z > 0) || !ro_sgns__is_finite(z))
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                 "problem: sum of #(c)^cds = %g with cds = %g (must be finite "
                                 "and > 0)",
                                 z, p->cds);
        /* colfac holds #(c)^cds as a real: in float it overflows long
           before the double sum does (cds = 20, #(c) = 1000) */
        if (!ro_sgns__is_finite((double)(ro_sgns_real)top))
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                 "problem: #(c)^cds = %g with cds = %g does not fit in a %s",
                                 top, p->cds, RO_SGNS__IS_DOUBLE ? "double" : "float");
    }
    p->rowfac = (double *)ro_sgns__alloc_array(al, rows + m, sizeof(double), 1);
    p->colfac = (ro_sgns_real *)ro_sgns__alloc_array(al, rows + m, sizeof(ro_sgns_real), 1);
    if (!p->rowfac || !p->colfac)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "problem: out of memory");
    if (p->cds == 1.0) {
        for (i = 0; i < m; ++i) p->colfac[i] = (ro_sgns_real)csum[i];
        for (i = 0; i < rows; ++i) p->colfac[m + i] = (ro_sgns_real)wsum[i];
        for (i = 0; i < rows; ++i) p->rowfac[i] = p->k * wsum[i] / total;
        for (i = 0; i < m; ++i) p->rowfac[rows + i] = p->k * csum[i] / total;
    } else {
        for (i = 0; i < m; ++i) {
            double pc = RO_SGNS_POW(csum[i], p->cds);
            p->colfac[i] = (ro_sgns_real)pc;
            p->rowfac[rows + i] = p->k * pc / z;
        }
        for (i = 0; i < rows; ++i) p->colfac[m + i] = (ro_sgns_real)wsum[i];
        for (i = 0; i < rows; ++i) p->rowfac[i] = p->k * wsum[i] / z;
    }
    return ro_sgns__ok(err);
}

/* The two sides once the counts' rows (fwd.row_ptr/col/val) and the
   factors are in place; bwd's arrays are set by the caller. */
static void ro_sgns__problem_sides(ro_sgns_problem *p)
{
    size_t rows = p->r1 - p->r0;
    p->fwd.rows = rows;
    p->fwd.cols = p->m;
    p->fwd.rowfac = p->rowfac;
    p->fwd.colfac = p->colfac;
    p->bwd.rows = p->m;
    p->bwd.cols = rows;
    p->bwd.rowfac = p->rowfac + rows;
    p->bwd.colfac = p->colfac + p->m;
}

/* Does c hold a row range rather than the whole matrix? */
static int ro_sgns__counts_ranged(const ro_sgns_counts *c)
{
    return c->row_begin != 0 || c->row_end != c->n;
}

static ro_sgns_result ro_sgns__check_counts_arg(const ro_sgns_counts *c, ro_sgns_error *err)
{
    if (!c) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "counts is NULL");
    if (c->n == 0 || c->n != c->vocab.n || !c->row_ptr || (c->nnz && (!c->col || !c->val)) ||
        c->row_begin >= c->row_end || c->row_end > c->n)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "counts object is incomplete");
    return RO_SGNS_OK;
}

/* The GEMM's register tile and depth (II.1). ro_sgns_gemm_builtin runs
   "five loops around a micro-kernel": it packs blocks of A and B into the
   order one small kernel reads them, and the kernel keeps an MR x NR tile
   of C in registers for KC steps of the sum. ro_sgns__kernel_c below is
   that kernel in plain C, the reference for the SIMD kernels of II.1 and
   the kernel of builds without them. */

/* Block sizes. MR x NR is the micro-kernel's register tile, fixed by the
   instruction set the build targets. KC, the depth of one rank-KC update,
   decides the summation order, so it is a constant of the build (256 for
   every kernel), never a function of the CPU: a binary gives the same bits
   on every machine that runs the same kernel. MR, MC and NC decide no bits:
   MC and NC come per product from the CPU's cache sizes
   (ro_sgns__gemm_blocking), up to MC_MAX and NC_MAX, which size the
   workspace. Why these sizes: docs/DESIGN.md, II.0. */
#ifdef RO_SGNS__AVX512
#define RO_SGNS__MR (RO_SGNS__IS_DOUBLE ? 6 : 12)
#define RO_SGNS__NR (RO_SGNS__IS_DOUBLE ? 16 : 32) /* two 512-bit vectors */
#elif defined(RO_SGNS__AVX2)
#define RO_SGNS__MR 6
#define RO_SGNS__NR (RO_SGNS__IS_DOUBLE ? 8 : 16) /* two 256-bit vectors */
#else
#define RO_SGNS__MR 4
#define RO_SGNS__NR 8
#endif
#ifndef RO_SGNS__KC /* a build may set it, as the benches' experiments do */
#define RO_SGNS__KC 256
#endif
#define RO_SGNS__MC_MAX (512 / RO_SGNS__MR * RO_SGNS__MR)
#define RO_SGNS__NC_MAX 4096 /* a multiple of every NR */
#define RO_SGNS__TILE (RO_SGNS__MR * 32) /* room for MR x NR in every build */

/* The portable micro-kernel: acc (MR x NR, row-major) = sum over p < kc of
   the outer product of column p of the A panel (MR values a step) and row
   p of the B panel (NR values a step). Plain C that compilers turn into
   vector code, the plain reference of the packed GEMM's inner loop; its
   fast twins are the SIMD kernels below (ro_sgns__kernel picks the
   build's), which a test compares with it on the same panels (in the
   repository: tests/test_linalg.c, test_gemm_kernels). */
static RO_SGNS__MAYBE_UNUSED void ro_sgns__kernel_c(size_t kc, const ro_sgns_real *RO_SGNS__RESTRICT a,
                              const ro_sgns_real *RO_SGNS__RESTRICT b,
                              ro_sgns_real *RO_SGNS__RESTRICT acc)
{
    ro_sgns_real c[RO_SGNS__MR * 32];
    size_t p;
    int i, j;
    for (i = 0; i < RO_SGNS__MR * RO_SGNS__NR; ++i) c[i] = 0;
    for (p = 0; p < kc; ++p) {
        for (i = 0; i < RO_SGNS__MR; ++i) {
            ro_sgns_real ai = a[i];
            for (j = 0; j < RO_SGNS__NR; ++j) c[i * RO_SGNS__NR + j] += ai * b[j];
        }
        a += RO_SGNS__MR;
        b += RO_SGNS__NR;
    }
    for (i = 0; i < RO_SGNS__MR * RO_SGNS__NR; ++i) acc[i] = c[i];
}

/* The one-sided Jacobi SVD by blocks: ro_sgns_svd_builtin, what
   ro_sgns_svd runs without LAPACKE. The rotations of I.6's cyclic
   ro_sgns_svd_naive, its plain twin, in another order: a tall A is first
   reduced by QR (A = Q R, the SVD of R, U = Q U_R), and the pairs are
   visited block by block in the rounds of a round-robin tournament so
   that a round's pairs touch disjoint columns and run in parallel (the
   same result for any thread count). The pair's Gram sums run eight
   wide. In float builds the pairs count as orthogonal at an eighth of
   float's epsilon. Compared with svd_naive in tests/test_ro.c
   (test_plain_vs_fast). */

/* Columns per block: the pairs of two blocks are rotated while both blocks
   are in cache (2 x 16 columns of 2000 doubles = 512 KB). */
#define RO_SGNS__JACOBI_BLOCK 16

/* The 2 x 2 Gram matrix [a c; c b] of columns x and y: eight partial sums
   each, added in a fixed order (deterministic, and the compiler can keep the
   eight in one vector register without reassociating anything). */
static void ro_sgns__gram2(size_t m, const double *x, const double *y, double *a, double *b,
                           double *c)
{
    double sa[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sb[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    double sc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i, k;
    for (i = 0; i + 8 <= m; i += 8)
        for (k = 0; k < 8; ++k) {
            sa[k] += x[i + k] * x[i + k];
            sb[k] += y[i + k] * y[i + k];
            sc[k] += x[i + k] * y[i + k];
        }
    for (k = 0; i < m; ++i, ++k) {
        sa[k] += x[i] * x[i];
        sb[k] += y[i] * y[i];
        sc[k] += x[i] * y[i];
    }
    *a = ((sa[0] + sa[4]) + (sa[2] + sa[6])) + ((sa[1] + sa[5]) + (sa[3] + sa[7]));
    *b = ((sb[0] + sb[4]) + (sb[2] + sb[6])) + ((sb[1] + sb[5]) + (sb[3] + sb[7]));
    *c = ((sc[0] + sc[4]) + (sc[2] + sc[6])) + ((sc[1] + sc[5]) + (sc[3] + sc[7]));
}

/* One Jacobi rotation of the columns gp, gq (length m) and, if V is kept,
   vp, vq (length n). Returns 1 if the pair was not yet orthogonal. */
static int ro_sgns__jacobi_pair(size_t m, size_t n, double *gp, double *gq, double *vp,
                                double *vq, double tol)
{
    double a, b, c, zeta, t, cs, sn;
    size_t i;
    ro_sgns__gram2(m, gp, gq, &a, &b, &c);
    /* a column whose squares underflow (entries ~1e-160 after scaling)
       counts as zero; it is completed at the end */
    if (a == 0 || b == 0) return 0;
    if (!(RO_SGNS_FABS(c) > tol * RO_SGNS_SQRT(a) * RO_SGNS_SQRT(b))) return 0;
    zeta = (b - a) / (2 * c);
    if (RO_SGNS_FABS(zeta) > 1e150)
        t = 0.5 / zeta;
    else
        t = (zeta >= 0 ? 1.0 : -1.0) / (RO_SGNS_FABS(zeta) + RO_SGNS_SQRT(1 + zeta * zeta));
    cs = 1 / RO_SGNS_SQRT(1 + t * t);
    sn = cs * t;
    for (i = 0; i < m; ++i) {
        double x = gp[i], y = gq[i];
        gp[i] = cs * x - sn * y;
        gq[i] = sn * x + cs * y;
    }
    if (vp)
        for (i = 0; i < n; ++i) {
            double x = vp[i], y = vq[i];
            vp[i] = cs * x - sn * y;
            vq[i] = sn * x + cs * y;
        }
    return 1;
}

/* Round r of a sweep's round-robin tournament among np blocks (np even):
   round -1 pairs each block with itself (t < nb), rounds 0 .. np-2 pair
   block np-1 with block r (t = 0) and (r + t) mod (np-1) with
   (r - t) mod (np-1) (the circle method: each round's pairs are disjoint).
   *bi <= *bj; a pair with a block >= nb is the bye of an odd count. */
static void ro_sgns__jacobi_round_pair(long r, long t, long np, long *bi, long *bj)
{
    long x;
    if (r < 0) {
        *bi = *bj = t;
        return;
    }
    if (t == 0) {
        *bi = r;
        *bj = np - 1;
    } else {
        *bi = (r + t) % (np - 1);
        *bj = (r - t + (np - 1)) % (np - 1);
    }
    if (*bi > *bj) {
        x = *bi;
        *bi = *bj;
        *bj = x;
    }
}

/* Rotate every pair of columns p < q with p in block bi and q in block bj
   (blocks of RO_SGNS__JACOBI_BLOCK; both in block bi when bi == bj), in
   order of p, then q. 1 if any pair was rotated. */
static int ro_sgns__jacobi_blocks(size_t m, size_t n, double *G, double *V, size_t bi,
                                  size_t bj, double tol)
{
    const size_t cb = RO_SGNS__JACOBI_BLOCK, p1 = ro_sgns__min(n, (bi + 1) * cb);
    const size_t q0 = bj * cb, q1 = ro_sgns__min(n, q0 + cb);
    size_t p, q;
    int rotated = 0;
    for (p = bi * cb; p < p1; ++p)
        for (q = bi == bj ? p + 1 : q0; q < q1; ++q)
            rotated |= ro_sgns__jacobi_pair(m, n, G + p * m, G + q * m, V ? V + p * n : NULL,
                                            V ? V + q * n : NULL, tol);
    return rotated;
}

/* Orthogonalize the n columns of G (column j at G + j*m, length m) by
   one-sided Jacobi rotations, applied to the columns of V (length n) too
   unless V is NULL. The columns are cut into blocks of
   RO_SGNS__JACOBI_BLOCK; a sweep rotates the pairs inside each block, then
   every pair of blocks once, in the rounds of a round-robin tournament
   (ro_sgns__jacobi_round_pair). The pairs of a round touch disjoint
   columns, so they run in parallel and the result is the same for any
   number of threads. */
static ro_sgns_result ro_sgns__jacobi(size_t m, size_t n, double *G, double *V,
                                      ro_sgns_error *err)
{
    /* pairs count as orthogonal at m epsilon (double), or at an eighth of
       float's epsilon when the results are rounded to float anyway (saves
       the last one or two sweeps: convergence is quadratic by then) */
    const double tol_d = DBL_EPSILON * (double)(m > 1 ? m : 1);
    const double tol = RO_SGNS__IS_DOUBLE || tol_d > FLT_EPSILON / 8 ? tol_d : FLT_EPSILON / 8;
    const size_t cb = RO_SGNS__JACOBI_BLOCK;
    const long nb = (long)((n + cb - 1) / cb), np = nb + (nb & 1); /* np even: one bye if odd */
#ifdef _OPENMP
    const int par = (double)m * (double)n >= 65536.0;
#endif
    int sweep;
    for (sweep = 0; sweep < RO_SGNS__JACOBI_MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        long r;
        for (r = -1; r < np - 1; ++r) {
            long t, pairs = r < 0 ? nb : np / 2;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) reduction(| : rotated) if (par)
#endif
            for (t = 0; t < pairs; ++t) {
                long bi, bj;
                ro_sgns__jacobi_round_pair(r, t, np, &bi, &bj);
                if (bj < nb) /* else the bye */
                    rotated |= ro_sgns__jacobi_blocks(m, n, G, V, (size_t)bi, (size_t)bj, tol);
            }
        }
        if (!rotated) return ro_sgns__ok(err);
    }
    return ro_sgns__fail(err, RO_SGNS_ERR_NOT_CONVERGED,
                         "svd: Jacobi did not converge in %d sweeps (%lu x %lu)",
                         RO_SGNS__JACOBI_MAX_SWEEPS, (unsigned long)m, (unsigned long)n);
}

/* The SVD of an m x n matrix with m >= n (see ro_sgns_svd) by the blocked
   rotations above. Under RO_SGNS_USE_LAPACKE ro_sgns_svd calls LAPACK's
   ?gesdd instead, and tests/test_linalg.c (test_svd through check_svd, in
   its LAPACKE build) compares the two. ro_sgns_svd's argument list
   (LAPACK's): the wide case calls it with U and V swapped. */
static ro_sgns_result ro_sgns__svd_tall(size_t m, size_t n, const ro_sgns_real *A, size_t lda,
                                        ro_sgns_real *U, size_t ldu, ro_sgns_real *s,
                                        ro_sgns_real *V, size_t ldv,
                                        const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    /* With m > n the rotations work on R (n x n) from A = Q R. */
    int use_qr = m > n;
    size_t mm = use_qr ? n : m; /* length of the columns that get rotated */
    size_t i, j, k;
    double scale = 0, *G, *Vt, *norm2;
    size_t *order;
    unsigned char *good;
    ro_sgns_real *Q = NULL, *R = NULL;
    ro_sgns_result res = RO_SGNS_OK;
    int of = 0;
    size_t bytes = ro_sgns__mul(ro_sgns__mul(mm + n + 2, n, &of), sizeof(double), &of);
    char *work = of ? NULL : (char *)ro_sgns__malloc(alloc, bytes);
    order = (size_t *)ro_sgns__alloc_array(alloc, n, sizeof(size_t) + 1, 1);
    if (use_qr) {
        Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, m, n, sizeof(ro_sgns_real));
        R = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, n, sizeof(ro_sgns_real));
    }
    if (!work || !order || (use_qr && (!Q || !R))) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "svd: cannot allocate workspace for %lu x %lu", (unsigned long)m,
                            (unsigned long)n);
        goto done;
    }
    G = (double *)(void *)work; /* mm x n, column-contiguous */
    Vt = G + mm * n;            /* n x n, column-contiguous */
    norm2 = Vt + n * n;         /* n */
    good = (unsigned char *)(void *)(order + n);

    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            double a = RO_SGNS_FABS((double)A[i * lda + j]);
            if (a > scale) scale = a;
        }
    if (scale == 0) scale = 1;
    if (use_qr) {
        for (i = 0; i < m; ++i) memcpy(Q + i * n, A + i * lda, n * sizeof(ro_sgns_real));
        res = ro_sgns_qr_builtin(m, n, Q, n, R, n, alloc, err);
        if (res != RO_SGNS_OK) goto done;
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) G[j * mm + i] = (double)R[i * n + j] / scale;
    } else {
        for (i = 0; i < m; ++i)
            for (j = 0; j < n; ++j) G[j * mm + i] = (double)A[i * lda + j] / scale;
    }
    for (j = 0; j < n; ++j)
        for (i = 0; i < n; ++i) Vt[j * n + i] = (double)(i == j);

    res = ro_sgns__jacobi(mm, n, G, Vt, err);
    if (res != RO_SGNS_OK) goto done;

    ro_sgns__svd_columns(mm, n, G, norm2, order, good);
    if (U && use_qr) {
        /* U = Q U_R, U_R stored into R (n x n, row-major) in sorted order;
           first, as the one step that can fail: s and V are written after */
        for (k = 0; k < n; ++k)
            for (i = 0; i < n; ++i) R[i * n + k] = (ro_sgns_real)G[order[k] * mm + i];
        res = ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, n, n, 1, Q, n, R, n, 0, U,
                                   ldu, alloc, err);
        if (res != RO_SGNS_OK) goto done;
    }
    for (k = 0; k < n; ++k) {
        size_t o = order[k];
        s[k] = (ro_sgns_real)(norm2[o] * scale);
        if (V)
            for (i = 0; i < n; ++i) V[i * ldv + k] = (ro_sgns_real)Vt[o * n + i];
    }
    if (U && !use_qr)
        for (k = 0; k < n; ++k)
            for (i = 0; i < m; ++i) U[i * ldu + k] = (ro_sgns_real)G[order[k] * mm + i];
    /* finite A, but sigma_1 beyond the largest real (entries near it) */
    res = ro_sgns__is_finite((double)s[0])
              ? ro_sgns__ok(err)
              : ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                              "svd: the largest singular value overflows the real type");
done:
    ro_sgns__free(alloc, work);
    ro_sgns__free(alloc, order);
    ro_sgns__free(alloc, Q);
    ro_sgns__free(alloc, R);
    return res;
}

/* The public SVDs keep LAPACK's argument list, the one their users know. */
RO_SGNS_DEF ro_sgns_result ro_sgns_svd_builtin(size_t m, size_t n, const ro_sgns_real *A,
                                               size_t lda, ro_sgns_real *U, size_t ldu,
                                               ro_sgns_real *s, ro_sgns_real *V, size_t ldv,
                                               const ro_sgns_allocator *alloc,
                                               ro_sgns_error *err)
{
    ro_sgns_result res = ro_sgns__svd_check(m, n, A, lda, U, ldu, s, V, ldv, err);
    ro_sgns_real *At;
    size_t i, j;
    if (res != RO_SGNS_OK) return res;
    if (m >= n) return ro_sgns__svd_tall(m, n, A, lda, U, ldu, s, V, ldv, alloc, err);
    /* wide: A^T = V S U^T */
    At = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, m, sizeof(ro_sgns_real));
    if (!At) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "svd: out of memory");
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) At[j * m + i] = A[i * lda + j];
    res = ro_sgns__svd_tall(n, m, At, m, V, ldv, s, U, ldu, alloc, err);
    ro_sgns__free(alloc, At);
    return res;
}

/* Random numbers (II.7's test matrices, Part III's sampling and SGD):
   xoshiro256** (Blackman and Vigna, 2018) with its state filled by
   splitmix64; a stream number is mixed into the seed so that block b of a
   parallel loop draws from stream b whatever thread runs it. */

static uint64_t ro_sgns__splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

RO_SGNS_DEF void ro_sgns_rng_seed(ro_sgns_rng *rng, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
    int i;
    (void)ro_sgns__splitmix64(&x);
    for (i = 0; i < 4; ++i) rng->s[i] = ro_sgns__splitmix64(&x);
}

static uint64_t ro_sgns__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

RO_SGNS_DEF uint64_t ro_sgns_rng_next(ro_sgns_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = ro_sgns__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ro_sgns__rotl(s[3], 45);
    return result;
}

RO_SGNS_DEF double ro_sgns_rng_uniform(ro_sgns_rng *rng)
{
    return (double)(ro_sgns_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

RO_SGNS_DEF double ro_sgns_rng_normal(ro_sgns_rng *rng)
{
    /* Box-Muller; u1 in (0, 1] so the log is finite. */
    double u1 = 1.0 - ro_sgns_rng_uniform(rng);
    double u2 = ro_sgns_rng_uniform(rng);
    return RO_SGNS_SQRT(-2.0 * RO_SGNS_LOG(u1)) * RO_SGNS_COS(6.283185307179586 * u2);
}

/* The sparse matrices of II.3 and II.7 (ro_sgns_csr). */

RO_SGNS_DEF ro_sgns_result ro_sgns_csr_create(size_t rows, size_t cols, uint64_t nnz,
                                              ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    ro_sgns_csr *A;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "csr: out is NULL");
    if (rows >= (size_t)-1 || cols > 0xFFFFFFFFu || nnz > (uint64_t)((size_t)-1 / 8))
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "csr: %lu x %lu with %.0f entries is too big",
                             (unsigned long)rows, (unsigned long)cols, (double)nnz);
    A = (ro_sgns_csr *)ro_sgns__malloc(alloc, sizeof *A);
    if (!A) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "csr: out of memory");
    memset(A, 0, sizeof *A);
    ro_sgns__keep_alloc(&A->alloc_, &A->has_alloc_, alloc);
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->row_ptr = (uint64_t *)ro_sgns__alloc_array(alloc, rows + 1, sizeof(uint64_t), 1);
    A->col = (uint32_t *)ro_sgns__alloc_array(alloc, (size_t)nnz, sizeof(uint32_t), 1);
    A->val = (ro_sgns_real *)ro_sgns__alloc_array(alloc, (size_t)nnz, sizeof(ro_sgns_real), 1);
    if (!A->row_ptr || !A->col || !A->val) {
        ro_sgns_csr_free(A);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "csr: cannot allocate %lu x %lu with %.0f entries",
                             (unsigned long)rows, (unsigned long)cols, (double)nnz);
    }
    memset(A->row_ptr, 0, (rows + 1) * sizeof(uint64_t));
    *out = A;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF void ro_sgns_csr_free(ro_sgns_csr *A)
{
    const ro_sgns_allocator *al;
    if (!A) return;
    al = A->has_alloc_ ? &A->alloc_ : NULL;
    ro_sgns__free(al, A->row_ptr);
    ro_sgns__free(al, A->col);
    ro_sgns__free(al, A->val);
    ro_sgns__free(al, A);
}

/* The SPPMI from the counts object (ro_sgns_counts), with context
   smoothing and by row ranges for shards; its plain twin is the dense
   SPPMI of ro_sgns_start_naive (I.8). */

/* The SPPMI of words [r0, r1), as an (r1 - r0) x n matrix (column ids
   global): each row needs only its own counts and the global marginals
   (#(w), #(c), and the sum of #(c)^cds over every context), so a shard
   makes its rows alone. The counts may hold a row range themselves
   (row_begin..row_end: row w of them is word row_begin + w); [r0, r1)
   must lie within it. whole: the caller asked for the whole matrix,
   where no positive entry at all is an error (a shard's rows may have
   none). */
static ro_sgns_result ro_sgns__sppmi_rows(const ro_sgns_counts *c, size_t r0, size_t r1,
                                          double k, double cds, int whole, ro_sgns_csr **out,
                                          const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns_csr *A;
    double *logpc, norm = 0, logk;
    uint64_t kept = 0, e;
    size_t w, b;
    ro_sgns_result res;
    if (!c || !out || !(k > 0) || !ro_sgns__is_finite(k) || !(cds > 0) ||
        !ro_sgns__is_finite(cds))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "sppmi: need counts, finite k > 0 and cds > 0 (k = %g, cds = %g)",
                             k, cds);
    res = ro_sgns__check_counts_arg(c, err);
    if (res != RO_SGNS_OK) return res;
    b = c->row_begin; /* row w of the counts is word b + w */
    if (r0 > r1 || r0 < b || r1 > c->row_end)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "sppmi: rows %lu..%lu are not within the counts' rows %lu..%lu",
                             (unsigned long)r0, (unsigned long)r1, (unsigned long)b,
                             (unsigned long)c->row_end);
    logk = RO_SGNS_LOG(k);
    logpc = (double *)ro_sgns__alloc_array(alloc, c->n, sizeof(double), 1);
    if (!logpc) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "sppmi: out of memory");
    /* log P(c), smoothed: P(c) = #(c)^cds / sum #(c')^cds */
    for (w = 0; w < c->n; ++w)
        if (c->ctx_count[w] > 0) norm += cds == 1 ? c->ctx_count[w] : RO_SGNS_POW(c->ctx_count[w], cds);
    if (!ro_sgns__is_finite(norm)) { /* as the problem's: not an Inf in every entry */
        ro_sgns__free(alloc, logpc);
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                             "sppmi: sum of #(c)^cds = %g with cds = %g (must be finite)", norm,
                             cds);
    }
    for (w = 0; w < c->n; ++w)
        logpc[w] = c->ctx_count[w] > 0 ? cds * RO_SGNS_LOG(c->ctx_count[w]) - RO_SGNS_LOG(norm) : 0;
    /* first pass: how many entries stay positive */
    for (w = r0; w < r1; ++w) {
        double lw = RO_SGNS_LOG(c->word_count[w]);
        for (e = c->row_ptr[w - b]; e < c->row_ptr[w - b + 1]; ++e)
            if (RO_SGNS_LOG((double)c->val[e]) - lw - logpc[c->col[e]] - logk > 0) ++kept;
    }
    if (kept == 0 && whole) {
        ro_sgns__free(alloc, logpc);
        return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY,
                             "sppmi: no positive entry (every PMI <= log k = %g)", logk);
    }
    res = ro_sgns_csr_create(r1 - r0, c->n, kept, &A, alloc, err);
    if (res != RO_SGNS_OK) {
        ro_sgns__free(alloc, logpc);
        return res;
    }
    kept = 0;
    for (w = r0; w < r1; ++w) {
        double lw = RO_SGNS_LOG(c->word_count[w]);
        for (e = c->row_ptr[w - b]; e < c->row_ptr[w - b + 1]; ++e) {
            double v = RO_SGNS_LOG((double)c->val[e]) - lw - logpc[c->col[e]] - logk;
            if (v > 0) {
                A->col[kept] = c->col[e];
                A->val[kept] = (ro_sgns_real)v;
                ++kept;
            }
        }
        A->row_ptr[w - r0 + 1] = kept;
    }
    ro_sgns__free(alloc, logpc);
    *out = A;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_sppmi(const ro_sgns_counts *c, double k, double cds,
                                         ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                         ro_sgns_error *err)
{
    if (!c) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "sppmi: counts is NULL");
    return ro_sgns__sppmi_rows(c, c->row_begin, c->row_end, k, cds, !ro_sgns__counts_ranged(c),
                               out, alloc, err);
}

/* The embeddings of I.10 with ro_sgns_svd and ro_sgns_gemm; its plain
   twin is ro_sgns_factors_embeddings_naive (I.10). */

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_embeddings(const ro_sgns_factors *f, double alpha,
                                                      ro_sgns_embedding_kind which,
                                                      ro_sgns_real *out, size_t ldo,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    size_t d, i, j;
    ro_sgns_real *P, *Qc, *sig, *T = NULL, *dst;
    ro_sgns_result res = ro_sgns__embed_args(f, alpha, which, out, ldo, err);
    if (res != RO_SGNS_OK) return res;
    d = f->d;
    P = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, d, sizeof(ro_sgns_real));
    Qc = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, d, sizeof(ro_sgns_real));
    sig = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, 1, sizeof(ro_sgns_real));
    /* W + C takes two products: into a copy, so that out is untouched when
       the second one fails */
    if (which == RO_SGNS_EMBED_W_PLUS_C)
        T = (ro_sgns_real *)ro_sgns__alloc_array(alloc, f->n, d, sizeof(ro_sgns_real));
    if (!P || !Qc || !sig || (which == RO_SGNS_EMBED_W_PLUS_C && !T)) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "embeddings: out of memory");
        goto done;
    }
    /* S = P Sigma Q^T; scale the columns of P and Q by Sigma^alpha */
    res = ro_sgns_svd(d, d, f->S, d, P, d, sig, Qc, d, alloc, err);
    if (res != RO_SGNS_OK) goto done;
    for (j = 0; j < d; ++j) {
        double w = sig[j] > 0 ? RO_SGNS_POW((double)sig[j], alpha) : 0;
        if (!ro_sgns__is_finite((double)(ro_sgns_real)w)) {
            res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                "embeddings: singular value %g to the power %g overflows",
                                (double)sig[j], alpha);
            goto done;
        }
        for (i = 0; i < d; ++i) {
            P[i * d + j] = (ro_sgns_real)(P[i * d + j] * w);
            Qc[i * d + j] = (ro_sgns_real)(Qc[i * d + j] * w);
        }
    }
    dst = T ? T : out;
    if (which != RO_SGNS_EMBED_C)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, f->n, d, d, 1, f->U, d, P, d, 0, dst,
                           T ? d : ldo, alloc, err);
    if (res == RO_SGNS_OK && which != RO_SGNS_EMBED_W)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, f->m, d, d, 1, f->V, d, Qc, d,
                           which == RO_SGNS_EMBED_C ? 0 : 1, dst, T ? d : ldo, alloc, err);
    if (res == RO_SGNS_OK && T)
        for (i = 0; i < f->n; ++i) memcpy(out + i * ldo, T + i * d, d * sizeof(ro_sgns_real));
done:
    ro_sgns__free(alloc, T);
    ro_sgns__free(alloc, P);
    ro_sgns__free(alloc, Qc);
    ro_sgns__free(alloc, sig);
    return res;
}

/* ======================================================================
   II.1 GEMM, fast: C = alpha op(A) op(B) + beta C

   Part I twin: ro_sgns_gemm_naive (I.4), beside the portable micro-kernel (II.0);
   compared in the repository's tests/test_linalg.c (test_gemm,
   test_gemm_kernels).

   What: the one dense kernel everything else stands on (the RO step is four
   products of an implicit n x m matrix with an n x d or m x d factor; the
   QR and the randomized SVD are built from it too).
   How: the blocked algorithm of the BLIS papers (Van Zee and
   van de Geijn, "BLIS: a framework for rapidly instantiating BLAS
   functionality", 2015), "five loops around a micro-kernel":

       for jc in steps of NC over the columns of C          (B panel in L3)
         for pc in steps of KC over the shared dimension     (one rank-KC update)
           pack B(pc:pc+KC, jc:jc+NC) into micro-panels NR wide
           for ic in steps of MC over the rows of C          (A block in L2)
             pack A(ic:ic+MC, pc:pc+KC) into micro-panels MR tall
             for jr in steps of NR, for ir in steps of MR:
               micro-kernel: an MR x NR tile of C += A panel * B panel,
               the tile held in registers for all KC steps

   Packing puts the operands, whatever op() is, in the order the kernel
   reads them (zero-padded at the edges); edge tiles write back only their
   valid part. Direct mode (the sweep's tile products with fewer than KC
   columns, AVX-512 builds): A is read in place, with the same loads, FMAs
   and order. One micro-kernel per instruction set, chosen at compile time:
   AVX-512F, AVX2 + FMA, else portable C (also with RO_SGNS_NO_SIMD).
   Cost: 2 m n k flops (about half for II.2's shapes RO_SGNS__UPPER_C and
   RO_SGNS__UPPER_B); memory: one B panel (KC x NC) and one A block
   (MC x KC) per thread. The kernels, the edges and the blocking, and why:
   docs/DESIGN.md, II.1.
   Determinism: each element of C receives its KC-long partial sums in pc
   order, each computed by the kernel its column's panel gets (in p order;
   the narrow kernel in two interleaved halves, even and odd p, added at
   the end), and which panel a column falls in depends on n and NR only.
   MC, NC and the split over threads never change the arithmetic, so any
   thread count gives bitwise the same C; KC is a constant of the build for
   that reason. Different builds may differ in the last bits: the SIMD
   kernels fuse each multiply-add, the portable one rounds twice unless the
   compiler contracts it (-ffp-contract), and the narrow edge kernels sum in
   another order. The k loop is never split over threads.
   ====================================================================== */

/* GEMM internals that the code below uses before their definitions. */
static ro_sgns_real *ro_sgns__align64(void *p);
static size_t ro_sgns__gemm_ws_elems(size_t n, int nt, int *overflow);
static void ro_sgns__gemm_taken(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                size_t k, ro_sgns_real alpha, const ro_sgns_real *A,
                                size_t lda, const ro_sgns_real *B, size_t ldb,
                                ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                ro_sgns_real *ws);
/* op(B) packed ahead of the products that use it (the RO sweep packs its
   factors once a sweep instead of once a tile): the micro-panel of op(B)'s
   column j in the KC block that starts at index p of the shared dimension
   is at base + p * ld + (col0 + j) * kc (kc: that block's length). */
typedef struct ro_sgns__packed_b {
    const ro_sgns_real *base;
    size_t ld, col0;
} ro_sgns__packed_b;
static size_t ro_sgns__gemm_nr(void);
static void ro_sgns__pack_b_ahead(ro_sgns_trans tb, const ro_sgns_real *B, size_t ldb, size_t n,
                                  size_t k, ro_sgns_real *dst, size_t ld);
static void ro_sgns__pack_b_ahead_panels(ro_sgns_trans tb, const ro_sgns_real *B, size_t ldb,
                                         size_t n, size_t k, ro_sgns_real *dst, size_t ld,
                                         size_t jp0, size_t jp1);
static void ro_sgns__gemm_run_tile(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                   size_t k, const ro_sgns_real *A, size_t lda,
                                   const ro_sgns_real *B, size_t ldb,
                                   const ro_sgns__packed_b *pb, ro_sgns_real beta,
                                   ro_sgns_real *C, size_t ldc, ro_sgns_real *ws);
#ifdef RO_SGNS_USE_CBLAS
static int ro_sgns__gemm_cblas(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n, size_t k,
                               ro_sgns_real alpha, const ro_sgns_real *A, size_t lda,
                               const ro_sgns_real *B, size_t ldb, ro_sgns_real beta,
                               ro_sgns_real *C, size_t ldc);
#endif

/* The blocking of one product: kc (always RO_SGNS__KC), mc (a multiple of
   MR, at most MC_MAX), nc (a multiple of NR, at most NC_MAX). */
typedef struct ro_sgns__blocking {
    size_t kc, mc, nc;
} ro_sgns__blocking;

/* The B panel's budget: 2 MB (NC = 2048 floats or 1024 doubles with
   KC = 256). A build may set it; it decides no bits (docs/DESIGN.md, II.1). */
#ifndef RO_SGNS__B_PANEL_BYTES
#define RO_SGNS__B_PANEL_BYTES ((size_t)2 << 20)
#endif

/* The table used without cache sizes: an A block of 12 micro-panels
   (144 x 256 floats = 144 KB for AVX-512, 72 x 256 for AVX2), a B panel of
   2 MB. */
static void ro_sgns__gemm_blocking_fixed(ro_sgns__blocking *bk)
{
    bk->kc = RO_SGNS__KC;
    bk->mc = 12 * RO_SGNS__MR;
    bk->nc = RO_SGNS__B_PANEL_BYTES / (RO_SGNS__KC * sizeof(ro_sgns_real)) / RO_SGNS__NR *
             RO_SGNS__NR;
}

#if defined(RO_SGNS__CPUID_GNU) || defined(RO_SGNS__CPUID_MSVC)
static void ro_sgns__cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
#ifdef RO_SGNS__CPUID_GNU
    unsigned a, b, c, d;
    __cpuid_count(leaf, sub, a, b, c, d);
    r[0] = a, r[1] = b, r[2] = c, r[3] = d;
#else
    int x[4];
    __cpuidex(x, (int)leaf, (int)sub);
    r[0] = (unsigned)x[0], r[1] = (unsigned)x[1], r[2] = (unsigned)x[2], r[3] = (unsigned)x[3];
#endif
}
#endif

/* Sizes in bytes of the L1 data, L2 and L3 caches of the CPU this runs on,
   0 where unknown (x86: cpuid leaf 4 on Intel, 0x8000001D on AMD, else AMD's
   older 0x80000005/6). No state is kept between calls; cpuid traps in a VM,
   so callers ask once per product, never per block. */
static void ro_sgns__cache_sizes(size_t size[3])
{
    size[0] = size[1] = size[2] = 0;
#if defined(RO_SGNS__CPUID_GNU) || defined(RO_SGNS__CPUID_MSVC)
    {
        unsigned r[4], max_leaf, max_ext, leaf = 4, sub, pass;
        ro_sgns__cpuid(0, 0, r);
        max_leaf = r[0];
        ro_sgns__cpuid(0x80000000u, 0, r);
        max_ext = r[0];
        for (pass = 0; pass < 2 && !size[0] && !size[1]; ++pass) {
            leaf = pass == 0 ? 4u : 0x8000001Du;
            if (pass == 0 ? max_leaf < leaf : (max_ext < leaf || max_ext > 0x8000ffffu)) continue;
            for (sub = 0; sub < 16; ++sub) {
                unsigned type, level;
                size_t bytes;
                ro_sgns__cpuid(leaf, sub, r);
                type = r[0] & 31u;
                level = (r[0] >> 5) & 7u;
                if (type == 0) break;
                bytes = (size_t)((r[1] >> 22) + 1) * (size_t)(((r[1] >> 12) & 1023u) + 1) *
                        (size_t)((r[1] & 4095u) + 1) * ((size_t)r[2] + 1);
                if ((type == 1 || type == 3) && level >= 1 && level <= 3) size[level - 1] = bytes;
            }
        }
        if (!size[0] && !size[1] && max_ext >= 0x80000006u && max_ext <= 0x8000ffffu) {
            ro_sgns__cpuid(0x80000005u, 0, r);
            size[0] = (size_t)(r[2] >> 24) << 10;
            ro_sgns__cpuid(0x80000006u, 0, r);
            size[1] = (size_t)(r[2] >> 16) << 10;
            size[2] = (size_t)(r[3] >> 18) << 19;
        }
    }
#endif
}

/* The blocking for the CPU this runs on: the A block (MC x KC) about a
   quarter of L2; the B panel (KC x NC) at most half of L3 and the 2 MB
   budget, NC in [512, NC_MAX]. Unknown sizes keep the fixed table. */
static void ro_sgns__gemm_blocking(ro_sgns__blocking *bk)
{
    size_t c[3], row = RO_SGNS__KC * sizeof(ro_sgns_real);
    ro_sgns__gemm_blocking_fixed(bk);
    ro_sgns__cache_sizes(c);
    if (c[1] >= 4 * 4 * RO_SGNS__MR * row) { /* mc >= 4 MR */
        size_t mc = c[1] / 4 / row / RO_SGNS__MR * RO_SGNS__MR;
        bk->mc = ro_sgns__min(mc, RO_SGNS__MC_MAX);
    }
    if (c[2] > 0) {
        size_t nc = ro_sgns__min(c[2] / 2, RO_SGNS__B_PANEL_BYTES) / row / RO_SGNS__NR *
                    RO_SGNS__NR;
        bk->nc = nc < 512 ? 512 : ro_sgns__min(nc, RO_SGNS__NC_MAX);
    }
}

#if defined(RO_SGNS__AVX512) || defined(RO_SGNS__AVX2)
/* The SIMD kernels are macros: a tile's accumulators are named registers
   (c00 .. c111) that only token pasting addresses row by row, and one body
   serves four vector types and two layouts of A.
   One row of a tile: broadcast row i's element of A (a[i * sa_]: sa_ is 1
   in a packed panel, the row stride in an unpacked one), two FMAs into the
   row's two accumulators. */
#define RO_SGNS__FMA_ROW(T, SET1, FMA, i)                                 \
    do {                                                                   \
        T ai_ = SET1(a[(i) * sa_]);                                        \
        c##i##0 = FMA(ai_, b0, c##i##0);                                   \
        c##i##1 = FMA(ai_, b1, c##i##1);                                   \
    } while (0)
/* Row i of a full tile's update from the registers, C = (first ? beta C :
   C) + alpha acc, rounded as ro_sgns__update_tile rounds it (a product,
   then a sum); mode 0: not first, 1: first with beta == 0 (C not read),
   2: first. */
#define RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i)                                    \
    do {                                                                                   \
        R_ *ci_ = C + i * ldc;                                                             \
        T x0_ = MUL(al, c##i##0), x1_ = MUL(al, c##i##1);                                  \
        if (mode == 0) {                                                                   \
            x0_ = ADD(LOADU(ci_), x0_);                                                    \
            x1_ = ADD(LOADU(ci_ + W_), x1_);                                               \
        } else if (mode == 2) {                                                            \
            x0_ = ADD(MUL(be, LOADU(ci_)), x0_);                                           \
            x1_ = ADD(MUL(be, LOADU(ci_ + W_)), x1_);                                      \
        }                                                                                  \
        STOREU(ci_, x0_);                                                                  \
        STOREU(ci_ + W_, x1_);                                                             \
    } while (0)
/* Six consecutive rows of each (the kernels' rows 0-5; 6-11 for 12 rows).
   Macros: they pass six constant row numbers to the pasting ones above. */
#define RO_SGNS__FMA_ROWS6(T, SET1, FMA, i0, i1, i2, i3, i4, i5)                            \
    do {                                                                                   \
        RO_SGNS__FMA_ROW(T, SET1, FMA, i0);                                                \
        RO_SGNS__FMA_ROW(T, SET1, FMA, i1);                                                \
        RO_SGNS__FMA_ROW(T, SET1, FMA, i2);                                                \
        RO_SGNS__FMA_ROW(T, SET1, FMA, i3);                                                \
        RO_SGNS__FMA_ROW(T, SET1, FMA, i4);                                                \
        RO_SGNS__FMA_ROW(T, SET1, FMA, i5);                                                \
    } while (0)
#define RO_SGNS__ROW_UPDATES6(T, LOADU, STOREU, MUL, ADD, i0, i1, i2, i3, i4, i5)           \
    do {                                                                                   \
        RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i0);                               \
        RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i1);                               \
        RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i2);                               \
        RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i3);                               \
        RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i4);                               \
        RO_SGNS__ROW_UPDATE(T, LOADU, STOREU, MUL, ADD, i5);                               \
    } while (0)
#endif

#if defined(RO_SGNS__AVX512) || defined(RO_SGNS__AVX2)
/* The SIMD micro-kernels: a tile of ROWS rows and two vectors of W (NR = 2 W
   columns) in 2 ROWS accumulators; per step two loads of B and ROWS
   broadcasts of A, each feeding two FMAs. ROWS is a constant, so the rows
   past it are compiled away.
   With C not NULL (a full tile) the kernel also does the tile's update,
   C = (first ? beta C : C) + alpha acc, exactly as ro_sgns__update_tile
   rounds it (a product, then a sum); with C NULL it stores the tile to acc.
   DIRECT 0: a is a packed micro-panel (lda unused); DIRECT 1: a points to
   row 0 of ROWS rows of A in place, lda apart: the same loads and FMAs in
   the same order, so the same bits. Tile shapes: docs/DESIGN.md, II.1. */
#define RO_SGNS__KERNEL_SIMD(NAME, DIRECT, R, T, W, ROWS, ZERO, LOAD, STORE, SET1, FMA,     \
                             LOADU, STOREU, MUL, ADD)                                       \
    static void NAME(size_t kc, const R *RO_SGNS__RESTRICT a, size_t lda,                  \
                     const R *RO_SGNS__RESTRICT b, R *RO_SGNS__RESTRICT acc, R *C,          \
                     size_t ldc, R alpha, R beta, int first)                               \
    {                                                                                      \
        typedef R R_;                                                                      \
        enum { W_ = W };                                                                   \
        const size_t sa_ = DIRECT ? lda : 1, sp_ = DIRECT ? 1 : ROWS;                     \
        T c00 = ZERO(), c01 = ZERO(), c10 = ZERO(), c11 = ZERO(), c20 = ZERO();             \
        T c21 = ZERO(), c30 = ZERO(), c31 = ZERO(), c40 = ZERO(), c41 = ZERO();             \
        T c50 = ZERO(), c51 = ZERO(), c60 = ZERO(), c61 = ZERO(), c70 = ZERO();             \
        T c71 = ZERO(), c80 = ZERO(), c81 = ZERO(), c90 = ZERO(), c91 = ZERO();             \
        T c100 = ZERO(), c101 = ZERO(), c110 = ZERO(), c111 = ZERO();                       \
        size_t p;                                                                          \
        int i;                                                                             \
        if (C)                                                                             \
            for (i = 0; i < ROWS; ++i) {                                                   \
                _mm_prefetch((const char *)(C + (size_t)i * ldc), _MM_HINT_T0);            \
                _mm_prefetch((const char *)(C + (size_t)i * ldc + 2 * W - 1), _MM_HINT_T0); \
            }                                                                              \
        for (p = 0; p < kc; ++p) {                                                         \
            T b0 = LOAD(b), b1 = LOAD(b + W);                                              \
            RO_SGNS__FMA_ROWS6(T, SET1, FMA, 0, 1, 2, 3, 4, 5);                            \
            if (ROWS > 6) RO_SGNS__FMA_ROWS6(T, SET1, FMA, 6, 7, 8, 9, 10, 11);            \
            a += sp_;                                                                      \
            b += 2 * W;                                                                    \
        }                                                                                  \
        if (C) {                                                                           \
            const T al = SET1(alpha), be = SET1(beta);                                     \
            const int mode = !first ? 0 : beta == 0 ? 1 : 2;                               \
            RO_SGNS__ROW_UPDATES6(T, LOADU, STOREU, MUL, ADD, 0, 1, 2, 3, 4, 5);           \
            if (ROWS > 6)                                                                  \
                RO_SGNS__ROW_UPDATES6(T, LOADU, STOREU, MUL, ADD, 6, 7, 8, 9, 10, 11);     \
            return;                                                                        \
        }                                                                                  \
        STORE(acc + 0 * W, c00), STORE(acc + 1 * W, c01), STORE(acc + 2 * W, c10);         \
        STORE(acc + 3 * W, c11), STORE(acc + 4 * W, c20), STORE(acc + 5 * W, c21);         \
        STORE(acc + 6 * W, c30), STORE(acc + 7 * W, c31), STORE(acc + 8 * W, c40);         \
        STORE(acc + 9 * W, c41), STORE(acc + 10 * W, c50), STORE(acc + 11 * W, c51);       \
        if (ROWS > 6) {                                                                    \
            STORE(acc + 12 * W, c60), STORE(acc + 13 * W, c61), STORE(acc + 14 * W, c70);  \
            STORE(acc + 15 * W, c71), STORE(acc + 16 * W, c80), STORE(acc + 17 * W, c81);  \
            STORE(acc + 18 * W, c90), STORE(acc + 19 * W, c91), STORE(acc + 20 * W, c100); \
            STORE(acc + 21 * W, c101), STORE(acc + 22 * W, c110), STORE(acc + 23 * W, c111); \
        }                                                                                  \
    }
/* The half-width kernel for an edge panel with at most NR / 2 columns: one
   vector per row, to acc with row stride 2 W. Same terms, same order, same
   bits as the full kernel. */
/* Rows i0..i5 of the half-width kernel: one FMA each into c_i. */
#define RO_SGNS__HALF_ROWS6(SET1, FMA, i0, i1, i2, i3, i4, i5)                              \
    do {                                                                                   \
        c##i0 = FMA(SET1(a[(i0) * sa_]), b0, c##i0);                                       \
        c##i1 = FMA(SET1(a[(i1) * sa_]), b0, c##i1);                                       \
        c##i2 = FMA(SET1(a[(i2) * sa_]), b0, c##i2);                                       \
        c##i3 = FMA(SET1(a[(i3) * sa_]), b0, c##i3);                                       \
        c##i4 = FMA(SET1(a[(i4) * sa_]), b0, c##i4);                                       \
        c##i5 = FMA(SET1(a[(i5) * sa_]), b0, c##i5);                                       \
    } while (0)
#define RO_SGNS__KERNEL_SIMD_HALF(NAME, DIRECT, R, T, W, ROWS, ZERO, LOAD, STORE, SET1, FMA) \
    static void NAME(size_t kc, const R *RO_SGNS__RESTRICT a, size_t lda,                  \
                     const R *RO_SGNS__RESTRICT b, R *RO_SGNS__RESTRICT acc)               \
    {                                                                                      \
        const size_t sa_ = DIRECT ? lda : 1, sp_ = DIRECT ? 1 : ROWS;                     \
        T c0 = ZERO(), c1 = ZERO(), c2 = ZERO(), c3 = ZERO(), c4 = ZERO(), c5 = ZERO();     \
        T c6 = ZERO(), c7 = ZERO(), c8 = ZERO(), c9 = ZERO(), c10 = ZERO(), c11 = ZERO();   \
        size_t p;                                                                          \
        for (p = 0; p < kc; ++p) {                                                         \
            T b0 = LOAD(b);                                                                \
            RO_SGNS__HALF_ROWS6(SET1, FMA, 0, 1, 2, 3, 4, 5);                              \
            if (ROWS > 6) RO_SGNS__HALF_ROWS6(SET1, FMA, 6, 7, 8, 9, 10, 11);              \
            a += sp_;                                                                      \
            b += 2 * W;                                                                    \
        }                                                                                  \
        STORE(acc, c0), STORE(acc + 2 * W, c1), STORE(acc + 4 * W, c2);                    \
        STORE(acc + 6 * W, c3), STORE(acc + 8 * W, c4), STORE(acc + 10 * W, c5);           \
        if (ROWS > 6) {                                                                    \
            STORE(acc + 12 * W, c6), STORE(acc + 14 * W, c7), STORE(acc + 16 * W, c8);     \
            STORE(acc + 18 * W, c9), STORE(acc + 20 * W, c10), STORE(acc + 22 * W, c11);   \
        }                                                                                  \
    }
/* The narrow kernel for an edge panel of at most NC columns (float): the
   vectors run down the panel's ROWS rows (the rest masked off), one FMA per
   column a step; two sets of accumulators, even and odd steps, added at the
   end. Another order of the same terms than the full kernel's, so these
   columns get other last bits; always the same ones, since the edge panel
   is the last NR-panel of C whatever the blocking and the threads. To acc
   with row stride NR, like the others. */
#ifdef RO_SGNS__AVX512
#define RO_SGNS__CV_T __m512
#define RO_SGNS__CV_ROWS 12
#define RO_SGNS__CV_NR 32
#define RO_SGNS__CV_LOADA(p) _mm512_maskz_loadu_ps((__mmask16)0x0FFF, p)
#define RO_SGNS__CV_ZERO _mm512_setzero_ps
#define RO_SGNS__CV_SET1 _mm512_set1_ps
#define RO_SGNS__CV_FMA _mm512_fmadd_ps
#define RO_SGNS__CV_ADD _mm512_add_ps
#define RO_SGNS__CV_STOREU _mm512_storeu_ps
#else
#define RO_SGNS__CV_T __m256
#define RO_SGNS__CV_ROWS 6
#define RO_SGNS__CV_NR 16
#define RO_SGNS__CV_LOADA(p) _mm256_maskload_ps(p, _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0))
#define RO_SGNS__CV_ZERO _mm256_setzero_ps
#define RO_SGNS__CV_SET1 _mm256_set1_ps
#define RO_SGNS__CV_FMA _mm256_fmadd_ps
#define RO_SGNS__CV_ADD _mm256_add_ps
#define RO_SGNS__CV_STOREU _mm256_storeu_ps
#endif
/* A kernel's body expanded into each caller with its constant shape (nc
   here): a C99 function that the compiler must inline, so the constant
   folds the branches away (GCC and clang; elsewhere plain inline). */
#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS__ALWAYS_INLINE __attribute__((always_inline))
#else
#define RO_SGNS__ALWAYS_INLINE
#endif
/* Column j's two sums (even and odd steps) added, to column j of acc. */
static RO_SGNS__INLINE RO_SGNS__ALWAYS_INLINE void ro_sgns__cols_out(float *acc, size_t j,
                                                                    RO_SGNS__CV_T e,
                                                                    RO_SGNS__CV_T o)
{
    float col[16];
    size_t i;
    RO_SGNS__CV_STOREU(col, RO_SGNS__CV_ADD(e, o));
    for (i = 0; i < RO_SGNS__CV_ROWS; ++i) acc[i * RO_SGNS__CV_NR + j] = col[i];
}
/* The narrow kernel for nc = 4 or 8 columns: e_j and o_j hold column j's
   even and odd steps. */
static RO_SGNS__INLINE RO_SGNS__ALWAYS_INLINE void
ro_sgns__kernel_cols(size_t kc, const float *RO_SGNS__RESTRICT a, const float *RO_SGNS__RESTRICT b,
                     float *RO_SGNS__RESTRICT acc, const size_t nc)
{
    const size_t rows = RO_SGNS__CV_ROWS, nr = RO_SGNS__CV_NR;
    RO_SGNS__CV_T e0 = RO_SGNS__CV_ZERO(), e1 = e0, e2 = e0, e3 = e0, e4 = e0;
    RO_SGNS__CV_T e5 = e0, e6 = e0, e7 = e0, o0 = e0, o1 = e0, o2 = e0, o3 = e0;
    RO_SGNS__CV_T o4 = e0, o5 = e0, o6 = e0, o7 = e0, a0, a1;
    size_t p = 0;
    for (; p + 2 <= kc; p += 2, a += 2 * rows, b += 2 * nr) {
        a0 = RO_SGNS__CV_LOADA(a);
        a1 = RO_SGNS__CV_LOADA(a + rows);
        e0 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[0]), e0);
        o0 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 0]), o0);
        e1 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[1]), e1);
        o1 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 1]), o1);
        e2 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[2]), e2);
        o2 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 2]), o2);
        e3 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[3]), e3);
        o3 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 3]), o3);
        if (nc > 4) {
            e4 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[4]), e4);
            o4 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 4]), o4);
            e5 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[5]), e5);
            o5 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 5]), o5);
            e6 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[6]), e6);
            o6 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 6]), o6);
            e7 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[7]), e7);
            o7 = RO_SGNS__CV_FMA(a1, RO_SGNS__CV_SET1(b[nr + 7]), o7);
        }
    }
    if (p < kc) { /* an odd kc: the last step to the even set */
        a0 = RO_SGNS__CV_LOADA(a);
        e0 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[0]), e0);
        e1 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[1]), e1);
        e2 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[2]), e2);
        e3 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[3]), e3);
        if (nc > 4) {
            e4 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[4]), e4);
            e5 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[5]), e5);
            e6 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[6]), e6);
            e7 = RO_SGNS__CV_FMA(a0, RO_SGNS__CV_SET1(b[7]), e7);
        }
    }
    ro_sgns__cols_out(acc, 0, e0, o0);
    ro_sgns__cols_out(acc, 1, e1, o1);
    ro_sgns__cols_out(acc, 2, e2, o2);
    ro_sgns__cols_out(acc, 3, e3, o3);
    if (nc > 4) {
        ro_sgns__cols_out(acc, 4, e4, o4);
        ro_sgns__cols_out(acc, 5, e5, o5);
        ro_sgns__cols_out(acc, 6, e6, o6);
        ro_sgns__cols_out(acc, 7, e7, o7);
    }
}
static void ro_sgns__kernel_cols4_s(size_t kc, const float *a, const float *b, float *acc)
{
    ro_sgns__kernel_cols(kc, a, b, acc, 4);
}
#ifdef RO_SGNS__AVX512
static void ro_sgns__kernel_cols8_s(size_t kc, const float *a, const float *b, float *acc)
{
    ro_sgns__kernel_cols(kc, a, b, acc, 8);
}
#endif
#ifdef RO_SGNS__AVX512
/* The four AVX-512 kernels, packed (DIRECT 0) or reading A in place
   (DIRECT 1, ro_sgns__gemm_run's direct mode). A macro: the same four
   instances for each layout, their intrinsics named once. */
#define RO_SGNS__AVX512_KERNELS(S, D, HALF_S, HALF_D, DIRECT)                               \
    RO_SGNS__KERNEL_SIMD(S, DIRECT, float, __m512, 16, 12, _mm512_setzero_ps,               \
                         _mm512_load_ps, _mm512_store_ps, _mm512_set1_ps, _mm512_fmadd_ps,  \
                         _mm512_loadu_ps, _mm512_storeu_ps, _mm512_mul_ps, _mm512_add_ps)   \
    RO_SGNS__KERNEL_SIMD(D, DIRECT, double, __m512d, 8, 6, _mm512_setzero_pd,              \
                         _mm512_load_pd, _mm512_store_pd, _mm512_set1_pd, _mm512_fmadd_pd,  \
                         _mm512_loadu_pd, _mm512_storeu_pd, _mm512_mul_pd, _mm512_add_pd)   \
    RO_SGNS__KERNEL_SIMD_HALF(HALF_S, DIRECT, float, __m512, 16, 12, _mm512_setzero_ps,     \
                              _mm512_load_ps, _mm512_store_ps, _mm512_set1_ps,             \
                              _mm512_fmadd_ps)                                             \
    RO_SGNS__KERNEL_SIMD_HALF(HALF_D, DIRECT, double, __m512d, 8, 6, _mm512_setzero_pd,    \
                              _mm512_load_pd, _mm512_store_pd, _mm512_set1_pd,             \
                              _mm512_fmadd_pd)
RO_SGNS__AVX512_KERNELS(ro_sgns__kernel_simd_s, ro_sgns__kernel_simd_d, ro_sgns__kernel_simd_half_s,
                        ro_sgns__kernel_simd_half_d, 0)
RO_SGNS__AVX512_KERNELS(ro_sgns__kernel_da_s, ro_sgns__kernel_da_d, ro_sgns__kernel_da_half_s,
                        ro_sgns__kernel_da_half_d, 1)

/* The narrow edge (at most 8 columns, float) when A is read in place (the
   narrow kernel needs a packed panel): each (row, column) pair gets a dot
   product along p, 16 steps to a vector, row i's run of A times column j's
   run of B laid out transposed by the caller (bt: column j's kc values at
   bt + j * kc, columns past the edge's zero); each accumulator is summed
   across its lanes at the end (ro_sgns__sum16, a fixed order). Other last
   bits than with packing; the same on every call, as every panel of rows
   takes this kernel in direct mode. */
/* The sum of v's 16 lanes: halves, quarters, pairs, then neighbours added,
   in 512-bit registers (GCC 12's _mm512_reduce_add_ps warns as C++). */
static RO_SGNS__INLINE float ro_sgns__sum16(__m512 v)
{
    /* the masked forms with every lane set: the plain ones pass an
       undefined source that GCC 12 warns about as C++ */
    const __mmask16 all = (__mmask16)0xFFFF;
    float lane[16];
    v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, all, v, v, 0x4E)); /* lanes 2 3 0 1 */
    v = _mm512_add_ps(v, _mm512_mask_shuffle_f32x4(v, all, v, v, 0xB1)); /* 1 0 3 2 */
    v = _mm512_add_ps(v, _mm512_mask_permute_ps(v, all, v, 0x4E)); /* within a lane */
    v = _mm512_add_ps(v, _mm512_mask_permute_ps(v, all, v, 0xB1));
    _mm512_storeu_ps(lane, v);
    return lane[0];
}
/* The dot-product kernel for nc = 4 or 8 columns, g = 16 / nc rows at a
   time; acc has row stride 32. s_q sums row q / nc (a_{q / nc}) times
   column q % nc (b_{q % nc}). */
static RO_SGNS__INLINE RO_SGNS__ALWAYS_INLINE void
ro_sgns__kernel_dot(size_t kc, const float *RO_SGNS__RESTRICT a, size_t lda,
                    const float *RO_SGNS__RESTRICT bt, float *RO_SGNS__RESTRICT acc,
                    const size_t nc)
{
    const size_t g = 16 / nc;
    size_t r, p;
    for (r = 0; r < 12; r += g) {
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0;
        __m512 s6 = s0, s7 = s0, s8 = s0, s9 = s0, s10 = s0, s11 = s0, s12 = s0;
        __m512 s13 = s0, s14 = s0, s15 = s0, a0, a1, a2 = s0, a3 = s0;
        __m512 b0, b1, b2, b3, b4 = s0, b5 = s0, b6 = s0, b7 = s0;
        float *o = acc + r * 32;
        for (p = 0; p < kc; p += 16) {
            const __mmask16 m =
                kc - p >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (kc - p)) - 1);
            const float *ar = a + r * lda + p, *bp = bt + p;
            a0 = _mm512_maskz_loadu_ps(m, ar), a1 = _mm512_maskz_loadu_ps(m, ar + lda);
            b0 = _mm512_maskz_loadu_ps(m, bp), b1 = _mm512_maskz_loadu_ps(m, bp + kc);
            b2 = _mm512_maskz_loadu_ps(m, bp + 2 * kc);
            b3 = _mm512_maskz_loadu_ps(m, bp + 3 * kc);
            if (nc > 4) {
                b4 = _mm512_maskz_loadu_ps(m, bp + 4 * kc);
                b5 = _mm512_maskz_loadu_ps(m, bp + 5 * kc);
                b6 = _mm512_maskz_loadu_ps(m, bp + 6 * kc);
                b7 = _mm512_maskz_loadu_ps(m, bp + 7 * kc);
                s0 = _mm512_fmadd_ps(a0, b0, s0), s1 = _mm512_fmadd_ps(a0, b1, s1);
                s2 = _mm512_fmadd_ps(a0, b2, s2), s3 = _mm512_fmadd_ps(a0, b3, s3);
                s4 = _mm512_fmadd_ps(a0, b4, s4), s5 = _mm512_fmadd_ps(a0, b5, s5);
                s6 = _mm512_fmadd_ps(a0, b6, s6), s7 = _mm512_fmadd_ps(a0, b7, s7);
                s8 = _mm512_fmadd_ps(a1, b0, s8), s9 = _mm512_fmadd_ps(a1, b1, s9);
                s10 = _mm512_fmadd_ps(a1, b2, s10), s11 = _mm512_fmadd_ps(a1, b3, s11);
                s12 = _mm512_fmadd_ps(a1, b4, s12), s13 = _mm512_fmadd_ps(a1, b5, s13);
                s14 = _mm512_fmadd_ps(a1, b6, s14), s15 = _mm512_fmadd_ps(a1, b7, s15);
            } else {
                a2 = _mm512_maskz_loadu_ps(m, ar + 2 * lda);
                a3 = _mm512_maskz_loadu_ps(m, ar + 3 * lda);
                s0 = _mm512_fmadd_ps(a0, b0, s0), s1 = _mm512_fmadd_ps(a0, b1, s1);
                s2 = _mm512_fmadd_ps(a0, b2, s2), s3 = _mm512_fmadd_ps(a0, b3, s3);
                s4 = _mm512_fmadd_ps(a1, b0, s4), s5 = _mm512_fmadd_ps(a1, b1, s5);
                s6 = _mm512_fmadd_ps(a1, b2, s6), s7 = _mm512_fmadd_ps(a1, b3, s7);
                s8 = _mm512_fmadd_ps(a2, b0, s8), s9 = _mm512_fmadd_ps(a2, b1, s9);
                s10 = _mm512_fmadd_ps(a2, b2, s10), s11 = _mm512_fmadd_ps(a2, b3, s11);
                s12 = _mm512_fmadd_ps(a3, b0, s12), s13 = _mm512_fmadd_ps(a3, b1, s13);
                s14 = _mm512_fmadd_ps(a3, b2, s14), s15 = _mm512_fmadd_ps(a3, b3, s15);
            }
        }
        /* s_q to o[(q / nc) * 32 + q % nc] */
        o[(0 / nc) * 32 + 0 % nc] = ro_sgns__sum16(s0);
        o[(1 / nc) * 32 + 1 % nc] = ro_sgns__sum16(s1);
        o[(2 / nc) * 32 + 2 % nc] = ro_sgns__sum16(s2);
        o[(3 / nc) * 32 + 3 % nc] = ro_sgns__sum16(s3);
        o[(4 / nc) * 32 + 4 % nc] = ro_sgns__sum16(s4);
        o[(5 / nc) * 32 + 5 % nc] = ro_sgns__sum16(s5);
        o[(6 / nc) * 32 + 6 % nc] = ro_sgns__sum16(s6);
        o[(7 / nc) * 32 + 7 % nc] = ro_sgns__sum16(s7);
        o[(8 / nc) * 32 + 8 % nc] = ro_sgns__sum16(s8);
        o[(9 / nc) * 32 + 9 % nc] = ro_sgns__sum16(s9);
        o[(10 / nc) * 32 + 10 % nc] = ro_sgns__sum16(s10);
        o[(11 / nc) * 32 + 11 % nc] = ro_sgns__sum16(s11);
        o[(12 / nc) * 32 + 12 % nc] = ro_sgns__sum16(s12);
        o[(13 / nc) * 32 + 13 % nc] = ro_sgns__sum16(s13);
        o[(14 / nc) * 32 + 14 % nc] = ro_sgns__sum16(s14);
        o[(15 / nc) * 32 + 15 % nc] = ro_sgns__sum16(s15);
    }
}
static void ro_sgns__kernel_dot4_s(size_t kc, const float *a, size_t lda, const float *bt,
                                   float *acc)
{
    ro_sgns__kernel_dot(kc, a, lda, bt, acc, 4);
}
static void ro_sgns__kernel_dot8_s(size_t kc, const float *a, size_t lda, const float *bt,
                                   float *acc)
{
    ro_sgns__kernel_dot(kc, a, lda, bt, acc, 8);
}
#else
RO_SGNS__KERNEL_SIMD(ro_sgns__kernel_simd_s, 0, float, __m256, 8, 6, _mm256_setzero_ps,
                     _mm256_load_ps, _mm256_store_ps, _mm256_set1_ps, _mm256_fmadd_ps,
                     _mm256_loadu_ps, _mm256_storeu_ps, _mm256_mul_ps, _mm256_add_ps)
RO_SGNS__KERNEL_SIMD(ro_sgns__kernel_simd_d, 0, double, __m256d, 4, 6, _mm256_setzero_pd,
                     _mm256_load_pd, _mm256_store_pd, _mm256_set1_pd, _mm256_fmadd_pd,
                     _mm256_loadu_pd, _mm256_storeu_pd, _mm256_mul_pd, _mm256_add_pd)
RO_SGNS__KERNEL_SIMD_HALF(ro_sgns__kernel_simd_half_s, 0, float, __m256, 8, 6, _mm256_setzero_ps,
                          _mm256_load_ps, _mm256_store_ps, _mm256_set1_ps, _mm256_fmadd_ps)
RO_SGNS__KERNEL_SIMD_HALF(ro_sgns__kernel_simd_half_d, 0, double, __m256d, 4, 6,
                          _mm256_setzero_pd, _mm256_load_pd, _mm256_store_pd, _mm256_set1_pd,
                          _mm256_fmadd_pd)
#endif
#endif

static void ro_sgns__update_tile(ro_sgns_real *C, size_t ldc, size_t rows, size_t cols,
                                 const ro_sgns_real *acc, ro_sgns_real alpha, ro_sgns_real beta,
                                 int first);

/* Where a tile's product goes: C (rows ldc apart) receives (first ? beta C
   : C) + alpha product, as ro_sgns__update_tile rounds it; C NULL: the
   product stays in acc (an edge tile, updated afterwards). */
typedef struct ro_sgns__tile_out {
    ro_sgns_real *C;
    size_t ldc;
    ro_sgns_real alpha, beta;
    int first;
} ro_sgns__tile_out;

/* One MR x NR tile product. With C NULL (an edge tile), the product goes to
   acc, for ro_sgns__update_tile; with C not NULL (a full tile), C (ldc) gets
   the update of ro_sgns__update_tile(C, ldc, MR, NR, product, alpha, beta,
   first), with the same bits. The panels and acc are 64-byte aligned. */
static void ro_sgns__kernel(size_t kc, const ro_sgns_real *a, const ro_sgns_real *b,
                            ro_sgns_real *acc, ro_sgns_real *C, size_t ldc, ro_sgns_real alpha,
                            ro_sgns_real beta, int first)
{
#if defined(RO_SGNS__AVX512) || defined(RO_SGNS__AVX2)
    if (RO_SGNS__IS_DOUBLE)
        ro_sgns__kernel_simd_d(kc, (const double *)(const void *)a, 0,
                               (const double *)(const void *)b, (double *)(void *)acc,
                               (double *)(void *)C, ldc, (double)alpha, (double)beta, first);
    else
        ro_sgns__kernel_simd_s(kc, (const float *)(const void *)a, 0,
                               (const float *)(const void *)b, (float *)(void *)acc,
                               (float *)(void *)C, ldc, (float)alpha, (float)beta, first);
#else
    ro_sgns__kernel_c(kc, a, b, acc);
    if (C) ro_sgns__update_tile(C, ldc, RO_SGNS__MR, RO_SGNS__NR, acc, alpha, beta, first);
#endif
}

/* An edge tile of cols columns into acc: the narrow kernel for at most 8
   (AVX-512 float) or 4 (AVX2 float), the half-width kernel where there is
   one and cols <= NR / 2, else the full one. */
static void ro_sgns__kernel_edge(size_t kc, const ro_sgns_real *a, const ro_sgns_real *b,
                                 ro_sgns_real *acc, size_t cols)
{
#if defined(RO_SGNS__AVX512) || defined(RO_SGNS__AVX2)
#ifdef RO_SGNS__AVX512
    const size_t narrow_max = 8;
#else
    const size_t narrow_max = 4;
#endif
    /* at most narrow_max columns, or that many past the half-width
       kernel's: the half-width kernel for the first NR / 2, the narrow one
       for the rest */
    const size_t skip = cols > narrow_max ? (size_t)RO_SGNS__NR / 2 : 0;
    if (!RO_SGNS__IS_DOUBLE && cols - skip <= narrow_max && cols > skip) {
        void (*narrow)(size_t, const float *, const float *, float *) = ro_sgns__kernel_cols4_s;
#ifdef RO_SGNS__AVX512
        if (cols - skip > 4) narrow = ro_sgns__kernel_cols8_s;
#endif
        if (skip)
            ro_sgns__kernel_simd_half_s(kc, (const float *)(const void *)a, 0,
                                        (const float *)(const void *)b, (float *)(void *)acc);
        narrow(kc, (const float *)(const void *)a, (const float *)(const void *)b + skip,
               (float *)(void *)acc + skip);
        return;
    }
#endif
#if defined(RO_SGNS__AVX512) || defined(RO_SGNS__AVX2)
    if (cols <= (size_t)RO_SGNS__NR / 2) {
        if (RO_SGNS__IS_DOUBLE)
            ro_sgns__kernel_simd_half_d(kc, (const double *)(const void *)a, 0,
                                        (const double *)(const void *)b, (double *)(void *)acc);
        else
            ro_sgns__kernel_simd_half_s(kc, (const float *)(const void *)a, 0,
                                        (const float *)(const void *)b, (float *)(void *)acc);
        return;
    }
#else
    (void)cols;
#endif
    ro_sgns__kernel(kc, a, b, acc, NULL, 0, 0, 0, 0);
}

#ifdef RO_SGNS__AVX512
/* Direct mode (ro_sgns__gemm_run): A's rows read where they are. The
   columns of an edge panel that the dot-product kernel takes (float: those
   the narrow kernel takes with packing), 0 if none; *skip: the columns
   before them, which the half-width kernel takes. */
static size_t ro_sgns__edge_dot_cols(size_t cols, size_t *skip)
{
    *skip = cols > 8 ? (size_t)RO_SGNS__NR / 2 : 0;
    if (RO_SGNS__IS_DOUBLE || cols >= (size_t)RO_SGNS__NR || cols <= *skip || cols - *skip > 8)
        return 0;
    return cols - *skip;
}

/* Columns skip..skip+nd-1 of a packed B micro-panel (kc x NR) to bt,
   transposed (column j's kc values at bt + j * kc), zero up to 4 or 8. */
static void ro_sgns__edge_bt(size_t kc, const ro_sgns_real *b, size_t skip, size_t nd,
                             ro_sgns_real *bt)
{
    size_t j, p, nb = nd > 4 ? 8 : 4;
    for (j = 0; j < nb; ++j)
        for (p = 0; p < kc; ++p) bt[j * kc + p] = j < nd ? b[p * RO_SGNS__NR + skip + j] : 0;
}

/* One MR x NR tile product with A in place (row 0 at a, rows lda apart),
   B a packed micro-panel (bt its edge columns from ro_sgns__edge_bt, where
   ro_sgns__edge_dot_cols gives any): like ro_sgns__kernel with out->C (a
   full tile), else to acc like ro_sgns__kernel_edge. */
static void ro_sgns__kernel_direct(size_t kc, const ro_sgns_real *a, size_t lda,
                                   const ro_sgns_real *b, const ro_sgns_real *bt,
                                   ro_sgns_real *acc, size_t cols, const ro_sgns__tile_out *out)
{
    size_t skip, nd = ro_sgns__edge_dot_cols(cols, &skip);
    const int half = !out->C && cols <= (size_t)RO_SGNS__NR / 2;
    if (RO_SGNS__IS_DOUBLE) {
        const double *ad = (const double *)(const void *)a, *bd = (const double *)(const void *)b;
        if (half)
            ro_sgns__kernel_da_half_d(kc, ad, lda, bd, (double *)(void *)acc);
        else
            ro_sgns__kernel_da_d(kc, ad, lda, bd, (double *)(void *)acc,
                                 (double *)(void *)out->C, out->ldc, (double)out->alpha,
                                 (double)out->beta, out->first);
    } else {
        const float *af = (const float *)(const void *)a, *bf = (const float *)(const void *)b;
        float *accf = (float *)(void *)acc;
        if (nd) {
            if (skip) ro_sgns__kernel_da_half_s(kc, af, lda, bf, accf);
            (nd > 4 ? ro_sgns__kernel_dot8_s : ro_sgns__kernel_dot4_s)(
                kc, af, lda, (const float *)(const void *)bt, accf + skip);
        } else if (half) {
            ro_sgns__kernel_da_half_s(kc, af, lda, bf, accf);
        } else {
            ro_sgns__kernel_da_s(kc, af, lda, bf, accf, (float *)(void *)out->C, out->ldc,
                                 (float)out->alpha, (float)out->beta, out->first);
        }
    }
}
#endif

/* rows rows of kc elements (lda apart) to dst (kc apart), zero rows after
   them up to MR: direct mode's copy of a last, partial panel. */
static RO_SGNS__MAYBE_UNUSED void ro_sgns__copy_rows(const ro_sgns_real *A, size_t lda,
                                                     size_t rows, size_t kc, ro_sgns_real *dst)
{
    size_t i, p;
    for (i = 0; i < (size_t)RO_SGNS__MR; ++i)
        for (p = 0; p < kc; ++p) dst[i * kc + p] = i < rows ? A[i * lda + p] : 0;
}

/* A hint to bring the cache line at p closer (GCC and clang; elsewhere
   nothing): the packing reads runs too short for the hardware prefetchers. */
#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS__GEMM_PREFETCH(p) __builtin_prefetch((const void *)(p))
#else
#define RO_SGNS__GEMM_PREFETCH(p) ((void)0)
#endif
#define RO_SGNS__GEMM_LINE (64 / sizeof(ro_sgns_real)) /* elements per cache line */
/* Rows of A^T packed together (and prefetched a group ahead): see pack_a. */
#ifndef RO_SGNS__PACK_ROWS
#define RO_SGNS__PACK_ROWS 8
#endif

/* AVX2 packing of A: the AVX2 kernels' six rows, and the AVX-512 kernels'
   twelve as two sets of six (every AVX-512 target has AVX2). */
#if defined(RO_SGNS__AVX2) || (defined(RO_SGNS__AVX512) && defined(__AVX2__))
#define RO_SGNS__PACK_A_AVX2 1
/* Packing six full rows of A (row-major, lda): the columns p < kc8 (a
   multiple of 8 floats or 4 doubles) of the six rows go to panel[p * S +
   i] (S: the panel's width, MR), transposed in registers. Returns the
   columns packed; the caller does the rest. */
static size_t ro_sgns__pack_a6_avx2_s(const float *A, size_t lda, size_t kc, float *panel,
                                      size_t S)
{
    size_t p, kc8 = kc / 8 * 8;
    for (p = 0; p < kc8; p += 8) {
        __m256 r0 = _mm256_loadu_ps(A + p), r1 = _mm256_loadu_ps(A + lda + p);
        __m256 r2 = _mm256_loadu_ps(A + 2 * lda + p), r3 = _mm256_loadu_ps(A + 3 * lda + p);
        __m256 r4 = _mm256_loadu_ps(A + 4 * lda + p), r5 = _mm256_loadu_ps(A + 5 * lda + p);
        __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
        __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
        /* u_j lane l: rows 0-3 of column p + j + 4 l; v_j: rows 4-5 of
           columns p + 2 j + 4 l (low pair) and + 1 (high pair) */
        __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
        __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
        __m256 v0 = _mm256_unpacklo_ps(r4, r5), v1 = _mm256_unpackhi_ps(r4, r5);
        float *d = panel + p * S;
        int l;
        for (l = 0; l < 2; ++l, d += 4 * S) {
            __m128 a0 = l ? _mm256_extractf128_ps(u0, 1) : _mm256_castps256_ps128(u0);
            __m128 a1 = l ? _mm256_extractf128_ps(u1, 1) : _mm256_castps256_ps128(u1);
            __m128 a2 = l ? _mm256_extractf128_ps(u2, 1) : _mm256_castps256_ps128(u2);
            __m128 a3 = l ? _mm256_extractf128_ps(u3, 1) : _mm256_castps256_ps128(u3);
            __m128 b0 = l ? _mm256_extractf128_ps(v0, 1) : _mm256_castps256_ps128(v0);
            __m128 b1 = l ? _mm256_extractf128_ps(v1, 1) : _mm256_castps256_ps128(v1);
            _mm_storeu_ps(d, a0);
            _mm_storel_pi((__m64 *)(void *)(d + 4), b0);
            _mm_storeu_ps(d + S, a1);
            _mm_storeh_pi((__m64 *)(void *)(d + S + 4), b0);
            _mm_storeu_ps(d + 2 * S, a2);
            _mm_storel_pi((__m64 *)(void *)(d + 2 * S + 4), b1);
            _mm_storeu_ps(d + 3 * S, a3);
            _mm_storeh_pi((__m64 *)(void *)(d + 3 * S + 4), b1);
        }
    }
    return kc8;
}

static size_t ro_sgns__pack_a6_avx2_d(const double *A, size_t lda, size_t kc, double *panel,
                                      size_t S)
{
    size_t p, kc4 = kc / 4 * 4;
    for (p = 0; p < kc4; p += 4) {
        __m256d r0 = _mm256_loadu_pd(A + p), r1 = _mm256_loadu_pd(A + lda + p);
        __m256d r2 = _mm256_loadu_pd(A + 2 * lda + p), r3 = _mm256_loadu_pd(A + 3 * lda + p);
        __m256d r4 = _mm256_loadu_pd(A + 4 * lda + p), r5 = _mm256_loadu_pd(A + 5 * lda + p);
        __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
        __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        __m256d v0 = _mm256_unpacklo_pd(r4, r5), v1 = _mm256_unpackhi_pd(r4, r5);
        double *d = panel + p * S;
        _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
        _mm_storeu_pd(d + 4, _mm256_castpd256_pd128(v0));
        _mm256_storeu_pd(d + S, _mm256_permute2f128_pd(t1, t3, 0x20));
        _mm_storeu_pd(d + S + 4, _mm256_castpd256_pd128(v1));
        _mm256_storeu_pd(d + 2 * S, _mm256_permute2f128_pd(t0, t2, 0x31));
        _mm_storeu_pd(d + 2 * S + 4, _mm256_extractf128_pd(v0, 1));
        _mm256_storeu_pd(d + 3 * S, _mm256_permute2f128_pd(t1, t3, 0x31));
        _mm_storeu_pd(d + 3 * S + 4, _mm256_extractf128_pd(v1, 1));
    }
    return kc4;
}
#endif

/* Pack rows [i0, i0+mc) x columns [p0, p0+kc) of op(A) (m rows) into
   micro-panels of MR rows: panel r holds, for each p, the MR values
   op(A)(i0+r*MR+i, p0+p) side by side; rows past mc are zero. While a panel
   is packed, the rows of the next one (up to row m) are prefetched. */
static void ro_sgns__pack_a(ro_sgns_trans ta, const ro_sgns_real *A, size_t lda, size_t m,
                            size_t i0, size_t mc, size_t p0, size_t kc, ro_sgns_real *dst)
{
    size_t r, i, p;
    if (ta) {
        /* op(A)(i, p) = A[p][i]: row p of A holds MR adjacent elements of
           every panel, so each panel's piece of a row is one fixed-size copy.
           Rows go by groups of PACK_ROWS, which stay in L1 while each panel
           in turn receives the group's pieces (why: docs/DESIGN.md, II.1). */
        size_t pg, q;
        for (pg = 0; pg < kc; pg += RO_SGNS__PACK_ROWS) {
            const size_t pe = ro_sgns__min(kc, pg + RO_SGNS__PACK_ROWS);
            const ro_sgns_real *src = A + (p0 + pg) * lda + i0;
            for (q = pe; q < kc && q < pe + RO_SGNS__PACK_ROWS; ++q) {
                const ro_sgns_real *next = A + (p0 + q) * lda + i0;
                for (i = 0; i < mc; i += RO_SGNS__GEMM_LINE) RO_SGNS__GEMM_PREFETCH(next + i);
                RO_SGNS__GEMM_PREFETCH(next + mc - 1);
            }
            for (r = 0; r + RO_SGNS__MR <= mc; r += RO_SGNS__MR) {
                ro_sgns_real *out = dst + r * kc + pg * RO_SGNS__MR;
                for (q = 0; q < pe - pg; ++q)
                    memcpy(out + q * RO_SGNS__MR, src + q * lda + r,
                           RO_SGNS__MR * sizeof(ro_sgns_real));
            }
            if (r < mc) { /* the last panel: its rows, then zeros */
                ro_sgns_real *out = dst + r * kc + pg * RO_SGNS__MR;
                for (q = 0; q < pe - pg; ++q) {
                    for (i = 0; i < mc - r; ++i) out[q * RO_SGNS__MR + i] = src[q * lda + r + i];
                    for (; i < (size_t)RO_SGNS__MR; ++i) out[q * RO_SGNS__MR + i] = 0;
                }
            }
        }
        return;
    }
    for (r = 0; r < mc; r += RO_SGNS__MR) {
        size_t rows = ro_sgns__min(RO_SGNS__MR, mc - r), done = 0;
        ro_sgns_real *panel = dst + r * kc;
#ifdef RO_SGNS__PACK_A_AVX2
        if (rows == RO_SGNS__MR) { /* MR = 6 (AVX2, AVX-512 double) or 12: sets of six */
            size_t six;
            for (six = 0; six < (size_t)RO_SGNS__MR; six += 6) {
                const ro_sgns_real *src = A + (i0 + r + six) * lda + p0;
                if (RO_SGNS__IS_DOUBLE)
                    done = ro_sgns__pack_a6_avx2_d((const double *)(const void *)src, lda, kc,
                                                   (double *)(void *)(panel + six),
                                                   RO_SGNS__MR);
                else
                    done = ro_sgns__pack_a6_avx2_s((const float *)(const void *)src, lda, kc,
                                                   (float *)(void *)(panel + six), RO_SGNS__MR);
            }
        }
#endif
        for (i = 0; i < (size_t)RO_SGNS__MR; ++i) {
            if (i < rows) {
                const ro_sgns_real *src = A + (i0 + r + i) * lda + p0;
                for (p = done; p < kc; ++p) panel[p * RO_SGNS__MR + i] = src[p];
            } else {
                for (p = 0; p < kc; ++p) panel[p * RO_SGNS__MR + i] = 0;
            }
            if (i0 + r + RO_SGNS__MR + i < m) {
                const ro_sgns_real *next = A + (i0 + r + RO_SGNS__MR + i) * lda + p0;
                for (p = 0; p < kc; p += RO_SGNS__GEMM_LINE) RO_SGNS__GEMM_PREFETCH(next + p);
                RO_SGNS__GEMM_PREFETCH(next + kc - 1);
            }
        }
    }
}

/* Pack NR-wide micro-panel number jp of op(B)(p0:p0+kc, j0:j0+nc) (op(B)
   has n columns). With op(B) = B^T, each column of the panel is a run of a
   row of B, and the next panel's rows are prefetched as in pack_a. */
static void ro_sgns__pack_b_panel(ro_sgns_trans tb, const ro_sgns_real *B, size_t ldb,
                                  size_t n, size_t p0, size_t kc, size_t j0, size_t nc,
                                  size_t jp, ro_sgns_real *dst)
{
    size_t j = jp * RO_SGNS__NR, cols = ro_sgns__min(RO_SGNS__NR, nc - j), p, q;
    ro_sgns_real *panel = dst + j * kc;
    if (!tb && cols == (size_t)RO_SGNS__NR) { /* a fixed-length copy: vector moves */
        for (p = 0; p < kc; ++p) {
            const ro_sgns_real *src = B + (p0 + p) * ldb + j0 + j;
            for (q = 0; q < (size_t)RO_SGNS__NR; ++q) panel[p * RO_SGNS__NR + q] = src[q];
        }
    } else if (!tb) {
        for (p = 0; p < kc; ++p) {
            const ro_sgns_real *src = B + (p0 + p) * ldb + j0 + j;
            for (q = 0; q < cols; ++q) panel[p * RO_SGNS__NR + q] = src[q];
            for (; q < (size_t)RO_SGNS__NR; ++q) panel[p * RO_SGNS__NR + q] = 0;
        }
    } else {
        for (q = 0; q < (size_t)RO_SGNS__NR; ++q) {
            if (q < cols) {
                const ro_sgns_real *src = B + (j0 + j + q) * ldb + p0;
                for (p = 0; p < kc; ++p) panel[p * RO_SGNS__NR + q] = src[p];
            } else {
                for (p = 0; p < kc; ++p) panel[p * RO_SGNS__NR + q] = 0;
            }
            if (j0 + j + RO_SGNS__NR + q < n) {
                const ro_sgns_real *next = B + (j0 + j + RO_SGNS__NR + q) * ldb + p0;
                for (p = 0; p < kc; p += RO_SGNS__GEMM_LINE) RO_SGNS__GEMM_PREFETCH(next + p);
                RO_SGNS__GEMM_PREFETCH(next + kc - 1);
            }
        }
    }
}

/* C block (rows x cols, at C) = (first ? beta C : C) + alpha acc. With
   first and beta == 0, C is not read. */
static void ro_sgns__update_tile(ro_sgns_real *C, size_t ldc, size_t rows, size_t cols,
                                 const ro_sgns_real *acc, ro_sgns_real alpha, ro_sgns_real beta,
                                 int first)
{
    size_t i, j;
    for (i = 0; i < rows; ++i) {
        ro_sgns_real *c = C + i * ldc;
        const ro_sgns_real *t = acc + i * RO_SGNS__NR;
        if (!first)
            for (j = 0; j < cols; ++j) c[j] += alpha * t[j];
        else if (beta == 0)
            for (j = 0; j < cols; ++j) c[j] = alpha * t[j];
        else
            for (j = 0; j < cols; ++j) c[j] = beta * c[j] + alpha * t[j];
    }
}

/* C = beta C, with beta == 0 writing zeros (C not read). */
static void ro_sgns__scale_matrix(size_t m, size_t n, ro_sgns_real beta, ro_sgns_real *C,
                                  size_t ldc)
{
    size_t i, j;
    if (beta == 1) return;
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) C[i * ldc + j] = beta == 0 ? 0 : beta * C[i * ldc + j];
}

/* A product C = alpha op(A) op(B) + beta C as one value: the BLAS's
   argument list (ro_sgns_gemm's), grouped by operand, for the blocked
   loops below. op(X) is X or X^T; op(A) is m x k, op(B) k x n, C m x n. */
typedef struct ro_sgns__operand {
    ro_sgns_trans trans;
    const ro_sgns_real *p; /* X, row-major */
    size_t ld;             /* X's leading dimension */
} ro_sgns__operand;
typedef struct ro_sgns__gemm_op {
    size_t m, n, k;
    ro_sgns_real alpha, beta;
    ro_sgns__operand a, b;
    ro_sgns_real *C;
    size_t ldc;
    const ro_sgns__packed_b *pb; /* op(B) packed ahead (then b is unused), or NULL */
} ro_sgns__gemm_op;

static ro_sgns__operand ro_sgns__operand_of(ro_sgns_trans trans, const ro_sgns_real *p, size_t ld)
{
    ro_sgns__operand x;
    x.trans = trans;
    x.p = p;
    x.ld = ld;
    return x;
}

/* The product of the BLAS arguments (ro_sgns_gemm's list, in its order). */
static ro_sgns__gemm_op ro_sgns__gemm_op_of(size_t m, size_t n, size_t k, ro_sgns_real alpha,
                                            ro_sgns__operand a, ro_sgns__operand b,
                                            ro_sgns_real beta, ro_sgns_real *C, size_t ldc)
{
    ro_sgns__gemm_op op;
    op.m = m;
    op.n = n;
    op.k = k;
    op.alpha = alpha;
    op.beta = beta;
    op.a = a;
    op.b = b;
    op.C = C;
    op.ldc = ldc;
    op.pb = NULL;
    return op;
}

static ro_sgns_result ro_sgns__gemm_check(const ro_sgns__gemm_op *op, ro_sgns_error *err)
{
    const size_t m = op->m, n = op->n, k = op->k;
    size_t a_cols = op->a.trans ? m : k, b_cols = op->b.trans ? k : n;
    if (m == 0 || n == 0) return ro_sgns__ok(err);
    if (!op->C || op->ldc < n)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "gemm: C is NULL or ldc (%lu) < n (%lu)", (unsigned long)op->ldc,
                             (unsigned long)n);
    if (k == 0) return ro_sgns__ok(err);
    if (!op->a.p || op->a.ld < a_cols)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "gemm: A is NULL or lda (%lu) < %lu", (unsigned long)op->a.ld,
                             (unsigned long)a_cols);
    if (!op->b.p || op->b.ld < b_cols)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "gemm: B is NULL or ldb (%lu) < %lu", (unsigned long)op->b.ld,
                             (unsigned long)b_cols);
    return ro_sgns__ok(err);
}

/* Round a pointer up to 64 bytes (buffers are allocated 64 elements larger). */
static ro_sgns_real *ro_sgns__align64(void *p)
{
    size_t off = (size_t)(64 - ((uintptr_t)p & 63)) & 63;
    return (ro_sgns_real *)(void *)((char *)p + off);
}

/* Elements of workspace one thread of the blocked GEMM needs for an
   n-column C, for any blocking: a packed B panel (KC x NC_MAX at most), an
   A block (MC_MAX x KC) and a tile, each with room for 64-byte alignment. */
static size_t ro_sgns__gemm_per_thread(size_t n)
{
    size_t nc_max = ro_sgns__min(RO_SGNS__NC_MAX, (n + RO_SGNS__NR - 1) / RO_SGNS__NR * RO_SGNS__NR);
    return RO_SGNS__KC * nc_max + (size_t)RO_SGNS__MC_MAX * RO_SGNS__KC + RO_SGNS__TILE + 192;
}

/* Elements of workspace the blocked GEMM needs for nt threads and an n-column
   C (whatever blocking the call then chooses). */
static size_t ro_sgns__gemm_ws_elems(size_t n, int nt, int *overflow)
{
    return ro_sgns__mul((size_t)nt, ro_sgns__gemm_per_thread(n), overflow);
}

/* How unevenly x equal units of work split over nt threads: the largest
   share over the mean, ceil(x / nt) * nt / x (1 = even). */
static double ro_sgns__uneven(size_t x, size_t nt)
{
    return (double)((x + nt - 1) / nt * nt) / (double)x;
}

/* The five loops, with nt threads (1 = serial, also inside a caller's
   parallel region) on workspace ws of ro_sgns__gemm_ws_elems(n, nt)
   elements, blocked as bk says. Arguments already checked; m, n, k > 0 and
   alpha != 0.
   Threading: each thread owns a fixed part of C for the whole call, a range
   of rows (in units of MR) when n <= m, else a range of the NR-column
   micro-panels of every NC block (unless that split is the more uneven),
   and packs the panels it needs itself: no barriers until the call ends.
   Each thread cuts its rows into blocks of at most MC, of equal size up to
   MR. The bits of C depend on none of this: every element is built from
   the same kernel calls over the same KC blocks in the same order,
   whatever the thread count, MC or NC (why: docs/DESIGN.md, II.1).
   shape: RO_SGNS__FULL, or one of the two halved products of the Cholesky
   QR (II.2), which skip work whose result is known or not wanted:
   RO_SGNS__UPPER_C: only C's upper triangle (i <= j) is wanted; tiles
     wholly below the diagonal are not computed and keep what they held;
     each thread gets half the tiles, not half the rows.
   RO_SGNS__UPPER_B: op(B) (k x n) is upper triangular; each tile's sum
     stops at the last row of op(B) its columns reach: the terms left out
     are products with zeros, so C gets the full product's bits (but for
     the sign of a zero, and an Inf or NaN in A that a zero would have made
     a NaN). */
enum { RO_SGNS__FULL = 0, RO_SGNS__UPPER_C = 1, RO_SGNS__UPPER_B = 2 };

/* The first row unit (of MR rows) of thread tid's share of row_units when
   row u costs n - u MR (clamped at 0), as RO_SGNS__UPPER_C's rows do. */
static size_t ro_sgns__tri_split(size_t row_units, size_t n, size_t tid, size_t team)
{
    double total = 0, sofar = 0, goal;
    size_t u;
    if (tid >= team) return row_units;
    for (u = 0; u < row_units; ++u)
        total += u * RO_SGNS__MR < n ? (double)(n - u * RO_SGNS__MR) : 0;
    goal = total * (double)tid / (double)team;
    for (u = 0; u < row_units && sofar < goal; ++u)
        sofar += u * RO_SGNS__MR < n ? (double)(n - u * RO_SGNS__MR) : 0;
    return u;
}

/* How the five loops share a product among the threads (ro_sgns__gemm_run). */
typedef struct ro_sgns__gemm_plan {
    ro_sgns__blocking bk;
    int shape, direct, by_rows;
    size_t per_thread; /* workspace elements a thread */
} ro_sgns__gemm_plan;

/* One thread's loops: its part of C, its buffers, and the KC block of
   op(B) under way (its panels at bp). */
typedef struct ro_sgns__gemm_job {
    const ro_sgns__gemm_op *op;
    int shape, da;          /* da: A read in place (direct mode, AVX-512 only) */
    size_t r0, r1, mc;      /* rows r0..r1-1 in blocks of mc */
    size_t jp0, jp1;        /* micro-panels jp0..jp1-1 of each NC block */
    ro_sgns_real *bpack, *apack, *arows, *acc;
    size_t jc, nc, pc, kc;  /* the NC block and the KC block under way */
    const ro_sgns_real *bp; /* op(B)'s packed panels of that block */
} ro_sgns__gemm_job;

/* Thread tid of team's rows, row blocks and buffers (ws: the plan's
   per_thread elements a thread). */
static void ro_sgns__gemm_job_init(ro_sgns__gemm_job *j, const ro_sgns__gemm_op *op,
                                   const ro_sgns__gemm_plan *pl, size_t tid, size_t team,
                                   ro_sgns_real *ws)
{
    const size_t MR = RO_SGNS__MR, KC = pl->bk.kc, m = op->m;
    const size_t row_units = (m + MR - 1) / MR;
    const size_t b_elems = KC * ro_sgns__min(pl->bk.nc, (op->n + RO_SGNS__NR - 1) / RO_SGNS__NR * RO_SGNS__NR);
    size_t nblk;
    j->op = op;
    j->shape = pl->shape;
#ifdef RO_SGNS__AVX512
    j->da = pl->direct && !op->a.trans; /* A read in place: see ro_sgns__gemm_run_tile */
#else
    j->da = 0;
#endif
    j->r0 = 0;
    j->r1 = m;
    if (pl->by_rows && pl->shape == RO_SGNS__UPPER_C) {
        j->r0 = ro_sgns__tri_split(row_units, op->n, tid, team) * MR;
        j->r1 = ro_sgns__min(m, ro_sgns__tri_split(row_units, op->n, tid + 1, team) * MR);
    } else if (pl->by_rows) {
        j->r0 = row_units * tid / team * MR;
        j->r1 = ro_sgns__min(m, row_units * (tid + 1) / team * MR);
    }
    /* this thread's rows in nblk blocks of mc (a multiple of MR <= bk.mc) */
    nblk = j->r1 > j->r0 ? (j->r1 - j->r0 + pl->bk.mc - 1) / pl->bk.mc : 1;
    j->mc = ((j->r1 - j->r0 + nblk - 1) / nblk + MR - 1) / MR * MR;
    j->bpack = ro_sgns__align64(ws + tid * pl->per_thread);
    j->apack = ro_sgns__align64(j->bpack + b_elems);
    /* direct mode packs no A: apack holds an edge panel's B columns
       transposed (ro_sgns__edge_bt, 8 x KC) and arows a partial panel's
       rows (MR x KC) */
    j->arows = j->apack + 8 * KC;
    j->acc = ro_sgns__align64(j->apack + (j->da && j->mc < MR + 8 ? MR + 8 : j->mc) * KC);
}

/* Tile (ic + ir, jr) of C: rows x cols, the B micro-panel at b over kt
   steps of the KC block; A's rows from the packed block (at ir) or, in
   direct mode, where they are. */
static void ro_sgns__gemm_tile(const ro_sgns__gemm_job *j, size_t ic, size_t ir, size_t rows,
                               size_t jr, size_t cols, size_t kt)
{
    const ro_sgns__gemm_op *op = j->op;
    const size_t MR = RO_SGNS__MR, NR = RO_SGNS__NR, kc = j->kc, pc = j->pc;
    const ro_sgns_real *b = j->bp + jr * kc;
    ro_sgns_real *ct = op->C + (ic + ir) * op->ldc + j->jc + jr;
#ifdef RO_SGNS__AVX512
    if (j->da) {
        const int full = rows == MR, whole = full && cols == NR;
        ro_sgns__tile_out out;
        out.C = whole ? ct : NULL;
        out.ldc = op->ldc;
        out.alpha = op->alpha;
        out.beta = op->beta;
        out.first = pc == 0;
        ro_sgns__kernel_direct(kt, full ? op->a.p + (ic + ir) * op->a.ld + pc : j->arows,
                               full ? op->a.ld : kc, b, j->apack, j->acc, cols, &out);
        if (!whole)
            ro_sgns__update_tile(ct, op->ldc, rows, cols, j->acc, op->alpha, op->beta, pc == 0);
        return;
    }
#endif
    if (rows == MR && cols == NR) {
        ro_sgns__kernel(kt, j->apack + ir * kc, b, j->acc, ct, op->ldc, op->alpha, op->beta,
                        pc == 0);
    } else {
        ro_sgns__kernel_edge(kt, j->apack + ir * kc, b, j->acc, cols);
        ro_sgns__update_tile(ct, op->ldc, rows, cols, j->acc, op->alpha, op->beta, pc == 0);
    }
}

/* Rows ic..ic+mc-1 of C against this thread's micro-panels of the KC
   block: pack that block of op(A) (in direct mode, copy only a last
   partial panel's rows), then every tile, panel by panel. */
static void ro_sgns__gemm_rows(const ro_sgns__gemm_job *j, size_t ic, size_t mc)
{
    const ro_sgns__gemm_op *op = j->op;
    const size_t MR = RO_SGNS__MR, NR = RO_SGNS__NR, kc = j->kc, pc = j->pc, jc = j->jc;
    size_t jp, ir;
    if (!j->da)
        ro_sgns__pack_a(op->a.trans, op->a.p, op->a.ld, op->m, ic, mc, pc, kc, j->apack);
    else if (mc % MR)
        ro_sgns__copy_rows(op->a.p + (ic + mc / MR * MR) * op->a.ld + pc, op->a.ld, mc % MR, kc,
                           j->arows);
    for (jp = j->jp0; jp < j->jp1; ++jp) {
        size_t jr = jp * NR, cols = ro_sgns__min(NR, j->nc - jr);
        size_t kt = kc; /* this panel's part of the KC block */
        if (j->shape == RO_SGNS__UPPER_B) {
            if (pc >= jc + jr + cols) continue; /* its rows of op(B): zeros */
            kt = ro_sgns__min(kc, jc + jr + cols - pc);
        }
#ifdef RO_SGNS__AVX512
        if (j->da) {
            size_t skip, nd = ro_sgns__edge_dot_cols(cols, &skip);
            if (nd) ro_sgns__edge_bt(kt, j->bp + jr * kc, skip, nd, j->apack);
        }
#endif
        for (ir = 0; ir < mc; ir += MR) {
            if (j->shape == RO_SGNS__UPPER_C && ic + ir >= jc + jr + cols) break;
            ro_sgns__gemm_tile(j, ic, ir, ro_sgns__min(MR, mc - ir), jr, cols, kt);
        }
    }
}

/* One thread's share of the five loops (the outer three here). */
static void ro_sgns__gemm_thread(const ro_sgns__gemm_op *op, const ro_sgns__gemm_plan *pl,
                                 size_t tid, size_t team, ro_sgns_real *ws)
{
    const size_t KC = pl->bk.kc, NC = pl->bk.nc, NR = RO_SGNS__NR, n = op->n, k = op->k;
    ro_sgns__gemm_job j;
    ro_sgns__gemm_job_init(&j, op, pl, tid, team, ws);
    for (j.jc = 0; j.jc < n && j.r1 > j.r0; j.jc += NC) {
        size_t np, jend, ic, jp;
        j.nc = ro_sgns__min(NC, n - j.jc);
        np = (j.nc + NR - 1) / NR;
        j.jp0 = pl->by_rows ? 0 : np * tid / team;
        j.jp1 = pl->by_rows ? np : np * (tid + 1) / team;
        jend = ro_sgns__min(j.nc, j.jp1 * NR); /* this thread's columns end at jc + jend */
        for (j.pc = 0; j.pc < k; j.pc += KC) {
            j.kc = ro_sgns__min(KC, k - j.pc);
            if (j.shape == RO_SGNS__UPPER_B && j.pc >= j.jc + jend) break; /* zeros below */
            if (op->pb) {
                j.bp = op->pb->base + j.pc * op->pb->ld + (op->pb->col0 + j.jc) * j.kc;
            } else {
                j.bp = j.bpack;
                for (jp = j.jp0; jp < j.jp1; ++jp)
                    ro_sgns__pack_b_panel(op->b.trans, op->b.p, op->b.ld, n, j.pc, j.kc, j.jc,
                                          j.nc, jp, j.bpack);
            }
            for (ic = j.r0; ic < j.r1; ic += j.mc) {
                if (j.shape == RO_SGNS__UPPER_C && ic >= j.jc + jend) break; /* below */
                ro_sgns__gemm_rows(&j, ic, ro_sgns__min(j.mc, j.r1 - ic));
            }
        }
    }
}

/* The five loops on op, as described above: how the work is split over
   (at most) nt threads, then each thread's share. */
static void ro_sgns__gemm_run(const ro_sgns__gemm_op *op, int nt, ro_sgns_real *ws,
                              const ro_sgns__blocking *bk, int shape, int direct)
{
    const size_t MR = RO_SGNS__MR, NR = RO_SGNS__NR, m = op->m, n = op->n;
    const size_t row_units = (m + MR - 1) / MR;
    const size_t n_panels = ro_sgns__min(bk->nc, (n + NR - 1) / NR * NR) / NR; /* a full NC block's */
    ro_sgns__gemm_plan pl;
    RO_SGNS_ASSERT(bk->kc == RO_SGNS__KC && bk->mc % MR == 0 && bk->mc > 0 &&
                   bk->mc <= RO_SGNS__MC_MAX && bk->nc % NR == 0 && bk->nc > 0 &&
                   bk->nc <= RO_SGNS__NC_MAX);
    pl.bk = *bk;
    pl.shape = shape;
    pl.direct = direct;
    pl.by_rows = 1;
    pl.per_thread = ro_sgns__gemm_per_thread(n);
    if (nt > 1) {
        double ur = ro_sgns__uneven(row_units, (size_t)nt);
        double up = ro_sgns__uneven(n_panels, (size_t)nt);
        pl.by_rows = n <= m ? !(ur > 1.1 && up < ur) : (up > 1.1 && ur < up);
        if ((size_t)nt > (pl.by_rows ? row_units : n_panels))
            nt = (int)(pl.by_rows ? row_units : n_panels);
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        size_t tid = 0, team = 1; /* the team may be smaller than nt (nested) */
#ifdef _OPENMP
        if (nt > 1) {
            tid = (size_t)omp_get_thread_num();
            team = (size_t)omp_get_num_threads();
        }
#endif
        ro_sgns__gemm_thread(op, &pl, tid, team, ws);
    }
}

/* The RO sweep's tile products: C = A op(B) + beta C on one thread, in the
   fixed table's blocking (no cpuid: the sweep calls it per tile), op(B)
   packed ahead (pb) or not (B, ldb): the same bits either way, and with
   any other blocking. With fewer than KC columns A is read in place
   (direct mode, AVX-512 builds); those products may differ from
   ro_sgns_gemm's in the last bits of a narrow edge panel's columns in
   float. */
static void ro_sgns__gemm_run_tile(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                   size_t k, const ro_sgns_real *A, size_t lda,
                                   const ro_sgns_real *B, size_t ldb,
                                   const ro_sgns__packed_b *pb, ro_sgns_real beta,
                                   ro_sgns_real *C, size_t ldc, ro_sgns_real *ws)
{
    ro_sgns__blocking bk;
    ro_sgns__gemm_op op = ro_sgns__gemm_op_of(
        m, n, k, 1, ro_sgns__operand_of(ta, A, lda),
        ro_sgns__operand_of(pb ? RO_SGNS_NOTRANS : tb, pb ? NULL : B, pb ? 0 : ldb), beta, C, ldc);
    op.pb = pb;
    ro_sgns__gemm_blocking_fixed(&bk);
    ro_sgns__gemm_run(&op, 1, ws, &bk, RO_SGNS__FULL, n < RO_SGNS__KC);
}

/* Packs op(B) (k x n) whole, as ro_sgns__gemm_run would pack it, for
   ro_sgns__packed_b {dst, ld, 0}: the KC block starting at p goes to dst +
   p * ld, column j's micro-panel at + j * kc. dst is 64-byte aligned and
   ld, a multiple of NR, at least n: k ld elements in all. */
static void ro_sgns__pack_b_ahead(ro_sgns_trans tb, const ro_sgns_real *B, size_t ldb, size_t n,
                                  size_t k, ro_sgns_real *dst, size_t ld)
{
    ro_sgns__pack_b_ahead_panels(tb, B, ldb, n, k, dst, ld, 0, (n + RO_SGNS__NR - 1) / RO_SGNS__NR);
}

/* The same for micro-panels jp0..jp1-1 only (a thread's share). */
static void ro_sgns__pack_b_ahead_panels(ro_sgns_trans tb, const ro_sgns_real *B, size_t ldb,
                                         size_t n, size_t k, ro_sgns_real *dst, size_t ld,
                                         size_t jp0, size_t jp1)
{
    size_t p, jp;
    for (p = 0; p < k; p += RO_SGNS__KC)
        for (jp = jp0; jp < jp1; ++jp)
            ro_sgns__pack_b_panel(tb, B, ldb, n, p, ro_sgns__min(RO_SGNS__KC, k - p), 0, n, jp,
                                  dst + p * ld);
}

/* NR, the width of B's micro-panels, for the sections before this one. */
static size_t ro_sgns__gemm_nr(void) { return RO_SGNS__NR; }

/* ro_sgns_gemm_builtin on checked arguments, with a workspace of at least
   ro_sgns__gemm_ws_elems(n, nt) elements (so a caller that must not fail
   halfway, like the QR, allocates it once up front); nt: the most threads;
   shape: RO_SGNS__FULL or a halved product (see ro_sgns__gemm_run). */
static void ro_sgns__gemm_ws(const ro_sgns__gemm_op *op, int nt, ro_sgns_real *ws, int shape)
{
    ro_sgns__blocking bk;
    if (op->m == 0 || op->n == 0) return;
    if (op->k == 0 || op->alpha == 0) {
        ro_sgns__scale_matrix(op->m, op->n, op->beta, op->C, op->ldc);
        return;
    }
    /* too small to be worth a fork, or the cpuid instructions (slow in a VM) */
    if ((double)op->m * (double)op->n * (double)op->k < 4e6) {
        nt = 1;
        ro_sgns__gemm_blocking_fixed(&bk);
    } else {
        ro_sgns__gemm_blocking(&bk);
    }
    ro_sgns__gemm_run(op, nt, ws, &bk, shape, 0);
}

/* The public GEMMs keep the BLAS's argument list, the one their users know. */
RO_SGNS_DEF ro_sgns_result ro_sgns_gemm_builtin(ro_sgns_trans ta, ro_sgns_trans tb, size_t m,
                                                size_t n, size_t k, ro_sgns_real alpha,
                                                const ro_sgns_real *A, size_t lda,
                                                const ro_sgns_real *B, size_t ldb,
                                                ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    const ro_sgns__gemm_op op = ro_sgns__gemm_op_of(m, n, k, alpha, ro_sgns__operand_of(ta, A, lda),
                                                    ro_sgns__operand_of(tb, B, ldb), beta, C, ldc);
    ro_sgns_result res = ro_sgns__gemm_check(&op, err);
    int nt, overflow = 0;
    size_t elems;
    ro_sgns_real *ws;
    if (res != RO_SGNS_OK || m == 0 || n == 0) return res;
    if (k == 0 || alpha == 0) {
        ro_sgns__scale_matrix(m, n, beta, C, ldc);
        return ro_sgns__ok(err);
    }
    nt = ro_sgns__num_threads();
    if ((double)m * (double)n * (double)k < 4e6) nt = 1; /* too small to be worth a fork */
    elems = ro_sgns__gemm_ws_elems(n, nt, &overflow);
    ws = (ro_sgns_real *)ro_sgns__malloc(alloc, ro_sgns__mul(elems, sizeof(ro_sgns_real), &overflow));
    if (overflow || !ws) { /* on overflow ws may be a 1-byte block */
        ro_sgns__free(alloc, ws);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "gemm: cannot allocate packing buffers for %d threads", nt);
    }
    ro_sgns__gemm_ws(&op, nt, ws, RO_SGNS__FULL);
    ro_sgns__free(alloc, ws);
    return ro_sgns__ok(err);
}

#ifdef RO_SGNS_USE_CBLAS
/* The product through CBLAS, on checked arguments with m, n, k > 0; 0 (and
   nothing done) when a size is beyond CBLAS's int: such problems stay on
   the built-in kernel. BLAS-shaped: II.5's tiles call it with the
   BLAS's arguments. */
static int ro_sgns__gemm_cblas(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n, size_t k,
                               ro_sgns_real alpha, const ro_sgns_real *A, size_t lda,
                               const ro_sgns_real *B, size_t ldb, ro_sgns_real beta,
                               ro_sgns_real *C, size_t ldc)
{
    const size_t lim = 0x7fffffff;
    enum CBLAS_TRANSPOSE ca = ta ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE cb = tb ? CblasTrans : CblasNoTrans;
    if (m > lim || n > lim || k > lim || lda > lim || ldb > lim || ldc > lim) return 0;
    if (beta == 0) ro_sgns__scale_matrix(m, n, 0, C, ldc); /* BLAS may read C */
    if (RO_SGNS__IS_DOUBLE)
        cblas_dgemm(CblasRowMajor, ca, cb, (int)m, (int)n, (int)k, (double)alpha,
                    (const double *)(const void *)A, (int)lda, (const double *)(const void *)B,
                    (int)ldb, (double)beta, (double *)(void *)C, (int)ldc);
    else
        cblas_sgemm(CblasRowMajor, ca, cb, (int)m, (int)n, (int)k, (float)alpha,
                    (const float *)(const void *)A, (int)lda, (const float *)(const void *)B,
                    (int)ldb, (float)beta, (float *)(void *)C, (int)ldc);
    return 1;
}
#endif

RO_SGNS_DEF ro_sgns_result ro_sgns_gemm(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                        size_t k, ro_sgns_real alpha, const ro_sgns_real *A,
                                        size_t lda, const ro_sgns_real *B, size_t ldb,
                                        ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                        const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
#ifdef RO_SGNS_USE_CBLAS
    const ro_sgns__gemm_op op = ro_sgns__gemm_op_of(m, n, k, alpha, ro_sgns__operand_of(ta, A, lda),
                                                    ro_sgns__operand_of(tb, B, ldb), beta, C, ldc);
    ro_sgns_result res = ro_sgns__gemm_check(&op, err);
    if (res != RO_SGNS_OK || m == 0 || n == 0) return res;
    if (k == 0) {
        ro_sgns__scale_matrix(m, n, beta, C, ldc);
        return res;
    }
    if (ro_sgns__gemm_cblas(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
        return ro_sgns__ok(err);
#endif
    return ro_sgns_gemm_builtin(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, alloc,
                                err);
}

/* ro_sgns_gemm on arguments that passed its checks, with the
   built-in kernel's workspace already taken: ws holds at least
   ro_sgns__gemm_ws_elems(n, ro_sgns__num_threads()) elements. It cannot
   fail, so a caller that takes everything first never leaves an output
   half-written (ro_sgns_shard_pass2, ro_sgns_tsqr_apply). The same route
   as ro_sgns_gemm (CBLAS where it would use it) and the same bits.
   BLAS-shaped like ro_sgns_gemm, whose stand-in it is. */
static void ro_sgns__gemm_taken(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                size_t k, ro_sgns_real alpha, const ro_sgns_real *A,
                                size_t lda, const ro_sgns_real *B, size_t ldb,
                                ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                ro_sgns_real *ws)
{
    const ro_sgns__gemm_op op = ro_sgns__gemm_op_of(m, n, k, alpha, ro_sgns__operand_of(ta, A, lda),
                                                    ro_sgns__operand_of(tb, B, ldb), beta, C, ldc);
#ifdef RO_SGNS_USE_CBLAS
    if (m && n && k && ro_sgns__gemm_cblas(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
        return;
#endif
    ro_sgns__gemm_ws(&op, ro_sgns__num_threads(), ws, RO_SGNS__FULL);
}

/* ======================================================================
   II.2 QR, fast: by blocks of reflectors, and by Cholesky QR twice

   Part I twin: ro_sgns_qr_naive and ro_sgns__geqr2 (I.5); compared in the
   repository's tests/test_linalg.c (test_qr, test_qr_unblocked,
   test_qr_chol2). Also here: ro_sgns_svd, which routes to LAPACKE or to
   II.0's blocked Jacobi SVD (plain twin: ro_sgns_svd_naive, I.6).

   What: the Q of an n x d matrix, orthonormal to working precision whatever
   A's conditioning, rank deficiency included (Householder reflections;
   Golub and Van Loan, "Matrix Computations", 4th ed., 5.1-5.2):
     - unblocked (ro_sgns__geqr2, I.5): H_j = I - tau v v^T, v = [1; v'],
       maps A(j:, j) to (beta, 0, ..., 0);
     - blocked (compact WY, Schreiber and Van Loan 1989): NB reflectors of a
       panel are H_1...H_NB = I - V T V^T with T upper triangular, so the
       trailing update and the forming of Q are three GEMMs each.
   Q = H_1 ... H_d [I; 0], applied panel by panel from the last; signs are
   fixed at the end so that R_jj >= 0. Cost: about 4 n d^2 flops.
   The RO step's two QRs go first to Cholesky QR twice (end of this
   section) and to this QR when their conditioning does not allow it.
   ====================================================================== */

#define RO_SGNS__QR_NB 32

/* The blocked QR under way: A (n x d, lda) and its workspace. The
   reflectors of panel j (columns j..j+jb-1, jb <= NB) are kept, unit lower
   trapezoidal, at V(j:, j:j+jb) (V n x d, ld d) with their T (jb x jb
   upper triangular) at T + (j / NB) NB^2 (ld NB): H_j ... H_{j+jb-1} =
   I - V T V^T, the compact WY form. W and W2 (NB x d each) hold the
   products between, ws the GEMM's workspace for nt threads. */
typedef struct ro_sgns__qr_blocked {
    size_t n, d, lda;
    ro_sgns_real *A, *V, *T, *W, *W2, *ws;
    double *tau, *w; /* the reflectors' scales (d), geqr2's scratch (d) */
    int nt;
} ro_sgns__qr_blocked;

/* C (n - j rows x cols, ldc) <- (I - V op(T) V^T) C for panel j's block
   reflector, in three GEMMs: W = V^T C, W2 = op(T) W, C -= V W2. op(T) =
   T^T applies the panel's H^T (the factorization's trailing update), T
   its H (forming Q). */
static void ro_sgns__qr_apply_block(const ro_sgns__qr_blocked *q, size_t j, ro_sgns_trans tt,
                                    ro_sgns_real *C, size_t ldc, size_t cols)
{
    const size_t nb = RO_SGNS__QR_NB, jb = ro_sgns__min(nb, q->d - j), rows = q->n - j;
    const ro_sgns__operand V = ro_sgns__operand_of(RO_SGNS_NOTRANS, q->V + j * q->d + j, q->d);
    const ro_sgns__operand Vt = ro_sgns__operand_of(RO_SGNS_TRANS, V.p, V.ld);
    const ro_sgns__operand T = ro_sgns__operand_of(tt, q->T + (j / nb) * nb * nb, nb);
    ro_sgns__gemm_op op = ro_sgns__gemm_op_of(jb, cols, rows, 1, Vt,
                                              ro_sgns__operand_of(RO_SGNS_NOTRANS, C, ldc), 0,
                                              q->W, cols);
    ro_sgns__gemm_ws(&op, q->nt, q->ws, RO_SGNS__FULL);
    op = ro_sgns__gemm_op_of(jb, cols, jb, 1, T, ro_sgns__operand_of(RO_SGNS_NOTRANS, q->W, cols),
                             0, q->W2, cols);
    ro_sgns__gemm_ws(&op, q->nt, q->ws, RO_SGNS__FULL);
    op = ro_sgns__gemm_op_of(rows, cols, jb, -1, V,
                             ro_sgns__operand_of(RO_SGNS_NOTRANS, q->W2, cols), 1, C, ldc);
    ro_sgns__gemm_ws(&op, q->nt, q->ws, RO_SGNS__FULL);
}

/* Panel j of the factorization: its reflectors by ro_sgns__geqr2, copied
   to V, their T (LAPACK's ?larft: T_ii = tau_i, T(0:i, i) = -tau_i
   T(0:i, 0:i) (V(:, 0:i)^T v_i), with the Gram matrix V^T V from one
   GEMM), then the trailing columns C -= V (T^T (V^T C)). */
static void ro_sgns__qr_panel(const ro_sgns__qr_blocked *q, size_t j)
{
    const size_t nb = RO_SGNS__QR_NB, d = q->d, lda = q->lda;
    const size_t jb = ro_sgns__min(nb, d - j), rows = q->n - j, rest = d - j - jb;
    ro_sgns_real *A = q->A, *Vp = q->V + j * d + j, *Tp = q->T + (j / nb) * nb * nb;
    ro_sgns_real *W = q->W, *W2 = q->W2;
    const double *tau = q->tau;
    ro_sgns__gemm_op op;
    size_t i, c, r;
    ro_sgns__geqr2(rows, jb, A + j * lda + j, lda, q->tau + j, q->w);
    for (i = 0; i < rows; ++i)
        for (c = 0; c < jb; ++c)
            Vp[i * d + c] = i == c ? 1 : (i > c ? A[(j + i) * lda + j + c] : 0);
    op = ro_sgns__gemm_op_of(jb, jb, rows, 1, ro_sgns__operand_of(RO_SGNS_TRANS, Vp, d),
                             ro_sgns__operand_of(RO_SGNS_NOTRANS, Vp, d), 0, W, jb);
    ro_sgns__gemm_ws(&op, q->nt, q->ws, RO_SGNS__FULL);
    for (i = 0; i < jb; ++i) {
        for (r = 0; r < i; ++r) {
            double sum = 0;
            size_t p;
            for (p = r; p < i; ++p) sum += (double)Tp[r * nb + p] * W[p * jb + i];
            W2[r] = (ro_sgns_real)(-tau[j + i] * sum);
        }
        for (r = 0; r < i; ++r) Tp[r * nb + i] = W2[r];
        Tp[i * nb + i] = (ro_sgns_real)tau[j + i];
        for (r = i + 1; r < jb; ++r) Tp[r * nb + i] = 0;
    }
    if (rest > 0) ro_sgns__qr_apply_block(q, j, RO_SGNS_TRANS, A + j * lda + j + jb, lda, rest);
}

/* The blocked QR (compact WY; see the banner): the fast twin of
   ro_sgns__geqr2, which it runs on each panel (in the repository:
   tests/test_linalg.c, test_qr_unblocked compares them). The public QRs
   keep LAPACK's argument list. */
RO_SGNS_DEF ro_sgns_result ro_sgns_qr_builtin(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                              ro_sgns_real *R, size_t ldr,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    const size_t nb = RO_SGNS__QR_NB, n_panels = (d + nb - 1) / nb;
    size_t i, j, c, r;
    ro_sgns__qr_blocked q;
    int of = 0;
    ro_sgns_result res = ro_sgns__qr_check(n, d, A, lda, R, ldr, err);
    if (res != RO_SGNS_OK) return res;
    q.n = n;
    q.d = d;
    q.lda = lda;
    q.A = A;
    q.nt = ro_sgns__num_threads();
    q.V = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, d, sizeof(ro_sgns_real));
    q.T = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n_panels * nb, nb, sizeof(ro_sgns_real));
    q.W = (ro_sgns_real *)ro_sgns__alloc_array(alloc, 2 * nb, d, sizeof(ro_sgns_real));
    q.tau = (double *)ro_sgns__alloc_array(alloc, 2, d, sizeof(double));
    /* every product below has at most d columns: one GEMM workspace, taken
       before A is touched, so a failure leaves A and R as they were */
    q.ws = (ro_sgns_real *)ro_sgns__alloc_array(alloc, ro_sgns__gemm_ws_elems(d, q.nt, &of), 1,
                                                sizeof(ro_sgns_real));
    if (!q.V || !q.T || !q.W || !q.tau || !q.ws || of) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "qr: cannot allocate workspace for %lu x %lu", (unsigned long)n,
                            (unsigned long)d);
        goto done;
    }
    q.W2 = q.W + nb * d;
    q.w = q.tau + d;
    /* 1. Factor, panel by panel. */
    for (j = 0; j < d; j += nb) ro_sgns__qr_panel(&q, j);
    /* 2. R is the upper triangle. */
    for (i = 0; i < d; ++i)
        for (c = 0; c < d; ++c) R[i * ldr + c] = c >= i ? A[i * lda + c] : 0;
    /* 3. Q = H_1 ... H_d [I; 0], panels applied from the last: panel j
          touches only Q(j:, j:), by  Q(j:, j:) -= V (T (V^T Q(j:, j:))). */
    for (i = 0; i < n; ++i)
        for (c = 0; c < d; ++c) A[i * lda + c] = (ro_sgns_real)(i == c);
    for (r = n_panels; r-- > 0;) {
        j = r * nb;
        ro_sgns__qr_apply_block(&q, j, RO_SGNS_NOTRANS, A + j * lda + j, lda, d - j);
    }
    ro_sgns__qr_fix_signs(n, d, A, lda, R, ldr);
    /* finite A, but a column norm beyond the largest real: Inf in R */
    res = ro_sgns__all_finite(d, d, R, ldr) && ro_sgns__all_finite(n, d, A, lda)
              ? ro_sgns__ok(err)
              : ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "qr: R overflows the real type");
done:
    ro_sgns__free(alloc, q.ws);
    ro_sgns__free(alloc, q.V);
    ro_sgns__free(alloc, q.T);
    ro_sgns__free(alloc, q.W);
    ro_sgns__free(alloc, q.tau);
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_qr(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                      ro_sgns_real *R, size_t ldr,
                                      const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
#ifdef RO_SGNS_USE_LAPACKE
    ro_sgns_result res = ro_sgns__qr_check(n, d, A, lda, R, ldr, err);
    ro_sgns_real *tau;
    lapack_int info;
    size_t i, c;
    const size_t lim = 0x7fffffff;
    if (res != RO_SGNS_OK) return res;
    if (n <= lim && lda <= lim) {
        tau = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, 1, sizeof(ro_sgns_real));
        if (!tau) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "qr: out of memory");
        if (RO_SGNS__IS_DOUBLE)
            info = LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)d,
                                  (double *)(void *)A, (lapack_int)lda, (double *)(void *)tau);
        else
            info = LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)d,
                                  (float *)(void *)A, (lapack_int)lda, (float *)(void *)tau);
        if (info == 0) {
            for (i = 0; i < d; ++i)
                for (c = 0; c < d; ++c) R[i * ldr + c] = c >= i ? A[i * lda + c] : 0;
            if (RO_SGNS__IS_DOUBLE)
                info = LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)d,
                                      (lapack_int)d, (double *)(void *)A, (lapack_int)lda,
                                      (const double *)(const void *)tau);
            else
                info = LAPACKE_sorgqr(LAPACK_ROW_MAJOR, (lapack_int)n, (lapack_int)d,
                                      (lapack_int)d, (float *)(void *)A, (lapack_int)lda,
                                      (const float *)(const void *)tau);
        }
        ro_sgns__free(alloc, tau);
        /* A is finite (checked above), so besides its workspace LAPACKE
           fails only where its NaN check finds one that ?geqrf made from
           a huge A and handed ?orgqr; without that check the NaN comes
           out with info 0. The builtin QR says NUMERIC: so do we. */
        if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
            return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "qr: LAPACKE returned %d",
                                 (int)info);
        if (info == 0 && !(ro_sgns__all_finite(n, d, A, lda) && ro_sgns__all_finite(d, d, R, ldr)))
            info = -1;
        if (info != 0)
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                 "qr: R overflows the real type (LAPACKE: %d)", (int)info);
        ro_sgns__qr_fix_signs(n, d, A, lda, R, ldr);
        return ro_sgns__ok(err);
    }
#endif
    return ro_sgns_qr_builtin(n, d, A, lda, R, ldr, alloc, err);
}

/* ----------------------------------------------------------------------
   Cholesky QR, twice: the RO step's QRs at GEMM speed

   Cholesky QR (Stathopoulos and Wu 2002): R^T R = A^T A by Cholesky,
   Q = A R^-1. Its Q loses orthogonality like u cond(A)^2; a second pass on
   Q (CholeskyQR2: Fukaya, Nakatsukasa, Yanagisawa and Yamamoto 2014;
   Yamamoto et al. 2015) brings it back to working precision when cond(A)
   is below about u^-1/2. Each pass is two half-GEMMs (RO_SGNS__UPPER_C,
   RO_SGNS__UPPER_B, or CBLAS's syrk and trmm) and d^3 work in double.
   The second pass is trusted when |Q1^T Q1 - I|_F <= 1/2 (cond(Q1)^2 <= 3);
   when the first Cholesky breaks down (rank deficiency, NaN, overflow) or
   the check fails, A is still as given and the Householder QR takes it:
   every input gets the answer ro_sgns_qr gives. The decisions depend on
   the bits alone, never on threads. Why it pays: docs/DESIGN.md, II.2. */

/* H (d x d, upper part, double) -> R upper with R^T R = H, in place; 0
   when a pivot is not positive (or NaN): H is not numerically positive
   definite. Rows of R contiguous (the inner loop is an axpy). */
static int ro_sgns__cholesky_in_place(size_t d, double *H)
{
    size_t i, j, k;
    for (k = 0; k < d; ++k) {
        double *rk = H + k * d, piv = rk[k], r;
        if (!(piv > 0) || !ro_sgns__is_finite(piv)) return 0;
        r = RO_SGNS_SQRT(piv);
        rk[k] = r;
        for (j = k + 1; j < d; ++j) rk[j] /= r;
        for (i = k + 1; i < d; ++i) { /* the trailing upper triangle -= r_k^T r_k */
            double *ri = H + i * d, f = rk[i];
            for (j = i; j < d; ++j) ri[j] -= f * rk[j];
        }
    }
    return 1;
}

/* G (d x d, upper part; real) -> R upper with R^T R = G, in double (G's
   upper part copied, the lower zeroed, then factored in place). */
static int ro_sgns__cholesky_upper(size_t d, const ro_sgns_real *G, double *R)
{
    size_t i, j;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) R[i * d + j] = j >= i ? (double)G[i * d + j] : 0;
    return ro_sgns__cholesky_in_place(d, R);
}

/* Ri = R^-1 for R upper triangular with a positive diagonal (d x d,
   double), by rows from the last: row i of R^-1 is
   (e_i - sum_{k > i} R_ik row k) / R_ii. Written as reals for the GEMM. */
static void ro_sgns__inverse_upper(size_t d, const double *R, double *work, ro_sgns_real *Ri)
{
    size_t i, j, k;
    for (i = d; i-- > 0;) {
        double *wi = work + i * d;
        for (j = 0; j < d; ++j) wi[j] = j == i;
        for (k = i + 1; k < d; ++k) {
            const double *wk = work + k * d, f = R[i * d + k];
            for (j = k; j < d; ++j) wi[j] -= f * wk[j];
        }
        for (j = i; j < d; ++j) wi[j] /= R[i * d + i];
    }
    for (i = 0; i < d * d; ++i) Ri[i] = (ro_sgns_real)work[i];
}

/* The upper triangle of G = A^T A (A n x d, G d x d; below it G keeps
   some of what it held), on ws of ro_sgns__gemm_ws_elems(d, threads). */
static void ro_sgns__gram_upper(size_t n, size_t d, const ro_sgns_real *A, size_t lda,
                                ro_sgns_real *G, ro_sgns_real *ws)
{
#ifdef RO_SGNS_USE_CBLAS
    const size_t lim = 0x7fffffff;
    if (n <= lim && d <= lim && lda <= lim) {
        ro_sgns__scale_matrix(d, d, 0, G, d); /* BLAS may read G */
        if (RO_SGNS__IS_DOUBLE)
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)d, (int)n, 1.0,
                        (const double *)(const void *)A, (int)lda, 0.0,
                        (double *)(void *)G, (int)d);
        else
            cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)d, (int)n, 1.0f,
                        (const float *)(const void *)A, (int)lda, 0.0f, (float *)(void *)G,
                        (int)d);
        return;
    }
#endif
    {
        const ro_sgns__gemm_op op = ro_sgns__gemm_op_of(
            d, d, n, 1, ro_sgns__operand_of(RO_SGNS_TRANS, A, lda),
            ro_sgns__operand_of(RO_SGNS_NOTRANS, A, lda), 0, G, d);
        ro_sgns__gemm_ws(&op, ro_sgns__num_threads(), ws, RO_SGNS__UPPER_C);
    }
}

/* W = A T for T upper triangular with zeros below (d x d; A n x d, W n x
   d with row stride ldw; A is not written), on ws as above. */
static void ro_sgns__times_upper(size_t n, size_t d, const ro_sgns_real *A, size_t lda,
                                 const ro_sgns_real *T, ro_sgns_real *W, size_t ldw,
                                 ro_sgns_real *ws)
{
#ifdef RO_SGNS_USE_CBLAS
    const size_t lim = 0x7fffffff;
    if (n <= lim && d <= lim && ldw <= lim) { /* trmm works in place: A to W first */
        size_t i;
        for (i = 0; i < n; ++i) memcpy(W + i * ldw, A + i * lda, d * sizeof(ro_sgns_real));
        if (RO_SGNS__IS_DOUBLE)
            cblas_dtrmm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit,
                        (int)n, (int)d, 1.0, (const double *)(const void *)T, (int)d,
                        (double *)(void *)W, (int)ldw);
        else
            cblas_strmm(CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit,
                        (int)n, (int)d, 1.0f, (const float *)(const void *)T, (int)d,
                        (float *)(void *)W, (int)ldw);
        return;
    }
#endif
    {
        const ro_sgns__gemm_op op = ro_sgns__gemm_op_of(
            n, d, d, 1, ro_sgns__operand_of(RO_SGNS_NOTRANS, A, lda),
            ro_sgns__operand_of(RO_SGNS_NOTRANS, T, d), 0, W, ldw);
        ro_sgns__gemm_ws(&op, ro_sgns__num_threads(), ws, RO_SGNS__UPPER_B);
    }
}

/* CholeskyQR2 of A (n x d, n >= d >= 1): 1 when done, A = Q R as
   ro_sgns_qr gives it (Q in A, R upper with a positive diagonal, zeros
   below); 0 when it cannot vouch for the result, -1 when the memory is not
   there: both leave A and R as they were (the workspace is taken first,
   and A is written by the last product only). W is n x d scratch. inv
   (2 d x d, or NULL) receives R1^-1 and R2^-1 as they were applied, Q =
   (A R1^-1) R2^-1: the RO step's fused sweep applies them to D^T A. */
static int ro_sgns__qr_chol2(size_t n, size_t d, ro_sgns_real *A, size_t lda, ro_sgns_real *R,
                             size_t ldr, ro_sgns_real *W, ro_sgns_real *inv,
                             const ro_sgns_allocator *al)
{
    size_t dd = d * d, i, j, k;
    double *R1, *R2, *dwork, off = 0;
    ro_sgns_real *G, *ws;
    int of = 0, ok = 0;
    R1 = (double *)ro_sgns__alloc_array(al, 3 * d, d, sizeof(double));
    G = (ro_sgns_real *)ro_sgns__alloc_array(al, d, d, sizeof(ro_sgns_real));
    ws = (ro_sgns_real *)ro_sgns__alloc_array(
        al, ro_sgns__gemm_ws_elems(d, ro_sgns__num_threads(), &of), 1, sizeof(ro_sgns_real));
    if (!R1 || !G || !ws || of) {
        ok = -1;
        goto done;
    }
    R2 = R1 + dd;
    dwork = R2 + dd;
    /* pass 1: R1^T R1 = A^T A, W = A R1^-1 */
    ro_sgns__gram_upper(n, d, A, lda, G, ws);
    if (!ro_sgns__cholesky_upper(d, G, R1)) goto done;
    ro_sgns__inverse_upper(d, R1, dwork, G);
    if (inv) memcpy(inv, G, dd * sizeof(ro_sgns_real));
    ro_sgns__times_upper(n, d, A, lda, G, W, d, ws);
    /* pass 2: R2^T R2 = W^T W, A = W R2^-1, once W is known to be nearly
       orthonormal: |W^T W - I|_F <= 1/2 (a NaN fails the test too; the
       upper triangle counts the entries off the diagonal twice) */
    ro_sgns__gram_upper(n, d, W, d, G, ws);
    for (i = 0; i < d; ++i)
        for (j = i; j < d; ++j) {
            double e = (double)G[i * d + j] - (i == j);
            off += (i == j ? 1 : 2) * e * e;
        }
    if (!(off <= 0.25) || !ro_sgns__cholesky_upper(d, G, R2)) goto done;
    ro_sgns__inverse_upper(d, R2, dwork, G);
    if (inv) memcpy(inv + dd, G, dd * sizeof(ro_sgns_real));
    ro_sgns__times_upper(n, d, W, d, G, A, lda, ws);
    /* R = R2 R1, by rows: row i = sum_{k >= i} (R2)_ik (row k of R1) */
    for (i = 0; i < d; ++i) {
        double *ri = dwork + i * d;
        for (j = 0; j < d; ++j) ri[j] = 0;
        for (k = i; k < d; ++k) {
            const double f = R2[i * d + k], *r1 = R1 + k * d;
            for (j = k; j < d; ++j) ri[j] += f * r1[j];
        }
        for (j = 0; j < d; ++j) R[i * ldr + j] = (ro_sgns_real)ri[j];
    }
    ok = 1;
done:
    ro_sgns__free(al, R1);
    ro_sgns__free(al, G);
    ro_sgns__free(al, ws);
    return ok;
}

/* The QR of the RO step (n >= d >= 1): CholeskyQR2 when it can vouch for
   its answer, else the Householder QR (ro_sgns_qr); out of memory is an
   error either way, never another path (the bits must not depend on
   what the allocator had). W: n x d scratch. With inv (2 d x d) not NULL,
   *have_inv says whether CholeskyQR2 made Q and left its inverses there. */
static ro_sgns_result ro_sgns__qr_step_inv(size_t n, size_t d, ro_sgns_real *A, ro_sgns_real *R,
                                           ro_sgns_real *W, ro_sgns_real *inv, int *have_inv,
                                           const ro_sgns_allocator *al, ro_sgns_error *err)
{
    int done = n >= d && d >= 1 ? ro_sgns__qr_chol2(n, d, A, d, R, d, W, inv, al) : 0;
    if (have_inv) *have_inv = done > 0 && inv;
    if (done > 0) return ro_sgns__ok(err);
    if (done < 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "qr: cannot allocate workspace for %lu x %lu", (unsigned long)n,
                             (unsigned long)d);
    return ro_sgns_qr(n, d, A, d, R, d, al, err);
}

static ro_sgns_result ro_sgns__qr_step(size_t n, size_t d, ro_sgns_real *A, ro_sgns_real *R,
                                       ro_sgns_real *W, const ro_sgns_allocator *al,
                                       ro_sgns_error *err)
{
    return ro_sgns__qr_step_inv(n, d, A, R, W, NULL, NULL, al, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_svd(size_t m, size_t n, const ro_sgns_real *A, size_t lda,
                                       ro_sgns_real *U, size_t ldu, ro_sgns_real *s,
                                       ro_sgns_real *V, size_t ldv,
                                       const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
#ifdef RO_SGNS_USE_LAPACKE
    ro_sgns_result res = ro_sgns__svd_check(m, n, A, lda, U, ldu, s, V, ldv, err);
    size_t r = ro_sgns__min(m, n), i, j;
    ro_sgns_real *a, *u, *vt;
    lapack_int info;
    const size_t lim = 0x7fffffff;
    if (res != RO_SGNS_OK) return res;
    if (m <= lim && n <= lim) {
        a = (ro_sgns_real *)ro_sgns__alloc_array(alloc, m, n, sizeof(ro_sgns_real));
        u = (ro_sgns_real *)ro_sgns__alloc_array(alloc, m, r, sizeof(ro_sgns_real));
        vt = (ro_sgns_real *)ro_sgns__alloc_array(alloc, r, n, sizeof(ro_sgns_real));
        if (!a || !u || !vt) {
            ro_sgns__free(alloc, a);
            ro_sgns__free(alloc, u);
            ro_sgns__free(alloc, vt);
            return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "svd: out of memory");
        }
        for (i = 0; i < m; ++i) memcpy(a + i * n, A + i * lda, n * sizeof(ro_sgns_real));
        if (RO_SGNS__IS_DOUBLE)
            info = LAPACKE_dgesdd(LAPACK_ROW_MAJOR, 'S', (lapack_int)m, (lapack_int)n,
                                  (double *)(void *)a, (lapack_int)n, (double *)(void *)s,
                                  (double *)(void *)u, (lapack_int)r, (double *)(void *)vt,
                                  (lapack_int)n);
        else
            info = LAPACKE_sgesdd(LAPACK_ROW_MAJOR, 'S', (lapack_int)m, (lapack_int)n,
                                  (float *)(void *)a, (lapack_int)n, (float *)(void *)s,
                                  (float *)(void *)u, (lapack_int)r, (float *)(void *)vt,
                                  (lapack_int)n);
        if (info == 0) {
            if (U)
                for (i = 0; i < m; ++i) memcpy(U + i * ldu, u + i * r, r * sizeof(ro_sgns_real));
            if (V)
                for (i = 0; i < n; ++i)
                    for (j = 0; j < r; ++j) V[i * ldv + j] = vt[j * n + i];
        }
        ro_sgns__free(alloc, a);
        ro_sgns__free(alloc, u);
        ro_sgns__free(alloc, vt);
        if (info != 0)
            return ro_sgns__fail(err, info < 0 ? RO_SGNS_ERR_OUT_OF_MEMORY
                                               : RO_SGNS_ERR_NOT_CONVERGED,
                                 "svd: LAPACKE ?gesdd returned %d", (int)info);
        /* as the builtin SVD: NUMERIC where sigma_1 is beyond the real type */
        if (!ro_sgns__is_finite((double)s[0]))
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                 "svd: the largest singular value overflows the real type");
        return ro_sgns__ok(err);
    }
#endif
    return ro_sgns_svd_builtin(m, n, A, lda, U, ldu, s, V, ldv, alloc, err);
}

/* ======================================================================
   II.3 The counts object and the problem, made ready for the sweeps

   The counts (ro_sgns_counts) are the CSR matrix of #(w,c) with its
   marginals and vocabulary: counted from a corpus (III.1), loaded from a
   file (III.3) or filled by the caller. Their vocabulary has a hash index
   (open addressing, a power-of-two table: O(1) lookups), their marginals
   and words a 64-bit fingerprint that checkpoints keep. Sparse matrices
   get their transpose and product here (the Krylov start's), and the
   problem of I.2 is built: the counts checked, B's factors made, the
   transposed counts for the sweeps over X^T (not stored when the counts
   are symmetric, as a fixed window makes them).
   Part I twin of ro_sgns_problem_create_csr: ro_sgns_problem_create_naive
   (I.2), the same B bit for bit (tests/test_ro.c, test_plain_vs_fast).
   ====================================================================== */

#define RO_SGNS__MAX_IDS 0xFFFFFFFDu /* ids must stay below the sentinels */

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

/* ---- hashing of word bytes (internal: table layout only) ----------------
   The bytes are read as little-endian 64-bit words, the last one padded
   with zeros, so the value does not depend on the host; ro_sgns__hash_fast
   gives the same value but may read up to 7 bytes past the end (it is used
   on the tokenizer's own padded buffer only). */

static uint64_t ro_sgns__le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
           (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
           (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static uint64_t ro_sgns__hash_mix(uint64_t h, uint64_t x)
{
    h = (h ^ x) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 29);
}

static uint64_t ro_sgns__hash_final(uint64_t h)
{
    h = (h ^ (h >> 32)) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

static uint64_t ro_sgns__hash_bytes(const unsigned char *p, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)len * 0xC2B2AE3D27D4EB4Full), x;
    size_t i;
    for (; len >= 8; p += 8, len -= 8) h = ro_sgns__hash_mix(h, ro_sgns__le64(p));
    if (len) {
        x = 0;
        for (i = 0; i < len; ++i) x |= (uint64_t)p[i] << (8 * i);
        h = ro_sgns__hash_mix(h, x);
    }
    return ro_sgns__hash_final(h);
}

RO_SGNS_DEF int64_t ro_sgns_vocab_find(const ro_sgns_vocab *v, const char *word, size_t len)
{
    size_t j;
    if (!v || !v->index_ || (!word && len)) return -1;
    j = (size_t)ro_sgns__hash_bytes((const unsigned char *)word, len) & v->index_mask_;
    while (v->index_[j]) {
        uint32_t o = v->index_[j] - 1;
        if (v->len[o] == len && (len == 0 || memcmp(v->word[o], word, len) == 0))
            return (int64_t)o; /* word may be NULL when len is 0: memcmp may not see it */
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

#if !defined(RO_SGNS_NO_COUNT) || !defined(RO_SGNS_NO_FILES) /* made by counting and loading */

/* ---- memory accounting --------------------------------------------------
   Every allocation of a counting run goes through these, so that in_use is
   what the run holds and a budget can be enforced; a realloc counts only
   the new size (docs/DESIGN.md, II.3). */

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
                         "bytes with %llu in use; counting needs at least %llu bytes (a "
                         "lower bound: what counting needs after this is not known yet)",
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
    c->row_begin = 0;
    c->row_end = 0;
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

#endif

#if !defined(RO_SGNS_NO_COUNT) || !defined(RO_SGNS_NO_SGD) /* the two readers of a corpus */

/* The length a token of len bytes keeps: at most RO_SGNS_MAX_WORD_BYTES.
   word[MAX] is then the first byte cut off; if it continues a UTF-8
   character (10xxxxxx), the cut moves back to that character's first
   byte, at most 3 bytes (the longest character is 4). */
static size_t ro_sgns__cut_token(const unsigned char *word, size_t len)
{
    int back = 0;
    if (len <= RO_SGNS_MAX_WORD_BYTES) return len;
    len = RO_SGNS_MAX_WORD_BYTES;
    while (back < 3 && (word[len] & 0xC0u) == 0x80u) {
        --len;
        ++back;
    }
    return len;
}

#endif

static uint64_t ro_sgns__f64_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u); /* the value's bits, not its bytes in memory */
    return u;
}

RO_SGNS_DEF uint64_t ro_sgns_counts_fingerprint(const ro_sgns_counts *c)
{
    uint64_t h;
    size_t i;
    if (ro_sgns__check_counts_arg(c, NULL) != RO_SGNS_OK || !c->word_count || !c->ctx_count ||
        !c->vocab.word || !c->vocab.len || !c->vocab.count)
        return 0;
    h = ro_sgns__hash_mix(0x726F5F73676E7366ull, (uint64_t)c->n);
    for (i = 0; i < c->n; ++i) {
        h = ro_sgns__hash_mix(h, ro_sgns__hash_bytes((const unsigned char *)c->vocab.word[i],
                                                     c->vocab.len[i]));
        h = ro_sgns__hash_mix(h, c->vocab.count[i]);
        h = ro_sgns__hash_mix(h, ro_sgns__f64_bits(c->word_count[i]));
        h = ro_sgns__hash_mix(h, ro_sgns__f64_bits(c->ctx_count[i]));
    }
    h = ro_sgns__hash_final(ro_sgns__hash_mix(h, ro_sgns__f64_bits(c->total)));
    return h ? h : 1;
}

/* Is the n x n CSR matrix (columns ascending in each row) equal to its
   transpose, pattern and values (compared bitwise, vsize bytes each)?
   O(nnz + n) time, O(n) memory, sequential reads: rows are visited in order
   and the entries (j, i), j < i, of row i must be exactly the next unmatched
   entries above the diagonal of rows j (a cursor per row). Returns 1 yes,
   0 no, -1 out of memory. */
static RO_SGNS__MAYBE_UNUSED int ro_sgns__csr_symmetric(size_t n, const uint64_t *row_ptr,
                                                        const uint32_t *col, const void *val,
                                                        size_t vsize,
                                                        const ro_sgns_allocator *al)
{
    const unsigned char *v = (const unsigned char *)val;
    uint64_t *cur = (uint64_t *)ro_sgns__alloc_array(al, n + 1, sizeof(uint64_t), 1);
    size_t i;
    int sym = 1;
    if (!cur) return -1;
    for (i = 0; i < n; ++i) { /* first entry strictly right of the diagonal */
        uint64_t e = row_ptr[i];
        while (e < row_ptr[i + 1] && col[e] <= i) ++e;
        cur[i] = e;
    }
    for (i = 0; i < n && sym; ++i) {
        uint64_t e;
        for (e = row_ptr[i]; e < row_ptr[i + 1] && col[e] < i; ++e) {
            size_t j = col[e];
            uint64_t c = cur[j];
            if (c >= row_ptr[j + 1] || col[c] != i ||
                memcmp(v + c * vsize, v + e * vsize, vsize) != 0) {
                sym = 0;
                break;
            }
            cur[j] = c + 1;
        }
    }
    for (i = 0; i < n && sym; ++i)
        if (cur[i] != row_ptr[i + 1]) sym = 0; /* an entry above with no mirror */
    ro_sgns__free(al, cur);
    return sym;
}

/* A^T of a checked A (ro_sgns_csr_transpose's work) */
static ro_sgns_result ro_sgns__csr_transpose(const ro_sgns_csr *A, ro_sgns_csr **out,
                                             const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns_csr *T = NULL;
    uint64_t *next;
    ro_sgns_result res = ro_sgns_csr_create(A->cols, A->rows, A->nnz, &T, alloc, err);
    if (res != RO_SGNS_OK) return res;
    next = (uint64_t *)ro_sgns__alloc_array(alloc, A->cols + 1, sizeof(uint64_t), 1);
    if (!next) {
        ro_sgns_csr_free(T);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "csr_transpose: out of memory");
    }
    ro_sgns__transpose_csr(A->rows, A->cols, A->row_ptr, A->col, A->val, sizeof(ro_sgns_real),
                           T->row_ptr, T->col, T->val, next);
    ro_sgns__free(alloc, next);
    *out = T;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_csr_transpose(const ro_sgns_csr *A, ro_sgns_csr **out,
                                                 const ro_sgns_allocator *alloc,
                                                 ro_sgns_error *err)
{
    ro_sgns_result res;
    if (!A || !out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "csr_transpose: NULL");
    res = ro_sgns__csr_check(A, "csr_transpose", err);
    if (res != RO_SGNS_OK) return res;
    return ro_sgns__csr_transpose(A, out, alloc, err);
}

/* Y = A X for a checked A (ro_sgns_csr_mm's work) */
static void ro_sgns__csr_mm(const ro_sgns_csr *A, size_t l, const ro_sgns_real *X, size_t ldx,
                            ro_sgns_real *Y, size_t ldy)
{
    long i;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) if (A->nnz * l > 1000000)
#endif
    for (i = 0; i < (long)A->rows; ++i) {
        ro_sgns_real *y = Y + (size_t)i * ldy;
        uint64_t k;
        size_t j;
        for (j = 0; j < l; ++j) y[j] = 0;
        for (k = A->row_ptr[i]; k < A->row_ptr[i + 1]; ++k) {
            const ro_sgns_real a = A->val[k], *x = X + (size_t)A->col[k] * ldx;
#if defined(__GNUC__) || defined(__clang__)
            /* the rows of X are read in random order: ask for the one 8
               entries ahead (memory latency, not bandwidth, is the limit) */
            if (k + 8 < A->row_ptr[i + 1]) {
                const char *ahead = (const char *)(X + (size_t)A->col[k + 8] * ldx);
                size_t bytes = l * sizeof(ro_sgns_real), off;
                for (off = 0; off < bytes; off += 64) __builtin_prefetch(ahead + off);
            }
#endif
            for (j = 0; j < l; ++j) y[j] += a * x[j];
        }
    }
}

RO_SGNS_DEF ro_sgns_result ro_sgns_csr_mm(const ro_sgns_csr *A, size_t l,
                                          const ro_sgns_real *X, size_t ldx, ro_sgns_real *Y,
                                          size_t ldy, ro_sgns_error *err)
{
    ro_sgns_result res;
    if (!A || !X || !Y || ldx < l || ldy < l)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "csr_mm: bad arguments");
    res = ro_sgns__csr_check(A, "csr_mm", err);
    if (res != RO_SGNS_OK) return res;
    ro_sgns__csr_mm(A, l, X, ldx, Y, ldy);
    return ro_sgns__ok(err);
}

/* The held rows' transpose (m x rows, columns = local row numbers,
   ascending) into owned arrays, by the counting sort of I.2. */
static ro_sgns_result ro_sgns__problem_transpose(ro_sgns_problem *p, ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(p);
    const ro_sgns__side *f = &p->fwd;
    size_t m = p->m;
    uint64_t nnz = f->row_ptr[f->rows] - f->row_ptr[0], *next;
    p->t_row_ptr = (uint64_t *)ro_sgns__alloc_array(al, m + 1, sizeof(uint64_t), 1);
    p->t_col = (uint32_t *)ro_sgns__alloc_array(al, (size_t)nnz, sizeof(uint32_t), 1);
    p->t_val = (float *)ro_sgns__alloc_array(al, (size_t)nnz, sizeof(float), 1);
    next = (uint64_t *)ro_sgns__alloc_array(al, m + 1, sizeof(uint64_t), 1);
    if (!p->t_row_ptr || !p->t_col || !p->t_val || !next) {
        ro_sgns__free(al, next);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "problem: cannot allocate the transposed counts (%.0f pairs)",
                             (double)nnz);
    }
    ro_sgns__transpose_csr(f->rows, m, f->row_ptr, f->col, f->val, sizeof(float), p->t_row_ptr,
                           p->t_col, p->t_val, next);
    ro_sgns__free(al, next);
    p->bwd.row_ptr = p->t_row_ptr;
    p->bwd.col = p->t_col;
    p->bwd.val = p->t_val;
    return ro_sgns__ok(err);
}

/* The backward side of a whole problem whose forward counts are in
   place: the transpose, not stored when the counts are symmetric (fixed
   windows make them so). */
static ro_sgns_result ro_sgns__problem_bwd(ro_sgns_problem *p, ro_sgns_error *err)
{
    const ro_sgns__side *f = &p->fwd;
    if (p->n == p->m && ro_sgns__csr_symmetric(p->n, f->row_ptr, f->col, f->val, sizeof(float),
                                               ro_sgns__problem_alloc(p)) == 1) {
        p->bwd.row_ptr = f->row_ptr;
        p->bwd.col = f->col;
        p->bwd.val = f->val;
        return RO_SGNS_OK;
    }
    return ro_sgns__problem_transpose(p, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_csr(size_t n, size_t m,
                                                      const uint64_t *row_ptr,
                                                      const uint32_t *col, const float *val,
                                                      double k, double cds,
                                                      ro_sgns_problem **out,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    ro_sgns_problem *p;
    size_t i;
    uint64_t e, nnz;
    double *sums, total = 0;
    ro_sgns_result res;
    if (!row_ptr || !out || !(k > 0) || !ro_sgns__is_finite(k) || !(cds > 0) ||
        !ro_sgns__is_finite(cds) || n == 0 || m == 0 || m > 0xFFFFFFFFu || n > 0xFFFFFFFFu)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "problem: need a non-empty n x m count matrix, k > 0 and cds > 0 "
                             "(k = %g, cds = %g)",
                             k, cds);
    res = ro_sgns__check_rows("problem", n, row_ptr, col, val, err);
    if (res != RO_SGNS_OK) return res;
    nnz = row_ptr[n];
    for (e = row_ptr[0]; e < nnz; ++e)
        if (col[e] >= m || !(val[e] > 0) || !ro_sgns__is_finite(val[e]))
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "problem: entry %.0f has column %lu (m = %lu) or value %g",
                                 (double)e, (unsigned long)col[e], (unsigned long)m,
                                 (double)val[e]);
    p = ro_sgns__problem_new(n, m, 0, n, k, cds, alloc);
    sums = (double *)ro_sgns__alloc_array(alloc, n + m, sizeof(double), 1);
    if (!p || !sums) {
        ro_sgns__free(alloc, sums);
        ro_sgns_problem_free(p);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "problem: out of memory");
    }
    /* the marginals as the paper defines them: #(w) row sums, #(c) column
       sums, |D| the sum of all */
    for (i = 0; i < m; ++i) sums[n + i] = 0;
    ro_sgns__row_col_sums(n, row_ptr, col, val, sums, sums + n);
    for (i = 0; i < n; ++i) total += sums[i];
    res = total > 0 ? ro_sgns__problem_factors(p, sums, sums + n, total, err)
                    : ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "problem: the counts are all zero");
    ro_sgns__free(alloc, sums);
    p->fwd.row_ptr = row_ptr;
    p->fwd.col = col;
    p->fwd.val = val;
    ro_sgns__problem_sides(p);
    if (res == RO_SGNS_OK) res = ro_sgns__problem_bwd(p, err);
    if (res != RO_SGNS_OK) {
        ro_sgns_problem_free(p);
        return res;
    }
    *out = p;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create(const ro_sgns_counts *c, double k,
                                                  double cds, ro_sgns_problem **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    ro_sgns_result res = ro_sgns__check_counts_arg(c, err);
    if (res != RO_SGNS_OK) return res;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "problem: out is NULL");
    if (ro_sgns__counts_ranged(c)) /* a row range: a shard, with the global #(c) and |D| */
#ifndef RO_SGNS_NO_SHARDS
    {
        const ro_sgns_shard_spec sp = {c->n,   c->n,   c->row_begin, c->row_end, c->row_ptr,
                                       c->col, c->val, c->ctx_count, c->total,   k, cds};
        res = ro_sgns_problem_create_shard(&sp, out, alloc, err);
    }
#else
        res = ro_sgns__fail(err, RO_SGNS_ERR_UNSUPPORTED,
                            "problem: counts of rows %lu..%lu make a shard, which this build "
                            "leaves out (RO_SGNS_NO_SHARDS)",
                            (unsigned long)c->row_begin, (unsigned long)c->row_end);
#endif
    else
        res = ro_sgns_problem_create_csr(c->n, c->n, c->row_ptr, c->col, c->val, k, cds, out, alloc,
                                         err);
    if (res == RO_SGNS_OK) {
        (*out)->fingerprint = ro_sgns_counts_fingerprint(c);
        (*out)->window = c->config.window;
    }
    return res;
}

/* ======================================================================
   II.4 The layer under the step: sums and QRs over row shards

   No Part I twin: on one machine it is ro_sgns_qr; over P shards it is
   checked against the one-machine run in the repository's tests/test_ro.c
   (test_shards, test_shards_fused) and tests/test_sppmi.c
   (test_tsvd_shards).
   On one machine (comm NULL) this layer is a plain QR and nothing else;
   it sits under the step so that the same step (II.6) and the same start
   (II.7) run on P processes, each holding a shard: rows [r0, r1) of the
   counts and of U, all of S and V, exchanging only thin matrices. The
   step's three exchanges on shard s (in brackets what each shard sends):
     QR(M V)    A_s = U_s S + lambda (D V)_s = Q_s R_s locally; allgather
                R_s; [R_1; ..; R_P] = Q' R; U'_s = Q_s Q'_s (TSQR)   (d^2)
     M^T U'     V S^T (U_s^T U'_s) + lambda D_s^T U'_s and U_s^T U'_s,
                summed; fused, D_s^T U'_s = G_s R^-1 (no exchange)  ((m + d) d)
     F          each shard's part of F, summed                       (1)
   The start's exchanges (ro_sgns_sppmi_rows, ro_sgns_tsvd_shard) are of
   the same kinds: A^T Q_i, Q^T Y and the column norms summed, each block
   orthogonalized by TSQR, V = A^T U summed; nothing of size n per shard.
   Before each exchange the shards agree on their results (ro_sgns__agree:
   one sum, a count per error code), so an error on one shard -- out of
   memory, a NaN -- reaches all of them at the same point and every shard
   returns the same code (the lowest-numbered of those seen, in the order
   of ro_sgns_result); only a failing transport (RO_SGNS_ERR_IO) leaves the
   others waiting. Each sum runs in shard order and everything done on
   every shard alike is the same arithmetic on the same bits, so a run
   repeats bit for bit for a given P, whatever the transport's algorithms;
   a different P changes the order of sums and so the last bits.
   Invariants: U'_s stacked is orthonormal; S, V, lambda, the iteration
   and every decision of the safeguard are the same on every shard.
   Why shards, flops, messages and memory: docs/DESIGN.md, II.4.
   ====================================================================== */

/* The shards agree on res (see the banner); v (may be NULL) is summed
   along, 0 from a shard that failed. With comm NULL: res as it is. */
static ro_sgns_result ro_sgns__agree(const ro_sgns_comm *c, ro_sgns_result res, double *v,
                                     ro_sgns_error *err)
{
    double buf[1 + RO_SGNS__N_ERRORS]; /* v, then one count per error code */
    int j;
    if (!c) return res;
    memset(buf, 0, sizeof buf);
    buf[0] = v && res == RO_SGNS_OK ? *v : 0;
    if (res < 0 && res >= RO_SGNS__ERR_LAST) buf[-res] = 1;
    if (c->sum_double(c->user, buf, sizeof buf / sizeof buf[0]) != 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "shards: the transport failed (sum)");
    if (v) *v = buf[0];
    for (j = 1; j <= RO_SGNS__N_ERRORS; ++j)
        if (buf[j] != 0) break;
    if (j > RO_SGNS__N_ERRORS) return res;
    if ((ro_sgns_result)-j != res)
        ro_sgns__fail(err, (ro_sgns_result)-j, "shards: %s on %.0f other shard(s)",
                      ro_sgns_result_string((ro_sgns_result)-j), buf[j]);
    return (ro_sgns_result)-j;
}

static ro_sgns_result ro_sgns__sum_shards_double(const ro_sgns_comm *comm, ro_sgns_result res,
                                                 double *v, ro_sgns_error *err)
{
    return ro_sgns__agree(comm, res, v, err);
}

static ro_sgns_result ro_sgns__sum_shards(const ro_sgns_comm *comm, ro_sgns_result res,
                                          ro_sgns_real *buf, size_t count, ro_sgns_error *err)
{
    res = ro_sgns__agree(comm, res, NULL, err);
    if (res == RO_SGNS_OK && comm && comm->sum(comm->user, buf, count) != 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "shards: the transport failed (sum)");
    return res;
}

#ifndef RO_SGNS_NO_TSVD /* the truncated SVD's sums (II.7) */
/* The sum of a rows x cols block with leading dimension ld: packed to ld =
   cols in place for the transport (one call), then spread back. */
static ro_sgns_result ro_sgns__sum_shards_ld(const ro_sgns_comm *comm, ro_sgns_result res,
                                             ro_sgns_real *buf, size_t rows, size_t cols,
                                             size_t ld, ro_sgns_error *err)
{
    size_t i;
    if (!comm || ld == cols || rows == 0) return ro_sgns__sum_shards(comm, res, buf, rows * cols, err);
    for (i = 1; i < rows; ++i) memmove(buf + i * cols, buf + i * ld, cols * sizeof *buf);
    res = ro_sgns__sum_shards(comm, res, buf, rows * cols, err);
    for (i = rows - 1; i > 0; --i) memmove(buf + i * ld, buf + i * cols, cols * sizeof *buf);
    return res;
}

/* The agreement on res, then (count > 0) the sum of count doubles. */
static ro_sgns_result ro_sgns__sum_shards_doubles(const ro_sgns_comm *comm, ro_sgns_result res,
                                                  double *buf, size_t count, ro_sgns_error *err)
{
    res = ro_sgns__agree(comm, res, NULL, err);
    if (res == RO_SGNS_OK && comm && count > 0 && comm->sum_double(comm->user, buf, count) != 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "shards: the transport failed (sum)");
    return res;
}
#endif /* RO_SGNS_NO_TSVD */

/* The tall-skinny QR's two small steps. Combine: the P stacked d x d R
   factors Rs (P d x d) -> their R (d x d), and Rs becomes the QR's Q, one
   d x d block per shard. Apply: a shard's local Q (rows x d, leading
   dimension ldq) times its block Qs, in place, 256 rows at a time (Q
   untouched on failure: all workspace is taken first). */
static ro_sgns_result ro_sgns__tsqr_combine(size_t P, size_t d, ro_sgns_real *Rs,
                                            ro_sgns_real *R, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err)
{
    int of = 0;
    size_t rows = ro_sgns__mul(P, d, &of);
    (void)ro_sgns__mul(rows, d, &of);
    if (of) return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "tsqr: P d x d overflows");
    return ro_sgns_qr(rows, d, Rs, d, R, d, alloc, err);
}

static ro_sgns_result ro_sgns__tsqr_apply(size_t rows, size_t d, ro_sgns_real *Q, size_t ldq,
                                          const ro_sgns_real *Qs,
                                          const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    const size_t blk = 256; /* rows at a time: workspace blk x d */
    ro_sgns_real *T, *ws;
    size_t i0, ws_elems;
    int of = 0;
    if (rows == 0) return ro_sgns__ok(err);
    T = (ro_sgns_real *)ro_sgns__alloc_array(alloc, ro_sgns__min(rows, blk), d,
                                             sizeof(ro_sgns_real));
    ws_elems = ro_sgns__gemm_ws_elems(d, ro_sgns__num_threads(), &of);
    ws = (ro_sgns_real *)ro_sgns__alloc_array(alloc, ws_elems, 1, sizeof(ro_sgns_real));
    if (!T || !ws || of) {
        ro_sgns__free(alloc, T);
        ro_sgns__free(alloc, ws);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "tsqr: out of memory");
    }
    for (i0 = 0; i0 < rows; i0 += blk) {
        size_t b = ro_sgns__min(blk, rows - i0), i;
        ro_sgns__gemm_taken(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, b, d, d, 1, Q + i0 * ldq, ldq, Qs,
                            d, 0, T, d, ws);
        if (ldq == d)
            memcpy(Q + i0 * d, T, b * d * sizeof(ro_sgns_real));
        else
            for (i = 0; i < b; ++i)
                memcpy(Q + (i0 + i) * ldq, T + i * d, d * sizeof(ro_sgns_real));
    }
    ro_sgns__free(alloc, T);
    ro_sgns__free(alloc, ws);
    return ro_sgns__ok(err);
}

/* QR of the n x d matrix A (leading dimension lda) whose rows are spread
   over the shards (n rows here): A = Q R with Q in place of A (this
   shard's rows) and R (d x d) the same on every shard. One machine:
   ro_sgns_qr. */
static ro_sgns_result ro_sgns__qr_rows_ld(const ro_sgns_comm *comm, ro_sgns_result res, size_t n,
                                          size_t d, ro_sgns_real *A, size_t lda, ro_sgns_real *R,
                                          const ro_sgns_allocator *al, ro_sgns_error *err)
{
    ro_sgns_real *Rs;
    size_t dd = d * d, P;
    if (res != RO_SGNS_OK) return ro_sgns__agree(comm, res, NULL, err);
    if (!comm) return ro_sgns_qr(n, d, A, lda, R, d, al, err);
    P = (size_t)comm->size;
    Rs = (ro_sgns_real *)ro_sgns__alloc_array(al, P * d, d, sizeof(ro_sgns_real));
    res = Rs ? ro_sgns_qr(n, d, A, lda, R, d, al, err)
             : ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "tsqr: out of memory");
    res = ro_sgns__agree(comm, res, NULL, err);
    if (res == RO_SGNS_OK && comm->allgather(comm->user, R, dd, Rs) != 0)
        res = ro_sgns__fail(err, RO_SGNS_ERR_IO, "shards: the transport failed (allgather)");
    if (res == RO_SGNS_OK) res = ro_sgns__tsqr_combine(P, d, Rs, R, al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns__tsqr_apply(n, d, A, lda, Rs + (size_t)comm->rank * dd, al, err);
    ro_sgns__free(al, Rs);
    return res;
}

/* An estimate of the 2-norm condition number of R (d x d upper, in
   double), given Ri = R^-1: the largest singular values of R and of R^-1,
   each by 30 steps of the power method on x -> R^T R x from x = (1, ...,
   1). Each is a lower bound, close after a few steps (in value, if not in
   the vector); ws: 2 d doubles. NaN or Inf anywhere gives Inf. */
static double ro_sgns__cond_upper(size_t d, const double *R, const double *Ri, double *ws)
{
    double s[2], *x = ws, *y = ws + d;
    size_t i, j, q;
    int it;
    for (q = 0; q < 2; ++q) {
        const double *T = q ? Ri : R;
        double nx = (double)d, ny = 0;
        for (i = 0; i < d; ++i) x[i] = 1;
        for (it = 0; it < 30; ++it) { /* y = T x, then x = T^T y normalized */
            for (i = 0; i < d; ++i) {
                double a = 0;
                for (j = i; j < d; ++j) a += T[i * d + j] * x[j];
                y[i] = a;
            }
            ny = 0;
            for (i = 0; i < d; ++i) ny += y[i] * y[i];
            ny /= nx; /* |T x|^2 / |x|^2 <= sigma_max^2 */
            for (j = 0; j < d; ++j) x[j] = 0;
            for (i = 0; i < d; ++i)
                for (j = i; j < d; ++j) x[j] += T[i * d + j] * y[i];
            nx = 0;
            for (i = 0; i < d; ++i) nx += x[i] * x[i];
            if (!(nx > 0) || !(nx < HUGE_VAL)) break;
            nx = sqrt(nx);
            for (i = 0; i < d; ++i) x[i] /= nx;
            nx = 1;
        }
        if (!(ny < HUGE_VAL)) return HUGE_VAL; /* NaN too */
        s[q] = sqrt(ny);
    }
    return s[0] * s[1];
}

/* The step's QR of M V (n x d here), with the inverses the fused step
   needs (II.6; inv NULL: the QR only, *n_inv = 0). One machine:
   ro_sgns__qr_step_inv, and *n_inv = 2 when CholeskyQR2 left R1^-1 and
   R2^-1 in inv. On shards the QR is TSQR, whose Q is M V R^-1 too (to
   rounding): inv receives R^-1 and *n_inv = 1, and the shards' parts of
   D^T U' are their D^T M V times R^-1, when R's condition (estimated,
   ro_sgns__cond_upper) is at most 1/sqrt(eps), below which CholeskyQR2
   vouches for M V on one machine; above it, or with a zero on R's
   diagonal, *n_inv = 0 and the step sweeps X^T. R has the same bits on
   every shard, and so has the choice. Rd: 2 d x d + 2 d doubles. */
static ro_sgns_result ro_sgns__qr_rows_inv(const ro_sgns_comm *comm, ro_sgns_result res,
                                           size_t n, size_t d, ro_sgns_real *A, ro_sgns_real *R,
                                           ro_sgns_real *W, ro_sgns_real *inv, double *Rd,
                                           int *n_inv, const ro_sgns_allocator *al,
                                           ro_sgns_error *err)
{
    const double eps = RO_SGNS__IS_DOUBLE ? DBL_EPSILON : (double)FLT_EPSILON;
    size_t i, dd = d * d;
    int have = 0;
    *n_inv = 0;
    if (!comm) {
        if (res != RO_SGNS_OK) return res;
        res = ro_sgns__qr_step_inv(n, d, A, R, W, inv, &have, al, err);
        *n_inv = have ? 2 : 0;
        return res;
    }
    res = ro_sgns__qr_rows_ld(comm, res, n, d, A, d, R, al, err);
    if (res != RO_SGNS_OK || !inv) return res;
    for (i = 0; i < dd; ++i) Rd[i] = (double)R[i];
    for (i = 0; i < d; ++i)
        if (!(Rd[i * d + i] != 0)) return res;
    ro_sgns__inverse_upper(d, Rd, Rd + dd, inv); /* Rd + dd: R^-1 in double */
    if (ro_sgns__cond_upper(d, Rd, Rd + dd, Rd + 2 * dd) * sqrt(eps) <= 1) *n_inv = 1;
    return res;
}

/* ======================================================================
   II.5 The sweep: F and D(X) P block by block, never storing X
        [paper 2.2 eq. 4, 3.2]

   Part I twins: ro_sgns__sgns_entry (I.1), entry by entry, and
   ro_sgns_objective_naive (I.3); compared in the repository's
   tests/test_ro.c (test_objective_and_gradient, test_step_vs_naive).

   What: F(X) and the products of its gradient with a thin factor, for X
   given by factors (X = L R^T with L = U S, R = V). X, grad F and
   M = X + lambda grad F are dense n x m, but every use of them is a
   product with an n x d or m x d matrix, so a block of BR rows is formed,
   used and forgotten:
       for each block of BR rows, for each tile of CB columns:
           T    = L_b R_c^T                    (GEMM, BR x CB x d)
           F   += sum of f_wc(T)                (elementwise, dense + sparse)
           T    = D(T)                          (gradient or scaled direction)
           Out_b += T P_c                       (GEMM, BR x d x CB)
   The dense part of the direction, -B_wc s(x_wc) (or -s(x_wc)), and the
   dense part of F, B_wc log s(-x_wc), cover every entry; the counts add
   #(w,c) s(-x) (or #(w,c)/B_wc s(-x)) and #(w,c) log s(x) on their nonzero
   pattern only. B_wc = rowfac[w] * colfac[c] is rank one (II.0).
   Determinism: blocks are independent (each owns its rows of Out and its
   partial F); partial sums are added in block order after the loop.
   The code, from the top: ro_sgns__sweep (what to compute: a
   ro_sgns__sweep_args; sizes and memory; the sum of F) -> the walk over
   blocks of rows (ro_sgns__sweep_walk: threads, schedule) -> a block
   (ro_sgns__sweep_block; fused, ro_sgns__fuse_y and ro_sgns__fuse_dty) ->
   a tile (ro_sgns__sweep_tile: the two GEMMs) -> a row of it
   (ro_sgns__grad_row: the gradient and F) -> the elementwise loops below.
   Numerics: s and log s come from e = exp(-|x|) <= 1 only, so nothing
   overflows; exp and log1p are branch-free polynomials, accurate to a few
   ulp of ro_sgns_real (tests/test_ro.c checks at most 4 against libm).
   GCC compiles the functions from here to the end of ro_sgns__inverse_b
   with options of their own (not under RO_SGNS_NO_SIMD): -fno-trapping-math
   (the library never enables an FP trap), -ftree-vectorize,
   -ffp-contract=fast (the bits differ between targets with and without
   FMA, never between the vector and scalar code of one build or with the
   thread count) and, for AVX-512, prefer-vector-width=512. Why each, the
   tile's size, cost and memory: docs/DESIGN.md, II.5.
   ====================================================================== */

#if defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 4)) && \
    !defined(__clang__) && !defined(__INTEL_COMPILER) && !defined(RO_SGNS_NO_SIMD)
/* GCC 4.4 added push_options (pcc says it is GCC 4.3, and warns) */
#pragma GCC push_options
#pragma GCC optimize("no-trapping-math", "tree-vectorize", "vect-cost-model=dynamic", \
                     "fp-contract=fast")
#if defined(__AVX512F__) && __GNUC__ >= 8 /* GCC 8 added the option */
#pragma GCC target("prefer-vector-width=512")
#endif
#define RO_SGNS__POP_OPTIONS
#endif

/* exp(x) for x <= 0, branch-free: x = k ln2 + r, |r| <= ln2/2, by the
   "shifter" trick (adding 1.5 * 2^mantissa_bits rounds x/ln2 to an integer
   k held in the low bits), a Taylor polynomial for e^r, and 2^k built from
   k's bits. Clamped below at the smallest normal power of two. The
   polynomials here are evaluated by Estrin's scheme, the leading 1 + r
   added last as Horner's scheme does, which keeps Horner's error (why
   Estrin: docs/DESIGN.md, II.5). */
static RO_SGNS__INLINE float ro_sgns__expf_neg(float x)
{
    const float shifter = 12582912.0f; /* 1.5 * 2^23 */
    float xc = x < -87.0f ? -87.0f : x, t = xc * 1.44269504f + shifter, kf = t - shifter;
    float r = xc - kf * 0.693145751953125f - kf * 1.428606820e-6f, p, s;
    uint32_t u;
    {
        float r2 = r * r, r4 = r2 * r2;
        float q01 = 0.5f + r * (1.0f / 6), q23 = 1.0f / 24 + r * (1.0f / 120);
        /* 1 + r + r^2 q(r), the leading terms added last for accuracy */
        p = 1.0f + (r + r2 * ((q01 + r2 * q23) + r4 * (1.0f / 720)));
    }
    memcpy(&u, &t, sizeof u);
    u = (u << 23) + 0x3F800000u;
    memcpy(&s, &u, sizeof s);
    return p * s;
}

static RO_SGNS__INLINE double ro_sgns__exp_neg(double x)
{
    const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
    double xc = x < -708.0 ? -708.0 : x, t = xc * 1.4426950408889634 + shifter, kf = t - shifter;
    double r = xc - kf * 6.93147180369123816490e-01 - kf * 1.90821492927058770002e-10, p, s;
    double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    uint64_t u;
    /* sum of r^i / i! for i = 0..12 */
    double q01 = 0.5 + r * (1.0 / 6), q23 = 1.0 / 24 + r * (1.0 / 120);
    double q45 = 1.0 / 720 + r * (1.0 / 5040), q67 = 1.0 / 40320 + r * (1.0 / 362880);
    double q89 = 1.0 / 3628800 + r * (1.0 / 39916800);
    double q03 = q01 + r2 * q23, q47 = q45 + r2 * q67, q8a = q89 + r2 * (1.0 / 479001600);
    p = 1.0 + (r + r2 * ((q03 + r4 * q47) + r8 * q8a));
    memcpy(&u, &t, sizeof u);
    u = (u << 52) + 0x3FF0000000000000ull;
    memcpy(&s, &u, sizeof s);
    return p * s;
}

/* log(1 + e) for 0 <= e <= 1: with s = e / (2 + e) in [0, 1/3],
   log(1 + e) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...). */
static RO_SGNS__INLINE float ro_sgns__log1pf_unit(float e)
{
    float s = e / (2.0f + e), z = s * s, z2 = z * z, z4 = z2 * z2;
    /* 1 + z q(z), q = sum of z^i / (2i + 3) for i = 0..6 */
    float q = ((1.0f / 3 + z * (1.0f / 5)) + z2 * (1.0f / 7 + z * (1.0f / 9))) +
              z4 * ((1.0f / 11 + z * (1.0f / 13)) + z2 * (1.0f / 15));
    return 2.0f * s * (1.0f + z * q);
}

static RO_SGNS__INLINE double ro_sgns__log1p_unit(double e)
{
    double s = e / (2.0 + e), z = s * s, z2 = z * z, z4 = z2 * z2, z8 = z4 * z4, z16 = z8 * z8;
    /* 1 + z q(z), q = sum of z^i / (2i + 3) for i = 0..16: pairs, then
       quads, ... */
    double q0 = 1.0 / 3 + z * (1.0 / 5), q1 = 1.0 / 7 + z * (1.0 / 9);
    double q2 = 1.0 / 11 + z * (1.0 / 13), q3 = 1.0 / 15 + z * (1.0 / 17);
    double q4 = 1.0 / 19 + z * (1.0 / 21), q5 = 1.0 / 23 + z * (1.0 / 25);
    double q6 = 1.0 / 27 + z * (1.0 / 29), q7 = 1.0 / 31 + z * (1.0 / 33);
    double o0 = (q0 + z2 * q1) + z4 * (q2 + z2 * q3), o1 = (q4 + z2 * q5) + z4 * (q6 + z2 * q7);
    return 2.0 * s * (1.0 + z * ((o0 + z8 * o1) + z16 * (1.0 / 35)));
}

/* The two in the build's precision. */
static RO_SGNS__INLINE ro_sgns_real ro_sgns__expr_neg(ro_sgns_real x)
{
    return RO_SGNS__IS_DOUBLE ? (ro_sgns_real)ro_sgns__exp_neg((double)x)
                              : (ro_sgns_real)ro_sgns__expf_neg((float)x);
}
static RO_SGNS__INLINE ro_sgns_real ro_sgns__log1pr_unit(ro_sgns_real e)
{
    return RO_SGNS__IS_DOUBLE ? (ro_sgns_real)ro_sgns__log1p_unit((double)e)
                              : (ro_sgns_real)ro_sgns__log1pf_unit((float)e);
}

/* F's terms are summed in double into 32 lanes that a block of rows keeps
   (acc), in a fixed order the compiler can vectorize without
   reassociating: 32 values at a time (four chains of 8-lane additions),
   then 8 at a time into lanes 0-7, then one at a time into lanes 0-7; the
   lanes are added up once, at the end of the block. */
static void ro_sgns__sum_into(double *RO_SGNS__RESTRICT acc, const ro_sgns_real *RO_SGNS__RESTRICT v,
                              size_t n)
{
    size_t j = 0, q;
    for (; j + 32 <= n; j += 32)
        for (q = 0; q < 32; ++q) acc[q] += (double)v[j + q];
    for (; j + 8 <= n; j += 8)
        for (q = 0; q < 8; ++q) acc[q] += (double)v[j + q];
    for (q = 0; j < n; ++j, ++q) acc[q] += (double)v[j];
}

static double ro_sgns__sum_lanes(const double *acc)
{
    double s[8];
    size_t q;
    for (q = 0; q < 8; ++q) s[q] = (acc[q] + acc[q + 8]) + (acc[q + 16] + acc[q + 24]);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* -|x| by setting the sign bit (one vector OR). The exponentials come out
   the same for every x (-0 and +0 both give 1, a NaN stays a NaN). */
static RO_SGNS__INLINE ro_sgns_real ro_sgns__neg_abs(ro_sgns_real x)
{
    if (RO_SGNS__IS_DOUBLE) {
        double v = (double)x;
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        u |= (uint64_t)1 << 63;
        memcpy(&v, &u, sizeof v);
        return (ro_sgns_real)v;
    } else {
        float v = (float)x;
        uint32_t u;
        memcpy(&u, &v, sizeof u);
        u |= (uint32_t)1 << 31;
        memcpy(&v, &u, sizeof v);
        return (ro_sgns_real)v;
    }
}

/* The exponentials of one row of a tile: es[j] = exp(-|x_j|), x = t, a
   loop of its own; the counts' terms of the row read them too. */
static void ro_sgns__row_exp(const ro_sgns_real *RO_SGNS__RESTRICT t, size_t cb,
                             ro_sgns_real *RO_SGNS__RESTRICT es)
{
    size_t j;
    for (j = 0; j < cb; ++j) es[j] = ro_sgns__expr_neg(ro_sgns__neg_abs(t[j]));
}

/* The dense part of one row of a tile, in place, es[j] = exp(-|t[j]|) from
   ro_sgns__row_exp: x -> -c_j s(x), with c_j = B_wc (plain) or 1 (scaled);
   when f is given, f[j] = B_wc log s(-x). B_wc = rf * cf[j]. */
static void ro_sgns__dense_rest(ro_sgns_real *RO_SGNS__RESTRICT t, size_t cb,
                                const ro_sgns_real *RO_SGNS__RESTRICT cf, ro_sgns_real rf,
                                ro_sgns_real plain, ro_sgns_real *RO_SGNS__RESTRICT f,
                                const ro_sgns_real *RO_SGNS__RESTRICT es)
{
    size_t j;
    if (f) {
        for (j = 0; j < cb; ++j) {
            ro_sgns_real x = t[j], e = es[j];
            ro_sgns_real r = 1 / (1 + e), sp = x >= 0 ? r : e * r, B = rf * cf[j];
            f[j] = -B * ((x > 0 ? x : 0) + ro_sgns__log1pr_unit(e));
            t[j] = -(plain * B + (1 - plain)) * sp;
        }
    } else {
        for (j = 0; j < cb; ++j) {
            ro_sgns_real x = t[j], e = es[j];
            ro_sgns_real r = 1 / (1 + e), sp = x >= 0 ? r : e * r;
            t[j] = -(plain * rf * cf[j] + (1 - plain)) * sp;
        }
    }
}

/* The counts' part of nk entries of a row: x = xs[q], e = exp(-|x|) = ex[q]
   (gathered from the row's ro_sgns__row_exp), a = #(w,c) = as[q],
   delta[q] = a s(-x) bs[q] (bs = 1 plain, 1 / B_wc scaled); when f is
   given, f[q] = a log s(x). Same numerics as the dense part. */
static void ro_sgns__sparse_terms(size_t nk, const ro_sgns_real *RO_SGNS__RESTRICT xs,
                                  const ro_sgns_real *RO_SGNS__RESTRICT ex,
                                  const ro_sgns_real *RO_SGNS__RESTRICT as,
                                  const ro_sgns_real *RO_SGNS__RESTRICT bs,
                                  ro_sgns_real *RO_SGNS__RESTRICT delta,
                                  ro_sgns_real *RO_SGNS__RESTRICT f)
{
    size_t q;
    for (q = 0; q < nk; ++q) {
        ro_sgns_real x = xs[q], e = ex[q];
        ro_sgns_real r = 1 / (1 + e), smx = x >= 0 ? e * r : r;
        if (f) f[q] = -as[q] * ((x < 0 ? -x : 0) + ro_sgns__log1pr_unit(e));
        delta[q] = as[q] * bs[q] * smx;
    }
}

/* b[q] = 1 / (rf b[q]), in double as the dense reference computes B_wc. */
static void ro_sgns__inverse_b(size_t nk, double rf, ro_sgns_real *RO_SGNS__RESTRICT b)
{
    size_t q;
    for (q = 0; q < nk; ++q) b[q] = (ro_sgns_real)(1.0 / (rf * (double)b[q]));
}

#ifndef RO_SGNS_NO_FOLD
/* The fold's line search (II.9), one row at y = x + alpha dl: the dense
   part's terms of phi'(alpha) and -phi''(alpha), d1[j] = -B_j s(y) dl_j
   and d2[j] = B_j s(y) s(-y) dl_j^2, B_j = rf * cf[j], for summing. */
static void ro_sgns__line_terms(const ro_sgns_real *RO_SGNS__RESTRICT x,
                                const ro_sgns_real *RO_SGNS__RESTRICT dl, size_t cb,
                                ro_sgns_real alpha, const ro_sgns_real *RO_SGNS__RESTRICT cf,
                                ro_sgns_real rf, ro_sgns_real *RO_SGNS__RESTRICT d1,
                                ro_sgns_real *RO_SGNS__RESTRICT d2)
{
    size_t j;
    for (j = 0; j < cb; ++j) {
        ro_sgns_real y = x[j] + alpha * dl[j], e = ro_sgns__expr_neg(ro_sgns__neg_abs(y));
        ro_sgns_real r = 1 / (1 + e), sp = y >= 0 ? r : e * r, b = rf * cf[j] * dl[j];
        d1[j] = -b * sp;
        d2[j] = b * dl[j] * (sp * (1 - sp));
    }
}
#endif /* RO_SGNS_NO_FOLD */

#ifdef RO_SGNS__POP_OPTIONS
#pragma GCC pop_options
#undef RO_SGNS__POP_OPTIONS
#endif

#define RO_SGNS__BR 288
#define RO_SGNS__CB 512
#define RO_SGNS__PF_ROWS 4 /* how many rows ahead the sweep prefetches counts */

/* A product of the sweep, on one tile, by the calling thread alone: the
   built-in kernel (on op(B) packed ahead when pb is not NULL), or the BLAS
   under RO_SGNS_CBLAS_TILES (see the options at the top: each of the
   sweep's threads calls it on its own tile). BLAS-shaped: the BLAS's
   arguments, then the packed op(B) and the kernel's workspace. */
static void ro_sgns__tile_gemm(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n, size_t k,
                               const ro_sgns_real *A, size_t lda, const ro_sgns_real *B,
                               size_t ldb, const ro_sgns__packed_b *pb, ro_sgns_real beta,
                               ro_sgns_real *C, size_t ldc, ro_sgns_real *ws)
{
#if defined(RO_SGNS_USE_CBLAS) && defined(RO_SGNS_CBLAS_TILES)
    if (ro_sgns__gemm_cblas(ta, tb, m, n, k, 1, A, lda, B, ldb, beta, C, ldc)) return;
#endif
    ro_sgns__gemm_run_tile(ta, tb, m, n, k, A, lda, B, ldb, pb, beta, C, ldc, ws);
}

/* The sweep's B operands, R^T for X's tiles and P for the products with
   them, packed once a sweep. Memory: cols (rounded up to NR) x d + cols x
   dp (dp rounded up) reals. NULL (and the tiles pack their own) when the
   tiles (if more than one) are not a multiple of NR wide, the tiles go to
   the BLAS, or the memory is not there: the same bits either way. The
   threads pack their shares (a copy: no bits depend on who makes it). With
   mem, the buffer is mem's, kept from one sweep to the next (grown when
   too small) and never returned to be freed. */
typedef struct ro_sgns__sweep_mem {
    ro_sgns_real *buf;
    size_t elems;
} ro_sgns__sweep_mem;

static ro_sgns_real *ro_sgns__sweep_pack(size_t cols, size_t d, const ro_sgns_real *R,
                                         size_t dp, const ro_sgns_real *P, size_t cb_max,
                                         const ro_sgns_allocator *alloc, ro_sgns__sweep_mem *mem,
                                         ro_sgns_real **rt, ro_sgns_real **pp)
{
    size_t nr = ro_sgns__gemm_nr(), cols_pad = (cols + nr - 1) / nr * nr;
    size_t dp_pad = (dp + nr - 1) / nr * nr, rt_elems = cols_pad * d, pad = 64, need;
    ro_sgns_real *buf;
    int overflow = 0, nt = ro_sgns__num_threads();
#if defined(RO_SGNS_USE_CBLAS) && defined(RO_SGNS_CBLAS_TILES)
    const int to_blas = 1; /* the BLAS packs its own */
#else
    const int to_blas = 0;
#endif
    *rt = *pp = NULL;
    if (to_blas || (cb_max % nr != 0 && cb_max < cols)) return NULL; /* c0 % NR != 0 */
    need = ro_sgns__mul(cols, P ? dp_pad : 0, &overflow) + rt_elems + 2 * pad;
    if (overflow) return NULL;
    if (mem && mem->buf && mem->elems >= need) {
        buf = mem->buf;
    } else {
        buf = (ro_sgns_real *)ro_sgns__alloc_array(alloc, need, 1, sizeof(ro_sgns_real));
        if (!buf) return NULL;
        if (mem) {
            ro_sgns__free(alloc, mem->buf);
            mem->buf = buf;
            mem->elems = need;
        }
    }
    *rt = ro_sgns__align64(buf);
    *pp = P ? ro_sgns__align64(*rt + rt_elems) : NULL;
    if ((double)cols * (double)(d + dp) < 1e6) nt = 1; /* not worth a fork */
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        size_t t = 0, team = 1, np = cols_pad / nr, c0;
#ifdef _OPENMP
        if (nt > 1) {
            t = (size_t)omp_get_thread_num();
            team = (size_t)omp_get_num_threads();
        }
#endif
        ro_sgns__pack_b_ahead_panels(RO_SGNS_TRANS, R, d, cols, d, *rt, cols_pad, np * t / team,
                                     np * (t + 1) / team);
        if (P) /* P by blocks of cb_max rows, one tile's worth, in turns */
            for (c0 = t * cb_max; c0 < cols; c0 += team * cb_max)
                ro_sgns__pack_b_ahead(RO_SGNS_NOTRANS, P + c0 * dp, dp, dp,
                                      ro_sgns__min(cb_max, cols - c0), *pp + c0 * dp_pad, dp_pad);
    }
    (void)nt; /* without OpenMP */
    return mem ? NULL : buf;
}

/* Where row w's counts reach column c0: the first of its entries in a
   column >= c0 (its columns ascend). */
static uint64_t ro_sgns__first_col(const ro_sgns__side *sd, size_t w, size_t c0)
{
    uint64_t lo = sd->row_ptr[w], hi = sd->row_ptr[w + 1];
    if (c0 == 0) return lo;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (sd->col[mid] < c0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The fused step's part of a sweep (II.6). With P = R and dp = d the
   sweep also gives Y = L + lambda Out (the next step's M V, rows x d) and
   G = D(X)^T Y (cols x d). A block's rows of D(X) stay in buf (slots of
   br_max x cols reals) until its rows of Out, and so of Y, are complete;
   then, slots blocks at a time, every thread adds their D^T Y to its own
   chunks of G's rows, the blocks in order: each entry of G is summed in
   the same order for any number of threads. */
typedef struct ro_sgns__fuse {
    ro_sgns_real *G, *Y, *buf;
    ro_sgns_real lambda;
    size_t slots;
} ro_sgns__fuse;

/* Rows of G per chunk of the fused sweep's D^T Y (256 x d reals: small
   enough to stay in L2). */
#define RO_SGNS__GCH 256

/* The reports inside a step (docs/GUIDE.md, Progress inside a step): what
   the step fills in before its sweeps; each sweep counts itself in
   pr.sweep and its blocks in pr.blocks_done. */
typedef struct ro_sgns__block_report {
    ro_sgns_ro_callback cb;
    void *user;
    const ro_sgns_factors *x;
    ro_sgns_ro_progress pr;
    double t0; /* when the step began */
} ro_sgns__block_report;

/* What one sweep computes: over X = L R^T on one side of the counts, F (if
   F is not NULL) and Out = D(X) P (if P is not NULL). Keep (may be NULL)
   receives the first keep_rows rows of D(X). Only the columns from cbeg on
   are swept (F and D(X) P over those; 0 for all): the rest of D(X) P is
   the caller's (II.6). fz (may be NULL; needs cbeg = 0, P = R): also
   Y and G = D(X)^T Y, the blocks of br_max rows taken fz->slots at a time.
   ro_sgns__sweep_of fills the first six fields and zeroes the others. */
typedef struct ro_sgns__sweep_args {
    const ro_sgns__side *sd;        /* the counts (rows x cols) and B's factors */
    ro_sgns_direction dir;          /* D: the gradient (plain) or the scaled one */
    size_t d;
    const ro_sgns_real *L, *R;      /* rows x d, cols x d */
    const ro_sgns_allocator *alloc;
    size_t dp;
    const ro_sgns_real *P;          /* cols x dp, or NULL */
    ro_sgns_real *Out;              /* rows x dp */
    double *F;
    ro_sgns_real *Keep;             /* keep_rows x cols */
    size_t keep_rows;
    size_t cbeg;
    size_t br_max, cb_max;          /* a block's rows, a tile's columns (0: BR, CB) */
    const ro_sgns__fuse *fz;
    ro_sgns__sweep_mem *mem;        /* the packed operands kept between sweeps */
    ro_sgns__block_report *rep;     /* reports after blocks, or NULL */
} ro_sgns__sweep_args;

static ro_sgns__sweep_args ro_sgns__sweep_of(const ro_sgns__side *sd, ro_sgns_direction dir,
                                             size_t d, const ro_sgns_real *L,
                                             const ro_sgns_real *R,
                                             const ro_sgns_allocator *alloc)
{
    ro_sgns__sweep_args a;
    memset(&a, 0, sizeof a);
    a.sd = sd;
    a.dir = dir;
    a.d = d;
    a.L = L;
    a.R = R;
    a.alloc = alloc;
    return a;
}

/* A sweep's layout, fixed before its threads start: sizes, the packed
   operands and the shared buffers (ro_sgns__sweep_plan_make). */
typedef struct ro_sgns__sweep_plan {
    const ro_sgns__sweep_args *a;
    int nt;                             /* threads: at most one a block */
    size_t br_max, cb_max;              /* a block's rows, a tile's columns */
    size_t nblocks, slots;              /* blocks; blocks between two passes over G */
    size_t cols_pad, dp_pad;            /* the packed panels' leading dimensions */
    size_t tile_elems, gws, per_thread; /* reals: a thread's tile, GEMM workspace, all */
    ro_sgns_real plain;                 /* 1: the gradient, 0: the scaled direction */
    ro_sgns_real *rt, *pp;              /* R^T and P packed (NULL: each tile packs) */
    ro_sgns_real *ypk;                  /* fused: the slots' rows of Y packed, or NULL */
    ro_sgns_real *buf;                  /* the threads' scratch, per_thread each */
    double *fblock;                     /* each block's part of F */
    ro_sgns_real *packed, *ypack;       /* the allocations behind rt, pp and ypk */
} ro_sgns__sweep_plan;

/* One thread's scratch in a sweep, cut from the plan's buf. */
typedef struct ro_sgns__sweep_scratch {
    ro_sgns_real *tile;              /* its tile (fused: the tiles are in fz->buf) */
    ro_sgns_real *fterm;             /* F's terms of a row */
    ro_sgns_real *es;                /* the row's exp(-|x|) */
    ro_sgns_real *xs, *ex, *as, *bs; /* its counts in the tile: x, exp(-|x|),
                                        #(w,c), 1 or 1 / B_wc */
    ro_sgns_real *delta;             /* their terms of the direction */
    uint64_t *cursor;                /* each row of the block: its next count */
    uint32_t *runlen;                /* each row's run of counts in the last tile */
    ro_sgns_real *gemm_ws;
} ro_sgns__sweep_scratch;

/* Thread tid's scratch: the tile (not fused), f terms, the row's
   exponentials, sparse x / their exponentials / counts / factors / deltas
   (cb each), cursors (two reals each: 8 bytes), GEMM workspace, each row's
   run in the previous tile (one real each: 4 bytes). */
static void ro_sgns__sweep_scratch_at(const ro_sgns__sweep_plan *pl, int tid,
                                      ro_sgns__sweep_scratch *s)
{
    const size_t cb_max = pl->cb_max;
    s->tile = ro_sgns__align64(pl->buf + (size_t)tid * pl->per_thread);
    s->fterm = s->tile + pl->tile_elems;
    s->es = s->fterm + cb_max;
    s->ex = s->es + cb_max;
    s->delta = s->ex + cb_max;
    s->xs = s->delta + cb_max;
    s->as = s->xs + cb_max;
    s->bs = s->as + cb_max;
    s->cursor = (uint64_t *)(void *)ro_sgns__align64(s->bs + cb_max);
    s->gemm_ws = (ro_sgns_real *)(void *)(s->cursor + pl->br_max);
    s->runlen = (uint32_t *)(void *)(s->gemm_ws + pl->gws);
}

/* Prefetch the CSR run of row w, RO_SGNS__PF_ROWS rows ahead, from its
   cursor kp: as many lines as that row's run in the previous tile had, at
   least four (why: docs/DESIGN.md, II.5). */
static RO_SGNS__INLINE void ro_sgns__prefetch_counts(const ro_sgns__side *sd, size_t w,
                                                     uint64_t kp, uint32_t run)
{
    uint64_t ke = sd->row_ptr[w + 1];
    uint64_t kq, kl = kp + run + 16;
    for (kq = kp; kq < ke && kq < kl; kq += 16) {
        RO_SGNS__PREFETCH(sd->col + kq);
        RO_SGNS__PREFETCH(sd->val + kq);
    }
}

/* The SGNS gradient (or the scaled direction) and F of one row of a tile,
   in place: t (cb reals, columns c0..) holds the row of X and becomes the
   row of D(X); F's terms go into facc when F is wanted. w is the row, i its
   place in the block (its cursor, at its first count in column c0 or
   beyond, moves past the tile). The dense part covers every entry, the
   counts' part the row's counts in the tile; the direction's first
   keep_rows rows are kept for D^T U' (II.6). */
static void ro_sgns__grad_row(const ro_sgns__sweep_plan *pl, const ro_sgns__sweep_scratch *s,
                              size_t i, size_t w, ro_sgns_real *t, size_t c0, size_t cb,
                              double *facc)
{
    const ro_sgns__sweep_args *a = pl->a;
    const ro_sgns__side *sd = a->sd;
    const uint32_t *col = sd->col;
    const ro_sgns_real plain = pl->plain;
    ro_sgns_real *es = s->es, *fterm = a->F ? s->fterm : NULL, *delta = s->delta;
    ro_sgns_real *xs = s->xs, *ex = s->ex, *as = s->as, *bs = s->bs;
    uint64_t k0 = s->cursor[i], k1 = k0, kk;
    const double rf = sd->rowfac[w];
    /* the row's exponentials, then the counts' terms while t still holds x:
       the row's counts in the tile gathered into short arrays (x, its
       exponential, the count, the column's factor), then vectorizable loops;
       the arrays' pointers are locals so that stores through them need no
       reloads of *s or *sd */
    ro_sgns__row_exp(t, cb, es);
    {
        const uint64_t kend = sd->row_ptr[w + 1];
        const float *val = sd->val;
        const ro_sgns_real *cf = sd->colfac;
        const size_t cend = c0 + cb;
        size_t q = 0;
        for (; k1 < kend; ++k1, ++q) {
            size_t c = col[k1];
            if (c >= cend) break;
            xs[q] = t[c - c0];
            ex[q] = es[c - c0];
            as[q] = (ro_sgns_real)val[k1];
            bs[q] = cf[c];
        }
    }
    if (k1 > k0) {
        size_t nk = (size_t)(k1 - k0), q;
        /* the factor of the direction: 1 (plain) or 1 / B_wc, in a loop of
           its own so the divisions vectorize */
        if (plain != 0)
            for (q = 0; q < nk; ++q) bs[q] = 1;
        else
            ro_sgns__inverse_b(nk, rf, bs);
        ro_sgns__sparse_terms(nk, xs, ex, as, bs, delta, fterm);
        if (fterm) ro_sgns__sum_into(facc, fterm, nk);
    }
    ro_sgns__dense_rest(t, cb, sd->colfac + c0, (ro_sgns_real)rf, plain, fterm, es);
    if (fterm) ro_sgns__sum_into(facc, fterm, cb);
    for (kk = k0; kk < k1; ++kk) t[col[kk] - c0] += delta[kk - k0];
    s->cursor[i] = k1;
    s->runlen[i] = (uint32_t)(k1 - k0) > 48 ? (uint32_t)(k1 - k0) : 48;
    if (w < a->keep_rows) memcpy(a->Keep + w * sd->cols + c0, t, cb * sizeof(ro_sgns_real));
}

/* A function the compiler is asked not to inline (GCC, clang). */
#ifndef RO_SGNS__NOINLINE
#if defined(__GNUC__)
#define RO_SGNS__NOINLINE __attribute__((noinline))
#else
#define RO_SGNS__NOINLINE
#endif
#endif

/* One tile: rows r0 .. r0 + br - 1 and the columns from c0 (as many as
   fit in a tile) of X = L R^T into tile (GEMM), each row made D(X)'s with
   F's terms into facc, then Out's rows += tile P_c (GEMM). Not inlined:
   docs/DESIGN.md, II.5. */
static RO_SGNS__NOINLINE void ro_sgns__sweep_tile(const ro_sgns__sweep_plan *pl,
                                                  const ro_sgns__sweep_scratch *s, size_t r0,
                                                  size_t br, size_t c0, ro_sgns_real *tile,
                                                  double *facc)
{
    const ro_sgns__sweep_args *a = pl->a;
    const size_t d = a->d, dp = a->dp, cb = ro_sgns__min(pl->cb_max, a->sd->cols - c0);
    size_t i;
    ro_sgns__packed_b prt, ppp; /* R^T's and P's panels for this tile */
    prt.base = pl->rt;
    prt.ld = pl->cols_pad;
    prt.col0 = c0 - a->cbeg;
    ppp.base = pl->pp ? pl->pp + (c0 - a->cbeg) * pl->dp_pad : NULL;
    ppp.ld = pl->dp_pad;
    ppp.col0 = 0;
    ro_sgns__tile_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, br, cb, d, a->L + r0 * d, d, a->R + c0 * d,
                       d, pl->rt ? &prt : NULL, 0, tile, cb, s->gemm_ws);
    for (i = 0; i < br; ++i) {
        if (i + RO_SGNS__PF_ROWS < br)
            ro_sgns__prefetch_counts(a->sd, r0 + i + RO_SGNS__PF_ROWS,
                                     s->cursor[i + RO_SGNS__PF_ROWS],
                                     s->runlen[i + RO_SGNS__PF_ROWS]);
        ro_sgns__grad_row(pl, s, i, r0 + i, tile + i * cb, c0, cb, facc);
    }
    if (a->P)
        ro_sgns__tile_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, br, dp, cb, tile, cb, a->P + c0 * dp,
                           dp, pl->pp ? &ppp : NULL, c0 == a->cbeg ? 0 : 1, a->Out + r0 * dp, dp,
                           s->gemm_ws);
}

/* Fused: the block's rows r0 .. r0 + br - 1 of Y = L + lambda D(X) P,
   complete once its last tile is, packed into its slot of ypk for G's
   chunks. */
static void ro_sgns__fuse_y(const ro_sgns__sweep_plan *pl, size_t r0, size_t br, size_t slot)
{
    const ro_sgns__fuse *fz = pl->a->fz;
    const ro_sgns_real *L = pl->a->L, *Out = pl->a->Out;
    const size_t dp = pl->a->dp;
    size_t q;
    for (q = r0 * dp; q < (r0 + br) * dp; ++q) fz->Y[q] = L[q] + fz->lambda * Out[q];
    if (pl->ypk)
        ro_sgns__pack_b_ahead(RO_SGNS_NOTRANS, fz->Y + r0 * dp, dp, dp, br,
                              pl->ypk + slot * pl->br_max * pl->dp_pad, pl->dp_pad);
}

/* Block blk of rows: its tiles from column cbeg on, its part of F and,
   fused, its rows of Y. Its tiles are the thread's own tile, or (fused)
   the block's rows of D in slot `slot` of fz->buf, tile after tile (each
   tile's rows contiguous). */
static void ro_sgns__sweep_block(const ro_sgns__sweep_plan *pl, const ro_sgns__sweep_scratch *s,
                                 size_t blk, size_t slot)
{
    const ro_sgns__sweep_args *a = pl->a;
    const size_t cbeg = a->cbeg, cols = a->sd->cols, br_max = pl->br_max, r0 = blk * br_max;
    const size_t br = ro_sgns__min(br_max, a->sd->rows - r0);
    ro_sgns_real *tiles = a->fz ? a->fz->buf + slot * br_max * (cols - cbeg) : s->tile;
    double facc[32]; /* F's lanes (ro_sgns__sum_into) */
    size_t i, c0;
    for (i = 0; i < 32; ++i) facc[i] = 0;
    for (i = 0; i < br; ++i) {
        s->cursor[i] = ro_sgns__first_col(a->sd, r0 + i, cbeg);
        s->runlen[i] = 64;
    }
    for (c0 = cbeg; c0 < cols; c0 += pl->cb_max)
        ro_sgns__sweep_tile(pl, s, r0, br, c0, a->fz ? tiles + (c0 - cbeg) * br_max : tiles, facc);
    pl->fblock[blk] = ro_sgns__sum_lanes(facc);
    if (a->fz) ro_sgns__fuse_y(pl, r0, br, slot);
}

/* Fused: G += D^T Y of the blocks sb .. sbe - 1 (the slots), in block
   order, by chunks of G's rows (RO_SGNS__GCH rows of a tile's columns
   each) shared out among the sweep's threads, each of which calls this. */
static void ro_sgns__fuse_dty(const ro_sgns__sweep_plan *pl, ro_sgns_real *gemm_ws, size_t sb,
                              size_t sbe)
{
    const ro_sgns__fuse *fz = pl->a->fz;
    const size_t rows = pl->a->sd->rows, cols = pl->a->sd->cols, dp = pl->a->dp;
    const size_t br_max = pl->br_max, cb_max = pl->cb_max, dp_pad = pl->dp_pad;
    const size_t per_tile = (cb_max + RO_SGNS__GCH - 1) / RO_SGNS__GCH;
    const long nch = (long)(((cols + cb_max - 1) / cb_max) * per_tile);
    long ch;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (ch = 0; ch < nch; ++ch) {
        size_t t0 = (size_t)ch / per_tile * cb_max, b, gr;
        size_t g0 = t0 + (size_t)ch % per_tile * RO_SGNS__GCH;
        size_t cbt = ro_sgns__min(cb_max, cols - t0); /* the tile's width */
        if (g0 >= t0 + cbt) continue;
        gr = ro_sgns__min(RO_SGNS__GCH, t0 + cbt - g0);
        for (b = sb; b < sbe; ++b) {
            size_t r0 = b * br_max, br = ro_sgns__min(br_max, rows - r0);
            ro_sgns__packed_b pyb; /* the block's Y, packed */
            pyb.base = pl->ypk ? pl->ypk + (b - sb) * br_max * dp_pad : NULL;
            pyb.ld = dp_pad;
            pyb.col0 = 0;
            ro_sgns__tile_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, gr, dp, br,
                               fz->buf + (b - sb) * br_max * cols + t0 * br_max + (g0 - t0), cbt,
                               fz->Y + r0 * dp, dp, pl->ypk ? &pyb : NULL, b == 0 ? 0 : 1,
                               fz->G + g0 * dp, dp, gemm_ws);
        }
    }
}

/* A block is done: count it and report the count to the step's callback,
   one thread at a time. Nothing here touches the sweep's numbers. */
static void ro_sgns__block_done(const ro_sgns__sweep_plan *pl, size_t *done)
{
    ro_sgns__block_report *rep = pl->a->rep;
#ifdef _OPENMP
#pragma omp critical(ro_sgns__blocks)
#endif
    {
        ro_sgns_ro_progress pr = rep->pr;
        pr.within_step = 1;
        pr.blocks_done = ++*done;
        pr.blocks_total = pl->nblocks;
        pr.seconds = ro_sgns__now() - rep->t0;
        (void)rep->cb(&pr, rep->x, rep->user);
    }
}

/* The walk over the blocks of rows: the threads take them one at a time
   (a block's cost depends on its counts), each with its own scratch;
   fused, fz->slots blocks at a time, then G's chunks of those. With a
   report (a->rep), each block done is counted and reported. */
static void ro_sgns__sweep_walk(const ro_sgns__sweep_plan *pl)
{
    size_t done = 0;
    if (pl->a->rep) ++pl->a->rep->pr.sweep;
#ifdef _OPENMP
#pragma omp parallel num_threads(pl->nt) if (pl->nt > 1)
#endif
    {
        int tid = 0;
        ro_sgns__sweep_scratch s;
        size_t sb;
        long blk;
#ifdef _OPENMP
        if (pl->nt > 1) tid = omp_get_thread_num();
#endif
        ro_sgns__sweep_scratch_at(pl, tid, &s);
        for (sb = 0; sb < pl->nblocks; sb += pl->slots) { /* one pass unless fused */
            const long sbe = (long)ro_sgns__min(pl->nblocks, sb + pl->slots);
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
            for (blk = (long)sb; blk < sbe; ++blk) {
                ro_sgns__sweep_block(pl, &s, (size_t)blk, (size_t)(blk - (long)sb));
                if (pl->a->rep) ro_sgns__block_done(pl, &done);
            }
            if (pl->a->fz) ro_sgns__fuse_dty(pl, s.gemm_ws, sb, (size_t)sbe);
        }
    }
}

static void ro_sgns__sweep_plan_free(const ro_sgns__sweep_plan *pl)
{
    ro_sgns__free(pl->a->alloc, pl->buf);
    ro_sgns__free(pl->a->alloc, pl->fblock);
    ro_sgns__free(pl->a->alloc, pl->packed);
    ro_sgns__free(pl->a->alloc, pl->ypack);
}

/* The sweep's sizes and memory: the threads' scratch, each block's F,
   fused the slots' packed Y, and R^T and P packed. On failure nothing is
   held. */
static ro_sgns_result ro_sgns__sweep_plan_make(ro_sgns__sweep_plan *pl,
                                               const ro_sgns__sweep_args *a, ro_sgns_error *err)
{
    const size_t rows = a->sd->rows, cols = a->sd->cols, nr = ro_sgns__gemm_nr(), dp = a->dp;
    size_t br_max = a->br_max ? a->br_max : RO_SGNS__BR;
    size_t cb_max = a->cb_max ? a->cb_max : RO_SGNS__CB;
    int overflow = 0;
#if defined(RO_SGNS_USE_CBLAS) && defined(RO_SGNS_CBLAS_TILES)
    const int pack_y = 0; /* the BLAS packs its own */
#else
    const int pack_y = 1;
#endif
    memset(pl, 0, sizeof *pl);
    pl->a = a;
    pl->nt = ro_sgns__num_threads();
    pl->plain = a->dir == RO_SGNS_DIRECTION_PLAIN ? 1 : 0;
    pl->cols_pad = (cols - a->cbeg + nr - 1) / nr * nr;
    pl->dp_pad = (dp + nr - 1) / nr * nr;
    pl->cb_max = cb_max = ro_sgns__min(cb_max, cols - a->cbeg);
    pl->br_max = br_max = ro_sgns__min(br_max, rows);
    pl->nblocks = (rows + br_max - 1) / br_max;
    if ((size_t)pl->nt > pl->nblocks) pl->nt = (int)pl->nblocks;
    pl->slots = a->fz ? a->fz->slots : pl->nblocks;
    pl->tile_elems = a->fz ? 0 : br_max * cb_max; /* fused: the tiles are in fz->buf */
    pl->gws = ro_sgns__gemm_ws_elems(cb_max > dp ? cb_max : dp, 1, &overflow);
    pl->per_thread = pl->tile_elems + 7 * cb_max + 3 * br_max + pl->gws + 64;
    pl->buf = (ro_sgns_real *)ro_sgns__alloc_array(
        a->alloc, ro_sgns__mul((size_t)pl->nt, pl->per_thread, &overflow), sizeof(ro_sgns_real), 1);
    pl->fblock = (double *)ro_sgns__alloc_array(a->alloc, pl->nblocks, sizeof(double), 1);
    if (a->fz && pack_y) {
        pl->ypack = (ro_sgns_real *)ro_sgns__alloc_array(
            a->alloc,
            ro_sgns__mul(ro_sgns__mul(pl->slots, br_max, &overflow), pl->dp_pad, &overflow) + 64,
            sizeof(ro_sgns_real), 1);
        pl->ypk = pl->ypack ? ro_sgns__align64(pl->ypack) : NULL;
    }
    if (overflow || !pl->buf || !pl->fblock || (a->fz && pack_y && !pl->ypack)) {
        ro_sgns__sweep_plan_free(pl);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "sgns: cannot allocate %d blocks of %lu x %lu", pl->nt,
                             (unsigned long)br_max, (unsigned long)cb_max);
    }
    pl->packed = ro_sgns__sweep_pack(cols - a->cbeg, a->d, a->R + a->cbeg * a->d, dp,
                                     a->P ? a->P + a->cbeg * dp : NULL, cb_max, a->alloc, a->mem,
                                     &pl->rt, &pl->pp);
    return RO_SGNS_OK;
}

/* One blocked sweep over X = L R^T: what ro_sgns__sweep_args says, F's
   blocks added in block order after the walk. */
static ro_sgns_result ro_sgns__sweep(const ro_sgns__sweep_args *a, ro_sgns_error *err)
{
    ro_sgns__sweep_plan pl;
    ro_sgns_result res;
    if (a->cbeg >= a->sd->cols) { /* nothing to sweep: the caller has every column */
        if (a->P) memset(a->Out, 0, a->sd->rows * a->dp * sizeof(ro_sgns_real));
        if (a->F) *a->F = 0;
        return ro_sgns__ok(err);
    }
    res = ro_sgns__sweep_plan_make(&pl, a, err);
    if (res != RO_SGNS_OK) return res;
    ro_sgns__sweep_walk(&pl);
    if (a->F) {
        double total = 0;
        size_t b;
        for (b = 0; b < pl.nblocks; ++b) total += pl.fblock[b];
        *a->F = total;
    }
    ro_sgns__sweep_plan_free(&pl);
    if (a->F && !ro_sgns__is_finite(*a->F))
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "sgns: the objective is NaN or Inf");
    return ro_sgns__ok(err);
}

/* L = U S (n x d), allocated */
static ro_sgns_real *ro_sgns__us(const ro_sgns_factors *x, const ro_sgns_allocator *alloc,
                                 ro_sgns_error *err)
{
    ro_sgns_real *L = (ro_sgns_real *)ro_sgns__alloc_array(alloc, x->n, x->d, sizeof(ro_sgns_real));
    if (!L) {
        ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "sgns: out of memory");
        return NULL;
    }
    if (ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, x->n, x->d, x->d, 1, x->U, x->d, x->S,
                     x->d, 0, L, x->d, alloc, err) != RO_SGNS_OK) {
        ro_sgns__free(alloc, L);
        return NULL;
    }
    return L;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_objective(const ro_sgns_problem *p, const ro_sgns_factors *x,
                                             double *F, ro_sgns_error *err)
{
    const ro_sgns_allocator *al;
    ro_sgns_real *L;
    ro_sgns__sweep_args a;
    ro_sgns_result res;
    if (!x || !F) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "objective: NULL");
    res = ro_sgns__check_fit(p, x->n, x->m, err);
    if (res != RO_SGNS_OK) return res;
    al = ro_sgns__problem_alloc(p);
    L = ro_sgns__us(x, al, err);
    if (!L) return err ? err->code : RO_SGNS_ERR_OUT_OF_MEMORY;
    a = ro_sgns__sweep_of(&p->fwd, RO_SGNS_DIRECTION_PLAIN, x->d, L, x->V, al);
    a.F = F;
    res = ro_sgns__sweep(&a, err);
    ro_sgns__free(al, L);
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_objective_wc(const ro_sgns_problem *p, const ro_sgns_real *W,
                                                const ro_sgns_real *C, size_t d, double *F,
                                                ro_sgns_error *err)
{
    ro_sgns__sweep_args a;
    ro_sgns_result res;
    if (!W || !C || !F || d == 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "objective: NULL or d = 0");
    res = ro_sgns__check_fit(p, p ? p->r1 - p->r0 : 0, p ? p->m : 0, err);
    if (res != RO_SGNS_OK) return res;
    a = ro_sgns__sweep_of(&p->fwd, RO_SGNS_DIRECTION_PLAIN, d, W, C, ro_sgns__problem_alloc(p));
    a.F = F;
    return ro_sgns__sweep(&a, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_direction_dense(const ro_sgns_problem *p,
                                                   const ro_sgns_factors *x,
                                                   ro_sgns_direction dir, ro_sgns_real *out,
                                                   ro_sgns_error *err)
{
    const ro_sgns_allocator *al;
    ro_sgns_real *L, *Id;
    size_t m, i;
    ro_sgns__sweep_args a;
    ro_sgns_result res;
    if (!x || !out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "direction: NULL");
    if (dir != RO_SGNS_DIRECTION_PLAIN && dir != RO_SGNS_DIRECTION_SCALED)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "direction: plain or scaled (the metric direction is not dense)");
    res = ro_sgns__check_fit(p, x->n, x->m, err);
    if (res != RO_SGNS_OK) return res;
    al = ro_sgns__problem_alloc(p);
    m = x->m;
    Id = (ro_sgns_real *)ro_sgns__alloc_array(al, m, m, sizeof(ro_sgns_real));
    L = Id ? ro_sgns__us(x, al, err) : NULL;
    if (!Id || !L) {
        ro_sgns__free(al, Id);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "direction: out of memory");
    }
    /* D(X) = D(X) Id: the blocked sweep with the identity as the factor */
    memset(Id, 0, m * m * sizeof(ro_sgns_real));
    for (i = 0; i < m; ++i) Id[i * m + i] = 1;
    a = ro_sgns__sweep_of(&p->fwd, dir, x->d, L, x->V, al);
    a.dp = m;
    a.P = Id;
    a.Out = out;
    res = ro_sgns__sweep(&a, err);
    ro_sgns__free(al, Id);
    ro_sgns__free(al, L);
    return res;
}

/* A point's factors as the sweeps read them: X = U S V^T, rank d. */
typedef struct ro_sgns__usv {
    size_t d;
    const ro_sgns_real *U, *S, *V;
} ro_sgns__usv;

static ro_sgns__usv ro_sgns__usv_of(size_t d, const ro_sgns_real *U, const ro_sgns_real *S,
                                    const ro_sgns_real *V)
{
    ro_sgns__usv x;
    x.d = d, x.U = U, x.S = S, x.V = V;
    return x;
}

/* D V (and F) over the rows of X = (U S) V^T, or (transposed) D^T U over
   the rows of X^T = (V S^T) U^T, for D the direction dir at the point x;
   L (max(n, m) x d) is scratch. A NaN in the product is
   RO_SGNS_ERR_NUMERIC. cfg (or NULL): the blocks' rows and columns; rep:
   the reports inside the sweep, or NULL. */
static ro_sgns_result ro_sgns__sweep_point(const ro_sgns_problem *p, ro_sgns_direction dir,
                                           int transposed, ro_sgns__usv x, ro_sgns_real *L,
                                           ro_sgns_real *Out, double *F,
                                           const ro_sgns_ro_config *cfg,
                                           ro_sgns__block_report *rep, ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(p);
    const size_t d = x.d;
    const ro_sgns_real *U = x.U, *S = x.S, *V = x.V;
    ro_sgns__sweep_args a;
    ro_sgns_result res;
    if (!transposed)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, p->n, d, d, 1, U, d, S, d, 0, L, d,
                           al, err);
    else
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, p->m, d, d, 1, V, d, S, d, 0, L, d, al,
                           err);
    if (res != RO_SGNS_OK) return res;
    a = ro_sgns__sweep_of(transposed ? &p->bwd : &p->fwd, dir, d, L, transposed ? U : V, al);
    a.dp = d;
    a.P = transposed ? U : V;
    a.Out = Out;
    a.F = F;
    a.br_max = cfg ? cfg->block_rows : 0;
    a.cb_max = cfg ? cfg->block_cols : 0;
    a.rep = rep;
    res = ro_sgns__sweep(&a, err);
    if (res == RO_SGNS_OK && !ro_sgns__all_finite(transposed ? p->m : p->n, d, Out, d))
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "sgns: NaN in the direction");
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_tangent_norm(const ro_sgns_problem *p,
                                                const ro_sgns_factors *x, ro_sgns_direction dir,
                                                double *norm, ro_sgns_error *err)
{
    const ro_sgns_allocator *al;
    ro_sgns_real *L = NULL, *DV = NULL, *DtU = NULL, *UtDV = NULL;
    ro_sgns_result res;
    size_t n, m, d, i;
    double dv2 = 0, dtu2 = 0, utdv2 = 0, t2;
    if (!x || !norm) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "tangent_norm: NULL");
    res = ro_sgns__check_whole(p, x, dir, "tangent_norm", err);
    if (res != RO_SGNS_OK) return res;
    al = ro_sgns__problem_alloc(p);
    n = x->n, m = x->m, d = x->d;
    L = (ro_sgns_real *)ro_sgns__alloc_array(al, n > m ? n : m, d, sizeof(ro_sgns_real));
    DV = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, sizeof(ro_sgns_real));
    DtU = (ro_sgns_real *)ro_sgns__alloc_array(al, m, d, sizeof(ro_sgns_real));
    UtDV = (ro_sgns_real *)ro_sgns__alloc_array(al, d, d, sizeof(ro_sgns_real));
    if (!L || !DV || !DtU || !UtDV) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "tangent_norm: out of memory");
        goto done;
    }
    /* D V over the rows of X, D^T U over the rows of X^T, U^T D V */
    res = ro_sgns__sweep_point(p, dir, 0, ro_sgns__usv_of(d, x->U, x->S, x->V), L, DV, NULL,
                               NULL, NULL, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns__sweep_point(p, dir, 1, ro_sgns__usv_of(d, x->U, x->S, x->V), L, DtU, NULL,
                                   NULL, NULL, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, n, 1, x->U, d, DV, d, 0, UtDV, d,
                           al, err);
    if (res != RO_SGNS_OK) goto done;
    /* sums in double, in a fixed order: the same bits for any thread count */
    for (i = 0; i < n * d; ++i) dv2 += (double)DV[i] * DV[i];
    for (i = 0; i < m * d; ++i) dtu2 += (double)DtU[i] * DtU[i];
    for (i = 0; i < d * d; ++i) utdv2 += (double)UtDV[i] * UtDV[i];
    t2 = dv2 + dtu2 - utdv2; /* cancels to rounding near a critical point: 0, not below */
    if (!ro_sgns__is_finite(t2))
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "tangent_norm: NaN or Inf in the direction");
    else
        *norm = RO_SGNS_SQRT(t2 > 0 ? t2 : 0);
done:
    ro_sgns__free(al, L);
    ro_sgns__free(al, DV);
    ro_sgns__free(al, DtU);
    ro_sgns__free(al, UtDV);
    return res;
}

/* ======================================================================
   II.6 The step: Algorithm 1 in three blocked products a step
        [paper 3.1-3.2, Algorithm 1]

   Part I twins: ro_sgns_ro_step_naive (I.9), every matrix formed, and
   ro_sgns_ro_train_naive (I.11), the run; compared in the repository's
   tests/test_ro.c (test_step_vs_naive, test_fused, test_plain_vs_fast).

   What: X_{i+1} = R(X_i + lambda D(X_i)) by projector splitting (Lubich and
   Oseledets 2014): the retraction R is one step of the block power method,
       U', S' = QR(M V),   V', S'^T = QR(M^T U'),   M = X + lambda D(X),
   with D = grad F (the paper) or the scaled direction (I.9).
   How, without M (n x m, dense): since X V = U S V^T V = U S and
   X^T U' = V S^T U^T U',
       M V    = U S + lambda D V                  D V: a sweep over rows
       M^T U' = V S^T (U^T U') + lambda D^T U'    D^T U': a sweep over the
                                                  transposed counts
   so a step costs two sweeps (II.5) and two QRs (II.2). The sweep that
   gives F at the new point gives its D V too, the next step's first
   product, so the safeguard's F costs nothing on an accepted step.
   Safeguard (on by default; the paper has none): a step that lowers F, or
   makes a NaN, is halved and retried from the same D V; after an accepted
   step the next one starts at min(lambda * grow, the configured step).
   The paper's fixed-lambda iteration is safeguard = 0, direction = PLAIN.
   Fused (cfg->fuse, the default): once a block of rows of the sweep at the
   new point has its D V complete, it knows that block's rows of the next
   step's M V = U' S' + lambda D V' (lambda is known ahead), and adds
   D_b^T (M V)_b to G = D^T M V; the next QR, M V = U'' R, then gives
       D^T U'' = D^T M V R^-1 = G R^-1
   applied as CholeskyQR2 applied R^-1, (G R1^-1) R2^-1: no sweep over X^T.
   A block's D is kept until its D V is complete (block_rows x m reals a
   thread). G is summed block after block in order, each thread on its own
   rows of G, so its bits do not depend on the thread count (they do on
   block_rows). On shards R^-1 is TSQR's, inverted on every shard from the
   same R when its condition is below 1/sqrt(eps) (ro_sgns__qr_rows_inv).
   The step sweeps X^T as before on a halved retry (its lambda is not the
   one G was made for), after a Householder QR (or on shards an R above
   that condition), and with the kept direction.
   Kept direction (keep_direction_bytes): the sweep at the new point also
   stores D's first n_k rows, and the next step splits D^T U' = D_k^T U'_k
   + D_r^T U'_r by rows: one GEMM over the kept rows, a sweep over X^T for
   the other columns. A halved retry sweeps again.
   The code: ro_sgns__ro_run is Algorithm 1, a comment for each line; its
   products are ro_sgns__mv (line 4's M V), ro_sgns__mt_u (line 5's M^T U',
   its D^T U' by one of the three routes above in ro_sgns__dt_u) and
   ro_sgns__f_and_dv (line 6: F and D V at the candidate, the next step's
   first product); ro_sgns__ro_step holds what one step leaves the next.
   Shards (II.4, II.8) run this same function: the QR of M V, the sum of
   the shards' parts of M^T U' and the sum of F go through the transport;
   on one machine the three are a plain QR (II.2's ro_sgns__qr_step).
   Memory, costs and why three products: docs/DESIGN.md, II.6.
   ====================================================================== */

RO_SGNS_DEF ro_sgns_ro_config ro_sgns_ro_config_default(void)
{
    ro_sgns_ro_config c;
    memset(&c, 0, sizeof c);
    c.iterations = 10;
    c.direction = RO_SGNS_DIRECTION_SCALED;
    c.step = 1.0;
    c.safeguard = 1;
    c.max_halvings = 8;
    c.grow = 2.0;
    c.step_max = 0;
    c.block_rows = 0;
    c.block_cols = 0;
    c.keep_direction_bytes = 0;
    c.fuse = 1;
    c.cg_iterations = 4;
    c.callback = NULL;
    c.user = NULL;
    return c;
}

static ro_sgns_result ro_sgns__check_config(const ro_sgns_ro_config *c, ro_sgns_error *err)
{
    if (c->iterations < 0 || !(c->step > 0) || !ro_sgns__is_finite(c->step) ||
        c->max_halvings < 0 || !(c->grow >= 1) || c->cg_iterations < 0 ||
        !(c->step_max == 0 || (c->step_max >= c->step && ro_sgns__is_finite(c->step_max))) ||
        (c->direction != RO_SGNS_DIRECTION_PLAIN && c->direction != RO_SGNS_DIRECTION_SCALED &&
         c->direction != RO_SGNS_DIRECTION_METRIC))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "ro_train: need iterations >= 0, a finite step > 0, "
                             "max_halvings >= 0, grow >= 1, step_max 0 or finite and >= step, "
                             "cg_iterations >= 0 and a known direction");
    return ro_sgns__ok(err);
}

/* Five n x d blocks (45 MB each at n = m = 22k, d = 500 in float). */
typedef struct ro_sgns__ro_work {
    ro_sgns_real *DV, *DV1; /* D V at the point and at the candidate */
    ro_sgns_real *U1;       /* U', the candidate's U */
    ro_sgns_real *V1;       /* M^T U', then V' after its QR; U^T U' below it */
    ro_sgns_real *T;        /* scratch: U S, V S^T, U' S' (max(n, m) rows) */
    ro_sgns_real *S1, *R, *A; /* S', a QR's R (d x d), 3 d x d scratch */
    ro_sgns_real *Rinv;       /* the fused step's R1^-1, R2^-1 (2 d x d) */
    double *Rd;               /* on shards: R, R^-1 in double, 2 d scratch */
    ro_sgns__sweep_mem sweep; /* the sweeps' packed operands */
} ro_sgns__ro_work;

/* A run of steps (ro_sgns__ro_run): the problem, the settings, the blocks,
   and what the sweep at the point X hands the step besides F and D V (the
   banner's fused step and kept direction). The sweep at a candidate
   overwrites them: the flags say whether they are still X's. */
typedef struct ro_sgns__ro_step {
    const ro_sgns_problem *p;
    const ro_sgns_ro_config *cfg;
    size_t d;
    ro_sgns__ro_work w;
    ro_sgns__sweep_mem *mem; /* the sweeps' packed operands (&w.sweep), or NULL */
    size_t br;               /* the forward sweeps' block rows */
    int fused;               /* the sweeps at a point make fz's Y and G */
    ro_sgns__fuse fz;        /* Y = M V and G = D^T M V, D's blocks of rows */
    double g_lambda;         /* the lambda of the M V that Y is (to be) made for */
    int g_valid;             /* fz is the sweep at X's (not a candidate's) */
    int use_g;               /* this try's M V is fz's Y; its QR gives R^-1 */
    ro_sgns_real *keep;      /* D's first keep_rows rows (keep_rows x m), or NULL */
    size_t keep_rows;
    int keep_valid;          /* keep holds D at X (not at a candidate) */
    int us_in_t;             /* w.T holds U S, left by the sweep at X */
    ro_sgns__block_report *rep; /* the reports inside a step, or NULL */
} ro_sgns__ro_step;

/* A run before its memory: nothing kept, not fused, no blocks (what a
   test of one product alone needs, with w.T its scratch). */
static void ro_sgns__ro_step_init(ro_sgns__ro_step *st, const ro_sgns_problem *p,
                                  const ro_sgns_ro_config *cfg, size_t d)
{
    memset(st, 0, sizeof *st);
    st->p = p;
    st->cfg = cfg;
    st->d = d;
}

/* The first product of a step, at a point X = U S V^T: F(X) and D V.
   st->w.T is scratch for U S (and keeps it). A NaN in D V is
   RO_SGNS_ERR_NUMERIC. The sweep also keeps D's first st->keep_rows rows
   in st->keep (when there is one) and, fused, makes st->fz's Y = U S +
   g_lambda D V and G = D^T Y, in blocks of st->br rows. */
static ro_sgns_result ro_sgns__f_and_dv(ro_sgns__ro_step *st, const ro_sgns_real *U,
                                        const ro_sgns_real *S, const ro_sgns_real *V,
                                        ro_sgns_real *DV, double *F, ro_sgns_error *err)
{
    const ro_sgns_problem *p = st->p;
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(p);
    const size_t n = p->fwd.rows, d = st->d;
    ro_sgns__sweep_args a = ro_sgns__sweep_of(&p->fwd, st->cfg->direction, d, st->w.T, V, al);
    ro_sgns_result res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, 1, U, d, S, d,
                                      0, st->w.T, d, al, err);
    a.dp = d;
    a.P = V;
    a.Out = DV;
    a.F = F;
    a.Keep = st->keep;
    a.keep_rows = st->keep ? st->keep_rows : 0;
    a.br_max = st->br;
    a.cb_max = st->cfg->block_cols;
    a.fz = st->fused ? &st->fz : NULL;
    a.mem = st->mem;
    a.rep = st->rep;
    st->fz.lambda = (ro_sgns_real)st->g_lambda;
    if (res == RO_SGNS_OK) res = ro_sgns__sweep(&a, err);
    if (res == RO_SGNS_OK && !ro_sgns__all_finite(n, d, DV, d))
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "ro_train: NaN in the step");
    return res;
}

static void ro_sgns__times_upper(size_t n, size_t d, const ro_sgns_real *A, size_t lda,
                                 const ro_sgns_real *T, ro_sgns_real *W, size_t ldw,
                                 ro_sgns_real *ws);

/* D^T U' (m x d, the rows held) into Out, by the route the step has:
   - fused, when the QR of M V gave R^-1 (n_inv upper triangular factors in
     st->w.Rinv: the two of CholeskyQR2, U' = ((M V) R1^-1) R2^-1 (II.2),
     or on shards TSQR's R^-1): D^T U' = (G R1^-1) R2^-1 or G R^-1 from
     the fused sweep's G = D^T M V at X, no sweep (G is overwritten);
   - else the kept rows' part, one GEMM over st->keep when it holds D at X,
     and a sweep over X^T = (V S^T) U^T (V S^T in st->w.T) for the other
     columns (words) of X^T: all of them when none is kept.
   ws is the GEMMs' workspace. */
static ro_sgns_result ro_sgns__dt_u(const ro_sgns__ro_step *st, const ro_sgns_real *U,
                                    const ro_sgns_real *U1, int n_inv, ro_sgns_real *Out,
                                    ro_sgns_real *ws, ro_sgns_error *err)
{
    const ro_sgns_problem *p = st->p;
    const size_t m = p->m, d = st->d, rows = p->fwd.rows;
    const ro_sgns_real *Keep = st->keep_valid ? st->keep : NULL;
    const size_t nk = Keep ? st->keep_rows : 0;
    ro_sgns_real *G = n_inv > 0 ? st->fz.G : NULL;
    ro_sgns__sweep_args a;
    ro_sgns_result res = RO_SGNS_OK;
    if (G) {
        ro_sgns__times_upper(m, d, G, d, st->w.Rinv, Out, d, ws);
        if (n_inv > 1) {
            ro_sgns__times_upper(m, d, Out, d, st->w.Rinv + d * d, G, d, ws);
            memcpy(Out, G, m * d * sizeof(ro_sgns_real));
        }
        return RO_SGNS_OK;
    }
    if (nk < rows) { /* L = V S^T, R = U, from column nk on */
        a = ro_sgns__sweep_of(&p->bwd, st->cfg->direction, d, st->w.T, U,
                              ro_sgns__problem_alloc(p));
        a.dp = d;
        a.P = U1;
        a.Out = Out;
        a.cbeg = nk;
        a.br_max = st->cfg->block_rows;
        a.cb_max = st->cfg->block_cols;
        a.mem = st->mem;
        a.rep = st->rep;
        res = ro_sgns__sweep(&a, err);
    }
    if (res == RO_SGNS_OK && Keep && nk > 0) /* the kept rows' part: the third product */
        ro_sgns__gemm_taken(RO_SGNS_TRANS, RO_SGNS_NOTRANS, m, d, nk, 1, Keep, m, U1, d,
                            nk < rows ? 1 : 0, Out, d, ws);
    return res;
}

/* The second product, at X = U S V^T: Out = M^T U' = V S^T (U^T U') +
   lambda D^T U' over the rows held (m x d), and UtU = U^T U' (d x d) after
   it (Out has m + d rows); D^T U' by ro_sgns__dt_u, n_inv the factors of
   R^-1 the QR of M V left. st->w.T is scratch for V S^T. On failure Out is
   untouched (all workspace is taken before it is written). */
static ro_sgns_result ro_sgns__mt_u(const ro_sgns__ro_step *st, double lambda,
                                    const ro_sgns_real *U, const ro_sgns_real *S,
                                    const ro_sgns_real *V, const ro_sgns_real *U1, int n_inv,
                                    ro_sgns_real *Out, ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(st->p);
    const size_t m = st->p->m, d = st->d;
    size_t ws_elems;
    ro_sgns_real *ws, *UtU = Out + m * d, *VSt = st->w.T;
    int of = 0;
    ro_sgns_result res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, m, d, d, 1, V, d, S, d, 0,
                                      VSt, d, al, err);
    if (res != RO_SGNS_OK) return res;
    ws_elems = ro_sgns__gemm_ws_elems(d, ro_sgns__num_threads(), &of);
    ws = (ro_sgns_real *)ro_sgns__alloc_array(al, ws_elems, 1, sizeof(ro_sgns_real));
    if (!ws || of) {
        ro_sgns__free(al, ws);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "ro_train: cannot allocate the GEMM workspace (d = %lu)",
                             (unsigned long)d);
    }
    res = ro_sgns__dt_u(st, U, U1, n_inv, Out, ws, err);
    if (res == RO_SGNS_OK) {
        ro_sgns__gemm_taken(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, st->p->fwd.rows, 1, U, d, U1,
                            d, 0, UtU, d, ws);
        ro_sgns__gemm_taken(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, d, d, 1, VSt, d, UtU, d,
                            (ro_sgns_real)lambda, Out, d, ws);
    }
    ro_sgns__free(al, ws);
    return res;
}

/* |X' - X|_F from the factors: |S'|^2 + |S|^2 - 2 <S', U'^T U S V^T V'>,
   X = x, X' from st->w: S', V' and UtU = U^T U' (summed over the shards)
   below V'; w.A (3 d x d) is scratch. */
static ro_sgns_result ro_sgns__step_norm(const ro_sgns__ro_step *st, const ro_sgns_factors *x,
                                         double *norm, ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(st->p);
    const size_t m = x->m, d = x->d;
    const ro_sgns_real *S = x->S, *V = x->V, *S1 = st->w.S1, *V1 = st->w.V1;
    const ro_sgns_real *UtU = st->w.V1 + m * d;
    ro_sgns_real *A1 = st->w.A, *A2 = st->w.A + d * d, *T2 = st->w.A + 2 * d * d;
    double s2 = 0;
    size_t i, j;
    ro_sgns_result res;
    for (i = 0; i < d; ++i)
        for (j = 0; j < d; ++j) A1[i * d + j] = UtU[j * d + i];
    res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, m, 1, V, d, V1, d, 0, A2, d, al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, A1, d, S, d, 0, T2, d,
                           al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, T2, d, A2, d, 0, A1, d,
                           al, err);
    if (res != RO_SGNS_OK) return res;
    for (i = 0; i < d * d; ++i)
        s2 += (double)S1[i] * S1[i] + (double)S[i] * S[i] - 2.0 * S1[i] * A1[i];
    *norm = RO_SGNS_SQRT(s2 > 0 ? s2 : 0);
    return RO_SGNS_OK;
}

/* What a step needs from the other shards (II.4); with comm NULL (one
   machine) the first is the step's QR (II.2: Cholesky QR twice, W
   its n x d scratch) and the other two do nothing. Each
   returns res unchanged once it is an error, without any work; on shards
   it first makes every shard agree on the first failure, in shard order. */
static ro_sgns_result ro_sgns__qr_rows_inv(const ro_sgns_comm *comm, ro_sgns_result res,
                                           size_t n, size_t d, ro_sgns_real *A, ro_sgns_real *R,
                                           ro_sgns_real *W, ro_sgns_real *inv, double *Rd,
                                           int *n_inv, const ro_sgns_allocator *al,
                                           ro_sgns_error *err);
static ro_sgns_result ro_sgns__sum_shards(const ro_sgns_comm *comm, ro_sgns_result res,
                                          ro_sgns_real *buf, size_t count, ro_sgns_error *err);
static ro_sgns_result ro_sgns__sum_shards_double(const ro_sgns_comm *comm, ro_sgns_result res,
                                                 double *v, ro_sgns_error *err);

static void ro_sgns__ro_work_free(ro_sgns__ro_work *w, const ro_sgns_allocator *al)
{
    ro_sgns__free(al, w->DV);
    ro_sgns__free(al, w->DV1);
    ro_sgns__free(al, w->U1);
    ro_sgns__free(al, w->V1);
    ro_sgns__free(al, w->T);
    ro_sgns__free(al, w->S1);
    ro_sgns__free(al, w->R);
    ro_sgns__free(al, w->A);
    ro_sgns__free(al, w->Rinv);
    ro_sgns__free(al, w->Rd);
    ro_sgns__free(al, w->sweep.buf);
    memset(w, 0, sizeof *w);
}

static ro_sgns_result ro_sgns__ro_work_alloc(ro_sgns__ro_work *w, size_t n, size_t m, size_t d,
                                             const ro_sgns_allocator *al, ro_sgns_error *err)
{
    const size_t R = sizeof(ro_sgns_real);
    w->DV = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, R);
    w->DV1 = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, R);
    w->U1 = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, R);
    w->V1 = (ro_sgns_real *)ro_sgns__alloc_array(al, m + d, d, R);
    w->T = (ro_sgns_real *)ro_sgns__alloc_array(al, n > m ? n : m, d, R);
    w->S1 = (ro_sgns_real *)ro_sgns__alloc_array(al, d, d, R);
    w->R = (ro_sgns_real *)ro_sgns__alloc_array(al, d, d, R);
    w->A = (ro_sgns_real *)ro_sgns__alloc_array(al, 3 * d, d, R);
    if (w->DV && w->DV1 && w->U1 && w->V1 && w->T && w->S1 && w->R && w->A)
        return RO_SGNS_OK;
    ro_sgns__ro_work_free(w, al);
    return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                         "ro_train: cannot allocate the n x d blocks (n = %lu, d = %lu)",
                         (unsigned long)n, (unsigned long)d);
}

/* The progress callback after an accepted step: RO_SGNS_STOPPED (in err
   too, with no message) when any shard asks to stop. */
static ro_sgns_result ro_sgns__report(const ro_sgns_comm *comm, const ro_sgns_ro_config *cfg,
                                      const ro_sgns_factors *x, double F, double F_prev,
                                      double lambda, double norm, int halvings, double t0,
                                      ro_sgns_error *err)
{
    ro_sgns_ro_progress pr;
    double want;
    ro_sgns_result res;
    if (!cfg->callback) return RO_SGNS_OK;
    memset(&pr, 0, sizeof pr); /* within_step 0, no blocks */
    pr.iteration = x->iteration;
    pr.objective = F;
    pr.objective_prev = F_prev;
    pr.step = lambda;
    pr.step_norm = norm;
    pr.halvings = halvings;
    pr.seconds = ro_sgns__now() - t0;
    want = cfg->callback(&pr, x, cfg->user) != 0 ? 1 : 0;
    res = ro_sgns__sum_shards_double(comm, RO_SGNS_OK, &want, err);
    if (res == RO_SGNS_OK && want != 0) {
        res = RO_SGNS_STOPPED;
        if (err) {
            err->code = RO_SGNS_STOPPED;
            err->message[0] = '\0';
        }
    }
    return res;
}

static ro_sgns_result ro_sgns__qr_step(size_t n, size_t d, ro_sgns_real *A, ro_sgns_real *R,
                                       ro_sgns_real *W, const ro_sgns_allocator *al,
                                       ro_sgns_error *err);
static ro_sgns_result ro_sgns__qr_step_inv(size_t n, size_t d, ro_sgns_real *A, ro_sgns_real *R,
                                           ro_sgns_real *W, ro_sgns_real *inv, int *have_inv,
                                           const ro_sgns_allocator *al, ro_sgns_error *err);
static void ro_sgns__inverse_upper(size_t d, const double *R, double *work, ro_sgns_real *Ri);

/* The largest step the safeguard grows to: step_max, or the step. */
static double ro_sgns__step_cap(const ro_sgns_ro_config *cfg)
{
    return cfg->step_max > cfg->step ? cfg->step_max : cfg->step;
}

/* The step after one of lambda is accepted: grown towards the cap (the
   safeguard), or the paper's fixed lambda. The fused sweep at a candidate
   uses it before the acceptance, so one formula. */
static double ro_sgns__next_lambda(const ro_sgns_ro_config *cfg, double lambda)
{
    const double cap = ro_sgns__step_cap(cfg);
    if (!cfg->safeguard) return lambda;
    return lambda * cfg->grow > cap ? cap : lambda * cfg->grow;
}

/* The fused step's memory (II.6's banner; cfg->fuse): G (m x d), Y
   (n x d), R's inverses (in w; on shards R and R^-1 in double too) and one
   block of D's rows a thread, as many as there are blocks. st->br (the
   configured block rows) becomes the blocks' rows: at most 2 (n + m) d /
   m, so that a block holds no more than 2 (n + m) d reals (a small
   problem's whole D is not kept), whatever the thread count (the blocks
   set G's bits). */
static ro_sgns_result ro_sgns__fuse_alloc(ro_sgns__ro_step *st, size_t n, size_t m, int shards,
                                          ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(st->p);
    const size_t d = st->d;
    ro_sgns__fuse *fz = &st->fz;
    ro_sgns__ro_work *w = &st->w;
    size_t *br = &st->br;
    double cap = 2.0 * ((double)n + (double)m) * (double)d / (double)m;
    int of = 0;
    if (cap < (double)*br) *br = cap < 8 ? 8 : (size_t)cap / 8 * 8;
    if (*br > n) *br = n;
    fz->slots = (size_t)ro_sgns__num_threads();
    if (fz->slots > (n + *br - 1) / *br) fz->slots = (n + *br - 1) / *br;
    fz->G = (ro_sgns_real *)ro_sgns__alloc_array(al, m, d, sizeof(ro_sgns_real));
    fz->Y = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, sizeof(ro_sgns_real));
    w->Rinv = (ro_sgns_real *)ro_sgns__alloc_array(al, 2 * d, d, sizeof(ro_sgns_real));
    if (shards) w->Rd = (double *)ro_sgns__alloc_array(al, 2 * d + 2, d, sizeof(double));
    fz->buf = (ro_sgns_real *)ro_sgns__alloc_array(al, ro_sgns__mul(fz->slots, *br, &of), m,
                                                   sizeof(ro_sgns_real));
    if (fz->G && fz->Y && w->Rinv && (w->Rd || !shards) && fz->buf && !of) return RO_SGNS_OK;
    return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                         "ro_train: cannot allocate the fused step's blocks (%lu x %lu x %lu)",
                         (unsigned long)fz->slots, (unsigned long)*br, (unsigned long)m);
}

/* A run's memory: the blocks, then the fused step's, or the rows of the
   direction kept from one sweep to the next step's D^T U': as many as
   keep_direction_bytes holds (none below one row of m reals; within it,
   failing to get the memory is an error, not another path). */
static ro_sgns_result ro_sgns__ro_step_alloc(ro_sgns__ro_step *st, const ro_sgns_factors *x,
                                             int shards, ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(st->p);
    const size_t n = x->n, m = x->m, d = x->d;
    int of = 0;
    size_t row_bytes = ro_sgns__mul(m, sizeof(ro_sgns_real), &of);
    ro_sgns_result res;
    st->keep_rows = of || row_bytes == 0 ? 0 : st->cfg->keep_direction_bytes / row_bytes;
    if (st->keep_rows > n) st->keep_rows = n;
    st->br = st->cfg->block_rows ? st->cfg->block_rows : RO_SGNS__BR;
    st->mem = &st->w.sweep;
    res = ro_sgns__ro_work_alloc(&st->w, n, m, d, al, err);
    if (res == RO_SGNS_OK && st->cfg->fuse && st->keep_rows == 0) { /* unless kept */
        res = ro_sgns__fuse_alloc(st, n, m, shards, err);
        st->fused = 1;
    }
    if (res == RO_SGNS_OK && st->keep_rows > 0) {
        st->keep = (ro_sgns_real *)ro_sgns__alloc_array(al, st->keep_rows, m,
                                                        sizeof(ro_sgns_real));
        if (!st->keep)
            res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                "ro_train: cannot allocate the kept direction (%lu x %lu, "
                                "keep_direction_bytes)", (unsigned long)st->keep_rows,
                                (unsigned long)m);
    }
    return res;
}

static void ro_sgns__ro_step_free(ro_sgns__ro_step *st)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(st->p);
    ro_sgns__ro_work_free(&st->w, al);
    ro_sgns__free(al, st->keep);
    ro_sgns__free(al, st->fz.G);
    ro_sgns__free(al, st->fz.Y);
    ro_sgns__free(al, st->fz.buf);
}

/* The sweep at the point X has run (at the start, or at the candidate
   just accepted): what it left, the next try may use. */
static void ro_sgns__swept_x(ro_sgns__ro_step *st)
{
    st->keep_valid = st->keep != NULL;
    st->g_valid = st->fused; /* and the fused sweep's D^T M V, for g_lambda */
    st->us_in_t = 1;         /* the sweep left U S in w.T */
}

/* Line 4's product, M V = U S + lambda D V (M itself is never formed),
   into st->w.U1. The fused sweep at X made it already when it made it for
   this lambda: then fz's Y and w.U1 trade places (st->use_g). Else U S is
   still in w.T from the sweep at X, unless a retry of the step has used
   w.T since (the same product again, the same bits). */
static ro_sgns_result ro_sgns__mv(ro_sgns__ro_step *st, const ro_sgns_factors *x,
                                  double lambda, ro_sgns_error *err)
{
    ro_sgns__ro_work *w = &st->w;
    const size_t n = x->n, d = x->d;
    const ro_sgns_real *us = w->T;
    ro_sgns_real *swap;
    size_t i;
    ro_sgns_result res = RO_SGNS_OK;
    st->use_g = st->g_valid && st->g_lambda == lambda;
    st->g_valid = 0;
    if (st->use_g) {
        swap = w->U1;
        w->U1 = st->fz.Y;
        st->fz.Y = swap;
    } else if (!st->us_in_t) {
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, 1, x->U, d, x->S, d, 0,
                           w->U1, d, ro_sgns__problem_alloc(st->p), err);
        us = w->U1;
    }
    st->us_in_t = 0;
    if (!st->use_g && res == RO_SGNS_OK)
        for (i = 0; i < n * d; ++i) w->U1[i] = us[i] + (ro_sgns_real)lambda * w->DV[i];
    return res;
}

/* Accept the candidate: X = X', all at once (and D V = D V'). */
static void ro_sgns__accept(ro_sgns__ro_step *st, ro_sgns_factors *x)
{
    ro_sgns__ro_work *w = &st->w;
    ro_sgns_real *swap = w->DV;
    memcpy(x->U, w->U1, x->n * x->d * sizeof(ro_sgns_real));
    memcpy(x->V, w->V1, x->m * x->d * sizeof(ro_sgns_real));
    memcpy(x->S, w->S1, x->d * x->d * sizeof(ro_sgns_real));
    w->DV = w->DV1;
    w->DV1 = swap;
    ro_sgns__swept_x(st);
    ++x->iteration;
    ro_sgns__stamp(st->p, x);
}

/* The first step's size: where the last run's safeguard left it (a
   resumed run), or the configured one. */
static double ro_sgns__first_lambda(const ro_sgns_ro_config *cfg, const ro_sgns_factors *x)
{
    return cfg->safeguard && x->next_step > 0 && x->next_step <= ro_sgns__step_cap(cfg)
               ? x->next_step
               : cfg->step;
}

/* The reports inside the steps' sweeps (docs/GUIDE.md, Progress inside a
   step): rep
   set up for the run from x, or NULL when they are not asked for. */
static ro_sgns__block_report *ro_sgns__reports_init(ro_sgns__block_report *rep,
                                                    const ro_sgns_ro_config *cfg,
                                                    const ro_sgns_factors *x, double lambda)
{
    memset(rep, 0, sizeof *rep);
    if (!cfg->callback || !cfg->report_blocks) return NULL;
    rep->cb = cfg->callback;
    rep->user = cfg->user;
    rep->x = x;
    rep->pr.iteration = x->iteration;
    rep->pr.step = lambda;
    rep->pr.sweep = -1; /* the sweep at the start is 0 */
    rep->t0 = ro_sgns__now();
    return rep;
}

/* The safeguard's verdict on a try of a step, F1 at the candidate and
   *res how the try went: 1 keep it; 0 halve the step and try again; -1
   end the run with *res (an error, a NaN without the safeguard, or no
   ascent after max_halvings: then RO_SGNS_OK at the last good point). */
static int ro_sgns__verdict(const ro_sgns_ro_config *cfg, ro_sgns_result *res, double F1,
                            double F, int *halvings, int it, const ro_sgns_factors *x,
                            ro_sgns_error *err)
{
    if (*res == RO_SGNS_ERR_NUMERIC && !cfg->safeguard) {
        ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                      "ro_train: step %d produced NaN or Inf; the factors are those "
                      "of the last good point (iteration %lu)",
                      it + 1, (unsigned long)x->iteration);
        return -1;
    }
    if (*res != RO_SGNS_OK && *res != RO_SGNS_ERR_NUMERIC) return -1;
    if (!cfg->safeguard || (*res == RO_SGNS_OK && !(F1 < F))) return 1;
    if (++*halvings > cfg->max_halvings) { /* no ascent at any step tried */
        *res = ro_sgns__ok(err);
        return -1;
    }
    return 0;
}

/* Algorithm 1, lines 3-6: K steps from X = U S V^T (x, updated in place
   when a step is accepted, and only then). comm is NULL on one machine; on
   a shard (II.8) x holds U's rows of the shard and all of S and V. */
static ro_sgns_result ro_sgns__ro_run(const ro_sgns_problem *p, const ro_sgns_comm *comm,
                                      ro_sgns_factors *x, const ro_sgns_ro_config *cfg,
                                      ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(p);
    const size_t n = x->n, m = x->m, d = x->d; /* n: the rows of U held here */
    ro_sgns__ro_step st;
    ro_sgns__ro_work *w = &st.w;
    ro_sgns__block_report rep;
    double F, F1 = 0, lambda, norm = 0;
    int it, n_inv, verdict;
    size_t i, j;
    ro_sgns_result res;
    ro_sgns__ro_step_init(&st, p, cfg, d);
    res = ro_sgns__ro_step_alloc(&st, x, comm != NULL, err);
    lambda = ro_sgns__first_lambda(cfg, x);
    st.rep = ro_sgns__reports_init(&rep, cfg, x, lambda);
    /* F(X) and D V at the start (fused: and D^T M V for the first step) */
    st.g_lambda = lambda;
    if (res == RO_SGNS_OK) res = ro_sgns__f_and_dv(&st, x->U, x->S, x->V, w->DV, &F, err);
    ro_sgns__swept_x(&st);
    res = ro_sgns__sum_shards_double(comm, res, &F, err);
    if (res != RO_SGNS_OK) goto done;
    for (it = 0; it < cfg->iterations; ++it) { /* for i = 1, ..., K                 [line 3] */
        double t0 = ro_sgns__now();
        int halvings = 0;
        rep.t0 = t0;
        rep.pr.iteration = x->iteration;
        rep.pr.objective = F;
        rep.pr.sweep = 0;
        for (;;) {                             /* one try of the step lambda */
            rep.pr.step = lambda;
            rep.pr.halvings = halvings;
            /* U', S' = QR(M V), M = X + lambda D(X); S' is replaced by line 5's [line 4] */
            res = ro_sgns__mv(&st, x, lambda, err);
            res = ro_sgns__qr_rows_inv(comm, res, n, d, w->U1, w->R, w->T,
                                       st.use_g ? w->Rinv : NULL, w->Rd, &n_inv, al, err);
            /* V', S'^T = QR(M^T U'), M^T U' summed over the shards          [line 5] */
            if (res == RO_SGNS_OK)
                res = ro_sgns__mt_u(&st, lambda, x->U, x->S, x->V, w->U1, n_inv, w->V1, err);
            res = ro_sgns__sum_shards(comm, res, w->V1, (m + d) * d, err);
            if (res == RO_SGNS_OK) res = ro_sgns__qr_step(m, d, w->V1, w->R, w->T, al, err);
            for (i = 0; res == RO_SGNS_OK && i < d; ++i)
                for (j = 0; j < d; ++j) w->S1[i * d + j] = w->R[j * d + i];
            /* X' = U' S' V'^T: F(X') and D V', the next step's first product [line 6];
               keep gets X''s rows of D (a retry of this step sweeps), and
               fused the sweep makes D^T M V at X' for the step that follows
               X''s acceptance (lambda grown back as below) */
            st.keep_valid = 0;
            st.g_lambda = ro_sgns__next_lambda(cfg, lambda);
            if (res == RO_SGNS_OK)
                res = ro_sgns__f_and_dv(&st, w->U1, w->S1, w->V1, w->DV1, &F1, err);
            if (res == RO_SGNS_OK) /* |X' - X|_F, for the progress report */
                res = ro_sgns__step_norm(&st, x, &norm, err);
            res = ro_sgns__sum_shards_double(comm, res, &F1, err);
            /* the safeguard: keep X' if F did not fall, else halve lambda */
            verdict = ro_sgns__verdict(cfg, &res, F1, F, &halvings, it, x, err);
            if (verdict > 0) break;
            if (verdict < 0) goto done;
            lambda *= 0.5;
        }
        ro_sgns__accept(&st, x);
        /* the step size of the next step: grow back after an accepted one */
        if (cfg->safeguard) x->next_step = ro_sgns__next_lambda(cfg, lambda);
        res = ro_sgns__report(comm, cfg, x, F1, F, lambda, norm, halvings, t0, err);
        F = F1;
        if (res != RO_SGNS_OK) goto done; /* an error, or RO_SGNS_STOPPED */
        if (cfg->safeguard) lambda = x->next_step;
    }
    res = ro_sgns__ok(err);
done:
    ro_sgns__ro_step_free(&st);
    return res;
}

/* ======================================================================
   II.6b The metric direction: the Riemannian gradient in B's metric
        (direction = RO_SGNS_DIRECTION_METRIC; RO_SGNS_NO_METRIC leaves it
        out)

   No Part I twin: its dense check lives in the repository's
   tests/test_ro.c (test_metric_direction: g, L and the CG residual
   against n x m matrices formed there, with I.7's P_T).

   Why: the scaled direction grad F / B stops where P_T(grad F / B) = 0,
   which is not where P_T(grad F) = 0 (docs/DESIGN.md, II.6b).
   What: measure tangent vectors by B, <xi, eta>_B = sum_wc B_wc xi_wc
   eta_wc, and step along the gradient in that metric: the xi in T with
       <xi, eta>_B = <grad F, eta>  for every eta in T,  i.e.
       L(xi) = P_T(B o xi) = P_T(grad F) = g.
   L is symmetric positive definite on T, so xi = 0 exactly where g = 0,
   and <g, xi> = <xi, xi>_B > 0: an ascent direction with B's scaling
   (Mishra and Sepulchre 2016 call this Riemannian preconditioning).
   How, in O((n + m) d^2) a product and no n x m matrix: a tangent vector
   is xi = U K V^T + Up V^T + U Vp^T with U^T Up = 0, V^T Vp = 0 (K d x d,
   Up n x d, Vp m x d); B = b c^T is rank one, so B o xi = Db xi Dc (Db,
   Dc the diagonal matrices of b = rowfac, c = colfac) has rank 3d in
   factored form, and with Ab = U^T Db U, Cc = V^T Dc V,
   Abp = U^T Db Up, Ccp = Vp^T Dc V:
       K'  = U^T (B o xi) V = Ab (K Cc + Ccp) + Abp Cc
       Up' = (B o xi) V - U K'   = Db U (K Cc + Ccp) + Db Up Cc - U K'
       Vp' = (B o xi)^T U - V K'^T = Dc V (K^T Ab + Abp^T) + Dc Vp Ab - V K'^T
   g needs G V and G^T U, the two sweeps of ro_sgns_tangent_norm:
   K = U^T G V, Up = G V - U K, Vp = G^T U - V K^T. L(xi) = g is solved
   by preconditioned conjugate gradients (cg_iterations of them) from 0,
   the preconditioner the block diagonal of L with the projections left
   out: K -> Ab^-1 K Cc^-1, Up -> (I - U U^T) Db^-1 Up Cc^-1,
   Vp -> (I - V V^T) Dc^-1 Vp Ab^-1 (cg_iterations = 0: that alone). Every
   iterate of CG from 0 is an ascent direction, and 0 only where g is.
   The step is then the paper's projector splitting with xi in place of
   D: M = X + lambda xi, and since xi V = U K + Up,
       M V    = U (S + lambda K) + lambda Up
       M^T U' = V (S^T T + lambda (K^T T + Up^T U')) + lambda Vp T,
                T = U^T U'
   both without a sweep. One machine only (not on shards); fuse and
   keep_direction_bytes do not apply. Cost: docs/DESIGN.md, II.6b.
   ====================================================================== */

#ifndef RO_SGNS_NO_METRIC

/* A tangent vector at X: K (d x d), Up (n x d), Vp (m x d), one array of
   (d + n + m) d reals in that order. */
typedef struct ro_sgns__metric {
    size_t n, m, d;
    const ro_sgns_real *U, *V;
    const double *b;            /* rowfac: B = b c^T */
    const ro_sgns_real *c;      /* colfac */
    ro_sgns_real *bU, *cV;      /* Db U (n x d), Dc V (m x d) */
    ro_sgns_real *Ab, *Cc, *Abi, *Cci; /* d x d each */
    ro_sgns_real *tn, *tm;      /* scratch: n x d, m x d */
    ro_sgns_real *dd;           /* scratch: 3 d x d */
    double *chol;               /* 2 d x d doubles */
    const ro_sgns_allocator *al;
} ro_sgns__metric;

static size_t ro_sgns__tan_len(const ro_sgns__metric *mt)
{
    return (mt->d + mt->n + mt->m) * mt->d;
}

static double ro_sgns__tan_dot(size_t len, const ro_sgns_real *a, const ro_sgns_real *b)
{
    double s = 0;
    size_t i;
    for (i = 0; i < len; ++i) s += (double)a[i] * b[i];
    return s;
}

/* A^-1 for A (d x d) symmetric positive definite, by Cholesky in double:
   A^-1 = R^-1 R^-T. A matrix that is not numerically positive definite
   (a weight of 0 on U's whole span) gets a ridge of 1e-12 of its trace. */
static ro_sgns_result ro_sgns__spd_inverse(ro_sgns__metric *mt, const ro_sgns_real *A,
                                           ro_sgns_real *Ai, ro_sgns_error *err)
{
    const size_t d = mt->d;
    double *R = mt->chol, *work = mt->chol + d * d, tr = 0;
    ro_sgns_real *Ri = mt->dd;
    size_t i, j;
    int attempt;
    for (i = 0; i < d; ++i) tr += (double)A[i * d + i];
    for (attempt = 0; attempt < 2; ++attempt) { /* A, then A with the ridge */
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) R[i * d + j] = j >= i ? (double)A[i * d + j] : 0;
        if (attempt) for (i = 0; i < d; ++i) R[i * d + i] += 1e-12 * (tr > 0 ? tr : 1);
        if (ro_sgns__cholesky_in_place(d, R)) break;
    }
    if (attempt == 2)
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                             "ro_train: the metric's d x d weights are not positive "
                             "definite (NaN, or no weight on the point's span)");
    ro_sgns__inverse_upper(d, R, work, Ri);
    return ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, d, d, d, 1, Ri, d, Ri, d, 0, Ai, d,
                        mt->al, err);
}

/* What L and the preconditioner need of the point: Db U, Dc V, Ab, Cc
   and their inverses. */
static ro_sgns_result ro_sgns__metric_at(ro_sgns__metric *mt, const ro_sgns_real *U,
                                         const ro_sgns_real *V, ro_sgns_error *err)
{
    const size_t n = mt->n, m = mt->m, d = mt->d;
    size_t i, j;
    ro_sgns_result res;
    mt->U = U;
    mt->V = V;
    for (i = 0; i < n; ++i)
        for (j = 0; j < d; ++j) mt->bU[i * d + j] = (ro_sgns_real)(mt->b[i] * U[i * d + j]);
    for (i = 0; i < m; ++i)
        for (j = 0; j < d; ++j) mt->cV[i * d + j] = mt->c[i] * V[i * d + j];
    res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, n, 1, U, d, mt->bU, d, 0, mt->Ab, d,
                       mt->al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, m, 1, V, d, mt->cV, d, 0, mt->Cc,
                           d, mt->al, err);
    if (res == RO_SGNS_OK) res = ro_sgns__spd_inverse(mt, mt->Ab, mt->Abi, err);
    if (res == RO_SGNS_OK) res = ro_sgns__spd_inverse(mt, mt->Cc, mt->Cci, err);
    return res;
}

/* One side of L's output: Out (rows x d) = (Dw In) A + Dq C2 - Q op(K1),
   on the words' side (ctx 0: rows n, Dw = diag(b) in double, Dq = Db U,
   Q = U, op(K1) = K1) or the contexts' (ctx 1: rows m, Dw = diag(c),
   Dq = Dc V, Q = V, op(K1) = K1^T); the side's tn or tm is scratch. */
static ro_sgns_result ro_sgns__metric_part(const ro_sgns__metric *mt, int ctx,
                                           const ro_sgns_real *In, const ro_sgns_real *A,
                                           const ro_sgns_real *C2, const ro_sgns_real *K1,
                                           ro_sgns_real *Out, ro_sgns_error *err)
{
    const size_t rows = ctx ? mt->m : mt->n;
    const double *wd = ctx ? NULL : mt->b;
    const ro_sgns_real *wr = ctx ? mt->c : NULL, *Dq = ctx ? mt->cV : mt->bU;
    const ro_sgns_real *Q = ctx ? mt->V : mt->U;
    const ro_sgns_trans tk = ctx ? RO_SGNS_TRANS : RO_SGNS_NOTRANS;
    ro_sgns_real *tmp = ctx ? mt->tm : mt->tn;
    const size_t d = mt->d;
    size_t i, j;
    ro_sgns_result res;
    for (i = 0; i < rows; ++i) {
        const double w = wd ? wd[i] : (double)wr[i];
        for (j = 0; j < d; ++j) tmp[i * d + j] = (ro_sgns_real)(w * In[i * d + j]);
    }
    res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, rows, d, d, 1, tmp, d, A, d, 0, Out, d,
                       mt->al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, rows, d, d, 1, Dq, d, C2, d, 1, Out,
                           d, mt->al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, tk, rows, d, d, -1, Q, d, K1, d, 1, Out, d, mt->al,
                           err);
    return res;
}

/* out = L(in) = P_T(B o in), the formulas of the banner */
static ro_sgns_result ro_sgns__metric_apply(ro_sgns__metric *mt, const ro_sgns_real *in,
                                            ro_sgns_real *out, ro_sgns_error *err)
{
    const size_t n = mt->n, m = mt->m, d = mt->d;
    const ro_sgns_real *K = in, *Up = in + d * d, *Vp = in + d * d + n * d;
    ro_sgns_real *K1 = out, *Up1 = out + d * d, *Vp1 = out + d * d + n * d;
    ro_sgns_real *Abp = mt->dd, *Ccp = mt->dd + d * d, *KC = mt->dd + 2 * d * d;
    const ro_sgns_allocator *al = mt->al;
    size_t i, j;
    ro_sgns_result res;
    res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, n, 1, mt->bU, d, Up, d, 0, Abp, d,
                       al, err);
    if (res == RO_SGNS_OK) /* Ccp = Vp^T Dc V */
        res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, m, 1, Vp, d, mt->cV, d, 0, Ccp,
                           d, al, err);
    if (res == RO_SGNS_OK) { /* KC = K Cc + Ccp */
        memcpy(KC, Ccp, d * d * sizeof(ro_sgns_real));
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, K, d, mt->Cc, d, 1, KC,
                           d, al, err);
    }
    if (res == RO_SGNS_OK) /* K' = Ab KC + Abp Cc */
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, Abp, d, mt->Cc, d, 0, K1,
                           d, al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, mt->Ab, d, KC, d, 1, K1,
                           d, al, err);
    /* Up' = (Db Up) Cc + Db U KC - U K' */
    if (res == RO_SGNS_OK)
        res = ro_sgns__metric_part(mt, 0, Up, mt->Cc, KC, K1, Up1, err);
    /* Vp' = (Dc Vp) Ab + Dc V (K^T Ab + Abp^T) - V K'^T; KC is free again */
    if (res == RO_SGNS_OK) {
        for (i = 0; i < d; ++i)
            for (j = 0; j < d; ++j) KC[i * d + j] = Abp[j * d + i];
        res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, d, 1, K, d, mt->Ab, d, 1, KC, d,
                           al, err);
    }
    if (res == RO_SGNS_OK)
        res = ro_sgns__metric_part(mt, 1, Vp, mt->Ab, KC, K1, Vp1, err);
    return res;
}

/* Y (rows x d) -= Q (Q^T Y): the part of Y orthogonal to Q's columns */
static ro_sgns_result ro_sgns__metric_perp(const ro_sgns__metric *mt, size_t rows,
                                           const ro_sgns_real *Q, ro_sgns_real *Y,
                                           ro_sgns_error *err)
{
    const size_t d = mt->d;
    ro_sgns_real *QtY = mt->dd + 2 * d * d;
    ro_sgns_result res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, rows, 1, Q, d, Y, d,
                                      0, QtY, d, mt->al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, rows, d, d, -1, Q, d, QtY, d, 1, Y, d,
                           mt->al, err);
    return res;
}

/* out = the preconditioner applied to in (the banner's block diagonal) */
static ro_sgns_result ro_sgns__metric_precond(ro_sgns__metric *mt, const ro_sgns_real *in,
                                              ro_sgns_real *out, ro_sgns_error *err)
{
    const size_t n = mt->n, m = mt->m, d = mt->d;
    const ro_sgns_allocator *al = mt->al;
    ro_sgns_real *T = mt->dd;
    size_t i, j;
    ro_sgns_result res;
    res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, mt->Abi, d, in, d, 0, T, d,
                       al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, d, d, d, 1, T, d, mt->Cci, d, 0, out,
                           d, al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, 1, in + d * d, d, mt->Cci,
                           d, 0, out + d * d, d, al, err);
    for (i = 0; res == RO_SGNS_OK && i < n; ++i) {
        const double s = mt->b[i] > 0 ? 1 / mt->b[i] : 0; /* a word never seen: no weight */
        ro_sgns_real *row = out + d * d + i * d;
        for (j = 0; j < d; ++j) row[j] = (ro_sgns_real)(s * row[j]);
    }
    if (res == RO_SGNS_OK) res = ro_sgns__metric_perp(mt, n, mt->U, out + d * d, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, d, d, 1, in + d * d + n * d, d,
                           mt->Abi, d, 0, out + d * d + n * d, d, al, err);
    for (i = 0; res == RO_SGNS_OK && i < m; ++i) {
        const double s = mt->c[i] > 0 ? 1 / (double)mt->c[i] : 0;
        ro_sgns_real *row = out + d * d + n * d + i * d;
        for (j = 0; j < d; ++j) row[j] = (ro_sgns_real)(s * row[j]);
    }
    if (res == RO_SGNS_OK) res = ro_sgns__metric_perp(mt, m, mt->V, out + d * d + n * d, err);
    return res;
}

/* g = P_T(G) from G V and G^T U at X: K = U^T G V, Up = G V - U K,
   Vp = G^T U - V K^T */
static ro_sgns_result ro_sgns__metric_grad(ro_sgns__metric *mt, const ro_sgns_real *GV,
                                           const ro_sgns_real *GtU, ro_sgns_real *g,
                                           ro_sgns_error *err)
{
    const size_t n = mt->n, m = mt->m, d = mt->d;
    ro_sgns_result res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, n, 1, mt->U, d, GV,
                                      d, 0, g, d, mt->al, err);
    memcpy(g + d * d, GV, n * d * sizeof(ro_sgns_real));
    memcpy(g + d * d + n * d, GtU, m * d * sizeof(ro_sgns_real));
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, -1, mt->U, d, g, d, 1,
                           g + d * d, d, mt->al, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, m, d, d, -1, mt->V, d, g, d, 1,
                           g + d * d + n * d, d, mt->al, err);
    return res;
}

/* xi from L(xi) = g by preconditioned CG from 0, iters iterations (0:
   the preconditioner alone). r, z, p, q: scratch tangent vectors; g is
   overwritten (it is r's start). */
static ro_sgns_result ro_sgns__metric_solve(ro_sgns__metric *mt, int iters, ro_sgns_real *g,
                                            ro_sgns_real *xi, ro_sgns_real *z, ro_sgns_real *p,
                                            ro_sgns_real *q, ro_sgns_error *err)
{
    const size_t len = ro_sgns__tan_len(mt);
    ro_sgns_real *r = g;
    double rz, pq, alpha, beta, rz1;
    size_t i;
    int it;
    ro_sgns_result res = ro_sgns__metric_precond(mt, r, z, err);
    if (res != RO_SGNS_OK) return res;
    if (iters <= 0) {
        memcpy(xi, z, len * sizeof(ro_sgns_real));
        return RO_SGNS_OK;
    }
    memset(xi, 0, len * sizeof(ro_sgns_real));
    memcpy(p, z, len * sizeof(ro_sgns_real));
    rz = ro_sgns__tan_dot(len, r, z);
    for (it = 0; it < iters; ++it) {
        res = ro_sgns__metric_apply(mt, p, q, err);
        if (res != RO_SGNS_OK) return res;
        pq = ro_sgns__tan_dot(len, p, q);
        if (!(pq > 0) || !(rz > 0)) break; /* converged to rounding */
        alpha = rz / pq;
        for (i = 0; i < len; ++i) xi[i] += (ro_sgns_real)(alpha * p[i]);
        if (it + 1 == iters) break;
        for (i = 0; i < len; ++i) r[i] -= (ro_sgns_real)(alpha * q[i]);
        res = ro_sgns__metric_precond(mt, r, z, err);
        if (res != RO_SGNS_OK) return res;
        rz1 = ro_sgns__tan_dot(len, r, z);
        beta = rz1 / rz;
        rz = rz1;
        for (i = 0; i < len; ++i) p[i] = (ro_sgns_real)(z[i] + beta * p[i]);
    }
    return RO_SGNS_OK;
}

/* ro_sgns__ro_run for the metric direction (II.6b): the same loop, the
   same safeguard and reports; x is updated only when a step is accepted. */
static ro_sgns_result ro_sgns__ro_run_metric(const ro_sgns_problem *p, ro_sgns_factors *x,
                                             const ro_sgns_ro_config *cfg, ro_sgns_error *err)
{
    const ro_sgns_allocator *al = ro_sgns__problem_alloc(p);
    const size_t n = x->n, m = x->m, d = x->d, len = (d + n + m) * d;
    const ro_sgns_direction grad = RO_SGNS_DIRECTION_PLAIN; /* the sweeps make G V, G^T U */
    ro_sgns__ro_step st;
    ro_sgns__ro_work *w = &st.w;
    ro_sgns__metric mt;
    ro_sgns__block_report rep, *r = NULL;
    ro_sgns_real *GtU, *tv, *g, *xi, *z, *pp, *q, *swap;
    double F, F1 = 0, lambda, norm = 0;
    int it, ok, verdict;
    size_t i, j;
    ro_sgns_result res;
    ro_sgns__ro_step_init(&st, p, cfg, d);
    memset(&mt, 0, sizeof mt);
    res = ro_sgns__ro_work_alloc(w, n, m, d, al, err);
    if (res != RO_SGNS_OK) return res;
    mt.n = n, mt.m = m, mt.d = d, mt.al = al;
    mt.b = p->fwd.rowfac;
    mt.c = p->fwd.colfac;
    mt.bU = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, sizeof(ro_sgns_real));
    mt.cV = (ro_sgns_real *)ro_sgns__alloc_array(al, m, d, sizeof(ro_sgns_real));
    mt.tn = (ro_sgns_real *)ro_sgns__alloc_array(al, n, d, sizeof(ro_sgns_real));
    mt.tm = (ro_sgns_real *)ro_sgns__alloc_array(al, m, d, sizeof(ro_sgns_real));
    mt.Ab = (ro_sgns_real *)ro_sgns__alloc_array(al, 7 * d, d, sizeof(ro_sgns_real));
    mt.chol = (double *)ro_sgns__alloc_array(al, 2 * d, d, sizeof(double));
    GtU = (ro_sgns_real *)ro_sgns__alloc_array(al, m, d, sizeof(ro_sgns_real));
    tv = (ro_sgns_real *)ro_sgns__alloc_array(al, 5, len, sizeof(ro_sgns_real));
    ok = mt.bU && mt.cV && mt.tn && mt.tm && mt.Ab && mt.chol && GtU && tv;
    if (!ok) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "ro_train: cannot allocate the metric direction's blocks (n = %lu, "
                            "m = %lu, d = %lu)",
                            (unsigned long)n, (unsigned long)m, (unsigned long)d);
        goto done;
    }
    mt.Cc = mt.Ab + d * d, mt.Abi = mt.Ab + 2 * d * d, mt.Cci = mt.Ab + 3 * d * d;
    mt.dd = mt.Ab + 4 * d * d;
    g = tv, xi = tv + len, z = tv + 2 * len, pp = tv + 3 * len, q = tv + 4 * len;
    lambda = ro_sgns__first_lambda(cfg, x);
    r = ro_sgns__reports_init(&rep, cfg, x, lambda);
    /* F(X) and G V at the start; each step begins with G^T U at its X */
    res = ro_sgns__sweep_point(p, grad, 0, ro_sgns__usv_of(d, x->U, x->S, x->V), w->T, w->DV,
                               &F, cfg, r, err);
    for (it = 0; res == RO_SGNS_OK && it < cfg->iterations; ++it) { /* [line 3] */
        double t0 = ro_sgns__now();
        int halvings = 0;
        ro_sgns_real *UtU = w->V1 + m * d, *Kt = w->A, *SK = w->A + d * d; /* A: 3 d x d */
        const ro_sgns_real *K, *Up, *Vp;
        rep.t0 = t0;
        rep.pr.iteration = x->iteration;
        rep.pr.objective = F;
        rep.pr.sweep = 0;
        /* xi: L(xi) = P_T(grad F), from G V (the last sweep's) and G^T U */
        res = ro_sgns__sweep_point(p, grad, 1, ro_sgns__usv_of(d, x->U, x->S, x->V), w->T, GtU,
                                   NULL, cfg, r, err);
        if (res == RO_SGNS_OK) res = ro_sgns__metric_at(&mt, x->U, x->V, err);
        if (res == RO_SGNS_OK) res = ro_sgns__metric_grad(&mt, w->DV, GtU, g, err);
        if (res == RO_SGNS_OK)
            res = ro_sgns__metric_solve(&mt, cfg->cg_iterations, g, xi, z, pp, q, err);
        if (res != RO_SGNS_OK) goto done;
        K = xi, Up = xi + d * d, Vp = xi + d * d + n * d;
        for (;;) { /* one try of the step lambda */
            rep.pr.step = lambda;
            rep.pr.halvings = halvings;
            /* U', S' = QR(M V), M V = U (S + lambda K) + lambda Up       [line 4] */
            for (i = 0; i < d * d; ++i) SK[i] = x->S[i] + (ro_sgns_real)lambda * K[i];
            memcpy(w->U1, Up, n * d * sizeof(ro_sgns_real));
            res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, 1, x->U, d, SK, d,
                               (ro_sgns_real)lambda, w->U1, d, al, err);
            if (res == RO_SGNS_OK) res = ro_sgns__qr_step(n, d, w->U1, w->R, w->T, al, err);
            /* V', S'^T = QR(M^T U'),                                    [line 5]
               M^T U' = V ((S + lambda K)^T T + lambda Up^T U') + lambda Vp T */
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, n, 1, x->U, d, w->U1, d,
                                   0, UtU, d, al, err);
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, n, (ro_sgns_real)lambda,
                                   Up, d, w->U1, d, 0, Kt, d, al, err);
            if (res == RO_SGNS_OK) /* Kt += (S + lambda K)^T T */
                res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, d, d, d, 1, SK, d, UtU, d, 1,
                                   Kt, d, al, err);
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, d, d, 1, x->V, d, Kt, d, 0,
                                   w->V1, d, al, err);
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, d, d, (ro_sgns_real)lambda,
                                   Vp, d, UtU, d, 1, w->V1, d, al, err);
            if (res == RO_SGNS_OK) res = ro_sgns__qr_step(m, d, w->V1, w->R, w->T, al, err);
            for (i = 0; res == RO_SGNS_OK && i < d; ++i)
                for (j = 0; j < d; ++j) w->S1[i * d + j] = w->R[j * d + i];
            /* F(X') and G V' (the next step's)                         [line 6] */
            if (res == RO_SGNS_OK)
                res = ro_sgns__sweep_point(p, grad, 0, ro_sgns__usv_of(d, w->U1, w->S1, w->V1),
                                           w->T, w->DV1, &F1, cfg, r, err);
            if (res == RO_SGNS_OK) res = ro_sgns__step_norm(&st, x, &norm, err);
            verdict = ro_sgns__verdict(cfg, &res, F1, F, &halvings, it, x, err);
            if (verdict > 0) break;
            if (verdict < 0) goto done;
            lambda *= 0.5;
        }
        /* accept X': the factors and G V' */
        memcpy(x->U, w->U1, n * d * sizeof(ro_sgns_real));
        memcpy(x->V, w->V1, m * d * sizeof(ro_sgns_real));
        memcpy(x->S, w->S1, d * d * sizeof(ro_sgns_real));
        swap = w->DV, w->DV = w->DV1, w->DV1 = swap;
        ++x->iteration;
        ro_sgns__stamp(p, x);
        if (cfg->safeguard) x->next_step = ro_sgns__next_lambda(cfg, lambda);
        res = ro_sgns__report(NULL, cfg, x, F1, F, lambda, norm, halvings, t0, err);
        F = F1;
        if (res != RO_SGNS_OK) goto done; /* an error, or RO_SGNS_STOPPED */
        if (cfg->safeguard) lambda = x->next_step;
    }
    if (res == RO_SGNS_OK) res = ro_sgns__ok(err);
done:
    ro_sgns__ro_work_free(w, al);
    ro_sgns__free(al, mt.bU);
    ro_sgns__free(al, mt.cV);
    ro_sgns__free(al, mt.tn);
    ro_sgns__free(al, mt.tm);
    ro_sgns__free(al, mt.Ab);
    ro_sgns__free(al, mt.chol);
    ro_sgns__free(al, GtU);
    ro_sgns__free(al, tv);
    return res;
}

#else /* RO_SGNS_NO_METRIC: the direction is known, its step not compiled in */

static ro_sgns_result ro_sgns__ro_run_metric(const ro_sgns_problem *p, ro_sgns_factors *x,
                                             const ro_sgns_ro_config *cfg, ro_sgns_error *err)
{
    (void)p;
    (void)x;
    (void)cfg;
    return ro_sgns__fail(err, RO_SGNS_ERR_UNSUPPORTED,
                         "ro_train: the metric direction is not in this build "
                         "(RO_SGNS_NO_METRIC); use the scaled or the plain one");
}

#endif /* RO_SGNS_NO_METRIC */

RO_SGNS_DEF ro_sgns_result ro_sgns_ro_train(const ro_sgns_problem *p, ro_sgns_factors *x,
                                            const ro_sgns_ro_config *config,
                                            ro_sgns_error *err)
{
    ro_sgns_ro_config cfg = config ? *config : ro_sgns_ro_config_default();
    ro_sgns_result res;
    if (!x) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "ro_train: NULL point");
    res = ro_sgns__check_fit(p, x->n, x->m, err);
    if (res == RO_SGNS_OK && (p->r0 != 0 || p->r1 != p->n))
        res = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                            "ro_train: a shard of rows %lu..%lu needs ro_sgns_ro_train_shard",
                            (unsigned long)p->r0, (unsigned long)p->r1);
    if (res == RO_SGNS_OK && (x->d == 0 || x->d > x->n || x->d > x->m))
        res = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                            "ro_train: d = %lu must be between 1 and min(n, m)",
                            (unsigned long)x->d);
    if (res == RO_SGNS_OK) res = ro_sgns__check_config(&cfg, err);
    if (res != RO_SGNS_OK) return res;
    if (cfg.direction == RO_SGNS_DIRECTION_METRIC) return ro_sgns__ro_run_metric(p, x, &cfg, err);
    return ro_sgns__ro_run(p, NULL, x, &cfg, err);
}

/* ro_sgns_estimate_step_seconds' measurement: the faster step's seconds */
static int ro_sgns__fastest_step(const ro_sgns_ro_progress *pr, const ro_sgns_factors *x,
                                 void *user)
{
    double *best = (double *)user;
    (void)x;
    if (!pr->within_step && (*best < 0 || pr->seconds < *best)) *best = pr->seconds;
    return 0;
}

/* ro_sgns_estimate_step_seconds' model of a step's work */
static double ro_sgns__step_work(size_t n, size_t m, size_t d)
{
    const double nn = (double)n, mm = (double)m, dd = (double)d;
    return 6 * nn * mm * dd + 40 * nn * mm + 12 * (nn + mm) * dd * dd;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_estimate_step_seconds(size_t n, size_t m, size_t d,
                                                         double *rate, double *seconds,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    /* a problem of s x s (fewer when n or m is smaller), 8 counts a row at
       scattered columns, and a Gaussian point; two steps at a fixed step.
       A probe smaller than the problem has rank at most half its size (pd):
       the rate of its products stands for d's, and it stays cheap */
    const size_t per_row = 8;
    size_t s = 2304, rs, cs, pd, i, j;
    uint64_t *row_ptr = NULL;
    uint32_t *col = NULL;
    float *val = NULL;
    ro_sgns_problem *p = NULL;
    ro_sgns_factors *x = NULL;
    ro_sgns_ro_config cfg = ro_sgns_ro_config_default();
    ro_sgns_rng rng;
    double best = -1;
    ro_sgns_result res;
    if (!rate || !seconds || d == 0 || d > n || d > m)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "estimate_step_seconds: need rate, seconds and 1 <= d <= min(n, m)");
    if (*rate > 0 && ro_sgns__is_finite(*rate)) {
        *seconds = ro_sgns__step_work(n, m, d) / *rate;
        return ro_sgns__ok(err);
    }
    rs = n < s ? n : s;
    cs = m < s ? m : s;
    pd = d;
    if (2 * pd > (rs < cs ? rs : cs) && (rs < n || cs < m)) pd = (rs < cs ? rs : cs) / 2;
    row_ptr = (uint64_t *)ro_sgns__alloc_array(alloc, rs + 1, 1, sizeof *row_ptr);
    col = (uint32_t *)ro_sgns__alloc_array(alloc, rs, per_row, sizeof *col);
    val = (float *)ro_sgns__alloc_array(alloc, rs, per_row, sizeof *val);
    res = row_ptr && col && val ? RO_SGNS_OK
                                : ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                                "estimate_step_seconds: out of memory");
    if (res == RO_SGNS_OK) {
        uint64_t k = 0;
        const size_t stride = cs / per_row; /* one count in each stretch of columns */
        row_ptr[0] = 0;
        for (i = 0; i < rs; ++i) {
            for (j = 0; j < per_row && stride > 0; ++j, ++k) {
                col[k] = (uint32_t)(j * stride + (i * 7 + j * 13) % stride);
                val[k] = (float)(1 + (i + j) % 5);
            }
            if (stride == 0) { /* fewer columns than counts a row */
                col[k] = (uint32_t)(i % cs);
                val[k++] = 1;
            }
            row_ptr[i + 1] = k;
        }
        res = ro_sgns_problem_create_csr(rs, cs, row_ptr, col, val, 5, 1, &p, alloc, err);
    }
    if (res == RO_SGNS_OK) res = ro_sgns_factors_create(rs, cs, pd, &x, alloc, err);
    if (res == RO_SGNS_OK) {
        ro_sgns_rng_seed(&rng, 1, 0);
        for (i = 0; i < rs * pd; ++i) x->U[i] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
        for (i = 0; i < cs * pd; ++i) x->V[i] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
        for (i = 0; i < pd; ++i) x->S[i * pd + i] = (ro_sgns_real)(1e-3 / (double)pd);
        cfg.iterations = 2;
        cfg.safeguard = 0; /* one try a step, whatever F does */
        cfg.step = 1e-3;
        cfg.callback = ro_sgns__fastest_step;
        cfg.user = &best;
        res = ro_sgns_ro_train(p, x, &cfg, err);
    }
    if (res == RO_SGNS_OK) { /* a clock too coarse to see the step: a microsecond */
        *rate = ro_sgns__step_work(rs, cs, pd) / (best > 1e-6 ? best : 1e-6);
        *seconds = ro_sgns__step_work(n, m, d) / *rate;
    }
    ro_sgns_factors_free(x);
    ro_sgns_problem_free(p);
    ro_sgns__free(alloc, row_ptr);
    ro_sgns__free(alloc, col);
    ro_sgns__free(alloc, val);
    return res;
}

/* ======================================================================
   II.7 The start, fast: the truncated SVD by block Krylov
        [paper 5; Levy and Goldberg 2014]

   Part I twin: ro_sgns_tsvd_naive (I.8), the whole dense SVD; compared in
   the repository's tests/test_sppmi.c (test_tsvd, test_tsvd_edges).

   What: the start point of RO-SGNS and the strongest baseline of the
   paper: X_0 = U_d diag(s_d) V_d^T, the best rank-d approximation of the
   shifted positive PMI matrix A, which stays sparse. Block Krylov (block
   Lanczos with full reorthogonalization; Golub and Underwood 1977, Musco
   and Musco 2015), l = d + p columns in s = l / b blocks of b:
       Omega  = Gaussian, m x b  (seeded, drawn per row block)
       Q_0    = orth(A Omega)
       for i = 1 .. s-1:
           Z_{i-1} = A^T Q_{i-1}
           Q_i     = orth(A Z_{i-1} minus its part in Q_0 .. Q_{i-1})
       Z_{s-1} = A^T Q_{s-1}           Q = [Q_i] (n x l), Z = [Z_i] = A^T Q
       H      = Z^T Z = Ub Sigma^2 Ub^T (l x l: pivoted Cholesky + Jacobi)
       A     ~= (Q Ub) Sigma (Z Ub Sigma^-1)^T -> keep the first d columns.
   Subspace iteration (Halko, Martinsson and Tropp 2011, algorithm 4.4)
   stays available:
       Q = qr(A Omega_l);  q times: Q = qr(A qr(A^T Q));  SVD of Q^T A.
   Determinism: every product is summed row by row in column order; the
   Gaussian matrix is drawn in fixed blocks of rows from per-block streams.
   Shards (II.4, II.8) run these same functions on rows spread over
   processes: the products with A^T, the projections and the QRs of the
   basis go through the transport there; on one machine they are plain.
   Why Krylov, cost and memory: docs/DESIGN.md, II.7.
   ====================================================================== */

#ifndef RO_SGNS_NO_TSVD

#define RO_SGNS__RNG_BLOCK 1024 /* rows per random stream */

RO_SGNS_DEF ro_sgns_tsvd_config ro_sgns_tsvd_config_default(void)
{
    ro_sgns_tsvd_config c;
    c.method = RO_SGNS_TSVD_KRYLOV;
    c.oversample = 0; /* Krylov 2 d, subspace max(50, d / 2) */
    c.block = 0;      /* l / 16 in 8..50 */
    c.power_iters = 5;
    c.seed = 1;
    c.callback = NULL;
    c.user = NULL;
    return c;
}

static double ro_sgns__now(void);

/* Report progress of the truncated SVD after a stage that ended with res;
   RO_SGNS_STOPPED when the callback asks to stop. On shards (cm set) every
   shard calls it at the same points (the same config: a callback on all or
   on none) and the stop is agreed: any shard's stop, or error, stops all. */
static ro_sgns_result ro_sgns__sum_shards_doubles(const ro_sgns_comm *comm, ro_sgns_result res,
                                                  double *buf, size_t count,
                                                  ro_sgns_error *err);
static ro_sgns_result ro_sgns__tsvd_tick(const ro_sgns_tsvd_config *cfg, const ro_sgns_comm *cm,
                                         ro_sgns_result res, size_t done, size_t total,
                                         double t0, ro_sgns_error *err)
{
    ro_sgns_tsvd_progress p;
    double stop = 0;
    if (!cfg || !cfg->callback) return res;
    if (res == RO_SGNS_OK) {
        p.done = done;
        p.total = total;
        p.seconds = ro_sgns__now() - t0;
        stop = cfg->callback(&p, cfg->user) != 0;
    }
    if (cm) res = ro_sgns__sum_shards_doubles(cm, res, &stop, 1, err);
    return res == RO_SGNS_OK && stop != 0 ? RO_SGNS_STOPPED : res;
}

/* Fill the rows x l matrix G with standard normal values; rows are drawn in
   blocks of RO_SGNS__RNG_BLOCK from stream (seed, block). */
static void ro_sgns__gaussian(size_t rows, size_t l, ro_sgns_real *G, uint64_t seed)
{
    long b, nb = (long)((rows + RO_SGNS__RNG_BLOCK - 1) / RO_SGNS__RNG_BLOCK);
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (b = 0; b < nb; ++b) {
        ro_sgns_rng rng;
        size_t i0 = (size_t)b * RO_SGNS__RNG_BLOCK, i1 = ro_sgns__min(rows, i0 + RO_SGNS__RNG_BLOCK), i;
        ro_sgns_rng_seed(&rng, seed, (uint64_t)b);
        for (i = i0 * l; i < i1 * l; ++i) G[i] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
    }
}

/* II.0: one-sided Jacobi on the columns of G (V NULL: no rotations kept). */
static ro_sgns_result ro_sgns__jacobi(size_t m, size_t n, double *G, double *V,
                                      ro_sgns_error *err);

/* What the truncated SVD needs from other shards when the rows of A are
   spread over processes (II.8, ro_sgns_tsvd_shard; the step shares
   them, II.6): with comm NULL (one machine) the first is ro_sgns_qr
   and the others do nothing, so the arithmetic is that of one process.
   Each takes the result so far; on shards an error anywhere reaches every
   shard there, and every shard returns the same code. */
static ro_sgns_result ro_sgns__qr_rows_ld(const ro_sgns_comm *comm, ro_sgns_result res, size_t n,
                                          size_t d, ro_sgns_real *A, size_t lda, ro_sgns_real *R,
                                          const ro_sgns_allocator *al, ro_sgns_error *err);
static ro_sgns_result ro_sgns__sum_shards_ld(const ro_sgns_comm *comm, ro_sgns_result res,
                                             ro_sgns_real *buf, size_t rows, size_t cols,
                                             size_t ld, ro_sgns_error *err);
static ro_sgns_result ro_sgns__sum_shards_doubles(const ro_sgns_comm *comm, ro_sgns_result res,
                                                  double *buf, size_t count,
                                                  ro_sgns_error *err);

/* The QR of a block of rows spread over the shards, its result the same on
   every shard (TSQR's last local steps can fail on one shard alone), so
   that every shard takes the same branch after it. One machine: a QR. */
static ro_sgns_result ro_sgns__tsvd_qr(const ro_sgns_comm *cm, ro_sgns_result res, size_t n,
                                       size_t w, ro_sgns_real *Y, size_t ldy, ro_sgns_real *R,
                                       const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    res = ro_sgns__qr_rows_ld(cm, res, n, w, Y, ldy, R, alloc, err);
    return cm ? ro_sgns__sum_shards_doubles(cm, res, NULL, 0, err) : res;
}

/* A truncated SVD under way (ro_sgns__tsvd_run): A and where its rows
   are, the sizes, the settings, and where the result goes. On a shard
   (cm set; II.4) A holds the shard's rows, the first of them row r0
   of the whole, and f receives U's rows for them. */
typedef struct ro_sgns__tsvd_job {
    const ro_sgns_csr *A, *At; /* At: A^T, or NULL when A is symmetric */
    const ro_sgns_comm *cm;
    size_t r0, d, l, b; /* rank d, l columns of search space in blocks of b */
    const ro_sgns_tsvd_config *cfg;
    ro_sgns_factors *f;
    const ro_sgns_allocator *alloc;
    ro_sgns_error *err;
} ro_sgns__tsvd_job;

/* Randomized subspace iteration (see ro_sgns_tsvd_method) into t->f: l
   columns, q power iterations. On a shard Q and U are its rows, A^T Q is
   summed over the shards and Q is orthonormalized by TSQR. */
static ro_sgns_result ro_sgns__tsvd_subspace(const ro_sgns__tsvd_job *t, int q)
{
    const double t0 = ro_sgns__now();
    const size_t total = (size_t)q + 3; /* A Omega, q pairs of passes, A^T Q, the small SVD */
    const ro_sgns_csr *A = t->A, *At = t->At ? t->At : t->A;
    const ro_sgns_comm *cm = t->cm;
    const ro_sgns_tsvd_config *cfg = t->cfg;
    const ro_sgns_allocator *alloc = t->alloc;
    ro_sgns_error *err = t->err;
    size_t n = A->rows, m = A->cols, l = t->l, d = t->d, i;
    ro_sgns_real *Q, *Z, *R, *Ub, *Vb, *sb;
    int it;
    ro_sgns_result res = RO_SGNS_OK;
    Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, l, sizeof(ro_sgns_real));
    Z = (ro_sgns_real *)ro_sgns__alloc_array(alloc, m > n ? m : n, l, sizeof(ro_sgns_real));
    R = (ro_sgns_real *)ro_sgns__alloc_array(alloc, l, l, sizeof(ro_sgns_real));
    Ub = (ro_sgns_real *)ro_sgns__alloc_array(alloc, l, l, sizeof(ro_sgns_real));
    Vb = (ro_sgns_real *)ro_sgns__alloc_array(alloc, l, l, sizeof(ro_sgns_real));
    sb = (ro_sgns_real *)ro_sgns__alloc_array(alloc, l, 1, sizeof(ro_sgns_real));
    if (!Q || !Z || !R || !Ub || !Vb || !sb)
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "tsvd: cannot allocate the %lu x %lu blocks", (unsigned long)n,
                            (unsigned long)l);
    res = ro_sgns__sum_shards_doubles(cm, res, NULL, 0, err);
    if (res != RO_SGNS_OK) goto done;
    /* Q = qr(A Omega) */
    ro_sgns__gaussian(m, l, Z, cfg->seed);
    ro_sgns__csr_mm(A, l, Z, l, Q, l);
    res = ro_sgns__tsvd_qr(cm, res, n, l, Q, l, R, alloc, err);
    res = ro_sgns__tsvd_tick(cfg, cm, res, 1, total, t0, err);
    /* q power iterations, re-orthonormalized on both sides */
    for (it = 0; it < q && res == RO_SGNS_OK; ++it) {
        ro_sgns__csr_mm(At, l, Q, l, Z, l);
        res = ro_sgns__sum_shards_ld(cm, res, Z, m, l, l, err);
        if (res == RO_SGNS_OK) res = ro_sgns_qr(m, l, Z, l, R, l, alloc, err);
        if (res == RO_SGNS_OK) ro_sgns__csr_mm(A, l, Z, l, Q, l);
        res = ro_sgns__tsvd_qr(cm, res, n, l, Q, l, R, alloc, err);
        res = ro_sgns__tsvd_tick(cfg, cm, res, (size_t)it + 2, total, t0, err);
    }
    /* B^T = A^T Q = Q2 R2;  R2^T = Ub Sigma Vb^T */
    if (res == RO_SGNS_OK) ro_sgns__csr_mm(At, l, Q, l, Z, l);
    res = ro_sgns__sum_shards_ld(cm, res, Z, m, l, l, err);
    if (res == RO_SGNS_OK) res = ro_sgns_qr(m, l, Z, l, R, l, alloc, err);
    res = ro_sgns__sum_shards_doubles(cm, res, NULL, 0, err);
    res = ro_sgns__tsvd_tick(cfg, cm, res, total - 1, total, t0, err);
    if (res != RO_SGNS_OK) goto done;
    for (i = 0; i < l; ++i) { /* R <- R^T in place */
        size_t j;
        for (j = i + 1; j < l; ++j) {
            ro_sgns_real x = R[i * l + j];
            R[i * l + j] = R[j * l + i];
            R[j * l + i] = x;
        }
    }
    res = ro_sgns_svd(l, l, R, l, Ub, l, sb, Vb, l, alloc, err);
    /* U = Q Ub(:, :d), V = Q2 Vb(:, :d), S = diag(s(:d)) */
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, l, 1, Q, l, Ub, l, 0, t->f->U,
                           d, alloc, err);
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, d, l, 1, Z, l, Vb, l, 0, t->f->V,
                           d, alloc, err);
    if (res == RO_SGNS_OK)
        for (i = 0; i < d; ++i) t->f->S[i * d + i] = sb[i];
    res = ro_sgns__sum_shards_doubles(cm, res, NULL, 0, err); /* U's GEMM was local */
    res = ro_sgns__tsvd_tick(cfg, cm, res, total, total, t0, err);
done:
    ro_sgns__free(alloc, Q);
    ro_sgns__free(alloc, Z);
    ro_sgns__free(alloc, R);
    ro_sgns__free(alloc, Ub);
    ro_sgns__free(alloc, Vb);
    ro_sgns__free(alloc, sb);
    return res;
}

/* Block Krylov's state (ro_sgns__tsvd_krylov): the basis Q (n x l), two
   n x b (or m x b) blocks S1 and S2 for the products, the coefficients C
   (l x b), scratch Rb (max(b, d)^2) and nu (l), H = Q^T A A^T Q (l x l,
   double), and for the end Ud (l x d), sig, piv and order (l each). */
typedef struct ro_sgns__krylov {
    const ro_sgns__tsvd_job *t;
    size_t n, m, l, b, s; /* s: blocks, the last one may be narrower */
    ro_sgns_real *Q, *S1, *S2, *C, *Rb, *Ud;
    double *H, *nu, *sig;
    size_t *piv, *order;
} ro_sgns__krylov;

/* Y (n x w, leading dimension ldy) <- its part orthogonal to the first k
   columns of the basis Q, projected twice (classical Gram-Schmidt twice is
   enough: Giraud et al. 2005). kr->C (k x w, ld ldy) holds the
   coefficients; with have_first the first pass's, Q^T Y, are already in it
   (summed over the shards). On a shard Q and Y are its rows and C = Q^T Y
   is summed. */
static ro_sgns_result ro_sgns__project_out(const ro_sgns__krylov *kr, size_t k, size_t w,
                                           ro_sgns_real *Y, size_t ldy, int have_first)
{
    const ro_sgns__tsvd_job *t = kr->t;
    int pass;
    ro_sgns_result res = RO_SGNS_OK;
    /* both passes run on every shard whatever failed where: a failure
       reaches the others at the next sum (or the caller's QR) */
    for (pass = 0; pass < 2 && k > 0; ++pass) {
        if (pass > 0 || !have_first) {
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, k, w, kr->n, 1, kr->Q, kr->l,
                                   Y, ldy, 0, kr->C, ldy, t->alloc, t->err);
            res = ro_sgns__sum_shards_ld(t->cm, res, kr->C, k, w, ldy, t->err);
        }
        if (res == RO_SGNS_OK)
            res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, kr->n, w, k, -1, kr->Q, kr->l,
                               kr->C, ldy, 1, Y, ldy, t->alloc, t->err);
    }
    return res;
}

/* The next block of the Krylov basis: the first w columns of Y (n rows, ld
   ldy) made orthonormal and orthogonal to the first k columns of Q. With
   have_first kr->C holds Q^T Y already. A column that the projection
   leaves at rounding level (the space has stopped growing in that
   direction: an invariant subspace, a rank-deficient A) is replaced by a
   Gaussian column from stream (seed, tag + ...), so the basis still grows;
   any orthonormal basis is a valid search space. res: the result so far
   (an error is passed on). On a shard Y and Q are the shard's rows: the
   sums and the QR run over the shards, and a Gaussian column is the whole
   one's rows. */
static ro_sgns_result ro_sgns__krylov_block(const ro_sgns__krylov *kr, size_t k, size_t w,
                                            ro_sgns_real *Y, size_t ldy, int have_first,
                                            uint64_t tag, ro_sgns_result res)
{
    const double tiny = RO_SGNS__IS_DOUBLE ? 1.5e-8 : 2.5e-4; /* sqrt(epsilon) */
    const ro_sgns__tsvd_job *t = kr->t;
    const size_t n = kr->n;
    double *nu = kr->nu;
    ro_sgns_real *R = kr->Rb;
    int attempt, again = 0;
    size_t i, j;
    for (attempt = 0; attempt < 4; ++attempt) {
        double worst = 1;
        int bad = 0;
        for (j = 0; j < w; ++j) nu[j] = 0;
        for (i = 0; i < n && res == RO_SGNS_OK; ++i)
            for (j = 0; j < w; ++j) nu[j] += (double)Y[i * ldy + j] * Y[i * ldy + j];
        res = ro_sgns__sum_shards_doubles(t->cm, res, nu, w, t->err);
        if (res == RO_SGNS_OK)
            res = ro_sgns__project_out(kr, k, w, Y, ldy, have_first && attempt == 0);
        res = ro_sgns__tsvd_qr(t->cm, res, n, w, Y, ldy, R, t->alloc, t->err);
        if (res != RO_SGNS_OK) return res;
        for (j = 0; j < w; ++j) {
            double ratio = nu[j] > 0 ? RO_SGNS_FABS((double)R[j * w + j]) / RO_SGNS_SQRT(nu[j]) : 0;
            if (!(ratio > tiny)) { /* rounding noise: a fresh direction */
                ro_sgns_rng rng;
                ro_sgns_rng_seed(&rng, t->cfg->seed, tag + (uint64_t)attempt * 0x10000u + j);
                /* a shard's rows start r0 rows in: one normal is two draws */
                for (i = 0; i < 2 * t->r0; ++i) (void)ro_sgns_rng_next(&rng);
                for (i = 0; i < n; ++i) Y[i * ldy + j] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
                bad = 1;
            } else if (ratio < worst) {
                worst = ratio;
            }
        }
        if (bad) continue;
        /* most of Y lay in the earlier blocks: the new columns are orthogonal
           to them only to about epsilon / ratio; one more projection restores
           working precision */
        if (worst < 0.1 && k > 0 && !again) {
            again = 1;
            continue;
        }
        return RO_SGNS_OK;
    }
    return ro_sgns__fail(t->err, RO_SGNS_ERR_NOT_CONVERGED,
                         "tsvd: the Krylov basis cannot grow past %lu columns", (unsigned long)k);
}

/* X (n x d, contiguous) <- the Q of its Householder QR, each column's sign
   chosen so that Q stays close to X (R's diagonal made >= 0). Columns of X
   that are orthonormal come back (nearly) unchanged; zero columns are
   replaced by unit vectors orthogonal to the rest. R (d x d) is scratch.
   On a shard (comm set) X is the shard's rows and the QR is TSQR. */
static ro_sgns_result ro_sgns__orthonormalize_keep_sign(const ro_sgns_comm *cm, size_t n,
                                                        size_t d, ro_sgns_real *X,
                                                        ro_sgns_real *R,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    size_t i, j;
    ro_sgns_result res = ro_sgns__tsvd_qr(cm, RO_SGNS_OK, n, d, X, d, R, alloc, err);
    if (res != RO_SGNS_OK) return res;
    for (j = 0; j < d; ++j)
        if (R[j * d + j] < 0)
            for (i = 0; i < n; ++i) X[i * d + j] = -X[i * d + j];
    return RO_SGNS_OK;
}

/* kr's buffers for t (NULL where the memory was not there). */
static int ro_sgns__krylov_alloc(ro_sgns__krylov *kr, const ro_sgns__tsvd_job *t)
{
    const ro_sgns_allocator *alloc = t->alloc;
    const size_t n = t->A->rows, m = t->A->cols, nm = n > m ? n : m, l = t->l, b = t->b;
    const size_t d = t->d, rb = b > d ? b : d;
    kr->t = t;
    kr->n = n;
    kr->m = m;
    kr->l = l;
    kr->b = b;
    kr->s = (l + b - 1) / b;
    kr->Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, l, sizeof(ro_sgns_real));
    kr->S1 = (ro_sgns_real *)ro_sgns__alloc_array(alloc, nm, b, sizeof(ro_sgns_real));
    kr->S2 = (ro_sgns_real *)ro_sgns__alloc_array(alloc, nm, b, sizeof(ro_sgns_real));
    kr->C = (ro_sgns_real *)ro_sgns__alloc_array(alloc, l, b, sizeof(ro_sgns_real));
    kr->Rb = (ro_sgns_real *)ro_sgns__alloc_array(alloc, rb, rb, sizeof(ro_sgns_real));
    kr->Ud = (ro_sgns_real *)ro_sgns__alloc_array(alloc, l, d, sizeof(ro_sgns_real));
    kr->H = (double *)ro_sgns__alloc_array(alloc, l, l, sizeof(double));
    kr->nu = (double *)ro_sgns__alloc_array(alloc, l, 2 * sizeof(double), 1);
    kr->piv = (size_t *)ro_sgns__alloc_array(alloc, l, 2 * sizeof(size_t), 1);
    kr->sig = kr->nu ? kr->nu + l : NULL;
    kr->order = kr->piv ? kr->piv + l : NULL;
    return kr->Q && kr->S1 && kr->S2 && kr->C && kr->Rb && kr->Ud && kr->H && kr->nu && kr->piv;
}

static void ro_sgns__krylov_free(ro_sgns__krylov *kr)
{
    const ro_sgns_allocator *alloc = kr->t->alloc;
    ro_sgns__free(alloc, kr->Q);
    ro_sgns__free(alloc, kr->S1);
    ro_sgns__free(alloc, kr->S2);
    ro_sgns__free(alloc, kr->C);
    ro_sgns__free(alloc, kr->Rb);
    ro_sgns__free(alloc, kr->Ud);
    ro_sgns__free(alloc, kr->H);
    ro_sgns__free(alloc, kr->nu);
    ro_sgns__free(alloc, kr->piv);
}

/* The basis Q and H = Q^T A A^T Q (see ro_sgns__tsvd_krylov), reporting
   each block's end to the callback (t0: the start). */
static ro_sgns_result ro_sgns__krylov_basis(const ro_sgns__krylov *kr, double t0)
{
    const ro_sgns__tsvd_job *t = kr->t;
    const ro_sgns_csr *A = t->A, *At = t->At ? t->At : t->A;
    const size_t n = kr->n, m = kr->m, l = kr->l, b = kr->b, s = kr->s;
    ro_sgns_real *Q = kr->Q, *S1 = kr->S1, *S2 = kr->S2, *C = kr->C;
    size_t i, j, blk;
    ro_sgns_result res;
    /* Q_0 = orth(A Omega) */
    ro_sgns__gaussian(m, b, S1, t->cfg->seed);
    ro_sgns__csr_mm(A, b, S1, b, S2, b);
    res = ro_sgns__krylov_block(kr, 0, b, S2, b, 0, 0x100000000ull, RO_SGNS_OK);
    for (i = 0; i < n && res == RO_SGNS_OK; ++i) memcpy(Q + i * l, S2 + i * b, b * sizeof(ro_sgns_real));
    for (blk = 1; blk <= s && res == RO_SGNS_OK; ++blk) {
        const size_t o0 = (blk - 1) * b, w0 = ro_sgns__min(b, l - o0), kq = o0 + w0;
        /* Y = A A^T Q_{blk-1} (the block's rows are copied out first: the
           products read their input rows in random order) */
        for (i = 0; i < n; ++i) memcpy(S1 + i * w0, Q + i * l + o0, w0 * sizeof(ro_sgns_real));
        ro_sgns__csr_mm(At, w0, S1, w0, S2, w0);
        res = ro_sgns__sum_shards_ld(t->cm, res, S2, m, w0, w0, t->err);
        if (res == RO_SGNS_OK) ro_sgns__csr_mm(A, w0, S2, w0, S1, w0);
        /* C = Q^T Y over the kq columns so far: H's entries (Q_i^T A)(A^T Q_{blk-1}) */
        if (res == RO_SGNS_OK)
            res = ro_sgns_gemm(RO_SGNS_TRANS, RO_SGNS_NOTRANS, kq, w0, n, 1, Q, l, S1, w0, 0, C, w0,
                               t->alloc, t->err);
        res = ro_sgns__sum_shards_ld(t->cm, res, C, kq, w0, w0, t->err);
        if (res != RO_SGNS_OK) break;
        for (i = 0; i < kq; ++i)
            for (j = 0; j < w0; ++j)
                if (i <= o0 + j) { /* one triangle, mirrored: H exactly symmetric */
                    kr->H[i * l + o0 + j] = (double)C[i * w0 + j];
                    kr->H[(o0 + j) * l + i] = (double)C[i * w0 + j];
                }
        res = ro_sgns__tsvd_tick(t->cfg, t->cm, res, blk, s + 1, t0, t->err);
        if (res != RO_SGNS_OK) break;
        if (blk == s) break;
        {   /* Q_blk = the first w1 columns of Y, orthogonalized */
            const size_t o1 = blk * b, w1 = ro_sgns__min(b, l - o1);
            res = ro_sgns__krylov_block(kr, kq, w1, S1, w0, 1, 0x100000000ull * (blk + 1), res);
            for (i = 0; i < n && res == RO_SGNS_OK; ++i)
                memcpy(Q + i * l + o1, S1 + i * w0, w1 * sizeof(ro_sgns_real));
        }
    }
    return res;
}

/* H (l x l, symmetric, full storage) <- R with P^T H P = R^T R, by the
   pivoted Cholesky factorization in place: step j takes the largest
   remaining diagonal (piv[j]: its original index); what is left below 16
   epsilon of the largest is rounding (rank deficiency) and becomes zero
   rows. */
static void ro_sgns__pivoted_cholesky(size_t l, double *H, size_t *piv)
{
    double top = 0, cut;
    size_t i, j, k;
    for (j = 0; j < l; ++j) {
        piv[j] = j;
        if (H[j * l + j] > top) top = H[j * l + j];
    }
    cut = 16.0 * (RO_SGNS__IS_DOUBLE ? DBL_EPSILON : (double)FLT_EPSILON) * top;
    for (j = 0; j < l; ++j) {
        size_t best = j;
        double pj;
        long ii;
        for (i = j + 1; i < l; ++i)
            if (H[i * l + i] > H[best * l + best]) best = i;
        if (best != j) {
            size_t x = piv[j];
            piv[j] = piv[best];
            piv[best] = x;
            for (k = 0; k < l; ++k) {
                double y = H[j * l + k];
                H[j * l + k] = H[best * l + k];
                H[best * l + k] = y;
            }
            for (k = 0; k < l; ++k) {
                double y = H[k * l + j];
                H[k * l + j] = H[k * l + best];
                H[k * l + best] = y;
            }
        }
        pj = H[j * l + j];
        if (!(pj > cut)) { /* the rest is rounding: R's remaining rows are 0 */
            for (i = j; i < l; ++i)
                for (k = 0; k < l; ++k) H[i * l + k] = 0;
            break;
        }
        pj = RO_SGNS_SQRT(pj);
        H[j * l + j] = pj;
        for (k = j + 1; k < l; ++k) H[j * l + k] /= pj;
        for (k = 0; k < j; ++k) H[j * l + k] = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) if ((l - j) * (l - j) > 65536)
#endif
        for (ii = (long)(j + 1); ii < (long)l; ++ii) {
            const double hji = H[j * l + (size_t)ii];
            double *hi = H + (size_t)ii * l;
            size_t kk;
            for (kk = j + 1; kk < l; ++kk) hi[kk] -= hji * H[j * l + kk];
        }
    }
}

/* From H (holding R of the pivoted Cholesky) to the factors: Ub_d, then
   U = Q Ub_d, V = A^T U Sigma^-1, S = Sigma_d, U and V made orthonormal. */
static ro_sgns_result ro_sgns__krylov_factors(const ro_sgns__krylov *kr)
{
    const ro_sgns__tsvd_job *t = kr->t;
    const size_t n = kr->n, m = kr->m, l = kr->l, d = t->d;
    const double *H = kr->H;
    double *sig = kr->sig;
    size_t *order = kr->order, i, j, k;
    ro_sgns_factors *f = t->f;
    ro_sgns_result res;
    /* sigma_c = |g_c|, sorted descending (insertion sort: stable, ties by
       index) */
    for (j = 0; j < l; ++j) {
        double nrm = 0;
        for (i = 0; i < l; ++i) nrm += H[j * l + i] * H[j * l + i];
        sig[j] = RO_SGNS_SQRT(nrm);
        for (k = j; k > 0 && sig[order[k - 1]] < sig[j]; --k) order[k] = order[k - 1];
        order[k] = j;
    }
    /* Ub_d: column j is g_order[j] / sigma, back in H's original order (the
       pivoted row i is original index piv[i]); a zero sigma leaves a zero
       column, completed below */
    for (j = 0; j < d; ++j) {
        const size_t c = order[j];
        const double sj = sig[c];
        for (i = 0; i < l; ++i)
            kr->Ud[kr->piv[i] * d + j] =
                sj > 0 ? (ro_sgns_real)(H[c * l + i] / sj) : (ro_sgns_real)0;
        f->S[j * d + j] = (ro_sgns_real)sj;
    }
    /* U = Q Ub_d; V = A^T U Sigma^-1 */
    res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, l, 1, kr->Q, l, kr->Ud, d, 0, f->U,
                       d, t->alloc, t->err);
    if (res == RO_SGNS_OK) ro_sgns__csr_mm(t->At ? t->At : t->A, d, f->U, d, f->V, d);
    res = ro_sgns__sum_shards_ld(t->cm, res, f->V, m, d, d, t->err);
    if (res == RO_SGNS_OK)
        for (j = 0; j < d; ++j) {
            const double sj = sig[order[j]];
            for (i = 0; i < m; ++i)
                f->V[i * d + j] = sj > 0 ? (ro_sgns_real)(f->V[i * d + j] / sj) : (ro_sgns_real)0;
        }
    /* U and V orthonormal to working precision, zero-sigma columns completed:
       Householder QR (its Q is orthogonal whatever the rank), signs kept */
    if (res == RO_SGNS_OK)
        res = ro_sgns__orthonormalize_keep_sign(t->cm, n, d, f->U, kr->Rb, t->alloc, t->err);
    if (res == RO_SGNS_OK)
        res = ro_sgns__orthonormalize_keep_sign(NULL, m, d, f->V, kr->Rb, t->alloc, t->err);
    return ro_sgns__sum_shards_doubles(t->cm, res, NULL, 0, t->err); /* V's QR was local */
}

/* Block Krylov (see ro_sgns_tsvd_method) into t->f: l columns in blocks
   of b. The basis Q = [Q_0 .. Q_{s-1}] (n x l) grows by
   Q_i = orth(A A^T Q_{i-1}) against all earlier blocks. The best rank-d
   approximation of A within the space is Q times that of B = Q^T A: with
   H = B B^T = Ub Sigma^2 Ub^T (l x l),
       U = Q Ub_d,   V = A^T U Sigma_d^-1,   S = Sigma_d.
   H's column block i, Q^T A (A^T Q_i), is the first projection of the
   product that makes the next block, so H costs one more product only.
   H's eigenvectors: a pivoted Cholesky factor, H = P R^T R P^T (double),
   then one-sided Jacobi on R^T, whose left singular vectors are P^T Ub.
   Forming H squares the condition: singular values far below
   sqrt(epsilon) s_1 lose relative accuracy (the subspace method keeps it).
   On a shard (II.4) A, Q and U are the shard's n rows (the first is row r0
   of the whole): A^T Q_i, Q^T Y and A^T U are summed over the shards, each
   block is orthogonalized by TSQR, and H, V and S are the same on every
   shard. */
static ro_sgns_result ro_sgns__tsvd_krylov(const ro_sgns__tsvd_job *t)
{
    const double t0 = ro_sgns__now();
    ro_sgns__krylov kr;
    size_t j;
    ro_sgns_result res = RO_SGNS_OK;
    if (!ro_sgns__krylov_alloc(&kr, t))
        res = ro_sgns__fail(t->err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "tsvd: cannot allocate the Krylov basis (%lu x %lu)",
                            (unsigned long)kr.n, (unsigned long)kr.l);
    res = ro_sgns__sum_shards_doubles(t->cm, res, NULL, 0, t->err);
    if (res == RO_SGNS_OK) res = ro_sgns__krylov_basis(&kr, t0);
    for (j = 0; j < kr.l * kr.l && res == RO_SGNS_OK; ++j)
        if (!ro_sgns__is_finite(kr.H[j]))
            res = ro_sgns__fail(t->err, RO_SGNS_ERR_NUMERIC, "tsvd: NaN or Inf in the products");
    if (res == RO_SGNS_OK) {
        ro_sgns__pivoted_cholesky(kr.l, kr.H, kr.piv);
        /* Jacobi on R^T: its column c is R's row c, which is where H keeps it */
        res = ro_sgns__jacobi(kr.l, kr.l, kr.H, NULL, t->err);
    }
    if (res == RO_SGNS_OK) {
        res = ro_sgns__krylov_factors(&kr);
        res = ro_sgns__tsvd_tick(t->cfg, t->cm, res, kr.s + 1, kr.s + 1, t0, t->err);
    }
    ro_sgns__krylov_free(&kr);
    return res;
}

/* The search space's width l and block b for rank d of an n x m matrix. */
static ro_sgns_result ro_sgns__tsvd_sizes(const ro_sgns_tsvd_config *cfg, size_t n, size_t m,
                                          size_t d, size_t *l_out, size_t *b_out,
                                          ro_sgns_error *err)
{
    size_t l, p, b;
    if (d == 0 || d > ro_sgns__min(n, m))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "tsvd: d = %lu must be in 1..min(rows, cols) = %lu (d larger than "
                             "the vocabulary?)",
                             (unsigned long)d, (unsigned long)ro_sgns__min(n, m));
    if (cfg->power_iters < 0 ||
        (cfg->method != RO_SGNS_TSVD_KRYLOV && cfg->method != RO_SGNS_TSVD_SUBSPACE))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "tsvd: power_iters < 0 or an unknown method (%d)", cfg->method);
    /* p grows with d: for the tail (i near d) only l well beyond d helps,
       and for SPPMI's power-law spectrum that ratio depends on l / d
       (docs/DESIGN.md, II.7) */
    p = cfg->oversample;
    if (p == 0)
        p = cfg->method == RO_SGNS_TSVD_KRYLOV ? 2 * d : (d / 2 > 50 ? d / 2 : 50);
    l = ro_sgns__min(d + p, ro_sgns__min(n, m));
    if (l < d) l = d; /* oversample overflowed */
    b = cfg->block ? cfg->block : l / 16;
    if (!cfg->block) b = b < 8 ? 8 : b > 50 ? 50 : b;
    if (b > l) b = l;
    *l_out = l;
    *b_out = b;
    return RO_SGNS_OK;
}

/* The truncated SVD of A, whole (comm NULL) or a shard's rows of it (the
   first is row r0 of the whole, which has n rows; II.4), into a new
   factors object that holds A's rows of U. */
static ro_sgns_result ro_sgns__tsvd_run(const ro_sgns_csr *A, const ro_sgns_comm *cm, size_t r0,
                                        size_t n, size_t d, const ro_sgns_tsvd_config *cfg,
                                        ro_sgns_factors **out, const ro_sgns_allocator *alloc,
                                        ro_sgns_error *err)
{
    ro_sgns_csr *At = NULL;
    ro_sgns_factors *f = NULL;
    size_t m = A->cols, l = 0, b = 0;
    ro_sgns_result res = ro_sgns__tsvd_sizes(cfg, n, m, d, &l, &b, err);
    if (res != RO_SGNS_OK) return res;
    /* a matrix filled by hand: checked once here, the products take it as
       it is (on shards, one shard's error stops all, below) */
    res = ro_sgns__csr_check(A, "tsvd", err);
    /* A^T for the products with A^T; a symmetric A (SPPMI of symmetric
       counts) is its own transpose and is not copied (a shard's rows are
       transposed by the same test: a square block equal to its transpose
       is its transpose) */
    if (res == RO_SGNS_OK &&
        (A->rows != A->cols || ro_sgns__csr_symmetric(A->rows, A->row_ptr, A->col, A->val,
                                                      sizeof(ro_sgns_real), alloc) != 1))
        res = ro_sgns__csr_transpose(A, &At, alloc, err);
    if (res == RO_SGNS_OK) res = ro_sgns_factors_create(A->rows, m, d, &f, alloc, err);
    res = ro_sgns__sum_shards_doubles(cm, res, NULL, 0, err);
    if (res == RO_SGNS_OK) {
        ro_sgns__tsvd_job t;
        t.A = A;
        t.At = At;
        t.cm = cm;
        t.r0 = r0;
        t.d = d;
        t.l = l;
        t.b = b;
        t.cfg = cfg;
        t.f = f;
        t.alloc = alloc;
        t.err = err;
        /* a search space as large as the matrix holds all of it: one
           subspace step is exact */
        if (cfg->method == RO_SGNS_TSVD_SUBSPACE || l == ro_sgns__min(n, m))
            res = ro_sgns__tsvd_subspace(
                &t, cfg->method == RO_SGNS_TSVD_SUBSPACE ? cfg->power_iters : 1);
        else
            res = ro_sgns__tsvd_krylov(&t);
        if (res == RO_SGNS_STOPPED)
            ro_sgns__fail(err, RO_SGNS_STOPPED, "tsvd: stopped by the callback");
    }
    if (res == RO_SGNS_OK) {
        *out = f;
        f = NULL;
        res = ro_sgns__ok(err);
    }
    ro_sgns_csr_free(At);
    ro_sgns_factors_free(f);
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_tsvd(const ro_sgns_csr *A, size_t d,
                                        const ro_sgns_tsvd_config *config,
                                        ro_sgns_factors **out, const ro_sgns_allocator *alloc,
                                        ro_sgns_error *err)
{
    ro_sgns_tsvd_config cfg = config ? *config : ro_sgns_tsvd_config_default();
    if (!A || !out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "tsvd: NULL argument");
    return ro_sgns__tsvd_run(A, NULL, 0, A->rows, d, &cfg, out, alloc, err);
}

#endif /* RO_SGNS_NO_TSVD */

/* A start point from any W0, C0 (the SGD baseline's, or the caller's). */
RO_SGNS_DEF ro_sgns_result ro_sgns_factors_from_wc(size_t n, size_t m, size_t d,
                                                   const ro_sgns_real *W0,
                                                   const ro_sgns_real *C0,
                                                   ro_sgns_factors **out,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err)
{
    ro_sgns_factors *f = NULL;
    ro_sgns_real *Rw = NULL, *Rc = NULL;
    ro_sgns_result res;
    if (!W0 || !C0 || !out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "from_wc: NULL argument");
    res = ro_sgns_factors_create(n, m, d, &f, alloc, err);
    if (res != RO_SGNS_OK) return res;
    Rw = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, d, sizeof(ro_sgns_real));
    Rc = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, d, sizeof(ro_sgns_real));
    if (!Rw || !Rc) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "from_wc: out of memory");
        goto done;
    }
    memcpy(f->U, W0, n * d * sizeof(ro_sgns_real));
    memcpy(f->V, C0, m * d * sizeof(ro_sgns_real));
    res = ro_sgns_qr(n, d, f->U, d, Rw, d, alloc, err);
    if (res == RO_SGNS_OK) res = ro_sgns_qr(m, d, f->V, d, Rc, d, alloc, err);
    if (res == RO_SGNS_OK) /* W0 C0^T = Qw (Rw Rc^T) Qc^T */
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, d, d, d, 1, Rw, d, Rc, d, 0, f->S, d,
                           alloc, err);
    if (res == RO_SGNS_OK && !ro_sgns__all_finite(d, d, f->S, d))
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                            "from_wc: R_W R_C^T overflows the real type (entries of W0 and C0 "
                            "near its largest value)");
    if (res == RO_SGNS_OK) {
        *out = f;
        f = NULL;
    }
done:
    ro_sgns_factors_free(f);
    ro_sgns__free(alloc, Rw);
    ro_sgns__free(alloc, Rc);
    return res;
}

#ifndef RO_SGNS_NO_SHARDS

/* ======================================================================
   II.8 Shards: the public calls (RO_SGNS_NO_SHARDS leaves them out)

   A problem of some rows of the words, and the start and the step run by
   P processes together through a transport the caller plugs in
   (ro_sgns_comm: MPI or anything else; in the repository:
   examples/ro_sgns_mpi.c). The scheme, its exchanges and costs are II.4's;
   the step and the start are II.6's and II.7's, unchanged. No Part I
   twin: checked against one process in the repository's tests/test_ro.c
   (test_shards) and tests/test_sppmi.c (test_tsvd_shards).
   ====================================================================== */

RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_rows(const ro_sgns_problem *p, size_t r0,
                                                       size_t r1, ro_sgns_problem **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err)
{
    ro_sgns_problem *s;
    ro_sgns_result res = RO_SGNS_OK;
    if (!p || !out || r0 >= r1 || r1 > p->n || p->r0 != 0 || p->r1 != p->n)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "problem_create_rows: need a whole problem and rows 0 <= r0 < r1 "
                             "<= n (r0 = %lu, r1 = %lu, n = %lu)",
                             (unsigned long)r0, (unsigned long)r1,
                             (unsigned long)(p ? p->n : 0));
    s = ro_sgns__problem_new(p->n, p->m, r0, r1, p->k, p->cds, alloc);
    if (!s) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "problem_create_rows: out of memory");
    /* a row range of each side, borrowed: indices stay absolute into col / val */
    s->total = p->total;
    s->fingerprint = p->fingerprint;
    s->window = p->window;
    s->fwd = p->fwd;
    s->fwd.rows = r1 - r0;
    s->fwd.row_ptr = p->fwd.row_ptr + r0;
    s->fwd.rowfac = p->fwd.rowfac + r0;
    s->bwd = p->bwd; /* rowfac k P(c) (m) as it is */
    s->bwd.colfac = p->bwd.colfac + r0;
    if (r0 != 0 || r1 != p->n) {
        s->bwd.cols = r1 - r0;
        res = ro_sgns__problem_transpose(s, err);
    }
    if (res != RO_SGNS_OK) {
        ro_sgns_problem_free(s);
        return res;
    }
    *out = s;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_shard(const ro_sgns_shard_spec *spec,
                                                        ro_sgns_problem **out,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    static const ro_sgns_shard_spec none = {0, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0, 0};
    const ro_sgns_shard_spec *sp = spec ? spec : &none;
    const size_t n = sp->n, m = sp->m, r0 = sp->r0, r1 = sp->r1;
    const uint64_t *row_ptr = sp->row_ptr;
    const uint32_t *col = sp->col;
    const float *val = sp->val;
    const double *ctx_sum = sp->ctx_sum, total = sp->total, k = sp->k, cds = sp->cds;
    ro_sgns_problem *s;
    size_t rows;
    uint64_t e;
    double *wsum;
    ro_sgns_result res;
    if (!spec || !row_ptr || !ctx_sum || !out || !(k > 0) || !ro_sgns__is_finite(k) || !(cds > 0) ||
        !ro_sgns__is_finite(cds) || !(total > 0) || !ro_sgns__is_finite(total) || m == 0 ||
        m > 0xFFFFFFFFu || r0 >= r1 || r1 > n || r1 - r0 > 0xFFFFFFFFu)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "problem_create_shard: need rows 0 <= r0 < r1 <= n, m >= 1, "
                             "k > 0, cds > 0, |D| > 0 and the marginals (r0 = %lu, r1 = %lu, "
                             "n = %lu, m = %lu, k = %g, cds = %g, |D| = %g)",
                             (unsigned long)r0, (unsigned long)r1, (unsigned long)n,
                             (unsigned long)m, k, cds, total);
    rows = r1 - r0;
    res = ro_sgns__check_rows("problem_create_shard (rows from r0)", rows, row_ptr, col, val,
                              err);
    if (res != RO_SGNS_OK) return res;
    /* a column sum may be the exact sum of values that were rounded to
       float since (ro_sgns_counts): a value may exceed it by that rounding */
    for (e = row_ptr[0]; e < row_ptr[rows]; ++e)
        if (col[e] >= m || !(val[e] > 0) || !ro_sgns__is_finite(val[e]) ||
            !(ctx_sum[col[e]] >= (double)val[e] * (1.0 - FLT_EPSILON)) ||
            !ro_sgns__is_finite(ctx_sum[col[e]]))
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "problem_create_shard: entry %.0f has column %lu (m = %lu), "
                                 "value %g or a column sum below it",
                                 (double)e, (unsigned long)col[e], (unsigned long)m,
                                 (double)val[e]);
    s = ro_sgns__problem_new(n, m, r0, r1, k, cds, alloc);
    wsum = (double *)ro_sgns__alloc_array(alloc, rows, sizeof(double), 1);
    if (!s || !wsum) {
        ro_sgns__free(alloc, wsum);
        ro_sgns_problem_free(s);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "problem_create_shard: out of memory");
    }
    /* #(w) of the rows held; #(c) and |D| come from the caller */
    ro_sgns__row_col_sums(rows, row_ptr, col, val, wsum, NULL);
    res = ro_sgns__problem_factors(s, wsum, ctx_sum, total, err);
    ro_sgns__free(alloc, wsum);
    s->fwd.row_ptr = row_ptr;
    s->fwd.col = col;
    s->fwd.val = val;
    ro_sgns__problem_sides(s);
    if (res == RO_SGNS_OK) res = ro_sgns__problem_transpose(s, err);
    if (res != RO_SGNS_OK) {
        ro_sgns_problem_free(s);
        return res;
    }
    *out = s;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_ro_train_shard(const ro_sgns_problem *p,
                                                  const ro_sgns_comm *comm, ro_sgns_factors *x,
                                                  const ro_sgns_ro_config *config,
                                                  ro_sgns_error *err)
{
    ro_sgns_ro_config cfg = config ? *config : ro_sgns_ro_config_default();
    const ro_sgns_comm *cm = comm && comm->size > 1 ? comm : NULL; /* NULL: one shard */
    ro_sgns_result res;
    if (!p || !x) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "ro_train_shard: NULL");
    if (cm && (cm->rank < 0 || cm->rank >= cm->size || !cm->allgather || !cm->sum ||
               !cm->sum_double))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "ro_train_shard: comm needs 0 <= rank < size and three callbacks");
    if (!cm && (p->r0 != 0 || p->r1 != p->n))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "ro_train_shard: without a comm the problem must hold every row");
    if (x->n != p->r1 - p->r0 || x->m != p->m || x->d == 0 || x->d > x->n || x->d > x->m)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "ro_train_shard: a point of %lu x %lu (d = %lu) does not fit a "
                             "shard of %lu rows x %lu (a shard needs at least d rows)",
                             (unsigned long)x->n, (unsigned long)x->m, (unsigned long)x->d,
                             (unsigned long)(p->r1 - p->r0), (unsigned long)p->m);
    res = ro_sgns__check_config(&cfg, err);
    if (res == RO_SGNS_OK && cfg.direction == RO_SGNS_DIRECTION_METRIC && cm)
        res = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                            "ro_train_shard: the metric direction runs on one machine only");
    if (res != RO_SGNS_OK) return res;
    if (cfg.direction == RO_SGNS_DIRECTION_METRIC) return ro_sgns__ro_run_metric(p, x, &cfg, err);
    return ro_sgns__ro_run(p, cm, x, &cfg, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_sppmi_rows(const ro_sgns_counts *c, size_t r0, size_t r1,
                                              double k, double cds, ro_sgns_csr **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    return ro_sgns__sppmi_rows(c, r0, r1, k, cds, 0, out, alloc, err);
}

#ifndef RO_SGNS_NO_TSVD
RO_SGNS_DEF ro_sgns_result ro_sgns_tsvd_shard(const ro_sgns_csr *A, const ro_sgns_comm *comm,
                                              size_t d, const ro_sgns_tsvd_config *config,
                                              ro_sgns_factors **out,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    ro_sgns_tsvd_config cfg = config ? *config : ro_sgns_tsvd_config_default();
    const ro_sgns_comm *cm = comm && comm->size > 1 ? comm : NULL; /* NULL: one shard */
    size_t P, q, n = 0, r0 = 0, need = 0, fewest = (size_t)-1, l = 0, b = 0;
    double *sz, chk[4];
    ro_sgns_result res;
    if (!cm) {
        if (!A || !out)
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "tsvd_shard: NULL argument");
        return ro_sgns__tsvd_run(A, NULL, 0, A->rows, d, &cfg, out, alloc, err);
    }
    if (cm->rank < 0 || cm->rank >= cm->size || !cm->allgather || !cm->sum || !cm->sum_double)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "tsvd_shard: comm needs 0 <= rank < size and three callbacks");
    /* first (a fixed-size sum) whether every shard's arguments are good,
       its memory for the next sum there, and m and d the same everywhere;
       then each shard's rows: the whole's n and the shards' first rows */
    P = (size_t)cm->size;
    sz = (double *)ro_sgns__alloc_array(alloc, P, sizeof(double), 1);
    chk[0] = !A || !out;
    chk[1] = !sz;
    chk[2] = A ? (double)A->cols : 0;
    chk[3] = (double)d;
    if (cm->sum_double(cm->user, chk, 4) != 0) {
        ro_sgns__free(alloc, sz);
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "tsvd_shard: the transport failed (sum)");
    }
    if (!A || !sz || chk[0] != 0 || chk[1] != 0 || chk[2] != (double)P * (double)A->cols ||
        chk[3] != (double)P * (double)d) {
        ro_sgns__free(alloc, sz);
        if (chk[0] == 0 && chk[1] != 0)
            return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                 "tsvd_shard: out of memory (on %.0f shard(s))", chk[1]);
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             chk[0] != 0 ? "tsvd_shard: NULL argument on a shard"
                                         : "tsvd_shard: the shards disagree on m or d");
    }
    memset(sz, 0, P * sizeof(double));
    sz[cm->rank] = (double)A->rows;
    if (cm->sum_double(cm->user, sz, P) != 0) {
        ro_sgns__free(alloc, sz);
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "tsvd_shard: the transport failed (sum)");
    }
    for (q = 0; q < P; ++q) {
        if ((int)q < cm->rank) r0 += (size_t)sz[q];
        n += (size_t)sz[q];
        if ((size_t)sz[q] < fewest) fewest = (size_t)sz[q];
    }
    ro_sgns__free(alloc, sz);
    res = ro_sgns__tsvd_sizes(&cfg, n, A->cols, d, &l, &b, err);
    if (res != RO_SGNS_OK) return res;
    need = cfg.method == RO_SGNS_TSVD_SUBSPACE || l == ro_sgns__min(n, A->cols) ? l
                                                                                : (b > d ? b : d);
    if (fewest < need)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "tsvd_shard: a shard holds %lu rows; each needs %lu (d = %lu, "
                             "l = %lu, b = %lu): use fewer shards",
                             (unsigned long)fewest, (unsigned long)need, (unsigned long)d,
                             (unsigned long)l, (unsigned long)b);
    return ro_sgns__tsvd_run(A, cm, r0, n, d, &cfg, out, alloc, err);
}
#endif /* RO_SGNS_NO_TSVD */

#endif /* RO_SGNS_NO_SHARDS */

#ifndef RO_SGNS_NO_FOLD

/* ======================================================================
   II.9 The head and the tail: the rare words folded in
        (docs/GUIDE.md, The head and the tail)

   No Part I twin: the repository's tests/test_ro.c (test_head_and_fold,
   test_fold_start, test_csr_head) checks the head problem's F and each
   folded row against the paper's formulas in double (the row's gradient,
   projected on the head's factor, ~0 after 60 searched steps; f as
   reported; rising with the steps) and the head block of the point
   against the head's.
   What: a point trained on the head (the first n_h words, m_h contexts)
   extended to the whole problem. Each tail word w gets a z that raises
   f(z) = sum_{c < m_h} #(w,c) log s(z.a_c) + B_wc log s(-z.a_c)
   with a_c the rows of A = V S^T (x_wc = U_w S V_c^T = z.a_c for
   z = U_w); each tail context c a y for the same over the head words
   with A = U S (x_wc = (U_w S).y). With
       g = grad f = sum_c (#(w,c) s(-x_wc) - B_wc s(x_wc)) a_c = A^T p,
   a row's curvature is sum_c (#(w,c) + B_wc) s(x) s(-x) a_c a_c^T, at
   most H = 1/4 sum_c (#(w,c) + B_wc) a_c a_c^T, so the step z += H^-1 g
   maximizes a quadratic that lies below f and touches it at z, and f
   rises at every step (minorize-maximize; Boehning and Lindsay 1988 for
   logistic regression). With B_wc = rowfac_w colfac_c,
       H = 1/4 (rowfac_w G + sum_{c: #(w,c) > 0} #(w,c) a_c a_c^T),
       G = A^T diag(colfac) A,
   G once, the sparse part a row's counts, one Cholesky a row. From
   z = 0 (x = 0, where the curvature is 1/4 exactly) the first step is
   Newton's; it is the default (docs/GUIDE.md, Folding in).
   How: blocks of block_rows tail rows, each row's x kept along the steps.
   A step: p at x (II.5's kernels), g = P_b A (a GEMM), H^-1 g (a d x d
   solve a row), dl = (H^-1 g) A^T (a GEMM), the step size (1, or the line
   search's), then z and x move. Rows are independent: the threads split
   them, and the bits depend only on block_rows, never on the threads.
   Memory: docs/DESIGN.md, II.9.
   ====================================================================== */

RO_SGNS_DEF ro_sgns_result ro_sgns_problem_create_head(const ro_sgns_problem *p, size_t nh,
                                                       size_t mh, ro_sgns_problem **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err)
{
    ro_sgns_problem *h;
    size_t i, rows;
    uint64_t e, k = 0, nnz = 0;
    ro_sgns_result res = RO_SGNS_OK;
    if (!p || !out || p->r0 != 0 || p->r1 != p->n || nh == 0 || mh == 0 || nh > p->n ||
        mh > p->m)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "problem_create_head: need a whole problem, 1 <= n_h <= n and "
                             "1 <= m_h <= m (n_h = %lu, m_h = %lu, n = %lu, m = %lu)",
                             (unsigned long)nh, (unsigned long)mh,
                             (unsigned long)(p ? p->n : 0), (unsigned long)(p ? p->m : 0));
    rows = p->r1 - p->r0;
    for (i = 0; i < nh; ++i) /* columns ascend: a row's head part is its start */
        for (e = p->fwd.row_ptr[i]; e < p->fwd.row_ptr[i + 1] && p->fwd.col[e] < mh; ++e) ++nnz;
    h = ro_sgns__problem_new(nh, mh, 0, nh, p->k, p->cds, alloc);
    if (h) {
        h->h_row_ptr = (uint64_t *)ro_sgns__alloc_array(alloc, nh + 1, sizeof(uint64_t), 1);
        h->h_col = (uint32_t *)ro_sgns__alloc_array(alloc, (size_t)nnz + 1, sizeof(uint32_t), 1);
        h->h_val = (float *)ro_sgns__alloc_array(alloc, (size_t)nnz + 1, sizeof(float), 1);
        h->rowfac = (double *)ro_sgns__alloc_array(alloc, nh + mh, sizeof(double), 1);
        h->colfac = (ro_sgns_real *)ro_sgns__alloc_array(alloc, nh + mh, sizeof(ro_sgns_real), 1);
    }
    if (!h || !h->h_row_ptr || !h->h_col || !h->h_val || !h->rowfac || !h->colfac ||
        (uint64_t)(size_t)nnz != nnz) {
        ro_sgns_problem_free(h);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "problem_create_head: out of memory (%.0f pairs)", (double)nnz);
    }
    h->h_row_ptr[0] = 0;
    for (i = 0; i < nh; ++i) {
        for (e = p->fwd.row_ptr[i]; e < p->fwd.row_ptr[i + 1] && p->fwd.col[e] < mh; ++e, ++k) {
            h->h_col[k] = p->fwd.col[e];
            h->h_val[k] = p->fwd.val[e];
        }
        h->h_row_ptr[i + 1] = k;
    }
    /* B of the whole problem: rowfac (rows, then m) and colfac (m, then rows) */
    for (i = 0; i < nh; ++i) h->rowfac[i] = p->rowfac[i];
    for (i = 0; i < mh; ++i) h->rowfac[nh + i] = p->rowfac[rows + i];
    for (i = 0; i < mh; ++i) h->colfac[i] = p->colfac[i];
    for (i = 0; i < nh; ++i) h->colfac[mh + i] = p->colfac[p->m + i];
    h->total = p->total;
    h->fingerprint = p->fingerprint;
    h->window = p->window;
    h->fwd.row_ptr = h->h_row_ptr;
    h->fwd.col = h->h_col;
    h->fwd.val = h->h_val;
    ro_sgns__problem_sides(h);
    res = ro_sgns__problem_bwd(h, err);
    if (res != RO_SGNS_OK) {
        ro_sgns_problem_free(h);
        return res;
    }
    *out = h;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_csr_head(const ro_sgns_csr *A, size_t rows, size_t cols,
                                            ro_sgns_csr **out, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err)
{
    ro_sgns_csr *H = NULL;
    size_t i;
    uint64_t e, k = 0;
    ro_sgns_result res;
    if (!A || !out || rows > A->rows || cols > A->cols)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "csr_head: need rows <= %lu and cols <= %lu (rows = %lu, cols = %lu)",
                             (unsigned long)(A ? A->rows : 0), (unsigned long)(A ? A->cols : 0),
                             (unsigned long)rows, (unsigned long)cols);
    res = ro_sgns__csr_check(A, "csr_head", err);
    for (i = 0; res == RO_SGNS_OK && i < rows; ++i)
        for (e = A->row_ptr[i]; e < A->row_ptr[i + 1] && A->col[e] < cols; ++e) ++k;
    if (res == RO_SGNS_OK) res = ro_sgns_csr_create(rows, cols, k, &H, alloc, err);
    if (res != RO_SGNS_OK) return res;
    k = 0;
    for (i = 0; i < rows; ++i) {
        for (e = A->row_ptr[i]; e < A->row_ptr[i + 1] && A->col[e] < cols; ++e, ++k) {
            H->col[k] = A->col[e];
            H->val[k] = A->val[e];
        }
        H->row_ptr[i + 1] = k;
    }
    *out = H;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_fold_config ro_sgns_fold_config_default(void)
{
    ro_sgns_fold_config c;
    memset(&c, 0, sizeof c);
    c.iterations = 1;
    c.line_search = 0;
    c.block_rows = 0;
    return c;
}

/* x = (R^T R)^-1 x for R from ro_sgns__cholesky_in_place. */
static void ro_sgns__cholesky_solve(size_t d, const double *R, double *x)
{
    size_t i, k;
    for (i = 0; i < d; ++i) { /* R^T y = x, R^T lower: forward */
        double s = x[i];
        for (k = 0; k < i; ++k) s -= R[k * d + i] * x[k];
        x[i] = s / R[i * d + i];
    }
    for (i = d; i-- > 0;) { /* R z = y: backward */
        double s = x[i];
        for (k = i + 1; k < d; ++k) s -= R[i * d + k] * x[k];
        x[i] = s / R[i * d + i];
    }
}

/* H's counts part for one row: Hs (d x d, upper part, reals) =
   sum_{e} v_e a_e a_e^T over the row's entries in the head columns; the
   inner loop runs along a row of Hs (vectorized). Returns how many. */
static size_t ro_sgns__fold_gram(const ro_sgns__side *s, size_t row, size_t mh,
                                 const ro_sgns_real *A, size_t d, ro_sgns_real *Hs)
{
    uint64_t e;
    size_t i, j, used = 0;
    for (i = 0; i < d * d; ++i) Hs[i] = 0;
    for (e = s->row_ptr[row]; e < s->row_ptr[row + 1] && s->col[e] < mh; ++e, ++used) {
        const ro_sgns_real *RO_SGNS__RESTRICT a = A + (size_t)s->col[e] * d;
        const ro_sgns_real v = (ro_sgns_real)s->val[e];
        for (i = 0; i < d; ++i) {
            ro_sgns_real *RO_SGNS__RESTRICT hi = Hs + i * d;
            const ro_sgns_real vi = v * a[i];
            for (j = i; j < d; ++j) hi[j] += vi * a[j];
        }
    }
    return used;
}

/* phi'(alpha) and -phi''(alpha) along one row's direction (the fold's
   line search): the dense part by ro_sgns__line_terms into d1, d2 and
   lanes of double, the counts' part entry by entry in double. */
static void ro_sgns__line_eval(const ro_sgns__side *s, size_t row, size_t mh,
                               const ro_sgns_real *x, const ro_sgns_real *dl, double alpha,
                               ro_sgns_real *d1, ro_sgns_real *d2, double *g1, double *h)
{
    double acc1[32], acc2[32];
    uint64_t e;
    size_t q;
    for (q = 0; q < 32; ++q) acc1[q] = acc2[q] = 0;
    ro_sgns__line_terms(x, dl, mh, (ro_sgns_real)alpha, s->colfac, (ro_sgns_real)s->rowfac[row],
                        d1, d2);
    ro_sgns__sum_into(acc1, d1, mh);
    ro_sgns__sum_into(acc2, d2, mh);
    *g1 = ro_sgns__sum_lanes(acc1);
    *h = ro_sgns__sum_lanes(acc2);
    for (e = s->row_ptr[row]; e < s->row_ptr[row + 1] && s->col[e] < mh; ++e) {
        const double dc = (double)dl[s->col[e]], y = (double)x[s->col[e]] + alpha * dc;
        const double sn = 1 / (1 + RO_SGNS_EXP(y)); /* s(-y) */
        *g1 += (double)s->val[e] * sn * dc;
        *h += (double)s->val[e] * sn * (1 - sn) * dc * dc;
    }
}

/* The fold's report, summed over both sides. */
typedef struct ro_sgns__fold_sums {
    ro_sgns_fold_report r;
    int want; /* the report was asked for: f first and last, and a last evaluation */
} ro_sgns__fold_sums;

/* One side's fold: what it reads and where it writes. */
typedef struct ro_sgns__fold_job {
    const ro_sgns__side *s;          /* the side's counts, rows nh.. the tail */
    size_t nh, mh, d;                /* head rows, head columns, rank */
    const ro_sgns_real *A;           /* mh x d: the head's factor rows */
    const ro_sgns_fold_config *cfg;  /* iterations, line_search, block_rows */
    const ro_sgns_real *Z0;          /* (rows - nh) x d start, or NULL for z = 0 */
    const double *Prec;              /* d x d: the prior's precision, or NULL: none */
    ro_sgns_real *Z;                 /* (rows - nh) x d: the folded rows */
    ro_sgns__fold_sums *rep;         /* the report's sums, added to */
    ro_sgns_fold_progress *prog;     /* rows done (both sides), for cfg->callback */
    double t0;                       /* when the fold began */
} ro_sgns__fold_job;

/* The fold's workspace: the job, the block's size, and per block row H's
   Cholesky factor (double), z (double), g (double), f and |g|^2, a row of
   X_b (x, kept along the steps), of the coefficients P_b, of exp(x) (E),
   of the direction's X_b change dl = (H^-1 g) A^T, and H^-1 g (Gr). */
typedef struct ro_sgns__fold_work {
    ro_sgns__fold_job j;
    size_t tail, br, bmax, tmax;
    double *G, *H, *Zd, *Gd, *rowf, *rowg;
    ro_sgns_real *X, *P, *E, *Dl, *Gr, *Hs, *T;
    int *ok;
} ro_sgns__fold_work;

static void ro_sgns__fold_free(ro_sgns__fold_work *w, const ro_sgns_allocator *al)
{
    ro_sgns__free(al, w->G);
    ro_sgns__free(al, w->H);
    ro_sgns__free(al, w->Zd);
    ro_sgns__free(al, w->Gd);
    ro_sgns__free(al, w->rowf);
    ro_sgns__free(al, w->X);
    ro_sgns__free(al, w->P);
    ro_sgns__free(al, w->E);
    ro_sgns__free(al, w->Dl);
    ro_sgns__free(al, w->Gr);
    ro_sgns__free(al, w->Hs);
    ro_sgns__free(al, w->T);
    ro_sgns__free(al, w->ok);
}

/* The workspace for a job (w zeroed first, so that ro_sgns__fold_free can
   always run): blocks of block_rows (256 by default) rows, and room in T
   for the counts' terms of the block holding the most entries. */
static ro_sgns_result ro_sgns__fold_alloc(ro_sgns__fold_work *w, const ro_sgns__fold_job *job,
                                          const ro_sgns_allocator *al, ro_sgns_error *err)
{
    const ro_sgns__side *s = job->s;
    const size_t nh = job->nh, mh = job->mh, d = job->d;
    const size_t nt = (size_t)ro_sgns__num_threads();
    size_t b0, bmax, tmax = 1;
    memset(w, 0, sizeof *w);
    w->j = *job;
    w->tail = s->rows - nh;
    w->br = job->cfg->block_rows ? job->cfg->block_rows : 256;
    w->bmax = bmax = ro_sgns__min(w->br, w->tail);
    for (b0 = 0; b0 < w->tail; b0 += w->br) {
        const size_t r1 = nh + ro_sgns__min(b0 + w->br, w->tail);
        const uint64_t k = s->row_ptr[r1] - s->row_ptr[nh + b0];
        if (k > tmax) tmax = (size_t)k;
    }
    w->tmax = tmax;
    w->G = (double *)ro_sgns__alloc_array(al, d, d, sizeof(double));
    w->H = (double *)ro_sgns__alloc_array(al, bmax, d * d, sizeof(double));
    w->Zd = (double *)ro_sgns__alloc_array(al, bmax, d, sizeof(double));
    w->Gd = (double *)ro_sgns__alloc_array(al, bmax, d, sizeof(double));
    w->rowf = (double *)ro_sgns__alloc_array(al, bmax, 2, sizeof(double));
    w->X = (ro_sgns_real *)ro_sgns__alloc_array(al, bmax, mh, sizeof(ro_sgns_real));
    w->P = (ro_sgns_real *)ro_sgns__alloc_array(al, bmax, mh, sizeof(ro_sgns_real));
    w->E = (ro_sgns_real *)ro_sgns__alloc_array(al, bmax, mh, sizeof(ro_sgns_real));
    w->Dl = (ro_sgns_real *)ro_sgns__alloc_array(al, bmax, mh, sizeof(ro_sgns_real));
    w->Gr = (ro_sgns_real *)ro_sgns__alloc_array(al, bmax, d, sizeof(ro_sgns_real));
    w->Hs = (ro_sgns_real *)ro_sgns__alloc_array(al, nt, d * d, sizeof(ro_sgns_real));
    w->T = (ro_sgns_real *)ro_sgns__alloc_array(al, tmax, 6, sizeof(ro_sgns_real));
    w->ok = (int *)ro_sgns__alloc_array(al, bmax, 1, sizeof(int));
    w->rowg = w->rowf ? w->rowf + bmax : NULL;
    if (!w->G || !w->H || !w->Zd || !w->Gd || !w->rowf || !w->X || !w->P || !w->E || !w->Dl ||
        !w->Gr || !w->Hs || !w->T || !w->ok)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "fold_in: out of memory (blocks of %lu x %lu)", (unsigned long)bmax,
                             (unsigned long)mh);
    return RO_SGNS_OK;
}

/* G = A^T diag(colfac) A, upper part, in context order. */
static void ro_sgns__fold_g(ro_sgns__fold_work *w)
{
    const size_t mh = w->j.mh, d = w->j.d;
    double *G = w->G;
    size_t c, i, j;
    for (i = 0; i < d * d; ++i) G[i] = 0;
    for (c = 0; c < mh; ++c) {
        const ro_sgns_real *a = w->j.A + c * d;
        const double wc = (double)w->j.s->colfac[c];
        for (i = 0; i < d; ++i) {
            const double ai = wc * (double)a[i];
            double *gi = G + i * d;
            for (j = i; j < d; ++j) gi[j] += ai * (double)a[j];
        }
    }
}

/* Each row of the block (bn rows from tail row b0): its H = 1/4 (rowfac G
   + its counts' part), H's Cholesky factor, and its start: z = 0 and
   x = 0, or z from Z0 (x then by a GEMM, in ro_sgns__fold_side). */
static void ro_sgns__fold_block_start(ro_sgns__fold_work *w, size_t b0, size_t bn)
{
    /* the fields the loop reads, in locals: each thread's loop then keeps
       them in registers rather than reloading them through w */
    const ro_sgns__side *s = w->j.s;
    const size_t nh = w->j.nh, mh = w->j.mh, d = w->j.d;
    const ro_sgns_real *Z0 = w->j.Z0, *A = w->j.A;
    const double *G = w->G, *Prec = w->j.Prec;
    double *H = w->H, *Zd = w->Zd;
    ro_sgns_real *Hs = w->Hs, *Z = w->j.Z, *X = w->X;
    int *ok = w->ok;
    long r;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4)
#endif
    for (r = 0; r < (long)bn; ++r) {
        const size_t row = nh + b0 + (size_t)r;
        const double rf = s->rowfac[row];
        double *h = H + (size_t)r * d * d;
        ro_sgns_real *hs = Hs;
        size_t ii, jj, used;
#ifdef _OPENMP
        hs = Hs + (size_t)omp_get_thread_num() * d * d;
#endif
        used = ro_sgns__fold_gram(s, row, mh, A, d, hs);
        for (ii = 0; ii < d; ++ii)
            for (jj = 0; jj < d; ++jj)
                h[ii * d + jj] = jj >= ii ? 0.25 * (rf * G[ii * d + jj] + (double)hs[ii * d + jj]) +
                                                (Prec ? Prec[ii * d + jj] : 0)
                                          : 0;
        ok[r] = used > 0 && ro_sgns__cholesky_in_place(d, h);
        for (ii = 0; ii < d; ++ii) {
            const ro_sgns_real z0 = Z0 ? Z0[(b0 + (size_t)r) * d + ii] : 0;
            Zd[(size_t)r * d + ii] = (double)z0;
            Z[(b0 + (size_t)r) * d + ii] = z0;
        }
        if (!Z0)
            for (ii = 0; ii < mh; ++ii) X[(size_t)r * mh + ii] = 0;
    }
}

/* The block's coefficients P_b at x (II.5's kernels, plain: -B s(x), plus
   #(w,c) s(-x) at the counts) and, with want_f, the rows' f into rowf
   (its dense terms in Dl, free here). */
static void ro_sgns__fold_coefficients(ro_sgns__fold_work *w, size_t b0, size_t bn, int want_f)
{
    const ro_sgns__side *s = w->j.s;
    const size_t nh = w->j.nh, mh = w->j.mh;
    const uint64_t e0 = s->row_ptr[nh + b0]; /* the block's entries from here */
    long r;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4)
#endif
    for (r = 0; r < (long)bn; ++r) {
        const size_t row = nh + b0 + (size_t)r;
        const uint64_t p0 = s->row_ptr[row], len = s->row_ptr[row + 1] - p0;
        const ro_sgns_real *x = w->X + (size_t)r * mh;
        ro_sgns_real *pr = w->P + (size_t)r * mh, *es = w->E + (size_t)r * mh;
        ro_sgns_real *fd = w->Dl + (size_t)r * mh, *xs, *ex, *as, *bs, *dl, *fs;
        double acc[32];
        size_t q, nk = 0;
        if (!w->ok[r]) {
            for (q = 0; q < mh; ++q) pr[q] = 0;
            w->rowf[r] = 0;
            continue;
        }
        xs = w->T + (size_t)(p0 - e0) * 6; /* this row's share of T */
        ex = xs + len;
        as = ex + len;
        bs = as + len;
        dl = bs + len;
        fs = dl + len;
        memcpy(pr, x, mh * sizeof(ro_sgns_real));
        ro_sgns__row_exp(pr, mh, es);
        while (nk < len && s->col[p0 + nk] < mh) {
            const size_t cc = s->col[p0 + nk];
            xs[nk] = x[cc];
            ex[nk] = es[cc];
            as[nk] = (ro_sgns_real)s->val[p0 + nk];
            bs[nk] = 1; /* plain */
            ++nk;
        }
        ro_sgns__sparse_terms(nk, xs, ex, as, bs, dl, want_f ? fs : NULL);
        ro_sgns__dense_rest(pr, mh, s->colfac, (ro_sgns_real)s->rowfac[row], 1,
                            want_f ? fd : NULL, es);
        for (q = 0; q < nk; ++q) pr[s->col[p0 + q]] += dl[q];
        if (want_f) {
            for (q = 0; q < 32; ++q) acc[q] = 0;
            ro_sgns__sum_into(acc, fd, mh);
            ro_sgns__sum_into(acc, fs, nk);
            w->rowf[r] = ro_sgns__sum_lanes(acc);
        }
    }
}

/* From g (in Gr, reals; with a prior, its gradient -Prec (z - z0) added):
   |g|^2 into rowg, g in double into Gd, and the direction H^-1 g into Gd
   (double) and Gr (reals). */
static void ro_sgns__fold_direction(ro_sgns__fold_work *w, size_t b0, size_t bn)
{
    const size_t d = w->j.d;
    const double *Prec = w->j.Prec;
    long r;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (r = 0; r < (long)bn; ++r) {
        double *g = w->Gd + (size_t)r * d, g2 = 0;
        ro_sgns_real *gr = w->Gr + (size_t)r * d;
        size_t ii, jj;
        for (ii = 0; ii < d; ++ii) g[ii] = (double)gr[ii];
        if (Prec) { /* z0 = Z0's row (a prior needs the start) */
            const double *z = w->Zd + (size_t)r * d;
            const ro_sgns_real *z0 = w->j.Z0 + (b0 + (size_t)r) * d;
            for (ii = 0; ii < d; ++ii)
                for (jj = 0; jj < d; ++jj) g[ii] -= Prec[ii * d + jj] * (z[jj] - (double)z0[jj]);
        }
        for (ii = 0; ii < d; ++ii) g2 += g[ii] * g[ii];
        w->rowg[r] = w->ok[r] ? g2 : 0;
        if (w->ok[r]) ro_sgns__cholesky_solve(d, w->H + (size_t)r * d * d, g);
        for (ii = 0; ii < d; ++ii) gr[ii] = w->ok[r] ? (ro_sgns_real)g[ii] : 0;
    }
}

/* The step alpha along the direction: f(z + alpha H^-1 g) is concave in
   alpha, rising at 0; alpha = 1 is the MM step, which raises f (docs/GUIDE.md,
   Folding in). Up to three Newton steps on its derivative from 1,
   kept in the bracket [lo, hi] around the best alpha; the step taken is
   lo, the largest alpha seen with the derivative still > 0 (so f rises),
   or 1 when none was. With a prior its terms join f's: -pa - alpha pb in
   the derivative, pb in the curvature. Then z += alpha H^-1 g, x +=
   alpha dl. */
static void ro_sgns__fold_move(ro_sgns__fold_work *w, size_t b0, size_t bn)
{
    const size_t nh = w->j.nh, mh = w->j.mh, d = w->j.d;
    const int searches = w->j.cfg->line_search ? 3 : 0;
    const double *Prec = w->j.Prec;
    long r;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 4)
#endif
    for (r = 0; r < (long)bn; ++r) {
        const size_t row = nh + b0 + (size_t)r;
        ro_sgns_real *x = w->X + (size_t)r * mh, *dl = w->Dl + (size_t)r * mh;
        ro_sgns_real *zr = w->j.Z + (b0 + (size_t)r) * d;
        const double *g = w->Gd + (size_t)r * d;
        double *z = w->Zd + (size_t)r * d, alpha = 1, lo = 0, hi = -1, g1, h, next;
        double pa = 0, pb = 0; /* the prior along g: g^T Prec (z - z0), g^T Prec g */
        size_t ii, jj;
        int q;
        if (!w->ok[r]) continue;
        if (Prec && searches)
            for (ii = 0; ii < d; ++ii)
                for (jj = 0; jj < d; ++jj) {
                    const double gp = g[ii] * Prec[ii * d + jj];
                    pa += gp * (z[jj] - (double)w->j.Z0[(b0 + (size_t)r) * d + jj]);
                    pb += gp * g[jj];
                }
        for (q = 0; q < searches; ++q) {
            ro_sgns__line_eval(w->j.s, row, mh, x, dl, alpha, w->P + (size_t)r * mh,
                               w->E + (size_t)r * mh, &g1, &h);
            g1 -= pa + alpha * pb;
            h += pb;
            if (g1 > 0) lo = alpha;
            else hi = alpha;
            next = h > 0 ? alpha + g1 / h : -1;
            if (!(next > lo && (hi < 0 || next < hi)) || !ro_sgns__is_finite(next))
                next = hi < 0 ? 2 * lo : 0.5 * (lo + hi);
            alpha = next;
        }
        alpha = lo > 0 ? lo : 1;
        for (ii = 0; ii < d; ++ii) {
            z[ii] += alpha * g[ii];
            zr[ii] = (ro_sgns_real)z[ii];
        }
        for (ii = 0; ii < mh; ++ii) x[ii] += (ro_sgns_real)alpha * dl[ii];
    }
}

/* The fold of one side: rows nh.. of s (the tail; its first mh columns
   trained, with factor rows A, mh x d) into Z ((s->rows - nh) x d), the
   report's sums added to rep, block by block. A step: P_b at x, g =
   G_b = P_b A, the direction H^-1 g, dl = (H^-1 g) A^T, then z and x move;
   the report's sums in row order (the same bits for any thread count). */
static ro_sgns_result ro_sgns__fold_side(const ro_sgns__fold_job *job,
                                         const ro_sgns_allocator *al, ro_sgns_error *err)
{
    ro_sgns__fold_work w;
    ro_sgns__fold_sums *rep = job->rep;
    const size_t mh = job->mh, d = job->d;
    size_t b0, i;
    int t;
    ro_sgns_result res;
    if (job->s->rows == job->nh) return RO_SGNS_OK;
    res = ro_sgns__fold_alloc(&w, job, al, err);
    if (res == RO_SGNS_OK) ro_sgns__fold_g(&w);
    for (b0 = 0; b0 < w.tail && res == RO_SGNS_OK; b0 += w.br) {
        const size_t bn = ro_sgns__min(w.br, w.tail - b0);
        ro_sgns__fold_block_start(&w, b0, bn);
        if (job->Z0) /* x = z A^T */
            res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, bn, mh, d, 1, job->Z0 + b0 * d, d,
                               job->A, d, 0, w.X, mh, al, err);
        for (t = 0; res == RO_SGNS_OK; ++t) {
            const int last = t == job->cfg->iterations, want_f = rep->want && (t == 0 || last);
            if (last && !rep->want) break; /* the last evaluation is the report's */
            ro_sgns__fold_coefficients(&w, b0, bn, want_f);
            res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, bn, d, mh, 1, w.P, mh, job->A, d,
                               0, w.Gr, d, al, err);
            if (res != RO_SGNS_OK) break;
            ro_sgns__fold_direction(&w, b0, bn);
            for (i = 0; i < bn; ++i) {
                if (t == 0) {
                    rep->r.f_start += w.rowf[i];
                    rep->r.grad2_start += w.rowg[i];
                }
                if (last) {
                    rep->r.f_end += w.rowf[i];
                    rep->r.grad2_end += w.rowg[i];
                }
            }
            if (last) break;
            res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, bn, mh, d, 1, w.Gr, d, job->A, d, 0,
                               w.Dl, mh, al, err);
            if (res != RO_SGNS_OK) break;
            ro_sgns__fold_move(&w, b0, bn);
        }
        for (i = 0; i < bn; ++i) {
            ++rep->r.rows;
            if (!w.ok[i]) ++rep->r.rows_empty;
        }
        job->prog->rows_done += bn;
        job->prog->seconds = ro_sgns__now() - job->t0;
        if (res == RO_SGNS_OK && job->cfg->callback &&
            job->cfg->callback(job->prog, job->cfg->user))
            res = ro_sgns__fail(err, RO_SGNS_STOPPED, "fold_in: stopped by the callback after "
                                "%lu of %lu rows", (unsigned long)job->prog->rows_done,
                                (unsigned long)job->prog->rows_total);
    }
    ro_sgns__fold_free(&w, al);
    return res;
}

/* The tail rows' start from the start point W0 C0^T (docs/GUIDE.md,
   Folding in), one side: the z whose line x = z A^T over the head's lines
   is nearest, in least squares, to the start's x0 = B0_h t0 there
   (t0 the row's own start, B0_h the start's other factor over the head's
   lines): z = (A^T A)^-1 A^T B0_h t0, so Z0 = T0 M^T with the one d x d
   M = (A^T A)^-1 A^T B0_h (kept in Mr, d x d). The sums in line order:
   the same bits for any thread count. */
static ro_sgns_result ro_sgns__fold_start(size_t lines, size_t d, const ro_sgns_real *A,
                                          const ro_sgns_real *B0, size_t tail,
                                          const ro_sgns_real *T0, ro_sgns_real *Z0,
                                          ro_sgns_real *Mr, const ro_sgns_allocator *al,
                                          ro_sgns_error *err)
{
    double *K = (double *)ro_sgns__alloc_array(al, d, d, sizeof(double));
    double *M = (double *)ro_sgns__alloc_array(al, d, d, sizeof(double));
    double *col = (double *)ro_sgns__alloc_array(al, d, 1, sizeof(double));
    ro_sgns_result res = RO_SGNS_OK;
    size_t c, i, j;
    if (!K || !M || !col) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "fold_in: out of memory (d = %lu)",
                            (unsigned long)d);
        goto done;
    }
    for (i = 0; i < d * d; ++i) K[i] = M[i] = 0;
    for (c = 0; c < lines; ++c) { /* K = A^T A (upper part), M = A^T B0_h */
        const ro_sgns_real *a = A + c * d, *b = B0 + c * d;
        for (i = 0; i < d; ++i) {
            const double ai = (double)a[i];
            double *ki = K + i * d, *mi = M + i * d;
            for (j = i; j < d; ++j) ki[j] += ai * (double)a[j];
            for (j = 0; j < d; ++j) mi[j] += ai * (double)b[j];
        }
    }
    if (!ro_sgns__cholesky_in_place(d, K)) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                            "fold_in: the head's factor has rank below d (or holds a NaN): the "
                            "start cannot be projected onto it");
        goto done;
    }
    for (j = 0; j < d; ++j) { /* M = (A^T A)^-1 M, a column at a time */
        for (i = 0; i < d; ++i) col[i] = M[i * d + j];
        ro_sgns__cholesky_solve(d, K, col);
        for (i = 0; i < d; ++i) Mr[i * d + j] = (ro_sgns_real)col[i];
    }
    res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, tail, d, d, 1, T0, d, Mr, d, 0, Z0, d, al,
                       err);
    if (res == RO_SGNS_OK && !ro_sgns__all_finite(tail, d, Z0, d))
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "fold_in: NaN or Inf in the start");
done:
    ro_sgns__free(al, K);
    ro_sgns__free(al, M);
    ro_sgns__free(al, col);
    return res;
}

/* The prior's precision (docs/GUIDE.md, Folding in, "A prior"): Sigma =
   the mean of dz dz^T, dz = z - M t0, over the rarer half of the side's
   head rows (z their trained rows Own, t0 their start T0h; all head rows
   when that half holds fewer than d), Prec = (t Sigma)^-1, in double, in
   row order (the same bits for any thread count). */
static ro_sgns_result ro_sgns__fold_prior(size_t rows, size_t d, const ro_sgns_real *Own,
                                          const ro_sgns_real *T0h, const ro_sgns_real *Mr,
                                          double t, double *Prec, const ro_sgns_allocator *al,
                                          ro_sgns_error *err)
{
    double *K = (double *)ro_sgns__alloc_array(al, d, d, sizeof(double));
    double *dz = (double *)ro_sgns__alloc_array(al, d, 1, sizeof(double));
    const size_t r0 = rows - rows / 2 >= d ? rows / 2 : 0;
    ro_sgns_result res = RO_SGNS_OK;
    size_t r, i, j;
    if (!K || !dz) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "fold_in: out of memory (d = %lu)",
                            (unsigned long)d);
        goto done;
    }
    for (i = 0; i < d * d; ++i) K[i] = 0;
    for (r = r0; r < rows; ++r) {
        for (i = 0; i < d; ++i) {
            double z0 = 0;
            for (j = 0; j < d; ++j) z0 += (double)Mr[i * d + j] * (double)T0h[r * d + j];
            dz[i] = (double)Own[r * d + i] - z0;
        }
        for (i = 0; i < d; ++i)
            for (j = i; j < d; ++j) K[i * d + j] += dz[i] * dz[j];
    }
    for (i = 0; i < d * d; ++i) K[i] *= t / (double)(rows - r0);
    if (!ro_sgns__cholesky_in_place(d, K)) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                            "fold_in: the prior's covariance (the head's rows about their "
                            "start) is singular or holds a NaN");
        goto done;
    }
    for (j = 0; j < d; ++j) { /* Prec = (t Sigma)^-1, a column at a time */
        for (i = 0; i < d; ++i) dz[i] = i == j;
        ro_sgns__cholesky_solve(d, K, dz);
        for (i = 0; i < d; ++i) Prec[i * d + j] = dz[i];
    }
    for (i = 0; i < d; ++i) /* exactly symmetric */
        for (j = 0; j < i; ++j) Prec[i * d + j] = Prec[j * d + i];
    for (i = 0; i < d * d && res == RO_SGNS_OK; ++i)
        if (!ro_sgns__is_finite(Prec[i]))
            res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "fold_in: NaN or Inf in the prior");
done:
    ro_sgns__free(al, K);
    ro_sgns__free(al, dz);
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_fold_in(const ro_sgns_problem *p, const ro_sgns_factors *hd,
                                           const ro_sgns_fold_config *config,
                                           ro_sgns_factors **out, ro_sgns_fold_report *report,
                                           const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns_fold_config cfg = config ? *config : ro_sgns_fold_config_default();
    ro_sgns__fold_sums rep;
    ro_sgns_fold_progress prog;
    const double t0 = ro_sgns__now();
    ro_sgns_real *L = NULL, *R = NULL, *A = NULL, *W0 = NULL, *Z0 = NULL, *Mr = NULL;
    double *Prec = NULL; /* the prior's precision, or NULL */
    const int start = cfg.start_w != NULL || cfg.start_c != NULL;
    size_t n, m, nh, mh, d;
    ro_sgns_result res;
    if (!p || !hd || !out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "fold_in: NULL argument");
    n = p->n;
    m = p->m;
    nh = hd->n;
    mh = hd->m;
    d = hd->d;
    if (p->r0 != 0 || p->r1 != p->n || nh == 0 || mh == 0 || nh > n || mh > m || d == 0 ||
        d > nh || d > mh || cfg.iterations < 0 || (start && (!cfg.start_w || !cfg.start_c)) ||
        !(cfg.prior >= 0) || !ro_sgns__is_finite(cfg.prior) || (cfg.prior > 0 && !start))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "fold_in: need a whole problem, a head point of n_h <= n words, "
                             "m_h <= m contexts and 1 <= d <= min(n_h, m_h), iterations >= 0, "
                             "both of start_w and start_c or neither, and a finite prior >= 0 "
                             "(> 0 needs the start) (n_h = %lu, n = %lu, m_h = %lu, m = %lu, "
                             "d = %lu, prior = %g)",
                             (unsigned long)nh, (unsigned long)n, (unsigned long)mh,
                             (unsigned long)m, (unsigned long)d, cfg.prior);
    memset(&rep, 0, sizeof rep);
    rep.want = report != NULL;
    memset(&prog, 0, sizeof prog);
    prog.rows_total = (n - nh) + (m - mh);
    L = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, d, sizeof(ro_sgns_real));
    R = (ro_sgns_real *)ro_sgns__alloc_array(alloc, m, d, sizeof(ro_sgns_real));
    A = (ro_sgns_real *)ro_sgns__alloc_array(alloc, nh > mh ? nh : mh, d, sizeof(ro_sgns_real));
    W0 = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, d, sizeof(ro_sgns_real));
    if (start) {
        Z0 = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n - nh > m - mh ? n - nh : m - mh, d,
                                                  sizeof(ro_sgns_real));
        Mr = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, d, sizeof(ro_sgns_real));
    }
    if (cfg.prior > 0) Prec = (double *)ro_sgns__alloc_array(alloc, d, d, sizeof(double));
    res = L && R && A && W0 && ((Z0 && Mr) || !start) && (Prec || !(cfg.prior > 0)) ? RO_SGNS_OK
                            : ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                            "fold_in: out of memory (n = %lu, m = %lu, d = %lu)",
                                            (unsigned long)n, (unsigned long)m, (unsigned long)d);
    if (res != RO_SGNS_OK) goto done;
    memcpy(L, hd->U, nh * d * sizeof(ro_sgns_real));
    memcpy(R, hd->V, mh * d * sizeof(ro_sgns_real));
    /* tail words against A = V S^T: x_wc = z.(S V_c^T) */
    res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, mh, d, d, 1, hd->V, d, hd->S, d, 0, A, d,
                       alloc, err);
    if (res == RO_SGNS_OK && start && n > nh)
        res = ro_sgns__fold_start(mh, d, A, cfg.start_c, n - nh, cfg.start_w + nh * d, Z0, Mr,
                                  alloc, err);
    if (res == RO_SGNS_OK && Prec && n > nh) /* the head's words about their start */
        res = ro_sgns__fold_prior(nh, d, hd->U, cfg.start_w, Mr, cfg.prior, Prec, alloc, err);
    if (res == RO_SGNS_OK) {
        const ro_sgns__fold_job job = {&p->fwd, nh, mh, d, A, &cfg, Z0, Prec,
                                       L + nh * d, &rep, &prog, t0};
        res = ro_sgns__fold_side(&job, alloc, err);
    }
    /* tail contexts against A = U S: x_wc = (U_w S).y */
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, nh, d, d, 1, hd->U, d, hd->S, d, 0,
                           A, d, alloc, err);
    if (res == RO_SGNS_OK && start && m > mh)
        res = ro_sgns__fold_start(nh, d, A, cfg.start_w, m - mh, cfg.start_c + mh * d, Z0, Mr,
                                  alloc, err);
    if (res == RO_SGNS_OK && Prec && m > mh) /* the head's contexts about their start */
        res = ro_sgns__fold_prior(mh, d, hd->V, cfg.start_c, Mr, cfg.prior, Prec, alloc, err);
    if (res == RO_SGNS_OK) {
        const ro_sgns__fold_job job = {&p->bwd, mh, nh, d, A, &cfg, Z0, Prec,
                                       R + mh * d, &rep, &prog, t0};
        res = ro_sgns__fold_side(&job, alloc, err);
    }
    if (res == RO_SGNS_OK && (!ro_sgns__all_finite(n, d, L, d) || !ro_sgns__all_finite(m, d, R, d)))
        res = ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC, "fold_in: NaN or Inf in a folded row");
    /* X = [U_h; Z] S [V_h; Y]^T = W0 C0^T with W0 = [U_h; Z] S, C0 = [V_h; Y] */
    if (res == RO_SGNS_OK)
        res = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, n, d, d, 1, L, d, hd->S, d, 0, W0, d,
                           alloc, err);
    if (res == RO_SGNS_OK) res = ro_sgns_factors_from_wc(n, m, d, W0, R, out, alloc, err);
    if (res == RO_SGNS_OK) {
        (*out)->iteration = hd->iteration;
        ro_sgns__stamp(p, *out);
        if (report) *report = rep.r;
    }
done:
    ro_sgns__free(alloc, L);
    ro_sgns__free(alloc, R);
    ro_sgns__free(alloc, A);
    ro_sgns__free(alloc, W0);
    ro_sgns__free(alloc, Z0);
    ro_sgns__free(alloc, Mr);
    ro_sgns__free(alloc, Prec);
    return res;
}

#endif /* RO_SGNS_NO_FOLD */

/* ######################################################################
   PART III. AROUND THE METHOD

   What a program around the method needs, each part behind its switch
   (BUILD OPTIONS at the top): counting (III.1), the files (III.2-III.4),
   word vectors and their formats (III.5), evaluation (III.6) and
   word2vec's SGD as a baseline (III.7). They call into Parts I-II and the
   basics only, and one another only through the public API; nothing in
   Parts I-II calls them.
   ###################################################################### */

#ifndef RO_SGNS_NO_COUNT

/* ======================================================================
   III.1 Counting a corpus [paper 2.1] (RO_SGNS_NO_COUNT leaves it out)
   WHAT: raw text -> tokens -> vocabulary (exact 64-bit counts, min_count,
     max_vocab, a deterministic order) -> the counts #(w,c) of word pairs
     within L positions, as an n x n CSR matrix, with the marginals
     #(w) = sum_c #(w,c), #(c) = sum_w #(w,c) and |D| = sum #(w,c) that the
     objective F(X) [eq. 4] and the SPPMI starting point [5] are made of.
     (The counts object itself, its vocabulary index and fingerprint, is
     II.3's; the counts file is III.3.)
   HOW, in three passes: (a) read: tokens interned in a table of distinct
     words and appended to a stream of 2-byte codes, LINE at each line
     break (unless cross_lines) and at both ends; (b) vocabulary: sort by
     (count desc, bytes asc), cut, rewrite the stream to vocabulary ids,
     DROP for dropped words; (c) pairs, by groups of rows as large as the
     memory budget allows: each row summed into a dense accumulator with a
     bitmap of touched columns, emitted in ascending columns. The counts
     are the same bit for bit for any budget and any thread count.
   INVARIANTS: S[0] = S[N-1] = LINE; any other S[p] is a vocabulary id
     (< n), DROP or LINE; a window walk stops at LINE and steps over DROP;
     weights are summed as integers (1, or L - dist + 1 when weighted) in
     doubles, exact below 2^53, so no sum depends on its order and the
     weighted mode divides by L once, at the end; acc[] and the bitmaps are
     all zero between rows; random draws for token t come from streams
     seeded with (seed, t / 65536), so they depend on nothing else.
   why, memory, cost: docs/DESIGN.md, III.1
   ====================================================================== */

#define RO_SGNS__LINE 0xFFFFFFFFu /* stream sentinel: a line break or an end */
#define RO_SGNS__DROP 0xFFFFFFFEu /* stream sentinel: a dropped word */

#define RO_SGNS__RNG_BLOCK_SHIFT 16   /* tokens per random stream: 65536 */

/* The first min(len, 8) bytes as a little-endian word, zero padded; may
   read 8 bytes. */
static uint64_t ro_sgns__head_fast(const unsigned char *p, size_t len)
{
    uint64_t x = ro_sgns__le64(p);
    return len >= 8 ? x : x & (((uint64_t)1 << (8 * len)) - 1);
}

static uint64_t ro_sgns__hash_fast(const unsigned char *p, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)len * 0xC2B2AE3D27D4EB4Full);
    for (; len >= 8; p += 8, len -= 8) h = ro_sgns__hash_mix(h, ro_sgns__le64(p));
    if (len) h = ro_sgns__hash_mix(h, ro_sgns__head_fast(p, len));
    return ro_sgns__hash_final(h);
}

/* ---- pass (a): tokens into the table of distinct words and the stream ---

   The table of distinct words is open addressing over 4 x 64-bit entries:
       e[0] count (0 = empty slot)     e[1] arena offset << 8 | length
       e[2] id << 32 | hash >> 32      e[3] the first 8 bytes (zero padded)
   so a word of at most 8 bytes (most tokens) is found by reading one cache
   line; longer ones compare the rest in the arena. Ids are given in order
   of first appearance and never change (the table may be rehashed).
   Tokens are interned in batches of RO_SGNS__BATCH (hash all, prefetch
   their slots, then look them up).
   The pass-1 stream holds 2-byte codes: an id below RO_SGNS__ESC is one
   code, a larger id is RO_SGNS__ESC, id >> 16, id & 0xFFFF; 0xFFFF is a
   line break. */

#define RO_SGNS__BATCH 64
#define RO_SGNS__BATCH_BYTES (RO_SGNS__BATCH * (RO_SGNS_MAX_WORD_BYTES + 1))
#define RO_SGNS__ESC 0xFFF0u
#define RO_SGNS__LINE16 0xFFFFu
#define RO_SGNS__MARK 0xFFFFFFFFu /* a line break in the batch */

/* The NOT TEXT check (section 8): what the first RO_SGNS_SNIFF_BYTES bytes
   hold, gathered block by block so that the verdict does not depend on
   where a reader splits them. */
typedef struct ro_sgns__sniff {
    uint64_t seen;        /* bytes looked at */
    uint64_t nul[2];      /* NUL bytes at even and odd offsets */
    uint64_t first_nul;   /* the offset of the first NUL */
    uint64_t bad;         /* invalid UTF-8 sequences */
    uint64_t first_bad;   /* the offset of the first one */
    unsigned char head[4]; /* the first bytes (byte order marks) */
    unsigned need;        /* continuation bytes the current sequence still needs */
    int done;             /* the verdict is in (RO_SGNS_OK) */
} ro_sgns__sniff;

typedef struct ro_sgns__counter {
    ro_sgns__mem mem;
    ro_sgns_count_config cfg;
    ro_sgns_error *err;
    /* the table of distinct words (see above) */
    uint64_t *tab;
    size_t tab_mask; /* slots - 1 */
    size_t nw;       /* distinct words */
    unsigned char *warena;
    size_t arena_len, arena_cap;
    /* the pass-1 stream of codes, later the stream of vocabulary ids:
       S16 (in place of the codes) when n <= 65533, else S32; N positions,
       S[0] = S[N-1] = LINE */
    uint16_t *C;
    size_t clen, ccap;
    uint16_t *S16;
    uint32_t *S32;
    size_t N, s32cap;
    uint16_t *bw; /* sampled half-widths per position (dynamic_window 1) */
    size_t bwcap;
    int last_line; /* the last code is a line break */
    uint64_t tokens;
    ro_sgns__sniff sniff; /* the NOT TEXT check (section 8) */
    uint64_t positions_done; /* pass (c)'s progress */
    /* the batch: words at bbuf + bstart[i], blen[i] bytes (RO_SGNS__MARK
       for a line break); the word being read is at bbuf + bused, cur bytes
       seen (saturating at MAX + 1, the bytes past MAX are not kept) */
    size_t nb, bused, cur;
    uint32_t bstart[RO_SGNS__BATCH], blen[RO_SGNS__BATCH];
    uint64_t bhash[RO_SGNS__BATCH];
    unsigned char bbuf[RO_SGNS__BATCH_BYTES + 16]; /* + 16: room for 8-byte reads */
} ro_sgns__counter;

#define RO_SGNS__E(k, slot) ((k)->tab + 4 * (size_t)(slot))
#define RO_SGNS__ELEN(e) ((size_t)((e)[1] & 0xFFu))
#define RO_SGNS__EBYTES(k, e) ((k)->warena + (size_t)((e)[1] >> 8))

static void ro_sgns__counter_free_table(ro_sgns__counter *k)
{
    ro_sgns__mem_free(&k->mem, k->tab, 4 * (k->tab_mask + 1), sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, k->warena, k->arena_cap, 1);
    k->tab = NULL;
    k->warena = NULL;
}

static void ro_sgns__counter_free(ro_sgns__counter *k)
{
    ro_sgns__counter_free_table(k);
    ro_sgns__mem_free(&k->mem, k->C, k->ccap, sizeof(uint16_t));
    ro_sgns__mem_free(&k->mem, k->S32, k->s32cap, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, k->bw, k->bwcap, sizeof(uint16_t));
    k->C = NULL;
    k->S16 = NULL;
    k->S32 = NULL;
    k->bw = NULL;
}

/* Append m (1..3) codes to the pass-1 stream. */
static ro_sgns_result ro_sgns__push(ro_sgns__counter *k, const uint16_t *x, size_t m)
{
    size_t i;
    if (k->ccap - k->clen < m) {
        ro_sgns_result rc = RO_SGNS_OK;
        size_t ncap = k->ccap + k->ccap / 2 + 4096;
        uint16_t *q;
        if (k->clen >= (size_t)0xFFFFFFF0u)
            return ro_sgns__fail(k->err, RO_SGNS_ERR_SIZE_OVERFLOW,
                                 "corpus too long: more than %llu tokens and line breaks",
                                 (unsigned long long)0xFFFFFFF0u);
        q = (uint16_t *)ro_sgns__mem_realloc(&k->mem, k->C, k->ccap, ncap, sizeof(uint16_t),
                                             "token id stream", k->err, &rc);
        if (!q) return rc;
        k->C = q;
        k->ccap = ncap;
    }
    for (i = 0; i < m; ++i) k->C[k->clen++] = x[i];
    return RO_SGNS_OK;
}

static ro_sgns_result ro_sgns__push_id(ro_sgns__counter *k, uint32_t id)
{
    uint16_t x[3];
    k->last_line = 0;
    if (id < RO_SGNS__ESC) {
        if (k->clen < k->ccap) {
            k->C[k->clen++] = (uint16_t)id;
            return RO_SGNS_OK;
        }
        x[0] = (uint16_t)id;
        return ro_sgns__push(k, x, 1);
    }
    x[0] = (uint16_t)RO_SGNS__ESC;
    x[1] = (uint16_t)(id >> 16);
    x[2] = (uint16_t)(id & 0xFFFFu);
    return ro_sgns__push(k, x, 3);
}

static ro_sgns_result ro_sgns__push_line(ro_sgns__counter *k)
{
    uint16_t x = (uint16_t)RO_SGNS__LINE16;
    if (k->last_line) return RO_SGNS_OK; /* one is enough */
    k->last_line = 1;
    return ro_sgns__push(k, &x, 1);
}

static ro_sgns_result ro_sgns__table_grow(ro_sgns__counter *k)
{
    ro_sgns_result rc = RO_SGNS_OK;
    size_t nslots = (k->tab_mask + 1) * 2, i, nmask = nslots - 1;
    uint64_t *nt = (uint64_t *)ro_sgns__mem_alloc(&k->mem, 4 * nslots, sizeof(uint64_t),
                                                  "table of distinct words", k->err, &rc);
    if (!nt) return rc;
    memset(nt, 0, 4 * nslots * sizeof(uint64_t));
    for (i = 0; i <= k->tab_mask; ++i) {
        const uint64_t *e = RO_SGNS__E(k, i);
        size_t j;
        if (!e[0]) continue;
        j = (size_t)ro_sgns__hash_bytes(RO_SGNS__EBYTES(k, e), RO_SGNS__ELEN(e)) & nmask;
        while (nt[4 * j]) j = (j + 1) & nmask;
        memcpy(nt + 4 * j, e, 4 * sizeof(uint64_t));
    }
    ro_sgns__mem_free(&k->mem, k->tab, 4 * (k->tab_mask + 1), sizeof(uint64_t));
    k->tab = nt;
    k->tab_mask = nmask;
    return RO_SGNS_OK;
}

static int ro_sgns__same_bytes(const unsigned char *a, const unsigned char *b, size_t len)
{
    size_t i;
    for (i = 0; i < len; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* One token of len bytes (already cut) with hash h: count it, append its id. */
static ro_sgns_result ro_sgns__intern(ro_sgns__counter *k, const unsigned char *w, size_t len,
                                      uint64_t h)
{
    uint64_t head = ro_sgns__head_fast(w, len), tag = h >> 32, *e;
    size_t j = (size_t)h & k->tab_mask;
    uint32_t id;
    ro_sgns_result rc = RO_SGNS_OK;
    ++k->tokens;
    for (;;) {
        e = RO_SGNS__E(k, j);
        if (!e[0]) break;
        if ((e[2] & 0xFFFFFFFFu) == tag && e[3] == head && RO_SGNS__ELEN(e) == len &&
            (len <= 8 || ro_sgns__same_bytes(RO_SGNS__EBYTES(k, e) + 8, w + 8, len - 8))) {
            ++e[0];
            return ro_sgns__push_id(k, (uint32_t)(e[2] >> 32));
        }
        j = (j + 1) & k->tab_mask;
    }
    /* a new word */
    if (k->nw >= (size_t)RO_SGNS__MAX_IDS)
        return ro_sgns__fail(k->err, RO_SGNS_ERR_SIZE_OVERFLOW, "more than %llu distinct words",
                             (unsigned long long)RO_SGNS__MAX_IDS);
    if (k->arena_cap - k->arena_len < len) {
        size_t nc = k->arena_cap * 2 + len;
        unsigned char *p = (unsigned char *)ro_sgns__mem_realloc(
            &k->mem, k->warena, k->arena_cap, nc, 1, "words of the vocabulary", k->err, &rc);
        if (!p) return rc;
        k->warena = p;
        k->arena_cap = nc;
    }
    if (len) memcpy(k->warena + k->arena_len, w, len);
    id = (uint32_t)k->nw;
    e[0] = 1;
    e[1] = ((uint64_t)k->arena_len << 8) | (uint64_t)len;
    e[2] = ((uint64_t)id << 32) | tag;
    e[3] = head;
    k->arena_len += len;
    ++k->nw;
    if ((k->nw + 1) * 2 > k->tab_mask + 1) {
        rc = ro_sgns__table_grow(k);
        if (rc != RO_SGNS_OK) return rc;
    }
    return ro_sgns__push_id(k, id);
}

/* Intern the batch: hash and prefetch all, then look up in order. */
static ro_sgns_result ro_sgns__flush_batch(ro_sgns__counter *k)
{
    size_t i;
    ro_sgns_result rc;
    for (i = 0; i < k->nb; ++i) {
        if (k->blen[i] == RO_SGNS__MARK) continue;
        k->bhash[i] = ro_sgns__hash_fast(k->bbuf + k->bstart[i], k->blen[i]);
        RO_SGNS__PREFETCH(k->tab + 4 * ((size_t)k->bhash[i] & k->tab_mask));
    }
    for (i = 0; i < k->nb; ++i) {
        if (k->blen[i] == RO_SGNS__MARK)
            rc = ro_sgns__push_line(k);
        else
            rc = ro_sgns__intern(k, k->bbuf + k->bstart[i], k->blen[i], k->bhash[i]);
        if (rc != RO_SGNS_OK) return rc;
    }
    k->nb = 0;
    k->bused = 0;
    return RO_SGNS_OK;
}

/* The current word is complete: cut it if it is too long, queue it. */
static ro_sgns_result ro_sgns__end_word(ro_sgns__counter *k)
{
    size_t len = ro_sgns__cut_token(k->bbuf + k->bused, k->cur);
    k->cur = 0;
    k->bstart[k->nb] = (uint32_t)k->bused;
    k->blen[k->nb] = (uint32_t)len;
    ++k->nb;
    k->bused += len;
    /* room for the next word, up to MAX + 1 bytes */
    if (k->nb == RO_SGNS__BATCH || RO_SGNS__BATCH_BYTES - k->bused < RO_SGNS_MAX_WORD_BYTES + 1)
        return ro_sgns__flush_batch(k);
    return RO_SGNS_OK;
}

static ro_sgns_result ro_sgns__line_break(ro_sgns__counter *k)
{
    if (k->cfg.cross_lines) return RO_SGNS_OK;
    k->bstart[k->nb] = 0;
    k->blen[k->nb] = RO_SGNS__MARK;
    if (++k->nb == RO_SGNS__BATCH) return ro_sgns__flush_batch(k);
    return RO_SGNS_OK;
}

/* Feed size bytes of text. Every byte <= ' ' separates tokens; '\n' also
   ends a line (section 8's TOKENS). */
static ro_sgns_result ro_sgns__feed(ro_sgns__counter *k, const unsigned char *data, size_t size)
{
    size_t i = 0;
    ro_sgns_result rc;
    while (i < size) {
        unsigned ch = data[i];
        if (ch > ' ') {
            /* a run of ordinary word bytes, found 8 at a time: t flags the
               bytes <= ' ' (the lowest flag is exact; bytes >= 0x80 never
               flag) */
            size_t j = i + 1, run, room;
            unsigned char *dst = k->bbuf + k->bused + k->cur;
            for (;;) {
                uint64_t x, t;
                if (size - j < 8) {
                    while (j < size && data[j] > ' ') ++j;
                    break;
                }
                x = ro_sgns__le64(data + j);
                t = (x - 0x2121212121212121ull) & ~x & 0x8080808080808080ull;
                if (t) {
                    j += (size_t)RO_SGNS__CTZ64(t) >> 3;
                    break;
                }
                j += 8;
            }
            run = j - i;
            room = RO_SGNS_MAX_WORD_BYTES + 1 - k->cur;
            if (run > room) run = room;
            if (run <= 16 && room >= 16 && size - i >= 16)
                memcpy(dst, data + i, 16); /* one fixed-size move; the excess is ignored */
            else
                memcpy(dst, data + i, run);
            k->cur += run;
            i = j;
            continue;
        }
        ++i;
        if (k->cur) {
            rc = ro_sgns__end_word(k);
            if (rc != RO_SGNS_OK) return rc;
        }
        if (ch == '\n') {
            rc = ro_sgns__line_break(k);
            if (rc != RO_SGNS_OK) return rc;
        }
    }
    return RO_SGNS_OK;
}

/* The NOT TEXT check, one block at a time: count NULs by parity and invalid
   UTF-8 sequences (a byte that cannot start one, or a sequence cut short by
   a byte that does not continue it) in the first RO_SGNS_SNIFF_BYTES. */
static void ro_sgns__sniff_feed(ro_sgns__sniff *s, const unsigned char *data, size_t size)
{
    size_t i, n = size;
    if (s->seen + n > RO_SGNS_SNIFF_BYTES) n = (size_t)(RO_SGNS_SNIFF_BYTES - s->seen);
    for (i = 0; i < n; ++i) {
        unsigned ch = data[i];
        uint64_t at = s->seen + i;
        if (at < 4) s->head[at] = (unsigned char)ch;
        if (ch == 0 && s->nul[0] + s->nul[1] == 0) s->first_nul = at;
        if (ch == 0) ++s->nul[at & 1];
        if (s->need) {
            if ((ch & 0xC0) == 0x80) {
                --s->need;
                continue;
            }
            s->need = 0; /* cut short: one bad sequence; ch starts afresh */
            if (s->bad++ == 0) s->first_bad = at;
        }
        if (ch < 0x80) continue;
        if (ch >= 0xC2 && ch <= 0xDF) s->need = 1;
        else if (ch >= 0xE0 && ch <= 0xEF) s->need = 2;
        else if (ch >= 0xF0 && ch <= 0xF4) s->need = 3;
        else if (s->bad++ == 0) s->first_bad = at;
    }
    s->seen += n;
}

/* The verdict on what the check saw: RO_SGNS_OK or RO_SGNS_ERR_FORMAT with
   what the input looks like. */
static ro_sgns_result ro_sgns__sniff_verdict(ro_sgns__sniff *s, ro_sgns_error *err)
{
    const unsigned char *h = s->head;
    uint64_t half = s->seen / 2;
    s->done = 1;
    if (s->seen >= 4 && ((h[0] == 0xFF && h[1] == 0xFE && h[2] == 0 && h[3] == 0) ||
                         (h[0] == 0 && h[1] == 0 && h[2] == 0xFE && h[3] == 0xFF)))
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "not text: UTF-32 (a byte order mark); convert it to UTF-8");
    if (s->seen >= 2 && ((h[0] == 0xFF && h[1] == 0xFE) || (h[0] == 0xFE && h[1] == 0xFF)))
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "not text: UTF-16%s (a byte order mark); convert it to UTF-8",
                             h[0] == 0xFF ? "LE" : "BE");
    if (s->nul[0] + s->nul[1]) {
        /* UTF-16 of mostly ASCII text: a NUL in every other byte, on one side */
        if (half && s->nul[1] * 4 >= half * 3 && s->nul[0] * 16 < half)
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                 "not text: UTF-16LE (a NUL in every other byte); convert it "
                                 "to UTF-8");
        if (half && s->nul[0] * 4 >= half * 3 && s->nul[1] * 16 < half)
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                 "not text: UTF-16BE (a NUL in every other byte); convert it "
                                 "to UTF-8");
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "not text: %llu NUL byte(s) in the first %llu bytes, the first at "
                             "byte %llu", (unsigned long long)(s->nul[0] + s->nul[1]),
                             (unsigned long long)s->seen, (unsigned long long)s->first_nul);
    }
    if (s->bad * 10 > s->seen)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "not text: %llu invalid UTF-8 sequences in the first %llu bytes "
                             "(more than 1 in 10), the first at byte %llu",
                             (unsigned long long)s->bad, (unsigned long long)s->seen,
                             (unsigned long long)s->first_bad);
    return RO_SGNS_OK;
}

/* Look at a block before it is counted; the verdict comes as soon as
   RO_SGNS_SNIFF_BYTES have been seen (the end of a shorter input gives it
   in ro_sgns__count_read). */
static ro_sgns_result ro_sgns__sniff_block(ro_sgns__counter *k, const unsigned char *data,
                                           size_t size)
{
    if (k->cfg.allow_binary || k->sniff.done) return RO_SGNS_OK;
    ro_sgns__sniff_feed(&k->sniff, data, size);
    if (k->sniff.seen < RO_SGNS_SNIFF_BYTES) return RO_SGNS_OK;
    return ro_sgns__sniff_verdict(&k->sniff, k->err);
}

/* ---- pass (b): the vocabulary ------------------------------------------- */

/* Does the word in slot a come before the one in slot b? Count descending,
   then bytes. */
static int ro_sgns__word_before(const ro_sgns__counter *k, uint32_t a, uint32_t b)
{
    const uint64_t *ea = RO_SGNS__E(k, a), *eb = RO_SGNS__E(k, b);
    size_t la, lb;
    int c;
    if (ea[0] != eb[0]) return ea[0] > eb[0];
    la = RO_SGNS__ELEN(ea);
    lb = RO_SGNS__ELEN(eb);
    c = memcmp(RO_SGNS__EBYTES(k, ea), RO_SGNS__EBYTES(k, eb), la < lb ? la : lb);
    if (c) return c < 0;
    return la < lb;
}

typedef int (*ro_sgns__before_fn)(const void *ctx, uint32_t x, uint32_t y);

/* Bottom-up merge sort of n ids by before(ctx, x, y), tmp as scratch:
   the vocabulary of counting and of merging counts. */
static void ro_sgns__sort_ids(uint32_t *ids, uint32_t *tmp, size_t n, ro_sgns__before_fn before,
                              const void *ctx)
{
    uint32_t *src = ids, *dst = tmp, *t;
    size_t width, lo;
    for (width = 1; width < n; width *= 2) {
        for (lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = before(ctx, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (j < hi) dst[o++] = src[j++];
        }
        t = src;
        src = dst;
        dst = t;
    }
    if (src != ids) memcpy(ids, src, n * sizeof(uint32_t));
}

static int ro_sgns__slot_before(const void *k, uint32_t a, uint32_t b)
{
    return ro_sgns__word_before((const ro_sgns__counter *)k, a, b);
}

/* The candidate slots of the table in vocabulary order. */
static void ro_sgns__sort_words(const ro_sgns__counter *k, uint32_t *ids, uint32_t *tmp,
                                size_t n)
{
    ro_sgns__sort_ids(ids, tmp, n, ro_sgns__slot_before, k);
}

/* Choose the vocabulary, fill c->vocab, and return in *remap_out (nw
   entries) the vocabulary id of each distinct word or DROP. */
static ro_sgns_result ro_sgns__build_vocab(ro_sgns__counter *k, ro_sgns_counts *c,
                                           uint32_t **remap_out)
{
    ro_sgns_result rc = RO_SGNS_OK;
    uint64_t mc = k->cfg.min_count ? k->cfg.min_count : 1, best = 0;
    size_t ncand = 0, i, n, bytes = 0;
    uint32_t *slots, *tmp, *remap;
    ro_sgns_vocab *v = &c->vocab;
    size_t dup = 0;
    for (i = 0; i <= k->tab_mask; ++i) {
        uint64_t cnt = RO_SGNS__E(k, i)[0];
        if (cnt >= mc) ++ncand;
        if (cnt > best) best = cnt;
    }
    if (ncand == 0)
        return ro_sgns__fail(k->err, RO_SGNS_ERR_EMPTY,
                             "no word occurs min_count = %llu times (%llu tokens, %llu "
                             "distinct words, the most frequent occurs %llu times)",
                             (unsigned long long)mc, (unsigned long long)k->tokens,
                             (unsigned long long)k->nw, (unsigned long long)best);
    slots = (uint32_t *)ro_sgns__mem_alloc(&k->mem, ncand, sizeof(uint32_t), "vocabulary sort",
                                           k->err, &rc);
    if (!slots) return rc;
    tmp = (uint32_t *)ro_sgns__mem_alloc(&k->mem, ncand, sizeof(uint32_t), "vocabulary sort",
                                         k->err, &rc);
    if (!tmp) {
        ro_sgns__mem_free(&k->mem, slots, ncand, sizeof(uint32_t));
        return rc;
    }
    ncand = 0;
    for (i = 0; i <= k->tab_mask; ++i)
        if (RO_SGNS__E(k, i)[0] >= mc) slots[ncand++] = (uint32_t)i;
    ro_sgns__sort_words(k, slots, tmp, ncand);
    ro_sgns__mem_free(&k->mem, tmp, ncand, sizeof(uint32_t));
    n = ncand;
    if (k->cfg.max_vocab && n > k->cfg.max_vocab) n = (size_t)k->cfg.max_vocab;
    for (i = 0; i < n; ++i) bytes += RO_SGNS__ELEN(RO_SGNS__E(k, slots[i])) + 1;

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
        ro_sgns__mem_free(&k->mem, slots, ncand, sizeof(uint32_t));
        ro_sgns__mem_free(&k->mem, remap, k->nw, sizeof(uint32_t));
        return rc;
    }
    v->n = n;
    v->arena_size_ = bytes;
    for (i = 0; i < k->nw; ++i) remap[i] = RO_SGNS__DROP;
    bytes = 0;
    for (i = 0; i < n; ++i) {
        const uint64_t *e = RO_SGNS__E(k, slots[i]);
        size_t len = RO_SGNS__ELEN(e);
        remap[e[2] >> 32] = (uint32_t)i;
        v->word[i] = v->arena_ + bytes;
        v->len[i] = (uint32_t)len;
        v->count[i] = e[0];
        memcpy(v->arena_ + bytes, RO_SGNS__EBYTES(k, e), len);
        v->arena_[bytes + len] = '\0';
        bytes += len + 1;
    }
    ro_sgns__mem_free(&k->mem, slots, ncand, sizeof(uint32_t));
    rc = ro_sgns__vocab_index(v, &k->mem, &dup, k->err);
    if (rc != RO_SGNS_OK) {
        ro_sgns__mem_free(&k->mem, remap, k->nw, sizeof(uint32_t));
        return rc;
    }
    *remap_out = remap;
    return RO_SGNS_OK;
}

/* The subsampling table: keep[w] = the probability of keeping a token of w
   (word2vec's formula over the vocabulary's counts). */
static ro_sgns_result ro_sgns__keep_table(ro_sgns__counter *k, const ro_sgns_counts *c,
                                          double **out)
{
    ro_sgns_result rc = RO_SGNS_OK;
    size_t n = c->vocab.n, i;
    double T = 0, st, *keep;
    keep = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double), "subsampling table", k->err,
                                        &rc);
    if (!keep) return rc;
    for (i = 0; i < n; ++i) T += (double)c->vocab.count[i];
    st = k->cfg.sample * T;
    for (i = 0; i < n; ++i) {
        double f = (double)c->vocab.count[i];
        keep[i] = (RO_SGNS_SQRT(f / st) + 1.0) * st / f;
    }
    *out = keep;
    return RO_SGNS_OK;
}

/* The arrays pass (b) writes besides the stream in place: the 4-byte
   stream S32 when n > 65533, the subsampling table *keep (with sample),
   the sampled half-widths bw (dynamic_window 1). */
static ro_sgns_result ro_sgns__remap_alloc(ro_sgns__counter *k, const ro_sgns_counts *c,
                                           double **keep)
{
    ro_sgns_result rc = RO_SGNS_OK;
    size_t clen = k->clen;
    *keep = NULL;
    if (c->vocab.n > 0xFFFDu) {
        k->S32 = (uint32_t *)ro_sgns__mem_alloc(&k->mem, clen, sizeof(uint32_t),
                                                "token id stream", k->err, &rc);
        if (!k->S32) return rc;
        k->s32cap = clen;
        k->S32[0] = RO_SGNS__LINE;
    }
    if (k->cfg.sample > 0) {
        rc = ro_sgns__keep_table(k, c, keep);
        if (rc != RO_SGNS_OK) return rc;
    }
    if (k->cfg.dynamic_window == RO_SGNS_WINDOW_SAMPLED) {
        k->bw = (uint16_t *)ro_sgns__mem_alloc(&k->mem, clen, sizeof(uint16_t),
                                               "sampled window widths", k->err, &rc);
        if (!k->bw) {
            ro_sgns__mem_free(&k->mem, *keep, c->vocab.n, sizeof(double));
            *keep = NULL;
            return rc;
        }
        k->bwcap = clen;
        k->bw[0] = 0;
    }
    return RO_SGNS_OK;
}

/* The stream of ids is complete with out positions: keep the 2-byte
   block, shrunk to them, or free the codes behind the 4-byte stream. */
static void ro_sgns__remap_done(ro_sgns__counter *k, size_t out)
{
    k->N = out;
    if (!k->S32) {
        ro_sgns_result rc = RO_SGNS_OK;
        uint16_t *q = (uint16_t *)ro_sgns__mem_realloc(&k->mem, k->C, k->ccap, out,
                                                       sizeof(uint16_t), "token id stream",
                                                       k->err, &rc);
        if (q) { /* a shrink that fails leaves the larger block: fine */
            k->C = q;
            k->ccap = out;
        }
        k->S16 = k->C;
    } else {
        ro_sgns__mem_free(&k->mem, k->C, k->ccap, sizeof(uint16_t));
        k->C = NULL;
        k->ccap = 0;
    }
}

/* Turn the codes into vocabulary ids, applying subsampling, close_gaps and
   the sampled half-widths, and count the positions of each word into occ
   (n entries, zeroed by the caller). When n <= 65533 the ids overwrite the
   codes in place (a position takes one code or more, and one id; 0xFFFF and
   0xFFFE are the 2-byte sentinels) and the block is shrunk; otherwise they
   go to a new 4-byte stream S32. */
static ro_sgns_result ro_sgns__remap_stream(ro_sgns__counter *k, const ro_sgns_counts *c,
                                            const uint32_t *remap, uint32_t *occ)
{
    const ro_sgns_count_config *cfg = &k->cfg;
    size_t p, out = 1, clen = k->clen;
    uint64_t raw = 0;
    double *keep;
    ro_sgns_rng rs, rw;
    uint16_t *bw, *C = k->C, *S16;
    uint32_t *S32;
    uint32_t L = (uint32_t)cfg->window, last = RO_SGNS__LINE;
    ro_sgns_result rc = ro_sgns__remap_alloc(k, c, &keep);
    if (rc != RO_SGNS_OK) return rc;
    S32 = k->S32;
    S16 = S32 ? NULL : C;
    bw = k->bw;
    ro_sgns_rng_seed(&rs, cfg->seed, 0);
    ro_sgns_rng_seed(&rw, cfg->seed, 1);
    /* C[0] and C[clen - 1] are line breaks */
    for (p = 1; p + 1 < clen;) {
        uint32_t x = C[p++], v;
        if (x == RO_SGNS__LINE16) {
            if (last == RO_SGNS__LINE) continue; /* one LINE is enough */
            v = RO_SGNS__LINE;
        } else {
            if (x == RO_SGNS__ESC) {
                x = (uint32_t)C[p] << 16 | (uint32_t)C[p + 1];
                p += 2;
            }
            if ((raw & ((1u << RO_SGNS__RNG_BLOCK_SHIFT) - 1)) == 0) {
                uint64_t blk = raw >> RO_SGNS__RNG_BLOCK_SHIFT;
                ro_sgns_rng_seed(&rs, cfg->seed, 2 * blk);
                ro_sgns_rng_seed(&rw, cfg->seed, 2 * blk + 1);
            }
            ++raw;
            v = remap[x];
            if (v != RO_SGNS__DROP && keep && keep[v] < ro_sgns_rng_uniform(&rs))
                v = RO_SGNS__DROP;
            if (v == RO_SGNS__DROP) {
                if (cfg->close_gaps) continue;
            } else {
                ++occ[v];
                if (bw) bw[out] = (uint16_t)(1 + ro_sgns_rng_next(&rw) % L);
            }
        }
        /* out < p: the code just read is never overwritten before use;
           (uint16_t) of the 4-byte sentinels gives the 2-byte ones */
        if (S16) S16[out] = (uint16_t)v;
        else S32[out] = v;
        last = v;
        ++out;
    }
    if (S16) S16[out] = (uint16_t)RO_SGNS__LINE;
    else S32[out] = RO_SGNS__LINE;
    ++out;
    ro_sgns__remap_done(k, out);
    ro_sgns__mem_free(&k->mem, keep, c->vocab.n, sizeof(double));
    return RO_SGNS_OK;
}

/* ---- pass (c): pairs, row by row ----------------------------------------- */

/* Add weight w at column x of the row being summed: to acc[x], x's bit in
   bm and, with summary, the bit of bm's word in sm. */
static RO_SGNS__INLINE void ro_sgns__pair_add(uint32_t x, double w,
                                              double *RO_SGNS__RESTRICT acc,
                                              uint64_t *RO_SGNS__RESTRICT bm,
                                              uint64_t *RO_SGNS__RESTRICT sm, int summary)
{
    acc[x] += w;
    bm[x >> 6] |= (uint64_t)1 << (x & 63);
    if (summary) sm[x >> 12] |= (uint64_t)1 << ((x >> 6) & 63);
}

/* The four loops that read the stream, written once for 2-byte ids (W =
   16) and once for 4-byte ids (W = 32):
   walk: one side of one window, from s[step] to s[b * step] (step -1 or
     +1): add the contexts (weight wt[dist]) into the accumulator acc and
     set the column's bit in bm; it stops at LINE and steps over DROP.
     With 4-byte ids (n > 65533) it also sets the bit of that bitmap word
     in the summary sm, so that a row is read out in O(n / 4096 + touched)
     however large n is; with 2-byte ids bm has at most 1024 words, read in
     full (one extra write per context saved);
   gather: both sides of the windows around the np positions pos[] of
     k's stream;
   bucket: one pass over the stream that files the positions of words
     lo .. lo + span - 1 by word (offs[] holds each word's next slot);
   find: the next positions of word w from *q on, at most cap of them.
   (A macro, not a run-time width: no branch in these innermost loops.) */
#define RO_SGNS__PAIR_KERNELS(W, T, SUMMARY)                                                \
    static RO_SGNS__INLINE void ro_sgns__walk##W(                                           \
        const T *RO_SGNS__RESTRICT s, ptrdiff_t step, uint32_t b, uint32_t n,               \
        const double *RO_SGNS__RESTRICT wt, double *RO_SGNS__RESTRICT acc,                  \
        uint64_t *RO_SGNS__RESTRICT bm, uint64_t *RO_SGNS__RESTRICT sm)                     \
    {                                                                                       \
        const T line = (T)RO_SGNS__LINE;                                                    \
        uint32_t d;                                                                         \
        for (d = 1; d <= b; ++d) {                                                          \
            uint32_t x = s[step * (ptrdiff_t)d];                                            \
            if (x >= n) {                                                                   \
                if (x == line) break;                                                       \
                continue;                                                                   \
            }                                                                               \
            ro_sgns__pair_add(x, wt[d], acc, bm, sm, SUMMARY);                              \
        }                                                                                   \
    }                                                                                       \
    static void ro_sgns__gather##W(const ro_sgns__counter *k,                               \
                                   const uint32_t *RO_SGNS__RESTRICT pos, size_t np,        \
                                   const double *RO_SGNS__RESTRICT wt,                      \
                                   double *RO_SGNS__RESTRICT acc,                           \
                                   uint64_t *RO_SGNS__RESTRICT bm,                          \
                                   uint64_t *RO_SGNS__RESTRICT sm, uint32_t n)              \
    {                                                                                       \
        const T *RO_SGNS__RESTRICT S = k->S##W;                                             \
        const uint16_t *bw = k->bw;                                                         \
        const size_t N = k->N;                                                              \
        const uint32_t L = (uint32_t)k->cfg.window;                                         \
        size_t i;                                                                           \
        for (i = 0; i < np; ++i) {                                                          \
            uint32_t b = bw ? bw[pos[i]] : L;                                               \
            if (i + 16 < np) {                                                              \
                size_t q = pos[i + 16];                                                     \
                RO_SGNS__PREFETCH(S + (q > L ? q - L : 0));                                 \
                RO_SGNS__PREFETCH(S + (q + L < N ? q + L : N - 1));                         \
            }                                                                               \
            ro_sgns__walk##W(S + pos[i], -1, b, n, wt, acc, bm, sm);                        \
            ro_sgns__walk##W(S + pos[i], 1, b, n, wt, acc, bm, sm);                         \
        }                                                                                   \
    }                                                                                       \
    static void ro_sgns__bucket##W(const T *RO_SGNS__RESTRICT S, size_t N, uint32_t lo,     \
                                   uint32_t span, uint32_t *RO_SGNS__RESTRICT offs,         \
                                   uint32_t *RO_SGNS__RESTRICT pos)                         \
    {                                                                                       \
        size_t p;                                                                           \
        for (p = 1; p + 1 < N; ++p) {                                                       \
            uint32_t x = (uint32_t)S[p] - lo;                                               \
            if (x < span) pos[offs[x]++] = (uint32_t)p;                                     \
        }                                                                                   \
    }                                                                                       \
    static size_t ro_sgns__find##W(const T *S, size_t N, size_t *q, uint32_t w,             \
                                   uint32_t *pos, size_t cap)                               \
    {                                                                                       \
        size_t p = *q, np = 0;                                                              \
        for (; p + 1 < N && np < cap; ++p)                                                  \
            if (S[p] == w) pos[np++] = (uint32_t)p;                                         \
        *q = p;                                                                             \
        return np;                                                                          \
    }

RO_SGNS__PAIR_KERNELS(16, uint16_t, 0)
RO_SGNS__PAIR_KERNELS(32, uint32_t, 1)

/* The bytes of a stored pair: a u32 column and a float value. */
#define RO_SGNS__PAIR_BYTES (sizeof(uint32_t) + sizeof(float))

/* Pass (c)'s state: the output's room, the accumulator of one thread, the
   run's tables and the positions of the current group of rows. */
typedef struct ro_sgns__pairs {
    size_t cap;   /* capacity of c->col and c->val */
    double *acc;  /* n: the current row, in weight units */
    uint64_t *bm; /* (n + 63) / 64: its columns */
    uint64_t *sm; /* (n + 4095) / 4096: its nonzero words of bm */
    double *ctx;  /* column sums in weight units */
    double div;   /* weight units per count: L (weighted window) or 1 */
    double *wts;  /* L + 1: the weight of a context at distance d */
    const uint32_t *occ; /* n: the positions of each word */
    uint64_t total_occ;  /* their sum */
    uint32_t *offs;      /* n + 1: a bucketed group's row ends */
    uint32_t *pos;       /* pcap: the group's positions */
    size_t pcap;
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
    p = ro_sgns__mem_realloc(&k->mem, c->val, pr->cap, cap, sizeof(float),
                             "co-occurrence matrix", k->err, &rc);
    if (!p) return rc; /* the run fails and frees both; col's size no longer matters */
    c->val = (float *)p;
    pr->cap = cap;
    return RO_SGNS_OK;
}

/* Room for more entries after the c->nnz there are, growing by half
   (only without a budget: with one, the group reserved its room). */
static ro_sgns_result ro_sgns__out_room(ro_sgns__counter *k, ro_sgns_counts *c,
                                        ro_sgns__pairs *pr, uint64_t more)
{
    size_t want;
    if (c->nnz + more <= pr->cap) return RO_SGNS_OK;
    want = pr->cap + pr->cap / 2 + 4096;
    if (want < c->nnz + more) want = (size_t)(c->nnz + more);
    return ro_sgns__out_reserve(k, c, pr, want);
}

/* The bound on the nonzeros of a row with o positions. */
static uint64_t ro_sgns__row_bound(uint64_t o, uint32_t L, size_t n)
{
    uint64_t b = o * 2u * L;
    return b < n ? b : (uint64_t)n;
}

/* Read out an accumulated row into col/val, in column order, adding to the
   column sums ctx and clearing the accumulator behind it; returns the
   number of columns, *rsum the row sum. summary: sm is in use (else all
   nb words of bm are read). The sums stay in weight units (double); each
   value is divided by div in double and rounded to float once. */
static size_t ro_sgns__read_row(double *RO_SGNS__RESTRICT acc, uint64_t *RO_SGNS__RESTRICT bm,
                                uint64_t *RO_SGNS__RESTRICT sm, size_t nb, int summary,
                                double div, double *RO_SGNS__RESTRICT ctx,
                                uint32_t *RO_SGNS__RESTRICT col,
                                float *RO_SGNS__RESTRICT val, double *rsum)
{
    size_t ns = (nb + 63) / 64, i, k = 0;
    double rs = 0;
    for (i = 0; i < (summary ? ns : nb); ++i) {
        uint64_t sw = summary ? sm[i] : 1;
        if (!sw) continue;
        if (summary) sm[i] = 0;
        do {
            size_t j = summary ? i * 64 + (size_t)RO_SGNS__CTZ64(sw) : i;
            uint64_t m = bm[j];
            if (m) {
                bm[j] = 0;
                do {
                    uint32_t x = (uint32_t)(j * 64 + (size_t)RO_SGNS__CTZ64(m));
                    double v = acc[x];
                    acc[x] = 0;
                    col[k] = x;
                    val[k] = (float)(v / div);
                    ctx[x] += v;
                    rs += v;
                    ++k;
                    m &= m - 1;
                } while (m);
            }
            sw &= sw - 1;
        } while (sw);
    }
    *rsum = rs;
    return k;
}

/* Append the accumulated row w (at most bound columns) to c. */
static ro_sgns_result ro_sgns__emit_row(ro_sgns__counter *k, ro_sgns_counts *c,
                                        ro_sgns__pairs *pr, size_t w, uint64_t bound,
                                        int summary)
{
    double rs;
    ro_sgns_result rc;
    if (!bound) { /* no positions (all subsampled away): an empty row */
        c->row_ptr[w + 1] = c->nnz;
        c->word_count[w] = 0;
        return RO_SGNS_OK;
    }
    rc = ro_sgns__out_room(k, c, pr, bound);
    if (rc != RO_SGNS_OK) return rc;
    c->nnz += ro_sgns__read_row(pr->acc, pr->bm, pr->sm, (c->n + 63) / 64, summary, pr->div,
                                pr->ctx, c->col + c->nnz, c->val + c->nnz, &rs);
    c->row_ptr[w + 1] = c->nnz;
    c->word_count[w] = rs;
    return RO_SGNS_OK;
}

/* ---- rows in parallel (OpenMP) ---------------------------------------------
   Threads take rows of a group in rounds. Row r of a round writes into a
   shared round buffer at a fixed place (the sum of the bounds of the rows
   before it: no atomics), then the round is copied into the CSR in row
   order. Per-thread accumulators and column sums are added at the end
   (integers: exact in any order), so the counts are bitwise the same for
   any number of threads. */

typedef struct ro_sgns__par {
    int nt;
    size_t R;       /* round buffer entries (>= n, so any row fits) */
    uint32_t *rcol; /* R */
    float *rval;    /* R */
    uint64_t *roff; /* n: a row's place in the round buffer */
    uint64_t *rlen; /* n: its length */
    double *acc;    /* nt x n */
    uint64_t *bm;   /* nt x nb */
    uint64_t *sm;   /* nt x ns */
    double *ctx;    /* nt x n */
} ro_sgns__par;

static void ro_sgns__par_free(ro_sgns__counter *k, ro_sgns__par *q, size_t n)
{
    size_t nb = (n + 63) / 64, ns = (nb + 63) / 64, t = (size_t)q->nt;
    ro_sgns__mem_free(&k->mem, q->rcol, q->R, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, q->rval, q->R, sizeof(float));
    ro_sgns__mem_free(&k->mem, q->roff, n, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, q->rlen, n, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, q->acc, t * n, sizeof(double));
    ro_sgns__mem_free(&k->mem, q->bm, t * nb, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, q->sm, t * ns, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, q->ctx, t * n, sizeof(double));
    memset(q, 0, sizeof *q);
}

/* Set up nt threads' workspace; with a budget that cannot hold it, or on
   any failure, fall back to one thread (q->nt = 1). */
static void ro_sgns__par_init(ro_sgns__counter *k, ro_sgns__par *q, size_t n, int nt,
                              const uint32_t *occ)
{
    size_t nb = (n + 63) / 64, ns = (nb + 63) / 64, t, w;
    uint64_t need, sum = 0;
    ro_sgns_result rc = RO_SGNS_OK;
    memset(q, 0, sizeof *q);
    q->nt = 1;
    if (nt <= 1) return;
    t = (size_t)nt;
    /* an eighth of what all rows may need, at most 2M entries (16 MB), at
       least n (one row) */
    for (w = 0; w < n; ++w) sum += ro_sgns__row_bound(occ[w], (uint32_t)k->cfg.window, n);
    sum /= 8;
    q->R = sum < ((uint64_t)1 << 21) ? (size_t)sum : ((size_t)1 << 21);
    if (q->R < n) q->R = n;
    need = RO_SGNS__PAIR_BYTES * (uint64_t)q->R + 16 * (uint64_t)n +
           t * (16 * (uint64_t)n + 8 * (nb + ns));
    if (k->mem.limit && k->mem.in_use + need > k->mem.limit / 2) return;
    q->nt = nt;
    q->rcol = (uint32_t *)ro_sgns__mem_alloc(&k->mem, q->R, sizeof(uint32_t), "round", NULL, &rc);
    if (q->rcol) q->rval = (float *)ro_sgns__mem_alloc(&k->mem, q->R, sizeof(float), "round",
                                                       NULL, &rc);
    if (q->rval) q->roff = (uint64_t *)ro_sgns__mem_alloc(&k->mem, n, sizeof(uint64_t), "round",
                                                          NULL, &rc);
    if (q->roff) q->rlen = (uint64_t *)ro_sgns__mem_alloc(&k->mem, n, sizeof(uint64_t), "round",
                                                          NULL, &rc);
    if (q->rlen) q->acc = (double *)ro_sgns__mem_alloc(&k->mem, t * n, sizeof(double), "round",
                                                       NULL, &rc);
    if (q->acc) q->bm = (uint64_t *)ro_sgns__mem_alloc(&k->mem, t * nb, sizeof(uint64_t),
                                                       "round", NULL, &rc);
    if (q->bm) q->sm = (uint64_t *)ro_sgns__mem_alloc(&k->mem, t * ns, sizeof(uint64_t), "round",
                                                      NULL, &rc);
    if (q->sm) q->ctx = (double *)ro_sgns__mem_alloc(&k->mem, t * n, sizeof(double), "round",
                                                     NULL, &rc);
    if (!q->ctx) {
        ro_sgns__par_free(k, q, n);
        q->nt = 1;
        return;
    }
    memset(q->acc, 0, t * n * sizeof(double));
    memset(q->bm, 0, t * nb * sizeof(uint64_t));
    memset(q->sm, 0, t * ns * sizeof(uint64_t));
    memset(q->ctx, 0, t * n * sizeof(double));
}

/* Back to one thread: fold the threads' column sums into c, free the rest. */
static void ro_sgns__par_release(ro_sgns__counter *k, ro_sgns_counts *c, ro_sgns__par *q)
{
    size_t t, w, n = c->n;
    if (q->nt > 1 && q->ctx)
        for (t = 0; t < (size_t)q->nt; ++t)
            for (w = 0; w < n; ++w) c->ctx_count[w] += q->ctx[t * n + w];
    ro_sgns__par_free(k, q, n);
    q->nt = 1;
}

/* The windows around the np positions pos summed into acc, bm, sm by
   the kernel of the stream's width. */
static void ro_sgns__gather(const ro_sgns__counter *k, const ro_sgns__pairs *pr, uint32_t n,
                            const uint32_t *pos, size_t np, double *acc, uint64_t *bm,
                            uint64_t *sm)
{
    if (k->S16)
        ro_sgns__gather16(k, pos, np, pr->wts, acc, bm, sm, n);
    else
        ro_sgns__gather32(k, pos, np, pr->wts, acc, bm, sm, n);
}

/* Rows with occ positions more are done: tell the callback, if any. */
static ro_sgns_result ro_sgns__pairs_tick(ro_sgns__counter *k, const ro_sgns__pairs *pr,
                                          uint64_t occ)
{
    ro_sgns_count_progress p;
    k->positions_done += occ;
    if (!k->cfg.callback) return RO_SGNS_OK;
    p.positions = k->positions_done;
    p.positions_total = pr->total_occ;
    if (k->cfg.callback(&p, k->cfg.user))
        return ro_sgns__fail(k->err, RO_SGNS_STOPPED, "counting stopped by the callback after "
                             "%llu of %llu positions", (unsigned long long)p.positions,
                             (unsigned long long)p.positions_total);
    return RO_SGNS_OK;
}

/* Rows [a, b) of a bucketed group (their positions at pr->pos, ends in
   pr->offs), in rounds, with q->nt threads. */
static ro_sgns_result ro_sgns__rows_parallel(ro_sgns__counter *k, ro_sgns_counts *c,
                                             ro_sgns__pairs *pr, ro_sgns__par *q, size_t a,
                                             size_t b)
{
    size_t n = c->n, nb = (n + 63) / 64, ns = (nb + 63) / 64, g0 = 0, span = b - a;
    uint32_t L = (uint32_t)k->cfg.window;
    const uint32_t *offs = pr->offs, *pos = pr->pos, *occ = pr->occ;
    int summary = !k->S16;
    while (g0 < span) {
        size_t g1 = g0;
        uint64_t tot = 0, add = 0;
        long r, r0, r1;
        ro_sgns_result rc;
        while (g1 < span) {
            uint64_t rb = ro_sgns__row_bound(occ[a + g1], L, n);
            if (tot + rb > q->R) break;
            q->roff[g1] = tot;
            tot += rb;
            ++g1;
        }
        r0 = (long)g0;
        r1 = (long)g1;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(q->nt)
#endif
        for (r = r0; r < r1; ++r) {
            int t = 0;
            uint32_t start = r ? offs[r - 1] : 0;
            double *acc, rs;
            uint64_t *bm, *sm;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            acc = q->acc + (size_t)t * n;
            bm = q->bm + (size_t)t * nb;
            sm = q->sm + (size_t)t * ns;
            ro_sgns__gather(k, pr, (uint32_t)n, pos + start, offs[r] - start, acc, bm, sm);
            q->rlen[r] = ro_sgns__read_row(acc, bm, sm, nb, summary, pr->div,
                                           q->ctx + (size_t)t * n, q->rcol + q->roff[r],
                                           q->rval + q->roff[r], &rs);
            c->word_count[a + (size_t)r] = rs;
        }
        /* the round's place in the CSR, then the copy (faults in parallel) */
        for (r = r0; r < r1; ++r) add += q->rlen[r];
        rc = ro_sgns__out_room(k, c, pr, add);
        if (rc != RO_SGNS_OK) return rc;
        for (r = r0; r < r1; ++r) c->row_ptr[a + (size_t)r + 1] = c->row_ptr[a + (size_t)r] + q->rlen[r];
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(q->nt)
#endif
        for (r = r0; r < r1; ++r) {
            uint64_t at = c->row_ptr[a + (size_t)r];
            if (!q->rlen[r]) continue;
            memcpy(c->col + at, q->rcol + q->roff[r], (size_t)q->rlen[r] * sizeof(uint32_t));
            memcpy(c->val + at, q->rval + q->roff[r], (size_t)q->rlen[r] * sizeof(float));
        }
        c->nnz += add;
        for (add = 0, r = r0; r < r1; ++r) add += occ[a + (size_t)r];
        rc = ro_sgns__pairs_tick(k, pr, add);
        if (rc != RO_SGNS_OK) return rc;
        g0 = g1;
    }
    return RO_SGNS_OK;
}

/* Pass (c)'s workspace and the output's row_ptr and marginals, zeroed,
   and the weights of the window. */
static ro_sgns_result ro_sgns__pairs_init(ro_sgns__counter *k, ro_sgns_counts *c,
                                          ro_sgns__pairs *pr, const uint32_t *occ)
{
    ro_sgns_result rc = RO_SGNS_OK;
    const ro_sgns_count_config *cfg = &k->cfg;
    size_t n = c->n, nb = (n + 63) / 64, ns = (nb + 63) / 64, w;
    uint32_t L = (uint32_t)cfg->window, d;
    memset(pr, 0, sizeof *pr);
    pr->occ = occ;
    for (w = 0; w < n; ++w) pr->total_occ += occ[w];
    pr->wts = (double *)ro_sgns__mem_alloc(&k->mem, (size_t)L + 1, sizeof(double),
                                           "window weights", k->err, &rc);
    if (pr->wts) pr->acc = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double),
                                                        "row accumulator", k->err, &rc);
    if (pr->acc) pr->bm = (uint64_t *)ro_sgns__mem_alloc(&k->mem, nb, sizeof(uint64_t),
                                                         "row accumulator", k->err, &rc);
    if (pr->bm) pr->sm = (uint64_t *)ro_sgns__mem_alloc(&k->mem, ns, sizeof(uint64_t),
                                                        "row accumulator", k->err, &rc);
    if (pr->sm) pr->offs = (uint32_t *)ro_sgns__mem_alloc(&k->mem, n + 1, sizeof(uint32_t),
                                                          "row offsets", k->err, &rc);
    if (pr->offs) c->row_ptr = (uint64_t *)ro_sgns__mem_alloc(
                      &k->mem, n + 1, sizeof(uint64_t), "co-occurrence matrix", k->err, &rc);
    if (c->row_ptr) c->word_count = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double),
                                                                 "marginals", k->err, &rc);
    if (c->word_count) c->ctx_count = (double *)ro_sgns__mem_alloc(&k->mem, n, sizeof(double),
                                                                   "marginals", k->err, &rc);
    if (!c->ctx_count) return rc;
    pr->ctx = c->ctx_count;
    for (d = 0; d <= L; ++d)
        pr->wts[d] = cfg->dynamic_window == RO_SGNS_WINDOW_WEIGHTED ? (double)(L - d + 1) : 1.0;
    pr->div = cfg->dynamic_window == RO_SGNS_WINDOW_WEIGHTED ? (double)L : 1.0;
    memset(pr->acc, 0, n * sizeof(double));
    memset(pr->bm, 0, nb * sizeof(uint64_t));
    memset(pr->sm, 0, ns * sizeof(uint64_t));
    memset(pr->ctx, 0, n * sizeof(double));
    c->row_ptr[0] = 0;
    c->nnz = 0;
    return RO_SGNS_OK;
}

/* Free pass (c)'s workspace (the output stays). */
static void ro_sgns__pairs_free(ro_sgns__counter *k, ro_sgns__pairs *pr, size_t n)
{
    size_t nb = (n + 63) / 64, ns = (nb + 63) / 64;
    ro_sgns__mem_free(&k->mem, pr->pos, pr->pcap, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, pr->offs, n + 1, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, pr->sm, ns, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, pr->bm, nb, sizeof(uint64_t));
    ro_sgns__mem_free(&k->mem, pr->acc, n, sizeof(double));
    ro_sgns__mem_free(&k->mem, pr->wts, (size_t)k->cfg.window + 1, sizeof(double));
    memset(pr, 0, sizeof *pr);
}

/* The budget's error when row a alone, output bound rb, does not fit: how
   far the run got, the least budget that could work, and one that does
   (what is held now, room for the largest output every row left can have,
   and one position: then every group left fits, ro_sgns__group_fit). */
static ro_sgns_result ro_sgns__row_too_big(const ro_sgns__counter *k, const ro_sgns_counts *c,
                                           const ro_sgns__pairs *pr, size_t a, uint64_t rb)
{
    uint64_t done_occ = 0, rest = 0, res;
    size_t g, n = c->n;
    for (g = 0; g < a; ++g) done_occ += pr->occ[g];
    for (g = a; g < n; ++g) rest += ro_sgns__row_bound(pr->occ[g], (uint32_t)k->cfg.window, n);
    res = RO_SGNS__PAIR_BYTES * c->nnz + 8 * (uint64_t)(n + 1) + 16 * (uint64_t)n;
    return ro_sgns__fail(
        k->err, RO_SGNS_ERR_BUDGET,
        "memory budget of %llu bytes is too small: counting needs at least %llu bytes, "
        "and %llu are enough; the result so far takes %llu bytes for %.1f%% of the word "
        "positions (rows 0..%llu of %llu) and %llu more are held",
        (unsigned long long)k->mem.limit,
        (unsigned long long)(k->mem.in_use + RO_SGNS__PAIR_BYTES * rb + 4),
        (unsigned long long)(k->mem.in_use + RO_SGNS__PAIR_BYTES * rest + 4),
        (unsigned long long)res,
        pr->total_occ ? 100.0 * (double)done_occ / (double)pr->total_occ : 0.0,
        (unsigned long long)a, (unsigned long long)n, (unsigned long long)(k->mem.in_use - res));
}

/* With a budget, the group from row a: free the positions, fit the output
   to what it holds, then take rows [a, *b) while their positions and
   output bounds fit in the rest, and allocate their positions. A row that
   does not fit alone is done in pieces (*piecewise). */
static ro_sgns_result ro_sgns__group_fit(ro_sgns__counter *k, ro_sgns_counts *c,
                                         ro_sgns__pairs *pr, ro_sgns__par *par, size_t a,
                                         size_t *b, int *piecewise)
{
    size_t n = c->n, e;
    uint32_t L = (uint32_t)k->cfg.window;
    uint64_t gocc, gbound, avail;
    ro_sgns_result rc = RO_SGNS_OK;
    for (;;) {
        ro_sgns__mem_free(&k->mem, pr->pos, pr->pcap, sizeof(uint32_t));
        pr->pos = NULL;
        rc = ro_sgns__out_reserve(k, c, pr, (size_t)c->nnz);
        if (rc != RO_SGNS_OK) return rc;
        avail = k->mem.limit > k->mem.in_use ? k->mem.limit - k->mem.in_use : 0;
        e = a;
        gocc = gbound = 0;
        while (e < n) {
            uint64_t o = pr->occ[e], rb = ro_sgns__row_bound(o, L, n);
            uint64_t cost = 4 * (gocc + o) + RO_SGNS__PAIR_BYTES * (gbound + rb);
            if (cost > avail) break;
            gocc += o;
            gbound += rb;
            ++e;
        }
        if (e > a || par->nt == 1) break;
        /* the threads' workspace is in the way: one thread, retry */
        ro_sgns__par_release(k, c, par);
    }
    if (e == a) {
        /* one row alone does not fit: do it in pieces */
        uint64_t rb = ro_sgns__row_bound(pr->occ[a], L, n);
        if (avail < RO_SGNS__PAIR_BYTES * rb + 4) return ro_sgns__row_too_big(k, c, pr, a, rb);
        *piecewise = 1;
        e = a + 1;
        gocc = (avail - RO_SGNS__PAIR_BYTES * rb) / 4;
        if (gocc > pr->occ[a]) gocc = pr->occ[a];
        gbound = rb;
    }
    rc = ro_sgns__out_reserve(k, c, pr, (size_t)(c->nnz + gbound));
    if (rc != RO_SGNS_OK) return rc;
    pr->pcap = gocc ? (size_t)gocc : 1;
    pr->pos = (uint32_t *)ro_sgns__mem_alloc(&k->mem, pr->pcap, sizeof(uint32_t), "positions",
                                             k->err, &rc);
    if (!pr->pos) return rc;
    *b = e;
    return RO_SGNS_OK;
}

/* Row a alone, its positions pcap at a time. */
static ro_sgns_result ro_sgns__row_in_pieces(ro_sgns__counter *k, ro_sgns_counts *c,
                                             ro_sgns__pairs *pr, size_t a)
{
    size_t q = 1, N = k->N;
    while (q + 1 < N) {
        size_t np = k->S16 ? ro_sgns__find16(k->S16, N, &q, (uint32_t)a, pr->pos, pr->pcap)
                           : ro_sgns__find32(k->S32, N, &q, (uint32_t)a, pr->pos, pr->pcap);
        ro_sgns__gather(k, pr, (uint32_t)c->n, pr->pos, np, pr->acc, pr->bm, pr->sm);
    }
    return ro_sgns__emit_row(k, c, pr, a,
                             ro_sgns__row_bound(pr->occ[a], (uint32_t)k->cfg.window, c->n),
                             !k->S16);
}

/* Rows [a, b), whose positions fit in pr->pos: a counting sort of the
   positions by word (one read of the stream), then row by row, on the
   threads when there are several. */
static ro_sgns_result ro_sgns__group_rows(ro_sgns__counter *k, ro_sgns_counts *c,
                                          ro_sgns__pairs *pr, ro_sgns__par *par, size_t a,
                                          size_t b)
{
    uint32_t *offs = pr->offs, o = 0;
    size_t g;
    ro_sgns_result rc;
    for (g = 0; g < b - a; ++g) {
        offs[g] = o;
        o += pr->occ[a + g];
    }
    if (k->S16)
        ro_sgns__bucket16(k->S16, k->N, (uint32_t)a, (uint32_t)(b - a), offs, pr->pos);
    else
        ro_sgns__bucket32(k->S32, k->N, (uint32_t)a, (uint32_t)(b - a), offs, pr->pos);
    /* offs[g] is now the end of row a+g, i.e. the start of a+g+1 */
    if (par->nt > 1) return ro_sgns__rows_parallel(k, c, pr, par, a, b);
    for (g = 0; g < b - a; ++g) {
        uint32_t start = g ? offs[g - 1] : 0;
        ro_sgns__gather(k, pr, (uint32_t)c->n, pr->pos + start, offs[g] - start, pr->acc,
                        pr->bm, pr->sm);
        rc = ro_sgns__emit_row(k, c, pr, a + g,
                               ro_sgns__row_bound(pr->occ[a + g], (uint32_t)k->cfg.window, c->n),
                               !k->S16);
        if (rc == RO_SGNS_OK) rc = ro_sgns__pairs_tick(k, pr, pr->occ[a + g]);
        if (rc != RO_SGNS_OK) return rc;
    }
    return RO_SGNS_OK;
}

/* Pass (c): the rows by groups (see the section's banner), into c. */
static ro_sgns_result ro_sgns__count_pairs(ro_sgns__counter *k, ro_sgns_counts *c,
                                           const uint32_t *occ)
{
    ro_sgns_result rc;
    size_t n = c->n, a, b = 0;
    ro_sgns__pairs pr;
    ro_sgns__par par;
    memset(&par, 0, sizeof par);
    par.nt = 1;
    rc = ro_sgns__pairs_init(k, c, &pr, occ);
    if (rc != RO_SGNS_OK) goto done;
    ro_sgns__par_init(k, &par, n, ro_sgns__num_threads(), occ);
    if (!k->mem.limit) {
        /* Without a budget: positions for 1/16 of the stream at a time (at
           least 4M), to keep the peak down (docs/DESIGN.md, III.1) */
        uint64_t P = pr.total_occ / 16;
        if (P < ((uint64_t)1 << 22)) P = (uint64_t)1 << 22;
        if (P > pr.total_occ) P = pr.total_occ;
        pr.pcap = P ? (size_t)P : 1;
        pr.pos = (uint32_t *)ro_sgns__mem_alloc(&k->mem, pr.pcap, sizeof(uint32_t), "positions",
                                                k->err, &rc);
        if (!pr.pos) goto done;
    }
    for (a = 0; a < n; a = b) {
        int piecewise = 0;
        if (!k->mem.limit) {
            uint64_t gocc = 0;
            for (b = a; b < n && gocc + occ[b] <= pr.pcap; ++b) gocc += occ[b];
            if (b == a) {
                piecewise = 1;
                b = a + 1;
            }
        } else {
            rc = ro_sgns__group_fit(k, c, &pr, &par, a, &b, &piecewise);
            if (rc != RO_SGNS_OK) goto done;
        }
        rc = piecewise ? ro_sgns__row_in_pieces(k, c, &pr, a)
                       : ro_sgns__group_rows(k, c, &pr, &par, a, b);
        if (rc == RO_SGNS_OK && piecewise) rc = ro_sgns__pairs_tick(k, &pr, occ[a]);
        if (rc != RO_SGNS_OK) goto done;
    }
    /* the threads' column sums (integers: exact in any order) */
    ro_sgns__par_release(k, c, &par);
    /* shrink the output to its size */
    rc = ro_sgns__out_reserve(k, c, &pr, (size_t)c->nnz);
done:
    ro_sgns__par_free(k, &par, n);
    ro_sgns__pairs_free(k, &pr, n);
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

/* Pass (a): the text, from a memory block (read == NULL) or from a reader,
   into the table of distinct words and the stream of codes, between two
   LINE codes. */
static ro_sgns_result ro_sgns__count_read(ro_sgns__counter *k, const void *text, size_t size,
                                          ro_sgns_read_fn read, void *user)
{
    ro_sgns_result rc = RO_SGNS_OK;
    unsigned char *block = NULL;
    size_t block_size = (size_t)1 << 18;
    uint64_t bytes_read = 0;
    uint16_t line = (uint16_t)RO_SGNS__LINE16;
    k->tab_mask = 1023;
    k->arena_cap = 4096;
    k->tab = (uint64_t *)ro_sgns__mem_alloc(&k->mem, 4 * (k->tab_mask + 1), sizeof(uint64_t),
                                            "table of distinct words", k->err, &rc);
    if (k->tab) k->warena = (unsigned char *)ro_sgns__mem_alloc(&k->mem, k->arena_cap, 1,
                                                                "words", k->err, &rc);
    if (!k->warena) return rc;
    memset(k->tab, 0, 4 * (k->tab_mask + 1) * sizeof(uint64_t));
    rc = ro_sgns__push(k, &line, 1);
    if (rc != RO_SGNS_OK) return rc;
    k->last_line = 1;
    if (!read) {
        rc = ro_sgns__sniff_block(k, (const unsigned char *)text, size);
        if (rc == RO_SGNS_OK) rc = ro_sgns__feed(k, (const unsigned char *)text, size);
        if (rc != RO_SGNS_OK) return rc;
    } else {
        block = (unsigned char *)ro_sgns__mem_alloc(&k->mem, block_size, 1, "read buffer", k->err,
                                                    &rc);
        if (!block) return rc;
        for (;;) {
            size_t got = read(user, block, block_size);
            if (got == 0) break;
            if (got > block_size) {
                rc = ro_sgns__fail(k->err, RO_SGNS_ERR_IO, "read failed after %llu bytes",
                                   (unsigned long long)bytes_read);
                break;
            }
            bytes_read += got;
            rc = ro_sgns__sniff_block(k, block, got);
            if (rc == RO_SGNS_OK) rc = ro_sgns__feed(k, block, got);
            if (rc != RO_SGNS_OK) break;
        }
        ro_sgns__mem_free(&k->mem, block, block_size, 1);
        if (rc != RO_SGNS_OK) return rc;
    }
    if (!k->cfg.allow_binary && !k->sniff.done) {
        rc = ro_sgns__sniff_verdict(&k->sniff, k->err);
        if (rc != RO_SGNS_OK) return rc;
    }
    if (k->cur) {
        rc = ro_sgns__end_word(k);
        if (rc != RO_SGNS_OK) return rc;
    }
    rc = ro_sgns__flush_batch(k);
    if (rc != RO_SGNS_OK) return rc;
    k->last_line = 0;
    rc = ro_sgns__push(k, &line, 1); /* the end is a boundary, always */
    if (rc != RO_SGNS_OK) return rc;
    if (k->tokens == 0) return ro_sgns__fail(k->err, RO_SGNS_ERR_EMPTY, "empty input: no tokens");
    return RO_SGNS_OK;
}

/* The totals, exact in weight units; the weighted mode divides once (the
   values were divided as they were stored, ro_sgns__read_row). */
static void ro_sgns__count_totals(const ro_sgns__counter *k, ro_sgns_counts *c)
{
    size_t w;
    c->total = 0;
    for (w = 0; w < c->n; ++w) c->total += c->word_count[w];
    if (k->cfg.dynamic_window == RO_SGNS_WINDOW_WEIGHTED) {
        double L = (double)k->cfg.window;
        for (w = 0; w < c->n; ++w) {
            c->word_count[w] /= L;
            c->ctx_count[w] /= L;
        }
        c->total /= L;
    }
}

/* Count from a memory block (read == NULL) or from a reader. */
static ro_sgns_result ro_sgns__count_run(const void *text, size_t size, ro_sgns_read_fn read,
                                         void *user, const ro_sgns_count_config *config,
                                         ro_sgns_counts **out, const ro_sgns_allocator *alloc,
                                         ro_sgns_error *err)
{
    ro_sgns__counter *k;
    ro_sgns__mem mem;
    ro_sgns_count_config cfg;
    ro_sgns_counts *c = NULL;
    ro_sgns_result rc = RO_SGNS_OK;
    uint32_t *remap = NULL, *occ = NULL;
    size_t nw = 0;

    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!read && !text && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "text is NULL, size %llu",
                             (unsigned long long)size);
    cfg = config ? *config : ro_sgns_count_config_default();
    rc = ro_sgns__check_count_config(&cfg, err);
    if (rc != RO_SGNS_OK) return rc;
    memset(&mem, 0, sizeof mem);
    mem.al = alloc;
    mem.limit = cfg.memory_budget;
    k = (ro_sgns__counter *)ro_sgns__mem_alloc(&mem, 1, sizeof(ro_sgns__counter), "counter",
                                               err, &rc);
    if (!k) return rc;
    memset(k, 0, offsetof(ro_sgns__counter, bstart));
    k->mem = mem;
    k->cfg = cfg;
    k->err = err;

    /* (a) read */
    rc = ro_sgns__count_read(k, text, size, read, user);
    if (rc != RO_SGNS_OK) goto fail;

    /* (b) vocabulary, then the table of distinct words goes */
    c = ro_sgns__counts_new(&k->mem, err, &rc);
    if (!c) goto fail;
    c->config = k->cfg;
    c->config.callback = NULL; /* the caller's pointers do not outlive the call */
    c->config.user = NULL;
    c->corpus_tokens = k->tokens;
    c->distinct_words = nw = k->nw;
    rc = ro_sgns__build_vocab(k, c, &remap);
    if (rc != RO_SGNS_OK) goto fail;
    ro_sgns__counter_free_table(k);
    c->n = c->vocab.n;
    c->row_end = c->n; /* the whole matrix */
    occ = (uint32_t *)ro_sgns__mem_alloc(&k->mem, c->n, sizeof(uint32_t), "word positions",
                                         err, &rc);
    if (!occ) goto fail;
    memset(occ, 0, c->n * sizeof(uint32_t));
    rc = ro_sgns__remap_stream(k, c, remap, occ);
    if (rc != RO_SGNS_OK) goto fail;
    ro_sgns__mem_free(&k->mem, remap, nw, sizeof(uint32_t));
    remap = NULL;

    /* (c) pairs */
    rc = ro_sgns__count_pairs(k, c, occ);
    if (rc != RO_SGNS_OK) goto fail;
    ro_sgns__mem_free(&k->mem, occ, c->n, sizeof(uint32_t));
    occ = NULL;
    if (c->nnz == 0) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY,
                           "no co-occurring pairs: %llu tokens, %llu vocabulary words, no "
                           "two of them within window %d", (unsigned long long)k->tokens,
                           (unsigned long long)c->n, k->cfg.window);
        goto fail;
    }
    ro_sgns__count_totals(k, c);
    c->peak_bytes = k->mem.peak;
    ro_sgns__counter_free(k);
    ro_sgns__free(alloc, k);
    *out = c;
    return ro_sgns__ok(err);

fail:
    ro_sgns__mem_free(&k->mem, remap, nw, sizeof(uint32_t));
    ro_sgns__mem_free(&k->mem, occ, c ? c->vocab.n : 0, sizeof(uint32_t));
    ro_sgns__counter_free(k);
    ro_sgns__free(alloc, k);
    ro_sgns_counts_free(c);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_count_memory(const void *text, size_t size,
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
    if (!f)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s' for reading: %s", path,
                             strerror(errno));
    rc = ro_sgns__count_run(NULL, 0, ro_sgns__fread_fn, f, config, out, alloc, err);
    if (rc == RO_SGNS_ERR_IO && err)
        ro_sgns__fail(err, RO_SGNS_ERR_IO, "reading '%s' failed", path);
    fclose(f);
    return rc;
}
#endif

/* ---- merging counts (ro_sgns_counts_merge) ----------------------------------
   The union of the two vocabularies is sorted as counting sorts (count
   descending, then bytes, the shorter first), each part's ids are mapped
   to the result's, and each result row sums the two parts' rows in the
   integer weight units counting sums in (a float times L, rounded, for the
   weighted window), so the values, marginals and |D| come out as counting
   the joined text gives them. */

/* A word of either part: its summed count, bytes and ids in a and b. */
typedef struct ro_sgns__mword {
    uint64_t count;
    const char *w;
    uint32_t len;
    uint32_t ia, ib; /* RO_SGNS__DROP where the part lacks it */
} ro_sgns__mword;

static int ro_sgns__mword_before(const void *ctx, uint32_t x, uint32_t y)
{
    const ro_sgns__mword *a = (const ro_sgns__mword *)ctx + x, *b = (const ro_sgns__mword *)ctx + y;
    int c;
    if (a->count != b->count) return a->count > b->count;
    c = memcmp(a->w, b->w, a->len < b->len ? a->len : b->len);
    if (c) return c < 0;
    return a->len < b->len;
}

static int ro_sgns__u32_before(const void *ctx, uint32_t x, uint32_t y)
{
    (void)ctx;
    return x < y;
}

/* The settings two parts must share. */
static ro_sgns_result ro_sgns__merge_check(const ro_sgns_counts *a, const ro_sgns_counts *b,
                                           ro_sgns_error *err)
{
    const ro_sgns_count_config *x, *y;
    const char *what = NULL;
    ro_sgns_result rc = ro_sgns__check_counts_arg(a, err);
    if (rc == RO_SGNS_OK) rc = ro_sgns__check_counts_arg(b, err);
    if (rc != RO_SGNS_OK) return rc;
    x = &a->config;
    y = &b->config;
    if (ro_sgns__counts_ranged(a) || ro_sgns__counts_ranged(b))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "merge: a row range, not the whole matrix (load the whole file)");
    if (x->window != y->window) what = "window";
    else if (x->dynamic_window != y->dynamic_window) what = "dynamic_window";
    else if (!(x->sample == y->sample)) what = "sample";
    else if (x->cross_lines != y->cross_lines) what = "cross_lines";
    else if (x->close_gaps != y->close_gaps) what = "close_gaps";
    else if ((x->sample > 0 || x->dynamic_window == RO_SGNS_WINDOW_SAMPLED) && x->seed != y->seed)
        what = "seed";
    if (what)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "merge: the two counts differ in %s (window %d/%d, dynamic_window "
                             "%d/%d, sample %g/%g, cross_lines %d/%d, close_gaps %d/%d, seed "
                             "%llu/%llu): count both with the same settings", what, x->window,
                             y->window, x->dynamic_window, y->dynamic_window, x->sample, y->sample,
                             x->cross_lines, y->cross_lines, x->close_gaps, y->close_gaps,
                             (unsigned long long)x->seed, (unsigned long long)y->seed);
    if (a->corpus_tokens > UINT64_MAX - b->corpus_tokens)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "merge: the tokens overflow 64 bits");
    return RO_SGNS_OK;
}

/* The most occurrences a word missing from part p may have had in its
   text: 0 when p kept every word it read. */
static uint64_t ro_sgns__merge_unseen(const ro_sgns_counts *p)
{
    uint64_t mc = p->config.min_count ? p->config.min_count : 1, m = mc - 1;
    if (p->distinct_words == p->n && p->n > 0) return 0;
    if (p->config.max_vocab && p->n >= p->config.max_vocab && p->vocab.count[p->n - 1] > m)
        m = p->vocab.count[p->n - 1];
    return m;
}

/* What the vocabulary cannot know (RO_SGNS_MERGE_DROPPED, _UNSEEN, _GAPS),
   over the words sorted (ids) with ns of them kept. */
static void ro_sgns__merge_vocab_info(const ro_sgns_counts *a, const ro_sgns_counts *b,
                                      const ro_sgns__mword *mw, const uint32_t *ids, size_t nw,
                                      size_t ns, uint64_t mc, ro_sgns_merge_info *info)
{
    uint64_t ua = ro_sgns__merge_unseen(a), ub = ro_sgns__merge_unseen(b);
    size_t i;
    for (i = 0; i < nw; ++i) {
        const ro_sgns__mword *m = &mw[ids[i]];
        uint64_t room = m->ia == RO_SGNS__DROP ? ua : m->ib == RO_SGNS__DROP ? ub : 0;
        if (room && m->count + room >= mc) {
            if (!info->unknown_words++) {
                memcpy(info->example, m->w, m->len);
                info->example[m->len] = '\0';
            }
            info->inexact |= RO_SGNS_MERGE_DROPPED;
        }
        if (i >= ns && a->config.close_gaps) info->inexact |= RO_SGNS_MERGE_GAPS;
    }
    if (ua && ub && ua + ub >= mc) info->inexact |= RO_SGNS_MERGE_UNSEEN;
    if (a->config.sample > 0 || a->config.dynamic_window == RO_SGNS_WINDOW_SAMPLED)
        info->inexact |= RO_SGNS_MERGE_DRAWS;
    if (a->config.cross_lines) info->inexact |= RO_SGNS_MERGE_CROSS;
}

/* The union of the vocabularies, sorted: *mw_out (nw words) and the order
   *ids_out; ns of them reach mc (and max_vocab). */
static ro_sgns_result ro_sgns__merge_union(const ro_sgns_counts *a, const ro_sgns_counts *b,
                                           uint64_t mc, uint64_t max_vocab, ro_sgns__mem *m,
                                           ro_sgns__mword **mw_out, uint32_t **ids_out,
                                           size_t *nw_out, size_t *ns_out, ro_sgns_error *err)
{
    ro_sgns_result rc = RO_SGNS_OK;
    size_t cap = a->n + b->n, nw = 0, i, ns = 0;
    ro_sgns__mword *mw;
    uint32_t *ids = NULL, *tmp = NULL;
    if (cap >= 0xFFFFFFFDu)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "merge: %llu words",
                             (unsigned long long)cap);
    mw = (ro_sgns__mword *)ro_sgns__mem_alloc(m, cap, sizeof *mw, "merged words", err, &rc);
    if (mw) ids = (uint32_t *)ro_sgns__mem_alloc(m, cap, sizeof *ids, "merged words", err, &rc);
    if (ids) tmp = (uint32_t *)ro_sgns__mem_alloc(m, cap, sizeof *tmp, "merged words", err, &rc);
    if (!tmp) {
        ro_sgns__mem_free(m, ids, cap, sizeof *ids);
        ro_sgns__mem_free(m, mw, cap, sizeof *mw);
        return rc;
    }
    for (i = 0; i < a->n; ++i, ++nw) {
        int64_t j = ro_sgns_vocab_find(&b->vocab, a->vocab.word[i], a->vocab.len[i]);
        mw[nw].count = a->vocab.count[i] + (j >= 0 ? b->vocab.count[j] : 0);
        mw[nw].w = a->vocab.word[i];
        mw[nw].len = a->vocab.len[i];
        mw[nw].ia = (uint32_t)i;
        mw[nw].ib = j >= 0 ? (uint32_t)j : RO_SGNS__DROP;
    }
    for (i = 0; i < b->n; ++i) {
        if (ro_sgns_vocab_find(&a->vocab, b->vocab.word[i], b->vocab.len[i]) >= 0) continue;
        mw[nw].count = b->vocab.count[i];
        mw[nw].w = b->vocab.word[i];
        mw[nw].len = b->vocab.len[i];
        mw[nw].ia = RO_SGNS__DROP;
        mw[nw].ib = (uint32_t)i;
        ++nw;
    }
    for (i = 0; i < nw; ++i) ids[i] = (uint32_t)i;
    ro_sgns__sort_ids(ids, tmp, nw, ro_sgns__mword_before, mw);
    ro_sgns__mem_free(m, tmp, cap, sizeof *tmp);
    while (ns < nw && mw[ids[ns]].count >= mc) ++ns;
    if (max_vocab && ns > max_vocab) ns = (size_t)max_vocab;
    *mw_out = mw;
    *ids_out = ids;
    *nw_out = nw;
    *ns_out = ns;
    return RO_SGNS_OK;
}

/* The result's vocabulary: the first ns words of the union's order. */
static ro_sgns_result ro_sgns__merge_vocab(ro_sgns_counts *c, const ro_sgns__mword *mw,
                                           const uint32_t *ids, size_t ns, ro_sgns__mem *m,
                                           ro_sgns_error *err)
{
    ro_sgns_result rc = RO_SGNS_OK;
    ro_sgns_vocab *v = &c->vocab;
    size_t i, bytes = 0, dup = 0;
    for (i = 0; i < ns; ++i) bytes += mw[ids[i]].len + (size_t)1;
    v->word = (char **)ro_sgns__mem_alloc(m, ns, sizeof(char *), "vocabulary", err, &rc);
    if (v->word) v->len = (uint32_t *)ro_sgns__mem_alloc(m, ns, sizeof(uint32_t), "vocabulary",
                                                         err, &rc);
    if (v->len) v->count = (uint64_t *)ro_sgns__mem_alloc(m, ns, sizeof(uint64_t), "vocabulary",
                                                          err, &rc);
    if (v->count) v->arena_ = (char *)ro_sgns__mem_alloc(m, bytes, 1, "vocabulary", err, &rc);
    if (!v->arena_) return rc;
    v->n = ns;
    v->arena_size_ = bytes;
    bytes = 0;
    for (i = 0; i < ns; ++i) {
        const ro_sgns__mword *w = &mw[ids[i]];
        v->word[i] = v->arena_ + bytes;
        v->len[i] = w->len;
        v->count[i] = w->count;
        memcpy(v->arena_ + bytes, w->w, w->len);
        v->arena_[bytes + w->len] = '\0';
        bytes += w->len + (size_t)1;
    }
    return ro_sgns__vocab_index(v, m, &dup, err); /* the union's words are unique */
}

/* A stored count back in counting's integer weight units (div = L for the
   weighted window, else 1); *rounded when the float cannot tell. */
static double ro_sgns__merge_units(float val, double div, uint64_t *rounded)
{
    double u = (double)val * div;
    if (div > 1) {
        double r = RO_SGNS_FLOOR(u + 0.5);
        if (r <= 4194304.0 && (float)(r / div) == val) return r;
    } else if (u <= 16777216.0) {
        return u;
    }
    ++*rounded;
    return u;
}

/* Add row r of part p (its ids mapped to the result's by map) into acc,
   listing new columns in cols[*nc]. */
static void ro_sgns__merge_row_add(const ro_sgns_counts *p, uint32_t r, const uint32_t *map,
                                   double div, double *acc, uint32_t *cols, size_t *nc,
                                   uint64_t *rounded)
{
    uint64_t k;
    if (r == RO_SGNS__DROP) return;
    for (k = p->row_ptr[r]; k < p->row_ptr[r + 1]; ++k) {
        uint32_t x = map[p->col[k]];
        if (x == RO_SGNS__DROP) continue;
        if (acc[x] == 0) cols[(*nc)++] = x;
        acc[x] += ro_sgns__merge_units(p->val[k], div, rounded);
    }
}

/* Map each part's ids to the result's (DROP for a word cut). */
static void ro_sgns__merge_maps(const ro_sgns__mword *mw, const uint32_t *ids, size_t nw,
                                size_t ns, uint32_t *amap, uint32_t *bmap)
{
    size_t i;
    for (i = 0; i < nw; ++i) {
        const ro_sgns__mword *w = &mw[ids[i]];
        uint32_t to = i < ns ? (uint32_t)i : RO_SGNS__DROP;
        if (w->ia != RO_SGNS__DROP) amap[w->ia] = to;
        if (w->ib != RO_SGNS__DROP) bmap[w->ib] = to;
    }
}

/* The result's pairs and marginals, row by row (scratch: acc, cols, tmp
   of n each, zeroed acc). */
static ro_sgns_result ro_sgns__merge_pairs(ro_sgns_counts *c, const ro_sgns_counts *a,
                                           const ro_sgns_counts *b, const ro_sgns__mword *mw,
                                           const uint32_t *ids, const uint32_t *amap,
                                           const uint32_t *bmap, ro_sgns__mem *m,
                                           ro_sgns_merge_info *info, ro_sgns_error *err)
{
    ro_sgns_result rc = RO_SGNS_OK;
    size_t n = c->n, r, nc, i, cap = (size_t)(a->nnz + b->nnz);
    double div = a->config.dynamic_window == RO_SGNS_WINDOW_WEIGHTED ? (double)a->config.window : 1;
    double *acc = (double *)ro_sgns__mem_alloc(m, n, sizeof(double), "merge row", err, &rc);
    uint32_t *cols = acc ? (uint32_t *)ro_sgns__mem_alloc(m, 2 * n, sizeof(uint32_t), "merge row",
                                                          err, &rc) : NULL;
    if (cols) c->col = (uint32_t *)ro_sgns__mem_alloc(m, cap ? cap : 1, sizeof(uint32_t),
                                                      "co-occurrence matrix", err, &rc);
    if (c->col) c->val = (float *)ro_sgns__mem_alloc(m, cap ? cap : 1, sizeof(float),
                                                     "co-occurrence matrix", err, &rc);
    if (!c->val) goto done;
    for (i = 0; i < n; ++i) acc[i] = c->ctx_count[i] = 0;
    c->row_ptr[0] = 0;
    for (r = 0; r < n; ++r) {
        const ro_sgns__mword *w = &mw[ids[r]];
        double rs = 0;
        nc = 0;
        ro_sgns__merge_row_add(a, w->ia, amap, div, acc, cols, &nc, &info->rounded_pairs);
        ro_sgns__merge_row_add(b, w->ib, bmap, div, acc, cols, &nc, &info->rounded_pairs);
        ro_sgns__sort_ids(cols, cols + n, nc, ro_sgns__u32_before, NULL);
        for (i = 0; i < nc; ++i) {
            uint32_t x = cols[i];
            double v = acc[x];
            acc[x] = 0;
            c->col[c->nnz] = x;
            c->val[c->nnz++] = (float)(v / div);
            c->ctx_count[x] += v;
            rs += v;
        }
        c->row_ptr[r + 1] = c->nnz;
        c->word_count[r] = rs;
    }
    if (c->nnz && c->nnz < cap) { /* shrink to the pairs kept; a failure keeps the room */
        ro_sgns_result shrink = RO_SGNS_OK;
        void *p = ro_sgns__mem_realloc(m, c->col, cap, (size_t)c->nnz, sizeof(uint32_t),
                                       "co-occurrence matrix", NULL, &shrink);
        if (p) c->col = (uint32_t *)p;
        p = ro_sgns__mem_realloc(m, c->val, cap, (size_t)c->nnz, sizeof(float),
                                 "co-occurrence matrix", NULL, &shrink);
        if (p) c->val = (float *)p;
    }
    if (info->rounded_pairs) info->inexact |= RO_SGNS_MERGE_ROUNDED;
    c->total = 0;
    for (r = 0; r < n; ++r) c->total += c->word_count[r];
    if (div > 1) {
        for (r = 0; r < n; ++r) {
            c->word_count[r] /= div;
            c->ctx_count[r] /= div;
        }
        c->total /= div;
    }
    if (c->nnz == 0)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "merge: no co-occurring pairs among the %llu "
                           "words kept", (unsigned long long)n);
done:
    ro_sgns__mem_free(m, cols, 2 * n, sizeof(uint32_t));
    ro_sgns__mem_free(m, acc, n, sizeof(double));
    return rc;
}

/* corpus_tokens and distinct_words of the result: the tokens' sum;
   distinct words exact when both parts kept every word they read, else an
   upper bound (a word missing from one part counts as new); both 0 (not
   recorded) when a part did not record them. */
static void ro_sgns__merge_totals(ro_sgns_counts *c, const ro_sgns_counts *a,
                                  const ro_sgns_counts *b, size_t nw)
{
    uint64_t both = (uint64_t)(a->n + b->n - nw); /* words in both vocabularies */
    c->corpus_tokens = c->distinct_words = 0;
    if (!a->distinct_words || !b->distinct_words || !a->corpus_tokens || !b->corpus_tokens)
        return;
    c->corpus_tokens = a->corpus_tokens + b->corpus_tokens;
    c->distinct_words = a->distinct_words + b->distinct_words - both;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_merge(const ro_sgns_counts *a, const ro_sgns_counts *b,
                                                uint64_t min_count, uint64_t max_vocab,
                                                ro_sgns_counts **out, ro_sgns_merge_info *info,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    ro_sgns_result rc;
    ro_sgns__mem mem;
    ro_sgns_merge_info local;
    ro_sgns__mword *mw = NULL;
    uint32_t *ids = NULL, *amap = NULL, *bmap = NULL;
    size_t nw = 0, ns = 0, i;
    uint64_t mc = min_count ? min_count : 1;
    ro_sgns_counts *c = NULL;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    rc = ro_sgns__merge_check(a, b, err);
    if (rc != RO_SGNS_OK) return rc;
    memset(&mem, 0, sizeof mem);
    mem.al = alloc;
    rc = ro_sgns__merge_union(a, b, mc, max_vocab, &mem, &mw, &ids, &nw, &ns, err);
    if (rc != RO_SGNS_OK) return rc;
    ro_sgns__merge_vocab_info(a, b, mw, ids, nw, ns, mc, info);
    if (ns == 0) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "merge: no word occurs min_count = %llu times "
                           "(the most frequent occurs %llu times)", (unsigned long long)mc,
                           (unsigned long long)(nw ? mw[ids[0]].count : 0));
        goto done;
    }
    c = ro_sgns__counts_new(&mem, err, &rc);
    if (c) rc = ro_sgns__merge_vocab(c, mw, ids, ns, &mem, err);
    if (rc != RO_SGNS_OK) goto done;
    c->n = c->row_end = ns;
    c->config = a->config;
    c->config.min_count = min_count;
    c->config.max_vocab = max_vocab;
    ro_sgns__merge_totals(c, a, b, nw);
    amap = (uint32_t *)ro_sgns__mem_alloc(&mem, a->n, sizeof(uint32_t), "id map", err, &rc);
    if (amap) bmap = (uint32_t *)ro_sgns__mem_alloc(&mem, b->n, sizeof(uint32_t), "id map", err,
                                                    &rc);
    if (bmap) c->row_ptr = (uint64_t *)ro_sgns__mem_alloc(&mem, ns + 1, sizeof(uint64_t),
                                                          "co-occurrence matrix", err, &rc);
    if (c->row_ptr) c->word_count = (double *)ro_sgns__mem_alloc(&mem, ns, sizeof(double),
                                                                 "marginals", err, &rc);
    if (c->word_count) c->ctx_count = (double *)ro_sgns__mem_alloc(&mem, ns, sizeof(double),
                                                                   "marginals", err, &rc);
    if (!c->ctx_count) goto done;
    for (i = 0; i < a->n; ++i) amap[i] = RO_SGNS__DROP;
    for (i = 0; i < b->n; ++i) bmap[i] = RO_SGNS__DROP;
    ro_sgns__merge_maps(mw, ids, nw, ns, amap, bmap);
    rc = ro_sgns__merge_pairs(c, a, b, mw, ids, amap, bmap, &mem, info, err);
done:
    ro_sgns__mem_free(&mem, bmap, b->n, sizeof(uint32_t));
    ro_sgns__mem_free(&mem, amap, a->n, sizeof(uint32_t));
    ro_sgns__mem_free(&mem, ids, a->n + b->n, sizeof(uint32_t));
    ro_sgns__mem_free(&mem, mw, a->n + b->n, sizeof(ro_sgns__mword));
    if (rc != RO_SGNS_OK) {
        ro_sgns_counts_free(c);
        return rc;
    }
    *out = c;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_memory_estimate ro_sgns_estimate_memory(uint64_t n_words, uint64_t nnz,
                                                            size_t d, uint64_t n_tokens,
                                                            uint64_t n_distinct)
{
    ro_sgns_memory_estimate e;
    uint64_t n = n_words, vocab, reading, pairs, idx = 16;
    while (idx < 2 * n) idx *= 2;
    /* vocabulary: pointers, lengths, counts, ~8 bytes of word + NUL, index */
    vocab = n * (sizeof(char *) + 4 + 8 + 8 + 1) + 4 * idx;
    e.counts = RO_SGNS__PAIR_BYTES * nnz + 8 * (n + 1) + 16 * n + vocab +
               sizeof(ro_sgns_counts);
    /* reading: the 2-byte id stream with its growth slack; the table of
       distinct words (32-byte slots, at least 2 per word, 3 while it
       doubles); their bytes with growth slack */
    reading = 3 * n_tokens + 96 * n_distinct + 16 * n_distinct;
    /* pairs: the result, the stream of vocabulary ids, the positions of
       1/16 of it, accumulator + bitmap + counters */
    pairs = e.counts + (n <= 0xFFFDu ? 2 : 4) * n_tokens + n_tokens / 4 + 24 * n;
    e.counting = reading > pairs ? reading : pairs;
    {
        /* SVD-SPPMI (Krylov, l = 3d): the SPPMI matrix, Q and Z, the
           blocks' scratch, H, U and V; then RO-SGNS: U, V, seven thin
           blocks and the sweep's two packed factors, the fused step's
           row blocks of D (two threads), the d x d pieces */
        const uint64_t R = sizeof(ro_sgns_real), l = 3 * (uint64_t)d < n ? 3 * (uint64_t)d : n;
        uint64_t svd = (4 + R) * nnz + 8 * n + n * R * (2 * l + 2 * d + 200) + 8 * l * l;
        uint64_t ro = 11 * n * (uint64_t)d * R + 2 * 288 * n * R + 32 * (uint64_t)d * d;
        uint64_t gemm = 2 * R * (256 * (n < 4096 ? n : 4096) + 147456);
        e.training = e.counts + (svd > ro ? svd : ro) + gemm;
    }
    e.peak = e.counting > e.training ? e.counting : e.training;
    e.file_bytes = 120 + 12 * n + 8 * n /* words, ~8 bytes each */ + 8 * (n + 1) +
                   12 * nnz + 16 * n;
    e.file_bytes += 4 * ((e.file_bytes + 65535) / 65536) + 4; /* the chunk table */
    return e;
}

#endif /* RO_SGNS_NO_COUNT */

#ifndef RO_SGNS_NO_FILES

/* ======================================================================
   III.2 Persistence: one layer under every file (RO_SGNS_NO_FILES leaves
         it out with them)
   What every binary file (counts, checkpoints) and every save to a path
   share: CRC-32C (SSE4.2 instruction or tables: the same values) and the
   chunk CRC table that verifies any byte range read; the old version 1
   checksum, still read; little-endian integers and f64 bits written byte
   by byte (right on any host); a buffered writer and a reader over
   memory, a FILE* or a callback; and the atomic save to a path (SAVING TO
   A PATH in section 9 of the declarations: a temporary file created
   exclusively, fsync, rename, the folder flushed).
   ====================================================================== */

/* ---- CRC-32C: the checksum of the counts files and checkpoints ----------
   The CRC with Castagnoli's polynomial 0x1EDC6F41 (bit-reflected
   0x82F63B78), initial value and final xor 0xFFFFFFFF: the CRC of iSCSI,
   ext4, and of the crc32 instruction of SSE4.2; CRC-32C("123456789") =
   0xE3069283. Slicing by 8: table j maps a byte to its CRC followed by j
   zero bytes. The tables (8 KiB) are built per use, in the object that
   needs them: the library keeps no global state (with SSE4.2 they are
   still built: the tests compare both ways). why: docs/DESIGN.md, III.2 */
#if defined(__SSE4_2__) && (defined(__x86_64__) || defined(_M_X64)) && !defined(RO_SGNS_NO_SIMD)
#include <nmmintrin.h>
#define RO_SGNS__CRC_HW 1
#endif

typedef struct ro_sgns__crc {
    uint32_t t[8][256];
} ro_sgns__crc;

static void ro_sgns__crc_init(ro_sgns__crc *c)
{
    uint32_t i, j, x;
    for (i = 0; i < 256; ++i) {
        x = i;
        for (j = 0; j < 8; ++j) x = (x >> 1) ^ (0x82F63B78u & (0u - (x & 1u)));
        c->t[0][i] = x;
    }
    for (j = 1; j < 8; ++j)
        for (i = 0; i < 256; ++i)
            c->t[j][i] = (c->t[j - 1][i] >> 8) ^ c->t[0][c->t[j - 1][i] & 0xFFu];
}

/* The plain way, a byte at a time with table 0: the reference. */
static RO_SGNS__MAYBE_UNUSED uint32_t ro_sgns__crc_bytes(const ro_sgns__crc *c, uint32_t crc,
                                                         const unsigned char *p, size_t len)
{
    crc = ~crc;
    while (len--) crc = (crc >> 8) ^ c->t[0][(crc ^ *p++) & 0xFFu];
    return ~crc;
}

/* The CRC-32C of A followed by the len bytes at p, given crc = the CRC-32C
   of A (0 for nothing), so a stream is checksummed in pieces of any size. */
static uint32_t ro_sgns__crc_update(const ro_sgns__crc *c, uint32_t crc, const unsigned char *p,
                                    size_t len)
{
#ifdef RO_SGNS__CRC_HW
    uint64_t x = ~crc & 0xFFFFFFFFu;
    (void)c;
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* x86: little-endian, as the CRC wants */
        x = _mm_crc32_u64(x, w);
    }
    crc = (uint32_t)x;
    while (len--) crc = _mm_crc32_u8(crc, *p++);
    return ~crc;
#else
    crc = ~crc;
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                      (uint32_t)p[7] << 24;
        crc = c->t[7][lo & 0xFFu] ^ c->t[6][(lo >> 8) & 0xFFu] ^ c->t[5][(lo >> 16) & 0xFFu] ^
              c->t[4][lo >> 24] ^ c->t[3][hi & 0xFFu] ^ c->t[2][(hi >> 8) & 0xFFu] ^
              c->t[1][(hi >> 16) & 0xFFu] ^ c->t[0][hi >> 24];
    }
    while (len--) crc = (crc >> 8) ^ c->t[0][(crc ^ *p++) & 0xFFu];
    return ~crc;
#endif
}

/* The CRC-32C of each chunk of 2^log2 bytes of a stream (the last chunk
   may be shorter), the stream fed in pieces of any size: the chunk table
   of the counts files and checkpoints. sum grows as chunks end (4 bytes a
   chunk); oom is set, and feeding goes on uselessly, when it cannot. */
typedef struct ro_sgns__chunks {
    ro_sgns__crc crc;
    uint64_t size;      /* bytes a chunk */
    uint64_t fill;      /* bytes of the current chunk so far */
    uint32_t cur;       /* their CRC */
    uint32_t *sum;      /* the CRCs of the chunks ended so far */
    size_t n, cap;
    int oom;
    const ro_sgns_allocator *al;
} ro_sgns__chunks;

static void ro_sgns__chunks_init(ro_sgns__chunks *ch, unsigned log2, size_t reserve,
                                 const ro_sgns_allocator *al)
{
    ro_sgns__crc_init(&ch->crc);
    ch->size = (uint64_t)1 << log2;
    ch->fill = 0;
    ch->cur = 0;
    ch->n = 0;
    ch->cap = 0;
    ch->oom = 0;
    ch->al = al;
    ch->sum = NULL;
    if (reserve) {
        ch->sum = (uint32_t *)ro_sgns__alloc_array(al, reserve, sizeof(uint32_t), 1);
        if (ch->sum) ch->cap = reserve;
        else ch->oom = 1;
    }
}

static void ro_sgns__chunks_push(ro_sgns__chunks *ch)
{
    if (!ch->oom && ch->n == ch->cap) {
        size_t cap = ch->cap ? 2 * ch->cap : 64;
        uint32_t *q = cap > (size_t)-1 / 8 ? NULL
                      : (uint32_t *)ro_sgns__realloc(ch->al, ch->sum, cap * sizeof(uint32_t));
        if (q) {
            ch->sum = q;
            ch->cap = cap;
        } else {
            ch->oom = 1;
        }
    }
    if (!ch->oom) ch->sum[ch->n++] = ch->cur;
    /* the chunk ends either way: a feed after an allocation failure must
       still move on, else it would take 0 bytes a turn, forever */
    ch->cur = 0;
    ch->fill = 0;
}

static void ro_sgns__chunks_feed(ro_sgns__chunks *ch, const unsigned char *p, size_t len)
{
    while (len) {
        size_t take = ch->size - ch->fill < len ? (size_t)(ch->size - ch->fill) : len;
        ch->cur = ro_sgns__crc_update(&ch->crc, ch->cur, p, take);
        ch->fill += take;
        p += take;
        len -= take;
        if (ch->fill == ch->size) ro_sgns__chunks_push(ch);
    }
}

/* End the last, shorter chunk (if any). */
static void ro_sgns__chunks_end(ro_sgns__chunks *ch)
{
    if (ch->fill) ro_sgns__chunks_push(ch);
}

static void ro_sgns__chunks_free(ro_sgns__chunks *ch)
{
    ro_sgns__free(ch->al, ch->sum);
    ch->sum = NULL;
    ch->n = ch->cap = 0;
}

#ifndef RO_SGNS_NO_STDIO

/* Put "'<path>': " before err's message: the file a load error is about
   (a long path keeps its last 100 bytes). */
static RO_SGNS__MAYBE_UNUSED void ro_sgns__name_file(ro_sgns_error *err, const char *path)
{
    char msg[RO_SGNS_MESSAGE_SIZE];
    size_t plen;
    if (!err || !path) return;
    plen = strlen(path);
    memcpy(msg, err->message, sizeof msg);
    snprintf(err->message, sizeof err->message, "'%s%s': %.140s", plen > 100 ? "..." : "",
             plen > 100 ? path + plen - 100 : path, msg);
}

/* ---- saving to a path (SAVING TO A PATH in the declarations) ------------
   One routine behind every *_save_path: a temporary file renamed over a
   regular file; a device, FIFO or "-" written in place; a directory
   refused. POSIX or Windows calls under their #if, else plain C (fopen,
   rename). */

typedef ro_sgns_result (*ro_sgns__emit_fn)(const void *obj, ro_sgns_write_fn write, void *user,
                                           ro_sgns_error *err);

/* What a save writes into: a descriptor (POSIX, Windows) or a FILE*. */
typedef struct ro_sgns__sink {
    int fd;    /* >= 0: write() to it */
    FILE *f;   /* else fwrite() to it */
    int errnum; /* errno of the first failed write, 0 if unknown */
} ro_sgns__sink;

static int ro_sgns__sink_write(void *user, const void *data, size_t size)
{
    ro_sgns__sink *s = (ro_sgns__sink *)user;
    const unsigned char *p = (const unsigned char *)data;
    if (s->fd < 0) {
        errno = 0;
        if (fwrite(p, 1, size, s->f) == size) return 0;
        s->errnum = errno;
        return 1;
    }
#if defined(RO_SGNS__POSIX_IO) || defined(RO_SGNS__WIN_IO)
    while (size) {
        unsigned piece = size > 0x40000000u ? 0x40000000u : (unsigned)size;
#ifdef RO_SGNS__POSIX_IO
        ssize_t w = write(s->fd, p, piece);
        if (w < 0 && errno == EINTR) continue;
#else
        int w = _write(s->fd, p, piece);
#endif
        if (w <= 0) {
            s->errnum = w < 0 ? errno : ENOSPC;
            return 1;
        }
        p += w;
        size -= (size_t)w;
    }
#endif
    return 0;
}

/* emit(obj) into the sink; on a failed write, the message names the
   user's path and the OS's reason. */
static ro_sgns_result ro_sgns__emit_to(ro_sgns__sink *s, ro_sgns__emit_fn emit, const void *obj,
                                       const char *path, ro_sgns_error *err)
{
    ro_sgns_result rc = emit(obj, ro_sgns__sink_write, s, err);
    if (rc == RO_SGNS_ERR_IO)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s': %s", path,
                           s->errnum ? strerror(s->errnum) : "the write failed");
    return rc;
}

/* A copy of n bytes of s plus a NUL, with room for extra more bytes. */
static char *ro_sgns__strndup(const ro_sgns_allocator *al, const char *s, size_t n, size_t extra)
{
    char *p = (char *)ro_sgns__malloc(al, n + extra + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* The name of a temporary file beside target, made of attempt and what is
   at hand (the process id, the time, an address), so two processes
   saving beside each other rarely try the same name; exclusive creation
   settles it when they do. buf has room for target + 22 bytes. */
static void ro_sgns__tmp_name(char *buf, const char *target, unsigned attempt, uint64_t salt)
{
    uint64_t x = salt + 0x9E3779B97F4A7C15ull * (attempt + 1);
    size_t len = strlen(target), i;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    memcpy(buf, target, len);
    buf[len] = '.';
    for (i = 0; i < 16; ++i) buf[len + 1 + i] = "0123456789abcdef"[(x >> (60 - 4 * i)) & 15u];
    memcpy(buf + len + 17, ".tmp", 5);
}

#if defined(RO_SGNS__POSIX_IO)
/* The file a save to path replaces: path, or the end of its chain of
   symbolic links (a relative link read from the link's folder). *out is
   allocated with al. */
static ro_sgns_result ro_sgns__resolve(const char *path, char **out,
                                       const ro_sgns_allocator *al, ro_sgns_error *err)
{
    char link[4096];
    char *cur = ro_sgns__strndup(al, path, strlen(path), 0), *next;
    int hops;
    if (!cur) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a file name");
    for (hops = 0;; ++hops) {
        ssize_t len = readlink(cur, link, sizeof link);
        size_t dir = 0, i;
        if (len < 0) break; /* not a link (or not there): the end */
        if ((size_t)len >= sizeof link || hops == 40) {
            ro_sgns__free(al, cur);
            return ro_sgns__fail(err, RO_SGNS_ERR_IO, "'%.200s': %s", path,
                                 hops == 40 ? "too many levels of symbolic links"
                                            : "a symbolic link too long to follow");
        }
        if (link[0] != '/')
            for (i = 0; cur[i]; ++i)
                if (cur[i] == '/') dir = i + 1;
        next = ro_sgns__strndup(al, cur, dir, (size_t)len);
        if (!next) {
            ro_sgns__free(al, cur);
            return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a file name");
        }
        memcpy(next + dir, link, (size_t)len);
        next[dir + (size_t)len] = '\0';
        ro_sgns__free(al, cur);
        cur = next;
    }
    *out = cur;
    return RO_SGNS_OK;
}
#endif

/* What a path names, for a save. */
enum { RO_SGNS__TO_FILE, RO_SGNS__TO_DEVICE, RO_SGNS__TO_STDOUT };

/* What a save keeps of the file it replaces: its permission bits (-1:
   no file yet), owner and group. */
typedef struct ro_sgns__old_file {
    int mode;
    long uid, gid;
} ro_sgns__old_file;

/* Classify path (a directory is an error); for a file, the target to
   replace (*target, allocated) and what to keep of it (*old). */
static ro_sgns_result ro_sgns__save_kind(const char *path, int *kind, char **target,
                                         ro_sgns__old_file *old, const ro_sgns_allocator *al,
                                         ro_sgns_error *err)
{
    *target = NULL;
    old->mode = -1;
    old->uid = old->gid = -1;
    *kind = RO_SGNS__TO_FILE;
    if (!path || !*path)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "the path is NULL or empty");
    if (strcmp(path, "-") == 0) {
        *kind = RO_SGNS__TO_STDOUT;
        return RO_SGNS_OK;
    }
#if defined(RO_SGNS__POSIX_IO) || defined(RO_SGNS__WIN_IO)
    {
#ifdef RO_SGNS__POSIX_IO
        struct stat st;
        int there = stat(path, &st) == 0;
#else
        struct _stat st;
        int there = _stat(path, &st) == 0;
#endif
        if (there && RO_SGNS__IS_DIR(st.st_mode))
            return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s': it is a directory",
                                 path);
        if (there && !RO_SGNS__IS_REG(st.st_mode)) {
            *kind = RO_SGNS__TO_DEVICE;
            return RO_SGNS_OK;
        }
        if (there) {
            old->mode = (int)(st.st_mode & 07777);
            old->uid = (long)st.st_uid;
            old->gid = (long)st.st_gid;
        }
    }
#endif
#ifdef RO_SGNS__POSIX_IO
    return ro_sgns__resolve(path, target, al, err);
#else
    *target = ro_sgns__strndup(al, path, strlen(path), 0);
    return *target ? RO_SGNS_OK
                   : ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a file name");
#endif
}

/* Create a new temporary file beside target, exclusively: its name in
   *tmp (allocated) and, with descriptors, its descriptor in *fd, else
   the FILE in *f. private_: readable by its owner alone (POSIX; until
   the old file's bits are given to it, so no one opens it before). */
static ro_sgns_result ro_sgns__tmp_create(const char *path, const char *target, int private_,
                                          char **tmp, int *fd, FILE **f,
                                          const ro_sgns_allocator *al, ro_sgns_error *err)
{
    char *name = (char *)ro_sgns__malloc(al, strlen(target) + 22);
    uint64_t salt = (uint64_t)time(NULL) * 0x100000001B3ull ^ (uint64_t)RO_SGNS__CLOCK() ^
                    (uint64_t)(size_t)name;
    unsigned attempt;
    int errnum = 0;
    *fd = -1;
    *f = NULL;
    (void)private_; /* POSIX only: Windows gives no group or other bits */
    if (!name) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a file name");
#ifdef RO_SGNS__POSIX_IO
    salt ^= (uint64_t)RO_SGNS__GETPID() << 32;
#elif defined(RO_SGNS__WIN_IO)
    salt ^= (uint64_t)_getpid() << 32;
#endif
    for (attempt = 0; attempt < 100; ++attempt) {
        ro_sgns__tmp_name(name, target, attempt, salt);
#ifdef RO_SGNS__POSIX_IO
        *fd = open(name, O_WRONLY | O_CREAT | O_EXCL, private_ ? 0600 : 0666);
#elif defined(RO_SGNS__WIN_IO)
        *fd = _open(name, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY, _S_IREAD | _S_IWRITE);
#else
        { /* plain C: create only where nothing can be opened by the name */
            FILE *probe = fopen(name, "rb");
            if (probe) {
                fclose(probe);
                continue;
            }
            *f = fopen(name, "wb");
        }
#endif
        if (*fd >= 0 || *f) {
            *tmp = name;
            return RO_SGNS_OK;
        }
        errnum = errno;
#if defined(RO_SGNS__POSIX_IO) || defined(RO_SGNS__WIN_IO)
        if (errnum != EEXIST) break;
#else
        break;
#endif
    }
    ro_sgns__free(al, name);
    return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot create a file in the folder of '%.200s': %s",
                         path, errnum ? strerror(errnum) : "every name tried is taken");
}

/* Flush the folder of target to the disk (POSIX; best effort: some file
   systems cannot, and the data are already safe there). */
static void ro_sgns__sync_folder(const char *target)
{
#ifdef RO_SGNS__POSIX_IO
    char dir[4096];
    size_t i, cut = 0;
    int fd;
    for (i = 0; target[i]; ++i)
        if (target[i] == '/') cut = i;
    if (cut == 0 && target[0] != '/') {
        dir[0] = '.';
        cut = 1;
    } else {
        if (cut == 0) cut = 1; /* the root */
        if (cut >= sizeof dir) return;
        memcpy(dir, target, cut);
    }
    dir[cut] = '\0';
    fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
#else
    (void)target;
#endif
}

#ifdef RO_SGNS__POSIX_IO
/* Give the new file fd what it keeps of the old one: its owner and group
   where allowed (root; an owner may keep its own and give a group of
   theirs), then its permission bits. A group that cannot be kept gets no
   group bits: the old group's file is no file for this user's group. */
static void ro_sgns__keep_old(int fd, const ro_sgns__old_file *old)
{
    int mode = old->mode;
    if (RO_SGNS__FCHOWN(fd, (uid_t)old->uid, (gid_t)old->gid) != 0 &&
        RO_SGNS__FCHOWN(fd, (uid_t)-1, (gid_t)old->gid) != 0)
        mode &= ~070;
    (void)RO_SGNS__FCHMOD(fd, (mode_t)mode);
}
#endif

/* Write a regular file the safe way (see SAVING TO A PATH). */
static ro_sgns_result ro_sgns__save_file(const char *path, const char *target,
                                         const ro_sgns__old_file *old, ro_sgns__emit_fn emit,
                                         const void *obj, const ro_sgns_allocator *al,
                                         ro_sgns_error *err)
{
    ro_sgns__sink s;
    char *tmp = NULL;
    ro_sgns_result rc = ro_sgns__tmp_create(path, target, old->mode >= 0, &tmp, &s.fd, &s.f, al, err);
    if (rc != RO_SGNS_OK) return rc;
    s.errnum = 0;
#ifdef RO_SGNS__POSIX_IO
    if (old->mode >= 0) ro_sgns__keep_old(s.fd, old);
#endif
    rc = ro_sgns__emit_to(&s, emit, obj, path, err);
#if defined(RO_SGNS__POSIX_IO) || defined(RO_SGNS__WIN_IO)
#ifdef RO_SGNS__POSIX_IO
    if (rc == RO_SGNS_OK && fsync(s.fd) != 0)
#else
    if (rc == RO_SGNS_OK && _commit(s.fd) != 0)
#endif
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s' to the disk: %s", path,
                           strerror(errno));
#ifdef RO_SGNS__POSIX_IO
    if (close(s.fd) != 0 && rc == RO_SGNS_OK)
#else
    if (_close(s.fd) != 0 && rc == RO_SGNS_OK)
#endif
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s': %s", path,
                           strerror(errno));
#else
    if (fclose(s.f) != 0 && rc == RO_SGNS_OK)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s'", path);
#endif
    if (rc == RO_SGNS_OK) {
#ifdef RO_SGNS__WIN_IO
        if (!MoveFileExA(tmp, target, 0x1 | 0x8)) /* REPLACE_EXISTING | WRITE_THROUGH */
            rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot replace '%.200s' (Windows error %lu)",
                               path, (unsigned long)GetLastError());
#else
        if (rename(tmp, target) != 0) {
#if !defined(RO_SGNS__POSIX_IO)
            /* a rename() that does not replace: the old file first */
            if (remove(target) != 0 || rename(tmp, target) != 0)
#endif
                rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot replace '%.200s': %s", path,
                                   strerror(errno));
        }
#endif
    }
    if (rc == RO_SGNS_OK) ro_sgns__sync_folder(target);
    else remove(tmp);
    ro_sgns__free(al, tmp);
    return rc;
}

/* Write to a device, a FIFO or standard output, in place. */
static ro_sgns_result ro_sgns__save_in_place(const char *path, int kind, ro_sgns__emit_fn emit,
                                             const void *obj, ro_sgns_error *err)
{
    ro_sgns__sink s;
    ro_sgns_result rc;
    s.fd = -1;
    s.f = NULL;
    s.errnum = 0;
    if (kind == RO_SGNS__TO_STDOUT) {
#ifdef RO_SGNS__WIN_IO
        int old = _setmode(_fileno(stdout), _O_BINARY); /* no CR before each LF */
#endif
        s.f = stdout;
        rc = ro_sgns__emit_to(&s, emit, obj, "-", err);
        errno = 0;
        if (fflush(stdout) != 0 && rc == RO_SGNS_OK)
            rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write to standard output: %s",
                               errno ? strerror(errno) : "the write failed");
#ifdef RO_SGNS__WIN_IO
        if (old != -1) _setmode(_fileno(stdout), old);
#endif
        return rc;
    }
#if defined(RO_SGNS__POSIX_IO)
    s.fd = open(path, O_WRONLY);
#elif defined(RO_SGNS__WIN_IO)
    s.fd = _open(path, _O_WRONLY | _O_BINARY);
#endif
    if (s.fd < 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s' for writing: %s", path,
                             strerror(errno));
    rc = ro_sgns__emit_to(&s, emit, obj, path, err);
#if defined(RO_SGNS__POSIX_IO)
    if (close(s.fd) != 0 && rc == RO_SGNS_OK)
#elif defined(RO_SGNS__WIN_IO)
    if (_close(s.fd) != 0 && rc == RO_SGNS_OK)
#endif
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s': %s", path,
                           strerror(errno));
    return rc;
}

static RO_SGNS__MAYBE_UNUSED ro_sgns_result ro_sgns__save_atomic(const char *path,
                                                                 ro_sgns__emit_fn emit,
                                                                 const void *obj,
                                                                 const ro_sgns_allocator *al,
                                                                 ro_sgns_error *err)
{
    char *target = NULL;
    int kind;
    ro_sgns__old_file old;
    ro_sgns_result rc = ro_sgns__save_kind(path, &kind, &target, &old, al, err);
    if (rc != RO_SGNS_OK) return rc;
    if (kind == RO_SGNS__TO_FILE) rc = ro_sgns__save_file(path, target, &old, emit, obj, al, err);
    else rc = ro_sgns__save_in_place(path, kind, emit, obj, err);
    ro_sgns__free(al, target);
    if (rc == RO_SGNS_OK) ro_sgns__ok(err);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_check_output_path(const char *path, ro_sgns_error *err)
{
    char *target = NULL, *tmp = NULL;
    int kind, fd = -1;
    FILE *f = NULL;
    ro_sgns__old_file old;
    ro_sgns_result rc = ro_sgns__save_kind(path, &kind, &target, &old, NULL, err);
    if (rc != RO_SGNS_OK) return rc;
    if (kind == RO_SGNS__TO_FILE) {
        rc = ro_sgns__tmp_create(path, target, 1, &tmp, &fd, &f, NULL, err);
        if (rc == RO_SGNS_OK) {
#if defined(RO_SGNS__POSIX_IO)
            close(fd);
#elif defined(RO_SGNS__WIN_IO)
            _close(fd);
#else
            fclose(f);
#endif
            remove(tmp);
        }
    } else if (kind == RO_SGNS__TO_DEVICE) {
#if defined(RO_SGNS__POSIX_IO)
        if (access(path, W_OK) != 0)
#elif defined(RO_SGNS__WIN_IO)
        if (_access(path, 2) != 0)
#else
        if (0)
#endif
            rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot write '%.200s': %s", path,
                               strerror(errno));
    }
    (void)fd;
    (void)f;
    ro_sgns__free(NULL, tmp);
    ro_sgns__free(NULL, target);
    return rc == RO_SGNS_OK ? ro_sgns__ok(err) : rc;
}
#endif

/* ---- the counts file ------------------------------------------------------- */

#define RO_SGNS__CK_INIT 0x84222325CBF29CE4ull
#define RO_SGNS__CK_MUL 0x100000001B3ull
#define RO_SGNS__COUNTS_VERSION 2u
#define RO_SGNS__COUNTS_HEADER 120u    /* version 2 */
#define RO_SGNS__COUNTS_HEADER_V1 112u /* version 1 */
#define RO_SGNS__CHUNK_LOG2 16u        /* 64 KiB chunks, as written */
#define RO_SGNS__CHUNK_LOG2_MIN 8u     /* what a reader takes */
#define RO_SGNS__CHUNK_LOG2_MAX 24u

/* The checksum of version 1 files (counts and checkpoints), kept to read
   them: over a byte stream fed in pieces of any size. */
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

/* A buffered writer that feeds what it writes to the chunk CRCs (while
   ch is set). */
#define RO_SGNS__IO_BUF 8192
typedef struct ro_sgns__writer {
    ro_sgns_write_fn fn;
    void *user;
    unsigned char buf[RO_SGNS__IO_BUF];
    size_t len;
    int failed;
    ro_sgns__chunks *ch;
} ro_sgns__writer;

static void ro_sgns__w_flush(ro_sgns__writer *wr)
{
    if (wr->len && !wr->failed) {
        if (wr->ch) ro_sgns__chunks_feed(wr->ch, wr->buf, wr->len);
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

/* The chunk table of the data just written (wr->ch ended), then its CRC:
   the tail of a version 2 counts file or checkpoint. */
static void ro_sgns__w_chunk_table(ro_sgns__writer *wr)
{
    ro_sgns__chunks *ch = wr->ch;
    uint32_t t = 0;
    size_t i;
    unsigned char b[4];
    ro_sgns__w_flush(wr);
    wr->ch = NULL; /* the table is not part of the data */
    for (i = 0; i < ch->n; ++i) {
        ro_sgns__put_u32(b, ch->sum[i]);
        t = ro_sgns__crc_update(&ch->crc, t, b, 4);
        ro_sgns__w_u32(wr, ch->sum[i]);
    }
    ro_sgns__w_u32(wr, t);
    ro_sgns__w_flush(wr);
}

/* A new writer (allocated) of data_bytes of data whose CRCs it keeps by
   chunks of 2^log2 bytes: the start of a counts file or checkpoint. NULL
   (and *rc, an error naming what) when memory is short. */
static ro_sgns__writer *ro_sgns__writer_new(ro_sgns_write_fn write, void *user,
                                            uint64_t data_bytes, unsigned log2,
                                            const ro_sgns_allocator *al, const char *what,
                                            ro_sgns_error *err, ro_sgns_result *rc)
{
    uint64_t nch = (data_bytes + ((uint64_t)1 << log2) - 1) >> log2;
    ro_sgns__writer *wr;
    ro_sgns__chunks *ch;
    if (nch > (size_t)-1 / 8) {
        *rc = ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "%s: %llu chunks", what,
                            (unsigned long long)nch);
        return NULL;
    }
    wr = (ro_sgns__writer *)ro_sgns__malloc(al, sizeof *wr);
    ch = (ro_sgns__chunks *)ro_sgns__malloc(al, sizeof *ch);
    if (ch) ro_sgns__chunks_init(ch, log2, (size_t)nch, al);
    if (!wr || !ch || ch->oom) {
        if (ch) ro_sgns__chunks_free(ch);
        ro_sgns__free(al, ch);
        ro_sgns__free(al, wr);
        *rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "%s: no memory for the writer and %llu chunk CRCs", what,
                            (unsigned long long)nch);
        return NULL;
    }
    wr->fn = write;
    wr->user = user;
    wr->len = 0;
    wr->failed = 0;
    wr->ch = ch;
    return wr;
}

/* The data are written: end the last chunk, write the chunk table and its
   CRC, free the writer. Non-zero when a write failed. */
static int ro_sgns__writer_finish(ro_sgns__writer *wr, const ro_sgns_allocator *al)
{
    ro_sgns__chunks *ch = wr->ch;
    int failed;
    ro_sgns__w_flush(wr);
    ro_sgns__chunks_end(ch);
    ro_sgns__w_chunk_table(wr);
    failed = wr->failed;
    ro_sgns__chunks_free(ch);
    ro_sgns__free(al, ch);
    ro_sgns__free(al, wr);
    return failed;
}

/* A buffered reader of a counts file that tracks the byte offset and the
   checksum. Source: a read callback (read once, in order), a buffer (mem),
   or for row ranges also a seekable FILE. Bytes are checksummed as taken
   (version 1: the old checksum; version 2: the chunk CRCs, compared with
   the table at the end). In chunk mode (version 2 row ranges, buffer or
   seekable FILE) the table is read first, every byte comes from a chunk
   verified as it was read, and the reader may skip ahead. */
typedef struct ro_sgns__reader {
    ro_sgns_read_fn fn;
    void *user;
    const unsigned char *mem;
    size_t mem_size;
#ifndef RO_SGNS_NO_STDIO
    FILE *file;        /* a seekable FILE (row ranges), or NULL */
    uint64_t file_pos; /* its position, counted from the start of the counts */
#endif
    unsigned char buf[RO_SGNS__IO_BUF];
    size_t pos, len;   /* stream: unread bytes are buf[pos, len) */
    uint64_t offset;   /* bytes consumed */
    unsigned version;
    ro_sgns__ck ck;     /* version 1 */
    ro_sgns__chunks ch; /* version 2: the CRC tables; the chunks taken so far */
    /* chunk mode */
    int chunked;
    uint32_t *table;              /* the file's chunk CRCs */
    uint64_t nchunks, data_bytes; /* and the bytes they cover */
    unsigned char *chunk_buf;     /* a chunk read from a FILE */
    const unsigned char *chunk;   /* the last chunk verified, */
    uint64_t chunk_index;         /* its index (nchunks: none) */
    uint64_t buf_at;              /* buf holds bytes [buf_at, buf_at + len) */
    const ro_sgns_allocator *al;
    const char *name;             /* "counts" or "checkpoint", for messages */
    ro_sgns_error *err;
} ro_sgns__reader;

/* A new reader (allocated: it holds 16 KiB of buffer and tables). */
static ro_sgns__reader *ro_sgns__reader_new(const ro_sgns_allocator *al, ro_sgns_error *err)
{
    ro_sgns__reader *r = (ro_sgns__reader *)ro_sgns__malloc(al, sizeof *r);
    if (!r) {
        ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a reader");
        return NULL;
    }
    memset(r, 0, sizeof *r);
    ro_sgns__chunks_init(&r->ch, RO_SGNS__CHUNK_LOG2, 0, al);
    r->al = al;
    r->name = "counts";
    r->err = err;
    return r;
}

static void ro_sgns__reader_free(ro_sgns__reader *r)
{
    const ro_sgns_allocator *al;
    if (!r) return;
    al = r->al;
    ro_sgns__chunks_free(&r->ch);
    ro_sgns__free(al, r->table);
    ro_sgns__free(al, r->chunk_buf);
    ro_sgns__free(al, r);
}

static ro_sgns_result ro_sgns__truncated(ro_sgns__reader *r, uint64_t at, const char *what,
                                         uint64_t need, uint64_t end)
{
    return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                         "truncated at offset %llu: %s needs %llu bytes, the input ends at %llu",
                         (unsigned long long)at, what, (unsigned long long)need,
                         (unsigned long long)end);
}

#ifndef RO_SGNS_NO_STDIO
/* Move f, now at *pos, to offset to, in steps a long holds. 0 on success. */
static int ro_sgns__fseek_to(FILE *f, uint64_t *pos, uint64_t to)
{
    while (*pos != to) {
        uint64_t gap = to > *pos ? to - *pos : *pos - to;
        long step = gap > (uint64_t)LONG_MAX ? LONG_MAX : (long)gap;
        if (fseek(f, to > *pos ? step : -step, SEEK_CUR) != 0) return 1;
        if (to > *pos) *pos += (uint64_t)step;
        else *pos -= (uint64_t)step;
    }
    return 0;
}
#endif

/* len bytes at offset off of a buffer or FILE source, past the reader's
   buffer and checksums: the chunk table and the chunks of chunk mode. */
static ro_sgns_result ro_sgns__r_raw(ro_sgns__reader *r, uint64_t off, unsigned char *dst,
                                     size_t len, const char *what)
{
    if (r->mem) {
        if (off > r->mem_size || len > r->mem_size - off)
            return ro_sgns__truncated(r, off, what, len, r->mem_size);
        memcpy(dst, r->mem + off, len);
        return RO_SGNS_OK;
    }
#ifndef RO_SGNS_NO_STDIO
    if (r->file) {
        size_t got;
        if (ro_sgns__fseek_to(r->file, &r->file_pos, off))
            return ro_sgns__fail(r->err, RO_SGNS_ERR_IO, "cannot seek to offset %llu: %s",
                                 (unsigned long long)off, strerror(errno));
        got = fread(dst, 1, len, r->file);
        r->file_pos += got;
        if (got < len) {
            if (ferror(r->file))
                return ro_sgns__fail(r->err, RO_SGNS_ERR_IO, "read failed at offset %llu: %s",
                                     (unsigned long long)(off + got), strerror(errno));
            return ro_sgns__truncated(r, off, what, len, off + got);
        }
        return RO_SGNS_OK;
    }
#endif
    return ro_sgns__fail(r->err, RO_SGNS_ERR_INVALID_ARGUMENT, "this source cannot seek");
}

/* Chunk mode: make chunk i the current one, read and verified. */
static ro_sgns_result ro_sgns__r_chunk(ro_sgns__reader *r, uint64_t i)
{
    uint64_t at = i * r->ch.size;
    size_t len = (size_t)(r->data_bytes - at < r->ch.size ? r->data_bytes - at : r->ch.size);
    uint32_t crc;
    ro_sgns_result rc;
    if (i == r->chunk_index) return RO_SGNS_OK;
    r->chunk_index = r->nchunks;
    if (r->mem) {
        if (at + len > r->mem_size) return ro_sgns__truncated(r, at, "a chunk", len, r->mem_size);
        r->chunk = r->mem + at;
    } else {
        rc = ro_sgns__r_raw(r, at, r->chunk_buf, len, "a chunk");
        if (rc != RO_SGNS_OK) return rc;
        r->chunk = r->chunk_buf;
    }
    crc = ro_sgns__crc_update(&r->ch.crc, 0, r->chunk, len);
    if (crc != r->table[i])
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "corrupt %s: chunk %llu (offsets %llu to %llu) has CRC-32C "
                             "%08lx, the chunk table says %08lx", r->name, (unsigned long long)i,
                             (unsigned long long)at, (unsigned long long)(at + len - 1),
                             (unsigned long)crc, (unsigned long)r->table[i]);
    r->chunk_index = i;
    return RO_SGNS_OK;
}

/* Make m (<= RO_SGNS__IO_BUF) bytes available and return them, or NULL
   (and an error) when the input ends first. Consume them with _take. */
static const unsigned char *ro_sgns__r_peek(ro_sgns__reader *r, size_t m, const char *what,
                                            ro_sgns_result *rc)
{
    if (r->chunked) {
        if (r->offset < r->buf_at || r->offset + m > r->buf_at + r->len) {
            /* refill the window from the verified chunks */
            uint64_t o = r->offset;
            size_t want, got = 0;
            if (o > r->data_bytes || m > r->data_bytes - o) {
                *rc = ro_sgns__truncated(r, o, what, m, r->data_bytes);
                return NULL;
            }
            /* up to the end of the chunk of the last byte asked for: no
               chunk is read that the caller does not need */
            {
                uint64_t last = (o + m - 1) / r->ch.size, stop = (last + 1) * r->ch.size;
                if (stop > r->data_bytes) stop = r->data_bytes;
                want = (size_t)(stop - o < RO_SGNS__IO_BUF ? stop - o : RO_SGNS__IO_BUF);
            }
            while (got < want) {
                uint64_t i = (o + got) / r->ch.size, in = (o + got) - i * r->ch.size;
                size_t take;
                *rc = ro_sgns__r_chunk(r, i);
                if (*rc != RO_SGNS_OK) return NULL;
                take = (size_t)(r->ch.size - in);
                if (take > r->data_bytes - (o + got)) take = (size_t)(r->data_bytes - (o + got));
                if (take > want - got) take = want - got;
                memcpy(r->buf + got, r->chunk + in, take);
                got += take;
            }
            r->buf_at = o;
            r->len = want;
        }
        return r->buf + (size_t)(r->offset - r->buf_at);
    }
    if (r->mem) {
        if (r->mem_size - r->offset < m) {
            *rc = ro_sgns__truncated(r, r->offset, what, m, r->mem_size);
            return NULL;
        }
        return r->mem + r->offset;
    }
    if (r->len - r->pos < m) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
        /* ask for exactly what is missing: a stream is never read past
           the end of the counts (the caller may have more data after it) */
        while (r->len < m) {
            size_t got = r->fn(r->user, r->buf + r->len, m - r->len);
            if (got == (size_t)-1 || got > m - r->len) {
                *rc = ro_sgns__fail(r->err, RO_SGNS_ERR_IO, "read failed at offset %llu",
                                    (unsigned long long)(r->offset + r->len));
                return NULL;
            }
            if (got == 0) {
                *rc = ro_sgns__truncated(r, r->offset, what, m, r->offset + r->len);
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
    if (!r->chunked) {
        if (checksum && r->version == 1) ro_sgns__ck_update(&r->ck, p, m);
        if (checksum && r->version >= 2) ro_sgns__chunks_feed(&r->ch, p, m);
        if (!r->mem) r->pos += m;
    }
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
   seen so far, so a corrupt size in a header cannot ask for terabytes.
   When it cannot grow, p is freed and NULL (and *rc) returned: the caller
   stores the NULL where p was. */
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
    if (!q) {
        ro_sgns__mem_free(m, p, *cap, elem);
        *cap = 0;
        return NULL;
    }
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
    return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT, "corrupt %s at offset %llu: %s", r->name,
                         (unsigned long long)at, what);
}

/* The start of a counts file or checkpoint (what: "counts file" or
   "checkpoint"): v1_bytes of header, the magic, the version (1 to top,
   into r->version); *h points at the header. */
static ro_sgns_result ro_sgns__r_magic(ro_sgns__reader *r, const char *magic, const char *what,
                                       size_t v1_bytes, unsigned top, const unsigned char **h)
{
    ro_sgns_result rc = RO_SGNS_OK;
    ro_sgns__ck_init(&r->ck);
    *h = ro_sgns__r_peek(r, v1_bytes, "the header", &rc);
    if (!*h) return rc;
    if (memcmp(*h, magic, 8) != 0)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "not a %s: bad magic at offset 0 (want \"%s\")", what, magic);
    r->version = ro_sgns__get_u32(*h + 8);
    if (r->version < 1 || r->version > top)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "unsupported %s version %lu at offset 8 (this library reads "
                             "versions 1 to %u)", what, (unsigned long)r->version, top);
    return RO_SGNS_OK;
}

/* A version 2 header of bytes bytes (*h), its CRC-32C in the last 4. */
static ro_sgns_result ro_sgns__r_header_v2(ro_sgns__reader *r, size_t bytes,
                                           const unsigned char **h)
{
    ro_sgns_result rc = RO_SGNS_OK;
    uint32_t want;
    *h = ro_sgns__r_peek(r, bytes, "the header", &rc);
    if (!*h) return rc;
    want = ro_sgns__crc_update(&r->ch.crc, 0, *h, bytes - 4);
    if (ro_sgns__get_u32(*h + bytes - 4) != want)
        return ro_sgns__bad(r, bytes - 4, "the header's CRC-32C is %08lx, its bytes give %08lx",
                            (unsigned long)ro_sgns__get_u32(*h + bytes - 4),
                            (unsigned long)want);
    return RO_SGNS_OK;
}

/* Enter chunk mode (the header taken, r->data_bytes and the chunk size
   set): read the chunk table at the end of the data, check its CRC. */
static ro_sgns_result ro_sgns__r_enter_chunks(ro_sgns__reader *r)
{
    uint64_t nch = (r->data_bytes + r->ch.size - 1) / r->ch.size, got = 0;
    size_t cap = 0;
    uint32_t t = 0;
    unsigned char b[4];
    ro_sgns_result rc;
#ifndef RO_SGNS_NO_STDIO
    if (r->file) r->file_pos = r->offset + (r->len - r->pos); /* past what buf holds */
#endif
    if (nch > (size_t)-1 / 8)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_SIZE_OVERFLOW, "%llu chunks",
                             (unsigned long long)nch);
    if (r->mem && (r->mem_size < r->data_bytes ||
                   (r->mem_size - r->data_bytes) / 4 < nch + 1))
        return ro_sgns__truncated(r, r->data_bytes, "the chunk table", 4 * (nch + 1),
                                  r->mem_size);
    /* in pieces, growing: a truncated file ends the growth early */
    while (got < nch) {
        size_t piece = (size_t)(nch - got < 2048 ? nch - got : 2048), j;
        if (got + piece > cap) {
            size_t nc = cap * 2 > got + piece ? cap * 2 : (size_t)(got + piece);
            uint32_t *q;
            if (nc > nch) nc = (size_t)nch;
            q = (uint32_t *)ro_sgns__realloc(r->al, r->table, nc * sizeof(uint32_t));
            if (!q)
                return ro_sgns__fail(r->err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                     "no memory for the chunk table (%llu chunks)",
                                     (unsigned long long)nch);
            r->table = q;
            cap = nc;
        }
        rc = ro_sgns__r_raw(r, r->data_bytes + 4 * got, r->buf, 4 * piece, "the chunk table");
        if (rc != RO_SGNS_OK) return rc;
        t = ro_sgns__crc_update(&r->ch.crc, t, r->buf, 4 * piece);
        for (j = 0; j < piece; ++j) r->table[got + j] = ro_sgns__get_u32(r->buf + 4 * j);
        got += piece;
    }
    rc = ro_sgns__r_raw(r, r->data_bytes + 4 * nch, b, 4, "the chunk table's CRC");
    if (rc != RO_SGNS_OK) return rc;
    if (ro_sgns__get_u32(b) != t)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "corrupt %s: the chunk table's CRC-32C at offset %llu is "
                             "%08lx, the table gives %08lx", r->name,
                             (unsigned long long)(r->data_bytes + 4 * nch),
                             (unsigned long)ro_sgns__get_u32(b), (unsigned long)t);
    if (!r->mem) {
        r->chunk_buf = (unsigned char *)ro_sgns__malloc(
            r->al, (size_t)(r->data_bytes < r->ch.size ? r->data_bytes : r->ch.size));
        if (!r->chunk_buf)
            return ro_sgns__fail(r->err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a chunk");
    }
    r->nchunks = nch;
    r->chunk_index = nch;
    r->buf_at = r->offset;
    r->len = 0;
    r->chunked = 1;
    return RO_SGNS_OK;
}

/* Version 2, read as a stream: the chunk table after the data must match
   the CRCs of the chunks taken. */
static ro_sgns_result ro_sgns__r_check_table(ro_sgns__reader *r)
{
    uint64_t i, bad, at = r->offset;
    uint32_t t = 0, stored, badsum = 0;
    ro_sgns_result rc = RO_SGNS_OK;
    const unsigned char *p;
    ro_sgns__chunks_end(&r->ch);
    bad = r->ch.n; /* none yet */
    if (r->ch.oom)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for the chunk CRCs");
    for (i = 0; i < r->ch.n;) {
        size_t piece = (size_t)(r->ch.n - i < 2048 ? r->ch.n - i : 2048), j;
        p = ro_sgns__r_peek(r, 4 * piece, "the chunk table", &rc);
        if (!p) return rc;
        t = ro_sgns__crc_update(&r->ch.crc, t, p, 4 * piece);
        for (j = 0; j < piece; ++j)
            if (bad == r->ch.n && ro_sgns__get_u32(p + 4 * j) != r->ch.sum[i + j]) {
                bad = i + j;
                badsum = ro_sgns__get_u32(p + 4 * j);
            }
        ro_sgns__r_take(r, 4 * piece, 0);
        i += piece;
    }
    p = ro_sgns__r_peek(r, 4, "the chunk table's CRC", &rc);
    if (!p) return rc;
    stored = ro_sgns__get_u32(p);
    if (stored != t)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "corrupt %s: the chunk table's CRC-32C at offset %llu is "
                             "%08lx, the table gives %08lx", r->name,
                             (unsigned long long)r->offset, (unsigned long)stored,
                             (unsigned long)t);
    ro_sgns__r_take(r, 4, 0);
    if (bad < r->ch.n) {
        uint64_t from = bad * r->ch.size, to = from + r->ch.size;
        if (to > at) to = at;
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "corrupt %s: chunk %llu (offsets %llu to %llu) has CRC-32C "
                             "%08lx, the chunk table says %08lx", r->name,
                             (unsigned long long)bad,
                             (unsigned long long)from, (unsigned long long)(to - 1),
                             (unsigned long)r->ch.sum[bad], (unsigned long)badsum);
    }
    return RO_SGNS_OK;
}

/* Can the source seek (a buffer, or a seekable FILE)? Then a version 2
   file's row range is read in chunk mode. */
static int ro_sgns__r_can_seek(const ro_sgns__reader *r)
{
#ifndef RO_SGNS_NO_STDIO
    if (r->file) return 1;
#endif
    return r->mem != NULL;
}

/* Go on reading at offset off: in chunk mode anywhere ahead; a stream
   reads on where it is, which must be off. */
static void ro_sgns__r_skip_to(ro_sgns__reader *r, uint64_t off)
{
    RO_SGNS_ASSERT(r->chunked || off == r->offset);
    if (r->chunked) r->offset = off;
}

/* The data are read: a buffer must end here (a stream may go on; its
   caller decides). */
static ro_sgns_result ro_sgns__r_at_end(const ro_sgns__reader *r)
{
    if (r->mem && r->offset != r->mem_size)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "%llu trailing bytes after the %s at offset %llu",
                             (unsigned long long)(r->mem_size - r->offset), r->name,
                             (unsigned long long)r->offset);
    return RO_SGNS_OK;
}

#ifndef RO_SGNS_NO_STDIO
/* Has f, the FILE the data were just read from (as a stream or by
   chunks), more bytes after them? */
static int ro_sgns__r_file_more(ro_sgns__reader *r, FILE *f)
{
    unsigned char b;
    if (!r->chunked) return fgetc(f) != EOF;
    return !ro_sgns__fseek_to(f, &r->file_pos, r->offset) && fread(&b, 1, 1, f) == 1;
}
#endif

/* Does a marginal agree with the sum of its terms values rounded to
   float? Each rounding moves a value by at most 2^-24 of it, and the two
   sums in double by at most (terms + 2) eps of the total. */
static int ro_sgns__marginal_ok(double marginal, double sum, uint64_t terms)
{
    double big = marginal > sum ? marginal : sum;
    return RO_SGNS_FABS(marginal - sum) <= (1.2e-7 + (double)(terms + 2) * DBL_EPSILON) * big;
}

/* ======================================================================
   III.3 The counts file (layout: docs/GUIDE.md, section 9)
   Saving writes the header, the vocabulary, the CSR and the marginals
   through III.2's writer, then the chunk table. Loading reads the same in
   named parts (ro_sgns__load_*): header, vocabulary, row_ptr, the pairs of
   the rows wanted (all, by verified chunks, or streamed), the marginals,
   then the checksums and the marginals against the pairs; every check
   fails with RO_SGNS_ERR_FORMAT and the byte offset at fault.
   ====================================================================== */

static uint64_t ro_sgns__word_bytes(const ro_sgns_counts *c)
{
    uint64_t s = 0;
    size_t i;
    for (i = 0; i < c->vocab.n; ++i) s += c->vocab.len[i];
    return s;
}

/* Bytes of a version 2 file's data (before the chunk table), and the
   size of the whole file with chunks of 2^log2 bytes. */
static uint64_t ro_sgns__counts_data_bytes(uint64_t n, uint64_t nnz, uint64_t word_bytes)
{
    return RO_SGNS__COUNTS_HEADER + 12 * n + word_bytes + 8 * (n + 1) + 12 * nnz + 16 * n;
}

static uint64_t ro_sgns__chunked_size(uint64_t data, unsigned log2)
{
    return data + 4 * ((data + ((uint64_t)1 << log2) - 1) >> log2) + 4;
}

/* The same, and a whole matrix (what saving needs). */
static ro_sgns_result ro_sgns__check_counts_whole(const ro_sgns_counts *c, const char *what,
                                                  ro_sgns_error *err)
{
    ro_sgns_result rc = ro_sgns__check_counts_arg(c, err);
    if (rc == RO_SGNS_OK && ro_sgns__counts_ranged(c))
        rc = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                           "%s: the counts hold rows %llu..%llu of %llu, not the whole matrix",
                           what, (unsigned long long)c->row_begin,
                           (unsigned long long)c->row_end, (unsigned long long)c->n);
    return rc;
}

RO_SGNS_DEF uint64_t ro_sgns_counts_saved_size(const ro_sgns_counts *c)
{
    if (ro_sgns__check_counts_whole(c, "", NULL) != RO_SGNS_OK) return 0;
    return ro_sgns__chunked_size(ro_sgns__counts_data_bytes(c->n, c->nnz, ro_sgns__word_bytes(c)),
                                 RO_SGNS__CHUNK_LOG2);
}

/* Save with chunks of 2^log2 bytes (16 in files; the tests use small
   chunks to have many in a small file). */
static ro_sgns_result ro_sgns__counts_save(const ro_sgns_counts *c, ro_sgns_write_fn write,
                                           void *user, unsigned log2, ro_sgns_error *err)
{
    ro_sgns__writer *wr;
    ro_sgns_allocator al;
    const ro_sgns_allocator *a = NULL;
    const ro_sgns_count_config *g;
    unsigned char *h;
    size_t i;
    uint64_t k;
    ro_sgns_result rc = ro_sgns__check_counts_whole(c, "counts_save", err);
    if (rc != RO_SGNS_OK) return rc;
    if (!write) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "write is NULL");
    if (c->has_alloc_) {
        al = c->alloc_;
        a = &al;
    }
    g = &c->config;
    wr = ro_sgns__writer_new(write, user,
                             ro_sgns__counts_data_bytes(c->n, c->nnz, ro_sgns__word_bytes(c)),
                             log2, a, "counts_save", err, &rc);
    if (!wr) return rc;
    h = ro_sgns__w_room(wr, RO_SGNS__COUNTS_HEADER);
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
    ro_sgns__put_u32(h + 112, log2);
    ro_sgns__put_u32(h + 116, ro_sgns__crc_update(&wr->ch->crc, 0, h, 116));
    for (i = 0; i < c->n; ++i) {
        ro_sgns__w_u32(wr, c->vocab.len[i]);
        ro_sgns__w_bytes(wr, c->vocab.word[i], c->vocab.len[i]);
        ro_sgns__w_u64(wr, c->vocab.count[i]);
    }
    for (i = 0; i <= c->n; ++i) ro_sgns__w_u64(wr, c->row_ptr[i]);
    for (k = 0; k < c->nnz; ++k) ro_sgns__w_u32(wr, c->col[k]);
    for (k = 0; k < c->nnz; ++k) ro_sgns__w_f64(wr, c->val[k]);
    for (i = 0; i < c->n; ++i) ro_sgns__w_f64(wr, c->word_count[i]);
    for (i = 0; i < c->n; ++i) ro_sgns__w_f64(wr, c->ctx_count[i]);
    if (ro_sgns__writer_finish(wr, a))
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "writing the counts failed");
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_callback(const ro_sgns_counts *c,
                                                        ro_sgns_write_fn write, void *user,
                                                        ro_sgns_error *err)
{
    return ro_sgns__counts_save(c, write, user, RO_SGNS__CHUNK_LOG2, err);
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

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_memory(const ro_sgns_counts *c, void **out,
                                                      size_t *size,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    ro_sgns__membuf m;
    uint64_t need;
    ro_sgns_result rc = ro_sgns__check_counts_whole(c, "counts_save_memory", err);
    if (rc != RO_SGNS_OK) return rc;
    if (!out || !size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out or size is NULL");
    need = ro_sgns_counts_saved_size(c);
    if (need > (uint64_t)(size_t)-1)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW,
                             "the counts need %llu bytes, more than size_t holds",
                             (unsigned long long)need);
    m.p = (unsigned char *)ro_sgns__malloc(alloc, (size_t)need);
    if (!m.p)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for %llu bytes",
                             (unsigned long long)need);
    m.len = 0;
    m.cap = (size_t)need;
    rc = ro_sgns_counts_save_callback(c, ro_sgns__membuf_write, &m, err);
    if (rc != RO_SGNS_OK) {
        ro_sgns__free(alloc, m.p);
        return rc;
    }
    *out = m.p;
    *size = m.len;
    return rc;
}

/* ---- loading a counts file ---------------------------------------------
   The parts in file order, each checked as read (III.3's banner). The
   pairs of the rows wanted (ro_sgns__load_span): the whole file reads
   them all; a row range of a version 2 file from a seekable source reads
   only its chunks (chunk mode); any other row range reads all and keeps
   its own. Where the bytes come from is the reader's business alone. */

/* The state of one load. */
typedef struct ro_sgns__load_state {
    ro_sgns__reader *r;          /* the source; the version, r->version */
    ro_sgns__mem m;              /* the allocator; the bytes held */
    ro_sgns_counts *c;           /* the counts being built */
    int ranged;                  /* rows [r0, r1) only, else all n */
    size_t r0, r1;
    uint64_t n, nnz, word_bytes; /* from the header */
    size_t hsize;                /* the header's bytes */
    uint32_t log2;               /* version 2: chunks of 2^log2 bytes */
    uint64_t base, end;          /* the pairs kept: entries [base, end) */
    uint64_t lo, hi;             /* the pairs read: entries [lo, hi) */
    uint64_t start, marg_at;     /* the offsets of col[0] and of the marginals */
    double *rowsum, *colsum;     /* the values read, summed by row and column */
} ro_sgns__load_state;

/* The header's fields (h: version 1's 112 bytes or version 2's 120)
   checked, and the rows asked for against n; then the counts made and
   given them. */
static ro_sgns_result ro_sgns__load_fields(ro_sgns__load_state *s, const unsigned char *h)
{
    ro_sgns__reader *r = s->r;
    uint64_t n = ro_sgns__get_u64(h + 16), nnz = ro_sgns__get_u64(h + 24);
    uint64_t word_bytes = ro_sgns__get_u64(h + 48);
    uint32_t flags = ro_sgns__get_u32(h + 12), wnd = ro_sgns__get_u32(h + 56);
    uint32_t dyn = ro_sgns__get_u32(h + 60), cl = ro_sgns__get_u32(h + 88);
    uint32_t cg = ro_sgns__get_u32(h + 92);
    double sample = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 80));
    double total = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 104));
    ro_sgns_counts *c;
    ro_sgns_result rc = RO_SGNS_OK;
    if (flags) return ro_sgns__bad(r, 12, "flags %lu, want 0", (unsigned long)flags);
    if (n == 0 || n > RO_SGNS__MAX_IDS || n > (size_t)-1 / 16)
        return ro_sgns__bad(r, 16, "vocabulary size n = %llu out of range 1..%u",
                            (unsigned long long)n, RO_SGNS__MAX_IDS);
    if (nnz > n * n) return ro_sgns__bad(r, 24, "nnz = %llu > n^2 = %llu", (unsigned long long)nnz,
                                     (unsigned long long)(n * n));
    if (nnz > (size_t)-1 / 16) return ro_sgns__bad(r, 24, "nnz = %llu too large", (unsigned long long)nnz);
    if (word_bytes < n || word_bytes > n * RO_SGNS_MAX_WORD_BYTES)
        return ro_sgns__bad(r, 48, "word bytes %llu, want n .. %d x n",
                            (unsigned long long)word_bytes, RO_SGNS_MAX_WORD_BYTES);
    if (wnd < 1 || wnd > 65535) return ro_sgns__bad(r, 56, "window %lu", (unsigned long)wnd);
    if (dyn > 2) return ro_sgns__bad(r, 60, "dynamic_window %lu", (unsigned long)dyn);
    if (!(sample >= 0) || !ro_sgns__is_finite(sample))
        return ro_sgns__bad(r, 80, "sample is negative or not finite");
    if (cl > 1) return ro_sgns__bad(r, 88, "cross_lines %lu", (unsigned long)cl);
    if (cg > 1) return ro_sgns__bad(r, 92, "close_gaps %lu", (unsigned long)cg);
    if (!(total > 0) || !ro_sgns__is_finite(total))
        return ro_sgns__bad(r, 104, "total is not a positive finite number");
    if (s->ranged && (s->r0 >= s->r1 || s->r1 > n))
        return ro_sgns__fail(r->err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "rows %llu..%llu are not a range of the %llu rows (want 0 <= r0 "
                             "< r1 <= n)", (unsigned long long)s->r0, (unsigned long long)s->r1,
                             (unsigned long long)n);
    c = s->c = ro_sgns__counts_new(&s->m, r->err, &rc);
    if (!c) return rc;
    s->n = n;
    s->nnz = nnz;
    s->word_bytes = word_bytes;
    c->n = (size_t)n;
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
    return RO_SGNS_OK;
}

/* The header, version 1 or 2 (r->version), and its fields; then the
   reader is past it. */
static ro_sgns_result ro_sgns__load_header(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    const unsigned char *h;
    ro_sgns_result rc =
        ro_sgns__r_magic(r, "ROSGNSCT", "counts file", RO_SGNS__COUNTS_HEADER_V1, 2, &h);
    if (rc != RO_SGNS_OK) return rc;
    s->hsize = r->version == 1 ? RO_SGNS__COUNTS_HEADER_V1 : RO_SGNS__COUNTS_HEADER;
    if (r->version == 2) {
        rc = ro_sgns__r_header_v2(r, s->hsize, &h);
        if (rc != RO_SGNS_OK) return rc;
        s->log2 = ro_sgns__get_u32(h + 112);
        if (s->log2 < RO_SGNS__CHUNK_LOG2_MIN || s->log2 > RO_SGNS__CHUNK_LOG2_MAX)
            return ro_sgns__bad(r, 112, "chunks of 2^%lu bytes, want 2^%u to 2^%u",
                                (unsigned long)s->log2, RO_SGNS__CHUNK_LOG2_MIN,
                                RO_SGNS__CHUNK_LOG2_MAX);
    }
    rc = ro_sgns__load_fields(s, h);
    if (rc != RO_SGNS_OK) return rc;
    if (r->version == 2) {
        r->ch.size = (uint64_t)1 << s->log2;
        r->data_bytes = ro_sgns__counts_data_bytes(s->n, s->nnz, s->word_bytes);
    }
    ro_sgns__r_take(r, s->hsize, 1);
    return RO_SGNS_OK;
}

/* The bytes p[0, len) of word i, whose length is at offset at: a token,
   so no byte <= 0x20. */
static ro_sgns_result ro_sgns__load_token(ro_sgns__reader *r, uint64_t i, uint64_t at,
                                          const unsigned char *p, uint32_t len)
{
    uint32_t j;
    for (j = 0; j < len; ++j)
        if (p[j] <= 0x20) {
            char shown[64];
            ro_sgns__escape_word(shown, sizeof shown, p, len);
            return ro_sgns__bad(r, at + 4 + j,
                                "word %llu '%s' has the byte 0x%02x, which separates tokens "
                                "(no byte <= 0x20 is part of a word)%s",
                                (unsigned long long)i, shown, (unsigned)p[j],
                                r->version == 1 ? "; a version 1 file from an older count: "
                                                  "count the corpus again" : "");
        }
    return RO_SGNS_OK;
}

/* The unigram count of word i (at offset at): not 0, not above word
   i - 1's (the vocabulary's order, section 1), the sum of them so far in
   *tokens without overflowing 64 bits. */
static ro_sgns_result ro_sgns__load_count(ro_sgns__load_state *s, size_t i, uint64_t at,
                                          uint64_t *tokens)
{
    const uint64_t *count = s->c->vocab.count;
    if (count[i] == 0)
        return ro_sgns__bad(s->r, at, "word %llu has count 0", (unsigned long long)i);
    if (i > 0 && count[i] > count[i - 1])
        return ro_sgns__bad(s->r, at, "word %llu has count %llu, more than word %llu's %llu "
                            "(the vocabulary is in descending order of count)",
                            (unsigned long long)i, (unsigned long long)count[i],
                            (unsigned long long)(i - 1), (unsigned long long)count[i - 1]);
    if (count[i] > ~(uint64_t)0 - *tokens)
        return ro_sgns__bad(s->r, at, "the counts of words 0..%llu sum beyond 2^64",
                            (unsigned long long)i);
    *tokens += count[i];
    return RO_SGNS_OK;
}

/* The vocabulary: n words, each its length, its bytes (a token) and its
   count (not 0, descending, summing within 64 bits and within the tokens
   read); the bytes as many as the header says; no word twice. */
static ro_sgns_result ro_sgns__load_vocab(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    ro_sgns_counts *c = s->c;
    uint64_t n = s->n, word_bytes = s->word_bytes, sum = 0, k;
    size_t i, cap_w = 0, cap_l = 0, cap_c = 0, cap_a = 0, dup = 0;
    uint64_t tokens = 0;
    ro_sgns_result rc = ro_sgns__r_need(r, n, 12, "the vocabulary");
    if (rc == RO_SGNS_OK) rc = ro_sgns__r_need(r, word_bytes + 12 * n, 1, "the vocabulary");
    if (rc != RO_SGNS_OK) return rc;
    for (i = 0; i < n; ++i) {
        uint64_t at = r->offset;
        uint32_t len;
        const unsigned char *p = ro_sgns__r_peek(r, 4, "a word length", &rc);
        if (!p) return rc;
        len = ro_sgns__get_u32(p);
        if (len < 1 || len > RO_SGNS_MAX_WORD_BYTES)
            return ro_sgns__bad(r, at, "word %llu has length %lu", (unsigned long long)i,
                                (unsigned long)len);
        if (sum + len > word_bytes)
            return ro_sgns__bad(r, at, "words are longer than the header's %llu bytes",
                                (unsigned long long)word_bytes);
        ro_sgns__r_take(r, 4, 1);
        p = ro_sgns__r_peek(r, (size_t)len + 8, "a word", &rc);
        if (!p) return rc;
        rc = ro_sgns__load_token(r, i, at, p, len);
        if (rc != RO_SGNS_OK) return rc;
        c->vocab.word = (char **)ro_sgns__r_grow(r, &s->m, c->vocab.word, &cap_w, i + 1,
                                                 (size_t)n, sizeof(char *), "vocabulary", &rc);
        if (!c->vocab.word) return rc;
        c->vocab.len = (uint32_t *)ro_sgns__r_grow(r, &s->m, c->vocab.len, &cap_l, i + 1,
                                                   (size_t)n, 4, "vocabulary", &rc);
        if (!c->vocab.len) return rc;
        c->vocab.count = (uint64_t *)ro_sgns__r_grow(r, &s->m, c->vocab.count, &cap_c, i + 1,
                                                     (size_t)n, 8, "vocabulary", &rc);
        if (!c->vocab.count) return rc;
        c->vocab.arena_ = (char *)ro_sgns__r_grow(r, &s->m, c->vocab.arena_, &cap_a,
                                                  (size_t)(sum + i + len + 1),
                                                  (size_t)(word_bytes + n), 1, "vocabulary",
                                                  &rc);
        if (!c->vocab.arena_) return rc;
        memcpy(c->vocab.arena_ + sum + i, p, len);
        c->vocab.arena_[sum + i + len] = '\0';
        c->vocab.len[i] = len;
        c->vocab.count[i] = ro_sgns__get_u64(p + len);
        rc = ro_sgns__load_count(s, i, at + 4 + len, &tokens);
        if (rc != RO_SGNS_OK) return rc;
        sum += len;
        ro_sgns__r_take(r, (size_t)len + 8, 1);
    }
    if (sum != word_bytes)
        return ro_sgns__bad(r, 48, "header says %llu word bytes, the words have %llu",
                            (unsigned long long)word_bytes, (unsigned long long)sum);
    /* the vocabulary's words are among the tokens and the distinct words
       read (0 and 0: not recorded, counts not made by counting) */
    if ((c->corpus_tokens || c->distinct_words) &&
        (tokens > c->corpus_tokens || n > c->distinct_words ||
         c->distinct_words > c->corpus_tokens))
        return ro_sgns__bad(r, 32, "corpus_tokens %llu and distinct_words %llu do not hold the "
                            "vocabulary's %llu words and %llu tokens",
                            (unsigned long long)c->corpus_tokens,
                            (unsigned long long)c->distinct_words, (unsigned long long)n,
                            (unsigned long long)tokens);
    c->vocab.n = (size_t)n;
    c->vocab.arena_size_ = (size_t)(word_bytes + n);
    /* the arena may have moved while growing: pointers only now */
    for (i = 0, k = 0; i < n; ++i) {
        c->vocab.word[i] = c->vocab.arena_ + k;
        k += c->vocab.len[i] + 1;
    }
    rc = ro_sgns__vocab_index(&c->vocab, &s->m, &dup, r->err);
    if (rc == RO_SGNS_ERR_FORMAT) {
        uint64_t at = s->hsize + 12 * (uint64_t)dup +
                      (uint64_t)(c->vocab.word[dup] - c->vocab.arena_) - dup;
        rc = ro_sgns__bad(r, at, "word %llu repeats an earlier word", (unsigned long long)dup);
    }
    return rc;
}

/* row_ptr, all of it (a range needs its bounds): from 0, never falling,
   to nnz. */
static ro_sgns_result ro_sgns__load_row_ptr(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    ro_sgns_counts *c = s->c;
    uint64_t n = s->n, nnz = s->nnz, prev = 0;
    size_t i, cap_r = 0;
    ro_sgns_result rc = ro_sgns__r_need(r, n + 1, 8, "row_ptr");
    if (rc != RO_SGNS_OK) return rc;
    for (i = 0; i <= n;) {
        size_t j, m8 = (size_t)(n + 1 - i) < RO_SGNS__IO_BUF / 8 ? (size_t)(n + 1 - i)
                                                                 : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "row_ptr", &rc);
        if (!p) return rc;
        c->row_ptr = (uint64_t *)ro_sgns__r_grow(r, &s->m, c->row_ptr, &cap_r, i + m8,
                                                 (size_t)n + 1, 8, "row_ptr", &rc);
        if (!c->row_ptr) return rc;
        for (j = 0; j < m8; ++j) {
            uint64_t x = ro_sgns__get_u64(p + 8 * j);
            if ((i + j == 0 && x != 0) || x < prev || x > nnz || (i + j == n && x != nnz))
                return ro_sgns__bad(r, r->offset + 8 * j,
                                    "row_ptr[%llu] = %llu is out of order or range",
                                    (unsigned long long)(i + j), (unsigned long long)x);
            c->row_ptr[i + j] = prev = x;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        i += m8;
    }
    return RO_SGNS_OK;
}

/* The pairs to keep, those of the rows wanted: entries [base, end). Those
   to read: the same in chunk mode, else all of them. row_ptr is read and
   the reader at col[0]. */
static void ro_sgns__load_span(ro_sgns__load_state *s)
{
    const uint64_t *row_ptr = s->c->row_ptr;
    s->base = row_ptr[s->ranged ? s->r0 : 0];
    s->end = row_ptr[s->ranged ? s->r1 : (size_t)s->n];
    s->lo = s->r->chunked ? s->base : 0;
    s->hi = s->r->chunked ? s->end : s->nnz;
    s->start = s->r->offset;
    s->marg_at = s->start + 12 * s->nnz;
}

/* col of the pairs read: each < n and, within its row, above the one
   before. */
static ro_sgns_result ro_sgns__load_col(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    ro_sgns_counts *c = s->c;
    uint64_t n = s->n, base = s->base, end = s->end, hi = s->hi, k;
    size_t row = 0, cap_col = 0;
    uint32_t prev_col = 0;
    ro_sgns_result rc = ro_sgns__r_need(r, s->nnz, 12, "col and val");
    if (rc != RO_SGNS_OK) return rc;
    ro_sgns__r_skip_to(r, s->start + 4 * s->lo);
    for (k = s->lo; k < hi;) {
        size_t j, m4 = hi - k < RO_SGNS__IO_BUF / 4 ? (size_t)(hi - k) : RO_SGNS__IO_BUF / 4;
        const unsigned char *p = ro_sgns__r_peek(r, 4 * m4, "col", &rc);
        if (!p) return rc;
        if (k + m4 > base && k < end) {
            size_t need = (size_t)((k + m4 < end ? k + m4 : end) - base);
            c->col = (uint32_t *)ro_sgns__r_grow(r, &s->m, c->col, &cap_col, need,
                                                 (size_t)(end - base), 4, "col", &rc);
            if (!c->col) return rc;
        }
        for (j = 0; j < m4; ++j) {
            uint64_t kk = k + j;
            uint32_t x = ro_sgns__get_u32(p + 4 * j);
            while (c->row_ptr[row + 1] <= kk) ++row;
            if (x >= n || (kk > c->row_ptr[row] && x <= prev_col))
                return ro_sgns__bad(r, r->offset + 4 * j,
                                    "col[%llu] = %lu is out of range or order",
                                    (unsigned long long)kk, (unsigned long)x);
            prev_col = x;
            if (kk >= base && kk < end) c->col[kk - base] = x;
        }
        ro_sgns__r_take(r, 4 * m4, 1);
        k += m4;
    }
    return RO_SGNS_OK;
}

/* val of the pairs read (f64 in the file, float in memory): each a
   positive float. Summed by row, and by column when every column is
   known (the whole matrix), for the check of the marginals. */
static ro_sgns_result ro_sgns__load_val(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    ro_sgns_counts *c = s->c;
    uint64_t base = s->base, end = s->end, hi = s->hi, k;
    size_t row = 0, cap_val = 0;
    double *rowsum, *colsum = NULL;
    ro_sgns_result rc = RO_SGNS_OK;
    rowsum = s->rowsum = (double *)ro_sgns__mem_alloc(&s->m, (size_t)s->n, sizeof(double),
                                                      "row sums", r->err, &rc);
    if (!rowsum) return rc;
    memset(rowsum, 0, (size_t)s->n * sizeof(double));
    if (!s->ranged) {
        colsum = s->colsum = (double *)ro_sgns__mem_alloc(&s->m, (size_t)s->n, sizeof(double),
                                                          "column sums", r->err, &rc);
        if (!colsum) return rc;
        memset(colsum, 0, (size_t)s->n * sizeof(double));
    }
    ro_sgns__r_skip_to(r, s->start + 4 * s->nnz + 8 * s->lo);
    for (k = s->lo; k < hi;) {
        size_t j, m8 = hi - k < RO_SGNS__IO_BUF / 8 ? (size_t)(hi - k) : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "val", &rc);
        if (!p) return rc;
        if (k + m8 > base && k < end) {
            size_t need = (size_t)((k + m8 < end ? k + m8 : end) - base);
            c->val = (float *)ro_sgns__r_grow(r, &s->m, c->val, &cap_val, need,
                                              (size_t)(end - base), sizeof(float), "val", &rc);
            if (!c->val) return rc;
        }
        for (j = 0; j < m8; ++j) {
            uint64_t kk = k + j;
            double x = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8 * j));
            /* range first: converting a double beyond FLT_MAX is undefined */
            float f = x > 0 && x <= FLT_MAX ? (float)x : 0.0f;
            if (!(f > 0))
                return ro_sgns__bad(r, r->offset + 8 * j,
                                    "val[%llu] = %g is not a positive finite number a float "
                                    "holds (0 < val <= %g, not rounding to 0)",
                                    (unsigned long long)kk, x, (double)FLT_MAX);
            while (c->row_ptr[row + 1] <= kk) ++row;
            rowsum[row] += (double)f;
            if (colsum) colsum[c->col[kk]] += (double)f;
            if (kk >= base && kk < end) c->val[kk - base] = f;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        k += m8;
    }
    return RO_SGNS_OK;
}

/* word_count, then ctx_count: each >= 0 and finite. */
static ro_sgns_result ro_sgns__load_marginals(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    ro_sgns_counts *c = s->c;
    uint64_t n = s->n, k;
    size_t cap_wc = 0, cap_cc = 0;
    ro_sgns_result rc;
    ro_sgns__r_skip_to(r, s->marg_at);
    rc = ro_sgns__r_need(r, 2 * n + 1, 8, "the marginals");
    if (rc != RO_SGNS_OK) return rc;
    for (k = 0; k < 2 * n;) {
        size_t j, m8 = 2 * n - k < RO_SGNS__IO_BUF / 8 ? (size_t)(2 * n - k) : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "the marginals", &rc);
        if (!p) return rc;
        for (j = 0; j < m8; ++j) {
            uint64_t kk = k + j;
            double x = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8 * j));
            double *dst;
            if (!(x >= 0) || !ro_sgns__is_finite(x))
                return ro_sgns__bad(r, r->offset + 8 * j,
                                    "marginal %llu is negative or not finite",
                                    (unsigned long long)kk);
            if (kk < n) {
                c->word_count = (double *)ro_sgns__r_grow(r, &s->m, c->word_count, &cap_wc,
                                                          (size_t)kk + 1, (size_t)n, 8,
                                                          "word_count", &rc);
                if (!c->word_count) return rc;
                dst = c->word_count + kk;
            } else {
                c->ctx_count = (double *)ro_sgns__r_grow(r, &s->m, c->ctx_count, &cap_cc,
                                                         (size_t)(kk - n) + 1, (size_t)n, 8,
                                                         "ctx_count", &rc);
                if (!c->ctx_count) return rc;
                dst = c->ctx_count + (kk - n);
            }
            *dst = x;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        k += m8;
    }
    return RO_SGNS_OK;
}

/* Version 1's checksum, after the data: of every byte before it. */
static ro_sgns_result ro_sgns__load_checksum_v1(ro_sgns__reader *r)
{
    uint64_t want = ro_sgns__ck_final(&r->ck), got;
    ro_sgns_result rc = RO_SGNS_OK;
    const unsigned char *p = ro_sgns__r_peek(r, 8, "the checksum", &rc);
    if (!p) return rc;
    got = ro_sgns__get_u64(p);
    if (got != want)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "corrupt counts: checksum at offset %llu is %016llx, the data "
                             "before it gives %016llx", (unsigned long long)r->offset,
                             (unsigned long long)got, (unsigned long long)want);
    ro_sgns__r_take(r, 8, 0);
    return RO_SGNS_OK;
}

/* The checksums: in chunk mode every byte used came from a verified chunk
   (and the table was checked on the way in), so the reader skips to the
   end of the file; a version 2 stream has its chunks' CRCs compared with
   the table; version 1 its one checksum. Then the input must end. */
static ro_sgns_result ro_sgns__load_verify(ro_sgns__load_state *s)
{
    ro_sgns__reader *r = s->r;
    ro_sgns_result rc = RO_SGNS_OK;
    if (r->chunked) ro_sgns__r_skip_to(r, ro_sgns__chunked_size(r->data_bytes, s->log2));
    else if (r->version == 2) rc = ro_sgns__r_check_table(r);
    else rc = ro_sgns__load_checksum_v1(r);
    return rc == RO_SGNS_OK ? ro_sgns__r_at_end(r) : rc;
}

/* The marginals against the pairs read (a file can be intact and still
   wrong: #(w) = 0 for a word with pairs would end in a NaN): #(w) of the
   rows whose pairs were all read, #(c) when every row was, |D| against
   the sums of both. */
static ro_sgns_result ro_sgns__load_check_marginals(const ro_sgns__load_state *s)
{
    const ro_sgns_counts *c = s->c;
    const double *rowsum = s->rowsum, *colsum = s->colsum;
    uint64_t n = s->n;
    size_t i, w0 = s->r->chunked ? s->r0 : 0, w1 = s->r->chunked ? s->r1 : (size_t)n;
    double total = c->total, swc = 0, scc = 0;
    for (i = w0; i < w1; ++i)
        if (!ro_sgns__marginal_ok(c->word_count[i], rowsum[i],
                                  c->row_ptr[i + 1] - c->row_ptr[i]))
            return ro_sgns__bad(s->r, s->marg_at + 8 * (uint64_t)i,
                                "#(w) of word %llu is %.9g, its pairs sum to %.9g",
                                (unsigned long long)i, c->word_count[i], rowsum[i]);
    for (i = 0; colsum && i < n; ++i)
        if (!ro_sgns__marginal_ok(c->ctx_count[i], colsum[i], s->nnz))
            return ro_sgns__bad(s->r, s->marg_at + 8 * (n + (uint64_t)i),
                                "#(c) of context %llu is %.9g, its pairs sum to %.9g",
                                (unsigned long long)i, c->ctx_count[i], colsum[i]);
    for (i = 0; i < n; ++i) {
        swc += c->word_count[i];
        scc += c->ctx_count[i];
    }
    if (RO_SGNS_FABS(swc - total) > (double)(n + 2) * DBL_EPSILON * total ||
        RO_SGNS_FABS(scc - total) > (double)(n + 2) * DBL_EPSILON * total)
        return ro_sgns__bad(s->r, 104,
                            "|D| = %.17g, but the #(w) sum to %.17g and the #(c) to %.17g",
                            total, swc, scc);
    return RO_SGNS_OK;
}

/* Load a counts file, whole (ranged = 0) or rows [r0, r1). */
static ro_sgns_result ro_sgns__load(ro_sgns__reader *r, ro_sgns_counts **out,
                                    const ro_sgns_allocator *alloc, int ranged, size_t r0,
                                    size_t r1)
{
    ro_sgns__load_state s;
    ro_sgns_counts *c;
    ro_sgns_result rc;
    size_t i;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.m.al = alloc;
    s.ranged = ranged;
    s.r0 = r0;
    s.r1 = r1;
    rc = ro_sgns__load_header(&s);
    /* a version 2 row range from a source that can seek: by chunks */
    if (rc == RO_SGNS_OK && ranged && r->version == 2 && ro_sgns__r_can_seek(r))
        rc = ro_sgns__r_enter_chunks(r);
    if (rc == RO_SGNS_OK) rc = ro_sgns__load_vocab(&s);
    if (rc == RO_SGNS_OK) rc = ro_sgns__load_row_ptr(&s);
    if (rc == RO_SGNS_OK) {
        ro_sgns__load_span(&s);
        rc = ro_sgns__load_col(&s);
    }
    if (rc == RO_SGNS_OK) rc = ro_sgns__load_val(&s);
    if (rc == RO_SGNS_OK) rc = ro_sgns__load_marginals(&s);
    if (rc == RO_SGNS_OK) rc = ro_sgns__load_verify(&s);
    if (rc == RO_SGNS_OK) rc = ro_sgns__load_check_marginals(&s);
    ro_sgns__mem_free(&s.m, s.rowsum, (size_t)s.n, sizeof(double));
    ro_sgns__mem_free(&s.m, s.colsum, (size_t)s.n, sizeof(double));
    c = s.c;
    if (rc != RO_SGNS_OK) {
        ro_sgns_counts_free(c);
        return rc;
    }
    /* a range: row_ptr from 0 for the rows held */
    if (ranged) {
        for (i = 0; i <= r1 - r0; ++i) c->row_ptr[i] = c->row_ptr[r0 + i] - s.base;
        c->row_begin = r0;
        c->row_end = r1;
    } else {
        c->row_begin = 0;
        c->row_end = (size_t)s.n;
    }
    c->nnz = s.end - s.base;
    c->peak_bytes = 0;
    *out = c;
    return ro_sgns__ok(r->err);
}

/* Load from memory, whole (ranged = 0) or rows [r0, r1). */
static ro_sgns_result ro_sgns__load_memory(const void *data, size_t size, int ranged, size_t r0,
                                           size_t r1, ro_sgns_counts **out,
                                           const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__reader *r;
    ro_sgns_result rc;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    if (!data && size) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "data is NULL");
    r = ro_sgns__reader_new(alloc, err);
    if (!r) return RO_SGNS_ERR_OUT_OF_MEMORY;
    r->mem = data ? (const unsigned char *)data : (const unsigned char *)"";
    r->mem_size = size;
    rc = ro_sgns__load(r, out, alloc, ranged, r0, r1);
    ro_sgns__reader_free(r);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_memory(const void *data, size_t size,
                                                      ro_sgns_counts **out,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    return ro_sgns__load_memory(data, size, 0, 0, 0, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_rows_memory(const void *data, size_t size,
                                                           size_t r0, size_t r1,
                                                           ro_sgns_counts **out,
                                                           const ro_sgns_allocator *alloc,
                                                           ro_sgns_error *err)
{
    return ro_sgns__load_memory(data, size, 1, r0, r1, out, alloc, err);
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
    r = ro_sgns__reader_new(alloc, err);
    if (!r) return RO_SGNS_ERR_OUT_OF_MEMORY;
    r->fn = read;
    r->user = user;
    rc = ro_sgns__load(r, out, alloc, 0, 0, 0);
    ro_sgns__reader_free(r);
    return rc;
}

#ifndef RO_SGNS_NO_STDIO
static ro_sgns_result ro_sgns__counts_emit(const void *obj, ro_sgns_write_fn write, void *user,
                                           ro_sgns_error *err)
{
    return ro_sgns_counts_save_callback((const ro_sgns_counts *)obj, write, user, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_save_path(const ro_sgns_counts *c, const char *path,
                                                    ro_sgns_error *err)
{
    ro_sgns_allocator al;
    ro_sgns_result rc = ro_sgns__check_counts_whole(c, "counts_save_path", err);
    if (rc != RO_SGNS_OK) return rc;
    al = c->alloc_;
    return ro_sgns__save_atomic(path, ro_sgns__counts_emit, c, c->has_alloc_ ? &al : NULL, err);
}

/* Rows of a counts file from f (ranged = 0: the whole file). With
   whole_file, bytes after the counts are an error. */
static ro_sgns_result ro_sgns__load_stdio(FILE *f, int ranged, size_t r0, size_t r1,
                                          int whole_file, ro_sgns_counts **out,
                                          const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__reader *r = ro_sgns__reader_new(alloc, err);
    ro_sgns_counts *c = NULL;
    ro_sgns_result rc;
    if (!r) return RO_SGNS_ERR_OUT_OF_MEMORY;
    r->fn = ro_sgns__fread_fn;
    r->user = f;
    if (ranged && fseek(f, 0, SEEK_CUR) == 0) r->file = f; /* it can seek */
    rc = ro_sgns__load(r, &c, alloc, ranged, r0, r1);
    if (rc == RO_SGNS_OK && whole_file && ro_sgns__r_file_more(r, f)) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                           "trailing bytes after the counts at offset %llu",
                           (unsigned long long)r->offset);
        ro_sgns_counts_free(c);
        c = NULL;
    }
    ro_sgns__reader_free(r);
    if (rc == RO_SGNS_OK) *out = c;
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_rows_file(FILE *f, size_t r0, size_t r1,
                                                         ro_sgns_counts **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    if (!f || !out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "f or out is NULL");
    return ro_sgns__load_stdio(f, 1, r0, r1, 0, out, alloc, err);
}

/* Open path, load whole or a range, and name the file in any error. */
static ro_sgns_result ro_sgns__load_counts_path(const char *path, int ranged, size_t r0,
                                                size_t r1, ro_sgns_counts **out,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    FILE *f;
    ro_sgns_result rc;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "path is NULL");
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "out is NULL");
    f = fopen(path, "rb");
    if (!f) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open for reading: %s", strerror(errno));
    } else {
        rc = ro_sgns__load_stdio(f, ranged, r0, r1, 1, out, alloc, err);
        fclose(f);
    }
    if (rc != RO_SGNS_OK) ro_sgns__name_file(err, path);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_path(const char *path, ro_sgns_counts **out,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err)
{
    return ro_sgns__load_counts_path(path, 0, 0, 0, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_counts_load_rows_path(const char *path, size_t r0,
                                                         size_t r1, ro_sgns_counts **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    return ro_sgns__load_counts_path(path, 1, r0, r1, out, alloc, err);
}
#endif

/* ======================================================================
   III.4 Checkpoints (layout: docs/GUIDE.md, section 9)
   Values go through f64 bits, byte by byte, so a file reads back
   identically on any host; the writer, the reader and the chunk table are
   the counts file's (III.2).
   ====================================================================== */

#define RO_SGNS__FX_MAGIC "ROSGNSFX"
#define RO_SGNS__FX_HEADER 96u    /* version 2 */
#define RO_SGNS__FX_HEADER_V1 56u /* version 1 */

/* Version 1's check of its 56-byte header (bytes 12-15 excluded). */
static uint32_t ro_sgns__fx_header_check(const unsigned char *h)
{
    ro_sgns__ck ck;
    ro_sgns__ck_init(&ck);
    ro_sgns__ck_update(&ck, h, 12);
    ro_sgns__ck_update(&ck, h + 16, 40);
    /* fold: the multiply carries a change only upward, so the high half
       matters as much as the low one */
    return (uint32_t)(ro_sgns__ck_final(&ck) >> 32) ^ (uint32_t)ro_sgns__ck_final(&ck);
}

#define RO_SGNS__FX_RUN 48u /* a run record's fixed part (version 3) */

/* count reals as f64. */
static void ro_sgns__fx_put_reals(ro_sgns__writer *wr, const ro_sgns_real *x, size_t count)
{
    size_t i;
    for (i = 0; i < count; ++i) ro_sgns__w_f64(wr, (double)x[i]);
}

/* U, S and V as f64. */
static void ro_sgns__fx_put_values(ro_sgns__writer *wr, const ro_sgns_factors *f)
{
    ro_sgns__fx_put_reals(wr, f->U, f->n * f->d);
    ro_sgns__fx_put_reals(wr, f->S, f->d * f->d);
    ro_sgns__fx_put_reals(wr, f->V, f->m * f->d);
}

/* A run record fit to save with point f (NULL: none, stage SGD)? */
static ro_sgns_result ro_sgns__fx_run_check(const ro_sgns_factors *f,
                                            const ro_sgns_run_record *run, ro_sgns_error *err)
{
    size_t i, nd;
    int of = 0;
    if (run->stage < RO_SGNS_RUN_SGD || run->stage > RO_SGNS_RUN_DONE ||
        (!f) != (run->stage == RO_SGNS_RUN_SGD) || (run->stage == RO_SGNS_RUN_SGD && !run->rows) ||
        (run->rows && (!run->W || !run->C)) || (f && run->rows && run->d != f->d) ||
        run->d < 1 || run->d > 100000 || run->rows > 0xFFFFFFFFu ||
        !ro_sgns__is_finite(run->last_gain))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "factors_save: run record stage %d, %lu x %lu rows (W %s, C %s), "
                             "last gain %g, %s point", run->stage, (unsigned long)run->rows,
                             (unsigned long)run->d, run->W ? "given" : "NULL",
                             run->C ? "given" : "NULL", run->last_gain, f ? "a" : "no");
    nd = ro_sgns__mul(run->rows, run->d, &of);
    for (i = 0; i < nd && !of; ++i)
        if (!ro_sgns__is_finite((double)run->W[i]) || !ro_sgns__is_finite((double)run->C[i]))
            return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                                 "factors_save: NaN or Inf in the run record's rows");
    return RO_SGNS_OK;
}

/* Save with chunks of 2^log2 bytes (16 in files); with best (not NULL),
   the best point and its score after V (flags bit 0); with a run record
   (run not NULL; version 3), the record after them (flags bit 1), f NULL
   for a record of the SGD stage. */
static ro_sgns_result ro_sgns__factors_save(const ro_sgns_factors *f, const ro_sgns_factors *best,
                                            double score, const ro_sgns_run_record *run,
                                            ro_sgns_write_fn write, void *user, unsigned log2,
                                            ro_sgns_error *err)
{
    const ro_sgns_allocator *al;
    ro_sgns__writer *wr;
    unsigned char *h;
    uint64_t values, rvals;
    ro_sgns_factors none;
    ro_sgns_result rc = RO_SGNS_OK;
    if (run && (rc = ro_sgns__fx_run_check(f, run, err)) != RO_SGNS_OK) return rc;
    if (!f && run && !best) { /* the SGD stage: no point, d the rows' */
        memset(&none, 0, sizeof none);
        none.d = run->d;
        none.cds = 1;
        none.U = none.S = none.V = (ro_sgns_real *)run->W; /* none read: 0 x d */
        f = &none;
    }
    if (!f || !write || !f->U || !f->S || !f->V || (best && (!best->U || !best->S || !best->V)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_save: NULL");
    if (best && (best->n != f->n || best->m != f->m || best->d != f->d ||
                 !ro_sgns__is_finite(score) || !ro_sgns__is_finite(best->next_step)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "factors_save: the best point is %lu x %lu x %lu (the point's "
                             "%lu x %lu x %lu), its score %g",
                             (unsigned long)best->n, (unsigned long)best->m,
                             (unsigned long)best->d, (unsigned long)f->n, (unsigned long)f->m,
                             (unsigned long)f->d, score);
    al = f->has_alloc_ ? &f->alloc_ : NULL;
    values = f == &none ? 0 : (uint64_t)f->n * f->d + (uint64_t)f->d * f->d + (uint64_t)f->m * f->d;
    rvals = run ? 2 * (uint64_t)run->rows * run->d : 0;
    wr = ro_sgns__writer_new(write, user,
                             RO_SGNS__FX_HEADER + 8 * values + (best ? 24 + 8 * values : 0) +
                                 (run ? RO_SGNS__FX_RUN + 8 * rvals : 0),
                             log2, al, "factors_save", err, &rc);
    if (!wr) return rc;
    h = ro_sgns__w_room(wr, RO_SGNS__FX_HEADER);
    memcpy(h, RO_SGNS__FX_MAGIC, 8);
    ro_sgns__put_u32(h + 8, run ? 3u : 2u);
    ro_sgns__put_u32(h + 12, (best ? 1u : 0u) | (run ? 2u : 0u));
    ro_sgns__put_u64(h + 16, f->n);
    ro_sgns__put_u64(h + 24, f->m);
    ro_sgns__put_u64(h + 32, f->d);
    ro_sgns__put_u64(h + 40, f->iteration);
    ro_sgns__put_u64(h + 48, ro_sgns__f64_bits(f->next_step));
    ro_sgns__put_u64(h + 56, f->counts_fingerprint);
    ro_sgns__put_u64(h + 64, ro_sgns__f64_bits(f->k));
    ro_sgns__put_u64(h + 72, ro_sgns__f64_bits(f->cds));
    ro_sgns__put_u32(h + 80, f->window > 0 ? (uint32_t)f->window : 0u);
    ro_sgns__put_u32(h + 84, log2);
    ro_sgns__put_u32(h + 88, run ? (uint32_t)run->rows : 0u); /* under the header's CRC */
    ro_sgns__put_u32(h + 92, ro_sgns__crc_update(&wr->ch->crc, 0, h, 92));
    if (f != &none) ro_sgns__fx_put_values(wr, f);
    if (best) {
        ro_sgns__w_u64(wr, best->iteration);
        ro_sgns__w_f64(wr, best->next_step);
        ro_sgns__w_f64(wr, score);
        ro_sgns__fx_put_values(wr, best);
    }
    if (run) {
        ro_sgns__w_u32(wr, (uint32_t)run->stage);
        ro_sgns__w_u32(wr, 0);
        ro_sgns__w_f64(wr, run->last_gain);
        ro_sgns__w_u64(wr, run->fingerprint);
        ro_sgns__w_u64(wr, run->round);
        ro_sgns__w_u64(wr, run->words);
        ro_sgns__w_u64(wr, run->rows);
        if (run->rows) {
            ro_sgns__fx_put_reals(wr, run->W, run->rows * run->d);
            ro_sgns__fx_put_reals(wr, run->C, run->rows * run->d);
        }
    }
    if (ro_sgns__writer_finish(wr, al))
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "factors_save: a write failed");
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_callback(const ro_sgns_factors *f,
                                                         ro_sgns_write_fn write, void *user,
                                                         ro_sgns_error *err)
{
    return ro_sgns__factors_save(f, NULL, 0, NULL, write, user, RO_SGNS__CHUNK_LOG2, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_best_callback(const ro_sgns_factors *f,
                                                              const ro_sgns_factors *best,
                                                              double score,
                                                              ro_sgns_write_fn write,
                                                              void *user, ro_sgns_error *err)
{
    return ro_sgns__factors_save(f, best, score, NULL, write, user, RO_SGNS__CHUNK_LOG2, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_run_callback(const ro_sgns_factors *f,
                                                             const ro_sgns_factors *best,
                                                             double score,
                                                             const ro_sgns_run_record *run,
                                                             ro_sgns_write_fn write, void *user,
                                                             ro_sgns_error *err)
{
    if (!run) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_save: run is NULL");
    return ro_sgns__factors_save(f, best, score, run, write, user, RO_SGNS__CHUNK_LOG2, err);
}

/* A checkpoint's header, version 1 to 3 (r->version), checked; *out made
   of its sizes and given the rest (NULL: a version 3 file of no point,
   n = m = 0), *d its d, *flags its flags (bit 0: a best point follows V;
   bit 1, version 3: a run record follows); then the reader is past it. */
static ro_sgns_result ro_sgns__fx_header(ro_sgns__reader *r, ro_sgns_factors **out,
                                         uint64_t *dd, uint32_t *flags, uint32_t *rows,
                                         const ro_sgns_allocator *alloc)
{
    const unsigned char *h;
    ro_sgns_factors *f;
    uint64_t n, m, d;
    uint32_t window = 0, log2 = 0;
    double step, k = 0, cds = 0;
    size_t hsize;
    ro_sgns_result res = ro_sgns__r_magic(r, RO_SGNS__FX_MAGIC, "checkpoint",
                                          RO_SGNS__FX_HEADER_V1, 3, &h);
    if (res != RO_SGNS_OK) return res;
    if (r->version == 1) {
        hsize = RO_SGNS__FX_HEADER_V1;
        if (ro_sgns__get_u32(h + 12) != ro_sgns__fx_header_check(h))
            return ro_sgns__bad(r, 12, "the header check does not match the header");
    } else {
        hsize = RO_SGNS__FX_HEADER;
        res = ro_sgns__r_header_v2(r, hsize, &h);
        if (res != RO_SGNS_OK) return res;
        *flags = ro_sgns__get_u32(h + 12);
        *rows = ro_sgns__get_u32(h + 88); /* version 3: the run record's rows */
        if ((*flags & ~(r->version == 3 ? 3u : 1u)) != 0 || (r->version == 2 && *rows != 0) ||
            (r->version == 3 && !(*flags & 2u)))
            return ro_sgns__bad(r, 12, "reserved bytes are not 0");
        k = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 64));
        cds = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 72));
        window = ro_sgns__get_u32(h + 80);
        log2 = ro_sgns__get_u32(h + 84);
        if (!(k >= 0) || !ro_sgns__is_finite(k) || !(cds >= 0) || !ro_sgns__is_finite(cds) ||
            window > 65535)
            return ro_sgns__bad(r, 64, "k %g, cds %g or window %lu out of range", k, cds,
                                (unsigned long)window);
        if (log2 < RO_SGNS__CHUNK_LOG2_MIN || log2 > RO_SGNS__CHUNK_LOG2_MAX)
            return ro_sgns__bad(r, 84, "chunks of 2^%lu bytes, want 2^%u to 2^%u",
                                (unsigned long)log2, RO_SGNS__CHUNK_LOG2_MIN,
                                RO_SGNS__CHUNK_LOG2_MAX);
        /* what a resume compares is recorded whole or not at all: a step
           on a problem from counts sets k, window and the fingerprint
           together; one from a bare CSR matrix (no counts) sets k alone;
           a start point none. cds is never 0 (ro_sgns_factors_create
           starts it at 1). A part of it zeroed would make
           ro_sgns_factors_check_resume skip it. */
        if ((window == 0) != (ro_sgns__get_u64(h + 56) == 0) ||
            (window != 0 && k == 0) || !(cds > 0))
            return ro_sgns__bad(r, 56, "k %g, window %lu, cds %g, counts fingerprint %016llx: "
                                "recorded in part (the window and the fingerprint are both "
                                "0 or neither, and with them k; cds > 0)", k,
                                (unsigned long)window, cds,
                                (unsigned long long)ro_sgns__get_u64(h + 56));
        r->ch.size = (uint64_t)1 << log2;
    }
    n = ro_sgns__get_u64(h + 16);
    m = ro_sgns__get_u64(h + 24);
    d = ro_sgns__get_u64(h + 32);
    step = ro_sgns__f64_from_bits(ro_sgns__get_u64(h + 48));
    *dd = d;
    if (r->version == 3 && n == 0 && m == 0 && d >= 1 && d <= 100000 && !(*flags & 1u) &&
        step == 0 && ro_sgns__get_u64(h + 40) == 0 && ro_sgns__get_u64(h + 56) == 0) {
        ro_sgns__r_take(r, hsize, 1); /* no point: the SGD stage's record */
        *out = NULL;
        return RO_SGNS_OK;
    }
    if (d == 0 || n < d || m < d || n > 0xFFFFFFFFu || m > 0xFFFFFFFFu || d > 100000 ||
        !(step >= 0) || !ro_sgns__is_finite(step))
        return ro_sgns__bad(r, 16, "sizes n = %llu, m = %llu, d = %llu or next step %g out of "
                            "range", (unsigned long long)n, (unsigned long long)m,
                            (unsigned long long)d, step);
    res = ro_sgns_factors_create((size_t)n, (size_t)m, (size_t)d, &f, alloc, r->err);
    if (res != RO_SGNS_OK) return res;
    f->iteration = ro_sgns__get_u64(h + 40);
    f->next_step = step;
    f->counts_fingerprint = r->version >= 2 ? ro_sgns__get_u64(h + 56) : 0;
    f->k = k;
    f->cds = cds;
    f->window = (int)window;
    ro_sgns__r_take(r, hsize, 1);
    *out = f;
    return RO_SGNS_OK;
}

/* total f64 values, each finite and within the real type, into to (NULL:
   checked and dropped). */
static ro_sgns_result ro_sgns__fx_reals(ro_sgns__reader *r, uint64_t total, ro_sgns_real *to)
{
    uint64_t idx;
    ro_sgns_result res = RO_SGNS_OK;
    for (idx = 0; idx < total;) {
        size_t j, m8 = total - idx < RO_SGNS__IO_BUF / 8 ? (size_t)(total - idx)
                                                         : RO_SGNS__IO_BUF / 8;
        const unsigned char *p = ro_sgns__r_peek(r, 8 * m8, "the factors", &res);
        if (!p) return res;
        for (j = 0; j < m8; ++j) {
            uint64_t e = idx + j;
            double v = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8 * j));
            if (!ro_sgns__is_finite(v)) return ro_sgns__bad(r, r->offset + 8 * j, "NaN or Inf");
            /* a value the real type cannot hold would load as Inf (and
               converting it is undefined) */
            if (sizeof(ro_sgns_real) < sizeof(double) && (v > FLT_MAX || v < -FLT_MAX))
                return ro_sgns__bad(r, r->offset + 8 * j, "%g is beyond the float range", v);
            if (to) to[e] = (ro_sgns_real)v;
        }
        ro_sgns__r_take(r, 8 * m8, 1);
        idx += m8;
    }
    return RO_SGNS_OK;
}

/* U, S and V of a point of f's sizes, each value finite, into to (NULL:
   checked and dropped). */
static ro_sgns_result ro_sgns__fx_values(ro_sgns__reader *r, const ro_sgns_factors *f,
                                         ro_sgns_factors *to)
{
    const uint64_t n = f->n, d = f->d;
    ro_sgns_result res = ro_sgns__fx_reals(r, n * d, to ? to->U : NULL);
    if (res == RO_SGNS_OK) res = ro_sgns__fx_reals(r, d * d, to ? to->S : NULL);
    if (res == RO_SGNS_OK) res = ro_sgns__fx_reals(r, (uint64_t)f->m * d, to ? to->V : NULL);
    return res;
}

/* A run record (version 3, flags bit 1) of rows of d reals (rows as the
   header says), checked, into run (NULL: dropped; its W and C, one block,
   from alloc). f: the file's point, NULL if none. */
static ro_sgns_result ro_sgns__fx_run(ro_sgns__reader *r, const ro_sgns_factors *f, uint64_t d,
                                      uint32_t header_rows, ro_sgns_run_record *run,
                                      const ro_sgns_allocator *alloc)
{
    ro_sgns_result res = RO_SGNS_OK;
    ro_sgns_run_record rec;
    ro_sgns_real *block = NULL;
    uint64_t rows;
    const unsigned char *p = ro_sgns__r_peek(r, RO_SGNS__FX_RUN, "the run record", &res);
    if (!p) return res;
    memset(&rec, 0, sizeof rec);
    rec.stage = (int)(ro_sgns__get_u32(p) & 0xFF);
    rec.last_gain = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8));
    rec.fingerprint = ro_sgns__get_u64(p + 16);
    rec.round = ro_sgns__get_u64(p + 24);
    rec.words = ro_sgns__get_u64(p + 32);
    rows = ro_sgns__get_u64(p + 40);
    if (ro_sgns__get_u32(p) > RO_SGNS_RUN_DONE || rec.stage < RO_SGNS_RUN_SGD ||
        ro_sgns__get_u32(p + 4) != 0 || !ro_sgns__is_finite(rec.last_gain) ||
        rows != header_rows || (!f) != (rec.stage == RO_SGNS_RUN_SGD) ||
        (rec.stage == RO_SGNS_RUN_SGD && rows == 0))
        return ro_sgns__bad(r, r->offset, "run record: stage %lu, last gain %g, %llu rows "
                            "(the header: %lu), %s point (stage 1, the SGD start, has rows "
                            "and no point; 2 and 3 a point)", (unsigned long)ro_sgns__get_u32(p),
                            rec.last_gain, (unsigned long long)rows,
                            (unsigned long)header_rows, f ? "a" : "no");
    ro_sgns__r_take(r, RO_SGNS__FX_RUN, 1);
    rec.rows = (size_t)rows;
    rec.d = (size_t)d;
    if (run && rows) {
        block = (ro_sgns_real *)ro_sgns__alloc_array(alloc, rec.rows, 2 * rec.d, sizeof *block);
        if (!block)
            return ro_sgns__fail(r->err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                 "no memory for the run record's rows (2 x %llu x %llu)",
                                 (unsigned long long)rows, (unsigned long long)d);
        rec.W = block;
        rec.C = block + rec.rows * rec.d;
    }
    res = ro_sgns__fx_reals(r, 2 * rows * d, block);
    if (res != RO_SGNS_OK) {
        ro_sgns__free(alloc, block);
        return res;
    }
    if (run) *run = rec;
    return RO_SGNS_OK;
}

RO_SGNS_DEF void ro_sgns_run_record_free(ro_sgns_run_record *run, const ro_sgns_allocator *alloc)
{
    if (!run) return;
    ro_sgns__free(alloc, run->W);
    run->W = run->C = NULL;
    run->rows = 0;
}

/* The best point after V (flags bit 0): its iteration, next step and
   score, its values (into a new *best when best is not NULL). */
static ro_sgns_result ro_sgns__fx_best(ro_sgns__reader *r, const ro_sgns_factors *f,
                                       ro_sgns_factors **best, double *score,
                                       const ro_sgns_allocator *alloc)
{
    ro_sgns_factors *b = NULL;
    ro_sgns_result res = RO_SGNS_OK;
    uint64_t it;
    double step, sc;
    const unsigned char *p = ro_sgns__r_peek(r, 24, "the best point", &res);
    if (!p) return res;
    it = ro_sgns__get_u64(p);
    step = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 8));
    sc = ro_sgns__f64_from_bits(ro_sgns__get_u64(p + 16));
    if (!(step >= 0) || !ro_sgns__is_finite(step) || !ro_sgns__is_finite(sc) ||
        it > f->iteration)
        return ro_sgns__bad(r, r->offset, "the best point's step %llu (the point's %llu), next "
                            "step %g or score %g out of range", (unsigned long long)it,
                            (unsigned long long)f->iteration, step, sc);
    ro_sgns__r_take(r, 24, 1);
    if (best) {
        res = ro_sgns_factors_create(f->n, f->m, f->d, &b, alloc, r->err);
        if (res != RO_SGNS_OK) return res;
        b->iteration = it;
        b->next_step = step;
        b->counts_fingerprint = f->counts_fingerprint;
        b->k = f->k;
        b->window = f->window;
        b->cds = f->cds;
    }
    res = ro_sgns__fx_values(r, f, b);
    if (res != RO_SGNS_OK) {
        ro_sgns_factors_free(b);
        return res;
    }
    if (best) *best = b;
    *score = sc;
    return RO_SGNS_OK;
}

/* Read a checkpoint, version 1 to 3, through the counts file's reader:
   the header, U, S and V (each value finite), the best point if there is
   one (into *best when best is not NULL), the run record of the header's
   rows if there is one (into *run when run is not NULL; else a file of no
   point is refused), the checksums. */
static ro_sgns_result ro_sgns__factors_load(ro_sgns__reader *r, ro_sgns_factors **out,
                                            ro_sgns_factors **best, double *best_score,
                                            ro_sgns_run_record *run,
                                            const ro_sgns_allocator *alloc)
{
    ro_sgns_factors *f = NULL, *b = NULL;
    ro_sgns_run_record rec;
    uint32_t flags = 0, rows = 0;
    uint64_t d = 0;
    double score = 0;
    ro_sgns_result res;
    r->name = "checkpoint";
    memset(&rec, 0, sizeof rec);
    res = ro_sgns__fx_header(r, &f, &d, &flags, &rows, alloc);
    if (res != RO_SGNS_OK) return res;
    if (!f && !run)
        return ro_sgns__fail(r->err, RO_SGNS_ERR_FORMAT,
                             "the checkpoint holds no point, only an SGD start's state "
                             "(ro_sgns_factors_load_run_callback reads it)");
    res = f ? ro_sgns__fx_values(r, f, f) : RO_SGNS_OK;
    if (res == RO_SGNS_OK && (flags & 1u))
        res = ro_sgns__fx_best(r, f, best ? &b : NULL, &score, alloc);
    if (res == RO_SGNS_OK && (flags & 2u))
        res = ro_sgns__fx_run(r, f, d, rows, run ? &rec : NULL, alloc);
    if (res != RO_SGNS_OK) goto fail;
    if (r->version >= 2) {
        res = ro_sgns__r_check_table(r);
    } else {
        const unsigned char *p = ro_sgns__r_peek(r, 8, "the checksum", &res);
        if (p && ro_sgns__get_u64(p) != ro_sgns__ck_final(&r->ck))
            res = ro_sgns__bad(r, r->offset, "the checksum does not match the data");
        if (p) ro_sgns__r_take(r, 8, 0);
    }
    if (res != RO_SGNS_OK) goto fail;
    *out = f;
    if (best) *best = b;
    if (best_score) *best_score = score;
    if (run) *run = rec;
    return ro_sgns__ok(r->err);
fail:
    ro_sgns_run_record_free(&rec, alloc);
    ro_sgns_factors_free(b);
    ro_sgns_factors_free(f);
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_run_callback(ro_sgns_read_fn read, void *user,
                                                             ro_sgns_factors **out,
                                                             ro_sgns_factors **best,
                                                             double *best_score,
                                                             ro_sgns_run_record *run,
                                                             const ro_sgns_allocator *alloc,
                                                             ro_sgns_error *err)
{
    ro_sgns__reader *r;
    ro_sgns_result res;
    if (!read || !out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_load: NULL");
    r = ro_sgns__reader_new(alloc, err);
    if (!r) return RO_SGNS_ERR_OUT_OF_MEMORY;
    r->fn = read;
    r->user = user;
    res = ro_sgns__factors_load(r, out, best, best_score, run, alloc);
    ro_sgns__reader_free(r);
    return res;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_best_callback(ro_sgns_read_fn read, void *user,
                                                              ro_sgns_factors **out,
                                                              ro_sgns_factors **best,
                                                              double *best_score,
                                                              const ro_sgns_allocator *alloc,
                                                              ro_sgns_error *err)
{
    return ro_sgns_factors_load_run_callback(read, user, out, best, best_score, NULL, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_callback(ro_sgns_read_fn read, void *user,
                                                         ro_sgns_factors **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    return ro_sgns_factors_load_best_callback(read, user, out, NULL, NULL, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_check_resume(const ro_sgns_factors *x,
                                                        const ro_sgns_counts *counts, double k,
                                                        double cds, size_t d,
                                                        ro_sgns_error *err)
{
    char msg[RO_SGNS_MESSAGE_SIZE];
    size_t len = 0;
    uint64_t fp;
    if (!x || !counts)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "check_resume: NULL argument");
    fp = ro_sgns_counts_fingerprint(counts);
    msg[0] = '\0';
#define RO_SGNS__DIFF(...)                                                                    \
    do {                                                                                      \
        if (len < sizeof msg) {                                                               \
            int w_ = snprintf(msg + len, sizeof msg - len, __VA_ARGS__);                      \
            len = w_ < 0 ? sizeof msg : len + (size_t)w_;                                     \
        }                                                                                     \
    } while (0)
    if (x->counts_fingerprint && x->counts_fingerprint != fp)
        RO_SGNS__DIFF("; other counts (fingerprint %016llx here, %016llx in the checkpoint)",
                      (unsigned long long)fp, (unsigned long long)x->counts_fingerprint);
    if (x->n != counts->n || x->m != counts->n)
        RO_SGNS__DIFF("; %llu words here, %llu x %llu in the checkpoint",
                      (unsigned long long)counts->n, (unsigned long long)x->n,
                      (unsigned long long)x->m);
    if (x->k != 0 && x->k != k) RO_SGNS__DIFF("; k %g here, %g in the checkpoint", k, x->k);
    if (x->window != 0 && x->window != counts->config.window)
        RO_SGNS__DIFF("; window %d here, %d in the checkpoint", counts->config.window,
                      x->window);
    if (x->cds != 0 && x->cds != cds)
        RO_SGNS__DIFF("; cds %g here, %g in the checkpoint", cds, x->cds);
    if (x->d != d)
        RO_SGNS__DIFF("; d %llu here, %llu in the checkpoint", (unsigned long long)d,
                      (unsigned long long)x->d);
#undef RO_SGNS__DIFF
    if (msg[0])
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "the checkpoint does not fit this run: %.220s", msg + 2);
    return ro_sgns__ok(err);
}

#ifndef RO_SGNS_NO_STDIO
static ro_sgns_result ro_sgns__factors_emit(const void *obj, ro_sgns_write_fn write, void *user,
                                            ro_sgns_error *err)
{
    return ro_sgns_factors_save_callback((const ro_sgns_factors *)obj, write, user, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_path(const ro_sgns_factors *f,
                                                     const char *path, ro_sgns_error *err)
{
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_save: NULL");
    return ro_sgns__save_atomic(path, ro_sgns__factors_emit, f,
                                f->has_alloc_ ? &f->alloc_ : NULL, err);
}

/* A point with its best point and run record, for the emit function. */
typedef struct ro_sgns__fx_pair {
    const ro_sgns_factors *f, *best;
    double score;
    const ro_sgns_run_record *run;
} ro_sgns__fx_pair;

static ro_sgns_result ro_sgns__fx_pair_emit(const void *obj, ro_sgns_write_fn write, void *user,
                                            ro_sgns_error *err)
{
    const ro_sgns__fx_pair *q = (const ro_sgns__fx_pair *)obj;
    return ro_sgns__factors_save(q->f, q->best, q->score, q->run, write, user,
                                 RO_SGNS__CHUNK_LOG2, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_run_path(const ro_sgns_factors *f,
                                                         const ro_sgns_factors *best,
                                                         double score,
                                                         const ro_sgns_run_record *run,
                                                         const char *path, ro_sgns_error *err)
{
    ro_sgns__fx_pair q;
    if (!f && !run) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_save: NULL");
    q.f = f;
    q.best = best;
    q.score = score;
    q.run = run;
    return ro_sgns__save_atomic(path, ro_sgns__fx_pair_emit, &q,
                                f && f->has_alloc_ ? &f->alloc_ : NULL, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_save_best_path(const ro_sgns_factors *f,
                                                          const ro_sgns_factors *best,
                                                          double score, const char *path,
                                                          ro_sgns_error *err)
{
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_save: NULL");
    return ro_sgns_factors_save_run_path(f, best, score, NULL, path, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_factors_load_path(const char *path, ro_sgns_factors **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    FILE *fp;
    ro_sgns_result res;
    ro_sgns_factors *f = NULL;
    if (!path || !out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "factors_load: NULL");
    fp = fopen(path, "rb");
    if (!fp) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open for reading: %s", strerror(errno));
    } else {
        res = ro_sgns_factors_load_callback(ro_sgns__fread_fn, fp, &f, alloc, err);
        if (res == RO_SGNS_OK && fgetc(fp) != EOF) {
            res = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "trailing bytes after the checkpoint");
            ro_sgns_factors_free(f);
            f = NULL;
        }
        fclose(fp);
    }
    if (res != RO_SGNS_OK) {
        ro_sgns__name_file(err, path);
        return res;
    }
    *out = f;
    return res;
}
#endif

#endif /* RO_SGNS_NO_FILES */

#if !defined(RO_SGNS_NO_FILES) || !defined(RO_SGNS_NO_EVAL)

/* ======================================================================
   III.5 Word vectors in memory, and their files: word2vec text and
         binary, GloVe (the vectors object and the text reader that
         evaluation shares: unless RO_SGNS_NO_FILES and RO_SGNS_NO_EVAL are
         both set; the files: RO_SGNS_NO_FILES leaves them out)
   What: the vectors object (a vocabulary with its own word -> row hash
   table, and an n x d row-major matrix), and readers and writers for
   word2vec text, word2vec binary and GloVe text (layouts: see
   ro_sgns_vectors_format and docs/GUIDE.md, section 10).
   Every reader pulls bytes through one small input (a memory buffer or a
   read callback, 64 KiB at a time); rows go to a builder and only a
   complete, checked body becomes a ro_sgns_vectors, so a failure leaves
   no partial object.
   Byte order: binary floats are assembled from bytes by shifts into a
   uint32 and only then reinterpreted as a float; the host's float bytes
   are never copied to or from the file. Text numbers: the locale's
   decimal point is swapped in and out (ro_sgns__txt_number).
   Invariants of a ro_sgns_vectors: see its declaration (n >= 1, d in
   [1, RO_SGNS_FILE_MAX_DIM], words unique tokens (bytes above 0x20); values
   finite); the hash table is at most half full, so probes end.
   why, cost: docs/DESIGN.md, III.5
   ====================================================================== */

#include <stdlib.h> /* strtod, strtof, qsort */
#include <locale.h> /* localeconv: the decimal point strtod and printf use */

/* The binary format stores IEEE-754 binary32; we reinterpret a uint32 as a
   float, which needs a 4-byte float (true wherever IEEE floats are). */
typedef char ro_sgns__vec_float_is_32_bits[sizeof(float) == 4 ? 1 : -1];

#define RO_SGNS__TXT_BUF 65536 /* refill and write buffer, bytes */
#define RO_SGNS__TXT_TOK 255   /* longest number token, bytes */

typedef unsigned long long ro_sgns__ull; /* for printing sizes and offsets */

/* ---- growing arrays ---------------------------------------------------- */

/* Make room for need elements of elem bytes in p (capacity *cap, doubled
   as needed); *out gets the (possibly moved) block. p stays valid and
   owned by the caller when this fails. */
static ro_sgns_result ro_sgns__grow_array(const ro_sgns_allocator *al, void *p, size_t *cap,
                                          size_t need, size_t elem, void **out, ro_sgns_error *err)
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
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW,
                             "%llu elements of %llu bytes overflow size_t", (ro_sgns__ull)nc,
                             (ro_sgns__ull)elem);
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
typedef struct ro_sgns__strpool {
    char *pool;
    size_t len, cap;
    size_t *offs;
    size_t n, ncap;
} ro_sgns__strpool;

static ro_sgns_result ro_sgns__strpool_add(const ro_sgns_allocator *al, ro_sgns__strpool *s,
                                           const char *str, size_t len, ro_sgns_error *err)
{
    void *q;
    ro_sgns_result rc;
    if (len >= (size_t)-1 - s->len - 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "string pool overflows size_t");
    if ((rc = ro_sgns__grow_array(al, s->pool, &s->cap, s->len + len + 1, 1, &q, err)) !=
        RO_SGNS_OK)
        return rc;
    s->pool = (char *)q;
    if ((rc = ro_sgns__grow_array(al, s->offs, &s->ncap, s->n + 1, sizeof(size_t), &q, err)) !=
        RO_SGNS_OK)
        return rc;
    s->offs = (size_t *)q;
    memcpy(s->pool + s->len, str, len);
    s->pool[s->len + len] = '\0';
    s->offs[s->n++] = s->len;
    s->len += len + 1;
    return RO_SGNS_OK;
}

static void ro_sgns__strpool_free(const ro_sgns_allocator *al, ro_sgns__strpool *s)
{
    ro_sgns__free(al, s->pool);
    ro_sgns__free(al, s->offs);
    memset(s, 0, sizeof *s);
}

/* ---- word -> row hash table ---------------------------------------------
   FNV-1a (64 bit) over the word's bytes, open addressing with linear
   probing in a power-of-two table kept at most half full; a slot holds
   row + 1, 0 is empty. With fold set, ASCII letters hash and compare as
   lower case (the folded lookup of III.6). The strings of the rows
   come either from an array of pointers or from a pool + offsets (while a
   reader is still growing the pool). */

typedef struct ro_sgns__vec_keys {
    char *const *words; /* when not NULL, row r's string is words[r] */
    const char *pool;   /* else pool + offs[r] */
    const size_t *offs;
} ro_sgns__vec_keys;

static const char *ro_sgns__vec_key(const ro_sgns__vec_keys *k, size_t r)
{
    return k->words ? k->words[r] : k->pool + k->offs[r];
}

static unsigned char ro_sgns__ascii_lower(unsigned char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

static uint64_t ro_sgns__vec_hash(const char *s, size_t len, int fold)
{
    uint64_t h = 14695981039346656037ull;
    size_t i;
    for (i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (fold) c = ro_sgns__ascii_lower(c);
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

/* Does the stored NUL-terminated string equal key[0..len) (folded)? */
static int ro_sgns__vec_same(const char *stored, const char *key, size_t len, int fold)
{
    size_t i;
    for (i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)key[i];
        if (stored[i] == '\0') return 0;
        if (fold) c = ro_sgns__ascii_lower(c);
        if ((unsigned char)stored[i] != c) return 0;
    }
    return stored[len] == '\0';
}

/* The slot that holds key, or the empty slot where it would go. */
static size_t ro_sgns__vec_probe(const size_t *slots, size_t mask, const ro_sgns__vec_keys *keys,
                                 const char *key, size_t len, int fold)
{
    size_t i = (size_t)ro_sgns__vec_hash(key, len, fold) & mask;
    for (;;) {
        size_t s = slots[i];
        if (s == 0 || ro_sgns__vec_same(ro_sgns__vec_key(keys, s - 1), key, len, fold)) return i;
        i = (i + 1) & mask;
    }
}

/* Table size for count entries: a power of two >= 2 count, at least 16. */
static size_t ro_sgns__vec_table_size(size_t count)
{
    size_t size = 16;
    while (size / 2 < count && size <= (size_t)-1 / 4) size *= 2;
    return size;
}

/* A fresh table of size slots holding rows [0, count) (assumed unique). */
static ro_sgns_result ro_sgns__vec_table_build(const ro_sgns_allocator *al,
                                               const ro_sgns__vec_keys *keys, size_t count,
                                               size_t size, size_t **slots_out, ro_sgns_error *err)
{
    size_t *slots = (size_t *)ro_sgns__alloc_array(al, size, 1, sizeof(size_t));
    size_t r;
    if (!slots)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "cannot allocate a hash table of %llu slots", (ro_sgns__ull)size);
    memset(slots, 0, size * sizeof(size_t));
    for (r = 0; r < count; ++r) {
        const char *w = ro_sgns__vec_key(keys, r);
        slots[ro_sgns__vec_probe(slots, size - 1, keys, w, strlen(w), 0)] = r + 1;
    }
    *slots_out = slots;
    return RO_SGNS_OK;
}

/* Row of key[0..len) in v, exact bytes. */
static int ro_sgns__vec_find(const ro_sgns_vectors *v, const char *key, size_t len, size_t *row)
{
    size_t s;
    ro_sgns__vec_keys keys;
    if (!v || v->n == 0 || !v->words) return 0;
    if (!v->slots_) { /* a hand-made object: scan */
        for (s = 0; s < v->n; ++s)
            if (ro_sgns__vec_same(v->words[s], key, len, 0)) {
                *row = s;
                return 1;
            }
        return 0;
    }
    keys.words = v->words;
    keys.pool = NULL;
    keys.offs = NULL;
    s = v->slots_[ro_sgns__vec_probe(v->slots_, v->slot_mask_, &keys, key, len, 0)];
    if (s == 0) return 0;
    *row = s - 1;
    return 1;
}

/* Is w a token (section 8's TOKENS: non-empty, every byte above 0x20), so
   that every format can write it and read it back? *at gets the first
   byte that is not (0 for an empty word). */
static int ro_sgns__vec_word_ok(const char *w, size_t *at)
{
    const unsigned char *p = (const unsigned char *)w;
    size_t i;
    *at = 0;
    if (!w || !*w) return 0;
    for (i = 0; p[i]; ++i)
        if (p[i] <= 0x20) {
            *at = i;
            return 0;
        }
    return 1;
}

/* The message for a word that is not a token: its index and the word,
   escaped. */
static ro_sgns_result ro_sgns__vec_bad_word(ro_sgns_error *err, const char *who, size_t i,
                                            const char *w, size_t at)
{
    char shown[64];
    if (!w) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: word %llu is NULL", who,
                                 (unsigned long long)i);
    if (!*w) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: word %llu is empty",
                                  who, (unsigned long long)i);
    ro_sgns__escape_word(shown, sizeof shown, (const unsigned char *)w, strlen(w));
    return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                         "%s: word %llu '%s' has the byte 0x%02x at %llu; words are runs of "
                         "bytes above 0x20 (no blank or control byte)", who,
                         (unsigned long long)i, shown, (unsigned)(unsigned char)w[at],
                         (unsigned long long)at);
}

/* ---- the builder: rows appended by readers and the constructor --------- */

typedef struct ro_sgns__vec_build {
    const ro_sgns_allocator *al;
    ro_sgns__strpool words;
    ro_sgns_real *data;
    size_t cap; /* rows data has room for */
    size_t d;   /* 0 until known (GloVe's first line) */
    size_t *slots;
    size_t nslots;
} ro_sgns__vec_build;

static void ro_sgns__vec_build_free(ro_sgns__vec_build *b)
{
    ro_sgns__strpool_free(b->al, &b->words);
    ro_sgns__free(b->al, b->data);
    ro_sgns__free(b->al, b->slots);
    b->data = NULL;
    b->slots = NULL;
}

/* Append a word; *row points at its d values to fill. A word already there
   gives RO_SGNS_ERR_FORMAT with *dup = its row and no message (the caller
   says where). */
static ro_sgns_result ro_sgns__vec_build_add(ro_sgns__vec_build *b, const char *w, size_t len,
                                             ro_sgns_real **row, size_t *dup, ro_sgns_error *err)
{
    ro_sgns__vec_keys keys;
    ro_sgns_result rc;
    size_t n = b->words.n, slot;
    void *q;
    if ((n + 1) * 2 > b->nslots) { /* keep the table at most half full */
        size_t size = ro_sgns__vec_table_size(n + 1 > 512 ? 2 * (n + 1) : 512), *slots = NULL;
        keys.words = NULL;
        keys.pool = b->words.pool;
        keys.offs = b->words.offs;
        if ((rc = ro_sgns__vec_table_build(b->al, &keys, n, size, &slots, err)) != RO_SGNS_OK)
            return rc;
        ro_sgns__free(b->al, b->slots);
        b->slots = slots;
        b->nslots = size;
    }
    keys.words = NULL;
    keys.pool = b->words.pool;
    keys.offs = b->words.offs;
    slot = ro_sgns__vec_probe(b->slots, b->nslots - 1, &keys, w, len, 0);
    if (b->slots[slot]) {
        *dup = b->slots[slot] - 1;
        return RO_SGNS_ERR_FORMAT;
    }
    if (n + 1 > b->cap) {
        size_t cap = b->cap, need = n + 1;
        if ((rc = ro_sgns__grow_array(b->al, b->data, &cap, need, b->d * sizeof(ro_sgns_real), &q,
                                      err)) != RO_SGNS_OK)
            return rc;
        b->data = (ro_sgns_real *)q;
        b->cap = cap;
    }
    if ((rc = ro_sgns__strpool_add(b->al, &b->words, w, len, err)) != RO_SGNS_OK) return rc;
    b->slots[slot] = n + 1;
    *row = b->data + n * b->d;
    return RO_SGNS_OK;
}

/* Room for rows rows (matrix and hash table) at once, when the count is
   known, instead of growing by doubling. Only before the first row. */
static ro_sgns_result ro_sgns__vec_build_reserve(ro_sgns__vec_build *b, size_t rows,
                                                 ro_sgns_error *err)
{
    size_t size = ro_sgns__vec_table_size(rows);
    void *q;
    if (b->words.n != 0 || rows <= b->cap) return RO_SGNS_OK;
    q = ro_sgns__alloc_array(b->al, rows, b->d, sizeof(ro_sgns_real));
    if (!q)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for %llu x %llu vectors",
                             (ro_sgns__ull)rows, (ro_sgns__ull)b->d);
    ro_sgns__free(b->al, b->data);
    b->data = (ro_sgns_real *)q;
    b->cap = rows;
    if (size > b->nslots) {
        q = ro_sgns__alloc_array(b->al, size, 1, sizeof(size_t));
        if (!q)
            return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                 "cannot allocate a hash table of %llu slots", (ro_sgns__ull)size);
        memset(q, 0, size * sizeof(size_t));
        ro_sgns__free(b->al, b->slots);
        b->slots = (size_t *)q;
        b->nslots = size;
    }
    return RO_SGNS_OK;
}

/* Turn a complete builder into a new object *out (the builder is
   emptied; *out untouched on failure). */
static ro_sgns_result ro_sgns__vec_build_finish(ro_sgns__vec_build *b, ro_sgns_vectors **out,
                                                ro_sgns_error *err)
{
    size_t n = b->words.n, i;
    ro_sgns_vectors *v = (ro_sgns_vectors *)ro_sgns__malloc(b->al, sizeof *v);
    char **words = (char **)ro_sgns__alloc_array(b->al, n, 1, sizeof(char *));
    void *q;
    if (!v || !words) {
        ro_sgns__free(b->al, v);
        ro_sgns__free(b->al, words);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "cannot allocate %llu word pointers",
                             (ro_sgns__ull)n);
    }
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
    *out = v;
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_create(size_t n, size_t d, const char *const *words,
                                                  const ro_sgns_real *data, size_t ldd,
                                                  ro_sgns_vectors **out,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    ro_sgns__vec_build b;
    ro_sgns_result rc = RO_SGNS_OK;
    size_t i, j, dup = 0;
    ro_sgns_real *row;
    int of = 0;
    if (!out || !words || n == 0 || d == 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors_create: need out, words, n >= 1 and d >= 1");
    if (data && ldd < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_create: ldd %llu < d %llu",
                             (ro_sgns__ull)ldd, (ro_sgns__ull)d);
    if (d > RO_SGNS_FILE_MAX_DIM)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors_create: d %llu exceeds RO_SGNS_FILE_MAX_DIM %d",
                             (ro_sgns__ull)d, (int)RO_SGNS_FILE_MAX_DIM);
    (void)ro_sgns__mul(ro_sgns__mul(n, d, &of), sizeof(ro_sgns_real), &of);
    if (of)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW,
                             "vectors_create: %llu x %llu overflows", (ro_sgns__ull)n,
                             (ro_sgns__ull)d);
    for (i = 0; i < n; ++i)
        if (!ro_sgns__vec_word_ok(words[i], &j))
            return ro_sgns__vec_bad_word(err, "vectors_create", i, words[i], j);
    if (data)
        for (i = 0; i < n; ++i)
            for (j = 0; j < d; ++j)
                if (!ro_sgns__is_finite((double)data[i * ldd + j]))
                    return ro_sgns__fail(
                        err, RO_SGNS_ERR_NUMERIC,
                        "vectors_create: NaN or Inf at row %llu ('%s'), column %llu",
                        (ro_sgns__ull)i, words[i], (ro_sgns__ull)j);
    memset(&b, 0, sizeof b);
    b.al = alloc;
    b.d = d;
    rc = ro_sgns__vec_build_reserve(&b, n, err);
    for (i = 0; i < n && rc == RO_SGNS_OK; ++i) {
        rc = ro_sgns__vec_build_add(&b, words[i], strlen(words[i]), &row, &dup, err);
        if (rc == RO_SGNS_ERR_FORMAT) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                               "vectors_create: words %llu and %llu are both '%s'",
                               (ro_sgns__ull)dup, (ro_sgns__ull)i, words[i]);
            break;
        }
        if (rc != RO_SGNS_OK) break;
        if (data)
            memcpy(row, data + i * ldd, d * sizeof(ro_sgns_real));
        else
            for (j = 0; j < d; ++j) row[j] = 0;
    }
    if (rc == RO_SGNS_OK) rc = ro_sgns__vec_build_finish(&b, out, err);
    ro_sgns__vec_build_free(&b);
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
    ro_sgns__free(&al, v);
}

RO_SGNS_DEF int ro_sgns_vectors_find(const ro_sgns_vectors *v, const char *word, size_t *row)
{
    size_t r;
    if (!word || !ro_sgns__vec_find(v, word, strlen(word), &r)) return 0;
    if (row) *row = r;
    return 1;
}

RO_SGNS_DEF const ro_sgns_real *ro_sgns_vectors_get(const ro_sgns_vectors *v, const char *word)
{
    size_t r;
    if (!ro_sgns_vectors_find(v, word, &r)) return NULL;
    return v->data + r * v->d;
}

/* The largest |x_i| of d values. */
static double ro_sgns__vec_absmax(const ro_sgns_real *x, size_t d)
{
    double m = 0;
    size_t i;
    for (i = 0; i < d; ++i)
        if (RO_SGNS_FABS((double)x[i]) > m) m = RO_SGNS_FABS((double)x[i]);
    return m;
}

/* ||x / m||^2 in double, d values, with *m = 1, or where the squares
   overflow a double, the largest |x_i|. */
static double ro_sgns__vec_norm2(const ro_sgns_real *x, size_t d, double *m)
{
    double s = 0;
    size_t j;
    *m = 1;
    for (j = 0; j < d; ++j) s += (double)x[j] * (double)x[j];
    if (!ro_sgns__is_finite(s)) {
        *m = ro_sgns__vec_absmax(x, d);
        for (s = 0, j = 0; j < d; ++j) s += ((double)x[j] / *m) * ((double)x[j] / *m);
    }
    return s;
}

/* dst = x / ||x|| (zero stays zero), d values; scaled first where the
   squares overflow a double. dst may be x. */
static void ro_sgns__vec_unit(const ro_sgns_real *x, size_t d, ro_sgns_real *dst)
{
    double m, s = ro_sgns__vec_norm2(x, d, &m), inv = s > 0 ? 1.0 / RO_SGNS_SQRT(s) : 0.0;
    size_t j;
    for (j = 0; j < d; ++j) dst[j] = (ro_sgns_real)((double)x[j] / m * inv);
}

RO_SGNS_DEF void ro_sgns_vectors_normalize(ro_sgns_vectors *v)
{
    size_t r;
    if (!v || !v->data) return;
    for (r = 0; r < v->n; ++r) ro_sgns__vec_unit(v->data + r * v->d, v->d, v->data + r * v->d);
}

/* ---- input: a memory buffer, or a read callback refilled 64 KiB at a time */

typedef struct ro_sgns__txt_in {
    const unsigned char *buf;
    size_t len, pos;
    ro_sgns__ull base; /* stream offset of buf[0] */
    ro_sgns_read_fn read_fn;
    void *user;
    unsigned char *own; /* the refill buffer of a callback stream */
    int eof, ioerr;
} ro_sgns__txt_in;

/* Set up an input over a memory buffer. */
static void ro_sgns__txt_in_memory(ro_sgns__txt_in *in, const void *data, size_t size)
{
    memset(in, 0, sizeof *in);
    in->buf = (const unsigned char *)data;
    in->len = size;
}

static int ro_sgns__txt_refill(ro_sgns__txt_in *in)
{
    size_t got;
    if (!in->read_fn || in->eof || in->ioerr) return -1;
    in->base += in->len;
    in->buf = in->own;
    in->pos = in->len = 0;
    got = in->read_fn(in->user, in->own, RO_SGNS__TXT_BUF);
    if (got == (size_t)-1 || got > RO_SGNS__TXT_BUF) {
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
static int ro_sgns__txt_getc(ro_sgns__txt_in *in)
{
    return in->pos < in->len ? in->buf[in->pos++] : ro_sgns__txt_refill(in);
}

/* Give back the byte just read (always possible: it is still in buf). */
static void ro_sgns__txt_unget(ro_sgns__txt_in *in, int c)
{
    if (c >= 0) in->pos--;
}

static ro_sgns__ull ro_sgns__txt_offset(const ro_sgns__txt_in *in) { return in->base + in->pos; }

/* Blanks separate fields of a line; '\n' ends it (so CRLF is a blank + LF). */
static int ro_sgns__txt_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Skip blanks; return the next byte without taking it (-1 at the end). */
static int ro_sgns__txt_skip_blanks(ro_sgns__txt_in *in)
{
    int c;
    while ((c = ro_sgns__txt_getc(in)) >= 0 && ro_sgns__txt_blank(c)) {
    }
    ro_sgns__txt_unget(in, c);
    return c;
}

#define RO_SGNS__TXT_TOO_LONG 1
#define RO_SGNS__TXT_HAS_CTRL 2

/* Read one field (up to a blank, '\n' or the end, which stay unread) into
   tok (room for cap bytes, NUL-terminated, truncated if longer). Returns
   its full length; *flags gets TOO_LONG / HAS_CTRL (a byte below 0x20
   that is not a blank: NUL and the other control bytes, which no word
   has: section 8's TOKENS). */
static size_t ro_sgns__txt_field(ro_sgns__txt_in *in, char *tok, size_t cap, int *flags)
{
    size_t len = 0;
    int c;
    *flags = 0;
    while ((c = ro_sgns__txt_getc(in)) >= 0 && c != '\n' && !ro_sgns__txt_blank(c)) {
        if (c < 0x20) *flags |= RO_SGNS__TXT_HAS_CTRL;
        if (len + 1 < cap) tok[len] = (char)c;
        ++len;
    }
    ro_sgns__txt_unget(in, c);
    if (len + 1 > cap) *flags |= RO_SGNS__TXT_TOO_LONG;
    tok[len + 1 < cap ? len : cap - 1] = '\0';
    return len;
}

/* ---- numbers ------------------------------------------------------------
   strtod (strtof for float vector values: rounded once) parses, but reads
   LC_NUMERIC's decimal point. So the syntax is checked here first --
   [+-] digits [. digits] [e [+-] digits], decimal only, no hex, no
   "inf"/"nan", no leading blanks -- and '.' is replaced by
   localeconv()->decimal_point before strtod sees it; the writers do the
   reverse after snprintf. */

typedef struct ro_sgns__txt_num {
    char dp[8]; /* the locale's decimal point */
    size_t dp_len;
} ro_sgns__txt_num;

static void ro_sgns__txt_num_init(ro_sgns__txt_num *nf)
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

#define RO_SGNS__TXT_NUM_OK 0
#define RO_SGNS__TXT_NUM_SYNTAX 1
#define RO_SGNS__TXT_NUM_NONFINITE 2
#define RO_SGNS__TXT_NUM_RANGE 3

static int ro_sgns__txt_digit(char c) { return c >= '0' && c <= '9'; }

static int ro_sgns__txt_number(const char *tok, size_t len, const ro_sgns__txt_num *nf, int single,
                               double *out)
{
    char buf[RO_SGNS__TXT_TOK * 8 + 1];
    size_t i = 0, j = 0, nd = 0, ne = 0;
    char *end;
    double x;
    if (len == 0 || len > RO_SGNS__TXT_TOK) return RO_SGNS__TXT_NUM_SYNTAX;
    if (tok[i] == '+' || tok[i] == '-') ++i;
    if (i < len && ((tok[i] | 32) == 'n' || (tok[i] | 32) == 'i')) {
        if (len - i >= 3 &&
            (((tok[i] | 32) == 'n' && (tok[i + 1] | 32) == 'a' && (tok[i + 2] | 32) == 'n') ||
             ((tok[i] | 32) == 'i' && (tok[i + 1] | 32) == 'n' && (tok[i + 2] | 32) == 'f')))
            return RO_SGNS__TXT_NUM_NONFINITE;
        return RO_SGNS__TXT_NUM_SYNTAX;
    }
    while (i < len && ro_sgns__txt_digit(tok[i])) ++i, ++nd;
    if (i < len && tok[i] == '.') {
        ++i;
        while (i < len && ro_sgns__txt_digit(tok[i])) ++i, ++nd;
    }
    if (nd == 0) return RO_SGNS__TXT_NUM_SYNTAX;
    if (i < len && (tok[i] == 'e' || tok[i] == 'E')) {
        ++i;
        if (i < len && (tok[i] == '+' || tok[i] == '-')) ++i;
        while (i < len && ro_sgns__txt_digit(tok[i])) ++i, ++ne;
        if (ne == 0) return RO_SGNS__TXT_NUM_SYNTAX;
    }
    if (i != len) return RO_SGNS__TXT_NUM_SYNTAX;
    for (i = 0; i < len; ++i) {
        if (tok[i] == '.') {
            memcpy(buf + j, nf->dp, nf->dp_len);
            j += nf->dp_len;
        } else {
            buf[j++] = tok[i];
        }
    }
    buf[j] = '\0';
    /* float: strtof rounds once, so any string that round-trips a float32
       (gensim's shortest repr, our %.9g) gives that float back exactly */
    x = single ? (double)strtof(buf, &end) : strtod(buf, &end);
    if (end != buf + j) return RO_SGNS__TXT_NUM_SYNTAX;
    if (!ro_sgns__is_finite(x)) return RO_SGNS__TXT_NUM_RANGE;
    *out = x;
    return RO_SGNS__TXT_NUM_OK;
}

static const char *ro_sgns__txt_num_problem(int code)
{
    switch (code) {
    case RO_SGNS__TXT_NUM_NONFINITE: return "NaN or Inf";
    case RO_SGNS__TXT_NUM_RANGE: return "a number out of range";
    default: return "not a number";
    }
}

/* Set up a callback input with its refill buffer. */
static ro_sgns_result ro_sgns__txt_in_cb(ro_sgns__txt_in *in, ro_sgns_read_fn read_fn, void *user,
                                         const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    memset(in, 0, sizeof *in);
    if (!read_fn)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "reader: the read callback is NULL");
    in->own = (unsigned char *)ro_sgns__malloc(alloc, RO_SGNS__TXT_BUF);
    if (!in->own) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "reader: no input buffer");
    in->buf = in->own;
    in->read_fn = read_fn;
    in->user = user;
    return RO_SGNS_OK;
}

#ifndef RO_SGNS_NO_STDIO

/* Put the file name (its last 120 bytes) in front of err's message. */
static void ro_sgns__txt_name_path(ro_sgns_error *err, const char *path)
{
    char msg[RO_SGNS_MESSAGE_SIZE];
    size_t plen = strlen(path);
    if (!err) return;
    memcpy(msg, err->message, sizeof msg);
    snprintf(err->message, sizeof err->message, "%.*s: %.128s", (int)(plen > 120 ? 120 : plen),
             plen > 120 ? path + plen - 120 : path, msg);
}

#endif

#endif

#ifndef RO_SGNS_NO_FILES

/* Read one number field of a text line into *x; on failure a FORMAT error
   naming the line. */
static ro_sgns_result ro_sgns__txt_read_number(ro_sgns__txt_in *in, const ro_sgns__txt_num *nf,
                                               ro_sgns__ull line, double *x, ro_sgns_error *err)
{
    char tok[RO_SGNS__TXT_TOK + 1];
    int flags, code;
    size_t len = ro_sgns__txt_field(in, tok, sizeof tok, &flags);
    if (flags & RO_SGNS__TXT_TOO_LONG)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a number longer than %d bytes",
                             line, RO_SGNS__TXT_TOK);
    code = (flags & RO_SGNS__TXT_HAS_CTRL)
               ? RO_SGNS__TXT_NUM_SYNTAX
               : ro_sgns__txt_number(tok, len, nf, !RO_SGNS__IS_DOUBLE, x);
    if (code != RO_SGNS__TXT_NUM_OK)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: %s: '%.40s'", line,
                             ro_sgns__txt_num_problem(code), tok);
    return RO_SGNS_OK;
}

/* ---- text readers (word2vec text, GloVe) -------------------------------- */

/* Read a non-negative decimal integer field (the header's V or d). */
static int ro_sgns__vec_read_count(ro_sgns__txt_in *in, ro_sgns__ull *out)
{
    ro_sgns__ull x = 0;
    int c, any = 0;
    while ((c = ro_sgns__txt_getc(in)) >= '0' && c <= '9') {
        if (x > ((ro_sgns__ull)-1 - 9) / 10) return 0;
        x = x * 10 + (ro_sgns__ull)(c - '0');
        any = 1;
    }
    ro_sgns__txt_unget(in, c);
    *out = x;
    return any;
}

/* The word2vec header line "V d" (both formats). */
static ro_sgns_result ro_sgns__vec_header(ro_sgns__txt_in *in, size_t *count, size_t *dim,
                                          ro_sgns_error *err)
{
    ro_sgns__ull V = 0, d = 0;
    int c, ok;
    ro_sgns__txt_skip_blanks(in);
    ok = ro_sgns__vec_read_count(in, &V);
    ok = ok && ro_sgns__txt_blank(ro_sgns__txt_getc(in));
    ro_sgns__txt_skip_blanks(in);
    ok = ok && ro_sgns__vec_read_count(in, &d);
    if (!ok)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "line 1: not a word2vec header 'V d' (vector count, dimension)");
    c = ro_sgns__txt_skip_blanks(in);
    if (c >= 0 && c != '\n')
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "line 1: the word2vec header 'V d' has more after d");
    (void)ro_sgns__txt_getc(in);
    if (V == 0) return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line 1: header says 0 vectors");
    if (d == 0) return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line 1: header says dimension 0");
    if (d > RO_SGNS_FILE_MAX_DIM)
        return ro_sgns__fail(
            err, RO_SGNS_ERR_FORMAT,
            "line 1: header says dimension %llu, more than RO_SGNS_FILE_MAX_DIM %d", d,
            (int)RO_SGNS_FILE_MAX_DIM);
    if (V > (ro_sgns__ull)(size_t)-1)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line 1: header says %llu vectors", V);
    *count = (size_t)V;
    *dim = (size_t)d;
    return RO_SGNS_OK;
}

/* The word that starts a line of a text body, into word (RO_SGNS_FILE_MAX_WORD
   + 1 bytes), *len its length; a FORMAT error for one too long or with a
   control byte. */
static ro_sgns_result ro_sgns__vec_text_word(ro_sgns__txt_in *in, char *word, ro_sgns__ull line,
                                             size_t *len, ro_sgns_error *err)
{
    const size_t cap = (size_t)RO_SGNS_FILE_MAX_WORD + 1;
    int flags;
    *len = ro_sgns__txt_field(in, word, cap, &flags);
    if (flags & RO_SGNS__TXT_TOO_LONG)
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a word longer than %d bytes",
                             line, (int)RO_SGNS_FILE_MAX_WORD);
    if (flags & RO_SGNS__TXT_HAS_CTRL) {
        char shown[64];
        ro_sgns__escape_word(shown, sizeof shown, (const unsigned char *)word,
                             *len < cap ? *len : cap - 1);
        return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                             "line %llu: the word '%s' has a control byte (words are runs of "
                             "bytes above 0x20)",
                             line, shown);
    }
    return RO_SGNS_OK;
}

/* A text line that the input's end cut: every line of a vectors file ends
   with '\n' (as every writer of the format puts it), so that a file cut
   inside its last number is not read with a changed value. */
static ro_sgns_result ro_sgns__vec_cut(ro_sgns__ull line, ro_sgns_error *err)
{
    return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                         "line %llu: the file ends inside the line, without its newline (a "
                         "file cut short?)", line);
}

/* The rest of GloVe's first line, after its word: its count of numbers
   sets b->d; then the row. */
static ro_sgns_result ro_sgns__vec_glove_first(ro_sgns__txt_in *in, ro_sgns__vec_build *b,
                                               const ro_sgns__txt_num *nf, ro_sgns__ull line,
                                               const char *word, size_t len, ro_sgns_error *err)
{
    double *first = NULL, x;
    size_t firstcap = 0, cnt = 0, j, dup = 0;
    ro_sgns_real *row;
    ro_sgns_result rc = RO_SGNS_OK;
    int c;
    void *q;
    for (;;) {
        c = ro_sgns__txt_skip_blanks(in);
        if (c < 0 || c == '\n') break;
        if (cnt == RO_SGNS_FILE_MAX_DIM) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                               "line %llu: more than RO_SGNS_FILE_MAX_DIM %d numbers", line,
                               (int)RO_SGNS_FILE_MAX_DIM);
            break;
        }
        if ((rc = ro_sgns__txt_read_number(in, nf, line, &x, err)) != RO_SGNS_OK) break;
        if ((rc = ro_sgns__grow_array(b->al, first, &firstcap, cnt + 1, sizeof(double), &q, err)) !=
            RO_SGNS_OK)
            break;
        first = (double *)q;
        first[cnt++] = x;
    }
    if (rc == RO_SGNS_OK && cnt == 0)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: a word without numbers", line);
    if (rc == RO_SGNS_OK && c < 0) rc = ro_sgns__vec_cut(line, err);
    if (rc == RO_SGNS_OK) {
        b->d = cnt;
        rc = ro_sgns__vec_build_add(b, word, len, &row, &dup, err);
        if (rc == RO_SGNS_OK)
            for (j = 0; j < cnt; ++j) row[j] = (ro_sgns_real)first[j];
    }
    ro_sgns__free(b->al, first);
    return rc;
}

/* The rest of any other line, after its word: b->d numbers into row, and
   nothing more before the line ends. */
static ro_sgns_result ro_sgns__vec_text_row(ro_sgns__txt_in *in, const ro_sgns__vec_build *b,
                                            const ro_sgns__txt_num *nf, ro_sgns__ull line,
                                            ro_sgns_real *row, ro_sgns_error *err)
{
    double x;
    size_t j;
    int c;
    ro_sgns_result rc;
    for (j = 0; j < b->d; ++j) {
        c = ro_sgns__txt_skip_blanks(in);
        if (c < 0 || c == '\n')
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                 "line %llu: %llu numbers after the word, expected %llu", line,
                                 (ro_sgns__ull)j, (ro_sgns__ull)b->d);
        if ((rc = ro_sgns__txt_read_number(in, nf, line, &x, err)) != RO_SGNS_OK) return rc;
        row[j] = (ro_sgns_real)x;
    }
    c = ro_sgns__txt_skip_blanks(in);
    if (c < 0) return ro_sgns__vec_cut(line, err);
    if (c != '\n')
        return ro_sgns__fail(
            err, RO_SGNS_ERR_FORMAT, "line %llu: more than %llu numbers after the word%s", line,
            (ro_sgns__ull)b->d,
            (line == 2 && b->d == 1 && b->words.n == 2) ? " (a word2vec header read as GloVe?)"
                                                        : "");
    return RO_SGNS_OK;
}

/* The text body: lines "word x1 ... xd" until target rows or the end. With
   b->d == 0 (GloVe) d is the number of fields on the first line. *line is
   the number of the next line to read. */
static ro_sgns_result ro_sgns__vec_text_body(ro_sgns__txt_in *in, ro_sgns__vec_build *b,
                                             size_t target, const ro_sgns__txt_num *nf,
                                             ro_sgns__ull *line, ro_sgns_error *err)
{
    char word[RO_SGNS_FILE_MAX_WORD + 1];
    size_t len, dup = 0;
    ro_sgns_real *row;
    ro_sgns_result rc = RO_SGNS_OK;
    int c;
    while (b->words.n < target) {
        c = ro_sgns__txt_skip_blanks(in);
        if (c < 0) break;
        if (c == '\n') { /* blank line */
            (void)ro_sgns__txt_getc(in);
            ++*line;
            continue;
        }
        rc = ro_sgns__vec_text_word(in, word, *line, &len, err);
        if (rc != RO_SGNS_OK) break;
        if (b->d == 0) { /* GloVe's first line sets d */
            rc = ro_sgns__vec_glove_first(in, b, nf, *line, word, len, err);
        } else {
            rc = ro_sgns__vec_build_add(b, word, len, &row, &dup, err);
            if (rc == RO_SGNS_ERR_FORMAT)
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "line %llu: duplicate word '%.64s' (also vector %llu)", *line,
                                   word, (ro_sgns__ull)dup + 1);
            if (rc == RO_SGNS_OK) rc = ro_sgns__vec_text_row(in, b, nf, *line, row, err);
        }
        if (rc != RO_SGNS_OK) break;
        (void)ro_sgns__txt_getc(in); /* the '\n' */
        ++*line;
    }
    if (rc == RO_SGNS_OK && in->ioerr)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__txt_offset(in));
    return rc;
}

/* Is the rest of the input only blanks and newlines? */
static int ro_sgns__txt_rest_blank(ro_sgns__txt_in *in, ro_sgns__ull *line)
{
    int c;
    while ((c = ro_sgns__txt_getc(in)) >= 0) {
        if (c == '\n')
            ++*line;
        else if (!ro_sgns__txt_blank(c))
            return 0;
    }
    return 1;
}

/* ---- the binary body --------------------------------------------------- */

/* The float32 whose IEEE bits are u. The uint32 was assembled from the
   file's bytes by shifts, so this is right on any host whose float and
   integer byte orders agree (all IEEE platforms in use). */
static ro_sgns_real ro_sgns__vec_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f); /* the bits of a uint32, not file bytes */
    return (ro_sgns_real)f;
}

static ro_sgns_result ro_sgns__vec_binary_body(ro_sgns__txt_in *in, ro_sgns__vec_build *b,
                                               size_t target, size_t header_n, ro_sgns_error *err)
{
    char word[RO_SGNS_FILE_MAX_WORD + 1];
    size_t len, j, dup = 0;
    ro_sgns_real *row;
    ro_sgns_result rc;
    ro_sgns__ull at, vec = 0;
    int c, k;
    while (b->words.n < target) {
        vec = b->words.n + 1; /* 1-based number of the vector being read */
        /* the newline after the previous vector: optional (gensim writes none) */
        while ((c = ro_sgns__txt_getc(in)) == '\n' || c == '\r') {
        }
        at = ro_sgns__txt_offset(in) - (c >= 0);
        if (c < 0) goto truncated;
        len = 0;
        while (c >= 0 && c != ' ') {
            if (c < 0x20) /* no word has one (section 8's TOKENS) */
                return ro_sgns__fail(
                    err, RO_SGNS_ERR_FORMAT, "byte %llu: a control byte 0x%02x in word %llu",
                    ro_sgns__txt_offset(in) - 1, (unsigned)c, (ro_sgns__ull)b->words.n + 1);
            if (len == RO_SGNS_FILE_MAX_WORD)
                return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                     "byte %llu: word %llu longer than %d bytes", at,
                                     (ro_sgns__ull)b->words.n + 1, (int)RO_SGNS_FILE_MAX_WORD);
            word[len++] = (char)c;
            c = ro_sgns__txt_getc(in);
        }
        if (c < 0) goto truncated;
        if (len == 0)
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "byte %llu: empty word (vector %llu)", at,
                                 (ro_sgns__ull)b->words.n + 1);
        word[len] = '\0';
        rc = ro_sgns__vec_build_add(b, word, len, &row, &dup, err);
        if (rc == RO_SGNS_ERR_FORMAT)
            return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                 "byte %llu: duplicate word '%.64s' (vectors %llu and %llu)", at,
                                 word, (ro_sgns__ull)dup + 1, (ro_sgns__ull)b->words.n + 1);
        if (rc != RO_SGNS_OK) return rc;
        for (j = 0; j < b->d;) {
            /* the values in the buffer are decoded in one run; one that
               straddles a refill goes byte by byte */
            size_t m = ro_sgns__min((in->len - in->pos) / 4, b->d - j), t;
            const unsigned char *p = m ? in->buf + in->pos : NULL;
            for (t = 0; t < m; ++t, p += 4) {
                /* little-endian, whatever the host */
                uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                             (uint32_t)p[3] << 24;
                if ((u & 0x7F800000u) == 0x7F800000u) {
                    at = ro_sgns__txt_offset(in) + 4 * t;
                    j += t;
                    goto nonfinite;
                }
                row[j + t] = ro_sgns__vec_f32(u);
            }
            in->pos += 4 * m;
            j += m;
            if (m == 0) {
                uint32_t u = 0;
                at = ro_sgns__txt_offset(in);
                for (k = 0; k < 4; ++k) {
                    if ((c = ro_sgns__txt_getc(in)) < 0) goto truncated;
                    u |= (uint32_t)c << (8 * k);
                }
                if ((u & 0x7F800000u) == 0x7F800000u) goto nonfinite;
                row[j++] = ro_sgns__vec_f32(u);
            }
        }
    }
    return RO_SGNS_OK;
nonfinite:
    return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                         "byte %llu: NaN or Inf (vector %llu '%.64s', component %llu)", at,
                         (ro_sgns__ull)b->words.n, word, (ro_sgns__ull)j);
truncated:
    if (in->ioerr)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu",
                             ro_sgns__txt_offset(in));
    return ro_sgns__fail(
        err, RO_SGNS_ERR_FORMAT,
        "byte %llu: truncated: the header says %llu vectors, the data ends in vector %llu",
        ro_sgns__txt_offset(in), (ro_sgns__ull)header_n, vec);
}

/* ---- the reader all entry points share ---------------------------------- */

static ro_sgns_result ro_sgns__vec_read(ro_sgns__txt_in *in, ro_sgns_vectors_format format,
                                        size_t limit, ro_sgns_vectors **out,
                                        const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__vec_build b;
    ro_sgns__txt_num nf;
    ro_sgns_result rc = RO_SGNS_OK;
    size_t V = 0, d = 0, target, reserve;
    ro_sgns__ull line = 1;
    if (!out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors reader: out is NULL");
    if (format != RO_SGNS_W2V_TEXT && format != RO_SGNS_W2V_BINARY && format != RO_SGNS_GLOVE_TEXT)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors reader: unknown format %d",
                             (int)format);
    memset(&b, 0, sizeof b);
    b.al = alloc;
    ro_sgns__txt_num_init(&nf);
    /* No byte-order-mark skipping here (unlike the pair and question files):
       a GloVe file's first word must read back as written, and gensim keeps
       a BOM as part of the first word too. */
    if (format == RO_SGNS_GLOVE_TEXT) {
        target = limit ? limit : (size_t)-1;
        rc = ro_sgns__vec_text_body(in, &b, target, &nf, &line, err);
        if (rc == RO_SGNS_OK && b.words.n == 0)
            rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "GloVe file without vectors");
    } else {
        if ((rc = ro_sgns__vec_header(in, &V, &d, err)) != RO_SGNS_OK) return rc;
        b.d = d;
        ++line;
        target = (limit && limit < V) ? limit : V;
        /* Reserve what the header promises, but no more than the bytes
           left in a memory buffer can hold (a record takes at least 4d + 2
           bytes in binary, 2d + 2 in text), 64 MiB of matrix and 2^20 rows:
           a lying header costs little; a longer file grows by doubling. */
        reserve = ro_sgns__min(target, ((size_t)64 << 20) / (d * sizeof(ro_sgns_real)));
        reserve = ro_sgns__min(reserve, (size_t)1 << 20);
        if (!in->read_fn)
            reserve = ro_sgns__min(
                reserve,
                (in->len - in->pos) / ((format == RO_SGNS_W2V_BINARY ? 4 : 2) * d + 2) + 1);
        if ((rc = ro_sgns__vec_build_reserve(&b, reserve, err)) != RO_SGNS_OK) {
            ro_sgns__vec_build_free(&b);
            return rc;
        }
        if (format == RO_SGNS_W2V_TEXT) {
            rc = ro_sgns__vec_text_body(in, &b, target, &nf, &line, err);
            if (rc == RO_SGNS_OK && b.words.n < target)
                rc = ro_sgns__fail(
                    err, RO_SGNS_ERR_FORMAT,
                    "line %llu: the header says %llu vectors, the file ends after %llu", line,
                    (ro_sgns__ull)V, (ro_sgns__ull)b.words.n);
            if (rc == RO_SGNS_OK && target == V && !ro_sgns__txt_rest_blank(in, &line))
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "line %llu: more vectors than the %llu the header says", line,
                                   (ro_sgns__ull)V);
        } else {
            rc = ro_sgns__vec_binary_body(in, &b, target, V, err);
            if (rc == RO_SGNS_OK && target == V && !ro_sgns__txt_rest_blank(in, &line))
                rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                                   "byte %llu: data after the %llu vectors the header says",
                                   ro_sgns__txt_offset(in) - 1, (ro_sgns__ull)V);
        }
    }
    if (rc == RO_SGNS_OK && in->ioerr)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu", ro_sgns__txt_offset(in));
    if (rc == RO_SGNS_OK) rc = ro_sgns__vec_build_finish(&b, out, err);
    ro_sgns__vec_build_free(&b);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_memory(const void *data, size_t size,
                                                       ro_sgns_vectors_format format, size_t limit,
                                                       ro_sgns_vectors **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err)
{
    ro_sgns__txt_in in;
    if (!data && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors_load_memory: data is NULL");
    ro_sgns__txt_in_memory(&in, data, size);
    return ro_sgns__vec_read(&in, format, limit, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_callback(ro_sgns_read_fn read_fn, void *user,
                                                         ro_sgns_vectors_format format,
                                                         size_t limit, ro_sgns_vectors **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    ro_sgns__txt_in in;
    ro_sgns_result rc = ro_sgns__txt_in_cb(&in, read_fn, user, alloc, err);
    if (rc != RO_SGNS_OK) return rc;
    rc = ro_sgns__vec_read(&in, format, limit, out, alloc, err);
    ro_sgns__free(alloc, in.own);
    return rc;
}

/* ---- writers ------------------------------------------------------------ */

typedef struct ro_sgns__vec_out {
    ro_sgns_write_fn write_fn;
    void *user;
    unsigned char *buf;
    size_t len;
    int failed;
} ro_sgns__vec_out;

static void ro_sgns__vec_flush(ro_sgns__vec_out *o)
{
    if (!o->failed && o->len && o->write_fn(o->user, o->buf, o->len) != 0) o->failed = 1;
    o->len = 0;
}

static void ro_sgns__vec_put(ro_sgns__vec_out *o, const void *p, size_t n)
{
    if (o->failed) return;
    if (o->len + n > RO_SGNS__TXT_BUF) ro_sgns__vec_flush(o);
    if (n > RO_SGNS__TXT_BUF) {
        if (!o->failed && o->write_fn(o->user, p, n) != 0) o->failed = 1;
        return;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* Format x with enough digits to read back bit-exactly, '.' as the
   decimal point whatever the locale; returns the length. */
static size_t ro_sgns__vec_format(char *s, size_t cap, double x, const ro_sgns__txt_num *nf)
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

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_callback(const ro_sgns_vectors *v,
                                                         ro_sgns_vectors_format format,
                                                         ro_sgns_write_fn write_fn, void *user,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    ro_sgns__vec_out o;
    ro_sgns__txt_num nf;
    char num[64];
    size_t i, j;
    if (!v || !v->words || !v->data || v->n == 0 || v->d == 0 || !write_fn)
        return ro_sgns__fail(
            err, RO_SGNS_ERR_INVALID_ARGUMENT,
            "vectors writer: need a non-empty vectors object and a write callback");
    if (format != RO_SGNS_W2V_TEXT && format != RO_SGNS_W2V_BINARY && format != RO_SGNS_GLOVE_TEXT)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors writer: unknown format %d",
                             (int)format);
    /* check everything first, so a failed write leaves nothing behind */
    for (i = 0; i < v->n; ++i) {
        if (!ro_sgns__vec_word_ok(v->words[i], &j))
            return ro_sgns__vec_bad_word(err, "vectors writer", i, v->words[i], j);
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
    o.buf = (unsigned char *)ro_sgns__malloc(alloc, RO_SGNS__TXT_BUF);
    if (!o.buf) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "vectors writer: no buffer");
    ro_sgns__txt_num_init(&nf);
    if (format != RO_SGNS_GLOVE_TEXT) {
        int n = snprintf(num, sizeof num, "%llu %llu\n", (ro_sgns__ull)v->n, (ro_sgns__ull)v->d);
        ro_sgns__vec_put(&o, num, (size_t)n);
    }
    for (i = 0; i < v->n && !o.failed; ++i) {
        const ro_sgns_real *row = v->data + i * v->d;
        ro_sgns__vec_put(&o, v->words[i], strlen(v->words[i]));
        if (format == RO_SGNS_W2V_BINARY) {
            unsigned char bytes[4];
            ro_sgns__vec_put(&o, " ", 1);
            for (j = 0; j < v->d; ++j) {
                float f = (float)row[j];
                uint32_t u;
                memcpy(&u, &f, sizeof u);             /* the float's bits as a uint32 ... */
                bytes[0] = (unsigned char)(u & 0xFF); /* ... written little-endian */
                bytes[1] = (unsigned char)((u >> 8) & 0xFF);
                bytes[2] = (unsigned char)((u >> 16) & 0xFF);
                bytes[3] = (unsigned char)(u >> 24);
                ro_sgns__vec_put(&o, bytes, 4);
            }
        } else {
            for (j = 0; j < v->d; ++j) {
                num[0] = ' ';
                ro_sgns__vec_put(
                    &o, num, 1 + ro_sgns__vec_format(num + 1, sizeof num - 1, (double)row[j], &nf));
            }
        }
        ro_sgns__vec_put(&o, "\n", 1);
    }
    ro_sgns__vec_flush(&o);
    ro_sgns__free(alloc, o.buf);
    if (o.failed)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "vectors writer: the write callback failed");
    return ro_sgns__ok(err);
}

typedef struct ro_sgns__vec_membuf {
    const ro_sgns_allocator *al;
    unsigned char *p;
    size_t len, cap;
} ro_sgns__vec_membuf;

static int ro_sgns__vec_mem_write(void *user, const void *src, size_t size)
{
    ro_sgns__vec_membuf *m = (ro_sgns__vec_membuf *)user;
    void *q;
    if (size > (size_t)-1 - m->len) return 1;
    if (ro_sgns__grow_array(m->al, m->p, &m->cap, m->len + size, 1, &q, NULL) != RO_SGNS_OK)
        return 1;
    m->p = (unsigned char *)q;
    memcpy(m->p + m->len, src, size);
    m->len += size;
    return 0;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_memory(const ro_sgns_vectors *v,
                                                       ro_sgns_vectors_format format, void **out,
                                                       size_t *size,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err)
{
    ro_sgns__vec_membuf m;
    ro_sgns_result rc;
    if (!out || !size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vectors_save_memory: out or size is NULL");
    memset(&m, 0, sizeof m);
    m.al = alloc;
    rc = ro_sgns_vectors_save_callback(v, format, ro_sgns__vec_mem_write, &m, alloc, err);
    if (rc == RO_SGNS_ERR_IO)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "vectors_save_memory: out of memory");
    if (rc != RO_SGNS_OK) {
        ro_sgns__free(alloc, m.p);
        return rc;
    }
    *out = m.p;
    *size = m.len;
    return rc;
}

#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_file(FILE *f, ro_sgns_vectors_format format,
                                                     size_t limit, ro_sgns_vectors **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_load_file: f is NULL");
    return ro_sgns_vectors_load_callback(ro_sgns__fread_fn, f, format, limit, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_load_path(const char *path,
                                                     ro_sgns_vectors_format format, size_t limit,
                                                     ro_sgns_vectors **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    FILE *f;
    ro_sgns_result rc;
    if (!path)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_load_path: path is NULL");
    f = fopen(path, "rb");
    if (!f)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s': %s", path,
                             strerror(errno));
    rc = ro_sgns_vectors_load_file(f, format, limit, out, alloc, err);
    fclose(f);
    if (rc != RO_SGNS_OK) ro_sgns__txt_name_path(err, path);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_file(const ro_sgns_vectors *v,
                                                     ro_sgns_vectors_format format, FILE *f,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    ro_sgns_result rc;
    if (!f)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_save_file: f is NULL");
    rc = ro_sgns_vectors_save_callback(v, format, ro_sgns__fwrite_fn, f, alloc, err);
    if (rc == RO_SGNS_OK && fflush(f) != 0)
        rc = ro_sgns__fail(err, RO_SGNS_ERR_IO, "vectors_save_file: flush failed");
    return rc;
}

/* What ro_sgns__save_atomic hands to the vectors writer. */
typedef struct ro_sgns__vec_save {
    const ro_sgns_vectors *v;
    ro_sgns_vectors_format format;
    const ro_sgns_allocator *alloc;
} ro_sgns__vec_save;

static ro_sgns_result ro_sgns__vectors_emit(const void *obj, ro_sgns_write_fn write, void *user,
                                            ro_sgns_error *err)
{
    const ro_sgns__vec_save *s = (const ro_sgns__vec_save *)obj;
    return ro_sgns_vectors_save_callback(s->v, s->format, write, user, s->alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_vectors_save_path(const ro_sgns_vectors *v,
                                                     ro_sgns_vectors_format format,
                                                     const char *path,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    ro_sgns__vec_save s;
    if (!path)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vectors_save_path: path is NULL");
    /* (the writer checks the whole object before its first byte) */
    s.v = v;
    s.format = format;
    s.alloc = alloc;
    return ro_sgns__save_atomic(path, ro_sgns__vectors_emit, &s, alloc, err);
}
#endif /* RO_SGNS_NO_STDIO */

#endif /* RO_SGNS_NO_FILES */

#ifndef RO_SGNS_NO_EVAL

/* ======================================================================
   III.6 Evaluation (RO_SGNS_NO_EVAL leaves it out)
   What: Spearman's rho between human similarity scores and the cosines of
   word pairs [4.2, Table 2]; nearest neighbours by cosine; analogies by
   3CosAdd and 3CosMul. Every result struct records its policy and counts
   (out-of-vocabulary pairs, case folding, top-N, excluded query words),
   and the _describe functions print them with the score.
   How: similarity in double, ranks averaged over ties; neighbours and
   analogies are a GEMM of unit queries by the matrix, 512 queries x 1024
   rows a block, each column scaled by the row's inverse norm (the matrix
   is never copied or normalized in place).
   Invariants: a zero vector has cosine 0 with everything; ties go to the
   lower row (the more frequent word); results never depend on the order
   of blocks.
   why, cost, gensim's calls: docs/DESIGN.md, III.6
   ====================================================================== */

/* Skip a UTF-8 byte order mark at the very start of a pair or question
   file (spreadsheets write one). */
static void ro_sgns__txt_skip_bom(ro_sgns__txt_in *in)
{
    int c = ro_sgns__txt_getc(in);
    ro_sgns__txt_unget(in, c);
    if (in->base == 0 && in->pos == 0 && in->len >= 3 && in->buf[0] == 0xEF && in->buf[1] == 0xBB &&
        in->buf[2] == 0xBF)
        in->pos = 3;
}

/* Take the rest of the line, '\n' included. */
static void ro_sgns__txt_skip_line(ro_sgns__txt_in *in)
{
    int c;
    while ((c = ro_sgns__txt_getc(in)) >= 0 && c != '\n') {
    }
}

/* The cosine of a and b with each scaled by its largest entry first: for
   entries so large (near DBL_MAX) that the plain sums overflow a double. */
static double ro_sgns__eval_cos_scaled(const ro_sgns_real *a, const ro_sgns_real *b, size_t d)
{
    double ma = ro_sgns__vec_absmax(a, d), mb = ro_sgns__vec_absmax(b, d), ab = 0, aa = 0,
           bb = 0;
    size_t i;
    if (ma == 0 || mb == 0) return 0;
    for (i = 0; i < d; ++i) {
        double x = (double)a[i] / ma, y = (double)b[i] / mb;
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    return ab / (RO_SGNS_SQRT(aa) * RO_SGNS_SQRT(bb));
}

RO_SGNS_DEF double ro_sgns_cosine(const ro_sgns_real *a, const ro_sgns_real *b, size_t d)
{
    double ab = 0, aa = 0, bb = 0, inf = HUGE_VAL;
    size_t i;
    if (!a || !b) return inf - inf; /* NaN: a missing word is not "unrelated" */
    for (i = 0; i < d; ++i) {
        ab += (double)a[i] * (double)b[i];
        aa += (double)a[i] * (double)a[i];
        bb += (double)b[i] * (double)b[i];
    }
    if (aa == 0 || bb == 0) return 0;
    if (!ro_sgns__is_finite(aa) || !ro_sgns__is_finite(bb)) return ro_sgns__eval_cos_scaled(a, b, d);
    return ab / (RO_SGNS_SQRT(aa) * RO_SGNS_SQRT(bb));
}

RO_SGNS_DEF ro_sgns_result ro_sgns_pearson(size_t n, const double *x, const double *y, double *r,
                                           ro_sgns_error *err)
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

RO_SGNS_DEF ro_sgns_result ro_sgns_spearman(size_t n, const double *x, const double *y, double *rho,
                                            const ro_sgns_allocator *alloc, ro_sgns_error *err)
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

/* The rest of the line's fields: up to maxf stored at buf + i (RO_SGNS_FILE_MAX_WORD
   + 1), lens[i] their full lengths, flags[i] TOO_LONG/HAS_NUL. Takes the
   '\n'. Returns the number of fields (may exceed maxf). */
static size_t ro_sgns__txt_fields(ro_sgns__txt_in *in, char *buf, size_t maxf, size_t *lens,
                                  int *flags)
{
    size_t nf = 0;
    int c, fl;
    char scratch[8];
    for (;;) {
        c = ro_sgns__txt_skip_blanks(in);
        if (c < 0 || c == '\n') break;
        if (nf < maxf) {
            lens[nf] = ro_sgns__txt_field(in, buf + nf * (RO_SGNS_FILE_MAX_WORD + 1),
                                          RO_SGNS_FILE_MAX_WORD + 1, &flags[nf]);
        } else {
            (void)ro_sgns__txt_field(in, scratch, sizeof scratch, &fl);
        }
        ++nf;
    }
    (void)ro_sgns__txt_getc(in);
    return nf;
}

/* Skip blank lines and comment lines ('#'), counting them in *line; the
   first byte of the next line with content, not taken, or -1 at the end. */
static int ro_sgns__txt_content(ro_sgns__txt_in *in, ro_sgns__ull *line)
{
    for (;; ++*line) {
        int c = ro_sgns__txt_skip_blanks(in);
        if (c != '#' && c != '\n') return c;
        ro_sgns__txt_skip_line(in);
    }
}

/* A FORMAT error for the first of count words whose ro_sgns__txt_field
   flags are set (too long, or a control byte). */
static ro_sgns_result ro_sgns__txt_words_ok(const int *flags, size_t count, ro_sgns__ull line,
                                            ro_sgns_error *err)
{
    size_t i;
    for (i = 0; i < count; ++i)
        if (flags[i])
            return ro_sgns__fail(
                err, RO_SGNS_ERR_FORMAT, "line %llu: word %d is %s", line, (int)i + 1,
                (flags[i] & RO_SGNS__TXT_TOO_LONG) ? "too long" : "has a control byte");
    return RO_SGNS_OK;
}

/* The end of a file of items: a read error, or none read (empty: the
   message). */
static ro_sgns_result ro_sgns__txt_end(const ro_sgns__txt_in *in, size_t items, const char *empty,
                                       ro_sgns_error *err)
{
    if (in->ioerr)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "read error at byte %llu",
                             ro_sgns__txt_offset(in));
    if (items == 0) return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "%s", empty);
    return RO_SGNS_OK;
}

/* The pairs object from the n pairs read: words 2i and 2i + 1 of s, score
   i; it takes s's pool and score (set to NULL). */
static ro_sgns_result ro_sgns__pairs_finish(ro_sgns__strpool *s, double **score, size_t n,
                                            ro_sgns_pairs **out, const ro_sgns_allocator *alloc,
                                            ro_sgns_error *err)
{
    char **w = (char **)ro_sgns__alloc_array(alloc, n, 2, sizeof(char *));
    ro_sgns_pairs *p = (ro_sgns_pairs *)ro_sgns__malloc(alloc, sizeof *p);
    size_t i;
    if (!w || !p) {
        ro_sgns__free(alloc, w);
        ro_sgns__free(alloc, p);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "pairs reader: no memory");
    }
    for (i = 0; i < 2 * n; ++i) w[i / 2 + (i % 2) * n] = s->pool + s->offs[i];
    memset(p, 0, sizeof *p);
    p->n = n;
    p->word1 = w;
    p->word2 = w + n;
    p->score = *score;
    p->pool_ = s->pool;
    if (alloc) p->alloc_ = *alloc;
    s->pool = NULL;
    *score = NULL;
    *out = p;
    return ro_sgns__ok(err);
}

static ro_sgns_result ro_sgns__pairs_parse(ro_sgns__txt_in *in, ro_sgns_pairs **out,
                                           const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__strpool s;
    ro_sgns__txt_num nf;
    char *buf = NULL;
    double *score = NULL, x;
    size_t scap = 0, nfld, lens[4], n = 0;
    int flags[4], c, code;
    ro_sgns__ull line = 1;
    ro_sgns_result rc = RO_SGNS_OK;
    void *q;
    if (!out) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "pairs reader: out is NULL");
    memset(&s, 0, sizeof s);
    ro_sgns__txt_num_init(&nf);
    buf = (char *)ro_sgns__alloc_array(alloc, 4, RO_SGNS_FILE_MAX_WORD + 1, 1);
    if (!buf) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "pairs reader: no memory");
    ro_sgns__txt_skip_bom(in);
    for (;; ++line) {
        c = ro_sgns__txt_content(in, &line);
        if (c < 0) break;
        nfld = ro_sgns__txt_fields(in, buf, 4, lens, flags);
        if (nfld < 3 || (nfld > 3 && buf[3 * (RO_SGNS_FILE_MAX_WORD + 1)] != '#')) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT,
                               "line %llu: %llu fields, expected 'word1 word2 score'", line,
                               (ro_sgns__ull)nfld);
            goto done;
        }
        if ((rc = ro_sgns__txt_words_ok(flags, 2, line, err)) != RO_SGNS_OK) goto done;
        code = flags[2] ? RO_SGNS__TXT_NUM_SYNTAX
                        : ro_sgns__txt_number(buf + 2 * (RO_SGNS_FILE_MAX_WORD + 1), lens[2], &nf,
                                              0, &x);
        if (code != RO_SGNS__TXT_NUM_OK) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: score is %s: '%.40s'", line,
                               ro_sgns__txt_num_problem(code),
                               buf + 2 * (RO_SGNS_FILE_MAX_WORD + 1));
            goto done;
        }
        if ((rc = ro_sgns__strpool_add(alloc, &s, buf, lens[0], err)) != RO_SGNS_OK ||
            (rc = ro_sgns__strpool_add(alloc, &s, buf + RO_SGNS_FILE_MAX_WORD + 1, lens[1], err)) !=
                RO_SGNS_OK ||
            (rc = ro_sgns__grow_array(alloc, score, &scap, n + 1, sizeof(double), &q, err)) !=
                RO_SGNS_OK)
            goto done;
        score = (double *)q;
        score[n++] = x;
    }
    rc = ro_sgns__txt_end(in, n, "no word pairs", err);
    if (rc == RO_SGNS_OK) rc = ro_sgns__pairs_finish(&s, &score, n, out, alloc, err);
done:
    ro_sgns__strpool_free(alloc, &s);
    ro_sgns__free(alloc, score);
    ro_sgns__free(alloc, buf);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_load_memory(const void *data, size_t size,
                                                     ro_sgns_pairs **out,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    ro_sgns__txt_in in;
    if (!data && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "pairs_load_memory: data is NULL");
    ro_sgns__txt_in_memory(&in, data, size);
    return ro_sgns__pairs_parse(&in, out, alloc, err);
}

RO_SGNS_DEF void ro_sgns_pairs_free(ro_sgns_pairs *p)
{
    ro_sgns_allocator al;
    if (!p) return;
    al = p->alloc_;
    ro_sgns__free(&al, p->word1); /* word2 lives in the same block */
    ro_sgns__free(&al, p->score);
    ro_sgns__free(&al, p->pool_);
    ro_sgns__free(&al, p);
}

/* The questions read so far: their words in the pool s, question i's
   first word at s.offs[first[i]], its section sect[i]; section j's name at
   s.offs[names[j]]. */
typedef struct ro_sgns__analogies_build {
    ro_sgns__strpool s;
    size_t *first, *names, *sect;
    size_t fcap, ncap, scap;
    size_t nq, ns; /* questions, sections */
} ro_sgns__analogies_build;

static void ro_sgns__analogies_build_free(ro_sgns__analogies_build *qb,
                                          const ro_sgns_allocator *alloc)
{
    ro_sgns__strpool_free(alloc, &qb->s);
    ro_sgns__free(alloc, qb->first);
    ro_sgns__free(alloc, qb->names);
    ro_sgns__free(alloc, qb->sect);
    memset(qb, 0, sizeof *qb);
}

/* A new section named name[0..len). */
static ro_sgns_result ro_sgns__analogies_name(ro_sgns__analogies_build *qb, const char *name,
                                              size_t len, const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    ro_sgns_result rc;
    void *q;
    if ((rc = ro_sgns__grow_array(alloc, qb->names, &qb->ncap, qb->ns + 1, sizeof(size_t), &q,
                                  err)) != RO_SGNS_OK)
        return rc;
    qb->names = (size_t *)q;
    qb->names[qb->ns++] = qb->s.n;
    return ro_sgns__strpool_add(alloc, &qb->s, name, len, err);
}

/* A line ": section name" (the ':' not yet taken): its name is the rest of
   the line, trimmed, at most RO_SGNS_FILE_MAX_WORD bytes of it (buf). */
static ro_sgns_result ro_sgns__analogies_section(ro_sgns__txt_in *in, ro_sgns__analogies_build *qb,
                                                 char *buf, ro_sgns__ull line,
                                                 const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    size_t len = 0, cap = RO_SGNS_FILE_MAX_WORD + 1;
    int c;
    (void)ro_sgns__txt_getc(in);
    ro_sgns__txt_skip_blanks(in);
    while ((c = ro_sgns__txt_getc(in)) >= 0 && c != '\n') {
        if (c == 0) return ro_sgns__fail(err, RO_SGNS_ERR_FORMAT, "line %llu: NUL byte", line);
        if (len + 1 < cap) buf[len++] = (char)c;
    }
    while (len > 0 && ro_sgns__txt_blank((unsigned char)buf[len - 1])) --len;
    return ro_sgns__analogies_name(qb, buf, len, alloc, err);
}

/* A question a b c d, its words at buf (RO_SGNS_FILE_MAX_WORD + 1 apart),
   lens their lengths; questions before any section go to section "". */
static ro_sgns_result ro_sgns__analogies_question(ro_sgns__analogies_build *qb, const char *buf,
                                                  const size_t *lens,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    ro_sgns_result rc;
    size_t i;
    void *q;
    if (qb->ns == 0 && (rc = ro_sgns__analogies_name(qb, "", 0, alloc, err)) != RO_SGNS_OK)
        return rc;
    if ((rc = ro_sgns__grow_array(alloc, qb->first, &qb->fcap, qb->nq + 1, sizeof(size_t), &q,
                                  err)) != RO_SGNS_OK)
        return rc;
    qb->first = (size_t *)q;
    if ((rc = ro_sgns__grow_array(alloc, qb->sect, &qb->scap, qb->nq + 1, sizeof(size_t), &q,
                                  err)) != RO_SGNS_OK)
        return rc;
    qb->sect = (size_t *)q;
    qb->first[qb->nq] = qb->s.n;
    qb->sect[qb->nq] = qb->ns - 1;
    ++qb->nq;
    for (i = 0; i < 4; ++i)
        if ((rc = ro_sgns__strpool_add(alloc, &qb->s, buf + i * (RO_SGNS_FILE_MAX_WORD + 1),
                                       lens[i], err)) != RO_SGNS_OK)
            return rc;
    return RO_SGNS_OK;
}

/* The analogies object from what was read; it takes qb's pool and sect
   (set to NULL). */
static ro_sgns_result ro_sgns__analogies_finish(ro_sgns__analogies_build *qb,
                                                ro_sgns_analogies **out,
                                                const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    size_t nq = qb->nq, ns = qb->ns, i, j;
    char **words = (char **)ro_sgns__alloc_array(alloc, nq, 4, sizeof(char *));
    char **snames = (char **)ro_sgns__alloc_array(alloc, ns, 1, sizeof(char *));
    ro_sgns_analogies *a = (ro_sgns_analogies *)ro_sgns__malloc(alloc, sizeof *a);
    if (!words || !snames || !a) {
        ro_sgns__free(alloc, words);
        ro_sgns__free(alloc, snames);
        ro_sgns__free(alloc, a);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogies reader: no memory");
    }
    for (i = 0; i < nq; ++i)
        for (j = 0; j < 4; ++j) words[4 * i + j] = qb->s.pool + qb->s.offs[qb->first[i] + j];
    for (i = 0; i < ns; ++i) snames[i] = qb->s.pool + qb->s.offs[qb->names[i]];
    memset(a, 0, sizeof *a);
    a->n = nq;
    a->words = words;
    a->section = qb->sect;
    a->nsections = ns;
    a->section_names = snames;
    a->pool_ = qb->s.pool;
    if (alloc) a->alloc_ = *alloc;
    qb->s.pool = NULL;
    qb->sect = NULL;
    *out = a;
    return ro_sgns__ok(err);
}

static ro_sgns_result ro_sgns__analogies_parse(ro_sgns__txt_in *in, ro_sgns_analogies **out,
                                               const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns__analogies_build qb;
    char *buf;
    size_t nfld, lens[5];
    int flags[5], c;
    ro_sgns__ull line = 1;
    ro_sgns_result rc = RO_SGNS_OK;
    if (!out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogies reader: out is NULL");
    memset(&qb, 0, sizeof qb);
    buf = (char *)ro_sgns__alloc_array(alloc, 5, RO_SGNS_FILE_MAX_WORD + 1, 1);
    if (!buf) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogies reader: no memory");
    ro_sgns__txt_skip_bom(in);
    for (;; ++line) {
        c = ro_sgns__txt_content(in, &line);
        if (c < 0) break;
        if (c == ':') {
            rc = ro_sgns__analogies_section(in, &qb, buf, line, alloc, err);
            if (rc != RO_SGNS_OK) goto done;
            continue;
        }
        nfld = ro_sgns__txt_fields(in, buf, 5, lens, flags);
        if (nfld != 4) {
            rc = ro_sgns__fail(
                err, RO_SGNS_ERR_FORMAT,
                "line %llu: %llu words, expected 4 ('a b c d': a is to b as c is to d)", line,
                (ro_sgns__ull)nfld);
            goto done;
        }
        if ((rc = ro_sgns__txt_words_ok(flags, 4, line, err)) != RO_SGNS_OK) goto done;
        rc = ro_sgns__analogies_question(&qb, buf, lens, alloc, err);
        if (rc != RO_SGNS_OK) goto done;
    }
    rc = ro_sgns__txt_end(in, qb.nq, "no analogy questions", err);
    if (rc == RO_SGNS_OK) rc = ro_sgns__analogies_finish(&qb, out, alloc, err);
done:
    ro_sgns__analogies_build_free(&qb, alloc);
    ro_sgns__free(alloc, buf);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_load_memory(const void *data, size_t size,
                                                         ro_sgns_analogies **out,
                                                         const ro_sgns_allocator *alloc,
                                                         ro_sgns_error *err)
{
    ro_sgns__txt_in in;
    if (!data && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "analogies_load_memory: data is NULL");
    ro_sgns__txt_in_memory(&in, data, size);
    return ro_sgns__analogies_parse(&in, out, alloc, err);
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
    ro_sgns__free(&al, q);
}

#ifndef RO_SGNS_NO_STDIO
/* Open path and run a reader over it as a stream; the file name goes in
   front of any message. */
typedef ro_sgns_result (*ro_sgns__txt_parser)(ro_sgns__txt_in *in, void *out,
                                              const ro_sgns_allocator *alloc, ro_sgns_error *err);

static ro_sgns_result ro_sgns__pairs_parse_any(ro_sgns__txt_in *in, void *out,
                                               const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    return ro_sgns__pairs_parse(in, (ro_sgns_pairs **)out, alloc, err);
}

static ro_sgns_result ro_sgns__analogies_parse_any(ro_sgns__txt_in *in, void *out,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err)
{
    return ro_sgns__analogies_parse(in, (ro_sgns_analogies **)out, alloc, err);
}

/* out is the T ** of the reader. */
static ro_sgns_result ro_sgns__txt_load_path(const char *path, ro_sgns__txt_parser reader,
                                             void *out, const ro_sgns_allocator *alloc,
                                             ro_sgns_error *err)
{
    ro_sgns__txt_in in;
    FILE *f;
    ro_sgns_result rc;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "load: path is NULL");
    f = fopen(path, "rb");
    if (!f)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s': %s", path,
                             strerror(errno));
    rc = ro_sgns__txt_in_cb(&in, ro_sgns__fread_fn, f, alloc, err);
    if (rc == RO_SGNS_OK) rc = reader(&in, out, alloc, err);
    ro_sgns__free(alloc, in.own);
    fclose(f);
    if (rc != RO_SGNS_OK) ro_sgns__txt_name_path(err, path);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_pairs_load_path(const char *path, ro_sgns_pairs **out,
                                                   const ro_sgns_allocator *alloc,
                                                   ro_sgns_error *err)
{
    if (!out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "pairs_load_path: out is NULL");
    return ro_sgns__txt_load_path(path, ro_sgns__pairs_parse_any, out, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_analogies_load_path(const char *path,
                                                       ro_sgns_analogies **out,
                                                       const ro_sgns_allocator *alloc,
                                                       ro_sgns_error *err)
{
    if (!out)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "analogies_load_path: out is NULL");
    return ro_sgns__txt_load_path(path, ro_sgns__analogies_parse_any, out, alloc, err);
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
    char **fwords;  /* limit pointers into v->words (compared folded) */
    size_t *fslots; /* folded table */
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

/* Do the NUL-terminated o and w[0..len) agree with both folded? */
static int ro_sgns__eval_same_folded(const char *o, const char *w, size_t len)
{
    size_t t;
    for (t = 0; t < len; ++t)
        if (!o[t] ||
            ro_sgns__ascii_lower((unsigned char)o[t]) != ro_sgns__ascii_lower((unsigned char)w[t]))
            return 0;
    return o[len] == '\0';
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
    size = ro_sgns__vec_table_size(L->limit);
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
        size_t len = strlen(w), i = (size_t)ro_sgns__vec_hash(w, len, 1) & L->fmask;
        for (;;) { /* probe comparing both sides folded */
            size_t s = L->fslots[i];
            if (s == 0 || ro_sgns__eval_same_folded(v->words[s - 1], w, len)) break;
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
    size_t len = strlen(word), i, s;
    if (!L->fold) {
        if (!ro_sgns__vec_find(L->v, word, len, &s) || s >= L->limit) return 0;
        *row = s;
        return 1;
    }
    i = (size_t)ro_sgns__vec_hash(word, len, 1) & L->fmask;
    for (;;) {
        s = L->fslots[i];
        if (s == 0) return 0;
        if (ro_sgns__eval_same_folded(L->v->words[s - 1], word, len)) {
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

RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval(
    const ro_sgns_vectors *v, const ro_sgns_pairs *pairs, const ro_sgns_similarity_config *cfg,
    ro_sgns_similarity_result *res, const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns_similarity_config c = cfg ? *cfg : ro_sgns_similarity_config_default();
    ro_sgns__eval_lookup L;
    ro_sgns_similarity_result r;
    double *human = NULL, *cosv;
    size_t i, r1 = 0, r2 = 0, used = 0, oov = 0;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "similarity_eval", err)) != RO_SGNS_OK) return rc;
    if (!pairs || !res || (pairs->n && (!pairs->word1 || !pairs->word2 || !pairs->score)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "similarity_eval: NULL pairs or res");
    if (c.oov != RO_SGNS_OOV_SKIP && c.oov != RO_SGNS_OOV_ZERO)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "similarity_eval: unknown oov policy");
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
                 "similarity_eval: %llu of %llu pairs out of vocabulary (%s): %.128s",
                 (ro_sgns__ull)oov, (ro_sgns__ull)pairs->n,
                 c.oov == RO_SGNS_OOV_SKIP ? "skipped" : "scored 0", msg);
    }
    ro_sgns__free(alloc, human);
    ro_sgns__eval_lookup_free(&L, alloc);
    if (rc != RO_SGNS_OK) return rc;
    *res = r;
    return ro_sgns__ok(err);
}

#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_eval_path(const ro_sgns_vectors *v, const char *path,
                                                        const ro_sgns_similarity_config *cfg,
                                                        ro_sgns_similarity_result *res,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    ro_sgns_pairs *p;
    ro_sgns_result rc = ro_sgns_pairs_load_path(path, &p, alloc, err);
    if (rc != RO_SGNS_OK) return rc;
    rc = ro_sgns_similarity_eval(v, p, cfg, res, alloc, err);
    ro_sgns_pairs_free(p);
    return rc;
}
#endif

RO_SGNS_DEF int ro_sgns_similarity_describe(const ro_sgns_similarity_result *res, char *buf,
                                            size_t size)
{
    char rows[64];
    if (!res || !buf) return -1;
    if (res->vocab_rows && res->config.restrict_vocab &&
        res->config.restrict_vocab <= res->vocab_rows)
        snprintf(rows, sizeof rows, "first %llu rows", (ro_sgns__ull)res->vocab_rows);
    else
        snprintf(rows, sizeof rows, "all %llu rows", (ro_sgns__ull)res->vocab_rows);
    if (res->config.oov == RO_SGNS_OOV_SKIP)
        return snprintf(
            buf, size,
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

#define RO_SGNS__EVAL_QB 512  /* queries (questions) per block */
#define RO_SGNS__EVAL_NB 1024 /* matrix rows per block */

/* inv[r] = 1 / ||row r|| for r < rows (0 for a zero row, -1 where the
   squares overflow a double: ro_sgns__eval_cos then starts again). */
static void ro_sgns__eval_inv_norms(const ro_sgns_vectors *v, size_t rows, double *inv)
{
    size_t r, j;
    for (r = 0; r < rows; ++r) {
        const ro_sgns_real *x = v->data + r * v->d;
        double s = 0;
        for (j = 0; j < v->d; ++j) s += (double)x[j] * (double)x[j];
        inv[r] = s > 0 ? 1.0 / RO_SGNS_SQRT(s) : 0.0;
        if (!ro_sgns__is_finite(s)) inv[r] = -1;
    }
}

/* The cosine of a unit query q with row x from s, their dot product in
   the real type (a GEMM's). Where s or x's norm overflowed (entries near
   the largest real), from scratch, scaled. */
static double ro_sgns__eval_cos(ro_sgns_real s, const ro_sgns_real *q, const ro_sgns_real *x,
                                size_t d, double inv)
{
    double c = (double)s * inv;
    return inv >= 0 && ro_sgns__is_finite(c) ? c : ro_sgns__eval_cos_scaled(q, x, d);
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

/* The rows a neighbour search may return: [0, nrows), less exclude[i]
   (NULL = none; RO_SGNS_NO_ROW = none) for query i and skip[0 .. nskip)
   for every query. */
typedef struct ro_sgns__eval_rows {
    size_t nrows;
    const size_t *exclude;
    const size_t *skip;
    size_t nskip;
} ro_sgns__eval_rows;

/* Is row one of skip[0 .. nskip)? (A handful of query words: a scan.) */
static int ro_sgns__eval_skipped(const ro_sgns__eval_rows *R, size_t row)
{
    size_t t;
    for (t = 0; t < R->nskip; ++t)
        if (R->skip[t] == row) return 1;
    return 0;
}

/* ro_sgns_neighbors_of_vectors over the rows R allows (v checked). */
static ro_sgns_result ro_sgns__eval_neighbors(const ro_sgns_vectors *v, const ro_sgns__eval_rows *R,
                                              size_t nq, const ro_sgns_real *queries, size_t ldq,
                                              size_t k, ro_sgns_neighbor *out, size_t *count,
                                              const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    double *inv = NULL;
    ro_sgns_real *Q = NULL, *S = NULL;
    size_t *size = NULL, q0, qb, r0, nb, i, j, d = v->d, nrows = R->nrows;
    ro_sgns_result rc;
    if (nq == 0 || k == 0) return ro_sgns__ok(err);
    if (!queries || !out || ldq < d)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "neighbors: NULL queries or out, or ldq < d");
    inv = (double *)ro_sgns__alloc_array(alloc, nrows, 1, sizeof(double));
    Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, ro_sgns__min(RO_SGNS__EVAL_QB, nq), d,
                                             sizeof(ro_sgns_real));
    S = (ro_sgns_real *)ro_sgns__alloc_array(alloc, ro_sgns__min(RO_SGNS__EVAL_QB, nq),
                                             ro_sgns__min(RO_SGNS__EVAL_NB, nrows),
                                             sizeof(ro_sgns_real));
    size = (size_t *)ro_sgns__alloc_array(alloc, ro_sgns__min(RO_SGNS__EVAL_QB, nq), 1,
                                          sizeof(size_t));
    if (!inv || !Q || !S || !size) {
        rc =
            ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "neighbors: no memory for the workspace");
        goto done;
    }
    ro_sgns__eval_inv_norms(v, nrows, inv);
    for (q0 = 0; q0 < nq; q0 += qb) {
        qb = ro_sgns__min(RO_SGNS__EVAL_QB, nq - q0);
        for (i = 0; i < qb; ++i) {
            ro_sgns__vec_unit(queries + (q0 + i) * ldq, d, Q + i * d);
            size[i] = 0;
        }
        for (r0 = 0; r0 < nrows; r0 += nb) {
            nb = ro_sgns__min(RO_SGNS__EVAL_NB, nrows - r0);
            /* S = Q * rows^T: qb x nb dot products */
            rc = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, qb, nb, d, 1, Q, d, v->data + r0 * d,
                              d, 0, S, nb, alloc, err);
            if (rc != RO_SGNS_OK) goto done;
            for (i = 0; i < qb; ++i) {
                size_t ex = R->exclude ? R->exclude[q0 + i] : RO_SGNS_NO_ROW;
                for (j = 0; j < nb; ++j)
                    if (r0 + j != ex && !ro_sgns__eval_skipped(R, r0 + j))
                        ro_sgns__eval_heap_offer(
                            out + (q0 + i) * k, &size[i], k, r0 + j,
                            ro_sgns__eval_cos(S[i * nb + j], Q + i * d, v->data + (r0 + j) * d,
                                              d, inv[r0 + j]));
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

RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_vectors(const ro_sgns_vectors *v, size_t nq,
                                                        const ro_sgns_real *queries, size_t ldq,
                                                        const size_t *exclude, size_t k,
                                                        ro_sgns_neighbor *out, size_t *count,
                                                        const ro_sgns_allocator *alloc,
                                                        ro_sgns_error *err)
{
    ro_sgns__eval_rows R;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "neighbors", err)) != RO_SGNS_OK) return rc;
    R.nrows = v->n;
    R.exclude = exclude;
    R.skip = NULL;
    R.nskip = 0;
    return ro_sgns__eval_neighbors(v, &R, nq, queries, ldq, k, out, count, alloc, err);
}

/* The row of a query word of who: RO_SGNS_ERR_NOT_FOUND naming it when it
   is not in v. */
static ro_sgns_result ro_sgns__eval_word_row(const ro_sgns_vectors *v, const char *word,
                                             size_t *row, const char *who, ro_sgns_error *err)
{
    if (!word) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "%s: a word is NULL", who);
    if (!ro_sgns_vectors_find(v, word, row))
        return ro_sgns__fail(err, RO_SGNS_ERR_NOT_FOUND, "'%.100s' is not in the vocabulary", word);
    return RO_SGNS_OK;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_neighbors_of_word(const ro_sgns_vectors *v, const char *word,
                                                     size_t k, ro_sgns_neighbor *out, size_t *count,
                                                     const ro_sgns_allocator *alloc,
                                                     ro_sgns_error *err)
{
    size_t row;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "neighbors_of_word", err)) != RO_SGNS_OK ||
        (rc = ro_sgns__eval_word_row(v, word, &row, "neighbors_of_word", err)) != RO_SGNS_OK)
        return rc;
    if (k == 0) {
        if (count) *count = 0;
        return ro_sgns__ok(err);
    }
    return ro_sgns_neighbors_of_vectors(v, 1, v->data + row * v->d, v->d, &row, k, out, count,
                                        alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_similarity_of_words(const ro_sgns_vectors *v,
                                                       const char *word1, const char *word2,
                                                       double *sim, ro_sgns_error *err)
{
    size_t r1 = 0, r2 = 0; /* (set on success; gcc -O3 cannot see it) */
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "similarity_of_words", err)) != RO_SGNS_OK) return rc;
    if (!sim)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "similarity_of_words: sim is NULL");
    if ((rc = ro_sgns__eval_word_row(v, word1, &r1, "similarity_of_words", err)) != RO_SGNS_OK ||
        (rc = ro_sgns__eval_word_row(v, word2, &r2, "similarity_of_words", err)) != RO_SGNS_OK)
        return rc;
    *sim = ro_sgns_cosine(v->data + r1 * v->d, v->data + r2 * v->d, v->d);
    return ro_sgns__ok(err);
}

/* q += sign x / ||x||, each term rounded once to the real type and summed
   there, as gensim sums its float32 unit vectors; scaled first where the
   squares overflow a double; a zero x adds nothing. */
static void ro_sgns__eval_add_unit(ro_sgns_real *q, const ro_sgns_real *x, size_t d, double sign)
{
    double m, s = ro_sgns__vec_norm2(x, d, &m), nrm;
    size_t j;
    if (!(s > 0)) return;
    nrm = RO_SGNS_SQRT(s);
    for (j = 0; j < d; ++j) q[j] += (ro_sgns_real)(sign * ((double)x[j] / m) / nrm);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_most_similar(const ro_sgns_vectors *v,
                                                const ro_sgns_similar_query *query, size_t k,
                                                ro_sgns_neighbor *out, size_t *count,
                                                const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    static const ro_sgns_similar_query none = {NULL, 0, NULL, 0, 0};
    const ro_sgns_similar_query *qy = query ? query : &none;
    const char *const *positive = qy->positive, *const *negative = qy->negative;
    const size_t npositive = qy->npositive, nnegative = qy->nnegative;
    const size_t restrict_vocab = qy->restrict_vocab;
    ro_sgns__eval_rows R;
    ro_sgns_real *q = NULL;
    size_t *rows = NULL, nw = npositive + nnegative, i, d;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "most_similar", err)) != RO_SGNS_OK) return rc;
    d = v->d;
    if (!query || nw == 0 || nw < npositive || (npositive && !positive) || (nnegative && !negative) ||
        (k && !out))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "most_similar: no query word, or NULL words or out");
    rows = (size_t *)ro_sgns__alloc_array(alloc, nw, 1, sizeof(size_t));
    q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, 1, sizeof(ro_sgns_real));
    if (!rows || !q) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "most_similar: no memory");
        goto done;
    }
    for (i = 0; i < d; ++i) q[i] = 0;
    for (i = 0; i < nw; ++i) {
        const char *w = i < npositive ? positive[i] : negative[i - npositive];
        if ((rc = ro_sgns__eval_word_row(v, w, &rows[i], "most_similar", err)) != RO_SGNS_OK)
            goto done;
        ro_sgns__eval_add_unit(q, v->data + rows[i] * d, d, i < npositive ? 1.0 : -1.0);
    }
    for (i = 0; i < d && q[i] == 0; ++i) {}
    if (i == d) { /* zero rows, or words that cancel: every cosine would be 0 */
        rc = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                           "most_similar: the query is the zero vector: no cosine is defined");
        goto done;
    }
    if (k == 0) {
        if (count) *count = 0;
        rc = ro_sgns__ok(err);
        goto done;
    }
    R.nrows = (restrict_vocab && restrict_vocab < v->n) ? restrict_vocab : v->n;
    R.exclude = NULL;
    R.skip = rows;
    R.nskip = nw;
    rc = ro_sgns__eval_neighbors(v, &R, 1, q, d, k, out, count, alloc, err);
done:
    ro_sgns__free(alloc, rows);
    ro_sgns__free(alloc, q);
    return rc;
}

/* The cosine of the unit vector u (d reals) with mean (d doubles, squared
   norm mm): 0 when either is zero. */
static double ro_sgns__eval_cos_mean(const ro_sgns_real *u, const double *mean, double mm, size_t d)
{
    double uu = 0, um = 0;
    size_t j;
    for (j = 0; j < d; ++j) {
        uu += (double)u[j] * (double)u[j];
        um += (double)u[j] * mean[j];
    }
    return (uu > 0 && mm > 0) ? um / (RO_SGNS_SQRT(uu) * RO_SGNS_SQRT(mm)) : 0.0;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_doesnt_match(const ro_sgns_vectors *v,
                                                const char *const *words, size_t nwords,
                                                size_t *which, double *sims,
                                                const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    double *mean, mm = 0, best = 0;
    ro_sgns_real *u;
    size_t i, j, row = 0, d, pick = 0;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "doesnt_match", err)) != RO_SGNS_OK) return rc;
    if (nwords == 0) return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "doesnt_match: no words");
    if (!words || !which)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "doesnt_match: NULL words or which");
    for (i = 0; i < nwords; ++i)
        if ((rc = ro_sgns__eval_word_row(v, words[i], &row, "doesnt_match", err)) != RO_SGNS_OK)
            return rc;
    d = v->d;
    mean = (double *)ro_sgns__alloc_array(alloc, d, 1, sizeof(double));
    u = (ro_sgns_real *)ro_sgns__alloc_array(alloc, d, 1, sizeof(ro_sgns_real));
    if (!mean || !u) {
        ro_sgns__free(alloc, mean);
        ro_sgns__free(alloc, u);
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "doesnt_match: no memory");
    }
    for (j = 0; j < d; ++j) mean[j] = 0;
    for (i = 0; i < nwords; ++i) { /* the sum: the mean's direction */
        (void)ro_sgns_vectors_find(v, words[i], &row);
        ro_sgns__vec_unit(v->data + row * d, d, u);
        for (j = 0; j < d; ++j) mean[j] += (double)u[j];
    }
    for (j = 0; j < d; ++j) mm += mean[j] * mean[j];
    for (i = 0; i < nwords; ++i) {
        double c;
        (void)ro_sgns_vectors_find(v, words[i], &row);
        ro_sgns__vec_unit(v->data + row * d, d, u);
        c = ro_sgns__eval_cos_mean(u, mean, mm, d);
        if (sims) sims[i] = c;
        if (i == 0 || c < best) {
            best = c;
            pick = i;
        }
    }
    *which = pick;
    ro_sgns__free(alloc, mean);
    ro_sgns__free(alloc, u);
    return ro_sgns__ok(err);
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

/* The checks of ro_sgns_analogy_eval's arguments. */
static ro_sgns_result ro_sgns__eval_analogy_check(const ro_sgns_vectors *v,
                                                  const ro_sgns_analogies *q,
                                                  const ro_sgns_analogy_config *c,
                                                  ro_sgns_analogy_result **out, ro_sgns_error *err)
{
    size_t i;
    ro_sgns_result rc;
    if ((rc = ro_sgns__eval_check_vectors(v, "analogy_eval", err)) != RO_SGNS_OK) return rc;
    if (!q || !out || (q->n && (!q->words || !q->section)) || (q->nsections && !q->section_names))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "analogy_eval: NULL questions or out");
    if (c->method != RO_SGNS_3COSADD && c->method != RO_SGNS_3COSMUL)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "analogy_eval: unknown method");
    if (c->method == RO_SGNS_3COSMUL && !(c->epsilon > 0 && ro_sgns__is_finite(c->epsilon)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "analogy_eval: 3CosMul needs epsilon > 0");
    for (i = 0; i < q->n; ++i)
        if (q->section[i] >= q->nsections)
            return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                                 "analogy_eval: question %llu has section %llu of %llu",
                                 (ro_sgns__ull)i, (ro_sgns__ull)q->section[i],
                                 (ro_sgns__ull)q->nsections);
    return RO_SGNS_OK;
}

/* The result's own block *mem: room for the struct (copied in at the
   end), then its sections (r->sections), then their names, copied. */
static ro_sgns_result ro_sgns__eval_analogy_block(const ro_sgns_analogies *q,
                                                  ro_sgns_analogy_result *r, unsigned char **mem,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    size_t names = 0, i, bytes;
    int of = 0;
    for (i = 0; i < q->nsections; ++i) names += strlen(q->section_names[i]) + 1;
    bytes = ro_sgns__mul(q->nsections, sizeof(ro_sgns_analogy_section), &of);
    if (of || bytes > (size_t)-1 - names - sizeof *r)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "analogy_eval: too many sections");
    bytes += sizeof *r; /* the sections start after the struct, aligned as it is */
    *mem = (unsigned char *)ro_sgns__malloc(alloc, bytes + names);
    if (!*mem) return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY, "analogy_eval: no memory");
    r->sections = (ro_sgns_analogy_section *)(void *)(*mem + sizeof *r);
    names = bytes;
    for (i = 0; i < q->nsections; ++i) {
        size_t len = strlen(q->section_names[i]) + 1;
        memcpy(*mem + names, q->section_names[i], len);
        r->sections[i].name = (const char *)(*mem + names);
        r->sections[i].total = r->sections[i].seen = r->sections[i].correct = 0;
        names += len;
    }
    return RO_SGNS_OK;
}

/* ro_sgns_analogy_eval's workspace. */
typedef struct ro_sgns__eval_aws {
    size_t per;        /* query rows per question: 1 (3CosAdd) or 3 (3CosMul) */
    size_t nseen;      /* questions with all four words in the vocabulary */
    size_t *rows;      /* 4 a question: the rows of a, b, c, d */
    size_t *qidx;      /* nseen: those questions, in order */
    double *inv;       /* the vocabulary rows' inverse norms */
    ro_sgns_real *Q;   /* the queries of a block of questions, d each */
    ro_sgns_real *S;   /* their dot products with a block of rows */
    ro_sgns_real *tmp; /* 3 d: a^, b^, c^ */
    double *best;      /* a question's best score so far ... */
    size_t *bestrow;   /* ... and its row */
} ro_sgns__eval_aws;

static void ro_sgns__eval_aws_free(ro_sgns__eval_aws *w, const ro_sgns_allocator *alloc)
{
    ro_sgns__free(alloc, w->rows);
    ro_sgns__free(alloc, w->qidx);
    ro_sgns__free(alloc, w->inv);
    ro_sgns__free(alloc, w->Q);
    ro_sgns__free(alloc, w->S);
    ro_sgns__free(alloc, w->tmp);
    ro_sgns__free(alloc, w->best);
    ro_sgns__free(alloc, w->bestrow);
}

/* The workspace for q's questions over nrows rows of d values. */
static ro_sgns_result ro_sgns__eval_aws_alloc(ro_sgns__eval_aws *w, const ro_sgns_analogies *q,
                                              size_t nrows, size_t d,
                                              const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    size_t qmax = ro_sgns__min(RO_SGNS__EVAL_QB, q->n ? q->n : 1); /* questions per block */
    w->rows = (size_t *)ro_sgns__alloc_array(alloc, q->n ? q->n : 1, 4, sizeof(size_t));
    w->qidx = (size_t *)ro_sgns__alloc_array(alloc, q->n ? q->n : 1, 1, sizeof(size_t));
    w->inv = (double *)ro_sgns__alloc_array(alloc, nrows, 1, sizeof(double));
    w->Q = (ro_sgns_real *)ro_sgns__alloc_array(alloc, qmax * w->per, d, sizeof(ro_sgns_real));
    w->S = (ro_sgns_real *)ro_sgns__alloc_array(
        alloc, qmax * w->per, ro_sgns__min(RO_SGNS__EVAL_NB, nrows), sizeof(ro_sgns_real));
    w->tmp = (ro_sgns_real *)ro_sgns__alloc_array(alloc, 3, d, sizeof(ro_sgns_real));
    w->best = (double *)ro_sgns__alloc_array(alloc, qmax, 1, sizeof(double));
    w->bestrow = (size_t *)ro_sgns__alloc_array(alloc, qmax, 1, sizeof(size_t));
    if (!w->rows || !w->qidx || !w->inv || !w->Q || !w->S || !w->tmp || !w->best || !w->bestrow)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "analogy_eval: no memory for the workspace");
    return RO_SGNS_OK;
}

/* The queries of questions [q0, q0 + qb) of the seen ones, and no best
   row yet. */
static void ro_sgns__eval_analogy_queries(const ro_sgns_vectors *v, ro_sgns__eval_aws *w, size_t q0,
                                          size_t qb)
{
    size_t i, j, t, d = v->d;
    ro_sgns_real *Q = w->Q, *tmp = w->tmp;
    for (i = 0; i < qb; ++i) {
        const size_t *rw = w->rows + 4 * w->qidx[q0 + i];
        for (t = 0; t < 3; ++t) ro_sgns__vec_unit(v->data + rw[t] * d, d, tmp + t * d);
        if (w->per == 1) /* 3CosAdd: one query b^ - a^ + c^ */
            for (j = 0; j < d; ++j) Q[i * d + j] = tmp[d + j] - tmp[j] + tmp[2 * d + j];
        else /* 3CosMul: a^, b^, c^ */
            memcpy(Q + 3 * i * d, tmp, 3 * d * sizeof(ro_sgns_real));
        w->best[i] = 0;
        w->bestrow[i] = RO_SGNS_NO_ROW;
    }
}

/* Score rows [r0, r0 + nb) for the qb questions of the block from w->S,
   keeping each question's best row. */
static void ro_sgns__eval_analogy_scan(const ro_sgns_vectors *v, const ro_sgns__eval_lookup *L,
                                       const ro_sgns_analogy_config *c, ro_sgns__eval_aws *w,
                                       size_t q0, size_t qb, size_t r0, size_t nb)
{
    size_t i, j, d = v->d;
    const ro_sgns_real *Q = w->Q, *S = w->S;
    const double *inv = w->inv;
    for (i = 0; i < qb; ++i) {
        const size_t *rw = w->rows + 4 * w->qidx[q0 + i];
        for (j = 0; j < nb; ++j) {
            size_t x = r0 + j;
            const ro_sgns_real *xr = v->data + x * d;
            double s;
            if (L->fold && !L->canon[x]) continue;
            if (c->exclude_query_words && (x == rw[0] || x == rw[1] || x == rw[2])) continue;
            if (w->per == 1) {
                s = ro_sgns__eval_cos(S[i * nb + j], Q + i * d, xr, d, inv[x]);
            } else {
                double ca = 0.5 * (1.0 + ro_sgns__eval_cos(S[(3 * i) * nb + j], Q + 3 * i * d, xr,
                                                           d, inv[x]));
                double cb = 0.5 * (1.0 + ro_sgns__eval_cos(S[(3 * i + 1) * nb + j],
                                                           Q + (3 * i + 1) * d, xr, d, inv[x]));
                double cc = 0.5 * (1.0 + ro_sgns__eval_cos(S[(3 * i + 2) * nb + j],
                                                           Q + (3 * i + 2) * d, xr, d, inv[x]));
                s = cb * cc / (ca + c->epsilon);
            }
            if (w->bestrow[i] == RO_SGNS_NO_ROW || s > w->best[i]) {
                w->best[i] = s;
                w->bestrow[i] = x;
            }
        }
    }
}

/* Count the block's questions seen, and correct where the best row is d. */
static void ro_sgns__eval_analogy_tally(const ro_sgns_analogies *q, const ro_sgns__eval_aws *w,
                                        ro_sgns_analogy_result *r, size_t q0, size_t qb)
{
    size_t i;
    for (i = 0; i < qb; ++i) {
        size_t qi = w->qidx[q0 + i];
        ro_sgns_analogy_section *sec = &r->sections[q->section[qi]];
        sec->seen++;
        r->seen++;
        if (w->bestrow[i] == w->rows[4 * qi + 3]) {
            sec->correct++;
            r->correct++;
        }
    }
}

RO_SGNS_DEF ro_sgns_result ro_sgns_analogy_eval(const ro_sgns_vectors *v,
                                                const ro_sgns_analogies *q,
                                                const ro_sgns_analogy_config *cfg,
                                                ro_sgns_analogy_result **out,
                                                const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
    ro_sgns_analogy_config c = cfg ? *cfg : ro_sgns_analogy_config_default();
    ro_sgns__eval_lookup L;
    ro_sgns_analogy_result r;
    ro_sgns__eval_aws w;
    size_t i, j, d, nrows, q0, qb, r0, nb;
    unsigned char *mem = NULL;
    ro_sgns_result rc;
    memset(&L, 0, sizeof L);
    memset(&w, 0, sizeof w);
    if ((rc = ro_sgns__eval_analogy_check(v, q, &c, out, err)) != RO_SGNS_OK) return rc;
    d = v->d;
    w.per = c.method == RO_SGNS_3COSMUL ? 3 : 1;
    memset(&r, 0, sizeof r);
    r.config = c;
    r.total = q->n;
    r.nsections = q->nsections;
    if ((rc = ro_sgns__eval_analogy_block(q, &r, &mem, alloc, err)) != RO_SGNS_OK) goto done;
    if ((rc = ro_sgns__eval_lookup_init(&L, v, c.restrict_vocab, c.fold_case, alloc, err)) !=
        RO_SGNS_OK)
        goto done;
    nrows = L.limit;
    r.vocab_rows = nrows;
    if ((rc = ro_sgns__eval_aws_alloc(&w, q, nrows, d, alloc, err)) != RO_SGNS_OK) goto done;
    /* resolve the words; questions with one out of vocabulary are skipped */
    for (i = 0; i < q->n; ++i) {
        int ok = 1;
        r.sections[q->section[i]].total++;
        for (j = 0; j < 4 && ok; ++j)
            ok = ro_sgns__eval_lookup_find(&L, q->words[4 * i + j], &w.rows[4 * i + j]);
        if (ok) w.qidx[w.nseen++] = i;
    }
    ro_sgns__eval_inv_norms(v, nrows, w.inv);
    for (q0 = 0; q0 < w.nseen; q0 += qb) {
        qb = ro_sgns__min(RO_SGNS__EVAL_QB, w.nseen - q0);
        ro_sgns__eval_analogy_queries(v, &w, q0, qb);
        for (r0 = 0; r0 < nrows; r0 += nb) {
            nb = ro_sgns__min(RO_SGNS__EVAL_NB, nrows - r0);
            rc = ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, qb * w.per, nb, d, 1, w.Q, d,
                              v->data + r0 * d, d, 0, w.S, nb, alloc, err);
            if (rc != RO_SGNS_OK) goto done;
            ro_sgns__eval_analogy_scan(v, &L, &c, &w, q0, qb, r0, nb);
        }
        ro_sgns__eval_analogy_tally(q, &w, &r, q0, qb);
    }
    r.skipped = r.total - r.seen;
    r.accuracy = r.seen ? (double)r.correct / (double)r.seen : 0.0;
    if (alloc) r.alloc_ = *alloc;
    memcpy(mem, &r, sizeof r);
    *out = (ro_sgns_analogy_result *)(void *)mem;
    mem = NULL;
    rc = ro_sgns__ok(err);
done:
    ro_sgns__eval_lookup_free(&L, alloc);
    ro_sgns__free(alloc, mem);
    ro_sgns__eval_aws_free(&w, alloc);
    return rc;
}

RO_SGNS_DEF void ro_sgns_analogy_result_free(ro_sgns_analogy_result *res)
{
    ro_sgns_allocator al;
    if (!res) return;
    al = res->alloc_;
    ro_sgns__free(&al, res); /* one block with its sections */
}

RO_SGNS_DEF int ro_sgns_analogy_describe(const ro_sgns_analogy_result *res, char *buf, size_t size)
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

#endif /* RO_SGNS_NO_EVAL */

#ifndef RO_SGNS_NO_SGD

/* ======================================================================
   III.7 SGD-SGNS baseline (word2vec) (RO_SGNS_NO_SGD leaves it out)
         [paper 4: the "SGD-SGNS" of Tables 1-2; Mikolov et al. 2013]
   WHAT: skip-gram with negative sampling trained pair by pair over the
     token stream: the same objective F(X) [eq. 4] by stochastic steps,
     with III.1's tokenizer and vocabulary and III.6's evaluation.
   HOW: (a) read the text as III.1 does into a stream of vocabulary ids
     and LINE marks; (b) tables: unigram^0.75 alias table, subsampling
     thresholds, sigmoid table, W and C padded to ld (C = 0); (c) train:
     blocks of RO_SGNS_SGD_BLOCK positions, worker t of T takes blocks
     [tB/T, (t+1)B/T) every epoch, one ro_sgns__sgd_step per (centre,
     context), the learning rate set at each block's start; (d) W and C
     checked for NaN/Inf and copied out.
   INVARIANTS: every id in the stream is < n or LINE, and no two LINE are
     adjacent; the padding columns d..ld-1 of W and C are 0 and stay 0 (a
     step adds g * 0 to them); the draws of block b in epoch e come from
     stream (seed, 1 + e B + b) and W's initial values from stream
     (seed, 0), whatever the thread count; with one worker the learning
     rate of each block is a function of the block only, so one-thread
     runs are bitwise reproducible. Hogwild: with several workers rows of
     W and C are read and written by several threads without locks.
   why, cost: docs/DESIGN.md, III.7
   ====================================================================== */

#define RO_SGNS__SGD_LINE 0xFFFFFFFFu /* stream mark: a line break */
#define RO_SGNS__SGD_ALWAYS 0xFFFFFFFFu /* subsampling threshold: keep, draw nothing */
#define RO_SGNS__SGD_MAX_EXP 6        /* the sigmoid table covers [-6, 6] (word2vec) */
#define RO_SGNS__SGD_EXP_SIZE 1000    /* intervals of the table (word2vec) */
#define RO_SGNS__SGD_LANES (64 / sizeof(ro_sgns_real)) /* ld is a multiple */
#define RO_SGNS__SGD_READ 65536       /* bytes per read of a stream */

#ifndef RO_SGNS__PREFETCH
#if defined(__GNUC__) || defined(__clang__)
#define RO_SGNS__PREFETCH(p) __builtin_prefetch(p)
#else
#define RO_SGNS__PREFETCH(p) ((void)0)
#endif
#endif

RO_SGNS_DEF ro_sgns_sgd_config ro_sgns_sgd_config_default(void)
{
    ro_sgns_sgd_config c;
    c.size = 100;
    c.window = 5;
    c.negative = 5;
    c.alpha = 0.025;
    c.sample = 0;
    c.epochs = 5;
    c.share = 1;
    c.threads = 0;
    c.workers = 0;
    c.sync = 64;
    c.seed = 1;
    c.report_words = 100000;
    c.callback = NULL;
    c.user = NULL;
    c.start_w = NULL;
    c.start_c = NULL;
    c.start_round = 0;
    c.save = NULL;
    c.save_rounds = 1;
    c.save_seconds = 0;
    return c;
}

/* ---- (a) reading: text -> a stream of vocabulary ids -------------------- */

typedef struct ro_sgns__sgd_reader {
    const ro_sgns_vocab *vocab;
    const ro_sgns_allocator *al;
    ro_sgns_error *err;
    uint32_t *id;   /* the stream */
    size_t len, cap;
    uint64_t words; /* vocabulary tokens in it (len minus the LINE marks) */
    size_t cur;     /* bytes of the current token in word[] (at most MAX + 1) */
    unsigned char word[RO_SGNS_MAX_WORD_BYTES + 1];
} ro_sgns__sgd_reader;

static ro_sgns_result ro_sgns__sgd_push(ro_sgns__sgd_reader *r, uint32_t x)
{
    if (r->len == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 65536;
        int of = nc < r->cap;
        size_t bytes = ro_sgns__mul(nc, sizeof(uint32_t), &of);
        uint32_t *p;
        if (of)
            return ro_sgns__fail(r->err, RO_SGNS_ERR_SIZE_OVERFLOW,
                                 "the id stream of %llu tokens does not fit in memory",
                                 (unsigned long long)r->len);
        p = (uint32_t *)ro_sgns__realloc(r->al, r->id, bytes);
        if (!p)
            return ro_sgns__fail(r->err, RO_SGNS_ERR_OUT_OF_MEMORY,
                                 "no memory for the id stream (%llu bytes)",
                                 (unsigned long long)bytes);
        r->id = p;
        r->cap = nc;
    }
    r->id[r->len++] = x;
    return RO_SGNS_OK;
}

/* The current token is complete: cut it as III.1 does (at
   RO_SGNS_MAX_WORD_BYTES, moved back to the start of a UTF-8 character),
   look it up, keep its id if it is a vocabulary word. */
static ro_sgns_result ro_sgns__sgd_end_word(ro_sgns__sgd_reader *r)
{
    size_t len = ro_sgns__cut_token(r->word, r->cur);
    int64_t id;
    r->cur = 0;
    id = ro_sgns_vocab_find(r->vocab, (const char *)r->word, len);
    if (id < 0) return RO_SGNS_OK; /* not in the vocabulary: dropped, no gap */
    ++r->words;
    return ro_sgns__sgd_push(r, (uint32_t)id);
}

/* Feed size bytes. Every byte <= ' ' separates tokens, '\n' also ends a
   line; every other byte belongs to the token (section 8's TOKENS). */
static ro_sgns_result ro_sgns__sgd_feed(ro_sgns__sgd_reader *r, const unsigned char *data,
                                        size_t size)
{
    size_t i;
    ro_sgns_result rc;
    for (i = 0; i < size; ++i) {
        unsigned ch = data[i];
        if (ch <= ' ') {
            if (r->cur) {
                rc = ro_sgns__sgd_end_word(r);
                if (rc != RO_SGNS_OK) return rc;
            }
            if (ch == '\n' && r->len && r->id[r->len - 1] != RO_SGNS__SGD_LINE) {
                rc = ro_sgns__sgd_push(r, RO_SGNS__SGD_LINE);
                if (rc != RO_SGNS_OK) return rc;
            }
        } else {
            if (r->cur <= RO_SGNS_MAX_WORD_BYTES) r->word[r->cur++] = (unsigned char)ch;
        }
    }
    return RO_SGNS_OK;
}

/* The whole input: from (text, size) or, with read != NULL, from the
   reader. On success r->id holds the stream (free it with r->al). */
static ro_sgns_result ro_sgns__sgd_read(ro_sgns__sgd_reader *r, const void *text, size_t size,
                                        ro_sgns_read_fn read, void *user)
{
    ro_sgns_result rc = RO_SGNS_OK;
    if (!read) {
        rc = ro_sgns__sgd_feed(r, (const unsigned char *)text, size);
    } else {
        unsigned char *buf = (unsigned char *)ro_sgns__malloc(r->al, RO_SGNS__SGD_READ);
        uint64_t at = 0;
        if (!buf)
            return ro_sgns__fail(r->err, RO_SGNS_ERR_OUT_OF_MEMORY, "no memory for a read buffer");
        for (;;) {
            size_t got = read(user, buf, RO_SGNS__SGD_READ);
            if (got == 0) break;
            if (got > RO_SGNS__SGD_READ) {
                rc = ro_sgns__fail(r->err, RO_SGNS_ERR_IO, "reading the corpus failed at byte %llu",
                                   (unsigned long long)at);
                break;
            }
            rc = ro_sgns__sgd_feed(r, buf, got);
            if (rc != RO_SGNS_OK) break;
            at += got;
        }
        ro_sgns__free(r->al, buf);
    }
    if (rc == RO_SGNS_OK && r->cur) rc = ro_sgns__sgd_end_word(r);
    if (rc == RO_SGNS_OK && r->words == 0)
        rc = ro_sgns__fail(r->err, RO_SGNS_ERR_EMPTY,
                           "no token of the corpus is in the vocabulary (%llu words)",
                           (unsigned long long)r->vocab->n);
    return rc;
}

/* ---- (b) tables ---------------------------------------------------------- */

/* One entry of the alias table: draw i uniform in [0, n) and a 32-bit u;
   the sample is i if u < thr, else alias. */
typedef struct ro_sgns__sgd_alias {
    uint32_t thr;
    uint32_t alias;
} ro_sgns__sgd_alias;

/* Vose's alias method for P(i) = count_i^0.75 / sum_j count_j^0.75: scale
   to p_i = n P(i), pair each p_s < 1 with a p_l >= 1 that tops it up to 1
   (p_l loses 1 - p_s), until one side is empty; the rest are exactly 1
   (up to rounding). Exact, O(n), and deterministic (fixed order). p and
   work are n-entry workspaces. */
static ro_sgns_result ro_sgns__sgd_alias_build(const ro_sgns_vocab *v, ro_sgns__sgd_alias *a,
                                               double *p, uint32_t *work, ro_sgns_error *err)
{
    size_t n = v->n, i, ns = 0, nl = n;
    double sum = 0;
    for (i = 0; i < n; ++i) {
        p[i] = RO_SGNS_POW((double)v->count[i], 0.75);
        sum += p[i];
    }
    if (!(sum > 0) || !ro_sgns__is_finite(sum))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "the vocabulary's counts are all zero");
    for (i = 0; i < n; ++i) {
        p[i] = p[i] * (double)n / sum;
        a[i].thr = RO_SGNS__SGD_ALWAYS;
        a[i].alias = (uint32_t)i;
        if (p[i] < 1)
            work[ns++] = (uint32_t)i; /* small ones from the front */
        else
            work[--nl] = (uint32_t)i; /* large ones from the back */
    }
    while (ns > 0 && nl < n) {
        uint32_t s = work[--ns], l = work[nl];
        a[s].thr = (uint32_t)(p[s] * 4294967296.0); /* p_s < 1 */
        a[s].alias = l;
        p[l] = (p[l] + p[s]) - 1.0;
        if (p[l] < 1) { /* l becomes small; ns < nl, so work[ns] is free */
            ++nl;
            work[ns++] = l;
        }
    }
    return RO_SGNS_OK; /* the rest keep thr = ALWAYS, alias = themselves */
}

static RO_SGNS__INLINE uint32_t ro_sgns__sgd_draw(const ro_sgns__sgd_alias *a, uint64_t n,
                                                  uint64_t r)
{
    uint32_t i = (uint32_t)(((r >> 32) * n) >> 32);
    return (uint32_t)r < a[i].thr ? i : a[i].alias;
}

/* keep[w]: a token of w is kept when a 32-bit draw is below it;
   RO_SGNS__SGD_ALWAYS = kept without a draw. word2vec's formula. */
static void ro_sgns__sgd_keep_build(const ro_sgns_vocab *v, double sample, uint32_t *keep)
{
    double T = 0, tT;
    size_t i;
    for (i = 0; i < v->n; ++i) T += (double)v->count[i];
    tT = sample * T;
    for (i = 0; i < v->n; ++i) {
        double f = (double)v->count[i], p = f > 0 ? (RO_SGNS_SQRT(f / tT) + 1) * tT / f : 1;
        keep[i] = p >= 1 ? RO_SGNS__SGD_ALWAYS : (uint32_t)(p * 4294967296.0);
    }
}

/* sigm[i] = s(-6 + 12 i / 1000), i = 0..1000. */
static void ro_sgns__sgd_sigmoid_build(ro_sgns_real *sigm)
{
    int i;
    for (i = 0; i <= RO_SGNS__SGD_EXP_SIZE; ++i) {
        double x = RO_SGNS__SGD_MAX_EXP * (2.0 * i / RO_SGNS__SGD_EXP_SIZE - 1.0);
        sigm[i] = (ro_sgns_real)(1.0 / (1.0 + RO_SGNS_EXP(-x)));
    }
}

/* ---- (c) the step --------------------------------------------------------- */

/* label - s(f) as word2vec takes it: clipped to label - 1 above 6 and to
   label below -6, from the table in between (nearest entry). A NaN sets
   *bad and gives 0 (never an out-of-range index). */
static RO_SGNS__INLINE ro_sgns_real ro_sgns__sgd_grad(const ro_sgns_real *sigm, ro_sgns_real f,
                                                      ro_sgns_real label, int *bad)
{
    const ro_sgns_real scale =
        (ro_sgns_real)RO_SGNS__SGD_EXP_SIZE / (ro_sgns_real)(2 * RO_SGNS__SGD_MAX_EXP);
    if (f > (ro_sgns_real)RO_SGNS__SGD_MAX_EXP) return label - 1;
    if (f < -(ro_sgns_real)RO_SGNS__SGD_MAX_EXP) return label;
    if (f == f)
        return label -
               sigm[(int)((f + (ro_sgns_real)RO_SGNS__SGD_MAX_EXP) * scale + (ro_sgns_real)0.5)];
    *bad = 1;
    return 0;
}

/* The plain reference of one step (word2vec's loops), to read first and to
   test the fast one against: input row w (d values), targets tgt[0]
   (label 1) and tgt[1..m) (label 0) in C (leading dimension ldc), e a
   d-vector of workspace. */
static RO_SGNS__MAYBE_UNUSED void ro_sgns__sgd_step_naive(size_t d, ro_sgns_real *w,
                                                          ro_sgns_real *C, size_t ldc,
                                                          const uint32_t *tgt, size_t m,
                                                          const ro_sgns_real *sigm,
                                                          ro_sgns_real alpha, ro_sgns_real *e,
                                                          int *bad)
{
    size_t q, i;
    for (i = 0; i < d; ++i) e[i] = 0;
    for (q = 0; q < m; ++q) {
        ro_sgns_real *c = C + (size_t)tgt[q] * ldc, f = 0, g;
        for (i = 0; i < d; ++i) f += w[i] * c[i];
        g = ro_sgns__sgd_grad(sigm, f, q == 0 ? 1 : 0, bad) * alpha;
        for (i = 0; i < d; ++i) e[i] += g * c[i];
        for (i = 0; i < d; ++i) c[i] += g * w[i];
    }
    for (i = 0; i < d; ++i) w[i] += e[i];
}

/* a . b over ld (a multiple of LANES) values, in LANES partial sums added
   pairwise at the end: the same arithmetic in every run, and SIMD without
   -ffast-math. */
static RO_SGNS__INLINE ro_sgns_real ro_sgns__sgd_dot(const ro_sgns_real *RO_SGNS__RESTRICT a,
                                                     const ro_sgns_real *RO_SGNS__RESTRICT b,
                                                     size_t ld)
{
    ro_sgns_real acc[RO_SGNS__SGD_LANES];
    size_t i, j;
    for (j = 0; j < RO_SGNS__SGD_LANES; ++j) acc[j] = 0;
    for (i = 0; i < ld; i += RO_SGNS__SGD_LANES)
        for (j = 0; j < RO_SGNS__SGD_LANES; ++j) acc[j] += a[i + j] * b[i + j];
    for (i = RO_SGNS__SGD_LANES / 2; i > 0; i /= 2)
        for (j = 0; j < i; ++j) acc[j] += acc[j + i];
    return acc[0];
}

/* e += g c; c += g w (word2vec's two loops fused: e takes c's old value). */
static RO_SGNS__INLINE void ro_sgns__sgd_axpy2(ro_sgns_real *RO_SGNS__RESTRICT e,
                                               ro_sgns_real *RO_SGNS__RESTRICT c,
                                               const ro_sgns_real *RO_SGNS__RESTRICT w,
                                               ro_sgns_real g, size_t ld)
{
    size_t i;
    for (i = 0; i < ld; ++i) {
        e[i] += g * c[i];
        c[i] += g * w[i];
    }
}

/* The step as training runs it: the reference's arithmetic on padded rows
   (ld), with the dot product in LANES partial sums, and a target whose g
   is 0 (clipped) skipped. */
static void ro_sgns__sgd_step(size_t ld, ro_sgns_real *RO_SGNS__RESTRICT w,
                              ro_sgns_real *RO_SGNS__RESTRICT C, const uint32_t *tgt, size_t m,
                              const ro_sgns_real *sigm, ro_sgns_real alpha,
                              ro_sgns_real *RO_SGNS__RESTRICT e, int *bad)
{
    size_t q, i;
    for (i = 0; i < ld; ++i) e[i] = 0;
    for (q = 0; q < m; ++q) {
        ro_sgns_real *c = C + (size_t)tgt[q] * ld;
        ro_sgns_real g = ro_sgns__sgd_grad(sigm, ro_sgns__sgd_dot(w, c, ld), q == 0 ? 1 : 0, bad);
        if (g != 0) ro_sgns__sgd_axpy2(e, c, w, g * alpha, ld);
    }
    for (i = 0; i < ld; ++i) w[i] += e[i];
}

/* Everything the workers share. */
typedef struct ro_sgns__sgd {
    size_t n, ld, len, nblocks;
    ro_sgns_real *W, *C;     /* n x ld each */
    const uint32_t *ids;     /* the stream, len entries */
    const ro_sgns__sgd_alias *alias;
    const uint32_t *keep;    /* NULL without subsampling */
    const ro_sgns_real *sigm;
    ro_sgns_sgd_config cfg;
    uint64_t total;          /* epochs x vocabulary tokens */
    const uint64_t *before;  /* virtual workers: the tokens before each block */
    unsigned char *merged;   /* virtual workers: 2n, a row is in rows */
    uint32_t *rows;          /* virtual workers: 2n, the rows of a merge */
    double t0;
    int nt;                  /* workers running */
    ro_sgns_real *Wout, *Cout; /* the caller's W and C (n x d): states go there */
    uint64_t rounds_total;   /* virtual workers: rounds, all epochs */
    uint64_t saved_round;    /* the last state given to cfg.save ... */
    double saved_t;          /* ... and when */
    /* written while training */
    uint64_t done;           /* words done by all workers (atomic) */
    uint64_t next_report;    /* (in the critical section; read atomically) */
    int stop;                /* the callback said stop (atomic) */
} ro_sgns__sgd;

/* One worker's workspace (a thread's, or a virtual worker's). */
typedef struct ro_sgns__sgd_local {
    uint32_t *sen; /* RO_SGNS_SGD_BLOCK: the kept ids of a sentence */
    uint32_t *tgt; /* k + 1 targets */
    ro_sgns_real *e; /* ld */
    ro_sgns_real *W, *C; /* what it trains: the shared W and C, or its copy */
    unsigned char *touched; /* NULL, or 2n: row i of W (i), of C (n + i) */
    uint32_t *list;         /* the touched rows in the order first touched */
    size_t nlist;
    int bad;       /* a NaN was met */
} ro_sgns__sgd_local;

static uint64_t ro_sgns__sgd_get64(uint64_t *x)
{
    uint64_t v;
#ifdef _OPENMP
#pragma omp atomic read
#endif
    v = *x;
    return v;
}

static uint64_t ro_sgns__sgd_add64(uint64_t *x, uint64_t add)
{
    uint64_t v;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
    v = *x += add;
    return v;
}

static int ro_sgns__sgd_get_int(int *x)
{
    int v;
#ifdef _OPENMP
#pragma omp atomic read
#endif
    v = *x;
    return v;
}

static void ro_sgns__sgd_raise(int *x)
{
#ifdef _OPENMP
#pragma omp atomic
#endif
    *x |= 1; /* (an update, not "atomic write": gcc 12 warns wrongly about that) */
}

/* A virtual worker notes row r (of W, or n + r of C) as changed. */
static RO_SGNS__INLINE void ro_sgns__sgd_touch(ro_sgns__sgd_local *lo, size_t r)
{
    if (!lo->touched[r]) {
        lo->touched[r] = 1;
        lo->list[lo->nlist++] = (uint32_t)r;
    }
}

/* One sentence of kept ids: for each centre a window half-width b in
   1..L, then one step per context, with k fresh negatives. */
static void ro_sgns__sgd_sentence(const ro_sgns__sgd *s, ro_sgns__sgd_local *lo,
                                  const uint32_t *sen, size_t len, ro_sgns_rng *rng,
                                  ro_sgns_real alpha)
{
    const size_t ld = s->ld;
    const uint64_t L = (uint64_t)s->cfg.window, n = s->n;
    const int k = s->cfg.negative;
    size_t i, j;
    for (i = 0; i < len; ++i) {
        uint32_t c = sen[i];
        size_t b = (size_t)(L - (((ro_sgns_rng_next(rng) >> 32) * L) >> 32));
        size_t j0 = i > b ? i - b : 0, j1 = len - 1 - i > b ? i + b : len - 1;
        for (j = j0; j <= j1; ++j) {
            size_t m = 1, off;
            int q;
            if (j == i) continue;
            lo->tgt[0] = c;
            for (q = 0; q < k; ++q) {
                uint32_t z = ro_sgns__sgd_draw(s->alias, n, ro_sgns_rng_next(rng));
                if (z == c) continue; /* word2vec skips it */
                lo->tgt[m++] = z;
                /* the C this worker trains: a virtual worker's is its copy */
                for (off = 0; off < ld; off += RO_SGNS__SGD_LANES)
                    RO_SGNS__PREFETCH(lo->C + (size_t)z * ld + off);
            }
            if (lo->touched) {
                ro_sgns__sgd_touch(lo, sen[j]);
                for (off = 0; off < m; ++off) ro_sgns__sgd_touch(lo, s->n + lo->tgt[off]);
            }
            ro_sgns__sgd_step(ld, lo->W + (size_t)sen[j] * ld, lo->C, lo->tgt, m, s->sigm, alpha,
                              lo->e, &lo->bad);
        }
    }
}

/* Call the callback if no one has since the mark was crossed. */
static void ro_sgns__sgd_report(ro_sgns__sgd *s, uint64_t done, double alpha)
{
#ifdef _OPENMP
#pragma omp critical(ro_sgns__sgd_report)
#endif
    {
        if (done >= s->next_report && !s->stop) {
            ro_sgns_sgd_progress p;
            uint64_t rw = s->cfg.report_words, next = (uint64_t)-1;
            if (done < s->total) {
                next = rw && done / rw < s->total / rw ? (done / rw + 1) * rw : s->total;
                if (next > s->total) next = s->total;
            }
#ifdef _OPENMP
#pragma omp atomic write
#endif
            s->next_report = next;
            p.words = done;
            p.words_total = s->total;
            p.seconds = ro_sgns__now() - s->t0;
            p.words_per_sec = p.seconds > 0 ? (double)done / p.seconds : 0;
            p.alpha = alpha;
            p.threads = s->nt;
            if (s->cfg.callback(&p, s->cfg.user)) ro_sgns__sgd_raise(&s->stop);
        }
    }
}

/* Block b of epoch ep at rate alpha; returns its vocabulary tokens. */
static uint64_t ro_sgns__sgd_block(const ro_sgns__sgd *s, ro_sgns__sgd_local *lo, int ep,
                                   uint64_t b, double alpha)
{
    const size_t p0 = (size_t)b * RO_SGNS_SGD_BLOCK;
    const size_t p1 = s->len - p0 > RO_SGNS_SGD_BLOCK ? p0 + RO_SGNS_SGD_BLOCK : s->len;
    uint64_t words = 0;
    size_t p, slen = 0;
    ro_sgns_rng rng;
    ro_sgns_rng_seed(&rng, s->cfg.seed, 1 + (uint64_t)ep * s->nblocks + b);
    for (p = p0; p < p1; ++p) {
        uint32_t x = s->ids[p];
        if (x == RO_SGNS__SGD_LINE) {
            ro_sgns__sgd_sentence(s, lo, lo->sen, slen, &rng, (ro_sgns_real)alpha);
            slen = 0;
            continue;
        }
        ++words;
        if (s->keep && s->keep[x] != RO_SGNS__SGD_ALWAYS &&
            (uint32_t)(ro_sgns_rng_next(&rng) >> 32) >= s->keep[x])
            continue; /* subsampled */
        lo->sen[slen++] = x;
    }
    ro_sgns__sgd_sentence(s, lo, lo->sen, slen, &rng, (ro_sgns_real)alpha);
    return words;
}

/* The rate after `done` of the total words, never below alpha 1e-4. */
static double ro_sgns__sgd_alpha(const ro_sgns__sgd *s, uint64_t done)
{
    const double a0 = s->cfg.alpha, a = a0 * (1.0 - (double)done / ((double)s->total + 1.0));
    return a < a0 * 1e-4 ? a0 * 1e-4 : a;
}

/* Hogwild worker t of nt: blocks [t B / nt, (t + 1) B / nt) for every
   epoch, the rate from the words all workers have done. */
static void ro_sgns__sgd_worker(ro_sgns__sgd *s, ro_sgns__sgd_local *lo, int t, int nt)
{
    const uint64_t B = s->nblocks;
    const uint64_t b0 = B * (uint64_t)t / (uint64_t)nt, b1 = B * (uint64_t)(t + 1) / (uint64_t)nt;
    uint64_t b;
    int ep;
    for (ep = 0; ep < s->cfg.epochs; ++ep) {
        for (b = b0; b < b1; ++b) {
            double alpha;
            uint64_t done;
            if (ro_sgns__sgd_get_int(&s->stop)) return;
            alpha = ro_sgns__sgd_alpha(s, ro_sgns__sgd_get64(&s->done));
            done = ro_sgns__sgd_add64(&s->done, ro_sgns__sgd_block(s, lo, ep, b, alpha));
            if (s->cfg.callback && done >= ro_sgns__sgd_get64(&s->next_report))
                ro_sgns__sgd_report(s, done, alpha);
        }
    }
}

static ro_sgns_result ro_sgns__sgd_check(const ro_sgns_vocab *v, const ro_sgns_sgd_config *c,
                                         const ro_sgns_real *W, const ro_sgns_real *C,
                                         ro_sgns_error *err)
{
    if (!v) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "vocabulary is NULL");
    if (!W || !C) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "W or C is NULL");
    if (v->n == 0) return ro_sgns__fail(err, RO_SGNS_ERR_EMPTY, "the vocabulary is empty");
    if (v->n >= (size_t)RO_SGNS__SGD_LINE)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vocabulary of %llu words: at most %llu", (unsigned long long)v->n,
                             (unsigned long long)RO_SGNS__SGD_LINE - 1);
    if (!v->count || !v->index_)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "the vocabulary has no counts or no lookup index");
    if (c->size < 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "size (d) = %d: must be >= 1",
                             c->size);
    if (c->window < 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "window = %d: must be >= 1",
                             c->window);
    if (c->negative < 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "negative (k) = %d: must be >= 1",
                             c->negative);
    if (!(c->alpha > 0) || !ro_sgns__is_finite(c->alpha))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "alpha = %g: must be > 0",
                             c->alpha);
    if (!(c->sample >= 0) || !ro_sgns__is_finite(c->sample))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "sample = %g: must be >= 0",
                             c->sample);
    if (c->epochs < 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "epochs = %d: must be >= 1",
                             c->epochs);
    if (c->sync < 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "sync = %d: must be >= 1",
                             c->sync);
    if (!(c->share > 0 && c->share <= 1))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "share = %g: must be in (0, 1]",
                             c->share);
    if (c->threads < 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "threads = %d: must be >= 0",
                             c->threads);
    if (c->workers < 0)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "workers = %d: must be >= 0",
                             c->workers);
    if ((c->start_w == NULL) != (c->start_c == NULL) || (c->start_round && !c->start_w))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "a start state needs start_w and start_c (and them for round %llu)",
                             (unsigned long long)c->start_round);
    if ((c->start_w || c->save) && c->workers < 1)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "a start state or save needs virtual workers (workers >= 1): "
                             "Hogwild's result depends on the threads' timing");
    if (c->save && (c->save_rounds < 1 || !(c->save_seconds >= 0)))
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "save_rounds = %llu, save_seconds = %g: want >= 1 and >= 0",
                             (unsigned long long)c->save_rounds, c->save_seconds);
    if (c->workers > 1 && v->n > 0x7FFFFFFFu) /* the merge numbers 2 n rows in 32 bits */
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "vocabulary of %llu words: virtual workers take at most %llu",
                             (unsigned long long)v->n, 0x7FFFFFFFull);
    return RO_SGNS_OK;
}

/* The padded row length *ld, the targets' stride *tgt_ld and the number
   of workers *nt for n words; an error when W and C cannot be sized. */
static ro_sgns_result ro_sgns__sgd_sizes(size_t n, const ro_sgns_sgd_config *cfg, size_t *ld,
                                         size_t *tgt_ld, int *nt, ro_sgns_error *err)
{
    size_t d = (size_t)cfg->size;
    int of = 0;
    *ld = (d + RO_SGNS__SGD_LANES - 1) / RO_SGNS__SGD_LANES * RO_SGNS__SGD_LANES;
    *tgt_ld = ((size_t)cfg->negative + 16) / 16 * 16; /* k + 1 rounded up: no false sharing */
    *nt = cfg->threads ? cfg->threads : ro_sgns__num_threads();
#ifndef _OPENMP
    *nt = 1;
#endif
    (void)ro_sgns__mul(ro_sgns__mul(ro_sgns__mul(n, *ld, &of), sizeof(ro_sgns_real), &of), 2, &of);
    (void)ro_sgns__mul((size_t)*nt, *tgt_ld, &of);
    if (of)
        return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW,
                             "W and C (2 x %llu x %llu) do not fit in memory",
                             (unsigned long long)n, (unsigned long long)*ld);
    return RO_SGNS_OK;
}

/* What a run allocates besides the id stream. */
typedef struct ro_sgns__sgd_mem {
    void *wraw, *craw, *eraw;  /* W, C (n x ld) and the workers' e (ld), 64 bytes over */
    ro_sgns__sgd_alias *alias; /* n */
    double *pw;                /* n: the alias table's scratch ... */
    uint32_t *work;            /* n: ... freed once it is built */
    uint32_t *keep;            /* n, with subsampling */
    ro_sgns__sgd_local *loc;   /* a worker's workspace ... */
    uint32_t *sen, *tgt;       /* ... and its sentence and targets */
    /* K > 1 virtual workers: */
    void *copies;              /* their W and C (2 K n ld), 64 bytes over */
    unsigned char *touched;    /* 2 n K */
    uint32_t *lists;           /* 2 n K */
    unsigned char *merged;     /* 2 n */
    uint32_t *rows;            /* 2 n */
    uint64_t *before;          /* nblocks + 1 (K >= 1) */
} ro_sgns__sgd_mem;

static void ro_sgns__sgd_mem_free(ro_sgns__sgd_mem *m, const ro_sgns_allocator *al)
{
    ro_sgns__free(al, m->wraw);
    ro_sgns__free(al, m->craw);
    ro_sgns__free(al, m->alias);
    ro_sgns__free(al, m->pw);
    ro_sgns__free(al, m->work);
    ro_sgns__free(al, m->keep);
    ro_sgns__free(al, m->loc);
    ro_sgns__free(al, m->sen);
    ro_sgns__free(al, m->tgt);
    ro_sgns__free(al, m->eraw);
    ro_sgns__free(al, m->copies);
    ro_sgns__free(al, m->touched);
    ro_sgns__free(al, m->lists);
    ro_sgns__free(al, m->merged);
    ro_sgns__free(al, m->rows);
    ro_sgns__free(al, m->before);
}

/* Huge pages for a buffer the step reads at random (W, C and the virtual
   workers' copies), asked for before its first write. Linux only, the
   2 MiB-aligned part only, advice only: no bit of the result depends on
   it. RO_SGNS_NO_MADVISE leaves it out. why: docs/DESIGN.md, III.7 */
static void ro_sgns__sgd_advise(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE) && !defined(RO_SGNS_NO_MADVISE)
    const uintptr_t huge = (uintptr_t)1 << 21;
    const uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (p && e > a) (void)madvise((void *)a, (size_t)(e - a), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* The virtual workers' memory (K >= 1; the copies and the merge's only
   for K > 1) and the tokens before each block of the stream ids. */
static ro_sgns_result ro_sgns__sgd_alloc_virtual(ro_sgns__sgd_mem *m, size_t n, size_t ld, int K,
                                                 const uint32_t *ids, size_t len, size_t nblocks,
                                                 const ro_sgns_allocator *al, ro_sgns_error *err)
{
    size_t b, p;
    int of = 0;
    m->before = (uint64_t *)ro_sgns__alloc_array(al, nblocks + 1, 1, sizeof(uint64_t));
    if (K > 1) {
        size_t elems = ro_sgns__mul(ro_sgns__mul(2 * (size_t)K, n, &of), ld, &of);
        if (of || elems > (size_t)-1 - 64)
            return ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW,
                                 "%d copies of W and C do not fit in memory", K);
        m->copies = ro_sgns__alloc_array(al, elems + 64, 1, sizeof(ro_sgns_real));
        m->touched = (unsigned char *)ro_sgns__alloc_array(al, 2 * n, (size_t)K, 1);
        m->lists = (uint32_t *)ro_sgns__alloc_array(al, 2 * n, (size_t)K, sizeof(uint32_t));
        m->merged = (unsigned char *)ro_sgns__alloc_array(al, 2 * n, 1, 1);
        m->rows = (uint32_t *)ro_sgns__alloc_array(al, 2 * n, 1, sizeof(uint32_t));
    }
    if (!m->before || (K > 1 && (!m->copies || !m->touched || !m->lists || !m->merged || !m->rows)))
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "no memory for %d virtual workers (their W and C: %d x 2 x %llu x %llu)",
                             K, K > 1 ? K : 0, (unsigned long long)n, (unsigned long long)ld);
    if (K > 1) {
        ro_sgns__sgd_advise(m->copies, (2 * (size_t)K * n * ld + 64) * sizeof(ro_sgns_real));
        memset(m->touched, 0, 2 * n * (size_t)K);
        memset(m->merged, 0, 2 * n);
    }
    m->before[0] = 0;
    for (b = 0; b < nblocks; ++b) {
        size_t p0 = b * RO_SGNS_SGD_BLOCK, p1 = len - p0 > RO_SGNS_SGD_BLOCK ? p0 + RO_SGNS_SGD_BLOCK : len;
        uint64_t w = 0;
        for (p = p0; p < p1; ++p) w += ids[p] != RO_SGNS__SGD_LINE;
        m->before[b + 1] = m->before[b] + w;
    }
    return RO_SGNS_OK;
}

static ro_sgns_result ro_sgns__sgd_alloc(ro_sgns__sgd_mem *m, size_t n, size_t ld, size_t tgt_ld,
                                         int nt, int subsample, const ro_sgns_allocator *al,
                                         ro_sgns_error *err)
{
    m->wraw = ro_sgns__alloc_array(al, n * ld + 64, 1, sizeof(ro_sgns_real));
    m->craw = ro_sgns__alloc_array(al, n * ld + 64, 1, sizeof(ro_sgns_real));
    m->alias = (ro_sgns__sgd_alias *)ro_sgns__alloc_array(al, n, 1, sizeof(ro_sgns__sgd_alias));
    m->pw = (double *)ro_sgns__alloc_array(al, n, 1, sizeof(double));
    m->work = (uint32_t *)ro_sgns__alloc_array(al, n, 1, sizeof(uint32_t));
    if (subsample) m->keep = (uint32_t *)ro_sgns__alloc_array(al, n, 1, sizeof(uint32_t));
    m->loc = (ro_sgns__sgd_local *)ro_sgns__alloc_array(al, (size_t)nt, 1, sizeof *m->loc);
    m->sen = (uint32_t *)ro_sgns__alloc_array(al, (size_t)nt, RO_SGNS_SGD_BLOCK, sizeof(uint32_t));
    m->tgt = (uint32_t *)ro_sgns__alloc_array(al, (size_t)nt, tgt_ld, sizeof(uint32_t));
    m->eraw = ro_sgns__alloc_array(al, (size_t)nt * ld + 64, 1, sizeof(ro_sgns_real));
    if (!m->wraw || !m->craw || !m->alias || !m->pw || !m->work || (subsample && !m->keep) ||
        !m->loc || !m->sen || !m->tgt || !m->eraw)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "no memory for training (W and C: 2 x %llu x %llu)",
                             (unsigned long long)n, (unsigned long long)ld);
    ro_sgns__sgd_advise(m->wraw, (n * ld + 64) * sizeof(ro_sgns_real));
    ro_sgns__sgd_advise(m->craw, (n * ld + 64) * sizeof(ro_sgns_real));
    return RO_SGNS_OK;
}

/* (b) The tables: the alias table of the negatives (its scratch freed
   after), the subsampling thresholds, the sigmoid table sigm. */
static ro_sgns_result ro_sgns__sgd_tables(ro_sgns__sgd *s, ro_sgns__sgd_mem *m,
                                          const ro_sgns_vocab *vocab, ro_sgns_real *sigm,
                                          const ro_sgns_allocator *al, ro_sgns_error *err)
{
    ro_sgns_result rc = ro_sgns__sgd_alias_build(vocab, m->alias, m->pw, m->work, err);
    if (rc != RO_SGNS_OK) return rc;
    ro_sgns__free(al, m->pw);
    ro_sgns__free(al, m->work);
    m->pw = NULL;
    m->work = NULL;
    if (m->keep) ro_sgns__sgd_keep_build(vocab, s->cfg.sample, m->keep);
    ro_sgns__sgd_sigmoid_build(sigm);
    s->alias = m->alias;
    s->keep = m->keep;
    s->sigm = sigm;
    return RO_SGNS_OK;
}

/* (b) The factors, padded to ld with zeros: W as word2vec starts it, from
   stream (seed, 0), and C = 0; or a start state's W and C (the padding
   stays 0 in training, so it is the state the run had). */
static void ro_sgns__sgd_factors(ro_sgns__sgd *s, const ro_sgns__sgd_mem *m)
{
    size_t i, j, n = s->n, ld = s->ld, d = (size_t)s->cfg.size;
    ro_sgns_rng rng;
    s->W = ro_sgns__align64(m->wraw);
    s->C = ro_sgns__align64(m->craw);
    if (s->cfg.start_w) {
        for (i = 0; i < n; ++i) {
            memcpy(s->W + i * ld, s->cfg.start_w + i * d, d * sizeof(ro_sgns_real));
            memcpy(s->C + i * ld, s->cfg.start_c + i * d, d * sizeof(ro_sgns_real));
            for (j = d; j < ld; ++j) s->W[i * ld + j] = s->C[i * ld + j] = 0;
        }
        return;
    }
    ro_sgns_rng_seed(&rng, s->cfg.seed, 0);
    for (i = 0; i < n; ++i) {
        ro_sgns_real *w = s->W + i * ld;
        for (j = 0; j < d; ++j)
            w[j] = (ro_sgns_real)((ro_sgns_rng_uniform(&rng) - 0.5) / (double)d);
        for (; j < ld; ++j) w[j] = 0;
    }
    memset(s->C, 0, n * ld * sizeof(ro_sgns_real));
}

/* The end of a round of K virtual workers: a row one worker changed
   becomes that worker's row; a row c > 1 workers changed becomes the
   shared row plus the mean of their changes (iterative parameter mixing,
   row by row); every copy takes it. Rows are independent, so nt threads
   share them out with the same result. */
static void ro_sgns__sgd_merge(ro_sgns__sgd *s, ro_sgns__sgd_local *loc, int K, int nt)
{
    const size_t n = s->n, ld = s->ld;
    size_t nrows = 0, i;
    long r;
    int k;
    for (k = 0; k < K; ++k) { /* the rows any worker touched, each once */
        ro_sgns__sgd_local *lo = &loc[k];
        for (i = 0; i < lo->nlist; ++i) {
            uint32_t row = lo->list[i];
            if (!s->merged[row]) {
                s->merged[row] = 1;
                s->rows[nrows++] = row;
            }
        }
        lo->nlist = 0;
    }
    (void)nt;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1 && nrows > 256)
#endif
    for (r = 0; r < (long)nrows; ++r) {
        const size_t row = s->rows[r];
        const int in_w = row < n; /* a row of W, else of C */
        const size_t off = (in_w ? row : row - n) * ld;
        ro_sgns_real *sh = (in_w ? s->W : s->C) + off;
        size_t j;
        int q, c = 0, last = 0;
        s->merged[row] = 0;
        for (q = 0; q < K; ++q)
            if (loc[q].touched[row]) {
                loc[q].touched[row] = 0;
                ++c;
                last = q;
            }
        if (c == 1) {
            memcpy(sh, (in_w ? loc[last].W : loc[last].C) + off, ld * sizeof(ro_sgns_real));
        } else {
            const ro_sgns_real inv = (ro_sgns_real)1 / (ro_sgns_real)c;
            for (j = 0; j < ld; ++j) {
                ro_sgns_real sum = 0;
                for (q = 0; q < K; ++q) sum += (in_w ? loc[q].W : loc[q].C)[off + j] - sh[j];
                sh[j] += sum * inv;
            }
        }
        for (q = 0; q < K; ++q)
            if (q != last || c != 1)
                memcpy((in_w ? loc[q].W : loc[q].C) + off, sh, ld * sizeof(ro_sgns_real));
    }
}

/* After round g (of all epochs): the state to cfg.save when one is due
   (every worker's copy equals the shared W and C now), unpadded into the
   caller's W and C. */
static void ro_sgns__sgd_save(ro_sgns__sgd *s, const ro_sgns__sgd_local *loc, uint64_t g)
{
    size_t i, n = s->n, ld = s->ld, d = (size_t)s->cfg.size;
    ro_sgns_sgd_state st;
    int k, bad = 0;
    double t = ro_sgns__now();
    if (!s->cfg.save || g >= s->rounds_total || g - s->saved_round < s->cfg.save_rounds ||
        t - s->saved_t < s->cfg.save_seconds)
        return;
    for (k = 0; k < s->cfg.workers; ++k) bad |= loc[k].bad;
    if (bad) return; /* a NaN: the run ends in RO_SGNS_ERR_NUMERIC */
    for (i = 0; i < n; ++i) {
        memcpy(s->Wout + i * d, s->W + i * ld, d * sizeof(ro_sgns_real));
        memcpy(s->Cout + i * d, s->C + i * ld, d * sizeof(ro_sgns_real));
    }
    st.W = s->Wout;
    st.C = s->Cout;
    st.round = g;
    st.rounds_total = s->rounds_total;
    st.words = s->done;
    st.words_total = s->total;
    if (s->cfg.save(&st, s->cfg.user)) s->stop = 1;
    s->saved_round = g;
    s->saved_t = ro_sgns__now();
}

/* (c) with K virtual workers: round after round, worker k trains blocks
   [r + k S, r + (k + 1) S) (S = cfg.sync) at the rate of each
   block's position, then the merge; progress is reported between rounds.
   A start state's round (cfg.start_round) is where it begins. */
static void ro_sgns__sgd_train_virtual(ro_sgns__sgd *s, ro_sgns__sgd_local *loc, int nt)
{
    const int K = s->cfg.workers;
    const uint64_t B = s->nblocks, S = (uint64_t)s->cfg.sync, words = s->before[B];
    const uint64_t KS = (uint64_t)K * S, R = (B + KS - 1) / KS; /* rounds an epoch */
    uint64_t r0, g = s->cfg.start_round;
    int ep;
    s->t0 = ro_sgns__now();
    s->nt = nt;
    if (R == 0) return;
    s->saved_round = g;
    s->saved_t = s->t0;
    for (ep = (int)(g / R); ep < s->cfg.epochs; ++ep) {
        for (r0 = (uint64_t)ep == g / R ? (g % R) * KS : 0; r0 < B; r0 += KS) {
            const uint64_t r1 = B - r0 > (uint64_t)K * S ? r0 + (uint64_t)K * S : B;
            int k;
            if (s->stop) return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(nt) if (nt > 1)
#endif
            for (k = 0; k < K; ++k) {
                uint64_t b, b0 = r0 + (uint64_t)k * S, b1 = b0 + S;
                if (b1 > r1) b1 = r1;
                for (b = b0; b < b1; ++b)
                    (void)ro_sgns__sgd_block(s, &loc[k], ep, b,
                                             ro_sgns__sgd_alpha(s, (uint64_t)ep * words +
                                                                       s->before[b]));
            }
            if (K > 1) ro_sgns__sgd_merge(s, loc, K, nt);
            s->done = (uint64_t)ep * words + s->before[r1];
            if (s->cfg.callback && s->done >= s->next_report)
                ro_sgns__sgd_report(s, s->done, ro_sgns__sgd_alpha(s, s->done));
            ro_sgns__sgd_save(s, loc, ++g);
        }
    }
}

/* (c) Train: nt workers (or as many as OpenMP gives), each on its share of
   the blocks of every epoch; or K virtual workers. */
static void ro_sgns__sgd_train(ro_sgns__sgd *s, ro_sgns__sgd_local *loc, int nt)
{
    (void)nt; /* without OpenMP, one worker */
    if (s->cfg.workers > 0) {
        ro_sgns__sgd_train_virtual(s, loc, nt);
        return;
    }
    s->t0 = ro_sgns__now();
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        int tid = 0, nth = 1;
#ifdef _OPENMP
        tid = omp_get_thread_num();
        nth = omp_get_num_threads();
#endif
        if (tid == 0) s->nt = nth; /* read only by the callback, after the barrier below */
#ifdef _OPENMP
#pragma omp barrier
#endif
        ro_sgns__sgd_worker(s, &loc[tid], tid, nth);
    }
}

/* (d) W and C checked for NaN/Inf (and the nt workers' flags), then copied
   out unpadded; a stop by the callback is said after the copy. */
static ro_sgns_result ro_sgns__sgd_copy_out(const ro_sgns__sgd *s, const ro_sgns__sgd_local *loc,
                                            int nt, ro_sgns_real *Wout, ro_sgns_real *Cout,
                                            ro_sgns_error *err)
{
    size_t i, j, n = s->n, ld = s->ld, d = (size_t)s->cfg.size;
    int t, bad = 0;
    for (t = 0; t < nt; ++t) bad |= loc[t].bad;
    for (i = 0; i < n && !bad; ++i)
        for (j = 0; j < d; ++j)
            if (!ro_sgns__is_finite((double)s->W[i * ld + j]) ||
                !ro_sgns__is_finite((double)s->C[i * ld + j]))
                bad = 1;
    if (bad)
        return ro_sgns__fail(err, RO_SGNS_ERR_NUMERIC,
                             "NaN or Inf in W or C after training (alpha = %g too large?)",
                             s->cfg.alpha);
    for (i = 0; i < n; ++i) {
        memcpy(Wout + i * d, s->W + i * ld, d * sizeof(ro_sgns_real));
        memcpy(Cout + i * d, s->C + i * ld, d * sizeof(ro_sgns_real));
    }
    if (s->stop && s->done < s->total)
        return ro_sgns__fail(err, RO_SGNS_STOPPED,
                             "stopped by the callback after %llu of %llu words",
                             (unsigned long long)s->done, (unsigned long long)s->total);
    return ro_sgns__ok(err);
}

static ro_sgns_result ro_sgns__sgd_run(const void *text, size_t size, ro_sgns_read_fn read,
                                       void *user, const ro_sgns_vocab *vocab,
                                       const ro_sgns_sgd_config *config, ro_sgns_real *Wout,
                                       ro_sgns_real *Cout, const ro_sgns_allocator *al,
                                       ro_sgns_error *err)
{
    ro_sgns_sgd_config cfg = config ? *config : ro_sgns_sgd_config_default();
    ro_sgns__sgd_reader rd;
    ro_sgns__sgd s;
    ro_sgns__sgd_mem m;
    ro_sgns_real sigm[RO_SGNS__SGD_EXP_SIZE + 1];
    ro_sgns_real *E;
    size_t ld, tgt_ld;
    int nt, nloc, t;
    ro_sgns_result rc;

    if (!read && !text && size)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "text is NULL");
    rc = ro_sgns__sgd_check(vocab, &cfg, Wout, Cout, err);
    if (rc != RO_SGNS_OK) return rc;
    rc = ro_sgns__sgd_sizes(vocab->n, &cfg, &ld, &tgt_ld, &nt, err);
    if (rc != RO_SGNS_OK) return rc;
    memset(&m, 0, sizeof m);

    /* (a) the id stream */
    memset(&rd, 0, sizeof rd);
    rd.vocab = vocab;
    rd.al = al;
    rd.err = err;
    rc = ro_sgns__sgd_read(&rd, text, size, read, user);
    if (rc != RO_SGNS_OK) goto done;
    if (cfg.share < 1 && cfg.share * (double)rd.words < 1) { /* not one token to train on */
        rc = ro_sgns__fail(err, RO_SGNS_ERR_EMPTY,
                           "share = %g of the %llu tokens in the vocabulary is less than one "
                           "token: no text to train on",
                           cfg.share, (unsigned long long)rd.words);
        goto done;
    }
    if (cfg.share < 1) { /* the first share of the blocks, and its words */
        size_t all = (rd.len + RO_SGNS_SGD_BLOCK - 1) / RO_SGNS_SGD_BLOCK, p;
        /* share x blocks, rounded up without ceil(): a build that defines its
           own RO_SGNS_ math macros need not include <math.h> */
        const double want = cfg.share * (double)all;
        size_t keep = (size_t)want;
        if ((double)keep < want || keep < 1) ++keep;
        if (keep < all) rd.len = keep * RO_SGNS_SGD_BLOCK;
        rd.words = 0;
        for (p = 0; p < rd.len; ++p) rd.words += rd.id[p] != RO_SGNS__SGD_LINE;
    }
    if (rd.words > (uint64_t)-1 / (uint64_t)cfg.epochs) {
        rc = ro_sgns__fail(err, RO_SGNS_ERR_SIZE_OVERFLOW, "epochs x tokens overflows");
        goto done;
    }

    /* (b) tables and factors */
    memset(&s, 0, sizeof s);
    s.n = vocab->n;
    s.ld = ld;
    s.len = rd.len;
    s.nblocks = (rd.len + RO_SGNS_SGD_BLOCK - 1) / RO_SGNS_SGD_BLOCK;
    s.cfg = cfg;
    if ((size_t)nt > s.nblocks) nt = (int)s.nblocks;
    if (cfg.workers > 0 && nt > cfg.workers) nt = cfg.workers; /* a thread runs a worker */
    nloc = cfg.workers > 0 ? cfg.workers : nt;
    rc = ro_sgns__sgd_alloc(&m, s.n, ld, tgt_ld, nloc, cfg.sample > 0, al, err);
    if (rc != RO_SGNS_OK) goto done;
    if (cfg.workers > 0) {
        rc = ro_sgns__sgd_alloc_virtual(&m, s.n, ld, cfg.workers, rd.id, rd.len, s.nblocks, al,
                                        err);
        if (rc != RO_SGNS_OK) goto done;
        s.before = m.before;
        s.merged = m.merged;
        s.rows = m.rows;
    }
    rc = ro_sgns__sgd_tables(&s, &m, vocab, sigm, al, err);
    if (rc != RO_SGNS_OK) goto done;
    ro_sgns__sgd_factors(&s, &m);
    E = ro_sgns__align64(m.eraw);
    for (t = 0; t < nloc; ++t) {
        ro_sgns__sgd_local *lo = &m.loc[t];
        lo->sen = m.sen + (size_t)t * RO_SGNS_SGD_BLOCK;
        lo->tgt = m.tgt + (size_t)t * tgt_ld;
        lo->e = E + (size_t)t * ld;
        lo->W = s.W;
        lo->C = s.C;
        lo->touched = NULL;
        lo->list = NULL;
        lo->nlist = 0;
        lo->bad = 0;
        if (m.copies) { /* K > 1: its own W and C, equal to the shared ones */
            ro_sgns_real *mine = ro_sgns__align64(m.copies) + (size_t)t * 2 * s.n * ld;
            lo->W = mine;
            lo->C = mine + s.n * ld;
            memcpy(lo->W, s.W, s.n * ld * sizeof(ro_sgns_real));
            memcpy(lo->C, s.C, s.n * ld * sizeof(ro_sgns_real));
            lo->touched = m.touched + (size_t)t * 2 * s.n;
            lo->list = m.lists + (size_t)t * 2 * s.n;
        }
    }
    s.ids = rd.id;
    s.total = rd.words * (uint64_t)cfg.epochs;
    s.nt = nt;
    s.done = 0;
    s.Wout = Wout;
    s.Cout = Cout;
    if (cfg.workers > 0) { /* a start state: its round, and the words done by then */
        const uint64_t KS = (uint64_t)cfg.workers * (uint64_t)cfg.sync;
        const uint64_t R = (s.nblocks + KS - 1) / KS, g = cfg.start_round;
        s.rounds_total = R * (uint64_t)cfg.epochs;
        if (g > s.rounds_total) {
            rc = ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                               "start_round %llu: this run has %llu rounds",
                               (unsigned long long)g, (unsigned long long)s.rounds_total);
            goto done;
        }
        if (g) {
            const uint64_t b = (g % R) * KS;
            s.done = (g / R) * rd.words + s.before[b < s.nblocks ? b : s.nblocks];
        }
    }
    s.next_report = cfg.report_words && cfg.report_words < s.total ? cfg.report_words : s.total;
    if (s.done && cfg.report_words) /* the first mark after the start */
        s.next_report = s.done / cfg.report_words < s.total / cfg.report_words
                            ? (s.done / cfg.report_words + 1) * cfg.report_words : s.total;
    s.stop = 0;

    ro_sgns__sgd_train(&s, m.loc, nt);                            /* (c) */
    rc = ro_sgns__sgd_copy_out(&s, m.loc, nloc, Wout, Cout, err); /* (d) */
done:
    ro_sgns__free(al, rd.id);
    ro_sgns__sgd_mem_free(&m, al);
    return rc;
}

RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_memory(const void *text, size_t size,
                                                    const ro_sgns_vocab *vocab,
                                                    const ro_sgns_sgd_config *cfg,
                                                    ro_sgns_real *W, ro_sgns_real *C,
                                                    const ro_sgns_allocator *alloc,
                                                    ro_sgns_error *err)
{
    return ro_sgns__sgd_run(text, size, NULL, NULL, vocab, cfg, W, C, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_callback(ro_sgns_read_fn read, void *user,
                                                      const ro_sgns_vocab *vocab,
                                                      const ro_sgns_sgd_config *cfg,
                                                      ro_sgns_real *W, ro_sgns_real *C,
                                                      const ro_sgns_allocator *alloc,
                                                      ro_sgns_error *err)
{
    if (!read) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "read is NULL");
    return ro_sgns__sgd_run(NULL, 0, read, user, vocab, cfg, W, C, alloc, err);
}

#ifndef RO_SGNS_NO_STDIO
RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_file(FILE *f, const ro_sgns_vocab *vocab,
                                                  const ro_sgns_sgd_config *cfg,
                                                  ro_sgns_real *W, ro_sgns_real *C,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    if (!f) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "FILE is NULL");
    return ro_sgns__sgd_run(NULL, 0, ro_sgns__fread_fn, f, vocab, cfg, W, C, alloc, err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_sgd_train_path(const char *path, const ro_sgns_vocab *vocab,
                                                  const ro_sgns_sgd_config *cfg,
                                                  ro_sgns_real *W, ro_sgns_real *C,
                                                  const ro_sgns_allocator *alloc,
                                                  ro_sgns_error *err)
{
    FILE *f;
    ro_sgns_result rc;
    if (!path) return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT, "path is NULL");
    f = fopen(path, "rb");
    if (!f)
        return ro_sgns__fail(err, RO_SGNS_ERR_IO, "cannot open '%.200s': %s", path,
                             strerror(errno));
    rc = ro_sgns__sgd_run(NULL, 0, ro_sgns__fread_fn, f, vocab, cfg, W, C, alloc, err);
    fclose(f);
    return rc;
}
#endif

#endif /* RO_SGNS_NO_SGD */

#endif /* RO_SGNS_PLAIN */

#endif /* RO_SGNS_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the ro_sgns.h authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
