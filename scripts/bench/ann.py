#!/usr/bin/python3
"""The approximate-index benchmark's data and peers (scripts/bench/ann.sh runs it).

  ann.py make DIR ROWS DIM QUERIES [SEED]
      Vectors with structure, like word vectors: points of a mixture of 1 cluster per 1,000
      rows in a 40-dimensional latent space, mapped linearly into DIM dimensions, plus a
      little isotropic noise (word vectors' intrinsic dimension is far below 300, which is
      what makes graph search work on them; isotropic Gaussian noise in 300 dimensions has
      no neighbours worth the name). Writes DIR/vectors.f32 (raw, for the peers),
      DIR/vectors.bin (word2vec binary, words w0..., for glove-convert) and
      DIR/queries.f32 (QUERIES held-out points of the same mixture).

  ann.py peers DIR K THREADS EF_LIST
      faiss (python3-faiss: IndexHNSWFlat, M 16, efConstruction 80, on unit-length rows, as
      our index is built) and hnswlib (python3-hnswlib: space "cosine", M 16,
      ef_construction 80) on DIR/vectors.f32; recall@K against DIR/truth.u64 (the exact
      answers bench-ann wrote), queries/s one query at a time on one thread and batched on
      THREADS, for each efSearch in EF_LIST; build seconds, index bytes, load seconds.
      Prints one JSON object per line.
"""
import json
import os
import sys
import time

import numpy as np


def make(directory, rows, dim, queries, seed=1):
    rng = np.random.default_rng(seed)
    latent = 40
    clusters = max(1, rows // 1000)
    centres = rng.standard_normal((clusters, latent), dtype=np.float32)
    mapping = rng.standard_normal((latent, dim), dtype=np.float32) / np.sqrt(latent)

    def points(n):
        which = rng.integers(0, clusters, n)
        z = centres[which] + 0.5 * rng.standard_normal((n, latent), dtype=np.float32)
        return (z @ mapping + 0.05 * rng.standard_normal((n, dim), dtype=np.float32)).astype(np.float32)

    width = len(str(max(rows - 1, 0)))
    record = np.dtype([("word", f"S{width + 1}"), ("space", "S1"), ("values", "<f4", (dim,)), ("newline", "S1")])
    with open(os.path.join(directory, "vectors.f32"), "wb") as raw, open(os.path.join(directory, "vectors.bin"), "wb") as binary:
        binary.write(f"{rows} {dim}\n".encode())
        for first in range(0, rows, 1 << 16):
            n = min(1 << 16, rows - first)
            block = points(n)
            raw.write(block.tobytes())
            chunk = np.zeros(n, dtype=record)
            chunk["word"] = [f"w{i:0{width}d}".encode() for i in range(first, first + n)]
            chunk["space"] = b" "
            chunk["values"] = block
            chunk["newline"] = b"\n"
            binary.write(chunk.tobytes())
    points(queries).tofile(os.path.join(directory, "queries.f32"))


def recall(found, truth):
    hits = sum(len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth))
    return hits / truth.size


def peers(directory, k, threads, ef_list):
    queries = np.fromfile(os.path.join(directory, "queries.f32"), dtype=np.float32)
    vectors = np.fromfile(os.path.join(directory, "vectors.f32"), dtype=np.float32)
    truth = np.fromfile(os.path.join(directory, "truth.u64"), dtype=np.uint64).astype(np.int64).reshape(-1, k)
    dim = queries.size // truth.shape[0]
    queries = queries.reshape(-1, dim)
    vectors = vectors.reshape(-1, dim)
    single = min(len(queries), 1000)
    try:
        import faiss
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-30)
        q_unit = np.ascontiguousarray(queries / np.linalg.norm(queries, axis=1, keepdims=True))
        faiss.omp_set_num_threads(threads)
        start = time.perf_counter()
        index = faiss.IndexHNSWFlat(dim, 16)
        index.hnsw.efConstruction = 80
        index.add(np.ascontiguousarray(unit, dtype=np.float32))
        build = time.perf_counter() - start
        path = os.path.join(directory, "faiss.index")
        faiss.write_index(index, path)
        start = time.perf_counter()
        index = faiss.read_index(path)
        load = time.perf_counter() - start
        print(json.dumps({"kind": "faiss", "what": "build", "build_seconds": round(build, 2),
                          "index_bytes": os.path.getsize(path), "load_seconds": round(load, 3)}), flush=True)
        for ef in ef_list:
            index.hnsw.efSearch = max(ef, k)
            faiss.omp_set_num_threads(1)
            start = time.perf_counter()
            for q in range(single):
                index.search(q_unit[q:q + 1], k)
            one = single / (time.perf_counter() - start)
            faiss.omp_set_num_threads(threads)
            start = time.perf_counter()
            _, found = index.search(q_unit, k)
            batch = len(q_unit) / (time.perf_counter() - start)
            print(json.dumps({"kind": "faiss", "ef": ef, "recall": round(recall(found, truth), 4),
                              "qps_one_thread": round(one, 1), "qps_threads": round(batch, 1)}), flush=True)
        os.remove(path)
        del index, unit
    except ImportError:
        print(json.dumps({"kind": "faiss", "skipped": "python3-faiss is not installed"}), flush=True)
    try:
        import hnswlib
        start = time.perf_counter()
        index = hnswlib.Index(space="cosine", dim=dim)
        index.init_index(max_elements=len(vectors), ef_construction=80, M=16, random_seed=1)
        index.add_items(vectors, num_threads=threads)
        build = time.perf_counter() - start
        path = os.path.join(directory, "hnswlib.index")
        index.save_index(path)
        start = time.perf_counter()
        index = hnswlib.Index(space="cosine", dim=dim)
        index.load_index(path, max_elements=len(vectors))
        load = time.perf_counter() - start
        print(json.dumps({"kind": "hnswlib", "what": "build", "build_seconds": round(build, 2),
                          "index_bytes": os.path.getsize(path), "load_seconds": round(load, 3),
                          "note": "the index file holds the vectors too"}), flush=True)
        for ef in ef_list:
            index.set_ef(max(ef, k))
            start = time.perf_counter()
            for q in range(single):
                index.knn_query(queries[q:q + 1], k=k, num_threads=1)
            one = single / (time.perf_counter() - start)
            start = time.perf_counter()
            found, _ = index.knn_query(queries, k=k, num_threads=threads)
            batch = len(queries) / (time.perf_counter() - start)
            print(json.dumps({"kind": "hnswlib", "ef": ef, "recall": round(recall(found.astype(np.int64), truth), 4),
                              "qps_one_thread": round(one, 1), "qps_threads": round(batch, 1)}), flush=True)
        os.remove(path)
    except ImportError:
        print(json.dumps({"kind": "hnswlib", "skipped": "python3-hnswlib is not installed"}), flush=True)


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]) if len(sys.argv) > 6 else 1)
    elif sys.argv[1] == "peers":
        peers(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), [int(e) for e in sys.argv[5].split(",")])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
