# Sourced by the interop tests: PY (Debian's python3), and exit 77 (skipped) unless it has
# numpy and gensim and the `fasttext` command is installed.
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy, gensim' 2>/dev/null; then
  echo "SKIP: $PY cannot import numpy and gensim (Debian: apt-get install python3-gensim)"
  exit 77
fi
if ! command -v fasttext >/dev/null; then
  echo "SKIP: no fasttext command (Debian: apt-get install fasttext)"
  exit 77
fi
