// Reserved capacity first (docs/reserved-capacity.md): reservations a pool selects are used
// before spot and on-demand while they have room, a Capacity Block's end is respected, and
// budgets charge reserved nodes at their marginal price.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "fixtures.h"
#include "model/catalog.h"
#include "model/config.h"
#include "model/error.h"
#include "planner/plan.h"
#include "planner/policy_from_config.h"

namespace fitscale {
namespace {

using testing::kGi;
using testing::make_pod;

constexpr const char* kCsv =
    "instance_type,arch,vcpu,memory_mib,gpu,gpu_model,gpu_memory_mib,on_demand_usd_per_hour,"
    "spot_usd_per_hour,spot_interruption_bucket,spot_interruption_label\n"
    "m5.xlarge,amd64,4,16384,0,,0,0.192,0.06,0,<5%\n"
    "c5.xlarge,amd64,4,8192,0,,0,0.17,0.05,0,<5%\n";

constexpr Time kNow = 1767571200;  // 2026-01-05T00:00:00Z

struct World {
  Catalog catalog;
  Policy policy;
};

World world(const std::string& yaml, const std::string& budgets = "budgets: {}\n") {
  Config c = parse_config(yaml + "zones: [us-east-1a, us-east-1b]\n" + budgets, "c.yaml");
  return {build_catalog(parse_catalog_csv(kCsv, "c.csv"), catalog_options_from_config(c)),
          policy_from_config(c)};
}

Plan plan_for(const World& w, std::vector<Pod> pods, std::vector<Node> nodes = {}) {
  Snapshot s;
  s.pods = std::move(pods);
  s.nodes = std::move(nodes);
  return plan(s, w.catalog, w.policy, kNow);
}

// Nodes launched, by capacity type (and reservation for reserved ones).
std::map<std::string, int> launched_by_capacity(const Plan& p, const Catalog& c) {
  std::map<std::string, int> out;
  for (const LaunchDecision& l : p.launch) {
    const Offering& o = c.offerings[l.offering_index];
    std::string key = to_string(l.capacity_type);
    if (!o.reservation_id.empty()) key += " " + o.reservation_id;
    out[key] += l.count;
  }
  return out;
}

// Three jobs of one pod each, each pod taking most of an xlarge: three nodes.
std::vector<Pod> three_jobs(const std::string& max_runtime = "") {
  std::vector<Pod> pods;
  for (const char* name : {"a", "b", "c"}) {
    Pod p = make_pod(name, 3000, 6 * kGi);
    if (!max_runtime.empty()) p.annotations["fitscale.io/max-runtime"] = max_runtime;
    pods.push_back(p);
  }
  return pods;
}

constexpr const char* kTwoM5 = R"(
reservations:
  - {id: cr-0a, instanceType: m5.xlarge, zone: us-east-1a, count: 2}
)";

TEST(Reserved, AReservationIsUsedBeforeSpotWhileItHasRoom) {
  const World w = world(kTwoM5);
  const Plan p = plan_for(w, three_jobs());
  // m5 on spot ($0.06) and c5 on spot ($0.05) are both dearer than the reservation ($0).
  const auto by = launched_by_capacity(p, w.catalog);
  EXPECT_EQ(by.at("reserved cr-0a"), 2);
  EXPECT_EQ(by.at("spot"), 1);
  EXPECT_TRUE(p.unschedulable.empty());
  for (const LaunchDecision& l : p.launch) {
    if (l.capacity_type != CapacityType::Reserved) continue;
    EXPECT_EQ(l.instance_type, "m5.xlarge");
    EXPECT_EQ(l.zone, "us-east-1a");
    EXPECT_EQ(l.usd_per_hour, 0.0);
    const Offering& o = w.catalog.offerings[l.offering_index];
    EXPECT_EQ(o.labels.at("fitscale.io/capacity-type"), "reserved");
    EXPECT_EQ(o.labels.at("fitscale.io/capacity-reservation-id"), "cr-0a");
  }
}

TEST(Reserved, NodesAlreadyInTheReservationTakeItsRoom) {
  const World w = world(kTwoM5);
  Node in_it = testing::make_node("node-1", 3800, 15 * kGi);
  in_it.managed = true;
  in_it.instance_type = "m5.xlarge";
  in_it.capacity_type = CapacityType::Reserved;
  in_it.labels["fitscale.io/capacity-reservation-id"] = "cr-0a";
  in_it.labels["fitscale.io/pool"] = "default";
  // Its room is taken by a pod that fills it, so the three jobs need three new nodes.
  Pod running = make_pod("running", 3000, 6 * kGi);
  running.phase = PodPhase::Running;
  running.node_name = "node-1";
  std::vector<Pod> pods = three_jobs();
  pods.push_back(running);
  const Plan p = plan_for(w, pods, {in_it});
  const auto by = launched_by_capacity(p, w.catalog);
  EXPECT_EQ(by.at("reserved cr-0a"), 1);
  EXPECT_EQ(by.at("spot"), 2);
}

TEST(Reserved, AJobThatDoesNotFitTheRoomLeftGoesWholeToSpot) {
  const World w = world(kTwoM5);
  std::vector<Pod> pods;
  for (const char* name : {"w0", "w1", "w2"}) {
    Pod p = make_pod(name, 3000, 6 * kGi);
    p.owner = {"Job", "train", "uid-train"};
    pods.push_back(p);
  }
  const Plan p = plan_for(w, pods);
  // Three nodes for one job, two in the reservation: the job is not split across the two.
  const auto by = launched_by_capacity(p, w.catalog);
  EXPECT_EQ(by.count("reserved cr-0a"), 0u);
  EXPECT_EQ(by.at("spot"), 3);
}

TEST(Reserved, ACapacityBlockTakesOnlyJobsThatEndBeforeIt) {
  // Ends 3 h from now; its instances go 30 minutes before that.
  const World w = world(R"(
reservations:
  - {id: cr-block, kind: capacity-block, instanceType: m5.xlarge, zone: us-east-1a, count: 3,
     end: "2026-01-05T03:00:00Z"}
)");
  const Plan short_jobs = plan_for(w, three_jobs("2h30m"));
  EXPECT_EQ(launched_by_capacity(short_jobs, w.catalog).at("reserved cr-block"), 3);
  const Plan long_jobs = plan_for(w, three_jobs("2h31m"));
  const auto by = launched_by_capacity(long_jobs, w.catalog);
  EXPECT_EQ(by.count("reserved cr-block"), 0u);
  EXPECT_EQ(by.at("spot"), 3);
  // A job that declares no worst case, in a namespace whose budget gives none, is unbounded.
  const Plan unbounded = plan_for(w, three_jobs());
  EXPECT_EQ(launched_by_capacity(unbounded, w.catalog).count("reserved cr-block"), 0u);
}

TEST(Reserved, ACapacityBlockUsesTheBudgetsMaxRuntimeForJobsThatDeclareNone) {
  const World w = world(R"(
reservations:
  - {id: cr-block, kind: capacity-block, instanceType: m5.xlarge, zone: us-east-1a, count: 3,
     end: "2026-01-05T03:00:00Z"}
)",
                        "budgets: {default: {maxRuntime: 2h}}\n");
  const Plan p = plan_for(w, three_jobs());
  EXPECT_EQ(launched_by_capacity(p, w.catalog).at("reserved cr-block"), 3);
}

