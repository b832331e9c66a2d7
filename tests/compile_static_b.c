/* Two translation units each with a private (RO_SGNS_STATIC) copy of the
   library, linked into one program: no duplicate symbols. */
#define RO_SGNS_STATIC
#define RO_SGNS_IMPLEMENTATION
#include "../ro_sgns.h"
#include "../ro_sgns.h" /* included twice: the guards hold */

float static_copy_b(void)
{
    float a[4] = {1, 2, 3, 4}, c[4];
    ro_sgns_gemm(RO_SGNS_NOTRANS, RO_SGNS_NOTRANS, 2, 2, 2, 1, a, 2, a, 2, 0, c, 2, NULL, NULL);
    return c[1] + c[2]; /* 10 + 15 */
}
