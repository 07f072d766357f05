#include "format/dtype.h"

namespace embed {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32: return "F32";
    case DType::f16: return "F16";
    case DType::bf16: return "BF16";
    case DType::i64: return "I64";
    case DType::u32: return "U32";
    case DType::u8: return "U8";
  }
  return "?";
}

std::optional<DType> parse_dtype_name(std::string_view name) {
  for (DType d : {DType::f32, DType::f16, DType::bf16, DType::i64, DType::u32, DType::u8}) {
    if (dtype_name(d) == name) return d;
  }
  return std::nullopt;
}

std::optional<DType> parse_vector_dtype(std::string_view name) {
  if (name == "f32") return DType::f32;
  if (name == "f16") return DType::f16;
  if (name == "bf16") return DType::bf16;
  return std::nullopt;
}

std::string_view vector_dtype_name(DType dtype) {
  return dtype == DType::f32 ? "f32" : dtype == DType::f16 ? "f16" : "bf16";
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::i64: return 8;
    case DType::u32: return 4;
    case DType::u8: return 1;
  }
  return 0;
}

}  // namespace embed
