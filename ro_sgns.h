/* ro_sgns.h - v0.1.0 - Riemannian optimization for Skip-Gram Negative Sampling
   word embeddings, in one C99/C++ header - public domain or MIT, see end of file.

   WHAT IT IS
     A single-header library that trains word embeddings the way Fonarev et al.,
     "Riemannian Optimization for Skip-Gram Negative Sampling" (ACL 2017) do:
       Step 1: find a rank-d matrix X (words x contexts) that maximizes the SGNS
               objective F(X), by projector-splitting on the manifold of rank-d
               matrices, starting from the SVD of the shifted positive PMI matrix;
       Step 2: turn X = U Sigma V^T into embeddings W = U Sigma^(1/2).
     It depends on libc and libm only. It carries its own blocked GEMM,
     Householder QR and one-sided Jacobi SVD (appendices A-C), which can be
     swapped for CBLAS/LAPACKE with a define.

   DO THIS
     In exactly one C or C++ file of your program:
         #define RO_SGNS_IMPLEMENTATION
         #include "ro_sgns.h"
     Everywhere else just #include "ro_sgns.h".
     Compile with -fopenmp to use all cores; without it everything runs serially
     and gives bitwise the same numbers.

   QUICK START (the dense kernels; the training sections follow as they land)
         ro_sgns_real A[6*4], Q[6*4], R[4*4], C[6*6];
         ro_sgns_error err;
         ... fill A (row-major, 6 x 4) ...
         memcpy(Q, A, sizeof A);
         if (ro_sgns_qr(6, 4, Q, 4, R, 4, NULL, &err) != RO_SGNS_OK)
             fprintf(stderr, "qr: %s\n", err.message);
         // C = 1 * A A^T + 0 * C
         ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_TRANS, 6, 6, 4, 1, A, 4, A, 4,
                      0, C, 6, NULL, &err);

   CONTENTS
     Declarations
       0. Basics: version, options, result codes, errors, allocator, RNG
       A. Dense linear algebra (public): GEMM, Householder QR, Jacobi SVD
     Implementation (behind RO_SGNS_IMPLEMENTATION)
       0. Basics
       Appendix A. GEMM: the naive reference, then the packed, blocked one
       Appendix B. Householder QR: unblocked reference, blocked compact-WY
       Appendix C. One-sided Jacobi SVD
       Appendix D. Random numbers
     License

   THE ALGORITHM ON ONE PAGE (paper section in brackets)
     Counts from a corpus [2.1]: #(w,c) pairs of word w and context c within a
     window, #(w) = sum_c #(w,c), #(c) = sum_w #(w,c), |D| = sum #(w,c).
     Objective [2.2, eq. 4]: for X in R^{n x m},
         F(X) = sum_{w,c} #(w,c) log s(x_wc) + k #(w)#(c)/|D| log s(-x_wc),
     s the logistic sigmoid, k the number of negative samples. Maximize F over
     rank-d matrices [Proposition 1].
     Gradient [3.2]: (grad F)_wc = #(w,c) s(-x_wc) - k #(w)#(c)/|D| s(x_wc).
     Start [5]: X_0 = U_0 S_0 V_0^T, the rank-d truncated SVD of
         SPPMI_wc = max(log(#(w,c)|D| / (#(w)#(c))) - log k, 0).
     Step i [Algorithm 1], with M = X_i + lambda grad F(X_i):
         U_{i+1}, S_{i+1}   = QR(M V_i)
         V_{i+1}, S_{i+1}^T = QR(M^T U_{i+1})
     M is n x m and dense, so it is never stored: each product walks it in
     blocks of rows (block of X from the factors -> gradient -> product).
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
     RO_SGNS_NO_STDIO      impl  drop the FILE* / path functions.
     RO_SGNS_USE_CBLAS     impl  ro_sgns_gemm calls cblas_sgemm/cblas_dgemm
                                 (include <cblas.h>, link e.g. -lopenblas).
     RO_SGNS_USE_LAPACKE   impl  ro_sgns_qr / ro_sgns_svd call LAPACKE
                                 ?geqrf+?orgqr and ?gesdd (link -llapacke).
                                 The built-in kernels stay compiled and are
                                 reachable as ro_sgns_*_builtin.
     RO_SGNS_NO_SIMD       impl  never use SIMD intrinsics, even when the
                                 compiler targets AVX-512 (testing aid).

   WHAT IT DOES NOT DO
     No threads of its own (OpenMP only), no global state, no printing, no
     abort()/exit(), no -ffast-math assumptions (NaN checks must survive).

   DETERMINISM
     Same input -> bitwise the same output for any number of OpenMP threads.
     Work is split only over independent output blocks; the order in which
     any one sum is accumulated is fixed by the block layout (KC, see
     appendix A), never by the thread count.
*/

#ifndef RO_SGNS_H
#define RO_SGNS_H

#define RO_SGNS_VERSION_MAJOR 0
#define RO_SGNS_VERSION_MINOR 1
#define RO_SGNS_VERSION_PATCH 0
#define RO_SGNS_VERSION_STRING "0.1.0"

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t, uint32_t */

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
   0. Basics: result codes, errors, allocator, random numbers
   ====================================================================== */

/* Every fallible function returns one of these. 0 is success, negative is
   an error; ro_sgns_result_string() names each code. */
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

/* A static, never-NULL string for every code ("ok", "out of memory", ...). */
RO_SGNS_DEF const char *ro_sgns_result_string(ro_sgns_result code);

