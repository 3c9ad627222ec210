// The planner, the simulator's binder and the virtual cluster's scheduler answer "does this pod
// fit this node?" alike: 2,000 random pod/node pairs (resources, a resident pod's usage, taints
// and tolerations, nodeSelector, required node affinity, arch, zone, cordon, readiness), fixed
// seed. Each side gets the pair the way it gets it in production: the planner a decoded Snapshot
// (ExistingCapacity's placement, and the check itself), the simulator a SimCluster (its room
// index and binder_misfit), the virtual cluster the JSON objects in its store
// (schedule_pending_pods).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "kube/decode.h"
#include "planner/placement.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"
#include "sim/sim_cluster.h"
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

// Random objects, drawn from small sets so that matches and misses both happen often.
class Draw {
 public:
  explicit Draw(std::uint32_t seed) : rng_(seed) {}
  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(int percent) { return below(100) < percent; }
  template <typename T>
  const T& one_of(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(below(static_cast<int>(v.size())))];
  }

  json node() {
    json labels = {
        {"kubernetes.io/hostname", "n1"},
        {"kubernetes.io/arch", one_of<std::string>({"amd64", "arm64"})},
        {"topology.kubernetes.io/zone", one_of<std::string>({"us-east-1a", "us-east-1b"})},
        {"fitscale.io/capacity-type", one_of<std::string>({"spot", "on-demand"})}};
    if (chance(50)) labels["team"] = one_of<std::string>({"vision", "speech"});
    json taints = json::array();
    if (chance(30))
      taints.push_back({{"key", "nvidia.com/gpu"}, {"value", "true"}, {"effect", "NoSchedule"}});
    if (chance(20))
      taints.push_back({{"key", "dedicated"}, {"value", "batch"}, {"effect", "NoExecute"}});
    if (chance(20))
      taints.push_back({{"key", "soft"}, {"value", "x"}, {"effect", "PreferNoSchedule"}});
    json alloc = {{"cpu", one_of<std::string>({"1", "2", "4", "8"})},
                  {"memory", one_of<std::string>({"2Gi", "4Gi", "16Gi"})},
                  {"pods", one_of<std::string>({"1", "110"})}};
    if (chance(40)) alloc["nvidia.com/gpu"] = one_of<std::string>({"1", "4"});
    json n = {{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", "n1"}, {"labels", labels}}},
              {"spec", {{"taints", taints}}},
              {"status",
               {{"allocatable", alloc},
                {"capacity", alloc},
                {"conditions", {{{"type", "Ready"}, {"status", chance(90) ? "True" : "False"}}}}}}};
    if (chance(10)) n["spec"]["unschedulable"] = true;
    return n;
  }

  json requests(bool small) {
    json r = {{"cpu", small ? one_of<std::string>({"100m", "500m", "1"})
                            : one_of<std::string>({"250m", "1", "2", "3", "6"})},
              {"memory", small ? one_of<std::string>({"256Mi", "1Gi"})
                               : one_of<std::string>({"512Mi", "1Gi", "3Gi", "8Gi"})}};
    if (!small && chance(30)) r["nvidia.com/gpu"] = one_of<std::string>({"1", "2"});
    return r;
  }

  static json container(const json& requests) {
    json limits = json::object();
    if (requests.contains("nvidia.com/gpu")) limits["nvidia.com/gpu"] = requests["nvidia.com/gpu"];
    return {{{"name", "c"}, {"resources", {{"requests", requests}, {"limits", limits}}}}};
  }

  json term() {
    json exprs = json::array();
    const int n = 1 + below(2);
    for (int i = 0; i < n; ++i) {
      switch (below(5)) {
        case 0:
          exprs.push_back({{"key", "kubernetes.io/arch"},
                           {"operator", "In"},
                           {"values", {one_of<std::string>({"amd64", "arm64"})}}});
          break;
        case 1:
          exprs.push_back({{"key", "topology.kubernetes.io/zone"},
                           {"operator", "NotIn"},
                           {"values", {"us-east-1a"}}});
          break;
        case 2:
          exprs.push_back({{"key", "team"}, {"operator", "Exists"}});
          break;
        case 3:
          exprs.push_back({{"key", "team"}, {"operator", "DoesNotExist"}});
          break;
        default:
          exprs.push_back({{"key", "fitscale.io/capacity-type"},
                           {"operator", "In"},
                           {"values", {"on-demand"}}});
      }
    }
    return {{"matchExpressions", exprs}};
  }

  json pending_pod() {
    json spec = {{"containers", container(requests(false))}};
    json selector = json::object();
    if (chance(30)) selector["kubernetes.io/arch"] = one_of<std::string>({"amd64", "arm64"});
    if (chance(15)) selector["team"] = one_of<std::string>({"vision", "speech"});
    if (chance(10)) selector["karpenter.sh/capacity-type"] = "on-demand";  // an alias
    if (!selector.empty()) spec["nodeSelector"] = selector;
    if (chance(35)) {
      json terms = json::array();
      const int n = 1 + below(2);
      for (int i = 0; i < n; ++i) terms.push_back(term());
      spec["affinity"] = {
          {"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", terms}}}}}};
    }
    json tolerations = json::array();
    if (chance(40)) tolerations.push_back({{"key", "nvidia.com/gpu"}, {"operator", "Exists"}});
    if (chance(20))
      tolerations.push_back({{"key", "dedicated"},
                             {"operator", "Equal"},
                             {"value", "batch"},
                             {"effect", "NoExecute"}});
    if (chance(5)) tolerations.push_back({{"operator", "Exists"}});
    if (!tolerations.empty()) spec["tolerations"] = tolerations;
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "incoming"}, {"namespace", "default"}, {"uid", "u-in"}}},
            {"spec", spec},
            {"status", {{"phase", "Pending"}}}};
  }

  // Already on the node (a Job's pod), taking part of its room.
  json resident() {
    json spec = {{"containers", container(requests(true))},
                 {"nodeName", "n1"},
                 {"tolerations", {{{"operator", "Exists"}}}}};
    return {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "resident"}, {"namespace", "default"}, {"uid", "u-res"}}},
            {"spec", spec},
            {"status", {{"phase", "Running"}}}};
  }

 private:
  std::mt19937 rng_;
};

