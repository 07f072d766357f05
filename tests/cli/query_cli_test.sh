#!/usr/bin/env bash
# End-to-end tests of embed-query as a user runs it: answers on vectors whose neighbours are
# known by construction, output formats, batches from stdin in order, per-query failures and
# exit codes, evaluation numbers printed by gensim for the bundled fixtures, bad files.
# Usage: query_cli_test.sh PATH/TO/embed-query PATH/TO/glove-convert (run from the repo root)
set -u

EQ=$(realpath "${1:?usage: query_cli_test.sh EMBED_QUERY GLOVE_CONVERT}")
GC=$(realpath "${2:?usage: query_cli_test.sh EMBED_QUERY GLOVE_CONVERT}")
DATA=$(realpath data)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Vectors chosen so that the answers are known: b is a's closest, zero has no length,
# queen = king - man + woman.
cat > v.txt <<'V'
a 1 0 0
b 0.9 0.1 0
c 0 1 0
d -1 0 0
zero 0 0 0
king 0 1 1
man 0 0 1
woman 1 0 1
queen 1 1 0
apple 0 -1 0
V
"$GC" -q v.txt -o v.emb || bad "convert fixture"

# --- neighbours, analogies, similarity ---
check "neighbours: best first, query word excluded" "$("$EQ" v.emb a -k 2 --format tsv | cut -f3 | tr '\n' ' ')" "b woman "
check "-k" "$("$EQ" v.emb a -k 4 --format tsv | wc -l)" "4"
check "zero-length row scores 0, not NaN" "$("$EQ" v.emb a -k 10 --format tsv | grep -P '\tzero\t' | cut -f4)" "0.000000"
check "zero-length query: scores 0" "$("$EQ" v.emb zero -k 1 --format tsv | cut -f4)" "0.000000"
check "text format" "$("$EQ" v.emb a -k 1)" $'a\n  b  0.9939'
check "analogy 3cosadd" "$("$EQ" v.emb --analogy "king - man + woman" -k 1 --format tsv | cut -f3)" "queen"
check "analogy 3cosmul" "$("$EQ" v.emb --analogy "king - man + woman" --method 3cosmul -k 1 --format tsv | cut -f3)" "queen"
# (-k 9 of 10 rows leaves 7 once the three are out: a count of 0 from no answer is no pass.)
"$EQ" v.emb --analogy "king - man + woman" -k 9 --format tsv > out.tsv && check "analogy answers the rest" "$(wc -l < out.tsv)" 7 ||
  bad "analogy -k 9: exit $?"
check "analogy excludes its words" "$(cut -f3 out.tsv | grep -cxE 'king|man|woman')" "0"
check "similarity" "$("$EQ" v.emb --similarity a b)" "a b 0.9939"
check "similarity json: the query is its two words" "$("$EQ" v.emb --similarity a b --format json)" \
  '{"query":["a","b"],"type":"similarity","words":["a","b"],"score":0.993884}'
check "similarity with a zero row" "$("$EQ" v.emb --similarity a zero --format tsv)" $'a\tzero\t0.000000'
# --similarity repeats, as --analogy does; an odd word is refused (issue 66).
check "--similarity twice" "$("$EQ" v.emb --similarity a b --similarity a zero --format tsv)" $'a\tb\t0.993884\na\tzero\t0.000000'
expect_error "--similarity with three words" 2 "--similarity: takes two words each time" "$EQ" v.emb --similarity a b c
# An out-of-range value names the option as it was typed (issue 66: -k 0 said --top).
expect_error "-k 0" 2 "^embed-query: error: -k: 0 is not an integer from 1 to 100000" "$EQ" v.emb a -k 0
expect_error "--top 0" 2 "^embed-query: error: --top: 0 is not an integer from 1 to 100000" "$EQ" v.emb a --top 0
# A line that starts with + lacks a word, as one ending with + does (issue 66: "+ a" was answered as "a").
printf '+ a\n- a\n' | "$EQ" v.emb -k 1 --format tsv > plus.tsv 2> err.txt
check "'+ a' on stdin: exit" "$?" "3"
grep -q '<stdin>:1: "+ a" starts with +; expected a word before it' err.txt && ok || bad "'+ a': $(cat err.txt)"
check "'- a' is answered, '+ a' keeps its place as an error row" "$(cut -f1,2 plus.tsv | tr '\n\t' ';:')" "+ a:error;- a:1;"
check "--restrict" "$("$EQ" v.emb a --restrict 3 -k 5 --format tsv | cut -f3 | tr '\n' ' ')" "b c "
check "json" "$("$EQ" v.emb a -k 1 --format json)" '{"query":"a","type":"neighbours","results":[{"word":"b","score":0.993884}]}'

