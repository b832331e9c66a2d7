#!/bin/sh
# test_python.sh - the Python package (python/ro_sgns) on the sample corpus:
#   - train() with gensim's names gives the bits of the ro-sgns program run
#     with the flags they map to (the default run and -method sgd), and
#     refuses gensim's parameters it does not support, naming them;
#   - KeyedVectors' numbers equal gensim's on the same file (most_similar,
#     similarity, doesnt_match, evaluate_word_pairs/_analogies, the files
#     save_word2vec_format writes), a missing word a KeyError naming it;
#   - progress reaches logging and the callback; an exception in the
#     callback and Ctrl-C (SIGINT to a child python) end the run within 2 s
#     with no process, temporary file or descriptor left;
#   - the issue's bad input: NUL bytes refused before any work, numpy
#     checked before any work, FIFOs released by failed calls, loaders that
#     refuse what does not parse, naming the file and the byte;
#   - without gensim (hidden from the import): the same KeyedVectors;
#   - pip install ./python in a venv (--system-site-packages, --no-index):
#     the program it builds is make ro-sgns's, and README's Python example runs.
# Needs a python3 with numpy: skipped without it; the comparisons with
# gensim are skipped without gensim (the rest runs); either a failure under CI=true.
#   sh tests/test_python.sh path/to/ro-sgns   (from the repository root)
BIN=${1:-build/ro-sgns-test}
SAMPLE=../shared/data/corpus/sample.txt
DATA=../shared/data
T=${RO_SGNS_TEST_TMP:-build}/python_test${RO_SGNS_TEST_NO_GENSIM:+_nogensim}

PY=""
for p in "${PYTHON:-}" /usr/bin/python3 python3; do
    if [ -n "$p" ] && "$p" -c 'import numpy, gensim' > /dev/null 2>&1; then PY=$p; break; fi
done
GENSIM=1
if [ -z "$PY" ] || [ -n "${RO_SGNS_TEST_NO_GENSIM:-}" ]; then
    GENSIM=0
    for p in "${PYTHON:-}" /usr/bin/python3 python3; do
        if [ -n "$p" ] && "$p" -c 'import numpy' > /dev/null 2>&1; then PY=$p; break; fi
    done
fi
if [ -z "$PY" ] || { [ "$GENSIM" = 0 ] && [ -z "${RO_SGNS_TEST_NO_GENSIM:-}" ] && [ "${CI:-}" = true ]; }; then
    if [ "${CI:-}" = true ]; then
        echo "python: python3 -c 'import numpy, gensim' fails (CI=true: nothing may be skipped)"
        echo "python: 0 passed, 1 failed"
        exit 1
    fi
    echo "python: skipped (python3 -c 'import numpy' fails)"
    echo "python: 0 passed, 0 failed, 1 skipped"
    exit 0
fi
# RO_SGNS_TEST_NO_GENSIM=1 (make check's second run): as on a machine without
# gensim (the comparisons skipped, gensim hidden from every script's import;
# pip install left to the first run)
HIDE=""
[ "$GENSIM" = 0 ] && HIDE="import sys; sys.modules['gensim'] = sys.modules['gensim.models'] = None"
for f in "$BIN" "$SAMPLE"; do
    [ -e "$f" ] || { echo "python: $f not found"; echo "python: 0 passed, 1 failed"; exit 1; }
done
rm -rf "$T"
mkdir -p "$T/tmp"
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
BINABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

# the program's files, with the flags train()'s gensim names map to below
"$BIN" train -train "$SAMPLE" -output "$T/ro.bin" -size 20 -iter 1 -steps 2 -min-count 5 -threads 2 \
    -seed 3 -init-sample 1e-4 -window 4 -quiet 2> "$T/err" && ok || bad "ro-sgns train (ro): $(cat "$T/err")"
"$BIN" train -train "$SAMPLE" -output "$T/sgd.bin" -method sgd -size 10 -iter 1 -sample 1e-3 -min-count 5 \
    -threads 1 -negative 3 -quiet 2> "$T/err" && ok || bad "ro-sgns train (sgd): $(cat "$T/err")"
