#!/usr/bin/env bash
# Every suite must fail when the tool under it is broken (issue 38): each CLI and interop
# suite of glove-convert and embed-query is run against broken copies of its tools
# (tests/broken/broken_tool.sh: a crash on one option or one kind of query, a tool that
# prints nothing and exits 0, one that exits 1), and each such run must exit non-zero.
# A suite that passes with a broken tool has a check that does not look at what it claims to.
# Usage: check_suites_catch_breakage.sh GLOVE_CONVERT EMBED_QUERY (run from the repository root)
set -u
GC=$(realpath "${1:?usage: check_suites_catch_breakage.sh GLOVE_CONVERT EMBED_QUERY}")
EQ=$(realpath "${2:?usage: check_suites_catch_breakage.sh GLOVE_CONVERT EMBED_QUERY}")
repo=$(pwd)
broken=$repo/tests/broken/broken_tool.sh
shims=$(mktemp -d)
trap 'rm -rf "$shims"' EXIT
caught=0
missed=0
n=0

# expect_caught SUITE MODE_GC MODE_EQ: runs SUITE (tests/...) with glove-convert and embed-query
# broken as MODE_GC and MODE_EQ ("-": the real tool), in the argument order the suite takes.
expect_caught() {
  local suite=$1 gc=$GC eq=$EQ args=() rc log
  n=$((n + 1))
  if [[ $2 != - ]]; then gc=$shims/$n/glove-convert; mkdir -p "$shims/$n"; "$broken" --make "$gc" "$GC" "$2"; fi
  if [[ $3 != - ]]; then eq=$shims/$n/embed-query; mkdir -p "$shims/$n"; "$broken" --make "$eq" "$EQ" "$3"; fi
  case $suite in
    cli/cli_test.sh | cli/projector_cli_test.sh) args=("$gc") ;;
    cli/query_cli_test.sh | cli/ann_cli_test.sh) args=("$eq" "$gc") ;;
    interop/query_interop.sh) args=("$eq") ;;
    *) echo "check_suites_catch_breakage.sh: no argument order for $suite" >&2; exit 2 ;;
  esac
  log=$shims/$n.log
  bash "tests/$suite" "${args[@]}" > "$log" 2>&1
  rc=$?
  local what="$suite with glove-convert $2, embed-query $3"
  if [[ $rc -ne 0 && $rc -ne 77 ]]; then
    caught=$((caught + 1))
    echo "caught: $what (exit $rc: $(grep -m1 -E '^FAIL|FAIL:' "$log" | head -c 150))"
  else
    missed=$((missed + 1))
    echo "MISSED: $what passed (exit $rc): $(tail -1 "$log")" >&2
  fi
}

tab=$'\t'
# glove-convert: the audit's crash on --threads, a crash reading an .emb back as text, silent, failing.
expect_caught cli/cli_test.sh crash-on:--threads -
expect_caught cli/cli_test.sh crash-on:n.emb -
expect_caught cli/cli_test.sh silent -
expect_caught cli/cli_test.sh crash-after:--subwords -
expect_caught cli/projector_cli_test.sh silent -
expect_caught cli/projector_cli_test.sh crash-on:--limit -
expect_caught cli/projector_cli_test.sh crash-after:projector -
# embed-query: the audit's crashes on 3CosMul, --restrict and similarity queries, and a silent one.
# (query_cli_test.sh is not run silent: it waits 60 s for an answer on a FIFO that never comes.)
expect_caught cli/query_cli_test.sh - crash-on:3cosmul
expect_caught cli/query_cli_test.sh - crash-on:--restrict
expect_caught cli/query_cli_test.sh - crash-on:--similarity
expect_caught cli/ann_cli_test.sh - silent
expect_caught cli/ann_cli_test.sh - crash-on:3cosmul
expect_caught cli/ann_cli_test.sh crash-on:--index -
# The gensim comparison (skipped where python3 has no gensim: a skip proves nothing either way).
if /usr/bin/python3 -c 'import gensim' 2> /dev/null; then
  expect_caught interop/query_interop.sh - crash-on:3cosmul
  expect_caught interop/query_interop.sh - crash-on:--restrict
  expect_caught interop/query_interop.sh - "crash-on-input:$tab"
  expect_caught interop/query_interop.sh - crash-after:3cosmul
  expect_caught interop/query_interop.sh - silent
else
  echo "(no gensim in /usr/bin/python3: interop/query_interop.sh not checked)"
fi

echo "$caught broken variants caught, $missed missed"
[[ $missed -eq 0 ]]
