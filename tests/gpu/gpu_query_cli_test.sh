#!/usr/bin/env bash
# embed-query --device cuda end to end (ctest label "gpu"; exit 77, skipped, where no GPU
# is usable): the same answers as --device cpu for a stdin batch of words and analogies
# (f32 and f16 files, 3CosAdd and 3CosMul, --restrict, the rows resident and streamed
# through a small --gpu-memory), --device auto choosing the GPU for large batches only,
# eval's numbers, and the refusals.
# Usage: gpu_query_cli_test.sh EMBED_QUERY GLOVE_CONVERT
# The fixtures come from EMBED_DATA, by default the data/ folder two levels above this
# script (the repository's, or the device kit's: scripts/device-kit.sh).
set -u
EQ=$(realpath "${1:?usage: gpu_query_cli_test.sh EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${2:?usage}")
DATA=$(realpath "${EMBED_DATA:-$(dirname "${BASH_SOURCE[0]}")/../../data}")
if ! "$EQ" --version | grep -q 'CUDA backend built, [0-9]'; then
  echo "skipped: $("$EQ" --version | grep backends)"
  exit 77
fi
source "$(dirname "$0")/../cli/lib.sh"

# 30,000 random words x 100 dims, with zero rows; 500 queries: words and analogies.
python3 - <<'PY'
import random
random.seed(4)
with open("v.txt", "w") as f:
    for r in range(30000):
        zero = r % 997 == 17
        f.write(f"w{r} " + " ".join("0" if zero else f"{random.gauss(0, 0.35):.6f}" for _ in range(100)) + "\n")
with open("queries.txt", "w") as f:
    for q in range(500):
        w = [f"w{random.randrange(30000)}" for _ in range(3)]
        f.write(w[0] + "\n" if q % 3 == 0 else f"{w[0]} - {w[1]} + {w[2]}\n")
PY
"$GC" -q v.txt -o v.emb || bad "convert f32"
"$GC" -q v.txt --dtype f16 -o v16.emb || bad "convert f16"

# same NAME CPU.tsv GPU.tsv: the same queries and ranks, words equal or tied within 1e-5, scores within 1e-5.
same() {
  python3 - "$2" "$3" <<'PY' && ok || bad "$1: GPU answers differ from the CPU's"
import sys
cpu = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
gpu = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
if len(cpu) != len(gpu) or not cpu:
    sys.exit(f"{len(cpu)} CPU lines, {len(gpu)} GPU lines")
differ = 0
for c, g in zip(cpu, gpu):
    if c[:2] != g[:2] or abs(float(c[3]) - float(g[3])) > 1e-5 * max(1.0, abs(float(c[3]))):
        sys.exit(f"CPU {c} GPU {g}")
    differ += c[2] != g[2]
if differ * 100 > len(cpu):  # near ties (within float rounding) may swap places
    sys.exit(f"{differ} of {len(cpu)} answers on other words")
PY
}

for file in v.emb v16.emb; do
  for method in 3cosadd 3cosmul; do
    for extra in "" "--restrict 10000" "-k 100"; do
      name="$file $method $extra"
      "$EQ" "$file" --format tsv --method "$method" $extra --device cpu < queries.txt > cpu.tsv 2> cpu.err
      check "$name: CPU exit" "$?" "0"
      "$EQ" "$file" --format tsv --method "$method" $extra --device cuda -v < queries.txt > gpu.tsv 2> gpu.err
      check "$name: GPU exit" "$?" "0"
      grep -q "queries answered on the GPU" gpu.err && ok || bad "$name: -v says the GPU answered: $(tail -3 gpu.err)"
      same "$name" cpu.tsv gpu.tsv
    done
  done
done

# Streamed through a small --gpu-memory.
"$EQ" v.emb --format tsv --device cpu < queries.txt > cpu.tsv
"$EQ" v.emb --format tsv --device cuda --gpu-memory 40M -v < queries.txt > gpu.tsv 2> gpu.err
check "streamed: exit" "$?" "0"
grep -q "streamed through two buffers" gpu.err && ok || bad "streamed: -v says so: $(grep 'GPU search' gpu.err)"
same "streamed" cpu.tsv gpu.tsv
expect_error "--gpu-memory too small" 1 "raise --gpu-memory or use --device cpu" "$EQ" v.emb w1 --device cuda --gpu-memory 1M

# auto: the GPU for a large batch, the CPU for a single query.
"$EQ" v.emb --format tsv -v < queries.txt > auto.tsv 2> auto.err
grep -q "500 queries answered on the GPU" auto.err && ok || bad "auto: a batch of 500 on the GPU: $(tail -2 auto.err)"
same "auto" cpu.tsv auto.tsv
"$EQ" v.emb w1 -v > /dev/null 2> one.err
grep -q "1 query answered on the CPU" one.err && ok || bad "auto: one query on the CPU: $(tail -2 one.err)"
grep -q "GPU search on" one.err && bad "auto: one query set the GPU up" || ok

# Refusals.
expect_error "-k above the GPU's limit" 2 "limit of 1024 neighbours" "$EQ" v.emb w1 --device cuda -k 1025

# eval: gensim's numbers on the GPU too (the bundled fixture, as query_cli_test.sh).
"$GC" -q "$DATA/text8-sample.txt.gz" -o sample.emb
"$EQ" eval sample.emb --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" --device cpu \
  > cpu.eval
"$EQ" eval sample.emb --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" --device cuda \
  > gpu.eval
check "eval: exit" "$?" "0"
check "eval: analogy total as gensim" "$(grep -E '^  total' gpu.eval | awk '{print $2, $3}')" "4.71% (12/255)"
check "eval: the CPU's report" "$(cat gpu.eval)" "$(cat cpu.eval)"

finish
