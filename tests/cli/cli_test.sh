#!/usr/bin/env bash
# End-to-end tests of glove-convert as a user runs it: exit codes, one-line errors
# naming file and line, atomic outputs, stdin/stdout, round trips.
# Usage: cli_test.sh PATH/TO/glove-convert
# No pipefail: checks like `glove-convert ... | grep -q X` judge the output, and grep -q may close
# the pipe early (SIGPIPE to the writer), which must not count as a failure.
set -u

GC=$(realpath "${1:?usage: cli_test.sh PATH/TO/glove-convert}")
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# expect_error NAME EXIT_CODE "text the message must contain" -- command...
expect_error() {
  local name=$1 code=$2 text=$3
  shift 4
  local err
  err=$("$@" 2>&1 >/dev/null)
  local rc=$?
  if [[ $rc -ne $code ]]; then bad "$name: exit $rc, expected $code ($err)"; return; fi
  if [[ $err != *"$text"* ]]; then bad "$name: message '$err' lacks '$text'"; return; fi
  if [[ $code -eq 1 && $(printf '%s\n' "$err" | grep -c 'error:') -ne 1 ]]; then bad "$name: not one error line: $err"; return; fi
  ok
}

# expect_same NAME FILE1 FILE2
expect_same() {
  if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi
}

printf 'the 0.1 0.2 -0.3\nof 1e-3 2 3\nnew york 0.5 0.25 1\ncafé -1.5 2.25 0.125\n' > glove.txt

# --- conversions and round trips ---
"$GC" -q glove.txt -o a.emb && ok || bad "glove -> emb"
"$GC" -q a.emb -o back.txt && ok || bad "emb -> glove (by extension)"
expect_same "text -> emb -> text reproduces every word and float" back.txt <(sed 's/1e-3/0.001/' glove.txt)
"$GC" -q back.txt -o b.emb && ok || bad "glove again"
sum_a=$("$GC" --info a.emb | grep checksum) && sum_b=$("$GC" --info b.emb | grep checksum) && [[ -n $sum_a ]] &&
  check "text -> emb -> text -> emb: identical tensors" "$sum_b" "$sum_a" || bad "--info checksum lines: '${sum_a-}' '${sum_b-}'"
"$GC" -q a.emb -o w.vec && head -1 w.vec | grep -qx '4 3' && ok || bad "w2v-text header"
"$GC" -q w.vec -o w.emb && "$GC" -q w.emb --to glove -o - | cmp -s - back.txt && ok || bad "w2v-text round trip"
"$GC" -q --vocab <(printf 'the\nof\ncafé\n') glove.txt -o sub.emb && "$GC" -q sub.emb --to w2v-bin -o w.bin && ok || bad "w2v-bin write"
"$GC" -q w.bin -o - --to glove | grep -c . | grep -qx 3 && ok || bad "w2v-bin read (auto-detected)"
gzip -c glove.txt > glove.txt.gz
"$GC" -q glove.txt.gz -o - --to glove | cmp -s - back.txt && ok || bad "gzip input"
"$GC" -q - -o - --to glove < glove.txt | cmp -s - back.txt && ok || bad "stdin to stdout"
"$GC" -q - -o stdin.emb < a.emb && "$GC" -q stdin.emb -o - --to glove | cmp -s - back.txt && ok || bad "emb from stdin"
cat glove.txt.gz | "$GC" -q - -o - --to glove | cmp -s - back.txt && ok || bad "gzip from stdin"
"$GC" -q --from glove glove.txt --to emb -o forced && "$GC" --info forced | grep -q 'rows        4' && ok || bad "--from/--to"

# --- options ---
"$GC" -q --limit 2 glove.txt -o - --to glove | grep -c . | grep -qx 2 && ok || bad "--limit"
"$GC" -q --normalize glove.txt -o n.emb && "$GC" --info n.emb | grep -q 'normalized  yes' && ok || bad "--normalize"
# (Every row of the four, and the read-back's own exit status: an empty output is no pass.)
"$GC" -q n.emb -o - --to glove > n.txt && awk '{s=0; for(i=NF-2;i<=NF;i++) s+=$i*$i; if (s<0.9999||s>1.0001) b=1}
  END {exit b || NR != 4}' n.txt && ok || bad "--normalize gives unit rows"
