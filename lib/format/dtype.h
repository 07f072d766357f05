// Element types of safetensors tensors that embed reads or writes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

enum class DType { f32, f16, bf16, i64, u32, u8, i8 };

// The safetensors spelling: "F32", "F16", "BF16", "I64", "U32", "U8", "I8".
std::string_view dtype_name(DType dtype);
// Parses the safetensors spelling; nullopt for any other (including valid safetensors dtypes we do not use).
std::optional<DType> parse_dtype_name(std::string_view name);
// Parses the command-line spelling "f32" | "f16" | "bf16"; nullopt otherwise.
std::optional<DType> parse_vector_dtype(std::string_view name);
// The command-line (and __metadata__ "dtype") spelling of a vector dtype: "f32", "f16" or "bf16".
std::string_view vector_dtype_name(DType dtype);
std::vector<std::string> vector_dtype_names();  // --dtype's choices
std::size_t dtype_size(DType dtype);
inline bool is_vector_dtype(DType dtype) { return dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16; }

}  // namespace embed
