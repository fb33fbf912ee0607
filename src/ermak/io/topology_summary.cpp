#include "ermak/io/topology_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "ermak/model/residue_selection.h"

namespace ermak {
namespace {

void line(std::string& out, const char* format, auto... values) {
  if constexpr (sizeof...(values) == 0) {
    out += format;  // a line without values is no format (gcc 13: -Wformat-security)
  } else {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, format, values...);
    out += buffer;
  }
  out += '\n';
}

const char* format_name(StructureFormat f) { return f == StructureFormat::Pdb ? "PDB" : "mmCIF"; }

std::string ordinal(int n) {
  static const char* const kWords[] = {"first", "second", "third"};
  if (n >= 1 && n <= 3) return kWords[n - 1];
  const char* suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                       : n % 10 == 1                     ? "st"
                       : n % 10 == 2                     ? "nd"
                       : n % 10 == 3                     ? "rd"
                                                         : "th";
  return std::to_string(n) + suffix;
}

// "model 2 of 10"; a file whose models are numbered otherwise than 1, 2, …: "model 5, the
// first of 2" (not "model 5 of 2").
std::string which_model(const StructureModel& model) {
  if (model.model_name == std::to_string(model.model_position))
    return "model " + model.model_name + " of " + std::to_string(model.model_count);
  return "model " + model.model_name + ", the " + ordinal(model.model_position) + " of " +
         std::to_string(model.model_count);
}

}  // namespace

