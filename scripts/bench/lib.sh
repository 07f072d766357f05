# shellcheck shell=bash
# lib.sh: the helpers the benchmark scripts beside it share. Each script sources it first:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Kept in one place so that the scripts report alike (the same statistics, the same
# rounding, the same error and skip lines) and a fix reaches all of them. A helper only one
# script needs stays in that script, except the statistics over lists, kept together so that
# the next script finds them. The arithmetic itself (statistics, rates, verdicts) and the
# reading of the tools' logs and --metrics files live in benchstats.py beside it, called
# through `stats` below: the scripts run tools and print tables, benchstats.py computes.
#
# Sets: bench_name (bench-NAME for NAME.sh: the prefix of its messages), here (this folder:
# the scripts' Python helpers sit beside them), repo (two folders up: the repository, or the
# device kit, which keeps the same scripts/bench/ layout), BUILD, TIME, RESTRICT, and SHARED,
# data, analogies, wordsim (the shared data the training benchmarks read).

# "bench-" + the script's name, as these scripts were once called: their messages keep that
# prefix, and the device kit's run.sh tells a skipped step by "NAME: skipped" with NAME
# in [a-z_.-].
bench_name=bench-$(basename "${BASH_SOURCE[1]:-$0}" .sh)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The build the tools come from, one setting for every script (its per-tool variables, where
# it has them, still win): relative to the repo root, or absolute.
BUILD=${BUILD:-build}
[[ $BUILD == /* ]] || BUILD=$repo/$BUILD
TIME=/usr/bin/time
# Analogy questions are restricted to the most frequent words, as gensim's restrict_vocab, so
# that the figures compare with gensim's and Stanford GloVe's.
RESTRICT=30000
SHARED=${SHARED:-$repo/../shared}
data=$SHARED/data
analogies=$data/questions-words.txt
wordsim=$data/wordsim353.tsv

# ---- stopping ------------------------------------------------------------------------------

die() { echo "$bench_name: $*" >&2; exit 1; }
# skip WHY: ends the benchmark with status 0: a machine without the data or the GPU is not a
# failure.
skip() { echo "$bench_name: skipped: $*"; exit 0; }

# need_data FILE...: skips the benchmark when a file of the shared data is missing (the data
# sits beside the repository, not in it).
need_data() {
  local f
  for f in "$@"; do
    [[ -f $f ]] || skip "no $f (the shared data beside the repo; set SHARED=...)"
  done
}

# need_tool NAME PATH [VARIABLE]: dies unless PATH is an executable (VARIABLE: the setting
# that points elsewhere). The benchmark helpers (bench-*) are built only on request.
need_tool() {
  local how="cmake --build build"
  if [[ $1 == bench-* ]]; then how="cmake -S . -B build -DEMBED_BENCHMARKS=ON && cmake --build build --target $1"; fi
  [[ -x $2 ]] || die "no $1 at $2: build it first ($how)${3:+ or set $3}"
}

# need_gnu_time: the timings read GNU time's -f '%e %M' (wall seconds, peak RSS), which
# bash's time keyword and BSD time do not have.
need_gnu_time() { [[ -x $TIME ]] || die "GNU time not found at $TIME (apt-get install time)"; }

# need_python: dies unless PYTHON (a path, or a name on the PATH, as the device kit passes
# python3) runs; sets PYTHON to its path.
need_python() {
  local path
  path=$(command -v "$PYTHON") || die "no Python at $PYTHON (set PYTHON)"
  PYTHON=$path
}
need_numpy() {
  "$PYTHON" -c 'import numpy' 2>/dev/null || die "$PYTHON cannot import numpy (apt-get install python3-numpy)"
}

# need_metrics EMBED_TRAIN: the figures of embed-train's epochs come from its --metrics file,
# so a binary older than that option cannot be benchmarked: say so before any run. (The help
# is captured whole: under pipefail, grep -q closing the pipe early could fail the check.)
need_metrics() {
  local help
  help=$("$1" --help 2>&1) || true
  [[ $help == *--metrics* ]] ||
    die "$1 has no --metrics option: rebuild it (these figures come from its --metrics file)"
}

# ---- words and numbers ---------------------------------------------------------------------

# has LIST WORD: whether WORD is one of the space-separated words of LIST.
has() { [[ " $1 " == *" $2 "* ]]; }

# stats SUBCOMMAND ARGS...: benchstats.py (beside this file), where every statistic and every
# figure read from a log is computed (its --help lists them), run by the script's PYTHON
# (Debian's /usr/bin/python3 where the script sets none; the device kit passes python3): it
# needs only the standard library. Callers put -- before values that may be negative, which
# would otherwise read as options.
stats() { "${PYTHON:-/usr/bin/python3}" "$here/benchstats.py" "$@"; }

# Statistics over a space-separated list of numbers (the scripts gather one list per figure,
# a number per run); "-" for an empty list. benchstats.py says why each is the one used.
median() { stats median -- "$1"; }
maximum() { stats maximum -- "$1"; }
mean() { stats mean -- "$1"; }
# mean_spread LIST DECIMALS: "mean ± (max-min)/2".
mean_spread() { stats mean-spread "$2" -- "$1"; }
# mean_sd LIST DECIMALS: "mean +- sample standard deviation" ("mean" alone for one value).
mean_sd() { stats mean-sd "$2" -- "$1"; }

# ratio A B: A/B to two decimals ("inf" when B is 0, so that a run too fast to time does not
# stop the report).
ratio() { stats ratio -- "$1" "$2"; }
# verdict CONDITION [MET NOT_MET]: "met" or "NOT met" (or the words given), CONDITION an
# arithmetic comparison of numbers ("$x >= 0.9", "-0.5 <= $d <= 0.5"): the figures are floats.
verdict() { stats verdict -- "$@"; }
# mib KILOBYTES [DECIMALS]: GNU time's %M (KiB) in MB of 2^20 bytes (default 0 decimals).
mib() { stats mib "$1" "${2:-0}"; }

# ---- running -------------------------------------------------------------------------------

# timed TIMEFILE COMMAND...: runs COMMAND under GNU time, its wall seconds and peak RSS (KiB)
# going to TIMEFILE; returns COMMAND's status. time_of TIMEFILE prints "SECONDS KIB": the last
# line, since on failure GNU time writes "Command exited with non-zero status" before it.
timed() { "$TIME" -f '%e %M' -o "$1" "${@:2}"; }
time_of() { tail -1 "$1"; }

# version_of TOOL: the first line of TOOL --version, to name the build in the output.
version_of() { "$1" --version 2>&1 | head -1; }

# bench_scratch: makes the scratch directory $work (under BENCH_DIR, default /tmp), removed
# when the script exits unless KEEP=1 (to look at the files a run left).
bench_scratch() {
  mkdir -p "${BENCH_DIR:-/tmp}"
  work=$(mktemp -d "${BENCH_DIR:-/tmp}/$bench_name.XXXXXX")
  trap 'if [[ ${KEEP:-0} == 1 ]]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
}

# ---- the machine ---------------------------------------------------------------------------

cpu_model() { sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1; }
memory_gib() { awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo; }

# machine_line: the CPU, memory and time in one line, to head and close a benchmark's output
# (bench/RESULTS.md quotes it).
machine_line() {
  echo "machine: $(nproc) x $(cpu_model), $(memory_gib), cpu path $(cpu_path), $(date -u '+%Y-%m-%d %H:%M UTC')"
}

# cpu_path: the instruction-set level embed's CPU loops run at (avx512, avx2, baseline: the
# "cpu:" line of embed-train --version, which EMBED_CPU_ISA lowers), or "?" without a build.
cpu_path() {
  local line
  line=$("${EMBED_TRAIN:-$BUILD/embed-train}" --version 2>/dev/null | sed -n 's/^cpu: //p') || true
  echo "${line:-?}"
}

# machine_block: the same, a line each, under "== machine".
machine_block() {
  echo "== machine"
  echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host:    $(uname -srm)"
  echo "cpus:    $(nproc) x $(cpu_model)"
  echo "path:    $(cpu_path)"
  echo "memory:  $(memory_gib)"
}

# ---- embed-train's figures and embed-query eval --------------------------------------------

# epoch_figures METRICS: embed-train's --metrics file (a JSON object per line), its "epoch"
# events summed up, as shell assignments to eval:
#   epochs_run  epoch events;  unit  words, or records for GloVe
#   units       units done by the last epoch (in this run)
#   train_s     seconds of the epochs: each epoch's units over its per_second (the rate over
#               that epoch), summed, so that it does not depend on where "time" starts
#               counting (GloVe counts before it trains)
#   rate        units / train_s;  last_rate  the last epoch's per_second
#   loss        the last epoch's loss (GloVe: its cost)
# Full precision: the caller rounds. Fails (status 1, the reason on stderr) when the file
# holds no epoch event.
epoch_figures() { stats epoch-figures "$1"; }

# evaluate VECTORS JSON: embed-query eval ($EMBED_QUERY, $THREADS threads) of VECTORS on the
# Google analogies (restricted to the RESTRICT most frequent words) and WordSim-353, its JSON
# kept in JSON; prints "accuracy correct answered questions spearman restrict" (accuracy in
# percent, 0 when no question was answered; restrict: the words eval knew, at most RESTRICT).
# Called as $(evaluate ...), its die ends only that subshell: the caller adds || exit 1.
evaluate() {
  "$EMBED_QUERY" eval "$1" --analogies "$analogies" --word-pairs "$wordsim" \
    --restrict "$RESTRICT" --threads "$THREADS" --format json -q >"$2" ||
    die "embed-query eval failed on $1"
  stats eval "$2" || die "cannot read $2"
}
