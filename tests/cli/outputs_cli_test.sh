#!/usr/bin/env bash
# Outputs that are not regular files, for every tool (issue 37): a FIFO, a character
# device, a process substitution and /dev/fd/N are written in place, as streams; a
# symbolic link is followed and stays a link; a full device is an error naming the
# path; an output that must be a regular file (a checkpoint, co-occurrence counts) is
# refused before any work. The device nodes are made here with mknod, never the real
# /dev ones: a regression would replace the node it writes.
# Usage: outputs_cli_test.sh GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN (run from the repo root)
set -u

GC=$(realpath "${1:?usage: outputs_cli_test.sh GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN}")
EQ=$(realpath "${2:?usage: outputs_cli_test.sh GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN}")
ET=$(realpath "${3:?usage: outputs_cli_test.sh GLOVE_CONVERT EMBED_QUERY EMBED_TRAIN}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# via_fifo FIFO GOT [FIFO GOT]... -- COMMAND...: makes each FIFO and runs COMMAND while a
# reader copies what arrives in it to GOT (as `cat FIFO > GOT &` would); returns COMMAND's
# status. Bounded, since a FIFO renamed over would leave its reader waiting for ever.
via_fifo() {
  local fifos=() readers=() status fifo
  while [[ $1 != -- ]]; do
    rm -f "$1" "$2"
    mkfifo "$1"
    timeout 30 cat "$1" > "$2" &
    fifos+=("$1")
    readers+=($!)
    shift 2
  done
  shift
  timeout 60 "$@"
  status=$?
  # A reader whose FIFO the command never opened still waits for a writer: a read-write
  # open, which never blocks, lets it through to its end of file.
  for fifo in "${fifos[@]}"; do [[ -p $fifo ]] && { exec 3<> "$fifo"; exec 3>&-; }; done
  wait "${readers[@]}"
  return "$status"
}
# still NAME TEST PATH: `test PATH` holds (-p a FIFO, -c a character device, -L a link).
still() { if test "$2" "$3"; then ok; else bad "$1: $3 is no longer what it was: $(ls -ld "$3")"; fi; }
# one_line NAME: err.txt (expect_error's) is one line.
one_line() { check "$1: one line" "$(grep -c . err.txt)" "1"; }
# same NAME GOT EXPECTED
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 differs from $3"; fi; }

# Device nodes of our own: a null device and a full one (writes fail with ENOSPC).
devices=0
if mknod null c 1 3 2> /dev/null && mknod full c 1 7 2> /dev/null && : > null 2> /dev/null; then
  devices=1
else
  echo "note: device nodes cannot be made here (not root, or nodev): their checks are skipped"
fi
mkdir real

# --- glove-convert ---
zcat "$DATA/text8-sample.txt.gz" > v.txt  # 2,000 x 50: more than a pipe holds
"$GC" -q v.txt -o ref.emb || bad "convert: reference .emb"
"$GC" -q v.txt --to glove -o ref.txt || bad "convert: reference text"

via_fifo f.emb got.emb -- "$GC" -q v.txt -o f.emb
check "convert -o FIFO: exit status" "$?" "0"
same "convert -o FIFO: the reader gets the .emb (header first)" got.emb ref.emb
still "convert -o FIFO" -p f.emb
via_fifo f.txt got.txt -- "$GC" -q v.txt --to glove -o f.txt
same "convert -o FIFO: text" got.txt ref.txt

"$GC" -q v.txt --to emb -o >(gzip > ps.emb.gz)
check "convert -o >(gzip): exit status" "$?" "0"
wait $!
same "convert -o >(gzip): the content arrives" <(zcat ps.emb.gz) ref.emb
"$GC" -q v.txt --to emb -o /dev/fd/3 3> fd3.emb
check "convert -o /dev/fd/3: exit status" "$?" "0"
same "convert -o /dev/fd/3: written to the descriptor" fd3.emb ref.emb
on_tty "$GC" -q v.txt --to emb -o /dev/fd/1 > tty.txt
grep -q '/dev/fd/1: is a terminal: refusing to write binary emb data to it' tty.txt && ok ||
  bad "convert -o /dev/fd/1 on a terminal: $(head -c 300 tty.txt)"

echo old > real/t.emb
ln -s real/t.emb link.emb
"$GC" -q v.txt -o link.emb
check "convert -o link: exit status" "$?" "0"
still "convert -o link" -L link.emb
same "convert -o link: its target replaced" real/t.emb ref.emb
ln -s real/new.emb dangling.emb
"$GC" -q v.txt -o dangling.emb && [[ -L dangling.emb ]] && cmp -s real/new.emb ref.emb && ok ||
  bad "convert -o a link to no file yet: the file is made, the link kept"
check "convert -o link: no temporaries left" "$(ls -a real | grep -c '\.tmp-')$(litter)" "00"
"$GC" -q v.txt --to projector -o proj-ref || bad "convert: reference projector"
mkdir proj
ln -s ../real/vectors.tsv proj/vectors.tsv
"$GC" -q v.txt --to projector -o proj && [[ -L proj/vectors.tsv ]] && cmp -s real/vectors.tsv proj-ref/vectors.tsv && ok ||
  bad "convert --to projector: a link among its files is followed and kept"
expect_error "convert -o a directory" 1 "real: is a directory" "$GC" -q v.txt --to emb -o real

if [[ $devices == 1 ]]; then
  "$GC" -q v.txt --to emb -o null
  check "convert -o null device: exit status" "$?" "0"
  still "convert -o null device" -c null
  expect_error "convert -o full device" 1 "full: cannot write: No space left on device" "$GC" -q v.txt --to emb -o full
  one_line "convert -o full device"
  still "convert -o full device" -c full
fi

# --- embed-query map ---
WORDS=(the of and one two three king queen man woman)
"$EQ" map ref.emb "${WORDS[@]}" -o ref.svg -q || bad "map: reference"
via_fifo f.svg got.svg -- "$EQ" map ref.emb "${WORDS[@]}" -o f.svg -q
check "map -o FIFO: exit status" "$?" "0"
same "map -o FIFO: the reader gets the SVG" got.svg ref.svg
still "map -o FIFO" -p f.svg
"$EQ" map ref.emb "${WORDS[@]}" -q -o >(gzip > map.svg.gz)
check "map -o >(gzip): exit status" "$?" "0"
wait $!
same "map -o >(gzip): the content arrives" <(zcat map.svg.gz) ref.svg
ln -s real/m.svg map-link.svg
"$EQ" map ref.emb "${WORDS[@]}" -o map-link.svg -q
still "map -o link" -L map-link.svg
same "map -o link: its target replaced" real/m.svg ref.svg
if [[ $devices == 1 ]]; then
  "$EQ" map ref.emb "${WORDS[@]}" -o null -q
  check "map -o null device: exit status" "$?" "0"
  still "map -o null device" -c null
  expect_error "map -o full device" 1 "full: cannot write: No space left on device" "$EQ" map ref.emb "${WORDS[@]}" -o full -q
  one_line "map -o full device"
fi

# --- embed-train ---
# Plain text, read where it is: nothing is copied beside the output.
zcat "$DATA/text8-200k.txt.gz" | head -c 300000 > corpus.txt
T=(--corpus corpus.txt --dim 8 --epochs 1 --threads 1 --seed 3 -q)
"$ET" "${T[@]}" -o tref.emb --save-context || bad "train: reference"

# The vectors go by twice (measured, then written after the header): the same bytes.
via_fifo t.emb got-t.emb t.context.emb got-t.context.emb -- "$ET" "${T[@]}" -o t.emb --save-context
check "train -o FIFO --save-context FIFO: exit status" "$?" "0"
same "train -o FIFO: the reader gets the vectors" got-t.emb tref.emb
same "train --save-context FIFO: the reader gets the context vectors" got-t.context.emb tref.context.emb
still "train -o FIFO" -p t.emb
# A stream has no folder for OUT.ckpt: --checkpoint names one, and without it the run is
# refused before any work.
expect_error "train -o >(gzip) without --checkpoint" 1 "is no place for one: give --checkpoint FILE" \
  "$ET" "${T[@]}" -o >(cat > /dev/null)
"$ET" "${T[@]}" -o >(gzip > t.emb.gz) --checkpoint ps.ckpt
check "train -o >(gzip): exit status" "$?" "0"
wait $!
same "train -o >(gzip): the content arrives" <(zcat t.emb.gz) tref.emb
ln -s real/trained.emb t-link.emb
"$ET" "${T[@]}" -o t-link.emb
still "train -o link" -L t-link.emb
same "train -o link: its target replaced" real/trained.emb tref.emb
if [[ $devices == 1 ]]; then
  "$ET" "${T[@]}" -o null
  check "train -o null device: exit status" "$?" "0"
  still "train -o null device" -c null
  expect_error "train -o full device" 1 "full: cannot write: No space left on device" "$ET" "${T[@]}" -o full
  one_line "train -o full device"
  still "train -o full device" -c full
fi

# --plot and --metrics stream too.
via_fifo plot.svg got-plot.svg -- "$ET" "${T[@]}" -o p.emb --plot plot.svg
check "train --plot FIFO: exit status" "$?" "0"
grep -q '<svg' got-plot.svg && ok || bad "train --plot FIFO: the reader gets the SVG"
still "train --plot FIFO" -p plot.svg
via_fifo m.jsonl got.jsonl -- "$ET" "${T[@]}" -o p.emb --metrics m.jsonl
grep -q '"event":"epoch"' got.jsonl && ok || bad "train --metrics FIFO: the reader gets the metrics"
via_fifo again.svg got-again.svg -- "$ET" plot got.jsonl -o again.svg
grep -q '<svg' got-again.svg && ok || bad "embed-train plot -o FIFO: the reader gets the SVG"
if [[ $devices == 1 ]]; then
  "$ET" "${T[@]}" -o p.emb --plot null --metrics null
  check "train --plot and --metrics to a null device: exit status" "$?" "0"
  still "train --plot null device" -c null
fi

# What must be a regular file is refused before the corpus is read, and without waiting
# for a reader that will never come.
mkfifo ck.fifo
expect_error "train --checkpoint FIFO" 1 "ck.fifo: is a FIFO, and this output must be a regular file" \
  timeout 20 "$ET" "${T[@]}" -o x.emb --checkpoint ck.fifo
one_line "train --checkpoint FIFO"
[[ ! -e x.emb ]] && ok || bad "train --checkpoint FIFO: trained anyway"
expect_error "train --save-cooc FIFO" 1 "ck.fifo: is a FIFO, and this output must be a regular file" \
  timeout 20 "$ET" --model glove --corpus corpus.txt --save-cooc ck.fifo -q
still "train --checkpoint and --save-cooc FIFO" -p ck.fifo
check "no temporaries left" "$(litter)" "0"

finish
