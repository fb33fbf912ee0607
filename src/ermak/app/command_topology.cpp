// `ermak topology INPUT -o OUTDIR`: all-atom PDB/mmCIF → SOP model files (docs/topology.md);
// `ermak topology FILE.sop`: a SOP-GPU topology-creation config (app/topology_from_sop).
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "ermak/app/cli_checks.h"
#include "ermak/app/commands.h"
#include "ermak/run/stability_checks.h"
#include "ermak/app/topology_from_sop.h"
#include "ermak/core/error.h"
#include "ermak/io/assembly.h"
#include "ermak/io/file_kind.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/psf_writer.h"
#include "ermak/io/same_file.h"
#include "ermak/io/sopgpu_top.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/text_fields.h"
#include "ermak/io/topology_builder.h"
#include "ermak/io/topology_file.h"
#include "ermak/io/topology_summary.h"
#include "ermak/model/force_field.h"

namespace ermak::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Above this many beads the .top gets no [ pairs ] unless asked (N²/2 lines).
constexpr int kMaxBeadsForPairs = 2000;
// --top-pairs all lists the pairs in memory (~20 B each) and writes ~20 B of text per pair:
// above this many the .top would run to gigabytes (a capsid's 4·10⁸ pairs ran out of memory).
constexpr double kMaxTopPairs = 5e7;

struct Options {
  std::string input;
  std::string output_dir;
  std::string name;
  int model = -1;  // none given: the file's first
  std::vector<std::string> chains;
  bool keep_hetero = false;
  std::string model_type = "ca";
  std::string sidechain_bead = "centroid";
  double r_limit = kNativeCutoff_A;
  double sc_limit = 5.2;
  std::string eh = "1.5";
  double break_distance = 4.5;
  std::string disulfides = "auto";
  double ss_distance = 2.5;
  std::string extra_bonds;
  std::string assembly;
  std::string ncs_frame = "entry";
  std::string symmetry;
  std::string top_pairs = "auto";
  bool psf_native = false;
  bool force = false;
  bool quiet = false;
};

TopologyOptions builder_options(const Options& o, std::string& eh_text) {
  TopologyOptions t;
  t.model_type = o.model_type == "cacb" ? ModelType::CAlphaCBeta : ModelType::CAlpha;
  t.sidechain_bead = o.sidechain_bead == "cb" ? SidechainBead::CBeta : SidechainBead::Centroid;
  // Options of another mode are refused, not ignored (as --ncs-frame without --assembly ncs).
  if (o.sidechain_bead == "cb" && t.model_type == ModelType::CAlpha)
    throw Error(std::string("--sidechain-bead: ") +
                "places the side-chain beads of --model-type cacb; the C-alpha model has none");
  if (!(o.r_limit >= 0.0 && std::isfinite(o.r_limit)))
    throw Error(std::string("--r-limit: ") + "must be finite and >= 0 (0 disables the distance criterion)");
  if (!(o.sc_limit >= 0.0 && std::isfinite(o.sc_limit)))
    throw Error(std::string("--sc-limit: ") + "must be finite and >= 0 (0 disables the side-chain criterion)");
  if (o.r_limit == 0.0 && o.sc_limit == 0.0)
    throw Error(std::string("--r-limit: ") + "--r-limit and --sc-limit are both 0: no native contact could form");
  t.r_limit_A = o.r_limit;
  t.sc_limit_A = o.sc_limit;
  eh_text = o.eh;
  if (o.eh == "B" || o.eh == "b") {
    t.eh_source = EpsilonSource::BFactor;
  } else if (o.eh == "O" || o.eh == "o") {
    t.eh_source = EpsilonSource::Occupancy;
  } else {
    const auto value = text::parse_number<double>(o.eh);
    // Kept as a float: at most its largest value (1e39 became infinity).
    if (!value || *value < 0.0 || *value > double(std::numeric_limits<float>::max()))
      throw Error(std::string("--eh: ") + "'" + o.eh +
                  "' is neither a value from 0 to 3.4e38 (kcal/mol) nor B nor O");
    t.eh_kcal_per_mol = *value;
  }
  if (!(o.break_distance > 0.0)) throw Error(std::string("--break-distance: ") + "must be > 0");
  if (!(o.ss_distance > 0.0)) throw Error(std::string("--ss-distance: ") + "must be > 0");
  if (o.ss_distance != Options{}.ss_distance && o.disulfides == "none")
    throw Error(std::string("--ss-distance: ") + "finds disulfides by geometry; --disulfides none makes none");
  t.break_distance_A = o.break_distance;
  t.disulfide_sg_distance_A = o.ss_distance;
  t.disulfides = o.disulfides == "records"    ? DisulfideSource::Records
                 : o.disulfides == "geometry" ? DisulfideSource::Geometry
                 : o.disulfides == "none"     ? DisulfideSource::None
                                              : DisulfideSource::Auto;
  t.extra_bonds_file = o.extra_bonds;
  return t;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(path.string(), 0, "", "cannot open the file for writing");
  out << text;
  if (!out.flush()) throw WriteError(path.string(), "", "write failed", errno);
}

