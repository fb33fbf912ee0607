#include "ermak/rng/noise_source.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ermak/core/error.h"
#include "ermak/rng/gaussian.h"
#include "ermak/rng/hybrid_taus.h"
#include "ermak/rng/lagged_fibonacci.h"
#include "ermak/rng/lcg.h"
#include "ermak/rng/mt19937.h"
#include "ermak/rng/philox_gaussian.h"
#include "ermak/rng/ran2.h"
#include "ermak/rng/splitmix64.h"

namespace ermak::rng {
namespace {

// Below this many beads a fill runs on the calling thread (thread start-up costs more).
constexpr std::int32_t kParallelBeads = 4096;
constexpr std::int64_t kNoStep = std::numeric_limits<std::int64_t>::min();
constexpr char kMagic[8] = {'E', 'R', 'M', 'A', 'K', 'R', 'N', 'G'};
constexpr std::uint32_t kFormatVersion = 1;

bool run_parallel(std::int64_t work) { return work >= kParallelBeads && !omp_in_parallel(); }

// --- little helpers for the checkpoint bytes (host byte order: little-endian x86/ARM) ---
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void raw(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    out_.insert(out_.end(), p, p + size);
  }
  template <class T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    raw(&value, sizeof(T));
  }
  void str(const std::string& s) {
    put<std::uint32_t>(std::uint32_t(s.size()));
    raw(s.data(), s.size());
  }

 private:
  std::vector<std::uint8_t>& out_;
};

class ByteReader {
 public:
  explicit ByteReader(const std::vector<std::uint8_t>& in) : in_(in) {}
  void raw(void* data, std::size_t size) {
    if (size > in_.size() - pos_) throw Error("rng state: the saved bytes end too early (truncated or not an RNG state)");
    std::memcpy(data, in_.data() + pos_, size);
    pos_ += size;
  }
  template <class T>
  T get() {
    T value;
    raw(&value, sizeof(T));
    return value;
  }
  std::string str() {
    const auto size = get<std::uint32_t>();
    if (size > in_.size() - pos_) throw Error("rng state: the saved bytes end too early (truncated or not an RNG state)");
    std::string s(reinterpret_cast<const char*>(in_.data() + pos_), size);
    pos_ += size;
    return s;
  }
  void expect_end() const {
    if (pos_ != in_.size()) throw Error("rng state: " + std::to_string(in_.size() - pos_) + " unexpected bytes after the state");
  }

 private:
  const std::vector<std::uint8_t>& in_;
  std::size_t pos_ = 0;
};

// --- what every source shares: identity, step order, the checkpoint envelope ---
class SourceBase : public NoiseSource {
 public:
  SourceBase(std::string generator, std::string layout, std::uint64_t seed, std::int32_t replicas,
             std::int32_t beads, bool stateful)
      : generator_(std::move(generator)), layout_(std::move(layout)), seed_(seed), replicas_(replicas),
        beads_(beads), stateful_(stateful), last_step_(std::size_t(replicas), kNoStep) {}

  std::string name() const override { return generator_ + "/" + layout_; }

  std::vector<std::uint8_t> save_state() const override {
    std::vector<std::uint8_t> bytes;
    ByteWriter w(bytes);
    w.raw(kMagic, sizeof kMagic);
    w.put(kFormatVersion);
    w.str(name());
    w.str(parameters());
    w.put(seed_);
    w.put(replicas_);
    w.put(beads_);
    w.raw(last_step_.data(), last_step_.size() * sizeof(std::int64_t));
    save_payload(w);
    return bytes;
  }

