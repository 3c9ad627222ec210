#include "cost/memory_ledger.h"

namespace fitscale {

void MemoryLedger::keep(std::vector<cost::Segment> segments) {
  for (auto& s : segments) closed_.push_back(std::move(s));
}

void MemoryLedger::node_started(const NodeCharge& node, Time t) {
  keep(meter_.node_started(node, t));
}

void MemoryLedger::node_stopped(const std::string& node_id, Time t) {
  keep(meter_.node_stopped(node_id, t));
}

void MemoryLedger::pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods,
                                Time t) {
  keep(meter_.pods_changed(node_id, pods, t));
}

std::map<std::string, NamespaceSpend, std::less<>> MemoryLedger::spend(Time now) const {
  return meter_.spend(now);
}

std::map<std::string, Micros, std::less<>> MemoryLedger::spent_to_date(Time now) const {
  return meter_.spent_to_date(now);
}

std::vector<std::string> MemoryLedger::open_nodes() const {
  std::vector<std::string> out;
  for (const auto& [id, o] : meter_.open()) out.push_back(id);
  return out;
}

cost::CostReport MemoryLedger::report(Time since, Time until) const {
  cost::CostReportBuilder b(since, until);
  for (const cost::Segment& s : closed_) b.add(s, meter_.nodes().at(s.node_id));
  for (const auto& [id, o] : meter_.open()) {
    b.add(meter_.open_as_segment(id, until), meter_.nodes().at(id), true);
  }
  return b.finish();
}

}  // namespace fitscale
