#!/usr/bin/python3
"""Tests of the Python package (python/embed) against the C++ tools, on vectors trained
here from the bundled corpus: every word's lookup through the file's index is
embed-query's row, values equal glove-convert's for every dtype, neighbours, analogies,
similarities and words outside the vocabulary equal embed-query's answers; hostile files
raise embed.EmbError, and other formats' files are named as glove-convert names them;
docs/python.md's install commands work as written, without the network, leaving nothing
in python/. PyTorch parts skip with a message where it is not installed.

Usage: test_embed_package.py EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (from the repository root)
"""
import functools
import gzip
import json
import os
import pathlib
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import embed  # noqa: E402

ET = EQ = GC = None
WORK = None
# Words to ask about: frequent, rare, non-ASCII (their bytes >= 0x80 go through both hashes).
QUERIES = ["the", "anarchism", "king", "philosophy", "revolution", "war", "café", "naïve", "日本", "über", "zero"]
OOV = ["anarchismo", "cafés", "日本語", "philosophically", "qwertyuiop"]


def run(*args, stdin=None):
    return subprocess.run(args, input=stdin, capture_output=True, text=True, check=True).stdout


def setUpModule():
    global WORK
    WORK = tempfile.mkdtemp(prefix="embed-python-")
    corpus = os.path.join(WORK, "corpus.txt")
    with gzip.open(os.path.join(REPO, "data", "text8-200k.txt.gz"), "rt") as f, open(corpus, "w") as out:
        out.write(f.read())
        out.write("\ncafé naïve über 日本 straße\n" * 6)
    run(ET, "--corpus", corpus, "--subwords", "--buckets", "5000", "--dim", "24", "--epochs", "3", "--threads", "2",
        "--seed", "3", "-q", "-o", path("sub.emb"))
    for dtype in ("f16", "bf16"):
        run(GC, "-q", "--dtype", dtype, path("sub.emb"), "-o", path(f"sub-{dtype}.emb"))
    # Without subwords (through text), and gzipped.
    run(GC, "-q", path("sub.emb"), "-o", path("plain.txt"), "--to", "glove")
    run(GC, "-q", path("plain.txt"), "-o", path("plain.emb"))
    with open(path("plain.emb"), "rb") as f, gzip.open(path("plain.emb.gz"), "wb") as g:
        g.write(f.read())


def tearDownModule():
    shutil.rmtree(WORK, ignore_errors=True)


def path(name):
    return os.path.join(WORK, name)


def text_rows(emb):
    """glove-convert's text of `emb`: {word: values}, in file order."""
    rows = {}
    for line in run(GC, "-q", emb, "-o", "-", "--to", "glove").splitlines():
        fields = line.split(" ")
        rows[fields[0]] = np.array([float(x) for x in fields[1:]], dtype=np.float64)
    return rows


def query_json(emb, lines, *flags):
    return [json.loads(line) for line in run(EQ, emb, "--format", "json", *flags, stdin="\n".join(lines) + "\n")
            .splitlines()]


class Lookups(unittest.TestCase):
    def test_every_word_is_found_at_its_row_for_every_dtype(self):
        for name in ("sub.emb", "sub-f16.emb", "sub-bf16.emb", "plain.emb", "plain.emb.gz"):
            with self.subTest(file=name):
                v = embed.open(path(name))
                rows = text_rows(path(name))
                self.assertEqual(len(v), len(rows))
                self.assertEqual(list(v.words), list(rows))
                for i, word in enumerate(rows):
                    self.assertEqual(v.index(word), i)
                    self.assertIn(word, v)
                self.assertNotIn("\x00no such word", v)
                self.assertIn("日本", v)

    def test_values_equal_glove_converts_for_every_dtype(self):
        for name in ("sub.emb", "sub-f16.emb", "sub-bf16.emb"):
            with self.subTest(file=name):
                v = embed.open(path(name))
                rows = text_rows(path(name))
                mine = v.rows(list(rows))
                theirs = np.stack(list(rows.values()))
                # glove-convert prints the shortest decimal that reads back as the float.
                np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-7)
                self.assertEqual(v.dtype, name.split("-")[-1].split(".")[0] if "-" in name else "f32")
                self.assertFalse(v.vectors.flags.writeable)
                copy = np.array(v.vectors)
                copy[0, 0] = 1.0  # a copy is writable
                widened = embed.bf16_to_f32(v.vectors) if v.dtype == "bf16" else v.vectors.astype(np.float32)
                np.testing.assert_array_equal(widened, mine)

    def test_counts_and_metadata(self):
        v = embed.open(path("sub.emb"))
        self.assertEqual(v.counts.dtype, np.int64)
        self.assertTrue(np.all(np.diff(v.counts) <= 0))
        self.assertEqual(v.metadata["format"], "embed.vectors")
        self.assertTrue(v.has_subwords)
        self.assertFalse(embed.open(path("plain.emb")).has_subwords)


class SameAnswers:
    def same(self, mine, theirs, what, delta=2e-6):
        """The same scores rank by rank (embed-query prints 6 decimals), and the same words,
        but that words whose scores tie to that precision (or `delta`) may come in either order."""
        self.assertEqual(len(mine), len(theirs), what)
        for (_, a), r in zip(mine, theirs):
            self.assertAlmostEqual(a, r["score"], delta=delta, msg=what)
        last = theirs[-1]["score"] if theirs else 0
        for (w, a), r in zip(mine, theirs):
            if w != r["word"]:
                tied = [x["word"] for x in theirs if abs(x["score"] - a) <= delta]
                self.assertTrue(w in tied or abs(a - last) <= delta, f"{what}: {w} ({a}) against {r}")


