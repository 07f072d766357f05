// What the libFuzzer harnesses share: the input as a file (our readers take paths and
// map or stream them), and checksums recomputed so that the fuzzer gets past them to
// the parsers behind (a flipped byte would otherwise always stop at "checksum mismatch").
//
// A harness lets embed::Error through quietly: a clear refusal is the right answer to
// a hostile file. Anything else (a crash, a sanitizer report, another exception such
// as std::bad_alloc or std::length_error, a hang) is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/checksum.h"

namespace embed::fuzz {

// Writes `bytes` to this process's scratch file named with `suffix` (so that format
// detection by name sees it) and returns the path.
inline std::string scratch_file(const std::string& bytes, const std::string& suffix) {
  const std::string path = fmt::format("/tmp/embed-fuzz-{}{}", ::getpid(), suffix);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  std::fclose(f);
  return path;
}

// A safetensors file (8-byte header length, JSON header, data) with the checksums our
// writers put in __metadata__ recomputed: "crc32" over all the data (checkpoints, counts
// files) and "checksum.NAME" = "crc32:XXXXXXXX" over each tensor's bytes (.emb). Input
// that is not such a file is returned as it is.
inline std::string with_checksums(const std::string& bytes) {
  if (bytes.size() < 8) return bytes;
  std::uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  if (header_size > bytes.size() - 8) return bytes;
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_size), nullptr, false);
  if (header.is_discarded() || !header.is_object()) return bytes;
  const std::string data = bytes.substr(8 + header_size);
  auto crc_of = [](std::string_view part) { return crc32(std::as_bytes(std::span(part.data(), part.size()))); };
  auto metadata = header.find("__metadata__");
  if (metadata == header.end() || !metadata->is_object()) return bytes;
  if (metadata->contains("crc32")) (*metadata)["crc32"] = fmt::format("{:08x}", crc_of(data));
  for (auto& [name, info] : header.items()) {
    if (name == "__metadata__" || !info.is_object() || !metadata->contains("checksum." + name)) continue;
    const auto offsets = info.find("data_offsets");
    if (offsets == info.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
        !(*offsets)[1].is_number_unsigned()) {
      continue;
    }
    const auto begin = (*offsets)[0].get<std::uint64_t>(), end = (*offsets)[1].get<std::uint64_t>();
    if (begin > end || end > data.size()) continue;
    (*metadata)["checksum." + name] = fmt::format("crc32:{:08x}", crc_of(std::string_view(data).substr(begin, end - begin)));
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data stays 8-byte aligned
  std::string out(8, '\0');
  const std::uint64_t size = text.size();
  std::memcpy(out.data(), &size, 8);
  return out + text + data;
}

}  // namespace embed::fuzz
