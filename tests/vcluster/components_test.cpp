// The virtual cluster's in-cluster components, driven tick by tick through the REST API the way
// kubectl would, with a hand-set clock (no waiting).
#include <gtest/gtest.h>

#include "cloud/sim/sim_cloud.h"
#include "model/catalog.h"
#include "vcluster/virtual_cluster.h"

namespace fitscale::vcluster {
namespace {

// As `fitscale cluster` builds it: one pool without requirements or taints, so the simulated
// cloud sells every type (what a pool may use is the controller's configuration).
CatalogOptions sells_all() {
  CatalogOptions o;
  Pool any;
  any.name = "default";
  o.pools = {any};
  return o;
}

class ManualClock final : public Clock {
 public:
  Time now() const override { return t; }
  Time t = 1'800'000'000;
};

class VclusterComponents : public ::testing::Test {
 protected:
  VclusterComponents()
      : catalog(build_catalog(parse_catalog_csv(default_catalog_csv(), "embedded"), sells_all())),
        sim(catalog, clock, SimCloudOptions{}),
        cluster(catalog, sim, &sim, clock, options()) {}

  static VirtualClusterOptions options() {
    VirtualClusterOptions o;
    o.bridge.boot_delay = [](const std::string&) { return 10; };
    o.bridge.interruption_grace_s = 5;
    return o;
  }

  ApiResponse call(const std::string& method, const std::string& path,
                   const nlohmann::json& body = nullptr,
                   const std::string& content_type = "application/json") {
    ApiRequest r;
    r.method = method;
    r.path = *parse_api_path(path);
    if (!body.is_null()) r.body = body.dump();
    r.content_type = content_type;
    return cluster.api().handle(r);
  }

  std::string launch(const std::string& type, const std::string& zone, CapacityType cap) {
    LaunchRequest req;
    req.instance_type = type;
    req.zone = zone;
    req.capacity_type = cap;
    req.client_token = type + zone;
    return cluster.bridge().launch(req).launched.at(0).id;
  }

  static nlohmann::json pod(const std::string& name, const std::string& cpu,
                            const nlohmann::json& extra = {}) {
    nlohmann::json p = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}}},
        {"spec",
         {{"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", cpu}}}}}}}}}}};
    if (!extra.is_null()) p.merge_patch(extra);
    return p;
  }

  std::string phase(const std::string& name) {
    return call("GET", "/api/v1/namespaces/default/pods/" + name).body["status"].value("phase", "");
  }
  std::string node_of(const std::string& name) {
    return call("GET", "/api/v1/namespaces/default/pods/" + name)
        .body["spec"]
        .value("nodeName", "");
  }

  ManualClock clock;
  Catalog catalog;
  SimCloud sim;
  VirtualCluster cluster;
};

TEST_F(VclusterComponents, InstanceRegistersAfterBootDelayAndGoesWhenTerminated) {
  const std::string id = launch("m5.large", "us-east-1a", CapacityType::Spot);
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/nodes").body["items"].size(), 0u);
  clock.t += 10;
  cluster.tick();
  auto node = call("GET", "/api/v1/nodes/" + id);
  ASSERT_EQ(node.status, 200);
  EXPECT_EQ(node.body["metadata"]["labels"]["fitscale.io/capacity-type"], "spot");
  EXPECT_EQ(node.body["spec"]["providerID"], "aws:///us-east-1a/" + id);
  // Deleted through the API: stays deleted while the instance lives.
  EXPECT_EQ(call("DELETE", "/api/v1/nodes/" + id).status, 200);
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/nodes/" + id).status, 404);

  const std::string other = launch("m5.large", "us-east-1b", CapacityType::OnDemand);
  clock.t += 10;
  cluster.tick();
  ASSERT_EQ(call("GET", "/api/v1/nodes/" + other).status, 200);
  cluster.bridge().terminate({other});
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/nodes/" + other).status, 404);
}

