#include "ermak/run/resume_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "ermak/config/sopgpu_config.h"
#include "ermak/core/error.h"
#include "ermak/run/config_fingerprint.h"

namespace ermak {
namespace fs = std::filesystem;

std::string keep_the_model_the_run_started_with(const RunSpec& spec, const fs::path& checkpoint_path,
                                                LoadedSystem& system) {
  if (spec.input.structure.empty()) return "";
  std::optional<std::string> model_then;
  try {
    const Checkpoint cp = read_checkpoint(checkpoint_path);
    model_then.emplace();
    for (const auto& [key, value] : cp.extra)
      if (key == kModelFingerprint) *model_then = value;
  } catch (const Error&) {
    return "";  // no checkpoint, or a damaged one: the resume's own checks say so
  }
  if (!model_then->empty() && *model_then == model_fingerprint(system.topology)) return "";
  LoadedSystem earlier = load_system(spec.input, spec.model_build, CaDistances::double_precision);
  if (!model_then->empty() && *model_then != model_fingerprint(earlier.topology)) return "";
  system = std::move(earlier);
  return "the model of " + spec.input.structure.string() +
         " is built from double-precision C-alpha distances, as ermak built it before commit dd1af8e (2026-11-29), "
         "when this run started; new runs use SOP-GPU's float distances, as `ermak topology` does "
         "(docs/config.md#input--the-model)";
}

std::string encode_offsets(const Checkpoint::Offsets& offsets) {
  std::string text;
  for (const auto& [name, offset] : offsets) text += std::to_string(offset) + " ";
  return text;
}

Checkpoint::Offsets offsets_without_end_rows(const Checkpoint& cp, const std::string& text, const fs::path& file) {
  Checkpoint::Offsets offsets = cp.output_offsets;
  std::istringstream in(text);
  for (auto& [name, offset] : offsets) {
    std::uint64_t before = 0;
    if (!(in >> before) || before > offset)
      throw Error(file.string(), 0, kOffsetsBeforeEndRows, "does not match the output offsets (the file is damaged)");
    offset = before;
  }
  if (std::string rest; in >> rest)
    throw Error(file.string(), 0, kOffsetsBeforeEndRows, "does not match the output offsets (the file is damaged)");
  return offsets;
}

void check_checkpoint_of_this_run(const Checkpoint& cp, const RunSpec& spec, const fs::path& checkpoint_path,
                                  const Topology& topology) {
  const std::int32_t n = topology.bead_count();
  const std::int32_t replicas = spec.replicas;
  const std::string model_print = model_fingerprint(topology);
  const std::string model_size = model_summary(topology);
  auto written_by = [&](const std::string& resolved) {
    return cp.config_fingerprint == config_fingerprint(resolved) ||
           cp.config_fingerprint == config_fingerprint_with_minimize(resolved) ||
           cp.config_fingerprint == config_fingerprint_with_input_paths(resolved) ||
           cp.config_fingerprint == legacy_config_fingerprint(resolved);
  };
  if (!written_by(spec.resolved_toml) &&
      std::none_of(spec.earlier_resolved_toml.begin(), spec.earlier_resolved_toml.end(), written_by)) {
    // Checkpoints since 2026-11-28 keep the settings they were written with: name what changed.
    std::string changed;
    for (const auto& [key, value] : cp.extra)
      if (key == kConfigSettings)
        for (const std::string& d :
             fingerprint_differences(value, spec.resolved_toml, 4, [&](const std::string& name) {
               const std::string written = key_as_written(spec, name);
               return written.empty() ? name
                                      : name + " (" + written + " in " + spec.config_path.filename().string() + ")";
             }))
          changed += (changed.empty() ? ": " : "; ") + d;
    // Nothing differs in what the fingerprint covers now: the checkpoint is of an ermak whose
    // fingerprint also covered [minimize] and a .sop run's heating stop.
    const bool settings_kept = std::any_of(cp.extra.begin(), cp.extra.end(),
                                           [](const auto& e) { return e.first == kConfigSettings; });
    if (settings_kept && changed.empty())
      changed = is_sopgpu_config(spec.config_path)
                    ? ": this checkpoint was written by an earlier ermak, whose check also covered the heating "
                      "schedule's end (which numsteps sets); resume it with the numsteps it was written with"
                    : ": this checkpoint was written by an earlier ermak, whose check also covered [minimize]; "
                      "resume it with [minimize] as it was";
    throw Error(checkpoint_path.string(), 0, "",
                "the configuration differs from the one this checkpoint was written with" + changed +
                    (is_sopgpu_config(spec.config_path)
                         ? " (on --resume only numsteps and where the run is computed may change: --backend, "
                           "--threads, the GPU, the paths of the input files; docs/outputs.md#resuming-elsewhere)"
                         : " (on --resume only the step counts and where the run is computed may change: [run] "
                           "steps, backend, device, threads, cuda_kernels, [minimize] (a resume never minimises), the paths of the "
                           "[input] files, [output] directory; docs/outputs.md#resuming-elsewhere)"));
  }
  // The model by content (checkpoints since 2026-11-29): the input files may have moved,
  // but what they give must be what the run started with.
  std::string model_then, model_then_summary;
  for (const auto& [key, value] : cp.extra) {
    if (key == kModelFingerprint) model_then = value;
    if (key == kModelSummary) model_then_summary = value;
  }
  if (!model_then.empty() && model_then != model_print) {
    std::string then = model_then_summary.empty() ? "" : ", the run's had " + model_then_summary;
    if (model_then_summary == model_size) then += " but other bonds, contacts, parameters or bead names";
    throw Error(checkpoint_path.string(), 0, "",
                "the model differs from the one this run started with: the input files now give " + model_size +
                    then + "; --resume continues a run with its own model (docs/outputs.md#resume)");
  }
  if (spec.steps < cp.step)
    throw key_error(spec, "run.steps",
                "the checkpoint is at step " + std::to_string(cp.step) + ", beyond the " +
                    std::to_string(spec.steps) + " steps asked for; --resume continues a run, it cannot shorten "
                    "one (give at least " + std::to_string(cp.step) + ")",
                    is_sopgpu_config(spec.config_path) ? "numsteps" : "");
  if (cp.positions.bead_count != n || cp.positions.replica_count != replicas)
    throw Error(checkpoint_path.string(), 0, "", "checkpoint shape does not match the model");
  // Every engine writes the list reference of each bead of each replica; another shape is a
  // file that was not written by a run of this model (a backend would read past it).
  if (cp.neighbor_reference.bead_count != n || cp.neighbor_reference.replica_count != replicas)
    throw Error(checkpoint_path.string(), 0, "neighbor_reference",
                fmt::format("holds {} beads × {} replicas, but the run has {} × {}: not a checkpoint of this run",
                            cp.neighbor_reference.bead_count, cp.neighbor_reference.replica_count, n, replicas));
  if (cp.positions.step != cp.step)
    throw Error(checkpoint_path.string(), 0, "positions",
                fmt::format("are of step {}, but the checkpoint is at step {}: a damaged checkpoint",
                            cp.positions.step, cp.step));
}

}  // namespace ermak