/* Details of a failure: the code and a message that names the file, the line
   or byte offset, the dimension at fault. Every call that can fail takes an
   optional ro_sgns_error* (NULL = don't care). On success code is RO_SGNS_OK
   and message is "". The library keeps no global error state. */
#define RO_SGNS_MESSAGE_SIZE 256
typedef struct ro_sgns_error {
    ro_sgns_result code;
    char message[RO_SGNS_MESSAGE_SIZE];
} ro_sgns_error;

/* A runtime allocator. Calls that allocate take an optional
   const ro_sgns_allocator* (NULL = the RO_SGNS_MALLOC/REALLOC/FREE macros,
   which default to malloc/realloc/free). Either all three functions are set
   or none; user is passed back to each. */
typedef struct ro_sgns_allocator {
    void *(*malloc_fn)(void *user, size_t size);
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    void (*free_fn)(void *user, void *ptr);
    void *user;
} ro_sgns_allocator;

/* Random numbers: xoshiro256** seeded through splitmix64. Streams for
   parallel blocks are derived from (seed, block index), never from the
   thread, so results do not depend on the thread count. */
typedef struct ro_sgns_rng {
    uint64_t s[4];
} ro_sgns_rng;

/* Seed a stream; stream distinguishes independent streams of one seed. */
RO_SGNS_DEF void ro_sgns_rng_seed(ro_sgns_rng *rng, uint64_t seed, uint64_t stream);
RO_SGNS_DEF uint64_t ro_sgns_rng_next(ro_sgns_rng *rng);
/* Uniform double in [0, 1) with 53 random bits. */
RO_SGNS_DEF double ro_sgns_rng_uniform(ro_sgns_rng *rng);
/* Standard normal (Box-Muller, one value per call). */
RO_SGNS_DEF double ro_sgns_rng_normal(ro_sgns_rng *rng);

/* ======================================================================
   A. Dense linear algebra
      All matrices are row-major: element (i, j) of a matrix stored at A
      with leading dimension lda is A[i*lda + j], and lda >= the number of
      columns stored. Sizes are size_t; products of sizes are checked for
      overflow before anything is allocated.
   ====================================================================== */

typedef enum ro_sgns_trans {
    RO_SGNS_NOTRANS = 0,
    RO_SGNS_TRANS = 1
} ro_sgns_trans;

/* GEMM: C = alpha op(A) op(B) + beta C, with op(A) m x k, op(B) k x n and
   C m x n. op(X) is X or X^T. With beta = 0, C is not read (it may hold
   NaN). With k = 0 or alpha = 0, C = beta C. Returns
   RO_SGNS_ERR_INVALID_ARGUMENT for a leading dimension that is too small or
   a NULL pointer where data is needed, RO_SGNS_ERR_OUT_OF_MEMORY when the
   packing buffers cannot be had. Routes to CBLAS under RO_SGNS_USE_CBLAS. */
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

/* Thin QR of a tall n x d matrix (n >= d >= 1) by Householder reflections:
   A = Q R with Q n x d, Q^T Q = I, R d x d upper triangular with R_jj >= 0.
   A is overwritten by Q; R (d x d, leading dimension ldr) receives R, its
   strictly lower part set to 0. Rank-deficient and zero input give a valid
   orthonormal Q and zeros on R's diagonal, never NaN. NaN/Inf in A give
   RO_SGNS_ERR_NUMERIC with A and R unspecified. Routes to LAPACKE
   ?geqrf+?orgqr under RO_SGNS_USE_LAPACKE. */
