#pragma once
// The metering state machine both ledgers share: which nodes are open, which pods are on them
// since when, and per-namespace totals by UTC day and month. Every change closes the open
// segment of a node and returns it (cut at UTC midnights, attributed) for the ledger to keep.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cost/attribution.h"
#include "cost/ledger.h"

namespace fitscale::cost {

// A closed stretch of one node's time, inside one UTC day, with the same pods throughout.
struct Segment {
  std::string node_id;
  Time start = 0;
  Time end = 0;
  Split split;
  Micros node_micros = 0;       // node_cost over [start, end)
  std::vector<Charge> charges;  // add up to node_micros exactly
};

struct MeteredNode {
  NodeCharge charge;
  Time launched_at = 0;
  std::optional<Time> stopped_at;
};

// The segment a node is in now: since when, with which pods.
struct OpenSegment {
  Time since = 0;
  Split split;
};

class Meter {
 public:
  Meter() = default;
  // A copy points its open nodes at its own copies of them; a move keeps the map nodes.
  Meter(const Meter& other);
  Meter& operator=(const Meter& other);
  Meter(Meter&&) = default;
  Meter& operator=(Meter&&) = default;
  ~Meter() = default;

  std::vector<Segment> node_started(const NodeCharge& node, Time t);
  std::vector<Segment> node_stopped(const std::string& node_id, Time t);
  std::vector<Segment> pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods,
                                    Time t);
  std::map<std::string, NamespaceSpend, std::less<>> spend(Time now) const;
  // Every charge per namespace, closed or metered to `now` (Ledger::spent_to_date).
  std::map<std::string, Micros, std::less<>> spent_to_date(Time now) const;

  // Loading from storage (SqliteLedger): a node as stored, its open segment if it has one, and
  // the charges of closed segments (for the day and month totals).
  void restore_node(const MeteredNode& node, std::optional<OpenSegment> open);
  void restore_charge(const std::string& ns, Time day_start, Micros micros);

  const std::map<std::string, MeteredNode, std::less<>>& nodes() const { return nodes_; }
  const std::map<std::string, OpenSegment, std::less<>>& open() const { return open_; }
  // The open segment of a node metered up to `until`, as a segment (for reports). Not cut at
  // midnight: callers clip it.
  Segment open_as_segment(const std::string& node_id, Time until) const;

 private:
  std::vector<Segment> close(const std::string& node_id, Time t);
  void count(const Segment& s);

  std::map<std::string, MeteredNode, std::less<>> nodes_;
  std::map<std::string, OpenSegment, std::less<>> open_;
  // The same keys as open_, each with its node: spend() walks both together instead of looking
  // every open node up among every node ever metered (map nodes never move).
  std::map<std::string, const MeteredNode*, std::less<>> open_node_;
  // Closed charges by namespace and UTC day / month start.
  std::map<std::string, std::map<Time, Micros>, std::less<>> by_day_;
  std::map<std::string, std::map<Time, Micros>, std::less<>> by_month_;
  std::map<std::string, Micros, std::less<>> by_total_;
};

// Cuts [from, to) at UTC midnights and attributes each piece.
std::vector<Segment> make_segments(const MeteredNode& node, const std::string& node_id,
                                   const Split& split, Time from, Time to);

}  // namespace fitscale::cost
