#!/usr/bin/env bash
# Every suite must fail when the tool under it is broken (issue 38): each CLI and interop
# suite is run against broken copies of its tools (tests/broken/broken_tool.sh: a crash on
# one option or one kind of query, a crash at exit after doing the work, a trainer that
# learns less than asked, a tool that prints nothing and exits 0), and each such run must
# exit non-zero. A suite that passes with a broken tool has a check that does not look at
# what it claims to.
#
# Usage (from the repository root):
#   check_suites_catch_breakage.sh GROUP GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN GEN_CLUSTERS CLUSTER_QUALITY
# GROUP: convert-query (the suites of glove-convert and embed-query, and the interop ones) or
#        train (the suites of embed-train and the benchmark helpers). Two groups so that
#        ctest runs them side by side, one per core.
#
# The suites run with EMBED_TEST_FAIL_FAST=1 (tests/cli/lib.sh): the first failed check ends
# a suite, so a broken run costs the time to its first failure, not the whole suite's.
#
# Not run here: cli_install (it installs the build folder's own tools with cmake --install,
# so a broken copy beside them is never what it runs) and cli_cuda_runtime (a GPU test;
# tests/kit runs the GPU suites on a device).
set -u
group=${1:?usage: check_suites_catch_breakage.sh GROUP GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN GEN_CLUSTERS CLUSTER_QUALITY}
shift
declare -A real
for tool in gc eq et gen qual; do
  real[$tool]=$(realpath "${1:?usage: check_suites_catch_breakage.sh GROUP GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN GEN_CLUSTERS CLUSTER_QUALITY}")
  shift
done
repo=$(pwd)
broken=$repo/tests/broken/broken_tool.sh
if [[ ! -x $broken ]]; then echo "check_suites_catch_breakage.sh: run it from the repository root" >&2; exit 2; fi
shims=$(mktemp -d)
trap 'rm -rf "$shims"' EXIT
export EMBED_TEST_FAIL_FAST=1
caught=0
missed=0
n=0

# suite_tools SUITE: the tools SUITE takes, in its argument order.
suite_tools() {
  case $1 in
    cli/cli_test.sh | cli/projector_cli_test.sh | interop/interop_test.sh) echo gc ;;
    cli/query_cli_test.sh | cli/ann_cli_test.sh) echo eq gc ;;
    interop/query_interop.sh) echo eq ;;
    interop/fasttext_interop.sh) echo gc eq et ;;
    cli/outputs_cli_test.sh) echo gc eq et ;;
    cli/pipes_cli_test.sh) echo et eq gc ;;
    cli/plot_cli_test.sh) echo eq et gc ;;
    render/render_svg.sh) echo eq et ;;
    cli/readme_quality_test.sh) echo et eq ;;
    cli/train_cli_test.sh | cli/glove_cli_test.sh | cli/mpi_cli_test.sh) echo et eq gc ;;
    cli/interrupt_cli_test.sh | cli/init_cli_test.sh | cli/train_disk_cli_test.sh) echo et gc ;;
    cli/glove_disk_cli_test.sh) echo et ;;
    python/python_package_test.sh) echo et eq gc ;;
    cli/gen_clusters_test.sh) echo gen qual et ;;
    *) echo "check_suites_catch_breakage.sh: no argument order for $1" >&2; exit 2 ;;
  esac
}

