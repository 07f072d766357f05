#!/usr/bin/env bash
# The Python package's tests (test_embed_package.py) under Debian's python3, which has
# numpy (python3-numpy); exit 77 (skipped) where it has none.
# Usage: python_package_test.sh EMBED_TRAIN EMBED_QUERY GLOVE_CONVERT (from the repository root)
set -u
if ! /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
  echo "skipped: /usr/bin/python3 has no numpy (Debian's python3-numpy)"
  exit 77
fi
exec /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/test_embed_package.py" "$@"
