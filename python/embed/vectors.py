"""Vectors: an opened .emb, its words found through the file's own hash index, its rows
as numpy views of the mapping, and the searches embed-query answers, in numpy.

What is mapped and what is copied: `vectors`, `counts` and `norms` are views of the
mapping (read-only; `np.array(v.vectors)` is a writable copy); a single row (`v[word]`),
`rows(...)` and `subset(...)` copy only the rows asked for, widened to float32;
`to_torch()` of the whole table maps it again copy-on-write, so PyTorch gets a writable
tensor of the file's pages with no copy (writes stay in the process).

Compressed rows (int8 or pq storage, format version 2): the same calls decode only the
rows they touch, and searches score the stored rows without decoding them (_compressed.py);
there is no `vectors` matrix to map, so only `v[:]` and `to_torch()` decode every row.
"""
import os
import warnings
from numbers import Integral

import numpy as np

from embed._compressed import rows_codec
from embed._errors import EmbError
from embed._file import EmbContainer, bf16_to_f32
from embed._index import WordIndex
from embed._subwords import subword_vector

# Rows scored per step of a search: bounds the float32 copy an f16 or bf16 table needs.
_CHUNK_ROWS = 65536


class MissingWords(KeyError):
    """Words asked for that the vocabulary lacks (and, where the file has n-gram rows, that
    were not to be built from them). `.words` lists them in the order asked. `hints`: for
    some of them, the word the vocabulary has that differs only in case, named as
    embed-query names it ("the vocabulary has 'king'")."""

    def __init__(self, words, path, hints=None):
        self.words, hints = list(words), hints or {}
        if len(self.words) == 1:
            message = f"{path}: {self.words[0]!r} is not in the vocabulary"
            if hints:
                message += f"; the vocabulary has {hints[self.words[0]]!r}"
        else:
            shown = ", ".join(repr(w) for w in self.words[:10])
            more = f" and {len(self.words) - 10} more" if len(self.words) > 10 else ""
            message = f"{path}: {len(self.words)} words not in the vocabulary: {shown}{more}"
            if hints:
                message += "; the vocabulary has " + ", ".join(f"{v!r} (for {w!r})" for w, v in hints.items())
        super().__init__(message)

    def __str__(self):
        return self.args[0]


def case_variant(word, row_of):
    """A word of the vocabulary spelled as `word` but for case ("king" for "King"), or None:
    lookups are exact. Lower case, Capitalised, UPPER case, as embed-query tries them
    (lib/query/query_runner.cpp), and only once a word has failed."""
    lower = word.lower()
    for candidate in (lower, lower[:1].upper() + lower[1:], word.upper()):
        if candidate != word and row_of(candidate) >= 0:
            return candidate
    return None


def _word_list(words):
    """The words of a list, or a single word as a list of one (not its characters)."""
    return [words] if isinstance(words, str) else list(words)


def _items(words, name):
    """most_similar's positive or negative: a word, a vector, a list of them, or None (gensim's default)."""
    if isinstance(words, (int, float, np.number)):  # most_similar("king", 5): negative=5, not topn
        raise TypeError(f"most_similar: {name}={words!r} is a number, not words (the number of answers is topn=)")
    return [] if words is None else [words] if isinstance(words, (str, np.ndarray)) else list(words)


def _check_word(word, where):
    if not isinstance(word, str):
        hint = ": decode it first (word.decode())" if isinstance(word, (bytes, bytearray)) else ""
        raise TypeError(f"{where}: a word is a str, not {type(word).__name__} ({word!r}){hint}")


def open(path):  # noqa: A001 - embed.open, as numpy's and PyTorch's users expect a loader's name
    """Maps the .emb at `path` (checked as the C++ tools check it, no pass over the rows).
    Raises EmbError for a file that is not a usable .emb."""
    return Vectors(path)


class Words:
    """The vocabulary as a sequence, decoded one word at a time (no pass at open)."""

    def __init__(self, offsets, data):
        self._offsets, self._data = offsets, data

    def __len__(self):
        return len(self._offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"row {i} out of range (0 to {len(self) - 1})")
        return self._data[self._offsets[i]:self._offsets[i + 1]].tobytes().decode("utf-8", "replace")

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