"$GC" -q --dtype f16 glove.txt -o h.emb && "$GC" --info h.emb | grep -q 'dtype       F16' && ok || bad "--dtype f16"
"$GC" -q --dtype bf16 glove.txt -o bf.emb && "$GC" --info bf.emb | grep -q 'dtype       BF16' && ok || bad "--dtype bf16"
"$GC" -q h.emb -o h2.emb && "$GC" --info h2.emb | grep -q 'dtype       F16' && ok || bad "emb -> emb keeps the dtype"
"$GC" --threads 1 -q glove.txt -o t1.emb && "$GC" --threads 2 -q glove.txt -o t2.emb &&
  expect_same "--threads gives identical output" t1.emb t2.emb || bad "--threads 1 / --threads 2 failed"
"$GC" --info --verify a.emb | grep -q 'verify      ok' && ok || bad "--info --verify"
"$GC" -q --verify a.emb && ok || bad "--verify alone"
"$GC" -q --verify a.emb -o v.txt && [[ -s v.txt ]] && ok || bad "--verify before converting"
"$GC" --version | grep -q 'glove-convert' && ok || bad "--version"
verbose=$("$GC" -v glove.txt -o v.emb 2>&1)
[[ $verbose == *"debug: input glove.txt: glove (detected)"* ]] && ok || bad "-v adds detail: $verbose"
quiet=$("$GC" -q glove.txt -o q.emb 2>&1) && [[ -z $quiet && -s q.emb ]] && ok || bad "-q is silent (and converts): $quiet"
"$GC" --help | grep -q -- '--vocab' && ok || bad "--help"
# (issue 66: it said fastText models were read only, while --to fasttext-bin writes them)
"$GC" --help | grep -q 'read only' && bad "--help: fastText models are written too" || ok

# --- bad input: one line, file and line, exit 1 ---
printf 'a 1 2\nb 1\n' > ragged.txt
expect_error "ragged row" 1 "ragged.txt:2: ragged row: 1 number after the word \"b\", expected 2 (as on line 1)" -- "$GC" ragged.txt -o x.emb
# (issue 66: a row one number short said "found 50 fields" of a 50-dim file)
printf 'a 1 2 3\nb 1 2\n' > short-row.txt
expect_error "a row one number short" 1 "short-row.txt:2: ragged row: 2 numbers after the word \"b\", expected 3 (as on line 1)" -- \
  "$GC" short-row.txt -o x.emb
printf 'a 1 2\nb\n' > word-alone.txt
expect_error "a word alone" 1 "word-alone.txt:2: expected a word followed by 2 numbers (as on line 1), found the word \"b\" alone" -- \
  "$GC" word-alone.txt -o x.emb
printf 'a 1 2\nb 1 zz\n' > nonnum.txt
expect_error "non-numeric field" 1 "nonnum.txt:2: field 3: \"zz\" is not a number" -- "$GC" nonnum.txt -o x.emb
printf 'a 1 2\nb NaN 1\n' > nan.txt
expect_error "NaN" 1 "nan.txt:2: field 2: \"NaN\" is not a finite number" -- "$GC" nan.txt -o x.emb
printf 'a 1 2\nb 1 2\na 3 4\n' > dup.txt
expect_error "duplicate word" 1 "dup.txt:3: duplicate word \"a\" (also on line 1)" -- "$GC" dup.txt -o x.emb
printf 'a 1 2\n 1 2\n' > empty.txt
expect_error "empty word" 1 "empty.txt:2: empty word" -- "$GC" empty.txt -o x.emb
printf 'a 1 2\nb\xff 1 2\n' > utf.txt
expect_error "invalid UTF-8" 1 "utf.txt:2: the word" -- "$GC" utf.txt -o x.emb
# --unicode-errors, as gensim's unicode_errors (Python's decoding: one U+FFFD per maximal bad sequence).
printf 'a 1 2\nb\xff 1 2\ncaf\xc3 3 4\n\xff\xfe 5 6\n' > bad-utf.txt
"$GC" -q bad-utf.txt --unicode-errors replace -o - --to glove | cut -d' ' -f1 > replaced.txt
check "--unicode-errors replace" "$(tr '\n' ' ' < replaced.txt)" "a b$(printf '\xef\xbf\xbd') caf$(printf '\xef\xbf\xbd') $(printf '\xef\xbf\xbd\xef\xbf\xbd') "
expect_error "--unicode-errors ignore, an emptied word" 1 'bad-utf.txt:4: the word "\xFF\xFE" is empty once' \
  -- "$GC" bad-utf.txt --unicode-errors ignore -o x.emb