RO_SGNS_DEF ro_sgns_result ro_sgns_qr(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                      ro_sgns_real *R, size_t ldr,
                                      const ro_sgns_allocator *alloc, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_qr_builtin(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                              ro_sgns_real *R, size_t ldr,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err);

/* Thin SVD A = U diag(s) V^T of an m x n matrix, r = min(m, n): U is m x r
   and V is n x r with orthonormal columns, s (r values) descending and >= 0.
   One-sided Jacobi (Hestenes) in double precision, after a QR when m > n:
   every singular value to full relative accuracy (to a small multiple of
   eps times the condition of A's columns after scaling). Zero singular
   values get orthonormal completion columns in U and V. A is not changed.
   U or V may be NULL when not wanted. NaN/Inf in A give RO_SGNS_ERR_NUMERIC;
   more than 60 sweeps give RO_SGNS_ERR_NOT_CONVERGED (not seen in tests).
   Routes to LAPACKE ?gesdd under RO_SGNS_USE_LAPACKE. */
RO_SGNS_DEF ro_sgns_result ro_sgns_svd(size_t m, size_t n, const ro_sgns_real *A, size_t lda,
                                       ro_sgns_real *U, size_t ldu, ro_sgns_real *s,
                                       ro_sgns_real *V, size_t ldv,
                                       const ro_sgns_allocator *alloc, ro_sgns_error *err);
RO_SGNS_DEF ro_sgns_result ro_sgns_svd_builtin(size_t m, size_t n, const ro_sgns_real *A,
                                               size_t lda, ro_sgns_real *U, size_t ldu,
                                               ro_sgns_real *s, ro_sgns_real *V, size_t ldv,
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

#if defined(__AVX512F__) && !defined(RO_SGNS_NO_SIMD)
#include <immintrin.h>
#define RO_SGNS__AVX512 1
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

/* Is the build's real type double? A compile-time constant; branches on it
   are folded away. Used where a kernel exists in float and double flavours
   (CBLAS/LAPACKE routing, SIMD micro-kernels). */
#define RO_SGNS__IS_DOUBLE (sizeof(ro_sgns_real) == sizeof(double))

/* ======================================================================
   0. Basics
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

static size_t ro_sgns__min(size_t a, size_t b) { return a < b ? a : b; }

static int ro_sgns__num_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ======================================================================
   Appendix D. Random numbers
   xoshiro256** (Blackman and Vigna, 2018) with its state filled by
   splitmix64; a stream number is mixed into the seed so that block b of a
   parallel loop draws from stream b whatever thread runs it.
   ====================================================================== */

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

/* ======================================================================
   Appendix A. GEMM: C = alpha op(A) op(B) + beta C

   What: the one dense kernel everything else stands on (the RO step is four
   products of an implicit n x m matrix with an n x d or m x d factor; the
   QR and the randomized SVD are built from it too).
   How: first the textbook triple loop, ro_sgns_gemm_naive, to read and to
   test against. Then the blocked algorithm of the BLIS papers (Van Zee and
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

   Packing copies the operands, whatever op() is, into the exact order the
   micro-kernel reads them (contiguous, zero-padded at the edges), so the
   kernel has one shape and the transposes cost nothing in the inner loop.
   Edge tiles run the same kernel on the padded panels and write back only
   the valid part.
   Cost: 2 m n k flops; memory: one B panel (KC x NC) plus one A block
   (MC x KC) per thread.
   Determinism: each element of C receives its KC-long partial sums in pc
   order, each computed by the same kernel in p order. MC, NC and the split
   of the ic/jr work over threads change which thread computes a tile, never
   the arithmetic, so any thread count gives bitwise the same C. KC is a
   fixed constant for that reason; the k loop is never split over threads.
   ====================================================================== */

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

/* Block sizes. MR x NR is the register tile of the micro-kernel; KC is the
   depth of one rank-KC update (fixed: it decides the summation order); MC
   rows of A (MC x KC, ~150 KB in float) stay in L2; NC columns of B
   (KC x NC, 4 MB in float) stay in L3. Tuned on AMD Zen 4. */
#ifdef RO_SGNS__AVX512
#define RO_SGNS__MR 12
#define RO_SGNS__NR (RO_SGNS__IS_DOUBLE ? 16 : 32) /* two 512-bit vectors */
#else
#define RO_SGNS__MR 4
#define RO_SGNS__NR 8
#endif
#define RO_SGNS__KC 256
#define RO_SGNS__MC (12 * RO_SGNS__MR)
#define RO_SGNS__NC 4096
#define RO_SGNS__TILE (RO_SGNS__MR * 32) /* room for MR x NR in every build */

/* The portable micro-kernel: acc (MR x NR, row-major) = sum over p < kc of
   the outer product of column p of the A panel and row p of the B panel.
   Plain C that compilers turn into vector code; the reference for the
   SIMD kernels below. */
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

#ifdef RO_SGNS__AVX512
/* AVX-512 micro-kernels: a 12 x 32 (float) or 12 x 16 (double) tile in 24
   zmm accumulators; per step two loads of B and twelve broadcasts of A, each
   feeding two fused multiply-adds. */
#define RO_SGNS__FMA_ROW(T, SET1, FMA, i)                                 \
    do {                                                                   \
        T ai_ = SET1(a[i]);                                                \
        c##i##0 = FMA(ai_, b0, c##i##0);                                   \
        c##i##1 = FMA(ai_, b1, c##i##1);                                   \
    } while (0)
#define RO_SGNS__KERNEL_AVX512(NAME, R, T, W, ZERO, LOAD, STORE, SET1, FMA)                  \
    static void NAME(size_t kc, const R *RO_SGNS__RESTRICT a, const R *RO_SGNS__RESTRICT b,   \
                     R *RO_SGNS__RESTRICT acc)                                                \
    {                                                                                         \
        T c00 = ZERO(), c01 = ZERO(), c10 = ZERO(), c11 = ZERO(), c20 = ZERO(), c21 = ZERO(); \
        T c30 = ZERO(), c31 = ZERO(), c40 = ZERO(), c41 = ZERO(), c50 = ZERO(), c51 = ZERO(); \
        T c60 = ZERO(), c61 = ZERO(), c70 = ZERO(), c71 = ZERO(), c80 = ZERO(), c81 = ZERO(); \
        T c90 = ZERO(), c91 = ZERO(), c100 = ZERO(), c101 = ZERO(), c110 = ZERO();            \
        T c111 = ZERO();                                                                      \
        size_t p;                                                                             \
        for (p = 0; p < kc; ++p) {                                                            \
            T b0 = LOAD(b), b1 = LOAD(b + W);                                                 \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 0);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 1);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 2);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 3);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 4);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 5);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 6);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 7);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 8);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 9);                                                \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 10);                                               \
            RO_SGNS__FMA_ROW(T, SET1, FMA, 11);                                               \
            a += 12;                                                                          \
            b += 2 * W;                                                                       \
        }                                                                                     \
        STORE(acc + 0 * W, c00), STORE(acc + 1 * W, c01), STORE(acc + 2 * W, c10);            \
        STORE(acc + 3 * W, c11), STORE(acc + 4 * W, c20), STORE(acc + 5 * W, c21);            \
        STORE(acc + 6 * W, c30), STORE(acc + 7 * W, c31), STORE(acc + 8 * W, c40);            \
        STORE(acc + 9 * W, c41), STORE(acc + 10 * W, c50), STORE(acc + 11 * W, c51);          \
        STORE(acc + 12 * W, c60), STORE(acc + 13 * W, c61), STORE(acc + 14 * W, c70);         \
        STORE(acc + 15 * W, c71), STORE(acc + 16 * W, c80), STORE(acc + 17 * W, c81);         \
        STORE(acc + 18 * W, c90), STORE(acc + 19 * W, c91), STORE(acc + 20 * W, c100);        \
        STORE(acc + 21 * W, c101), STORE(acc + 22 * W, c110), STORE(acc + 23 * W, c111);      \
    }
