// The virtual cluster's scheduler honours required topology as kube-scheduler does, within one
// pass: pods it places count for the pods after them (zone spread lands spread, a gang with
// affinity to itself lands in one zone), and a pod whose zone anti-affinity closes every zone
// waits with kube-scheduler's reason; a pod whose claim is bound to a zonal volume lands there.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "vcluster/object_store.h"
#include "vcluster/scheduler.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

constexpr Time kNow = 1'800'000'000;

class FixedClock final : public Clock {
 public:
  Time now() const override { return kNow; }
};

json node(const std::string& name, const std::string& zone) {
  const json alloc = {{"cpu", "32"}, {"memory", "64Gi"}, {"pods", "110"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels", {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}}}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable", alloc},
            {"capacity", alloc},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

json pod(const std::string& name, const json& labels, const json& extra_spec) {
  json spec = {{"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}};
  spec.update(extra_spec);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"uid", "u-" + name},
            {"labels", labels},
            {"creationTimestamp", "2027-01-15T08:00:00Z"}}},
          {"spec", spec},
          {"status", {{"phase", "Pending"}}}};
}

class SchedulerTopology : public ::testing::Test {
 protected:
  SchedulerTopology() : store_(clock_, 100) {
    store_.create("nodes", "", node("a1", "us-east-1a"));
    store_.create("nodes", "", node("b1", "us-east-1b"));
    store_.create("nodes", "", node("c1", "us-east-1c"));
  }
  std::string node_of(const std::string& name) {
    return store_.get("pods", "default", name)["spec"].value("nodeName", "");
  }
  std::string scheduled_message(const std::string& name) {
    const json p = store_.get("pods", "default", name);
    for (const auto& c : p["status"].value("conditions", json::array()))
      if (c.value("type", "") == "PodScheduled") return c.value("message", "");
    return "";
  }
  FixedClock clock_;
  ObjectStore store_;
};

TEST_F(SchedulerTopology, ZoneSpreadPodsPendingTogetherLandTwoPerZone) {
  const json spread = {{"topologySpreadConstraints",
                        {{{"maxSkew", 1},
                          {"topologyKey", "topology.kubernetes.io/zone"},
                          {"whenUnsatisfiable", "DoNotSchedule"},
                          {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}}}}};
  for (int i = 0; i < 6; ++i)
    store_.create("pods", "default", pod("web-" + std::to_string(i), {{"app", "web"}}, spread));
  EXPECT_EQ(schedule_pending_pods(store_, clock_, {}).bound, 6);
  std::map<std::string, int> per_node;
  for (int i = 0; i < 6; ++i) ++per_node[node_of("web-" + std::to_string(i))];
  // Most-allocated scoring alone would put all six on one node.
  EXPECT_EQ(per_node, (std::map<std::string, int>{{"a1", 2}, {"b1", 2}, {"c1", 2}}));
}

TEST_F(SchedulerTopology, GangWithZoneAffinityToItselfLandsInOneZone) {
  // b1 is the most allocated node and holds two of the three; most-allocated scoring alone
  // would put the third on a1 (the first of the empty nodes), in another zone.
  store_.create("nodes", "", node("b2", "us-east-1b"));
  json resident = pod("other", {{"app", "x"}}, {{"nodeName", "b1"}});
  resident["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "5";
  resident["status"]["phase"] = "Running";
  store_.create("pods", "default", resident);
  const json affinity = {
      {"affinity",
       {{"podAffinity",
         {{"requiredDuringSchedulingIgnoredDuringExecution",
           {{{"labelSelector", {{"matchLabels", {{"fitscale.io/gang", "train"}}}}},
             {"topologyKey", "topology.kubernetes.io/zone"}}}}}}}}};
  const json big = {
      {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "20"}}}}}}}}};
  for (int i = 0; i < 3; ++i) {
    json p = pod("w" + std::to_string(i),
                 {{"fitscale.io/gang", "train"}, {"fitscale.io/gang-size", "3"}}, affinity);
    if (i > 0) p["spec"]["containers"] = big["containers"];
    store_.create("pods", "default", p);
  }
  EXPECT_EQ(schedule_pending_pods(store_, clock_, {}).bound, 3);
  const std::map<std::string, std::string> zone = {
      {"a1", "us-east-1a"}, {"b1", "us-east-1b"}, {"b2", "us-east-1b"}, {"c1", "us-east-1c"}};
  const std::string z = zone.at(node_of("w0"));
  EXPECT_EQ(zone.at(node_of("w1")), z);
  EXPECT_EQ(zone.at(node_of("w2")), z);
}

