// --replica-files (analysis/replica_selection.h): which replicas get their own curve table
// and plot in `ermak analyze`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/analysis/replica_selection.h"
#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

TEST(ReplicaSelection, TheDefaultIsTheFirstHundredByPlace) {
  const ReplicaSelection s;
  // By the replica's place in the run, whatever its number (a run may number from 5).
  EXPECT_TRUE(s.includes(5, 0));
  EXPECT_TRUE(s.includes(104, 99));
  EXPECT_FALSE(s.includes(105, 100));
  EXPECT_EQ(s.describe(), "the first 100 replicas");
}

TEST(ReplicaSelection, AllNoneAndNumbers) {
  EXPECT_TRUE(parse_replica_selection("all").includes(123456, 123456));
  EXPECT_EQ(parse_replica_selection("all").describe(), "every replica");
  EXPECT_FALSE(parse_replica_selection("none").includes(0, 0));
  EXPECT_EQ(parse_replica_selection("none").describe(), "no replica");
  const ReplicaSelection s = parse_replica_selection("3,10-12,5123");
  for (int n : {3, 10, 11, 12, 5123}) EXPECT_TRUE(s.includes(n, 0)) << n;
  for (int n : {0, 2, 4, 9, 13, 5122, 5124}) EXPECT_FALSE(s.includes(n, 0)) << n;
  EXPECT_EQ(s.describe(), "replicas 3, 10-12, 5123");
  EXPECT_EQ(parse_replica_selection("7").describe(), "replica 7");
  EXPECT_TRUE(parse_replica_selection("4-4").includes(4, 9));
  // Blanks around entries (a quoted "0-9, 5123") and the words in any case.
  EXPECT_EQ(parse_replica_selection(" 3 , 10 - 12,5123 ").describe(), "replicas 3, 10-12, 5123");
  EXPECT_EQ(parse_replica_selection("ALL").kind, ReplicaSelection::Kind::all);
  EXPECT_EQ(parse_replica_selection("None").kind, ReplicaSelection::Kind::none);
  // In order, repeated and adjacent entries joined.
  EXPECT_EQ(parse_replica_selection("1,1,2").describe(), "replicas 1-2");
  EXPECT_EQ(parse_replica_selection("9,1-3,4,7-8").describe(), "replicas 1-4, 7-9");
}

TEST(ReplicaSelection, EntriesOutsideTheRunAreWarnedAbout) {
  const std::vector<int> run = {49, 50, 52, 53};  // a run numbered from 49, one replica lost
  const auto w = parse_replica_selection("7,50-51,52-60").unmatched_warnings(run);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], "--replica-files: 7 names no replica of this run (its 4 replicas are numbered 49 to 53)");
  EXPECT_EQ(w[1], "--replica-files: 50-60 names 3 replicas of this run (its 4 replicas are numbered 49 to 53)");
  EXPECT_EQ(parse_replica_selection("7").unmatched_warnings(run, true).at(0),
            "--replica-files: 7 names no replica of the pooled runs (their 4 replicas are numbered 49 to 53)");
  // A range over every replica, and the default and all/none, are no mistakes.
  EXPECT_TRUE(parse_replica_selection("0-2147483647").unmatched_warnings(run).empty());
  EXPECT_TRUE(ReplicaSelection{}.unmatched_warnings(run).empty());
  EXPECT_TRUE(parse_replica_selection("none").unmatched_warnings(run).empty());
}

TEST(ReplicaSelection, BadSelectionsAreNamed) {
  auto message = [](const std::string& text) {
    try {
      parse_replica_selection(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("").find("--replica-files: empty"), std::string::npos);
  EXPECT_NE(message("5-1").find("the range '5-1' runs backwards"), std::string::npos);
  EXPECT_NE(message("1,").find("an empty entry in '1,'"), std::string::npos);
  EXPECT_NE(message("1.5").find("'1.5' is not a replica number"), std::string::npos);
  EXPECT_NE(message("first").find("'first' is not a replica number"), std::string::npos);
  EXPECT_NE(message("1-2-3").find("'1-2-3' is not a range (FROM-TO)"), std::string::npos);
  EXPECT_NE(message("99999999999").find("99999999999 is larger than any replica number (at most 2147483647)"),
            std::string::npos);
  EXPECT_NE(message("-5").find("'-5' is a range without its start"), std::string::npos);
  EXPECT_NE(message("5-").find("'5-' is a range without its end"), std::string::npos);
  EXPECT_NE(message("al").find("give all, none, or replica numbers"), std::string::npos);
}

}  // namespace
}  // namespace ermak::analysis
