#!/usr/bin/env bash
# fasttext_bin.sh: how fast glove-convert reads a fastText model (.bin), against the ways
# people get word vectors out of one today.
#
# Trains a skip-gram model with Debian's fastText on text8-head from the shared data
# (-dim 100 -minn 3 -maxn 6 -bucket 2000000 -epoch 1, fastText's defaults otherwise), then,
# interleaved REPEATS times on a warm page cache, takes wall time and peak RSS (GNU time) of:
#   glove-convert MODEL.bin -o out.emb                  every word's vector, as print-word-vectors
#   glove-convert MODEL.bin --subwords -o sub.emb       the same plus the n-gram bucket table
#   gensim load_facebook_vectors(MODEL.bin), then kv.vectors for every word
#   fasttext print-word-vectors MODEL.bin < vocabulary  fastText's own way out, as text
# and prints the medians and the ratios gensim / glove-convert and print-word-vectors /
# glove-convert (measured in this run, on the same model).
#
# Environment:
#   BUILD          build (default): the build directory, relative to the repo root or absolute
#   GLOVE_CONVERT  binary to test (default: $BUILD/glove-convert)
#   REPEATS        interleaved runs per tool (default 3)
#   THREADS        fastText's -thread for training the model (default 2)
#   BENCH_DIR      scratch parent (default /tmp); KEEP=1 keeps the scratch directory
#   PYTHON         Python with gensim (default /usr/bin/python3)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GLOVE_CONVERT=${GLOVE_CONVERT:-$BUILD/glove-convert}
REPEATS=${REPEATS:-3}
THREADS=${THREADS:-2}
KEEP=${KEEP:-0}
PYTHON=${PYTHON:-/usr/bin/python3}

need_tool glove-convert "$GLOVE_CONVERT" GLOVE_CONVERT
need_gnu_time
need_python
command -v fasttext >/dev/null || skip "no fasttext command (apt-get install fasttext)"
"$PYTHON" -c 'import gensim' 2>/dev/null || skip "$PYTHON cannot import gensim (apt-get install python3-gensim)"
corpus=$data/text8-head.txt
need_data "$corpus"
bench_scratch

machine_block
echo "tool:    $GLOVE_CONVERT ($(version_of "$GLOVE_CONVERT"))"
echo "peer:    fasttext (Debian's $(dpkg-query -W -f '${Version}' fasttext 2>/dev/null || echo '?'), built without AVX), gensim $("$PYTHON" -c 'import gensim; print(gensim.__version__)')"

echo "== training the model: fasttext skipgram on $corpus"
fasttext skipgram -input "$corpus" -output "$work/model" -dim 100 -minn 3 -maxn 6 -bucket 2000000 -epoch 1 \
  -thread "$THREADS" -verbose 0
model=$work/model.bin
model_mb=$(stats mib-of-bytes "$(stat -c %s "$model")" 0)
# The vocabulary, for print-word-vectors: fastText's .vec lists it after a header line.
tail -n +2 "$work/model.vec" | cut -d' ' -f1 >"$work/vocabulary.txt"
words=$(wc -l <"$work/vocabulary.txt")
echo "model: $words words, $model_mb MB; warming the page cache"
cat "$model" >/dev/null

cat >"$work/gensim_load.py" <<'EOF'
# Loads a fastText model's word vectors the way gensim users do.
import sys
from gensim.models.fasttext import load_facebook_vectors
kv = load_facebook_vectors(sys.argv[1])
print(kv.vectors.shape, float(kv.vectors.sum(dtype="float64")))
EOF

declare -A secs peak
tools=(convert convert-subwords gensim print-word-vectors)
# run_tool NAME: one timed run of NAME; appends to secs[NAME] and peak[NAME].
run_tool() {
  local name=$1 t=$work/$1.time
  case $name in
    convert) timed "$t" "$GLOVE_CONVERT" -q "$model" -o "$work/out.emb" ;;
    convert-subwords) timed "$t" "$GLOVE_CONVERT" -q "$model" --subwords -o "$work/sub.emb" ;;
    gensim) timed "$t" "$PYTHON" "$work/gensim_load.py" "$model" >"$work/gensim.out" ;;
    print-word-vectors) timed "$t" fasttext print-word-vectors "$model" <"$work/vocabulary.txt" >"$work/pwv.txt" ;;
  esac || die "$name failed"
  read -r s kb < <(time_of "$t")
  secs[$name]+="$s "
  peak[$name]+="$(mib "$kb") "
}
echo "== $REPEATS interleaved runs of: ${tools[*]}"
for ((r = 1; r <= REPEATS; r++)); do
  for name in "${tools[@]}"; do run_tool "$name"; done
  echo "   run $r: $(for n in "${tools[@]}"; do printf '%s %ss  ' "$n" "$(awk '{print $NF}' <<<"${secs[$n]}")"; done)"
done

echo
echo "== results: $words words x 100 dims, 2,000,000 buckets ($model_mb MB model), medians of $REPEATS runs"
printf '%-20s %9s %10s\n' tool seconds peak_MB
for n in "${tools[@]}"; do printf '%-20s %9s %10s\n' "$n" "$(median "${secs[$n]}")" "$(maximum "${peak[$n]}")"; done
convert=$(median "${secs[convert]}")
echo
echo "ratio gensim load_facebook_vectors / glove-convert:   $(ratio "$(median "${secs[gensim]}")" "$convert")x"
echo "ratio fasttext print-word-vectors / glove-convert:    $(ratio "$(median "${secs[print-word-vectors]}")" "$convert")x"
echo "ratio glove-convert --subwords / glove-convert:       $(ratio "$(median "${secs[convert-subwords]}")" "$convert")x"
echo ".emb sizes: $(du -m "$work/out.emb" | cut -f1) MB, with --subwords $(du -m "$work/sub.emb" | cut -f1) MB"
