#include "train/glove/record_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/error.h"
#include "core/file_io.h"

namespace embed {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'B', 'G', 'L', 'R', 'E', 'C'};
constexpr std::uint32_t kVersion = 1;

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t record_bytes;
  std::uint64_t records;
  std::uint64_t rows;
  std::uint8_t zeros[kRecordFileHeaderBytes - 32];
};
static_assert(sizeof(Header) == kRecordFileHeaderBytes);

}  // namespace

RecordFileWriter::RecordFileWriter(std::string path, std::uint64_t rows) : path_(std::move(path)), rows_(rows) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("{}: cannot create the shuffled co-occurrence records: {}", path_, std::strerror(errno));
}

RecordFileWriter::~RecordFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordFileWriter::append(std::span<const GloveRecord> records) {
  write_all(fd_, records.data(), records.size_bytes(), kRecordFileHeaderBytes + records_ * sizeof(GloveRecord), path_);
  records_ += records.size();
}

RecordFileInfo RecordFileWriter::finish() {
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.version = kVersion;
  header.record_bytes = sizeof(GloveRecord);
  header.records = records_;
  header.rows = rows_;
  write_all(fd_, &header, sizeof(header), 0, path_);
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || ::close(std::exchange(fd_, -1)) != 0) {
    fail("{}: cannot write the shuffled co-occurrence records: {}", path_, std::strerror(errno));
  }
  return {path_, static_cast<std::uint64_t>(st.st_size), mtime_ns(st), records_};
}

RecordFileReader::RecordFileReader(const RecordFileInfo& info, std::uint64_t rows)
    : path_(info.path), rows_(rows), records_(info.records) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("{}: cannot read the shuffled co-occurrence records: {}", path_, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("{}: cannot read the shuffled co-occurrence records: {}", path_, std::strerror(errno));
  if (static_cast<std::uint64_t>(st.st_size) != info.size || mtime_ns(st) != info.mtime_ns) {
    fail(
        "{}: the shuffled co-occurrence records changed since they were written ({} bytes then, {} now); they "
        "cannot be resumed from",
        path_, info.size, st.st_size);
  }
  Header header{};
  const ssize_t n = ::pread(fd_, &header, sizeof(header), 0);
  const bool intact = n == static_cast<ssize_t>(sizeof(header)) && std::memcmp(header.magic, kMagic, sizeof(kMagic)) == 0 &&
                      header.version == kVersion && header.record_bytes == sizeof(GloveRecord) &&
                      header.records == info.records && header.rows == rows && info.size >= kRecordFileHeaderBytes &&
                      (info.size - kRecordFileHeaderBytes) % sizeof(GloveRecord) == 0 &&
                      (info.size - kRecordFileHeaderBytes) / sizeof(GloveRecord) == info.records;
  if (!intact) fail("{}: not the shuffled co-occurrence records of this run (its header is damaged or another run's)", path_);
}

RecordFileReader::~RecordFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordFileReader::read(std::uint64_t first, std::span<GloveRecord> out) const {
  EMBED_ASSERT(first + out.size() <= records_);
  const std::uint64_t offset = kRecordFileHeaderBytes + first * sizeof(GloveRecord);
  if (read_at(fd_, out.data(), out.size_bytes(), offset, path_) != out.size_bytes()) {
    fail("{}: the shuffled co-occurrence records end before record {}: the file is shorter than written", path_,
         first + out.size());
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].row >= rows_ || out[i].column >= rows_) {
      fail("{}: record {} names word {} beyond the vocabulary of {}: the file is damaged", path_, first + i,
           std::max(out[i].row, out[i].column), rows_);
    }
  }
}

}  // namespace embed
