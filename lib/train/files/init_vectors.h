// --init: a run that starts from vectors people already have (any file glove-convert
// reads, or an embed-train checkpoint) instead of from random rows.
//
// The vocabulary, counts and schedule still come from the corpus: a vocabulary word
// found in the file starts from the file's vector (and, in GloVe, its bias), and its
// context row from the file's context vector when the file has one (a checkpoint, or the
// OUT.context.emb that --save-context wrote beside it), zeros otherwise. Words new in
// the corpus start as a fresh run starts them. The optimizer's state starts fresh.
//
// With --subwords a file that has n-gram bucket rows (an .emb with subwords, a fastText
// model, a --subwords checkpoint) continues them: its buckets' rows, each word's own input
// row (a fastText model's and a checkpoint's as they are; for an .emb's words, the row
// that with their n-grams' rows averages to the file's vector), and its output rows where
// it has them (a fastText model's output matrix, a checkpoint's). A file without buckets
// gives each word's own row so that its vector starts as the file's, the buckets fresh.
//
// --lock-init holds the rows that came from the file fixed, as gensim's lockf = 0 does:
// only the new words and the context table train. --init-keep writes the file's words
// that the vocabulary lacks after the trained rows, unchanged, with count 0. Both last
// for the whole run, so a checkpoint keeps them (InitVectors).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "text/subword_table.h"
#include "train/files/vectors_output.h"
#include "train/run/training_run.h"

namespace embed {

class TrainingModel;

// What the command line asks of --init.
struct InitRequest {
  std::string file;        // empty: no --init
  bool keep = false;       // --init-keep
  bool lock = false;       // --lock-init
  bool dim_given = false;  // --dim was on the command line; otherwise the file's dimension is taken
  // --minn, --maxn and --buckets were given; otherwise a file with buckets gives them
  bool minn_given = false, maxn_given = false, buckets_given = false;
};

// What a file holds for --init, read before the corpus so that a bad file fails first.
struct InitSource {
  std::string path;
  std::string checksum;  // "crc32:xxxxxxxx" of the file's bytes, for the metadata
  std::string what;      // "a glove text file", "a skipgram checkpoint", for the log
  std::size_t dim = 0;
  std::vector<std::string> words;
  std::vector<float> word_rows;                // words × dim: the starting rows of the word (input) table
  std::vector<float> vectors;                  // words × dim: the vectors as the file gives them (--init-keep
                                               // writes these); empty when they are word_rows
  std::string context_from;                    // where context_rows came from, or empty
  std::vector<float> context_rows;             // words × dim, or empty: no context vectors
  std::vector<float> word_bias, context_bias;  // per word, or empty (a GloVe checkpoint has them)
  std::optional<SubwordTable> subwords;        // its n-gram bucket rows, when it has some
  std::vector<float> own_rows;                 // words × dim: each word's own input row beside its
                                               // buckets' (a fastText model, a checkpoint), or empty
  bool subwords_unread = false;                // it has bucket rows, not read (a run without --subwords)

  std::span<const float> vector(std::size_t i) const {
    const std::vector<float>& from = vectors.empty() ? word_rows : vectors;
    return {from.data() + i * dim, dim};
  }
};

// Reads `path`: an embed-train checkpoint, or vectors in any format glove-convert reads
// (with PATH's OUT.context.emb sibling as its context vectors, when there is one; a
// fastText model's output matrix). The n-gram bucket rows only `with_subwords` (a run with
// --subwords continues them). Throws embed::Error naming the file for anything it cannot
// use (standard input, a repeated word, a damaged file).
InitSource read_init_source(const std::string& path, unsigned threads, bool with_subwords = false);

// Sets the run's dim from the file when --dim was not given, or fails naming both; with
// --subwords and a file with buckets, the same for --minn, --maxn and --buckets.
void settle_init_settings(const InitSource& source, const InitRequest& request, TrainSettings& settings);

// Overwrites the rows of `run`'s fresh tables (model.start made them) whose words the
// file has, and fills run.init with what the rest of the run needs: the locked rows and
// the kept words. Logs what it did.
void apply_init(const InitSource& source, const InitRequest& request, const TrainingModel& model, TrainingRun& run);

// The vocabulary the output is written with: `vocab`, then --init-keep's words (count 0).
Vocabulary with_kept_words(const Vocabulary& vocab, const InitVectors& init);
// `trained` for the vocabulary's rows, then `kept` (init.kept_vectors or kept_context)
// for the kept words'.
RowReader with_kept_rows(RowReader trained, const TrainingRun& run, const std::vector<float>& kept);

// The .emb metadata of a run with --init: "init", "init_checksum", "init_rows", and
// "init_lock" / "init_kept" when those were asked for.
void add_init_metadata(const InitVectors& init, std::map<std::string, std::string>& metadata);

}  // namespace embed
