#!/usr/bin/env bash
# cmake --install into a scratch prefix (issue 37): the three tools land in PREFIX/bin and run
# from there by bare name on the PATH, as README's examples call them, with nothing from the
# build tree; the manuals land in PREFIX/share/doc/embed.
# Usage: install_test.sh EMBED_TRAIN (the build folder is the one that holds it)
set -u
build=$(cd "$(dirname "$(realpath "${1:?usage: install_test.sh EMBED_TRAIN}")")" && pwd)
DATA=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../../data")
source "$(dirname "$0")/lib.sh"

cmake --install "$build" --prefix "$work/prefix" > install.log 2>&1 && ok || bad "cmake --install: $(tail -3 install.log)"
for tool in glove-convert embed-query embed-train; do
  [[ -x prefix/bin/$tool ]] && ok || bad "$tool not installed"
done
for doc in README.md embed-train.md embed-query.md glove-convert.md FORMAT.md; do
  [[ -s prefix/share/doc/embed/$doc ]] && ok || bad "$doc not installed"
done
# By bare name, from a folder that is not the build's, as README's examples run them.
mkdir -p elsewhere && cd elsewhere || exit 1
export PATH=$work/prefix/bin:/usr/bin:/bin
glove-convert -q "$DATA/text8-sample.txt.gz" -o sample.emb && ok || bad "glove-convert from the PATH"
embed-query sample.emb --analogy "he - his + her" -k 3 > analogy.txt && grep -q she analogy.txt && ok ||
  bad "embed-query from the PATH: $(cat analogy.txt)"
embed-train --corpus "$DATA/text8-200k.txt.gz" -o t.emb --dim 8 --epochs 1 -q && [[ -s t.emb ]] && ok ||
  bad "embed-train from the PATH"
cd "$work" || exit 1
finish
