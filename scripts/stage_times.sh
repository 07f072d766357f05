# Sourced by .ci/run, test.sh, fuzz.sh and device-kit.sh: wall times of the stages of a run.
# stage_done NAME START: where EMBED_STAGE_TIMES names a file (.ci/run sets it), appends
# "NAME<TAB>seconds since START" to it, START being an earlier $SECONDS; otherwise nothing.
stage_done() {
  if [[ -n ${EMBED_STAGE_TIMES:-} ]]; then printf '%s\t%d\n' "$1" $((SECONDS - $2)) >> "$EMBED_STAGE_TIMES"; fi
}
