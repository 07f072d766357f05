#!/usr/bin/env bash
# run.sh: the device kit's runner (scripts/device-kit.sh copies it to .device-kit/run.sh;
# docs/GPU.md is the runbook). Runs our GPU tests and benchmarks from the kit alone, on
# a machine with an NVIDIA GPU, the CUDA runtime's driver and Python 3, and none of our
# Debian packages.
#
#   run.sh all [OUTDIR]       every GPU check in one call, inside 8 minutes, in an order where a
#                             slow step cannot starve the others (each has its own cap): the
#                             Catch2 suites, the CLI tests (two ranks under the kit's mpirun among
#                             them), skip-gram words/s at dim 100 and 300
#                             (device, host gather, host mapped, every CPU core), the big-table
#                             benchmark (host placement at 1/4 and 1/16 of the tables' bytes
#                             against device placement, a few million words), GPU-trained
#                             quality against the CPU's (3 seeds each), and GloVe's quality on
#                             the GPU
#   run.sh big [OUTDIR]       the host side of host placement on 1, 8 and 16 threads
#                             (bench-host-rows), then the big-table benchmark at its full size
#                             (device, each budget gathered in f32 and f16, a second seed):
#                             inside 500 s
#   run.sh quick [OUTDIR]     every GPU test (Catch2 suites, then the CLI tests), each under
#                             timeout, then one short benchmark: inside 8 minutes
#   run.sh bench [OUTDIR]     the GPU benchmarks: words/s in device and host placement at dim
#                             100 and 300 beside the CPU and the roofline, GloVe records/s, GPU
#                             query q/s against the CPU, GPU-trained vectors' quality: inside 9 minutes
#   run.sh memcheck [OUTDIR]  the Catch2 suites (but the [large] case) and short training
#                             runs with cold rows under compute-sanitizer's memcheck, skip-gram's
#                             kernels under its racecheck: inside 9 minutes
#   run.sh hostside [OUTDIR]  host placement's CPU side on 1, 8 and 16 threads (bench-host-rows), then
#                             big_table at 1M ids, 1/4 and 1/16 of the budget: gathered f32 and f16,
#                             mapped f32 and f16
#   run.sh mpi [OUTDIR]       two ranks under the kit's mpirun sharing the GPU, and the Python package
#                             with PyTorch (pip's offline install included), after the GPU's compute mode;
#                             then two ranks' quality against one process's at several --sync-interval
#   run.sh optimizers [OUTDIR]  skip-gram and CBOW with sgd, adagrad, rowadagrad and adam (summed
#                             steps): words/s per placement against sgd's and the
#                             CPU's, quality against the CPU's, then adam in host placement
#                             with its tables plus state 4 times the GPU budget (inside 9 minutes)
#   run.sh rules [OUTDIR]     the optimizers whose state is not a sum (adam, adamw, adamax, rmsprop,
#                             adadelta, rprop, asgd), which skip-gram and CBOW train in summed steps:
#                             the GPU suites and CLI tests, then skip-gram's and CBOW's words/s and
#                             quality with several of them against sgd's and the CPU's (inside 9
#                             minutes)
#   run.sh subwords [OUTDIR]  fastText's model (--subwords) on the GPU: its one-batch test against the
#                             CPU, the CLI tests, then words/s at dim 100 and 300 against the CPU and
#                             fastText, and quality against the CPU's (inside 9 minutes)
#   run.sh large [OUTDIR]     one epoch of skip-gram on a 1e9-word corpus streamed from disk, on
#                             the GPU and on every CPU core: words/s and peak RSS (inside 9 minutes)
#   run.sh profile [OUTDIR]   Nsight Compute (ncu) on one batch's skip-gram kernel in device
#                             placement at dim 100 and 300, f32 pairs added by two atomics and by
#                             one: occupancy, stalls, the L2's load and atomics (a few minutes)
#
# OUTDIR (default $OUT, else ./out) receives log.txt (everything) and summary.txt (one line
# per test, PASS, FAIL, TIMEOUT, SKIP or NOTRUN, and the benchmarks' tables), which is also
# printed last. Exits 1 when a test failed, timed out or was not reached. Where no GPU is
# usable every test reports SKIP and the run exits 0.
# Environment: CUBLAS_DIR (where libcublas.so.N is, when the search below misses it),
# BUDGET_S (overrides the mode's time budget), KEEP=1 keeps the scratch folder, ONLY="NAME ..."
# runs only the mode's steps of those names (a rerun of what failed: ONLY="gpu_train" run.sh all),
# FAILED_KERNELS="rows warp" leaves out the benchmark rows of skip-gram kernels a first call
# saw fail their skipgram_kernel_* step (a rerun with ONLY= does not run those steps again).
# LARGEST_MODE (f16, or f16m: mapped transfers) is the host placement `largest` trains with.
set -uo pipefail

kit=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=${1:-}
case $mode in
  quick | all) budget=${BUDGET_S:-480} ;;
  big) budget=${BUDGET_S:-500} ;;
  bench | hostside | memcheck | large | largest | mpi | optimizers | rules | subwords | profile) budget=${BUDGET_S:-530} ;;
  *) echo "usage: run.sh all|quick|big|bench|hostside|memcheck|large|largest|mpi|optimizers|rules|subwords|profile [OUTDIR]" >&2; exit 2 ;;