TEST_F(SchedulerTopology, ZoneAntiAffinityThatClosesEveryZoneWaitsWithTheReason) {
  const json anti = {{"affinity",
                      {{"podAntiAffinity",
                        {{"requiredDuringSchedulingIgnoredDuringExecution",
                          {{{"labelSelector", {{"matchLabels", {{"app", "db"}}}}},
                            {"topologyKey", "topology.kubernetes.io/zone"}}}}}}}}};
  for (int i = 0; i < 4; ++i)
    store_.create("pods", "default", pod("db-" + std::to_string(i), {{"app", "db"}}, anti));
  const SchedulerPass pass = schedule_pending_pods(store_, clock_, {});
  EXPECT_EQ(pass.bound, 3);  // one per zone
  EXPECT_EQ(pass.unschedulable, 1);
  EXPECT_EQ(node_of("db-3"), "");
  EXPECT_EQ(scheduled_message("db-3"),
            "0/3 nodes are available: 3 node(s) didn't satisfy existing pods anti-affinity rules.");
  // A pod without terms of its own is kept out of the zones whose pods refuse it.
  store_.create("pods", "default", pod("plain", {{"app", "db"}}, json::object()));
  schedule_pending_pods(store_, clock_, {});
  EXPECT_EQ(node_of("plain"), "");
  EXPECT_NE(scheduled_message("plain").find("existing pods anti-affinity rules"), std::string::npos)
      << scheduled_message("plain");
}

TEST_F(SchedulerTopology, PodWhoseClaimIsBoundToAZonalVolumeGoesToThatZone) {
  store_.create("persistentvolumes", "",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolume"},
                 {"metadata", {{"name", "pv-data"}}},
                 {"spec",
                  {{"nodeAffinity",
                    {{"required",
                      {{"nodeSelectorTerms",
                        {{{"matchExpressions",
                           {{{"key", "topology.kubernetes.io/zone"},
                             {"operator", "In"},
                             {"values", {"us-east-1c"}}}}}}}}}}}}}}});
  store_.create("persistentvolumeclaims", "default",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolumeClaim"},
                 {"metadata", {{"name", "data"}, {"namespace", "default"}}},
                 {"spec", {{"volumeName", "pv-data"}}}});
  const json volumes = {
      {"volumes", {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}}}};
  store_.create("pods", "default", pod("reader", {{"app", "r"}}, volumes));
  // A claim still waiting for its first consumer leaves the pod free (a1: first of the equal).
  store_.create("persistentvolumeclaims", "default",
                {{"apiVersion", "v1"},
                 {"kind", "PersistentVolumeClaim"},
                 {"metadata", {{"name", "fresh"}, {"namespace", "default"}}},
                 {"spec", json::object()}});
  const json fresh = {
      {"volumes", {{{"name", "fresh"}, {"persistentVolumeClaim", {{"claimName", "fresh"}}}}}}};
  store_.create("pods", "default", pod("writer", {{"app", "w"}}, fresh));
  EXPECT_EQ(schedule_pending_pods(store_, clock_, {}).bound, 2);
  EXPECT_EQ(node_of("reader"), "c1");
  EXPECT_NE(node_of("writer"), "");
}

}  // namespace
}  // namespace fitscale::vcluster
