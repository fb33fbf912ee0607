// `ermak --version` and the run log name the commit a binary was built from
// (cmake/build_commit.cmake, core/build_info.h): the docs date behaviour by commit, so a
// user (and a run.log read later) must be able to tell which code made a result.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "ermak/core/build_info.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;

TEST(BuildInfo, VersionNamesTheVersionAndTheCommitAndTheRunLogSaysTheSame) {
  // The commit is "unknown" outside a git checkout, else its short hash and date, with
  // "+ local changes" when tracked files differed from it at build time.
  const std::regex form(R"(\d+\.\d+\.\d+ \(commit (unknown|[0-9a-f]{7,} of \d{4}-\d\d-\d\d( \+ local changes)?)\))");
  EXPECT_TRUE(std::regex_match(ermak::build_description(), form)) << ermak::build_description();

  int status = 0;
  const std::string out = ermak::test::run_ermak("--version", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, "ermak " + ermak::build_description() + "\n");

  const auto dir = ermak::test::fresh_directory("build-info");
  const fs::path config = ermak::test::write_ww_run_config(dir, 5, "");
  const std::string run = ermak::test::run_ermak("run --quiet " + config.string() + " --set run.steps=10", &status);
  ASSERT_EQ(status, 0) << run;
  const std::string log = ermak::test::read_file(dir / "out" / "run.log");
  EXPECT_NE(log.find("] ermak " + ermak::build_description() + " starting "), std::string::npos) << log;
}
