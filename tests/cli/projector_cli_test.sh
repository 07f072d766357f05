#!/usr/bin/env bash
# End-to-end tests of glove-convert --to projector: the three files of TensorBoard's
# Embedding Projector, their row alignment, the metadata header rule, escaped words,
# exact values, --limit and the size warning, and directories that cannot take them.
# Usage: projector_cli_test.sh PATH/TO/glove-convert
set -u

GC=$(realpath "${1:?usage: projector_cli_test.sh PATH/TO/glove-convert}")
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

lines() { wc -l < "$1" | tr -d ' '; }

# --- GloVe text: one metadata column, no header ---
printf 'the 0.1 0.2 -0.3\nof 1e-3 2 3\nnew york 0.5 0.25 1\ncafé -1.5 2.25 0.125\n' > glove.txt
"$GC" -q glove.txt --to projector -o proj && ok || bad "glove -> projector"
check "files" "$(ls proj | tr '\n' ' ')" "metadata.tsv projector_config.pbtxt vectors.tsv "
check "vectors.tsv rows" "$(lines proj/vectors.tsv)" 4
check "metadata.tsv rows, no header" "$(lines proj/metadata.tsv)" 4
check "metadata.tsv words" "$(tr '\n' '|' < proj/metadata.tsv)" "the|of|new york|café|"
check "vectors.tsv values, tab-separated, shortest form" "$(sed -n 2p proj/vectors.tsv)" "$(printf '0.001\t2\t3')"
check "vectors.tsv: no word column" "$(awk -F'\t' '{print NF}' proj/vectors.tsv | sort -u)" 3
check "config" "$(tr '\n' ' ' < proj/projector_config.pbtxt)" \
  'embeddings {   tensor_name: "glove"   tensor_path: "vectors.tsv"   metadata_path: "metadata.tsv"   tensor_shape: 4   tensor_shape: 3 } '
"$GC" -q glove.txt -o slash/ && [[ -s slash/vectors.tsv ]] && ok || bad "-o DIR/ means --to projector"
"$GC" --help | grep -q 'emb,glove,w2v-text,w2v-bin,fasttext-bin,projector' && ok || bad "--help lists projector"

# --- counts (fastText model -> .emb, as embed-train writes them): two columns and a header ---
python3 "$cli_dir/make_fasttext_model.py" ft.bin
"$GC" -q ft.bin -o ft.emb && "$GC" --info ft.emb | grep -q '^counts      yes' && ok || bad "an .emb with counts"
"$GC" -q ft.emb --to projector -o counted && ok || bad "emb with counts -> projector"
check "header with counts" "$(head -1 counted/metadata.tsv)" "$(printf 'word\tcount')"
check "rows with counts (header + 5)" "$(lines counted/metadata.tsv)" 6
check "vectors with counts" "$(lines counted/vectors.tsv)" 5
check "count column" "$(sed -n 2p counted/metadata.tsv)" "$(printf 'king\t9')"
check "tensor name from the .emb's name" "$(grep tensor_name counted/projector_config.pbtxt)" '  tensor_name: "ft"'

# --- words with a tab, newline, carriage return, backslash and a blank-looking word ---
# word2vec binary is the text-free format that holds them; values are random f32s.
python3 - <<'PY'
import random, struct
random.seed(7)
words = [b"plain", b"tab\tword", b"new\nline", b"cr\rword", b"back\\slash", b"\xe3\x80\x80", b"caf\xc3\xa9"]
with open("odd.bin", "wb") as f, open("odd.f32", "wb") as want:
    f.write(b"%d 5\n" % len(words))
    for w in words:
        row = struct.pack("<5f", *[random.gauss(0, 1e-3) for _ in range(5)])
        f.write(w + b" " + row + b"\n")
        want.write(row)
PY
"$GC" -q odd.bin --to projector -o odd && ok || bad "odd words -> projector"
check "escaped words, one line each" "$(cat odd/metadata.tsv)" \
  "$(printf '%s\n' plain 'tab\tword' 'new\nline' 'cr\rword' 'back\\slash' '\u3000' café)"
