#include <gtest/gtest.h>

#include "fake_api_server.h"
#include "kube/kube_cluster_view.h"
#include "test_support.h"

namespace fitscale {
namespace {

using testing::eventually;
using testing::FakeApiServer;
using testing::ManualClock;

struct ClusterViewTest : ::testing::Test {
  FakeApiServer server;
  ManualClock clock;
  testing::TestLog log;
  std::unique_ptr<KubeClusterView> view;

  void SetUp() override {
    server.put("nodes", testing::node_json("node-1"));
    server.put("pods", testing::pod_json("team-a", "web-0", "node-1"));
    KubeViewOptions o;
    o.informer = testing::fast_informer_options();
    o.instance = "host-1";
    view = std::make_unique<KubeClusterView>(testing::config_for(server.url()), clock, log.logger,
                                             testing::simple_codecs(), o);
  }
};

TEST_F(ClusterViewTest, NotSyncedUntilEveryInformerListed) {
  EXPECT_FALSE(view->observe().synced);
  view->start();
  ASSERT_TRUE(eventually([&] { return view->observe().synced; }));
  ClusterState s = view->observe();
  ASSERT_EQ(s.nodes.size(), 1u);
  EXPECT_EQ(s.nodes[0].name, "node-1");
  ASSERT_EQ(s.pods.size(), 1u);
  EXPECT_EQ(s.pods[0].node_name, "node-1");
  auto gen = view->generation();
  server.put("pods", testing::pod_json("team-a", "web-1"));
  ASSERT_TRUE(eventually([&] { return view->generation() != gen; }));
  EXPECT_EQ(view->observe().pods.size(), 2u);
}

TEST_F(ClusterViewTest, CordonIsAMergePatchOfUnschedulable) {
  EXPECT_TRUE(view->cordon("node-1"));
  EXPECT_EQ(server.object("nodes", "node-1")["spec"]["unschedulable"], true);
  for (const auto& r : server.received()) {
    if (r.method == "PATCH") {
      EXPECT_EQ(r.content_type, "application/merge-patch+json");
    }
  }
  EXPECT_FALSE(view->cordon("no-such-node"));
}

TEST_F(ClusterViewTest, TaintIsAddedOnceKeepingOthers) {
  auto n = testing::node_json("node-1");
  n["spec"]["taints"] = {{{"key", "gpu"}, {"value", "true"}, {"effect", "NoSchedule"}}};
  server.put("nodes", n);
  Taint t{"fitscale.io/disrupted", "", TaintEffect::NoSchedule};
  EXPECT_TRUE(view->add_taint("node-1", t));
  EXPECT_TRUE(view->add_taint("node-1", t));
  auto taints = server.object("nodes", "node-1")["spec"]["taints"];
  ASSERT_EQ(taints.size(), 2u);
  EXPECT_EQ(taints[0]["key"], "gpu");
  EXPECT_EQ(taints[1]["key"], "fitscale.io/disrupted");
}

TEST_F(ClusterViewTest, EvictionRespectsTheDisruptionBudget) {
  server.set_eviction_status(429);
  EXPECT_EQ(view->evict("team-a", "web-0"), EvictOutcome::BlockedByBudget);
  EXPECT_FALSE(server.object("pods", "team-a/web-0").is_null());  // still there
  server.set_eviction_status(201);
  EXPECT_EQ(view->evict("team-a", "web-0"), EvictOutcome::Evicted);
  EXPECT_TRUE(server.object("pods", "team-a/web-0").is_null());
  bool posted_policy_v1 = false;
  for (const auto& r : server.received()) {
    if (r.path == "/api/v1/namespaces/team-a/pods/web-0/eviction") {
      auto body = nlohmann::json::parse(r.body);
      posted_policy_v1 = body["apiVersion"] == "policy/v1" && body["kind"] == "Eviction";
    }
  }
  EXPECT_TRUE(posted_policy_v1);
}

TEST_F(ClusterViewTest, DeleteNodeIsIdempotent) {
  EXPECT_TRUE(view->delete_node("node-1"));
  EXPECT_TRUE(server.object("nodes", "node-1").is_null());
  EXPECT_TRUE(view->delete_node("node-1"));  // already gone is fine
}

TEST_F(ClusterViewTest, RepeatedEventsBumpTheCount) {
  view->start();
  ObjectRef pod{"Pod", "team-a", "train-0", "uid-1", ""};
  view->record_event(pod, "Warning", "BudgetRefused", "needs $40.00/h, team-a has $10.00/h left");
  ASSERT_TRUE(view->events().flush(std::chrono::seconds(20)));
  clock.advance(30);
  view->record_event(pod, "Warning", "BudgetRefused", "needs $40.00/h, team-a has $10.00/h left");
  view->record_event(pod, "Normal", "TriggeredScaleUp", "launching 1 p3.8xlarge");
  ObjectRef node{"Node", "", "node-1", "", ""};
  view->record_event(node, "Normal", "ScaleDown", "empty for 60s");
  ASSERT_TRUE(view->events().flush(std::chrono::seconds(20)));

  auto events = server.events();
  ASSERT_EQ(events.size(), 3u);
  int refused = 0;
  for (const auto& [key, ev] : events) {
    EXPECT_EQ(ev["source"]["component"], "fitscale");
    if (ev["reason"] == "BudgetRefused") {
      ++refused;
      EXPECT_EQ(ev["count"], 2);
      EXPECT_EQ(ev["involvedObject"]["kind"], "Pod");
      EXPECT_EQ(ev["involvedObject"]["namespace"], "team-a");
      EXPECT_EQ(ev["involvedObject"]["uid"], "uid-1");
      EXPECT_EQ(ev["type"], "Warning");
      EXPECT_NE(ev["firstTimestamp"], ev["lastTimestamp"]);
      EXPECT_EQ(key.rfind("team-a/train-0.", 0), 0u);
    }
    if (ev["reason"] == "ScaleDown") {
      EXPECT_EQ(key.rfind("default/node-1.", 0), 0u);
      // The kubelet's convention, which `kubectl describe node` selects on.
      EXPECT_EQ(ev["involvedObject"]["uid"], "node-1");
    }
  }
  EXPECT_EQ(refused, 1);
  // A repeat is a PATCH of the event, never a second POST.
  EXPECT_EQ(server.count("POST", "/api/v1/namespaces/"), 3);
  EXPECT_EQ(server.count("PATCH", "/api/v1/namespaces/team-a/events/"), 1);
}

// The controller names a pod by namespace and name only; the view fills in what identifies it,
// so `kubectl describe pod` (which selects events by involvedObject.uid) shows the event.
TEST_F(ClusterViewTest, PodEventsCarryTheFullInvolvedObject) {
  view->start();
  ASSERT_TRUE(eventually([&] { return view->observe().synced; }));
  view->record_event({"Pod", "team-a", "web-0", "", ""}, "Normal", "Nominated",
                     "Pod should schedule");
  ASSERT_TRUE(view->events().flush(std::chrono::seconds(20)));
  auto events = server.events();
  ASSERT_EQ(events.size(), 1u);
  const auto& ev = events.begin()->second;
  const auto pod = server.object("pods", "team-a/web-0");
  EXPECT_EQ(ev["involvedObject"]["apiVersion"], "v1");
  EXPECT_EQ(ev["involvedObject"]["kind"], "Pod");
  EXPECT_EQ(ev["involvedObject"]["namespace"], "team-a");
  EXPECT_EQ(ev["involvedObject"]["name"], "web-0");
  EXPECT_EQ(ev["involvedObject"]["uid"], "uid-team-a-web-0");
  EXPECT_EQ(ev["involvedObject"]["resourceVersion"], pod["metadata"]["resourceVersion"]);
  EXPECT_EQ(ev["reportingComponent"], "fitscale");
  EXPECT_EQ(ev["reportingInstance"], "host-1");
  EXPECT_EQ(ev["source"]["component"], "fitscale");
  EXPECT_EQ(ev["count"], 1);
  EXPECT_EQ(ev["firstTimestamp"], ev["lastTimestamp"]);
}

TEST_F(ClusterViewTest, GateStopsEveryWrite) {
  bool leader = false;
  view->set_write_gate([&] { return leader; }, "not the leader");
  EXPECT_FALSE(view->cordon("node-1"));
  EXPECT_EQ(view->evict("team-a", "web-0"), EvictOutcome::Failed);
  EXPECT_FALSE(view->delete_node("node-1"));
  view->start();
  view->record_event({"Pod", "team-a", "web-0", "", ""}, "Normal", "X", "y");
  ASSERT_TRUE(view->events().flush(std::chrono::seconds(20)));
  EXPECT_EQ(server.count("PATCH", "/"), 0);
  EXPECT_EQ(server.count("POST", "/"), 0);
  EXPECT_EQ(server.count("DELETE", "/"), 0);
  leader = true;
  EXPECT_TRUE(view->cordon("node-1"));
}

}  // namespace
}  // namespace fitscale
