"""KeyedVectors: the part of gensim's KeyedVectors people query, over numpy
alone, and the readers of word2vec's files, which refuse what does not parse.

The numbers are gensim's (tests/test_python.sh compares them on the same
vectors): cosines of unit vectors in float32; most_similar ranks by the
cosine to the mean of the unit vectors of positive minus negative words;
the evaluations lowercase nothing but compare upper-cased words and keep,
for each upper-cased form, the most frequent word, as gensim does.
"""
import math
import os

import numpy as np

__all__ = ["KeyedVectors", "FormatError", "load_word2vec_format", "load_word2vec_bin"]


class FormatError(ValueError):
    """A vectors file that does not parse; path and offset name the byte."""

    def __init__(self, path, offset, why):
        ValueError.__init__(self, "%s: byte %d: %s" % (os.fsdecode(path), offset, why))
        self.path, self.offset = path, offset


def _check_path(path):
    path = os.fspath(path)
    if "\0" in (path if isinstance(path, str) else path.decode("latin-1")):
        raise ValueError("path %r contains a NUL byte" % (path,))
    return path


def _header(path, data):
    eol = data.find(b"\n")
    if eol < 0:
        raise FormatError(path, 0, "no header line (\"WORDS DIMENSION\")")
    parts = data[:eol].split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise FormatError(path, 0, "the header is not two whole numbers \"WORDS DIMENSION\": %r"
                          % data[:min(eol, 60)])
    n, d = int(parts[0]), int(parts[1])
    if d < 1:
        raise FormatError(path, 0, "the header's dimension is 0")
    return n, d, eol + 1


def _word(path, data, pos, end):
    word = data[pos:end]
    if not word:
        raise FormatError(path, pos, "an empty word")
    for bad in (b"\n", b"\0", b"\t", b"\r"):
        at = word.find(bad)
        if at >= 0:
            raise FormatError(path, pos + at, "a word holds the byte %r" % bad)
    return word.decode("utf-8", "surrogateescape")


def _finish(path, words, vectors, offsets):
    seen = {}
    for i, w in enumerate(words):
        if w in seen:
            raise FormatError(path, offsets[i], "the word %r again (first at byte %d)" % (w, offsets[seen[w]]))
        seen[w] = i
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if bad.size:
        raise FormatError(path, offsets[bad[0]], "the vector of %r is not finite" % words[bad[0]])
    return KeyedVectors(words, vectors)


def load_word2vec_bin(path):
    """The vectors of a word2vec binary file ("n d\\n", then n times a word, a
    space, d little-endian float32 and an optional newline) as KeyedVectors.
    What does not parse (a short or long file, a header that does not match
    the rows, a word with a newline, a repeated word, a NaN) raises
    FormatError naming the file and the byte."""
    path = _check_path(path)
    with open(path, "rb") as f:
        data = f.read()
    n, d, pos = _header(path, data)
    if n * (4 * d + 2) > len(data) - pos:  # each row: a byte of word, a space, d floats
        raise FormatError(path, 0, "the header says %d words of %d floats: at least %d bytes, the file "
                          "has %d" % (n, d, n * (4 * d + 2) + pos, len(data)))
    words, offsets = [], []
    vectors = np.empty((n, d), dtype=np.float32)
    for i in range(n):
        space = data.find(b" ", pos)
        if space < 0:
            raise FormatError(path, pos, "word %d of %d: no space after it (the file ends)" % (i + 1, n))
        offsets.append(pos)
        words.append(_word(path, data, pos, space))
        pos = space + 1
        if pos + 4 * d > len(data):
            raise FormatError(path, pos, "the vector of %r: %d bytes, %d left" % (words[-1], 4 * d, len(data) - pos))
        vectors[i] = np.frombuffer(data, dtype="<f4", count=d, offset=pos)
        pos += 4 * d
        if data[pos:pos + 1] == b"\n":
            pos += 1
    if pos != len(data):
        raise FormatError(path, pos, "%d bytes after the %d vectors the header announces (is its "
                          "dimension %d that of the rows?)" % (len(data) - pos, n, d))
    return _finish(path, words, vectors, offsets)


