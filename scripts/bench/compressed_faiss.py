#!/usr/bin/python3
"""faiss's product quantizers on the vectors compressed.sh compresses (issue 69).

Trains faiss IndexPQ (8-bit codes, inner product) and, unless told not to, OPQ + PQ
(OPQMatrix then IndexPQ) at the same M on the same rows ours trains on (the unit rows; all
of them up to 65,536, else a seeded sample of 65,536), encodes every unit row, and writes
each decoding, scaled back to its row's norm, as a word2vec binary file for glove-convert
(so that embed-query eval scores faiss's decodings as it scores our files). Then times
IndexPQ's search (k 11: the query row itself comes back first) for the rows of the words in
QUERY_WORDS, RUNS times, and prints one line per figure:

    train pq SECONDS | train opq SECONDS | search pq QUERIES_PER_SECOND (median)

Usage: compressed_faiss.py REPO_PYTHON VECTORS.emb M THREADS OUT_PREFIX QUERY_WORDS RUNS OPQ(0|1)
Needs numpy and faiss (python3-faiss).
"""
import statistics
import sys
import time

import faiss
import numpy as np

SAMPLE = 65536


def write_w2v_binary(path, words, vectors):
    with open(path, "wb") as out:
        out.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        for word, row in zip(words, vectors.astype("<f4")):
            out.write(word.encode() + b" " + row.tobytes() + b"\n")


def decoded(index, unit, norms):
    codes = index.sa_encode(unit)
    x = index.sa_decode(codes)
    length = np.linalg.norm(x, axis=1)
    return x * (norms / np.where(length > 0, length, 1))[:, None]


def main():
    repo_python, path, m, threads, out, query_words, runs, opq = sys.argv[1:9]
    m, threads, runs = int(m), int(threads), int(runs)
    sys.path.insert(0, repo_python)
    import embed  # the repository's package: reads the f32 .emb

    vectors = embed.open(path)
    x = np.ascontiguousarray(np.asarray(vectors.vectors, dtype=np.float32))
    words = list(vectors.words)
    norms = np.linalg.norm(x, axis=1)
    unit = x / np.where(norms > 0, norms, 1)[:, None]
    sample = unit
    if len(unit) > SAMPLE:
        sample = unit[np.sort(np.random.default_rng(1).choice(len(unit), SAMPLE, replace=False))]
    faiss.omp_set_num_threads(threads)
    d = x.shape[1]

    pq = faiss.IndexPQ(d, m, 8, faiss.METRIC_INNER_PRODUCT)
    start = time.perf_counter()
    pq.train(sample)
    print(f"train pq {time.perf_counter() - start:.1f}")
    write_w2v_binary(out + "pq.bin", words, decoded(pq, unit, norms))
    if opq == "1":
        index = faiss.IndexPreTransform(faiss.OPQMatrix(d, m), faiss.IndexPQ(d, m, 8, faiss.METRIC_INNER_PRODUCT))
        start = time.perf_counter()
        index.train(sample)
        print(f"train opq {time.perf_counter() - start:.1f}")
        write_w2v_binary(out + "opq.bin", words, decoded(index, unit, norms))

    pq.add(unit)
    row_of = {w: i for i, w in enumerate(words)}
    rows = [row_of[w] for w in open(query_words, encoding="utf-8").read().split("\n") if w in row_of]
    queries = np.ascontiguousarray(unit[rows])
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        pq.search(queries, 11)
        rates.append(len(rows) / (time.perf_counter() - start))
    print(f"search pq {statistics.median(rates):.0f}")


if __name__ == "__main__":
    main()
