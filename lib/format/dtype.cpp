#include "format/dtype.h"

#include "core/enum_names.h"

namespace embed {
namespace {
// safetensors' spellings.
constexpr EnumName<DType> kDTypeNames[] = {{DType::f32, "F32"}, {DType::f16, "F16"}, {DType::bf16, "BF16"},
                                           {DType::i64, "I64"}, {DType::u32, "U32"}, {DType::u8, "U8"},
                                           {DType::i8, "I8"}};
// The command line's and the metadata's, for the types vectors are stored in.
constexpr EnumName<DType> kVectorDTypeNames[] = {{DType::f32, "f32"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}};
}  // namespace

std::string_view dtype_name(DType dtype) { return name_in(kDTypeNames, dtype); }
std::optional<DType> parse_dtype_name(std::string_view name) { return parse_in(kDTypeNames, name); }

std::optional<DType> parse_vector_dtype(std::string_view name) { return parse_in(kVectorDTypeNames, name); }
std::vector<std::string> vector_dtype_names() { return names_in(kVectorDTypeNames); }
std::string_view vector_dtype_name(DType dtype) { return name_in(kVectorDTypeNames, dtype); }

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::i64: return 8;
    case DType::u32: return 4;
    case DType::u8: return 1;
    case DType::i8: return 1;
  }
  return 0;
}

}  // namespace embed
