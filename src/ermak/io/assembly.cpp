#include "ermak/io/assembly.h"

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/math.hpp>

#include "ermak/core/error.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

// A symmetry file's translations: far beyond any assembly (a virus capsid spans ~10³ Å),
// and copies moved this far still fit the model PDB's ±10⁷ Å.
constexpr double kLargestTranslation_A = 1e6;

// One operator applied to a selection of residues.
struct Job {
  SymmetryOperator op;
  std::string suffix;
  const AssemblyRecord::Generator* generator = nullptr;  // nullptr: every residue
};

int count_chains(const std::vector<StructureResidue>& residues) {
  std::set<std::string> names;
  for (const StructureResidue& r : residues) names.insert(r.chain_id);
  return static_cast<int>(names.size());
}

// A rigid motion: R·Rᵀ = I and det R = +1 (no scaling, no mirror image); "" when it is one,
// else what it is instead.
std::string rotation_problem(const SymmetryOperator& op) {
  double worst = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int k = 0; k < 3; ++k) s += op.r[i][k] * op.r[j][k];
      worst = std::max(worst, std::abs(s - (i == j ? 1.0 : 0.0)));
    }
  const auto& r = op.r;
  const double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
                     r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                     r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  if (!(worst <= 1e-3))
    return "the 3x3 part is not a rotation (R times R-transpose differs from the identity by " + std::to_string(worst) +
           ", more than the 0.001 allowed)";
  if (det < 0) return "the 3x3 part is a reflection (det R = -1), not a rotation";
  return "";
}

// Two operators that move every atom of a 100 Å protein by less than ~0.01 Å alike.
bool same_motion(const SymmetryOperator& a, const SymmetryOperator& b) {
  for (int i = 0; i < 3; ++i) {
    if (!(std::abs(a.t[i] - b.t[i]) < 1e-3)) return false;
    for (int j = 0; j < 3; ++j)
      if (!(std::abs(a.r[i][j] - b.r[i][j]) < 1e-5)) return false;
  }
  return true;
}

// The file's own operators (assemblies, NCS) must be rigid motions too: a mirror or a
// scaling would build a model that is not the protein.
// And distinct where they move the same chains: an operator given twice (a second identity)
// would put a copy on another, which the builder then refuses as beads at one position,
// naming neither the assembly nor the operator.
void require_rotations(const std::vector<Job>& jobs, const std::string& source, const std::string& what) {
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    if (const std::string problem = rotation_problem(jobs[k].op); !problem.empty())
      throw Error(source, 0, what + " operator " + std::to_string(k + 1), problem);
    for (std::size_t j = 0; j < k; ++j)
      if (jobs[j].generator == jobs[k].generator && same_motion(jobs[j].op, jobs[k].op))
        throw Error(source, 0, what + " operator " + std::to_string(k + 1),
                    "the same motion as operator " + std::to_string(j + 1) +
                        (jobs[k].op.name.empty() ? std::string()
                                                 : " ('" + jobs[k].op.name + "' and '" + jobs[j].op.name + "')") +
                        " on the same chains: its copies would lie on that operator's");
  }
}

bool selected(const StructureResidue& r, const AssemblyRecord::Generator* g) {
  if (!g) return true;
  for (const std::string& c : g->chains)
    if (c == "(all)" || c == r.source_chain) return true;  // the file's name (chain_id may be A-2)
  return std::find(g->subchains.begin(), g->subchains.end(), r.subchain) != g->subchains.end();
}

// Operator names become chain-name suffixes when they are short, plain and distinct;
// otherwise the operators are numbered 1, 2, 3, ...
void assign_suffixes(std::vector<Job>& jobs) {
  std::set<std::string> seen;
  bool usable = true;
  for (const Job& j : jobs) {
    const std::string& n = j.op.name;
    const bool plain = !n.empty() && n.size() <= 4 &&
                       std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isalnum(c); });
    usable = usable && plain && seen.insert(n).second;
  }
  for (std::size_t k = 0; k < jobs.size(); ++k)
    jobs[k].suffix = usable ? jobs[k].op.name : std::to_string(k + 1);
}