printf ': capitals\nathens greece berlin germany\nathens greece paris france\nberlin germany paris france\n' > "$T/analogy.txt"
printf ': family\nboy girl brother sister\nking queen man woman\nfather mother son daughter\n' >> "$T/analogy.txt"
sed -n 1,400p "$DATA/analogy/msr.txt" | awk 'NR == 1 { print ": msr" } NF == 4' >> "$T/analogy.txt"

# each line the script prints is "ok NAME" or "bad NAME: why"
run_py() {
    { printf '%s\n' "$HIDE"; cat; } > "$T/script.py"
    RO_SGNS_BIN=$BINABS TMPDIR=$(pwd)/$T/tmp PYTHONPATH=python "$PY" "$T/script.py" "$SAMPLE" "$T" "$DATA" "$@" \
        > "$T/out" 2> "$T/pyerr"
    rc=$?
    [ "$rc" -eq 0 ] && ok || bad "a Python script exited $rc: $(tail -n 20 "$T/pyerr")"
    grep -q "^ok " "$T/out" || bad "a Python script checked nothing: $(cat "$T/out" "$T/pyerr" | head -c 800)"
    passed=$((passed + $(grep -c "^ok " "$T/out")))
    failed=$((failed + $(grep -c "^bad " "$T/out")))
    grep "^bad " "$T/out" | sed 's/^bad /FAIL: /' >&2
}

cat > "$T/common.py" <<'EOF'
import os, sys
sample, tdir, data = sys.argv[1], sys.argv[2], sys.argv[3]

def check(name, cond, why=""):
    print(("ok " if cond else "bad ") + name + ("" if cond else ": " + str(why)), flush=True)

def raises(name, exc, fn, *words):
    try:
        fn()
        check(name, False, "no exception")
    except exc as e:
        check(name, all(w in str(e) for w in words), "%s: %s (wanted %s)" % (type(e).__name__, e, words))
    except Exception as e:
        check(name, False, "%s: %s" % (type(e).__name__, e))

def children():
    """the processes whose parent is this one"""
    kids = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % pid) as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid():
                    kids.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    return kids

def fds():
    return sorted(os.listdir("/proc/self/fd"))

def left(name):
    check(name + ": no temporary file left", os.listdir(tdir + "/tmp") == [], os.listdir(tdir + "/tmp"))
    check(name + ": no process left", children() == [], children())
EOF

# 1. train() with gensim's names: the program's bits; gensim's parameters refused
run_py <<'EOF'
import sys; exec(open(sys.argv[2] + "/common.py").read())
import numpy as np
import ro_sgns

def same(name, kv, path):
    ref = ro_sgns.load_word2vec_bin(path)
    check(name + ": the same words", kv.index_to_key == ref.index_to_key)
    check(name + ": the same float32 bits", kv.vectors.dtype == np.float32 and
          kv.vectors.shape == ref.vectors.shape and
          np.array_equal(kv.vectors.view(np.uint32), ref.vectors.view(np.uint32)))

before = fds()
same("default run", ro_sgns.train(corpus_file=sample, vector_size=20, epochs=1, ro_steps=2, min_count=5,
                                  workers=2, seed=3, sample=1e-4, window=4, progress=False), tdir + "/ro.bin")
same("method sgd", ro_sgns.train(sample, method="sgd", vector_size=10, epochs=1, sample=1e-3, min_count=5,
                                 workers=1, negative=3, sg=1, hs=0, progress=False), tdir + "/sgd.bin")
check("no descriptor left by the runs", fds() == before, (before, fds()))
left("the runs")

