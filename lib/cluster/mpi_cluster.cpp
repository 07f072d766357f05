// The Cluster of ranks mpirun started: MPI_COMM_WORLD, initialised on first use and
// finalised when the process exits. Compiled only when CMake found MPI.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster.h"
#include "core/error.h"

namespace embed {
namespace {

// MPI counts are ints: large buffers go in pieces.
constexpr std::size_t kMaxPiece = std::size_t{1} << 28;

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(status, text, &length);
    fail("MPI: {} failed: {}", what, std::string(text, static_cast<std::size_t>(length)));
  }
}

class MpiCluster final : public Cluster {
 public:
  MpiCluster() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    // Errors come back as statuses (check() turns them into embed::Error) instead of
    // aborting inside the library without a word about what was being done.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<unsigned>(rank);
    size_ = static_cast<unsigned>(size);
    // The ranks that share this machine's memory, numbered in rank order.
    MPI_Comm local = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
    int local_rank = 0, local_size = 1;
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
    local_rank_ = static_cast<unsigned>(local_rank);
    local_size_ = static_cast<unsigned>(local_size);
  }
  ~MpiCluster() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

  unsigned rank() const override { return rank_; }
  unsigned size() const override { return size_; }
  unsigned local_rank() const override { return local_rank_; }
  unsigned local_size() const override { return local_size_; }

  void sum(std::span<float> values) override { reduce(values.data(), values.size(), MPI_FLOAT, MPI_SUM, 4); }
  void sum(std::span<std::uint64_t> values) override { reduce(values.data(), values.size(), MPI_UINT64_T, MPI_SUM, 8); }
  void max(std::span<std::uint64_t> values) override { reduce(values.data(), values.size(), MPI_UINT64_T, MPI_MAX, 8); }
  void sum_round(std::span<std::uint64_t> values, bool idle) override {
    EMBED_ASSERT(values.size() <= kMaxPiece);
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Iallreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD,
                         &request),
          "MPI_Iallreduce");
    bytes_sent_ += values.size_bytes();
    if (!idle) {
      check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
      return;
    }
    for (int done = 0;;) {
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  std::vector<std::vector<char>> all_gather(std::span<const char> mine) override {
    std::uint64_t size = mine.size();
    std::vector<std::uint64_t> sizes(size_);
    check(MPI_Allgather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Allgather");
    bytes_sent_ += 8;
    std::vector<std::vector<char>> all(size_);
    // One broadcast per rank's bytes, in pieces below INT_MAX: simple, and what training
    // gathers (word counts) is small next to what it trains.
    for (unsigned r = 0; r < size_; ++r) {
      all[r].resize(sizes[r]);
      if (r == rank_) std::copy(mine.begin(), mine.end(), all[r].begin());
      for (std::size_t at = 0; at < sizes[r]; at += kMaxPiece) {
        const std::size_t n = std::min<std::size_t>(kMaxPiece, sizes[r] - at);
        check(MPI_Bcast(all[r].data() + at, static_cast<int>(n), MPI_CHAR, static_cast<int>(r), MPI_COMM_WORLD), "MPI_Bcast");
      }
      if (r == rank_) bytes_sent_ += sizes[r];
    }
    return all;
  }

  std::vector<std::vector<char>> all_to_all(std::vector<std::vector<char>> to_each) override {
    EMBED_ASSERT(to_each.size() == size_);
    std::vector<std::uint64_t> send_sizes(size_), receive_sizes(size_);
    for (unsigned r = 0; r < size_; ++r) send_sizes[r] = to_each[r].size();
    check(MPI_Alltoall(send_sizes.data(), 1, MPI_UINT64_T, receive_sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD),
          "MPI_Alltoall");
    bytes_sent_ += 8 * size_;
    std::vector<std::vector<char>> received(size_);
    received[rank_] = std::move(to_each[rank_]);
    // Round k: this rank sends to the rank k ahead and receives from the rank k behind,
    // each part in pieces below INT_MAX (both ends cut a part alike: they know its size).
    for (unsigned k = 1; k < size_; ++k) {
      const unsigned to = (rank_ + k) % size_, from = (rank_ + size_ - k) % size_;
      const std::vector<char>& out = to_each[to];
      std::vector<char>& in = received[from];
      in.resize(receive_sizes[from]);
      std::vector<MPI_Request> requests;
      for (std::size_t at = 0; at < in.size(); at += kMaxPiece) {
        requests.emplace_back();
        check(MPI_Irecv(in.data() + at, static_cast<int>(std::min(kMaxPiece, in.size() - at)), MPI_CHAR, static_cast<int>(from),
                        0, MPI_COMM_WORLD, &requests.back()),
              "MPI_Irecv");
      }
      for (std::size_t at = 0; at < out.size(); at += kMaxPiece) {
        requests.emplace_back();
        check(MPI_Isend(out.data() + at, static_cast<int>(std::min(kMaxPiece, out.size() - at)), MPI_CHAR, static_cast<int>(to),
                        0, MPI_COMM_WORLD, &requests.back()),
              "MPI_Isend");
      }
      check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      bytes_sent_ += out.size();
      to_each[to] = {};
    }
    return received;
  }

  void abort(int status) override { MPI_Abort(MPI_COMM_WORLD, status); }
  std::uint64_t bytes_sent() const override { return bytes_sent_; }
  double stop_grace_seconds() const override {
    const char* setting = std::getenv("OMPI_MCA_odls_base_sigkill_timeout");
    if (!setting) return 1;
    char* end = nullptr;
    const double seconds = std::strtod(setting, &end);
    return end != setting && seconds >= 0 ? seconds : 1;
  }

 private:
  void reduce(void* data, std::size_t count, MPI_Datatype type, MPI_Op op, std::size_t element_bytes) {
    auto* bytes = static_cast<char*>(data);
    for (std::size_t at = 0; at < count; at += kMaxPiece) {
      const std::size_t n = std::min(kMaxPiece, count - at);
      check(MPI_Allreduce(MPI_IN_PLACE, bytes + at * element_bytes, static_cast<int>(n), type, op, MPI_COMM_WORLD),
            "MPI_Allreduce");
      bytes_sent_ += n * element_bytes;
    }
  }

  unsigned rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  std::uint64_t bytes_sent_ = 0;
};

}  // namespace

std::unique_ptr<Cluster> mpi_cluster() { return std::make_unique<MpiCluster>(); }

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  if (const auto line_end = version.find_first_of("\r\n"); line_end != std::string::npos) version.resize(line_end);
  if (const auto comma = version.find(','); comma != std::string::npos) version.resize(comma);
  return version;
}

}  // namespace embed
