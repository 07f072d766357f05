# Shared by the cli tests: a scratch directory (the working directory, removed at exit)
# and pass/fail counting. Source it, run checks, then call `finish`.
cli_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# long_epochs N: the epochs of a run that a test interrupts, resumes and compares bit for bit
# with an uninterrupted run, where the run's length checks nothing but the resumption: N, or 7
# in the sanitizer build (ctest sets EMBED_TEST_LEAN=1 there, tests/CMakeLists.txt). An epoch of
# text8-200k takes 0.3 to 0.45 s there for skip-gram (its training loops are built at -O2; a
# tenth of that in Release), so a run interrupted after epoch 2 or 3 of 7 still has over a
# second to go when the signal lands (sent within 0.1 s of the log line), on a loaded machine
# too (GloVe's epochs, 0.2 s, take 14). Each interrupted run and its resume cost the whole
# run's epochs, whenever the signal lands: the run's length is what costs. Runs whose length
# is what a test checks (costs falling, words learnt) keep theirs in every build.
# long_epochs N LEAN: LEAN rather than 7 there, for a run whose epochs are faster or slower.
long_epochs() { if [[ ${EMBED_TEST_LEAN:-0} == 1 ]]; then echo "${2:-7}"; else echo "$1"; fi; }
# on_tty [--input TEXT] COMMAND...: what COMMAND writes to a terminal (see on_tty.py).
on_tty() { python3 "$cli_dir/on_tty.py" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

passed=0
failed=0
ok() { passed=$((passed + 1)); }
# EMBED_TEST_FAIL_FAST=1 (tests/broken/check_suites_catch_breakage.sh sets it): the first
# failure ends the suite, exit 1, since all that harness asks is whether a suite fails.
bad() {
  failed=$((failed + 1))
  echo "FAIL: $*" >&2
  if [[ ${EMBED_TEST_FAIL_FAST:-0} == 1 ]]; then exit 1; fi
}
# check NAME ACTUAL EXPECTED
check() { if [[ $2 == "$3" ]]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }
# vectors FILE: a digest of the table as GloVe text, metadata aside, to compare runs
# (needs $GC, the glove-convert to use).
vectors() { "$GC" -q "$1" -o - --to glove | md5sum | cut -d' ' -f1; }
# litter: how many temporaries (.tmp-) the working directory holds.
litter() { ls -a | grep -c '\.tmp-'; }
# expect_error NAME STATUS PATTERN COMMAND...: COMMAND exits with STATUS, its stderr
# says PATTERN, and it failed before training (no epoch line).
expect_error() {
  local name=$1 status=$2 pattern=$3
  shift 3
  "$@" > out.txt 2> err.txt
  local got=$?
  if [[ $got != "$status" ]]; then bad "$name: exit $got, expected $status ($(head -c 300 err.txt))"; return; fi
  if ! grep -q -- "$pattern" err.txt; then bad "$name: no '$pattern' in: $(head -c 300 err.txt)"; return; fi
  if grep -q 'epoch 1' err.txt; then bad "$name: trained before failing"; return; fi
  ok
}
# wait_for FILE PATTERN [PID]: until FILE shows PATTERN (at most 60 s); fails at once when
# PID, the process that would write it, has ended without it (a tool that crashed or wrote
# nothing fails the check in a moment rather than a minute).
wait_for() {
  for _ in $(seq 600); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    if [[ -n ${3-} ]] && ! kill -0 "$3" 2>/dev/null; then grep -q "$2" "$1" 2>/dev/null; return; fi
    sleep 0.1
  done
  return 1
}
# interrupt_when LOG PATTERN COMMAND...: runs COMMAND, its stderr to LOG, until LOG shows
# PATTERN, then sends it SIGINT as Ctrl-C would; returns COMMAND's exit status. Job control
# (set -m) is on meanwhile: a non-interactive shell starts background jobs with SIGINT
# ignored, and embed-train, as any well-behaved program, keeps it ignored.
interrupt_when() {
  local log=$1 pattern=$2 pid status
  shift 2
  : > "$log"  # emptied first: what an earlier run left in it must not count as this run's
  set -m
  "$@" 2> "$log" &
  pid=$!
  wait_for "$log" "$pattern" $pid && kill -INT $pid
  wait $pid
  status=$?
  set +m
  return $status
}
# interrupt_mpirun PATTERN COMMAND...: runs COMMAND (an mpirun; stdout to out.txt, stderr
# to err.txt) until err.txt shows PATTERN, then sends mpirun SIGINT as Ctrl-C would; returns
# its exit status. mpirun passes the signal on as SIGTERM, then SIGKILL,
# odls_base_sigkill_timeout seconds apart (default 1): 3 s leave rank 0 room for the
# checkpoint on a busy machine.
interrupt_mpirun() {
  local pattern=$1 job status
  shift
  OMPI_MCA_odls_base_sigkill_timeout=3 "$@" > out.txt 2> err.txt &
  job=$!
  wait_for err.txt "$pattern"
  kill -INT "$job"
  wait "$job"
  status=$?
  return $status
}
# planted_topics: a corpus of ten groups of 8 words (a0..a7, b0..b7, ...) that meet only their
# own group, among filler words every group shares; 6,000 lines.
planted_topics() {
  awk 'BEGIN {
    srand(7)
    for (s = 0; s < 6000; s++) {
      g = sprintf("%c", 97 + s % 10); line = ""
      for (i = 0; i < 12; i++) line = line g int(rand() * 8) " filler" int(rand() * 50) " "
      print line
    }
  }'
}
# topic_hits VECTORS: how many of the 5 nearest neighbours of a0..a4 and b0..b4 (by $EQ,
# embed-query) are of their own group: 50 at most.
topic_hits() {
  local hits=0 g i
  for g in a b; do
    for i in 0 1 2 3 4; do
      hits=$((hits + $("$EQ" "$1" "$g$i" -k 5 --format tsv | cut -f3 | grep -c "^$g")))
    done
  done
  echo "$hits"
}
finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
