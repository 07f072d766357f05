#!/usr/bin/env bash
# End-to-end tests of the pictures: embed-query map (a word map as SVG) and embed-train
# --plot and `embed-train plot` (loss and learning rate as SVG). Each SVG is parsed as XML,
# its coordinates checked to be finite numbers and its labels looked for (check_svg.py).
# Usage: plot_cli_test.sh EMBED_QUERY EMBED_TRAIN GLOVE_CONVERT (run from the repo root)
set -u

EQ=$(realpath "${1:?usage: plot_cli_test.sh EMBED_QUERY EMBED_TRAIN GLOVE_CONVERT}")
ET=$(realpath "${2:?usage: plot_cli_test.sh EMBED_QUERY EMBED_TRAIN GLOVE_CONVERT}")
GC=$(realpath "${3:?usage: plot_cli_test.sh EMBED_QUERY EMBED_TRAIN GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# svg_texts FILE: the file's <text> contents, one per line; fails for a malformed SVG.
svg_texts() { /usr/bin/python3 "$cli_dir/check_svg.py" "$1"; }
# has_text NAME FILE WORD: FILE has a <text> that is exactly WORD.
has_text() { if svg_texts "$2" | grep -qxF -- "$3"; then ok; else bad "$1: no <text>$3</text> in $2"; fi; }

# Vectors whose words need escaping or are not ASCII.
cat > v.txt <<'V'
one 1 0 0 0.1
two 0.9 0.2 0 0
three 0.8 0.3 0.1 0
cat 0 1 0 0.2
dog 0 0.9 0.2 0
a&b 0 0 1 0
<tag> 0.1 0 0.9 0.3
café 0.5 0.5 0.5 0
日本 -1 0 0.2 0
l'été -0.8 0.3 0 0.1
V
"$GC" -q v.txt -o v.emb || bad "convert fixture"

# --- embed-query map ---
"$EQ" map v.emb one two three cat dog 'a&b' '<tag>' café 日本 "l'été" -o map.svg 2> map.log
check "map: exit status" "$?" "0"
svg_texts map.svg > texts.txt && ok || bad "map: well-formed SVG with finite coordinates: $(cat texts.txt)"
for w in one two three cat dog 'a&b' '<tag>' café 日本 "l'été"; do has_text "map: label" map.svg "$w"; done
grep -q 'v.emb — PCA, 2 components explain [0-9.]*% of the variance' map.svg && ok || bad "map: title: $(grep -m1 '<title>' map.svg)"
grep -q '&lt;tag&gt;' map.svg && ok || bad "map: < and > escaped"
"$EQ" map v.emb one two three cat dog 'a&b' '<tag>' café 日本 "l'été" -o again.svg -q
cmp -s map.svg again.svg && ok || bad "map: the same input gives the same bytes"

# Unknown words: one warning naming them, left out; the known still drawn.
"$EQ" map v.emb one nosuch two three zzz -o partial.svg 2> partial.log
check "map: unknown words are not an error" "$?" "0"
grep -q 'not in the vocabulary, left out of the map: nosuch zzz' partial.log && ok || bad "map: warns: $(cat partial.log)"
check "map: only the known words drawn" "$(svg_texts partial.svg | grep -cxE 'one|two|three|nosuch|zzz')" "3"

# Fewer than 3 known words: an error, nothing written.
"$EQ" map v.emb one nosuch two -o few.svg 2> few.log
check "map: 2 known words: exit status" "$?" "1"
check "map: 2 known words: one line" "$(grep -c . few.log)" "2"  # the warning, then the error
grep -q 'v.emb: 2 of the words given are in the vocabulary; a map needs at least 3' few.log && ok || bad "map: few: $(cat few.log)"
[[ ! -e few.svg ]] && ok || bad "map: no file when too few words"
check "map: no temporaries left" "$(litter)" "0"

# An unwritable output fails before the vectors are read, and leaves nothing.
"$EQ" map v.emb one two three -o nodir/map.svg 2> unwritable.log
check "map: unwritable output: exit status" "$?" "1"
grep -q 'nodir/map.svg' unwritable.log && ok || bad "map: unwritable: names the path: $(cat unwritable.log)"
[[ ! -e nodir ]] && ok || bad "map: unwritable: nothing created"

# -o - writes to stdout; words from stdin, one per line.
"$EQ" map v.emb one two three cat -o - -q > stdout.svg
has_text "map: -o - to stdout" stdout.svg cat
printf 'one\n  two \n\nthree\ncat\n' | "$EQ" map v.emb -o stdin.svg -q
cmp -s stdout.svg stdin.svg && ok || bad "map: words from stdin, one per line, as arguments"

# --neighbours K: each word's K nearest, once each, drawn lighter.
"$EQ" map v.emb one cat 日本 --neighbours 1 -o nb.svg -q
check "map: --neighbours: words and their nearest" "$(svg_texts nb.svg | grep -vF '—' | sort | tr '\n' ' ')" \
  "cat dog l'été one two 日本 "
grep -q 'fill="#8a96a3">dog</text>' nb.svg && ok || bad "map: --neighbours drawn in the lighter colour"
grep -q 'fill="#1a1a1a">cat</text>' nb.svg && ok || bad "map: the words asked for in the darker colour"
"$EQ" map v.emb one two --neighbours 0 -o x.svg 2> /dev/null
check "map: --neighbours 0 is a usage error" "$?" "2"
"$EQ" map v.emb one two three 2> /dev/null
check "map: -o is required" "$?" "2"
"$EQ" map --help | grep -q -- '--neighbours' && ok || bad "map --help names --neighbours"

# --- embed-train --plot, and embed-train plot ---
CORPUS=$DATA/text8-200k.txt.gz
"$ET" --corpus "$CORPUS" -o a.emb --dim 16 --epochs 3 --threads 1 --seed 3 --plot a.svg --metrics a.jsonl -q
check "--plot: exit status" "$?" "0"
svg_texts a.svg > a.txt && ok || bad "--plot: well-formed SVG: $(cat a.txt)"
check "--plot: a dashed line per epoch" "$(grep -c 'stroke-dasharray' a.svg)" "3"
grep -qx 'words processed' a.txt && ok || bad "--plot: x axis says words processed"
grep -qx 'loss' a.txt && grep -qx 'learning rate' a.txt && ok || bad "--plot: both panels named"
grep -q '<polyline' a.svg && ok || bad "--plot: lines through the points"

# The plot subcommand on the --metrics file draws the same points (the title differs).
"$ET" plot a.jsonl -o b.svg
check "plot: exit status" "$?" "0"
svg_texts b.svg > /dev/null && ok || bad "plot: well-formed SVG"
check "plot: the same picture as --plot" "$(grep -v 'title\|—' b.svg | md5sum)" "$(grep -v 'title\|—' a.svg | md5sum)"
"$ET" plot a.jsonl -o - > c.svg && cmp -s b.svg c.svg && ok || bad "plot: -o - to stdout"

# Only the epochs' points (a run too short for a progress tick) still plot.
grep '"event":"epoch"' a.jsonl > epochs.jsonl
"$ET" plot epochs.jsonl -o epochs.svg && svg_texts epochs.svg > /dev/null && ok || bad "plot: epoch points only"
head -1 epochs.jsonl > one.jsonl
"$ET" plot one.jsonl -o one.svg && grep -q '<circle' one.svg && ok || bad "plot: a single point is drawn as a dot"

# An empty or malformed metrics file: one line naming the file (and line), nothing written.
: > empty.jsonl
"$ET" plot empty.jsonl -o empty.svg 2> empty.log
check "plot: empty metrics: exit status" "$?" "1"
grep -q 'empty.jsonl: no metrics in it' empty.log && ok || bad "plot: empty: $(cat empty.log)"
check "plot: empty metrics: one line" "$(wc -l < empty.log)" "1"
[[ ! -e empty.svg ]] && ok || bad "plot: nothing written for an empty file"
{ head -2 a.jsonl; echo '{"event":"epoch","done":12,'; } > broken.jsonl
"$ET" plot broken.jsonl -o broken.svg 2> broken.log
check "plot: malformed line: exit status" "$?" "1"
grep -q 'broken.jsonl:3: expected a line of embed-train --metrics' broken.log && ok || bad "plot: malformed: $(cat broken.log)"
echo '{"event":"epoch","done":12,"lr":0.1}' > noloss.jsonl
"$ET" plot noloss.jsonl -o noloss.svg 2> noloss.log
grep -q 'noloss.jsonl:1: .*"loss" field' noloss.log && ok || bad "plot: missing field: $(cat noloss.log)"
[[ ! -e broken.svg && ! -e noloss.svg ]] && ok || bad "plot: nothing written for a malformed file"
# A missing file says so as every tool does (issue 66: "cannot read the metrics file").
"$ET" plot missing.jsonl -o missing.svg 2> missing.log
check "plot: missing metrics: exit status" "$?" "1"
grep -q 'embed-train: error: missing.jsonl: cannot open: No such file or directory' missing.log && ok || bad "plot: missing: $(cat missing.log)"
"$ET" plot a.jsonl 2> /dev/null
check "plot: -o is required" "$?" "2"
"$ET" --help | grep -q 'plot' && ok || bad "embed-train --help lists the plot subcommand"

# An interrupted run leaves its plot beside the checkpoint, with the epochs so far.
interrupt_when run.log 'epoch 2/20' "$ET" --corpus "$CORPUS" -o run.emb --dim 16 --epochs 20 --threads 1 --seed 3 \
  --plot run.svg
check "--plot, interrupted: exit status" "$?" "130"
[[ -f run.emb.ckpt ]] && ok || bad "--plot, interrupted: checkpoint written"
svg_texts run.svg > run.txt && ok || bad "--plot, interrupted: well-formed SVG: $(cat run.txt)"
[[ $(grep -c 'stroke-dasharray' run.svg) -ge 2 ]] && ok || bad "--plot, interrupted: the epochs so far"
grep -q 'interrupted' run.svg && ok || bad "--plot, interrupted: the title says so"
check "no temporaries left" "$(litter)" "0"

finish