printf 'a 1 2\nb\xff 1 2\nb 3 4\n' > made-equal.txt
expect_error "--unicode-errors ignore, two words made equal" 1 \
  'made-equal.txt:3: duplicate word "b" (also on line 2); --unicode-errors ignore dropped' \
  -- "$GC" made-equal.txt --unicode-errors ignore -o x.emb
python3 -c "
import struct, sys
sys.stdout.buffer.write(b'2 2\n' + b'ok ' + struct.pack('<2f', 1, 2) + b'\nb\xff ' + struct.pack('<2f', 3, 4) + b'\n')" > bad-utf.bin
expect_error "invalid UTF-8 in binary" 1 'bad-utf.bin: row 2: the word "b\xFF" is not valid UTF-8' -- "$GC" bad-utf.bin -o x.emb
"$GC" -q bad-utf.bin --unicode-errors ignore -o - --to glove > bin-ignored.txt
check "--unicode-errors ignore, binary" "$(cut -d' ' -f1 bin-ignored.txt | tr '\n' ' ')" "ok b "
expect_error "--unicode-errors spelling" 2 "--unicode-errors" -- "$GC" bad-utf.txt --unicode-errors lenient -o x.emb
# backslashreplace, gensim's fastText default: each bad byte as \xNN, words that differ in them
# kept apart where replace and ignore make them equal (issue 66).
printf 'a 1 2\nb\xff 1 2\nb\xfe 3 4\n' > escaped.txt
check "--unicode-errors backslashreplace" "$("$GC" -q escaped.txt --unicode-errors backslashreplace -o - --to glove | cut -d' ' -f1 |
  tr '\n' ' ')" 'a b\xff b\xfe '
"$GC" -q bad-utf.bin --unicode-errors backslashreplace -o - --to glove > bin-escaped.txt
check "--unicode-errors backslashreplace, binary" "$(cut -d' ' -f1 bin-escaped.txt | tr '\n' ' ')" 'ok b\xff '
# --encoding: word2vec/GloVe files from before UTF-8 was the rule (iconv's names).
printf 'привет 1 2\nмир 3 4\nok 5 6\n' > utf8-words.txt
iconv -f UTF-8 -t CP1251 utf8-words.txt > cp1251.txt
"$GC" -q utf8-words.txt -o - --to glove > from-utf8.txt
check "--encoding cp1251" "$("$GC" -q cp1251.txt --encoding cp1251 -o - --to glove)" "$(cat from-utf8.txt)"
check "--encoding CP1251 (any spelling iconv takes)" "$("$GC" -q cp1251.txt --encoding CP1251 -o - --to glove | md5sum)" \
  "$(md5sum < from-utf8.txt)"
expect_error "a legacy file without --encoding" 1 'cp1251.txt:1: the word "\xEF\xF0\xE8\xE2\xE5\xF2" is not valid UTF-8 (--encoding NAME' \
  -- "$GC" cp1251.txt -o x.emb
python3 -c "
import struct, sys
sys.stdout.buffer.write(b'2 2\n' + b'caf\xe9 ' + struct.pack('<2f', 1, 2) + b'\nna\xefve ' + struct.pack('<2f', 3, 4) + b'\n')" > latin1.bin
check "--encoding latin1, binary" "$("$GC" -q latin1.bin --encoding latin1 -o - --to glove | cut -d' ' -f1 | tr '\n' ' ')" "café naïve "
printf 'a\x98b 1 2\n' > undefined.txt
expect_error "a byte the encoding leaves undefined" 1 'undefined.txt:1: the word "a\x98b" has the byte 0x98, which is not cp1251' \
  -- "$GC" undefined.txt --encoding cp1251 -o x.emb
check "... and backslashreplace keeps it" "$("$GC" -q undefined.txt --encoding cp1251 --unicode-errors backslashreplace -o - --to glove)" \
  'a\x98b 1 2'
