#include "ermak/io/cif_loop_rows.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace ermak {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view first_word(std::string_view line) {
  std::size_t p = 0;
  while (p < line.size() && is_blank(line[p])) ++p;
  std::size_t e = p;
  while (e < line.size() && !is_blank(line[e])) ++e;
  return line.substr(p, e - p);
}

}  // namespace

std::vector<std::string_view> cif_line_values(std::string_view line) {
  std::vector<std::string_view> values;
  std::size_t p = 0;
  while (p < line.size()) {
    if (is_blank(line[p])) {
      ++p;
      continue;
    }
    if (line[p] == '#') break;
    std::size_t end = p;
    if (line[p] == '\'' || line[p] == '"') {
      end = p + 1;
      while (end < line.size() && !(line[end] == line[p] && (end + 1 == line.size() || is_blank(line[end + 1])))) ++end;
      ++end;
    } else {
      while (end < line.size() && !is_blank(line[end])) ++end;
    }
    values.push_back(line.substr(p, std::min(end, line.size()) - p));
    p = end;
  }
  return values;
}

std::optional<CifLoopRowProblem> find_damaged_loop_row(std::string_view text, int loop_line) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  if (loop_line < 1 || std::size_t(loop_line) > lines.size()) return std::nullopt;
  std::size_t k = std::size_t(loop_line) - 1;
  if (first_word(lines[k]) != "loop_") return std::nullopt;
  CifLoopRowProblem problem;
  for (++k; k < lines.size() && first_word(lines[k]).starts_with('_'); ++k) {
    if (problem.tags == 0) {
      const std::string_view tag = first_word(lines[k]);
      problem.category = std::string(tag.substr(0, tag.find('.')));
    }
    ++problem.tags;
  }
  if (problem.tags == 0) return std::nullopt;
  std::optional<CifLoopRowProblem> found;
  for (; k < lines.size(); ++k) {
    const std::string_view line = lines[k], word = first_word(line);
    if (word.empty() || word.starts_with('#')) {
      if (found) break;
      continue;
    }
    if (word.starts_with('_') || word == "loop_" || word.starts_with("data_") || word.starts_with("save_")) break;
    if (line.starts_with(';')) return std::nullopt;  // a text field: rows are not lines
    const std::size_t values = cif_line_values(line).size();
    if (found) {
      found->last_row = false;  // more rows follow the damaged one
      break;
    }
    if (values != problem.tags) {
      problem.line = int(k) + 1;
      problem.values = values;
      problem.last_row = true;
      found = problem;
    }
  }
  return found;
}

// The line of value `index` (counted from 0) of the loop whose `loop_` keyword is on line
// `loop_line` of `text`, by CIF's tokens: blanks separate them; quoted strings, text fields
// (';' at the start of a line) and comments ('#' to the end of the line). 0 if not found.
int cif_loop_value_line(const std::string& text, int loop_line, std::size_t index) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool in_text_field = false, past_tags = false;
  std::size_t value = 0;
  while (std::getline(in, line)) {
    if (++number < loop_line) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (in_text_field) {
      if (line.starts_with(";")) in_text_field = false;
      continue;
    }
    if (line.starts_with(";")) {  // a text field is one value
      if (value++ == index) return number;
      in_text_field = true;
      continue;
    }
    for (const std::string_view token : cif_line_values(line)) {
      if (number == loop_line && token == "loop_") continue;
      if (!past_tags && token.starts_with("_")) continue;
      past_tags = true;
      if (value++ == index) return number;
    }
  }
  return 0;
}

}  // namespace ermak
