# shellcheck shell=bash
# Sourced by test.sh --sanitize and fuzz.sh: the one build with AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-asan/. clang, at -O1 with debug information (ASan's
# recommended level: about twice -O0's speed, every check kept), its files instrumented for
# libFuzzer too (EMBED_FUZZ), so that the tests run under the sanitizers and the fuzzing
# harnesses come from the same compilation of the library: CI compiles it once, not twice.
# File by file (no unity build): a library file that only compiles beside another in a batch
# of the Release build fails here. Without MPI: OpenMPI's own allocations at MPI_Init read as
# leaks to LeakSanitizer, and the tests then check that embed-train without MPI refuses to run
# under mpirun. Needs clang and libclang-rt-14-dev (scripts/setup.sh --fuzz).
sanitize_dir=build-asan

# sanitize_configure: configures $sanitize_dir (quietly; its log is shown if it fails).
sanitize_configure() {
  command -v clang++ > /dev/null || { echo "${0##*/}: clang++ not found (bash scripts/setup.sh --fuzz)" >&2; return 1; }
  mkdir -p "$sanitize_dir"
  CC=clang CXX=clang++ cmake -S . -B "$sanitize_dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" \
    -DEMBED_FUZZ=ON -DEMBED_WERROR=ON -DEMBED_UNITY=OFF -DEMBED_CUDA=OFF -DEMBED_MPI=OFF -DBUILD_TESTING=ON \
    > "$sanitize_dir/configure.log" 2>&1 || { cat "$sanitize_dir/configure.log" >&2; return 1; }
}
