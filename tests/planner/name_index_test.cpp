// planner::NameIndex: node names to their place, as placement and reclaim look bound pods' nodes
// up on every plan. A wrong answer here puts a pod's requests on another node's room.
#include "planner/name_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fitscale::planner {
namespace {

TEST(NameIndex, FindsEveryNameAmongThousandsAndNothingElse) {
  std::vector<std::string> names;
  // Names that differ only late (past the first eight bytes) or by length, as EC2's do.
  for (int i = 0; i < 3000; ++i) names.push_back("ip-10-0-" + std::to_string(i) + ".ec2.internal");
  for (int i = 0; i < 20; ++i) names.push_back(std::string(static_cast<std::size_t>(i), 'n'));
  NameIndex index(names.size());
  for (std::uint32_t i = 0; i < names.size(); ++i) index.add(names[i], i);
  for (std::uint32_t i = 0; i < names.size(); ++i) EXPECT_EQ(index.find(names[i]), i) << names[i];
  EXPECT_EQ(index.find("ip-10-0-3000.ec2.internal"), NameIndex::kNone);
  EXPECT_EQ(index.find("ip-10-0-1.ec2.internal "), NameIndex::kNone);
  EXPECT_EQ(index.find(std::string(20, 'n')), NameIndex::kNone);
}

TEST(NameIndex, TheFirstOfTwoEqualNamesWinsAndAnEmptyIndexFindsNothing) {
  NameIndex index(3);
  index.add("node-a", 0);
  index.add("node-a", 1);
  index.add("node-b", 2);
  EXPECT_EQ(index.find("node-a"), 0U);
  EXPECT_EQ(index.find("node-b"), 2U);
  const NameIndex empty(0);
  EXPECT_EQ(empty.find("node-a"), NameIndex::kNone);
}

}  // namespace
}  // namespace fitscale::planner
