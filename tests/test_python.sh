#!/bin/sh
# test_python.sh - python/ro_sgns.py against the ro-sgns program on the
# sample corpus: the same flags give the same words and the same float32
# bits (RO-SGNS, and SVD-SPPMI with hyperwords' flags), the program's file
# read by gensim's own reader; a gensim KeyedVectors when gensim imports,
# (words, float32 array) when it does not; flags from keyword arguments
# (min_count -> -min-count, True a switch, a list repeated); errors raise
# RuntimeError with the program's message and leave no temporary folder.
# Needs a python3 with numpy and gensim (Debian: python3-gensim): skipped
# without them, a failure under CI=true.
#   sh tests/test_python.sh path/to/ro-sgns path/to/libro_sgns.so   (from the repository root)
BIN=${1:-build/ro-sgns-test}
LIB=${2:-build/libro_sgns.so}
SAMPLE=../shared/data/corpus/sample.txt
T=${RO_SGNS_TEST_TMP:-build}/python_test

PY=""
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    if [ -n "$p" ] && "$p" -c 'import numpy, gensim' > /dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    if [ "${CI:-}" = true ]; then
        echo "python: python3 -c 'import numpy, gensim' fails (CI=true: nothing may be skipped)"
        echo "python: 0 passed, 1 failed"
        exit 1
    fi
    echo "python: skipped (python3 -c 'import numpy, gensim' fails)"
    echo "python: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
for f in "$BIN" "$LIB" "$SAMPLE"; do
    [ -e "$f" ] || { echo "python: $f not found"; echo "python: 0 passed, 1 failed"; exit 1; }
done
rm -rf "$T"
mkdir -p "$T/tmp"
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# the program's files, with the flags the module is given below
"$BIN" train -train "$SAMPLE" -output "$T/ro.bin" -size 20 -iter 2 -min-count 5 -quiet 2> "$T/err" && ok ||
    bad "ro-sgns train (ro): $(cat "$T/err")"
"$BIN" train -train "$SAMPLE" -output "$T/svd.bin" -method svd -size 10 -eig 0.5 -embed w -min-count 3 \
    -window 2 -quiet 2> "$T/err" && ok || bad "ro-sgns train (svd): $(cat "$T/err")"

# each line the script prints is "ok NAME" or "bad NAME: why"
RO_SGNS_LIB=$LIB TMPDIR=$(pwd)/$T/tmp PYTHONPATH=python "$PY" - "$SAMPLE" "$T" > "$T/out" 2> "$T/pyerr" <<'EOF'
import os, sys
import numpy as np
from gensim.models import KeyedVectors
import ro_sgns

sample, tdir = sys.argv[1], sys.argv[2]

def check(name, cond, why=""):
    print(("ok " if cond else "bad ") + name + ("" if cond else ": " + str(why)))

def same_bits(name, kv, path):
    ref = KeyedVectors.load_word2vec_format(path, binary=True)
    check(name + ": a KeyedVectors", isinstance(kv, KeyedVectors), type(kv))
    check(name + ": the same words in the same order", kv.index_to_key == ref.index_to_key,
          (len(kv.index_to_key), len(ref.index_to_key)))
    check(name + ": the same float32 bits", kv.vectors.dtype == np.float32 and
          kv.vectors.shape == ref.vectors.shape and
          np.array_equal(kv.vectors.view(np.uint32), ref.vectors.view(np.uint32)),
          (kv.vectors.dtype, kv.vectors.shape, ref.vectors.shape))
    return ref

ref = same_bits("ro", ro_sgns.train(sample, size=20, iter=2, min_count=5, quiet=True), tdir + "/ro.bin")
same_bits("svd", ro_sgns.train(sample, method="svd", size=10, eig=0.5, embed="w", min_count=3,
                               window=2, quiet=True), tdir + "/svd.bin")

# progress goes to sys.stderr when not quiet
import io
saved, sys.stderr = sys.stderr, io.StringIO()
try:
    ro_sgns.train(sample, method="svd", size=5)
    log = sys.stderr.getvalue()
finally:
    sys.stderr = saved
check("progress on sys.stderr", "svd" in log, log[:300])

# errors: the program's message, no temporary folder left
for kwargs, want in (({"size": 0}, "-size 0"), ({"frobnicate": 1}, "unknown flag -frobnicate"),
                     ({"output": "x"}, None)):
    try:
        ro_sgns.train(sample, **kwargs)
        check("%s refused" % kwargs, False, "no exception")
    except (RuntimeError, ValueError) as e:
        check("%s refused: %s" % (kwargs, want), want is None or want in str(e), e)
try:
    ro_sgns.train(tdir + "/no_such_corpus.txt", quiet=True)
    check("a missing corpus refused", False, "no exception")
except RuntimeError as e:
    check("a missing corpus: its path in the message", "no_such_corpus.txt" in str(e), e)
check("no temporary folder left", os.listdir(tdir + "/tmp") == [], os.listdir(tdir + "/tmp"))

# without gensim: (words, vectors), the same bits
sys.modules["gensim"] = None
sys.modules["gensim.models"] = None
res = ro_sgns.train(sample, size=20, iter=2, min_count=5, quiet=True)
check("without gensim: (words, vectors)", isinstance(res, tuple) and len(res) == 2, type(res))
words, vectors = res
check("without gensim: the same words", words == ref.index_to_key)
check("without gensim: the same bits", vectors.dtype == np.float32 and
      np.array_equal(vectors.view(np.uint32), ref.vectors.view(np.uint32)))
EOF
rc=$?
[ "$rc" -eq 0 ] && ok || bad "the Python script exited $rc: $(tail -n 20 "$T/pyerr")"
grep -q "^ok " "$T/out" || bad "the Python script checked nothing: $(cat "$T/out" "$T/pyerr" | head -c 800)"
passed=$((passed + $(grep -c "^ok " "$T/out")))
failed=$((failed + $(grep -c "^bad " "$T/out")))
grep "^bad " "$T/out" | sed 's/^bad /FAIL: /' >&2

# docs/PYTHON.md's example, as printed, in a folder with corpus.txt and python/
mkdir -p "$T/readme"
awk '/^# From Python/ { p = 1 } p && /^```python$/ { c = 1; next } c && /^```/ { exit } c' docs/PYTHON.md > "$T/readme/example.py"
ln -s "$(pwd)/$SAMPLE" "$T/readme/corpus.txt"
ln -s "$(pwd)/python" "$T/readme/python"
LIBABS=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
if [ -s "$T/readme/example.py" ] && (cd "$T/readme" && RO_SGNS_LIB=$LIBABS "$PY" example.py) > "$T/out" 2> "$T/err" &&
    grep -q "^\[('[a-z0-9]*', 0\.[0-9]*)" "$T/out"; then ok; else
    bad "docs/PYTHON.md's Python example: $(cat "$T/out"; tail -n 5 "$T/err")"
fi

rm -rf "$T"
echo "python: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
