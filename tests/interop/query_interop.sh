#!/usr/bin/env bash
# embed-query against gensim on the same vectors (query_vs_gensim.py says what is checked).
# Usage: query_interop.sh EMBED_QUERY. Exit 0 pass, 1 fail, 77 skipped (no gensim in Debian's python3).
set -euo pipefail
PY=/usr/bin/python3
if ! "$PY" -c 'import gensim' 2>/dev/null; then
  echo "SKIP: $PY cannot import gensim (Debian: apt-get install python3-gensim)"
  exit 77
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$PY" "$HERE/query_vs_gensim.py" "$(realpath "$1")" "$(cd "$HERE/../.." && pwd)"
