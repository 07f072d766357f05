// RowShards (cluster/row_shards.h): every row has one owner and one slot, the inverse finds
// it again, the shares are even, the frequent rows spread over the ranks, and a round's
// remote rows come once each, grouped by owner.
#include <algorithm>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "cluster/row_shards.h"

using namespace embed;

TEST_CASE("row shards: one owner and slot a row, inverted by row_at, shares within one row", "[cluster]") {
  for (std::uint64_t rows : {1ull, 2ull, 7ull, 1000ull, 65536ull, 99991ull}) {
    for (unsigned ranks : {1u, 2u, 3u, 8u}) {
      INFO(rows << " rows over " << ranks << " ranks");
      const RowShards shards(rows, ranks, 0);
      std::vector<std::uint64_t> per_rank(ranks, 0);
      std::vector<std::set<std::uint64_t>> slots(ranks);
      std::uint64_t wrong = 0;  // counted, then checked once: millions of assertions cost seconds
      for (std::uint64_t row = 0; row < rows; ++row) {
        const unsigned owner = shards.owner(row);
        const std::uint64_t slot = shards.slot(row);
        if (owner >= ranks || slot >= shards.share(owner) || shards.row_at(owner, slot) != row ||
            !slots[owner].insert(slot).second) {  // no two rows in one place
          ++wrong;
          continue;
        }
        ++per_rank[owner];
      }
      CHECK(wrong == 0);
      std::uint64_t total = 0;
      for (unsigned r = 0; r < ranks; ++r) {
        CHECK(per_rank[r] == shards.share(r));
        total += shards.share(r);
      }
      CHECK(total == rows);
      CHECK(*std::max_element(per_rank.begin(), per_rank.end()) - *std::min_element(per_rank.begin(), per_rank.end()) <= 1);
    }
  }
}

TEST_CASE("row shards: the most frequent rows spread evenly over the ranks", "[cluster]") {
  const RowShards shards(2'000'000, 4, 1);
  for (std::uint64_t top : {16ull, 1000ull, 100000ull}) {
    std::vector<std::uint64_t> per_rank(4, 0);
    for (std::uint64_t row = 0; row < top; ++row) ++per_rank[shards.owner(row)];
    for (std::uint64_t n : per_rank) {
      INFO("top " << top << ": " << n << " on one rank");
      CHECK(n >= top / 4 - std::max<std::uint64_t>(2, top / 50));
      CHECK(n <= top / 4 + std::max<std::uint64_t>(2, top / 50));
    }
  }
}

TEST_CASE("row shards: a round's remote rows, once each, grouped by owner, owned rows left out", "[cluster]") {
  const RowShards shards(1000, 3, 2);
  std::vector<std::uint64_t> touched;
  for (std::uint64_t row = 0; row < 300; ++row) {
    touched.push_back(row);
    touched.push_back(299 - row);  // every row twice
  }
  const RowShards::Remote remote = shards.remote_rows(touched);
  CHECK(remote.counts[2] == 0);
  CHECK(remote.counts[0] + remote.counts[1] == remote.rows.size());
  std::uint64_t owned = 0;
  for (std::uint64_t row = 0; row < 300; ++row) owned += shards.owned(row);
  CHECK(remote.rows.size() == 300 - owned);
  for (std::size_t i = 0; i < remote.rows.size(); ++i) {
    CHECK_FALSE(shards.owned(remote.rows[i]));
    CHECK(shards.owner(remote.rows[i]) == (i < remote.counts[0] ? 0u : 1u));
    if (i > 0 && shards.owner(remote.rows[i]) == shards.owner(remote.rows[i - 1])) CHECK(remote.rows[i - 1] < remote.rows[i]);
  }
  CHECK(shards.remote_rows({}).rows.empty());
}
