#pragma once
// Topology constraints checked node by node, for a binder that places pods on existing nodes now
// (the virtual cluster's scheduler): kube-scheduler's VolumeZone, PodTopologySpread and
// InterPodAffinity filters, after the feasibility check (planner/predicates.h) has passed. The
// planner decides the same constraints ahead of placement, as node-label requirements
// (planner/topology.h); both use the one skew rule and term scope there, so a node the
// planner's chosen domain admits is a node this filter admits.
//
// What counts, as kube-scheduler counts it:
// - volume zones: the node's zone label must be one of the pod's bound volumes' zones;
// - spread (DoNotSchedule only; ScheduleAnyway only scores): pods of the pod's namespace that
//   the selector matches, not terminating, on nodes its nodeAffinityPolicy and nodeTaintsPolicy
//   include and that carry every key of its spread constraints; the node must carry the key;
// - required pod affinity: some pod matching every term in the node's domain of each term's key,
//   or, while no pod anywhere matches them all, the pod matching them all itself (the first of a
//   group with affinity to itself);
// - required anti-affinity, the pod's own terms on keys other than the hostname (the check
//   itself handles hostname anti-affinity) and every placed pod's terms towards it.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/node.h"
#include "model/pod.h"
#include "planner/predicates.h"

namespace fitscale::planner {

class TopologyFilter {
 public:
  struct NodeRef {
    const Node* node;
    const Labels* labels;  // canonical
  };
  explicit TopologyFilter(std::vector<NodeRef> nodes);

  // A pod bound, nominated or placed on node `node` (an index into the constructor's nodes).
  // The pod must outlive the filter.
  void add(const Pod& pod, std::size_t node);
  // Takes back the latest add() of `pod` (a gang's placement given back).
  void remove(const Pod& pod, std::size_t node);

  // What the pods now placed mean for `pod`: computed once per pod, then asked per node.
  struct Spread {
    std::string key;
    std::int32_t max_skew = 1;
    bool self_match = false;
    std::int64_t floor = 0;
    std::map<std::string, std::int64_t, std::less<>> count;  // matching pods per domain
  };
  struct Verdict {
    std::vector<std::string> volume_zones;  // sorted; empty: no volume constraint
    std::vector<Spread> spreads;
    std::vector<std::pair<std::string, std::string>> repelled;  // (key, value) some pod refuses
    std::vector<std::pair<std::string, std::vector<std::string>>> anti;  // key, values (sorted)
    std::vector<std::string> affinity_keys;
    std::map<std::pair<std::string, std::string>, std::int64_t> affinity_count;
    bool affinity_first = false;  // nothing matches yet and the pod matches its own terms
    bool constrained() const;
  };
  Verdict verdict(const Pod& pod);
  // kind None when `node` meets every required topology constraint of the verdict's pod.
  static Misfit check(const Verdict& v, const Labels& node_labels);
  Misfit check(const Verdict& v, std::size_t node) const { return check(v, *nodes_[node].labels); }

 private:
  // Pods matching one selector in one namespace scope, per node.
  struct Tracker {
    std::string ns;
    std::vector<std::string> namespaces;
    bool all_namespaces = false;
    LabelSelector selector;
    bool skip_terminating = false;  // spread counts no terminating pod
    std::vector<std::int64_t> per_node;
    bool selects(const Pod& p) const;
  };
  Tracker& tracker(const std::string& ns, const std::vector<std::string>& namespaces,
                   bool all_namespaces, const LabelSelector& selector, bool spread);
  void count(Tracker& t, const Pod& p, std::size_t node, std::int64_t by) const;

  std::vector<NodeRef> nodes_;
  std::vector<std::pair<const Pod*, std::size_t>> placed_;  // every add(), in order
  std::deque<Tracker> trackers_;  // a deque: references stay valid as trackers are added
};

}  // namespace fitscale::planner