  void restore_state(const std::vector<std::uint8_t>& bytes) override {
    ByteReader r(bytes);
    char magic[sizeof kMagic];
    r.raw(magic, sizeof magic);
    if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) throw Error("rng state: not an ermak RNG state");
    const auto version = r.get<std::uint32_t>();
    if (version != kFormatVersion)
      throw Error("rng state: format version " + std::to_string(version) + ", this ermak reads " +
                  std::to_string(kFormatVersion));
    const std::string saved_name = r.str();
    if (saved_name != name())
      throw Error("rng state: saved by generator " + saved_name + ", but this run uses " + name());
    const std::string saved_parameters = r.str();
    if (saved_parameters != parameters())
      throw Error("rng state: saved with " + saved_parameters + ", but this run has " + parameters());
    const auto seed = r.get<std::uint64_t>();
    if (seed != seed_)
      throw Error("rng state: saved with seed " + std::to_string(seed) + ", but this run has seed " +
                  std::to_string(seed_));
    const auto replicas = r.get<std::int32_t>();
    const auto beads = r.get<std::int32_t>();
    if (replicas != replicas_ || beads != beads_)
      throw Error("rng state: saved for " + std::to_string(replicas) + " replicas × " + std::to_string(beads) +
                  " beads, but this run has " + std::to_string(replicas_) + " × " + std::to_string(beads_));
    std::vector<std::int64_t> last_step(last_step_.size());
    r.raw(last_step.data(), last_step.size() * sizeof(std::int64_t));
    restore_payload(r);  // reads into temporaries, commits only when complete
    r.expect_end();
    last_step_ = std::move(last_step);
  }

 protected:
  // Checks the call and records the step. Stateful generators cannot go back: the step
  // must grow (gaps are allowed: the stream simply continues).
  void begin_fill(std::int32_t replica, std::int64_t step) {
    if (replica < 0 || replica >= replicas_)
      throw Error(name() + ": replica " + std::to_string(replica) + " out of range [0, " + std::to_string(replicas_) + ")");
    if (step < 0) throw Error(name() + ": negative step " + std::to_string(step));
    std::int64_t& last = last_step_[std::size_t(replica)];
    if (stateful_ && last != kNoStep && step <= last)
      throw Error(name() + ": noise for step " + std::to_string(step) + " of replica " + std::to_string(replica) +
                  " requested after step " + std::to_string(last) +
                  "; a stateful generator only moves forward (restore a saved state to go back)");
    last = step;
  }
  // Extra identity checked on restore (e.g. the lag pair).
  virtual std::string parameters() const { return ""; }
  // set_state_words: the checked step bookkeeping (the payload is replaced by the caller).
  void set_last_steps(std::int64_t last_step) {
    if (last_step >= 0) std::fill(last_step_.begin(), last_step_.end(), last_step);
  }
  static void check_word_count(const std::string& who, std::size_t got, std::size_t want) {
    if (got != want)
      throw Error("rng state: " + who + " needs " + std::to_string(want) + " state words, got " + std::to_string(got));
  }
  virtual void save_payload(ByteWriter&) const {}
  virtual void restore_payload(ByteReader&) {}

  std::string generator_, layout_;
  std::uint64_t seed_;
  std::int32_t replicas_, beads_;
  bool stateful_;
  std::vector<std::int64_t> last_step_;
};

// --- philox: counter-based, no state ---
class PhiloxSource final : public SourceBase {
 public:
  PhiloxSource(std::uint64_t seed, std::int32_t replicas, std::int32_t beads)
      : SourceBase("philox", "per_thread", seed, replicas, beads, false) {}

  void fill(std::int32_t replica, std::int64_t step, float* gx, float* gy, float* gz) override {
    begin_fill(replica, step);
    const std::int32_t n = beads_;
#pragma omp parallel for schedule(static) if (run_parallel(n))
    for (std::int32_t i = 0; i < n; ++i) {
      const Vec3f g = gaussian3(seed_, Stream::kBeadLangevin, std::uint32_t(replica), std::uint32_t(i),
                                std::uint64_t(step));
      gx[i] = g.x;
      gy[i] = g.y;
      gz[i] = g.z;
    }
  }
  std::vector<std::uint32_t> state_words() const override { return {}; }
  void set_state_words(const std::vector<std::uint32_t>& words, std::int64_t last_step) override {
    check_word_count(name(), words.size(), 0);
    set_last_steps(last_step);
  }
};

