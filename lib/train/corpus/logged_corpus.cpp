#include "train/corpus/logged_corpus.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/cluster.h"
#include "core/error.h"

namespace embed {

Corpus read_logged_corpus(const std::vector<std::string>& files, const OutputSettings& output, const std::string& spool_prefix,
                          unsigned threads) {
  CorpusOptions options;
  options.spool_prefix = spool_prefix;
  options.threads = threads;
  options.min_count = output.min_count;
  options.max_vocab = output.max_vocab;
  Cluster& job = this_job();
  Corpus c = job.size() > 1 ? read_corpus_on_ranks(files, options, job) : read_corpus(files, options);
  if (job.size() > 1) spdlog::info("{}: counted on {} ranks, each its share", c.name, job.size());
  spdlog::info("{}: {} words, {} distinct; vocabulary {} words (min-count {}{}), {:.1f}% of the text", c.name, c.tokens,
               c.distinct_words, c.vocab.size(), options.min_count,
               options.max_vocab > 0 ? fmt::format(", max-vocab {}", options.max_vocab) : "",
               100.0 * static_cast<double>(c.words) / static_cast<double>(c.tokens));
  if (c.truncated_tokens > 0) spdlog::info("{}: {} tokens longer than 100 bytes were cut", c.name, c.truncated_tokens);
  if (c.invalid_utf8_words > 0) spdlog::warn("{}: left out {} words that are not valid UTF-8", c.name, c.invalid_utf8_words);
  if (c.words < 2) fail("{}: too few words to train on ({} in the vocabulary)", c.name, c.words);
  return c;
}

}  // namespace embed
