#include "core/checksum.h"

#include <libdeflate.h>

namespace embed {

std::uint32_t crc32(std::span<const std::byte> bytes, std::uint32_t crc) {
  // libdeflate's CRC uses carry-less multiplication: several GB/s, far ahead of a table loop.
  return libdeflate_crc32(crc, bytes.data(), bytes.size());
}

}  // namespace embed
