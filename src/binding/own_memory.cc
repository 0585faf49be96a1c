#include "own_memory.h"

#include <fcntl.h>
#include <unistd.h>

namespace customlabels::binding {

bool ReadOwnWord(uint64_t address, uint64_t* out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  const bool ok = write(fds[1], reinterpret_cast<const void*>(static_cast<uintptr_t>(address)),
                        sizeof(*out)) == static_cast<ssize_t>(sizeof(*out)) &&
                  read(fds[0], out, sizeof(*out)) == static_cast<ssize_t>(sizeof(*out));
  close(fds[0]);
  close(fds[1]);
  return ok;
}

}  // namespace customlabels::binding
