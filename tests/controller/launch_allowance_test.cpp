// What the $/h caps still allow each launch of a loop: the ceiling passed to the cloud.
#include "controller/launch_allowance.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

TEST(LaunchAllowance, TheTighterOfNamespaceAndClusterCapLessCommittedAndThisLoopsLaunches) {
  Budgets b;
  b.defaults.usd_per_hour = 10;
  b.namespaces["big"].usd_per_hour = 100;
  b.cluster.usd_per_hour = 50;
  std::map<std::string, NamespaceSpend, std::less<>> spend;
  spend["team-a"].committed_micros_per_hour = dollars_to_micros(4);
  spend["big"].committed_micros_per_hour = dollars_to_micros(30);
  LaunchAllowance a(b, spend);
  EXPECT_EQ(a.remaining("team-a"), dollars_to_micros(6));  // its own cap binds
  EXPECT_EQ(a.remaining("big"), dollars_to_micros(16));    // the cluster's: 50 - 34
  EXPECT_EQ(a.remaining("new-team"), dollars_to_micros(10));
  a.charge("team-a", dollars_to_micros(5));
  EXPECT_EQ(a.remaining("team-a"), dollars_to_micros(1));
  EXPECT_EQ(a.remaining("big"), dollars_to_micros(11));  // the cluster cap counts it too
  a.charge("big", dollars_to_micros(20));
  EXPECT_EQ(a.remaining("big"), 0);  // never negative
}

TEST(LaunchAllowance, NoHourlyCapMeansNoCeiling) {
  Budgets b;
  b.defaults.usd_per_day = 100;
  std::map<std::string, NamespaceSpend, std::less<>> spend;
  LaunchAllowance a(b, spend);
  EXPECT_FALSE(a.remaining("team-a").has_value());
}

}  // namespace
}  // namespace fitscale
