#include "ermak/io/output_file_check.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "ermak/core/error.h"

namespace ermak {

void check_output_file_intact(int fd, const std::filesystem::path& path, std::uint64_t bytes_written) {
  struct stat st{};
  if (::fstat(fd, &st) != 0)
    throw Error(path.string(), 0, "", std::string("cannot check the output file: ") + std::strerror(errno));
  // /dev/null and other devices (a SOP-GPU habit for outputs one does not want) have no size.
  if (!S_ISREG(st.st_mode)) return;
  if (st.st_nlink == 0)
    throw Error(path.string(), 0, "",
                "was deleted while this run wrote it, and a checkpoint now would count what it held: the run stops "
                "and keeps its previous checkpoint — put the file back (from a copy) and --resume continues from that "
                "checkpoint, else start the run again with --force");
  if (std::uint64_t(st.st_size) < bytes_written)
    throw Error(path.string(), 0, "",
                "was cut to " + std::to_string(st.st_size) + " bytes while this run had written " +
                    std::to_string(bytes_written) +
                    ", and a checkpoint now would count what it held: the run stops and keeps its previous "
                    "checkpoint — put the file back (from a copy) and --resume continues from that checkpoint, else "
                    "start the run again with --force");
}

}  // namespace ermak
