// A PDB file's symmetry operators (io/pdb_operator_records.h): REMARK 350 BIOMT and MTRIX
// rows must give whole operators — gemmi drops an operator that misses a row, joins rows
// numbered apart and reads a garbled number by its prefix, and an audit's 1CWP with one
// MTRIX3 row removed built a capsid of 177 chains without a word.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/pdb_operator_records.h"
#include "ermak/io/structure_model.h"
#include "support/test_paths.h"

using namespace ermak;

namespace {

std::string error_of(const std::string& text) {
  try {
    check_pdb_operator_records("x.pdb", text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kBiomt =
    "REMARK 350 BIOMOLECULE: 1\n"
    "REMARK 350 APPLY THE FOLLOWING TO CHAINS: A\n"
    "REMARK 350   BIOMT1   1  1.000000  0.000000  0.000000        0.00000\n"
    "REMARK 350   BIOMT2   1  0.000000  1.000000  0.000000        0.00000\n"
    "REMARK 350   BIOMT3   1  0.000000  0.000000  1.000000        0.00000\n"
    "REMARK 350   BIOMT1   2 -1.000000  0.000000  0.000000       10.00000\n"
    "REMARK 350   BIOMT2   2  0.000000 -1.000000  0.000000        0.00000\n"
    "REMARK 350   BIOMT3   2  0.000000  0.000000  1.000000        0.00000\n";

const char* kMtrix =
    "MTRIX1   1 -0.484319 -0.352902 -0.800561        1.05107\n"
    "MTRIX2   1  0.606417  0.524158 -0.597985        1.27739\n"
    "MTRIX3   1  0.630654 -0.774995 -0.039839        2.09961\n"
    "ATOM      1  CA  ALA A   1       0.000   0.000   0.000  1.00  0.00           C\n";

std::string without_line(const std::string& text, int number) {
  std::istringstream in(text);
  std::string line, out;
  for (int k = 1; std::getline(in, line); ++k)
    if (k != number) out += line + "\n";
  return out;
}

}  // namespace

TEST(PdbOperatorRecords, WholeOperatorsPass) {
  EXPECT_EQ(error_of(kBiomt), "");
  EXPECT_EQ(error_of(kMtrix), "");
  EXPECT_EQ(error_of(std::string(kBiomt) + "REMARK 350 BIOMOLECULE: 2\n" + kBiomt + kMtrix), "");
}

TEST(PdbOperatorRecords, AMissingRowIsNamedAtItsOperator) {
  // BIOMT3 of operator 2 removed: the file ends within the operator.
  std::string e = error_of(without_line(kBiomt, 8));
  EXPECT_EQ(e.rfind("x.pdb:7: BIOMT2: operator 2 ends after its row 2: it misses row 3", 0), 0u) << e;
  // BIOMT3 of operator 1 removed: the next operator's row 1 follows its row 2.
  e = error_of(without_line(kBiomt, 5));
  EXPECT_EQ(e.rfind("x.pdb:5: BIOMT1: BIOMT1 follows BIOMT2 of operator 1 (line 4): operator 1 misses its row 3", 0),
            0u)
      << e;
  // BIOMT2 of operator 1 removed: BIOMT3 follows BIOMT1.
  e = error_of(without_line(kBiomt, 4));
  EXPECT_EQ(e.rfind("x.pdb:4: BIOMT3: BIOMT3 follows BIOMT1 of operator 1 (line 3): operator 1 misses its row 2", 0),
            0u)
      << e;
  // MTRIX3 removed, an ATOM record next.
  e = error_of(without_line(kMtrix, 3));
  EXPECT_EQ(e.rfind("x.pdb:2: MTRIX2: operator 1 ends after its row 2 (line 3 is no row of it)", 0), 0u) << e;
  // The first row missing.
  e = error_of(without_line(kMtrix, 1));
  EXPECT_EQ(e.rfind("x.pdb:1: MTRIX2: operator 1 starts with its row 2: it misses row 1", 0), 0u) << e;
}

TEST(PdbOperatorRecords, RowsOfAnotherNumberAndGarbledNumbersAreRefused) {
  std::string biomt = kBiomt;
  biomt.replace(biomt.find("BIOMT3   2"), 10, "BIOMT3   7");
  std::string e = error_of(biomt);
  EXPECT_EQ(e.rfind("x.pdb:8: BIOMT3: row 3 is numbered 7, but rows 1-2 above are of operator 2 (line 7)", 0), 0u)
      << e;
  biomt = kBiomt;
  biomt.replace(biomt.find("0.000000 -1.000000"), 8, "0.00xx00");
  e = error_of(biomt);
  EXPECT_EQ(e.rfind("x.pdb:7: BIOMT2: '0.00xx00' (its first element) is not a number", 0), 0u) << e;
  std::string mtrix = kMtrix;
  mtrix.replace(mtrix.find("1.27739"), 7, "1.2x739");
  e = error_of(mtrix);
  EXPECT_EQ(e.rfind("x.pdb:2: MTRIX2: '1.2x739' (its translation, columns 46-55) is not a number", 0), 0u) << e;
  e = error_of("REMARK 350   BIOMT1   1  1.000000  0.000000\n");
  EXPECT_NE(e.find("BIOMT1: the row holds 3 of its 5 values"), std::string::npos) << e;
}

// Through the reader: the capsid's file with one MTRIX3 row removed is refused, naming the line.
TEST(PdbOperatorRecords, ACapsidFileMissingAnMtrixRowIsRefused) {
  std::ifstream in(test::shared_data() / "pdb/1CWP.pdb");
  std::ostringstream whole;
  whole << in.rdbuf();
  std::string text = whole.str();
  const std::size_t row = text.find("MTRIX3   2");
  ASSERT_NE(row, std::string::npos);
  text.erase(row, text.find('\n', row) + 1 - row);
  const auto path = test::fresh_directory("pdb-operator-records") / "1CWP-cut.pdb";
  std::ofstream(path) << text;
  try {
    read_structure_file(path);
    ADD_FAILURE() << "a file missing an MTRIX row was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1CWP-cut.pdb:208: MTRIX1: MTRIX1 follows MTRIX2 of operator 2 (line 207): "
                                         "operator 2 misses its row 3"),
              std::string::npos)
        << e.what();
  }
}
