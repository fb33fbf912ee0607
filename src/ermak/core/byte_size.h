#pragma once
// Sizes for people: "54.2 MiB", "1.37 GiB" (binary units, as `ls -h` and `df -h` print them).
#include <string>

namespace ermak {

std::string format_byte_size(double bytes);

}  // namespace ermak