# --- batches from stdin: in order, failures alone, exit 3 ---
# Blank and # comment lines are not queries: no answer, no error, line numbers kept.
printf 'a\nnosuchword\nking - man + woman\nc\td\n\nking +\n  # a comment\nc\tnosuchword\nb\n' > queries.txt
"$EQ" v.emb -k 1 --format tsv < queries.txt > out.tsv 2> err.txt
rc=$?
check "batch exit code when some queries fail" "$rc" "3"
# A failed query keeps its place in TSV: "error" where the rank (similarity: the score) would be.
check "batch answers in input order, failures included" "$(cut -f1,2,3 out.tsv | tr '\t\n' ':;')" \
  "a:1:b;nosuchword:error:unknown word \"nosuchword\" (not among the 10 words of v.emb);king - man + woman:1:queen;c:d:0.000000;king +:error:\"king +\" ends with an operator; expected a word after it;c:nosuchword:error;b:1:a;"
check "tsv: a failed similarity's row" "$(grep -c $'^c\tnosuchword\terror\tunknown word "nosuchword"' out.tsv)" "1"
grep -q '<stdin>:2: unknown word "nosuchword" (not among the 10 words of v.emb)' err.txt && ok || bad "unknown word message: $(cat err.txt)"
grep -q '<stdin>:6: "king +" ends with an operator' err.txt && ok || bad "dangling operator message"
check "one error line per failed query, none for blank and comment lines" "$(grep -c 'error:' err.txt)" "3"
"$EQ" v.emb -k 1 --format json < queries.txt > out.json 2>/dev/null
check "json: one line per query, failures included" "$(wc -l < out.json)" "7"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' out.json && ok || bad "json lines parse"
grep -q '"error":"unknown word' out.json && ok || bad "json error object"
check "json: a failed similarity names its two words" "$(grep -c '^{"query":\["c","nosuchword"\],"error":"unknown word' out.json)" "1"
printf '# only comments\n\n   \n#\n' | "$EQ" v.emb > out.txt 2> err.txt
check "comments and blank lines only: exit 0" "$?" "0"
check "comments and blank lines only: no output" "$(cat out.txt err.txt)" ""
printf 'a\n# b\nc\nd\n' | "$EQ" map v.emb -o map.svg 2> err.txt && [[ -s map.svg ]] || bad "map of three words: exit $?: $(cat err.txt)"
grep -q 'wrote map.svg: 3 words' err.txt && ok || bad "map: three words: $(cat err.txt)"
grep -q '#' err.txt && bad "map: a comment line is not a word: $(cat err.txt)" || ok
# Lookups are exact, but an unknown word's message names its spelling in another case.
"$EQ" v.emb King Apple QUEEN nosuchword > /dev/null 2> err.txt
check "case hint: exit 3" "$?" "3"
grep -q 'unknown word "King" (not among the 10 words of v.emb; the vocabulary has "king")' err.txt && ok || bad "case hint, lower: $(cat err.txt)"
grep -q 'unknown word "Apple" (.*; the vocabulary has "apple")' err.txt && ok || bad "case hint, Apple"
grep -q 'unknown word "QUEEN" (.*; the vocabulary has "queen")' err.txt && ok || bad "case hint, upper"
grep -q 'unknown word "nosuchword" (not among the 10 words of v.emb)$' err.txt && ok || bad "no case hint without a variant"
# A stream without newlines is not held whole: one clear line, exit 1, after answering what came before.
{ printf 'a\n'; head -c 3000000 /dev/zero | tr '\0' x; } > long.txt
expect_error "a 3 MB query line" 1 "<stdin>:2: a line longer than 1048576 bytes" "$EQ" v.emb -k 1 --format tsv < long.txt
check "lines before the long one are answered" "$(cut -f1 out.txt)" "a"
"$EQ" v.emb "$(head -c 500 long.txt | tail -c 300)" 2> err.txt
grep -q 'unknown word "x\{40\}\.\.\." (not among' err.txt && ok || bad "a long unknown word is quoted in part: $(head -c 400 err.txt)"
"$EQ" v.emb a b -k 1 > /dev/null 2>&1 && ok || bad "all queries answered: exit 0"
"$EQ" v.emb a nosuchword -k 1 > /dev/null 2>&1; check "argument with unknown word: exit 3" "$?" "3"
seq 1 3000 | sed 's/.*/a/' | "$EQ" v.emb -k 1 --format tsv | cut -f3 | sort | uniq -c | awk '{print $1, $2}' > many.txt
check "3000 queries in batches" "$(cat many.txt)" "3000 b"