struct Verdicts {
  // The planner's check, as a binder asks it (Ready nodes only). Its pointers point into
  // judge()'s objects: only the kind and the reason outlive it.
  planner::Misfit check;
  std::string check_reason;
  bool check_coming = false;    // the same check counting a not-yet-Ready node as coming
  bool planner_places = false;  // ExistingCapacity placed it (Ready or coming capacity)
  bool sim_binds = false;
  bool vcluster_binds = false;
  std::string vcluster_message;
};

Verdicts judge(const json& node_json, const json& pod_json, const json* resident_json) {
  const std::vector<std::string> gpu_models = {"A100", "V100"};
  Verdicts v;
  // The planner, as `fitscale run` feeds it: decoded objects in a Snapshot.
  Snapshot snap;
  snap.nodes.push_back(decode_node_json(node_json.dump(), gpu_models));
  snap.nodes[0].created = kNow - 60;  // registered a minute ago: not past the register timeout
  snap.pods.push_back(decode_pod_json(pod_json.dump(), gpu_models));
  if (resident_json) snap.pods.push_back(decode_pod_json(resident_json->dump(), gpu_models));
  const Node& node = snap.nodes[0];
  const Pod& pod = snap.pods[0];
  Resources free = node.allocatable;
  if (resident_json) free -= snap.pods[1].requests;
  const std::vector<planner::PodClass> classes = planner::build_classes(snap.pods, {0}, gpu_models);
  const Labels labels = planner::canonical_labels(node.labels, gpu_models);
  std::vector<const Pod*> residents;
  if (resident_json) residents.push_back(&snap.pods[1]);
  planner::NodeSide side{node, labels, free, residents};
  v.check = planner::misfit(planner::needs_of(classes[0]), side);
  v.check_reason = planner::scheduler_reason(v.check);
  side.coming_counts = true;
  v.check_coming = !planner::misfit(planner::needs_of(classes[0]), side);
  planner::ExistingCapacity room(snap, Policy{}, kNow, gpu_models);
  std::map<std::string, std::string> placements;
  v.planner_places = room.place_class(classes[0], placements).empty();

  // The simulator's binder: its room index, then the check.
  SimCluster sim;
  sim.add_node(node);
  sim.add_pod(pod);
  if (resident_json) {
    Pod r = snap.pods[1];
    r.node_name.clear();
    sim.add_pod(r);
    sim.bind(r.key(), "n1", 0);
  }
  const auto& room_index =
      pod.requests.gpus > 0 ? sim.nodes_with_free_gpus() : sim.nodes_with_free_cpu();
  const SimNode* sn = sim.node("n1");
  v.sim_binds = room_index.count("n1") != 0 && !binder_misfit(*sim.pod(pod.key()), *sn, sn->free);

  // The virtual cluster: the objects in its store, one scheduler pass.
  FixedClock clock;
  ObjectStore store(clock, 100);
  store.create("nodes", "", node_json);
  if (resident_json) store.create("pods", "default", *resident_json);
  store.create("pods", "default", pod_json);
  schedule_pending_pods(store, clock, gpu_models);
  const json after = store.get("pods", "default", "incoming");
  v.vcluster_binds = after["spec"].value("nodeName", "") == "n1";
  for (const auto& c : after["status"].value("conditions", json::array()))
    if (c.value("type", "") == "PodScheduled") v.vcluster_message = c.value("message", "");
  return v;
}

