/* test_util.h - what the tests and the fuzz targets share; no framework.
   Each test program counts its checks and ends with
       <name>: N passed, N failed
   and exits non-zero when anything failed. A fuzz target aborts instead
   (FUZZ_REQUIRE), which libFuzzer reports with the input. */
#ifndef RO_SGNS_TEST_UTIL_H
#define RO_SGNS_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define TU_MAYBE_UNUSED __attribute__((unused))
#else
#define TU_MAYBE_UNUSED
#endif

static TU_MAYBE_UNUSED int tu_passed = 0, tu_failed = 0;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (cond) {                                                                       \
            ++tu_passed;                                                                  \
        } else {                                                                          \
            ++tu_failed;                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);      \
        }                                                                                 \
    } while (0)

/* A check with a printf-style explanation printed when it fails. */
#define CHECKF(cond, ...)                                                                 \
    do {                                                                                  \
        if (cond) {                                                                       \
            ++tu_passed;                                                                  \
        } else {                                                                          \
            ++tu_failed;                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* |a - b| <= tol, false for NaN. */
#define CHECK_NEAR(a, b, tol)                                                             \
    CHECKF(fabs((double)(a) - (double)(b)) <= (double)(tol), "%.17g vs %.17g (tol %.3g)", \
           (double)(a), (double)(b), (double)(tol))

/* The larger of a and b, NaN when either is: the running maximum of an
   error stays NaN once one term is, so the check on it fails (fmax(m, x)
   and "if (x > m) m = x" both drop a NaN x, and the check passes). */
static TU_MAYBE_UNUSED double tu_max(double a, double b)
{
    if (a != a || b != b) return a + b; /* NaN (not isnan: mingw's converts to float) */
    return a > b ? a : b;
}

/* A fuzz target's check: abort() when false. */
#define FUZZ_REQUIRE(x)                                                                            \
    do {                                                                                           \
        if (!(x)) abort();                                                                         \
    } while (0)

/* A reader (ro_sgns_read_fn) over a memory block, handing out at most chunk
   bytes a call; after fail_after calls it reports an error ((size_t)-1),
   never when fail_after < 0. */
typedef struct tu_reader {
    const unsigned char *p;
    size_t size, at, chunk;
    int fail_after;
} tu_reader;

static TU_MAYBE_UNUSED size_t tu_read(void *user, void *buf, size_t size)
{
    tu_reader *r = (tu_reader *)user;
    size_t m = r->size - r->at;
    if (r->fail_after == 0) return (size_t)-1;
    if (r->fail_after > 0) --r->fail_after;
    if (m > size) m = size;
    if (m > r->chunk) m = r->chunk;
    memcpy(buf, r->p + r->at, m);
    r->at += m;
    return m;
}

/* A reader over n bytes at p, chunk bytes a call, never failing. */
static TU_MAYBE_UNUSED tu_reader tu_reader_of(const unsigned char *p, size_t n, size_t chunk)
{
    tu_reader r;
    r.p = p;
    r.size = n;
    r.at = 0;
    r.chunk = chunk;
    r.fail_after = -1;
    return r;
}

/* A writer (ro_sgns_write_fn) into a growing memory block; free(p) after. */
typedef struct tu_grow {
    unsigned char *p;
    size_t len, cap;
} tu_grow;

static TU_MAYBE_UNUSED int tu_grow_write(void *user, const void *data, size_t size)
{
    tu_grow *g = (tu_grow *)user;
    if (g->len + size > g->cap) {
        size_t cap = (g->len + size) * 2;
        unsigned char *q = (unsigned char *)realloc(g->p, cap);
        if (!q) return 1;
        g->p = q;
        g->cap = cap;
    }
    memcpy(g->p + g->len, data, size);
    g->len += size;
    return 0;
}

#ifdef RO_SGNS_H /* helpers on the library's types, where ro_sgns.h came first */
/* Bitwise equality of everything two counts objects hold. */
static TU_MAYBE_UNUSED int tu_same_counts(const ro_sgns_counts *a, const ro_sgns_counts *b)
{
    size_t i;
    if (a->n != b->n || a->nnz != b->nnz) return 0;
    if (a->row_begin != b->row_begin || a->row_end != b->row_end) return 0;
    if (memcmp(&a->total, &b->total, sizeof(double)) != 0) return 0;
    if (a->corpus_tokens != b->corpus_tokens || a->distinct_words != b->distinct_words) return 0;
    for (i = 0; i < a->n; ++i)
        if (a->vocab.len[i] != b->vocab.len[i] || a->vocab.count[i] != b->vocab.count[i] ||
            memcmp(a->vocab.word[i], b->vocab.word[i], a->vocab.len[i] + 1) != 0)
            return 0;
    if (memcmp(a->row_ptr, b->row_ptr, (a->row_end - a->row_begin + 1) * sizeof(uint64_t)) != 0)
        return 0;
    if (a->nnz && memcmp(a->col, b->col, (size_t)a->nnz * sizeof(uint32_t)) != 0) return 0;
    if (a->nnz && memcmp(a->val, b->val, (size_t)a->nnz * sizeof *a->val) != 0) return 0;
    if (memcmp(a->word_count, b->word_count, a->n * sizeof(double)) != 0) return 0;
    if (memcmp(a->ctx_count, b->ctx_count, a->n * sizeof(double)) != 0) return 0;
    return 1;
}

/* sqrt(sum (a - b)^2 / sum b^2): the relative Frobenius distance of two
   blocks of len values (a to the reference b), summed in double */
static TU_MAYBE_UNUSED double tu_rel_diff(size_t len, const ro_sgns_real *a, const ro_sgns_real *b)
{
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < len; ++i) {
        num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        den += (double)b[i] * b[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}
#endif

/* RO_SGNS_TEST_QUICK=1 (set and not "0"): skip the largest sizes, for slow
   runs (qemu, wine, valgrind; see mk/cross.mk). */
static TU_MAYBE_UNUSED int tu_quick(void)
{
    const char *q = getenv("RO_SGNS_TEST_QUICK");
    return q != NULL && q[0] != '\0' && !(q[0] == '0' && q[1] == '\0');
}

/* The path of a scratch file: "$RO_SGNS_TEST_TMP/name", or "build/name" when
   that is not set. Runs of one test side by side (make check runs the cross
   targets and valgrind two at a time) get different directories from
   mk/cross.mk. Returns one of four static buffers, in turn. */
static TU_MAYBE_UNUSED const char *tu_path(const char *name)
{
    static char buf[4][512];
    static int next = 0;
    const char *dir = getenv("RO_SGNS_TEST_TMP");
    char *p = buf[next];
    next = (next + 1) % 4;
    snprintf(p, sizeof buf[0], "%s/%s", dir && dir[0] ? dir : "build", name);
    return p;
}

/* CI=true (set by CI services and .ci/run): a check that cannot run for
   want of a piece the CI machine is meant to have (a locale, the data
   files, gensim) is a failure there, not a skip. */
static TU_MAYBE_UNUSED int tu_ci(void)
{
    const char *ci = getenv("CI");
    return ci != NULL && strcmp(ci, "true") == 0;
}

/* Skip a check, saying why; under CI=true, when required, count it as
   failed. */
static TU_MAYBE_UNUSED void tu_skip(const char *name, const char *why, int required)
{
    if (required && tu_ci()) {
        ++tu_failed;
        printf("%s: FAILED: %s (CI=true: nothing may be skipped)\n", name, why);
    } else {
        printf("%s: note: %s: skipped\n", name, why);
    }
}

static TU_MAYBE_UNUSED int tu_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}

#endif
