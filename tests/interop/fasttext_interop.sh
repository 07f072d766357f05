#!/usr/bin/env bash
# Interop test: glove-convert and embed-query on a fastText model (.bin) against the
# fastText CLI and gensim (fasttext_vs_emb.py says what is compared), and glove-convert's
# fastText models (--to fasttext-bin) read back by both, and embed-train --init continuing
# fastText's model.
#
# Usage: fasttext_interop.sh GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN
# Exit status: 0 pass, 1 fail, 77 skipped (no `fasttext` command, or Debian's
# /usr/bin/python3 lacks numpy/gensim). KEEP_INTEROP_FILES=1 keeps the work directory.
set -euo pipefail

if [[ $# -ne 3 || ! -x $1 || ! -x $2 || ! -x $3 ]]; then
  echo "usage: $0 GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN (executables)" >&2
  exit 1
fi
GC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
EQ=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
ET=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA=$(cd "$HERE/../../data" && pwd)
source "$HERE/peers.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/embed-ft-interop.XXXXXX")
if [[ -z ${KEEP_INTEROP_FILES:-} ]]; then trap 'rm -rf "$WORK"' EXIT; else echo "work directory: $WORK"; fi
cd "$WORK"

# A corpus from the fixtures, with a few non-ASCII words (their n-grams hash bytes >= 0x80):
# its first 70,000 words, whose 8,000-word vocabulary has every word below in it that should be
# (what is checked is how each tool reads the other's files, not what the model learnt).
gzip -dc "$DATA/text8-200k.txt.gz" > text8-200k.txt
head -c 400000 text8-200k.txt > corpus.txt
printf '\ncafé naïve résumé über straße\n日本 東京 café über\n' >> corpus.txt
# Five epochs: one leaves every vector nearly parallel, and neighbours would be ties.
fasttext skipgram -input corpus.txt -output M -minn 3 -maxn 6 -dim 20 -epoch 5 -minCount 1 -bucket 20000 -thread 1 \
  -verbose 0

"$GC" -q M.bin -o plain.emb
"$GC" -q --subwords M.bin -o subwords.emb
"$GC" --verify subwords.emb

# In the vocabulary, outside it (ASCII and not), and fastText's end-of-sentence token.
cat > words.txt <<'WORDS'
the
anarchism
philosophy
revolution
café
naïve
日本
</s>
zzzqqq
anarchismo
cafés
日本語
übermensch
x
WORDS
"$PY" "$HERE/fasttext_vs_emb.py" M.bin plain.emb subwords.emb words.txt "$EQ"

# Written back as a fastText model (each word's own row rebuilt from its vector and its
# n-grams' rows): fastText and gensim load it and give the .emb's vectors and neighbours.
"$GC" -q --to fasttext-bin subwords.emb -o W.bin
"$PY" "$HERE/fasttext_vs_emb.py" W.bin plain.emb subwords.emb words.txt "$EQ"
"$PY" - W.bin <<'PY'
import sys
from gensim.models.fasttext import load_facebook_model
model = load_facebook_model(sys.argv[1])  # the whole model, output matrix included
assert model.wv.vector_size == 20 and len(model.wv) > 1000, (model.wv.vector_size, len(model.wv))
assert model.wv.bucket == 20000 and model.wv.min_n == 3 and model.wv.max_n == 6
PY
# Without n-grams (plain vectors): a model whose words are their rows.
"$GC" -q --to fasttext-bin plain.emb -o P.bin
echo the | fasttext print-word-vectors P.bin > p.txt
"$GC" -q plain.emb -o - --to glove | grep "^the " > g.txt
"$PY" - g.txt p.txt <<'PY'
import sys
ours, theirs = (open(path).read().split() for path in sys.argv[1:3])
assert ours[0] == theirs[0] == "the" and len(ours) == len(theirs) == 21, (ours, theirs)
# print-word-vectors prints 5 significant digits.
assert all(abs(float(a) - float(b)) <= 1e-4 * abs(float(a)) + 1e-6 for a, b in zip(ours[1:], theirs[1:])), (ours, theirs)
PY

# An .emb's subwords go on into .emb output, here as f16, and still answer OOV words.
"$GC" -q --dtype f16 subwords.emb -o half.emb
"$EQ" half.emb --format json anarchismo > half.json
grep -q '"oov":true' half.json || { echo "FAIL: f16 subwords: no oov answer"; exit 1; }
# same_vectors EMB BIN: three words' vectors in EMB are fastText's from BIN (print-word-vectors'
# 5 significant digits).
same_vectors() {
  printf 'the\nanarchism\nphilosophy\n' | fasttext print-word-vectors "$2" > ft.txt
  "$GC" -q "$1" -o - --to glove | grep -E '^(the|anarchism|philosophy) ' > ours.txt
  "$PY" - ours.txt ft.txt <<'PY'
import sys
ours, theirs = ({l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(p)} for p in sys.argv[1:3])
assert ours.keys() == theirs.keys() and len(ours) == 3, (ours.keys(), theirs.keys())
for w in ours:
    assert all(abs(a - b) <= 1e-4 * abs(b) + 1e-5 for a, b in zip(ours[w], theirs[w])), (w, ours[w], theirs[w])
PY
}
# embed-train --init M.bin --subwords continues fastText's model: its buckets, its words'
# own rows and its output matrix as they are. At a rate too small to move them the
# vectors are fastText's (print-word-vectors), and the epoch's loss is the trained
# model's, far below an untrained one's (which a run that dropped the output matrix, or
# the own rows, would start from).
"$ET" --corpus corpus.txt --subwords --min-count 1 --epochs 1 --threads 1 --lr 1e-9 --init M.bin -o C.emb 2> c.log ||
  { cat c.log; exit 1; }
grep -q "its 20000 n-gram bucket rows continue (3 to 6 characters), and its words' own rows as it holds them" c.log ||
  { echo "FAIL: --init M.bin: $(grep -- --subwords c.log)"; exit 1; }
grep -q "(a fastText model, 20 dims).*their context rows from its context vectors" c.log ||
  { echo "FAIL: --init M.bin: the output matrix: $(grep -- --init c.log)"; exit 1; }
same_vectors C.emb M.bin
loss() { grep -o 'epoch 1/1: loss [0-9.]*' "$1" | grep -o '[0-9.]*$'; }
# embed-train --fasttext-bin: fastText and gensim load the model it writes, with its .emb's
# vectors (print-word-vectors' 5 digits) and its whole model (output matrix included).
"$ET" --corpus corpus.txt --subwords --min-count 1 --dim 20 --buckets 20000 --epochs 1 --threads 1 -o T.emb \
  --fasttext-bin T.bin 2> t.log || { cat t.log; exit 1; }
same_vectors T.emb T.bin
"$PY" - T.bin <<'PY'
import sys
from gensim.models.fasttext import load_facebook_model
model = load_facebook_model(sys.argv[1])
assert model.wv.vector_size == 20 and model.wv.bucket == 20000 and model.sg == 1, (model.wv.vector_size, model.sg)
assert abs(model.syn1neg).sum() > 0  # the output matrix, trained
PY
"$ET" --corpus corpus.txt --subwords --min-count 1 --dim 20 --buckets 20000 --epochs 1 --threads 1 --lr 1e-9 -o F.emb 2> f.log
"$PY" -c "import sys; sys.exit(not float(sys.argv[1]) < 0.7 * float(sys.argv[2]))" "$(loss c.log)" "$(loss f.log)" ||
  { echo "FAIL: --init M.bin starts from the trained model: loss $(loss c.log), an untrained one's $(loss f.log)"; exit 1; }
# A model whose words are cp852 (as gensim's test data cp852_fasttext.bin): --encoding cp852
# reads the words gensim reads with encoding="cp852", and --unicode-errors backslashreplace
# the ones gensim's default gives ("kter\xec"), words that differ only in such bytes kept apart.
for _ in $(seq 50); do echo "který když řekl že to bylo v pátek kde žena šla domů a ještě kdyz"; done | iconv -t CP852 > cz852.txt
fasttext skipgram -input cz852.txt -output cz852 -minCount 1 -dim 4 -epoch 1 -bucket 1000 -thread 1 -verbose 0
"$GC" -q cz852.bin --encoding cp852 -o - --to glove | cut -d' ' -f1 > ours-cp852.txt
"$GC" -q cz852.bin --unicode-errors backslashreplace -o - --to glove | cut -d' ' -f1 > ours-escaped.txt
"$PY" - cz852.bin ours-cp852.txt ours-escaped.txt <<'PY'
import logging, sys
from gensim.models.fasttext import load_facebook_vectors
logging.disable(logging.ERROR)  # gensim logs each word it escapes
words = lambda path: open(path, encoding="utf-8").read().split("\n")[:-1]
for encoding, ours in (("cp852", sys.argv[2]), ("utf8", sys.argv[3])):
    theirs = load_facebook_vectors(sys.argv[1], encoding=encoding).index_to_key
    assert words(ours) == theirs, (encoding, words(ours), theirs)
assert "kter\\xec" in words(sys.argv[3]) and "který" in words(sys.argv[2])
PY
echo "fastText interop: pass"
