// ShardedTables (train/shards/sharded_tables.h) on ranks that are threads (ThreadJob): fresh
// rows equal one process's, rank 0 reads every row from its owner in any order, a round
// brings the rows a batch touches as their owners hold them and rewrites the batch into
// local rows, the changes come back summed (vectors) and averaged (optimizer state), and a
// shard is saved and loaded whole, refused when it belongs to another checkpoint or rank.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "test_util.h"
#include "thread_cluster.h"
#include "core/error.h"
#include "train/shards/sharded_tables.h"
#include "train/word2vec/word2vec_layout.h"

using namespace embed;

namespace {

constexpr std::uint64_t kRows = 1000;
constexpr std::size_t kHot = 16;
constexpr std::uint64_t kSeed = 7;

// Every row of a table as rank 0 reads it (the other ranks serving), whole (width floats).
std::vector<std::vector<float>> read_all(ShardedTables& tables, bool input, std::size_t width, bool backwards) {
  std::vector<std::vector<float>> rows(kRows, std::vector<float>(width));
  if (!tables.job().is_root()) {
    tables.serve();
    return rows;
  }
  auto reader = tables.root_reader(input, 0, width);
  for (std::uint64_t i = 0; i < kRows; ++i) {
    const std::uint64_t g = backwards ? kRows - 1 - i : i;
    reader(g, rows[g].data());
  }
  tables.end_reading();
  return rows;
}

std::string shard_path_for_test(const std::string& dir, unsigned rank) { return dir + "/shard-" + std::to_string(rank); }

// The rows rank `rank` touches in the test's round: a third of the rows, hot ones among them,
// overlapping the other ranks'.
std::vector<std::uint32_t> rows_of_rank(unsigned rank) {
  std::vector<std::uint32_t> rows;
  for (std::uint32_t g = 0; g < kRows; ++g) {
    if ((g + rank) % 3 == 0 || g % 7 == rank) rows.push_back(g);
  }
  return rows;
}

}  // namespace

