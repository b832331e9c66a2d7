#!/bin/sh
# interop_gensim.sh - check that gensim and ro_sgns.h read each other's word2vec
# files (text and binary), value for value, bit for bit, and answer the same
# queries.
#   1. our writer -> gensim's KeyedVectors.load_word2vec_format (binary=False/True)
#   2. gensim's save_word2vec_format -> our reader
#   3. similarity, most_similar, doesnt_match: ours against gensim's
# Each side dumps the words and the float32 bits of every value; the dumps must
# be identical. Prints "skipped" and exits 0 when gensim cannot be imported
# (Debian: apt-get install -y python3-gensim), but under CI=true (CI services,
# .ci/run), where gensim is installed, that is a failure. Run from the
# repository root:
#   sh tests/interop_gensim.sh
set -eu

PY=""
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$p" ] && "$p" -c 'import gensim' >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    if [ "${CI:-}" = true ]; then
        echo "interop_gensim: FAILED: python3 -c 'import gensim' fails (CI=true: nothing may be skipped)"
        echo "interop_gensim: 0 passed, 1 failed"
        exit 1
    fi
    echo "interop_gensim: skipped (python3 -c 'import gensim' fails)"
    echo "interop_gensim: 0 passed, 0 failed, 1 skipped"
    exit 0
fi

CC=${CC:-cc}
DIR=build/eval/interop
mkdir -p "$DIR"
$CC -std=c99 -O2 -Wall -Wextra -Werror tests/interop_gensim.c -o "$DIR/interop" -lm

pass=0
fail=0
check() { # name file1 file2
    if cmp -s "$2" "$3"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "interop_gensim: FAILED: $1"
        diff "$2" "$3" | head -5
    fi
}

cat > "$DIR/gensim_side.py" <<'PYEOF'
import struct, sys
import numpy as np
from gensim.models import KeyedVectors

def dump(kv, path):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("%d %d\n" % (len(kv.index_to_key), kv.vector_size))
        for w in kv.index_to_key:
            bits = [struct.unpack("<I", struct.pack("<f", float(x)))[0] for x in kv[w]]
            f.write(w + "".join(" %08x" % b for b in bits) + "\n")

mode = sys.argv[1]
if mode == "load":          # load PATH binary(0/1) OUT
    kv = KeyedVectors.load_word2vec_format(sys.argv[2], binary=sys.argv[3] == "1")
    dump(kv, sys.argv[4])
elif mode == "save":        # save DIR: write gensim files and gensim's own dump
    d = sys.argv[2]
    rng = np.random.default_rng(7)
    words = ["w%d" % i for i in range(50)]
    words[1:5] = ["naïve", "日本語", "straße", "😀"]
    kv = KeyedVectors(vector_size=11)
    vecs = rng.standard_normal((50, 11)).astype(np.float32)
    vecs[0, :4] = [0.1, -0.0, 1e-30, 3e38]
    kv.add_vectors(words, vecs)
    kv.save_word2vec_format(d + "/gensim.txt", binary=False)
    kv.save_word2vec_format(d + "/gensim.bin", binary=True)
    dump(kv, d + "/gensim_expected.dump")