// --- one generator per thread ---
struct LcgTraits {
  using State = LcgState;
  static constexpr GeneratorTag kTag = GeneratorTag::kLcg;
  static void seed(State& s, SplitMix64& seeder) { s = lcg_seed(seeder); }
  static std::uint32_t word(State& s) { return lcg_next(s); }
  static std::uint32_t raw_word(State& s) { return lcg_next(s); }
};
struct Ran2Traits {
  using State = Ran2State;
  static constexpr GeneratorTag kTag = GeneratorTag::kRan2;
  static void seed(State& s, SplitMix64& seeder) { s = ran2_seed(seeder); }
  static std::uint32_t word(State& s) { return ran2_word(s); }
  static std::uint32_t raw_word(State& s) { return ran2_word32(s); }
};
struct HybridTausTraits {
  using State = HybridTausState;
  static constexpr GeneratorTag kTag = GeneratorTag::kHybridTaus;
  static void seed(State& s, SplitMix64& seeder) { s = hybrid_taus_seed(seeder); }
  static std::uint32_t word(State& s) { return hybrid_taus_next(s); }
  static std::uint32_t raw_word(State& s) { return hybrid_taus_next(s); }
};
struct Mt19937Traits {
  using State = Mt19937State;
  static constexpr GeneratorTag kTag = GeneratorTag::kMt19937;
  static void seed(State& s, SplitMix64& seeder) { mt19937_seed(s, seeder); }
  static std::uint32_t word(State& s) { return mt19937_next(s); }
  static std::uint32_t raw_word(State& s) { return mt19937_next(s); }
};

template <class Traits>
class PerThreadSource final : public SourceBase {
  using State = typename Traits::State;
  static_assert(std::is_trivially_copyable_v<State>);

 public:
  PerThreadSource(std::string generator, std::uint64_t seed, std::int32_t replicas, std::int32_t beads)
      : SourceBase(std::move(generator), "per_thread", seed, replicas, beads, true),
        states_(std::size_t(replicas) * std::size_t(beads)) {
    const std::int64_t total = std::int64_t(states_.size());
#pragma omp parallel for schedule(static) if (run_parallel(total))
    for (std::int64_t k = 0; k < total; ++k) {
      SplitMix64 seeder = seeding_stream(seed, Traits::kTag, std::uint32_t(k / beads), std::uint32_t(k % beads));
      Traits::seed(states_[std::size_t(k)], seeder);
    }
  }

  void fill(std::int32_t replica, std::int64_t step, float* gx, float* gy, float* gz) override {
    begin_fill(replica, step);
    const std::int32_t n = beads_;
    State* states = states_.data() + std::size_t(replica) * std::size_t(n);
#pragma omp parallel for schedule(static) if (run_parallel(n))
    for (std::int32_t i = 0; i < n; ++i) {
      State& s = states[i];  // loaded once, 4 words, stored once (docs/rng.md#layouts)
      const std::uint32_t w0 = Traits::word(s), w1 = Traits::word(s), w2 = Traits::word(s), w3 = Traits::word(s);
      const Vec3f g = gaussian3_from_words(w0, w1, w2, w3);
      gx[i] = g.x;
      gy[i] = g.y;
      gz[i] = g.z;
    }
  }

  std::vector<std::uint32_t> state_words() const override {
    std::vector<std::uint32_t> words(states_.size() * kWords);
    std::memcpy(words.data(), states_.data(), words.size() * sizeof(std::uint32_t));
    return words;
  }
  void set_state_words(const std::vector<std::uint32_t>& words, std::int64_t last_step) override {
    check_word_count(name(), words.size(), states_.size() * kWords);
    std::vector<State> states(states_.size());
    std::memcpy(states.data(), words.data(), words.size() * sizeof(std::uint32_t));
    if constexpr (std::is_same_v<State, Mt19937State>)
      for (const auto& s : states)
        if (s.index < 0 || s.index >= kMtN) throw Error("rng state: mt19937 index out of range");
    states_ = std::move(states);
    set_last_steps(last_step);
  }
  static constexpr std::size_t kWords = sizeof(State) / sizeof(std::uint32_t);
  static_assert(sizeof(State) % sizeof(std::uint32_t) == 0);

