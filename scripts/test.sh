#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test (unit, cli, interop, gpu).
#   scripts/test.sh             Release build in build/, all tests
#   scripts/test.sh --sanitize  Debug build with AddressSanitizer + UBSan in build-asan/, unit and cli tests
# GPU tests skip themselves where there is no usable device. Compilations go through ccache
# where it is installed (CMakeLists.txt). ctest runs as many tests at once as there are cores,
# sharing them by the tests' PROCESSORS and RESOURCE_LOCK (tests/CMakeLists.txt, script_test).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage_times.sh
jobs=$(nproc)

if [[ ${1:-} == --sanitize ]]; then
  # Without MPI: OpenMPI's own allocations at MPI_Init read as leaks to LeakSanitizer, and
  # this build then checks that embed-train without MPI refuses to run under mpirun.
  start=$SECONDS
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DEMBED_SANITIZE=ON -DEMBED_WERROR=ON -DEMBED_CUDA=OFF -DEMBED_MPI=OFF
  cmake --build build-asan -j"$jobs"
  stage_done "sanitizer build" $start
  # abort_on_error: a sanitizer report kills the process with SIGABRT, which the cli tests
  # count as a crash (by default it exits 1, indistinguishable from a refused input).
  start=$SECONDS
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:abort_on_error=1 \
    ctest --test-dir build-asan -L 'unit|cli' --output-on-failure -j"$jobs"
  stage_done "sanitizer tests" $start
else
  start=$SECONDS
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DEMBED_WERROR=ON
  cmake --build build -j"$jobs"
  stage_done "Release build" $start
  start=$SECONDS
  ctest --test-dir build --output-on-failure -j"$jobs"
  stage_done "Release tests" $start
fi
