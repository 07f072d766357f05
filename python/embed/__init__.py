"""embed's .emb word vectors in numpy and PyTorch, mapped with no load step.

    import embed
    v = embed.open("glove.emb")          # maps the file: nothing is read yet
    v["king"]                            # one row, found through the file's hash index
    v.most_similar("king", topn=5)       # as embed-query answers
    emb = v.embedding(["the", "king"])   # a torch.nn.Embedding of just those rows

docs/python.md in the repository describes the package; docs/FORMAT.md the file.
"""
from embed._errors import EmbError
from embed._file import bf16_to_f32
from embed.vectors import MissingWords, Vectors, open

__all__ = ["open", "Vectors", "EmbError", "MissingWords", "bf16_to_f32"]
__version__ = "0.1.0"