elif mode == "queries":     # queries VECTORS QUERIES ANSWERS: make queries, answer them
    kv = KeyedVectors.load_word2vec_format(sys.argv[2], binary=True)
    w = kv.index_to_key
    n = len(w)
    qs = ["sim %s %s" % (w[(7 * i) % 400], w[(11 * i + 3) % n]) for i in range(40)]
    for i in range(80):
        pos = [w[(7 * i + 1) % 300]] + ([w[(13 * i + 5) % 1000]] if i % 3 else [])
        neg = [w[(29 * i + 11) % 600]] if i % 2 else []
        if i % 10 == 9:
            pos = []
            neg = [w[(17 * i) % 300]]
        restrict = [0, 100, 1000, 3000][i % 4]
        topn = [1, 5, 10, 20][(i // 4) % 4]
        qs.append("most %d %d %s%s" % (restrict, topn, " ".join(pos), " -- " + " ".join(neg) if neg else ""))
    for i in range(40):
        qs.append("odd " + " ".join(w[(37 * i + 53 * j) % n] for j in range(3 + i % 4)))
    for q in ("most 0 10 king woman -- man", "most 0 10 paris italy -- france", "most 500 10 three",
              "odd monday tuesday friday car", "odd red green blue city", "sim king queen"):
        if all(x in kv for x in q.split()[1:] if x != "--" and not x.isdigit()):
            qs.append(q)
    out = []
    for q in qs:
        t = q.split()
        if t[0] == "sim":
            out.append("%.6f" % kv.similarity(t[1], t[2]))
        elif t[0] == "most":
            sep = t.index("--") if "--" in t else len(t)
            r = kv.most_similar(positive=t[3:sep], negative=t[sep + 1:], topn=int(t[2]),
                                restrict_vocab=int(t[1]) or None)
            out.append(" ".join("%s %.6f" % (x, s) for x, s in r))
        else:
            by_word = {x: s for s, x in kv.rank_by_centrality(t[1:])}
            out.append(kv.doesnt_match(t[1:]) + "".join(" %.6f" % by_word[x] for x in t[1:]))
    with open(sys.argv[3], "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(q + "\n" for q in qs))
    with open(sys.argv[4], "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(a + "\n" for a in out))
elif mode == "compare":     # compare QUERIES GENSIM OURS: same words, cosines within TOL
    TOL = 1e-5  # gensim computes in float32, ro_sgns.h in double
    qs, ga, oa = [open(p, encoding="utf-8").read().splitlines() for p in sys.argv[2:5]]
    bad = 0 if len(qs) == len(ga) == len(oa) else 1
    for q, a, b in zip(qs, ga, oa):
        ta, tb = a.split(), b.split()
        ok = len(ta) == len(tb)
        if ok and q.startswith("most"):
            wa, wb = ta[0::2], tb[0::2]
            sa, sb = [float(x) for x in ta[1::2]], [float(x) for x in tb[1::2]]
            # a near tie may be ordered either way; anything else must agree
            ok = sorted(wa) == sorted(wb) and all(abs(x - y) <= TOL for x, y in zip(sa, sb)) and \
                all(x == y or abs(sa[i] - sa[wa.index(y)]) <= TOL for i, (x, y) in enumerate(zip(wa, wb)))
        elif ok:
            first = 1 if q.startswith("odd") else 0
            ok = ta[:first] == tb[:first] and all(abs(float(x) - float(y)) <= TOL
                                                  for x, y in zip(ta[first:], tb[first:]))
        if not ok:
            bad += 1
            if bad <= 5:
                print("  %s\n    gensim: %s\n    ours:   %s" % (q, a, b))
    print("%d queries, %d disagree" % (len(qs), bad))
    sys.exit(1 if bad else 0)
PYEOF

# 1. ours -> gensim
"$DIR/interop" write "$DIR/ours.txt" text
"$DIR/interop" write "$DIR/ours.bin" bin
"$DIR/interop" dump "$DIR/ours.txt" text > "$DIR/ours_expected.dump"
"$PY" "$DIR/gensim_side.py" load "$DIR/ours.txt" 0 "$DIR/ours_txt_by_gensim.dump"
"$PY" "$DIR/gensim_side.py" load "$DIR/ours.bin" 1 "$DIR/ours_bin_by_gensim.dump"
check "our text file read by gensim" "$DIR/ours_expected.dump" "$DIR/ours_txt_by_gensim.dump"
check "our binary file read by gensim" "$DIR/ours_expected.dump" "$DIR/ours_bin_by_gensim.dump"

# 2. gensim -> ours
"$PY" "$DIR/gensim_side.py" save "$DIR"
"$DIR/interop" dump "$DIR/gensim.txt" text > "$DIR/gensim_txt_by_ours.dump"
"$DIR/interop" dump "$DIR/gensim.bin" bin > "$DIR/gensim_bin_by_ours.dump"
check "gensim's text file read by us" "$DIR/gensim_expected.dump" "$DIR/gensim_txt_by_ours.dump"
check "gensim's binary file read by us" "$DIR/gensim_expected.dump" "$DIR/gensim_bin_by_ours.dump"

# 3. gensim's similarity, most_similar (positive and negative words,
#    restrict_vocab) and doesnt_match, on SVD-SPPMI vectors of the sample
#    corpus: the same words, cosines within 1e-5 (the 4 decimals ro-sgns
#    neighbors prints, but at a rounding boundary)
SAMPLE=../shared/data/corpus/sample.txt
if [ -f "$SAMPLE" ]; then
    "$DIR/interop" train "$SAMPLE" "$DIR/sample.bin"
    "$PY" "$DIR/gensim_side.py" queries "$DIR/sample.bin" "$DIR/queries.txt" "$DIR/gensim_answers.txt"
    if "$DIR/interop" query "$DIR/sample.bin" < "$DIR/queries.txt" > "$DIR/our_answers.txt" &&
        "$PY" "$DIR/gensim_side.py" compare "$DIR/queries.txt" "$DIR/gensim_answers.txt" \
            "$DIR/our_answers.txt" > "$DIR/compare.txt"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "interop_gensim: FAILED: similarity, most_similar, doesnt_match against gensim's"
        cat "$DIR/compare.txt"
    fi
else
    fail=$((fail + 1))
    echo "interop_gensim: FAILED: $SAMPLE not found (the queries against gensim need it)"
fi

echo "interop_gensim: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
