#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include <catch2/catch.hpp>

#include "core/atomic_output.h"
#include "test_util.h"

using namespace embed;
namespace fs = std::filesystem;

TEST_CASE("an uncommitted output leaves nothing behind", "[atomic]") {
  test::TempDir dir;
  const std::string path = dir.file("out.emb");
  {
    AtomicOutput out(path);
    out.write("partial");
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("commit renames the whole output into place, replacing an old one", "[atomic]") {
  test::TempDir dir;
  const std::string path = dir.file("out.txt");
  test::write_file(path, "old");
  {
    AtomicOutput out(path);
    out.write("new ");
    out.write(std::string(3 << 20, 'x'));  // larger than the buffer
    CHECK(test::read_file(path) == "old");  // untouched until commit
    out.commit();
  }
  const std::string content = test::read_file(path);
  CHECK(content.size() == 4 + (3u << 20));
  CHECK(content.substr(0, 4) == "new ");
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("an unwritable destination fails before any work", "[atomic]") {
  REQUIRE_ERROR_CONTAINS(AtomicOutput("/nonexistent-dir/out.emb"), "/nonexistent-dir/out.emb: cannot create");
}

namespace {

// What a reader of the FIFO `path` gets while `write` runs: the reader opens it first,
// as `cat fifo > got &` would, and reads to the end.
template <typename Write>
std::string read_fifo_while(const std::string& path, Write write) {
  std::string got;
  std::thread reader([&] { got = test::read_file(path); });
  try {
    write();
  } catch (...) {
    // The reader's end of file, if it still waits for a writer (without one, this fails at once).
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    reader.join();
    throw;
  }
  reader.join();
  return got;
}

// A character device node made here, so that a test that fails cannot harm the real
// /dev nodes; false without the privilege to make one or where devices cannot be
// opened (a file system mounted nodev).
bool make_char_device(const std::string& path, unsigned major, unsigned minor) {
  if (::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(major, minor)) != 0) return false;
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("a symbolic link is followed: its target is replaced and the link stays", "[atomic]") {
  test::TempDir dir;
  fs::create_directory(dir.file("real"));
  test::write_file(dir.file("real/out.txt"), "old");
  fs::create_symlink("real/out.txt", dir.file("hop"));  // relative to the link's folder
  fs::create_symlink(dir.file("hop"), dir.file("link"));
  {
    AtomicOutput out(dir.file("link"));
    out.write("new");
    CHECK(entries(dir.path() / "real") == 2);  // the temporary is beside the target
    out.commit();
  }
  CHECK(fs::is_symlink(dir.file("link")));
  CHECK(fs::is_symlink(dir.file("hop")));
  CHECK(test::read_file(dir.file("real/out.txt")) == "new");
  CHECK(entries(dir.path() / "real") == 1);
  CHECK(entries(dir.path()) == 3);

  SECTION("a link to a file not there yet creates the file") {
    fs::create_symlink("real/new.txt", dir.file("dangling"));
    AtomicOutput out(dir.file("dangling"));
    out.write("made");
    out.commit();
    CHECK(fs::is_symlink(dir.file("dangling")));
    CHECK(test::read_file(dir.file("real/new.txt")) == "made");
  }
  SECTION("a loop of links is an error naming the path") {
    fs::create_symlink("loop2", dir.file("loop1"));
    fs::create_symlink("loop1", dir.file("loop2"));
    REQUIRE_ERROR_CONTAINS(AtomicOutput(dir.file("loop1")), dir.file("loop1") + ": cannot follow its symbolic links");
  }
}

TEST_CASE("a FIFO is written in place, as a stream, when the writer can stream", "[atomic]") {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string big(3 << 20, 'x');  // larger than the buffer and than a pipe
  const std::string got = read_fifo_while(fifo, [&] {
    AtomicOutput out(fifo, Streaming::allowed);
    CHECK_FALSE(out.seekable());
    out.write("head ");
    out.write(big);
    out.commit();
  });
  CHECK(got == "head " + big);
  CHECK(fs::is_fifo(fifo));
  CHECK(entries(dir.path()) == 1);

  SECTION("a link to it is followed") {
    fs::create_symlink("fifo", dir.file("link"));
    const std::string via_link = read_fifo_while(fifo, [&] {
      AtomicOutput out(dir.file("link"), Streaming::allowed);
      out.write("through the link");
      out.commit();
    });
    CHECK(via_link == "through the link");
    CHECK(fs::is_symlink(dir.file("link")));
    CHECK(fs::is_fifo(fifo));
  }
}

TEST_CASE("a writer that cannot stream refuses a FIFO at once, without waiting for a reader", "[atomic]") {
  test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE_ERROR_CONTAINS(AtomicOutput(fifo), fifo + ": is a FIFO, and this output must be a regular file");
  REQUIRE_ERROR_CONTAINS(AtomicOutput("-"), "<stdout>: is standard output, and this output must be a regular file");
  CHECK(fs::is_fifo(fifo));
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("a descriptor named as /dev/fd/N is written in place", "[atomic]") {
  int ends[2];
  REQUIRE(::pipe(ends) == 0);
  {
    AtomicOutput out("/dev/fd/" + std::to_string(ends[1]), Streaming::allowed);
    CHECK_FALSE(out.seekable());
    out.write("through a process substitution");
    out.commit();
  }
  ::close(ends[1]);  // the output closed only its copy: this is the last writer
  char buffer[64] = {};
  const ssize_t n = ::read(ends[0], buffer, sizeof buffer);
  ::close(ends[0]);
  CHECK(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0) == "through a process substitution");
}

TEST_CASE("a link to /proc/self/fd/N, as /dev/stdout is, writes to descriptor N, even for a regular file", "[atomic]") {
  test::TempDir dir;
  const std::string file = dir.file("redirected.txt");
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // as the shell's `> file`
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "before ", 7) == 7);
  fs::create_symlink("/proc/self/fd/" + std::to_string(fd), dir.file("stdout"));
  {
    AtomicOutput out(dir.file("stdout"), Streaming::allowed);
    CHECK_FALSE(out.seekable());
    out.write("after");
    out.commit();
  }
  REQUIRE(::write(fd, " end", 4) == 4);  // the position is shared, as with "-"
  ::close(fd);
  CHECK(test::read_file(file) == "before after end");  // not replaced: a rename would leave "after"
  CHECK(fs::is_symlink(dir.file("stdout")));
}

TEST_CASE("a character device is written in place, and its write errors are reported", "[atomic]") {
  test::TempDir dir;
  const std::string null = dir.file("null"), full = dir.file("full");
  if (!make_char_device(null, 1, 3) || !make_char_device(full, 1, 7)) {
    WARN("no privilege to make device nodes: skipped");
    return;
  }
  {
    AtomicOutput out(null, Streaming::allowed);
    out.write(std::string(3 << 20, 'x'));
    out.commit();
  }
  CHECK(fs::is_character_file(null));
  {
    AtomicOutput out(full, Streaming::allowed);
    out.write("a line");
    REQUIRE_ERROR_CONTAINS(out.commit(), full + ": cannot write: " + std::strerror(ENOSPC));
  }
  CHECK(fs::is_character_file(full));
  CHECK(entries(dir.path()) == 2);
}

TEST_CASE("a directory or a block device is no output", "[atomic]") {
  test::TempDir dir;
  REQUIRE_ERROR_CONTAINS(AtomicOutput(dir.path().string(), Streaming::allowed), dir.path().string() + ": is a directory");
  const std::string block = dir.file("block");
  if (::mknod(block.c_str(), S_IFBLK | 0600, ::makedev(7, 0)) == 0) {  // loop0's numbers; never opened
    REQUIRE_ERROR_CONTAINS(AtomicOutput(block, Streaming::allowed), block + ": is a block device");
  }
}
