#pragma once
// Which row of an mmCIF loop is damaged. gemmi reports a loop whose values do not fill its
// rows ("Wrong number of values in the loop") at the loop's header line; a user needs the row
// (docs/formats.md#pdb-and-mmcif): one value lost, or a file cut short in the middle of a row.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ermak {

// The values on one line of CIF text (without its line end): blank-separated; a quoted
// value ('…' or "…") ends at its quote followed by a blank or the line's end; a '#' where a
// value would start begins a comment. (A text field, ';' in column 1, spans lines: callers
// handle it.)
std::vector<std::string_view> cif_line_values(std::string_view line);

struct CifLoopRowProblem {
  int line = 0;             // 1-based line of the first row whose values do not match the tags
  std::size_t values = 0;   // values on that line
  std::size_t tags = 0;     // the loop's tags (columns)
  std::string category;     // the tags' category, e.g. "_atom_site"
  bool last_row = false;    // nothing of the loop follows it (a file cut short?)
};

// For the loop_ that starts on `loop_line` (1-based) of `text`: its first row, one per line,
// whose number of values differs from its number of tags. nullopt where the loop is not
// found or its rows are not one per line (a text field on lines of its own; rows split
// over lines, which CIF allows) — gemmi's message then stands.
std::optional<CifLoopRowProblem> find_damaged_loop_row(std::string_view text, int loop_line);

// The line of value `index` (counted from 0) of the loop whose `loop_` keyword is on line
// `loop_line` of `text`, by CIF's tokens: blanks separate them; quoted strings, text fields
// (';' at the start of a line) and comments ('#' to the end of the line). 0 if not found.
int cif_loop_value_line(const std::string& text, int loop_line, std::size_t index);

}  // namespace ermak
