#pragma once
// Which protocol items (tethers, clamp forces, plane tethers) act in each replica, in
// input order. A protocol item names one replica or all (replica −1); pulling 10⁴
// replicas along their own end-to-end vectors gives 10⁴ items, and scanning all of them
// for every replica would cost 10⁸ checks per step. Built once, it keeps the loops
// O(items of the replica).
#include <cstdint>
#include <vector>

namespace ermak {

struct ReplicaIndex {
  std::vector<std::int32_t> offsets;  // replicas + 1
  std::vector<std::int32_t> items;    // indices into the protocol's item array

  struct Range {
    const std::int32_t* first;
    const std::int32_t* last;
    const std::int32_t* begin() const { return first; }
    const std::int32_t* end() const { return last; }
  };
  Range of(std::int32_t replica) const {
    return {items.data() + offsets[std::size_t(replica)], items.data() + offsets[std::size_t(replica) + 1]};
  }
};

// Items with a `replica` field (−1: every replica), indexed by replica in input order.
template <class Item>
ReplicaIndex index_by_replica(const std::vector<Item>& items, std::int32_t replicas) {
  ReplicaIndex index;
  index.offsets.assign(std::size_t(replicas) + 1, 0);
  for (const Item& it : items) {
    if (it.replica >= 0) {
      ++index.offsets[std::size_t(it.replica) + 1];
    } else {
      for (std::int32_t r = 0; r < replicas; ++r) ++index.offsets[std::size_t(r) + 1];
    }
  }
  for (std::int32_t r = 0; r < replicas; ++r) index.offsets[std::size_t(r) + 1] += index.offsets[std::size_t(r)];
  index.items.resize(std::size_t(index.offsets[std::size_t(replicas)]));
  std::vector<std::int32_t> fill(index.offsets.begin(), index.offsets.end() - 1);
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::int32_t replica = items[k].replica;
    if (replica >= 0) {
      index.items[std::size_t(fill[std::size_t(replica)]++)] = std::int32_t(k);
    } else {
      for (std::int32_t r = 0; r < replicas; ++r) index.items[std::size_t(fill[std::size_t(r)]++)] = std::int32_t(k);
    }
  }
  return index;
}

}  // namespace ermak
