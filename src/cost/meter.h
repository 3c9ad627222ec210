#pragma once
// The metering state machine both ledgers share: which nodes are open, which pods are on them
// since when, and per-namespace totals by UTC day and month. Every change closes the open
// segment of a node and returns it (cut at UTC midnights, attributed) for the ledger to keep.
#include <cstdint>
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

  // An open node as spend() and spent_to_date() walk it, on every planned loop and every sample
  // of a simulation: its node and segment (map nodes never move) and its parties' namespaces as
  // numbers, so that adding up costs neither walks two maps nor compares namespace strings.
  struct OpenRef {
    const std::string* id = nullptr;
    const MeteredNode* node = nullptr;
    const OpenSegment* open = nullptr;
    std::vector<std::uint32_t> pod_ns;  // parallel to open->split.pods
    std::uint32_t owner_ns = 0;
    // Every party is the owner's namespace and no weight is negative: however the node's cost
    // splits, all of it goes to that namespace, so the split need not be computed.
    bool one_namespace = false;
  };
  // What an open node costs over [from, to), handed to add(namespace number, micros).
  template <class Add>
  static void add_open_charges(const OpenRef& r, Time from, Time to, Add&& add);
  // `total` (a price per hour, a worst case) split as the open node's cost is.
  template <class Add>
  static void add_open_split(const OpenRef& r, Micros total, Add&& add);
  std::uint32_t ns_number(const std::string& ns);
  void open_ref(const std::string& id);  // adds or refreshes id's OpenRef
  void close_ref(const std::string& id);

  std::map<std::string, MeteredNode, std::less<>> nodes_;
  std::map<std::string, OpenSegment, std::less<>> open_;
  std::vector<OpenRef> open_refs_;                            // in no particular order
  std::map<std::string, std::size_t, std::less<>> open_ref_;  // id -> index in open_refs_
  std::vector<std::string> ns_names_;                         // namespace number -> name
  std::map<std::string, std::uint32_t, std::less<>> ns_numbers_;
  // Closed charges by namespace and UTC day / month start.
  std::map<std::string, std::map<Time, Micros>, std::less<>> by_day_;
  std::map<std::string, std::map<Time, Micros>, std::less<>> by_month_;
  std::map<std::string, Micros, std::less<>> by_total_;
};

// Until when an open node's cost counts as committed worst case at `now`: its job's worst-case
// end (launch + declared or assumed runtime); once that has passed, another whole period after
// it; one more hour when it is not known (0).
Time rolled_worst_case_end(Time launched_at, Time worst_case_end, Time now);

// Cuts [from, to) at UTC midnights and attributes each piece.
std::vector<Segment> make_segments(const MeteredNode& node, const std::string& node_id,
                                   const Split& split, Time from, Time to);

}  // namespace fitscale::cost
