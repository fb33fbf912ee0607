#include "ermak/io/cif_assembly_tags.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ermak {
namespace {

struct AssemblyCategory {
  std::string prefix;               // "_pdbx_struct_assembly." (with the dot)
  std::vector<std::string> needed;  // the columns gemmi's make_structure asks for
};

std::vector<AssemblyCategory> assembly_categories() {
  std::vector<std::string> oper = {"id", "type"};
  for (int i = 1; i <= 3; ++i) {
    for (int j = 1; j <= 3; ++j) oper.push_back("matrix[" + std::to_string(i) + "][" + std::to_string(j) + "]");
    oper.push_back("vector[" + std::to_string(i) + "]");
  }
  return {{"_pdbx_struct_assembly.", {"id", "details", "method_details", "oligomeric_details", "oligomeric_count"}},
          {"_pdbx_struct_assembly_gen.", {"assembly_id", "oper_expression", "asym_id_list"}},
          {"_pdbx_struct_oper_list.", oper}};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

}  // namespace

std::vector<std::string> incomplete_assembly_categories(const std::vector<std::string>& tags) {
  std::set<std::string> present;
  for (const std::string& tag : tags) present.insert(lower(tag));
  std::vector<std::string> out;
  for (const AssemblyCategory& category : assembly_categories()) {
    const std::string prefix = lower(category.prefix);
    const bool listed = std::any_of(present.begin(), present.end(),
                                    [&](const std::string& tag) { return tag.rfind(prefix, 0) == 0; });
    if (!listed) continue;
    std::string missing;
    for (const std::string& column : category.needed)
      if (!present.count(prefix + lower(column))) missing += (missing.empty() ? "." : ", .") + column;
    if (!missing.empty())
      out.push_back(category.prefix.substr(0, category.prefix.size() - 1) + " lacks " + missing);
  }
  return out;
}

}  // namespace ermak
