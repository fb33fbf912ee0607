#pragma once
// The thermal noise of the dynamics from any of ermak's generators (docs/rng.md): the
// interface the engines call once per step per replica. Philox (the default) is
// counter-based and stateless; the others keep state per thread ("per_thread": one
// generator per bead per replica) or per replica ("shared": one lagged state that all
// threads of a replica draw from).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ermak::rng {

class NoiseSource {
 public:
  virtual ~NoiseSource() = default;
  virtual std::string name() const = 0;  // e.g. "hybrid_taus/per_thread"
  // N(0,1) floats for beads [0, beads) of `replica` at `step`: gx/gy/gz[i] for bead i. Called once per
  // step per replica with steps in increasing order; calls for different replicas may run concurrently
  // on different threads (state must be per replica). Results must not depend on thread count.
  virtual void fill(std::int32_t replica, std::int64_t step, float* gx, float* gy, float* gz) = 0;
  // Exact state for checkpoints; restore gives a bit-identical continuation.
  virtual std::vector<std::uint8_t> save_state() const = 0;
  virtual void restore_state(const std::vector<std::uint8_t>& bytes) = 0;  // throws ermak::Error on mismatch

  // The state as 32-bit words, in the order a device backend keeps it (docs/rng.md#gpu):
  // per_thread: the [replica][bead] state structs, word k of a struct = its k-th 32-bit
  // field (state_words_per_thread words each); lagged_fibonacci: per replica its ring
  // position, then the l ring words; mt19937/shared: per replica its state struct
  // (625 words); philox: none. set_state_words takes the same layout (throws
  // ermak::Error on a wrong size or an invalid value) and, when last_step ≥ 0, records
  // it as every replica's last filled step (else those are left as they are).
  // Sources outside make_noise_source (test doubles) need not provide them: the default
  // throws ermak::Error.
  virtual std::vector<std::uint32_t> state_words() const;
  virtual void set_state_words(const std::vector<std::uint32_t>& words, std::int64_t last_step);
};

// Words per state of a per_thread generator (0 for philox), and the lag pair's long lag
// of lagged_fibonacci for `beads` beads (0 for others): the shapes of state_words().
std::int32_t state_words_per_thread(const std::string& generator);

// generator: "philox" (counter-based; fill() equals rng::gaussian3(seed, Stream::kBeadLangevin, replica,
// i, step) for each i, bit for bit), "hybrid_taus", "ran2", "lcg", "lagged_fibonacci", "mt19937";
// layout: "per_thread" or "shared" (only where supported; "" or "default" picks the generator's
// default layout); throws ermak::Error for unknown names or unsupported combinations.
std::unique_ptr<NoiseSource> make_noise_source(const std::string& generator, const std::string& layout,
                                               std::uint64_t seed, std::int32_t replicas, std::int32_t beads);
std::vector<std::string> generator_names();

// What the tables of docs/rng.md and `ermak bench --rng` say about a generator in a layout.
struct GeneratorLayoutInfo {
  std::string generator;
  std::string layout;
  std::string algorithm;   // one line
  std::string period;      // e.g. "2^121"
  // Bytes of state per thread (per bead); for the shared layout the replica's state is
  // given in state_bytes_shared and state_bytes_per_thread is 0.
  std::int64_t state_bytes_per_thread = 0;
  std::int64_t state_bytes_shared = 0;
  // State words loaded from and stored to (global) memory per 4 output numbers (one
  // bead-step), in this implementation's access pattern (docs/rng.md#cost).
  double reads_per_4 = 0;
  double writes_per_4 = 0;
};

// Layouts the generator supports, the default first.
std::vector<std::string> layout_names(const std::string& generator);
std::string default_layout(const std::string& generator);
// Throws ermak::Error for unknown or unsupported names; `beads` decides the lag pair of
// lagged_fibonacci and so its state size.
GeneratorLayoutInfo generator_layout_info(const std::string& generator, const std::string& layout,
                                          std::int32_t beads);

// A stream of raw 32-bit words, for external test batteries (`ermak rng dump`).
// per_thread: stream k is the generator of thread (replica 0, bead k), its words in the
// order the noise consumes them (4 per step; for philox the block of (replica 0, bead k,
// step) for step = 0, 1, …); shared: stream k is the sequence of replica k, for a system
// of `beads` beads (which decides the lag pair). ran2 gives 31-bit outputs: its raw words
// concatenate the high 16 bits of two outputs (ran2.h).
class WordStream {
 public:
  virtual ~WordStream() = default;
  virtual std::uint32_t next() = 0;
  // Fills out[0, count).
  virtual void fill(std::uint32_t* out, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) out[k] = next();
  }
};
std::unique_ptr<WordStream> make_word_stream(const std::string& generator, const std::string& layout,
                                             std::uint64_t seed, std::uint32_t stream, std::int32_t beads);
// Streams 0 … count−1, one word from each in turn.
std::unique_ptr<WordStream> make_interleaved_word_stream(const std::string& generator, const std::string& layout,
                                                         std::uint64_t seed, std::uint32_t count,
                                                         std::int32_t beads);

}  // namespace ermak::rng