for kw, words in (({"sg": 0}, ("sg=0", "CBOW")), ({"hs": 1}, ("hs=1", "hierarchical softmax")),
                  ({"cbow_mean": 1}, ("cbow_mean",)), ({"sentences": [["a", "b"]]}, ("sentences", "corpus_file")),
                  ({"iter": 5}, ("iter=", "epochs=", "ro_steps=")), ({"init_iter": 2}, ("init_iter=", "epochs=")),
                  ({"steps": 2}, ("steps=", "ro_steps=")), ({"min_alpha": 0.001}, ("min_alpha",)),
                  ({"vector_size": 10, "size": 10}, ("vector_size=", "size=")),
                  ({"method": "svd", "epochs": 2}, ("epochs=", "svd")), ({"output": "x"}, ("output=",)),
                  ({"binary": 0}, ("binary=", "save_word2vec_format"))):
    raises("refused: %s" % kw, TypeError, lambda: ro_sgns.train(sample, **kw), *words)
# the program's flags for the keywords (issue 70: -iter is the epochs over the text)
fa = ro_sgns._flag_args({"epochs": 2}, {"virtual_workers": 3, "ro_steps": 4})
check("epochs, virtual_workers, ro_steps: -iter, -virtual-workers, -steps",
      fa == ["-iter", "2", "-virtual-workers", "3", "-steps", "4"], fa)
fa = ro_sgns._flag_args({"epochs": 2}, {"method": "sgd"})
check("epochs with method=sgd: -iter", fa == ["-iter", "2", "-method", "sgd"], fa)
raises("the program's error: -size 0", ro_sgns.Error, lambda: ro_sgns.train(sample, vector_size=0), "-size 0")
raises("the program's error: an unknown flag", ro_sgns.Error, lambda: ro_sgns.train(sample, frobnicate=1),
       "unknown flag -frobnicate")
raises("the program's error: a missing corpus", ro_sgns.Error,
       lambda: ro_sgns.train(tdir + "/no_such_corpus.txt"), "no_such_corpus.txt")
left("the failed calls")
EOF

# 2. KeyedVectors against gensim's on the same file
if [ "$GENSIM" = 0 ]; then
    echo "python: the comparisons with gensim skipped (no gensim)"
else run_py <<'EOF'
import sys; exec(open(sys.argv[2] + "/common.py").read())
import numpy as np
from gensim.models import KeyedVectors as G
import ro_sgns

path = tdir + "/ro.bin"
kv, g = ro_sgns.load_word2vec_bin(path), G.load_word2vec_format(path, binary=True)
TOL = 1e-6
check("the same words and vectors as gensim reads", kv.index_to_key == g.index_to_key and
      np.array_equal(kv.vectors, g.vectors))
check("kv[word] and 'word' in kv", np.array_equal(kv["three"], g["three"]) and "three" in kv and
      "no_such_word" not in kv)
check("kv[[words]]", np.array_equal(kv[["three", "four"]], g[["three", "four"]]))
raises("a missing word: KeyError naming it", KeyError, lambda: kv["no_such_word"], "no_such_word")
raises("a missing word in most_similar", KeyError, lambda: kv.most_similar("no_such_word"), "no_such_word")

def same_list(name, a, b):
    check(name + ": the same words", [w for w, _ in a] == [w for w, _ in b], (a[:3], b[:3]))
    check(name + ": the same cosines", len(a) == len(b) and
          all(abs(x - y) <= TOL for (_, x), (_, y) in zip(a, b)), (a[:3], b[:3]))

same_list("most_similar(word)", kv.most_similar("three"), g.most_similar("three"))
same_list("most_similar(positive, negative, topn)",
          kv.most_similar(positive=["king", "woman"], negative=["man"], topn=7),
          g.most_similar(positive=["king", "woman"], negative=["man"], topn=7))
same_list("most_similar((word, weight), vector)",
          kv.most_similar([("king", 2.0), kv["woman"]], [("man", 0.5)], topn=5),
          g.most_similar([("king", 2.0), g["woman"]], [("man", 0.5)], topn=5))
same_list("most_similar(restrict_vocab)", kv.most_similar(["city"], topn=4, restrict_vocab=500),
          g.most_similar(["city"], topn=4, restrict_vocab=500))
check("most_similar(topn=None): every cosine",
      np.allclose(kv.most_similar("city", topn=None), g.most_similar("city", topn=None), atol=TOL, rtol=0))
