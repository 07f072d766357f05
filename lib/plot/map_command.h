// `embed-query map`: a picture of where words sit relative to each other. The words'
// vectors (and with --neighbours their nearest neighbours') are projected on their two
// principal components and drawn as labelled points in an SVG file (word_map.h).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "search/vector_space.h"

namespace embed {

struct MapCommand {
  std::string vectors;
  VectorReading reading;           // --from, --unicode-errors
  std::vector<std::string> words;  // empty: one per line from standard input
  std::string output;              // -o: the SVG file, or "-" for standard output
  std::size_t neighbours = 0;      // --neighbours K: each word's K nearest, drawn lighter
  unsigned threads = 1;
};

// Fewer known words than this cannot show a shape (and two always lie on a line).
inline constexpr std::size_t kMapMinWords = 3;

// Draws the map. Unknown words are named in one warning and left out; fewer than
// kMapMinWords known words is an error, and then nothing is written. Returns 0.
int run_map_command(const MapCommand& command);

}  // namespace embed
