#pragma once
// How many files this process may open (POSIX RLIMIT_NOFILE), for runs that keep one or
// more output files open per replica (docs/outputs.md#how-many-files-a-run-keeps-open).
#include <cstdint>

namespace ermak {

struct OpenFileLimit {
  std::uint64_t soft_at_start = 0;  // the soft limit the process was started with
  std::uint64_t soft = 0;           // the soft limit now: raised to the hard limit where allowed
  std::uint64_t hard = 0;           // what `ulimit -n` may raise it to without privileges
  std::uint64_t open_now = 0;       // descriptors open when measured (stdin, stdout, stderr, ...)
};

// Raises the soft limit on open files to the hard limit (a process may do so without
// privileges; shells often start programs with 1024 while the hard limit is far higher),
// then reports the limits and the descriptors already open. Limits that cannot be read
// are reported as "unlimited" (UINT64_MAX).
OpenFileLimit raise_open_file_limit();

}  // namespace ermak