# A program that writes one query and waits for its answer is answered at once.
mkfifo in.fifo
"$EQ" v.emb -k 1 --format tsv < in.fifo > conversation.txt 2>&1 &
pid=$!
exec 3> in.fifo
echo a >&3
# (Up to 60 s: a loaded machine, or a sanitizer build, may take seconds to start it.)
for _ in $(seq 600); do [[ -s conversation.txt ]] && break; sleep 0.1; done
check "answer before the input ends" "$(cut -f3 conversation.txt)" "b"
exec 3>&-
wait $pid

# Interactive: a prompt on a terminal.
screen=$(on_tty --input $'a\n' "$EQ" v.emb -k 1)
prompt=$([[ $screen == *"query> "* && $screen == *"b  0.9939"* ]] && echo prompt || echo "$screen")
check "interactive prompt loop" "$prompt" "prompt"
screen=$(on_tty --input $'# a comment\na\n' "$EQ" v.emb -k 1)
check "interactive: a comment is not a query" "$([[ $screen == *error* || $screen != *"b  0.9939"* ]] && echo "$screen" || echo skipped)" "skipped"

# --- other input formats ---
check "text vectors are converted in memory" "$("$EQ" v.txt a -k 1 --format tsv 2>/dev/null | cut -f3)" "b"
"$EQ" v.txt a -k 1 2>&1 >/dev/null | grep -q 'convert it once' && ok || bad "hint to convert text"
gzip -c v.txt > v.txt.gz
check "gzip text" "$("$EQ" v.txt.gz a -k 1 --format tsv 2>/dev/null | cut -f3)" "b"
"$GC" -q v.txt --dtype f16 -o h.emb
check "f16 storage: same neighbours" "$("$EQ" h.emb a -k 3 --format tsv | cut -f3 | tr '\n' ' ')" "b woman queen "
"$GC" -q v.txt --dtype bf16 -o bf.emb
check "bf16 storage" "$("$EQ" bf.emb --analogy 'king - man + woman' -k 1 --format tsv | cut -f3)" "queen"
check "vectors from stdin" "$("$EQ" - a -k 1 --format tsv < v.emb | cut -f3)" "b"
# Words that are not UTF-8, as gensim's unicode_errors: strict (default) fails, naming the line.
printf 'caf\xe9 1 0\ncafe 0.9 0.1\ntea 0 1\n' > latin1.txt
expect_error "--unicode-errors strict" 1 'latin1.txt:1: the word "caf\\xE9" is not valid UTF-8' "$EQ" latin1.txt cafe
check "--unicode-errors replace" "$("$EQ" latin1.txt cafe -k 1 --format tsv --unicode-errors replace 2>/dev/null | cut -f3)" \
  "$(printf 'caf\xef\xbf\xbd')"
# --encoding latin1: the file's words read as gensim's encoding="latin1" reads them, and asked in UTF-8.
check "--encoding latin1" "$("$EQ" latin1.txt café -k 1 --format tsv --encoding latin1 2>/dev/null | cut -f3)" "cafe"
check "eval --unicode-errors ignore" "$("$EQ" eval latin1.txt --unicode-errors ignore --format json \
  --word-pairs <(printf 'caf\ttea\t1\ncafe\ttea\t2\ncaf\tcafe\t9\n') 2>/dev/null | grep -o '"pairs":[0-9]*')" '"pairs":3'

