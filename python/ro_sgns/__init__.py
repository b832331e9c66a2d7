"""ro_sgns - RO-SGNS word embeddings (ro_sgns.h) from Python, with gensim's names.

    import ro_sgns
    kv = ro_sgns.train(corpus_file="corpus.txt", vector_size=100, min_count=5, workers=2)
    kv.most_similar("three")

train() runs the ro-sgns program's train command (`pip install ./python`
builds it for this machine as `make ro-sgns` does, so the two give the same
bits) in a child process: its progress goes to the logger "ro_sgns" (and to
an optional callback) as it runs, Ctrl-C stops it within a second with
KeyboardInterrupt, and whatever a run takes (the process, its descriptors,
the temporary folder) ends with it, however the call ends. gensim's names
map to the program's flags (vector_size -size, workers -threads, epochs the
epochs over the text, ...); the program's other flags are keywords with _
for - (head=20000 is -head 20000). It returns KeyedVectors: kv["word"],
"word" in kv, most_similar, similarity, doesnt_match, evaluate_word_pairs,
evaluate_word_analogies, save_word2vec_format, index_to_key, vectors, and
to_gensim() when gensim is installed. Needs numpy. docs/PYTHON.md.
"""
import collections
import logging
import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["train", "run", "program", "KeyedVectors", "FormatError", "Error",
           "load_word2vec_format", "load_word2vec_bin"]

logger = logging.getLogger("ro_sgns")


class Error(RuntimeError):
    """ro-sgns failed; the message is the program's"""


def __getattr__(name):  # KeyedVectors and the loaders need numpy, imported when used
    if name in ("KeyedVectors", "FormatError", "load_word2vec_format", "load_word2vec_bin"):
        from . import keyedvectors
        return getattr(keyedvectors, name)
    raise AttributeError("module 'ro_sgns' has no attribute %r" % name)


def _need_numpy():
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise ImportError("ro_sgns needs numpy (Debian: apt install python3-numpy; "
                          "or pip install numpy)") from None


