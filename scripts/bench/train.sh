#!/usr/bin/env bash
# train.sh: embed-train against fastText and gensim on identical settings, in one run.
#
# Settings for every tool: dim 100, window 5, negative 5, min-count 5, sample 1e-4, lr 0.025
# (CBOW: 0.05, the word2vec/gensim CBOW default), linear lr decay, THREADS threads.
#   quality     for each MODEL and each SEED: train on text8-head for EPOCHS epochs with
#               embed-train, fastText and gensim (interleaved per seed, so machine noise hits
#               every tool alike), then evaluate each result with embed-query eval (Google
#               analogies restricted to the 30,000 most frequent words, WordSim-353 Spearman).
#   throughput  text8-head repeated REPEAT times (one copy per line), 1 epoch, each tool
#               THROUGHPUT_RUNS times, no evaluation.
# Every training run is a whole process timed by GNU time (wall seconds, peak RSS).
# Words/s = words in the input file (wc -w) x epochs / whole-process wall seconds, the same
# formula for every tool (not embed-train's own epoch rates from its --metrics file: those
# leave out reading the corpus, which the others' figures cannot). Prints a table per model
# with the ratios embed-train/fastText and embed-train/gensim (words/s), then a "machine:"
# line for bench/RESULTS.md.
#
# Needs ../shared/data (text8-head.txt, questions-words.txt, wordsim353.tsv) beside the repo
# (skipped with a message when absent), a build (build/embed-train, build/embed-query: cmake
# --build build), GNU time. fastText: Debian's /usr/bin/fasttext 0.9.2 (built without AVX;
# say so when quoting it). gensim: Debian's python3-gensim 4.2, importable only by
# /usr/bin/python3 (train_gensim.py, beside this script, runs it). A missing fastText or gensim
# is skipped with a note.
#
# Environment:
#   PARTS            "quality throughput" (default), or one of them
#   TOOLS            "embed fasttext gensim" (default), any subset
#   CPU_PATHS        embed-train's instruction-set levels to run, each as a tool of its own
#                    ("embed-avx2"), e.g. "avx512 avx2 baseline" (EMBED_CPU_ISA: core/cpu_isa.h);
#                    default: the widest this CPU has, as the tool "embed"
#   MODELS           "skipgram cbow" (default; throughput uses the same list)
#   SEEDS            "1 2 3" (default), quality part
#   EPOCHS           5 (default), quality part (throughput is always 1 epoch)
#   THREADS          2 (default)
#   LR, LR_CBOW      0.025, 0.05 (defaults): starting learning rate for skip-gram, CBOW
#   REPEAT           8 (default): copies of the corpus in the throughput file
#   THROUGHPUT_RUNS  1 (default): runs per tool in the throughput part (median reported)
#   CORPUS           training text (default $SHARED/data/text8-head.txt); e.g. a 200k-word
#                    slice for a smoke run: head -c 1200000 ../shared/data/text8-head.txt
#   SHARED           shared directory (default: ../shared beside the repo root)
#   BUILD            build (default): the build directory, relative to the repo root or absolute
#   EMBED_TRAIN      default $BUILD/embed-train;  EMBED_QUERY  default $BUILD/embed-query
#   FASTTEXT         default fasttext (on PATH); PYTHON  default /usr/bin/python3 (gensim)
#   BENCH_DIR        scratch parent (default /tmp); KEEP=1 keeps the scratch directory
#   GENSIM_QUALITY_READER, GENSIM_THROUGHPUT_READER
#                    how gensim reads the corpus (train_gensim.py --reader): "lines" (default for
#                    quality: a LineSentence iterable, whose learning rate decays over all workers'
#                    words as word2vec's and embed-train's do) or "file" (default for throughput:
#                    corpus_file=, gensim's fastest path, whose per-worker schedule keeps the rate
#                    higher and scores higher on text8-head: issue 23, bench/RESULTS.md)
# Caveat for a CORPUS whose vocabulary passes 30,000 words (RESTRICT): each file is evaluated
# on its own first 30,000 words, and the tools order words of equal count differently (gensim
# by np.argsort, not stable; embed-train by first appearance), so they answer slightly different
# question sets (text8-head x 8: 9,599 against 9,904). bench/RESULTS.md (issue 23) rewrote
# gensim's vectors in embed-train's order to compare them; text8-head (15k words) is unaffected.
# Smoke run: CORPUS=/tmp/slice.txt EPOCHS=1 SEEDS=1 REPEAT=2 bash scripts/bench/train.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${PARTS:-quality throughput}
GENSIM_QUALITY_READER=${GENSIM_QUALITY_READER:-lines}
GENSIM_THROUGHPUT_READER=${GENSIM_THROUGHPUT_READER:-file}
TOOLS=${TOOLS:-embed fasttext gensim}
MODELS=${MODELS:-skipgram cbow}
SEEDS=${SEEDS:-1 2 3}
EPOCHS=${EPOCHS:-5}
THREADS=${THREADS:-2}
LR=${LR:-0.025}
LR_CBOW=${LR_CBOW:-0.05}
REPEAT=${REPEAT:-8}
THROUGHPUT_RUNS=${THROUGHPUT_RUNS:-1}
EMBED_TRAIN=${EMBED_TRAIN:-$BUILD/embed-train}
EMBED_QUERY=${EMBED_QUERY:-$BUILD/embed-query}
FASTTEXT=${FASTTEXT:-fasttext}
PYTHON=${PYTHON:-/usr/bin/python3}
KEEP=${KEEP:-0}
GENSIM_SCRIPT=$here/train_gensim.py

