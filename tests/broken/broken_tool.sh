#!/usr/bin/env bash
# A broken copy of a tool, for checking that the test suites notice a broken tool
# (tests/broken/check_suites_catch_breakage.sh).
#
#   broken_tool.sh --make OUT REAL MODE   writes OUT, an executable that behaves as REAL broken
#                                          as MODE says (the suites call realpath on their tools,
#                                          and some take two: each gets its own file).
#   BROKEN_REAL=REAL BROKEN_MODE=MODE broken_tool.sh ARGS...   runs as that broken copy.
#
# MODE:
#   crash-on:TEXT        an argument contains TEXT: dies of SIGSEGV (exit 139) before any output;
#                        otherwise runs REAL.
#   crash-on-input:TEXT  as crash-on, where an argument or standard input contains TEXT (reads
#                        standard input whole before starting REAL: not for conversations on a FIFO).
#   crash-after:TEXT     an argument contains TEXT: runs REAL, output and all, then exits 139 as a
#                        crash at exit would (only the exit status tells).
#   set:OPT=VALUE[,OPT=VALUE...]
#                        runs REAL with each OPT set to VALUE: its value replaced where it is
#                        given (as "OPT V" or "OPT=V"), "OPT VALUE" appended where it is not.
#                        A trainer that learns less than it was asked to (set:--epochs=1,
#                        set:--dim=1), for the suites' quality bars.
#   set-where:TEXT:OPT=VALUE[,...]
#                        as set, in the commands where an argument contains TEXT (the one run
#                        a quality check looks at); otherwise runs REAL.
#   silent               exits 0 having printed and written nothing.
#   fail                 exits 1 having printed and written nothing.
set -u
if [[ ${1-} == --make ]]; then
  out=$2 real=$(realpath "$3") mode=$4 self=$(realpath "${BASH_SOURCE[0]}")
  printf '#!/usr/bin/env bash\nBROKEN_REAL=%q BROKEN_MODE=%q exec %q "$@"\n' "$real" "$mode" "$self" > "$out"
  chmod +x "$out"
  exit 0
fi
real=${BROKEN_REAL:?BROKEN_REAL: the real tool}
mode=${BROKEN_MODE:?BROKEN_MODE: crash-on:TEXT, crash-on-input:TEXT, crash-after:TEXT, set:OPT=VALUE, set-where:TEXT:OPT=VALUE, silent or fail}
crash() { ulimit -c 0; kill -SEGV $$; exit 139; }
in_args() { local a; for a in "$@"; do [[ $a == *"$text"* ]] && return 0; done; return 1; }
case $mode in
  crash-on:*)
    text=${mode#crash-on:}
    in_args "$@" && crash
    exec "$real" "$@" ;;
  crash-on-input:*)
    text=${mode#crash-on-input:}
    in_args "$@" && crash
    if [[ -t 0 ]]; then exec "$real" "$@"; fi
    input=$(mktemp)
    trap 'rm -f "$input"' EXIT
    cat > "$input"
    grep -qF -- "$text" "$input" && crash
    "$real" "$@" < "$input"
    exit $? ;;
  crash-after:*)
    text=${mode#crash-after:}
    "$real" "$@"
    status=$?
    in_args "$@" && crash
    exit $status ;;
  set:* | set-where:*)
    args=("$@")
    settings=${mode#set:}
    if [[ $mode == set-where:* ]]; then
      rest=${mode#set-where:} text=${rest%%:*} settings=${rest#*:}
      in_args "$@" || exec "$real" "$@"
    fi
    IFS=, read -r -a settings <<< "$settings"
    for setting in "${settings[@]}"; do
      option=${setting%%=*} value=${setting#*=} found=0
      for i in "${!args[@]}"; do
        if [[ ${args[i]} == "$option" ]] && ((i + 1 < ${#args[@]})); then args[i + 1]=$value found=1; fi
        if [[ ${args[i]} == "$option="* ]]; then args[i]=$option=$value found=1; fi
      done
      ((found)) || args+=("$option" "$value")
    done
    exec "$real" "${args[@]}" ;;
  silent) exit 0 ;;
  fail) exit 1 ;;
  *) echo "broken_tool.sh: unknown BROKEN_MODE '$mode'" >&2; exit 2 ;;
esac
