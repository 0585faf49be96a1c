// Keeps the addon loadable by every Node.js binary it supports. The official
// Node.js 18-26 Linux builds need at most GLIBC_2.28, GLIBCXX_3.4.21 and
// CXXABI_1.3.11 and load the system's libstdc++, so the addon must not need
// anything newer (test/install/install.test.js reads the binaries' version
// needs). GCC 12's headers call std::__throw_bad_array_new_length, which
// libstdc++ exports only from GLIBCXX_3.4.29 on: defining it here (hidden by
// the version script, like every symbol but the ABI's) resolves the call
// inside the addon. Throwing std::bad_array_new_length needs CXXABI_1.3.8.
#include <new>

namespace std {
[[noreturn]] void __throw_bad_array_new_length() { throw std::bad_array_new_length(); }
}  // namespace std
