#include "file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace customlabels::reader {

std::unique_ptr<FileBytes> FileBytes::Open(const std::string& path, std::string* error) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  std::string why;
  if (fstat(fd, &st) != 0) {
    why = std::strerror(errno);
  } else if (S_ISDIR(st.st_mode)) {
    why = "is a directory";
  } else if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
  }
  if (!why.empty()) {
    close(fd);
    *error = "cannot open " + path + ": " + why;
    return nullptr;
  }
  return std::unique_ptr<FileBytes>(new FileBytes(fd));
}

FileBytes::~FileBytes() { close(fd_); }

bool FileBytes::Read(uint64_t address, void* out, size_t size) const {
  auto* dest = static_cast<char*>(out);
  while (size != 0) {
    if (address > static_cast<uint64_t>(INT64_MAX)) return false;
    const ssize_t n = pread(fd_, dest, size, static_cast<off_t>(address));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    dest += n;
    size -= static_cast<size_t>(n);
    address += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace customlabels::reader