pairs = [("three", "four"), ("city", "town"), ("king", "man"), ("the", "of"), ("three", "three")]
pairs += [(kv.index_to_key[i], kv.index_to_key[j]) for i, j in ((5, 50), (100, 4000), (4001, 4002))]
check("similarity", all(abs(kv.similarity(a, b) - g.similarity(a, b)) <= TOL for a, b in pairs),
      [(kv.similarity(a, b), g.similarity(a, b)) for a, b in pairs])
for words in (["three", "four", "five", "city"], ["king", "queen", "man", "river", "no_such_word"]):
    check("doesnt_match(%s)" % words, kv.doesnt_match(words) == g.doesnt_match(words),
          (kv.doesnt_match(words), g.doesnt_match(words)))
for f in ("ws353.txt", "men.txt"):
    p = data + "/wordsim/" + f
    a, b = kv.evaluate_word_pairs(p), g.evaluate_word_pairs(p)
    check("evaluate_word_pairs(%s): pearson, spearman, oov" % f,
          abs(a[0][0] - b[0][0]) <= TOL and abs(a[1][0] - b[1][0]) <= TOL and abs(a[2] - b[2]) <= 1e-9 and
          abs(a[0][1] - b[0][1]) <= 1e-6 and abs(a[1][1] - b[1][1]) <= 1e-6, (a, b))
an = tdir + "/analogy.txt"
for kw in ({}, {"restrict_vocab": 2000}, {"dummy4unknown": True}):
    a, b = kv.evaluate_word_analogies(an, **kw), g.evaluate_word_analogies(an, **kw)
    check("evaluate_word_analogies(%s): the score" % kw, a[0] == b[0], (a[0], b[0]))
    check("evaluate_word_analogies(%s): the sections" % kw,
          [(s["section"], s["correct"], s["incorrect"]) for s in a[1]] ==
          [(s["section"], s["correct"], s["incorrect"]) for s in b[1]])
for binary in (True, False):
    out = tdir + "/saved_%d" % binary
    kv.save_word2vec_format(out, binary=binary)
    back = G.load_word2vec_format(out, binary=binary)
    mine = ro_sgns.load_word2vec_format(out, binary=binary)
    check("save_word2vec_format(binary=%s) read by gensim" % binary,
          back.index_to_key == kv.index_to_key and np.array_equal(back.vectors, kv.vectors))
    check("save_word2vec_format(binary=%s) read back" % binary,
          mine.index_to_key == kv.index_to_key and np.array_equal(mine.vectors, kv.vectors))
    g.save_word2vec_format(out, binary=binary)
    mine = ro_sgns.load_word2vec_format(out, binary=binary)
    check("gensim's save_word2vec_format(binary=%s) read" % binary,
          mine.index_to_key == kv.index_to_key and np.array_equal(mine.vectors, kv.vectors))
tg = kv.to_gensim()
check("to_gensim()", isinstance(tg, G) and tg.index_to_key == kv.index_to_key and
      np.array_equal(tg.vectors, kv.vectors) and tg.most_similar("three") == g.most_similar("three"))
EOF
fi

# 3. without gensim (hidden from the import): the same KeyedVectors, to_gensim() says what it needs
run_py <<'EOF'
import sys; exec(open(sys.argv[2] + "/common.py").read())
sys.modules["gensim"] = None
sys.modules["gensim.models"] = None
import numpy as np
import ro_sgns
kv = ro_sgns.train(sample, vector_size=20, epochs=1, ro_steps=2, min_count=5, workers=2, seed=3,
                   sample=1e-4, window=4, progress=False)
ref = ro_sgns.load_word2vec_bin(tdir + "/ro.bin")
check("without gensim: KeyedVectors", isinstance(kv, ro_sgns.KeyedVectors), type(kv))
check("without gensim: the same bits", kv.index_to_key == ref.index_to_key and
      np.array_equal(kv.vectors.view(np.uint32), ref.vectors.view(np.uint32)))
