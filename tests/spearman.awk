# spearman.awk - Spearman's rho of a word-pair file's scores with the cosines
# of word vectors, computed apart from the library (tests/test_cli.sh checks
# ro-sgns eval against it): awk -f tests/spearman.awk VECTORS PAIRS, VECTORS in
# word2vec text (its "n d" header line optional), PAIRS "word word score"
# lines; pairs with a word not in VECTORS are left out (eval's default), words
# compared as they are (no case folding), a zero vector's cosine 0, average
# ranks for ties. Prints "rho pairs_used". Double precision, O(pairs^2).
FNR == NR { if (FNR == 1 && NF == 2) next
            for (i = 2; i <= NF; ++i) v[$1, i - 1] = $i + 0
            d = NF - 1; has[$1] = 1; next }
!($1 in has) || !($2 in has) { next }
{ dot = na = nb = 0
  for (i = 1; i <= d; ++i) { a = v[$1, i]; b = v[$2, i]; dot += a * b; na += a * a; nb += b * b }
  ++n; h[n] = $3 + 0; c[n] = (na > 0 && nb > 0) ? dot / sqrt(na * nb) : 0 }
function ranks(x, r,    i, j, lt, eq) {
  for (i = 1; i <= n; ++i) { lt = eq = 0
    for (j = 1; j <= n; ++j) { if (x[j] < x[i]) ++lt; else if (x[j] == x[i]) ++eq }
    r[i] = lt + (eq + 1) / 2 } }
END { ranks(h, rh); ranks(c, rc); mh = mc = 0
  for (i = 1; i <= n; ++i) { mh += rh[i]; mc += rc[i] }
  mh /= n; mc /= n; sxy = sxx = syy = 0
  for (i = 1; i <= n; ++i) { x = rh[i] - mh; y = rc[i] - mc; sxy += x * y; sxx += x * x; syy += y * y }
  printf "%.6f %d\n", sxy / sqrt(sxx * syy), n }
