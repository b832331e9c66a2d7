/* test_util.h - the few assert macros the tests share; no framework.
   Each test program counts its checks and ends with
       <name>: N passed, N failed
   and exits non-zero when anything failed. */
#ifndef RO_SGNS_TEST_UTIL_H
#define RO_SGNS_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int tu_passed = 0, tu_failed = 0;

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

/* RO_SGNS_TEST_QUICK=1 (set and not "0"): skip the largest sizes, for slow
   runs (qemu, wine, valgrind; see mk/cross.mk). */
#if defined(__GNUC__) || defined(__clang__)
#define TU_MAYBE_UNUSED __attribute__((unused))
#else
#define TU_MAYBE_UNUSED
#endif
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

#ifdef RO_SGNS_H
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

static int tu_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, tu_passed, tu_failed);
    return tu_failed ? 1 : 0;
}

#endif
