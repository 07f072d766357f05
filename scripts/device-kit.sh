#!/usr/bin/env bash
# device-kit.sh: builds .device-kit/, a self-contained folder that runs our GPU tests and
# benchmarks on a lent GPU machine (a bare CUDA image: no Debian packages, no network),
# so that none of its minutes go to setting up. docs/GPU.md is the runbook.
#
#   bash scripts/device-kit.sh      then, there:   bash .device-kit/run.sh quick|bench|memcheck [OUTDIR]
#
# What goes in (at most 48 MiB; the build fails above that):
#   bin.tar.xz     bin/: the three tools, every gpu-labelled test executable and the GPU
#                  benchmark helpers, built in Release for KIT_ARCH (sm_90: H100, H200) with the
#                  CUDA runtime linked statically (cuBLAS is loaded at run time from that
#                  machine), with MPI where this machine has OpenMPI; stripped, and packed
#                  (run.sh unpacks them; by hand: tar -xJf .device-kit/bin.tar.xz -C DIR)
#   lib/           the shared libraries ldd shows beyond the base set every image has (glibc,
#                  libstdc++, libgcc_s, libz and the driver's libcuda): fmt, spdlog, libdeflate,
#                  OpenMPI's libmpi and what it needs
#   mpi-runtime.tar.xz  OpenMPI's runtime for one machine (mpirun, orted, components, PMIx),
#                  which run.sh unpacks and points OpenMPI at (docs/GPU.md)
#   lib-dlopen/    OpenBLAS and what it needs, xz-compressed: embed-query loads it at run time
#                  for the CPU figures beside the GPU's (run.sh unpacks it)
#   lib-fallback/  this machine's libstdc++ and libgcc_s, used only where that machine's are too
#                  old for the binaries (run.sh tries without them first)
#   tests/, data/  the GPU test scripts and the fixtures they read
#   shared/data/   text8-head (xz) and the evaluation sets, for the benchmarks' quality runs
#   scripts/bench/ the GPU benchmarks with what they source and run, laid out as in the repo
#                  (they find lib.sh, benchstats.py and their Python helpers beside them)
#   run.sh, MANIFEST  the runner; the commit, CUDA version and sizes
#
# Environment: KIT (output folder, default .device-kit), KIT_BUILD (build folder, default
# build-kit), KIT_ARCH (CMAKE_CUDA_ARCHITECTURES, default 90), SHARED (default ../shared).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD
kit=${KIT:-$repo/.device-kit}
build=${KIT_BUILD:-$repo/build-kit}
arch=${KIT_ARCH:-90}
shared=${SHARED:-$repo/../shared}
max_bytes=$((48 << 20))

die() { echo "device-kit: $*" >&2; exit 1; }
trap 'echo "device-kit: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || die "needs nvcc (the CUDA toolkit) on the PATH or in /usr/local/cuda/bin"
for f in text8-head.txt questions-words.txt wordsim353.tsv; do
  [[ -f $shared/data/$f ]] || die "needs $shared/data/$f (set SHARED to the folder holding data/)"
done

source "$repo/scripts/stage_times.sh"
start=$SECONDS
echo "device-kit: building for sm_$arch in $build"
# With MPI where this machine has OpenMPI (Debian's libopenmpi-dev): the device machine has
# none, so the kit brings its runtime (mpi-runtime.tar.xz, below).
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DEMBED_CUDA=ON -DEMBED_WERROR=ON -DBUILD_TESTING=ON -DEMBED_MPI=AUTO \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; die "configure failed"; }
rm -f "$build.configure.log"
tools=(glove-convert embed-query embed-train bench-search bench-gpu-bandwidth bench-gpu-search bench-gen-clusters
  bench-cluster-quality bench-host-rows bench-feed)
tests=(gpu_smoke_test gpu_train_tests gpu_glove_tests gpu_search_tests)
cmake --build "$build" -j"$(nproc)" --target "${tools[@]}" "${tests[@]}"
stage_done "kit build" $start
start=$SECONDS

