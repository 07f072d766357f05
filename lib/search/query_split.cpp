#include "search/query_split.h"

#include "core/error.h"
#include "core/half.h"

namespace embed {

QuerySplit query_split(DType storage) {
  switch (storage) {
    case DType::f16: return {2, 256.0f};
    case DType::bf16: return {3, 1.0f};
    default: return {1, 1.0f};
  }
}

void split_query_rows(const float* rows, std::size_t count, std::size_t dim, DType storage, std::uint16_t* out) {
  EMBED_ASSERT(storage == DType::f16 || storage == DType::bf16);
  const QuerySplit split = query_split(storage);
  for (std::size_t i = 0; i < count; ++i) {
    const float* a = rows + i * dim;
    std::uint16_t* parts = out + i * split.parts * dim;
    for (std::size_t x = 0; x < dim; ++x) {
      // Each remainder is exact in f32: it is a difference of nearby values (Sterbenz).
      float rest = a[x] * split.scale;
      for (std::size_t p = 0; p < split.parts; ++p) {
        const std::uint16_t part = storage == DType::f16 ? f32_to_f16(rest) : f32_to_bf16(rest);
        parts[p * dim + x] = part;
        rest -= storage == DType::f16 ? f16_to_f32(part) : bf16_to_f32(part);
      }
    }
  }
}

}  // namespace embed
