#!/bin/sh
# interop_gensim.sh - check that gensim and ro_sgns.h read each other's word2vec
# files (text and binary), value for value, bit for bit.
#   1. our writer -> gensim's KeyedVectors.load_word2vec_format (binary=False/True)
#   2. gensim's save_word2vec_format -> our reader
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

echo "interop_gensim: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
