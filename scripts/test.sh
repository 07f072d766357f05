#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test (unit, cli, interop, gpu).
#   scripts/test.sh             Release build in build/, all tests
#   scripts/test.sh --sanitize  Debug build with AddressSanitizer + UBSan in build-asan/, unit and cli tests
# GPU tests skip themselves where there is no usable device.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

if [[ ${1:-} == --sanitize ]]; then
  # Without MPI: OpenMPI's own allocations at MPI_Init read as leaks to LeakSanitizer, and
  # this build then checks that embed-train without MPI refuses to run under mpirun.
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DEMBED_SANITIZE=ON -DEMBED_WERROR=ON -DEMBED_CUDA=OFF -DEMBED_MPI=OFF
  cmake --build build-asan -j"$jobs"
  # abort_on_error: a sanitizer report kills the process with SIGABRT, which the cli tests
  # count as a crash (by default it exits 1, indistinguishable from a refused input).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:abort_on_error=1 \
    ctest --test-dir build-asan -L 'unit|cli' --output-on-failure -j"$jobs"
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DEMBED_WERROR=ON
  cmake --build build -j"$jobs"
  ctest --test-dir build --output-on-failure -j"$jobs"
fi
