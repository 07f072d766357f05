// The processes of one training job: this process alone, or the N ranks mpirun started
// (OpenMPI, when the build found it). Training asks a Cluster for the few collective
// steps data parallelism needs: sums of counters and of table rows, everyone's bytes,
// and ending the whole job when one rank fails.
//
// Every call is collective: each rank makes the same calls in the same order, all from
// one thread (the training loop's; MPI is initialised as MPI_THREAD_FUNNELED).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace embed {

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  bool is_root() const { return rank() == 0; }
  // This rank's number among the ranks on its machine (it picks the rank's GPU:
  // gpu_for_rank, device/gpu_device.h).
  virtual unsigned local_rank() const { return 0; }
  // How many ranks share this machine.
  virtual unsigned local_size() const { return 1; }

  // Element-wise, over all ranks, in place.
  virtual void sum(std::span<float> values) = 0;
  virtual void sum(std::span<std::uint64_t> values) = 0;
  virtual void max(std::span<std::uint64_t> values) = 0;
  // sum(values) for the ranks' rounds (rank_averaging.h). With `idle` (nothing else to do
  // until the others join) this rank sleeps between checks rather than spin in MPI's
  // progress loop, so that ranks still training on the same machine keep their cores.
  // Every rank must make the same call here, idle or not: under MPI it is a nonblocking
  // collective, which never matches a blocking one (a rank in sum() would wait forever).
  virtual void sum_round(std::span<std::uint64_t> values, bool idle) {
    (void)idle;
    sum(values);
  }
  // Every rank's `mine`, in rank order.
  virtual std::vector<std::vector<char>> all_gather(std::span<const char> mine) = 0;
  // Personalised exchange: `to_each[r]` goes to rank r (to_each has size() parts); returns
  // what each rank sent this one, in rank order.
  virtual std::vector<std::vector<char>> all_to_all(std::vector<std::vector<char>> to_each) = 0;

  // Ends every rank of the job with `status` after this one failed (MPI_Abort), so that
  // none waits forever in a collective step; one process just returns.
  virtual void abort(int status) = 0;

  // Bytes this rank has handed to collective steps so far, for the benchmark's figure.
  virtual std::uint64_t bytes_sent() const = 0;

  // Seconds the launcher leaves a rank between the SIGTERM it forwards (after Ctrl-C or a
  // SIGTERM of its own) and its SIGKILL: the time a checkpoint must be written in.
  // OpenMPI's odls_base_sigkill_timeout (default 1; mpirun hands --mca settings to the
  // ranks as OMPI_MCA_ variables); none (0) for one process, which nothing kills.
  virtual double stop_grace_seconds() const { return 0; }
};

// The job this process belongs to. Under mpirun (OMPI_COMM_WORLD_SIZE is set) in a build
// with MPI, the first call initialises MPI and the returned cluster finalises it when the
// process exits; otherwise one process, and MPI is never initialised, so a binary built
// with MPI still runs as a plain process. Throws embed::Error when started by mpirun but
// built without MPI (every rank would train the whole corpus alone).
Cluster& this_job();

// For --version: "MPI: Open MPI v4.1.4 ..." or "MPI: absent (built without it)".
std::string mpi_description();

// One process (rank 0 of 1): the collective steps are no-ops.
std::unique_ptr<Cluster> single_process_cluster();

}  // namespace embed
