// The planner, the simulator's binder and the virtual cluster's scheduler answer "does this pod
// fit this node?" alike: 2,000 random pod/node pairs (resources, a resident pod's usage, taints
// and tolerations, nodeSelector, required node affinity, arch, zone, cordon, readiness), fixed
// seed. Each side gets the pair the way it gets it in production: the planner a decoded Snapshot
// (ExistingCapacity's placement, and the check itself), the simulator a SimCluster (its room
// index and binder_misfit), the virtual cluster the JSON objects in its store
// (schedule_pending_pods).
//
// The second test does the same for topology (spread, pod affinity and anti-affinity, resident
// pods' anti-affinity) on small clusters of several nodes in three zones: the virtual cluster
// binds a constrained pod exactly when a brute-force reading of kube-scheduler's filters, written
// here from the API reference independently of the code, finds a node, and only to such a node;
// and a node the planner places the pod on (after its topology pass) is one of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "kube/decode.h"
#include "planner/placement.h"
#include "planner/pod_class.h"
#include "planner/predicates.h"
#include "planner/topology.h"
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

// ---- Topology on clusters of several nodes.

const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};

json selector_for(const std::string& app) { return {{"matchLabels", {{"app", app}}}}; }

struct ClusterDraw {
  std::vector<json> nodes;
  std::vector<json> residents;
  json pending;
};

