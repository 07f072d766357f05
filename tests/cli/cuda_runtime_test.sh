#!/usr/bin/env bash
# A CUDA build starts and works on the CPU on a machine without the CUDA libraries: the
# runtime is linked statically, and cuBLAS is loaded only when a GPU search needs it.
# The loader is run with --inhibit-cache, so that only the system's own library folders
# are searched and the toolkit's (known to ld.so.cache here) are not. Where no NVIDIA
# driver is installed, the tools say so rather than quoting the runtime's version error.
# Usage: cuda_runtime_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (run from the repo root;
# registered only for CUDA builds)
set -u
ET=$(realpath "${1:?usage: cuda_runtime_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT}")
EQ=$(realpath "${2:?usage}")
GC=$(realpath "${3:?usage}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for tool in "$ET" "$EQ" "$GC"; do
  needed=$(readelf -d "$tool" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  [[ $needed == *lib* ]] && ok || bad "$(basename "$tool"): readelf lists no libraries: $needed"
  grep -qE 'libcuda|libcudart|libcublas' <<<"$needed" && bad "$(basename "$tool") needs CUDA libraries: $needed" || ok
done

# The program interpreter, run directly: the tools with no CUDA library in reach.
loader=$(readelf -l "$ET" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
[[ -x $loader ]] || { echo "skipped: no program interpreter found ($loader)"; exit 77; }
bare() { "$loader" --inhibit-cache "$@"; }
bare "$ET" --version > version.txt
check "--version without the CUDA libraries" "$?" "0"
grep -q 'CUDA backend built' version.txt && ok || bad "--version names the CUDA backend: $(cat version.txt)"
bare "$ET" --corpus "$DATA/text8-200k.txt.gz" -o v.emb --dim 16 --epochs 1 --threads 2 --device cpu -q
check "trains on the CPU without the CUDA libraries" "$?" "0"
bare "$EQ" v.emb three -k 3 --format tsv > n.tsv
check "queries on the CPU without the CUDA libraries" "$?" "0"
check "three neighbours" "$(wc -l < n.tsv)" "3"
bare "$GC" -q v.emb -o v.txt
check "converts without the CUDA libraries" "$?" "0"

# No driver at all (CI, laptops): named as such, by --version and by --device cuda.
if ! ldconfig -p | grep -q 'libcuda\.so\.1 ' && [[ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ]]; then
  grep -q 'no usable device (no NVIDIA driver was found' version.txt && ok || bad "--version: $(tail -1 version.txt)"
  expect_error "--device cuda without a driver" 1 "--device cuda: no usable GPU: no NVIDIA driver was found" \
    "$ET" --corpus "$DATA/text8-200k.txt.gz" -o e.emb --device cuda
  expect_error "embed-query --device cuda without a driver" 1 "no NVIDIA driver was found" "$EQ" v.emb three --device cuda
fi
finish