RO_SGNS__KERNEL_AVX512(ro_sgns__kernel_avx512_s, float, __m512, 16, _mm512_setzero_ps,
                       _mm512_load_ps, _mm512_store_ps, _mm512_set1_ps, _mm512_fmadd_ps)
RO_SGNS__KERNEL_AVX512(ro_sgns__kernel_avx512_d, double, __m512d, 8, _mm512_setzero_pd,
                       _mm512_load_pd, _mm512_store_pd, _mm512_set1_pd, _mm512_fmadd_pd)
#endif

/* One MR x NR tile product into acc; the panels and acc are 64-byte aligned. */
static void ro_sgns__kernel(size_t kc, const ro_sgns_real *a, const ro_sgns_real *b,
                            ro_sgns_real *acc)
{
#ifdef RO_SGNS__AVX512
    if (RO_SGNS__IS_DOUBLE)
        ro_sgns__kernel_avx512_d(kc, (const double *)(const void *)a,
                                 (const double *)(const void *)b, (double *)(void *)acc);
    else
        ro_sgns__kernel_avx512_s(kc, (const float *)(const void *)a,
                                 (const float *)(const void *)b, (float *)(void *)acc);
#else
    ro_sgns__kernel_c(kc, a, b, acc);
#endif
}

/* Pack rows [i0, i0+mc) x columns [p0, p0+kc) of op(A) into micro-panels of
   MR rows: panel r holds, for each p, the MR values op(A)(i0+r*MR+i, p0+p)
   side by side; rows past mc are zero. */
static void ro_sgns__pack_a(ro_sgns_trans ta, const ro_sgns_real *A, size_t lda, size_t i0,
                            size_t mc, size_t p0, size_t kc, ro_sgns_real *dst)
{
    size_t r, i, p;
    for (r = 0; r < mc; r += RO_SGNS__MR) {
        size_t rows = ro_sgns__min(RO_SGNS__MR, mc - r);
        ro_sgns_real *panel = dst + r * kc;
        for (i = 0; i < (size_t)RO_SGNS__MR; ++i) {
            if (i >= rows) {
                for (p = 0; p < kc; ++p) panel[p * RO_SGNS__MR + i] = 0;
            } else if (!ta) {
                const ro_sgns_real *src = A + (i0 + r + i) * lda + p0;
                for (p = 0; p < kc; ++p) panel[p * RO_SGNS__MR + i] = src[p];
            } else {
                const ro_sgns_real *src = A + p0 * lda + i0 + r + i;
                for (p = 0; p < kc; ++p) panel[p * RO_SGNS__MR + i] = src[p * lda];
            }
        }
    }
}

/* Pack NR-wide micro-panel number jp of op(B)(p0:p0+kc, j0:j0+nc). */
static void ro_sgns__pack_b_panel(ro_sgns_trans tb, const ro_sgns_real *B, size_t ldb,
                                  size_t p0, size_t kc, size_t j0, size_t nc, size_t jp,
                                  ro_sgns_real *dst)
{
    size_t j = jp * RO_SGNS__NR, cols = ro_sgns__min(RO_SGNS__NR, nc - j), p, q;
    ro_sgns_real *panel = dst + j * kc;
    if (!tb) {
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

static ro_sgns_result ro_sgns__gemm_check(ro_sgns_trans ta, ro_sgns_trans tb, size_t m,
                                          size_t n, size_t k, const ro_sgns_real *A,
                                          size_t lda, const ro_sgns_real *B, size_t ldb,
                                          const ro_sgns_real *C, size_t ldc,
                                          ro_sgns_error *err)
{
    size_t a_cols = ta ? m : k, b_cols = tb ? k : n;
    if (m == 0 || n == 0) return ro_sgns__ok(err);
    if (!C || ldc < n)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "gemm: C is NULL or ldc (%lu) < n (%lu)", (unsigned long)ldc,
                             (unsigned long)n);
    if (k == 0) return ro_sgns__ok(err);
    if (!A || lda < a_cols)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "gemm: A is NULL or lda (%lu) < %lu", (unsigned long)lda,
                             (unsigned long)a_cols);
    if (!B || ldb < b_cols)
        return ro_sgns__fail(err, RO_SGNS_ERR_INVALID_ARGUMENT,
                             "gemm: B is NULL or ldb (%lu) < %lu", (unsigned long)ldb,
                             (unsigned long)b_cols);
    return ro_sgns__ok(err);
}