[[ -d $data ]] || skip "no $data (the shared data beside the repo; set SHARED=...)"
CORPUS=${CORPUS:-$data/text8-head.txt}
for f in "$CORPUS" "$analogies" "$wordsim"; do
  [[ -f $f ]] || die "missing $f"
done
need_gnu_time
need_python
for p in $PARTS; do
  has "quality throughput" "$p" || die "unknown part '$p' in PARTS (quality, throughput)"
done
for t in $TOOLS; do
  has "embed fasttext gensim" "$t" || die "unknown tool '$t' in TOOLS (embed, fasttext, gensim)"
done
for m in $MODELS; do
  has "skipgram cbow" "$m" || die "unknown model '$m' in MODELS (skipgram, cbow)"
done
if has "$PARTS" quality; then
  need_tool embed-query "$EMBED_QUERY" EMBED_QUERY
fi

# Tools that will run, in the order they run within a seed.
tools=()
notes=()
for t in $TOOLS; do
  case $t in
    embed)
      need_tool embed-train "$EMBED_TRAIN" EMBED_TRAIN
      if [[ -n ${CPU_PATHS:-} ]]; then
        for path in $CPU_PATHS; do
          if [[ $(EMBED_CPU_ISA=$path cpu_path) != "$path"* ]]; then
            die "CPU_PATHS: $path: $(EMBED_CPU_ISA=$path cpu_path)"
          fi
          tools+=("embed-$path")
        done
        continue
      fi
      ;;
    fasttext)
      if ! command -v "$FASTTEXT" >/dev/null; then
        notes+=("skipped fasttext: '$FASTTEXT' not found (apt-get install fasttext, or set FASTTEXT)")
        continue
      fi
      FASTTEXT=$(command -v "$FASTTEXT")
      ;;
    gensim)
      if ! "$PYTHON" -c 'import gensim' 2>/dev/null; then
        notes+=("skipped gensim: $PYTHON cannot import gensim (apt-get install python3-gensim, or set PYTHON)")
        continue
      fi
      ;;
  esac
  tools+=("$t")
done
for n in ${notes[@]+"${notes[@]}"}; do echo "$n"; done
((${#tools[@]} > 0)) || die "no tool to run (TOOLS=$TOOLS)"

bench_scratch

echo "== $bench_name"
machine_line
for t in "${tools[@]}"; do
  case $t in
    embed | embed-*) echo "$t: $EMBED_TRAIN ($(version_of "$EMBED_TRAIN"), cpu path $(EMBED_CPU_ISA=${t#embed-} cpu_path))" ;;
    fasttext)
      if [[ $FASTTEXT == /usr/bin/fasttext ]] && v=$(dpkg-query -W -f '${Version}' fasttext 2>/dev/null); then
        echo "fasttext: $FASTTEXT (Debian package $v: built without AVX)"
      else
        echo "fasttext: $FASTTEXT"
      fi
      ;;
    gensim) echo "gensim:   $("$PYTHON" -c 'import gensim; print(gensim.__version__)') ($PYTHON)" ;;
  esac
done
corpus_words=$(wc -w <"$CORPUS")
echo "corpus:   $CORPUS ($corpus_words words)"
echo "settings: dim 100, window 5, negative 5, min-count 5, sample 1e-4, lr $LR (cbow $LR_CBOW), $THREADS threads"
echo "scratch:  $work"
cat "$CORPUS" >/dev/null # warm the page cache

lr_of() { if [[ $1 == cbow ]]; then echo "$LR_CBOW"; else echo "$LR"; fi; }