TEST_F(VclusterComponents, SchedulerHonoursResourcesSelectorsAndTaints) {
  const std::string small = launch("m5.large", "us-east-1a", CapacityType::Spot);  // 2 vCPU
  const std::string gpu =
      launch("p3.2xlarge", "us-east-1a", CapacityType::OnDemand);  // 8 vCPU, 1 V100
  clock.t += 10;
  cluster.tick();
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("big", "6")).status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods",
                 pod("od", "100m",
                     {{"spec", {{"nodeSelector", {{"karpenter.sh/capacity-type", "on-demand"}}}}}}))
                .status,
            201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("huge", "64")).status, 201);
  cluster.tick();
  EXPECT_EQ(node_of("big"), gpu);  // only the 8-vCPU node holds 6 CPUs
  EXPECT_EQ(node_of("od"), gpu);   // the Karpenter alias pins on-demand
  EXPECT_EQ(phase("big"), "Running");
  EXPECT_EQ(node_of("huge"), "");
  auto conds = call("GET", "/api/v1/namespaces/default/pods/huge").body["status"]["conditions"];
  ASSERT_EQ(conds.size(), 1u);
  EXPECT_EQ(conds[0]["reason"], "Unschedulable");
  EXPECT_NE(conds[0]["message"].get<std::string>().find("Insufficient cpu"), std::string::npos);

  // A NoSchedule taint keeps pods without a toleration off the node.
  ASSERT_EQ(
      call("PATCH", "/api/v1/nodes/" + small,
           {{"spec", {{"taints", {{{"key", "team"}, {"value", "a"}, {"effect", "NoSchedule"}}}}}}},
           "application/merge-patch+json")
          .status,
      200);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods",
                 pod("picky", "100m",
                     {{"spec", {{"nodeSelector", {{"kubernetes.io/hostname", small}}}}}}))
                .status,
            201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods",
                 pod("tolerant", "100m",
                     {{"spec",
                       {{"nodeSelector", {{"kubernetes.io/hostname", small}}},
                        {"tolerations",
                         {{{"key", "team"},
                           {"operator", "Equal"},
                           {"value", "a"},
                           {"effect", "NoSchedule"}}}}}}}))
                .status,
            201);
  cluster.tick();
  EXPECT_EQ(node_of("picky"), "");
  EXPECT_EQ(node_of("tolerant"), small);
}

TEST_F(VclusterComponents, ABurstOfIdenticalPodsFillsTheRoomThereIsAndTheRestSayWhy) {
  // The scheduler looks at a class of identical pods once per node, not each pod at each node:
  // what it binds and what it says of the rest must not change for it.
  const std::string a = launch("m5.large", "us-east-1a", CapacityType::Spot);  // 2 vCPU
  const std::string b = launch("m5.large", "us-east-1b", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  for (int i = 0; i < 12; ++i) {
    ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("p" + std::to_string(i), "500m"))
                  .status,
              201);
  }
  cluster.tick();
  int on_a = 0, on_b = 0, unbound = 0;
  for (int i = 0; i < 12; ++i) {
    const std::string n = node_of("p" + std::to_string(i));
    on_a += n == a;
    on_b += n == b;
    if (n.empty()) {
      ++unbound;
      auto conds = call("GET", "/api/v1/namespaces/default/pods/p" + std::to_string(i))
                       .body["status"]["conditions"];
      ASSERT_EQ(conds.size(), 1u);
      EXPECT_EQ(conds[0]["reason"], "Unschedulable");
      EXPECT_EQ(conds[0]["message"], "0/2 nodes are available: 2 Insufficient cpu.");
    }
  }
  // Most-allocated first: one node fills before the other takes a pod. An m5.large's
  // allocatable CPU holds three 500m pods once the system reservation is taken.
  EXPECT_GT(on_a + on_b, 0);
  EXPECT_EQ(on_a + on_b + unbound, 12);
  EXPECT_GT(unbound, 0);
  EXPECT_EQ(on_a, on_b);  // both full, the same size
}

