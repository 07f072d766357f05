"""What a file that is not an .emb looks like, from its first bytes, named as the C++ tools
name it (lib/text/format_detect.cpp, lib/vectors/vector_formats.cpp), with the command that
converts it: embed.open("vectors.txt") says "GloVe text vectors: convert it first with
glove-convert", not that a header length of 3471765333124409460 is too big."""
import os
import shlex

HEAD_BYTES = 65536  # the start the tools' detection reads
FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")


def is_safetensors(head):
    """An 8-byte length, then a JSON object: the reader checks the rest and names its faults."""
    return head[8:].lstrip(b" \t\r\n")[:1] == b"{"


def not_an_emb(path, head, compressed):
    """The message for a file whose start is no safetensors header."""
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return (f"{path}: not an .emb file (it looks like a pickled gensim KeyedVectors file (.kv or .model: a Python "
                f"pickle, protocol {head[1]})): save it with "
                "model.wv.save_word2vec_format(\"vectors.bin\", binary=True) and convert that: "
                "glove-convert vectors.bin -o vectors.emb")
    what = _looks_like(head.removeprefix(b"\xef\xbb\xbf"))  # the text readers skip a byte-order mark
    if what is None:
        kind = "text, but its first line is not a word and numbers" if _is_text(head) else \
            "an .emb starts with an 8-byte header length and a JSON header, and this does not"
        return f"{path}: not an .emb file ({kind})"
    if compressed:
        what += ", gzip-compressed"
    return (f"{path}: not an .emb file (it looks like {what}): convert it first with "
            f"glove-convert {shlex.quote(path)} -o {shlex.quote(_output(path))}")


def _looks_like(head):
    if head[:4] == FASTTEXT_MAGIC:
        return "a fastText model (.bin)"
    first, newline, rest = head.partition(b"\n")
    fields = first.split()
    if len(fields) == 2 and all(f.isdigit() for f in fields):  # word2vec's "COUNT DIM"
        row = rest.split(b"\n", 1)[0].split()[1:]
        return "word2vec/fastText text vectors (.vec)" if row and _numbers(row) else "word2vec binary vectors (.bin)"
    values = fields[1:] if newline else fields[1:-1]  # the last field of a line longer than the head is cut
    # A word with spaces ("New York 0.1 0.2") is GloVe too: most fields after the first are numbers.
    numbers = next((i for i, v in enumerate(reversed(values)) if not _numbers([v])), len(values))  # at the end
    return "GloVe text vectors" if numbers >= 1 and 2 * numbers >= len(values) else None


def _numbers(fields):
    try:
        for f in fields:
            float(f)
    except ValueError:
        return False
    return True


def _is_text(head):
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return b"\0" not in head and e.start >= len(head) - 3  # a character cut by the head's end
    return b"\0" not in head


def _output(path):
    """glove-convert's output for `path`: its name with .emb for its extension (and .gz)."""
    stem = os.path.splitext(path[:-3] if path.endswith(".gz") else path)[0]
    return stem + ".emb" if stem + ".emb" != path else stem + ".converted.emb"