TEST_CASE("sharded tables: fresh rows are one process's, read from their owners in any order", "[shards]") {
  const Word2vecLayout layout(20, Optimizer::sgd);
  const RowMatrix one = make_word2vec_table(kRows, layout, true, kSeed, 1);
  for (unsigned ranks : {1u, 2u, 3u}) {
    test::ThreadJob job(ranks);
    std::vector<std::vector<std::vector<float>>> read(2);
    std::vector<std::uint64_t> shares(ranks);
    job.run([&](Cluster& rank) {
      ShardedTables tables(rank, kRows, layout, kHot);
      tables.init_fresh(kSeed);
      shares[rank.rank()] = tables.share();
      auto forwards = read_all(tables, true, layout.width(), false);
      auto backwards = read_all(tables, true, layout.width(), true);
      if (rank.is_root()) {
        read[0] = std::move(forwards);
        read[1] = std::move(backwards);
      }
    });
    INFO(ranks << " ranks");
    // Each rank owns about 1/N of the rows past the hot ones.
    std::uint64_t total = 0;
    for (std::uint64_t share : shares) {
      CHECK(share * ranks + ranks > kRows - kHot);
      total += share;
    }
    CHECK(total == kRows - kHot);
    std::uint64_t wrong = 0;
    for (std::uint64_t g = 0; g < kRows; ++g) {
      for (int pass = 0; pass < 2; ++pass) {
        if (!std::equal(read[pass][g].begin(), read[pass][g].end(), one.row(g))) ++wrong;
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("sharded tables: a round fetches the owners' rows, sums the vectors' changes, averages the state's", "[shards]") {
  // Adam: state beside every row, which the ranks' changes must not sum.
  const Word2vecLayout layout(16, Optimizer::adam);
  const std::size_t padded = layout.padded(), width = layout.width();
  const RowMatrix one = make_word2vec_table(kRows, layout, true, kSeed, 1);
  constexpr unsigned kRanks = 3;
  // Per global row: the ranks that touch it in the input table (inputs) and the output table (targets).
  std::vector<std::vector<unsigned>> touching(kRows);
  for (unsigned r = 0; r < kRanks; ++r) {
    for (std::uint32_t g : rows_of_rank(r)) touching[g].push_back(r);
  }
  test::ThreadJob job(kRanks);
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<std::uint64_t> fetched_wrong(kRanks, 0), remapped_wrong(kRanks, 0);
  job.run([&](Cluster& rank) {
    ShardedTables tables(rank, kRows, layout, kHot);
    tables.init_fresh(kSeed);
    WindowBatch batch;
    const std::vector<std::uint32_t> mine = rows_of_rank(rank.rank());
    batch.inputs = mine;
    batch.inputs.insert(batch.inputs.end(), mine.begin(), mine.end());  // touched twice: fetched once
    batch.targets = mine;
    std::vector<WindowBatch*> batches = {&batch};
    tables.fetch(batches);
    // The batch now names local rows holding what the owners hold; "training" adds 1 to
    // each vector element once and sets the state to a value of this rank's.
    std::set<std::uint32_t> done[2];
    for (std::size_t i = 0; i < mine.size(); ++i) {
      for (int t = 0; t < 2; ++t) {
        const std::uint32_t local = t == 0 ? batch.inputs[i] : batch.targets[i];
        if (t == 0 && local != batch.inputs[i + mine.size()]) ++remapped_wrong[rank.rank()];
        RowMatrix& table = t == 0 ? tables.input() : tables.output();
        float* row = table.row(local);
        if (t == 0 && !std::equal(row, row + width, one.row(mine[i]))) ++fetched_wrong[rank.rank()];
        if (!done[t].insert(local).second) continue;
        for (std::size_t x = 0; x < layout.dim; ++x) row[x] += 1.0f;
        for (std::size_t x = padded; x < width; ++x) row[x] = static_cast<float>(rank.rank() + 1);
      }
    }
    tables.push();
    auto in = read_all(tables, true, width, false);
    auto out = read_all(tables, false, width, false);
    if (rank.is_root()) {
      inputs = std::move(in);
      outputs = std::move(out);
    }
  });
  CHECK(fetched_wrong == std::vector<std::uint64_t>(kRanks, 0));
  CHECK(remapped_wrong == std::vector<std::uint64_t>(kRanks, 0));
  std::uint64_t vectors_wrong = 0, states_wrong = 0;
  for (std::uint64_t g = 0; g < kRows; ++g) {
    const auto& who = touching[g];
    if (who.empty()) continue;
    for (const auto* table : {&inputs, &outputs}) {
      const std::vector<float>& row = (*table)[g];
      const float base = table == &inputs ? one.row(g)[0] : 0.0f;
      // (base + 1) - base is 1 to within rounding.
      if (std::abs(row[0] - (base + static_cast<float>(who.size()))) > 1e-5) ++vectors_wrong;
      // Past the hot rows (whose state stays each rank's own), the mean of the touching ranks' states.
      if (g < kHot) continue;
      double mean = 0;
      for (unsigned r : who) mean += r + 1;
      mean /= static_cast<double>(who.size());
      if (std::abs(row[padded] - mean) > 1e-5) ++states_wrong;
    }
  }
  CHECK(vectors_wrong == 0);
  CHECK(states_wrong == 0);
}

TEST_CASE("sharded tables: a shard saved is loaded whole; another checkpoint's or rank's is refused", "[shards]") {
  const Word2vecLayout layout(20, Optimizer::rowadagrad);
  const test::TempDir dir;  // its own: the unit tests run once per instruction set, side by side
  test::ThreadJob job(2);
  std::vector<std::string> errors(2);
  std::vector<std::uint64_t> wrong(2, 0);
  job.run([&](Cluster& rank) {
    const std::string path = shard_path_for_test(dir.path().string(), rank.rank());
    ShardedTables saved(rank, kRows, layout, kHot);
    saved.init_fresh(kSeed);
    saved.save_shard(path, "00ff");
    ShardedTables loaded(rank, kRows, layout, kHot);
    loaded.load_shard(path, "00ff");
    const std::size_t bytes = (kHot + saved.share()) * saved.input().row_bytes();
    if (std::memcmp(saved.input().row(0), loaded.input().row(0), bytes) != 0) ++wrong[rank.rank()];
    if (std::memcmp(saved.output().row(0), loaded.output().row(0), bytes) != 0) ++wrong[rank.rank()];
    try {
      loaded.load_shard(path, "00fe");
    } catch (const Error& e) {
      errors[rank.rank()] = e.what();
    }
  });
  CHECK(wrong == std::vector<std::uint64_t>{0, 0});
  for (const std::string& e : errors) CHECK_THAT(e, Catch::Contains("belongs to another checkpoint"));
  // Rank 1's shard read as rank 0's.
  test::ThreadJob other(2);
  std::string refused;
  other.run([&](Cluster& rank) {
    if (!rank.is_root()) return;
    ShardedTables tables(rank, kRows, layout, kHot);
    try {
      tables.load_shard(shard_path_for_test(dir.path().string(), 1), "00ff");
    } catch (const Error& e) {
      refused = e.what();
    }
  });
  CHECK_THAT(refused, Catch::Contains("the shard is rank 1 of 2"));
}

namespace {

// A GPU backend's device rows as the rounds see them (RowHome): its own copy of the first
// `held` rows of each table, which "training" changes there.
class ShadowHome final : public RowHome {
 public:
  ShadowHome(ShardedTables& tables, std::size_t held) : held_(held) {
    for (int t = 0; t < 2; ++t) {
      RowMatrix& table = t == 0 ? tables.input() : tables.output();
      shadow_[t].assign(table.row(0), table.row(0) + held * table.stride());
      tables_[t] = &table;
    }
  }
  void rows_to_host(RowMatrix& table, std::size_t first, std::size_t end) override {
    const std::vector<float>& rows = shadow_[index(table)];
    for (std::size_t r = first; r < std::min(end, held_); ++r) std::copy_n(&rows[r * table.stride()], table.stride(), table.row(r));
  }
  void add_to_rows(const RowMatrix&, std::size_t, std::size_t, std::span<const float>) override {}
  void rows_from_host(const RowMatrix& table, std::size_t first, std::size_t end) override {
    std::vector<float>& rows = shadow_[index(table)];
    for (std::size_t r = first; r < std::min(end, held_); ++r) std::copy_n(table.row(r), table.stride(), &rows[r * table.stride()]);
  }
  float& at(int t, std::size_t row, std::size_t x) { return shadow_[t][row * tables_[t]->stride() + x]; }

 private:
  int index(const RowMatrix& table) const { return &table == tables_[0] ? 0 : 1; }
  std::size_t held_;
  std::vector<float> shadow_[2];
  RowMatrix* tables_[2] = {nullptr, nullptr};
};

}  // namespace

TEST_CASE("sharded tables: hot rows a GPU holds are summed from its copy and handed back to it", "[shards]") {
  const Word2vecLayout layout(16, Optimizer::sgd);
  const RowMatrix one = make_word2vec_table(kRows, layout, true, kSeed, 1);
  constexpr std::size_t kHeld = 10;  // of the 16 hot rows: the others stay on the host
  test::ThreadJob job(2);
  std::vector<float> host_after(2), home_after(2), host_unheld(2);
  job.run([&](Cluster& rank) {
    ShardedTables tables(rank, kRows, layout, kHot);
    tables.init_fresh(kSeed);
    ShadowHome home(tables, kHeld);
    tables.set_home(&home);
    // The "device" trained row 3 of the input table (+1 on each rank), the host row 12 (+1);
    // the host's stale copy of row 3 must not count.
    home.at(0, 3, 0) += 1.0f;
    tables.input().row(12)[0] += 1.0f;
    std::vector<WindowBatch*> none;
    tables.fetch(none);
    tables.push();
    host_after[rank.rank()] = tables.input().row(3)[0];
    home_after[rank.rank()] = home.at(0, 3, 0);
    host_unheld[rank.rank()] = tables.input().row(12)[0];
  });
  for (unsigned r = 0; r < 2; ++r) {
    CHECK(std::abs(host_after[r] - (one.row(3)[0] + 2.0f)) < 1e-5);
    CHECK(home_after[r] == host_after[r]);
    CHECK(std::abs(host_unheld[r] - (one.row(12)[0] + 2.0f)) < 1e-5);
  }
}