 private:
  void save_payload(ByteWriter& w) const override { w.raw(states_.data(), states_.size() * sizeof(State)); }
  void restore_payload(ByteReader& r) override {
    std::vector<State> states(states_.size());
    r.raw(states.data(), states.size() * sizeof(State));
    states_ = std::move(states);
  }

  std::vector<State> states_;  // [replica][bead]
};

// --- one lagged Fibonacci state per replica, shared by all threads ---
class LaggedFibonacciSource final : public SourceBase {
 public:
  LaggedFibonacciSource(std::uint64_t seed, std::int32_t replicas, std::int32_t beads)
      : SourceBase("lagged_fibonacci", "shared", seed, replicas, beads, true),
        lags_(choose_lagged_fibonacci_lags(4 * std::int64_t(beads))),
        window_(lagged_fibonacci_window(lags_)),
        heads_(std::size_t(replicas), 0),
        rings_(std::size_t(replicas)),
        words_(std::size_t(replicas)) {
    for (std::int32_t r = 0; r < replicas; ++r) {
      rings_[r] = initial_ring(seed, std::uint32_t(r), lags_);
      words_[r].resize(4 * std::size_t(beads));
    }
  }

  static std::vector<std::uint32_t> initial_ring(std::uint64_t seed, std::uint32_t replica, LagPair lags) {
    std::vector<std::uint32_t> ring(std::size_t(lags.long_lag));
    SplitMix64 seeder = seeding_stream(seed, GeneratorTag::kLaggedFibonacci, replica, 0);
    for (auto& x : ring) x = splitmix64_next32(seeder);
    ring[0] |= 1u;  // an odd word: the full period 2³¹(2^l − 1)
    return ring;
  }

  void fill(std::int32_t replica, std::int64_t step, float* gx, float* gy, float* gz) override {
    begin_fill(replica, step);
    const std::int32_t n = beads_;
    const std::int32_t total = 4 * n;
    std::uint32_t* ring = rings_[replica].data();
    std::uint32_t* words = words_[replica].data();
    std::int32_t& head = heads_[replica];
    const LagPair lags = lags_;
    for (std::int32_t start = 0; start < total; start += window_) {
      const std::int32_t w = std::min(window_, total - start);
      const std::int32_t h = head;
#pragma omp parallel for schedule(static) if (run_parallel(w / 16))  // one addition per word
      for (std::int32_t j = 0; j < w; ++j) words[start + j] = lagged_fibonacci_element(ring, lags, h, j);
      head = (h + w) % lags.long_lag;
    }
    // Bead i takes words i, N + i, 2N + i, 3N + i of the step (coalesced on a GPU).
#pragma omp parallel for schedule(static) if (run_parallel(n))
    for (std::int32_t i = 0; i < n; ++i) {
      const Vec3f g = gaussian3_from_words(words[i], words[n + i], words[2 * n + i], words[3 * n + i]);
      gx[i] = g.x;
      gy[i] = g.y;
      gz[i] = g.z;
    }
  }

  std::vector<std::uint32_t> state_words() const override {
    std::vector<std::uint32_t> words;
    words.reserve(rings_.size() * (1 + std::size_t(lags_.long_lag)));
    for (std::size_t r = 0; r < rings_.size(); ++r) {
      words.push_back(std::uint32_t(heads_[r]));
      words.insert(words.end(), rings_[r].begin(), rings_[r].end());
    }
    return words;
  }
  void set_state_words(const std::vector<std::uint32_t>& words, std::int64_t last_step) override {
    const std::size_t per = 1 + std::size_t(lags_.long_lag);
    check_word_count(name(), words.size(), rings_.size() * per);
    std::vector<std::int32_t> heads(heads_.size());
    std::vector<std::vector<std::uint32_t>> rings(rings_.size());
    for (std::size_t r = 0; r < rings.size(); ++r) {
      const std::uint32_t* at = words.data() + r * per;
      if (at[0] >= std::uint32_t(lags_.long_lag)) throw Error("rng state: lagged_fibonacci ring position out of range");
      heads[r] = std::int32_t(at[0]);
      rings[r].assign(at + 1, at + per);
    }
    heads_ = std::move(heads);
    rings_ = std::move(rings);
    set_last_steps(last_step);
  }