esac
out=${2:-${OUT:-./out}}
mkdir -p "$out" && out=$(cd "$out" && pwd) || { echo "run.sh: cannot write to $out" >&2; exit 2; }
log=$out/log.txt
summary=$out/summary.txt
: > "$log"
: > "$summary"
start=$SECONDS
scratch=$(mktemp -d "${TMPDIR:-/tmp}/embed-kit.XXXXXX")
trap '[[ ${KEEP:-0} == 1 ]] || rm -rf "$scratch"' EXIT

say() { echo "$*" | tee -a "$log"; }              # to the log and the caller
note() { echo "$*" >> "$summary"; say "$*"; }    # ... and the summary
left() { echo $((budget - (SECONDS - start))); }  # seconds of the budget left
manifest() { awk -v k="$1" '$1 == k {sub(/^[^ ]+ /, ""); print; exit}' "$kit/MANIFEST" 2>/dev/null; }

# --- the machine ------------------------------------------------------------------------
note "embed device kit: $mode, $(date -u '+%Y-%m-%d %H:%M UTC'), kit $(manifest commit), built $(manifest built)"
note "host: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
  "$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
# A VM names its CPU "Intel Xeon Processor" alone: the family and model numbers tell the
# generation (85 Skylake/Cascade Lake, 106 Ice Lake, 143 Sapphire Rapids), and the CPU
# figures of two machines differed 2.6x (H100 and H200 machines, 2026-11-27).
note "cpu: $(awk -F': ' '/^cpu family/ {f = $2} /^model\t/ {m = $2} /^cpu MHz/ {h = $2}
  /^flags/ && !seen++ {n = split($2, a, " "); for (i = 1; i <= n; i++) if (a[i] ~ /^(avx2|avx512f|avx512_bf16|amx_tile)$/) x = x " " a[i]}
  END {printf "family %s model %s, %.0f MHz,%s", f, m, h, x; exit}' /proc/cpuinfo)"
if command -v nvidia-smi > /dev/null; then
  note "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -4 | tr '\n' ' ')"
  nvidia-smi >> "$log" 2>&1
else
  note "gpu: nvidia-smi not found"
fi

# unxz FILE.xz TARGET: with xz, or Python's lzma where the image has no xz.
unxz() {
  xz_cat "$1" > "$2" || { rm -f "$2"; note "warning: cannot unpack $1"; return 1; }
}

# untar FILE.tar.xz DIR: unpacked into DIR.
untar() { xz_cat "$1" | tar -C "$2" -xf - 2>> "$log"; }

# xz_cat FILE.xz: its contents to stdout, with xz or Python's lzma.
xz_cat() {
  xz -dc "$1" 2> /dev/null ||
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1" 2>> "$log"
}

# --- the binaries: bin.tar.xz (device-kit.sh packs them, a quarter of their size), and any
# put in bin/ by hand (embed-train-inmem for `large`) ----------------------------------------
bin=$scratch/bin
mkdir -p "$bin"
if [[ -e $kit/bin.tar.xz ]] && ! untar "$kit/bin.tar.xz" "$scratch"; then note "warning: cannot unpack the kit's binaries"; fi
if [[ -d $kit/bin ]]; then cp -n "$kit"/bin/* "$bin/" 2> /dev/null; fi

# --- libraries: the kit's, OpenBLAS unpacked, cuBLAS wherever this machine keeps it ------
mkdir -p "$scratch/lib"
for packed in "$kit"/lib-dlopen/*.xz; do
  [[ -e $packed ]] && unxz "$packed" "$scratch/lib/$(basename "$packed" .xz)"
done
cuda_major=$(manifest cuda_major)
cuda_major=${cuda_major:-13}
find_cublas() {
  local name=libcublas.so.$cuda_major dir
  for dir in "${CUBLAS_DIR:-}" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda/lib \
    /usr/local/cuda-"$cuda_major"*/lib64 /usr/local/cuda-"$cuda_major"*/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [[ -n $dir && -e $dir/$name ]] && { echo "$dir"; return; }
  done
  dir=$(ldconfig -p 2> /dev/null | awk -v n="$name" '$1 == n && !found {print $NF; found = 1}')
  [[ -n $dir ]] && { dirname "$dir"; return; }
  # The nvidia-* Python wheels (nvidia/cu13/lib, nvidia/cublas/lib) of any Python here.
  local roots
  roots=$(python3 -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2> /dev/null)
  for dir in $roots /opt /usr/local/lib; do
    [[ -d $dir ]] || continue
    dir=$(find "$dir" -maxdepth 6 -name "$name" -print -quit 2> /dev/null)
    [[ -n $dir ]] && { dirname "$dir"; return; }
  done
}
cublas_dir=$(find_cublas)
libpath=$kit/lib:$scratch/lib${cublas_dir:+:$cublas_dir}
if [[ -n $cublas_dir ]]; then
  note "cuBLAS: $cublas_dir/libcublas.so.$cuda_major"
else
  note "cuBLAS: libcublas.so.$cuda_major not found (set CUBLAS_DIR): GPU search tests will fail"
fi
# libstdc++ fallback: only where the image's is older than the build's.
if ! LD_LIBRARY_PATH=$libpath "$bin/embed-train" --version > /dev/null 2> "$scratch/start.err"; then
  if grep -q 'GLIBCXX\|CXXABI\|GCC_' "$scratch/start.err"; then
    libpath=$kit/lib-fallback:$libpath
    note "libstdc++: this image's is too old, using the kit's ($(head -1 "$scratch/start.err"))"
  fi