int run_topology(const Options& o) {
  const auto start = Clock::now();
  TopologyRunInfo info;
  const TopologyOptions topo = builder_options(o, info.eh_text);
  info.options = topo;
  info.input = o.input;
  info.name = o.name.empty() ? fs::path(o.input).stem().string() : o.name;
  if (info.name.empty() || info.name.find('/') != std::string::npos || info.name.front() == '.')
    throw Error(std::string("--name: ") + "'" + info.name +
                "' cannot name output files (no '/', and no leading '.': the files would be hidden)");

  // Outputs: decided, and checked, before anything is read or written.
  const fs::path dir = o.output_dir;
  const fs::path etop = dir / (info.name + ".etop"), top = dir / (info.name + ".top"),
                 pdb = dir / (info.name + ".pdb"), psf = dir / (info.name + ".psf"),
                 summary = dir / (info.name + "_summary.txt");
  const std::vector<fs::path> outputs = {etop, top, pdb, psf, summary};
  for (const fs::path& p : outputs) {
    if (same_file(p, o.input))
      throw Error(p.string(), 0, "output",
                  "would overwrite the input structure; choose another --name or output directory");
    std::error_code ec;
    // A FIFO would block the writer, a directory fail it after the other files are written,
    // and the .etop's rename would replace a device: refused before anything is read.
    if (const fs::file_status status = fs::status(p, ec); fs::exists(status) && !fs::is_regular_file(status))
      throw Error(p.string(), 0, "output",
                  std::string("exists and is not a regular file (") + special_file_kind(status) +
                      "): remove it or choose another --name or output directory");
    if (!o.force && fs::exists(p, ec))
      throw Error(p.string(), 0, "output", "already exists; use --force to overwrite");
  }

  // --- read ---
  const ParsedStructure parsed = read_structure_file(o.input, topo.eh_source);
  StructureReadOptions read_options;
  if (o.model >= 0) read_options.model = o.model;
  read_options.keep_hetero = o.keep_hetero;
  read_options.chains = o.chains;
  StructureModel model = extract_structure_model(parsed, o.input, read_options);
  // Built as the file's chains (no --assembly or --symmetry): say so when its NCS operators
  // would build more, as `[input] structure` does.
  if (o.assembly.empty() && o.symmetry.empty())
    if (std::string note = ncs_copies_note(model.ncs_operators.size()); !note.empty())
      model.warnings.push_back(std::move(note));
  info.read_s = seconds_since(start);

  // --- expand ---
  const auto expand_start = Clock::now();
  const NcsFrame ncs_frame = o.ncs_frame == "origx" ? NcsFrame::Origx : NcsFrame::Entry;
  if (ncs_frame == NcsFrame::Origx && o.assembly.empty())
    throw Error(std::string("--ncs-frame: ") + "origx applies to the NCS operators: use it with --assembly ncs");
  if (!o.assembly.empty()) info.expansions.push_back(expand_assembly(model, o.assembly, ncs_frame));
  if (!o.symmetry.empty())
    info.expansions.push_back(
        replicate_by_operators(model, read_symmetry_file(o.symmetry), "symmetry file " + o.symmetry));
  info.expand_s = seconds_since(expand_start);

  // --- build ---
  const auto build_start = Clock::now();
  BuiltTopology built = build_topology(model, topo);
  built.topology.name = info.name;
  validate_topology(built.topology, o.input);
  if (const std::string clash = segment_id_clash(built.topology); !clash.empty()) built.warnings.push_back(clash);
  if (const std::string wrap = residue_numbers_beyond_pdb(built.topology); !wrap.empty()) built.warnings.push_back(wrap);
  if (const std::int32_t loose = count_unbonded_beads(built.topology); loose > 0)
    built.warnings.push_back(std::to_string(loose) + " of " + std::to_string(built.topology.bead_count()) +
                             " beads have no bond (a chain of one residue, or a residue cut off by chain breaks)");
  const bool ncs = o.assembly == "ncs" || o.assembly == "NCS";
  if (ncs && ncs_frame == NcsFrame::Entry && model.origx && built.close_bead_pairs > 0)
    built.warnings.push_back(
        "the file has an ORIGX other than the identity: its NCS operators may be written in the submitted "
        "frame, where --ncs-frame origx applies them (docs/topology.md#ncs-operators-and-origx)");
  info.build_s = seconds_since(build_start);

  // --- write ---
  const auto write_start = Clock::now();
  const Topology& t = built.topology;
  // A coordinate the PDB cannot hold stops here, naming the input, before any file is
  // written (and the PDB is written first, whole or not at all).
  check_coordinates_fit_pdb(built.topology, built.topology.native_positions_A, o.input);
  if (o.top_pairs == "all") {
    const double n = double(t.bead_count());
    const double pairs = 0.5 * n * (n - 1.0) - double(t.bonds.size()) - double(t.native_contacts.size());
    if (pairs > kMaxTopPairs)
      throw Error("--top-pairs " + fmt::format("all: {:.3g} repulsive pairs would make a .top of ~{:.0f} GB (and take as "
                                             "much memory to list): at most {:.0e}; SOP-GPU and ermak read a .top "
                                             "without [ pairs ] as every pair neither bonded nor native (--top-pairs "
                                             "auto or none)",
                                             pairs, pairs * 20e-9, kMaxTopPairs));
  }
  check_psf_names(built.topology, o.input);  // names the input, where a too-long name is changed
  // Created only once every check has passed: a refused build leaves no empty directory.
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(dir.string(), 0, "output", "cannot create the directory: " + ec.message());
  std::vector<float> x, y, z;
  for (const Vec3d& p : t.native_positions_A) {
    x.push_back(static_cast<float>(p.x));
    y.push_back(static_cast<float>(p.y));
    z.push_back(static_cast<float>(p.z));
  }
  write_pdb(pdb, t, x.data(), y.data(), z.data(),
            "ermak topology " + info.name + " from " + fs::path(o.input).filename().string() + ", " +
                (topo.model_type == ModelType::CAlphaCBeta ? "cacb" : "ca") + " model");
  write_topology_file(t, etop);
  const bool pairs = o.top_pairs == "all" || (o.top_pairs == "auto" && t.bead_count() <= kMaxBeadsForPairs);
  if (pairs) {
    const auto list = list_repulsive_pairs(t);
    write_sopgpu_top(t, top, &list);
    info.pairs_note = "[ pairs ] in the .top: all " + std::to_string(list.size()) + " repulsive pairs";
  } else {
    write_sopgpu_top(t, top);
    info.pairs_note = "[ pairs ] left out of the .top (" +
                      (o.top_pairs == "none" ? std::string("--top-pairs none")
                                             : std::to_string(t.bead_count()) + " beads > " +
                                                   std::to_string(kMaxBeadsForPairs) + "; --top-pairs all writes them") +
                      "): SOP-GPU and ermak take every pair that is neither bonded nor native as repulsive";
  }
  write_psf(psf, t, o.psf_native, /*overwrite=*/true);
  info.outputs = {{"ermak topology", etop},
                  {"SOP-GPU topology", top},
                  {"coarse-grained PDB", pdb},
                  {o.psf_native ? "PSF (bonds + natives)" : "PSF (bonds)", psf},
                  {"summary", summary}};
  info.write_s = seconds_since(write_start);
  info.total_s = seconds_since(start);
  write_text(summary, format_topology_summary(model, built, info));
  if (!o.quiet) std::fputs(format_topology_summary(model, built, info, 12).c_str(), stdout);
  return 0;
}

}  // namespace

