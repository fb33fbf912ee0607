#pragma once
// The one place where physical units meet ermak's internal (SOP-GPU) units.
// Internal units: length Å, energy kcal/mol, time τ_H, friction ζ in kcal/mol·τ_H/Å²,
// temperature as k_B·T in kcal/mol. See docs/units.md for the derivation of each factor.

namespace ermak::units {

// Boltzmann constant, kcal/mol/K (CODATA 2018: 1.380649e-23 J/K × N_A / 4184 J/kcal).
inline constexpr double kBoltzmann_kcal_per_mol_K = 0.0019872043;

// SOP-GPU's time unit: τ_H = 6πηa³/(k_B T) with η = 1 mPa·s, a = 3.8 Å, T = 300 K gives
// 249.7 ps; SOP-GPU uses 248 ps (Zhmurov et al., Proteins 2010, docs/units.md), and so does
// every ps ↔ τ_H conversion here.
inline constexpr double tau_H_ps = 248.0;

// 1 kcal/mol/Å in pN: 4184 J / 6.02214076e23 / 1e-10 m = 69.47695 pN.
inline constexpr double pN_per_kcal_per_mol_A = 69.47695;
// 1 kcal/mol/Å² in pN/nm (spring constants).
inline constexpr double pN_per_nm_per_kcal_per_mol_A2 = 694.7695;

inline constexpr double A_per_nm = 10.0;

inline constexpr double kelvin_to_kcal_per_mol(double T_K) { return T_K * kBoltzmann_kcal_per_mol_K; }
inline constexpr double kcal_per_mol_to_kelvin(double kT) { return kT / kBoltzmann_kcal_per_mol_K; }

inline constexpr double ps_to_tau(double t_ps) { return t_ps / tau_H_ps; }
inline constexpr double tau_to_ps(double t_tau) { return t_tau * tau_H_ps; }
inline constexpr double tau_to_ns(double t_tau) { return t_tau * tau_H_ps * 1e-3; }

inline constexpr double pN_to_internal_force(double f_pN) { return f_pN / pN_per_kcal_per_mol_A; }
inline constexpr double internal_force_to_pN(double f) { return f * pN_per_kcal_per_mol_A; }

inline constexpr double pN_per_nm_to_internal_spring(double k) { return k / pN_per_nm_per_kcal_per_mol_A2; }
inline constexpr double internal_spring_to_pN_per_nm(double k) { return k * pN_per_nm_per_kcal_per_mol_A2; }

// µm/s → Å/τ_H: 1 µm/s = 1e4 Å/s = 1e4 Å × (τ_H_ps·1e-12 s)/τ_H.
inline constexpr double um_per_s_to_A_per_tau(double v) { return v * 1e4 * tau_H_ps * 1e-12; }
inline constexpr double A_per_tau_to_um_per_s(double v) { return v / (1e4 * tau_H_ps * 1e-12); }

}  // namespace ermak::units