expect_error "--encoding unknown" 2 'the C library'"'"'s iconv has no encoding "klingon"' -- "$GC" cp1251.txt --encoding klingon -o x.emb
expect_error "--encoding not ASCII-compatible" 2 "utf-16 is not an 8-bit encoding that keeps ASCII" -- "$GC" cp1251.txt --encoding utf-16 -o x.emb
printf '3 2\na 1 2\nb 1 2\n' > count.vec
expect_error "header count" 1 "count.vec:1: the header says 3 words but the file has 2 rows" -- "$GC" count.vec -o x.emb
printf '2 2\na 1 2\n' > count1.vec
expect_error "header count, one row" 1 "count1.vec:1: the header says 2 words but the file has 1 row" -- "$GC" count1.vec -o x.emb
# (The run above checked the exit status and the message; this only rules out "1 rows".)
"$GC" count1.vec -o x.emb 2>&1 | grep -q '1 rows' && bad "header count, one row: \"1 rows\"" || ok
: > nothing.txt
expect_error "empty input" 1 "nothing.txt: empty input (no vectors)" -- "$GC" nothing.txt -o x.emb
expect_error "empty standard input" 1 "empty input (no vectors)" -- "$GC" - -o x.emb < /dev/null
# fastText's models (magic 793712314, version 12) are read as fasttext-bin, never as text.
printf '\xba\x16\x4f\x2f\x0c\x00\x00\x00\x64\x00\x00\x00' > model.bin
expect_error "fastText model, truncated" 1 "model.bin: truncated fastText model: the file ends at byte 12, inside the setting ws" \
  -- "$GC" model.bin -o x.emb
expect_error "fastText model as text" 1 "model.bin: a fastText model (.bin or .ftz), not a text vector file" \
  -- "$GC" --from glove model.bin -o x.emb
python3 "$cli_dir/make_fasttext_model.py" ft.bin
"$GC" -q ft.bin -o ft.emb && ok || bad "fastText model -> emb"
check "fastText words" "$("$GC" -q ft.emb -o - --to glove | cut -d' ' -f1 | tr '\n' ' ')" "king queen man woman </s> "
check "fastText counts kept" "$("$GC" --info ft.emb | grep '^counts')" "counts      yes"
"$GC" -q --from fasttext-bin --subwords --dtype bf16 ft.bin -o fts.emb && ok || bad "--subwords"
check "--subwords tensor" "$("$GC" --info fts.emb | grep -c 'subwords.buckets   BF16 \[50, 4\]\|subwords.minn = 3\|subwords.hash = fasttext-fnv1a-int8')" 3
# (A count of 0 holds for an empty listing too: the listing must have worked and name the rows.)
info=$("$GC" --info ft.emb) && [[ $info == *"rows        5"* ]] && check "no --subwords, no tensor" "$(grep -c subwords <<< "$info")" 0 ||
  bad "--info ft.emb: $info"
"$GC" -q --index ann fts.emb -o ftsa.emb && "$GC" --verify ftsa.emb 2> /dev/null && ok || bad "subwords beside an ann index"
check "subwords kept into .emb" "$("$GC" --info ftsa.emb | grep -c 'subwords.buckets   BF16')" 1
"$GC" fts.emb -o fts.txt 2> err.txt
grep -q "fts.emb: its subword n-gram buckets are dropped: glove output" err.txt && ok || bad "subwords dropped: no warning"
expect_error "--subwords, text output" 1 "--subwords keeps a fastText model's n-gram buckets in .emb or fasttext-bin output; glove output" \
  -- "$GC" --subwords ft.bin -o x.txt
expect_error "--subwords, text input" 1 "fts.txt: --subwords reads a fastText model's n-gram buckets (fasttext-bin input); this input is glove" \
  -- "$GC" --subwords fts.txt -o x.emb
python3 "$cli_dir/make_fasttext_model.py" sup.bin supervised
expect_error "supervised fastText model" 1 'sup.bin: a supervised fastText model (labels such as "__label__yes", 2 labels)' \
  -- "$GC" sup.bin -o x.emb
python3 "$cli_dir/make_fasttext_model.py" q.ftz quantized
expect_error "quantized fastText model" 1 "q.ftz: a quantized fastText model (.ftz)" -- "$GC" q.ftz -o x.emb
head -c 200 ft.bin > cut.bin
expect_error "fastText model cut short" 1 "cut.bin: truncated fastText model: the file ends at byte 200, inside the input row of word 2 (\"queen\")" \
  -- "$GC" cut.bin -o x.emb
