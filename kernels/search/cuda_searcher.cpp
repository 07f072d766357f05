// The CUDA searcher. The stored rows go to the device in their storage type, once
// (resident) or, when the plan streams them, chunk by chunk for every device batch: CPU
// threads copy a chunk from the mapping into one of two pinned buffers while the GPU
// searches the previous chunk, and a second stream copies it to one of two device buffers
// once the search that used that buffer has finished. Each device batch uploads its query
// matrix (f32 rows, or their 16-bit parts for f16/bf16 files: query_split.h) and its query
// descriptors, then for every chunk, pass and block of rows runs one GEMM (cublasSgemm, or
// cublasGemmEx with 16-bit inputs and f32 accumulation) and the selection kernel, which
// keeps each query's top k on the device; the host sorts the k at the end. Compressed rows
// (int8, pq) are held and streamed compressed, with their scales (and codebooks) resident,
// and each block is decoded into an f32 block (decode_kernels.h) just before its GEMM.
#include "kernels/search/cuda_searcher.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "kernels/search/cublas_loader.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/device_info.h"
#include "search/query_matrix.h"
#include "search/query_split.h"
#include "kernels/search/decode_kernels.h"
#include "kernels/search/radix_select.h"
#include "kernels/search/search_kernels.h"
#include "quant/opq.h"

