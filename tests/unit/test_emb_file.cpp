#include <cstring>
#include <fstream>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include "core/atomic_output.h"
#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "test_util.h"

using namespace embed;
using embed::test::TempDir;

namespace {

EmbeddingTable sample_table(std::size_t rows, std::size_t dim) {
  EmbeddingTable table;
  table.dim = dim;
  std::vector<float> v(dim);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < dim; ++i) v[i] = static_cast<float>(r) * 0.25f - static_cast<float>(i) / 7.0f;
    table.add_row(r == 2 ? "café" : "word" + std::to_string(r), v, r + 1);
  }
  return table;
}

void write(EmbeddingTable table, const std::string& path, DType dtype = DType::f32) {
  AtomicOutput out(path);
  EmbWriteOptions options;
  options.dtype = dtype;
  options.source = "unit test";
  options.creator = "test";
  write_emb(table, options, out);
  out.commit();
}

// Points standard output at the file `path` while it lives: written as "-", it is
// a stream, which cannot seek, as a pipe cannot.
class StdoutToFile {
 public:
  explicit StdoutToFile(const std::string& path) {
    std::fflush(stdout);
    saved_ = ::dup(1);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::close(fd);
  }
  ~StdoutToFile() {
    ::dup2(saved_, 1);
    ::close(saved_);
  }
  StdoutToFile(const StdoutToFile&) = delete;
  StdoutToFile& operator=(const StdoutToFile&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace

TEST_CASE("an .emb round-trips words, vectors, norms and counts", "[emb]") {
  TempDir dir;
  // Odd rows and odd dim: the layout must still align every tensor without padding.
  for (std::size_t rows : {1, 7, 300}) {
    for (std::size_t dim : {1, 3, 50}) {
      EmbeddingTable table = sample_table(rows, dim);
      for (std::size_t r = 0; r < rows; ++r) table.counts.push_back(static_cast<std::int64_t>(1000 - r));
      const std::string path = dir.file("t.emb");
      write(table, path);
      const EmbFile file = EmbFile::open(path);
      REQUIRE(file.rows() == rows);
      REQUIRE(file.dim() == dim);
      CHECK(file.dtype() == DType::f32);
      CHECK(reinterpret_cast<std::uintptr_t>(file.vector_bytes()) % 64 == 0);
      std::vector<float> row(dim);
      for (std::size_t r = 0; r < rows; ++r) {
        REQUIRE(file.word(r) == table.word(r));
        REQUIRE(file.find(table.word(r)) == r);
        file.row_as_f32(r, row.data());
        REQUIRE(std::memcmp(row.data(), table.row(r).data(), dim * 4) == 0);
        double sum = 0;
        for (float x : row) sum += double(x) * x;
        REQUIRE(file.norms()[r] == Approx(std::sqrt(sum)).epsilon(1e-6));
        REQUIRE(file.counts()[r] == table.counts[r]);
      }
      CHECK_FALSE(file.find("absent").has_value());
      CHECK_NOTHROW(file.verify());
    }
  }
}

TEST_CASE("streamed, one-go, piped and two-pass piped writes give the same bytes", "[emb]") {
  TempDir dir;
  for (DType dtype : {DType::f32, DType::f16}) {
    for (std::size_t dim : {3, 4}) {  // odd rows * dim in f16 needs the padding tensor
      EmbeddingTable table = sample_table(7, dim);
      EmbWriteOptions options;
      options.dtype = dtype;
      options.normalize = true;
      options.source = "s";
      write(table, dir.file("one.emb"), dtype);
      {
        AtomicOutput out(dir.file("streamed.emb"));
        EmbStreamWriter writer(out, dim, options);
        EmbeddingTable copy = table;
        writer.add_rows(copy, 0, std::span<float>(copy.values.data(), 3 * dim));
        writer.add_rows(copy, 3, std::span<float>(copy.values.data() + 3 * dim, 4 * dim));
        writer.finish(copy);
        out.commit();
      }
      {
        EmbeddingTable copy = table;
        AtomicOutput out(dir.file("whole.emb"));
        write_emb(copy, options, out);
        out.commit();
      }
      // Standard output cannot seek: the header is computed first.
      {
        StdoutToFile redirect(dir.file("piped.emb"));
        EmbeddingTable copy = table;
        AtomicOutput out("-", Streaming::allowed);
        write_emb(copy, options, out);
        out.commit();
      }
      // Nor for the stream writer: the rows go by twice, measured and then written.
      {
        StdoutToFile redirect(dir.file("two-pass.emb"));
        AtomicOutput out("-", Streaming::allowed);
        EmbStreamWriter writer(out, dim, options);
        REQUIRE(writer.passes() == 2);
        for (int pass = 0; pass < 2; ++pass) {
          if (pass == 1) writer.write_header(table);
          EmbeddingTable copy = table;
          writer.add_rows(copy, 0, std::span<float>(copy.values.data(), 3 * dim));
          writer.add_rows(copy, 3, std::span<float>(copy.values.data() + 3 * dim, 4 * dim));
        }
        writer.finish(table);
        out.commit();
      }
      REQUIRE(test::read_file(dir.file("piped.emb")) == test::read_file(dir.file("whole.emb")));
      REQUIRE(test::read_file(dir.file("two-pass.emb")) == test::read_file(dir.file("whole.emb")));
      REQUIRE(test::read_file(dir.file("streamed.emb")) == test::read_file(dir.file("whole.emb")));
      const EmbFile file = EmbFile::open(dir.file("streamed.emb"));
      CHECK(file.normalized());
      CHECK(file.norms()[6] == Approx(1.0).epsilon(1e-3));
      CHECK(reinterpret_cast<std::uintptr_t>(file.vector_bytes()) % 64 == 0);
      CHECK_NOTHROW(file.verify());
    }
  }
}

TEST_CASE("every tensor is naturally aligned, whatever the shapes", "[emb]") {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16}) {
    for (std::uint64_t rows : {0, 1, 2, 7, 100}) {
      for (std::uint64_t dim : {1, 2, 3, 300}) {
        for (bool counts : {false, true}) {
          const EmbLayout layout = plan_emb_layout(rows, dim, dtype, 13, counts);
          std::uint64_t expected = 0;
          for (const auto& t : layout.tensors) {
            REQUIRE(t.begin == expected);
            REQUIRE(t.begin % dtype_size(t.dtype) == 0);
            expected = t.end;
          }
          REQUIRE(layout.tensors.front().name == "vectors");
          REQUIRE(layout.index_capacity > 2 * rows);
        }
      }
    }
  }
}

