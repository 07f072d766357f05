#!/usr/bin/python3
"""Writes word-vector files with the peer tools that glove-convert must interoperate with.

Usage: make_peer_files.py OUTDIR        (run with Debian's /usr/bin/python3: needs gensim + numpy,
                                         and the `fasttext` command on PATH)

Writes into OUTDIR:
  corpus.txt          the training text (one sentence a line)
  gensim.bin          gensim KeyedVectors.save_word2vec_format(binary=True)
  gensim.txt          gensim KeyedVectors.save_word2vec_format(binary=False)
  gensim_ref.npy      the exact float32 vectors gensim held in memory, in file order
  gensim_ref.json     the words, in file order
  model.vec           the fastText CLI's text vectors (`fasttext skipgram ...`)

The gensim model is a tiny Word2Vec; a few of its rows are then overwritten with edge-case
floats (signed zero, subnormals, FLT_MAX, f16/bf16 rounding ties) so that bit-exactness is
really exercised. Set PYTHONHASHSEED=0 for byte-identical output across runs.
"""
import json
import os
import random
import subprocess
import sys

import numpy as np
from gensim.models import Word2Vec

# Words that must survive every conversion unchanged (no Unicode normalization, no splitting
# on non-ASCII spaces, number-like and NaN-like words).
SPECIAL_WORDS = [
    "café",            # precomposed U+00E9
    "cafe\u0301",      # e + combining acute: a different word, must not be normalized into "café"
    "naïve", "日本", "東京都", "Ελλάδα", "Привет", "straße", "🙂", "a\u00a0b",  # U+00A0 is not a separator
    "1.5", "-3", "nan", "inf", "e", "+", "don't", "C++", "x\\y", '"quoted"',
]

EDGE_ROWS = [
    # Each row is padded to the vector size with small ordinary values.
    [0.0, -0.0, 1e-45, -1e-45, 1.17549435e-38, -1.1754942e-38, 3.4028235e38, 0.1],
    [1.0 / 3, 16777217.0, 1e10, -65504.0, 65519.0, 65520.0, 5.9604645e-8, 2.9802322e-8],
    [1.00390625, 1.01171875, -1.00390625, 6.1035156e-05, 6.097555e-05, 1e-7, 123456.789, -2.5],
]


def make_corpus(rng):
    vocab = [f"w{i:03d}" for i in range(300)] + SPECIAL_WORDS
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]  # Zipf-like, so the count order is mixed
    sentences = [[w] for w in vocab]  # every word at least once
    for _ in range(400):
        sentences.append(rng.choices(vocab, weights, k=rng.randint(5, 15)))
    rng.shuffle(sentences)
    return sentences


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_peer_files.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    sentences = make_corpus(random.Random(12345))
    corpus = os.path.join(out, "corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        for s in sentences:
            f.write(" ".join(s) + "\n")

    model = Word2Vec(sentences, vector_size=16, window=3, min_count=1, workers=1, seed=7, epochs=3)
    kv = model.wv
    filler = np.random.default_rng(3).standard_normal((len(EDGE_ROWS), kv.vector_size)).astype(np.float32)
    for i, values in enumerate(EDGE_ROWS):
        row = kv.get_index(SPECIAL_WORDS[i])
        filler[i, :len(values)] = np.array(values, dtype=np.float32)
        kv.vectors[row] = filler[i]
    kv.save_word2vec_format(os.path.join(out, "gensim.bin"), binary=True)
    kv.save_word2vec_format(os.path.join(out, "gensim.txt"), binary=False)
    # save_word2vec_format writes the keys in descending "count" order; index_to_key is already
    # in that order after training, and the test checks gensim reads its own files back as this.
    np.save(os.path.join(out, "gensim_ref.npy"), np.ascontiguousarray(kv.vectors, dtype=np.float32))
    with open(os.path.join(out, "gensim_ref.json"), "w", encoding="utf-8") as f:
        json.dump(list(kv.index_to_key), f, ensure_ascii=False)

    # fastText writes model.bin and model.vec; -minn 0 -maxn 0 (no subwords) keeps model.bin small.
    subprocess.run(
        ["fasttext", "skipgram", "-input", corpus, "-output", os.path.join(out, "model"), "-dim", "16",
         "-minCount", "1", "-epoch", "1", "-thread", "1", "-minn", "0", "-maxn", "0", "-verbose", "0"],
        check=True, stdout=subprocess.DEVNULL)
    os.remove(os.path.join(out, "model.bin"))
    print(f"make_peer_files: {len(kv.index_to_key)} gensim words, fastText vectors in {out}/model.vec")


if __name__ == "__main__":
    main()
