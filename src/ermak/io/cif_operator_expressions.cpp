#include "ermak/io/cif_operator_expressions.h"

#include <optional>
#include <set>

#include "ermak/core/error.h"
#include "ermak/io/cif_loop_rows.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

constexpr const char* kExpressionTag = "_pdbx_struct_assembly_gen.oper_expression";
constexpr const char* kOperatorIdTag = "_pdbx_struct_oper_list.id";

// One value of a tag wherever the block holds it: the values of a loop's column, or a pair's
// value, each with its line.
struct TagValue {
  std::string value;  // unquoted; '' for CIF's unknown ('?') and inapplicable ('.')
  std::string raw;    // as written: '?' stays '?'
  int item_line = 0;  // the pair's line, or the loop's `loop_` line
  std::optional<std::size_t> loop_index;  // the value's index in its loop

  // Found only for an error: cif_loop_value_line reads the text from its start.
  int line(const std::string& text) const {
    return loop_index ? cif_loop_value_line(text, item_line, *loop_index) : item_line;
  }
};

std::vector<TagValue> values_of(const gemmi::cif::Block& block, const std::string& tag) {
  std::vector<TagValue> values;
  for (const gemmi::cif::Item& item : block.items) {
    if (item.type == gemmi::cif::ItemType::Pair && gemmi::iequal(item.pair[0], tag)) {
      values.push_back({gemmi::cif::as_string(item.pair[1]), item.pair[1], item.line_number, std::nullopt});
    } else if (item.type == gemmi::cif::ItemType::Loop) {
      const int column = item.loop.find_tag(tag);
      if (column < 0) continue;
      const std::size_t width = item.loop.tags.size();
      for (std::size_t row = 0; (row + 1) * width <= item.loop.values.size(); ++row) {
        const std::size_t index = row * width + std::size_t(column);
        values.push_back({gemmi::cif::as_string(item.loop.values[index]), item.loop.values[index], item.line_number,
                          index});
      }
    }
  }
  return values;
}

}  // namespace

std::vector<std::string> operator_expression_ids(const std::string& expression) {
  std::vector<std::string> ids;
  std::string item;
  const auto finish = [&] {
    const std::string whole(text::trim(item));
    const std::string_view trimmed = whole;
    item.clear();
    if (trimmed.empty()) return;
    const std::size_t dash = trimmed.find('-', 1);
    if (dash != std::string_view::npos) {
      const auto from = text::parse_number<int>(trimmed.substr(0, dash));
      const auto to = text::parse_number<int>(trimmed.substr(dash + 1));
      if (from && to && *from <= *to && *to - *from < 100000) {
        for (int k = *from; k <= *to; ++k) ids.push_back(std::to_string(k));
        return;
      }
    }
    ids.emplace_back(trimmed);
  };
  for (const char c : expression) {
    if (c == ',' || c == '(' || c == ')') finish();
    else item += c;
  }
  finish();
  return ids;
}

void check_cif_operator_expressions(const gemmi::cif::Document& document, const std::string& file,
                                    const std::string& text) {
  if (document.blocks.empty()) return;
  const gemmi::cif::Block& block = document.blocks[0];
  const std::vector<TagValue> expressions = values_of(block, kExpressionTag);
  if (expressions.empty()) return;
  std::set<std::string> listed;
  for (const TagValue& id : values_of(block, kOperatorIdTag)) listed.insert(id.value);
  // Every element of the operators' matrices and translations a number: gemmi would read '?'
  // as NaN, and the copies' atoms would be reported at NaN positions instead.
  for (int i = 1; i <= 3; ++i)
    for (int j = 0; j <= 3; ++j) {
      const std::string tag = j == 0 ? "_pdbx_struct_oper_list.vector[" + std::to_string(i) + "]"
                                     : "_pdbx_struct_oper_list.matrix[" + std::to_string(i) + "][" +
                                           std::to_string(j) + "]";
      for (const TagValue& element : values_of(block, tag))
        if (!text::parse_number<double>(element.value))
          throw Error(file, element.line(text), tag,
                      "'" + element.raw + "' is not a number: an assembly operator's matrix and translation must "
                      "be numbers");
    }
  for (const TagValue& expression : expressions)
    for (const std::string& id : operator_expression_ids(expression.value))
      if (!listed.count(id))
        throw Error(file, expression.line(text), kExpressionTag,
                    "'" + expression.value + "' names operator '" + id + "', which _pdbx_struct_oper_list does not " +
                        (listed.empty() ? std::string("hold (the file lists no operators)")
                                        : "list (" + std::to_string(listed.size()) + " operators there)") +
                        ": the assembly would lack its copies");
}

}  // namespace ermak