# --- evaluation: the numbers gensim 4.2 printed for the bundled fixtures ---
# KeyedVectors.load_word2vec_format('data/text8-sample.txt.gz', no_header=True), then
# evaluate_word_analogies('data/analogies-sample.txt') -> 12/255 = 0.047058823529411764 (298 questions);
# evaluate_word_pairs('data/wordsim-sample.tsv') -> pearson 0.39320858235854383,
#   spearman 0.37712748592894574, oov 15.789473684210526;
# with restrict_vocab=500: 3/11 = 0.2727, pearson 0.351533934600049, spearman 0.10303030303030303, oov 89.47368421052632.
"$GC" -q "$DATA/text8-sample.txt.gz" -o sample.emb
"$EQ" eval sample.emb --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" > eval.txt
check "eval: analogy total as gensim" "$(grep -E '^  total' eval.txt | awk '{print $2, $3}')" "4.71% (12/255)"
grep -q 'covered 255 of 298 questions' eval.txt && ok || bad "eval coverage: $(cat eval.txt)"
grep -qE '^  family +16.7% \(5/30\)' eval.txt && ok || bad "eval: family section"
grep -q 'Spearman 0.3771  Pearson 0.3932  pairs 80 of 95  OOV 15.8%' eval.txt && ok || bad "eval: word pairs: $(tail -1 eval.txt)"
"$EQ" eval sample.emb --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" --restrict 500 > eval500.txt
grep -qE '^  total +27.27% \(3/11\)' eval500.txt && ok || bad "eval --restrict 500: analogies: $(cat eval500.txt)"
grep -q 'Spearman 0.1030  Pearson 0.3515  pairs 10 of 95  OOV 89.5%' eval500.txt && ok || bad "eval --restrict 500: pairs"
"$EQ" eval sample.emb --analogies "$DATA/analogies-sample.txt" --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)["analogies"]
sys.exit(0 if (r["correct"], r["answered"], r["questions"]) == (12, 255, 298) else 1)' && ok || bad "eval json"
# Evaluation files from stdin (-), as vectors and queries can be; one file only.
check "eval --analogies -" "$("$EQ" eval sample.emb --analogies - --format tsv < "$DATA/analogies-sample.txt" | grep $'\ttotal\t' | cut -f4,5)" \
  $'12\t255'
expect_error "eval: stdin twice" 2 "standard input (-) can be one of its files only" "$EQ" eval - --word-pairs - < sample.emb
# A standard output that refuses the answers (a full disk) is an error, not exit 0.
expect_error "answers into /dev/full" 1 "embed-query: error: <stdout>: cannot write the answers: No space left on device" \
  bash -c '"$0" "$1" a -k 1 > /dev/full' "$EQ" v.emb
expect_error "eval into /dev/full" 1 "embed-query: error: <stdout>: cannot write: No space left on device" \
  bash -c '"$0" eval "$1" --analogies "$2" > /dev/full' "$EQ" sample.emb "$DATA/analogies-sample.txt"
# --format tsv: one row per figure (issue 66: eval refused tsv).
"$EQ" eval sample.emb --analogies "$DATA/analogies-sample.txt" --word-pairs "$DATA/wordsim-sample.tsv" --format tsv > eval.tsv
check "eval tsv: the total" "$(grep $'^analogies\ttotal\t' eval.tsv)" $'analogies\ttotal\t4.70588\t12\t255'
check "eval tsv: a section" "$(grep $'^analogies\tfamily\t' eval.tsv)" $'analogies\tfamily\t16.6667\t5\t30'
check "eval tsv: coverage" "$(grep $'^analogies\tcoverage\t' eval.tsv | cut -f4,5)" $'255\t298'
check "eval tsv: Spearman" "$(grep $'^word-pairs\tspearman\t' eval.tsv | awk -F'\t' '{printf "%.4f %s %s", $3, $4, $5}')" "0.3771 80 95"
check "eval tsv: five columns on every row" "$(awk -F'\t' 'NF != 5' eval.tsv | wc -l)" "0"
printf 'a b c d\n' > nosection.txt
"$EQ" eval v.emb --analogies nosection.txt 2> err.txt; check "analogy file without a section: exit 1" "$?" "1"
grep -q 'nosection.txt:1: question before the first' err.txt && ok || bad "no-section message: $(cat err.txt)"
printf 'x\ty\t1\n' > oovpairs.tsv
"$EQ" eval v.emb --word-pairs oovpairs.tsv 2> err.txt; check "no known pair: exit 1" "$?" "1"
grep -q 'oovpairs.tsv: 0 pairs with both words among the first' err.txt && ok || bad "no known pair: $(cat err.txt)"
# One usable pair has no correlation: an error, as gensim's nan is none.
printf 'THE\tOF\t5\nqqzzx\tzzqqy\t1\n' > onepair.tsv
"$EQ" eval sample.emb --word-pairs onepair.tsv 2> err.txt; check "one usable pair: exit 1" "$?" "1"
grep -q 'onepair.tsv: 1 pair with both words among the first .*: a correlation needs at least 2' err.txt && ok ||
  bad "one usable pair: $(cat err.txt)"
