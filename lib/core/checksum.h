#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace embed {

// CRC-32 (IEEE, the one zlib.crc32 and binascii.crc32 compute), so Python users
// can check an .emb's checksums with the standard library.
std::uint32_t crc32(std::span<const std::byte> bytes);

}  // namespace embed
