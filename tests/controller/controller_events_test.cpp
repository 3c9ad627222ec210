// The events the controller emits, loop by loop: an undecodable pod is reported once per
// version, a pod waiting for an in-flight node is told which one, and every event is counted
// in the loop's stats (the loop only queues them).
#include <gtest/gtest.h>

#include "controller/controller.h"
#include "fakes.h"

namespace fitscale::testing {
namespace {

constexpr Time kStart = 1'780'000'000;

struct StatsRecorder final : Recorder {
  void action(const ActionRecord&) override {}
  void planned(const Snapshot&, const Plan&, const LoopStats&) override {}
  void loop_finished(const LoopStats& s) override { last = s; }
  LoopStats last;
};

struct World {
  World() : catalog(tiny_catalog()), clock(kStart), cloud(clock) {
    ControllerOptions o;
    o.policy = tiny_policy();
    controller = std::make_unique<Controller>(cluster, cloud, catalog, clock, nullptr, recorder, o);
  }
  Catalog catalog;
  FakeClock clock;
  FakeCluster cluster;
  FakeCloud cloud;
  StatsRecorder recorder;
  std::unique_ptr<Controller> controller;

  LoopResult loop() { return controller->reconcile(); }
  int count(const std::string& reason) const {
    int n = 0;
    for (const auto& e : cluster.events) n += e.reason == reason;
    return n;
  }
};

TEST(ControllerEvents, AnUndecodablePodIsReportedOncePerVersion) {
  World w;
  for (int i = 0; i < 300; ++i) {
    const std::string n = std::to_string(i);
    w.cluster.state.bad_pods.push_back(
        BadObject{"team-a/bad-" + n, "spec.containers[0]: bad quantity", "uid-" + n, "10"});
  }
  w.cluster.touch();
  w.loop();
  ASSERT_EQ(w.count("FailedDecode"), 300);
  const RecordedEvent& first = w.cluster.events.front();
  EXPECT_EQ(first.type, "Warning");
  EXPECT_EQ(first.about.kind, "Pod");
  EXPECT_EQ(first.about.ns, "team-a");
  EXPECT_EQ(first.about.name, "bad-0");
  EXPECT_EQ(first.about.uid, "uid-0");
  EXPECT_EQ(first.about.resource_version, "10");
  EXPECT_EQ(w.recorder.last.events, 300);

  // More loops, with an ordinary pod coming and being launched for: nothing new for the bad ones.
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  w.clock.advance(10);
  EXPECT_EQ(w.loop().launched, 1);
  for (int i = 0; i < 3; ++i) {
    w.clock.advance(10);
    w.cluster.touch();
    w.loop();
  }
  EXPECT_EQ(w.count("FailedDecode"), 300);

  // One is edited and still fails: that version is reported. One is fixed and breaks again
  // later as the same version: it was forgotten when fixed, so it is news again.
  w.cluster.state.bad_pods[7].resource_version = "11";
  std::erase_if(w.cluster.state.bad_pods,
                [](const BadObject& b) { return b.key == "team-a/bad-8"; });
  w.cluster.touch();
  w.loop();
  EXPECT_EQ(w.count("FailedDecode"), 301);
  EXPECT_EQ(w.cluster.events.back().about.resource_version, "11");
  w.cluster.state.bad_pods.push_back(BadObject{"team-a/bad-8", "bad", "uid-8", "10"});
  w.cluster.touch();
  w.loop();
  EXPECT_EQ(w.count("FailedDecode"), 302);
}

TEST(ControllerEvents, APodWaitingForAnInFlightNodeIsToldWhichOnceNotEveryLoop) {
  World w;
  w.cluster.add_pod(make_pod("train", 1000, 2 * kGi));
  ASSERT_EQ(w.loop().launched, 1);
  EXPECT_EQ(w.count("TriggeredScaleUp"), 1);
  EXPECT_EQ(w.recorder.last.launched, 1);
  EXPECT_EQ(w.recorder.last.pods_pending, 1);
  const std::string instance = w.cloud.instances.at(0).id;
  for (int i = 0; i < 3; ++i) {
    w.clock.advance(10);
    w.cluster.touch();  // still pending; the instance still booting
    w.loop();
  }
  ASSERT_EQ(w.count("Nominated"), 1);
  const RecordedEvent e =
      w.cluster.events_about("train").back();  // a copy: the list is a temporary
  EXPECT_EQ(e.reason, "Nominated");
  EXPECT_EQ(e.type, "Normal");
  EXPECT_NE(e.message.find(instance), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("not yet registered"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace fitscale::testing
