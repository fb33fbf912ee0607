// An mmCIF assembly's operator expression must name operators the file lists
// (io/cif_operator_expressions.h): gemmi skips an unknown id, and an audit's "1,2,3,4,9"
// without operator 9 built an assembly of 4 copies without a word.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/cif.hpp>

#include "ermak/core/error.h"
#include "ermak/io/cif_operator_expressions.h"

using namespace ermak;

namespace {

std::string cif_with(const std::string& expression) {
  return "data_x\n"
         "loop_\n_pdbx_struct_assembly_gen.assembly_id\n_pdbx_struct_assembly_gen.oper_expression\n"
         "_pdbx_struct_assembly_gen.asym_id_list\n"
         "1 '" + expression + "' A\n"
         "2 1 B\n"
         "loop_\n_pdbx_struct_oper_list.id\n_pdbx_struct_oper_list.type\n"
         "1 'identity operation'\n2 'point symmetry operation'\n3 'point symmetry operation'\n"
         "P 'transform to point frame'\n";
}

std::string error_of(const std::string& text) {
  const gemmi::cif::Document document = gemmi::cif::read_memory(text.data(), text.size(), "x.cif");
  try {
    check_cif_operator_expressions(document, "x.cif", text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CifOperatorExpressions, ListsRangesAndProductsNameTheirIds) {
  EXPECT_EQ(operator_expression_ids("1,2,3"), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(operator_expression_ids("1-3"), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(operator_expression_ids("(1-2)(P)"), (std::vector<std::string>{"1", "2", "P"}));
  EXPECT_EQ(operator_expression_ids("(1,3)"), (std::vector<std::string>{"1", "3"}));
  EXPECT_EQ(operator_expression_ids(" 2 "), (std::vector<std::string>{"2"}));
}

TEST(CifOperatorExpressions, AnIdTheListLacksIsRefusedAtItsLine) {
  EXPECT_EQ(error_of(cif_with("1,2,3")), "");
  EXPECT_EQ(error_of(cif_with("(1-3)(P)")), "");
  const std::string e = error_of(cif_with("1,2,3,9"));
  EXPECT_EQ(e, "x.cif:6: _pdbx_struct_assembly_gen.oper_expression: '1,2,3,9' names operator '9', which "
               "_pdbx_struct_oper_list does not list (4 operators there): the assembly would lack its copies");
  EXPECT_NE(error_of(cif_with("1-4")).find("names operator '4'"), std::string::npos);
  // An operator's element that is no number ('?': gemmi reads NaN) is named at its line.
  const std::string unknown = "data_x\n"
                              "_pdbx_struct_assembly_gen.assembly_id 1\n_pdbx_struct_assembly_gen.oper_expression 1\n"
                              "_pdbx_struct_assembly_gen.asym_id_list A\n"
                              "loop_\n_pdbx_struct_oper_list.id\n_pdbx_struct_oper_list.matrix[1][1]\n"
                              "_pdbx_struct_oper_list.vector[1]\n1 1.0 0.0\n2 ? 0.0\n";
  EXPECT_EQ(error_of(unknown), "x.cif:10: _pdbx_struct_oper_list.matrix[1][1]: '?' is not a number: an assembly "
                               "operator's matrix and translation must be numbers");
  // No operator list at all.
  const std::string lone = "data_x\n_pdbx_struct_assembly_gen.assembly_id 1\n_pdbx_struct_assembly_gen.oper_expression 1\n"
                           "_pdbx_struct_assembly_gen.asym_id_list A\n";
  EXPECT_NE(error_of(lone).find("x.cif:3: _pdbx_struct_assembly_gen.oper_expression: '1' names operator '1', which "
                                "_pdbx_struct_oper_list does not hold (the file lists no operators)"),
            std::string::npos)
      << error_of(lone);
}
