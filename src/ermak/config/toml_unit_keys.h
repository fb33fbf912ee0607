#pragma once
// Quantities the configuration takes in either of two units (a physical one and ermak's
// internal one): the key of each, with its conversion to internal units. The readers
// accept either key (either() in toml_section.h); the resolved configuration writes the
// one that reads back exactly (resolved_config_writer.cpp).
#include <string_view>

#include "ermak/config/toml_values.h"
#include "ermak/core/units.h"

namespace ermak::config {

struct UnitKey {
  std::string_view key;
  Conversion to_internal;
  std::string_view unit;
};

inline double identity(double x) { return x; }
inline double nm_to_A(double x) { return x * units::A_per_nm; }
inline double A_to_nm(double x) { return x / units::A_per_nm; }

// The cantilever's speed and spring ([pulling], [[plane_pulling.plane]], [indentation]).
inline const UnitKey kSpeedUm{"speed_um_per_s", units::um_per_s_to_A_per_tau, "µm/s"};
inline const UnitKey kSpeedInternal{"speed_A_per_tau", identity, "Å/tau_H"};
inline const UnitKey kSpringPn{"spring_pN_per_nm", units::pN_per_nm_to_internal_spring, "pN/nm"};
inline const UnitKey kSpringInternal{"spring_kcal_per_mol_A2", identity, "kcal/mol/Å²"};

}  // namespace ermak::config
