#pragma once
// An output directory that already holds a run (docs/outputs.md#layout-of-an-output-directory):
// a new run there needs --force, and with --force it first removes the earlier run's files,
// so that no old checkpoint, final structure or replica directory is left beside the new
// run's (a later --resume or `ermak analyze` would mix them).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace ermak {

// Whether `dir` holds what a run that started stepping leaves: a checkpoint, the model
// files or a replica directory. A run log alone (a run stopped by an error in its start
// checks) does not count: the next run replaces it.
bool directory_has_run(const std::filesystem::path& dir);

// model.pdb or model.etop in a directory that holds no run (directory_has_run): a file of
// the user's, or one copied there, which a new run would write its model over. Empty when
// neither exists.
std::vector<std::filesystem::path> model_files_without_run(const std::filesystem::path& dir);

// Where a --force run over an earlier run writes its log until it has removed that run's
// files: "run.log.new" beside `log` ("run.log"), renamed over it then (run/simulation.cpp).
std::filesystem::path pending_run_log(const std::filesystem::path& log);

// Removes the files ermak run writes (run.log, run.log.new, checkpoint.ckpt and its temporary, model.psf,
// model.pdb, model.etop, and in every replica_NNN/ directory energies.tsv, trajectory.dcd,
// pulling.tsv, plane.tsv, indentation.tsv, final.pdb; a replica directory left empty goes
// too). Other files, e.g. `ermak analyze`'s analysis/, stay; with `keep_run_log` so do
// run.log and run.log.new (a new run's log, opened before its start checks). Returns how many files it removed.
std::size_t remove_previous_run(const std::filesystem::path& dir, bool keep_run_log = false);

// "DIR/analysis holds the analysis of `whose`; `ermak analyze DIR --force` redoes it for this
// one" when `dir`/analysis holds an `ermak analyze` summary, else "": ermak run --force keeps
// analysis/ (not its file), so the run's log and ermak demo say that it is stale.
std::string earlier_analysis_note(const std::filesystem::path& dir, const std::string& whose);

// The files of those names that exist in `dir` and its replica directories (links
// included, not followed): what remove_previous_run would remove and a new run rewrites.
std::vector<std::filesystem::path> previous_run_files(const std::filesystem::path& dir);

// Whether `log` is no regular file or an empty one, or reads as an ermak run log (its first line starts with a
// "[YYYY-MM-DD HH:MM:SS] " time stamp): a file of that name that is neither (a user's notes) is
// not the run's to replace without --force.
bool is_absent_empty_or_ermak_log(const std::filesystem::path& log);

}  // namespace ermak
