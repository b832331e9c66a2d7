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

static void *ro_sgns__realloc(const ro_sgns_allocator *al, void *p, size_t size)
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

/* @@LINALG@@ */

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
