// What every model's fresh run starts with: the corpus, counted once, with the log lines
// that say what it held and what the vocabulary kept.
#pragma once

#include <string>
#include <vector>

#include "train/corpus/corpus.h"
#include "train/run/training_run.h"

namespace embed {

// Counts `files` ("-" for standard input) with output's vocabulary limits (min-count,
// max-vocab), plain files on `threads` threads; what cannot be read again is spooled to
// "<spool_prefix>.corpus-<i>.txt". Throws embed::Error when too few words are left to train on.
Corpus read_logged_corpus(const std::vector<std::string>& files, const OutputSettings& output, const std::string& spool_prefix,
                          unsigned threads);

}  // namespace embed
