#include "ermak/io/residue_stand_ins.h"

#include "ermak/core/error.h"

namespace ermak {
namespace {

constexpr char kMark = '\x01';
constexpr int kByteValues = 128;  // the second and third bytes: 0x80-0xFF
constexpr std::size_t kMostStandIns = std::size_t(kByteValues) * kByteValues;

std::string encode(std::size_t index) {
  return {kMark, static_cast<char>(0x80 + index / kByteValues), static_cast<char>(0x80 + index % kByteValues)};
}

std::size_t decode(std::string_view stand_in) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(stand_in[k]) - 0x80u; };
  return byte(1) * kByteValues + byte(2);
}

}  // namespace

bool is_stand_in(std::string_view name) { return !name.empty() && name.front() == kMark; }

std::string ResidueStandIns::stand_in(const std::string& name, int occurrence, const std::string& file) {
  const auto key = std::pair{name, occurrence};
  if (const auto it = stand_ins_.find(key); it != stand_ins_.end()) return it->second;
  if (names_.size() == kMostStandIns)
    throw Error(file, 0, "structure",
                "more than " + std::to_string(kMostStandIns) +
                    " residue names or repeats of residue numbers to tell apart; split the file");
  std::string code = encode(names_.size());
  names_.push_back(name);
  return stand_ins_.emplace(key, std::move(code)).first->second;
}

void ResidueStandIns::restore(gemmi::Structure& structure) const {
  if (names_.empty()) return;
  for (gemmi::Model& model : structure.models)
    for (gemmi::Chain& chain : model.chains)
      for (gemmi::Residue& residue : chain.residues)
        if (is_stand_in(residue.name) && residue.name.size() == 3) residue.name = names_.at(decode(residue.name));
}

int ResidueOccurrences::of(const std::string& position, const std::string& name, bool has_ca) {
  if (!position_started_ || position != position_) {
    position_ = position;
    position_started_ = true;
    ++position_run_;
  }
  const auto [it, fresh] = seen_.try_emplace(position + '\x1f' + name, Seen{1, position_run_});
  if (!fresh && it->second.position_run != position_run_ && has_ca) {
    ++it->second.occurrence;
    it->second.position_run = position_run_;
  }
  return it->second.occurrence;
}

void ResidueOccurrences::clear() {
  seen_.clear();
  position_started_ = false;
}

}  // namespace ermak
