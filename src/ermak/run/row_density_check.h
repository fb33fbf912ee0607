#pragma once
// Whether a pulling or indentation run writes its protocol rows densely enough for `ermak
// analyze` (docs/analysis.md#smoothing): its default smoothing window, 0.2 nm of base (or
// tip) travel, should hold ≥ 10 rows. Fewer, and the analysis notes afterwards that its noise
// estimate and peak criterion rest on too few rows — after a run that may have taken days.
#include <string>

#include "ermak/config/spec.h"

namespace ermak {

// A warning naming the protocol's output_every key, the rows per default window and the
// interval that gives 10; "" when the rows are dense enough or no moving protocol writes them.
std::string sparse_protocol_rows_warning(const RunSpec& spec);

}  // namespace ermak
