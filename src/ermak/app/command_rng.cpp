// `ermak rng`: the random number generators of docs/rng.md on their own.
//   ermak rng list                      generators, layouts, state sizes, periods
//   ermak rng dump --generator NAME     raw 32-bit words to stdout (for dieharder -g 200)
//   ermak rng ou --generator NAME       the application test (oscillators in a thermostat)
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "ermak/app/cli_checks.h"
#include "ermak/app/commands.h"
#include "ermak/core/byte_size.h"
#include "ermak/core/error.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/ou_application.h"

namespace ermak::app {
namespace {

struct DumpOptions {
  std::string generator;
  std::string layout;
  std::uint64_t seed = 1;
  bool raw = false;
  std::uint32_t stream = 0;
  std::uint32_t interleave = 0;
  std::uint64_t count = 0;  // 0 with !count_given: endless
  std::int32_t beads = 1000;
};

// Writes all bytes; false when the reader has gone (EPIPE), throws on other errors.
bool write_all(const void* data, std::size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(STDOUT_FILENO, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) return false;
      throw Error(std::string("rng dump: writing to stdout failed: ") + std::strerror(errno));
    }
    p += n;
    size -= std::size_t(n);
  }
  return true;
}

int run_dump(const DumpOptions& o, bool count_given) {
  // Interleaved streams keep every stream's state: say what too many would take rather
  // than run out of memory (mt19937: 2.5 kB a stream).
  if (o.interleave > 0) {
    const rng::GeneratorLayoutInfo info = rng::generator_layout_info(o.generator, o.layout, o.beads);
    const double per_stream = double(std::max(info.state_bytes_per_thread, info.state_bytes_shared));
    constexpr double kStateLimit = 8.0 * 1024 * 1024 * 1024;
    if (per_stream * o.interleave > kStateLimit)
      throw Error("--interleave: " + std::to_string(o.interleave) + " streams of " + o.generator + " hold " +
                  format_byte_size(per_stream * o.interleave) + " of state; at most " +
                  std::to_string(std::int64_t(kStateLimit / per_stream)) + " streams (8 GiB)");
  }
  // A closed pipe (| head -c, dieharder done) ends the dump quietly with status 0.
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<rng::WordStream> words =
      o.interleave > 0 ? rng::make_interleaved_word_stream(o.generator, o.layout, o.seed, o.interleave, o.beads)
                       : rng::make_word_stream(o.generator, o.layout, o.seed, o.stream, o.beads);
  constexpr std::size_t kBlock = 16384;  // words per write
  std::vector<std::uint32_t> block(kBlock);
  std::string text;
  std::uint64_t left = count_given ? o.count : std::numeric_limits<std::uint64_t>::max();
  while (left > 0) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(left, kBlock));
    words->fill(block.data(), n);
    left -= n;
    bool open;
    if (o.raw) {
      open = write_all(block.data(), n * sizeof(std::uint32_t));
    } else {
      text.clear();
      char line[16];
      for (std::size_t k = 0; k < n; ++k) text.append(line, std::size_t(std::snprintf(line, sizeof line, "%u\n", block[k])));
      open = write_all(text.data(), text.size());
    }
    if (!open) return 0;
  }
  return 0;
}

}  // namespace

