// The Launch records the controller hands on as launches happen, join, and end
// (controller/launch_tracker.h).
#include "controller/launch_tracker.h"

#include <gtest/gtest.h>

#include <map>

namespace fitscale {
namespace {

struct RecordingLog : LaunchLog {
  std::vector<LaunchRecord> changes;
  void launch_changed(const LaunchRecord& l) override { changes.push_back(l); }
  std::map<std::string, LaunchRecord> latest() const {
    std::map<std::string, LaunchRecord> m;
    for (const auto& c : changes) m[c.name] = c;
    return m;
  }
};

Instance instance(const std::string& id) {
  Instance i;
  i.id = id;
  i.instance_type = "m5.large";
  i.zone = "us-east-1a";
  i.capacity_type = CapacityType::OnDemand;
  i.state = "running";
  i.price_micros_per_hour = 96'000;
  i.pool = "cpu";
  i.owner_namespace = "team-a";
  i.job = "train";
  i.launched_at = 10;
  return i;
}

Node node_for(const Instance& i, NodeState state) {
  Node n;
  n.name = "node-" + i.id;
  n.managed = true;
  n.instance_id = i.id;
  n.provider_id = "aws:///us-east-1a/" + i.id;
  n.state = state;
  return n;
}

const LaunchCondition* cond(const LaunchRecord& r, const std::string& type) {
  for (const auto& c : r.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

TEST(LaunchTracker, ALaunchIsWrittenThenEachChangeOnceThenItsRemoval) {
  RecordingLog log;
  LaunchTracker t(log, "sim");
  LaunchDecision d;
  d.count = 2;
  d.owner_namespace = "team-a";
  d.job = "train";
  d.pods = {"team-a/p0", "team-a/p1", "team-a/p2"};
  const std::vector<Instance> launched = {instance("i-1"), instance("i-2")};
  t.launched(d, "cpu", launched, 10);
  ASSERT_EQ(log.changes.size(), 2u);
  const LaunchRecord& first = log.changes[0];
  EXPECT_EQ(first.name, "i-1");
  EXPECT_EQ(first.pool, "cpu");
  EXPECT_EQ(first.provider, "sim");
  EXPECT_EQ(first.job_namespace, "team-a");
  EXPECT_EQ(first.job_name, "train");
  EXPECT_EQ(first.pods, (std::vector<std::string>{"team-a/p0", "team-a/p1"}));
  EXPECT_EQ(log.changes[1].pods, (std::vector<std::string>{"team-a/p2"}));

  // Not listed yet (the cloud is late): not removed. Then listed, no node: nothing new.
  t.observe({}, {}, 11);
  EXPECT_EQ(log.changes.size(), 2u);
  t.observe({}, launched, 12);
  EXPECT_EQ(log.changes.size(), 2u);

  // i-1 registers, then is Ready: one change each.
  t.observe({node_for(launched[0], NodeState::Registered)}, launched, 20);
  t.observe({node_for(launched[0], NodeState::Ready)}, launched, 25);
  t.observe({node_for(launched[0], NodeState::Ready)}, launched, 30);
  ASSERT_EQ(log.changes.size(), 4u);
  const LaunchRecord ready = log.latest().at("i-1");
  EXPECT_EQ(ready.status.node_name, "node-i-1");
  EXPECT_EQ(cond(ready, "Initialized")->status, "True");

  // fitscale removes i-1 (empty); i-2 vanishes on its own.
  RemoveDecision r;
  r.node = "node-i-1";
  r.instance_id = "i-1";
  r.kind = RemoveReason::Empty;
  r.reason = "empty for 30s";
  t.removed(r, 60);
  EXPECT_EQ(cond(log.latest().at("i-1"), "Removed")->reason, "Empty");
  // Still listed while it shuts down: neither adopted again nor changed.
  Instance stopping = launched[0];
  stopping.state = "shutting-down";
  t.observe({}, {stopping}, 61);
  EXPECT_EQ(cond(log.latest().at("i-2"), "Removed")->reason, "InstanceTerminated");
  EXPECT_EQ(log.changes.size(), 6u);
  EXPECT_EQ(t.tracked(), 0u);
}

TEST(LaunchTracker, AdoptsTheInstancesItFindsAfterARestart) {
  RecordingLog log;
  LaunchTracker t(log, "aws");
  Instance i = instance("i-9");
  i.interruption_notice = true;
  t.observe({node_for(i, NodeState::Ready)}, {i}, 500);
  const LaunchRecord r = log.latest().at("i-9");
  EXPECT_EQ(r.pool, "cpu");
  EXPECT_EQ(r.job_name, "train");
  EXPECT_EQ(r.price_micros_per_hour, 96'000);
  EXPECT_EQ(cond(r, "Launched")->last_transition, 10);  // from the instance's launch time
  EXPECT_EQ(cond(r, "Initialized")->status, "True");
  // Reclaimed after its notice.
  t.observe({}, {}, 600);
  EXPECT_EQ(cond(log.latest().at("i-9"), "Removed")->reason, "SpotInterrupted");
}

TEST(LaunchTracker, ALaunchListsAtMostAHundredPodsAndCountsThemAll) {
  RecordingLog log;
  LaunchTracker t(log, "sim");
  LaunchDecision d;
  d.count = 1;
  for (int i = 0; i < 250; ++i) d.pods.push_back("ns/p" + std::to_string(i));
  t.launched(d, "", {instance("i-1")}, 10);
  ASSERT_EQ(log.changes.size(), 1u);
  EXPECT_EQ(log.changes[0].pods.size(), kLaunchPodsListed);
  EXPECT_EQ(log.changes[0].pod_count, 250);
}

}  // namespace
}  // namespace fitscale
