"""fastText's character n-grams (docs/FORMAT.md, "Subwords"; lib/text/fasttext_subwords.h):
the vector of a word outside the vocabulary, from the .emb's n-gram bucket rows."""
import numpy as np

_MASK = 0xFFFFFFFF


def ngram_buckets(word, minn, maxn, buckets):
    """The bucket of each of `word`'s n-grams, in fastText's order."""
    if word == "</s>":
        return []
    chars = list("<" + word + ">")
    out = []
    for i in range(len(chars)):
        for n in range(1, maxn + 1):
            if i + n > len(chars):
                break
            if n >= minn and not (n == 1 and (i == 0 or i + n == len(chars))):
                out.append(_hash("".join(chars[i:i + n]).encode("utf-8")) % buckets)
    return out


def _hash(data):
    # FNV-1a 32 with each byte sign-extended first, as fastText's models were trained.
    h = 2166136261
    for b in data:
        h = ((h ^ (b if b < 0x80 else (0xFFFFFF00 | b))) * 16777619) & _MASK
    return h


def subword_vector(word, row, dim, minn, maxn, buckets):
    """fastText's vector of `word`: the sum of its n-grams' bucket rows (`row(b)`, float32)
    in float32, times float32(1 / count); zeros when it has none. Returns (vector, count)."""
    grams = ngram_buckets(word, minn, maxn, buckets)
    out = np.zeros(dim, dtype=np.float32)
    for b in grams:
        out += row(b)
    if grams:
        out *= np.float32(1.0 / len(grams))
    return out, len(grams)