class _Search:
    """The searches over rows that both a mapped file and a subset answer: cosine
    similarity, and neighbours of a word or of a sum and difference of words (3CosAdd,
    gensim's most_similar and embed-query's default method)."""

    def similarity(self, w1, w2):
        """Cosine of the two words' vectors; 0 when either has zero length (embed-query's rule)."""
        x, y = self._query_vector(w1), self._query_vector(w2)
        nx, ny = float(np.linalg.norm(x)), float(np.linalg.norm(y))
        return 0.0 if nx == 0 or ny == 0 else float(np.dot(x, y) / (nx * ny))

    def most_similar(self, positive=(), negative=(), topn=10, restrict=None, restrict_vocab=None):
        """The `topn` rows nearest to the normalised sum of the positive words' unit vectors
        minus the negative ones', by cosine, as (word, score) pairs; the query words are
        excluded. `restrict` (or gensim's name, `restrict_vocab`): search only the first so
        many rows (the most frequent). topn=None: every row's score, as gensim gives them
        (a float32 array in row order, the query words included, 0 for a zero row)."""
        rows = self._restrict_rows(restrict, restrict_vocab)
        if isinstance(topn, Integral) and topn < 1:
            return []  # gensim's rule
        query, exclude = self._query(positive, negative)
        scores = self._scores(query, rows)
        if not topn:
            return scores
        return self._best(scores, int(topn), exclude)

    def _restrict_rows(self, restrict, restrict_vocab):
        if restrict is not None and restrict_vocab is not None:
            raise TypeError("most_similar: restrict and restrict_vocab are the same: give one")
        restrict = restrict if restrict is not None else restrict_vocab
        if restrict is None:
            return len(self)
        # As embed-query's --restrict: 0 rows would answer nothing, whatever the words.
        if isinstance(restrict, bool) or not isinstance(restrict, Integral) or restrict < 1:
            raise ValueError(f"most_similar: restrict={restrict!r} is not an integer of 1 or more "
                             "(None searches every row)")
        return min(int(restrict), len(self))

    def _query(self, positive, negative):
        """The unit query vector (float32) and the rows of the query words."""
        positive, negative = _items(positive, "positive"), _items(negative, "negative")
        if not positive and not negative:
            raise ValueError("most_similar: give at least one word")
        total = np.zeros(self.dim, dtype=np.float64)
        exclude = []
        for weight, items in ((1.0, positive), (-1.0, negative)):
            for item in items:
                vector = self._query_vector(item).astype(np.float64)
                length = np.linalg.norm(vector)
                if length == 0:
                    raise ValueError(f"most_similar: {item!r} has a zero vector: nothing is near it")
                total += weight * vector / length
                if isinstance(item, str):
                    row = self._row_of(item)
                    if row >= 0:
                        exclude.append(row)
        length = np.linalg.norm(total)
        if length == 0:
            raise ValueError("most_similar: the words cancel out (their sum is zero)")
        return (total / length).astype(np.float32), exclude

    def _scores(self, query, rows):
        """The cosine of each of the first `rows` rows with the unit `query` (0 for a zero row)."""
        scores = np.empty(rows, dtype=np.float32)
        products = self._scorer(query)
        for first in range(0, rows, _CHUNK_ROWS):
            last = min(rows, first + _CHUNK_ROWS)
            scores[first:last] = products(first, last)
        norms = self._norms()[:rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            scores /= norms
        scores[norms == 0] = 0
        return scores

    def _best(self, scores, topn, exclude):
        scores = scores.copy()
        scores[self._norms()[:len(scores)] == 0] = -np.inf  # a zero row is near nothing
        for row in exclude:
            if row < len(scores):
                scores[row] = -np.inf
        k = max(0, min(topn, int(np.count_nonzero(np.isfinite(scores)))))
        if k == 0:
            return []
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.lexsort((best, -scores[best]))]  # by score, ties by row
        return [(self._word(int(r)), float(scores[r])) for r in best]

    def _scorer(self, query):
        """products(first, last): the rows' products with `query`, a chunk at a time."""
        return lambda first, last: self._chunk_f32(first, last) @ query

    def _missing(self, words, where):
        """MissingWords for `words`, with the case variants of the first ten that have one."""
        hints = {w: v for w in words[:10] if (v := case_variant(w, self._row_of)) is not None}
        return MissingWords(words, where, hints)

    def _query_vector(self, item):
        """A query's float32 vector: a vector as given, or a word's (__getitem__)."""
        return item.astype(np.float32) if isinstance(item, np.ndarray) else self[item]


