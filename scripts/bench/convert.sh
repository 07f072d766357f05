#!/usr/bin/env bash
# convert.sh: how fast glove-convert turns GloVe text into .emb, against reference points.
#
# Generates a synthetic GloVe text file (default 400,000 words x 300 dims, 6 decimals, ~1.1 GB,
# the shape of glove.6B.300d.txt), warms the page cache, then measures wall time and peak RSS
# (GNU time, '%e %M') of:
#   cat FILE > /dev/null           reading the bytes (floor)
#   wc -w FILE                     a trivial one-pass text scan (glove-convert should beat it)
#   glove-convert --threads T FILE -o out.emb
#   gensim KeyedVectors.load_word2vec_format(FILE, binary=False, no_header=True)
#   glove-convert --info out.emb   opening the result (mmap)
#   numpy np.memmap of the .emb's vectors, touching every value
# and prints a table plus the ratios wc/convert (target >= 3x, must be > 1x), gensim/convert
# (target >= 40x) and convert's peak RSS against the output size (should be O(output), not
# O(input text)).
#
# Environment:
#   BUILD          build (default): the build directory, relative to the repo root or absolute
#   GLOVE_CONVERT  binary to test (default: $BUILD/glove-convert)
#   ROWS, DIM      size of the generated file (default 400000, 300); e.g. ROWS=20000 for a smoke run
#   THREADS        glove-convert --threads (default 2)
#   BENCH_DIR      scratch parent (default /tmp): the run works in a fresh mktemp -d under it
#   KEEP=1         keep the scratch directory (the text file and out.emb) at the end
#   PYTHON         Python with numpy and gensim (default /usr/bin/python3: Debian's, see setup.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GLOVE_CONVERT=${GLOVE_CONVERT:-$BUILD/glove-convert}
ROWS=${ROWS:-400000}
DIM=${DIM:-300}
THREADS=${THREADS:-2}
KEEP=${KEEP:-0}
PYTHON=${PYTHON:-/usr/bin/python3}

need_tool glove-convert "$GLOVE_CONVERT" GLOVE_CONVERT
need_gnu_time
need_python
need_numpy
bench_scratch

text=$work/glove.${ROWS}x${DIM}.txt
emb=$work/out.emb

machine_block
echo "tool:    $GLOVE_CONVERT ($(version_of "$GLOVE_CONVERT"))"
echo "scratch: $work"

echo "== generating $ROWS x $DIM GloVe text"
gen_start=$(date +%s.%N)
"$PYTHON" "$here/make_glove_text.py" "$text" "$ROWS" "$DIM"
gen_end=$(date +%s.%N)
text_bytes=$(stat -c %s "$text")
echo "generated $text ($(stats mib-of-bytes "$text_bytes" 1) MB) in $(stats elapsed "$gen_start" "$gen_end" 1) s"
echo "flushing it to disk (sync), so writeback does not overlap the timings; warming the page cache"
sync
cat "$text" >/dev/null

# Results by name: seconds, peak MB, command line.
declare -A secs peak cmdline
names=()

# measure NAME CMD...: runs CMD under GNU time; stdout goes to $work/NAME.out; stops on failure.
measure() {
  local name=$1
  shift
  local tfile=$work/$name.time
  names+=("$name")
  cmdline[$name]="$*"
  echo "-- $name: $*"
  if ! timed "$tfile" "$@" >"$work/$name.out"; then
    cat "$work/$name.out" >&2
    die "$name failed: $*"
  fi
  read -r s kb < <(time_of "$tfile")
  secs[$name]=$s
  peak[$name]=$(mib "$kb" 1)
  printf '   %s s, %s MB peak RSS\n' "${secs[$name]}" "${peak[$name]}"
}

echo "== timing (warm cache)"
# shellcheck disable=SC2016 # $1 is bash -c's own argument, the file
measure cat bash -c 'cat "$1" >/dev/null' cat "$text"
cmdline[cat]="cat $text > /dev/null"
measure wc-w wc -w "$text"
echo "   words: $(awk '{print $1}' "$work/wc-w.out") (expected $((ROWS * (DIM + 1))))"
sync
measure convert "$GLOVE_CONVERT" --threads "$THREADS" "$text" -o "$emb"
emb_bytes=$(stat -c %s "$emb")
measure info "$GLOVE_CONVERT" --info "$emb"
sed 's/^/   | /' "$work/info.out"

