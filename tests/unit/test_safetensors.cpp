#include <cstring>

#include <catch2/catch.hpp>

#include "core/checksum.h"
#include "format/safetensors.h"
#include "test_util.h"

using namespace embed;
namespace st = embed::safetensors;

namespace {

std::span<const std::byte> as_span(const std::string& s) { return std::as_bytes(std::span<const char>(s.data(), s.size())); }

std::string with_header(const std::string& json, const std::string& data) {
  std::string out(8, '\0');
  const std::uint64_t n = json.size();
  std::memcpy(out.data(), &n, 8);
  return out + json + data;
}

}  // namespace

TEST_CASE("the reference reader's empty file parses", "[safetensors]") {
  // test_empty from huggingface/safetensors: N = 8, "{}" and six spaces.
  const std::string file = with_header("{}      ", "");
  REQUIRE(file.size() == 16);
  const auto header = st::parse(as_span(file), "empty");
  CHECK(header.tensors.empty());
  CHECK(header.data_start == 16);
}

TEST_CASE("a framed header parses back, padding included", "[safetensors]") {
  const std::vector<std::int64_t> a = {1, 2, 3};
  const std::vector<float> b = {1.5f, 2.5f};
  std::vector<st::TensorInfo> tensors = {{"a", DType::i64, {3}, 0, 24}, {"b", DType::f32, {1, 2}, 24, 32}};
  const std::string json = st::header_json(tensors, {{"k", "v"}});
  std::string file = st::frame_header(json, json.size() + 13);
  CHECK(file.size() == 8 + json.size() + 13);
  CHECK(file.back() == ' ');
  file.append(reinterpret_cast<const char*>(a.data()), 24);
  file.append(reinterpret_cast<const char*>(b.data()), 8);
  const auto parsed = st::parse(as_span(file), "x");
  REQUIRE(parsed.tensors.size() == 2);
  CHECK(parsed.tensors[1].name == "b");
  CHECK(parsed.tensors[1].shape == std::vector<std::uint64_t>{1, 2});
  CHECK(parsed.tensors[1].begin == 24);
  CHECK(parsed.data_start == 8 + json.size() + 13);
  CHECK(parsed.metadata.at("k") == "v");
  CHECK(parsed.find("a")->dtype == DType::i64);
}

TEST_CASE("the parser rejects what the reference reader rejects", "[safetensors]") {
  const std::string eight(8, 'x');
  SECTION("too short") { REQUIRE_ERROR_CONTAINS(st::parse(as_span(std::string("abc")), "f"), "too short"); }
  SECTION("header length past the end") {
    std::string file = with_header("{}", "");
    file[0] = 100;
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(file), "f"), "runs past the end");
  }
  SECTION("huge header length") {
    std::string file = with_header("{}", "");
    file[6] = 1;
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(file), "f"), "too large");
  }
  SECTION("not JSON") { REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header("{nope", "")), "f"), "not valid JSON"); }
  SECTION("not an object") { REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header("[1]", "")), "f"), "JSON object"); }
  SECTION("duplicate keys") {
    const std::string json = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(json, "x")), "f"), "repeats the key \"a\"");
  }
  SECTION("unknown dtype") {
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(R"({"a":{"dtype":"Q8","shape":[1],"data_offsets":[0,1]}})", "x")), "f"),
                           "unsupported dtype");
  }
  SECTION("extra key in a tensor") {
    REQUIRE_ERROR_CONTAINS(
        st::parse(as_span(with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":1}})", "x")), "f"),
        "unexpected key");
  }
  SECTION("size disagrees with shape") {
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "abcd")), "f"),
                           "need 8 bytes");
  }
  SECTION("gap between tensors") {
    const std::string json = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}})";
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(json, "abc")), "f"), "gap or overlap");
  }
  SECTION("overlap") {
    const std::string json = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})";
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(json, "abc")), "f"), "gap or overlap");
  }
  SECTION("truncated data") {
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", "ab")), "f"),
                           "truncated");
  }
  SECTION("trailing bytes") {
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", "ab")), "f"),
                           "unexpected bytes");
  }
  SECTION("metadata values must be strings") {
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(R"({"__metadata__":{"n":1}})", "")), "f"), "must be a string");
  }
  SECTION("negative offsets") {
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}})", "")), "f"),
                           "non-negative");
  }
  SECTION("shape overflow") {
    const std::string json = R"({"a":{"dtype":"F32","shape":[281474976710655,281474976710655],"data_offsets":[0,0]}})";
    REQUIRE_ERROR_CONTAINS(st::parse(as_span(with_header(json, "")), "f"), "overflows");
  }
}

TEST_CASE("crc32: pieces add up to the whole, empty (null) pieces included", "[checksum]") {
  const std::string text = "embed checkpoint bytes";
  const auto all = std::as_bytes(std::span(text));
  std::uint32_t crc = crc32(all.first(5));
  crc = crc32(std::span<const std::byte>(), crc);  // what an empty tensor passes: a null pointer
  crc = crc32(all.subspan(5), crc);
  CHECK(crc == crc32(all));
  CHECK(crc32(all) == 0xe4634f83u);
}