# fastText's original layout (before its version numbers: the file starts with the settings) is detected too.
python3 "$cli_dir/make_fasttext_model.py" orig.bin original
"$GC" -q orig.bin -o orig.emb && ok || bad "original-layout fastText model -> emb"
check "original-layout words" "$("$GC" -q orig.emb -o - --to glove | cut -d' ' -f1 | tr '\n' ' ')" "king queen man woman </s> "
check "original layout, same vectors" "$("$GC" -q orig.emb -o - --to glove | grep '^king ')" "$("$GC" -q ft.emb -o - --to glove | grep '^king ')"
# gensim's KeyedVectors.save writes a Python pickle (0x80, protocol): named, not read as text.
printf '\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\x8c\x1agensim.models.keyedvectors' > vectors.kv
expect_error "pickled gensim KeyedVectors" 1 "vectors.kv: looks like a pickled gensim KeyedVectors file" -- "$GC" vectors.kv -o x.emb
expect_error "pickle given as text" 1 "model.wv.save_word2vec_format(" -- "$GC" --from glove vectors.kv -o x.emb
# A UTF-8 byte-order mark is not part of the first word.
printf '\xef\xbb\xbfhello 1 2\nworld 3 4\n' > bom.txt
"$GC" -q bom.txt -o - --to glove > bom.out
check "byte-order mark skipped" "$(head -c 6 bom.out | od -An -c | tr -d ' ')" "hello"
printf '\xef\xbb\xbf1 2\nhello 1 2\n' > bom.vec
"$GC" -q bom.vec -o bom.emb && ok || bad "a word2vec text file with a byte-order mark is refused"
printf '2 3\na 1 2\nb 1 2\n' > dim.vec
expect_error "header dimension" 1 "dim.vec:2: ragged row: 2 numbers after the word \"a\", expected 3 (the header's dimension)" -- "$GC" dim.vec -o x.emb
head -c 30 w.bin > trunc.bin
expect_error "truncated binary" 1 "trunc.bin: row" -- "$GC" --from w2v-bin trunc.bin -o x.emb
head -c 200 a.emb > trunc.emb
expect_error "truncated emb" 1 "trunc.emb:" -- "$GC" trunc.emb -o x.txt
expect_error "missing input" 1 "missing.txt: cannot open" -- "$GC" missing.txt -o x.emb
expect_error "unwritable output" 1 "/nonexistent/x.emb: cannot create the output" -- "$GC" glove.txt -o /nonexistent/x.emb
expect_error "no output" 2 "no output given" -- "$GC" glove.txt
expect_error "bad option value" 2 "--dtype" -- "$GC" --dtype f64 glove.txt -o x.emb
expect_error "--dtype with text output" 1 "--dtype applies to .emb output" -- "$GC" --dtype f16 glove.txt -o x.txt
expect_error "--info on text" 1 "glove.txt: not an .emb file (it looks like GloVe text vectors)" -- "$GC" --info glove.txt
expect_error "--info on text: says how to convert" 1 "glove-convert glove.txt -o glove.emb" -- "$GC" --info glove.txt
# An empty or cut-short .emb is called that, not GloVe text (issue 66); the command that
# converts a text file named .emb never writes over it.
: > empty.emb
expect_error "--info on an empty .emb" 1 "empty.emb: empty (0 bytes), not an .emb file" -- "$GC" --info empty.emb
head -c 5 a.emb > five.emb
expect_error "--info on 5 bytes of an .emb" 1 "five.emb: 5 bytes, too short for an .emb file (its header alone takes more): truncated?" -- \
  "$GC" --info five.emb
expect_error "converting 5 bytes of an .emb" 1 "five.emb: 5 bytes, too short for an .emb file" -- "$GC" five.emb -o x.txt
cp glove.txt text-named.emb
expect_error "--info on text named .emb" 1 "glove-convert text-named.emb -o text-named.converted.emb" -- "$GC" --info text-named.emb
# --vocab - reads the words from stdin; not with INPUT - too.
check "--vocab -" "$(printf 'of\nthe\n' | "$GC" -q glove.txt --vocab - -o - --to glove | cut -d' ' -f1 | tr '\n' ' ')" "the of "
expect_error "--vocab - with INPUT -" 2 "--vocab - and INPUT - cannot both be standard input" -- "$GC" - --vocab - -o x.emb
expect_error "--info into /dev/full" 1 "glove-convert: error: <stdout>: cannot write: No space left on device" -- \
  bash -c '"$0" --info "$1" > /dev/full' "$GC" a.emb
# --vocab names the words it did not find (issue 66: it gave their number only).
"$GC" glove.txt -o found.emb --vocab <(printf 'the\nThe\nzebra\nof\n') 2> vocab.log
grep -q 'warning: 2 of the 4 words in /dev/fd/[0-9]* are not in glove.txt: "The", "zebra"$' vocab.log && ok ||
  bad "--vocab names the missing words: $(cat vocab.log)"
