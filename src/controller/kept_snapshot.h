#pragma once
// Observe, for a cluster that lends its state (ClusterLoan): the Snapshot is kept from one loop
// to the next and only the nodes and pods whose revision changed are copied into it. The result
// is the Snapshot build_snapshot makes from a copy of the same state; what a planned loop costs
// then follows what changed, not the size of the cluster (docs/PERFORMANCE.md, "Simulator").
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "controller/interfaces.h"
#include "controller/snapshot_builder.h"
#include "planner/plan.h"

namespace fitscale {

class KeptSnapshot {
 public:
  // Brings the snapshot up to date with `loan` and `instances`. `instances_changed`: the listing
  // may differ from the one passed last time (it must be the same vector object otherwise).
  void update(const ClusterLoan& loan, const std::vector<Instance>& instances,
              bool instances_changed, const OfferingIndex& offerings,
              const std::set<std::string>& draining, Time now);

  Snapshot& snapshot() { return snapshot_; }
  // Registered nodes (by name) whose bound pods, or whose instance, may differ from the last
  // update; everything may when all_touched().
  const std::set<std::string>& touched() const { return touched_; }
  bool all_touched() const { return all_touched_; }
  // Pods bound to no node: pending ones among them.
  std::size_t unbound() const { return unbound_; }
  // The pods bound to that node, in snapshot order.
  std::vector<const Pod*> pods_on(const std::string& node) const;
  // The registered node of that name, or null.
  const Node* registered(const std::string& name) const;
  // Like erasing the node from build_snapshot's EmptySince: if it stays, its empty time starts
  // afresh on the next update.
  void forget_empty(const std::string& node);

 private:
  struct Extra {
    const Instance* instance = nullptr;  // matched by provider id, in the current listing
    std::optional<Time> since;           // empty since, while nothing pins the node
    bool fresh = true;                   // copied this update: derive everything
  };
  std::size_t find_registered(const std::string& name) const;
  void sync_pods(const ClusterLoan& loan);
  bool sync_nodes(const ClusterLoan& loan);
  // Has `n` every field copy_instance would give it from `inst`?
  static bool same_instance_fields(const Instance& inst, const Node& n);
  void derive(std::size_t i, const Node& base, const Instance* inst,
              const std::set<std::string>& draining, Time now);
  void rebuild_in_flight(const std::vector<Instance>& instances, const OfferingIndex& offerings);
  // Moves the in-flight nodes from the snapshot's tail to in_flight_, for rebuild_in_flight.
  void set_aside_in_flight();
  // The instance in the current listing with the node's provider id, or null. Provider ids name one
  // instance each (they end in its id).
  const Instance* instance_for(const Node& n);

  Snapshot snapshot_;            // registered nodes by name first, then in-flight instances
  std::size_t registered_ = 0;   // registered nodes at the front of snapshot_.nodes
  std::vector<Node> in_flight_;  // the last in-flight nodes, while rebuild_in_flight runs
  std::vector<std::uint64_t> node_revisions_;
  std::uint64_t nodes_version_ = 0;  // of the loan node_revisions_ came from
  std::vector<Extra> extras_;        // parallel to the registered nodes
  std::vector<std::uint64_t> pod_revisions_;
  std::unordered_map<std::string, int> pins_;  // node -> pods bound there that pin it
  // node -> positions in snapshot_.pods of the pods bound there (unordered): metering asks for
  // the pods of the few nodes that changed, which must not cost a walk over every pod.
  std::unordered_map<std::string, std::vector<std::uint32_t>> bound_at_;
  const std::vector<Instance>* listing_ = nullptr;
  const OfferingIndex* offerings_ = nullptr;  // of the current update (count_unreported_gpus)
  // Nodes are walked by name, and where node names follow instance ids (the simulator's do) that
  // is listing order too: instance_for tries just after its last find first, and indexes the
  // listing only when that misses.
  std::size_t hint_ = 0;
  bool indexed_ = false;
  std::optional<bool> sorted_by_id_;  // is the listing in id order? Asked once per listing
  std::unordered_map<std::string_view, const Instance*> by_provider_;
  std::set<std::string> draining_;
  std::set<std::string> forgotten_;
  std::set<std::string> touched_;
  bool all_touched_ = true;
  std::size_t unbound_ = 0;
  bool first_ = true;
};

}  // namespace fitscale