# A file in another format (spaces, not tabs) says so, with its first line.
printf '# comment\ntiger cat 7.35\nbook paper 7.46\n' > spaced.tsv
"$EQ" eval sample.emb --word-pairs spaced.tsv 2> err.txt; check "pairs without tabs: exit 1" "$?" "1"
grep -q 'spaced.tsv:2: expected word pairs "word<TAB>word<TAB>score" .*found "tiger cat 7.35"' err.txt && ok ||
  bad "pairs without tabs: $(cat err.txt)"
# JSON's pairs are the usable pairs, as the text's "pairs 80 of 95".
"$EQ" eval sample.emb --word-pairs "$DATA/wordsim-sample.tsv" --format json | python3 -c '
import json, sys
w = json.load(sys.stdin)["word_pairs"]
sys.exit(0 if (w["pairs"], w["pairs_in_file"], w["oov_pairs"]) == (80, 95, 15) else 1)' && ok || bad "eval json pairs"

# --- bad files are refused with one line, never a crash ---
expect_refused() {  # NAME FILE TEXT
  local err rc
  err=$("$EQ" "$2" a 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne 1 ]]; then bad "$1: exit $rc ($err)"; return; fi
  if [[ $err != *"$3"* || $(printf '%s\n' "$err" | wc -l) -ne 1 ]]; then bad "$1: message '$err' lacks '$3'"; return; fi
  ok
}
head -c 300 v.emb > truncated.emb
expect_refused "truncated .emb" truncated.emb "truncated.emb"
cp v.emb flipped.emb && printf '\xff' | dd of=flipped.emb bs=1 seek=20 conv=notrunc 2>/dev/null
expect_refused "corrupt header" flipped.emb "flipped.emb"
head -c 4096 /dev/urandom > foreign.bin
err=$("$EQ" --from emb foreign.bin a 2>&1 >/dev/null); rc=$?
[[ $rc -eq 1 && $err == *foreign.bin* ]] && ok || bad "foreign file: exit $rc ($err)"
printf 'a 1 2\nb 1\n' > ragged.txt
expect_refused "ragged text" ragged.txt "ragged.txt:2"
expect_refused "missing file" missing.emb "missing.emb"

# Random damage anywhere in the file: refused or answered, never a crash (exit >= 128).
size=$(stat -c %s v.emb)
crashes=0
for i in $(seq 1 60); do
  cp v.emb damaged.emb
  printf "\\x$(printf %02x $((RANDOM % 256)))" | dd of=damaged.emb bs=1 seek=$(( (RANDOM * 32768 + RANDOM) % size )) conv=notrunc 2>/dev/null
  truncate -s $((size - (i % 7) * (i % 3) * 13)) damaged.emb
  "$EQ" damaged.emb a king --analogy "king - man + woman" -k 3 > /dev/null 2>&1
  rc=$?
  if [[ $rc -ge 128 ]]; then crashes=$((crashes + 1)); cp damaged.emb "crash-$i.emb"; fi
done
check "damaged files never crash" "$crashes" "0"

