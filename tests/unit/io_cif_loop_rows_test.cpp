// Which row of an mmCIF loop is damaged (io/cif_loop_rows.h): gemmi names only the loop's
// header line; ermak names the row, and whether the file ends with it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/cif_loop_rows.h"
#include "ermak/io/structure_model.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

// Three atoms of a C-alpha trace, 12 columns a row; the loop's header is line 3.
std::string three_atoms() {
  std::string cif = "data_T\n#\nloop_\n";
  for (const char* tag : {"group_PDB", "id", "type_symbol", "label_atom_id", "label_comp_id", "label_asym_id",
                          "label_seq_id", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv"})
    cif += std::string("_atom_site.") + tag + "\n";
  for (int k = 0; k < 3; ++k)
    cif += "ATOM " + std::to_string(k + 1) + " C CA ALA A " + std::to_string(k + 1) + " " + std::to_string(3.8 * k) +
           " 0.000 0.000 1.00 10.00\n";
  return cif + "#\n";
}

TEST(CifLoopRows, NamesTheRowWithAValueLost) {
  std::string cif = three_atoms();
  const auto at = cif.find(" 1.00 10.00\nATOM 3");  // row 2 (line 17) loses its occupancy
  cif.erase(at, 5);
  const auto row = find_damaged_loop_row(cif, 3);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->line, 17);
  EXPECT_EQ(row->values, 11u);
  EXPECT_EQ(row->tags, 12u);
  EXPECT_EQ(row->category, "_atom_site");
  EXPECT_FALSE(row->last_row);
  // Whole rows — also with a quoted value holding a blank and a comment after a row: nothing
  // to name.
  EXPECT_FALSE(find_damaged_loop_row(three_atoms(), 3).has_value());
  std::string quoted = three_atoms();
  quoted.replace(quoted.find("ATOM 1 C CA"), 11, "ATOM 1 C 'C A'");
  quoted.insert(quoted.find("\nATOM 2"), "  # a comment");
  EXPECT_FALSE(find_damaged_loop_row(quoted, 3).has_value());
  // Not a loop's header, or a text field among the rows: gemmi's message stands.
  EXPECT_FALSE(find_damaged_loop_row(three_atoms(), 2).has_value());
  std::string text_field = three_atoms();
  text_field.insert(text_field.find("ATOM 2"), ";a text field\n;\n");
  cif = text_field;
  cif.erase(cif.find(" 1.00 10.00\nATOM 3"), 5);
  EXPECT_FALSE(find_damaged_loop_row(cif, 3).has_value());
}

TEST(CifLoopRows, AFileCutMidRowIsNamedAtItsLastLine) {
  const std::string whole = three_atoms();
  const std::string cut = whole.substr(0, whole.find("0.000 1.00 10.00\n#"));  // row 3 cut after its y
  const auto row = find_damaged_loop_row(cut, 3);
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->line, 18);
  EXPECT_EQ(row->values, 9u);
  EXPECT_TRUE(row->last_row);
  // Read as a structure: the error names the row and asks whether the file is complete.
  const auto file = test::fresh_directory("cif-loop-rows") / "cut.cif";
  std::ofstream(file) << cut;
  try {
    read_structure_file(file);
    ADD_FAILURE() << "a file cut mid-row was read";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file.string() + ":18: _atom_site: this row of the loop has 9 values where the loop (line 3) "
                        "has 12 columns — and the file ends with it: is the file complete?"),
              std::string::npos)
        << what;
  }
}

}  // namespace
}  // namespace ermak
