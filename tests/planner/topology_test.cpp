// Topology spread, pod affinity / anti-affinity on any key, preferences and volume zones, as
// the planner honours them when it launches (planner/topology.h, docs/planner.md "Topology").
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "fixtures.h"
#include "planner/plan.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_catalog;
using testing::make_node;
using testing::make_pod;
using testing::no_budgets;
using testing::reason_for;
Plan plan_for(const Snapshot& s);

const std::string kZone(label::kZone);

Pod web(const std::string& name, const std::string& app = "web") {
  Pod p = make_pod(name, 1000, 1 * kGi);
  p.owner = {"ReplicaSet", app + "-rs", "uid-rs"};
  p.labels = {{"app", app}};
  return p;
}

TopologySpreadConstraint spread_on(const std::string& key, std::int32_t skew = 1,
                                   const std::string& app = "web") {
  TopologySpreadConstraint c;
  c.topology_key = key;
  c.max_skew = skew;
  c.has_selector = true;
  c.selector.match_labels = {{"app", app}};
  return c;
}

PodAffinityTerm term_on(const std::string& key, const std::string& app) {
  PodAffinityTerm t;
  t.topology_key = key;
  t.selector.match_labels = {{"app", app}};
  return t;
}

// pod key -> zone of the launch it is in.
std::map<std::string, std::string> zones_of(const Plan& plan) {
  std::map<std::string, std::string> out;
  for (const auto& l : plan.launch) {
    for (const auto& p : l.pods) out[p] = l.zone;
  }
  return out;
}

std::set<std::string> distinct(const std::map<std::string, std::string>& m) {
  std::set<std::string> s;
  for (const auto& [k, v] : m) s.insert(v);
  return s;
}

// One 2-CPU type: without constraints two 1-CPU pods share one node.
Catalog small() { return make_catalog({{"m.large", 2000, 8 * kGi, 0, 0.05, 0.10}}); }

Plan plan_for(const Snapshot& s) { return plan(s, small(), no_budgets(), 0); }

TEST(TopologySpread, DoNotScheduleOnZonesLaunchesInEveryZone) {
  Snapshot s;
  for (int i = 0; i < 3; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    s.pods.back().constraints.spread.push_back(spread_on(kZone));
  }
  const Plan plan = plan_for(s);
  const auto zones = zones_of(plan);
  ASSERT_EQ(zones.size(), 3u);
  EXPECT_EQ(distinct(zones).size(), 3u);
  EXPECT_TRUE(plan.unschedulable.empty());
}

TEST(TopologySpread, WithoutTheConstraintThePodsShareNodes) {
  // The control for the test above: the same pods unconstrained need two nodes in one zone.
  Snapshot s;
  for (int i = 0; i < 3; ++i) s.pods.push_back(web("web-" + std::to_string(i)));
  const Plan plan = plan_for(s);
  EXPECT_EQ(distinct(zones_of(plan)).size(), 1u);
}

TEST(TopologySpread, BoundPodsCountTowardsTheSkew) {
  Snapshot s;
  s.nodes.push_back(make_node("n-a", 2000, 8 * kGi, "us-east-1a"));
  for (int i = 0; i < 2; ++i) {
    Pod b = web("old-" + std::to_string(i));
    b.node_name = "n-a";
    b.phase = PodPhase::Running;
    s.pods.push_back(b);
  }
  for (int i = 0; i < 2; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    s.pods.back().constraints.spread.push_back(spread_on(kZone));
  }
  const auto zones = zones_of(plan_for(s));
  ASSERT_EQ(zones.size(), 2u);
  EXPECT_EQ(zones.at("team-a/web-0") == "us-east-1a" || zones.at("team-a/web-1") == "us-east-1a",
            false);
  EXPECT_EQ(distinct(zones).size(), 2u);  // us-east-1b and us-east-1c
}

TEST(TopologySpread, MinDomainsAboveTheZonesCapsEachZoneAtMaxSkew) {
  // Five domains asked for, three exist: the global minimum counts as 0, so each zone takes
  // at most maxSkew (1) matching pod; the other three wait with the reason.
  Snapshot s;
  for (int i = 0; i < 6; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    TopologySpreadConstraint c = spread_on(kZone);
    c.min_domains = 5;
    s.pods.back().constraints.spread.push_back(c);
  }
  const Plan plan = plan_for(s);
  EXPECT_EQ(zones_of(plan).size(), 3u);
  ASSERT_EQ(plan.unschedulable.size(), 3u);
  EXPECT_NE(plan.unschedulable[0].reason.find("topology spread on topology.kubernetes.io/zone"),
            std::string::npos)
      << plan.unschedulable[0].reason;
}

TEST(TopologySpread, OnCapacityTypeSplitsSpotAndOnDemand) {
  Snapshot s;
  for (int i = 0; i < 2; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    s.pods.back().constraints.spread.push_back(spread_on("karpenter.sh/capacity-type"));
  }
  const Plan plan = plan_for(s);
  std::set<CapacityType> types;
  for (const auto& l : plan.launch) types.insert(l.capacity_type);
  EXPECT_EQ(types.size(), 2u);
}

