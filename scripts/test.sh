#!/usr/bin/env bash
# Installs what the tests need, builds the tests beside the tools and runs every test.
#   scripts/test.sh             Release build in build/, all tests (unit, cli, interop, python, gpu)
#   scripts/test.sh --sanitize  ASan + UBSan build in build-asan/ (clang -O1; scripts/sanitize_build.sh),
#                               the unit and cli tests
# Run right after README's first command, it compiles nothing that command compiled: it keeps
# build/'s configuration (Release; warnings are errors by default with GCC 12, CMakeLists.txt)
# and only adds BUILD_TESTING, which builds the tests and benchmark helpers beside the tools.
# EMBED_CUDA=ON|OFF|AUTO in the environment is passed on to CMake (CI sets ON where nvcc is,
# so that the CUDA backend builds and its host-side tests run without a GPU).
# GPU tests skip themselves where there is no usable device. Compilations go through ccache
# where it is installed (CMakeLists.txt). ctest runs as many tests at once as there are cores,
# sharing them by the tests' PROCESSORS and RESOURCE_LOCK (tests/CMakeLists.txt, script_test).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage_times.sh
jobs=$(nproc)
cuda=()
if [[ -n ${EMBED_CUDA:-} ]]; then cuda=(-DEMBED_CUDA="$EMBED_CUDA"); fi

setup=(--tests)
# The sanitizer build (scripts/sanitize_build.sh) is clang's, its fuzzing harnesses in it.
if [[ ${1:-} == --sanitize ]]; then setup+=(--fuzz); fi
bash scripts/setup.sh "${setup[@]}"

if [[ ${1:-} == --sanitize ]]; then
  source scripts/sanitize_build.sh
  start=$SECONDS
  sanitize_configure
  cmake --build "$sanitize_dir" -j"$jobs"
  stage_done "sanitizer build" $start
  # abort_on_error: a sanitizer report kills the process with SIGABRT, which the cli tests
  # count as a crash (by default it exits 1, indistinguishable from a refused input).
  start=$SECONDS
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:abort_on_error=1 \
    ctest --test-dir "$sanitize_dir" -L 'unit|cli' --output-on-failure -j"$jobs"
  stage_done "sanitizer tests" $start
else
  start=$SECONDS
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON "${cuda[@]}"
  cmake --build build -j"$jobs"
  stage_done "Release build" $start
  start=$SECONDS
  ctest --test-dir build --output-on-failure -j"$jobs"
  stage_done "Release tests" $start
fi