TEST(FeasibilityAgreement, PlannerSimulatorAndVirtualClusterAgreeOnRandomPairs) {
  Draw draw(20261201);
  std::map<planner::MisfitKind, int> seen;
  int fits = 0;
  for (int i = 0; i < 2000; ++i) {
    const json node = draw.node();
    const json pod = draw.pending_pod();
    const json resident = draw.resident();
    const bool with_resident = draw.chance(50);
    const Verdicts v = judge(node, pod, with_resident ? &resident : nullptr);
    const bool fit = !v.check;
    ++seen[v.check.kind];
    fits += fit ? 1 : 0;
    const std::string what = "pair " + std::to_string(i) + ": check says " +
                             planner::to_string(v.check.kind) + "\nnode " + node.dump() + "\npod " +
                             pod.dump() + (with_resident ? "\nresident " + resident.dump() : "");
    ASSERT_EQ(v.sim_binds, fit) << "simulator's binder disagrees, " << what;
    ASSERT_EQ(v.vcluster_binds, fit) << "virtual cluster disagrees, " << what;
    if (!fit) {
      ASSERT_NE(v.vcluster_message.find(v.check_reason), std::string::npos)
          << "the virtual cluster gives another reason (" << v.vcluster_message << "), " << what;
    }
    // The planner's own placement counts a registered, not yet Ready node as coming capacity.
    ASSERT_EQ(v.planner_places, v.check_coming) << "planner placement disagrees, " << what;
  }
  // The draw must exercise every predicate both ways, or agreement would prove little.
  EXPECT_GT(fits, 150);
  for (planner::MisfitKind k :
       {planner::MisfitKind::NodeNotReady, planner::MisfitKind::NodeUnschedulable,
        planner::MisfitKind::NodeAffinity, planner::MisfitKind::Taint,
        planner::MisfitKind::Resources}) {
    EXPECT_GT(seen[k], 20) << planner::to_string(k);
  }
}

}  // namespace
}  // namespace fitscale::vcluster
