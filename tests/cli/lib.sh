# Shared by the cli tests: a scratch directory (the working directory, removed at exit)
# and pass/fail counting. Source it, run checks, then call `finish`.
cli_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# on_tty [--input TEXT] COMMAND...: what COMMAND writes to a terminal (see on_tty.py).
on_tty() { python3 "$cli_dir/on_tty.py" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
# check NAME ACTUAL EXPECTED
check() { if [[ $2 == "$3" ]]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }
finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