def program():
    """The ro-sgns program train() runs: $RO_SGNS_BIN, else the one
    `pip install` built into the package, else ./ro-sgns of the repository
    this file is in (make ro-sgns)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("RO_SGNS_BIN")
    if env:
        return env
    for path in (os.path.join(here, "bin", "ro-sgns"), os.path.join(here, os.pardir, os.pardir, "ro-sgns")):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    raise FileNotFoundError("ro_sgns: no ro-sgns program: pip install ./python (from the repository), "
                            "make ro-sgns, or set RO_SGNS_BIN")


# gensim's names of the shared parameters: (the flag, or a function of the
# method and the start giving it; None where it does not apply)
def _epochs_flag(method, init):
    return "iter" if method == "sgd" or (method == "ro" and init == "sgd") else None


def _sample_flag(method, init):
    return "init-sample" if method == "ro" and init == "sgd" else "sample"


_GENSIM = {"vector_size": "size", "window": "window", "min_count": "min-count", "negative": "negative",
           "workers": "threads", "seed": "seed", "alpha": "alpha", "sample": _sample_flag,
           "epochs": _epochs_flag}
# ro-sgns's names of the same settings: either name, not both
_SAME = {"size": "vector_size", "threads": "workers", "init_sample": "sample"}
# gensim's that have no meaning here: (the value that is what ro-sgns does, why)
_UNSUPPORTED = {
    "sg": (1, "ro-sgns trains skip-gram only (sg=1); CBOW (sg=0) is not supported"),
    "hs": (0, "hierarchical softmax (hs=1) is not supported: ro-sgns trains negative sampling (hs=0)"),
    "cbow_mean": (None, "CBOW is not supported (ro-sgns trains skip-gram)"),
    "sentences": (None, "ro_sgns trains from a file: write the sentences one a line, the words "
                        "separated by spaces, and give corpus_file="),
    "corpus_iterable": (None, "ro_sgns trains from a file: write the sentences one a line and give corpus_file="),
    "min_alpha": (None, "the SGD learning rate falls to alpha * 1e-4, as word2vec's"),
    "max_vocab_size": (None, "gensim prunes while counting; max_vocab=N keeps the N most frequent words"),
    "max_final_vocab": (None, "max_vocab=N keeps the N most frequent words"),
    "ns_exponent": (0.75, "SGD draws negatives from unigram^0.75; cds= is RO-SGNS's and SVD's exponent"),
    "sorted_vocab": (1, "the vocabulary is always sorted by count"),
    "shrink_windows": (True, "SGD samples its window per word, as word2vec"),
    "hashfxn": (None, "the seed is seed="),
    "trim_rule": (None, "min_count= and max_vocab= choose the vocabulary"),
    "callbacks": (None, "give callback=f: f(progress) is called on each progress line"),
    "batch_words": (None, "not a setting of ro-sgns"),
    "compute_loss": (None, "RO-SGNS prints its objective F after each step (in the log)"),
    "null_word": (None, "not a setting of ro-sgns"),
}
_OWN = {"train": "the corpus is corpus_file=", "output": "train() returns the vectors",
        "binary": "train() returns the vectors: kv.save_word2vec_format(path, binary=) writes them",
        "format": "train() returns the vectors: kv.save_word2vec_format(path, binary=) writes them",
        "iter": "gensim's old name of epochs: give epochs= (the epochs over the text, the "
                "program's -iter) or ro_steps= (RO-SGNS's step cap, -steps)",
        "init_iter": "the SGD start's epochs are epochs= (the program's -iter)",
        "steps": "RO-SGNS's step cap is ro_steps= (the program's -steps)",
        "quiet": "the progress goes to the logger \"ro_sgns\": set its level (or progress=False)"}


def _value(name, value):
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, bytes):
        value = os.fsdecode(value)
    text = str(value)
    if "\0" in text:
        raise ValueError("train(): %s=%r contains a NUL byte" % (name, value))
    return text


def _flag_args(params, flags):
    """the flags of `ro-sgns train` for train()'s keywords"""
    for name, value in list(params.items()) + list(flags.items()):
        if name in _UNSUPPORTED and value is not None and value != _UNSUPPORTED[name][0]:
            raise TypeError("train(): gensim's %s=%r is not supported: %s" % (name, value, _UNSUPPORTED[name][1]))
        if name in _OWN:
            raise TypeError("train(): %s= is not a keyword here: %s" % (name, _OWN[name]))
    for own, gensim in _SAME.items():
        if own in flags and params.get(gensim) is not None:
            raise TypeError("train(): give %s= or %s=, not both" % (gensim, own))
    method = str(flags.get("method", "ro"))
    init = str(flags.get("init", "sgd"))
    args = []
    for name, value in params.items():
        if value is None or name in _UNSUPPORTED:
            continue
        flag = _GENSIM[name]
        if callable(flag):
            flag = flag(method, init)
            if flag is None:
                raise TypeError("train(): %s= does not apply to method=%r, init=%r (it is the SGD "
                                "epochs over the text)" % (name, method, init))
        args += ["-" + flag, _value(name, value)]
    for name, value in flags.items():
        if name in _UNSUPPORTED:
            continue
        flag = "-" + {"ro_steps": "steps"}.get(name, name.replace("_", "-"))
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, _value(name, v)]
        else:
            args += [flag, _value(name, value)]
    return args


_PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")
_STEP = re.compile(r"iter\s+(\d+)/(\d+)")
_ETA = re.compile(r"ETA (?:(\d+) s|(\d+)m(\d+)s|(\d+)h(\d+)m)")


class Progress(collections.namedtuple("Progress", "stage percent eta line")):
    """A line the program printed: stage (the text before its first ':',
    e.g. "count", "sgd", "ro" for RO-SGNS's steps), percent (of the stage, a
    float, or None), eta (seconds left, as printed: "ETA 1m05s" is 65.0; or None),
    line (the whole line)."""