# --- devices (the GPU itself: tests/gpu/gpu_query_cli_test.sh) ---
seq 1 100 | sed 's/.*/king - man + woman/' > hundred.txt
"$EQ" v.emb -k 3 --format tsv --device cpu < hundred.txt > cpu.tsv
"$EQ" --version | grep -q 'CUDA backend built, [0-9]' && have_gpu=1 || have_gpu=0
if [[ $have_gpu == 0 ]]; then
  "$EQ" v.emb -k 3 --format tsv -v < hundred.txt > auto.tsv 2> auto.err
  check "--device auto without a GPU: exit" "$?" "0"
  check "--device auto without a GPU answers as the CPU" "$(md5sum < auto.tsv)" "$(md5sum < cpu.tsv)"
  grep -q '100 queries answered on the CPU' auto.err && ok || bad "-v names the CPU: $(tail -2 auto.err)"
  "$EQ" v.emb a --device cuda > out.txt 2> err.txt
  check "--device cuda without a GPU: exit 1" "$?" "1"
  grep -q '^embed-query: error: --device cuda: no usable GPU: ' err.txt && ok || bad "--device cuda message: $(cat err.txt)"
  check "--device cuda without a GPU: one line" "$(wc -l < err.txt)" "1"
  check "--device cuda without a GPU: nothing answered" "$(wc -c < out.txt)" "0"
  "$EQ" eval v.emb --analogies "$DATA/analogies-sample.txt" --device cuda > /dev/null 2> err.txt
  check "eval --device cuda without a GPU: exit 1" "$?" "1"
  grep -q 'no usable GPU' err.txt && ok || bad "eval --device cuda message: $(cat err.txt)"
fi
"$EQ" v.emb a --device cpu --gpu-memory 1G > /dev/null 2> err.txt
check "--gpu-memory with --device cpu: exit 2" "$?" "2"
grep -q -- '--gpu-memory applies to --device cuda or auto only' err.txt && ok || bad "--gpu-memory message: $(cat err.txt)"
"$EQ" eval v.emb --analogies "$DATA/analogies-sample.txt" --device cpu --gpu-memory 1G > /dev/null 2>&1
check "eval --gpu-memory with --device cpu: exit 2" "$?" "2"
"$EQ" v.emb a --device cpu --gpu 1 > /dev/null 2> err.txt
check "--gpu with --device cpu: exit 2" "$?" "2"
grep -q -- '--gpu applies to --device cuda or auto only' err.txt && ok || bad "--gpu message: $(cat err.txt)"
"$EQ" v.emb a --gpu -1 > /dev/null 2>&1; check "--gpu -1: exit 2" "$?" "2"
"$EQ" --version | grep -qE '^gpus: (none \(.+\)|[0-9]+ .+)$' && ok || bad "--version lists the GPUs: $("$EQ" --version)"
"$EQ" v.emb a --device cuda -k 1025 > /dev/null 2> err.txt
check "--device cuda with -k above the GPU's limit: exit 2" "$?" "2"
grep -q "limit of 1024 neighbours per query; use --device cpu" err.txt && ok || bad "-k limit message: $(cat err.txt)"
"$EQ" v.emb a --device gpu > /dev/null 2>&1; check "--device gpu: exit 2" "$?" "2"
"$EQ" v.emb a --gpu-memory lots > /dev/null 2>&1; check "--gpu-memory lots: exit 2" "$?" "2"
check "--device cpu answers" "$(head -1 cpu.tsv | cut -f3)" "queen"

# --- usage ---
"$EQ" > /dev/null 2>&1; check "no VECTORS: exit 2" "$?" "2"
"$EQ" v.emb a -k 0 > /dev/null 2>&1; check "-k 0: exit 2" "$?" "2"
"$EQ" eval v.emb > /dev/null 2>&1; check "eval without files: exit 2" "$?" "2"
"$EQ" v.emb a --format xml > /dev/null 2>&1; check "unknown format: exit 2" "$?" "2"
# One rule for files: exit 1, "embed-query: error: FILE: reason", as for VECTORS.
expect_error "missing --analogies" 1 "embed-query: error: missing.txt: cannot open: No such file or directory" \
  "$EQ" eval v.emb --analogies missing.txt