std::string format_topology_summary(const StructureModel& model, const BuiltTopology& built,
                                    const TopologyRunInfo& info, std::size_t max_chains) {
  const Topology& top = built.topology;
  const TopologyOptions& o = info.options;
  const bool cacb = o.model_type == ModelType::CAlphaCBeta;
  std::string out;
  line(out, "# ermak topology %s summary", ERMAK_VERSION);
  line(out, "name             %s", info.name.c_str());
  std::string chains;
  for (const std::string& c : model.chains_selected) chains += (chains.empty() ? ", chains " : " ") + c;
  line(out, "input            %s (%s, %s%s)", info.input.string().c_str(), format_name(model.format),
       which_model(model).c_str(), chains.c_str());
  for (const ExpansionReport& e : info.expansions)
    line(out, "expansion        %s: %d operator(s), %d -> %d chains, %zu -> %zu residues", e.what.c_str(),
         e.operators, e.chains_before, e.chains_after, e.residues_before, e.residues_after);
  if (cacb)
    line(out, "model            cacb: backbone bead at CA, side-chain bead at %s (glycine: none)",
         o.sidechain_bead == SidechainBead::Centroid ? "the side-chain heavy-atom centroid" : "CB");
  else
    line(out, "model            ca: one bead per residue at CA");
  char rule[256];
  std::string criteria;
  if (o.r_limit_A > 0) {
    std::snprintf(rule, sizeof rule, "%s distance < %g A", cacb ? "bead" : "C-alpha", o.r_limit_A);
    criteria = rule;
  }
  if (o.sc_limit_A > 0) {
    std::snprintf(rule, sizeof rule, "side-chain heavy-atom distance < %g A", o.sc_limit_A);
    criteria += (criteria.empty() ? "" : " or ") + std::string(rule);
  }
  const std::string rule_text =
      "more than 2 residues apart along a chain (bonded neighbours 1 apart whatever their numbers, across a break "
      "the numbers' difference; any pair across chains), not bonded, and " +
      criteria;
  line(out, "native rule      %s", rule_text.c_str());
  // Per-contact depths from a column: their range, which raw B-factors can make deep.
  std::string eh_range;
  if (o.eh_source != EpsilonSource::Constant && !built.topology.native_contacts.empty()) {
    const auto [lo, hi] = native_energy_range(built.topology);
    char text[96];
    std::snprintf(text, sizeof text, "; %.3g to %.3g kcal/mol over the contacts", lo, hi);
    eh_range = text;
  }
  line(out, "epsilon_h        %s%s", o.eh_source == EpsilonSource::Constant
                                         ? (info.eh_text + " kcal/mol (every contact)").c_str()
                                         : (o.eh_source == EpsilonSource::BFactor
                                                ? "sqrt(B_i B_j) from the B-factor column"
                                                : "sqrt(O_i O_j) from the occupancy column"),
       eh_range.c_str());
  line(out, "chain break      consecutive C-alphas farther than %g A apart are not bonded", o.break_distance_A);
  out += '\n';

  int sidechain = 0;
  for (std::uint8_t s : built.sidechain_bead) sidechain += s;
  line(out, "residues         %d", built.residues);
  line(out, "beads            %d (%d backbone CA, %d side-chain CB)", top.bead_count(),
       top.bead_count() - sidechain, sidechain);
  line(out, "extent           %s", extent_summary(top, top.native_positions_A).c_str());
  std::map<BondKind, int> bonds;
  for (BondKind k : built.bond_kinds) ++bonds[k];
  line(out, "bonds            %zu (backbone %d, CA-CB %d, disulfide %d, extra %d)", top.bonds.size(),
       bonds[BondKind::Backbone], bonds[BondKind::CaCb], bonds[BondKind::Disulfide], bonds[BondKind::Extra]);
  int by_distance = 0, by_sidechain = 0;
  for (ContactReason r : built.contact_reasons) (r == ContactReason::BeadDistance ? by_distance : by_sidechain)++;
  if (cacb) {
    int bb = 0, bs = 0, ss = 0;
    for (const NativeContact& c : top.native_contacts) {
      const int sides = built.sidechain_bead[c.i] + built.sidechain_bead[c.j];
      (sides == 0 ? bb : sides == 1 ? bs : ss)++;
    }
    line(out, "native contacts  %zu (CA-CA %d, CA-CB %d, CB-CB %d; by bead distance %d, by side-chain atoms only %d)",
         top.native_contacts.size(), bb, bs, ss, by_distance, by_sidechain);
  } else {
    line(out, "native contacts  %zu (C-alpha distance %d, side-chain atoms only %d)", top.native_contacts.size(),
         by_distance, by_sidechain);
  }
  const int interchain = static_cast<int>(count_contacts_between_chains(top));
  line(out, "  of which       %d between chains, %d within chains", interchain,
       static_cast<int>(top.native_contacts.size()) - interchain);
  line(out, "repulsive pairs  %lld (all other pairs)", static_cast<long long>(built.repulsive_pairs));
  line(out, "chain breaks     %d", built.chain_breaks);
  line(out, "skipped          %d residue(s) without C-alpha, %d HETATM amino acid(s), %d other non-protein "
            "residue(s), %d water(s); %d hydrogen atom(s) ignored%s",
       model.skipped_no_ca, model.skipped_hetero_amino_acids, model.skipped_other, model.skipped_water,
       model.hydrogens_ignored,
       info.expansions.empty() ? "" : " (counted in the file, before the expansion)");
  out += '\n';

  line(out, "chains           %zu", built.chains.size());
  const std::size_t shown = max_chains == 0 ? built.chains.size() : std::min(max_chains, built.chains.size());
  for (std::size_t k = 0; k < shown; ++k) {
    const ChainSummary& c = built.chains[k];
    line(out, "  %-8s %6d residues %6d..%-6d %7d beads from bead %d", c.id.c_str(), c.residues, c.first_number,
         c.last_number, c.beads, c.first_bead);
  }
  if (shown < built.chains.size())
    line(out, "  ... %zu more (all listed in the summary file)", built.chains.size() - shown);
  out += '\n';

  std::vector<std::string> warnings;
  for (const std::string& w : model.warnings) warnings.push_back(w);
  for (const std::string& w : built.warnings) warnings.push_back(w);
  line(out, "warnings         %zu", warnings.size());
  for (const std::string& w : warnings) line(out, "  %s", w.c_str());
  out += '\n';

  line(out, "outputs");
  for (const auto& [what, path] : info.outputs) line(out, "  %-22s %s", what.c_str(), path.string().c_str());
  if (!info.pairs_note.empty()) line(out, "  %s", info.pairs_note.c_str());
  out += '\n';
  line(out, "timing           read %.3f s, expand %.3f s, build %.3f s, write %.3f s, total %.3f s", info.read_s,
       info.expand_s, info.build_s, info.write_s, info.total_s);
  return out;
}

}  // namespace ermak