 private:
  std::string parameters() const override {
    return "lags " + std::to_string(lags_.short_lag) + "," + std::to_string(lags_.long_lag);
  }
  void save_payload(ByteWriter& w) const override {
    for (std::size_t r = 0; r < rings_.size(); ++r) {
      w.put(heads_[r]);
      w.raw(rings_[r].data(), rings_[r].size() * sizeof(std::uint32_t));
    }
  }
  void restore_payload(ByteReader& reader) override {
    std::vector<std::int32_t> heads(heads_.size());
    std::vector<std::vector<std::uint32_t>> rings(rings_.size());
    for (std::size_t r = 0; r < rings.size(); ++r) {
      heads[r] = reader.get<std::int32_t>();
      if (heads[r] < 0 || heads[r] >= lags_.long_lag) throw Error("rng state: lagged_fibonacci ring position out of range");
      rings[r].resize(std::size_t(lags_.long_lag));
      reader.raw(rings[r].data(), rings[r].size() * sizeof(std::uint32_t));
    }
    heads_ = std::move(heads);
    rings_ = std::move(rings);
  }

  LagPair lags_;
  std::int32_t window_;
  std::vector<std::int32_t> heads_;
  std::vector<std::vector<std::uint32_t>> rings_;
  std::vector<std::vector<std::uint32_t>> words_;  // scratch: the step's 4N words
};

// --- one Mersenne Twister per replica, shared by all threads ---
class Mt19937SharedSource final : public SourceBase {
 public:
  Mt19937SharedSource(std::uint64_t seed, std::int32_t replicas, std::int32_t beads)
      : SourceBase("mt19937", "shared", seed, replicas, beads, true),
        states_(std::size_t(replicas)),
        words_(std::size_t(replicas)) {
    for (std::int32_t r = 0; r < replicas; ++r) {
      SplitMix64 seeder = seeding_stream(seed, GeneratorTag::kMt19937, std::uint32_t(r), 0);
      mt19937_seed(states_[r], seeder);
      words_[r].resize(4 * std::size_t(beads));
    }
  }

  void fill(std::int32_t replica, std::int64_t step, float* gx, float* gy, float* gz) override {
    begin_fill(replica, step);
    const std::int32_t n = beads_;
    std::uint32_t* words = words_[replica].data();
    Mt19937State& s = states_[replica];
    // The recurrence allows windows of 624 − 397 = 227 words in parallel; on the CPU the
    // replica's words are made in order by one thread.
    for (std::int32_t k = 0; k < 4 * n; ++k) words[k] = mt19937_next(s);
#pragma omp parallel for schedule(static) if (run_parallel(n))
    for (std::int32_t i = 0; i < n; ++i) {
      const Vec3f g = gaussian3_from_words(words[i], words[n + i], words[2 * n + i], words[3 * n + i]);
      gx[i] = g.x;
      gy[i] = g.y;
      gz[i] = g.z;
    }
  }

  std::vector<std::uint32_t> state_words() const override {
    std::vector<std::uint32_t> words(states_.size() * kWords);
    std::memcpy(words.data(), states_.data(), words.size() * sizeof(std::uint32_t));
    return words;
  }
  void set_state_words(const std::vector<std::uint32_t>& words, std::int64_t last_step) override {
    check_word_count(name(), words.size(), states_.size() * kWords);
    std::vector<Mt19937State> states(states_.size());
    std::memcpy(states.data(), words.data(), words.size() * sizeof(std::uint32_t));
    for (const auto& s : states)
      if (s.index < 0 || s.index >= kMtN) throw Error("rng state: mt19937 index out of range");
    states_ = std::move(states);
    set_last_steps(last_step);
  }
  static constexpr std::size_t kWords = sizeof(Mt19937State) / sizeof(std::uint32_t);

