// The run's start warning about protocol rows too sparse for `ermak analyze`'s smoothing
// (run/row_density_check.h, docs/analysis.md#smoothing): 0.2 nm of base travel should hold
// at least 10 rows.
#include <gtest/gtest.h>

#include <string>

#include "ermak/core/units.h"
#include "ermak/run/row_density_check.h"

namespace ermak {
namespace {

// A pulling run at `speed_um_per_s` with the default step h = 0.08 τ_H (19.84 ps).
RunSpec pulling_at(double speed_um_per_s, std::int64_t output_every_steps) {
  RunSpec spec;
  spec.pulling.enabled = true;
  spec.pulling.speed_A_per_tau = units::um_per_s_to_A_per_tau(speed_um_per_s);
  spec.pulling.output_every_steps = output_every_steps;
  return spec;
}

TEST(RowDensityCheck, RowsSparserThanATenthOfTheWindowAreWarnedWithTheIntervalThatSuffices) {
  // 250 µm/s × 19.84 ps = 4.96·10⁻⁶ nm per step: 40000 steps are 0.198 nm, 1.01 rows per window.
  const std::string warning = sparse_protocol_rows_warning(pulling_at(250, 40000));
  EXPECT_NE(warning.find("pulling.output_every = 40000 steps puts the rows 0.198 nm of travel apart"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("would hold only 1.01 rows (fewer than 10)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("give pulling.output_every ≤ 4032"), std::string::npos) << warning;
  // 4032 steps give 10.0 rows: no warning; 4100 give 9.8.
  EXPECT_EQ(sparse_protocol_rows_warning(pulling_at(250, 4032)), "");
  EXPECT_NE(sparse_protocol_rows_warning(pulling_at(250, 4100)), "");
}

TEST(RowDensityCheck, TheEnergyIntervalCountsWhenTheProtocolGivesNone) {
  RunSpec spec = pulling_at(250, 0);
  spec.output.energy_every_steps = 1000;
  EXPECT_EQ(sparse_protocol_rows_warning(spec), "");
  spec.output.energy_every_steps = 100000;
  EXPECT_NE(sparse_protocol_rows_warning(spec).find("pulling.output_every = 100000 steps"), std::string::npos);
}

TEST(RowDensityCheck, NoWarningWithoutAMovingBaseOrWithoutTheRunsOwnTables) {
  EXPECT_EQ(sparse_protocol_rows_warning(RunSpec{}), "");
  EXPECT_EQ(sparse_protocol_rows_warning(pulling_at(0, 10000000)), "");  // a static spring
  RunSpec sop = pulling_at(250, 40000);
  sop.output.write_directory = false;  // a .sop run without --ermak-output: no pulling.tsv
  EXPECT_EQ(sparse_protocol_rows_warning(sop), "");
  RunSpec indentation;
  indentation.indentation.enabled = true;
  indentation.indentation.speed_A_per_tau = units::um_per_s_to_A_per_tau(1000);
  indentation.indentation.output_every_steps = 100000;
  EXPECT_NE(sparse_protocol_rows_warning(indentation).find("indentation.output_every = 100000 steps"),
            std::string::npos);
}

}  // namespace
}  // namespace ermak