/* Round a pointer up to 64 bytes (buffers are allocated 64 elements larger). */
static ro_sgns_real *ro_sgns__align64(void *p)
{
    size_t off = (size_t)(64 - ((uintptr_t)p & 63)) & 63;
    return (ro_sgns_real *)(void *)((char *)p + off);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_gemm_builtin(ro_sgns_trans ta, ro_sgns_trans tb, size_t m,
                                                size_t n, size_t k, ro_sgns_real alpha,
                                                const ro_sgns_real *A, size_t lda,
                                                const ro_sgns_real *B, size_t ldb,
                                                ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                                const ro_sgns_allocator *alloc,
                                                ro_sgns_error *err)
{
    ro_sgns_result res = ro_sgns__gemm_check(ta, tb, m, n, k, A, lda, B, ldb, C, ldc, err);
    size_t nc_max, b_elems, a_elems, tile_elems, per_thread;
    int nt, overflow = 0;
    char *buf;
    if (res != RO_SGNS_OK || m == 0 || n == 0) return res;
    if (k == 0 || alpha == 0) {
        ro_sgns__scale_matrix(m, n, beta, C, ldc);
        return ro_sgns__ok(err);
    }
    nt = ro_sgns__num_threads();
    if ((double)m * (double)n * (double)k < 4e6) nt = 1; /* too small to be worth a fork */
    nc_max = ro_sgns__min(RO_SGNS__NC, (n + RO_SGNS__NR - 1) / RO_SGNS__NR * RO_SGNS__NR);
    b_elems = RO_SGNS__KC * nc_max;
    a_elems = (size_t)RO_SGNS__MC * RO_SGNS__KC;
    tile_elems = RO_SGNS__TILE;
    per_thread = a_elems + tile_elems + 64;
    buf = (char *)ro_sgns__malloc(
        alloc, ro_sgns__mul(b_elems + 64 + ro_sgns__mul((size_t)nt, per_thread, &overflow),
                            sizeof(ro_sgns_real), &overflow));
    if (overflow || !buf)
        return ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                             "gemm: cannot allocate packing buffers for %d threads", nt);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        int tid = 0;
        ro_sgns_real *bpack = ro_sgns__align64(buf);
        ro_sgns_real *apack, *acc;
        size_t jc, pc;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        apack = ro_sgns__align64((ro_sgns_real *)(void *)buf + b_elems + 64 + (size_t)tid * per_thread);
        acc = apack + a_elems;
        for (jc = 0; jc < n; jc += RO_SGNS__NC) {
            size_t nc = ro_sgns__min(RO_SGNS__NC, n - jc);
            size_t n_bpanels = (nc + RO_SGNS__NR - 1) / RO_SGNS__NR;
            size_t n_iblocks = (m + RO_SGNS__MC - 1) / RO_SGNS__MC;
            /* Split the columns into chunks so there are a few tasks per
               thread; a chunk is at least 8 micro-panels wide so the A block
               packed for it is reused. Scheduling only: the bits of C do
               not depend on it. */
            size_t want = (size_t)4 * (size_t)nt, n_jchunks = 1, chunk;
            long t, n_tasks;
            if (n_iblocks < want) n_jchunks = (want + n_iblocks - 1) / n_iblocks;
            if (n_jchunks > n_bpanels / 8) n_jchunks = n_bpanels / 8;
            if (n_jchunks < 1) n_jchunks = 1;
            chunk = (n_bpanels + n_jchunks - 1) / n_jchunks;
            n_jchunks = (n_bpanels + chunk - 1) / chunk;
            n_tasks = (long)(n_iblocks * n_jchunks);
            for (pc = 0; pc < k; pc += RO_SGNS__KC) {
                size_t kc = ro_sgns__min(RO_SGNS__KC, k - pc);
                long jp, packed_block = -1;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
                for (jp = 0; jp < (long)n_bpanels; ++jp)
                    ro_sgns__pack_b_panel(tb, B, ldb, pc, kc, jc, nc, (size_t)jp, bpack);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
                for (t = 0; t < n_tasks; ++t) {
                    size_t ib = (size_t)t / n_jchunks, jb = (size_t)t % n_jchunks;
                    size_t ic = ib * RO_SGNS__MC, mc = ro_sgns__min(RO_SGNS__MC, m - ic);
                    size_t jr0 = jb * chunk * RO_SGNS__NR;
                    size_t jr1 = ro_sgns__min(nc, jr0 + chunk * RO_SGNS__NR), jr, ir;
                    if (packed_block != (long)ib) {
                        ro_sgns__pack_a(ta, A, lda, ic, mc, pc, kc, apack);
                        packed_block = (long)ib;
                    }
                    for (jr = jr0; jr < jr1; jr += RO_SGNS__NR) {
                        size_t cols = ro_sgns__min(RO_SGNS__NR, nc - jr);
                        for (ir = 0; ir < mc; ir += RO_SGNS__MR) {
                            size_t rows = ro_sgns__min(RO_SGNS__MR, mc - ir);
                            ro_sgns__kernel(kc, apack + ir * kc, bpack + jr * kc, acc);
                            ro_sgns__update_tile(C + (ic + ir) * ldc + jc + jr, ldc, rows, cols,
                                                 acc, alpha, beta, pc == 0);
                        }
                    }
                }
            }
        }
    }
    ro_sgns__free(alloc, buf);
    return ro_sgns__ok(err);
}

