#include "ermak/analysis/contact_rupture.h"

#include <limits>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/dcd_reader.h"
#include "ermak/model/structure_observables.h"

namespace ermak::analysis {

ContactRuptures find_contact_ruptures(const Topology& topology, const std::filesystem::path& dcd,
                                      double formed_ratio) {
  DcdReader reader = DcdReader::open(dcd);
  if (reader.atoms() != topology.bead_count())
    throw Error(dcd.string(), 0, "", "the trajectory holds " + std::to_string(reader.atoms()) +
                                         " atoms, the model (model.etop) " + std::to_string(topology.bead_count()) +
                                         " beads: not this run's trajectory");
  if (reader.frames() == 0) throw Error(dcd.string(), 0, "", "the trajectory holds no whole frame");
  ContactRuptures out;
  out.timestep_ps = reader.timestep_ps();
  out.trailing_bytes = reader.trailing_bytes();
  const std::size_t contacts = topology.native_contacts.size();
  // The last frame in which each contact was formed (−1: none yet): the rupture frame is the
  // one after it, unless that is past the end.
  std::vector<std::int64_t> last_formed(contacts, -1);
  const std::vector<char> between = contacts_between_chains(topology);
  for (const char b : between) out.between_chains_contacts += b;
  const std::int64_t within_contacts = std::int64_t(contacts) - out.between_chains_contacts;
  auto fraction_or_nan = [](std::int64_t formed, std::int64_t of) {
    return of == 0 ? std::numeric_limits<double>::quiet_NaN() : structure::native_fraction(formed, of);
  };
  std::vector<float> x, y, z;
  while (reader.next_frame(x, y, z)) {
    const std::int64_t frame = reader.next_frame_index() - 1;
    std::int64_t formed = 0, formed_between = 0;
    for (std::size_t k = 0; k < contacts; ++k) {
      const NativeContact& c = topology.native_contacts[k];
      if (structure::contact_formed(x[c.i] - x[c.j], y[c.i] - y[c.j], z[c.i] - z[c.j], c.r0_A, formed_ratio)) {
        last_formed[k] = frame;
        ++formed;
        formed_between += between[k];
      }
    }
    out.frame_step.push_back(reader.step_of_frame(frame));
    out.native_fraction.push_back(structure::native_fraction(formed, std::int64_t(contacts)));
    out.within_chains_fraction.push_back(fraction_or_nan(formed - formed_between, within_contacts));
    out.between_chains_fraction.push_back(fraction_or_nan(formed_between, out.between_chains_contacts));
  }
  out.rupture_frame.resize(contacts);
  for (std::size_t k = 0; k < contacts; ++k)
    if (last_formed[k] + 1 < out.frames()) out.rupture_frame[k] = last_formed[k] + 1;
  return out;
}

}  // namespace ermak::analysis