Command add_topology_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "topology",
      "Build a SOP model (C-alpha or C-alpha/C-beta) from a PDB/mmCIF structure, or run a SOP-GPU "
      "topology-creation config FILE.sop (docs/topology.md)");
  cmd->footer(
      "With FILE.sop (SOP-GPU sop-top / sop-top2 config) the config names the input and output files, relative "
      "to the current directory as in SOP-GPU; only --force and --quiet apply then "
      "(docs/topology.md#sop-gpu-topology-creation-configs).");
  auto o = std::make_shared<Options>();
  cmd->add_option("input", o->input,
                  "All-atom structure: PDB (.pdb/.ent) or mmCIF (.cif/.mmcif); or a SOP-GPU topology config (.sop)")
      ->required();
  cmd->add_option("-o,--output-dir", o->output_dir,
                  "Directory for the outputs (created when missing); required unless INPUT is a .sop config");
  cmd->add_option("--name", o->name, "Prefix of the output files (default: the input's file stem)");
  cmd->add_option("--model", o->model, "Model number of a multi-model file, as its MODEL record has it (default: the first)")
      ->check(whole_number_at_least(0));
  cmd->add_option("--chains", o->chains,
                  "Only these chains of the file, by their names there (e.g. --chains A,B; default: every chain; "
                  "with --assembly, the copies of these chains)")
      ->delimiter(',');
  cmd->add_flag("--keep-hetero", o->keep_hetero, "Include amino acids in HETATM records (MSE, ...)");
  cmd->add_option("--model-type", o->model_type, "ca: one bead per residue; cacb: plus a side-chain bead")
      ->check(CLI::IsMember({"ca", "cacb"}))
      ->capture_default_str();
  cmd->add_option("--sidechain-bead", o->sidechain_bead,
                  "cacb model: side-chain bead at the heavy-atom centroid or at CB")
      ->check(CLI::IsMember({"centroid", "cb"}))
      ->capture_default_str();
  cmd->add_option("--r-limit", o->r_limit, "Native contact: bead (C-alpha) distance cutoff, A (0 disables)")
      ->capture_default_str();
  cmd->add_option("--sc-limit", o->sc_limit, "Native contact: side-chain heavy-atom distance cutoff, A (0 disables)")
      ->capture_default_str();
  cmd->add_option("--eh", o->eh, "epsilon_h of native contacts: kcal/mol, or B / O for sqrt of the B-factor / "
                                 "occupancy column product")
      ->capture_default_str();
  cmd->add_option("--break-distance", o->break_distance,
                  "Consecutive C-alphas farther apart than this (A) are a chain break: no bond")
      ->capture_default_str();
  cmd->add_option("--disulfides", o->disulfides,
                  "auto: SSBOND/struct_conn records, or SG-SG geometry when the file lists none; records; "
                  "geometry; none")
      ->check(CLI::IsMember({"auto", "records", "geometry", "none"}))
      ->capture_default_str();
  cmd->add_option("--ss-distance", o->ss_distance, "SG-SG distance below which cysteines are bonded, A")
      ->capture_default_str();
  cmd->add_option("--extra-bonds", o->extra_bonds, "File of additional bonds (docs/topology.md#extra-bonds-file)");
  cmd->add_option("--assembly", o->assembly, "Build biological assembly ID of the file, or 'ncs' or 'NCS' (NCS operators)")
      ->check(CLI::Validator(
          [](std::string& id) { return id.empty() ? std::string("must name an assembly of the file, or ncs") : ""; },
          "ID"));
  cmd->add_option("--ncs-frame", o->ncs_frame,
                  "Frame of the NCS operators of --assembly ncs: entry (the file's coordinates), or origx (the "
                  "submitted frame ORIGX maps them to; old entries such as 1CWP)")
      ->check(CLI::IsMember({"entry", "origx"}))
      ->capture_default_str();
  cmd->add_option("--symmetry", o->symmetry, "Replicate the model by the 3x4 operators in FILE "
                                             "(docs/topology.md#symmetry-file)");
  cmd->add_option("--top-pairs", o->top_pairs, "[ pairs ] of the .top: auto (all pairs up to 2000 beads), all, none")
      ->check(CLI::IsMember({"auto", "all", "none"}))
      ->capture_default_str();
  cmd->add_flag("--psf-native", o->psf_native, "Also write native contacts as PSF bonds (to see them in VMD)");
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->add_flag("--quiet", o->quiet, "Do not print the summary (it is still written)");
  return [o, cmd]() {
    if (fs::path(o->input).extension() == ".sop") {
      // The config decides everything else; a command-line option would silently compete with it.
      for (const CLI::Option* option : cmd->get_options())
        if (option->count() > 0 && option->get_name() != "input" && option->get_name() != "--force" &&
            option->get_name() != "--quiet" && option->get_name() != "--help")
          throw Error(std::string(option->get_name()) + ": not used with a .sop config (the config names the "
                      "files and settings); only --force and --quiet apply");
      return run_topology_from_sop(o->input, o->force, o->quiet);
    }
    if (o->output_dir.empty()) throw Error(std::string("--output-dir: ") + "required (-o OUTDIR) for a structure input");
    return run_topology(*o);
  };
}

}  // namespace ermak::app
