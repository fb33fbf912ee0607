// protocol/replica_index.h: which protocol items (tethers, clamp forces, plane tethers)
// act in each replica. An item names one replica or every one (replica −1); the index
// lists, per replica, the indices of the items that act there, in input order. The
// engines loop over it every step, so a wrong offset applies a pulling spring or a clamp
// to the wrong replica (IntegratorStatistics.ProtocolItemsOfOneReplicaActOnItAlone checks
// that end to end). Here: the exact arrays.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ermak/protocol/external_force.h"
#include "ermak/protocol/replica_index.h"

namespace {

using namespace ermak;

// The items a replica's range yields, in order.
std::vector<std::int32_t> items_of(const ReplicaIndex& index, std::int32_t replica) {
  std::vector<std::int32_t> out;
  for (const std::int32_t k : index.of(replica)) out.push_back(k);
  return out;
}

struct Item {
  std::int32_t replica = -1;
};

TEST(ReplicaIndex, ItemsOfOneReplicaAndOfAllInInputOrder) {
  // Items 0…4 name replicas 2, −1 (all), 0, 2, −1 in a run of 4 replicas:
  //   replica 0: item 1 (all), 2 (its own), 4 (all)    → offsets 0…3
  //   replica 1: 1, 4                                   → 3…5
  //   replica 2: 0, 1, 3, 4                             → 5…9
  //   replica 3: 1, 4                                   → 9…11
  const std::vector<Item> items = {{2}, {-1}, {0}, {2}, {-1}};
  const ReplicaIndex index = index_by_replica(items, 4);
  EXPECT_EQ(index.offsets, (std::vector<std::int32_t>{0, 3, 5, 9, 11}));
  EXPECT_EQ(index.items, (std::vector<std::int32_t>{1, 2, 4, 1, 4, 0, 1, 3, 4, 1, 4}));
  EXPECT_EQ(items_of(index, 0), (std::vector<std::int32_t>{1, 2, 4}));
  EXPECT_EQ(items_of(index, 1), (std::vector<std::int32_t>{1, 4}));
  EXPECT_EQ(items_of(index, 2), (std::vector<std::int32_t>{0, 1, 3, 4}));
  EXPECT_EQ(items_of(index, 3), (std::vector<std::int32_t>{1, 4}));
}

TEST(ReplicaIndex, OnlyOneReplicasItemsLeaveTheOthersEmpty) {
  // A clamp on replica 0 and one on replica 2 of 3 (ExternalForce, as the engines index
  // them): replica 1 has none.
  std::vector<ExternalForce> clamps(2);
  clamps[0].replica = 0;
  clamps[1].replica = 2;
  const ReplicaIndex index = index_by_replica(clamps, 3);
  EXPECT_EQ(index.offsets, (std::vector<std::int32_t>{0, 1, 1, 2}));
  EXPECT_EQ(index.items, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(items_of(index, 0), (std::vector<std::int32_t>{0}));
  EXPECT_TRUE(items_of(index, 1).empty());
  EXPECT_EQ(items_of(index, 2), (std::vector<std::int32_t>{1}));
}

TEST(ReplicaIndex, NoItemsAndOneReplica) {
  const ReplicaIndex none = index_by_replica(std::vector<Item>{}, 3);
  EXPECT_EQ(none.offsets, (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_TRUE(none.items.empty());
  for (std::int32_t r = 0; r < 3; ++r) EXPECT_TRUE(items_of(none, r).empty());
  // With R = 1 an item for "all" and one for replica 0 both act there, in input order.
  const ReplicaIndex one = index_by_replica(std::vector<Item>{{0}, {-1}}, 1);
  EXPECT_EQ(one.offsets, (std::vector<std::int32_t>{0, 2}));
  EXPECT_EQ(items_of(one, 0), (std::vector<std::int32_t>{0, 1}));
}

}  // namespace