RO_SGNS_DEF ro_sgns_result ro_sgns_gemm(ro_sgns_trans ta, ro_sgns_trans tb, size_t m, size_t n,
                                        size_t k, ro_sgns_real alpha, const ro_sgns_real *A,
                                        size_t lda, const ro_sgns_real *B, size_t ldb,
                                        ro_sgns_real beta, ro_sgns_real *C, size_t ldc,
                                        const ro_sgns_allocator *alloc, ro_sgns_error *err)
{
#ifdef RO_SGNS_USE_CBLAS
    /* CBLAS takes int sizes: larger problems stay on the built-in kernel. */
    ro_sgns_result res = ro_sgns__gemm_check(ta, tb, m, n, k, A, lda, B, ldb, C, ldc, err);
    const size_t lim = 0x7fffffff;
    if (res != RO_SGNS_OK || m == 0 || n == 0) return res;
    if (k == 0) {
        ro_sgns__scale_matrix(m, n, beta, C, ldc);
        return res;
    }
    if (m <= lim && n <= lim && k <= lim && lda <= lim && ldb <= lim && ldc <= lim) {
        enum CBLAS_TRANSPOSE ca = ta ? CblasTrans : CblasNoTrans;
        enum CBLAS_TRANSPOSE cb = tb ? CblasTrans : CblasNoTrans;
        if (beta == 0) ro_sgns__scale_matrix(m, n, 0, C, ldc); /* BLAS may read C */
        if (RO_SGNS__IS_DOUBLE)
            cblas_dgemm(CblasRowMajor, ca, cb, (int)m, (int)n, (int)k, (double)alpha,
                        (const double *)(const void *)A, (int)lda,
                        (const double *)(const void *)B, (int)ldb, (double)beta,
                        (double *)(void *)C, (int)ldc);
        else
            cblas_sgemm(CblasRowMajor, ca, cb, (int)m, (int)n, (int)k, (float)alpha,
                        (const float *)(const void *)A, (int)lda,
                        (const float *)(const void *)B, (int)ldb, (float)beta,
                        (float *)(void *)C, (int)ldc);
        return ro_sgns__ok(err);
    }
#endif
    return ro_sgns_gemm_builtin(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, alloc,
                                err);
}

/* ======================================================================
   Appendix B. Householder QR: A = Q R for a tall n x d matrix

   What: the retraction of the RO step re-orthonormalizes an n x d factor
   twice per iteration, and the randomized SVD re-orthonormalizes after
   every power step. Householder reflections give a Q that is orthonormal
   to working precision whatever the conditioning of A (Gram-Schmidt does
   not), and handle rank deficiency without dividing by zero.
   How (Golub and Van Loan, "Matrix Computations", 4th ed., 5.1-5.2):
     - unblocked (ro_sgns__geqr2, read this first): for each column j, a
       reflector H_j = I - tau v v^T with v = [1; v'] maps A(j:, j) to
       (beta, 0, ..., 0), and is applied to the columns right of j;
     - blocked (compact WY, Schreiber and Van Loan 1989): NB reflectors of a
       panel are gathered into H_1...H_NB = I - V T V^T with T upper
       triangular, so the update of the trailing columns and the forming of
       Q are three GEMMs each and run at GEMM speed.
   Q is formed explicitly: Q = H_1 ... H_d [I; 0], applied panel by panel
   from the last. Signs are fixed at the end so that R_jj >= 0.
   Cost: about 4 n d^2 flops (half for R, half for Q) for n >> d; memory:
   the reflectors (n x d) and NB x d blocks.
   ====================================================================== */

#define RO_SGNS__QR_NB 32

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
   scales. w is scratch of d doubles. */
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