ClusterDraw draw_cluster(Draw& d) {
  ClusterDraw c;
  const int n_nodes = 2 + d.below(4);
  for (int i = 0; i < n_nodes; ++i) {
    const std::string name = "n" + std::to_string(i);
    json labels = {{"kubernetes.io/hostname", name},
                   {"kubernetes.io/arch", "amd64"},
                   {"topology.kubernetes.io/zone", d.one_of(kZones)}};
    if (d.chance(15)) labels.erase("topology.kubernetes.io/zone");  // a node without the key
    json alloc = {
        {"cpu", d.one_of<std::string>({"2", "4", "8"})}, {"memory", "16Gi"}, {"pods", "110"}};
    c.nodes.push_back({{"apiVersion", "v1"},
                       {"kind", "Node"},
                       {"metadata", {{"name", name}, {"labels", labels}}},
                       {"spec", json::object()},
                       {"status",
                        {{"allocatable", alloc},
                         {"capacity", alloc},
                         {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  }
  const int n_res = d.below(6);
  for (int i = 0; i < n_res; ++i) {
    const std::string name = "r" + std::to_string(i);
    json spec = {{"containers", Draw::container({{"cpu", "500m"}, {"memory", "1Gi"}})},
                 {"nodeName", "n" + std::to_string(d.below(n_nodes))}};
    if (d.chance(15)) {
      spec["affinity"] = {{"podAntiAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             {{{"labelSelector", selector_for(d.one_of<std::string>({"a", "b"}))},
                               {"topologyKey", "topology.kubernetes.io/zone"}}}}}}};
    }
    c.residents.push_back({{"apiVersion", "v1"},
                           {"kind", "Pod"},
                           {"metadata",
                            {{"name", name},
                             {"namespace", d.chance(85) ? "default" : "other"},
                             {"uid", "u-" + name},
                             {"labels", {{"app", d.one_of<std::string>({"a", "b", "c"})}}}}},
                           {"spec", spec},
                           {"status", {{"phase", "Running"}}}});
  }
  json spec = {{"containers", Draw::container({{"cpu", d.one_of<std::string>({"1", "3", "6"})},
                                               {"memory", "1Gi"}})}};
  json affinity = json::object();
  const std::string key_choices[] = {"topology.kubernetes.io/zone", "kubernetes.io/hostname"};
  auto key = [&] { return key_choices[d.below(d.chance(70) ? 1 : 2)]; };
  if (d.chance(50)) {
    json sp = {{"maxSkew", 1 + d.below(2)},
               {"topologyKey", key()},
               {"whenUnsatisfiable", d.chance(85) ? "DoNotSchedule" : "ScheduleAnyway"},
               {"labelSelector", selector_for(d.one_of<std::string>({"a", "b"}))}};
    if (d.chance(20) && sp["whenUnsatisfiable"] == "DoNotSchedule") sp["minDomains"] = 3;
    spec["topologySpreadConstraints"] = json::array({sp});
  }
  if (d.chance(30)) {
    affinity["podAffinity"] = {
        {"requiredDuringSchedulingIgnoredDuringExecution",
         {{{"labelSelector", selector_for(d.one_of<std::string>({"a", "b", "c"}))},
           {"topologyKey", key()}}}}};
  }
  if (d.chance(30)) {
    affinity["podAntiAffinity"] = {
        {"requiredDuringSchedulingIgnoredDuringExecution",
         {{{"labelSelector", selector_for(d.one_of<std::string>({"a", "b", "c"}))},
           {"topologyKey", "topology.kubernetes.io/zone"}}}}};
  }
  if (!affinity.empty()) spec["affinity"] = affinity;
  c.pending = {{"apiVersion", "v1"},
               {"kind", "Pod"},
               {"metadata",
                {{"name", "incoming"},
                 {"namespace", "default"},
                 {"uid", "u-in"},
                 {"labels", {{"app", d.one_of<std::string>({"a", "b"})}}}}},
               {"spec", spec},
               {"status", {{"phase", "Pending"}}}};
  return c;
}

// kube-scheduler's filters, read straight off the objects (API reference: "Pod Topology Spread
// Constraints", "Assigning Pods to Nodes"): the nodes where `incoming` may go. Only what the
// draw uses: matchLabels selectors, one spread constraint, one term of each kind, default
// policies (nodeAffinityPolicy Honor with no node affinity drawn, nodeTaintsPolicy Ignore).
std::vector<std::string> oracle_nodes(const ClusterDraw& c) {
  auto label = [](const json& obj, const std::string& k) -> std::string {
    return obj["metadata"].value("labels", json::object()).value(k, "");
  };
  auto selects = [&](const json& sel, const json& pod) {
    for (const auto& [k, v] : sel["matchLabels"].items())
      if (label(pod, k) != v.get<std::string>()) return false;
    return true;
  };
  auto node_of = [&](const json& pod) -> const json& {
    for (const json& n : c.nodes)
      if (n["metadata"]["name"] == pod["spec"]["nodeName"]) return n;
    throw std::logic_error("resident on no node");
  };
  auto ns = [](const json& pod) { return pod["metadata"].value("namespace", "default"); };
  auto cpu_milli = [](const json& pod) {
    const std::string q = pod["spec"]["containers"][0]["resources"]["requests"]["cpu"];
    return q.back() == 'm' ? std::stoll(q.substr(0, q.size() - 1)) : std::stoll(q) * 1000;
  };
  const json& in = c.pending;
  const json& spec = in["spec"];
  std::vector<std::string> ok;
  for (const json& node : c.nodes) {
    const std::string name = node["metadata"]["name"];
    // Room: cpu is the only resource drawn tight enough to matter.
    std::int64_t used = 0;
    for (const json& r : c.residents)
      if (r["spec"]["nodeName"] == name) used += cpu_milli(r);
    const std::int64_t alloc =
        std::stoll(node["status"]["allocatable"]["cpu"].get<std::string>()) * 1000;
    if (used + cpu_milli(in) > alloc) continue;
    bool fits = true;
    for (const json& sp : spec.value("topologySpreadConstraints", json::array())) {
      if (sp["whenUnsatisfiable"] != "DoNotSchedule") continue;
      const std::string key = sp["topologyKey"];
      if (label(node, key).empty()) {
        fits = false;
        continue;
      }
      std::map<std::string, std::int64_t> count;
      for (const json& n : c.nodes)
        if (!label(n, key).empty()) count[label(n, key)] += 0;
      for (const json& r : c.residents)
        if (ns(r) == ns(in) && selects(sp["labelSelector"], r) && !label(node_of(r), key).empty())
          ++count[label(node_of(r), key)];
      std::int64_t floor = 0;
      if (count.size() >= static_cast<std::size_t>(sp.value("minDomains", 1))) {
        floor = std::min_element(count.begin(), count.end(), [](auto& a, auto& b) {
                  return a.second < b.second;
                })->second;
      }
      const std::int64_t self = selects(sp["labelSelector"], in) ? 1 : 0;
      if (count[label(node, key)] + self - floor > sp["maxSkew"].get<std::int64_t>()) fits = false;
    }
    const json aff = spec.value("affinity", json::object());
    for (const json& r : c.residents) {  // residents' anti-affinity to the incoming pod
      const json ra = r["spec"].value("affinity", json::object());
      for (const json& t :
           ra.value("podAntiAffinity", json::object())
               .value("requiredDuringSchedulingIgnoredDuringExecution", json::array())) {
        const std::string key = t["topologyKey"];
        const std::string where = label(node_of(r), key);
        if (ns(r) == ns(in) && selects(t["labelSelector"], in) && !where.empty() &&
            label(node, key) == where)
          fits = false;
      }
    }
    for (const json& t :
         aff.value("podAntiAffinity", json::object())
             .value("requiredDuringSchedulingIgnoredDuringExecution", json::array())) {
      const std::string key = t["topologyKey"];
      for (const json& r : c.residents)
        if (ns(r) == ns(in) && selects(t["labelSelector"], r) && !label(node, key).empty() &&
            label(node_of(r), key) == label(node, key))
          fits = false;
    }
    for (const json& t :
         aff.value("podAffinity", json::object())
             .value("requiredDuringSchedulingIgnoredDuringExecution", json::array())) {
      const std::string key = t["topologyKey"];
      if (label(node, key).empty()) {
        fits = false;
        continue;
      }
      bool any_match = false, here = false;
      for (const json& r : c.residents) {
        if (ns(r) != ns(in) || !selects(t["labelSelector"], r) || label(node_of(r), key).empty())
          continue;
        any_match = true;
        here = here || label(node_of(r), key) == label(node, key);
      }
      if (!here && (any_match || !selects(t["labelSelector"], in))) fits = false;
    }
    if (fits) ok.push_back(name);
  }
  return ok;
}

TEST(FeasibilityAgreement, VirtualClusterAndPlannerHonourTopologyAsKubeSchedulerDoes) {
  const std::vector<std::string> gpu_models = {"A100", "V100"};
  Draw draw(20261202);
  int bound = 0, refused = 0, planner_placed = 0;
  std::map<std::string, int> reasons;
  for (int i = 0; i < 1500; ++i) {
    const ClusterDraw c = draw_cluster(draw);
    const std::vector<std::string> oracle = oracle_nodes(c);
    std::string what = "cluster " + std::to_string(i) + ":\npod " + c.pending.dump();
    for (const json& n : c.nodes) what += "\nnode " + n["metadata"].dump();
    for (const json& r : c.residents)
      what += "\nresident " + r["metadata"].dump() + " " + r["spec"].dump();

    FixedClock clock;
    ObjectStore store(clock, 100);
    for (const json& n : c.nodes) store.create("nodes", "", n);
    for (const json& r : c.residents) store.create("pods", r["metadata"]["namespace"], r);
    store.create("pods", "default", c.pending);
    schedule_pending_pods(store, clock, gpu_models);
    const json after = store.get("pods", "default", "incoming");
    const std::string at = after["spec"].value("nodeName", "");
    ASSERT_EQ(!at.empty(), !oracle.empty())
        << "virtual cluster bound it to '" << at << "', " << what;
    if (!at.empty()) {
      ASSERT_NE(std::find(oracle.begin(), oracle.end(), at), oracle.end())
          << "bound to " << at << ", which kube-scheduler refuses, " << what;
      ++bound;
    } else {
      ++refused;
      for (const auto& cond : after["status"].value("conditions", json::array()))
        if (cond.value("type", "") == "PodScheduled") ++reasons[cond.value("message", "")];
    }

    // The planner: its topology pass over the same objects (no offerings: existing nodes
    // only), then its placement on existing capacity.
    Snapshot snap;
    for (const json& n : c.nodes) {
      snap.nodes.push_back(decode_node_json(n.dump(), gpu_models));
      snap.nodes.back().created = kNow - 60;
    }
    for (const json& r : c.residents) snap.pods.push_back(decode_pod_json(r.dump(), gpu_models));
    json marked = c.pending;
    marked["status"]["conditions"] = {
        {{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
    snap.pods.push_back(decode_pod_json(marked.dump(), gpu_models));
    Catalog catalog;
    catalog.gpu_models = gpu_models;
    const auto resolved = planner::resolve_topology(snap, catalog, Policy{});
    const Snapshot& planned = resolved ? resolved->snapshot : snap;
    const auto incoming = std::find_if(planned.pods.begin(), planned.pods.end(),
                                       [](const Pod& p) { return p.name == "incoming"; });
    if (incoming == planned.pods.end()) continue;  // refused by its topology: nothing placed
    const auto index = static_cast<std::uint32_t>(incoming - planned.pods.begin());
    const auto classes = planner::build_classes(planned.pods, {index}, gpu_models);
    planner::ExistingCapacity room(planned, Policy{}, kNow, gpu_models);
    std::map<std::string, std::string> placements;
    room.place_class(classes[0], placements);
    if (placements.empty()) continue;
    const std::string node = placements.begin()->second;
    ASSERT_NE(std::find(oracle.begin(), oracle.end(), node), oracle.end())
        << "the planner placed it on " << node << ", which kube-scheduler refuses, " << what;
    ++planner_placed;
  }
  // Both outcomes, often, and the refusals for topology reasons, or agreement proves little.
  EXPECT_GT(bound, 300);
  EXPECT_GT(refused, 150);
  EXPECT_GT(planner_placed, 200);
  int spread = 0, affinity = 0, anti = 0, existing = 0;
  for (const auto& [msg, n] : reasons) {
    if (msg.find("topology spread") != std::string::npos) spread += n;
    if (msg.find("pod affinity rules") != std::string::npos) affinity += n;
    if (msg.find("pod anti-affinity rules") != std::string::npos) anti += n;
    if (msg.find("existing pods anti-affinity") != std::string::npos) existing += n;
  }
  EXPECT_GT(spread, 20);
  EXPECT_GT(affinity, 20);
  EXPECT_GT(anti, 20);
  EXPECT_GT(existing, 5);
}

}  // namespace
}  // namespace fitscale::vcluster
