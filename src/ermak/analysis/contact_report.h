#pragma once
// The contacts part of `ermak analyze --contacts` (docs/analysis.md#which-contacts-break---contacts):
// every replica's native-contact ruptures from its trajectory (contact_rupture.h), written as
// contact_ruptures.tsv (one row per replica and contact), contact_fractions.tsv (Q at every
// frame, within chains and between them), contacts.tsv (one row per contact
// over the replicas, in their mean rupture order) and, for a pulling run with unfolding peaks,
// peak_contacts.tsv (the contacts that broke at each peak); plus its section of summary.txt.
// Called by analyze_run, which owns the other outputs.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/run_directory.h"
#include "ermak/model/structure_observables.h"
#include "ermak/model/topology.h"

namespace ermak::analysis {

// What the contacts analysis reads, found before anything is written: the model and each
// replica's trajectory.
struct ContactInputs {
  std::filesystem::path model_file;  // RUN_DIR/model.etop (runs pooled: the first run's)
  Topology topology;
  // The replicas with a trajectory.dcd, and those without (left out, with a warning).
  std::vector<Replica> replicas;
  std::vector<std::string> without_trajectory;
  double formed_ratio = kDefaultContactFormedRatio;
  std::string formed_ratio_source;  // "the run's [output] contact_formed_ratio, from run.log" or the default
};

// Throws ermak::Error (naming the option --contacts and the reason) for a run without
// trajectories — [output] trajectory_every = 0 in run.log, or no replica_NNN/trajectory.dcd —
// or without its model.etop.
ContactInputs find_contact_inputs(const std::filesystem::path& run_dir, const std::vector<Replica>& replicas,
                                  const RunLogFacts& run_log);

// An unfolding peak's step and the step where its drop ends (force_spectroscopy.h,
// drop_end_row).
struct PeakDrop {
  std::int64_t peak_step = 0, drop_end_step = 0;
};

struct ContactReportOptions {
  // The unfolding peaks of each constant-velocity replica (by Replica::index), in order, as
  // peaks.tsv numbers them (pulling_report.cpp). Empty for other runs.
  std::map<int, std::vector<PeakDrop>> peaks;
  bool overwrite = false;
};

struct ContactReport {
  std::string summary;  // the section of summary.txt
  std::string files;    // its lines of summary.txt's Files list
  std::string brief;    // one line for the terminal
  std::vector<std::string> produced;
  std::vector<std::string> warnings;
};

// Reads every replica's trajectory (one at a time) and writes the tables into `out`, appending
// their paths to `files`.
ContactReport write_contact_report(const ContactInputs& inputs, const ContactReportOptions& options,
                                   const std::filesystem::path& out, std::vector<std::filesystem::path>& files);

// "A:12", the residue of a bead as the configuration's bead selections name it
// (docs/config.md#bead-selections): chain:number, the insertion code after the number, and
// ":CB" for a bead other than a C-alpha.
std::string residue_label(const Topology& topology, std::int32_t bead);

}  // namespace ermak::analysis
