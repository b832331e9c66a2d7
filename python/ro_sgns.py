"""ro_sgns - RO-SGNS word embeddings (ro_sgns.h) from Python, for gensim users.

    import ro_sgns
    kv = ro_sgns.train("corpus.txt", size=100, min_count=5)   # gensim KeyedVectors
    kv.most_similar("three")

train() runs the ro-sgns program's train command in this process, through
ctypes over the shared library built from the header (make build/libro_sgns.so;
python/ro_sgns_lib.c), so a flag means what it means there (ro-sgns train -help)
and the same flags give the same bits as the program. Keyword arguments become
flags: min_count=5 is -min-count 5, method="svd" is -method svd, quiet=True is
-quiet (False leaves a switch out), a list repeats its flag (eval=[a, b]).
It returns a gensim KeyedVectors when gensim can be imported, otherwise
(words, vectors): a list of str and a float32 numpy array, one row a word.
Needs numpy only. The library is found by $RO_SGNS_LIB, else libro_sgns.so
beside this file, else build/libro_sgns.so of the repository this file is in.
"""
import ctypes
import os
import sys
import tempfile

__all__ = ["train", "load_word2vec_bin"]

_lib = None


def _library():
    global _lib
    if _lib is None:
        here = os.path.dirname(os.path.abspath(__file__))
        paths = [os.environ.get("RO_SGNS_LIB", ""), os.path.join(here, "libro_sgns.so"),
                 os.path.join(here, os.pardir, "build", "libro_sgns.so")]
        path = next((p for p in paths if p and os.path.exists(p)), None)
        if path is None:
            raise OSError("libro_sgns.so not found (make build/libro_sgns.so, or set RO_SGNS_LIB)")
        lib = ctypes.CDLL(path)
        lib.ro_sgns_cli_main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
        lib.ro_sgns_cli_main.restype = ctypes.c_int
        _lib = lib
    return _lib


def _flag_args(flags):
    args = []
    for name, value in flags.items():
        flag = "-" + name.replace("_", "-")
        if name in ("train", "output"):
            raise ValueError("train(): %s is train()'s own (the corpus path; the vectors it returns)" % name)
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return args


def _run(args):
    """ro-sgns ARGS in this process; its stderr (progress, the error) is
    captured and returned with the exit status."""
    argv = [b"ro-sgns"] + [os.fsencode(a) for a in args]
    c_argv = (ctypes.c_char_p * (len(argv) + 1))(*argv, None)
    sys.stderr.flush()
    with tempfile.TemporaryFile() as log:
        saved = os.dup(2)
        try:
            os.dup2(log.fileno(), 2)
            rc = _library().ro_sgns_cli_main(len(argv), c_argv)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    return rc, text


def load_word2vec_bin(path):
    """(words, vectors) of a word2vec binary file: a list of str and a
    float32 array (little-endian in the file, as every writer of it does)."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    eol = data.index(b"\n")
    n, d = (int(x) for x in data[:eol].split())
    words = []
    vectors = np.empty((n, d), dtype=np.float32)
    pos = eol + 1
    for i in range(n):
        space = data.index(b" ", pos)
        words.append(data[pos:space].decode("utf-8", "surrogateescape"))
        vectors[i] = np.frombuffer(data, dtype="<f4", count=d, offset=space + 1)
        pos = space + 1 + 4 * d
        if data[pos:pos + 1] == b"\n":
            pos += 1
    return words, vectors


def train(corpus_path, **flags):
    """Train on the text at corpus_path as `ro-sgns train -train corpus_path
    -output V.bin FLAGS` does, and return the vectors: a gensim KeyedVectors
    if gensim can be imported, else (words, vectors). A failure raises
    RuntimeError with the program's message. The progress the program prints
    (unless quiet=True) is written to sys.stderr when the run ends."""
    with tempfile.TemporaryDirectory(prefix="ro_sgns_") as tmp:
        out = os.path.join(tmp, "vectors.bin")
        rc, log = _run(["train", "-train", os.fspath(corpus_path), "-output", out] + _flag_args(flags))
        if rc != 0:
            lines = [l for l in log.splitlines() if l.strip()]
            raise RuntimeError(lines[-1] if lines else "ro-sgns train failed (status %d)" % rc)
        if log:
            sys.stderr.write(log)
        words, vectors = load_word2vec_bin(out)
    try:
        from gensim.models import KeyedVectors
    except ImportError:
        return words, vectors
    kv = KeyedVectors(vectors.shape[1], count=0, dtype=vectors.dtype)
    kv.add_vectors(words, vectors)
    return kv
