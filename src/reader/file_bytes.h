// A MemorySource over a file's bytes (address = file offset), read with
// pread on demand: `check` never loads a whole file, however large, and a
// file that shrinks while read gives failed reads, never a signal.
#ifndef CUSTOMLABELS_READER_FILE_BYTES_H_
#define CUSTOMLABELS_READER_FILE_BYTES_H_

#include <memory>
#include <string>

#include "memory_source.h"

namespace customlabels::reader {

class FileBytes final : public MemorySource {
 public:
  // Opens `path` for reading; nullptr with `error` set on failure.
  static std::unique_ptr<FileBytes> Open(const std::string& path, std::string* error);
  ~FileBytes() override;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  bool Read(uint64_t address, void* out, size_t size) const override;

 private:
  explicit FileBytes(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace customlabels::reader

#endif  // CUSTOMLABELS_READER_FILE_BYTES_H_
