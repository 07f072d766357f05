// A temporary file a run makes beside its output (a spooled corpus, GloVe's shuffled
// records) that must outlive the process when a checkpoint names it: removed when its
// owner goes or a signal ends the process, unless keep() says a checkpoint needs it.
#pragma once

#include <string>

namespace embed {

class SpoolFile {
 public:
  explicit SpoolFile(std::string path);
  ~SpoolFile();
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;
  void keep();     // a checkpoint names it: it outlives this process
  void release();  // the run completed: remove it with this object
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool owned_ = true;      // removed with this object
  int cleanup_slot_ = -1;  // registered with the signal handlers while owned
};

}  // namespace embed