def _load_text(path):
    with open(path, "rb") as f:
        data = f.read()
    n, d, pos = _header(path, data)
    if n * (2 * d + 2) > len(data) - pos:  # each row: a word, then d numbers and their separators
        raise FormatError(path, 0, "the header says %d words of %d numbers; the file has %d bytes"
                          % (n, d, len(data)))
    words, offsets = [], []
    vectors = np.empty((n, d), dtype=np.float32)
    for i in range(n):
        if pos >= len(data):
            raise FormatError(path, pos, "the file ends after %d of the %d words the header announces" % (i, n))
        eol = data.find(b"\n", pos)
        eol = len(data) if eol < 0 else eol
        fields = data[pos:eol].rstrip(b"\r").split(b" ")
        while fields and fields[-1] == b"":
            fields.pop()
        if len(fields) != d + 1:
            raise FormatError(path, pos, "line %d: %d numbers after the word, the header says %d"
                              % (i + 2, len(fields) - 1, d))
        offsets.append(pos)
        words.append(_word(path, data, pos, pos + len(fields[0])))
        try:
            vectors[i] = [float(x) for x in fields[1:]]
        except ValueError:
            raise FormatError(path, pos, "line %d: a number does not parse" % (i + 2)) from None
        pos = eol + 1
    if pos < len(data) and data[pos:].strip():
        raise FormatError(path, pos, "text after the %d lines the header announces" % n)
    return _finish(path, words, vectors, offsets)


def load_word2vec_format(path, binary=False):
    """word2vec's text (binary=False) or binary file as KeyedVectors;
    FormatError, naming the file and the byte, for what does not parse."""
    path = _check_path(path)
    return load_word2vec_bin(path) if binary else _load_text(path)


def _unit(v):
    norm = np.linalg.norm(v)
    return v / norm if norm > 0 else v


def _pearson(x, y):
    x = np.asarray(x, dtype=np.float64) - np.mean(x)
    y = np.asarray(y, dtype=np.float64) - np.mean(y)
    den = math.sqrt(float(np.dot(x, x)) * float(np.dot(y, y)))
    return float(np.dot(x, y)) / den if den > 0 else float("nan")


def _ranks(x):
    """ranks from 1, ties sharing their mean rank"""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x))
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    return ranks