TEST_CASE("f16 and bf16 storage round to the nearest representable value", "[emb]") {
  TempDir dir;
  const EmbeddingTable table = sample_table(10, 4);
  for (DType dtype : {DType::f16, DType::bf16}) {
    const std::string path = dir.file("h.emb");
    write(table, path, dtype);
    const EmbFile file = EmbFile::open(path);
    CHECK(file.dtype() == dtype);
    std::vector<float> row(4);
    file.row_as_f32(9, row.data());
    for (std::size_t i = 0; i < 4; ++i) CHECK(row[i] == Approx(table.row(9)[i]).epsilon(dtype == DType::f16 ? 1e-3 : 1e-2));
    CHECK_NOTHROW(file.verify());
  }
}

TEST_CASE("corrupt and foreign files are rejected with a clear error", "[emb]") {
  TempDir dir;
  const std::string path = dir.file("c.emb");
  write(sample_table(20, 8), path);
  const std::string good = test::read_file(path);
  const std::string bad = dir.file("bad.emb");

  SECTION("truncated") {
    test::write_file(bad, good.substr(0, good.size() - 5));
    REQUIRE_ERROR_CONTAINS(EmbFile::open(bad), "truncated");
  }
  SECTION("truncated inside the header") {
    test::write_file(bad, good.substr(0, 50));
    REQUIRE_ERROR_CONTAINS(EmbFile::open(bad), "past the end");
  }
  SECTION("a flipped vector byte passes open but fails verify") {
    std::string copy = good;
    std::uint64_t header_size;
    std::memcpy(&header_size, copy.data(), 8);
    copy[8 + header_size + 5] ^= 0x40;  // vectors come first in the buffer
    test::write_file(bad, copy);
    const EmbFile file = EmbFile::open(bad);
    REQUIRE_ERROR_CONTAINS(file.verify(), "checksum mismatch");
  }
  SECTION("a foreign safetensors file") {
    std::string json = R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    std::string file(8, '\0');
    const std::uint64_t n = json.size();
    std::memcpy(file.data(), &n, 8);
    test::write_file(bad, file + json + "abcd");
    REQUIRE_ERROR_CONTAINS(EmbFile::open(bad), "not embed vectors");
  }
  SECTION("a newer format version") {
    std::string copy = good;
    const auto at = copy.find("\"format_version\":\"1\"");
    REQUIRE(at != std::string::npos);
    copy[at + std::strlen("\"format_version\":\"")] = '9';
    test::write_file(bad, copy);
    REQUIRE_ERROR_CONTAINS(EmbFile::open(bad), "newer");
  }
  SECTION("metadata that disagrees with the shape") {
    std::string copy = good;
    const auto at = copy.find("\"rows\":\"20\"");
    REQUIRE(at != std::string::npos);
    copy[at + std::strlen("\"rows\":\"")] = '3';
    test::write_file(bad, copy);
    REQUIRE_ERROR_CONTAINS(EmbFile::open(bad), "disagree");
  }
  SECTION("not a safetensors file at all") {
    test::write_file(bad, "the 0.1 0.2\n");
    REQUIRE_THROWS_AS(EmbFile::open(bad), Error);
  }
  SECTION("missing file") { REQUIRE_ERROR_CONTAINS(EmbFile::open(dir.file("none.emb")), "cannot open"); }
}

TEST_CASE("an index that points at the wrong rows fails verify", "[emb]") {
  TempDir dir;
  const std::string path = dir.file("i.emb");
  write(sample_table(5, 2), path);
  std::string bytes = test::read_file(path);
  const EmbFile file = EmbFile::open(path);
  const auto* index = file.tensors().data();
  for (const auto& t : file.tensors()) {
    if (t.name == "vocab.index") index = &t;
  }
  const std::uint64_t data_start = bytes.size() - file.tensors().back().end;
  // Point every filled slot at row 0: the other words can no longer be found.
  for (std::uint64_t s = index->begin; s < index->end; s += 4) {
    std::uint32_t row;
    std::memcpy(&row, bytes.data() + data_start + s, 4);
    if (row != 0xFFFFFFFFu) row = 0;
    std::memcpy(bytes.data() + data_start + s, &row, 4);
  }
  const std::string bad = dir.file("bad.emb");
  test::write_file(bad, bytes);
  const EmbFile broken = EmbFile::open(bad);
  CHECK(broken.find("word0") == std::optional<std::uint64_t>(0));
  CHECK_FALSE(broken.find("word1").has_value());
  REQUIRE_ERROR_CONTAINS(broken.verify(), "vocab.index");  // the checksum catches it first
}
