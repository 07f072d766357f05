// An output file that appears whole or not at all.
//
// Bytes go to a temporary file beside the target ("OUT.tmp-XXXXXX") and commit()
// renames it into place. If the object dies uncommitted (an exception) or the
// process receives SIGINT, SIGTERM, SIGHUP or SIGPIPE, the temporary is removed,
// so an interrupted run never leaves a half-written OUT, nor litter beside it.
// A symbolic link is followed: the file it leads to is replaced, and the link stays.
//
// What a rename would destroy is written in place instead, as a stream, when the
// writer can stream (Streaming::allowed): "-" (standard output), a FIFO, a character
// device (/dev/null, a terminal) and /dev/stdout or /dev/fd/N (a process substitution);
// see output_target.h. A stream cut short by an error stays cut short: the reader sees
// the command fail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <string>
#include <vector>

namespace embed {

// Installs the handlers that remove temporaries on SIGINT, SIGTERM, SIGHUP and SIGPIPE
// (AtomicOutput does so when the first output is created). Once only.
void install_cleanup_handlers();
// What those handlers do: removes every pending temporary, restores the signal's default
// action and re-raises it. Async-signal-safe, for handlers that take a signal over.
void remove_temporaries_and_die(int signo);
// Adds a file this process owns (a spool) to what those handlers remove, and takes it
// off again: a slot for unregister_temporary, or -1 when all slots are taken (the file
// is then left behind by a signal). install_cleanup_handlers() must have run.
int register_temporary(const std::string& path);
void unregister_temporary(int slot);

// Whether an output may be a stream (see above). Refused by default: a writer that seeks
// (write_at: checkpoints, co-occurrence counts) or a file that is read back must be a
// regular file, and is better refused at once than after the work.
enum class Streaming { refused, allowed };

class AtomicOutput {
 public:
  // Creates the temporary (or opens the stream) at once, so that an unwritable or
  // refused destination fails before any expensive work. Opening a FIFO waits for
  // its reader. Throws embed::Error naming the path.
  explicit AtomicOutput(std::string path, Streaming streaming = Streaming::refused);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Overwrites bytes already written, at `offset` from the start. Needs seekable().
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  // A temporary file (not a stream), so write_at() works.
  bool seekable() const { return !streamed_; }
  // Written in place to a terminal, which binary data would garble.
  bool is_terminal() const;
  // Flushes, closes and renames into place (a stream: flushes and closes). No write may follow.
  void commit();

  const std::string& path() const { return path_; }
  bool is_stdout() const { return path_ == "-"; }

 private:
  void flush_buffer();
  void write_fully(const void* data, std::size_t size);
  void discard();
  void open_stream(const std::string& path, int descriptor);
  void create_temporary(const std::string& target);

  std::string path_;
  std::string target_;     // the regular file the rename replaces: path_, links followed
  bool streamed_ = false;  // written in place to fd_: no temporary, no rename
  std::string temp_path_;
  int fd_ = -1;
  int cleanup_slot_ = -1;
  bool committed_ = false;
  std::vector<char> buffer_;
  std::size_t buffered_ = 0;
};

}  // namespace embed
