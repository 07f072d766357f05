#!/usr/bin/env bash
# The device kit (scripts/device-kit.sh) as a lent GPU machine receives it, checked on a
# machine without a GPU (CI runs it after building the kit, so the kit cannot rot):
# - it fits the 48 MiB that may travel beside the working tree;
# - every binary and library in it, with the kit's library path, resolves nothing outside
#   the kit but the base set a bare CUDA image has (glibc, libstdc++, libgcc_s, libz, libcuda);
# - it holds what run.sh runs: the tools, every gpu-labelled test, the fixtures;
# - run.sh quick, in a clean environment with this machine's OpenMPI hidden, reports every GPU
#   test SKIP (the MPI one after its 2-rank CPU run under the kit's mpirun), none FAIL, exits 0,
#   with its log and summary in the folder given; so does run.sh all, benchmarks included.
# Usage: kit_test.sh [KIT] (default .device-kit)
set -u
kit=$(realpath "${1:-.device-kit}")
[[ -f $kit/run.sh && -f $kit/MANIFEST ]] || { echo "no kit at $kit: run scripts/device-kit.sh first" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"

bytes=$(du -sb "$kit" | cut -f1)
((bytes <= 48 << 20)) && ok || bad "the kit is $bytes bytes, over 48 MiB"

# The binaries, packed in bin.tar.xz, as run.sh unpacks them.
mkdir -p "$work/unpacked"
tar -C "$work/unpacked" -xJf "$kit/bin.tar.xz" && ok || bad "bin.tar.xz does not unpack"
bin=$work/unpacked/bin
for f in glove-convert embed-query embed-train gpu_smoke_test gpu_train_tests gpu_glove_tests gpu_search_tests \
  bench-gpu-bandwidth bench-gpu-search bench-search bench-gen-clusters bench-cluster-quality bench-host-rows bench-feed; do
  [[ -x $bin/$f ]] && ok || bad "bin/$f missing"
done
for f in tests/gpu/gpu_train_cli_test.sh tests/gpu/gpu_query_cli_test.sh tests/cli/lib.sh data/text8-200k.txt.gz \
  data/analogies-sample.txt shared/data/text8-head.txt.xz shared/data/questions-words.txt \
  shared/data/wordsim353.tsv scripts/bench/gpu.sh scripts/bench/query.sh scripts/bench/big_table.sh scripts/bench/count.sh \
  scripts/bench/glove_small_vocab.sh scripts/bench/lib.sh scripts/bench/benchstats.py lib-dlopen/libopenblas.so.0.xz \
  tests/python/test_embed_package.py python/embed/vectors.py python/pyproject.toml; do
  [[ -s $kit/$f ]] && ok || bad "$f missing"
done

base='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libz|libcuda)\.so'
outside=""
for f in "$bin"/* "$kit"/lib/*; do
  while read -r name arrow path _; do
    [[ $arrow == "=>" ]] || continue
    if [[ $path == "not" ]]; then outside+="$(basename "$f"): $name not found; "; continue; fi
    [[ $path == "$kit"/* || $name =~ $base ]] || outside+="$(basename "$f"): $name => $path; "
  done < <(LD_LIBRARY_PATH=$kit/lib ldd "$f")
done
check "libraries resolved outside the kit and the base set" "$outside" ""
# The CUDA runtime is inside the binaries, and cuBLAS is loaded only when used.
for f in "$bin"/*; do
  readelf -d "$f" | grep -qE 'NEEDED.*(libcudart|libcublas)' && bad "$(basename "$f") links a CUDA library" || ok
done

# hide_system_mpi COMMAND...: runs COMMAND with this machine's OpenMPI and PMIx out of sight
# (bind mounts in a private mount namespace), as on a device machine, which has none: the
# kit's relocated runtime must then start on its own. Plainly where that cannot be made
# (not root, no unshare, no OpenMPI here), saying so.
hide_system_mpi() {
  local hidden=()
  if command -v ompi_info > /dev/null && ((EUID == 0)) && unshare -m --propagation private true 2> /dev/null; then
    local f
    for f in "$(dirname "$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')")" \
      "$(ompi_info --path pkgdatadir --parsable | sed -n 's/^path:pkgdatadir://p')" /etc/openmpi \
      "$(dirname "$(dirname "$(readlink -f "$(ldconfig -p | awk '$1 == "libpmix.so.2" {print $NF; exit}')")")")" \
      $(command -v mpirun orterun orted) $(ldconfig -p | awk '$1 ~ /^lib(mpi|open-pal|open-rte|pmix)\.so/ {print $NF}'); do
      [[ -e $f && $f != / && $f != . ]] && hidden+=("$(readlink -f "$f")")
    done
  fi
  if ((${#hidden[@]} == 0)); then
    echo "kit_test: this machine's OpenMPI stays in sight of the kit's (no OpenMPI here, or no mount namespace)"
    "$@"
    return
  fi
  unshare -m --propagation private bash -c '
    empty_dir=$(mktemp -d) empty_file=$(mktemp)
    for f in "${@:2:$1}"; do
      [[ -e $f ]] || continue  # inside a folder hidden already
      if [[ -d $f ]]; then mount --bind "$empty_dir" "$f"; else mount --bind "$empty_file" "$f"; fi || exit 125
    done
    shift $(($1 + 1))
    exec "$@"' hide "${#hidden[@]}" "${hidden[@]}" "$@"
}

[[ -s $kit/mpi-runtime.tar.xz ]] && ok || echo "kit_test: the kit has no MPI runtime (built without MPI)"
hide_system_mpi env -i PATH=/usr/bin:/bin bash "$kit/run.sh" quick "$work/out" > run.txt 2>&1
check "run.sh quick without a GPU: exit status" "$?" "0"
[[ -s $work/out/log.txt && -s $work/out/summary.txt ]] && ok || bad "log.txt and summary.txt written"
for t in gpu_smoke gpu_search gpu_train gpu_glove gpu_query_cli gpu_train_cli gpu_mpi_cli; do
  grep -qE "^SKIP +$t " "$work/out/summary.txt" && ok || bad "$t: not reported SKIP: $(grep " $t " "$work/out/summary.txt")"
done
grep -qE '^(FAIL|TIMEOUT|NOTRUN) ' "$work/out/summary.txt" && bad "failures reported: $(cat "$work/out/summary.txt")" || ok
# Each skip gives its real reason, that no GPU is usable here (not another line of --version).
check "SKIP lines that do not say no GPU is usable" \
  "$(grep -E '^SKIP ' "$work/out/summary.txt" | grep -vE 'no usable (CUDA device|device|GPU)')" ""
grep -q '^result: 0 passed, 0 failed or not run, 8 skipped' "$work/out/summary.txt" && ok ||
  bad "result line: $(tail -1 "$work/out/summary.txt")"
tail -1 run.txt | grep -q '^result: ' && ok || bad "the summary is printed last: $(tail -2 run.txt)"
# run.sh all: every step, tests and benchmarks, skipped for the same reason, in seconds.
hide_system_mpi env -i PATH=/usr/bin:/bin bash "$kit/run.sh" all "$work/all" > all.txt 2>&1
check "run.sh all without a GPU: exit status" "$?" "0"
check "run.sh all: SKIP lines that do not say no GPU is usable" \
  "$(grep -E '^SKIP ' "$work/all/summary.txt" | grep -vE 'no usable (CUDA device|device|GPU)')" ""
grep -q '^result: 0 passed, 0 failed or not run, 18 skipped' "$work/all/summary.txt" && ok ||
  bad "run.sh all's result line: $(tail -1 "$work/all/summary.txt")"
# Skip-gram's kernels a step each, the default first.
check "run.sh all: the kernels' steps" "$(awk '$2 ~ /^skipgram_kernel/ {print $2}' "$work/all/summary.txt" | tr '\n' ' ')" \
  "skipgram_kernel_block skipgram_kernel_warp skipgram_kernel_rows "
# A kernel that failed its test (here named by FAILED_KERNELS, as a second call does) leaves
# out the benchmark rows that train with it, in the steps that run, and says so.
hide_system_mpi env -i PATH=/usr/bin:/bin ONLY="throughput quality" FAILED_KERNELS=rows bash "$kit/run.sh" all "$work/failed" \
  > failed.txt 2>&1
check "run.sh all with FAILED_KERNELS: exit status" "$?" "0"
check "run.sh all with FAILED_KERNELS=rows: what it left out" "$(grep '^left out' "$work/failed/summary.txt" | tr '\n' '|')" \
  "left out of throughput: device-rows (the rows kernel failed its test)|left out of quality: device-rows (the rows kernel failed its test)|"
# run.sh mpi: its three steps, after the GPU's compute mode.
hide_system_mpi env -i PATH=/usr/bin:/bin bash "$kit/run.sh" mpi "$work/mpi" > mpi.txt 2>&1
check "run.sh mpi without a GPU: exit status" "$?" "0"
grep -q '^result: 0 passed, 0 failed or not run, 3 skipped' "$work/mpi/summary.txt" && ok ||
  bad "run.sh mpi's result line: $(tail -1 "$work/mpi/summary.txt")"
# ONLY: the named steps of a mode and no others.
hide_system_mpi env -i PATH=/usr/bin:/bin ONLY="gpu_smoke gpu_train" bash "$kit/run.sh" quick "$work/only" > only.txt 2>&1
check "run.sh quick with ONLY: exit status" "$?" "0"
check "run.sh quick with ONLY: the steps it ran" "$(awk '$1 == "SKIP" {print $2}' "$work/only/summary.txt" | tr '\n' ' ')" \
  "gpu_smoke gpu_train "
bash "$kit/run.sh" sideways "$work/x" > /dev/null 2>&1
check "run.sh with an unknown mode" "$?" "2"
finish
