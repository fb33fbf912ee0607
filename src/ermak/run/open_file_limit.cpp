#include "ermak/run/open_file_limit.h"

#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>

namespace ermak {
namespace {

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

std::uint64_t as_count(rlim_t value) { return value == RLIM_INFINITY ? kUnlimited : std::uint64_t(value); }

// Descriptors open now: the entries of /proc/self/fd (Linux) less the one the listing
// itself holds; 3 (stdin, stdout, stderr) where there is no /proc.
std::uint64_t count_open_descriptors() {
  std::error_code ec;
  std::uint64_t entries = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec))
    ++entries;
  return ec || entries == 0 ? 3 : entries - 1;
}

}  // namespace

OpenFileLimit raise_open_file_limit() {
  OpenFileLimit result;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    result.soft_at_start = result.soft = result.hard = kUnlimited;
  } else {
    result.soft_at_start = as_count(limit.rlim_cur);
    result.hard = as_count(limit.rlim_max);
    if (limit.rlim_cur != limit.rlim_max) {
      rlimit raised = limit;
      raised.rlim_cur = limit.rlim_max;
      // Linux refuses RLIM_INFINITY beyond fs.nr_open; take that ceiling instead.
      if (::setrlimit(RLIMIT_NOFILE, &raised) != 0 && limit.rlim_max == RLIM_INFINITY) {
        std::uint64_t nr_open = 0;
        if (std::ifstream("/proc/sys/fs/nr_open") >> nr_open && nr_open > limit.rlim_cur) {
          raised.rlim_cur = rlim_t(nr_open);
          (void)::setrlimit(RLIMIT_NOFILE, &raised);
        }
      }
    }
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) result.soft = as_count(limit.rlim_cur);
    else result.soft = result.soft_at_start;
  }
  result.open_now = count_open_descriptors();
  return result;
}

}  // namespace ermak