static int ro_sgns__all_finite(size_t rows, size_t cols, const ro_sgns_real *A, size_t lda)
{
    size_t i, j;
    for (i = 0; i < rows; ++i)
        for (j = 0; j < cols; ++j)
            if (!ro_sgns__is_finite((double)A[i * lda + j])) return 0;
    return 1;
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

RO_SGNS_DEF ro_sgns_result ro_sgns_qr_builtin(size_t n, size_t d, ro_sgns_real *A, size_t lda,
                                              ro_sgns_real *R, size_t ldr,
                                              const ro_sgns_allocator *alloc,
                                              ro_sgns_error *err)
{
    const size_t nb = RO_SGNS__QR_NB;
    size_t n_panels = (d + nb - 1) / nb, i, j, c, r;
    ro_sgns_real *V, *T, *W, *W2;
    double *tau, *w;
    ro_sgns_result res = ro_sgns__qr_check(n, d, A, lda, R, ldr, err);
    if (res != RO_SGNS_OK) return res;
    V = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n, d, sizeof(ro_sgns_real));
    T = (ro_sgns_real *)ro_sgns__alloc_array(alloc, n_panels * nb, nb, sizeof(ro_sgns_real));
    W = (ro_sgns_real *)ro_sgns__alloc_array(alloc, 2 * nb, d, sizeof(ro_sgns_real));
    tau = (double *)ro_sgns__alloc_array(alloc, 2, d, sizeof(double));
    if (!V || !T || !W || !tau) {
        res = ro_sgns__fail(err, RO_SGNS_ERR_OUT_OF_MEMORY,
                            "qr: cannot allocate workspace for %lu x %lu", (unsigned long)n,
                            (unsigned long)d);
        goto done;
    }
    W2 = W + nb * d;
    w = tau + d;

    /* 1. Factor, panel by panel: A(j:, j:j+jb) by reflectors, then the
          trailing columns by  C -= V (T^T (V^T C)). V is kept, unit lower
          trapezoidal, at V(j:, j:j+jb). */
    for (j = 0; j < d; j += nb) {
        size_t jb = ro_sgns__min(nb, d - j), rows = n - j, rest = d - j - jb;
        ro_sgns_real *Vp = V + j * d + j, *Tp = T + (j / nb) * nb * nb;
        ro_sgns__geqr2(rows, jb, A + j * lda + j, lda, tau + j, w);
        for (i = 0; i < rows; ++i)
            for (c = 0; c < jb; ++c)
                Vp[i * d + c] = i == c ? 1 : (i > c ? A[(j + i) * lda + j + c] : 0);
        /* T: T_ii = tau_i, T(0:i, i) = -tau_i T(0:i, 0:i) (V(:, 0:i)^T v_i),
           with the Gram matrix V^T V from one GEMM (LAPACK's ?larft). */
        res = ro_sgns_gemm_builtin(RO_SGNS_TRANS, RO_SGNS_NOTRANS, jb, jb, rows, 1, Vp, d, Vp, d,
                                   0, W, jb, alloc, err);
        if (res != RO_SGNS_OK) goto done;
        for (i = 0; i < jb; ++i) {
            for (r = 0; r < i; ++r) {
                double sum = 0;
                size_t q;
                for (q = r; q < i; ++q) sum += (double)Tp[r * nb + q] * W[q * jb + i];
                W2[r] = (ro_sgns_real)(-tau[j + i] * sum);
            }
            for (r = 0; r < i; ++r) Tp[r * nb + i] = W2[r];
            Tp[i * nb + i] = (ro_sgns_real)tau[j + i];
            for (r = i + 1; r < jb; ++r) Tp[r * nb + i] = 0;
        }
        if (rest > 0) {
            ro_sgns_real *C = A + j * lda + j + jb;
            res = ro_sgns_gemm_builtin(RO_SGNS_TRANS, RO_SGNS_NOTRANS, jb, rest, rows, 1, Vp, d,
                                       C, lda, 0, W, rest, alloc, err);
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm_builtin(RO_SGNS_TRANS, RO_SGNS_NOTRANS, jb, rest, jb, 1, Tp,
                                           nb, W, rest, 0, W2, rest, alloc, err);
            if (res == RO_SGNS_OK)
                res = ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, rows, rest, jb, -1,
                                           Vp, d, W2, rest, 1, C, lda, alloc, err);
            if (res != RO_SGNS_OK) goto done;
        }
    }

    /* 2. R is the upper triangle. */
    for (i = 0; i < d; ++i)
        for (c = 0; c < d; ++c) R[i * ldr + c] = c >= i ? A[i * lda + c] : 0;

    /* 3. Q = H_1 ... H_d [I; 0], panels applied from the last: panel j
          touches only Q(j:, j:), by  Q(j:, j:) -= V (T (V^T Q(j:, j:))). */
    for (i = 0; i < n; ++i)
        for (c = 0; c < d; ++c) A[i * lda + c] = (ro_sgns_real)(i == c);
    for (r = n_panels; r-- > 0;) {
        size_t jb, rows, cols;
        ro_sgns_real *Vp, *Tp, *Qs;
        j = r * nb;
        jb = ro_sgns__min(nb, d - j);
        rows = n - j;
        cols = d - j;
        Vp = V + j * d + j;
        Tp = T + r * nb * nb;
        Qs = A + j * lda + j;
        res = ro_sgns_gemm_builtin(RO_SGNS_TRANS, RO_SGNS_NOTRANS, jb, cols, rows, 1, Vp, d, Qs,
                                   lda, 0, W, cols, alloc, err);
        if (res == RO_SGNS_OK)
            res = ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, jb, cols, jb, 1, Tp, nb,
                                       W, cols, 0, W2, cols, alloc, err);
        if (res == RO_SGNS_OK)
            res = ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, rows, cols, jb, -1, Vp,
                                       d, W2, cols, 1, Qs, lda, alloc, err);
        if (res != RO_SGNS_OK) goto done;
    }
    ro_sgns__qr_fix_signs(n, d, A, lda, R, ldr);
    res = ro_sgns__ok(err);
done:
    ro_sgns__free(alloc, V);
    ro_sgns__free(alloc, T);
    ro_sgns__free(alloc, W);
    ro_sgns__free(alloc, tau);
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
        if (info != 0)
            return ro_sgns__fail(err, info < 0 ? RO_SGNS_ERR_OUT_OF_MEMORY : RO_SGNS_ERR_NUMERIC,
                                 "qr: LAPACKE returned %d", (int)info);
        ro_sgns__qr_fix_signs(n, d, A, lda, R, ldr);
        return ro_sgns__ok(err);
    }
#endif
    return ro_sgns_qr_builtin(n, d, A, lda, R, ldr, alloc, err);
}

/* ======================================================================
   Appendix C. One-sided Jacobi SVD

   What: the SVD of small dense matrices: the core of the randomized SVD
   (Halko et al.), the d x d core S = P Sigma Q^T that turns the RO factors
   into embeddings, the start from arbitrary W0, C0.
   How (Hestenes 1958; Demmel and Veselic 1992; Drmac and Veselic 2008):
   rotate pairs of columns (g_p, g_q) of G = A V until every pair is
   orthogonal to working precision: |g_p . g_q| <= tol |g_p| |g_q| with
   tol = m eps. Then A V = G = U Sigma with sigma_j = |g_j| and
   u_j = g_j / sigma_j. The rotation of a pair is the Jacobi rotation that
   diagonalizes the 2 x 2 Gram matrix [a c; c b]:
       zeta = (b - a) / (2c),  t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)),
       cs = 1 / sqrt(1 + t^2), sn = cs t,
       g_p <- cs g_p - sn g_q,  g_q <- sn g_p + cs g_q  (and the same on V).
   a, b and c are computed afresh for every pair: updating the norms by
   formula (a <- a - t c) drifts for columns that rotate down to noise, and
   then the iteration cycles without converging.
   Because the test is relative to each pair's own norms, small singular
   values come out with small relative error (unlike bidiagonalization
   methods, whose error is relative to the largest one). Work is in double
   whatever RO_SGNS_REAL is; the matrix is scaled by its largest entry
   first, so huge and tiny inputs neither overflow nor underflow.
   A tall matrix (m > n) is first reduced by QR: A = Q R, SVD of R, U = Q U_R.
   Cost: ~6 n^2 (m + n) flops per sweep, typically 6-10 sweeps; memory:
   2 n^2 + m n doubles.
   ====================================================================== */

