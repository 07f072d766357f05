#include "core/checksum.h"

#include <libdeflate.h>

namespace embed {

std::uint32_t crc32(std::span<const std::byte> bytes, std::uint32_t crc) {
  // libdeflate's CRC uses carry-less multiplication: several GB/s, far ahead of a table loop.
  // Given a null buffer it returns the initial CRC (0), not `crc`: an empty tensor
  // (whose data() may be null) must leave the running value alone.
  if (bytes.empty()) return crc;
  return libdeflate_crc32(crc, bytes.data(), bytes.size());
}

}  // namespace embed
