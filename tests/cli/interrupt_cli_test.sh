#!/usr/bin/env bash
# embed-train interrupted as users interrupt it (issue 37): SIGINT at many moments of a run
# with short epochs (so that many land on an epoch's end), sent by `timeout -s INT`, which
# delivers it twice (to the process and to its process group) as a terminal's Ctrl-C to a
# pipeline can; the same command run again, as a Makefile does after Ctrl-C; and outputs
# named for formats embed-train does not write.
# Usage: interrupt_cli_test.sh EMBED_TRAIN GLOVE_CONVERT
set -u
ET=$(realpath "${1:?usage: interrupt_cli_test.sh EMBED_TRAIN GLOVE_CONVERT}")
GC=$(realpath "${2:?usage}")
DATA=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../../data")
source "$(dirname "$0")/lib.sh"
CORPUS=$DATA/text8-200k.txt.gz
# About a tenth of a second an epoch in a Release build (a second under the sanitizers):
# never finishes within the moments below.
RUN=(--corpus "$CORPUS" --dim 16 --epochs 400 --threads 2 --seed 3)

# 1. Two SIGINTs 0.01 s apart, as `timeout -s INT` and a terminal's Ctrl-C to a pipeline
#    deliver them, are one request (one a second or more later still stops at once). At dim
#    200 the run takes longer than that to stop: a batch to finish, 7 MB of checkpoint to
#    write. First in the file, so that a tool broken on --resume fails in seconds. The
#    sanitizer build checks after 'epoch 2/' alone: its epochs at dim 200 take 2 s each.
patterns=('epoch 2/' 'epoch 4/')
[[ ${EMBED_TEST_LEAN:-0} == 1 ]] && patterns=('epoch 2/')
for pattern in "${patterns[@]}"; do
  # run.log too: the first run left "epoch 2/" in it, which would be found before the second starts.
  rm -f run.emb run.emb.ckpt run.log
  set -m
  "$ET" --corpus "$CORPUS" --dim 200 --epochs 400 --threads 2 --seed 3 -o run.emb 2> run.log &
  pid=$!
  wait_for run.log "$pattern" $pid && kill -INT $pid && sleep 0.01 && kill -INT $pid 2> /dev/null
  wait $pid
  status=$?
  set +m
  check "two SIGINTs 0.01 s apart after '$pattern': exit status" "$status" "130"
  [[ -f run.emb.ckpt ]] && grep -q 'interrupted by SIGINT' run.log && ok ||
    bad "two SIGINTs 0.01 s apart after '$pattern': no checkpoint; the log ends: $(tail -1 run.log)"
done
# The last checkpoint goes on (and, interrupted again, is replaced by a later one).
timeout --preserve-status -s INT 1 "$ET" --resume run.emb.ckpt 2> resume.log
check "the checkpoint resumes: exit status" "$?" "130"
grep -q 'resuming skipgram training at epoch' resume.log && ok || bad "resume: $(head -2 resume.log)"

# 2. The same command again (a Makefile after Ctrl-C): refused before any work, naming the
#    command that continues it, and the checkpoint is left as it was.
before=$(md5sum < run.emb.ckpt)
expect_error "the same command again" 1 "run.emb.ckpt holds an interrupted run of this output .* continue it with: embed-train --resume run.emb.ckpt; or start afresh with --restart" \
  "$ET" "${RUN[@]}" -o run.emb
check "the refused run left the checkpoint as it was" "$(md5sum < run.emb.ckpt)" "$before"
grep -q 'text8-200k.txt.gz: .* words' err.txt && bad "the refused run read the corpus first" || ok
expect_error "--restart with --resume" 2 "--restart starts the run afresh; --resume goes on" \
  "$ET" --resume run.emb.ckpt --restart
# --restart starts afresh: its own checkpoint replaces the old one when it is interrupted.
timeout --preserve-status -s INT 1.5 "$ET" "${RUN[@]}" -o run.emb --restart 2> restart.log
check "--restart: exit status" "$?" "130"
grep -q -- '--restart: discarding run.emb.ckpt' restart.log && ok || bad "--restart: $(head -2 restart.log)"
[[ -f run.emb.ckpt && $(md5sum < run.emb.ckpt) != "$before" ]] && ok || bad "--restart: the checkpoint was not replaced"
# A finished run's checkpoint (--checkpoint keeps one) does not stop the command running again.
SHORT=(--corpus "$CORPUS" --dim 8 --epochs 1 --threads 2 -q)
"$ET" "${SHORT[@]}" -o done.emb --checkpoint done.ckpt && [[ -f done.ckpt ]] && ok || bad "a run with --checkpoint"
"$ET" "${SHORT[@]}" -o done.emb --checkpoint done.ckpt && ok || bad "a finished run's checkpoint refused the command again"

# 3. A checkpoint whatever the moment: during counting there is nothing to save (exit 130,
#    nothing written); from the first epoch on, a checkpoint and the warning, every time.
#    Training starts about 0.1 s in (0.3 s under the sanitizers), and an epoch takes 0.06 s
#    (0.3 s): moments 0.1 s apart fall at every point of an epoch in either build.
trained=0
for moment in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0 1.1 1.2 1.3; do
  rm -f run.emb run.emb.ckpt
  timeout --preserve-status -s INT "$moment" "$ET" "${RUN[@]}" -o run.emb 2> run.log
  status=$?
  check "SIGINT at ${moment}s: exit status" "$status" "130"
  check "SIGINT at ${moment}s: no temporaries" "$(litter)" "0"
  [[ ! -e run.emb ]] && ok || bad "SIGINT at ${moment}s: vectors written by an interrupted run"
  if grep -q '^embed-train: training ' run.log; then
    trained=$((trained + 1))
    [[ -f run.emb.ckpt ]] && ok || bad "SIGINT at ${moment}s: no checkpoint; the log ends: $(tail -1 run.log)"
    grep -q 'interrupted by SIGINT at epoch .* checkpoint written to run.emb.ckpt' run.log && ok ||
      bad "SIGINT at ${moment}s: no warning; the log ends: $(tail -1 run.log)"
  fi
done
((trained >= 6)) && ok || bad "only $trained of 13 moments fell in training: counting is too slow for this test"

# 4. Output names: embed-train writes .emb; a text or Python extension is refused before any work.
expect_error "embed-train -o x.vec" 1 "x.vec: embed-train writes .emb files (safetensors), not .vec: name it x.emb and convert it with: glove-convert x.emb -o x.vec" \
  "$ET" "${SHORT[@]}" -o x.vec
expect_error "embed-train -o x.txt" 1 "not .txt: name it x.emb" "$ET" "${SHORT[@]}" -o x.txt
expect_error "embed-train -o x.npy" 1 "not .npy: name it x.emb" "$ET" "${SHORT[@]}" -o x.npy
expect_error "glove-convert -o x.npy" 1 "x.npy: glove-convert does not write .npy files" "$GC" done.emb -o x.npy
"$GC" -q done.emb -o x.vec && head -c 20 x.vec | grep -qE '^[0-9]+ 8' && ok || bad "glove-convert -o x.vec writes text"
[[ ! -e x.npy ]] && ok || bad "a refused output was created"
finish
