#include "cluster/cluster.h"

#include <cstdlib>

#include "core/error.h"

namespace embed {
namespace {

class SingleProcess final : public Cluster {
 public:
  unsigned rank() const override { return 0; }
  unsigned size() const override { return 1; }
  void sum(std::span<float>) override {}
  void sum(std::span<std::uint64_t>) override {}
  void max(std::span<std::uint64_t>) override {}
  std::vector<std::vector<char>> all_gather(std::span<const char> mine) override {
    return {std::vector<char>(mine.begin(), mine.end())};
  }
  std::vector<std::vector<char>> all_to_all(std::vector<std::vector<char>> to_each) override {
    EMBED_ASSERT(to_each.size() == 1);
    return to_each;
  }
  void abort(int) override {}
  std::uint64_t bytes_sent() const override { return 0; }
};

// mpirun (OpenMPI's, and the PMIx launchers it uses) tells each rank so in its environment.
bool launched_by_mpirun() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size != nullptr && std::atoi(size) > 1;
}

}  // namespace

std::unique_ptr<Cluster> single_process_cluster() { return std::make_unique<SingleProcess>(); }

#ifdef EMBED_HAVE_MPI
std::unique_ptr<Cluster> mpi_cluster();  // mpi_cluster.cpp
std::string mpi_library_version();       // mpi_cluster.cpp
#endif

Cluster& this_job() {
  static const std::unique_ptr<Cluster> job = []() -> std::unique_ptr<Cluster> {
#ifdef EMBED_HAVE_MPI
    if (launched_by_mpirun()) return mpi_cluster();
#else
    if (launched_by_mpirun()) {
      fail(
          "started by mpirun with {} ranks, but this embed-train was built without MPI (every rank would train the "
          "whole corpus alone); rebuild with Debian's libopenmpi-dev installed, or run it without mpirun",
          std::getenv("OMPI_COMM_WORLD_SIZE"));
    }
#endif
    return single_process_cluster();
  }();
  return *job;
}

std::string mpi_description() {
#ifdef EMBED_HAVE_MPI
  return "MPI: " + mpi_library_version();
#else
  return "MPI: absent (built without it; mpirun runs need Debian's libopenmpi-dev at build time)";
#endif
}

}  // namespace embed