class Answers(SameAnswers, unittest.TestCase):
    """most_similar, analogies, similarity and OOV words as embed-query answers them."""

    def test_neighbours_every_dtype(self):
        for name in ("sub.emb", "sub-f16.emb", "sub-bf16.emb"):
            v = embed.open(path(name))
            for answer in query_json(path(name), QUERIES + OOV, "-k", "10"):
                with self.subTest(file=name, word=answer["query"]):
                    self.same(v.most_similar(answer["query"], topn=10), answer["results"], answer["query"])

    def test_analogies_and_restrict(self):
        expressions = ["king - man + woman", "paris - france + italy", "anarchism - anarchist + philosophy"]
        v = embed.open(path("sub.emb"))
        for answer in query_json(path("sub.emb"), [], *sum((["--analogy", e] for e in expressions), []), "-k", "5"):
            words = answer["query"].split()
            positive = [words[0], words[4]]
            self.same(v.most_similar(positive=positive, negative=[words[2]], topn=5), answer["results"], answer["query"])
        for answer in query_json(path("sub.emb"), ["war"], "-k", "5", "--restrict", "300"):
            self.same(v.most_similar("war", topn=5, restrict=300), answer["results"], "restrict")

    def test_similarity(self):
        v = embed.open(path("sub-f16.emb"))
        for a, b in (("king", "queen"), ("café", "naïve"), ("war", "anarchismo")):
            answer = query_json(path("sub-f16.emb"), [], "--similarity", a, b)[0]
            self.assertAlmostEqual(v.similarity(a, b), answer["score"], delta=2e-6)

    def test_words_outside_the_vocabulary(self):
        v = embed.open(path("sub.emb"))
        self.assertNotIn("anarchismo", v)
        self.assertEqual(v["anarchismo"].shape, (24,))
        with self.assertRaises(KeyError):
            embed.open(path("plain.emb"))["anarchismo"]


class Subsets(unittest.TestCase):
    def test_rows_and_subset(self):
        v = embed.open(path("sub.emb"))
        words = ["war", "the", "nosuchwordx", "日本"]
        with self.assertRaises(embed.MissingWords) as caught:
            v.rows(words)
        self.assertEqual(caught.exception.words, ["nosuchwordx"])
        zeros = v.rows(words, missing="zeros")
        self.assertEqual(zeros.shape, (4, 24))
        self.assertFalse(zeros[2].any())
        np.testing.assert_array_equal(zeros[0], v["war"])
        np.testing.assert_array_equal(v.rows(words, missing="subwords")[2], v["nosuchwordx"])
        s = v.subset(words)
        self.assertEqual(s.words, ["war", "the", "日本"])
        self.assertEqual(s.missing, ["nosuchwordx"])
        np.testing.assert_array_equal(s["日本"], v["日本"])
        s.vectors[0, 0] = 0.5  # in memory, writable
        rows, missing = v.indices(words)
        self.assertEqual(list(rows), [v.index("war"), 0, -1, v.index("日本")])
        self.assertEqual(missing, ["nosuchwordx"])