ExpansionReport apply(StructureModel& model, std::vector<Job>& jobs, const std::string& what) {
  ExpansionReport report;
  report.what = what;
  report.operators = static_cast<int>(jobs.size());
  report.chains_before = count_chains(model.residues);
  report.residues_before = model.residues.size();
  assign_suffixes(jobs);
  const bool rename = jobs.size() > 1;
  const int copies_before =
      1 + std::max_element(model.residues.begin(), model.residues.end(),
                           [](const StructureResidue& a, const StructureResidue& b) { return a.copy < b.copy; })
              ->copy;
  std::vector<StructureResidue> out;
  // New chain name → (job, old chain name): a name must not stand for two chains.
  std::map<std::string, std::pair<std::size_t, std::string>> owner;
  std::map<std::pair<std::size_t, std::string>, std::string> named;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const Job& job = jobs[k];
    for (const StructureResidue& r : model.residues) {
      if (!selected(r, job.generator)) continue;
      StructureResidue copy = r;
      for (StructureAtom& a : copy.atoms) a.position_A = job.op.apply(a.position_A);
      // Copy indices stay unique over repeated expansions (assembly, then symmetry).
      copy.copy = static_cast<int>(k) * copies_before + r.copy;
      if (rename) {
        auto key = std::make_pair(k, r.chain_id);
        auto it = named.find(key);
        if (it == named.end()) {
          std::string name = expansion_chain_name(r.chain_id, job.suffix);
          for (int extra = 2; owner.count(name); ++extra)
            name = expansion_chain_name(r.chain_id, job.suffix) + "_" + std::to_string(extra);
          owner[name] = key;
          it = named.emplace(key, name).first;
        }
        copy.chain_id = it->second;
      }
      out.push_back(std::move(copy));
    }
  }
  if (out.empty()) {
    // With a chain selection the chains the generators name may simply have been left out.
    std::string chosen;
    for (const std::string& c : model.chains_selected) chosen += (chosen.empty() ? "" : ",") + c;
    throw Error(model.source, 0, "assembly",
                what + " selects no protein residue (its generators name chains/subchains " +
                    (chosen.empty() ? std::string("that hold no amino acids)")
                                    : "that hold no amino acids, or that --chains " + chosen + " left out)"));
  }
  model.residues = std::move(out);
  report.chains_after = count_chains(model.residues);
  report.residues_after = model.residues.size();
  return report;
}

}  // namespace

std::string expansion_chain_name(const std::string& base, const std::string& suffix) {
  if (!base.empty() && std::isdigit(static_cast<unsigned char>(base.back()))) return base + "-" + suffix;
  return base + suffix;
}

namespace {
gemmi::Transform to_transform(const SymmetryOperator& op) {
  gemmi::Transform tr;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) tr.mat[i][j] = op.r[i][j];
    tr.vec.at(i) = op.t[i];
  }
  return tr;
}
}  // namespace

SymmetryOperator conjugate_by_frame(const SymmetryOperator& m, const SymmetryOperator& f) {
  // A true inverse (gemmi's, by cofactors), not the transpose: ORIGX is a rotation only to
  // its 6 printed decimals, and the identity copy must come back to the entry's coordinates.
  const gemmi::Transform frame = to_transform(f);
  const double det = frame.mat.determinant();
  if (!(std::abs(det) > 1e-6))
    throw Error(std::string("ORIGX: ") + "the 3x3 part is singular (det " + std::to_string(det) + ")");
  // x ↦ F⁻¹(M(F x + f) + m.t − f)
  const gemmi::Transform c = frame.inverse().combine(to_transform(m)).combine(frame);
  SymmetryOperator out;
  out.name = m.name;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out.r[i][j] = c.mat[i][j];
    out.t[i] = c.vec.at(i);
  }
  return out;
}

namespace {
// What gemmi left unread for a missing tag, as the reason an assembly is absent or empty.
std::string unread_assembly_categories(const StructureModel& model) {
  if (model.assembly_tags_missing.empty()) return "";
  std::string list;
  for (const std::string& line : model.assembly_tags_missing) list += (list.empty() ? "" : "; ") + line;
  return " — the file's " + list + ", and the mmCIF reader (gemmi) skips such a category whole: add the missing "
         "column(s) (descriptive values may be '?'; an operator's matrix and vector must be numbers)";
}
}  // namespace

