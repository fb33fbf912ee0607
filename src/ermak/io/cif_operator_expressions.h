#pragma once
// The operators an mmCIF assembly names (`_pdbx_struct_assembly_gen.oper_expression`, e.g.
// "1,2,3", "1-60", "(1-60)(61-88)") must all be in `_pdbx_struct_oper_list`: gemmi skips an
// id it does not find, and the assembly silently lacks those copies (an audit's "1,2,3,4,9"
// without operator 9 built 4 copies).
#include <string>
#include <vector>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/cifdoc.hpp>

namespace ermak {

// The ids an operator expression names, in order: comma lists, numeric ranges "a-b", and
// parenthesised groups (a product's factors, listed one after the other).
std::vector<std::string> operator_expression_ids(const std::string& expression);

// Throws ermak::Error(file, line, "_pdbx_struct_assembly_gen.oper_expression", …) for an
// expression that names an id `_pdbx_struct_oper_list` does not list, and (file, line,
// "_pdbx_struct_oper_list.matrix[i][j]" | ".vector[i]", …) for an element that is not a
// number (gemmi would read '?' as NaN). `text`: the file's text,
// for the line of a loop's value.
void check_cif_operator_expressions(const gemmi::cif::Document& document, const std::string& file,
                                    const std::string& text);

}  // namespace ermak
