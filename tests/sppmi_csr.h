/* sppmi_csr.h - the SPPMI of counts held as CSR, straight from its
   definition, for the step-alone programs (tests/test_step_alone.c,
   tests/cortex_m.c), whose configuration leaves out the counting part and
   its ro_sgns_sppmi:
       SPPMI_wc = max(log(#(w,c) |D| / (#(w) #(c))) - log k, 0)
   on the counts' pattern (n x n, symmetric counts). Include after ro_sgns.h. */
#ifndef RO_SGNS_TEST_SPPMI_CSR_H
#define RO_SGNS_TEST_SPPMI_CSR_H

#include <math.h>
#include <stdlib.h>

static ro_sgns_result sppmi_csr(size_t n, const uint64_t *row_ptr, const uint32_t *col,
                                const float *val, double k, ro_sgns_csr **out,
                                ro_sgns_error *err)
{
    double *rs = (double *)calloc(n, sizeof *rs), *cs = (double *)calloc(n, sizeof *cs);
    double total = 0;
    uint64_t e, kept = 0;
    size_t i;
    ro_sgns_csr *A = NULL;
    ro_sgns_result rc = RO_SGNS_ERR_OUT_OF_MEMORY;
    if (!rs || !cs) goto done;
    for (i = 0; i < n; ++i)
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
            rs[i] += val[e];
            cs[col[e]] += val[e];
            total += val[e];
        }
    for (i = 0; i < n; ++i)
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e)
            kept += log(val[e] * total / (rs[i] * cs[col[e]])) - log(k) > 0;
    rc = ro_sgns_csr_create(n, n, kept, &A, NULL, err);
    if (rc != RO_SGNS_OK) goto done;
    kept = 0;
    for (i = 0; i < n; ++i) {
        for (e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
            double v = log(val[e] * total / (rs[i] * cs[col[e]])) - log(k);
            if (v > 0) {
                A->col[kept] = col[e];
                A->val[kept++] = (ro_sgns_real)v;
            }
        }
        A->row_ptr[i + 1] = kept;
    }
    *out = A;
done:
    free(rs);
    free(cs);
    return rc;
}

#endif