check("without gensim: most_similar", kv.most_similar("three", topn=3) == ref.most_similar("three", topn=3))
kv.save_word2vec_format(tdir + "/nogensim.txt")
check("without gensim: save_word2vec_format",
      np.array_equal(ro_sgns.load_word2vec_format(tdir + "/nogensim.txt").vectors, kv.vectors))
raises("without gensim: to_gensim() names gensim", ImportError, kv.to_gensim, "gensim")
EOF

# 4. progress: logging and the callback; an exception in the callback ends the run
run_py <<'EOF'
import sys; exec(open(sys.argv[2] + "/common.py").read())
import logging
import ro_sgns
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger("ro_sgns").addHandler(Keep())
logging.getLogger("ro_sgns").setLevel(logging.INFO)
seen = []
ro_sgns.train(sample, vector_size=10, epochs=1, ro_steps=2, min_count=5, callback=seen.append)
stages = {p.stage for p in seen}
check("the log has the program's lines", len(records) == len(seen) and any("sgd" in r for r in records), records[:5])
check("stages: count, sgd, ro", {"count", "sgd", "ro"} <= stages, stages)
check("percent and ETA", any(p.percent == 100.0 for p in seen) and any(p.eta is not None for p in seen),
      seen[:5])
check("ro's percent is its steps'", [p.percent for p in seen if p.stage == "ro"][-1] == 100.0,
      [p for p in seen if p.stage == "ro"])
records.clear()
ro_sgns.train(sample, vector_size=10, epochs=1, ro_steps=2, min_count=5, progress=False)
check("progress=False: no log lines", records == [], records[:3])

class Stop(Exception):
    pass
def stop(p):
    if p.stage == "sgd":
        raise Stop()
before = fds()
raises("an exception in the callback ends the run", Stop, lambda: ro_sgns.train(sample, vector_size=10,
       min_count=5, callback=stop))
check("... leaving no descriptor", fds() == before, (before, fds()))
left("an exception in the callback")
EOF

# 5. bad input: NUL bytes, numpy missing, FIFOs of failed calls, the loaders
cat > "$T/marker.sh" <<EOF
#!/bin/sh
touch "$(pwd)/$T/marker"
exit 1
EOF
chmod +x "$T/marker.sh"
run_py "$(pwd)/$T/marker.sh" <<'EOF'
import sys; exec(open(sys.argv[2] + "/common.py").read())
import struct
import numpy as np
import subprocess
import ro_sgns
marker, program = tdir + "/marker", sys.argv[4]

# NUL bytes: refused before the program runs
built = os.environ["RO_SGNS_BIN"]  # the program under test (run_py)
os.environ["RO_SGNS_BIN"] = program
for kw, name in (({"corpus_file": sample + "\0x"}, "corpus_file"), ({"vector_size": "1\x000"}, "vector_size"),
                 ({"head": "1\x000"}, "head"), ({"eval": ["a", "b\0c"]}, "eval"),
                 ({"corpus_file": (sample + "\0x").encode()}, "corpus_file")):
    kw.setdefault("corpus_file", sample)
    raises("a NUL byte in %s refused" % name, ValueError, lambda: ro_sgns.train(**kw), name, "NUL")
raises("a NUL byte in a path to load", ValueError, lambda: ro_sgns.load_word2vec_bin(tdir + "/ro.bin\0x"), "NUL")
check("... before the program ran", not os.path.exists(marker))

# numpy missing: ImportError before the program runs
script = ("import sys; sys.modules['numpy'] = None; import ro_sgns\n"
          "try:\n    ro_sgns.train(corpus_file=%r)\nexcept ImportError as e:\n    print('ImportError:', e)\n" % sample)
out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stdout
check("numpy missing: ImportError naming numpy", "ImportError" in out and "numpy" in out, out)
check("numpy missing: before the program ran", not os.path.exists(marker))
os.environ["RO_SGNS_BIN"] = built  # a fresh clone has no ./ro-sgns to fall back on

