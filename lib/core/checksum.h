#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace embed {

// CRC-32 (IEEE, the one zlib.crc32 and binascii.crc32 compute), so Python users
// can check an .emb's checksums with the standard library.
// `crc` continues a CRC over earlier bytes (0 to start), so data can be summed as it streams.
std::uint32_t crc32(std::span<const std::byte> bytes, std::uint32_t crc = 0);

}  // namespace embed
