// A word map: words as points on a plane (their vectors' two principal components),
// each with its label, drawn as a self-contained SVG with no axes: only the positions
// relative to each other mean something.
#pragma once

#include <string>
#include <vector>

#include "plot/pca.h"

namespace embed {

struct MapWord {
  std::string word;
  bool neighbour = false;  // added by --neighbours: drawn lighter
};

// The picture of `words` at `projection`'s coordinates (one pair per word, in order),
// titled "NAME — PCA, 2 components explain P% of the variance". The same input gives
// the same bytes.
std::string word_map_svg(const std::vector<MapWord>& words, const Projection& projection, const std::string& name);

}  // namespace embed
