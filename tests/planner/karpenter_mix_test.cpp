// An independent check of plans for Karpenter's constrained benchmark mix (bench/karpenter_mix.h)
// on a smaller instance: it replays the plan's zones in scheduling order and checks each
// required constraint as kube-scheduler would when binding in that order, without using any
// planner code beyond plan().
#include "../../bench/karpenter_mix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "fixtures.h"
#include "planner/plan.h"

namespace fitscale {
namespace {

using testing::kGi;

Catalog mix_catalog() {
  return testing::make_catalog({{"c.large", 2000, 4 * kGi, 0, 0.03, 0.085},
                                {"m.large", 2000, 8 * kGi, 0, 0.035, 0.096},
                                {"c.xlarge", 4000, 8 * kGi, 0, 0.06, 0.17},
                                {"m.2xlarge", 8000, 32 * kGi, 0, 0.14, 0.384},
                                {"c.4xlarge", 16000, 32 * kGi, 0, 0.24, 0.68}});
}

struct Fixture {
  std::vector<Pod> pods = bench::karpenter_mix(600);
  Plan plan;
  std::map<std::string, std::string> zone;  // pod key -> zone of its launch
  Fixture() {
    Snapshot s;
    s.pods = pods;
    Policy pol;
    pol.enforce_budgets = false;
    plan = fitscale::plan(s, mix_catalog(), pol, 0);
    for (const auto& l : plan.launch)
      for (const auto& p : l.pods) zone[p] = l.zone;
  }
  const Pod* pod(const std::string& key) const {
    for (const Pod& p : pods)
      if (p.key() == key) return &p;
    return nullptr;
  }
};

const std::string kZone = "topology.kubernetes.io/zone";
const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};

TEST(KarpenterMix, EveryPodIsLaunchedForOrHasAReason) {
  const Fixture f;
  std::set<std::string> seen;
  for (const auto& [k, z] : f.zone) seen.insert(k);
  for (const auto& u : f.plan.unschedulable) {
    EXPECT_TRUE(seen.insert(u.pod).second) << u.pod << " both launched and refused";
    // The only refusals Kubernetes would make too: affinity to a value no pod carries.
    EXPECT_EQ(u.reason.find("no pod matches its labelSelector") != std::string::npos, true)
        << u.pod << ": " << u.reason;
  }
  EXPECT_EQ(seen.size(), f.pods.size());
}

TEST(KarpenterMix, ZoneSpreadHoldsWhenBoundInSchedulingOrder) {
  const Fixture f;
  // Matching pods per (my-label value, zone), counted as pods bind in creation order.
  std::map<std::string, std::map<std::string, int>> count;
  int checked = 0;
  for (const Pod& p : f.pods) {  // the mix is in creation order
    auto z = f.zone.find(p.key());
    if (z == f.zone.end()) continue;
    for (const auto& c : p.constraints.spread) {
      if (c.topology_key != kZone) continue;
      const std::string& want = c.selector.match_labels.at("my-label");
      auto& by_zone = count[want];
      int min = 1 << 30;
      for (const auto& zz : kZones) min = std::min(min, by_zone[zz]);
      const int self = p.labels.count("my-label") && p.labels.at("my-label") == want ? 1 : 0;
      EXPECT_LE(by_zone[z->second] + self - min, c.max_skew) << p.key() << " in " << z->second;
      ++checked;
    }
    if (p.labels.count("my-label")) ++count[p.labels.at("my-label")][z->second];
  }
  EXPECT_EQ(checked, 100);
}

TEST(KarpenterMix, ZoneAffinityPodsShareAZoneWithAMatchingPod) {
  const Fixture f;
  int checked = 0;
  for (const Pod& p : f.pods) {
    for (const auto& t : p.constraints.affinity) {
      if (t.topology_key != kZone) continue;
      auto z = f.zone.find(p.key());
      if (z == f.zone.end()) continue;  // refused (checked above)
      bool near = false;
      for (const Pod& q : f.pods) {
        if (&q == &p || !matches(t.selector, q.labels)) continue;
        auto qz = f.zone.find(q.key());
        near = near || (qz != f.zone.end() && qz->second == z->second);
      }
      EXPECT_TRUE(near) << p.key();
      ++checked;
    }
  }
  EXPECT_GT(checked, 90);
}

TEST(KarpenterMix, HostnameAntiAffinityAndSpreadGetOneMatchingPodPerNode) {
  const Fixture f;
  int nginx = 0;
  for (const auto& l : f.plan.launch) {
    // Each node holds at most one pod of a group that repels itself, so a launch of `count`
    // nodes lists at most `count` of them.
    std::map<std::string, int> self_repelling;
    for (const auto& key : l.pods) {
      const Pod* p = f.pod(key);
      ASSERT_NE(p, nullptr);
      if (!p->anti_affinity_hostname.empty()) {
        ++self_repelling["nginx"];
        ++nginx;
      }
      for (const auto& c : p->constraints.spread) {
        if (c.topology_key == kZone || !matches(c.selector, p->labels)) continue;
        ++self_repelling["spread " + c.selector.match_labels.at("my-label")];
      }
    }
    for (const auto& [group, n] : self_repelling)
      EXPECT_LE(n, l.count) << group << " on " << l.instance_type << " " << l.zone;
  }
  EXPECT_EQ(nginx, 100);
}

}  // namespace
}  // namespace fitscale
