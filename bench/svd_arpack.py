#!/usr/bin/env python3
# bench/svd_arpack.py - the accuracy reference of bench/svd.c: the d largest
# singular values of the SPPMI matrix that `bench_svd COUNTS export` wrote to
# build/sppmi.bin, by ARPACK (scipy's eigsh: SPPMI of symmetric counts is
# symmetric, its singular values are the |eigenvalues|), in double, converged
# to machine precision. Writes build/sppmi_arpack_d{d}.txt.
# usage: python3 bench/svd_arpack.py d [d ...]   (needs python3-scipy)
import sys, time
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sl

raw = open('build/sppmi.bin', 'rb').read()
n, nnz = (int(x) for x in np.frombuffer(raw[:16], dtype='<u8'))
o = 16
row_ptr = np.frombuffer(raw[o:o + 8 * (n + 1)], dtype='<u8'); o += 8 * (n + 1)
col = np.frombuffer(raw[o:o + 4 * nnz], dtype='<u4'); o += 4 * nnz
val = np.frombuffer(raw[o:o + 4 * nnz], dtype='<f4')
A = sp.csr_matrix((val.astype(np.float64), col.astype(np.int64), row_ptr.astype(np.int64)),
                  shape=(n, n))
if abs(A - A.T).max() != 0:
    sys.exit('svd_arpack.py: the matrix is not symmetric')
for d in (int(a) for a in sys.argv[1:]):
    t = time.time()
    k = d + 20  # a margin: eigsh's k largest by magnitude, both signs
    w = sl.eigsh(A, k=k, which='LM', return_eigenvectors=False, ncv=2 * k + 1)
    s = np.sort(np.abs(w))[::-1][:d]
    np.savetxt('build/sppmi_arpack_d%d.txt' % d, s, fmt='%.12g')
    print('d = %d: ARPACK %.1f s, s_1 = %.6g, s_d = %.6g' % (d, time.time() - t, s[0], s[-1]))