expect_error "missing --word-pairs" 1 "embed-query: error: missing.txt: cannot open" "$EQ" eval v.emb --word-pairs missing.txt
expect_error "missing VECTORS" 1 "embed-query: error: missing.emb: cannot open" "$EQ" missing.emb a
expect_error "--restrict 0" 2 "--restrict: 0 is not an integer of 1 or more" "$EQ" v.emb a --restrict 0
expect_error "eval --restrict 0" 2 "--restrict: 0 is not an integer of 1 or more" "$EQ" eval v.emb --analogies v.txt --restrict 0
help=$("$EQ" --help) && [[ $help == *--restrict* ]] || bad "--help: exit $?, $(head -c 200 <<< "$help")"
check "--help ranges are readable" "$(grep -c '[0-9]\{12\}' <<< "$help")" "0"
expect_error "-q with -v" 2 "--verbose excludes --quiet" "$EQ" -q -v v.emb a
"$EQ" -q v.emb a --from word2vec > /dev/null 2>&1; check "--from word2vec is a known name" "$?" "1"
"$EQ" --help | grep -q 'Exit status: 0 success' && ok || bad "--help documents exit codes"

# A fastText model's subwords answer words outside the vocabulary, and say so.
python3 "$cli_dir/make_fasttext_model.py" ft.bin
"$GC" -q --subwords ft.bin -o fts.emb
"$GC" -q ft.bin -o ft.emb
check "OOV neighbours, text" "$("$EQ" fts.emb kingdom -k 2 | head -1)" "kingdom  [oov: kingdom]"
check "OOV answers: 2 neighbours" "$("$EQ" fts.emb kingdom -k 2 | tail -n +2 | wc -l)" 2
"$EQ" fts.emb kingdom king --format json -k 4 > out.json
check "OOV JSON field" "$(python3 -c 'import json,sys; print([(a.get("oov"), a.get("oov_words"), len(a["results"])) for a in map(json.loads, open(sys.argv[1]))])' out.json)" \
  "[(True, ['kingdom'], 4), (None, None, 4)]"
# Its results are vocabulary words, and an OOV word spelled as a vocabulary word's n-grams scores near it:
# -k 2 of the 5 rows, so that the ranking is chosen, and the scores checked (king 0.917, woman 0.736).
"$EQ" fts.emb kingdom queenly --format tsv -k 2 > oov.tsv || bad "OOV neighbours: exit $?"
check "OOV results: the vocabulary word it is spelled from first" "$(cut -f1,3 oov.tsv | tr '\t\n' ':;')" \
  "kingdom:king;kingdom:woman;queenly:queen;queenly:woman;"
check "OOV results: scores near the word it is spelled from" \
  "$(awk -F'\t' '$2 == 1 && $4 > 0.9 {near++} $2 == 2 && $4 < 0.8 {far++} END {print near + 0, far + 0}' oov.tsv)" "2 2"
check "OOV similarity marker" "$("$EQ" fts.emb --similarity kingz queen | grep -c '\[oov: kingz\]')" 1
check "OOV in an expression" "$("$EQ" fts.emb --analogy 'kingz - man + woman' --format json | grep -c '"oov_words":\["kingz"\]')" 1
check "the model itself answers OOV words" "$("$EQ" ft.bin kingdom -k 2 --format tsv | wc -l)" "2"
"$EQ" ft.emb kingdom > /dev/null 2> err.txt; check "no subwords: unknown word fails" "$?" "3"
grep -q 'unknown word "kingdom" (not among the 5 words of ft.emb)' err.txt && ok || bad "unknown word message: $(cat err.txt)"
python3 "$cli_dir/make_fasttext_model.py" ft5.bin skipgram 5
"$EQ" ft5.bin ab > /dev/null 2> err.txt; check "OOV without n-grams fails" "$?" "3"
grep -q 'and it has no character n-grams of 5 to 5 characters' err.txt && ok || bad "no n-grams message: $(cat err.txt)"

# Memory follows the file and the query batch (issue 37): one row of 200,000 dims (800 KB)
# asked 2,000 times on stdin took 860 MB when the batch's query rows were built at once.
python3 -c "import random; random.seed(1); print('wide', ' '.join(f'{random.random():.3f}' for _ in range(200000)))" > wide.txt
"$GC" -q wide.txt -o wide.emb || bad "the wide file converts"
peak_kb=$(python3 - "$EQ" wide.emb <<'PY'
import resource, subprocess, sys
queries = "wide\n" * 2000
subprocess.run([sys.argv[1], sys.argv[2], "-k", "1"], input=queries.encode(), stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
((peak_kb > 0 && peak_kb < 400 * 1024)) && ok || bad "2,000 queries of a one-row 200,000-dim file: peak ${peak_kb} KB"

finish
