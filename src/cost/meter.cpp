#include "cost/meter.h"

#include <algorithm>
#include <utility>

namespace fitscale::cost {

std::vector<Segment> make_segments(const MeteredNode& node, const std::string& node_id,
                                   const Split& split, Time from, Time to) {
  std::vector<Segment> out;
  for (Time a = from; a < to;) {
    const Time b = std::min(to, utc_day_start(a) + 86400);
    Segment s;
    s.node_id = node_id;
    s.start = a;
    s.end = b;
    s.split = split;
    s.node_micros = node_cost(node.charge.micros_per_hour, node.launched_at, a, b);
    s.charges = attribute(node.charge, node.launched_at, split, a, b);
    out.push_back(std::move(s));
    a = b;
  }
  return out;
}

Meter::Meter(const Meter& other)
    : nodes_(other.nodes_),
      open_(other.open_),
      ns_names_(other.ns_names_),
      ns_numbers_(other.ns_numbers_),
      by_day_(other.by_day_),
      by_month_(other.by_month_),
      by_total_(other.by_total_) {
  for (const auto& [id, o] : open_) open_ref(id);
}

Meter& Meter::operator=(const Meter& other) {
  if (this != &other) *this = Meter(other);
  return *this;
}

std::vector<Segment> Meter::node_started(const NodeCharge& node, Time t) {
  // Already known: a restart reporting a node the storage has (metering continues where it
  // stopped), or a repeated call. Either way nothing changes.
  if (nodes_.count(node.node_id) != 0) return {};
  nodes_[node.node_id] = MeteredNode{node, t, std::nullopt};
  open_[node.node_id] = OpenSegment{t, Split{}};
  open_ref(node.node_id);
  return {};
}

std::vector<Segment> Meter::close(const std::string& node_id, Time t) {
  auto it = open_.find(node_id);
  if (it == open_.end()) return {};
  const MeteredNode& node = nodes_.at(node_id);
  // A change reported for a moment before the open segment (clocks are not perfect): it
  // takes effect when the segment opened, never rewriting closed time.
  t = std::max(t, it->second.since);
  std::vector<Segment> out = make_segments(node, node_id, it->second.split, it->second.since, t);
  for (const Segment& s : out) count(s);
  it->second.since = t;
  return out;
}

std::vector<Segment> Meter::node_stopped(const std::string& node_id, Time t) {
  auto it = open_.find(node_id);
  if (it == open_.end()) return {};
  t = std::max(t, it->second.since);
  std::vector<Segment> out = close(node_id, t);
  close_ref(node_id);
  open_.erase(node_id);
  nodes_.at(node_id).stopped_at = t;
  return out;
}

std::vector<Segment> Meter::pods_changed(const std::string& node_id,
                                         const std::vector<PodUsage>& pods, Time t) {
  auto it = open_.find(node_id);
  if (it == open_.end()) return {};
  Split split = split_for(pods, nodes_.at(node_id).charge.allocatable);
  if (split == it->second.split) return {};
  std::vector<Segment> out = close(node_id, t);
  open_.at(node_id).split = std::move(split);
  open_ref(node_id);
  return out;
}

void Meter::count(const Segment& s) {
  for (const Charge& c : s.charges) {
    by_day_[c.ns][utc_day_start(s.start)] += c.micros;
    by_month_[c.ns][utc_month_start(s.start)] += c.micros;
    by_total_[c.ns] += c.micros;
  }
}

void Meter::restore_node(const MeteredNode& node, std::optional<OpenSegment> open) {
  nodes_[node.charge.node_id] = node;
  if (open) {
    open_[node.charge.node_id] = std::move(*open);
    open_ref(node.charge.node_id);
  }
}

std::uint32_t Meter::ns_number(const std::string& ns) {
  auto [it, fresh] = ns_numbers_.try_emplace(ns, static_cast<std::uint32_t>(ns_names_.size()));
  if (fresh) ns_names_.push_back(ns);
  return it->second;
}

void Meter::open_ref(const std::string& id) {
  auto open = open_.find(id);
  auto [at, fresh] = open_ref_.try_emplace(id, open_refs_.size());
  if (fresh) open_refs_.emplace_back();
  OpenRef& r = open_refs_[at->second];
  r.id = &open->first;
  r.open = &open->second;
  r.node = &nodes_.at(id);
  r.owner_ns = ns_number(r.node->charge.owner_namespace);
  r.pod_ns.clear();
  r.one_namespace = r.open->split.idle_weight >= 0;
  for (const PodShare& p : r.open->split.pods) {
    r.pod_ns.push_back(ns_number(p.ns));
    r.one_namespace = r.one_namespace && r.pod_ns.back() == r.owner_ns && p.weight >= 0;
  }
}

void Meter::close_ref(const std::string& id) {
  auto at = open_ref_.find(id);
  if (at == open_ref_.end()) return;
  const std::size_t i = at->second;
  open_ref_.erase(at);
  if (i + 1 != open_refs_.size()) {
    open_refs_[i] = std::move(open_refs_.back());
    open_ref_.find(*open_refs_[i].id)->second = i;
  }
  open_refs_.pop_back();
}

void Meter::restore_charge(const std::string& ns, Time day_start, Micros micros) {
  by_day_[ns][utc_day_start(day_start)] += micros;
  by_month_[ns][utc_month_start(day_start)] += micros;
  by_total_[ns] += micros;
}

Segment Meter::open_as_segment(const std::string& node_id, Time until) const {
  const OpenSegment& o = open_.at(node_id);
  const MeteredNode& node = nodes_.at(node_id);
  Segment s;
  s.node_id = node_id;
  s.start = o.since;
  s.end = std::max(until, o.since);
  s.split = o.split;
  s.node_micros = node_cost(node.charge.micros_per_hour, node.launched_at, s.start, s.end);
  s.charges = attribute(node.charge, node.launched_at, o.split, s.start, s.end);
  return s;
}

namespace {

// What attribute() charges each party over [from, to), handed to `add` as (party, micros) in
// attribute()'s order and skipping zero parts, without building Charge records: party i <
// split.pods.size() is that pod, split.pods.size() the node's owner (its idle part).
template <class Add>
void split_total(const Split& split, Micros total, Add&& add) {
  if (total == 0) return;  // every part is zero
  // One party with a positive weight (a node one pod fills, or an empty one): split_exact would
  // give it everything, so skip its allocations.
  std::size_t positive = 0;
  std::size_t which = split.pods.size();
  bool negative = split.idle_weight < 0;
  for (std::size_t i = 0; i < split.pods.size(); ++i) {
    if (split.pods[i].weight > 0) {
      ++positive;
      which = i;
    }
    negative = negative || split.pods[i].weight < 0;
  }
  if (split.idle_weight > 0) {
    ++positive;
    which = split.pods.size();
  }
  if (!negative && positive <= 1) {
    // No positive weight: the owner pays, as when attribute() sets the idle weight to 1.
    add(which, total);
    return;
  }
  std::vector<std::int64_t> weights;
  weights.reserve(split.pods.size() + 1);
  for (const PodShare& p : split.pods) weights.push_back(p.weight);
  weights.push_back(split.idle_weight);
  if (std::all_of(weights.begin(), weights.end(), [](std::int64_t w) { return w == 0; }))
    weights.back() = 1;
  const std::vector<Micros> parts = split_exact(total, weights);
  for (std::size_t i = 0; i <= split.pods.size(); ++i) {
    if (parts[i] != 0) add(i, parts[i]);
  }
}

template <class Add>
void add_charges(const MeteredNode& node, const Split& split, Time from, Time to, Add&& add) {
  split_total(split, node_cost(node.charge.micros_per_hour, node.launched_at, from, to),
              std::forward<Add>(add));
}

}  // namespace

Time rolled_worst_case_end(Time launched_at, Time worst_case_end, Time now) {
  if (worst_case_end <= 0) return now + 3600;  // not known: one more hour
  if (now < worst_case_end) return worst_case_end;
  // Past its worst case the job may run as long again: commit it for another period (issue 12,
  // "worst case that rolls forward"), so a job that overruns is never committed as free.
  const Seconds period = worst_case_end - launched_at;
  if (period <= 0) return now + 3600;
  return worst_case_end + period * ((now - worst_case_end) / period + 1);
}

template <class Add>
void Meter::add_open_charges(const OpenRef& r, Time from, Time to, Add&& add) {
  if (r.one_namespace) {
    // Parts of a split of the node's cost add up to all of it (split_exact).
    const Micros total = node_cost(r.node->charge.micros_per_hour, r.node->launched_at, from, to);
    if (total != 0) add(r.owner_ns, total);
    return;
  }
  add_charges(*r.node, r.open->split, from, to, [&](std::size_t party, Micros m) {
    add(party < r.pod_ns.size() ? r.pod_ns[party] : r.owner_ns, m);
  });
}

template <class Add>
void Meter::add_open_split(const OpenRef& r, Micros total, Add&& add) {
  if (r.one_namespace) {
    if (total != 0) add(r.owner_ns, total);
    return;
  }
  split_total(r.open->split, total, [&](std::size_t party, Micros m) {
    add(party < r.pod_ns.size() ? r.pod_ns[party] : r.owner_ns, m);
  });
}

std::map<std::string, NamespaceSpend, std::less<>> Meter::spend(Time now) const {
  std::map<std::string, NamespaceSpend, std::less<>> out;
  const Time day = utc_day_start(now);
  const Time month = utc_month_start(now);
  for (const auto& [ns, days] : by_day_) {
    if (auto it = days.find(day); it != days.end()) out[ns].spent_today += it->second;
  }
  for (const auto& [ns, months] : by_month_) {
    if (auto it = months.find(month); it != months.end()) out[ns].spent_this_month += it->second;
  }
  // Open nodes, added up by namespace number, then named (sums of integers: order is free).
  std::vector<NamespaceSpend> by_number(ns_names_.size());
  std::vector<bool> seen(ns_names_.size(), false);
  for (const OpenRef& r : open_refs_) {
    const MeteredNode& node = *r.node;
    const OpenSegment& o = *r.open;
    // The open segment metered to now: its part since midnight counts today, since the first
    // of the month this month (a segment opened yesterday is split here over its whole span;
    // closed, it will be split per day, which may round a micro-dollar differently).
    if (now > o.since) {
      const Time from_day = std::max(o.since, day);
      const Time from_month = std::max(o.since, month);
      add_open_charges(r, from_day, now, [&](std::uint32_t ns, Micros m) {
        seen[ns] = true;
        by_number[ns].spent_today += m;
        // Opened today (the usual case): the month's part is the same split of the same span.
        if (from_month == from_day) by_number[ns].spent_this_month += m;
      });
      if (from_month != from_day) {
        add_open_charges(r, from_month, now, [&](std::uint32_t ns, Micros m) {
          seen[ns] = true;
          by_number[ns].spent_this_month += m;
        });
      }
    }
    // Committed by use, not by launcher: the node's price and its worst-case remaining cost are
    // split as its cost is (pods by dominant share, idle to the owner), so a team that runs on
    // another team's node is committed for its part of it.
    seen[r.owner_ns] = true;
    add_open_split(r, node.charge.micros_per_hour, [&](std::uint32_t ns, Micros m) {
      seen[ns] = true;
      by_number[ns].committed_micros_per_hour += m;
    });
    const Time until = rolled_worst_case_end(node.launched_at, node.charge.worst_case_end, now);
    add_open_split(r, node_cost(node.charge.micros_per_hour, node.launched_at, now, until),
                   [&](std::uint32_t ns, Micros m) {
                     seen[ns] = true;
                     by_number[ns].committed_worst_case += m;
                   });
  }
  for (std::size_t ns = 0; ns < by_number.size(); ++ns) {
    if (!seen[ns]) continue;
    NamespaceSpend& s = out[ns_names_[ns]];
    const NamespaceSpend& add = by_number[ns];
    s.spent_today += add.spent_today;
    s.spent_this_month += add.spent_this_month;
    s.committed_micros_per_hour += add.committed_micros_per_hour;
    s.committed_worst_case += add.committed_worst_case;
  }
  return out;
}

std::map<std::string, Micros, std::less<>> Meter::spent_to_date(Time now) const {
  std::map<std::string, Micros, std::less<>> out = by_total_;
  std::vector<Micros> by_number(ns_names_.size(), 0);
  std::vector<bool> seen(ns_names_.size(), false);
  for (const OpenRef& r : open_refs_) {
    if (now <= r.open->since) continue;
    add_open_charges(r, r.open->since, now, [&](std::uint32_t ns, Micros m) {
      seen[ns] = true;
      by_number[ns] += m;
    });
  }
  for (std::size_t ns = 0; ns < by_number.size(); ++ns) {
    if (seen[ns]) out[ns_names_[ns]] += by_number[ns];
  }
  return out;
}

}  // namespace fitscale::cost
