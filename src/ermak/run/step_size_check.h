#pragma once
// Whether a run's time step, temperature and friction make steps the model can take: the
// noise amplitude sqrt(2 k_B T h/ζ) (docs/model.md#dynamics) at the run's highest
// temperature. SOP-GPU's defaults give 0.044 Å per component and step; at half the FENE
// bond's R0 the bonds break within steps, and far below 10⁻⁴ Å the beads barely move.
#include <string>

#include "ermak/config/spec.h"

namespace ermak {

// The noise amplitude of the run's steps at the highest temperature of its schedule, Å.
double largest_noise_amplitude_A(const RunSpec& spec);

// Throws ermak::Error naming the configuration and the keys when the noise amplitude is
// R0/2 or more (or not finite); returns a warning when it is below 10⁻⁴ Å; "" otherwise.
std::string check_step_size(const RunSpec& spec);

}  // namespace ermak