# One rule for files (exit 1, "tool: error: FILE: reason"), positional or through an option.
expect_error "missing --vocab" 1 "glove-convert: error: missing.txt: cannot open: No such file or directory" -- \
  "$GC" glove.txt -o x.emb --vocab missing.txt
mkdir -p a-dir
expect_error "--vocab a directory" 1 "glove-convert: error: a-dir: is a directory" -- "$GC" glove.txt -o x.emb --vocab a-dir
expect_error "usage before files" 2 "INPUT is required" -- "$GC" --vocab missing.txt
# Ranges read as a person writes them.
expect_error "--limit 0" 2 "--limit: 0 is not an integer of 1 or more" -- "$GC" glove.txt -o x.emb --limit 0
help=$("$GC" --help) && [[ $help == *--limit* ]] || bad "--help: exit $?, $(head -c 200 <<< "$help")"
check "--help ranges are readable" "$(grep -c '[0-9]\{12\}' <<< "$help")" "0"
"$GC" --help | grep -q -- "--limit UINT:at least 1" && ok || bad "--help: --limit's range"
expect_error "-q with -v" 2 "--verbose excludes --quiet" -- "$GC" -q -v glove.txt -o x.emb
grep -q "repeat for more" <<< "$help" && bad "--help promises more for -vv" || ok
# The format names people type.
"$GC" -q glove.txt -o alias.out --to word2vec && check "--to word2vec: text with a header" "$(head -1 alias.out)" "4 3" ||
  bad "--to word2vec refused"
for alias in vec fasttext; do
  "$GC" -q glove.txt -o alias.out --to $alias && check "--to $alias: word2vec text" "$(head -1 alias.out)" "4 3" ||
    bad "--to $alias refused"
done
printf 'a 1 2\nb 3 4\n' > plain.txt
"$GC" -q plain.txt -o alias.out --to bin && "$GC" -q --from word2vec-bin alias.out -o alias.txt --to txt &&
  check "--to bin, --from word2vec-bin, --to txt" "$(cat alias.txt)" "$(cat plain.txt)" || bad "bin/word2vec-bin/txt aliases refused"
"$GC" -q glove.txt -o alias.out --to safetensors && "$GC" --info alias.out | grep -qE '^rows +[0-9]+$' && ok || bad "--to safetensors"
printf 'big 70000 1\nsmall 1 2\n' > big.txt
expect_error "f16 overflow" 1 "big.txt: line 1 (\"big\"): 70000 is outside the range of f16" -- "$GC" --dtype f16 big.txt -o x.emb
"$GC" -q --dtype bf16 big.txt -o big.emb && ok || bad "bf16 holds 70000"
printf '2 2\nnew york 0.1 0.2\nb 1 2\n' > spaced.vec
"$GC" -q spaced.vec -o - --to glove | head -1 | grep -qx 'new york 0.1 0.2' && ok || bad "w2v text with a spaced first word is detected as text"
header_size=$(od -An -tu8 -N8 a.emb | tr -d ' ')
cp a.emb corrupt.emb && printf '\x7f' | dd of=corrupt.emb bs=1 seek=$((8 + header_size + 2)) conv=notrunc status=none
expect_error "--verify catches corruption" 1 "checksum mismatch" -- "$GC" --verify corrupt.emb
[[ ! -e x.emb && ! -e x.txt ]] && ok || bad "a failed conversion left an output behind"
[[ -z $(ls | grep '\.tmp-') ]] && ok || bad "temporaries left behind: $(ls | grep '\.tmp-')"

# --- a failure keeps the old output intact, an interrupted run leaves nothing ---
cp a.emb keep.emb
"$GC" -q ragged.txt -o keep.emb 2>/dev/null
expect_same "failed run leaves the old output intact" a.emb keep.emb
mkfifo slow_input
( printf 'a 1 2\n'; sleep 30 ) > slow_input &
writer=$!
"$GC" -q slow_input -o killed.emb &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid 2>/dev/null
rc=$?
kill $writer 2>/dev/null
[[ $rc -eq 143 && ! -e killed.emb && -z $(ls | grep '\.tmp-') ]] && ok || bad "SIGTERM: exit $rc, leftovers: $(ls | grep -E 'killed|tmp-')"

finish