class HostileFiles(unittest.TestCase):
    """Each raises embed.EmbError naming the file, never a numpy error from a short read."""

    def broken(self, name, data):
        p = path(name)
        with open(p, "wb") as f:
            f.write(data)
        with self.assertRaises(embed.EmbError) as caught:
            embed.open(p)
        self.assertIn(p, str(caught.exception))
        return str(caught.exception)

    def test_hostile_files(self):
        with open(path("plain.emb"), "rb") as f:
            good = f.read()
        n = int.from_bytes(good[:8], "little")
        header = json.loads(good[8:8 + n])
        self.assertIn("truncated", self.broken("cut.emb", good[:-5]))
        self.broken("empty.emb", b"")
        self.broken("short.emb", good[:5])
        self.broken("huge.emb", (10**9).to_bytes(8, "little") + good[8:])
        self.broken("past.emb", (len(good)).to_bytes(8, "little") + good[8:])
        self.broken("text.emb", b"the 0.1 0.2\nof 0.3 0.4\n")
        self.broken("gz.emb.gz", gzip.compress(good)[:-20])

        def rewritten(change):
            h = json.loads(json.dumps(header))
            change(h)
            text = json.dumps(h).encode()
            text += b" " * ((8 - (8 + len(text)) % 8) % 8)
            return len(text).to_bytes(8, "little") + text + good[8 + n:]

        rows = int(header["__metadata__"]["rows"])
        # An index of fewer slots than rows (the same bytes, read as I64: half as many).
        slots = header["vocab.index"]["shape"][0]
        if slots % 2 == 0:
            self.assertIn("vocab.index", self.broken("index.emb", rewritten(
                lambda h: h["vocab.index"].update(dtype="I64", shape=[slots // 2]))))
        self.assertIn("vocab.index", self.broken("index2.emb", rewritten(lambda h: h["vocab.index"].update(dtype="U8",
                                                                                                        shape=[4 * slots]))))
        self.broken("shape.emb", rewritten(lambda h: h["vectors"].update(shape=[rows, 7])))
        self.broken("dtype.emb", rewritten(lambda h: h["vectors"].update(dtype="F64")))
        self.broken("rows.emb", rewritten(lambda h: h["__metadata__"].update(rows=str(rows + 1))))
        self.broken("version.emb", rewritten(lambda h: h["__metadata__"].update(format_version="3")))
        self.broken("format.emb", rewritten(lambda h: h["__metadata__"].update(format="other")))
        self.assertIn("vocab.offsets", self.broken("offsets.emb", rewritten(
            lambda h: h["vocab.offsets"].update(dtype="U8", shape=[8 * (rows + 1)]))))
        # A key given twice in the header.
        text = good[8:8 + n].replace(b'{"__metadata__"', b'{"dim":1,"dim":2,"__metadata__"', 1)
        self.assertIn("twice", self.broken("twice.emb", len(text).to_bytes(8, "little") + text + good[8 + n:]))


class OtherFormats(unittest.TestCase):
    """A vector file of another format is named as glove-convert --info names it, with the
    same command to convert it; an empty or cut file says so rather than guess a format."""

    def message(self, p):
        with self.assertRaises(embed.EmbError) as caught:
            embed.open(p)
        return str(caught.exception)

    def test_named_as_glove_convert_names_them(self):
        with open(path("plain.txt"), "rb") as f, gzip.open(path("plain.txt.gz"), "wb") as g:
            g.write(f.read())
        files = {"plain.txt": None, "plain.txt.gz": None}
        for name, to in (("sub.vec", "w2v-text"), ("sub.w2v.bin", "w2v-bin"), ("sub.ft.bin", "fasttext-bin")):
            run(GC, "-q", path("sub.emb"), "-o", path(name), "--to", to)
            files[name] = to
        with open(path("gensim.kv"), "wb") as f:
            pickle.dump({"vectors": [0.5]}, f, protocol=4)
        for name in list(files) + ["gensim.kv"]:
            with self.subTest(file=name):
                p = path(name)
                theirs = subprocess.run([GC, "--info", p], capture_output=True, text=True).stderr
                mine = self.message(p)
                self.assertTrue(mine.startswith(f"{p}: "), mine)
                if name == "gensim.kv":
                    self.assertIn("looks like a pickled gensim KeyedVectors file", theirs)
                    self.assertIn("a pickled gensim KeyedVectors file (.kv or .model: a Python pickle, protocol 4)", mine)
                    self.assertIn('model.wv.save_word2vec_format("vectors.bin", binary=True)', mine)
                    continue
                looks = re.search(r"\((it looks like .*)\); --info", theirs).group(1)
                command = re.search(r"glove-convert \S+ -o \S+", theirs).group(0)
                self.assertIn(looks, mine)
                self.assertTrue(mine.endswith(f"convert it first with {command}"), f"{mine}\n{theirs}")
        self.assertIn("gzip-compressed", self.message(path("plain.txt.gz")))

    def test_a_compressed_file_is_named_from_its_start(self):
        # Not decompressed whole first (glove.840B.300d.txt.gz is 2 GB): a stream cut after
        # its start still says what it is.
        with open(path("plain.txt"), "rb") as f:
            data = gzip.compress(f.read())
        self.assertGreater(len(data), 200_000)
        with open(path("cut.txt.gz"), "wb") as f:
            f.write(data[:len(data) // 2])
        self.assertIn("(it looks like GloVe text vectors, gzip-compressed)", self.message(path("cut.txt.gz")))

    def test_empty_and_cut_files(self):
        with open(path("plain.emb"), "rb") as f:
            good = f.read()
        for name, data, said in (("empty.emb", b"", "an empty file"), ("five.emb", good[:5], "5 bytes"),
                                 ("eight.emb", good[:8], "8 bytes"), ("hello.emb", b"hello", "5 bytes"),
                                 ("empty.emb.gz", gzip.compress(b""), "an empty file once decompressed")):
            with self.subTest(file=name):
                with open(path(name), "wb") as f:
                    f.write(data)
                mine = self.message(path(name))
                self.assertTrue(mine.startswith(f"{path(name)}: {said}"), mine)
                self.assertNotIn("looks like", mine)
                self.assertTrue("truncated" in mine or "empty" in mine, mine)

    def test_text_that_is_not_vectors(self):
        with open(path("notes.txt"), "w") as f:
            f.write("Some notes\nabout vectors\n")
        self.assertEqual(self.message(path("notes.txt")),
                         f"{path('notes.txt')}: not an .emb file (text, but its first line is not a word and numbers)")


class CaseHints(unittest.TestCase):
    """A word the vocabulary lacks but for case: the KeyError names the word it has, as embed-query does."""

    def cli_hint(self, word):
        said = subprocess.run([EQ, path("plain.emb"), word], capture_output=True, text=True).stderr
        return re.search(r'the vocabulary has "([^"]+)"', said).group(1)

    def test_the_hint_is_embed_querys(self):
        v = embed.open(path("plain.emb"))
        for word in ("King", "WAR", "Philosophy"):
            with self.subTest(word=word):
                variant = self.cli_hint(word)
                for ask in (lambda: v[word], lambda: v.index(word), lambda: v.similarity(word, "the"),
                            lambda: v.most_similar(word), lambda: v.subset([variant])[word]):
                    with self.assertRaises(KeyError) as caught:
                        ask()
                    self.assertIsInstance(caught.exception, embed.MissingWords)
                    self.assertEqual(caught.exception.words, [word])
                    self.assertTrue(str(caught.exception).endswith(f"{word!r} is not in the vocabulary; "
                                                                   f"the vocabulary has {variant!r}"),
                                    str(caught.exception))
        with self.assertRaises(embed.MissingWords) as caught:
            v.rows(["King", "the", "qqqzz", "WAR"])
        self.assertEqual(caught.exception.words, ["King", "qqqzz", "WAR"])
        self.assertTrue(str(caught.exception).endswith("; the vocabulary has 'king' (for 'King'), 'war' (for 'WAR')"),
                        str(caught.exception))
        with self.assertRaises(KeyError) as caught:
            v["qqqzz"]
        self.assertEqual(str(caught.exception), f"{path('plain.emb')}: 'qqqzz' is not in the vocabulary")


class AllScoresAndRestrict(unittest.TestCase):
    def test_topn_none_gives_every_score_as_gensim(self):
        v = embed.open(path("sub-f16.emb"))
        scores = v.most_similar("war", topn=None)
        self.assertIsInstance(scores, np.ndarray)
        self.assertEqual((scores.dtype, scores.shape), (np.float32, (len(v),)))
        table = v.rows(list(v.words)).astype(np.float64)
        query = v["war"] / np.linalg.norm(v["war"])
        np.testing.assert_allclose(scores, table @ query / np.linalg.norm(table, axis=1), atol=2e-6)
        self.assertAlmostEqual(float(scores[v.index("war")]), 1.0, delta=1e-6)  # the query word included, as gensim
        best = sorted(((float(x), i) for i, x in enumerate(scores) if i != v.index("war")), reverse=True)[:5]
        self.assertEqual([w for w, _ in v.most_similar("war", topn=5)], [v.words[i] for _, i in best])
        analogy = dict(positive=["king", "woman"], negative=["man"])
        np.testing.assert_array_equal(v.most_similar(**analogy, topn=None, restrict=300),
                                      v.most_similar(**analogy, topn=None)[:300])
        self.assertEqual(v.most_similar("war", topn=0), [])
        s = v.subset(["war", "peace", "the"])
        np.testing.assert_allclose(s.most_similar("war", topn=None), scores[[v.index(w) for w in s.words]], atol=2e-6)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # gensim 4.2's own deprecation warnings from scipy
                from gensim.models import KeyedVectors
        except ImportError:
            return  # the comparison above stands for it
        kv = KeyedVectors(v.dim)
        kv.add_vectors(list(v.words), table.astype(np.float32))
        np.testing.assert_allclose(scores, kv.most_similar("war", topn=None), atol=2e-6)
        np.testing.assert_allclose(v.most_similar("war", topn=None, restrict_vocab=300),
                                   kv.most_similar("war", topn=None, restrict_vocab=300), atol=2e-6)

    def test_restrict_below_one_is_refused_as_embed_query_refuses_it(self):
        v = embed.open(path("plain.emb"))
        for restrict in (0, -1, -300, 2.5, True):
            with self.subTest(restrict=restrict):
                with self.assertRaises(ValueError) as caught:
                    v.most_similar("war", restrict=restrict)
                self.assertIn(f"restrict={restrict!r} is not an integer of 1 or more", str(caught.exception))
        cli = subprocess.run([EQ, path("plain.emb"), "war", "--restrict", "0"], capture_output=True, text=True)
        self.assertNotEqual(cli.returncode, 0)
        self.assertIn("0 is not an integer of 1 or more", cli.stderr)
        with self.assertRaises(ValueError):
            v.most_similar("war", restrict_vocab=0)
        self.assertEqual(v.most_similar("war", restrict_vocab=300), v.most_similar("war", restrict=300))
        self.assertEqual(len(v.most_similar("war", topn=3, restrict=len(v) + 5)), 3)


class NotebookUse(unittest.TestCase):
    """What a notebook user tries that is not the documented call."""

    def test_paths_and_words_of_other_types(self):
        v = embed.open(pathlib.Path(path("plain.emb")))
        self.assertEqual(v.path, path("plain.emb"))
        np.testing.assert_array_equal(v[["war", "the"]], v.rows(["war", "the"]))  # gensim's kv[[...]]
        self.assertEqual(v.rows("war").shape, (1, v.dim))  # one word, not its letters
        rows, missing = v.indices(w for w in ["war", "qqqzz"])
        self.assertEqual((list(rows), missing), ([v.index("war"), -1], ["qqqzz"]))
        self.assertNotIn(b"war", v)
        for word in (b"war", float("nan"), None):
            with self.subTest(word=word):
                with self.assertRaises(TypeError) as caught:
                    v.rows(["the", word])
                self.assertIn("a word is a str, not", str(caught.exception))
        with builtins_open(path("plain.emb"), "rb") as f, self.assertRaises(TypeError):
            embed.open(f)
        self.assertEqual(v.similarity(w1="war", w2="peace"), v.similarity("war", "peace"))  # gensim's names
        self.assertEqual(v.most_similar(positive=None, negative=["war"], topn=3),
                         v.most_similar(negative="war", topn=3))
        with self.assertRaises(TypeError) as caught:
            v.most_similar("war", 5)
        self.assertIn("negative=5 is a number, not words (the number of answers is topn=)", str(caught.exception))
        self.assertEqual(repr(v), f"<embed.Vectors {path('plain.emb')}: {len(v)} words x {v.dim} f32>")
        self.assertEqual(repr(v.subset(["war", "qqqzz"])), f"<embed.Subset of {path('plain.emb')}: 1 words x {v.dim}, "
                                                            "1 missing>")

    def test_rows_of_a_deleted_or_replaced_file(self):
        def replace(p):  # as the tools write a file: a new one renamed over it
            shutil.copy(path("sub-f16.emb"), p + ".new")
            os.replace(p + ".new", p)

        # Few rows of a file are read with pread: from the file opened, whatever its path names now.
        for name, change in (("deleted.emb", os.remove), ("replaced.emb", replace)):
            with self.subTest(file=name):
                shutil.copy(path("plain.emb"), path(name))
                v = embed.open(path(name))
                expected = embed.open(path("plain.emb")).rows(["war"])
                change(path(name))
                np.testing.assert_array_equal(v.rows(["war"]), expected)
                try:
                    import torch  # noqa: F401
                except ImportError:
                    continue
                np.testing.assert_array_equal(v.to_torch()[v.index("war")].numpy(), expected[0])  # mapped again


builtins_open = open


class Torch(unittest.TestCase):
    def setUp(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skipTest("PyTorch not installed: embed's to_torch and embedding untested here")

    def test_to_torch_and_embedding(self):
        import torch
        for name, dtype in (("sub.emb", torch.float32), ("sub-f16.emb", torch.float16), ("sub-bf16.emb", torch.bfloat16)):
            v = embed.open(path(name))
            whole = v.to_torch()
            self.assertEqual(whole.dtype, dtype)
            self.assertEqual(tuple(whole.shape), (len(v), 24))
            # Every value as stored: widened, the rows glove-convert prints (rows() is checked against them above).
            np.testing.assert_array_equal(whole.float().numpy(), v.rows(list(v.words)))
            whole[0, 0] = 7  # copy-on-write: the file does not change
            self.assertNotEqual(float(embed.open(path(name))["the"][0]), 7.0)
            self.assertNotEqual(float(v.to_torch()[0, 0]), 7.0)
            part = v.to_torch(["war", "日本"])
            self.assertEqual(part.dtype, torch.float32)
            np.testing.assert_array_equal(part.numpy(), v.rows(["war", "日本"]))
            np.testing.assert_array_equal(v.subset(["war", "日本"]).to_torch().numpy(), part.numpy())
            # Words outside the vocabulary: refused by name, or zeros, or (this file has n-gram rows) built from them.
            with self.assertRaises(embed.MissingWords) as refused:
                v.to_torch(["war", "warzzq"])
            self.assertEqual(refused.exception.words, ["warzzq"])
            zeros = v.to_torch(["war", "warzzq"], missing="zeros")
            self.assertEqual(float(zeros[1].abs().sum()), 0.0)
            np.testing.assert_array_equal(v.to_torch(["warzzq"], missing="subwords").numpy()[0], v["warzzq"])

            emb = v.embedding(["war", "日本"])
            self.assertFalse(emb.weight.requires_grad)
            np.testing.assert_array_equal(emb(torch.tensor([1, 0])).numpy(), part.numpy()[[1, 0]])
            # Trainable: float32 weights (bf16 and f16 widened) that a step changes, and the file keeps its values.
            trained = v.embedding(["war", "日本"], freeze=False)
            self.assertTrue(trained.weight.requires_grad)
            self.assertEqual(trained.weight.dtype, torch.float32)
            optimizer = torch.optim.SGD(trained.parameters(), lr=0.5)
            trained(torch.tensor([0])).sum().backward()
            optimizer.step()
            np.testing.assert_allclose(trained.weight.detach().numpy()[0], part.numpy()[0] - 0.5, rtol=1e-6, atol=1e-6)
            np.testing.assert_array_equal(trained.weight.detach().numpy()[1], part.numpy()[1])
            np.testing.assert_array_equal(embed.open(path(name)).rows(["war"])[0], part.numpy()[0])
            # The whole table as an embedding, frozen: the mapped rows themselves.
            self.assertEqual(tuple(v.embedding().weight.shape), (len(v), 24))

    def test_devices(self):
        import torch
        v = embed.open(path("sub.emb"))
        on_cpu = v.to_torch(["war"], device="cpu")
        self.assertEqual(on_cpu.device.type, "cpu")
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device for PyTorch here: device='cuda' untested")
        for name in ("sub.emb", "sub-f16.emb", "sub-bf16.emb"):
            v = embed.open(path(name))
            whole = v.to_torch(device="cuda")
            self.assertEqual(whole.device.type, "cuda")
            np.testing.assert_array_equal(whole.float().cpu().numpy(), v.to_torch().float().numpy())
            emb = v.embedding(["war", "日本"], device="cuda")
            self.assertEqual(emb.weight.device.type, "cuda")
            np.testing.assert_array_equal(emb(torch.tensor([1], device="cuda")).cpu().numpy()[0], v.rows(["日本"])[0])


def rewrite_header(good, change):
    """An .emb's bytes with `change` applied to its parsed header (the tensors' bytes as they were)."""
    n = int.from_bytes(good[:8], "little")
    header = json.loads(good[8:8 + n])
    change(header)
    text = json.dumps(header).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    return len(text).to_bytes(8, "little") + text + good[8 + n:]


# Compressed files (format version 2): from the trained vectors (24 dims, n-gram rows) and
# from the bundled GloVe sample (50 dims); pq's M divides the dimensions. sample-opq.emb is
# optimized PQ (--opq): pq storage, its codes of the rows turned by a "pq.rotation" R.
COMPRESSED = {"sub-int8.emb": ("sub.emb", "--dtype", "int8"), "sub-pq.emb": ("sub.emb", "--pq", "8"),
              "sample-int8.emb": ("sample.emb", "--dtype", "int8"), "sample-pq.emb": ("sample.emb", "--pq", "10"),
              "sample-opq.emb": ("sample.emb", "--pq", "10", "--opq")}
# Scores as embed-query prints them: pq's are exact for the decoding (no query quantized); int8's
# query may be quantized to int8 too (a CPU with AVX-512 VNNI), which moves a score by up to ~1e-2.
SCORE_DELTA = {"int8": 1e-2, "pq": 1e-4}
# An OPQ row is decoded with a matrix product (times Rᵀ): glove-convert's float32 SGEMM and
# the package's (float64, rounded) differ in the last bits, so OPQ rows are compared within
# these bounds, every other decoding bit for bit (or to the printed decimal).
OPQ_RTOL, OPQ_ATOL = 1e-5, 1e-6


def storage_of(name):
    """The storage a COMPRESSED file's name says: int8 or pq (opq: pq storage with a rotation)."""
    storage = name.split("-")[1].split(".")[0]
    return "pq" if storage == "opq" else storage


class Compressed(SameAnswers, unittest.TestCase):
    """int8 and pq rows (glove-convert --dtype int8, --pq M): decoded as glove-convert decodes
    them, searched as embed-query searches them, never decoded whole for a search; hostile
    headers raise EmbError."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(path("sample.emb")):
            run(GC, "-q", os.path.join(REPO, "data", "text8-sample.txt.gz"), "-o", path("sample.emb"))
        for name, (source, *flags) in COMPRESSED.items():
            if not os.path.exists(path(name)):
                run(GC, "-q", path(source), "-o", path(name), *flags)

    def test_rows_equal_glove_converts_decoding(self):
        for name in COMPRESSED:
            with self.subTest(file=name):
                v = embed.open(path(name))
                storage = storage_of(name)
                self.assertEqual((v.storage, v.dtype, v.metadata["format_version"]), (storage, storage, "2"))
                self.assertEqual(embed.open(path(name.split("-")[0] + ".emb")).storage, "dense")
                rows = text_rows(path(name))
                self.assertEqual(list(v.words), list(rows))
                theirs = np.stack(list(rows.values()))
                opq = "opq" in name
                np.testing.assert_allclose(v.rows(list(rows)), theirs, rtol=OPQ_RTOL if opq else 1e-5,
                                           atol=OPQ_ATOL if opq else 1e-7)
                whole = v[:]  # every row decoded
                self.assertEqual((whole.dtype, whole.shape), (np.float32, (len(v), v.dim)))
                np.testing.assert_array_equal(whole, v.rows(list(rows)))
                # A few rows (read with pread), one row, a slice, a word: each the same decoding.
                few = ["the", "war", list(rows)[-1], "three"]
                np.testing.assert_array_equal(v.rows(few), whole[[v.index(w) for w in few]])
                np.testing.assert_array_equal(v["war"], whole[v.index("war")])
                np.testing.assert_array_equal(v[-1], whole[-1])
                np.testing.assert_array_equal(v[10:20], whole[10:20])
                np.testing.assert_array_equal(v[30:5:-7], whole[30:5:-7])
                s = v.subset(["war", "qqqzz", "the"])
                self.assertEqual((s.words, s.missing), (["war", "the"], ["qqqzz"]))
                np.testing.assert_array_equal(s.vectors, v.rows(["war", "the"]))
                # norms: the decoding's own lengths (the file holds the originals' exact ones).
                np.testing.assert_allclose(np.linalg.norm(whole, axis=1), v._norms(), rtol=1e-5)
                with self.assertRaises(embed.EmbError) as caught:
                    v.vectors
                said = str(caught.exception)
                self.assertIn(f"{path(name)}: v.vectors: the rows are stored {storage}-compressed", said)
                self.assertIn("v.rows(words)", said)
                self.assertEqual(repr(v), f"<embed.Vectors {path(name)}: {len(v)} words x {v.dim} {storage}>")

    def test_neighbours_as_embed_query(self):
        for name in COMPRESSED:
            v = embed.open(path(name))
            delta = SCORE_DELTA[v.storage]
            words = [w for w in QUERIES + ["three", "one"] if w in v] + (OOV if v.has_subwords else [])
            for answer in query_json(path(name), words, "-k", "5"):
                with self.subTest(file=name, word=answer["query"]):
                    mine = v.most_similar(answer["query"], topn=5)
                    self.same(mine, answer["results"], f"{name}: {answer['query']}", delta=delta)
                    # Each word embed-query names has that score here too.
                    scores = v.most_similar(answer["query"], topn=None)
                    for r in answer["results"]:
                        self.assertAlmostEqual(float(scores[v.index(r["word"])]), r["score"], delta=delta)
            analogy = query_json(path(name), [], "--analogy", "king - man + woman", "-k", "5")[0]
            self.same(v.most_similar(positive=["king", "woman"], negative=["man"], topn=5), analogy["results"],
                      f"{name}: analogy", delta=delta)
            similar = query_json(path(name), [], "--similarity", "king", "queen")[0]
            self.assertAlmostEqual(v.similarity("king", "queen"), similar["score"], delta=delta)

    def test_opq_rows_are_turned_back(self):
        # The file holds R, and R matters: without Rᵀ the rows would be far from glove-convert's decoding.
        v, plain = embed.open(path("sample-opq.emb")), embed.open(path("sample-pq.emb"))
        self.assertEqual((v.storage, v.dtype), ("pq", "pq"))
        self.assertIn("pq.opq_rounds", v.metadata)
        self.assertEqual((v._c.dtypes["pq.rotation"], v._c.tensors["pq.rotation"].shape), ("F32", (50, 50)))
        self.assertNotIn("pq.rotation", plain._c.tensors)
        rows = text_rows(path("sample-opq.emb"))
        theirs = np.stack(list(rows.values()))
        np.testing.assert_allclose(v[:], theirs, rtol=OPQ_RTOL, atol=OPQ_ATOL)
        books, codes = v._c.tensors["pq.codebooks"], v._c.tensors["pq.codes"]
        unturned = books[np.arange(books.shape[0]), codes].reshape(len(v), v.dim) * v._c.tensors["pq.scale"][:, None]
        self.assertGreater(np.abs(unturned - theirs).max(), 0.1)
        # embed-query's neighbours (its tsv: query, rank, word, score), the query turned as it turns it.
        for word in ("three", "war", "king", "philosophy"):
            with self.subTest(word=word):
                lines = run(EQ, path("sample-opq.emb"), word, "-k", "5", "--format", "tsv").splitlines()
                theirs = [{"word": f[2], "score": float(f[3])} for f in (line.split("\t") for line in lines)]
                self.assertEqual([f.split("\t")[:2] for f in lines], [[word, str(r)] for r in range(1, 6)])
                self.same(v.most_similar(word, topn=5), theirs, f"sample-opq.emb: {word}", delta=SCORE_DELTA["pq"])

    def test_a_search_decodes_no_row_but_the_query(self):
        for name in ("sub-pq.emb", "sample-int8.emb", "sample-opq.emb"):
            with self.subTest(file=name):
                v = embed.open(path(name))
                whole = v[:].astype(np.float64)
                query = v["war"]

                def decoded_whole(*_):
                    raise AssertionError("the search decoded the table")

                v._chunk_f32 = decoded_whole
                scores = v.most_similar("war", topn=None)
                unit = query / np.linalg.norm(query)
                np.testing.assert_allclose(scores, whole @ unit / np.linalg.norm(whole, axis=1), atol=1e-5)
                self.assertEqual(len(v.most_similar("war", topn=5, restrict=100)), 5)

    def test_hostile_headers(self):
        def broken(source, name, change, said):
            with open(path(source), "rb") as f:
                good = f.read()
            p = path(name)
            with open(p, "wb") as f:
                f.write(rewrite_header(good, change))
            with self.assertRaises(embed.EmbError) as caught:
                embed.open(p)
            message = str(caught.exception)
            self.assertTrue(message.startswith(f"{p}: "), message)
            self.assertNotIn("\n", message)
            self.assertIn(said, message)

        def meta(**values):
            return lambda h: h["__metadata__"].update(values)

        def rename(old, new):
            return lambda h: h.update({new: h.pop(old)})

        broken("sample-pq.emb", "storage.emb", meta(storage="zstd"), "storage is 'zstd'")
        broken("sample-int8.emb", "v1.emb", meta(format_version="1"), "int8 rows need format_version 2")
        broken("sample-pq.emb", "v3.emb", meta(format_version="3"), "format_version 3 is newer")
        broken("sample-pq.emb", "m7.emb", meta(**{"pq.m": "7"}), "pq.m = 7 does not divide dim 50")
        broken("sample-pq.emb", "m0.emb", meta(**{"pq.m": "0"}), "pq.m = 0 does not divide dim 50")
        broken("sample-pq.emb", "m5.emb", meta(**{"pq.m": "5"}), 'tensor "pq.codes" is U8 [2000, 10], expected U8 '
                                                                 "[2000, 5]")
        broken("sample-pq.emb", "mx.emb", meta(**{"pq.m": "ten"}), "pq.m = 'ten' is not a number")
        broken("sample-pq.emb", "dtype.emb", meta(dtype="f32"), "dtype = 'f32', expected 'pq'")
        broken("sample-int8.emb", "dim.emb", meta(dim="49"), 'tensor "int8.values" is I8 [2000, 50]')
        broken("sample-int8.emb", "norms.emb", rename("norms", "old.norms"), 'missing the "norms" tensor')
        broken("sample-int8.emb", "scale.emb", rename("int8.scale", "old.scale"), 'tensor "int8.scale" is missing')
        broken("sample-pq.emb", "books.emb", rename("pq.codebooks", "old.books"), 'tensor "pq.codebooks" is missing')
        broken("sample-int8.emb", "values.emb", lambda h: h["int8.values"].update(dtype="U8"),
               'tensor "int8.values" is U8 [2000, 50], expected I8')
        # A dense file that says it holds compressed rows, and a compressed one that says dense.
        broken("sample.emb", "says-pq.emb", meta(storage="pq", format_version="2", dtype="pq", **{"pq.m": "10"}),
               'tensor "pq.codes" is missing')
        broken("sample-int8.emb", "says-dense.emb", meta(storage="dense"), 'no 2-D F32, F16 or BF16 tensor "vectors"')
        # OPQ's rotation: F32 [dim, dim] or refused (the same bytes, another shape or dtype).
        broken("sample-opq.emb", "rotation-shape.emb", lambda h: h["pq.rotation"].update(shape=[25, 100]),
               'tensor "pq.rotation" is F32 [25, 100], expected F32 [50, 50]')
        broken("sample-opq.emb", "rotation-dtype.emb", lambda h: h["pq.rotation"].update(dtype="U32"),
               'tensor "pq.rotation" is U32 [50, 50], expected F32 [50, 50]')
        # A NaN among the centroids, and one in the rotation.
        for source, tensor in (("sample-pq.emb", "pq.codebooks"), ("sample-opq.emb", "pq.rotation")):
            with open(path(source), "rb") as f:
                data = bytearray(f.read())
            n = int.from_bytes(data[:8], "little")
            at = 8 + n + json.loads(data[8:8 + n])[tensor]["data_offsets"][0] + 4 * 17
            data[at:at + 4] = np.array([np.nan], dtype="<f4").tobytes()
            p = path(f"nan-{tensor}.emb")
            with open(p, "wb") as f:
                f.write(data)
            with self.assertRaises(embed.EmbError) as caught:
                embed.open(p)
            self.assertEqual(str(caught.exception), f'{p}: tensor "{tensor}" holds a value that is not finite')

    def test_without_torch_embed_still_imports(self):
        # QuantizedEmbedding is made on first use: without PyTorch, only it is refused, with how to install it.
        script = ("import sys; sys.modules['torch'] = None; import embed\n"
                  "v = embed.open(sys.argv[1]); print(v.most_similar('war', topn=1)[0][0])\n"
                  "try:\n    embed.QuantizedEmbedding\nexcept ImportError as e:\n    print(e)\n")
        done = subprocess.run([sys.executable, "-B", "-c", script, path("sample-pq.emb")], capture_output=True,
                              text=True, env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines()[1], "embed: PyTorch is not installed (pip install torch, or Debian's "
                                                      "python3-torch)")


class CompressedTorch(unittest.TestCase):
    def setUp(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            self.skipTest("PyTorch not installed: compressed rows' to_torch and QuantizedEmbedding untested here")
        Compressed.setUpClass()

    def test_to_torch_and_embedding_decode(self):
        import torch
        for name in COMPRESSED:
            with self.subTest(file=name):
                v = embed.open(path(name))
                whole = v.to_torch()
                self.assertEqual((whole.dtype, tuple(whole.shape)), (torch.float32, (len(v), v.dim)))
                np.testing.assert_array_equal(whole.numpy(), v[:])
                part = v.to_torch(["war", "the"])
                np.testing.assert_array_equal(part.numpy(), v.rows(["war", "the"]))
                emb = v.embedding(["war", "the"])
                np.testing.assert_array_equal(emb(torch.tensor([1, 0])).numpy(), part.numpy()[[1, 0]])

    def test_quantized_embedding(self):
        import torch
        for name in COMPRESSED:
            with self.subTest(file=name):
                v = embed.open(path(name))
                q = embed.QuantizedEmbedding(v)
                self.assertIsInstance(q, torch.nn.Module)
                self.assertEqual(list(q.parameters()), [])
                self.assertEqual((q.num_embeddings, q.embedding_dim), (len(v), v.dim))
                stored = q.values if v.storage == "int8" else q.codes
                self.assertEqual(stored.dtype, torch.int8 if v.storage == "int8" else torch.uint8)
                indices = torch.tensor([[0, 5, len(v) - 1], [v.index("war"), 3, 3]])
                out = q(indices)
                self.assertEqual((out.dtype, tuple(out.shape)), (torch.float32, (2, 3, v.dim)))
                # OPQ: forward's float32 product on the device, the file's decoding's in float64 (rounded).
                opq = "opq" in name
                equal = functools.partial(np.testing.assert_allclose, rtol=OPQ_RTOL, atol=OPQ_ATOL) if opq else \
                    np.testing.assert_array_equal
                equal(out.numpy(), v.to_torch()[indices].numpy())
                # Only some words, row i words[i]; an absent word a zero row, or refused by name.
                some = v.quantized_embedding(["war", "qqqzz", "the"], missing="zeros", device="cpu")
                self.assertEqual(some.num_embeddings, 3)
                got = some(torch.tensor([2, 0, 1]))
                equal(got[:2].numpy(), v.to_torch(["the", "war"]).numpy())
                self.assertEqual(float(got[2].abs().sum()), 0.0)
                with self.assertRaises(embed.MissingWords) as refused:
                    v.quantized_embedding(["war", "qqqzz"])
                self.assertEqual(refused.exception.words, ["qqqzz"])
                self.assertEqual(sorted(q.state_dict()), ["scale", "values"] if v.storage == "int8" else
                                 ["codebooks", "codes", "rotation", "scale"] if opq else
                                 ["codebooks", "codes", "scale"])
                if opq:
                    np.testing.assert_array_equal(q.rotation.numpy(), v._c.tensors["pq.rotation"])
                    self.assertIn("opq", repr(q))
                if torch.cuda.is_available():
                    on_gpu = q.to("cuda")
                    self.assertEqual(on_gpu.scale.device.type, "cuda")
                    if opq:
                        self.assertEqual(on_gpu.rotation.device.type, "cuda")
                    equal(on_gpu(indices.cuda()).cpu().numpy(), out.numpy())
        with self.assertRaises(embed.EmbError) as caught:
            embed.QuantizedEmbedding(embed.open(path("sample.emb")))
        self.assertIn("holds dense f32 rows", str(caught.exception))


def documented_commands(section="Install"):
    """The lines of the ```sh blocks of docs/python.md's `section`, in order (None without the page)."""
    doc = os.path.join(REPO, "docs", "python.md")
    if not os.path.exists(doc):
        return None
    with open(doc, encoding="utf-8") as f:
        text = f.read().split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.S) for line in block.splitlines()
            if line.strip()]


def tree(folder):
    """Every folder and file under `folder`, with sizes."""
    out = []
    for where, folders, files in os.walk(folder):
        out += [os.path.relpath(os.path.join(where, d), folder) + "/" for d in folders]
        out += [(os.path.relpath(os.path.join(where, f), folder), os.path.getsize(os.path.join(where, f)))
                for f in files]
    return sorted(out, key=str)


def fresh_venv(test, name):
    """A virtual environment of this Python that sees the system's packages, or skips `test`."""
    venv = path(name)
    # Without its own pip where the system's imports (Debian's python3-pip): `python -m pip` then
    # installs into the environment all the same, and the 3.6 s of ensurepip are saved.
    system_pip = subprocess.run([sys.executable, "-c", "import pip"], capture_output=True).returncode == 0
    try:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages"] + (["--without-pip"] if system_pip else [])
                       + [venv], check=True, capture_output=True)
    except subprocess.CalledProcessError as e:
        test.skipTest(f"no venv module (Debian's python3-venv): {e.stderr.decode()[-200:]}")
    # A Python that is itself a virtual environment (the GPU machines' /opt/torch/.venv)
    # lends the new one the system's packages, not its own numpy.
    if subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import numpy"], capture_output=True).returncode:
        test.skipTest("no numpy in a fresh virtual environment with the system's packages: pip offline needs it")
    return venv


def offline_env(**extra):
    """The environment for pip: no network (PIP_NO_INDEX), and a python3 and pip first on PATH that
    fail, as where the first python3 is not Debian's (a pyenv without numpy)."""
    fake = path("wrong-python")
    os.makedirs(fake, exist_ok=True)
    for name in ("python3", "python", "pip", "pip3"):
        with open(os.path.join(fake, name), "w") as f:
            f.write("#!/bin/sh\necho \"$0: not Debian's Python (the docs name /usr/bin/python3)\" >&2\nexit 1\n")
        os.chmod(os.path.join(fake, name), 0o755)
    # No byte code either (as this file's own imports): a Python that imports from python/
    # writes __pycache__ there (ignored by git), and python/ is compared file by file.
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1",
               PATH=fake + os.pathsep + os.environ["PATH"])
    env.update(extra)
    return env


def imported_from(python):
    """Where `python` imports embed from, and the rows it reads of plain.emb."""
    script = "import embed, sys; print(embed.__file__); print(len(embed.open(sys.argv[1])))"
    out = subprocess.run([python, "-c", script, path("plain.emb")], check=True, capture_output=True, text=True,
                         cwd=WORK).stdout.split()
    return out[0], int(out[1])


class Install(unittest.TestCase):
    """docs/python.md's Install commands, as written, from the repository's python/ (not a copy)."""

    def test_the_documented_commands(self):
        commands = documented_commands()
        if commands is None:
            self.skipTest("no docs/python.md here (the device kit): the documented install untested")
        apt = [c for c in commands if c.startswith("sudo apt-get install ")]
        self.assertEqual(len(apt), 1, commands)
        packages = apt[0].split()[3:]
        self.assertEqual(sorted(p for p in packages if not p.startswith("-")), ["python3-numpy", "python3-venv"])
        for package in packages:
            status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True) \
                if shutil.which("dpkg-query") else None
            if status is None or status.stdout != "install ok installed":
                self.skipTest(f"{package} is not installed here: the documented install untested")
        home = path("home")
        os.makedirs(home, exist_ok=True)
        source = os.path.join(REPO, "python")
        before = tree(source)
        script = "set -ex\n" + "\n".join(c for c in commands if c not in apt)
        done = subprocess.run(["bash", "-c", script], cwd=REPO, env=offline_env(HOME=home), capture_output=True,
                              text=True)
        self.assertEqual(done.returncode, 0, f"the documented commands failed:\n{done.stderr[-3000:]}")
        self.assertEqual(done.stdout.splitlines().count(embed.__version__), 2, f"two version checks:\n{done.stdout}")
        self.assertEqual(tree(source), before, "the install left files in python/")
        venv = re.search(r"(\S+)/bin/pip install \./python$", script, re.M).group(1).replace("~", home, 1)
        where, rows = imported_from(os.path.join(venv, "bin", "python"))
        self.assertTrue(where.startswith(os.path.join(venv, "lib")), where)
        self.assertEqual(rows, len(embed.open(path("plain.emb"))))

    def test_editable_and_sdist(self):
        venv = fresh_venv(self, "venv-editable")
        pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q"]
        source = os.path.join(REPO, "python")
        before = tree(source)
        env = offline_env()
        done = subprocess.run(pip + ["-e", "./python"], cwd=REPO, env=env, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, f"pip install -e failed: {done.stderr[-1500:]}")
        self.assertEqual(imported_from(os.path.join(venv, "bin", "python"))[0],
                         os.path.join(source, "embed", "__init__.py"))
        # The sdist: pip builds it again from its own files (embed_build.py among them).
        sdist = path("sdist")
        os.makedirs(sdist, exist_ok=True)
        script = "import embed_build, sys; print(embed_build.build_sdist(sys.argv[1]))"
        made = subprocess.run([sys.executable, "-B", "-c", script, sdist], cwd=source, env=env, capture_output=True,
                              text=True)
        self.assertEqual(made.returncode, 0, made.stderr[-1500:])
        done = subprocess.run(pip + [os.path.join(sdist, made.stdout.strip())], cwd=WORK, env=env, capture_output=True,
                              text=True)
        self.assertEqual(done.returncode, 0, f"pip install of the sdist failed: {done.stderr[-1500:]}")
        where, rows = imported_from(os.path.join(venv, "bin", "python"))
        self.assertTrue(where.startswith(os.path.join(venv, "lib")), where)
        self.assertEqual(tree(source), before, "the installs left files in python/")

    def test_without_numpy_the_import_says_what_to_do(self):
        # A Python without numpy first on PATH (here, a pyenv): PYTHONPATH=python python3 ...
        bare = path("venv-bare")
        if subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], capture_output=True).returncode:
            self.skipTest("no venv module (Debian's python3-venv)")
        python = os.path.join(bare, "bin", "python")
        if subprocess.run([python, "-c", "import numpy"], capture_output=True).returncode == 0:
            self.skipTest("this Python's venvs see a numpy")
        done = subprocess.run([python, "-B", "-c", "import embed"], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=os.path.join(REPO, "python")))
        self.assertIn(f"embed needs numpy, which {python} lacks", done.stderr)
        self.assertIn("/usr/bin/python3", done.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ET, EQ, GC = (os.path.abspath(p) for p in sys.argv[1:4])
    # EMBED_TEST_FAIL_FAST=1 (tests/broken/check_suites_catch_breakage.sh): the first failure
    # ends the run, as it ends the shell suites (tests/cli/lib.sh).
    fail_fast = ["-f"] if os.environ.get("EMBED_TEST_FAIL_FAST") == "1" else []
    unittest.main(argv=[sys.argv[0], "-v"] + fail_fast + sys.argv[4:])
