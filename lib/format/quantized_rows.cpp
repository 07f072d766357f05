#include "format/quantized_rows.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/parallel.h"
#include "quant/int8_rows.h"

namespace embed {
namespace {

// Rows compressed per parallel task, and per progress report.
constexpr std::size_t kTaskRows = 4096;
constexpr std::size_t kReportRows = 16 * kTaskRows;

template <typename T>
std::span<const std::byte> vector_bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}

// The first row holding an infinity or a NaN, or `rows` when none does.
std::size_t first_non_finite_row(std::span<const float> values, std::size_t dim) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) return i / dim;
  }
  return values.size() / dim;
}

// `norm` / |decoding|: the scale that gives a decoding the row's exact norm (0 for a zero row).
float exact_norm_scale(float norm, double decoding_squared_norm) {
  return decoding_squared_norm > 0 ? static_cast<float>(norm / std::sqrt(decoding_squared_norm)) : 0.0f;
}

// Copies rows [first, first + count) scaled to unit length (zero rows stay zero) into out.
void unit_rows(std::span<const float> values, std::size_t dim, std::span<const float> norms, std::size_t first,
               std::size_t count, float* out) {
  for (std::size_t r = 0; r < count; ++r) {
    const float norm = norms[first + r];
    const float inverse = norm > 0 ? 1.0f / norm : 0.0f;
    for (std::size_t j = 0; j < dim; ++j) out[r * dim + j] = values[(first + r) * dim + j] * inverse;
  }
}

}  // namespace

QuantizedRows QuantizedRows::encode(std::span<const float> values, std::size_t dim, const QuantizeSpec& spec) {
  EMBED_ASSERT(spec.storage != RowStorage::dense && dim > 0 && values.size() % dim == 0);
  QuantizedRows q;
  q.storage_ = spec.storage;
  q.spec_ = spec;
  q.rows_ = values.size() / dim;
  q.dim_ = dim;
  const unsigned threads = std::max(spec.threads, 1u);
  if (const std::size_t bad = first_non_finite_row(values, dim); bad < q.rows_) {
    fail("row {} holds a value that is not finite, which {} storage cannot hold", bad + 1, row_storage_name(spec.storage));
  }
  q.norms_ = row_norms(values, dim, threads);
  q.scales_.resize(q.rows_);
  auto report = [&](const char* stage, std::uint64_t done, std::uint64_t total) {
    if (spec.on_progress) spec.on_progress(stage, done, total);
  };
  // Rows in reports' worth at a time, each split over the threads.
  auto for_rows = [&](const char* stage, auto&& task) {
    for (std::size_t first = 0; first < q.rows_; first += kReportRows) {
      const std::size_t end = std::min(q.rows_, first + kReportRows);
      parallel_for((end - first + kTaskRows - 1) / kTaskRows, threads, [&](std::size_t t) {
        const std::size_t begin = first + t * kTaskRows;
        task(begin, std::min(end, begin + kTaskRows) - begin);
      });
      report(stage, end, q.rows_);
    }
  };

  if (spec.storage == RowStorage::int8) {
    q.int8_values_.resize(values.size());
    for_rows("compressing rows to int8", [&](std::size_t first, std::size_t count) {
      std::int8_t* v = q.int8_values_.data() + first * dim;
      quantize_int8_rows(values.data() + first * dim, count, dim, v, q.scales_.data() + first);
      for (std::size_t r = 0; r < count; ++r) {
        std::int64_t squared = 0;
        for (std::size_t j = 0; j < dim; ++j) squared += std::int64_t{v[r * dim + j]} * v[r * dim + j];
        q.scales_[first + r] = exact_norm_scale(q.norms_[first + r], static_cast<double>(squared));
      }
    });
    return q;
  }

  // pq: k-means on a seeded sample of the unit rows, then every unit row encoded.
  PqTraining training = spec.pq;
  training.threads = threads;
  if (training.m == 0 || dim % training.m != 0) {
    fail("--pq {}: the number of sub-quantizers must divide the {} dimensions", training.m, dim);
  }
  const std::vector<std::size_t> sample = pq_sample_rows(q.rows_, training.sample_rows, training.seed);
  std::vector<float> sample_values(sample.size() * dim);
  for (std::size_t i = 0; i < sample.size(); ++i) unit_rows(values, dim, q.norms_, sample[i], 1, sample_values.data() + i * dim);
  training.sample_rows = sample.size();
  q.spec_.pq.sample_rows = sample.size();
  if (spec.opq) {
    // Progress in rounds: the first PQ, then each rotation update.
    const unsigned rounds = spec.opq_training.rounds + 1;
    training.on_progress = [&](std::size_t done) { report("training the rotation and product quantizer", done, rounds); };
    OpqModel model = train_opq(sample_values.data(), sample.size(), dim, training, spec.opq_training);
    q.codebooks_ = std::move(model.codebooks);
    q.rotation_ = std::move(model.rotation);
  } else {
    training.on_progress = [&](std::size_t spaces) { report("training the product quantizer", spaces, training.m); };
    q.codebooks_ = train_pq(sample_values.data(), sample.size(), dim, training);
  }
  sample_values = {};

  // |centroid|^2 for every sub-space and code: a decoding's squared norm is the sum of its m.
  const std::size_t m = training.m;
  std::vector<double> centroid_squares(m * kPqCentroids);
  for (std::size_t s = 0; s < m; ++s) {
    for (std::size_t k = 0; k < kPqCentroids; ++k) {
      const float* c = q.codebooks_.centroid(s, k);
      double squared = 0;
      for (std::size_t j = 0; j < q.codebooks_.sub(); ++j) squared += double{c[j]} * double{c[j]};
      centroid_squares[s * kPqCentroids + k] = squared;
    }
  }
  q.codes_.resize(q.rows_ * m);
  for_rows("encoding rows", [&](std::size_t first, std::size_t count) {
    std::vector<float> unit(count * dim);
    unit_rows(values, dim, q.norms_, first, count, unit.data());
    if (!q.rotation_.empty()) {
      std::vector<float> rotated(count * dim);
      rotate_rows(unit.data(), count, dim, q.rotation_.data(), rotated.data(), 1);
      unit.swap(rotated);
    }
    std::uint8_t* codes = q.codes_.data() + first * m;
    pq_encode(q.codebooks_, unit.data(), count, codes, 1);
    for (std::size_t r = 0; r < count; ++r) {
      double squared = 0;
      for (std::size_t s = 0; s < m; ++s) squared += centroid_squares[s * kPqCentroids + codes[r * m + s]];
      q.scales_[first + r] = exact_norm_scale(q.norms_[first + r], squared);
    }
  });
  return q;
}

