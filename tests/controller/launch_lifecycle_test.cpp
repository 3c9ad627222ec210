// Which conditions a Launch carries when (controller/launch_lifecycle.h).
#include "controller/launch_lifecycle.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

Instance spot_instance() {
  Instance i;
  i.id = "i-0ABC";
  i.instance_type = "g5.xlarge";
  i.zone = "us-east-1a";
  i.capacity_type = CapacityType::Spot;
  i.price_micros_per_hour = 1'006'000;
  i.provider_id = "aws:///us-east-1a/i-0ABC";
  return i;
}

const LaunchCondition& cond(const LaunchStatus& s, const std::string& type) {
  for (const auto& c : s.conditions) {
    if (c.type == type) return c;
  }
  static const LaunchCondition none{"none", "", "", "", 0};
  return none;
}

TEST(LaunchLifecycle, LaunchedThenRegisteredThenInitialized) {
  LaunchStatus s = launched_status(spot_instance(), 100);
  EXPECT_EQ(cond(s, "Launched").status, "True");
  EXPECT_NE(cond(s, "Launched").message.find("g5.xlarge in us-east-1a (spot) at $1.01/h"),
            std::string::npos)
      << cond(s, "Launched").message;
  EXPECT_EQ(cond(s, "Registered").status, "False");
  EXPECT_EQ(cond(s, "Initialized").status, "False");
  EXPECT_EQ(cond(s, "Removed").type, "none");

  // Not registered yet: nothing changes, nothing to write.
  LaunchObservation waiting;
  waiting.listed = false;  // EC2 lists a new instance a little later
  EXPECT_EQ(next_launch_status(s, waiting, 105), s);

  LaunchObservation joined;
  joined.listed_before = true;
  joined.node_name = "ip-10-0-0-1";
  s = next_launch_status(s, joined, 130);
  EXPECT_EQ(s.node_name, "ip-10-0-0-1");
  EXPECT_EQ(cond(s, "Registered").status, "True");
  EXPECT_EQ(cond(s, "Registered").last_transition, 130);
  EXPECT_EQ(cond(s, "Initialized").status, "False");
  EXPECT_EQ(cond(s, "Initialized").reason, "NodeNotReady");

  joined.node_ready = true;
  s = next_launch_status(s, joined, 150);
  EXPECT_EQ(cond(s, "Initialized").status, "True");
  EXPECT_EQ(cond(s, "Initialized").reason, "NodeReady");
  EXPECT_EQ(cond(s, "Initialized").last_transition, 150);
  EXPECT_EQ(cond(s, "Registered").last_transition, 130);  // unchanged status, unchanged time
  EXPECT_EQ(next_launch_status(s, joined, 160), s);

  // Initialized is for good: a node that goes NotReady later does not undo it.
  joined.node_ready = false;
  EXPECT_EQ(cond(next_launch_status(s, joined, 170), "Initialized").status, "True");
}

TEST(LaunchLifecycle, RemovedByFitscaleSaysWhyAndIsTerminal) {
  LaunchStatus s = launched_status(spot_instance(), 100);
  LaunchObservation removed;
  removed.removed = RemoveReason::Empty;
  removed.removed_message = "empty for 30s";
  s = next_launch_status(s, removed, 400);
  const LaunchCondition* r = removed_condition(s);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "Empty");
  EXPECT_NE(r->message.find("empty for 30s"), std::string::npos);
  EXPECT_EQ(launch_expires_at(s, 3600), 4000);
  // Terminal: a node seen afterwards changes nothing.
  LaunchObservation later;
  later.node_name = "n";
  later.node_ready = true;
  EXPECT_EQ(next_launch_status(s, later, 500), s);

  LaunchObservation never;
  never.removed = RemoveReason::NeverRegistered;
  EXPECT_EQ(
      removed_condition(next_launch_status(launched_status(spot_instance(), 0), never, 1))->reason,
      "NeverRegistered");
  LaunchObservation reclaimed;
  reclaimed.removed = RemoveReason::Interrupted;
  EXPECT_EQ(removed_condition(next_launch_status(launched_status(spot_instance(), 0), reclaimed, 1))
                ->reason,
            "SpotInterrupted");
}

TEST(LaunchLifecycle, AnInstanceThatVanishesIsRemovedWithTheCloudsReason) {
  const LaunchStatus s = launched_status(spot_instance(), 100);
  LaunchObservation gone;
  gone.listed = false;
  gone.listed_before = true;
  EXPECT_EQ(removed_condition(next_launch_status(s, gone, 200))->reason, "InstanceTerminated");
  gone.interruption_notice = true;
  EXPECT_EQ(removed_condition(next_launch_status(s, gone, 200))->reason, "SpotInterrupted");
  EXPECT_EQ(launch_expires_at(s, 3600), std::nullopt);
}

TEST(LaunchLifecycle, KeepsTheTransitionTimesAnEarlierLeaderWrote) {
  LaunchStatus existing = launched_status(spot_instance(), 100);
  LaunchObservation joined;
  joined.node_name = "n";
  joined.node_ready = true;
  existing = next_launch_status(existing, joined, 150);
  // A new leader adopts the instance at 900: same statuses, its own times.
  LaunchStatus adopted = next_launch_status(launched_status(spot_instance(), 900), joined, 900);
  const LaunchStatus kept = with_kept_transition_times(adopted, existing);
  EXPECT_EQ(kept, existing);
}

TEST(LaunchLifecycle, ObjectNamesAreDnsSubdomains) {
  EXPECT_EQ(launch_object_name("i-0ABCdef"), "i-0abcdef");
  EXPECT_EQ(launch_object_name("sim_000001"), "sim-000001");
  EXPECT_EQ(launch_object_name("/subscriptions/x/vm1"), "subscriptions-x-vm1");
  EXPECT_EQ(launch_object_name("__"), "launch");
}

}  // namespace
}  // namespace fitscale