rm -rf "$kit"
mkdir -p "$kit"/{bin,lib,lib-dlopen,lib-fallback,tests/gpu,tests/cli,tests/python,python/embed,data,shared/data,scripts/bench}
# Stripped of their symbol tables: 6 MB less, which the MPI runtime needs to fit.
for t in "${tools[@]}"; do install -m 755 "$build/$t" "$kit/bin/"; done
for t in "${tests[@]}"; do install -m 755 "$build/tests/$t" "$kit/bin/"; done
strip --strip-unneeded "$kit"/bin/*

# The base set: what every Linux image with an NVIDIA driver has. Anything else that ldd
# resolves for a binary (or for a library copied for one) is copied into lib/.
base='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libz|libcuda)\.so'
# needed FILE...: "soname path" of the libraries ldd resolves for FILE outside the base set.
needed() {
  for f in "$@"; do
    ldd "$f" | awk '/=>/ && $3 ~ /^\// {print $1, $3}' | while read -r name path; do
      if [[ ! $name =~ $base ]]; then echo "$name $path"; fi
    done
  done | sort -u
}
# copy_needed DEST FILE...: the non-base libraries of FILE..., recursively, but those DEST or
# the kit's lib/ has already.
copy_needed() {
  local dest=$1 name path added=1
  shift
  local files=("$@")
  while ((added)); do
    added=0
    while read -r name path; do
      if [[ -z $name || -e $dest/$name || -e $kit/lib/$name ]]; then continue; fi
      install -m 644 "$(readlink -f "$path")" "$dest/$name"
      files+=("$dest/$name")
      added=1
    done < <(needed "${files[@]}")
  done
}
copy_needed "$kit/lib" "$kit"/bin/*
missing=$(for f in "$kit"/bin/*; do LD_LIBRARY_PATH=$kit/lib ldd "$f" | grep 'not found' || true; done)
[[ -z $missing ]] || die "unresolved libraries: $missing"

# OpenBLAS is loaded with dlopen (ldd does not show it): without it the CPU figures beside
# the GPU's would be the portable loop's. Compressed, with its own needs.
# xz's fastest preset with -9's 64 MiB dictionary: the binaries share most of their code, which
# a dictionary that spans them all finds. 73 MB of binaries: 5.4 MB in 5 s, where -9 made 5.0
# MB in 40 s (35 s that CI waited for, the kit being built beside the last fuzzing round).
xz_fast=(xz --lzma2=preset=1,dict=64MiB -T0)
compress() { "${xz_fast[@]}" -c "$1" > "$2.xz"; }
# awk reads to the end: leaving early would kill ldconfig with SIGPIPE, which pipefail
# turns into a failure (as it once did in CI).
openblas=$(ldconfig -p | awk '/libopenblas\.so\.0 / && !found {print $NF; found = 1}')
if [[ -n $openblas ]]; then
  tmp=$(mktemp -d)
  install -m 644 "$(readlink -f "$openblas")" "$tmp/libopenblas.so.0"
  copy_needed "$tmp" "$tmp/libopenblas.so.0"
  for f in "$tmp"/*; do compress "$f" "$kit/lib-dlopen/$(basename "$f")"; done
  rm -rf "$tmp"
else
  echo "device-kit: OpenBLAS not found (libopenblas-dev): the CPU query figures will use the portable loop"
fi

# OpenMPI's runtime, for mpirun on the device machine: mpirun and orted, the components
# (plugins) that one machine's jobs use, PMIx's, the help texts, and the libraries they need
# beyond lib/. run.sh unpacks it and points OpenMPI and PMIx at it (OPAL_PREFIX and the
# like: both look up their files relative to those, not where they were built), and
# tests/kit/kit_test.sh runs it with this machine's OpenMPI hidden.
if "$kit/bin/embed-train" --version 2>/dev/null | grep -q '^MPI: Open MPI'; then
  bundle_mpi() {
    local dest=$1/mpi pkglibdir pkgdatadir pmix component
    pkglibdir=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
    pkgdatadir=$(ompi_info --path pkgdatadir --parsable | sed -n 's/^path:pkgdatadir://p')
    [[ -d $pkglibdir && -d $pkgdatadir ]] || die "OpenMPI's components or help texts not found (ompi_info --path all)"
    mkdir -p "$dest"/{bin,lib/components,share/openmpi,pmix/lib/pmix,pmix/share/pmix}
    install -m 755 "$(readlink -f "$(command -v mpirun)")" "$dest/bin/mpirun"
    install -m 755 "$(command -v orted)" "$dest/bin/orted"
    # Not the components for fabrics, schedulers and OpenSHMEM, which a job on one machine does
    # not use and whose libraries (UCX, libfabric, PSM, verbs) would not fit.
    local skip='ucx|ofi|psm|openib|verbs|monitoring|flux|slurm|jsm|gridengine|treematch|romio|simulator|hugepage'
    skip+='|dbg_msgq|rank_file|resilient|scoll|sshmem|memheap|spml|atomic|netlink'
    for component in "$pkglibdir"/*.so; do
      [[ $(basename "$component") =~ $skip ]] || install -m 644 "$component" "$dest/lib/components/"
    done
    cp -r "$pkgdatadir/." "$dest/share/openmpi/"
    # PMIx (Debian's: its own prefix, /usr/lib/x86_64-linux-gnu/pmix2) with its components and texts.
    pmix=$(ldd "$dest"/lib/components/mca_pmix_ext3x.so | awk '$1 == "libpmix.so.2" {print $3}')
    pmix=$(dirname "$(dirname "$(readlink -f "$pmix")")")
    [[ -d $pmix/lib/pmix && -d $pmix/share/pmix ]] || die "PMIx's components not found beside $pmix"
    install -m 644 "$pmix"/lib/pmix/*.so "$dest/pmix/lib/pmix/"
    cp -r "$pmix/share/pmix/." "$dest/pmix/share/pmix/"
    # Their libraries that lib/ lacks (libpmix, libmunge, OpenMPI's common component code).
    copy_needed "$dest/lib" "$dest"/bin/* "$dest"/lib/components/*.so "$dest"/pmix/lib/pmix/*.so
    missing=$(for f in "$dest"/bin/* "$dest"/lib/*.so* "$dest"/lib/components/*.so "$dest"/pmix/lib/pmix/*.so; do
      LD_LIBRARY_PATH=$kit/lib:$dest/lib ldd "$f" | grep 'not found' || true
    done)
    [[ -z $missing ]] || die "the MPI runtime's libraries unresolved: $missing"
  }
  tmp=$(mktemp -d)
  bundle_mpi "$tmp"
  tar -C "$tmp" -cf - mpi | xz -9 -T0 > "$kit/mpi-runtime.tar.xz"
  rm -rf "$tmp"
else
  echo "device-kit: built without MPI (no libopenmpi-dev): the kit has no mpirun, and its MPI step skips"
fi

# Fallbacks for an image whose libstdc++ is older than this compiler's.
for name in libstdc++.so.6 libgcc_s.so.1; do
  path=$(ldd "$kit/bin/embed-train" | awk -v n="$name" '$1 == n {print $3}')
  if [[ -n $path ]]; then install -m 644 "$(readlink -f "$path")" "$kit/lib-fallback/$name"; fi
done

# Tests, fixtures, benchmarks and the runner.
install -m 644 tests/gpu/*.sh "$kit/tests/gpu/"
install -m 644 tests/cli/lib.sh tests/cli/on_tty.py "$kit/tests/cli/"
# The Python package and its tests, whose PyTorch parts only a machine with PyTorch runs.
install -m 644 tests/python/test_embed_package.py "$kit/tests/python/"
install -m 644 python/pyproject.toml python/README.md python/embed_build.py "$kit/python/"
install -m 644 python/embed/*.py "$kit/python/embed/"
install -m 644 data/* "$kit/data/"
install -m 644 "$shared/data/questions-words.txt" "$shared/data/wordsim353.tsv" "$kit/shared/data/"
compress "$shared/data/text8-head.txt" "$kit/shared/data/text8-head.txt"
install -m 644 scripts/bench/{gpu.sh,query.sh,large_corpus.sh,big_table.sh,count.sh,glove_small_vocab.sh,mpi_sync.sh,kernel_clocks.sh,lib.sh,benchstats.py,query.py,query_gpu.py,make_vectors_bin.py,make_glove_text.py} \
  "$kit/scripts/bench/"
install -m 755 scripts/device-kit-run.sh "$kit/run.sh"

# The binaries packed (xz: a quarter of their size), which run.sh unpacks: bin/ was two thirds
# of the kit, which must fit beside the working tree.
tar -C "$kit" -cf - bin | "${xz_fast[@]}" > "$kit/bin.tar.xz"
rm -rf "$kit/bin"

cuda_version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
{
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
  echo "cuda $cuda_version"
  echo "cuda_major ${cuda_version%%.*}"
  echo "architectures sm_$arch"
  (cd "$kit" && find . -type f ! -name MANIFEST -printf '%s %P\n' | sort -k2)
} > "$kit/MANIFEST"

bytes=$(du -sb "$kit" | cut -f1)
((bytes <= max_bytes)) || die "$kit is $((bytes >> 20)) MiB, over the 48 MiB that may travel with the working tree"
stage_done "kit pack" $start
echo "device-kit: $kit ready: $(awk "BEGIN {printf \"%.1f\", $bytes / 1048576}") MiB, CUDA $cuda_version, sm_$arch"
echo "device-kit: run it there with: bash .device-kit/run.sh all   (carry: [\".device-kit\"]; docs/GPU.md)"
