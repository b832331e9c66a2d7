/* The allocator macros: every byte the library takes goes through them and
   comes back. Built in C and C++, with and without RO_SGNS_NO_STDIO. */
#include <stdlib.h>
static long g_live = 0, g_calls = 0;
static void *my_malloc(void *ctx, size_t sz) { (void)ctx; ++g_live; ++g_calls; return malloc(sz); }
static void *my_realloc(void *ctx, void *p, size_t sz) { (void)ctx; if (!p) { ++g_live; ++g_calls; } return realloc(p, sz); }
static void my_free(void *ctx, void *p) { (void)ctx; if (p) --g_live; free(p); }
#define RO_SGNS_MALLOC(c, sz) my_malloc(c, sz)
#define RO_SGNS_REALLOC(c, p, sz) my_realloc(c, p, sz)
#define RO_SGNS_FREE(c, p) my_free(c, p)
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "test_util.h"

int main(void)
{
    ro_sgns_real A[40 * 6], R[36], U[40 * 6], s[6], V[36];
    ro_sgns_rng rng;
    int i;
    ro_sgns_rng_seed(&rng, 1, 0);
    for (i = 0; i < 240; ++i) A[i] = (ro_sgns_real)ro_sgns_rng_normal(&rng);
    CHECK(ro_sgns_svd(40, 6, A, 6, U, 6, s, V, 6, NULL, NULL) == RO_SGNS_OK);
    CHECK(ro_sgns_qr(40, 6, A, 6, R, 6, NULL, NULL) == RO_SGNS_OK);
    CHECK(g_calls > 0);
    CHECK(g_live == 0);
    return tu_finish("alloc-macros");
}
