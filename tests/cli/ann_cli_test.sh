#!/usr/bin/env bash
# End-to-end tests of the approximate index: glove-convert --index ann builds it into an
# .emb, --info and --verify describe and check it, embed-query --ann answers as the exact
# search does when the beam covers the file, and missing, foreign and damaged indexes
# and wrong combinations of options get one clear line.
# Usage: ann_cli_test.sh PATH/TO/embed-query PATH/TO/glove-convert (run from the repo root)
set -u

EQ=$(realpath "${1:?usage: ann_cli_test.sh EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${2:?usage: ann_cli_test.sh EMBED_QUERY GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# 2,000 words x 50 dimensions.
"$GC" -q "$DATA/text8-sample.txt.gz" -o plain.emb || bad "plain fixture"
"$GC" -q "$DATA/text8-sample.txt.gz" --index ann --threads 1 -o ann.emb && ok || bad "--index ann"
"$GC" -q plain.emb --index ann --threads 1 --dtype f16 -o ann16.emb && ok || bad "--index ann from an .emb, f16"
"$GC" -q "$DATA/text8-sample.txt.gz" --index ann --threads 1 -o again.emb
check "--threads 1 builds the same file" "$(md5sum < again.emb)" "$(md5sum < ann.emb)"
"$GC" ann.emb --info > info.txt
grep -q '^index       hnsw (M 16)' info.txt && ok || bad "--info names the index: $(grep index info.txt)"
"$GC" plain.emb --info | grep -q '^index       none' && ok || bad "--info: no index"
"$GC" -q ann.emb --verify && ok || bad "--verify an indexed file"
check "an index leaves the vectors as they were" "$(vectors ann.emb)" "$(vectors plain.emb)"

# same_answers NAME A B: two tsv answer lists hold the same words for each query, and
# the same score at each rank within 1e-5 (the index scores a row with its own dot
# product, the exact search with SGEMM: the last digit may differ).
same_answers() {
  if python3 - "$2" "$3" <<'PY'; then ok; else bad "$1: $(diff <(echo "$2") <(echo "$3") | head -6)"; fi
import collections, sys
def parse(text):
    groups = collections.OrderedDict()
    for line in text.strip().split("\n"):
        query, rank, word, score = line.split("\t")
        groups.setdefault(query, []).append((word, float(score)))
    return groups
a, b = parse(sys.argv[1]), parse(sys.argv[2])
ok = list(a) == list(b) and all(
    sorted(w for w, _ in a[q]) == sorted(w for w, _ in b[q]) and
    all(abs(x[1] - y[1]) <= 1e-5 for x, y in zip(a[q], b[q])) for q in a)
sys.exit(0 if ok else 1)
PY
}

# --- answers: with a beam as wide as the file, the exact search's ---
words="the of and one king paris three city music war"
for file in ann.emb ann16.emb; do
  exact=$(for w in $words; do "$EQ" "$file" "$w" -k 10 --format tsv; done)
  approx=$(for w in $words; do "$EQ" "$file" "$w" -k 10 --format tsv --ann --ef 2000; done)
  same_answers "$file: --ann --ef 2000 = exact" "$approx" "$exact"
done
same_answers "analogy --ann = exact" "$("$EQ" ann.emb --analogy "king - man + woman" --ann --ef 2000 --format tsv)" \
  "$("$EQ" ann.emb --analogy "king - man + woman" --format tsv)"
same_answers "3cosmul --ann = exact" "$("$EQ" ann.emb --analogy "king - man + woman" --method 3cosmul --ann --ef 2000 --format tsv)" \
  "$("$EQ" ann.emb --analogy "king - man + woman" --method 3cosmul --format tsv)"
same_answers "stdin batches with --ann" "$(printf 'the\nof\n' | "$EQ" ann.emb --ann --ef 2000 -k 3 --format tsv)" \
  "$(printf 'the\nof\n' | "$EQ" ann.emb -k 3 --format tsv)"
# JSON keeps its shape.
check "json shape" "$("$EQ" ann.emb king -k 2 --ann --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(sorted(r), sorted(r["results"][0]))')" \
  "$("$EQ" ann.emb king -k 2 --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(sorted(r), sorted(r["results"][0]))')"
# The default index and beam find most of the true neighbours, and the weakest index does
# not: recall@10 of 200 queries on 20,000 random 48-dim Gaussian vectors (no clusters to
# lean on; text8-sample's 2,000 rows gave 100% even to --ann-m 4). Measured (2026-11):
# default 1967/2000 (data seeds 2, 3: 1962 to 1968; --threads 2 builds 1964); broken,
# --ann-m 4: 1223 to 1255/2000. (--ef below -k is raised to -k: --ef 1 gives 1928 to 1946.)
python3 - <<'PY'
import random
r = random.Random(1)
with open('random.txt', 'w') as f:
    for i in range(20000):
        f.write('w%d ' % i + ' '.join('%.4f' % r.gauss(0, 1) for _ in range(48)) + '\n')
PY
"$GC" -q random.txt --index ann --threads 1 -o random-ann.emb || bad "random fixture"
"$GC" -q random.txt --index ann --threads 1 --ann-m 4 -o random-ann4.emb || bad "random fixture, --ann-m 4"
seq 0 199 | sed 's/^/w/' > queries.txt
# recall FILE [OPTION...]: true top-10 neighbours of the 200 queries that --ann finds.
recall() {
  comm -12 <("$EQ" "$1" -k 10 --format tsv < queries.txt | cut -f1,3 | sort) \
           <("$EQ" "$1" -k 10 --format tsv --ann "${@:2}" < queries.txt | cut -f1,3 | sort) | wc -l
}
hits=$(recall random-ann.emb)
[[ $hits -ge 1850 ]] && ok || bad "default --ann-m and --ef: recall@10 $hits/2000"
weak=$(recall random-ann4.emb)
[[ $weak -lt 1850 ]] && ok || bad "--ann-m 4 should miss the bar: recall@10 $weak/2000"
eval_exact=$("$EQ" eval ann.emb --analogies "$DATA/analogies-sample.txt" --format json)
check "eval --ann --ef 2000 = exact" "$("$EQ" eval ann.emb --analogies "$DATA/analogies-sample.txt" --format json --ann --ef 2000)" "$eval_exact"

# --- refusals ---
expect_error "--ann without an index" 1 "plain.emb: has no approximate index; add one with: glove-convert --index ann plain.emb" \
  "$EQ" plain.emb king --ann
expect_error "--ann on text vectors" 1 "needs an .emb with an approximate index" "$EQ" "$DATA/text8-sample.txt.gz" king --ann
expect_error "--ef without --ann" 2 "--ef requires --ann" "$EQ" ann.emb king --ef 10
expect_error "--ann with --device cuda" 2 "--ann searches the approximate index on the CPU" "$EQ" ann.emb king --ann --device cuda
expect_error "--index ann to text" 1 "--index ann adds an index to .emb output" "$GC" plain.emb --index ann -o x.txt
expect_error "--ann-m without --index" 2 "--ann-m requires --index" "$GC" plain.emb --ann-m 8 -o x.emb
# Another file's vectors under this index: the binding checksum differs.
python3 - ann.emb foreign.emb <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
at = data.find(b'"ann.vectors":"crc32:') + 21
data[at] = ord('1') if data[at] != ord('1') else ord('2')
open(sys.argv[2], 'wb').write(data)
PY
expect_error "an index built for other vectors" 1 "the approximate index was built for other vectors" "$EQ" foreign.emb king --ann
# A damaged link: --verify names the tensor; a query still answers (the link is skipped).
python3 - ann.emb damaged.emb <<'PY'
import json, struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack('<Q', data[:8])[0]
header = json.loads(data[8:8 + n])
begin = 8 + n + header['ann.hnsw.neighbors']['data_offsets'][0]
data[begin:begin + 4] = struct.pack('<I', 123456789)
open(sys.argv[2], 'wb').write(data)
PY
expect_error "--verify a damaged index" 1 'checksum mismatch in tensor "ann.hnsw.neighbors"' "$GC" damaged.emb --verify
"$EQ" damaged.emb king --ann -k 3 > /dev/null 2>&1 && ok || bad "a damaged link is skipped, not followed"
truncate -s -100 damaged.emb
expect_error "a truncated indexed file" 1 "damaged.emb" "$EQ" damaged.emb king --ann

finish
