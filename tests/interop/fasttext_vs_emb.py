"""Checks glove-convert's reading of a fastText model (.bin) against the fastText CLI.

Usage: fasttext_vs_emb.py MODEL.bin PLAIN.emb SUBWORDS.emb WORDS.txt EMBED_QUERY

- every word of WORDS.txt: the .emb's row (in the vocabulary) or, for SUBWORDS.emb, the
  average of its n-grams' bucket rows, computed by the Python package (python/embed,
  docs/FORMAT.md's rules) outside it, equals gensim's load_facebook_vectors to 1e-5 (max abs difference) and
  `fasttext print-word-vectors` to the 5 significant digits it prints;
- every vocabulary word of the model (from `fasttext dump MODEL.bin dict`) is in the .emb,
  in the same order, with its count;
- `fasttext nn` and `embed-query` give the same top 10 for each word of WORDS.txt (OOV
  words through the subword .emb), allowing two neighbours to swap only where fastText's
  scores for them differ by less than 1e-5 (it prints 6 significant digits).
Exit status 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys

import numpy as np
from gensim.models.fasttext import load_facebook_vectors

from read_emb import lookup, read_emb

# The Python package's n-grams and hash (docs/FORMAT.md's rules), checked here against fastText.
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from embed._subwords import ngram_buckets  # noqa: E402

MODEL, PLAIN, SUBWORDS, WORDS, EMBED_QUERY = sys.argv[1:6]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


words = [w for w in open(WORDS, encoding="utf-8").read().split("\n") if w]
printed = subprocess.run(["fasttext", "print-word-vectors", MODEL], input="\n".join(words) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
fasttext_vectors = {}
for line in printed:
    fields = line.rstrip().split(" ")
    fasttext_vectors[fields[0]] = np.array([float(x) for x in fields[1:]], dtype=np.float64)

plain_words, plain_vectors, plain_meta, plain_tensors = read_emb(PLAIN)
sub_words, sub_vectors, meta, tensors = read_emb(SUBWORDS)
check("subwords.buckets" not in plain_tensors, "the .emb made without --subwords has a subwords tensor")
check(plain_words == sub_words and np.array_equal(plain_vectors, sub_vectors), "--subwords changed the word vectors")
minn, maxn, buckets = int(meta["subwords.minn"]), int(meta["subwords.maxn"]), int(meta["subwords.bucket_count"])
check(meta["subwords.hash"] == "fasttext-fnv1a-int8", "subwords.hash")
table = tensors["subwords.buckets"].astype(np.float32)

# The vocabulary, its order and counts, as fastText lists them.
dump = subprocess.run(["fasttext", "dump", MODEL, "dict"], capture_output=True, text=True, check=True).stdout.splitlines()
entries = [line.rsplit(" ", 2) for line in dump[1:]]
check([e[0] for e in entries if e[2] == "word"] == sub_words, "the .emb's words are not the model's, in its order")
check([int(e[1]) for e in entries if e[2] == "word"] == list(tensors["counts"]), "the counts differ from the model's")

gensim_vectors = load_facebook_vectors(MODEL)
oov_words = []
worst = worst_printed = 0.0
for word in words:
    printed_vector = fasttext_vectors[word]
    row = lookup(tensors, word)
    if row is not None:
        got = sub_vectors[row].astype(np.float64)
        check(lookup(plain_tensors, word) == row, f"{word}: not at the same row without --subwords")
    else:
        oov_words.append(word)
        hashes = ngram_buckets(word, minn, maxn, buckets)
        got = np.zeros(table.shape[1], dtype=np.float32)
        for h in hashes:
            got += table[h]
        if hashes:
            got *= np.float32(1.0 / len(hashes))
        got = got.astype(np.float64)
    if word != "</s>":  # gensim gives fastText's end-of-sentence token n-grams; fastText does not
        difference = float(np.max(np.abs(got - gensim_vectors[word].astype(np.float64))))
        worst = max(worst, difference)
        check(difference < 1e-5, f"{word}: max |emb - gensim| = {difference}")
    # print-word-vectors writes 5 significant digits: half a unit of the 5th is its error.
    allowed = 0.5 * 10.0 ** (np.floor(np.log10(np.maximum(np.abs(printed_vector), 1e-30))) - 4) + 1e-7
    excess = float(np.max(np.abs(got - printed_vector) - allowed))
    worst_printed = max(worst_printed, float(np.max(np.abs(got - printed_vector))))
    check(excess <= 0, f"{word}: differs from print-word-vectors beyond its 5 printed digits")
print(f"vectors: {len(words)} words ({len(oov_words)} outside the vocabulary): max abs difference {worst:.2e} to "
      f"gensim, {worst_printed:.2e} to print-word-vectors (5 significant digits)")
check(len(oov_words) >= 3, "the word list should hold words outside the vocabulary")


def same_top(ours, theirs):
    """Equal lists, except where a place holds another word whose score is within 1e-5 of
    fastText's score there (a near-tie that float rounding may order either way)."""
    their_scores, our_scores = dict(theirs), dict(ours)
    for (mine, _), (their_word, their_score) in zip(ours, theirs):
        if mine == their_word:
            continue
        score = their_scores.get(mine, our_scores[mine])
        if abs(score - their_score) >= 1e-5:
            return False
    return len(ours) == len(theirs)


nn_words = [w for w in words if w != "</s>"]
nn_out = subprocess.run(["fasttext", "nn", MODEL, "10"], input="\n".join(nn_words) + "\n", capture_output=True,
                        text=True, check=True).stdout
blocks = [b for b in nn_out.split("Query word? ") if b.strip()]
ran = subprocess.run([EMBED_QUERY, SUBWORDS, "--format", "json", "-k", "10", "--threads", "1"] + nn_words,
                     capture_output=True, text=True)
check(ran.returncode == 0, f"embed-query exit {ran.returncode}: {ran.stderr[-300:]}")
ours = ran.stdout.splitlines()
check(len(blocks) == len(nn_words) and len(ours) == len(nn_words), "fasttext nn / embed-query answer counts")
compared = 0
for word, block, line in zip(nn_words, blocks, ours):
    theirs = [(l.rsplit(" ", 1)[0], float(l.rsplit(" ", 1)[1])) for l in block.strip().splitlines()]
    answer = json.loads(line)
    mine = [(r["word"], r["score"]) for r in answer["results"]]
    check(answer.get("oov", False) == (word in oov_words), f"{word}: embed-query's oov field")
    check(len(mine) == 10 and len(theirs) == 10, f"{word}: 10 neighbours each")
    check(same_top(mine, theirs), f"{word}: embed-query {[w for w, _ in mine]} != fasttext nn {[w for w, _ in theirs]}")
    compared += 1
print(f"nn: {compared} words' top 10 compared with fasttext nn")
sys.exit(1 if failures else 0)