class Vectors(_Search):
    """An opened .emb. `v[word]`, `word in v`, `v.index(word)`, `len(v)`, `v.words`,
    `v.vectors`, `v.counts`, `v.rows(words)`, `v.subset(words)`, `v.most_similar(...)`,
    `v.similarity(w1, w2)`, `v.to_torch(...)`, `v.embedding(...)`, and for compressed
    rows `v.quantized_embedding(...)`."""

    def __init__(self, path):
        self._c = EmbContainer(path)
        t = self._c.tensors
        self.path = self._c.path
        self.metadata = dict(self._c.metadata)
        self.storage = self._c.storage  # "dense", or compressed: "int8" or "pq"
        # "f32", "f16" or "bf16" (dense), or the storage's name, as the metadata's dtype
        self.dtype = self._c.dtypes["vectors"].lower() if self.storage == "dense" else self.storage
        self._codec = rows_codec(t, self.storage)  # None for dense rows
        self._words = Words(t["vocab.offsets"], t["vocab.bytes"])
        self._lookup = WordIndex(t["vocab.index"], t["vocab.offsets"], t["vocab.bytes"])
        self._subwords = None
        if "subwords.buckets" in t:
            m = self.metadata
            self._subwords = (t["subwords.buckets"], self._c.dtypes["subwords.buckets"], int(m["subwords.minn"]),
                              int(m["subwords.maxn"]))

    def __repr__(self):
        return f"<embed.Vectors {self.path}: {len(self)} words x {self.dim} {self.dtype}>"

    # --- the vocabulary ---
    def __len__(self):
        return len(self._words)

    @property
    def dim(self):
        return self._c.dim

    @property
    def words(self):
        """The words, row by row (decoded as they are read)."""
        return self._words

    @property
    def counts(self):
        """The words' counts (int64, mapped), or None when the file has none."""
        return self._c.tensors.get("counts")

    @property
    def has_subwords(self):
        """Whether the file holds fastText n-gram rows, which give words outside the vocabulary vectors."""
        return self._subwords is not None

    def __contains__(self, word):
        return isinstance(word, str) and self._row_of(word) >= 0

    def index(self, word):
        """The row of `word` (MissingWords, a KeyError, when the vocabulary lacks it)."""
        row = self._row_of(word)
        if row < 0:
            raise self._missing([word], self.path)
        return row

    # --- rows ---
    @property
    def vectors(self):
        """All rows, mapped read-only: float32, float16, or (bf16) uint16 bit patterns that
        embed.bf16_to_f32 widens. np.array(v.vectors) is a writable copy. A file of
        compressed rows has no such matrix: EmbError, naming the calls that decode."""
        if self._codec is not None:
            # Decoding here would turn a look at a 300 MB file into 2.4 GB of float32, unasked.
            megabytes = len(self) * self.dim * 4 / 1e6
            raise EmbError(f"{self.path}: v.vectors: the rows are stored {self.storage}-compressed, not as a matrix to "
                           "map: v.rows(words), v[first:last] and v.to_torch(words) decode the rows asked for; "
                           f"v[:] or v.to_torch() decode them all ({megabytes:,.1f} MB of float32)")
        return self._c.tensors["vectors"]

    def __getitem__(self, key):
        """The float32 vector of a word (a word outside the vocabulary from the n-gram rows
        when the file has them, as embed-query answers it) or of a row number; of a list of
        words, their rows ([len, dim], as gensim's kv[["a", "b"]]); of a slice of row
        numbers, a float32 copy of those rows (v[:] every row, decoded where compressed)."""
        if isinstance(key, Integral) and not isinstance(key, bool):
            if not -len(self) <= key < len(self):
                raise IndexError(f"{self.path}: row {key} out of range ({len(self)} rows)")
            return self._row_f32(int(key) % len(self))
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step == 1:
                chunk = self._chunk_f32(start, max(start, stop))
                return chunk if chunk.flags.owndata else chunk.copy()  # f32 rows are the mapping's: copied
            return self._rows_f32(np.arange(start, stop, step))
        if isinstance(key, (list, tuple, np.ndarray)):
            return self.rows(key, missing="subwords" if self.has_subwords else "raise")
        row = self._row_of(key)
        if row >= 0:
            return self._row_f32(row)
        if self._subwords is not None:
            return self._oov_vector(key)
        raise self._missing([key], self.path)

    def indices(self, words):
        """The rows of `words` (int64, -1 for a word the vocabulary lacks) and the missing words."""
        words = _word_list(words)
        rows = np.fromiter((self._row_of(w) for w in words), dtype=np.int64, count=len(words))
        missing = [w for w, r in zip(words, rows) if r < 0]
        return rows, missing

    def rows(self, words, missing="raise"):
        """A float32 copy of `words`' rows, in that order ([len(words), dim]). A word the
        vocabulary lacks: `missing="raise"` raises MissingWords naming them all, "zeros"
        gives it a zero row, "subwords" builds it from the file's n-gram rows (fastText's
        vector; the file must have them)."""
        words = _word_list(words)
        rows, absent = self.indices(words)
        if absent and missing == "raise":
            raise self._missing(absent, self.path)
        if missing not in ("raise", "zeros", "subwords"):
            raise ValueError(f'missing={missing!r}: expected "raise", "zeros" or "subwords"')
        if absent and missing == "subwords" and self._subwords is None:
            raise EmbError(f'{self.path}: missing="subwords" needs n-gram rows, and the file has none')
        out = self._rows_f32(rows)
        if missing == "subwords":
            for i in np.flatnonzero(rows < 0):
                out[i] = self._oov_vector(words[i])
        return out

    def subset(self, words):
        """Only `words`' rows, in that order, in memory (a writable float32 copy): the words
        the vocabulary lacks are left out and listed in `.missing`."""
        words = _word_list(words)
        rows, absent = self.indices(words)
        kept = [w for w, r in zip(words, rows) if r >= 0]
        return Subset(kept, self.rows(kept), absent, self.path)

    # --- PyTorch ---
    def to_torch(self, words=None, device=None, missing="raise"):
        """A torch.Tensor of every row (words=None: the file's pages mapped copy-on-write,
        no copy; f16 and bf16 stay in their type; compressed rows are all decoded, a float32
        copy of the whole table) or of `words`' rows (a float32 copy of just those, as
        rows() makes), moved to `device` when given."""
        torch = _torch()
        if words is None:
            tensor = self._mapped_torch(torch) if self._codec is None else torch.from_numpy(self[:])
        else:
            tensor = torch.from_numpy(self.rows(words, missing=missing))
        return tensor if device is None else tensor.to(device)

    def embedding(self, words=None, freeze=True, device=None, missing="raise", **kwargs):
        """A torch.nn.Embedding of every row or of `words`' rows (row i is words[i]), frozen
        unless freeze=False; other keyword arguments go to nn.Embedding.from_pretrained."""
        torch = _torch()
        weights = self.to_torch(words, device=device, missing=missing)
        if weights.dtype not in (torch.float32, torch.float64) and not freeze:
            weights = weights.float()  # training steps in float32
        return torch.nn.Embedding.from_pretrained(weights, freeze=freeze, **kwargs)

    def quantized_embedding(self, words=None, device=None, missing="raise"):
        """An embed.QuantizedEmbedding of a compressed file's rows (every row, or `words`'),
        kept compressed on `device` and decoded row by row in forward (embed.QuantizedEmbedding)."""
        from embed._quantized import QuantizedEmbedding
        return QuantizedEmbedding(self, words, device=device, missing=missing)

    # --- internals ---
    def _row_of(self, word):
        _check_word(word, self.path)
        return self._lookup.find(word.encode("utf-8"))

    def _word(self, row):
        return self._words[row]

    def _widen(self, values, dtype=None):
        dtype = dtype or self._c.dtypes["vectors"]
        if dtype == "BF16":
            return bf16_to_f32(values)
        return np.asarray(values, dtype=np.float32)

    def _stored(self):
        """The stored rows: vectors, int8.values or pq.codes (a row of it a word's), mapped."""
        return self._c.tensors[self._c.rows_name]

    def _decode(self, stored, rows):
        """float32 rows of `stored`, the stored values of the rows `rows` (indices or a slice)."""
        return self._widen(stored) if self._codec is None else self._codec.decode(stored, rows)

    def _rows_f32(self, rows):
        """A float32 copy of the rows `rows` (in any order; -1: a zero row)."""
        out = np.zeros((len(rows), self.dim), dtype=np.float32)
        return _in_row_order(rows, lambda wanted: self._decode(self._read_rows(wanted), wanted), out)

    def _read_rows(self, rows):
        """The stored values of `rows` (ascending). A few rows of a big file are read with
        pread rather than through the mapping: a page fault maps the pages around it too
        (16 on Linux), so 10,000 scattered rows would bring a 2.4 GB file's every page into
        the process's RSS; read, they cost their own bytes."""
        stored = self._stored()
        if not self._c.mapped or len(rows) * 8 > len(self):
            return stored[rows]
        row_bytes = stored.shape[1] * stored.dtype.itemsize
        data = bytearray(len(rows) * row_bytes)
        view = memoryview(data)
        fd = self._c.file.fileno()  # the file opened, whatever the path names now
        start = self._c.starts[self._c.rows_name]
        for i, row in enumerate(rows.tolist()):
            if os.preadv(fd, [view[i * row_bytes:(i + 1) * row_bytes]], start + row * row_bytes) != row_bytes:
                raise EmbError(f"{self.path}: row {row} could not be read: the file shrank while open")
        return np.frombuffer(data, dtype=stored.dtype).reshape(len(rows), stored.shape[1])

    def _row_f32(self, row):
        return np.array(self._decode(self._stored()[row:row + 1], slice(row, row + 1))[0], dtype=np.float32)

    def _chunk_f32(self, first, last):
        return self._decode(self._stored()[first:last], slice(first, last))

    def _scorer(self, query):
        # Compressed rows are scored as stored (pq: a table of M x 256 products, no row decoded).
        return super()._scorer(query) if self._codec is None else self._codec.scorer(query)

    def _norms(self):
        norms = self._c.tensors.get("norms")
        if norms is None:
            norms = np.concatenate([np.linalg.norm(self._chunk_f32(f, min(len(self), f + _CHUNK_ROWS)), axis=1)
                                    for f in range(0, len(self), _CHUNK_ROWS)] or [np.zeros(0)])
            self._c.tensors["norms"] = norms.astype(np.float32)
            norms = self._c.tensors["norms"]
        return norms

    def _oov_vector(self, word):
        table, dtype, minn, maxn = self._subwords
        vector, _ = subword_vector(word, lambda b: self._widen(table[b], dtype), self.dim, minn, maxn, table.shape[0])
        return vector

    def _mapped_torch(self, torch):
        c = self._c
        if isinstance(c.buffer, np.memmap):
            vectors = c.tensors["vectors"]
            offset = vectors.__array_interface__["data"][0] - c.buffer.__array_interface__["data"][0]
            private = np.memmap(c.file, dtype=vectors.dtype, mode="c", offset=offset, shape=vectors.shape)
        else:
            private = np.array(c.tensors["vectors"])  # a gzip file is in memory already
        if self.dtype == "bf16":
            private = private.view(np.int16)  # PyTorch has no uint16 before 2.3; the bits are what count
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns of memmaps; the mapping is private
            tensor = torch.from_numpy(private)
        if self.dtype == "bf16":
            tensor = tensor.view(torch.bfloat16)
        return tensor


