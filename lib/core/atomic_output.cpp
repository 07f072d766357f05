#include "core/atomic_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <utility>

#include "core/error.h"
#include "core/file_io.h"
#include "core/output_target.h"

namespace embed {
namespace {

// Temporaries the signal handler must remove. Fixed-size and lock-free because a
// signal handler may only touch async-signal-safe state.
constexpr int kMaxPending = 16;
std::array<std::atomic<char*>, kMaxPending> pending_temporaries{};

extern "C" void remove_temporaries_and_reraise(int signo) { remove_temporaries_and_die(signo); }

}  // namespace

void remove_temporaries_and_die(int signo) {
  for (auto& slot : pending_temporaries) {
    if (char* path = slot.load()) ::unlink(path);
  }
  std::signal(signo, SIG_DFL);
  std::raise(signo);
}

void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
      struct sigaction old {};
      sigaction(signo, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // respect nohup and friends
      std::signal(signo, remove_temporaries_and_reraise);
    }
  });
}

int register_temporary(const std::string& path) {
  for (int i = 0; i < kMaxPending; ++i) {
    char* expected = nullptr;
    char* copy = ::strdup(path.c_str());
    if (pending_temporaries[i].compare_exchange_strong(expected, copy)) return i;
    std::free(copy);
  }
  return -1;  // too many open outputs: still atomic, just not removed on a signal
}

void unregister_temporary(int slot) {
  if (slot >= 0) std::free(pending_temporaries[slot].exchange(nullptr));
}

namespace {

mode_t default_file_mode() {
  static const mode_t mode = [] {
    mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

constexpr std::size_t kBufferSize = 1 << 20;

// Six characters of [A-Za-z0-9], as mkstemp's XXXXXX, different at every call.
std::string random_suffix() {
  static constexpr char kCharacters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static std::atomic<std::uint64_t> calls{0};
  std::uint64_t bits = std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32) ^
                       (calls.fetch_add(1) * 0x9E3779B97F4A7C15ull) ^
                       static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string suffix(6, 'X');
  for (char& c : suffix) {
    c = kCharacters[bits % (sizeof(kCharacters) - 1)];
    bits /= sizeof(kCharacters) - 1;
  }
  return suffix;
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path, Streaming streaming) : path_(std::move(path)) {
  const OutputTarget target = is_stdout()
                                   ? OutputTarget{OutputTarget::Kind::descriptor, path_, STDOUT_FILENO, "standard output"}
                                   : resolve_output_target(path_);
  if (target.kind == OutputTarget::Kind::file) {
    create_temporary(target.path);
  } else if (streaming == Streaming::refused) {
    // Before opening it: opening a FIFO would wait for a reader.
    fail("{}: is {}, and this output must be a regular file (it is written out of order, or read back)",
         is_stdout() ? "<stdout>" : path_, target.what);
  } else {
    open_stream(target.path, target.descriptor);
  }
  buffer_.resize(kBufferSize);
}

void AtomicOutput::create_temporary(const std::string& target) {
  install_cleanup_handlers();
  target_ = target;
  // As mkostemp, but the name is registered with the signal handlers before the file is
  // created, so that no signal finds it unregistered: under mpirun a rank that fails early
  // (a missing corpus) has the launcher SIGTERM the others while rank 0 is often creating
  // its outputs, and a file created, then registered, was left behind (cli_mpi, under load).
  // Blocking the signals around mkostemp would not do: another thread (MPI's) takes them.
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    const std::string candidate = target_ + ".tmp-" + random_suffix();
    const int slot = register_temporary(candidate);
    fd_ = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
    const int open_errno = errno;
    if (fd_ >= 0) {
      temp_path_ = candidate;
      cleanup_slot_ = slot;
      break;
    }
    unregister_temporary(slot);
    errno = open_errno;
    if (open_errno != EEXIST) break;
  }
  if (fd_ < 0) {
    const std::string beside = target_ == path_ ? "" : " beside " + target_;  // a link's target
    fail("{}: cannot create the output{}: {}", path_, beside, std::strerror(errno));
  }
  ::fchmod(fd_, default_file_mode());
}

void AtomicOutput::open_stream(const std::string& path, int descriptor) {
  streamed_ = true;
  if (is_stdout()) {
    fd_ = STDOUT_FILENO;  // not ours to close
  } else if (descriptor >= 0) {
    // A copy of the descriptor shares its file position, as writing to "-" does.
    fd_ = ::fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) fail("{}: cannot write to descriptor {}: {}", path_, descriptor, std::strerror(errno));
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) fail("{}: cannot open the output: {}", path_, std::strerror(errno));
  }
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) discard();
}

void AtomicOutput::discard() {
  if (streamed_) {
    if (fd_ >= 0 && !is_stdout()) ::close(fd_);
    fd_ = -1;
    return;
  }
  if (temp_path_.empty()) return;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_path_.c_str());
  unregister_temporary(cleanup_slot_);
  cleanup_slot_ = -1;
  temp_path_.clear();
}

bool AtomicOutput::is_terminal() const { return streamed_ && fd_ >= 0 && ::isatty(fd_) == 1; }

void AtomicOutput::write_fully(const void* data, std::size_t size) {
  write_all(fd_, data, size, std::nullopt, is_stdout() ? "<stdout>" : path_);
}

void AtomicOutput::flush_buffer() {
  write_fully(buffer_.data(), buffered_);
  buffered_ = 0;
}

void AtomicOutput::write(const void* data, std::size_t size) {
  EMBED_ASSERT(!committed_);
  if (size == 0) return;  // an empty tensor's data() may be null, which memcpy must not see
  if (buffered_ + size <= buffer_.size()) {
    std::memcpy(buffer_.data() + buffered_, data, size);
    buffered_ += size;
    return;
  }
  flush_buffer();
  if (size >= buffer_.size()) {
    write_fully(data, size);  // large blocks skip the copy
  } else {
    std::memcpy(buffer_.data(), data, size);
    buffered_ = size;
  }
}

void AtomicOutput::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  EMBED_ASSERT(seekable() && !committed_);
  flush_buffer();
  write_all(fd_, data, size, offset, path_);
}

void AtomicOutput::commit() {
  EMBED_ASSERT(!committed_);
  flush_buffer();
  if (streamed_) {
    committed_ = true;
    if (!is_stdout() && ::close(std::exchange(fd_, -1)) != 0) {
      fail("{}: cannot finish writing: {}", path_, std::strerror(errno));
    }
    return;
  }
  // On failure the destructor removes the temporary.
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("{}: cannot finish writing: {}", path_, std::strerror(errno));
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    fail("{}: cannot rename the finished output into place: {}", path_, std::strerror(errno));
  }
  unregister_temporary(cleanup_slot_);
  cleanup_slot_ = -1;
  temp_path_.clear();
  committed_ = true;
}

}  // namespace embed
