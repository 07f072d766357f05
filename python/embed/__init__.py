"""embed's .emb word vectors in numpy and PyTorch, mapped with no load step.

    import embed
    v = embed.open("glove.emb")          # maps the file: nothing is read yet
    v["king"]                            # one row, found through the file's hash index
    v.most_similar("king", topn=5)       # as embed-query answers
    emb = v.embedding(["the", "king"])   # a torch.nn.Embedding of just those rows
    q = embed.QuantizedEmbedding(embed.open("glove-pq.emb"))   # int8 or pq rows, decoded per lookup

docs/python.md in the repository describes the package; docs/FORMAT.md the file.
"""
import sys as _sys

try:
    import numpy as _numpy  # noqa: F401
except ModuleNotFoundError as e:
    if e.name != "numpy":  # numpy there but broken: its own error says more
        raise
    # Where the first python3 on PATH is not the one with numpy (a pyenv, a venv without it).
    raise ImportError(f"embed needs numpy, which {_sys.executable} lacks: on Debian, /usr/bin/python3 with "
                      "python3-numpy, or pip install numpy (docs/python.md, Install)") from None

from embed._errors import EmbError  # noqa: E402
from embed._file import bf16_to_f32  # noqa: E402
from embed.vectors import MissingWords, Vectors, open  # noqa: E402

__all__ = ["open", "Vectors", "EmbError", "MissingWords", "bf16_to_f32"]  # and QuantizedEmbedding, with PyTorch
__version__ = "0.1.0"


def __getattr__(name):
    # QuantizedEmbedding is a torch.nn.Module: defined on first use, as to_torch imports torch, so that
    # `import embed` stays numpy's alone; without PyTorch, the ImportError says how to install it.
    if name == "QuantizedEmbedding":
        from embed._quantized import QuantizedEmbedding
        globals()[name] = QuantizedEmbedding
        return QuantizedEmbedding
    raise AttributeError(f"module 'embed' has no attribute {name!r}")
