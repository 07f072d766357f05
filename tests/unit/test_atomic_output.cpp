#include <filesystem>

#include <catch2/catch.hpp>

#include "core/atomic_output.h"
#include "test_util.h"

using namespace embed;
namespace fs = std::filesystem;

TEST_CASE("an uncommitted output leaves nothing behind", "[atomic]") {
  test::TempDir dir;
  const std::string path = dir.file("out.emb");
  {
    AtomicOutput out(path);
    out.write("partial");
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("commit renames the whole output into place, replacing an old one", "[atomic]") {
  test::TempDir dir;
  const std::string path = dir.file("out.txt");
  test::write_file(path, "old");
  {
    AtomicOutput out(path);
    out.write("new ");
    out.write(std::string(3 << 20, 'x'));  // larger than the buffer
    CHECK(test::read_file(path) == "old");  // untouched until commit
    out.commit();
  }
  const std::string content = test::read_file(path);
  CHECK(content.size() == 4 + (3u << 20));
  CHECK(content.substr(0, 4) == "new ");
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("an unwritable destination fails before any work", "[atomic]") {
  REQUIRE_ERROR_CONTAINS(AtomicOutput("/nonexistent-dir/out.emb"), "/nonexistent-dir/out.emb: cannot create");
}
