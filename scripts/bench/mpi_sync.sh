#!/usr/bin/env bash
# mpi_sync.sh: what data-parallel training (mpirun -np 2) does to the vectors' quality as
# the ranks share their rows more or less often (--sync-interval), on the CPU and on a GPU,
# against one process with the same settings: the WordSim-353 sample's Spearman (the
# bundled data/wordsim-sample.tsv, as the GPU CLI tests judge), the rounds the ranks ran,
# and rank 0's seconds in them.
#
# Why: on an H200 (2026-11-27) two ranks sharing the GPU scored 0.10 (device placement) and
# 0.17 (host placement) where one process scored 0.28, on text8-200k at dim 200, 5 epochs,
# --sync-interval 0.02; two ranks on the CPU score within the seed spread of one process.
# A round sums the ranks' changes since the last one: a GPU trains a rank's share of
# an epoch in a few hundredths of a second, so it met few rounds, and changes summed after
# many steps each overshoot where both ranks moved a row the same way. A second call (the
# poll that had held rounds to one per 50 ms fixed) found the GPU ranks at 20 rounds in
# 5 epochs at --sync-interval 0.005 (about 20 ms a round), scoring 0.44 to one process's
# 0.51 on 4 copies: a larger corpus (COPIES="4 16") shows whether more rounds per epoch close it.
# Since, a rank also shares after every --sync-words corpus words it trains (by default a
# 32nd of its share of an epoch), its workers waiting for the round: the BUDGETS rows run by
# words alone (--sync-interval 100), the INTERVALS rows by time alone (--sync-words 0).
#
# Environment: BUILD (embed-train, embed-query), EMBED_DATA (data/: text8-200k.txt.gz and
# the samples), COPIES ("4": the corpus repeated, one table per count), DIM (200), EPOCHS (5), SEED (3),
# INTERVALS ("0.005 0.02 0.1 0.5"), BUDGETS ("auto 40000 10000": --sync-words, auto its default), DEVICES ("cpu cuda";
# cuda is skipped without a usable GPU), BENCH_DIR, KEEP=1.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BUILD:?BUILD: the folder with embed-train and embed-query}
DATA=${EMBED_DATA:-$here/../../data}
COPIES=${COPIES:-4}
DIM=${DIM:-200}
EPOCHS=${EPOCHS:-5}
SEED=${SEED:-3}
INTERVALS=${INTERVALS:-0.005 0.02 0.1 0.5}
BUDGETS=${BUDGETS:-auto 40000 10000}
DEVICES=${DEVICES:-cpu cuda}
ET=$BUILD/embed-train
EQ=$BUILD/embed-query
# sample_spearman FILE.emb, the GPU CLI tests' measure (it reads $EQ and $DATA).
# shellcheck source-path=SCRIPTDIR source=../../tests/gpu/sample_quality.sh
source "$here/../../tests/gpu/sample_quality.sh"
[[ -x $ET && -x $EQ ]] || { echo "mpi_sync: no embed-train and embed-query in BUILD=$BUILD" >&2; exit 1; }
command -v mpirun > /dev/null || { echo "mpi_sync: skipped: no mpirun"; exit 0; }
"$ET" --version | grep -q '^MPI: Open MPI' || { echo "mpi_sync: skipped: embed-train was built without MPI"; exit 0; }
[[ $(id -u) -ne 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --mca btl "self,tcp" --mca btl_tcp_if_include lo -np 2)

work=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/mpi-sync.XXXXXX")
[[ ${KEEP:-0} == 1 ]] || trap 'rm -rf "$work"' EXIT

# run NAME COMMAND...: trains, then prints the row: Spearman, wall seconds, the ranks' rounds.
run() {
  local name=$1 start status
  shift
  start=$(date +%s.%N)
  "$@" -o "$work/$name.emb" -v > "$work/$name.log" 2>&1
  status=$?
  local secs rounds
  secs=$(python3 -c "import sys, time; print('%.1f' % (time.time() - float(sys.argv[1])))" "$start")
  if ((status != 0)); then
    printf '%-28s failed (exit %d): %s\n' "$name" "$status" "$(grep -v -e pmix -e dlopen -e Perhaps "$work/$name.log" | tail -2 | tr '\n' ' ')"
    return
  fi
  # "N rounds between the ranks (S s of sharing), ...": the rounds, and the seconds they took.
  rounds=$(grep -o '[0-9]* rounds between the ranks ([0-9.]* s' "$work/$name.log" | tr -d '(' | awk '{print $1, $6}' || true)
  read -r rounds sharing <<<"${rounds:-- -}"
  printf '%-28s %8s %8s %8s %9s\n' "$name" "$(printf '%.3f' "$(sample_spearman "$work/$name.emb")")" "$secs" "$rounds" "$sharing"
}

for copies in $COPIES; do
  for ((i = 0; i < copies; i++)); do zcat "$DATA/text8-200k.txt.gz"; done > "$work/corpus.txt"
  echo "== mpi_sync: text8-200k x $copies, skip-gram dim $DIM, $EPOCHS epochs, seed $SEED, 1 thread per rank"
  printf '%-28s %8s %8s %8s %9s\n' run spearman wall_s rounds sharing_s
  settings=(--corpus "$work/corpus.txt" --dim "$DIM" --epochs "$EPOCHS" --seed "$SEED" --threads 1)
  for device in $DEVICES; do
    if [[ $device == cuda ]] && ! "$ET" --version | grep -q 'CUDA backend built, [0-9]'; then
      echo "cuda: skipped: no usable GPU"
      continue
    fi
    run "$device, one process" "$ET" "${settings[@]}" --device "$device"
    for interval in $INTERVALS; do
      run "$device, 2 ranks, sync $interval" "${MPIRUN[@]}" "$ET" "${settings[@]}" --device "$device" --sync-interval "$interval" \
        --sync-words 0
    done
    for budget in $BUDGETS; do
      words=()
      [[ $budget == auto ]] || words=(--sync-words "$budget")
      run "$device, 2 ranks, words $budget" "${MPIRUN[@]}" "$ET" "${settings[@]}" --device "$device" --sync-interval 100 \
        "${words[@]}"
    done
  done
done
