"""embed.QuantizedEmbedding: a compressed file's rows as a torch.nn.Module that keeps them
compressed (int8 values or pq codes, a scale a row, pq's codebooks) and decodes only the
rows a batch looks up. Imported, with torch, on first use of embed.QuantizedEmbedding.
"""
import numpy as np

from embed._errors import EmbError
from embed.vectors import _in_row_order, _torch

torch = _torch()


class QuantizedEmbedding(torch.nn.Module):
    """The rows of an opened compressed .emb (int8 or pq storage) as a frozen embedding:
    `QuantizedEmbedding(v)` keeps every row, `QuantizedEmbedding(v, words)` only `words`'
    (row i is words[i]; missing="zeros" gives an absent word a zero row). Its buffers
    (int8: `values`, `scale`; pq: `codes`, `codebooks`, `scale`, and an OPQ file's
    `rotation` R) move with `.to(device)`; `forward(indices)` decodes just the indexed rows:
    float32 [*indices.shape, dim], equal to the file's decoding (v.rows, v.to_torch), on any
    device (OPQ: the centroids times Rᵀ, a float32 product on the device, so equal to the
    file's decoding up to float32 rounding, not bit for bit)."""

    def __init__(self, vectors, words=None, device=None, missing="raise"):
        super().__init__()
        codec = getattr(vectors, "_codec", None)
        if codec is None:
            what = f"{vectors.path} holds dense {vectors.dtype} rows" if hasattr(vectors, "storage") else \
                f"a {type(vectors).__name__}, not an opened .emb"
            raise EmbError(f"embed.QuantizedEmbedding: {what}; it keeps compressed rows (glove-convert --dtype int8 or "
                           "--pq M); v.embedding(words) makes a torch.nn.Embedding of dense ones")
        self.storage, self.dim = codec.storage, vectors.dim
        parts = codec.parts()
        if words is None:
            # Copies of the mapping: PyTorch wants writable arrays, and the buffers outlive the file.
            chosen = {name: np.array(t) for name, t in parts.items()}
        else:
            chosen = _rows_of(vectors, parts, words, missing)
        for name, array in chosen.items():
            self.register_buffer(name, torch.from_numpy(array))
        if "rotation" not in chosen:
            self.register_buffer("rotation", None)  # plain PQ or int8: none (a None buffer is in no state_dict)
        if self.storage == "pq":
            # Which sub-space each code of a row is in, kept on the module's device.
            self.register_buffer("_subspaces", torch.arange(self.codebooks.shape[0]), persistent=False)
        self.num_embeddings = len(chosen["scale"])
        self.embedding_dim = self.dim
        if device is not None:
            self.to(device)

    def forward(self, indices):
        if not torch.is_tensor(indices):
            indices = torch.as_tensor(indices, device=self.scale.device)
        scale = self.scale[indices].unsqueeze(-1)
        if self.storage == "int8":
            return scale * self.values[indices].float()
        # long: a uint8 tensor used as an index is read as a mask.
        centroids = self.codebooks[self._subspaces, self.codes[indices].long()]  # [..., M, dim/M]
        side_by_side = centroids.reshape(*indices.shape, self.dim)
        if self.rotation is not None:  # OPQ: the codes are of turned rows, x·R; turned back by Rᵀ
            side_by_side = side_by_side @ self.rotation.T
        return scale * side_by_side

    def extra_repr(self):
        books = f", m={self.codebooks.shape[0]}" if self.storage == "pq" else ""
        books += ", opq" if self.rotation is not None else ""
        return f"{self.num_embeddings}, {self.dim}, storage={self.storage}{books}"


def _rows_of(vectors, parts, words, missing):
    """The stored rows and scales of `words`, in that order (an absent word: codes 0, scale 0, a zero row)."""
    if missing not in ("raise", "zeros"):
        raise ValueError(f'missing={missing!r}: expected "raise" or "zeros" (n-gram rows are not compressed)')
    rows, absent = vectors.indices(words)
    if absent and missing == "raise":
        raise vectors._missing(absent, vectors.path)
    kept = {}
    for name, t in parts.items():
        if name in ("codebooks", "rotation"):  # every row's centroids, and OPQ's rotation
            kept[name] = np.array(t)
        elif name == "scale":
            kept[name] = _in_row_order(rows, lambda r: t[r], np.zeros(len(rows), dtype=np.float32))
        else:  # values or codes: read as v.rows reads them (pread, for a few rows of a big file)
            kept[name] = _in_row_order(rows, vectors._read_rows, np.zeros((len(rows), t.shape[1]), dtype=t.dtype))
    return kept