cat >"$work/memmap.py" <<'EOF'
# Maps the "vectors" tensor of a safetensors (.emb) file with np.memmap and sums every value.
import json, struct, sys
import numpy as np
path = sys.argv[1]
with open(path, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    header = json.loads(f.read(n))
t = header["vectors"]
dtypes = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}  # bf16: raw bits (numpy has no bfloat16)
begin, end = t["data_offsets"]
v = np.memmap(path, dtype=dtypes[t["dtype"]], mode="r", offset=8 + n + begin, shape=tuple(t["shape"]))
print(v.shape, float(v.sum(dtype=np.float64)))
EOF
measure memmap "$PYTHON" "$work/memmap.py" "$emb"
echo "   $(cat "$work/memmap.out")"

have_gensim=0
if "$PYTHON" -c 'import gensim' 2>/dev/null; then
  have_gensim=1
  measure gensim-import "$PYTHON" -c 'import gensim.models'
  cat >"$work/gensim_load.py" <<'EOF'
# Loads GloVe text (no header) the way gensim users do.
import sys
from gensim.models import KeyedVectors
kv = KeyedVectors.load_word2vec_format(sys.argv[1], binary=False, no_header=True)
print(kv.vectors.shape)
EOF
  measure gensim "$PYTHON" "$work/gensim_load.py" "$text"
  echo "   $(cat "$work/gensim.out")"
else
  echo "skipped gensim: not installed ($PYTHON cannot import gensim; apt-get install python3-gensim)"
fi

echo
emb_mb=$(stats mib-of-bytes "$emb_bytes" 1)
text_mb=$(stats mib-of-bytes "$text_bytes" 1)
echo "== results: $ROWS x $DIM, text $text_mb MB, .emb $emb_mb MB (MB = MiB)"
printf '%-14s %9s %10s %10s  %s\n' tool seconds peak_MB text_MB/s command
for n in "${names[@]}"; do
  rate=$(stats rate "$text_bytes" "${secs[$n]}" --divide-by 1048576)  # MiB of text per second
  case $n in info | memmap | gensim-import) rate=- ;; esac
  printf '%-14s %9s %10s %10s  %s\n' "$n" "${secs[$n]}" "${peak[$n]}" "$rate" "${cmdline[$n]}"
done

# ratio_verdict RATIO TARGET MUST: against a speed target (and the floor it must pass).
ratio_verdict() { stats speed-verdict "$1" "$2" "$3"; }

echo
echo "== helper scripts run above"
for f in "$work/memmap.py" "$work/gensim_load.py"; do
  [[ -f $f ]] || continue
  echo "--- $f"
  cat "$f"
done

echo
echo "== ratios"
r=$(ratio "${secs[wc-w]}" "${secs[convert]}")
printf '%-34s %8sx  %s\n' "wc -w time / convert time" "$r" "$(ratio_verdict "$r" 3 1)"
if ((have_gensim)); then
  r=$(ratio "${secs[gensim]}" "${secs[convert]}")
  printf '%-34s %8sx  %s\n' "gensim time / convert time" "$r" "$(ratio_verdict "$r" 40 1)"
else
  printf '%-34s %8s   %s\n' "gensim time / convert time" "-" "skipped gensim: not installed"
fi
r=$(ratio "${secs[convert]}" "${secs[cat]}")
printf "%-34s %8s%s\n" "convert time / cat time" "$r" "$([[ $r == inf ]] || echo x)"
r=$(ratio "${peak[convert]}" "$emb_mb")
rt=$(ratio "${peak[convert]}" "$text_mb")
mem_verdict=$(stats memory-verdict "${peak[convert]}" "$emb_mb" "$text_mb")
printf '%-34s %8sx  (%s MB / %s MB .emb; %sx the %s MB text) %s\n' "convert peak RSS / .emb size" "$r" \
  "${peak[convert]}" "$emb_mb" "$rt" "$text_mb" "$mem_verdict"
