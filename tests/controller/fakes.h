#pragma once
// In-memory stand-ins for the three worlds behind src/controller/interfaces.h, so the real
// Controller with the real planner can be driven loop by loop and its actions checked.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "../planner/fixtures.h"
#include "controller/interfaces.h"

namespace fitscale::testing {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(Time t) : t_(t) {}
  Time now() const override { return t_; }
  void advance(Seconds s) { t_ += s; }
  void set(Time t) { t_ = t; }

 private:
  Time t_;
};

struct RecordedEvent {
  ObjectRef about;
  std::string type;
  std::string reason;
  std::string message;
};

class FakeCluster final : public ClusterView {
 public:
  FakeCluster() { state.synced = true; }
  ClusterState state;
  EvictOutcome evict_outcome = EvictOutcome::Evicted;
  std::vector<std::string> cordoned, uncordoned, deleted, evicted, deleted_pods;
  std::vector<RecordedEvent> events;

  std::uint64_t generation() const override { return generation_; }
  ClusterState observe() override { return state; }
  void touch() { ++generation_; }

  bool cordon(const std::string& node) override {
    cordoned.push_back(node);
    for (auto& n : state.nodes) {
      if (n.name == node) n.unschedulable = true;
    }
    touch();
    return true;
  }
  bool uncordon(const std::string& node) override {
    uncordoned.push_back(node);
    for (auto& n : state.nodes) {
      if (n.name == node) n.unschedulable = false;
    }
    touch();
    return true;
  }
  bool add_taint(const std::string& node, const Taint& taint) override {
    for (auto& n : state.nodes) {
      if (n.name == node) n.taints.push_back(taint);
    }
    touch();
    return true;
  }
  bool remove_taint(const std::string& node, const std::string& key) override {
    for (auto& n : state.nodes) {
      if (n.name == node) std::erase_if(n.taints, [&](const Taint& t) { return t.key == key; });
    }
    touch();
    return true;
  }
  EvictOutcome evict(const std::string& ns, const std::string& pod) override {
    if (evict_outcome == EvictOutcome::Evicted) {
      evicted.push_back(ns + "/" + pod);
      std::erase_if(state.pods, [&](const Pod& p) { return p.ns == ns && p.name == pod; });
      touch();
    }
    return evict_outcome;
  }
  bool delete_node(const std::string& node) override {
    deleted.push_back(node);
    std::erase_if(state.nodes, [&](const Node& n) { return n.name == node; });
    touch();
    return true;
  }
  bool delete_pod(const std::string& ns, const std::string& pod) override {
    deleted_pods.push_back(ns + "/" + pod);
    std::erase_if(state.pods, [&](const Pod& p) { return p.ns == ns && p.name == pod; });
    touch();
    return true;
  }
  void record_event(const ObjectRef& about, const std::string& type, const std::string& reason,
                    const std::string& message) override {
    events.push_back(RecordedEvent{about, type, reason, message});
  }
  std::vector<std::string> ungated;  // "ns/name gate" of every removal
  bool remove_scheduling_gate(const std::string& ns, const std::string& pod,
                              std::string_view gate) override {
    for (auto& p : state.pods) {
      if (p.ns != ns || p.name != pod) continue;
      std::erase(p.scheduling_gates, std::string(gate));
      ungated.push_back(ns + "/" + pod + " " + std::string(gate));
      touch();
    }
    return true;
  }

  void add_pod(Pod p) {
    state.pods.push_back(std::move(p));
    touch();
  }
  Pod& pod(const std::string& name) {
    for (auto& p : state.pods) {
      if (p.name == name) return p;
    }
    throw std::runtime_error("no pod " + name);
  }
  // The kubelet of `inst` registers: a Ready node whose providerID matches the instance.
  Node& register_node(const Instance& inst, const Catalog& catalog) {
    Node n = make_node("node-" + inst.id, 0, 0, inst.zone);
    n.provider_id = inst.provider_id;
    for (const auto& o : catalog.offerings) {
      if (o.instance_type == inst.instance_type && o.zone == inst.zone &&
          o.capacity_type == inst.capacity_type) {
        n.allocatable = o.allocatable;
        n.labels = o.labels;
      }
    }
    n.labels[std::string(label::kHostname)] = n.name;
    state.nodes.push_back(std::move(n));
    touch();
    return state.nodes.back();
  }
  bool has_node(const std::string& name) const {
    return std::any_of(state.nodes.begin(), state.nodes.end(),
                       [&](const Node& n) { return n.name == name; });
  }
  std::vector<RecordedEvent> events_about(const std::string& name) const {
    std::vector<RecordedEvent> out;
    for (const auto& e : events) {
      if (e.about.name == name) out.push_back(e);
    }
    return out;
  }

