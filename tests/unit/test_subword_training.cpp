// fastText's model (--subwords): the rows each word's input averages, and the CPU backend's
// updates against a reference written from fastText's Model::update, one (input, target)
// step at a time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "subword_batches.h"
#include "text/fasttext_subwords.h"
#include "train/run/train_settings.h"
#include "train/word2vec/logistic_table.h"
#include "train/word2vec/subword_cpu_backend.h"
#include "train/word2vec/subword_rows.h"
#include "train_fixtures.h"

using namespace embed;

namespace {

// fastText's Model::update for one input (the rows averaged) and one positive output
// followed by its negatives (those equal to it skipped), in double: the hidden vector is the
// average of the rows as they are, every output row takes its step in turn, and each input
// row (as often as it is listed) takes the whole gradient.
void reference_update(std::vector<std::vector<double>>& in, std::vector<std::vector<double>>& out,
                      const std::vector<std::uint32_t>& rows, std::uint32_t positive, const std::vector<std::uint32_t>& negatives,
                      double lr) {
  const std::size_t dim = in[0].size();
  std::vector<double> hidden(dim, 0), grad(dim, 0);
  for (std::uint32_t r : rows) {
    for (std::size_t i = 0; i < dim; ++i) hidden[i] += in[r][i];
  }
  for (double& h : hidden) h /= static_cast<double>(rows.size());
  std::vector<std::uint32_t> outputs{positive};
  for (std::uint32_t n : negatives) {
    if (n != positive) outputs.push_back(n);
  }
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    double score = 0;
    for (std::size_t i = 0; i < dim; ++i) score += hidden[i] * out[outputs[o]][i];
    // The sigmoid from the trainers' table (as fastText's from its own), so that only the
    // float arithmetic differs.
    const double alpha = lr * ((o == 0 ? 1.0 : 0.0) - logistic_table().sigmoid(static_cast<float>(score)));
    for (std::size_t i = 0; i < dim; ++i) {
      grad[i] += alpha * out[outputs[o]][i];
      out[outputs[o]][i] += alpha * hidden[i];
    }
  }
  for (std::uint32_t r : rows) {
    for (std::size_t i = 0; i < dim; ++i) in[r][i] += grad[i];
  }
}

std::vector<std::vector<double>> as_double(const RowMatrix& m, std::size_t dim) {
  std::vector<std::vector<double>> rows(m.rows(), std::vector<double>(dim));
  for (std::size_t r = 0; r < m.rows(); ++r) {
    for (std::size_t i = 0; i < dim; ++i) rows[r][i] = m.row(r)[i];
  }
  return rows;
}

double max_difference(const RowMatrix& m, const std::vector<std::vector<double>>& reference) {
  double worst = 0;
  for (std::size_t r = 0; r < m.rows(); ++r) {
    for (std::size_t i = 0; i < reference[r].size(); ++i) worst = std::max(worst, std::abs(m.row(r)[i] - reference[r][i]));
  }
  return worst;
}

}  // namespace

TEST_CASE("SubwordRows lists a word's own row, then its n-grams' bucket rows after the vocabulary's", "[subwords]") {
  const Vocabulary vocab = test::vocabulary({"the", "aaaa", "é"});
  const SubwordSettings settings{3, 3, 1000};
  const SubwordRows rows(vocab, settings);
  REQUIRE(rows.words() == 3);
  for (std::uint32_t w = 0; w < 3; ++w) {
    const auto listed = rows.of(w);
    const std::vector<std::uint32_t> buckets = subword_buckets(vocab.words[w], settings);
    REQUIRE(listed.size() == 1 + buckets.size());
    CHECK(listed[0] == w);
    for (std::size_t i = 0; i < buckets.size(); ++i) CHECK(listed[1 + i] == 3 + buckets[i]);
  }
  // "<the>": <th the he>. "<aaaa>": <aa aaa aaa aa>, "aaa" twice: with the word's own row,
  // 5 listings of 4 rows, one of them twice, so a step of every listing moves the average
  // by (1 + 1 + 4 + 1) / 5 of it.
  CHECK(rows.of(0).size() == 4);
  CHECK(rows.gain(0) == 1.0f);
  REQUIRE(rows.of(1).size() == 5);
  CHECK(rows.gain(1) == Approx(7.0 / 5.0));
  // No n-grams at all (maxn 0): each word its own row.
  const SubwordRows plain(vocab, SubwordSettings{});
  CHECK(plain.of(1).size() == 1);
  CHECK(plain.listed() == 3);
}