TEST(TopologySpread, OnHostnameOneMatchingPodPerNewNode) {
  Snapshot s;
  for (int i = 0; i < 4; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    s.pods.back().constraints.spread.push_back(spread_on(std::string(label::kHostname)));
  }
  EXPECT_EQ(testing::launched(plan_for(s)), 4);
}

TEST(TopologySpread, ScheduleAnywaySpreadsWhenItCanAndYieldsWhenItCannot) {
  Snapshot s;
  for (int i = 0; i < 3; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    TopologySpreadConstraint c = spread_on(kZone);
    c.when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
    s.pods.back().constraints.spread.push_back(c);
  }
  EXPECT_EQ(distinct(zones_of(plan_for(s))).size(), 3u);
  // Pinned to one zone by nodeSelector, the preference gives way: all launched, none refused.
  for (Pod& p : s.pods) p.node_selector[kZone] = "us-east-1b";
  const Plan pinned = plan_for(s);
  EXPECT_TRUE(pinned.unschedulable.empty());
  EXPECT_EQ(distinct(zones_of(pinned)), std::set<std::string>{"us-east-1b"});
}

TEST(PodAntiAffinity, OnZonesOnePodPerZoneTheRestWait) {
  Snapshot s;
  for (int i = 0; i < 4; ++i) {
    s.pods.push_back(web("db-" + std::to_string(i), "db"));
    s.pods.back().constraints.anti_affinity.push_back(term_on(kZone, "db"));
  }
  const Plan plan = plan_for(s);
  EXPECT_EQ(distinct(zones_of(plan)).size(), 3u);
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].pod, "team-a/db-3");
  EXPECT_NE(plan.unschedulable[0].reason.find("anti-affinity on topology.kubernetes.io/zone"),
            std::string::npos);
}

TEST(PodAffinity, GoesToTheZoneOfTheMatchingPod) {
  Snapshot s;
  s.nodes.push_back(make_node("n-b", 1000, 8 * kGi, "us-east-1b"));
  Pod db = web("db-0", "db");
  db.node_name = "n-b";
  db.phase = PodPhase::Running;
  s.pods.push_back(db);
  for (int i = 0; i < 3; ++i) {
    s.pods.push_back(web("web-" + std::to_string(i)));
    s.pods.back().constraints.affinity.push_back(term_on(kZone, "db"));
  }
  EXPECT_EQ(distinct(zones_of(plan_for(s))), std::set<std::string>{"us-east-1b"});
}

TEST(PodAffinity, PendingPodsOfOneGroupShareAZoneAndNoMatchWaits) {
  Snapshot s;
  for (int i = 0; i < 5; ++i) {
    s.pods.push_back(web("w-" + std::to_string(i), "worker"));
    s.pods.back().constraints.affinity.push_back(term_on(kZone, "worker"));
  }
  Pod lonely = web("lonely", "x");
  lonely.constraints.affinity.push_back(term_on(kZone, "nobody"));
  s.pods.push_back(lonely);
  const Plan plan = plan_for(s);
  const auto zones = zones_of(plan);
  EXPECT_EQ(zones.size(), 5u);
  EXPECT_EQ(distinct(zones).size(), 1u);
  const UnschedulableDecision* u = reason_for(plan, "team-a/lonely");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason,
            "pod affinity on topology.kubernetes.io/zone: no pod matches its labelSelector");
}

TEST(Preferences, PreferredNodeAffinityIsFollowedWhenPossibleAndRelaxedOtherwise) {
  Snapshot s;
  Pod p = web("web-0");
  p.constraints.preferred_node_affinity.push_back(
      {10, {{{kZone, SelectorOp::In, {"us-east-1c"}}}}});
  s.pods.push_back(p);
  Pod q = web("web-1", "other");
  q.constraints.preferred_node_affinity.push_back(
      {90, {{{"example.com/rack", SelectorOp::In, {"r1"}}}}});  // no offering has it
  q.constraints.preferred_node_affinity.push_back(
      {10, {{{kZone, SelectorOp::In, {"us-east-1b"}}}}});
  s.pods.push_back(q);
  const Plan plan = plan_for(s);
  const auto zones = zones_of(plan);
  EXPECT_EQ(zones.at("team-a/web-0"), "us-east-1c");
  // The heaviest preference is relaxed first (Karpenter's order); the lighter one holds.
  EXPECT_EQ(zones.at("team-a/web-1"), "us-east-1b");
}

TEST(VolumeTopology, APodWithAZonalVolumeLaunchesInThatZone) {
  Snapshot s;
  Pod p = web("db-0", "db");
  p.constraints.volume_zones = {"us-east-1c"};
  s.pods.push_back(p);
  EXPECT_EQ(zones_of(plan_for(s)).at("team-a/db-0"), "us-east-1c");
  s.pods[0].node_selector[kZone] = "us-east-1a";
  const Plan refused = plan_for(s);
  ASSERT_EQ(refused.unschedulable.size(), 1u);
  EXPECT_EQ(refused.unschedulable[0].reason,
            "its volumes are in us-east-1c, which its other constraints exclude");
}

}  // namespace
}  // namespace fitscale