TEST(Reserved, AGangUsesTheReservationWithinItsRoomAndStaysInOneZone) {
  const World w = world(kTwoM5);
  std::vector<Pod> gang;
  for (const char* name : {"g0", "g1"}) {
    Pod p = make_pod(name, 3000, 6 * kGi);
    p.labels["fitscale.io/gang"] = "pair";
    p.labels["fitscale.io/gang-size"] = "2";
    gang.push_back(p);
  }
  const Plan p = plan_for(w, gang);
  EXPECT_EQ(launched_by_capacity(p, w.catalog).at("reserved cr-0a"), 2);
  gang.push_back(gang.back());
  gang.back().name = "g2";
  gang.back().uid = "g2";
  for (Pod& m : gang) m.labels["fitscale.io/gang-size"] = "3";
  const Plan three = plan_for(w, gang);
  // Three nodes where the reservation holds two: never more than two in it, all in its zone.
  int nodes = 0;
  int reserved = 0;
  for (const LaunchDecision& l : three.launch) {
    EXPECT_EQ(l.zone, "us-east-1a");
    nodes += l.count;
    if (l.capacity_type == CapacityType::Reserved) reserved += l.count;
  }
  EXPECT_EQ(nodes, 3);
  EXPECT_LE(reserved, 2);
  EXPECT_TRUE(three.unschedulable.empty());
}