Command add_rng_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("rng", "Random number generators: list, raw dump for test batteries, application test (docs/rng.md)");
  cmd->require_subcommand(1);

  auto* list = cmd->add_subcommand("list", "List the generators with their layouts, state sizes and periods");

  auto dump = std::make_shared<DumpOptions>();
  auto* dump_cmd = cmd->add_subcommand("dump", "Write a generator's 32-bit words to stdout (endless without --count), "
                                               "e.g. ermak rng dump --generator ran2 --seed 7 --raw | dieharder -g 200 -a");
  const std::string names = [] {
    std::string s;
    for (const auto& n : rng::generator_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }();
  dump_cmd->add_option("--generator", dump->generator, "Generator: " + names)->required();
  dump_cmd->add_option("--seed", dump->seed, "User seed, as a run's run.seed (0 … 2^63 − 1: a run's seed is a TOML integer)")
      ->capture_default_str()
      ->check(whole_number_at_least(0))
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t(std::numeric_limits<std::int64_t>::max())));
  dump_cmd->add_flag("--raw", dump->raw, "Binary little-endian uint32 (without it: one decimal number per line)");
  dump_cmd->add_option("--layout", dump->layout, "per_thread or shared (default: the generator's default layout)");
  auto* stream_opt = dump_cmd->add_option("--stream", dump->stream,
                                          "Which stream: the thread (bead) of replica 0 for per_thread, the replica "
                                          "for shared")->capture_default_str();
  auto* interleave_opt = dump_cmd->add_option("--interleave", dump->interleave,
                                              "Interleave streams 0..M-1, one word from each in turn")
                            ->check(whole_number_at_least(1));
  stream_opt->excludes(interleave_opt);
  auto* count_opt =
      dump_cmd->add_option("--count", dump->count, "Number of words (default: endless)")->check(whole_number_at_least(0));
  dump_cmd->add_option("--beads", dump->beads,
                       "System size that decides the lag pair of lagged_fibonacci (4 words per bead per step)")
      ->capture_default_str()
      ->check(whole_number_at_least(1));

  auto ou = std::make_shared<rng::OuOptions>();
  auto ou_dir = std::make_shared<std::string>("rng-ou");
  auto* ou_cmd = cmd->add_subcommand(
      "ou", "Application test: N 3-D harmonic oscillators in a stochastic thermostat against the exact "
            "Ornstein-Uhlenbeck mean and autocorrelation (TSV + SVG + PASS/FAIL; exit status 3 on FAIL)");
  ou_cmd->add_option("--generator", ou->generator, "Generator: " + names)->capture_default_str();
  ou_cmd->add_option("--layout", ou->layout, "per_thread or shared (default: the generator's default)");
  ou_cmd->add_option("--oscillators", ou->oscillators, "Number of oscillators N per ensemble")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  ou_cmd->add_option("--steps", ou->steps,
                     "Span of the curves in steps (default 2 tau/dt: 3.3e6 steps at dt = 1 ps; the equilibrium "
                     "ensemble runs 1.5x that)")
      ->check(whole_number_at_least(1));
  ou_cmd->add_option("--samples", ou->samples, "Points per curve")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000000));
  ou_cmd->add_option("--dt", ou->dt_ps, "Time step [ps] (the paper: 1 ps; e.g. 100 for a quick run)")
      ->capture_default_str()
      ->check(positive_finite());
  ou_cmd->add_option("--seed", ou->seed, "User seed")->capture_default_str()->check(whole_number_at_least(0));
  ou_cmd->add_option("--sigmas", ou->tolerance_sigmas, "Tolerance in standard errors")
      ->capture_default_str()
      ->check(positive_finite());
  auto ou_force = std::make_shared<bool>(false);
  ou_cmd->add_flag("--force", *ou_force, "Replace the test's files from an earlier run in the output directory");
  ou_cmd->add_option("-o,--output", *ou_dir, "Output directory")->capture_default_str();
  ou_cmd->add_option("--backend", ou->backend, "cpu or cuda (the device generators, docs/rng.md#gpu)")
      ->capture_default_str();

  return [=]() -> int {
    if (list->parsed()) {
      std::printf("%-17s %-22s %14s  %s\n", "generator", "layouts", "state/thread", "period");
      for (const auto& g : rng::generator_names()) {
        std::string layouts;
        for (const auto& l : rng::layout_names(g)) layouts += (layouts.empty() ? "" : ",") + l;
        const auto info = rng::generator_layout_info(g, "", 1000);
        const std::string state = info.state_bytes_shared > 0
                                      ? std::to_string(info.state_bytes_shared) + " B/replica"
                                      : std::to_string(info.state_bytes_per_thread) + " B";
        std::printf("%-17s %-22s %14s  %s\n", g.c_str(), layouts.c_str(), state.c_str(), info.period.c_str());
      }
      std::printf("(lagged_fibonacci: state and lags for 1000 beads; they grow with the system, docs/rng.md)\n");
      return 0;
    }
    if (dump_cmd->parsed()) return run_dump(*dump, count_opt->count() > 0);
    const std::filesystem::path dir(*ou_dir);
    // The files are named by the generator and layout; refuse to replace an earlier run's
    // before minutes of steps are spent.
    const std::string layout = ou->layout.empty() ? rng::default_layout(ou->generator) : ou->layout;
    std::string stem = "ou_" + ou->generator + "/" + layout + (ou->backend == "cuda" ? "_cuda" : "");
    for (char& c : stem)
      if (c == '/') c = '_';
    for (const char* ext : {".tsv", ".svg"})
      if (!*ou_force && std::filesystem::exists(dir / (stem + ext)))
        throw Error((dir / (stem + ext)).string(), 0, "", "exists; pass --force to replace it");
    if (std::filesystem::exists(dir) && !std::filesystem::is_directory(dir))
      throw Error(dir.string(), 0, "--output", "is a file, not a directory");
    const rng::OuResult result = rng::run_ou_application(*ou);
    std::filesystem::create_directories(dir);
    rng::write_ou_tsv(result, dir / (stem + ".tsv"));
    rng::write_ou_svg(result, dir / (stem + ".svg"));
    if (result.source_name != ou->generator + "/" + layout)
      throw std::logic_error("rng ou: the source is " + result.source_name + ", not " + ou->generator + "/" + layout);
    std::printf("tau = %.6g ns, kT/k_sp = %.6g nm^2, %lld steps (%lld per sample), %.2f s on %s\n", result.tau_ns,
                result.variance_nm2, (long long)result.steps, (long long)result.sample_every, result.seconds,
                result.device.empty() ? "the CPU" : result.device.c_str());
    std::printf("wrote %s and %s\n", (dir / (stem + ".tsv")).c_str(), (dir / (stem + ".svg")).c_str());
    std::printf("%s\n", result.verdict().c_str());
    return result.pass ? 0 : 3;
  };
}

}  // namespace ermak::app
