"""Compressed rows (format version 2, docs/FORMAT.md "Compressed rows"): decoding the rows
asked for, and scoring every row against a query without decoding the table.

A row decodes as the C++ tools decode it (lib/format/emb_file.cpp, EmbFile::rows_as_f32):
int8, `scale * values`; pq, the row's centroids side by side, times `scale`; each product
one float32 multiplication, so the values are glove-convert's to the bit. Optimized PQ
(glove-convert --opq, a `pq.rotation` R): the centroids side by side times Rᵀ, then times
`scale`; the matrix product is taken in float64 and rounded to float32, so a row's values
do not depend on the rows decoded with it, and differ from glove-convert's float32 SGEMM
in the last bits only. The scores are embed-query's (lib/search/compressed_scan.cpp): pq by
asymmetric distance, a table of the query's products with every centroid that each row
sums M entries of, in embed-query's order (with OPQ, of the query turned once, q·R, since
q·(x̂·Rᵀ) = (q·R)·x̂); int8 by the float32 products with the stored values, times the scale.
"""
import numpy as np


def rows_codec(tensors, storage):
    """The decoder of a checked file's compressed rows, or None for dense rows."""
    return {"int8": Int8Rows, "pq": PqRows}[storage](tensors) if storage != "dense" else None


class Int8Rows:
    """int8.values [rows, dim] and int8.scale [rows]: row i is scale[i] * values[i]."""

    storage = "int8"

    def __init__(self, tensors):
        self.values, self.scale = tensors["int8.values"], tensors["int8.scale"]

    def decode(self, stored, rows):
        """The float32 rows of `stored` (values read for the rows `rows`: indices or a slice)."""
        return self.scale[rows][:, None] * stored.astype(np.float32)

    def scorer(self, query):
        """products(first, last): each row's product with the float32 `query`, as its decoding's."""
        # A chunk's float32 copy is what the product needs (numpy has no int8 x float32 product).
        return lambda first, last: (self.values[first:last].astype(np.float32) @ query) * self.scale[first:last]

    def parts(self):
        """The tensors a QuantizedEmbedding keeps, by the names it keeps them under."""
        return {"values": self.values, "scale": self.scale}


class PqRows:
    """pq.codes [rows, M], pq.codebooks [M, 256, dim/M], pq.scale [rows]: row i is the
    centroids codebooks[s, codes[i, s]] side by side, times scale[i]. With OPQ's optional
    pq.rotation R [dim, dim], the centroids side by side times Rᵀ, times scale[i]."""

    storage = "pq"

    def __init__(self, tensors):
        self.codes, self.codebooks, self.scale = tensors["pq.codes"], tensors["pq.codebooks"], tensors["pq.scale"]
        self.m, self.dim = self.codebooks.shape[0], self.codebooks.shape[0] * self.codebooks.shape[2]
        self.rotation = tensors.get("pq.rotation")  # None: plain PQ
        # Rᵀ in float64, for the decoding's product (dim x dim doubles, made once).
        self._back = None if self.rotation is None else np.ascontiguousarray(self.rotation.T, dtype=np.float64)

    def decode(self, stored, rows):
        centroids = self.codebooks[np.arange(self.m), stored]  # [n, M, dim/M]: fancy indexing gathers them
        side_by_side = centroids.reshape(len(stored), self.dim)
        if self._back is not None:
            # Float64, so that a row decodes to the same float32 values whatever rows come with it (a float32
            # product's summation order may depend on how many rows BLAS is given).
            side_by_side = (side_by_side @ self._back).astype(np.float32)
        return self.scale[rows][:, None] * side_by_side

    def scorer(self, query):
        if self.rotation is not None:  # the codes are of turned rows: turn the query once
            query = (np.asarray(query, dtype=np.float64) @ self.rotation).astype(np.float32)
        # table[s, k]: the query's sub-vector s against centroid k of sub-space s.
        table = np.einsum("skd,sd->sk", self.codebooks, query.reshape(self.m, -1)).astype(np.float32)

        def products(first, last):
            codes = self.codes[first:last]
            total = np.zeros(last - first, dtype=np.float32)
            # One sub-space at a time: a chunk's memory is a float32 a row, not one a code, and the
            # sum is taken in embed-query's order (its scores to the float).
            for s in range(self.m):
                total += table[s].take(codes[:, s])
            return total * self.scale[first:last]
        return products

    def parts(self):
        parts = {"codes": self.codes, "codebooks": self.codebooks, "scale": self.scale}
        if self.rotation is not None:
            parts["rotation"] = self.rotation
        return parts