check "rows aligned" "$(lines odd/metadata.tsv) $(lines odd/vectors.tsv)" "7 7"
python3 - <<'PY' && ok || bad "vectors.tsv values read back as the input's f32s"
import struct
want = open("odd.f32", "rb").read()
# As TensorBoard's projector plugin reads a tensor_path: float() per field, then f32.
rows = [[float(x) for x in line.rstrip("\n").split("\t")] for line in open("odd/vectors.tsv")]
got = b"".join(struct.pack("<5f", *row) for row in rows)
assert got == want, rows
PY
python3 - <<'PY' && ok || bad "the documented unescaping gives the words back"
import re
words = [b"plain", b"tab\tword", b"new\nline", b"cr\rword", b"back\\slash", b"\xe3\x80\x80", b"caf\xc3\xa9"]
simple = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
def unescape(s):
    return re.sub(r"\\(u[0-9A-F]{4}|.)", lambda m: chr(int(m[1][1:], 16)) if len(m[1]) == 5 else simple[m[1]], s)
got = [unescape(l.rstrip("\n")).encode() for l in open("odd/metadata.tsv", encoding="utf-8")]
assert got == words, got
PY

# --- --limit, and the warning past 100,000 points ---
"$GC" -q --limit 2 glove.txt --to projector -o limited && ok || bad "--limit"
check "--limit rows" "$(lines limited/vectors.tsv) $(lines limited/metadata.tsv)" "2 2"
python3 -c "
import struct
n = 100001
with open('big.bin', 'wb') as f:
    f.write(b'%d 2\\n' % n + b''.join(b'w%d ' % i + struct.pack('<2f', i, -i) + b'\\n' for i in range(n)))"
"$GC" big.bin --to projector -o big 2> err.txt && ok || bad "100,001 rows"
grep -q 'warning: 100001 points: the projector becomes slow beyond about 100000; --limit N' err.txt && ok \
  || bad "no size warning: $(cat err.txt)"
"$GC" --limit 100001 big.bin --to projector -o big 2> err.txt && ! grep -q warning err.txt && ok || bad "--limit silences the warning"

# --- destinations that cannot take the files ---
expect_error "-o - is a usage error" 2 "--to projector writes three files into a directory; standard output (-o -) cannot hold them" \
  "$GC" glove.txt --to projector -o -
printf 'keep me\n' > afile
expect_error "OUT_DIR is a file" 1 "afile: exists and is not a directory" "$GC" glove.txt --to projector -o afile
check "one error line" "$(wc -l < err.txt)" 1
check "the file is left alone" "$(cat afile)" "keep me"
expect_error "OUT_DIR's parent is missing" 1 "missing/sub: cannot create the projector output directory: No such file or directory" \
  "$GC" glove.txt --to projector -o missing/sub
if [[ $(id -u) -ne 0 ]]; then
  mkdir locked && chmod 555 locked
  expect_error "unwritable OUT_DIR" 1 "locked/vectors.tsv: cannot create the output" "$GC" glove.txt --to projector -o locked
  check "nothing written into it" "$(ls -A locked | wc -l)" 0
  chmod 755 locked
else
  # root writes through permissions; /proc takes no new directories nor files.
  expect_error "unwritable OUT_DIR" 1 "/proc/embed-projector: cannot create the projector output directory" \
    "$GC" glove.txt --to projector -o /proc/embed-projector
  expect_error "unwritable existing OUT_DIR" 1 "/proc/self/vectors.tsv: cannot create the output" \
    "$GC" glove.txt --to projector -o /proc/self
fi
printf 'a 1 2\nb 1\n' > ragged.txt
expect_error "bad input" 1 "ragged.txt:2:" "$GC" ragged.txt --to projector -o fresh
[[ ! -e fresh ]] && ok || bad "a failed run left the directory it made: $(ls -A fresh)"
cp -r proj before
"$GC" -q ragged.txt --to projector -o proj 2> /dev/null
diff -r before proj > /dev/null && ok || bad "a failed run changed an existing output"
check "no temporaries left" "$(ls -A proj | grep -c '\.tmp-')" 0
printf 'x 1\ny 2\n' > narrow.txt
expect_error "one dimension" 1 "the projector needs vectors of 2 or more dimensions; these have 1" "$GC" narrow.txt --to projector -o narrow
expect_error "--dtype" 1 "--dtype applies to .emb output; projector output" "$GC" --dtype f16 glove.txt --to projector -o p2
expect_error "read, not written" 2 "--from" "$GC" --from projector proj/vectors.tsv -o x.emb

finish