ExpansionReport expand_assembly(StructureModel& model, const std::string& id, NcsFrame ncs_frame) {
  std::vector<Job> jobs;
  const bool ncs = id == "ncs" || id == "NCS";
  if (ncs_frame == NcsFrame::Origx) {
    if (!ncs)
      throw Error(model.source, 0, "assembly",
                  "the ORIGX frame applies to the NCS operators only (--assembly ncs), not to assembly '" + id +
                      "'");
    if (!model.origx)
      throw Error(model.source, 0, "ORIGX",
                  "the file has no ORIGX (ORIGXn / _database_PDB_matrix.origx) other than the identity: "
                  "its NCS operators can only be in the entry's frame");
  }
  if (ncs) {
    if (model.ncs_operators.empty())
      throw Error(model.source, 0, "assembly",
                  "the file has no NCS operators to generate (MTRIX / _struct_ncs_oper with "
                  "code 'generate')");
    Job identity;
    identity.op.name = "1";
    jobs.push_back(identity);
    for (const SymmetryOperator& op : model.ncs_operators)
      jobs.push_back({ncs_frame == NcsFrame::Origx ? conjugate_by_frame(op, *model.origx) : op, "", nullptr});
    for (Job& j : jobs) j.op.name.clear();  // numbered 1..n, identity first
    require_rotations(jobs, model.source, "NCS");
    return apply(model, jobs,
                 "NCS operators (identity + " + std::to_string(model.ncs_operators.size()) + ")" +
                     (ncs_frame == NcsFrame::Origx ? " in the ORIGX frame" : ""));
  }
  const AssemblyRecord* assembly = nullptr;
  for (const AssemblyRecord& a : model.assemblies)
    if (a.id == id) assembly = &a;
  if (!assembly) {
    std::string available;
    for (const AssemblyRecord& a : model.assemblies) available += (available.empty() ? "" : ", ") + a.id;
    if (!model.ncs_operators.empty())
      available += std::string(available.empty() ? "" : ", ") + "ncs (" +
                   std::to_string(model.ncs_operators.size()) + " NCS operators)";
    throw Error(model.source, 0, "assembly",
                "there is no assembly '" + id + "'; " +
                    (available.empty() ? "the file lists no biological assembly and no NCS operators"
                                       : "available: " + available) +
                    unread_assembly_categories(model));
  }
  for (const AssemblyRecord::Generator& g : assembly->generators)
    for (const SymmetryOperator& op : g.operators) jobs.push_back({op, "", &g});
  if (jobs.empty())
    throw Error(model.source, 0, "assembly",
                "assembly '" + id + "' has no operators" + unread_assembly_categories(model));
  require_rotations(jobs, model.source, "assembly '" + id + "'");
  return apply(model, jobs, "assembly " + id);
}

ExpansionReport replicate_by_operators(StructureModel& model, const std::vector<SymmetryOperator>& operators,
                                       const std::string& what) {
  std::vector<Job> jobs;
  for (const SymmetryOperator& op : operators) jobs.push_back({op, "", nullptr});
  for (Job& j : jobs) j.op.name.clear();  // numbered 1..n
  if (jobs.empty()) throw Error(what, 0, "symmetry", "no operators");
  return apply(model, jobs, what);
}

std::vector<SymmetryOperator> read_symmetry_file(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(file, 0, "symmetry", "file not found");
  if (std::filesystem::is_directory(path, ec)) throw Error(file, 0, "symmetry", "is a directory; give a file");
  std::ifstream in(path);
  if (!in) {
    const int open_errno = errno;
    throw Error(file, 0, "symmetry", cannot_open_input(file, open_errno));
  }
  std::vector<SymmetryOperator> ops;
  std::vector<int> op_lines;  // first line of each operator
  SymmetryOperator current;
  int row = 0, first_line = 0, line_number = 0;
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_number;
    std::string_view line(raw);
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto columns = text::split_columns(line);
    if (columns.empty()) continue;
    const std::string field = "operator " + std::to_string(ops.size() + 1) + " row " + std::to_string(row + 1);
    if (columns.size() != 4)
      throw Error(file, line_number, field,
                  "expected 4 numbers 'R_k1 R_k2 R_k3 t_k', found " + std::to_string(columns.size()) +
                      " column(s)");
    for (int c = 0; c < 4; ++c) {
      const auto value = text::parse_number<double>(columns[c]);
      if (!value) throw Error(file, line_number, field, "'" + std::string(columns[c]) + "' is not a number");
      if (c < 3) current.r[row][c] = *value;
      else current.t[row] = *value;
    }
    // The copies' coordinates must fit the model's PDB (and stay far from float overflow).
    if (!(std::abs(current.t[row]) < kLargestTranslation_A))
      throw Error(file, line_number, field,
                  "the translation " + std::string(columns[3]) + " Å is beyond the ±10⁶ Å a model can use "
                  "(the PDB holds ±10⁷ Å)");
    if (row == 0) first_line = line_number;
    if (++row < 3) continue;
    if (const std::string problem = rotation_problem(current); !problem.empty())
      throw Error(file, first_line, "operator " + std::to_string(ops.size() + 1), problem);
    for (std::size_t k = 0; k < ops.size(); ++k)
      if (same_motion(ops[k], current))
        throw Error(file, first_line, "operator " + std::to_string(ops.size() + 1),
                    "the same as operator " + std::to_string(k + 1) + " (line " + std::to_string(op_lines[k]) +
                        "): its copy would lie on top of that one");
    current.name = std::to_string(ops.size() + 1);
    ops.push_back(current);
    op_lines.push_back(first_line);
    current = SymmetryOperator{};
    row = 0;
  }
  if (row != 0)
    throw Error(file, line_number, "operator " + std::to_string(ops.size() + 1),
                "the file ends after " + std::to_string(row) + " of the 3 rows of an operator");
  if (ops.empty()) throw Error(file, 0, "symmetry", "the file holds no operator (3 lines of 4 numbers each)");
  return ops;
}

}  // namespace ermak