 private:
  void save_payload(ByteWriter& w) const override {
    w.raw(states_.data(), states_.size() * sizeof(Mt19937State));
  }
  void restore_payload(ByteReader& r) override {
    std::vector<Mt19937State> states(states_.size());
    r.raw(states.data(), states.size() * sizeof(Mt19937State));
    for (const auto& s : states)
      if (s.index < 0 || s.index >= kMtN) throw Error("rng state: mt19937 index out of range");
    states_ = std::move(states);
  }

  std::vector<Mt19937State> states_;
  std::vector<std::vector<std::uint32_t>> words_;
};

// --- raw word streams for `ermak rng dump` ---
template <class Traits>
class PerThreadWordStream final : public WordStream {
 public:
  PerThreadWordStream(std::uint64_t seed, std::uint32_t stream) {
    SplitMix64 seeder = seeding_stream(seed, Traits::kTag, 0, stream);
    Traits::seed(state_, seeder);
  }
  std::uint32_t next() override { return Traits::raw_word(state_); }
  void fill(std::uint32_t* out, std::size_t count) override {
    for (std::size_t k = 0; k < count; ++k) out[k] = Traits::raw_word(state_);
  }

 private:
  typename Traits::State state_;
};

class PhiloxWordStream final : public WordStream {
 public:
  PhiloxWordStream(std::uint64_t seed, std::uint32_t stream) : seed_(seed), bead_(stream) {}
  std::uint32_t next() override {
    if (used_ == 4) {
      block_ = philox_block(seed_, Stream::kBeadLangevin, 0, bead_, step_++);
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  std::uint64_t seed_;
  std::uint32_t bead_;
  std::uint64_t step_ = 0;
  r123::Philox4x32::ctr_type block_{};
  int used_ = 4;
};

class LaggedFibonacciWordStream final : public WordStream {
 public:
  LaggedFibonacciWordStream(std::uint64_t seed, std::uint32_t replica, std::int32_t beads)
      : lags_(choose_lagged_fibonacci_lags(4 * std::int64_t(beads))),
        ring_(LaggedFibonacciSource::initial_ring(seed, replica, lags_)) {}
  std::uint32_t next() override {
    const std::uint32_t x = lagged_fibonacci_element(ring_.data(), lags_, head_, 0);
    if (++head_ == lags_.long_lag) head_ = 0;
    return x;
  }

 private:
  LagPair lags_;
  std::vector<std::uint32_t> ring_;
  std::int32_t head_ = 0;
};

class Mt19937SharedWordStream final : public WordStream {
 public:
  Mt19937SharedWordStream(std::uint64_t seed, std::uint32_t replica) {
    SplitMix64 seeder = seeding_stream(seed, GeneratorTag::kMt19937, replica, 0);
    mt19937_seed(state_, seeder);
  }
  std::uint32_t next() override { return mt19937_next(state_); }

 private:
  Mt19937State state_;
};

class InterleavedWordStream final : public WordStream {
 public:
  explicit InterleavedWordStream(std::vector<std::unique_ptr<WordStream>> streams) : streams_(std::move(streams)) {}
  std::uint32_t next() override {
    const std::uint32_t x = streams_[k_]->next();
    if (++k_ == streams_.size()) k_ = 0;
    return x;
  }

 private:
  std::vector<std::unique_ptr<WordStream>> streams_;
  std::size_t k_ = 0;
};

// --- the registry ---
struct Entry {
  const char* generator;
  const char* layouts[2];  // default first; nullptr when only one
  const char* algorithm;
  const char* period;
};
constexpr Entry kEntries[] = {
    {"philox", {"per_thread", nullptr}, "Philox4x32-10 (Random123): counter-based, key = seed, counter = (bead, replica, step, stream)",
     "2^128 per key"},
    {"hybrid_taus", {"per_thread", nullptr}, "three Tausworthe steps + LCG, xor-combined (GPU Gems 3 ch. 37)", "~2^121"},
    {"ran2", {"per_thread", nullptr}, "L'Ecuyer's two LCGs + Bays-Durham shuffle, 32-entry table (Numerical Recipes)",
     "> 2*10^18"},
    {"lcg", {"per_thread", nullptr}, "x <- 1664525 x + 1013904223 mod 2^32", "2^32"},
    {"lagged_fibonacci", {"shared", nullptr}, "additive lagged Fibonacci x_n = x_{n-s} + x_{n-l} mod 2^32",
     "2^31 (2^l - 1)"},
    {"mt19937", {"per_thread", "shared"}, "Mersenne Twister MT19937 (Matsumoto & Nishimura 1998)", "2^19937 - 1"},
};

const Entry& find_entry(const std::string& generator) {
  for (const Entry& e : kEntries)
    if (generator == e.generator) return e;
  std::string known;
  for (const Entry& e : kEntries) known += std::string(known.empty() ? "" : ", ") + e.generator;
  throw Error("rng: unknown generator \"" + generator + "\" (known: " + known + ")");
}

// Resolves "" / "default" and checks support.
std::string resolve_layout(const std::string& generator, const std::string& layout) {
  const Entry& e = find_entry(generator);
  if (layout.empty() || layout == "default") return e.layouts[0];
  for (const char* l : e.layouts)
    if (l && layout == l) return layout;
  if (layout != "per_thread" && layout != "shared")
    throw Error("rng: unknown layout \"" + layout + "\" (known: per_thread, shared)");
  std::string supported;
  for (const char* l : e.layouts)
    if (l) supported += std::string(supported.empty() ? "" : ", ") + l;
  throw Error("rng: generator " + generator + " has no \"" + layout + "\" layout (supported: " + supported +
              "; docs/rng.md#layouts)");
}

void check_sizes(std::int32_t replicas, std::int32_t beads) {
  if (replicas < 1) throw Error("rng: replicas must be at least 1, got " + std::to_string(replicas));
  if (beads < 1) throw Error("rng: beads must be at least 1, got " + std::to_string(beads));
  if (4 * std::int64_t(beads) > std::numeric_limits<std::int32_t>::max())
    throw Error("rng: too many beads per replica: " + std::to_string(beads));
}

}  // namespace

std::vector<std::uint32_t> NoiseSource::state_words() const {
  throw Error("rng: " + name() + " does not expose its state as words");
}
void NoiseSource::set_state_words(const std::vector<std::uint32_t>&, std::int64_t) {
  throw Error("rng: " + name() + " does not take its state as words");
}

std::vector<std::string> generator_names() {
  std::vector<std::string> names;
  for (const Entry& e : kEntries) names.emplace_back(e.generator);
  return names;
}

std::vector<std::string> layout_names(const std::string& generator) {
  std::vector<std::string> layouts;
  for (const char* l : find_entry(generator).layouts)
    if (l) layouts.emplace_back(l);
  return layouts;
}

std::string default_layout(const std::string& generator) { return find_entry(generator).layouts[0]; }

std::int32_t state_words_per_thread(const std::string& generator) {
  find_entry(generator);
  if (generator == "lcg") return sizeof(LcgState) / 4;
  if (generator == "ran2") return sizeof(Ran2State) / 4;
  if (generator == "hybrid_taus") return sizeof(HybridTausState) / 4;
  if (generator == "mt19937") return sizeof(Mt19937State) / 4;
  return 0;
}

GeneratorLayoutInfo generator_layout_info(const std::string& generator, const std::string& layout_in,
                                          std::int32_t beads) {
  const std::string layout = resolve_layout(generator, layout_in);
  const Entry& e = find_entry(generator);
  GeneratorLayoutInfo info;
  info.generator = generator;
  info.layout = layout;
  info.algorithm = e.algorithm;
  info.period = e.period;
  if (generator == "philox") {
    // Key and counter come from registers (seed, bead, replica, step): nothing is stored.
  } else if (generator == "lcg") {
    info.state_bytes_per_thread = sizeof(LcgState);
    info.reads_per_4 = info.writes_per_4 = 1;
  } else if (generator == "hybrid_taus") {
    info.state_bytes_per_thread = sizeof(HybridTausState);
    info.reads_per_4 = info.writes_per_4 = 4;
  } else if (generator == "ran2") {
    // x, y, iy once per step, plus one table entry read and written per output.
    info.state_bytes_per_thread = sizeof(Ran2State);
    info.reads_per_4 = info.writes_per_4 = 3 + 4;
  } else if (generator == "mt19937" && layout == "per_thread") {
    // Four outputs twist words i … i+3: read x[i … i+4] (x[i+1] is kept for the next
    // output) and x[i+397 … i+400], write x[i … i+3]; plus the index.
    info.state_bytes_per_thread = sizeof(Mt19937State);
    info.reads_per_4 = 5 + 4 + 1;
    info.writes_per_4 = 4 + 1;
  } else if (generator == "mt19937") {
    info.state_bytes_shared = sizeof(Mt19937State);
    info.reads_per_4 = 5 + 4;
    info.writes_per_4 = 4;
  } else if (generator == "lagged_fibonacci") {
    const LagPair lags = choose_lagged_fibonacci_lags(4 * std::int64_t(std::max(beads, 1)));
    info.state_bytes_shared = std::int64_t(lags.long_lag) * 4;
    info.reads_per_4 = 8;
    info.writes_per_4 = 4;
    info.period = "2^31 (2^" + std::to_string(lags.long_lag) + " - 1), lags (" + std::to_string(lags.short_lag) + ", " +
                  std::to_string(lags.long_lag) + ")";
  }
  return info;
}

std::unique_ptr<NoiseSource> make_noise_source(const std::string& generator, const std::string& layout_in,
                                               std::uint64_t seed, std::int32_t replicas, std::int32_t beads) {
  const std::string layout = resolve_layout(generator, layout_in);
  check_sizes(replicas, beads);
  if (generator == "philox") return std::make_unique<PhiloxSource>(seed, replicas, beads);
  if (generator == "lcg") return std::make_unique<PerThreadSource<LcgTraits>>(generator, seed, replicas, beads);
  if (generator == "ran2") return std::make_unique<PerThreadSource<Ran2Traits>>(generator, seed, replicas, beads);
  if (generator == "hybrid_taus")
    return std::make_unique<PerThreadSource<HybridTausTraits>>(generator, seed, replicas, beads);
  if (generator == "lagged_fibonacci") return std::make_unique<LaggedFibonacciSource>(seed, replicas, beads);
  if (generator == "mt19937" && layout == "per_thread")
    return std::make_unique<PerThreadSource<Mt19937Traits>>(generator, seed, replicas, beads);
  return std::make_unique<Mt19937SharedSource>(seed, replicas, beads);
}

std::unique_ptr<WordStream> make_word_stream(const std::string& generator, const std::string& layout_in,
                                             std::uint64_t seed, std::uint32_t stream, std::int32_t beads) {
  const std::string layout = resolve_layout(generator, layout_in);
  check_sizes(1, beads);
  if (generator == "philox") return std::make_unique<PhiloxWordStream>(seed, stream);
  if (generator == "lcg") return std::make_unique<PerThreadWordStream<LcgTraits>>(seed, stream);
  if (generator == "ran2") return std::make_unique<PerThreadWordStream<Ran2Traits>>(seed, stream);
  if (generator == "hybrid_taus") return std::make_unique<PerThreadWordStream<HybridTausTraits>>(seed, stream);
  if (generator == "lagged_fibonacci") return std::make_unique<LaggedFibonacciWordStream>(seed, stream, beads);
  if (layout == "per_thread") return std::make_unique<PerThreadWordStream<Mt19937Traits>>(seed, stream);
  return std::make_unique<Mt19937SharedWordStream>(seed, stream);
}

std::unique_ptr<WordStream> make_interleaved_word_stream(const std::string& generator, const std::string& layout,
                                                         std::uint64_t seed, std::uint32_t count,
                                                         std::int32_t beads) {
  if (count < 1) throw Error("rng: --interleave needs at least 1 stream");
  std::vector<std::unique_ptr<WordStream>> streams;
  for (std::uint32_t k = 0; k < count; ++k) streams.push_back(make_word_stream(generator, layout, seed, k, beads));
  return std::make_unique<InterleavedWordStream>(std::move(streams));
}

}  // namespace ermak::rng
