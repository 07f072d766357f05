#!/usr/bin/env bash
# Installs dependencies from Debian 12's packages. Idempotent: packages already present are
# left alone, so it is cheap to re-run.
# Usage: setup.sh [--tests] [--fuzz]
#   (nothing)  what building and running the three tools needs: README's first command
#   --tests    also what only the tests need: Catch2, and the peers and helpers the interop,
#              Python and rendering tests run (scripts/test.sh passes it itself)
#   --fuzz     also clang and its libFuzzer runtime, for scripts/fuzz.sh (CI passes it)
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  # The compiler cache every build goes through (CMakeLists.txt): fresh clones rebuild from it.
  ccache
  libcli11-dev libspdlog-dev libfmt-dev libfast-float-dev
  nlohmann-json3-dev zlib1g-dev libdeflate-dev libopenblas-dev libhnswlib-dev
  # Data-parallel training under mpirun (optional at build time, but a feature of embed-train).
  libopenmpi-dev openmpi-bin
)
tests=(
  catch2
  # Peers for the interop tests and benchmarks (use /usr/bin/python3: Debian's).
  python3 python3-numpy python3-gensim fasttext time python3-faiss python3-hnswlib
  # The Python package's install test: pip in a fresh virtual environment, offline; and PyTorch
  # for its to_torch and nn.Embedding tests (python3-torch 1.13, CPU only: 151 packages, 601 MB,
  # 30 s to install on a 2-core machine in 2026-11; the GPU paths run in the device kit).
  python3-venv python3-torch
  # Headless Chromium renders the SVGs for tests/render/render_svg.sh (24 packages, 10 s to
  # install on a 2-core machine in 2026-11, 350 MB on disk).
  chromium
)
fuzz=(clang libclang-rt-14-dev)

for arg in "$@"; do
  case $arg in
    --tests) packages+=("${tests[@]}") ;;
    --fuzz) packages+=("${fuzz[@]}") ;;
    *) echo "setup.sh: unknown option $arg (usage: setup.sh [--tests] [--fuzz])" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