def _progress(line):
    percent = _PERCENT.search(line)
    eta = _ETA.search(line)
    seconds = None
    if eta:
        s, m1, s1, h2, m2 = (int(g) if g else 0 for g in eta.groups())
        seconds = float(s + 60 * m1 + s1 + 3600 * h2 + 60 * m2)
    step = _STEP.match(line)
    if step:  # an RO step: "iter   6/30  F ... (+3.02%) ..." (the gain is not the progress)
        return Progress("ro", 100.0 * int(step.group(1)) / max(1, int(step.group(2))), seconds, line)
    stage = line.split(":", 1)[0].strip() if ":" in line else line.split(" ", 1)[0]
    return Progress(stage, float(percent.group(1)) if percent else None, seconds, line)


def _stop(proc):
    """end the child: SIGTERM, then SIGKILL after a second; reap it"""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run(args, callback=None, log=True):
    """Run `ro-sgns ARGS` (a list of str) and return its output lines; each
    line is logged (INFO; "warning:" lines WARNING) and passed to callback
    as a Progress. A failure raises Error with the program's message; an
    exception (KeyboardInterrupt, or one the callback raises) ends the
    program first."""
    argv = [program()] + [_value("argument", a) for a in args]
    lines = []
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, close_fds=True)
    try:
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line.strip():
                continue
            lines.append(line)
            if log:
                logger.log(logging.WARNING if line.startswith("warning") else logging.INFO, "%s", line)
            if callback is not None:
                callback(_progress(line))
        rc = proc.wait()
    except BaseException:
        _stop(proc)
        raise
    finally:
        proc.stdout.close()
    if rc != 0:
        raise Error(lines[-1] if lines else "ro-sgns %s failed (status %d)" % (args[0] if args else "", rc))
    return lines


def train(corpus_file=None, vector_size=None, window=None, min_count=None, negative=None, sample=None,
          epochs=None, workers=None, seed=None, alpha=None, sg=None, hs=None, callback=None,
          progress=True, **flags):
    """Train on the text in corpus_file as `ro-sgns train -train corpus_file`
    does and return KeyedVectors. gensim's names: vector_size (-size),
    window, min_count, negative, sample (the SGD start's subsampling,
    -init-sample; -sample for method="sgd" and the counting of other
    starts), epochs (-iter: the SGD start's epochs, or method="sgd"'s),
    workers (threads, -threads), seed, alpha; sg=1 and hs=0
    are accepted and other values refused, as are gensim's parameters that
    mean nothing here (TypeError naming them). Any other keyword is the
    program's flag of that name with - for _ (True a switch, a list repeats
    it); ro_steps is RO's step cap (-steps), virtual_workers the SGD
    start's virtual workers (-virtual-workers). Unset, a setting is the program's default
    (ro-sgns train -help). callback(progress) gets each progress line (a
    Progress: stage, percent, eta, line); progress=False: no log lines."""
    _need_numpy()
    if corpus_file is None:
        raise TypeError("train(): corpus_file= is required (a text file, words separated by spaces)")
    params = {"vector_size": vector_size, "window": window, "min_count": min_count, "negative": negative,
              "sample": sample, "epochs": epochs, "workers": workers, "seed": seed, "alpha": alpha,
              "sg": sg, "hs": hs}
    args = ["train", "-train", _value("corpus_file", corpus_file)] + _flag_args(params, flags)
    if not progress:
        args.append("-quiet")
    from .keyedvectors import load_word2vec_bin
    tmp = tempfile.mkdtemp(prefix="ro_sgns_")
    try:
        out = os.path.join(tmp, "vectors.bin")
        run(args + ["-output", out, "-binary", "1"], callback, progress)
        return load_word2vec_bin(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
