#!/usr/bin/env bash
# Renders a word map (embed-query map) and a training plot (embed-train --plot) with
# headless Chromium and checks the pictures: the PNG is as wide as the SVG's viewBox
# and not blank (some ink, but not a filled page). Skips (77) without Chromium, except
# under CI=true, where scripts/setup.sh has installed Debian's chromium: there its absence
# is a failure, so that the check cannot quietly stop running.
# Usage: render_svg.sh EMBED_QUERY EMBED_TRAIN (run from the repo root)
#        KEEP=DIR keeps the SVGs and PNGs there, to look at.
set -u

EQ=$(realpath "${1:?usage: render_svg.sh EMBED_QUERY EMBED_TRAIN}")
ET=$(realpath "${2:?usage: render_svg.sh EMBED_QUERY EMBED_TRAIN}")
DATA=$(realpath data)
render_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $CHROMIUM ]]; then
  if [[ ${CI:-} == true ]]; then echo "FAIL: no chromium under CI=true (scripts/setup.sh installs it)"; exit 1; fi
  echo "SKIP: no chromium (Debian: apt-get install chromium)"
  exit 77
fi
source "$render_dir/../cli/lib.sh"

# render NAME SVG: SVG as NAME.png at its own size; checks its width and its ink.
render() {
  local name=$1 svg=$2 width height stats
  read -r width height < <(/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as ET
v = ET.parse(sys.argv[1]).getroot().get("viewBox").split(); print(round(float(v[2])), round(float(v[3])))' "$svg")
  # As root Chromium needs --no-sandbox; its own home keeps it off the user's profile.
  HOME=$work timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --hide-scrollbars \
    --screenshot="$work/$name.png" --window-size="$width,$height" "file://$work/$svg" > "$name.chromium.log" 2>&1
  if [[ ! -s $name.png ]]; then bad "$name: Chromium wrote no PNG: $(tail -3 "$name.chromium.log")"; return; fi
  read -r png_width png_height ink < <(/usr/bin/python3 "$render_dir/png_stats.py" "$name.png")
  echo "$name: $png_width x $png_height pixels, ink $ink (viewBox $width x $height)"
  (( png_width >= width - 2 && png_width <= width + 2 )) && ok || bad "$name: PNG $png_width wide, viewBox $width"
  # Ink, the share of non-white pixels. Measured (2026-11-26, Chromium 156): map 0.0103, plot
  # 0.0333 (the same on every run: the drawings are deterministic); broken: an empty page 0,
  # a page filled by a missing viewBox or a black background 1.
  /usr/bin/python3 -c "import sys; sys.exit(not 0.005 <= $ink <= 0.5)" && ok || bad "$name: ink $ink: blank or filled"
  if [[ -n ${KEEP:-} ]]; then mkdir -p "$KEEP" && cp "$svg" "$name.png" "$KEEP/"; fi
}

"$ET" --corpus "$DATA/text8-200k.txt.gz" -o t.emb --dim 32 --epochs 3 --threads 2 --seed 1 --plot plot.svg -q \
  || bad "train"
"$EQ" map t.emb one two three four five six seven eight nine king queen man woman france paris germany berlin \
  -o map.svg -q || bad "map"
render map map.svg
render plot plot.svg
finish
