#include "bench/standard_systems.h"

#include <cstdlib>

#include "ermak/core/error.h"

#include "ermak/io/assembly.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"

namespace ermak::bench {

std::filesystem::path shared_data_directory() {
  if (const char* env = std::getenv("ERMAK_SHARED_DATA")) return env;
  return "../shared/data";
}

namespace {

// The C-alpha model ermak topology builds, at its native coordinates.
LoadedSystem c_alpha_model(const StructureModel& model) {
  BuiltTopology built = build_topology(model, {});
  LoadedSystem loaded;
  loaded.initial_positions_A = built.topology.native_positions_A;
  loaded.topology = std::move(built.topology);
  return loaded;
}

// The CCMV capsid (1CWP, 180 chains, 28 620 C-alpha beads) as `ermak topology
// 1CWP_pdb2cif.cif --assembly ncs --ncs-frame origx` builds it: the 1995 entry's MTRIX
// operators are written in its ORIGX frame; applied to the entry's coordinates they put
// copies on top of each other and the run breaks a bond (docs/benchmarks.md#capsids-memory-per-bead-the-largest-system).
// `copies` capsids 400 Å apart (the capsid's diameter is < 290 Å, so copies do not touch)
// make one ~10⁵-bead structure.
LoadedSystem capsids(const std::filesystem::path& cif, int copies) {
  StructureModel model = extract_structure_model(read_structure_file(cif), cif.string(), {});
  expand_assembly(model, "ncs", NcsFrame::Origx);
  if (copies > 1) {
    std::vector<SymmetryOperator> ops(static_cast<std::size_t>(copies));
    for (int k = 0; k < copies; ++k) {
      ops[std::size_t(k)].t[0] = 400.0 * (k % 2);
      ops[std::size_t(k)].t[1] = 400.0 * (k / 2);
    }
    replicate_by_operators(model, ops, "copies of the capsid");
  }
  return c_alpha_model(model);
}

// One chain of a structure file as ermak topology builds its C-alpha model (the bench
// only: the builder itself takes whole files).
LoadedSystem one_chain(const std::filesystem::path& file, const std::string& chain) {
  StructureModel model = extract_structure_model(read_structure_file(file), file.string(), {});
  std::erase_if(model.residues, [&](const StructureResidue& r) { return r.chain_id != chain; });
  return c_alpha_model(model);
}

}  // namespace

std::vector<BenchSystem> standard_systems() {
  const auto data = shared_data_directory();
  std::vector<BenchSystem> systems;
  BenchSystem ww{"ww", "WW domain, SOP-GPU reference topology (34 beads)", {}, {}};
  ww.input.topology = data / "sopgpu/ww/reference/ww.top";
  ww.input.coordinates = data / "sopgpu/ww/reference/ww_cg.pdb";
  systems.push_back(ww);
  BenchSystem ubq{"ubq", "ubiquitin 1UBQ, C-alpha model built by ermak (76 beads)", {}, {}};
  ubq.input.structure = "/usr/share/freesasa/test-data/1ubq.pdb";
  systems.push_back(ubq);
  // Mid-sized single proteins, the common targets of pulling studies, on both sides of
  // the block family's all-pairs limit (docs/gpu.md#kernel-families).
  BenchSystem i27{"i27", "titin I27 1TIT, C-alpha model built by ermak (89 beads)", {}, {}};
  i27.input.structure = data / "pdb/1TIT.pdb";
  systems.push_back(i27);
  const auto cif = data / "derived/1CWP_pdb2cif.cif";
  systems.push_back({"cp", "CCMV coat protein, chain A of 1CWP, C-alpha model (149 beads)", {},
                     [cif] { return one_chain(cif, "A"); }});
  BenchSystem lmb{"lmb", "lambda repressor dimer 1LMB, C-alpha model built by ermak (179 beads)", {}, {}};
  lmb.input.structure = data / "pdb/1LMB.pdb";
  systems.push_back(lmb);
  systems.push_back({"fabl", "Fab light chain, chain L of 1A0Q, C-alpha model (211 beads)", {},
                     [] { return one_chain("/usr/share/freesasa/test-data/1a0q.pdb", "L"); }});
  BenchSystem pf8{"pf8", "microtubule protofilament PF8, SOP-GPU topology (6928 beads)", {}, {}};
  pf8.input.topology = data / "sopgpu/pf8/PF8.top";
  pf8.input.coordinates = data / "sopgpu/pf8/PF8_sop.pdb";
  systems.push_back(pf8);
  // A mid-sized single structure (per-bead family alone on the GPU): the full-length
  // fibrinogen model of SOP-GPU's pulling studies, 6 chains, 2964 C-alpha beads (the
  // glycans are not amino acids and get no bead).
  BenchSystem fg{"fg", "fibrinogen, SOP-GPU's full-length all-atom model, C-alpha model built by ermak (2964 beads)",
                 {}, {}};
  fg.input.structure = data / "derived/fibrinogen_fullfg_sopgpu_model.pdb";
  systems.push_back(fg);
  systems.push_back({"ccmv", "CCMV capsid 1CWP, NCS assembly (ORIGX frame), C-alpha model (28620 beads)", {},
                     [cif] { return capsids(cif, 1); }});
  systems.push_back({"ccmv4", "four CCMV capsids 400 A apart, one structure (114480 beads)", {},
                     [cif] { return capsids(cif, 4); }});
  return systems;
}

LoadedSystem load_bench_system(const BenchSystem& system) {
  try {
    return system.build ? system.build() : load_system(system.input, ModelBuildSpec{});
  } catch (const Error& e) {
    // Most systems come from the shared data; where that directory is missing, say where
    // it was looked for and how to point at it, not only which file was not found.
    const std::filesystem::path data = shared_data_directory();
    if (std::filesystem::is_directory(data)) throw;
    throw Error(std::string(e.what()) + " (system \"" + system.name + "\": the standard systems are read from " +
                data.string() + ", which does not exist here: run from the repository's root, beside ../shared, or " +
                "set ERMAK_SHARED_DATA to the data directory; docs/benchmarks.md)");
  }
}

}  // namespace ermak::bench