class KeyedVectors:
    """Words and their vectors: kv["word"], "word" in kv, kv.most_similar(),
    kv.similarity(), kv.doesnt_match(), kv.evaluate_word_pairs(),
    kv.evaluate_word_analogies(), kv.save_word2vec_format(), kv.index_to_key,
    kv.vectors (float32, a row a word), kv.to_gensim(). A word not in the
    vocabulary raises KeyError naming it."""

    def __init__(self, index_to_key, vectors):
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(index_to_key):
            raise ValueError("KeyedVectors: %d words and vectors of shape %s"
                             % (len(index_to_key), vectors.shape))
        self.index_to_key = list(index_to_key)
        self.key_to_index = {w: i for i, w in enumerate(self.index_to_key)}
        if len(self.key_to_index) != len(self.index_to_key):
            raise ValueError("KeyedVectors: a word repeats")
        self.vectors = vectors
        self._norms = None

    @classmethod
    def load_word2vec_format(cls, path, binary=False):
        return load_word2vec_format(path, binary)

    vector_size = property(lambda self: self.vectors.shape[1])

    def __len__(self):
        return len(self.index_to_key)

    def __contains__(self, word):
        return word in self.key_to_index

    def __repr__(self):
        return "<ro_sgns.KeyedVectors: %d words, %d dimensions>" % self.vectors.shape

    def get_index(self, word):
        try:
            return self.key_to_index[word]
        except (KeyError, TypeError):
            raise KeyError("word %r not in the vocabulary" % (word,)) from None

    @property
    def norms(self):
        if self._norms is None:
            self._norms = np.linalg.norm(self.vectors, axis=1)
        return self._norms

    def get_vector(self, word, norm=False):
        i = self.get_index(word)
        v = self.vectors[i] / self.norms[i] if norm else self.vectors[i]
        v = v.view()
        v.setflags(write=False)
        return v

    def __getitem__(self, words):
        if isinstance(words, (list, tuple)):
            return np.vstack([self.get_vector(w) for w in words])
        return self.get_vector(words)

    def similarity(self, w1, w2):
        """the cosine of the two words' vectors"""
        return np.dot(_unit(self[w1]), _unit(self[w2]))

    def most_similar(self, positive=None, negative=None, topn=10, restrict_vocab=None):
        """The topn words nearest (cosine) to the mean of the unit vectors of
        the positive words minus the negative ones (a word may be a (word,
        weight) pair, its weight as given, or a vector), as (word, cosine) pairs, the given words
        left out; topn=None: the cosines of all words."""
        def weighted(items, sign):
            if isinstance(items, (str, np.ndarray)):
                items = [items]
            # a pair's weight is taken as given, among negative too (gensim's rule)
            return [(i[0], float(i[1])) if isinstance(i, tuple) else (i, sign) for i in (items or [])]
        terms = weighted(positive, 1.0) + weighted(negative, -1.0)
        if not terms:
            raise ValueError("most_similar: give at least one word")
        mean = np.zeros(self.vector_size, dtype=np.float32)
        for w, weight in terms:  # a word's unit vector, or a vector as given
            mean += weight * (w if isinstance(w, np.ndarray) else self.get_vector(w, norm=True))
        mean = _unit(mean / sum(abs(weight) for _, weight in terms)).astype(np.float32)
        end = len(self) if restrict_vocab is None else restrict_vocab
        dists = np.dot(self.vectors[:end], mean) / self.norms[:end]
        if not topn:
            return dists
        given = {self.get_index(w) for w, _ in terms if not isinstance(w, np.ndarray)}
        count = min(topn + len(given), len(dists))
        best = np.argpartition(-dists, count - 1)[:count] if count < len(dists) else np.arange(len(dists))
        best = best[np.argsort(-dists[best], kind="stable")]
        return [(self.index_to_key[i], float(dists[i])) for i in best if i not in given][:topn]

    def doesnt_match(self, words):
        """the word farthest (cosine) from the mean of the words' unit vectors"""
        used = [w for w in words if w in self]
        if not used:
            raise ValueError("doesnt_match: none of the words is in the vocabulary")
        unit = np.vstack([self.get_vector(w, norm=True) for w in used]).astype(np.float32)
        dists = np.dot(unit, _unit(unit.sum(axis=0) / len(used)))
        return sorted(zip(dists, used), reverse=True)[-1][1]

    def _upper_vocab(self, restrict_vocab, case_insensitive):
        keys = self.index_to_key[:restrict_vocab]
        if not case_insensitive:
            return {w: w for w in keys}
        vocab = {}
        for w in keys:  # the most frequent word of each upper-cased form
            vocab.setdefault(w.upper(), w)
        return vocab

    def evaluate_word_pairs(self, pairs, delimiter="\t", encoding="utf8", restrict_vocab=300000,
                            case_insensitive=True, dummy4unknown=False):
        """((pearson r, p), (spearman rho, p), oov percent) of the cosines
        against the scores of a file of "word word score" lines, as gensim's
        (the p-values from scipy when it is installed, else None)."""
        vocab = self._upper_vocab(restrict_vocab, case_insensitive)
        gold, model, oov = [], [], 0
        with open(_check_path(pairs), encoding=encoding) as f:
            for line in f:
                if not line or line.startswith("#"):
                    continue
                fields = line.split(delimiter)
                if len(fields) != 3:
                    continue
                a, b = (w.upper() if case_insensitive else w for w in fields[:2])
                try:
                    score = float(fields[2])
                except ValueError:
                    continue
                if a not in vocab or b not in vocab:
                    oov += 1
                    if dummy4unknown:
                        gold.append(score)
                        model.append(0.0)
                    continue
                gold.append(score)
                model.append(float(self.similarity(vocab[a], vocab[b])))
        if not gold:
            raise ValueError("%s: no pair with both words in the vocabulary" % os.fsdecode(pairs))
        pearson, spearman = _pearson(gold, model), _pearson(_ranks(gold), _ranks(model))
        try:
            from scipy import stats
            p_pearson = float(stats.pearsonr(gold, model)[1])
            p_spearman = float(stats.spearmanr(gold, model)[1])
        except ImportError:
            p_pearson = p_spearman = None
        oov_ratio = 100.0 * oov / (len(gold) if dummy4unknown else len(gold) + oov)
        return (pearson, p_pearson), (spearman, p_spearman), oov_ratio

    def evaluate_word_analogies(self, analogies, restrict_vocab=300000, case_insensitive=True,
                                dummy4unknown=False):
        """(accuracy, sections) of 3CosAdd on a file of ": section" lines and
        "a b c d" questions (b - a + c nearest d, among the restrict_vocab most
        frequent words), as gensim's: each section a dict with its name and the
        lists of correct and incorrect questions, the last "Total accuracy"."""
        vocab = self._upper_vocab(restrict_vocab, case_insensitive)
        sections, section, oov, questions = [], None, 0, 0
        with open(_check_path(analogies), "rb") as f:
            for number, raw in enumerate(f, 1):
                line = raw.decode("utf-8")
                if line.startswith(": "):
                    section = {"section": line.lstrip(": ").strip(), "correct": [], "incorrect": []}
                    sections.append(section)
                    continue
                if section is None:
                    raise ValueError("%s: line %d: a question before the first \": section\" line"
                                     % (os.fsdecode(analogies), number))
                words = [w.upper() if case_insensitive else w for w in line.split()]
                if len(words) != 4:
                    continue
                questions += 1
                if any(w not in vocab for w in words):
                    oov += 1
                    if dummy4unknown:
                        section["incorrect"].append(tuple(words))
                    continue
                a, b, c, expected = words
                predicted = None
                for word, _ in self.most_similar([vocab[b], vocab[c]], [vocab[a]], 5, restrict_vocab):
                    predicted = word.upper() if case_insensitive else word
                    if predicted in vocab and predicted not in (a, b, c):
                        break
                section["correct" if predicted == expected else "incorrect"].append(tuple(words))
        total = {"section": "Total accuracy",
                 "correct": [q for s in sections for q in s["correct"]],
                 "incorrect": [q for s in sections for q in s["incorrect"]]}
        answered = len(total["correct"]) + len(total["incorrect"])
        sections.append(total)
        return (len(total["correct"]) / answered if answered else 0.0), sections

    def save_word2vec_format(self, fname, binary=False):
        """word2vec's text or binary file (float32 little-endian), written to a
        temporary file beside fname and renamed over it"""
        fname = _check_path(fname)
        tmp = "%s.tmp%d" % (fname, os.getpid())
        try:
            with open(tmp, "wb") as f:
                f.write(b"%d %d\n" % self.vectors.shape)
                little = self.vectors.astype("<f4", copy=False)
                for w, v in zip(self.index_to_key, little):
                    word = w.encode("utf-8", "surrogateescape")
                    if binary:
                        f.write(word + b" " + v.tobytes() + b"\n")
                    else:
                        f.write(word + b" " + " ".join(repr(float(x)) for x in v).encode() + b"\n")
            if os.path.exists(fname):
                os.chmod(tmp, os.stat(fname).st_mode & 0o7777)
            os.replace(tmp, fname)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def to_gensim(self):
        """the same words and vectors as a gensim KeyedVectors (needs gensim)"""
        try:
            from gensim.models import KeyedVectors as GensimKeyedVectors
        except ImportError:
            raise ImportError("to_gensim() needs gensim (Debian: apt install python3-gensim)") from None
        kv = GensimKeyedVectors(self.vector_size, count=0, dtype=np.float32)
        kv.add_vectors(self.index_to_key, self.vectors)
        return kv
