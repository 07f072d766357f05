#!/usr/bin/python3
"""Tests of the Python package (python/embed) against the C++ tools, on vectors trained
here from the bundled corpus: every word's lookup through the file's index is
embed-query's row, values equal glove-convert's for every dtype, neighbours, analogies,
similarities and words outside the vocabulary equal embed-query's answers; hostile files
raise embed.EmbError; the package installs with pip into a fresh virtual environment
without the network. PyTorch parts skip with a message where it is not installed.

Usage: test_embed_package.py EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (from the repository root)
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

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


class Answers(unittest.TestCase):
    """most_similar, analogies, similarity and OOV words as embed-query answers them."""

    def same(self, mine, theirs, what):
        """The same scores rank by rank (embed-query prints 6 decimals), and the same words,
        but that words whose scores tie to that precision may come in either order."""
        self.assertEqual(len(mine), len(theirs), what)
        for (_, a), r in zip(mine, theirs):
            self.assertAlmostEqual(a, r["score"], delta=2e-6, msg=what)
        last = theirs[-1]["score"] if theirs else 0
        for (w, a), r in zip(mine, theirs):
            if w != r["word"]:
                tied = [x["word"] for x in theirs if abs(x["score"] - a) <= 2e-6]
                self.assertTrue(w in tied or abs(a - last) <= 2e-6, f"{what}: {w} ({a}) against {r}")

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
        self.broken("version.emb", rewritten(lambda h: h["__metadata__"].update(format_version="2")))
        self.broken("format.emb", rewritten(lambda h: h["__metadata__"].update(format="other")))
        self.assertIn("vocab.offsets", self.broken("offsets.emb", rewritten(
            lambda h: h["vocab.offsets"].update(dtype="U8", shape=[8 * (rows + 1)]))))
        # A key given twice in the header.
        text = good[8:8 + n].replace(b'{"__metadata__"', b'{"dim":1,"dim":2,"__metadata__"', 1)
        self.assertIn("twice", self.broken("twice.emb", len(text).to_bytes(8, "little") + text + good[8 + n:]))


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


class Install(unittest.TestCase):
    def test_pip_installs_without_the_network(self):
        venv = path("venv")
        try:
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True, capture_output=True)
        except subprocess.CalledProcessError as e:
            self.skipTest(f"no venv module (Debian's python3-venv): {e.stderr.decode()[-200:]}")
        python = os.path.join(venv, "bin", "python")
        if subprocess.run([python, "-c", "import setuptools"], capture_output=True).returncode != 0:
            self.skipTest("no setuptools in a fresh virtual environment: an offline build needs it")
        # A Python that is itself a virtual environment (the GPU machines' /opt/torch/.venv)
        # lends the new one the system's packages, not its own numpy.
        if subprocess.run([python, "-c", "import numpy"], capture_output=True).returncode != 0:
            self.skipTest("no numpy in a fresh virtual environment with the system's packages: pip offline needs it")
        # From a copy: setuptools builds in the source folder (build/, *.egg-info).
        source = path("python-source")
        shutil.copytree(os.path.join(REPO, "python"), source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--no-index", "--no-build-isolation", "-q", source]
        installed = subprocess.run(pip, capture_output=True, text=True, cwd=WORK)
        self.assertEqual(installed.returncode, 0, f"pip install failed: {installed.stderr[-1500:]}")
        where = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import embed, sys; print(embed.__file__); "
                                "print(len(embed.open(sys.argv[1])))", path("plain.emb")], check=True,
                               capture_output=True, text=True, cwd=WORK).stdout.split()
        self.assertTrue(where[0].startswith(venv), where)
        self.assertEqual(int(where[1]), len(embed.open(path("plain.emb"))))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ET, EQ, GC = (os.path.abspath(p) for p in sys.argv[1:4])
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[4:])