 private:
  std::uint64_t generation_ = 1;
};

class FakeCloud final : public CloudProvider {
 public:
  explicit FakeCloud(const FakeClock& clock) : clock_(clock) {}

  std::vector<Instance> instances;
  std::vector<LaunchRequest> requests;
  std::vector<std::string> terminated;
  // Offering key -> the failure every launch of it gets.
  std::map<std::string, LaunchFailure> failing;
  std::string id_prefix = "i-";  // two fakes behind one MultiCloud need distinct ids

  std::string name() const override { return "fake"; }
  LaunchResult launch(const LaunchRequest& r) override {
    requests.push_back(r);
    const std::string key = r.instance_type + "/" + r.zone + "/" + to_string(r.capacity_type);
    LaunchResult out;
    if (auto it = failing.find(key); it != failing.end()) {
      LaunchFailure f = it->second;
      f.offering_key = key;
      f.count = r.count;
      out.failures.push_back(f);
      return out;
    }
    for (int i = 0; i < r.count; ++i) {
      Instance inst;
      inst.id = id_prefix + std::to_string(++next_id_);
      inst.instance_type = r.instance_type;
      inst.zone = r.zone;
      inst.capacity_type = r.capacity_type;
      inst.state = "pending";
      inst.provider_id = "aws:///" + r.zone + "/" + inst.id;
      inst.launched_at = clock_.now();
      inst.price_micros_per_hour = r.price_micros_per_hour;
      inst.pool = r.pool;
      inst.owner_namespace = r.owner_namespace;
      inst.job = r.job;
      instances.push_back(inst);
      out.launched.push_back(inst);
      ++launched_total_;
    }
    ++generation_;
    return out;
  }
  void terminate(const std::vector<std::string>& ids) override {
    for (const auto& id : ids) {
      terminated.push_back(id);
      std::erase_if(instances, [&](const Instance& i) { return i.id == id; });
    }
    ++generation_;
  }
  std::vector<Instance> list_instances() override { return instances; }
  std::optional<std::uint64_t> generation() const override { return generation_; }

  // An instance that exists already (launched before the controller started).
  Instance& add_instance(const std::string& id, const std::string& type, const std::string& zone,
                         CapacityType ct, Time launched_at, Micros price) {
    Instance inst;
    inst.id = id;
    inst.instance_type = type;
    inst.zone = zone;
    inst.capacity_type = ct;
    inst.state = "running";
    inst.provider_id = "aws:///" + zone + "/" + id;
    inst.launched_at = launched_at;
    inst.price_micros_per_hour = price;
    inst.owner_namespace = "team-a";
    instances.push_back(inst);
    ++generation_;
    return instances.back();
  }
  int launched_count() const { return launched_total_; }

 private:
  const FakeClock& clock_;
  std::uint64_t generation_ = 1;
  int next_id_ = 0;
  int launched_total_ = 0;
};

// One zone; "small" is the cheapest for a 1-CPU pod (spot $0.10, on-demand $0.20), "big" costs
// more.
inline Catalog tiny_catalog() {
  return make_catalog({TypeSpec("small", 4000, 16 * kGi, 0, 0.10, 0.20),
                       TypeSpec("big", 16000, 64 * kGi, 0, 0.40, 0.80)},
                      {"us-east-1a"});
}

inline Policy tiny_policy() {
  Policy p = no_budgets();
  p.zones = {"us-east-1a"};
  p.empty_ttl_s = 60;
  p.register_timeout_s = 900;
  return p;
}

// A pod of a ReplicaSet: evictable, does not keep its node.
inline Pod service_pod(const std::string& name, const std::string& node) {
  Pod p = make_pod(name, 100, 128 * kMi);
  p.owner = {"ReplicaSet", name + "-rs", "uid-rs-" + name};
  p.node_name = node;
  p.phase = PodPhase::Running;
  return p;
}

}  // namespace fitscale::testing