# a failed call holds no FIFO: a reader gets end-of-file, not EAGAIN
fifo = tdir + "/fifo.csv"
os.mkfifo(fifo)
reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
before = fds()
for i in range(9):
    try:
        ro_sgns.train(sample, curve=fifo, min_count=10**12, progress=False)
    except ro_sgns.Error:
        pass
eof = False
try:
    while os.read(reader, 65536):  # what the runs wrote, then end-of-file
        pass
    eof = True
except BlockingIOError:  # no end-of-file: a writer holds the FIFO
    pass
check("9 failed calls with a FIFO output: no writer left on it", eof)
check("9 failed calls: no descriptor left", fds() == before, (before, fds()))
os.close(reader)
left("failed calls with a FIFO")

# the loaders refuse what does not parse, naming the file and the byte
good = tdir + "/ro.bin"
kv = ro_sgns.load_word2vec_bin(good)
n, d = kv.vectors.shape
with open(good, "rb") as f:
    raw = f.read()
head = raw.index(b"\n") + 1
def case(name, content, offset, *words, binary=True):
    path = tdir + "/bad_%s" % name.replace(" ", "_")
    with open(path, "wb") as f:
        f.write(content)
    raises("loader: %s" % name, ro_sgns.FormatError,
           lambda: ro_sgns.load_word2vec_format(path, binary=binary), path,
           "byte %d:" % offset if offset is not None else "byte ", *words)
w0, wl = (len(w.encode()) for w in (kv.index_to_key[0], kv.index_to_key[-1]))
row = w0 + 1 + 4 * d + 1
# the issue's case: a header's d of 9 for 10 floats a row (whose bytes hold no space or newline)
rows = b"".join(w + b" " + np.resize(np.array([0.5, 1, 2, -1], "<f4"), 10).tobytes() + b"\n"
                for w in (b"alpha", b"beta", b"gamma"))
case("dimension 9 for 10", b"3 9\n" + rows, 4 + 6 + 40, "holds the byte")
case("dimension 11 for 10", b"3 11\n" + rows, 104, "44 bytes, 41 left")
case("dimension 1 long", b"%d %d\n" % (n, d + 1) + raw[head:], None)
case("a truncated file", raw[:-7], len(raw) - 1 - 4 * d, "%d bytes, %d left" % (4 * d, 4 * d - 6))
case("a huge header", b"4000000000 300\n" + raw[head:], 0, "4000000000 words")
case("no header", b"three 1.0 2.0\n", 0, "header")
case("an empty file", b"", 0, "header")
case("a word count too small", b"%d %d\n" % (n - 1, d) + raw[head:], len(raw) - (wl + 2 + 4 * d), "bytes after")
nan = raw[:head + row - 1 - 4] + struct.pack("<f", float("nan")) + raw[head + row - 1:]
case("a NaN", nan, head, "not finite")
twice = b"2 %d\n" % d + raw[head:head + row] * 2
case("a repeated word", twice, len(b"2 %d\n" % d) + row, "again")
case("text: a short row", b"2 3\nthree 1 2 3\nfour 1 2\n", 16, "line 3", binary=False)
case("text: not a number", b"2 3\nthree 1 2 3\nfour 1 x 3\n", 16, "does not parse", binary=False)
case("text: a row too many", b"1 3\nthree 1 2 3\nfour 1 2 3\n", 16, "after the 1 lines", binary=False)
case("text: a short file", b"3 1\nthree 1\nfour 2\n", 19, "ends after 2 of the 3", binary=False)
case("text: a huge header", b"4000000000 300\nthree 1 2 3\n", 0, "the header says", binary=False)
EOF

# 6. Ctrl-C: SIGINT to a python running train(); KeyboardInterrupt within 2 s, nothing left
cat > "$T/ctrlc.py" <<'EOF'
import logging, sys
import ro_sgns
class Started(logging.Handler):
    def emit(self, record):
        print("started", flush=True)
        logging.getLogger("ro_sgns").removeHandler(self)