void QuantizedRows::add_to_emb(EmbWriteOptions& options) const {
  EncodedRows encoded;
  encoded.storage = storage_;
  encoded.norms = norms_;
  auto& metadata = options.extra_metadata;
  if (storage_ == RowStorage::int8) {
    encoded.rows = {"int8.values", DType::i8, {rows_, dim_}, vector_bytes_of(int8_values_)};
    options.extra_tensors.push_back({"int8.scale", DType::f32, {rows_}, vector_bytes_of(scales_)});
  } else {
    const std::size_t m = codebooks_.m;
    encoded.rows = {"pq.codes", DType::u8, {rows_, m}, vector_bytes_of(codes_)};
    options.extra_tensors.push_back({"pq.scale", DType::f32, {rows_}, vector_bytes_of(scales_)});
    options.extra_tensors.push_back({"pq.codebooks", DType::f32, {m, kPqCentroids, codebooks_.sub()}, vector_bytes_of(codebooks_.centroids)});
    metadata["pq.m"] = std::to_string(m);
    metadata["pq.nbits"] = "8";
    metadata["pq.sample_rows"] = std::to_string(spec_.pq.sample_rows);
    metadata["pq.iterations"] = std::to_string(spec_.pq.iterations);
    metadata["quant.seed"] = std::to_string(spec_.pq.seed);
    if (!rotation_.empty()) {
      options.extra_tensors.push_back({"pq.rotation", DType::f32, {dim_, dim_}, vector_bytes_of(rotation_)});
      metadata["pq.opq_rounds"] = std::to_string(spec_.opq_training.rounds);
      metadata["pq.opq_iterations"] = std::to_string(spec_.opq_training.pq_iterations);
    }
  }
  options.encoded = std::move(encoded);
}

}  // namespace embed
