#!/usr/bin/env bash
# The quality README.md promises, on real text: the demo's training (text8-200k at its
# defaults for a small corpus: 20 epochs, lr 0.032), made reproducible with --threads 1
# --seed 1, then its neighbours (of three: numbers; of red: colours; of she: her, herself),
# its analogy (he - his + her = she) and a Spearman floor on the bundled WordSim-353 slice.
# Every bar is set from measurement (2026-11-29, Release build, issue 68's defaults;
# --epochs 1 and 6 start at lr 0.05): today's figure (seed 1), the spread over seeds 1, 2,
# 3, and broken runs that must fail: --epochs 1, --epochs 6 and --dim 2.
# Usage: readme_quality_test.sh EMBED_TRAIN EMBED_QUERY (run from the repo root)
set -u

ET=$(realpath "${1:?usage: readme_quality_test.sh EMBED_TRAIN EMBED_QUERY}")
EQ=$(realpath "${2:?usage: readme_quality_test.sh EMBED_TRAIN EMBED_QUERY}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Release: 2.6 s. Under the sanitizers (EMBED_TEST_LEAN=1) the 20 epochs took over a
# minute and their figures have not been measured there: skipped.
if [[ ${EMBED_TEST_LEAN:-0} == 1 ]]; then
  echo "skipped: EMBED_TEST_LEAN=1 (sanitizer build): 20 epochs too slow, bars measured in Release only"
  exit 77
fi
"$ET" --corpus "$DATA/text8-200k.txt.gz" -o text8-200k.emb --threads 1 --seed 1 -q
check "the README's training" "$?" "0"

# neighbours WORD K: the K nearest neighbours of WORD, one a line.
neighbours() { "$EQ" text8-200k.emb "$1" -k "$2" --format tsv | cut -f3; }
# count_of WORDS: how many of the lines on stdin are among WORDS.
count_of() { grep -cxF -f <(tr ' ' '\n' <<<"$1"); }

# Of three: numbers. Number words among the 10 nearest: 9 (seeds 1-3: 9, 8, 9);
# --epochs 1: 6, --epochs 6: 4, --dim 2: 0.
three=$(neighbours three 10)
n=$(count_of "zero one two four five six seven eight nine" <<<"$three")
[[ $n -ge 8 ]] && ok || bad "numbers among three's 10 neighbours: $n: $(echo $three)"
grep -qx two <<<"$three" && grep -qx four <<<"$three" && ok || bad "three's neighbours lack two or four: $(echo $three)"

# Of red: colours. Colour words among the 10 nearest: 4, yellow and green among them (seeds
# 1-3: 4, 4, 3); --epochs 1, --epochs 6, --dim 2: 0.
red=$(neighbours red 10)
n=$(count_of "yellow green blue brown white black orange purple pink grey gray violet" <<<"$red")
[[ $n -ge 2 ]] && ok || bad "colours among red's 10 neighbours: $n: $(echo $red)"
grep -qx yellow <<<"$red" && grep -qx green <<<"$red" && ok || bad "red's neighbours lack yellow or green: $(echo $red)"

# Of she: her and herself among the 5 nearest (seeds 1-3: yes; --epochs 1, --dim 2: no;
# --epochs 6: yes).
she=$(neighbours she 5)
grep -qx her <<<"$she" && grep -qx herself <<<"$she" && ok || bad "she's 5 neighbours lack her or herself: $(echo $she)"

# he - his + her = she, first (seeds 1-3: she; --epochs 1: proved, --dim 2: game;
# --epochs 6: she).
check "he - his + her" "$("$EQ" text8-200k.emb --analogy "he - his + her" -k 1 --format tsv | cut -f3)" "she"

# Spearman on data/wordsim-sample.tsv: 0.548 (seeds 1-3: 0.525 to 0.563); --epochs 1:
# 0.272, --epochs 6: 0.392, --dim 2: 0.280.
spearman=$("$EQ" eval text8-200k.emb --word-pairs "$DATA/wordsim-sample.tsv" 2>&1 | grep -o 'Spearman [-0-9.]*' | cut -d' ' -f2)
check "Spearman $spearman above 0.46" "$(awk -v s="${spearman:-0}" 'BEGIN { print (s > 0.46) ? "yes" : "no" }')" "yes"

finish