# expect_caught SUITE TOOL=MODE...: runs tests/SUITE with each TOOL (gc, eq, et, gen, qual)
# broken as MODE (broken_tool.sh's modes) and the others real; the run must exit non-zero
# and not 77 (a skip proves nothing either way).
expect_caught() {
  local suite=$1 args=() rc log tool spec
  shift
  n=$((n + 1))
  mkdir -p "$shims/$n"
  local -A mode=()
  for spec in "$@"; do mode[${spec%%=*}]=${spec#*=}; done
  for tool in $(suite_tools "$suite"); do
    if [[ -n ${mode[$tool]-} ]]; then
      "$broken" --make "$shims/$n/$tool" "${real[$tool]}" "${mode[$tool]}" || exit 2
      args+=("$shims/$n/$tool")
    else
      args+=("${real[$tool]}")
    fi
  done
  log=$shims/$n.log
  local start=$SECONDS
  bash "tests/$suite" "${args[@]}" > "$log" 2>&1
  rc=$?
  local what="$suite with $* ($((SECONDS - start)) s)"
  if [[ $rc -ne 0 && $rc -ne 77 ]]; then
    caught=$((caught + 1))
    echo "caught: $what: exit $rc: $(grep -m1 -E '^FAIL|FAIL:' "$log" | head -c 150)"
  else
    missed=$((missed + 1))
    echo "MISSED: $what passed (exit $rc): $(tail -1 "$log")" >&2
  fi
}

tab=$'\t'
have_gensim() { /usr/bin/python3 -c 'import numpy, gensim' 2> /dev/null; }
case $group in
  convert-query)
    # glove-convert: the audit's crash on --threads, a crash reading an .emb back as text,
    # silent, a crash at exit after --subwords.
    expect_caught cli/cli_test.sh gc=crash-on:--threads
    expect_caught cli/cli_test.sh gc=crash-on:n.emb
    expect_caught cli/cli_test.sh gc=silent
    expect_caught cli/cli_test.sh gc=crash-after:--subwords
    expect_caught cli/projector_cli_test.sh gc=silent
    expect_caught cli/projector_cli_test.sh gc=crash-on:--limit
    expect_caught cli/projector_cli_test.sh gc=crash-after:projector
    # embed-query: the audit's crashes on 3CosMul, --restrict and similarity queries.
    # (query_cli_test.sh is not run silent: it waits 60 s for an answer on a FIFO that never comes.)
    expect_caught cli/query_cli_test.sh eq=crash-on:3cosmul
    expect_caught cli/query_cli_test.sh eq=crash-on:--restrict
    expect_caught cli/query_cli_test.sh eq=crash-on:--similarity
    expect_caught cli/query_cli_test.sh gc=crash-on:--subwords
    expect_caught cli/ann_cli_test.sh eq=silent
    expect_caught cli/ann_cli_test.sh eq=crash-on:3cosmul
    expect_caught cli/ann_cli_test.sh gc=crash-on:--index
    # The gensim and fastText comparisons (skipped without the peers).
    if have_gensim; then
      expect_caught interop/query_interop.sh eq=crash-on:3cosmul
      expect_caught interop/query_interop.sh eq=crash-on:--restrict
      expect_caught interop/query_interop.sh "eq=crash-on-input:$tab"
      expect_caught interop/query_interop.sh eq=crash-after:3cosmul
      expect_caught interop/query_interop.sh eq=silent
      # The Python package's suite (numpy only).
      expect_caught python/python_package_test.sh eq=silent
      expect_caught python/python_package_test.sh gc=crash-on:bf16
      if command -v fasttext > /dev/null; then
        expect_caught interop/interop_test.sh gc=silent
        expect_caught interop/interop_test.sh gc=crash-on:--dtype
        expect_caught interop/interop_test.sh gc=crash-after:--from
        expect_caught interop/fasttext_interop.sh gc=crash-on:--subwords
        expect_caught interop/fasttext_interop.sh eq=silent
        expect_caught interop/fasttext_interop.sh et=crash-on:--init
      else
        echo "(no fasttext command: interop/interop_test.sh and fasttext_interop.sh not checked)"
      fi
    else
      echo "(no numpy and gensim in /usr/bin/python3: the interop suites not checked)"
    fi ;;
  train)
    # embed-train: silent, crashes on the options each suite is about, crashes at exit, and
    # trainers that learn less than asked where a suite promises quality.
    expect_caught cli/train_cli_test.sh et=silent
    expect_caught cli/train_cli_test.sh et=crash-on:cbow
    expect_caught cli/train_cli_test.sh et=crash-on:--resume
    expect_caught cli/train_cli_test.sh et=crash-after:--save-context
    expect_caught cli/train_cli_test.sh eq=silent
    expect_caught cli/train_cli_test.sh gc=crash-on:--info
    expect_caught cli/interrupt_cli_test.sh et=silent
    expect_caught cli/interrupt_cli_test.sh et=crash-on:--resume
    expect_caught cli/init_cli_test.sh et=crash-on:--init
    expect_caught cli/init_cli_test.sh et=crash-on:--lock-init
    expect_caught cli/init_cli_test.sh et=crash-after:--resume
    expect_caught cli/train_disk_cli_test.sh et=silent
    expect_caught cli/train_disk_cli_test.sh et=crash-on:--resume
    # The audit's: a --dim 1 model passed "related words closer than unrelated".
    expect_caught cli/glove_cli_test.sh et=set-where:long.emb:--dim=1
    expect_caught cli/glove_cli_test.sh et=crash-on:--cooc
    expect_caught cli/glove_cli_test.sh et=crash-on:--x-max
    expect_caught cli/glove_cli_test.sh eq=silent
    expect_caught cli/glove_disk_cli_test.sh et=silent
    expect_caught cli/glove_disk_cli_test.sh et=crash-on:--memory
    expect_caught cli/glove_disk_cli_test.sh et=crash-after:--resume
    expect_caught cli/outputs_cli_test.sh et=silent
    expect_caught cli/outputs_cli_test.sh eq=silent
    expect_caught cli/outputs_cli_test.sh gc=crash-on:/dev/fd
    expect_caught cli/pipes_cli_test.sh et=silent
    expect_caught cli/pipes_cli_test.sh et=crash-on:--init
    expect_caught cli/pipes_cli_test.sh eq=silent
    expect_caught cli/plot_cli_test.sh et=crash-on:--plot
    expect_caught cli/plot_cli_test.sh et=crash-on:plot
    expect_caught cli/plot_cli_test.sh eq=crash-on:map
    expect_caught cli/gen_clusters_test.sh gen=crash-on:--threads
    expect_caught cli/gen_clusters_test.sh gen=silent
    expect_caught cli/gen_clusters_test.sh qual=silent
    expect_caught cli/gen_clusters_test.sh et=set:--dim=1
    # The README's quality: the broken runs its bars were set against (readme_quality_test.sh).
    expect_caught cli/readme_quality_test.sh et=set:--epochs=1
    expect_caught cli/readme_quality_test.sh et=set:--epochs=6
    expect_caught cli/readme_quality_test.sh et=set:--dim=2
    expect_caught cli/readme_quality_test.sh eq=crash-on:--analogy
    if command -v chromium > /dev/null || command -v chromium-browser > /dev/null; then
      expect_caught render/render_svg.sh et=crash-on:--plot
      expect_caught render/render_svg.sh eq=silent
    else
      echo "(no chromium: render/render_svg.sh not checked)"
    fi
    if command -v mpirun > /dev/null; then
      expect_caught cli/mpi_cli_test.sh et=silent
      # The audit's: a 2-dim, 1-negative, 1-epoch model found every planted topic.
      expect_caught cli/mpi_cli_test.sh et=set-where:topics.txt:--dim=2,--negative=1,--epochs=1
    else
      echo "(no mpirun: cli/mpi_cli_test.sh not checked)"
    fi ;;
  *) echo "check_suites_catch_breakage.sh: GROUP is convert-query or train, not '$group'" >&2; exit 2 ;;
esac

echo "$group: $caught broken variants caught, $missed missed"
[[ $missed -eq 0 ]]