namespace {

// Trains `batch` with the subword backend and with reference_update in the backend's
// order (skip-gram: the centre's rows against each context word; CBOW: the context words'
// rows together against the centre), and returns the largest difference in either table.
double difference_from_reference(Model model, const WindowBatch& batch, const SubwordRows& subwords, std::size_t table_rows,
                                 std::size_t dim, BatchLoss& loss) {
  const std::size_t words = subwords.words();
  RowMatrix input(table_rows, dim), output(words, dim);
  test::fill_uniform(input, 11, 0.5f);
  test::fill_uniform(output, 12, 0.5f);
  auto in = as_double(input, dim), out = as_double(output, dim);
  auto backend = make_subword_cpu_backend(model, input, output, Word2vecLayout(dim, Optimizer::sgd), subwords, 1);
  backend->train(batch, 0, loss);
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const auto contexts = batch.window_inputs(w);
    const std::uint32_t centre = batch.targets[w];
    if (model == Model::skipgram) {
      const auto rows = subwords.of(centre);
      for (std::size_t c = 0; c < contexts.size(); ++c) {
        const auto negatives = batch.input_negatives(batch.input_offsets[w] + c);
        reference_update(in, out, {rows.begin(), rows.end()}, contexts[c], {negatives.begin(), negatives.end()}, 0.05);
      }
    } else {
      std::vector<std::uint32_t> bag;
      for (std::uint32_t word : contexts) {
        const auto rows = subwords.of(word);
        bag.insert(bag.end(), rows.begin(), rows.end());
      }
      const auto negatives = batch.window_negatives(w);
      reference_update(in, out, bag, centre, {negatives.begin(), negatives.end()}, 0.05);
    }
  }
  RowMatrix untouched(table_rows, dim);
  test::fill_uniform(untouched, 11, 0.5f);
  CHECK(max_difference(untouched, in) > 1e-3);  // the rows moved
  return std::max(max_difference(input, in), max_difference(output, out));
}

const Vocabulary& kWords = test::kSubwordWords;

}  // namespace

TEST_CASE("subword skip-gram: a batch equals fastText's update, pair by pair", "[subwords]") {
  // Words with shared n-grams (so rows repeat across words), one of them with a repeated
  // n-gram (a row listed twice), and few buckets (collisions).
  const SubwordSettings settings{3, 4, 37};
  const SubwordRows subwords(kWords, settings);
  const WindowBatch batch = test::subword_skipgram_batch();
  BatchLoss loss;
  // Float against double: 5e-8 at most, measured; averaging the centre's rows once per
  // window with every listing counted once (gain 1) is 1.2e-4 off.
  CHECK(difference_from_reference(Model::skipgram, batch, subwords, kWords.size() + 37, 21, loss) < 1e-6);
  CHECK(loss.examples == 6u);
}

TEST_CASE("subword CBOW: a batch equals fastText's update, its words' rows cached across windows", "[subwords]") {
  // Context words that share no row (distinct n-grams, buckets enough to keep them apart),
  // so that caching each word's row sum and its owed step is exact: "ox" stays for two
  // windows, "dog" leaves after one, "aaaa" comes twice in one window (a row of its own
  // listed twice).
  const SubwordSettings settings{3, 4, 1000003};
  const SubwordRows subwords(kWords, settings);
  const WindowBatch batch = test::subword_cbow_batch();
  test::require_no_shared_rows(batch, subwords);  // the premise
  BatchLoss loss;
  CHECK(difference_from_reference(Model::cbow, batch, subwords, kWords.size() + settings.buckets, 21, loss) < 1e-6);
  CHECK(loss.examples == 4u);
}