TEST_F(VclusterComponents, SchedulerNeverBindsAGatedPodAndSaysWhyItWaits) {
  const std::string node = launch("m5.large", "us-east-1a", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods",
                 pod("queued", "100m",
                     {{"spec", {{"schedulingGates", {{{"name", "kueue.x-k8s.io/admission"}}}}}}}))
                .status,
            201);
  cluster.tick();
  EXPECT_EQ(node_of("queued"), "") << "room on " << node << ", but the pod is gated";
  auto conds = call("GET", "/api/v1/namespaces/default/pods/queued").body["status"]["conditions"];
  ASSERT_EQ(conds.size(), 1u);
  EXPECT_EQ(conds[0]["status"], "False");
  EXPECT_EQ(conds[0]["reason"], "SchedulingGated");
  // Admitted: the gate goes, the pod binds.
  ASSERT_EQ(call("PATCH", "/api/v1/namespaces/default/pods/queued",
                 nlohmann::json::array({{{"op", "remove"}, {"path", "/spec/schedulingGates"}}}),
                 "application/json-patch+json")
                .status,
            200);
  cluster.tick();
  EXPECT_EQ(node_of("queued"), node);
}

TEST_F(VclusterComponents, ANotReadyNodesKubeletDoesNothingAndItsDeletedPodsStayTerminating) {
  const std::string node = launch("m5.large", "us-east-1a", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", pod("web", "100m")).status, 201);
  cluster.tick();
  ASSERT_EQ(node_of("web"), node);
  ASSERT_EQ(
      call("PATCH", "/api/v1/nodes/" + node + "/status",
           {{"status",
             {{"conditions",
               {{{"type", "Ready"}, {"status", "Unknown"}, {"reason", "NodeStatusUnknown"}}}}}}},
           "application/merge-patch+json")
          .status,
      200);
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/web").status, 200);
  for (int i = 0; i < 3; ++i) {
    clock.t += 10;
    cluster.tick();
  }
  const auto got = call("GET", "/api/v1/namespaces/default/pods/web");
  ASSERT_EQ(got.status, 200) << "a dead kubelet cannot confirm the deletion";
  EXPECT_TRUE(got.body["metadata"].contains("deletionTimestamp"));
}

TEST_F(VclusterComponents, GangBindsAllOrNothing) {
  launch("m5.large", "us-east-1a", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  auto member = [](const std::string& name) {
    return pod(
        name, "1500m",
        {{"metadata", {{"labels", {{"fitscale.io/gang", "g"}, {"fitscale.io/gang-size", "2"}}}}}});
  };
  call("POST", "/api/v1/namespaces/default/pods", member("g-0"));
  cluster.tick();
  EXPECT_EQ(node_of("g-0"), "");  // its gang is incomplete
  call("POST", "/api/v1/namespaces/default/pods", member("g-1"));
  cluster.tick();
  // Both exist, but 2 x 1.5 CPU do not fit one 2-vCPU node: neither is bound.
  EXPECT_EQ(node_of("g-0"), "");
  EXPECT_EQ(node_of("g-1"), "");
  launch("m5.large", "us-east-1b", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  EXPECT_NE(node_of("g-0"), "");
  EXPECT_NE(node_of("g-1"), "");
  EXPECT_NE(node_of("g-0"), node_of("g-1"));
}

TEST_F(VclusterComponents, JobPodsRunForSimDurationAndCompleteTheJob) {
  launch("m5.xlarge", "us-east-1a", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  nlohmann::json job = {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata", {{"name", "j"}}},
      {"spec",
       {{"parallelism", 2},
        {"template",
         {{"metadata", {{"annotations", {{"fitscale.io/sim-duration", "1m"}}}}},
          {"spec",
           {{"restartPolicy", "Never"},
            {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}}}}}};
  ASSERT_EQ(call("POST", "/apis/batch/v1/namespaces/default/jobs", job).status, 201);
  cluster.tick();  // pods created, bound, started
  cluster.tick();
  auto pods = call("GET", "/api/v1/namespaces/default/pods").body["items"];
  ASSERT_EQ(pods.size(), 2u);
  for (const auto& p : pods) EXPECT_EQ(p["status"]["phase"], "Running");
  EXPECT_EQ(call("GET", "/apis/batch/v1/namespaces/default/jobs/j").body["status"]["active"], 2);
  clock.t += 59;
  cluster.tick();
  EXPECT_EQ(call("GET", "/apis/batch/v1/namespaces/default/jobs/j").body["status"]["active"], 2);
  clock.t += 1;
  cluster.tick();
  cluster.tick();
  auto status = call("GET", "/apis/batch/v1/namespaces/default/jobs/j").body["status"];
  EXPECT_EQ(status["succeeded"], 2);
  EXPECT_FALSE(status.contains("active"));
  bool complete = false;
  for (const auto& c : status["conditions"]) complete |= c["type"] == "Complete";
  EXPECT_TRUE(complete);
  // Deleting the Job as kubectl does (propagationPolicy Background) collects its pods.
  EXPECT_EQ(call("DELETE", "/apis/batch/v1/namespaces/default/jobs/j",
                 {{"propagationPolicy", "Background"}})
                .status,
            200);
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods").body["items"].size(), 0u);
}

TEST_F(VclusterComponents, EvictionRespectsDisruptionBudgetPercentages) {
  launch("m5.xlarge", "us-east-1a", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  for (const char* n : {"a", "b", "c", "d"}) {
    call("POST", "/api/v1/namespaces/default/pods",
         pod(n, "100m", {{"metadata", {{"labels", {{"app", "x"}}}}}}));
  }
  call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
       {{"apiVersion", "policy/v1"},
        {"kind", "PodDisruptionBudget"},
        {"metadata", {{"name", "p"}}},
        {"spec", {{"minAvailable", "75%"}, {"selector", {{"matchLabels", {{"app", "x"}}}}}}}});
  cluster.tick();
  cluster.tick();
  auto st = call("GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/p").body["status"];
  EXPECT_EQ(st["currentHealthy"], 4);
  EXPECT_EQ(st["desiredHealthy"], 3);  // 75% of 4, rounded up
  EXPECT_EQ(st["disruptionsAllowed"], 1);
  nlohmann::json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}};
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/a/eviction", eviction).status, 201);
  // The budget is spent at once: a second eviction before any recount is refused.
  auto second = call("POST", "/api/v1/namespaces/default/pods/b/eviction", eviction);
  EXPECT_EQ(second.status, 429);
  EXPECT_EQ(second.body["reason"], "TooManyRequests");
  cluster.tick();
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/a").status, 404);
  // Recounted: 3 healthy, 75% of 3 rounds up to 3, so still no disruption allowed.
  EXPECT_EQ(call("GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/p")
                .body["status"]["disruptionsAllowed"],
            0);
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/b/eviction", eviction).status, 429);
}

TEST_F(VclusterComponents, SpotInterruptionTaintsThenRemovesNodeAndFailsItsPods) {
  const std::string id = launch("m5.large", "us-east-1a", CapacityType::Spot);
  clock.t += 10;
  cluster.tick();
  call("POST", "/api/v1/namespaces/default/pods", pod("victim", "100m"));
  cluster.tick();
  ASSERT_EQ(phase("victim"), "Running");
  cluster.bridge().interrupt(id);
  auto taints = call("GET", "/api/v1/nodes/" + id).body["spec"]["taints"];
  ASSERT_EQ(taints.size(), 1u);
  EXPECT_EQ(taints[0]["key"], "fitscale.io/spot-interruption");
  bool noticed = false;
  for (const auto& i : cluster.bridge().list_instances())
    noticed |= i.id == id && i.interruption_notice;
  EXPECT_TRUE(noticed);
  clock.t += 4;
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/nodes/" + id).status, 200);
  clock.t += 1;
  cluster.tick();
  EXPECT_EQ(call("GET", "/api/v1/nodes/" + id).status, 404);
  EXPECT_EQ(phase("victim"), "Failed");
}

}  // namespace
}  // namespace fitscale::vcluster