#define RO_SGNS__JACOBI_MAX_SWEEPS 60

/* Orthogonalize the n columns of G (column j at G + j*m, length m) by
   one-sided Jacobi rotations, applied to the columns of V (length n) too. */
static ro_sgns_result ro_sgns__jacobi(size_t m, size_t n, double *G, double *V,
                                      ro_sgns_error *err)
{
    const double tol = DBL_EPSILON * (double)(m > 1 ? m : 1);
    size_t p, q, i;
    int sweep;
    for (sweep = 0; sweep < RO_SGNS__JACOBI_MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        for (p = 0; p + 1 < n; ++p) {
            for (q = p + 1; q < n; ++q) {
                double *gp = G + p * m, *gq = G + q * m, *vp = V + p * n, *vq = V + q * n;
                double a0 = 0, a1 = 0, b0 = 0, b1 = 0, c0 = 0, c1 = 0, a, b, c;
                double zeta, t, cs, sn;
                /* the 2 x 2 Gram matrix [a c; c b], two partial sums each
                   (a fixed order: deterministic) */
                for (i = 0; i + 1 < m; i += 2) {
                    a0 += gp[i] * gp[i];
                    a1 += gp[i + 1] * gp[i + 1];
                    b0 += gq[i] * gq[i];
                    b1 += gq[i + 1] * gq[i + 1];
                    c0 += gp[i] * gq[i];
                    c1 += gp[i + 1] * gq[i + 1];
                }
                if (i < m) {
                    a0 += gp[i] * gp[i];
                    b0 += gq[i] * gq[i];
                    c0 += gp[i] * gq[i];
                }
                a = a0 + a1;
                b = b0 + b1;
                c = c0 + c1;
                /* a column whose squares underflow (entries ~1e-160 after
                   scaling) counts as zero; it is completed at the end */
                if (a == 0 || b == 0) continue;
                if (!(RO_SGNS_FABS(c) > tol * RO_SGNS_SQRT(a) * RO_SGNS_SQRT(b))) continue;
                rotated = 1;
                zeta = (b - a) / (2 * c);
                if (RO_SGNS_FABS(zeta) > 1e150)
                    t = 0.5 / zeta;
                else
                    t = (zeta >= 0 ? 1.0 : -1.0) /
                        (RO_SGNS_FABS(zeta) + RO_SGNS_SQRT(1 + zeta * zeta));
                cs = 1 / RO_SGNS_SQRT(1 + t * t);
                sn = cs * t;
                for (i = 0; i < m; ++i) {
                    double x = gp[i], y = gq[i];
                    gp[i] = cs * x - sn * y;
                    gq[i] = sn * x + cs * y;
                }
                for (i = 0; i < n; ++i) {
                    double x = vp[i], y = vq[i];
                    vp[i] = cs * x - sn * y;
                    vq[i] = sn * x + cs * y;
                }
            }
        }
        if (!rotated) return ro_sgns__ok(err);
    }
    return ro_sgns__fail(err, RO_SGNS_ERR_NOT_CONVERGED,
                         "svd: Jacobi did not converge in %d sweeps (%lu x %lu)",
                         RO_SGNS__JACOBI_MAX_SWEEPS, (unsigned long)m, (unsigned long)n);
}

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

/* The SVD of an m x n matrix with m >= n (see ro_sgns_svd). */
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

    /* sigma_j = |g_j|, then sort descending (insertion sort: stable, n small) */
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
    /* u_j = g_j / sigma_j; columns too small to normalize get completed */
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
    for (k = 0; k < n; ++k) {
        size_t o = order[k];
        s[k] = (ro_sgns_real)(norm2[o] * scale);
        if (V)
            for (i = 0; i < n; ++i) V[i * ldv + k] = (ro_sgns_real)Vt[o * n + i];
    }
    if (U && !use_qr) {
        for (k = 0; k < n; ++k)
            for (i = 0; i < m; ++i) U[i * ldu + k] = (ro_sgns_real)G[order[k] * mm + i];
    } else if (U) {
        /* U = Q U_R, U_R stored into R (n x n, row-major) in sorted order */
        for (k = 0; k < n; ++k)
            for (i = 0; i < n; ++i) R[i * n + k] = (ro_sgns_real)G[order[k] * mm + i];
        res = ro_sgns_gemm_builtin(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, m, n, n, 1, Q, n, R, n, 0, U,
                                   ldu, alloc, err);
        if (res != RO_SGNS_OK) goto done;
    }
    res = ro_sgns__ok(err);
done:
    ro_sgns__free(alloc, work);
    ro_sgns__free(alloc, order);
    ro_sgns__free(alloc, Q);
    ro_sgns__free(alloc, R);
    return res;
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
        return ro_sgns__ok(err);
    }
#endif
    return ro_sgns_svd_builtin(m, n, A, lda, U, ldu, s, V, ldv, alloc, err);
}

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