fi
export LD_LIBRARY_PATH=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# OpenMPI: the kit's runtime (device-kit.sh) unpacked, and OpenMPI and PMIx told where it is;
# they look up their components and texts there, not where they were built.
if [[ -e $kit/mpi-runtime.tar.xz ]]; then
  if untar "$kit/mpi-runtime.tar.xz" "$scratch"; then
    mpi=$scratch/mpi
    export PATH=$mpi/bin:$PATH LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$mpi/lib
    export OPAL_PREFIX=$mpi OPAL_BINDIR=$mpi/bin OPAL_LIBDIR=$mpi/lib OPAL_PKGLIBDIR=$mpi/lib/components \
      OPAL_DATADIR=$mpi/share OPAL_PKGDATADIR=$mpi/share/openmpi OPAL_SYSCONFDIR=$mpi/etc
    export PMIX_INSTALL_PREFIX=$mpi/pmix PMIX_PREFIX=$mpi/pmix
    # The lent machines run as root, which OpenMPI refuses unless told.
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    note "mpi: $(mpirun --version 2>&1 | head -1), the kit's"
  else
    note "warning: cannot unpack the kit's MPI runtime: the mpi step will skip"
  fi
else
  note "mpi: none in this kit (built without MPI)"
fi
unresolved=$(for f in "$bin"/*; do ldd "$f" 2>&1 | grep 'not found' | sed "s|^|$(basename "$f"): |"; done)
[[ -z $unresolved ]] || note "unresolved libraries: $(echo "$unresolved" | tr '\n' ' ')"
for tool in embed-train glove-convert embed-query; do
  version=$("$bin/$tool" --version 2>&1)
  say "$(tr '\n' ' ' <<<"$version")"
done
# embed-query's, the last above: the devices found and the CPU's matrix products.
note "backends: $(sed -n 's/^backends: //p' <<<"$version")"
note "$(grep '^products' <<<"$version" || echo 'products: ?')"

# --- running steps ------------------------------------------------------------------------
passed=0 failed=0 skipped=0
# chosen NAME: whether ONLY (steps' names, space-separated; empty: all) names the step.
chosen() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }
# step NAME CAP_S COMMAND...: runs COMMAND under timeout (CAP_S, or what is left of the
# budget less a reserve), appends its output to the log and one status line to the summary.
# Its verdict (PASS, SKIP, FAIL, TIMEOUT or NOTRUN; empty when ONLY leaves it out) is left
# in `verdict`.
verdict=""
step() {
  local name=$1 cap=$2 reserve=${RESERVE_S:-20}
  shift 2
  : > "$scratch/step.txt"  # a step that does not run leaves no output of the last one behind
  verdict=""
  if ! chosen "$name"; then return; fi
  local allowed=$(($(left) - reserve))
  ((allowed < cap)) && cap=$allowed
  if ((cap < 5)); then
    verdict=NOTRUN
    note "$(printf '%-8s %-22s %7s  %s' NOTRUN "$name" - "no time left in the $budget s budget")"
    failed=$((failed + 1))
    return
  fi
  local t0=$SECONDS status
  {
    echo
    echo "===== $name: $* (timeout ${cap}s)"
  } >> "$log"
  (cd "$scratch" && timeout -k 10 "$cap" "$@") > "$scratch/step.txt" 2>&1
  status=$?
  cat "$scratch/step.txt" >> "$log"
  echo "===== $name: exit $status after $((SECONDS - t0)) s" >> "$log"
  local detail=""
  case $status in
    0) verdict=PASS ;;
    77) verdict=SKIP; detail=$(grep -m1 -i 'skipped' "$scratch/step.txt") ;;
    124 | 137) verdict=TIMEOUT; detail="killed after ${cap}s" ;;
    *) verdict=FAIL; detail=$(grep -E 'FAIL|failed|error|Error|REQUIRE|CHECK' "$scratch/step.txt" | head -3 | tr '\n' ' ') ;;
  esac
  # A benchmark that found no GPU says "skipped" and exits 0.
  [[ $verdict == PASS ]] && grep -qE '^([a-z_.-]+: )?skipped|^no GPU: skipping' "$scratch/step.txt" && {
    verdict=SKIP
    detail=$(grep -m1 -E 'skipped|skipping' "$scratch/step.txt")
  }
  case $verdict in
    PASS) passed=$((passed + 1)) ;;
    SKIP) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
  note "$(printf '%-8s %-22s %6ss  %s' "$verdict" "$name" $((SECONDS - t0)) "${detail:0:300}")"
}
# gpu_only STEP_FUNCTION NAME ...: runs the step where a GPU is usable, else reports it SKIP
# with the reason (a step that runs on the CPU alone, like the counting benchmark, would
# otherwise pass on a machine without one and say nothing about the GPU machine).
gpu_reason=$("$bin/embed-train" --version 2>&1 | grep '^gpus:')
gpu_usable=0
"$bin/embed-train" --version 2>&1 | grep -q 'CUDA backend built, [0-9]' && gpu_usable=1
gpu_only() {
  if ((gpu_usable)); then
    "$@"
  else
    note "$(printf '%-8s %-22s %6ss  %s' SKIP "$2" 0 "skipped: no usable GPU ($gpu_reason)")"
    skipped=$((skipped + 1))
  fi
}
# bench_step NAME CAP_S COMMAND...: a step whose output (its table) also goes to the summary.
bench_step() {
  step "$@"
  chosen "$1" || return 0
  {
    echo "--- $1"
    grep -v '^$' "$scratch/step.txt" | tail -40
  } >> "$summary"
}

tests=$kit/tests
# test_kernels KERNEL...: skip-gram's one-batch kernel tests ([skipgram-kernel]: word2vec's
# and fastText's) for each EMBED_GPU_SKIPGRAM_KERNEL named, a step each (skipgram_kernel_K,
# under the 60 s the three shared in one step until 2026-11-28), noting in failed_kernels
# those whose step failed or timed out. FAILED_KERNELS seeds it: a second call that reruns
# the benchmarks with ONLY= and not the kernels' steps names the kernels the first call failed.
failed_kernels=${FAILED_KERNELS:-}
test_kernels() {
  local kernel
  for kernel in "$@"; do
    step "skipgram_kernel_$kernel" 40 env EMBED_TEST_SKIPGRAM_KERNELS="$kernel" "$bin/gpu_train_tests" "[skipgram-kernel]"
    case $verdict in
      FAIL | TIMEOUT) failed_kernels+=" $kernel" ;;
    esac
  done
}
# without_failed_kernels STEP MODE...: the benchmark modes given, less those that train with
# a kernel in failed_kernels (device-rows, f16r and rows: rows; device-warp and warp: warp),
# so that a kernel that is wrong (or hangs) costs the benchmark STEP no time and gives it no
# figure. What it leaves out is noted in the summary, where STEP runs.
without_failed_kernels() {
  local name=$1 mode kernel kept=()
  shift
  for mode in "$@"; do
    case $mode in
      device-rows | f16r | rows) kernel=rows ;;
      device-warp | warp) kernel=warp ;;
      *) kernel="" ;;
    esac
    if [[ -n $kernel && " $failed_kernels " == *" $kernel "* ]]; then
      chosen "$name" && note "left out of $name: $mode (the $kernel kernel failed its test)" > /dev/null
    else
      kept+=("$mode")
    fi
  done
  echo "${kept[*]}"
}
bench_env=(env BUILD="$bin" SHARED="$scratch/shared" PYTHON=python3 BENCH_DIR="$scratch" THREADS="$(nproc)")
prepare_shared() {  # the benchmarks' corpora and evaluation sets, unpacked into scratch
  mkdir -p "$scratch/shared/data"
  cp "$kit"/shared/data/*.txt "$kit"/shared/data/*.tsv "$scratch/shared/data/" 2> /dev/null
  unxz "$kit/shared/data/text8-head.txt.xz" "$scratch/shared/data/text8-head.txt"
}

case $mode in
  all)
    # Each cap is several times what the step took on an H200 (2026-11-26), so that a
    # step that hangs costs its cap and the steps after it still run.
    step gpu_smoke 30 "$bin/gpu_smoke_test"
    # Skip-gram's kernels, word2vec's and fastText's, each one batch against the CPU: the
    # block kernels (the default), the warp kernels (EMBED_GPU_SKIPGRAM_KERNEL=warp, slower
    # at 512 windows in flight: H200, 2026-11-28) and the rows kernels (=rows, a warp per
    # output row: their first run), whose throughput rows are device-warp and device-rows.
    # A step each, so that an experiment's kernel that fails or hangs costs its own step,
    # and the benchmark rows that train with it are left out below (without_failed_kernels).
    test_kernels block warp rows
    step gpu_search 60 "$bin/gpu_search_tests"
    step gpu_train 90 "$bin/gpu_train_tests" "~[skipgram-kernel]"
    step gpu_glove 40 "$bin/gpu_glove_tests"
    step gpu_query_cli 50 bash "$tests/gpu/gpu_query_cli_test.sh" "$bin/embed-query" "$bin/glove-convert"
    # The Python package with PyTorch (to_torch, nn.Embedding: the dev VMs have no PyTorch).
    gpu_only step python_torch 40 python3 "$tests/python/test_embed_package.py" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    step gpu_train_cli 100 bash "$tests/gpu/gpu_train_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    # Two ranks under the kit's mpirun sharing the GPU (first run H100 2026-11-27: the second
    # rank asked for a GPU 1 that was not there; its 60 s cap was then spent on failures).
    step gpu_mpi_cli 120 bash "$tests/gpu/gpu_mpi_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    prepare_shared
    # device-rows: skip-gram's block per window with a warp per output row, the inputs without
    # the block kernel's two barriers each (whether a window's latency, which bounds 512
    # windows in flight, is those barriers: the kernel before issue 23 had one per window, 93M).
    # device-warp: skip-gram's warp-per-window kernel with as many warps in flight as the
    # block kernel's (4,096 windows, in 4 batches' kernels at once: one batch's reaches
    # about 963), beside the block kernel's 512 (device): whether one warp's longer window
    # is paid back by more windows at once (quality: seed 1 below).
    # device-pair: f32 pairs added by one 8-byte atomic (whether the L2's atomics bound dim 300);
    # device-lanes: two batches' kernels at once, 256 windows each (whether a batch's last
    # blocks, its tail, leave the GPU idle: 512 windows gave 58M words/s at dim 100, 1024 60M).
    bench_step throughput 150 "${bench_env[@]}" PARTS=throughput WORDS=50000000 \
      MODES="$(without_failed_kernels throughput cpu device device-rows device-pair device-lanes device-warp host-gather host-mapped)" \
      bash "$kit/scripts/bench/gpu.sh"
    # Where a window's time goes (kernels/train/kernel_clocks.h), in a few seconds: the block
    # and rows kernels' windows timed by the SMs' cycle counters, phase by phase, at dim 100
    # and 300 in device placement, and a batch's kernel time over its blocks' mean run (its
    # tail). The block kernel's 58M words/s at dim 100 is about 17 µs a window, three to five
    # times its arithmetic (H200, 2026-11-28); `profile` needs ncu's counters, these do not.
    bench_step kernel_clocks 40 "${bench_env[@]}" KERNELS="$(without_failed_kernels kernel_clocks block rows)" \
      bash "$kit/scripts/bench/kernel_clocks.sh"
    # Before the host-placement steps, so that a long big_table cannot starve it: it says
    # whether an experiment that wins throughput keeps the CPU's quality. With seed 1 also
    # the rows kernel, the warp kernel at its 4,096 windows in flight and two batches'
    # kernels at once (the throughput step's device-rows, device-warp and device-lanes).
    bench_step quality 70 "${bench_env[@]}" PARTS=quality SEEDS="1 2 3" \
      QUALITY_TRY="$(without_failed_kernels quality device-rows device-warp device-lanes)" \
      bash "$kit/scripts/bench/gpu.sh"
    # Host placement's row moves on this machine's bus, a few seconds: a batch's rows copied
    # from staging (gather) against the mapped kernels' gather, whole store and add (what
    # bounds big_table's f16m below: the bus, or the kernels' round trips).
    gpu_only bench_step row_moves 30 "$bin/bench-gpu-bandwidth" --rows
    # At a quarter of big's vocabulary (790,150 words, 1.9 GB of tables) it takes about 100 s
    # (87 s on an H200, 2026-11-27): the full size (3M words) did not fit this step's cap
    # twice and runs in `big`. Gathered f32 tables (0.17x and 0.12x of device, sixth run)
    # make way for f16 host tables three ways: gathered, gathered with several batches'
    # kernels at once (f16c: a 1/4 batch's kernel alone ran about 236 blocks), and mapped,
    # the kernels storing rows whole (f16m), and gathered with the rows kernel (f16r: whether
    # a window's latency bounds small batches). The batches in a quarter of the budget (f16s)
    # gave half f16's words/s (H200, 2026-11-28) and run in hostside. 40M words.
    bench_step big_table 230 "${bench_env[@]}" VOCAB=1000000 WORDS=40000000 RUN_TIMEOUT=40 \
      MODES="$(without_failed_kernels big_table device f16 f16c f16r f16m)" bash "$kit/scripts/bench/big_table.sh"
    bench_step glove_quality 60 "${bench_env[@]}" PARTS=glove-quality SEEDS=1 GLOVE_QUALITY_EPOCHS=10 \
      bash "$kit/scripts/bench/gpu.sh"
    gpu_only bench_step glove_small_vocab 30 "${bench_env[@]}" bash "$kit/scripts/bench/glove_small_vocab.sh"
    ;;
  big)
    # The CPU's share of host placement (remap, gather, scatter) on one thread of this
    # machine, at big_table's shape: its words/s times the threads bounds host placement.
    bench_step host_rows 60 "$bin/bench-host-rows" --words 2000000
    # The same on 8 and 16 threads at once: whether that work scales with cores or is
    # bound by the machine's memory (each gathered f32 row costs about 11 KB of host
    # memory traffic, bench-host-rows estimates the GB/s), the question host placement's
    # 0.19x of device at 1/4 of the budget left open (H100, 2026-11-27).
    for threads in 8 16; do
      bench_step "host_rows_$threads" 40 "$bin/bench-host-rows" --words 8000000 --threads "$threads"
    done
    # 3,056,312 words, 7.4 GB of tables: device, then each budget gathered in f32 and in f16,
    # then the second seed (about 300 s on an H200).
    RESERVE_S=5 bench_step big_table 420 "${bench_env[@]}" RUN_TIMEOUT=120 bash "$kit/scripts/bench/big_table.sh"
    ;;
  quick)
    step gpu_smoke 30 "$bin/gpu_smoke_test"
    step gpu_search 90 "$bin/gpu_search_tests"
    step gpu_train 120 "$bin/gpu_train_tests"
    step gpu_glove 90 "$bin/gpu_glove_tests"
    step gpu_query_cli 120 bash "$tests/gpu/gpu_query_cli_test.sh" "$bin/embed-query" "$bin/glove-convert"
    step gpu_train_cli 180 bash "$tests/gpu/gpu_train_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    step gpu_mpi_cli 120 bash "$tests/gpu/gpu_mpi_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    prepare_shared
    RESERVE_S=5 bench_step bench_short 90 "${bench_env[@]}" PARTS=throughput DIMS=100 WORDS=20000000 \
      MODES="cpu device host-gather" bash "$kit/scripts/bench/gpu.sh"
    ;;
  bench)
    prepare_shared
    bench_step bench_throughput 200 "${bench_env[@]}" PARTS=throughput WORDS=50000000 \
      MODES="cpu device host-gather host-mapped" bash "$kit/scripts/bench/gpu.sh"
    bench_step bench_glove 120 "${bench_env[@]}" PARTS=glove bash "$kit/scripts/bench/gpu.sh"
    bench_step bench_query 170 "${bench_env[@]}" PARTS=gpu GPU_ROWS="400000 2000000" bash "$kit/scripts/bench/query.sh"
    bench_step bench_quality 90 "${bench_env[@]}" PARTS=quality SEEDS=1 bash "$kit/scripts/bench/gpu.sh"
    # Counting on every core (issue 36's 1 GB/s of text on 16 cores: 987 to 1,230 MB/s on the
    # H200s, 1,126 on 2026-11-28, when it left `all` for the seconds `all` needed). 128 copies
    # (838 MiB): at 64 the 16-thread runs took 0.45 s.
    gpu_only bench_step count 60 "${bench_env[@]}" COPIES=128 RUNS=3 bash "$kit/scripts/bench/count.sh"
    RESERVE_S=5 bench_step bench_glove_quality 90 "${bench_env[@]}" PARTS=glove-quality SEEDS=1 \
      bash "$kit/scripts/bench/gpu.sh"
    ;;
  largest)
    # Issue 36's largest tables: skip-gram dim 300 with host placement in 16 GB of GPU memory,
    # f16 host tables, staging and vectors file, on a generated corpus of 64M ids with Zipf
    # laws of exponent 0.5 (min-count 1: about 56.7M of them occur in 300M words, scaled
    # from 5.67M in 30M words of 6.4M ids counted on the dev VM; 50M is the target). Until
    # 2026-11-27 80M ids in 700M words of the default laws (57.7M by the generator's law):
    # 2.3x the words to train, too long for the call left after `all`.
    # Host memory bounds it: two f32 tables of 50M rows would be 122 GB of the 126 GiB, the
    # f16 host tables of 56.7M rows are 69 GB. Not yet run (written 2026-11-27 without a GPU).
    # LARGEST_MODE=f16m trains them with mapped transfers instead (the tables pinned whole).
    # The run gets what the budget leaves but a minute for the quality measure: after `all`,
    # BUDGET_S=270 fits the 5 minutes left of a 15-minute session (a run cut short is
    # killed, no checkpoint, and reported with its last progress line).
    RESERVE_S=5 bench_step largest 520 "${bench_env[@]}" BUDGET=16G MODES="${LARGEST_MODE:-f16}" MIN_COUNT=1 SEEDS=1 VOCAB=64000000 \
      WORDS=300000000 ZIPF=0.5 RUN_TIMEOUT=$(($(left) > 130 ? $(left) - 70 : 60)) bash "$kit/scripts/bench/big_table.sh"
    ;;
  rules)
    prepare_shared
    # Issue 40's rules whose state is not a sum (adam, adamw, adamax, rmsprop, adadelta,
    # rprop, asgd). Their first run (H200, 2026-11-26) stepped one batch as the CPU does,
    # but in training adam, adamw and adamax diverged in every model, and rmsprop, adadelta
    # and rprop in skip-gram: windows at once each took a whole step of a frequent row.
    # Skip-gram and CBOW now train them in summed steps of 1024 windows (summed_steps.h),
    # GloVe Adam's family in steps of 32768 records (glove_summed_steps.h; both written
    # 2026-11-27 without a GPU, not yet run), each from the GPU's own starting rate:
    # the tests compare a batch with the CPU's summed steps, then each optimizer's words/s
    # and quality on the GPU against the CPU's per-window steps at the CPU's rate.
    step gpu_train 60 "$bin/gpu_train_tests" "~[large]~[skipgram-kernel]"
    step gpu_train_cli 90 bash "$tests/gpu/gpu_train_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    step gpu_glove 60 "$bin/gpu_glove_tests"
    RESERVE_S=5 bench_step optimizers 300 "${bench_env[@]}" PARTS=optimizers WORDS=20000000 EPOCHS=5 \
      OPT_MODES="cpu device" OPTIMIZERS="sgd adam adamw rmsprop adadelta" bash "$kit/scripts/bench/gpu.sh"
    ;;
  hostside)
    # The most words/s the CPU's 16 threads can plan and pack batches at (bench-feed), on
    # the throughput step's corpus: device placement's 41-58M words/s against it says
    # whether the CPU or the GPU bounds device placement (H200, 2026-11-27: not known).
    prepare_shared
    bench_step feed_16 30 "$bin/bench-feed" --corpus "$scratch/shared/data/text8-head.txt" --copies 43 --threads 16
    # Issue 36's open question in about 3 minutes: whether host placement's CPU side
    # (remap, gather, scatter) scales with threads at big_table's 1M-id shape or the host's
    # memory bounds it, and what the mapped transfers give since their kernels move a row
    # per warp, 16 bytes per thread (2026-11-27; 0.10x device before, H200).
    for threads in 1 8 16; do
      bench_step "host_rows_$threads" 40 "$bin/bench-host-rows" --rows 790150 --hot 98801 --batch 1743 \
        --words $((threads == 1 ? 1000000 : 8000000)) --threads "$threads"
    done
    # The write-back storing rows no other batch wrote since the gather whole (row_versions.h;
    # embed-train's for f16 host tables: 1.18x on the dev VM's 2 threads, 1.46x on an H200
    # machine's 16, 2026-11-27; f32 tables gained nothing on either) against adding every
    # change, on 16 threads.
    for tables in f16 f32; do
      half=()
      if [ "$tables" = f16 ]; then half=(--storage f16 --half-tables); fi
      for write_back in whole add; do
        bench_step "host_rows_16_${tables}_$write_back" 30 "$bin/bench-host-rows" --rows 790150 --hot 98801 --batch 1743 \
          --words 8000000 --threads 16 --write-back "$write_back" "${half[@]}"
      done
    done
    # Also at 1/16, where the batches were 500 words (now planned for 1 input and 3 output
    # rows per word copied, not 1 + 6, and cut where a batch copies more).
    RESERVE_S=5 bench_step big_table_mapped 320 "${bench_env[@]}" VOCAB=1000000 WORDS=50000000 RUN_TIMEOUT=60 \
      MODES="device host f16 f16s f16c f16r f16t f16m mapped" FRACTIONS="4 16" SEEDS=1 bash "$kit/scripts/bench/big_table.sh"
    ;;
  mpi)
    # The two steps of `all` that failed on their first run (H100, 2026-11-27): two ranks
    # sharing the GPU, whose compute mode decides whether they may, and pip's offline install.
    note "compute mode: $(nvidia-smi --query-gpu=compute_mode --format=csv,noheader 2> /dev/null || echo unknown)"
    gpu_only step python_torch 40 python3 "$tests/python/test_embed_package.py" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    step gpu_mpi_cli 120 bash "$tests/gpu/gpu_mpi_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    # Two ranks' quality on the GPU against one process's as their rounds grow rarer, on 4
    # and 16 copies of the corpus (H200, 2026-11-27, 4 copies: 0.44 at 20 rounds to one
    # process's 0.51; the CPU's two ranks, 100 s of this step then, matched one process), by
    # time alone and by words alone (--sync-words: its default, a 32nd of a rank's share of an
    # epoch, then 40,000 and 10,000; written 2026-11-28, not yet run).
    RESERVE_S=5 gpu_only bench_step mpi_sync 120 "${bench_env[@]}" DEVICES=cuda COPIES="4 16" \
      bash "$kit/scripts/bench/mpi_sync.sh"
    ;;
  subwords)
    prepare_shared
    # Issue 41 on the GPU (first run: H100, 2026-11-27, all passed, 18.9M words/s at dim 100):
    # fastText's model's kernels against the CPU's one batch, the CLI tests, then words/s at
    # dim 100 and 300 against the CPU and fastText, and quality against the CPU's. The goal:
    # 20M words/s at dim 100. Host placement (the buckets' rows copied per batch, the most
    # touched of them hot; written 2026-11-27 without a GPU) beside device placement: not yet run;
    # device-rows: skip-gram's rows kernel (a pair's outputs at once, a warp each; not yet run).
    step gpu_subwords 60 "$bin/gpu_train_tests" "[subwords]~[skipgram-kernel]"
    test_kernels block rows
    step gpu_train_cli 120 bash "$tests/gpu/gpu_train_cli_test.sh" "$bin/embed-train" "$bin/embed-query" "$bin/glove-convert"
    # Host placement's CPU side on text8-head's words on 16 threads (2 cores of the dev VM:
    # 1.7M words/s, 1.95 rows copied per word with n-gram buckets among the hot rows).
    bench_step host_rows_subwords 40 "$bin/bench-host-rows" --subwords 2000000 --corpus "$scratch/shared/data/text8-head.txt" \
      --dim 100 --hot 5000 --batch 20000 --words 8000000 --threads 16
    RESERVE_S=5 bench_step subwords 320 "${bench_env[@]}" PARTS=subwords WORDS=20000000 EPOCHS=5 \
      SUB_MODES="$(without_failed_kernels subwords cpu device device-rows host-gather host-tight)" bash "$kit/scripts/bench/gpu.sh"
    ;;
  optimizers)
    prepare_shared
    # Issue 40 on the GPU (written 2026-11-26 without one; not yet run): the kernels with
    # an optimizer's state first (their per-batch comparison with the CPU is in gpu_train),
    # then words/s and quality per optimizer, then a host-placement run whose tables and
    # adam's state (three times SGD's bytes, in summed steps) are 4 times the budget, at 1M ids.
    step gpu_train 120 "$bin/gpu_train_tests" "~[large]~[skipgram-kernel]"
    bench_step optimizers 280 "${bench_env[@]}" PARTS=optimizers WORDS=20000000 EPOCHS=5 bash "$kit/scripts/bench/gpu.sh"
    RESERVE_S=5 bench_step big_table_adam 200 "${bench_env[@]}" OPTIMIZER=adam VOCAB=1000000 WORDS=50000000 \
      MODES=host FRACTIONS=4 SEEDS=1 RUN_TIMEOUT=80 bash "$kit/scripts/bench/big_table.sh"
    ;;
  large)
    prepare_shared
    # bin/embed-train-inmem, when put in the kit's bin/ by hand (a build of commit ad08b68 or earlier),
    # is the in-memory trainer the streamed one is compared with on 100M words.
    parts=billion
    [[ ! -x $bin/embed-train-inmem ]] || parts="disk billion"
    bench_step large_cuda 250 "${bench_env[@]}" PARTS="$parts" DEVICE=cuda RUNS=1 BASELINE_TRAIN="$bin/embed-train-inmem" \
      bash "$kit/scripts/bench/large_corpus.sh"
    RESERVE_S=5 bench_step large_cpu 250 "${bench_env[@]}" PARTS=billion DEVICE=cpu \
      bash "$kit/scripts/bench/large_corpus.sh"
    ;;
  memcheck)
    sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2> /dev/null)
    if [[ -z $sanitizer ]]; then
      note "compute-sanitizer not found: nothing to run"
    else
      memcheck=("$sanitizer" --tool memcheck --leak-check no --error-exitcode 99)
      step memcheck_search 120 "${memcheck[@]}" "$bin/gpu_search_tests"
      # The [large] 2M-row case takes minutes under memcheck; the CLI steps below cover
      # the same cold-row paths (a --gpu-memory that holds a third of the rows hot). The
      # kernel experiments' one-batch runs too: the one-batch tests here train skip-gram with
      # the block kernel (the default).
      step memcheck_train 150 "${memcheck[@]}" "$bin/gpu_train_tests" "~[large]~[skipgram-kernel]"
      step memcheck_glove 120 "${memcheck[@]}" "$bin/gpu_glove_tests"
      # Mapped with f16 host tables (the write-back test covers f32 ones under memcheck too).
      for transfer in mapped gather; do
        dtype=f32
        [[ $transfer == mapped ]] && dtype=f16
        step "memcheck_train_cli_$transfer" 100 "${memcheck[@]}" "$bin/embed-train" \
          --corpus "$kit/data/text8-200k.txt.gz" -o "$scratch/m.emb" --dim 200 --epochs 1 --threads 1 \
          --device cuda --table host --host-transfer "$transfer" --dtype "$dtype" --gpu-memory 9M
      done
      # Skip-gram's shared memory under racecheck (a thread reading what another wrote with no
      # barrier between), word2vec's and fastText's, on 17k words: the block kernels, then the
      # warp kernels (EMBED_GPU_SKIPGRAM_KERNEL=warp, whose lanes sync with __syncwarp), then
      # rows kernels (=rows, whose warps go through the inputs, or a pair's outputs, without barriers).
      racecheck=("$sanitizer" --tool racecheck --error-exitcode 99)
      if command -v gzip > /dev/null; then
        gzip -dc "$kit/data/text8-200k.txt.gz"
      else
        python3 -c 'import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read()[:100000])' "$kit/data/text8-200k.txt.gz"
      fi 2> /dev/null | head -c 100000 > "$scratch/tiny.txt"
      for kernel in block warp rows; do
        for model in skipgram subwords; do
          args=(--model skipgram)
          [[ $model == subwords ]] && args+=(--subwords --buckets 20000)
          step "racecheck_${model}_$kernel" 60 env EMBED_GPU_SKIPGRAM_KERNEL="$kernel" "${racecheck[@]}" "$bin/embed-train" \
            "${args[@]}" --corpus "$scratch/tiny.txt" -o "$scratch/r.emb" --dim 100 --epochs 1 --threads 1 --device cuda \
            --table device
        done
      done
      RESERVE_S=5 step memcheck_glove_cli 100 "${memcheck[@]}" "$bin/embed-train" --model glove \
        --corpus "$kit/data/text8-200k.txt.gz" -o "$scratch/g.emb" --dim 200 --epochs 2 --threads 1 \
        --device cuda --table host --gpu-memory 16M
    fi
    ;;
  profile)
    # Why skip-gram's device placement stops at 58M words/s at dim 100 and 41M at dim 300 (H200,
    # 2026-11-28): Nsight Compute's counters for one batch's kernel (the 21st launch, a full
    # 20,000-word batch of text8-head), at each dim: achieved occupancy, where the warps
    # stall, the L2's load and its atomic (reduction) requests; then the same for the rows
    # kernel (EMBED_GPU_SKIPGRAM_KERNEL=rows), then the block kernel with f32 pairs added by
    # one atomic (EMBED_GPU_PAIR_ATOMICS=1). --clock-control none: the clocks as training runs
    # them (the tool library's METHOD.md).
    ncu=$(command -v ncu)
    for candidate in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
      [[ -n $ncu || ! -x $candidate ]] || ncu=$candidate
    done
    if [[ -z $ncu ]]; then
      note "ncu not found: nothing to run"
    else
      prepare_shared
      profiled=("$ncu" --clock-control none --target-processes all -k "regex:^skipgram_(rows_)?kernel" --launch-skip 20
        --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
        --section SchedulerStats --section MemoryWorkloadAnalysis
        --metrics "lts__t_requests_op_red.sum,lts__t_requests_op_atom.sum,lts__t_sectors_op_red.sum,sm__cycles_elapsed.avg")
      for variant in block:0 rows:0 block:1; do
        kernel=${variant%:*} pairs=${variant#*:}
        for dim in 100 300; do
          gpu_only step "ncu_${kernel}_${dim}_pairs$pairs" 120 env EMBED_GPU_SKIPGRAM_KERNEL="$kernel" \
            EMBED_GPU_PAIR_ATOMICS="$pairs" "${profiled[@]}" \
            "$bin/embed-train" --corpus "$scratch/shared/data/text8-head.txt" -o "$scratch/p.emb" --dim "$dim" --epochs 1 \
            --threads 16 --device cuda --table device -q
        done
      done
    fi
    ;;
esac

note "result: $passed passed, $failed failed or not run, $skipped skipped, in $((SECONDS - start)) s"
echo
echo "===== summary ($summary)"
cat "$summary"
((failed == 0))
