// The trainers' fused row loops against the separate loops they replace, bit for bit, and
// the instruction-set level's choice.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "core/cpu_isa.h"
#include "train/engine/row_ops.h"
#include "train/engine/update_rules.h"

namespace embed {
namespace {

std::vector<float> random_floats(std::size_t n, std::mt19937& random) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = value(random);
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("sgd_context_steps takes skip-gram's separate steps bit for bit, a repeated row included", "[row_ops]") {
  std::mt19937 random(7);
  const std::size_t n = 112;
  for (bool step_input : {true, false}) {
    // Five output rows; row 3 is row 1 again (a negative drawn twice).
    const std::vector<std::size_t> rows_of = {0, 1, 2, 1, 4};
    std::vector<float> in = random_floats(n, random), table = random_floats(5 * n, random), g = random_floats(5, random);
    std::vector<float> in_ref = in, table_ref = table, grad(n);

    float* ref_rows[5];
    float* rows[5];
    for (std::size_t o = 0; o < rows_of.size(); ++o) {
      ref_rows[o] = table_ref.data() + rows_of[o] * n;
      rows[o] = table.data() + rows_of[o] * n;
    }
    scale_copy(g[0], ref_rows[0], grad.data(), n);
    for (std::size_t o = 1; o < 5; ++o) axpy(g[o], ref_rows[o], grad.data(), n);
    for (std::size_t o = 0; o < 5; ++o) SgdRule::add(ref_rows[o], g[o], in_ref.data(), n);
    if (step_input) SgdRule::add(in_ref.data(), 1.0f, grad.data(), n);

    sgd_context_steps(in.data(), rows, g.data(), 5, n, step_input);
    CHECK(same_bits(in, in_ref));
    CHECK(same_bits(table, table_ref));
  }
}

TEST_CASE("sgd_output_step takes CBOW's two loops bit for bit", "[row_ops]") {
  std::mt19937 random(8);
  const std::size_t n = 304;
  std::vector<float> out = random_floats(n, random), mean = random_floats(n, random), grad = random_floats(n, random);
  std::vector<float> out_ref = out, grad_ref = grad;
  axpy(0.37f, out_ref.data(), grad_ref.data(), n);
  SgdRule::add(out_ref.data(), 0.37f, mean.data(), n);
  sgd_output_step(out.data(), 0.37f, mean.data(), grad.data(), n);
  CHECK(same_bits(out, out_ref));
  CHECK(same_bits(grad, grad_ref));
}

TEST_CASE("sgd_output_steps takes CBOW's output steps one row after another, bit for bit", "[row_ops]") {
  std::mt19937 random(9);
  const std::size_t n = 112, outputs = 6;
  std::vector<float> table = random_floats(outputs * n, random), mean = random_floats(n, random);
  std::vector<float> grad = random_floats(n, random), g = random_floats(outputs, random);
  std::vector<float> table_ref = table, grad_ref = grad;
  float* rows[outputs];
  for (std::size_t o = 0; o < outputs; ++o) {
    sgd_output_step(table_ref.data() + o * n, g[o], mean.data(), grad_ref.data(), n);
    rows[o] = table.data() + o * n;
  }
  sgd_output_steps(rows, g.data(), outputs, mean.data(), grad.data(), n);
  CHECK(same_bits(table, table_ref));
  CHECK(same_bits(grad, grad_ref));
}

TEST_CASE("dots<R> gives dot's sums bit for bit", "[row_ops]") {
  std::mt19937 random(10);
  const std::size_t n = 304;
  std::vector<float> a = random_floats(n, random), table = random_floats(6 * n, random);
  const float* rows[6];
  for (std::size_t r = 0; r < 6; ++r) rows[r] = table.data() + r * n;
  float six[6], three[3];
  dots<6>(a.data(), rows, n, six);
  dots<3>(a.data(), rows + 3, n, three);
  for (std::size_t r = 0; r < 6; ++r) {
    const float one = dot(a.data(), rows[r], n);
    CHECK(std::memcmp(&one, &six[r], sizeof one) == 0);
    if (r >= 3) CHECK(std::memcmp(&one, &three[r - 3], sizeof one) == 0);
  }
}

TEST_CASE("the instruction-set level is at most what the CPU supports, and named as EMBED_CPU_ISA spells it", "[cpu_isa]") {
  CHECK(cpu_isa() <= cpu_isa_supported());
  CHECK(cpu_isa_name(CpuIsa::avx512) == "avx512");
  CHECK(cpu_isa_name(CpuIsa::avx2) == "avx2");
  CHECK(cpu_isa_name(CpuIsa::baseline) == "baseline");
  CHECK(cpu_isa_summary().rfind(std::string(cpu_isa_name(cpu_isa())), 0) == 0);
}

}  // namespace embed