TEST(Reserved, APoolUsesOnlyTheReservationsItSelects) {
  const World w = world(R"(
reservations:
  - {id: cr-ml, instanceType: m5.xlarge, zone: us-east-1a, count: 1, tags: {team: ml}}
  - {id: cr-other, instanceType: c5.xlarge, zone: us-east-1a, count: 5}
pools:
  - name: default
    template:
      capacityReservationSelectorTerms: [{tags: {team: ml}}]
)");
  const auto by = launched_by_capacity(plan_for(w, three_jobs()), w.catalog);
  EXPECT_EQ(by.at("reserved cr-ml"), 1);
  EXPECT_EQ(by.count("reserved cr-other"), 0u);
  EXPECT_EQ(by.at("spot"), 2);
}

TEST(Reserved, APodThatRequiresReservedCapacityWaitsWhenTheReservationIsFull) {
  const World w = world(kTwoM5);
  std::vector<Pod> pods = three_jobs();
  for (Pod& p : pods) p.node_selector["karpenter.sh/capacity-type"] = "reserved";
  const Plan p = plan_for(w, pods);
  EXPECT_EQ(launched_by_capacity(p, w.catalog).at("reserved cr-0a"), 2);
  ASSERT_EQ(p.unschedulable.size(), 1u);
  EXPECT_NE(p.unschedulable[0].reason.find("cr-0a"), std::string::npos)
      << p.unschedulable[0].reason;
}

TEST(Reserved, BudgetsChargeTheMarginalPrice) {
  // $0.04/h of cap: not one spot node ($0.05 the cheapest), but reserved nodes at $0 (already
  // paid) and one at $0.03.
  const std::string cap = "budgets: {default: {usdPerHour: 0.04, maxRuntime: 1h}}\n";
  const World paid = world(kTwoM5, cap);
  const Plan p = plan_for(paid, three_jobs());
  EXPECT_EQ(launched_by_capacity(p, paid.catalog).at("reserved cr-0a"), 2);
  ASSERT_EQ(p.unschedulable.size(), 1u);  // the third would need spot, over the cap
  const World priced = world(R"(
reservations:
  - {id: cr-0a, instanceType: m5.xlarge, zone: us-east-1a, count: 2, usdPerHour: 0.03}
)",
                             cap);
  const Plan q = plan_for(priced, three_jobs());
  // One at $0.03/h fits the $0.04 cap, a second would make it $0.06.
  EXPECT_EQ(launched_by_capacity(q, priced.catalog).at("reserved cr-0a"), 1);
}

TEST(Reserved, BadReservationsAreRefusedWithTheirPlace) {
  auto error_of = [](const std::string& yaml) {
    try {
      world(yaml);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("reservations:\n  - {id: cr-1, kind: capacity-block, instanceType: "
                     "m5.xlarge, zone: us-east-1a, count: 1}\n"),
            "c.yaml:2: reservations[0]: a capacity-block needs its end");
  EXPECT_EQ(error_of("reservations:\n  - {id: cr-1, instanceType: m5.xlarge, zone: us-east-1a, "
                     "count: 0}\n"),
            "c.yaml:2: reservations[0].count: must be a whole number >= 1, got \"0\"");
  EXPECT_EQ(error_of("reservations:\n  - {id: cr-1, instanceType: p5.48xlarge, zone: "
                     "us-east-1a, count: 1}\n"),
            "reservation cr-1: the catalog sells no p5.48xlarge in zone us-east-1a");
  EXPECT_NE(error_of("reservations:\n  - {id: cr-1, instanceType: m5.xlarge, zone: us-east-1a, "
                     "count: 1, end: tomorrow}\n")
                .find("reservations[0].end: must be an RFC 3339 time"),
            std::string::npos);
}

}  // namespace
}  // namespace fitscale