namespace embed::cuda {
namespace {

static_assert(kSelectMaxTerms == kGpuMaxTerms, "the kernel keeps every word of a GPU query in shared memory");

// Pieces of the one-time upload of resident rows, through two pinned buffers.
constexpr std::size_t kUploadPieceBytes = 64u << 20;

struct DestroyCublas {
  void operator()(cublasHandle_t handle) const { cublas().destroy(handle); }
};

cudaDataType_t gemm_type(DType dtype) {
  switch (dtype) {
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

// A pass: queries [first_query, end_query) of the device batch, their rows from first_row.
struct Pass {
  std::size_t first_query, end_query, first_row, gemm_rows;
};

class CudaSearcher final : public Index {
 public:
  explicit CudaSearcher(const GpuSearchRequest& request)
      : space_(*request.space),
        shape_(request.shape),
        plan_(request.plan),
        device_(request.device),
        split_(query_split(shape_.dtype)),
        row_bytes_(shape_.row_bytes()),
        query_element_(shape_.dtype == DType::f32 ? sizeof(float) : sizeof(std::uint16_t)),
        threads_(std::max(1u, request.threads)),
        current_(device_.ordinal) {
    EMBED_ASSERT(shape_.rows <= space_.rows() && shape_.rows <= 0xFFFFFFFFull && shape_.k <= kGpuMaxK);
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "reading the GPU's free memory");
    if (plan_.total_bytes > free) {
      fail("the GPU search needs {} of GPU memory but {} are free; give a smaller --gpu-memory (the rows are then "
           "streamed) or use --device cpu",
           human_bytes(static_cast<double>(plan_.total_bytes)), human_bytes(static_cast<double>(free)));
    }
    const CublasApi& api = cublas();
    cublasHandle_t handle = nullptr;
    check_cublas(api.create(&handle), "creating a handle");
    cublas_.reset(handle);
    // The stream first: setting a stream resets the workspace to cuBLAS's own pool,
    // which would be allocated outside the memory plan.
    check_cublas(api.set_stream(handle, stream_.get()), "setting its stream");
    workspace_ = DeviceBuffer(kCublasWorkspaceBytes, "cuBLAS's workspace");
    check_cublas(api.set_workspace(handle, workspace_.get(), kCublasWorkspaceBytes), "setting its workspace");
    // No TF32: products must keep f32's precision to match the CPU within 1e-5.
    check_cublas(api.set_math_mode(handle, CUBLAS_DEFAULT_MATH), "setting its math mode");

    const std::size_t max_shared = select_shared_bytes(plan_.max_block_rows, shape_.k);
    check(allow_select_shared_bytes(max_shared), "allowing the selection its shared memory");

    products_ = DeviceBuffer(plan_.products_bytes, "the score block");
    const std::size_t batch = plan_.batch_terms;
    query_rows_ = DeviceBuffer(batch * split_.parts * shape_.dim * query_element_, "the query matrix");
    descs_ = DeviceBuffer(batch * sizeof(SearchQueryDesc), "the query descriptors");
    terms_ = DeviceBuffer(batch * sizeof(SearchTerm), "the query words");
    best_keys_ = DeviceBuffer(batch * shape_.k * sizeof(std::uint64_t), "the top-k lists");
    best_counts_ = DeviceBuffer(batch * sizeof(std::uint32_t), "the top-k counts");

    // Inverse norms as the CPU computes them, so that scores are its scores.
    std::vector<float> inverse(shape_.rows);
    const std::span<const float> norms = space_.norms();
    for (std::uint64_t r = 0; r < shape_.rows; ++r) inverse[r] = norms[r] > 0 ? 1.0f / norms[r] : 0.0f;
    inverse_norms_ = DeviceBuffer(shape_.rows * sizeof(float), "the rows' inverse norms");
    check(cudaMemcpy(inverse_norms_.get(), inverse.data(), inverse.size() * sizeof(float), cudaMemcpyHostToDevice),
          "copying the inverse norms");

    if (shape_.storage != RowStorage::dense) upload_decoding();
    if (plan_.resident) {
      chunks_[0] = DeviceBuffer(shape_.rows * row_bytes_, "the rows");
      upload_resident();
    } else {
      const std::size_t chunk_bytes = plan_.chunk_rows * row_bytes_;
      for (int b = 0; b < 2; ++b) {
        chunks_[b] = DeviceBuffer(chunk_bytes, "a chunk of streamed rows");
        staging_[b] = PinnedBuffer(chunk_bytes, "a chunk of streamed rows");
      }
    }
    // The inverse norms went by cudaMemcpy from pageable memory, which may return before
    // the copy has landed; the searches run on a non-blocking stream that would not wait.
    check(cudaDeviceSynchronize(), "copying the rows' norms to the GPU");
  }

  std::vector<std::vector<Hit>> search(std::span<const SearchQuery> queries, const SearchOptions& options) override {
    std::vector<std::vector<Hit>> results(queries.size());
    const std::uint64_t rows = options.restrict_rows ? std::min(options.restrict_rows, space_.rows()) : space_.rows();
    EMBED_ASSERT(rows <= shape_.rows && options.k <= shape_.k);
    if (queries.empty() || rows == 0 || options.k == 0) return results;
    threads_ = std::max(1u, options.threads);
    // Device batches: whole queries whose words fit in the plan's batch.
    for (std::size_t first = 0; first < queries.size();) {
      std::size_t end = first, terms = 0;
      while (end < queries.size()) {
        const std::size_t cost = std::max<std::size_t>(1, queries[end].terms.size());
        EMBED_ASSERT(queries[end].terms.size() <= kGpuMaxTerms);
        if (end > first && terms + cost > plan_.batch_terms) break;
        terms += cost;
        ++end;
      }
      search_batch(queries.subspan(first, end - first), rows, options.k, results.data() + first);
      first = end;
      if (options.on_progress) options.on_progress(first);
    }
    return results;
  }

 private:
  // Copies stored rows [first, first + count) into pinned `staging`, with CPU threads.
  void stage(std::uint64_t first, std::uint64_t count, std::byte* staging) const {
    const std::byte* source = space_.stored_rows(first);
    const std::size_t bytes = count * row_bytes_;
    constexpr std::size_t kPiece = 4u << 20;
    const std::size_t pieces = (bytes + kPiece - 1) / kPiece;
    parallel_for(pieces, threads_, [&](std::size_t p) {
      const std::size_t at = p * kPiece;
      std::memcpy(staging + at, source + at, std::min(kPiece, bytes - at));
    });
  }

  // pq rows with OPQ are decoded on the device without their rotation (centroids side by
  // side, times the scale): the queries turn instead, q·(x̂·Rᵀ) = (q·R)·x̂.
  void rotate_for_opq(QueryMatrix& matrix) const {
    const EmbFile* file = space_.emb();
    if (shape_.storage != RowStorage::pq || file->pq_rotation().empty() || matrix.rows == 0) return;
    std::vector<float> rotated(matrix.values.size());
    rotate_rows(matrix.values.data(), matrix.rows, shape_.dim, file->pq_rotation().data(), rotated.data(), threads_);
    matrix.values.swap(rotated);
  }

  // Compressed rows: their scales and codebooks, and the block they are decoded into.
  void upload_decoding() {
    const EmbFile& file = *space_.emb();
    const std::span<const float> scales = file.row_scales().first(shape_.rows);
    scales_ = DeviceBuffer(scales.size() * sizeof(float), "the rows' scales");
    check(cudaMemcpy(scales_.get(), scales.data(), scales.size_bytes(), cudaMemcpyHostToDevice), "copying the rows' scales");
    if (const PqCodebooks* books = file.pq_codebooks()) {
      codebooks_ = DeviceBuffer(books->centroids.size() * sizeof(float), "the pq codebooks");
      check(cudaMemcpy(codebooks_.get(), books->centroids.data(), books->centroids.size() * sizeof(float),
                       cudaMemcpyHostToDevice),
            "copying the pq codebooks");
    }
    decoded_ = DeviceBuffer(plan_.max_block_rows * shape_.dim * sizeof(float), "a decoded block of rows");
  }

  void upload_resident() {
    const std::uint64_t piece_rows = std::max<std::uint64_t>(1, kUploadPieceBytes / row_bytes_);
    const std::size_t piece_bytes = std::min<std::uint64_t>(piece_rows, shape_.rows) * row_bytes_;
    PinnedBuffer staging[2] = {PinnedBuffer(piece_bytes, "copying the rows"), PinnedBuffer(piece_bytes, "copying the rows")};
    auto* device = chunks_[0].get<std::byte>();
    for (std::uint64_t first = 0, piece = 0; first < shape_.rows; first += piece_rows, ++piece) {
      const std::uint64_t count = std::min(piece_rows, shape_.rows - first);
      const int b = static_cast<int>(piece % 2);
      check(cudaEventSynchronize(copied_[b].get()), "copying the rows");  // the buffer's last copy is done
      stage(first, count, staging[b].get<std::byte>());
      check(cudaMemcpyAsync(device + first * row_bytes_, staging[b].get(), count * row_bytes_, cudaMemcpyHostToDevice,
                            copy_stream_.get()),
            "copying the rows");
      check(cudaEventRecord(copied_[b].get(), copy_stream_.get()), "copying the rows");
    }
    check(cudaStreamSynchronize(copy_stream_.get()), "copying the rows");
  }

  // Streamed: queues chunk c into buffer c % 2, once the search that last used it is done.
  void prefetch(std::uint64_t c, std::uint64_t rows) {
    const int b = static_cast<int>(c % 2);
    const std::uint64_t first = c * plan_.chunk_rows, count = std::min(plan_.chunk_rows, rows - first);
    check(cudaEventSynchronize(copied_[b].get()), "streaming the rows");  // staging b is free
    stage(first, count, staging_[b].get<std::byte>());
    check(cudaStreamWaitEvent(copy_stream_.get(), searched_[b].get(), 0), "streaming the rows");
    check(cudaMemcpyAsync(chunks_[b].get(), staging_[b].get(), count * row_bytes_, cudaMemcpyHostToDevice,
                          copy_stream_.get()),
          "streaming the rows");
    check(cudaEventRecord(copied_[b].get(), copy_stream_.get()), "streaming the rows");
  }

  void search_batch(std::span<const SearchQuery> queries, std::uint64_t rows, std::size_t k, std::vector<Hit>* results) {
    QueryMatrix matrix = build_query_matrix(space_, queries);
    rotate_for_opq(matrix);
    upload_queries(queries, matrix);
    check(cudaMemsetAsync(best_counts_.get(), 0, queries.size() * sizeof(std::uint32_t), stream_.get()),
          "clearing the top-k lists");
    std::vector<Pass> passes;
    for (std::size_t first = 0; first < queries.size();) {
      const std::size_t end = pass_end(matrix, first, plan_.pass_rows / split_.parts);
      const std::size_t first_row = matrix.first_row[first];
      const std::size_t end_row = end < queries.size() ? matrix.first_row[end] : matrix.rows;
      passes.push_back({first, end, first_row, (end_row - first_row) * split_.parts});
      first = end;
    }

    if (plan_.resident) {
      search_chunk(passes, 0, rows, chunks_[0].get(), k);
    } else {
      const std::uint64_t chunks = (rows + plan_.chunk_rows - 1) / plan_.chunk_rows;
      prefetch(0, rows);
      for (std::uint64_t c = 0; c < chunks; ++c) {
        const int b = static_cast<int>(c % 2);
        check(cudaStreamWaitEvent(stream_.get(), copied_[b].get(), 0), "streaming the rows");
        const std::uint64_t first = c * plan_.chunk_rows;
        search_chunk(passes, first, std::min(plan_.chunk_rows, rows - first), chunks_[b].get(), k);
        check(cudaEventRecord(searched_[b].get(), stream_.get()), "streaming the rows");
        if (c + 1 < chunks) prefetch(c + 1, rows);
      }
    }
    download(queries.size(), k, results);
  }

  void upload_queries(std::span<const SearchQuery> queries, const QueryMatrix& matrix) {
    std::vector<SearchQueryDesc> descs;
    std::vector<SearchTerm> terms;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const SearchQuery& query = queries[q];
      descs.push_back({static_cast<std::uint32_t>(matrix.first_row[q]), static_cast<std::uint32_t>(matrix.rows_of(q)),
                       static_cast<std::uint32_t>(terms.size()), static_cast<std::uint32_t>(query.terms.size()),
                       query.combination == Combination::mul ? 1u : 0u});
      for (const Term& t : query.terms) terms.push_back({static_cast<std::uint32_t>(t.row), t.weight});
    }
    EMBED_ASSERT(terms.size() <= plan_.batch_terms && matrix.rows <= plan_.batch_terms);
    const void* rows = matrix.values.data();
    std::vector<std::uint16_t> parts;
    if (split_.parts > 1) {
      parts.resize(matrix.rows * split_.parts * shape_.dim);
      split_query_rows(matrix.values.data(), matrix.rows, shape_.dim, shape_.dtype, parts.data());
      rows = parts.data();
    }
    // Queued on the search's stream, which the GEMMs and selections follow, and waited
    // for: the host vectors go out of scope next, and a cudaMemcpy from pageable memory
    // may return before its copy has landed, which a non-blocking stream would not wait for.
    cudaStream_t stream = stream_.get();
    check(cudaMemcpyAsync(query_rows_.get(), rows, matrix.rows * split_.parts * shape_.dim * query_element_,
                          cudaMemcpyHostToDevice, stream),
          "copying the queries");
    check(cudaMemcpyAsync(descs_.get(), descs.data(), descs.size() * sizeof(SearchQueryDesc), cudaMemcpyHostToDevice,
                          stream),
          "copying the queries");
    if (!terms.empty()) {
      check(cudaMemcpyAsync(terms_.get(), terms.data(), terms.size() * sizeof(SearchTerm), cudaMemcpyHostToDevice,
                            stream),
            "copying the queries");
    }
    check(cudaStreamSynchronize(stream), "copying the queries");
  }

  // Every pass against rows [first, first + count), held at `rows` on the device.
  void search_chunk(const std::vector<Pass>& passes, std::uint64_t first, std::uint64_t count, const void* rows,
                    std::size_t k) {
    const float one = 1.0f, zero = 0.0f;
    const int dim = static_cast<int>(shape_.dim);
    for (const Pass& pass : passes) {
      const std::size_t block_rows = plan_.block_rows(pass.gemm_rows);
      EMBED_ASSERT(block_rows * pass.gemm_rows * sizeof(float) <= plan_.products_bytes);
      const std::size_t shared = select_shared_bytes(block_rows, k);
      const auto* a = query_rows_.get<std::byte>() + pass.first_row * split_.parts * shape_.dim * query_element_;
      for (std::uint64_t at = 0; at < count; at += block_rows) {
        const auto n = static_cast<int>(std::min<std::uint64_t>(block_rows, count - at));
        const auto* b = static_cast<const std::byte*>(rows) + at * row_bytes_;
        if (shape_.storage != RowStorage::dense) {
          EMBED_ASSERT(static_cast<std::size_t>(n) <= plan_.max_block_rows);
          DecodeRowsArgs decode{b,
                                scales_.get<float>() + first + at,
                                shape_.storage == RowStorage::pq ? codebooks_.get<float>() : nullptr,
                                static_cast<std::uint32_t>(n),
                                static_cast<std::uint32_t>(shape_.dim),
                                static_cast<std::uint32_t>(shape_.storage == RowStorage::pq ? shape_.pq_m : 0),
                                decoded_.get<float>()};
          check(launch_decode_rows(decode, stream_.get()), "decoding the rows");
          b = decoded_.get<std::byte>();
        }
        // Row-major C (gemm_rows × n) = A Bᵀ is column-major Cᵀ = B Aᵀ: B transposed, A as it is.
        if (shape_.dtype == DType::f32) {
          check_cublas(cublas().sgemm(cublas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(pass.gemm_rows), dim,
                                   &one, reinterpret_cast<const float*>(b), dim, reinterpret_cast<const float*>(a), dim,
                                   &zero, products_.get<float>(), n),
                       "multiplying the queries");
        } else {
          const cudaDataType_t type = gemm_type(shape_.dtype);
          check_cublas(cublas().gemm_ex(cublas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, n, static_cast<int>(pass.gemm_rows), dim,
                                    &one, b, type, dim, a, type, dim, &zero, products_.get(), CUDA_R_32F, n,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                       "multiplying the queries");
        }
        ScoreSelectArgs args{};
        args.queries = descs_.get<SearchQueryDesc>() + pass.first_query;
        args.terms = terms_.get<SearchTerm>();
        args.pass_first_row = static_cast<std::uint32_t>(pass.first_row);
        args.products = products_.get<float>();
        args.parts = static_cast<std::uint32_t>(split_.parts);
        args.inverse_scale = 1.0f / split_.scale;
        args.inverse_norms = inverse_norms_.get<float>() + first + at;
        args.block_first_row = first + at;
        args.block_rows = static_cast<std::uint32_t>(n);
        args.best_keys = best_keys_.get<std::uint64_t>() + pass.first_query * k;
        args.best_counts = best_counts_.get<std::uint32_t>() + pass.first_query;
        args.k = static_cast<std::uint32_t>(k);
        check(launch_score_select(args, static_cast<std::uint32_t>(pass.end_query - pass.first_query), shared,
                                  stream_.get()),
              "launching the selection");
      }
    }
  }

  void download(std::size_t queries, std::size_t k, std::vector<Hit>* results) {
    std::vector<std::uint64_t> keys(queries * k);
    std::vector<std::uint32_t> counts(queries);
    check(cudaMemcpyAsync(keys.data(), best_keys_.get(), keys.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                          stream_.get()),
          "copying the answers");
    check(cudaMemcpyAsync(counts.data(), best_counts_.get(), counts.size() * sizeof(std::uint32_t),
                          cudaMemcpyDeviceToHost, stream_.get()),
          "copying the answers");
    check(cudaStreamSynchronize(stream_.get()), "searching on the GPU");
    for (std::size_t q = 0; q < queries; ++q) {
      EMBED_ASSERT(counts[q] <= k);
      std::vector<Hit>& hits = results[q];
      hits.reserve(counts[q]);
      for (std::uint32_t i = 0; i < counts[q]; ++i) {
        const std::uint64_t key = keys[q * k + i];
        hits.push_back({radix::key_row(key), radix::key_score(key)});
      }
      std::sort(hits.begin(), hits.end(), better);
    }
  }

  const VectorSpace& space_;
  GpuSearchShape shape_;
  GpuSearchPlan plan_;
  GpuDevice device_;
  QuerySplit split_;
  std::size_t row_bytes_;
  std::size_t query_element_;
  unsigned threads_ = 1;

  CurrentDevice current_;  // before the streams, events and handle, which belong to it
  Stream stream_;          // GEMMs and selections
  Stream copy_stream_;     // rows to the device
  std::unique_ptr<cublasContext, DestroyCublas> cublas_;
  DeviceBuffer workspace_, products_, query_rows_, descs_, terms_, best_keys_, best_counts_, inverse_norms_;
  DeviceBuffer scales_, codebooks_, decoded_;  // compressed rows only
  DeviceBuffer chunks_[2];   // resident: chunks_[0] holds every row
  PinnedBuffer staging_[2];  // streamed
  Event copied_[2], searched_[2];
};

}  // namespace

std::optional<GpuDevice> find_search_device(int ordinal, std::string& why_not) {
  std::optional<GpuDevice> device = open_device(ordinal, why_not);
  if (!device) return std::nullopt;
  // cuBLAS is part of a usable device: loaded here, so that --device cuda without it
  // fails before any query is read, and auto stays on the CPU.
  try {
    cublas();
  } catch (const Error& e) {
    why_not = e.what();
    return std::nullopt;
  }
  return device;
}

std::unique_ptr<Index> make_cuda_searcher(const GpuSearchRequest& request) {
  return std::make_unique<CudaSearcher>(request);
}

}  // namespace embed::cuda