logging.getLogger("ro_sgns").addHandler(Started())
logging.getLogger("ro_sgns").setLevel(logging.INFO)
ro_sgns.train(corpus_file=sys.argv[1], vector_size=100, ro_steps=500, min_count=1)
print("finished", flush=True)
EOF
run_py "$(pwd)/$T/ctrlc.py" <<'EOF'
import sys; exec(open(sys.argv[2] + "/common.py").read())
import signal, subprocess, time
child = subprocess.Popen([sys.executable, sys.argv[4], sample], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
line = child.stdout.readline()
check("Ctrl-C: the run started", line == "started\n", line)
time.sleep(0.5)
grandchildren = children()
child.send_signal(signal.SIGINT)
try:
    child.wait(2.0)
    check("Ctrl-C: the python exited within 2 s", True)
except subprocess.TimeoutExpired:
    child.kill()
    child.wait()
    check("Ctrl-C: the python exited within 2 s", False, "still running after 2 s")
err = child.stderr.read()
check("Ctrl-C: KeyboardInterrupt", child.returncode != 0 and "KeyboardInterrupt" in err and
      "finished" not in child.stdout.read(), (child.returncode, err[-300:]))
def alive():
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if (tdir + "/tmp").encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found
check("Ctrl-C: no ro-sgns process left", alive() == [], alive())
left("Ctrl-C")
EOF

# 7. pip install ./python in a venv: make ro-sgns's program, docs/PYTHON.md's example runs
if [ -n "${RO_SGNS_TEST_NO_GENSIM:-}" ]; then
    : # the first run's
elif "$PY" -m venv --help > /dev/null 2>&1 && "$PY" -c 'import ensurepip' 2> /dev/null; then
    "$PY" -m venv --system-site-packages "$T/venv" > "$T/err" 2>&1 &&
        "$T/venv/bin/python" -m pip install -v --no-index ./python > "$T/pip.log" 2>&1 && ok ||
        bad "pip install ./python: $(tail -n 15 "$T/err" "$T/pip.log")"
    # the pip build's command from make ro-sgns's (the same flags, another output)
    SITE=$("$T/venv/bin/python" -c 'import ro_sgns, os; print(os.path.dirname(ro_sgns.__file__))' 2> "$T/err")
    case "$SITE" in "$(pwd)"/python/*|"") bad "the venv imports $SITE, not the installed package: $(cat "$T/err")" ;; *) ok ;; esac
    want=$(make -n -B ro-sgns 2> /dev/null | grep ro_sgns_cli | sed 's/ -o [^ ]*/ -o X/' | tr -s " ")
    got=$(grep "ro_sgns_build:" "$T/pip.log" | sed 's/^.*ro_sgns_build: (in [^)]*) //; s/ -o [^ ]*/ -o X/' | tr -s " ")
    [ -n "$want" ] && [ "${want#gcc }" = "${got#gcc }" ] && ok ||
        bad "pip's build command: '$got', make ro-sgns's: '$want'"
    cmp -s "$SITE/ro_sgns.h" ro_sgns.h && [ -x "$SITE/bin/ro-sgns" ] && ok ||
        bad "the installed package has no copy of ro_sgns.h or no bin/ro-sgns"
    mkdir -p "$T/readme"
    awk '/^## From Python/ { p = 1 } p && /^```python$/ { c = 1; next } c && /^```/ { exit } c' \
        README.md > "$T/readme/example.py"
    ln -s "$(pwd)/$SAMPLE" "$T/readme/corpus.txt"
    if [ -s "$T/readme/example.py" ] &&
        (cd "$T/readme" && ../venv/bin/python example.py) > "$T/out" 2> "$T/err" &&
        grep -q "^\[('[a-z0-9]*', 0\.[0-9]*)" "$T/out"; then ok; else
        bad "README's Python example in the venv: $(cat "$T/out"; tail -n 5 "$T/err")"
    fi
elif [ "${CI:-}" = true ]; then
    bad "python3 -m venv does not work (python3-venv; CI=true: nothing may be skipped)"
else
    echo "python: pip install ./python skipped (no python3 -m venv)"
fi

rm -rf "$T"
echo "python: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