class Subset(_Search):
    """Some words' rows in memory, in the order asked for (Vectors.subset): a writable
    float32 `vectors`, `words`, `missing` (the words asked for that the file lacks)."""

    def __init__(self, words, vectors, missing, source):
        self.words, self.vectors, self.missing, self.source = words, vectors, missing, source
        self._rows = {w: i for i, w in enumerate(words)}

    def __repr__(self):
        return f"<embed.Subset of {self.source}: {len(self)} words x {self.dim}, {len(self.missing)} missing>"

    def __len__(self):
        return len(self.words)

    @property
    def dim(self):
        return self.vectors.shape[1]

    def __contains__(self, word):
        return word in self._rows

    def index(self, word):
        row = self._row_of(word)
        if row < 0:
            raise self._missing([word], f"the subset of {self.source}")
        return row

    def __getitem__(self, word):
        if isinstance(word, (list, tuple, np.ndarray)):
            return self.vectors[[self.index(w) for w in word]]
        return self.vectors[self.index(word)]

    def to_torch(self, device=None):
        torch = _torch()
        tensor = torch.from_numpy(self.vectors)
        return tensor if device is None else tensor.to(device)

    def _row_of(self, word):
        _check_word(word, f"the subset of {self.source}")
        return self._rows.get(word, -1)

    def _word(self, row):
        return self.words[row]

    def _chunk_f32(self, first, last):
        return self.vectors[first:last]

    def _norms(self):
        return np.linalg.norm(self.vectors, axis=1).astype(np.float32)


def _in_row_order(rows, read, out):
    """`out` with out[i] = read(...) of rows[i], for the rows >= 0 (the rest left as they are):
    `read` is given them in ascending order, so that a big file is read front to back."""
    found = rows >= 0
    if found.any():
        order = np.argsort(rows[found], kind="stable")
        out[np.flatnonzero(found)[order]] = read(rows[found][order])
    return out


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("embed: PyTorch is not installed (pip install torch, or Debian's python3-torch)") from None
    return torch

