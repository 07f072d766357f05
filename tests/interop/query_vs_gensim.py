#!/usr/bin/python3
"""embed-query against gensim 4 on the same vectors (the bundled data/text8-sample.txt.gz).

Checks, for many words and expressions, that embed-query's neighbours and scores are
gensim's: most_similar (single words and 3CosAdd expressions), most_similar_cosmul (3CosMul),
similarity, and restrict_vocab; and that `embed-query eval` prints the numbers of
evaluate_word_analogies / evaluate_word_pairs (restricted and not). Every embed-query run must
exit 0 and answer each query once: a crash or a missing answer is a failure, never a shorter
comparison.

Usage: query_vs_gensim.py EMBED_QUERY REPO_ROOT. Exit 0 pass, 1 fail.
"""
import json
import subprocess
import sys

from gensim.models import KeyedVectors

EMBED_QUERY, REPO = sys.argv[1], sys.argv[2]
VECTORS = f"{REPO}/data/text8-sample.txt.gz"
SCORE_TOLERANCE = 2e-5
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def run_json(args, stdin_text, queries, what):
    """embed-query's JSON answers to QUERIES (one per line of STDIN_TEXT), or None, recorded as a
    failure, where it exits non-zero or its answers are not one per query (zip would otherwise
    compare a short list quietly)."""
    out = subprocess.run([EMBED_QUERY, VECTORS, "--format", "json", "-q", *args], input=stdin_text,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        failures.append(f"{what}: embed-query exit {out.returncode}: {out.stderr[-300:]}")
        return None
    try:
        answers = [json.loads(line) for line in out.stdout.splitlines()]
    except json.JSONDecodeError as e:
        failures.append(f"{what}: output is not JSON lines ({e})")
        return None
    if len(answers) != len(queries):
        failures.append(f"{what}: {len(answers)} answers to {len(queries)} queries")
        return None
    return answers


def answered(queries, answers):
    """Each query with its answer (none where run_json failed, having said so)."""
    return zip(queries, answers, strict=True) if answers is not None else ()


def same_ranking(ours, theirs, what):
    """Same words in the same order, except where gensim's scores tie within float32 noise."""
    if len(ours) != len(theirs):
        failures.append(f"{what}: {len(ours)} answers, gensim {len(theirs)}")
        return
    for rank, ((word, score), (gword, gscore)) in enumerate(zip(ours, theirs)):
        check(abs(score - gscore) <= SCORE_TOLERANCE, f"{what}: rank {rank + 1} score {score} vs gensim {gscore}")
        if word != gword:
            tied = [w for w, s in theirs if abs(s - score) <= SCORE_TOLERANCE]
            check(word in tied, f"{what}: rank {rank + 1} is {word}, gensim {gword} ({gscore})")


kv = KeyedVectors.load_word2vec_format(VECTORS, binary=False, no_header=True)
words = kv.index_to_key

# Neighbours of 200 words in one batch from stdin, k = 10.
queries = words[::10]
answers = run_json([], "\n".join(queries) + "\n", queries, "neighbours")
for q, a in answered(queries, answers):
    same_ranking([(r["word"], r["score"]) for r in a["results"]], kv.most_similar(q, topn=10), f"neighbours of {q}")

# Expressions, 3CosAdd and 3CosMul, plus restrict_vocab.
expressions = [(words[i], words[i + 1], words[i + 2]) for i in range(0, 300, 7)]
lines = "".join(f"{a} - {b} + {c}\n" for a, b, c in expressions)
for method, gensim_fn in (("3cosadd", kv.most_similar), ("3cosmul", kv.most_similar_cosmul)):
    answers = run_json(["--method", method, "-k", "5"], lines, expressions, method)
    for (a, b, c), answer in answered(expressions, answers):
        theirs = gensim_fn(positive=[a, c], negative=[b], topn=5)
        same_ranking([(r["word"], r["score"]) for r in answer["results"]], theirs, f"{method} {a} - {b} + {c}")
answers = run_json(["--restrict", "300", "-k", "5"], "\n".join(words[:50]) + "\n", words[:50], "--restrict 300")
for q, a in answered(words[:50], answers):
    same_ranking([(r["word"], r["score"]) for r in a["results"]], kv.most_similar(q, topn=5, restrict_vocab=300),
                 f"restricted neighbours of {q}")

# Similarities.
pairs = [(words[i], words[i * 3 + 1]) for i in range(100)]
answers = run_json([], "".join(f"{a}\t{b}\n" for a, b in pairs), pairs, "similarity")
for (a, b), answer in answered(pairs, answers):
    check(abs(answer["score"] - float(kv.similarity(a, b))) <= SCORE_TOLERANCE, f"similarity {a} {b}")

# Evaluations, against the files in data/ and, when present, the full sets in ../shared/data.
eval_sets = [(f"{REPO}/data/analogies-sample.txt", f"{REPO}/data/wordsim-sample.tsv")]
try:
    open(f"{REPO}/../shared/data/questions-words.txt").close()
    eval_sets.append((f"{REPO}/../shared/data/questions-words.txt", f"{REPO}/../shared/data/wordsim353.tsv"))
except OSError:
    pass
for analogies, pairs_file in eval_sets:
    for restrict in (300000, 700):
        out = subprocess.run([EMBED_QUERY, "eval", VECTORS, "--analogies", analogies, "--word-pairs", pairs_file,
                              "--restrict", str(restrict), "--format", "json", "-q"],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            failures.append(f"eval {analogies} restrict {restrict}: exit {out.returncode}: {out.stderr[-300:]}")
            continue
        try:
            ours = json.loads(out.stdout)
        except json.JSONDecodeError as e:
            failures.append(f"eval {analogies} restrict {restrict}: output is not JSON ({e})")
            continue
        score, sections = kv.evaluate_word_analogies(analogies, restrict_vocab=restrict)
        check(abs(ours["analogies"]["accuracy"] - 100 * score) < 0.1,
              f"{analogies} restrict {restrict}: accuracy {ours['analogies']['accuracy']} vs gensim {100 * score}")
        check(len(ours["analogies"]["sections"]) == len(sections) - 1,
              f"{analogies} restrict {restrict}: {len(ours['analogies']['sections'])} sections, gensim {len(sections) - 1}")
        for mine, theirs in zip(ours["analogies"]["sections"], sections[:-1]):
            check(mine["section"] == theirs["section"] and mine["correct"] == len(theirs["correct"]) and
                  mine["answered"] == len(theirs["correct"]) + len(theirs["incorrect"]),
                  f"{analogies} section {theirs['section']}: {mine} vs gensim")
        pearson, spearman, oov = kv.evaluate_word_pairs(pairs_file, restrict_vocab=restrict)
        wp = ours["word_pairs"]
        check(abs(wp["spearman"] - spearman[0]) < 1e-3, f"{pairs_file}: Spearman {wp['spearman']} vs {spearman[0]}")
        check(abs(wp["pearson"] - pearson[0]) < 1e-3, f"{pairs_file}: Pearson {wp['pearson']} vs {pearson[0]}")
        check(abs(wp["oov_percent"] - oov) < 0.1, f"{pairs_file}: OOV {wp['oov_percent']} vs {oov}")

for failure in failures[:30]:
    print("FAIL:", failure)
print(f"query_vs_gensim: {len(failures)} failures ({len(eval_sets)} evaluation sets)")
sys.exit(1 if failures else 0)
