#pragma once
// The simulator's Kubernetes: nodes and pods in memory behind the same ClusterView the controller
// uses against a real API server. The simulator's engine adds pods, registers nodes and binds;
// the controller observes, cordons, evicts and deletes nodes.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "controller/interfaces.h"
#include "planner/predicates.h"

namespace fitscale {

struct SimNode {
  Node node;
  Resources free;                 // allocatable minus the requests of pods bound here
  std::vector<std::string> pods;  // bound here
  std::uint64_t revision = 0;     // of `node` (ClusterLoan)
};

struct SimEvent {
  ObjectRef about;
  std::string type, reason, message;
};

// The planner's feasibility check as the engine's binder asks it: may `pod` be bound to `node`
// now, with `free` as the node's room (its own, or what a gang's tentative placements left).
// Simulated nodes carry canonical labels (the simulated cloud labels them from the catalog), and
// trace pods carry no pod terms, so no resident pods are passed.
planner::Misfit binder_misfit(const Pod& pod, const SimNode& node, const Resources& free);
// Its two halves, for a binder that decides the static half once per class and node
// (planner::static_misfit, planner::dynamic_misfit); binder_misfit is the one then the other.
planner::Misfit binder_static_misfit(const Pod& pod, const SimNode& node);
planner::Misfit binder_dynamic_misfit(const Pod& pod, const SimNode& node, const Resources& free);

class SimCluster final : public ClusterView {
 public:
  // `keep_events`: remember every event (tests); otherwise only count them by reason.
  explicit SimCluster(bool keep_events = false) : keep_events_(keep_events) {}

  // --- ClusterView (the controller's side).
  std::uint64_t generation() const override { return generation_; }
  ClusterState observe() override;
  bool lend(ClusterLoan& loan) override;
  bool cordon(const std::string& node) override;
  bool uncordon(const std::string& node) override;
  bool add_taint(const std::string& node, const Taint& taint) override;
  bool remove_taint(const std::string& node, const std::string& key) override;
  EvictOutcome evict(const std::string& ns, const std::string& pod) override;
  bool delete_node(const std::string& node) override;
  // The pod goes at once (the simulated kubelet needs no grace period); the engine ends its job.
  bool delete_pod(const std::string& ns, const std::string& pod) override;
  bool remove_scheduling_gate(const std::string& ns, const std::string& pod,
                              std::string_view gate) override;
  void record_event(const ObjectRef& about, const std::string& type, const std::string& reason,
                    const std::string& message) override;

  // --- The engine's side.
  void add_node(Node node);
  void add_pod(Pod pod);
  void remove_pod(const std::string& key);  // unbinds first
  // `at`: when the pod starts running there (its status.startTime).
  void bind(const std::string& pod, const std::string& node, Time at);
  void unbind(const std::string& pod);
  // The node disappears with the instance behind it (spot reclaimed); its pods are unbound and
  // returned so the engine can fail their jobs.
  std::vector<std::string> remove_node(const std::string& node);
  // Pods unbound by the controller (evicted, or their node deleted) since the last call.
  std::vector<std::string> take_lost();
  // Pods the controller deleted since the last call (maxRuntimeAction: terminate).
  std::vector<std::string> take_deleted();
  // Adds scheduling gate `gate` to an unbound pod, as the budget gate's webhook does to a new
  // pod (the engine re-creates a job's pods when it restarts them).
  void add_scheduling_gate(const std::string& pod, std::string_view gate);
  // Pods whose last scheduling gate the controller removed since the last call: the engine's
  // scheduler may bind them now.
  std::vector<std::string> take_ungated();
  // Whether a node was opened to new pods (uncordoned, or a taint removed: the reclaim taint)
  // since the last call: the engine's scheduler may bind pending pods there now.
  bool take_room_opened() { return std::exchange(room_opened_, false); }

  const Pod* pod(const std::string& key) const;
  // The engine may change `free` and `pods` through this, never `node` (lend() would not know).
  SimNode* node(const std::string& name);
  const std::map<std::string, SimNode>& nodes() const { return nodes_; }
  // Ready, schedulable nodes with a free GPU / with any free CPU: where a pending pod may go.
  const std::set<std::string>& nodes_with_free_gpus() const { return gpu_room_; }
  const std::set<std::string>& nodes_with_free_cpu() const { return cpu_room_; }
  std::size_t pod_count() const { return pods_.size(); }

  const std::map<std::string, std::int64_t>& event_counts() const { return event_counts_; }
  const std::vector<SimEvent>& events() const { return events_; }

 private:
  void update_room(const std::string& name, const SimNode& n);

  bool keep_events_;
  std::uint64_t generation_ = 1;
  std::map<std::string, SimNode> nodes_;  // by name: deterministic order
  // What lend() gave last, while no node came, went or changed since (nodes_changed_ false).
  std::vector<const Node*> lent_nodes_;
  std::vector<std::uint64_t> lent_revisions_;
  bool nodes_changed_ = true;
  std::uint64_t lent_version_ = 0;            // ClusterLoan::nodes_version of lent_nodes_
  std::vector<Pod> pods_;                     // live pods; removal swaps with the last
  std::vector<std::uint64_t> pod_revisions_;  // parallel to pods_ (ClusterLoan)
  std::unordered_map<std::string, std::size_t> pod_index_;
  std::set<std::string> gpu_room_, cpu_room_;
  std::vector<std::string> lost_;
  std::vector<std::string> deleted_;
  std::vector<std::string> ungated_;
  bool room_opened_ = false;
  std::map<std::string, std::int64_t> event_counts_;
  std::vector<SimEvent> events_;
};

}  // namespace fitscale
