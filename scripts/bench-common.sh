# Shared by the bench-*.sh scripts; source it after setting KEEP and BENCH_DIR.
#
# bench_scratch NAME: makes the scratch directory $work (under BENCH_DIR, default /tmp),
# removed when the script exits unless KEEP=1.
bench_scratch() {
  mkdir -p "${BENCH_DIR:-/tmp}"
  work=$(mktemp -d "${BENCH_DIR:-/tmp}/$1.XXXXXX")
  trap 'if [[ ${KEEP:-0} == 1 ]]; then echo "kept: $work"; else rm -rf "$work"; fi' EXIT
}

# machine_line: the CPU, memory and time, to head and close a benchmark's output.
machine_line() {
  echo "machine: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
    "$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), $(date -u '+%Y-%m-%d %H:%M UTC')"
}
