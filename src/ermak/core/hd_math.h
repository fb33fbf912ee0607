#pragma once
// Math overloads for float and double that compile identically on host and device, so
// physics functions can be templated on the precision (float in the step, double in
// the validation reference) without depending on std:: device support.
#include <cmath>

#include "ermak/core/hd.h"

namespace ermak {

ERMAK_HD float hd_sqrt(float v) { return sqrtf(v); }
ERMAK_HD double hd_sqrt(double v) { return sqrt(v); }
ERMAK_HD float hd_log(float v) { return logf(v); }
ERMAK_HD double hd_log(double v) { return log(v); }

}  // namespace ermak