# train TOOL MODEL SEED EPOCHS CORPUS PREFIX: trains under GNU time; sets trained_vectors (the
# file to evaluate), run_secs, run_mb. Stops on failure with the tool's output.
train() {
  local tool=$1 model=$2 seed=$3 epochs=$4 corpus=$5 prefix=$6
  local lr cmd=()
  lr=$(lr_of "$model")
  case $tool in
    embed | embed-*)
      trained_vectors=$prefix.emb
      # embed-PATH: EMBED_CPU_ISA=PATH (plain "embed": the CPU's own, or the caller's setting).
      [[ $tool == embed ]] && cmd=() || cmd=(env "EMBED_CPU_ISA=${tool#embed-}")
      cmd+=("$EMBED_TRAIN" --corpus "$corpus" --output "$trained_vectors" --model "$model" --dim 100
        --window 5 --negative 5 --min-count 5 --sample 1e-4 --epochs "$epochs" --lr "$lr"
        --threads "$THREADS" --seed "$seed" -q)
      ;;
    fasttext)
      # fastText 0.9.2 has -seed (default 0). -minn 0 -maxn 0: no character n-grams, plain
      # word2vec; it writes $prefix.bin (model) and $prefix.vec (text vectors).
      trained_vectors=$prefix.vec
      cmd=("$FASTTEXT" "$model" -input "$corpus" -output "$prefix" -minn 0 -maxn 0 -dim 100 -ws 5
        -neg 5 -minCount 5 -t 1e-4 -epoch "$epochs" -lr "$lr" -thread "$THREADS" -seed "$seed"
        -verbose 0)
      ;;
    gensim)
      trained_vectors=$prefix.bin
      cmd=("$PYTHON" "$GENSIM_SCRIPT" "$corpus" "$trained_vectors" --model "$model" --dim 100
        --window 5 --negative 5 --min-count 5 --sample 1e-4 --epochs "$epochs" --lr "$lr"
        --threads "$THREADS" --seed "$seed" --reader "$gensim_reader")
      ;;
  esac
  if ! timed "$prefix.time" "${cmd[@]}" >"$prefix.log" 2>&1; then
    cat "$prefix.log" >&2
    die "$tool failed: ${cmd[*]}"
  fi
  [[ -s $trained_vectors ]] || die "$tool wrote no $trained_vectors: ${cmd[*]}"
  local kb
  read -r run_secs kb < <(time_of "$prefix.time")
  run_mb=$(mib "$kb")
}

# kwords_per_s WORDS SECONDS: words/s in thousands ("123k"; "inf" for a run too fast to time).
kwords_per_s() { stats rate "$1" "$2" --divide-by 1000 --suffix k; }

# Results, keyed "part/model/tool": space-separated lists over runs.
declare -A r_secs r_mb r_acc r_ws

# show_gensim_timing TOOL PREFIX: for gensim, its own line (import / train / write seconds).
show_gensim_timing() { [[ $1 != gensim ]] || sed -n 's/^gensim: /     | /p' "$2.log"; }

# The embed-train tools (embed, or one per CPU_PATHS level); the first is embed_x's reference.
embed_tools=()
for t in "${tools[@]}"; do [[ $t != embed* ]] || embed_tools+=("$t"); done

