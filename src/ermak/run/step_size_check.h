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

// A force clamp whose largest force holds the chain's FENE bonds at 70 % of R0 or more at
// rest (F = kΔ/(1 − Δ²/R0²), docs/model.md#fene: ~3.8 nN with the defaults): the step's noise
// then breaks a bond within 10⁴–10⁶ steps (5 nN broke one after ~3·10⁴ steps in an audit).
// A warning with the force and the stretch; "" otherwise.
std::string clamp_tension_warning(const RunSpec& spec);

}  // namespace ermak