# embed_x PART MODEL TOOL: the first embed-train tool's words/s over TOOL's (median walls), "-"
# without one.
embed_x() {
  local key=$1/$2
  if ((${#embed_tools[@]} == 0)) || [[ -z ${r_secs[$key/${embed_tools[0]}]:-} ]]; then
    echo -
    return
  fi
  ratio "$(median "${r_secs[$key/$3]}")" "$(median "${r_secs[$key/${embed_tools[0]}]}")"
}

# print_ratios PART MODEL: each embed-train tool's words/s over fastText's and gensim's.
print_ratios() {
  local key=$1/$2 e line embed
  for embed in ${embed_tools[@]+"${embed_tools[@]}"}; do
    [[ -n ${r_secs[$key/$embed]:-} ]] || continue
    e=$(median "${r_secs[$key/$embed]}")
    line=""
    for t in fasttext gensim; do
      [[ -n ${r_secs[$key/$t]:-} ]] || continue
      line+="  $embed / $t: $(ratio "$(median "${r_secs[$key/$t]}")" "$e")x"
    done
    [[ -z $line ]] || echo "words/s ratio$line"
  done
}

if has "$PARTS" quality; then
  gensim_reader=$GENSIM_QUALITY_READER
  echo
  echo "== quality: $EPOCHS epoch(s) on $(basename "$CORPUS"), seeds: $SEEDS (gensim reads it as: $gensim_reader)"
  for model in $MODELS; do
    for seed in $SEEDS; do
      for tool in "${tools[@]}"; do
        key=quality/$model/$tool
        train "$tool" "$model" "$seed" "$EPOCHS" "$CORPUS" "$work/$tool-$model-$seed"
        vals=$(evaluate "$trained_vectors" "$work/$tool-$model-$seed.json") || exit 1
        read -r acc correct answered questions ws _ <<<"$vals"
        r_secs[$key]+="$run_secs "
        r_mb[$key]+="$run_mb "
        r_acc[$key]+="$acc "
        r_ws[$key]+="$ws "
        printf '  %-8s %-12s seed %-3s %7.2f s %6s MB  analogy %5.2f%% (%s/%s of %s)  ws353 %.3f\n' \
          "$model" "$tool" "$seed" "$run_secs" "$run_mb" "$acc" "$correct" "$answered" "$questions" "$ws"
        show_gensim_timing "$tool" "$work/$tool-$model-$seed"
        # fastText's .bin is the full model (only needed to resume or quantize); drop it.
        [[ $tool != fasttext ]] || rm -f "$work/$tool-$model-$seed.bin"
      done
    done
  done
fi

if has "$PARTS" throughput; then
  echo
  big=$work/corpus-x$REPEAT.txt
  for ((i = 0; i < REPEAT; i++)); do
    cat "$CORPUS"
    # keep one copy per line even if the corpus does not end with a newline
    [[ -z $(tail -c 1 "$CORPUS") ]] || echo
  done >"$big"
  big_words=$(wc -w <"$big")
  gensim_reader=$GENSIM_THROUGHPUT_READER
  echo "== throughput (gensim reads it as: $gensim_reader): 1 epoch on $(basename "$CORPUS") x $REPEAT ($big_words words), $THROUGHPUT_RUNS run(s) per tool"
  cat "$big" >/dev/null
  for model in $MODELS; do
    for ((run = 1; run <= THROUGHPUT_RUNS; run++)); do
      for tool in "${tools[@]}"; do
        key=throughput/$model/$tool
        prefix=$work/tp-$tool-$model-$run
        train "$tool" "$model" "$run" 1 "$big" "$prefix"
        r_secs[$key]+="$run_secs "
        r_mb[$key]+="$run_mb "
        printf '  %-8s %-12s run %-3s %7.2f s %6s MB  %s words/s\n' \
          "$model" "$tool" "$run" "$run_secs" "$run_mb" "$(kwords_per_s "$big_words" "$run_secs")"
        show_gensim_timing "$tool" "$prefix"
        rm -f "$prefix".*
      done
    done
  done
fi

echo
echo "== results (words/s = input words x epochs / whole-process wall s; wall s: median over runs;"
echo "   embed_x: the first embed-train tool's words/s / this tool's; peak MB: largest over runs;"
echo "   quality: mean ± half the range (max-min)/2 over seeds; analogy restricted to $RESTRICT words)"
if has "$PARTS" quality; then
  nseeds=$(wc -w <<<"$SEEDS")
  for model in $MODELS; do
    echo
    echo "quality, $model: $(basename "$CORPUS") ($corpus_words words), $EPOCHS epoch(s), lr $(lr_of "$model"), $THREADS threads, $nseeds seed(s)"
    printf '%-12s %8s %9s %8s %8s %16s %16s\n' tool wall_s words/s embed_x peak_MB analogy_% ws353_spearman
    for tool in "${tools[@]}"; do
      key=quality/$model/$tool
      s=$(median "${r_secs[$key]}")
      printf '%-12s %8.2f %9s %8s %8s %16s %16s\n' "$tool" "$s" \
        "$(kwords_per_s $((corpus_words * EPOCHS)) "$s")" "$(embed_x quality "$model" "$tool")" \
        "$(maximum "${r_mb[$key]}")" "$(mean_spread "${r_acc[$key]}" 2)" "$(mean_spread "${r_ws[$key]}" 3)"
    done
    print_ratios quality "$model"
  done
fi
if has "$PARTS" throughput; then
  for model in $MODELS; do
    echo
    echo "throughput, $model: $(basename "$CORPUS") x $REPEAT ($big_words words), 1 epoch, lr $(lr_of "$model"), $THREADS threads, $THROUGHPUT_RUNS run(s)"
    printf '%-12s %8s %9s %8s %8s\n' tool wall_s words/s embed_x peak_MB
    for tool in "${tools[@]}"; do
      key=throughput/$model/$tool
      s=$(median "${r_secs[$key]}")
      printf '%-12s %8.2f %9s %8s %8s\n' "$tool" "$s" "$(kwords_per_s "$big_words" "$s")" \
        "$(embed_x throughput "$model" "$tool")" "$(maximum "${r_mb[$key]}")"
    done
    print_ratios throughput "$model"
  done
fi
for n in ${notes[@]+"${notes[@]}"}; do echo "$n"; done
echo
machine_line
