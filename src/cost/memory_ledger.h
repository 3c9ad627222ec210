#pragma once
// The ledger in memory, for the simulator and tests: everything a SqliteLedger records, kept in
// vectors, gone with the process.
#include <vector>

#include "cost/cost_report.h"
#include "cost/ledger.h"
#include "cost/meter.h"

namespace fitscale {

class MemoryLedger final : public Ledger {
 public:
  void node_started(const NodeCharge& node, Time t) override;
  void node_stopped(const std::string& node_id, Time t) override;
  void pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods, Time t) override;
  std::map<std::string, NamespaceSpend, std::less<>> spend(Time now) const override;
  std::map<std::string, Micros, std::less<>> spent_to_date(Time now) const override;
  std::vector<std::string> open_nodes() const override;

  // Totals over [since, until); open segments are metered up to `until`.
  cost::CostReport report(Time since, Time until) const;
  const std::vector<cost::Segment>& closed_segments() const { return closed_; }
  const cost::Meter& meter() const { return meter_; }

 private:
  void keep(std::vector<cost::Segment> segments);

  cost::Meter meter_;
  std::vector<cost::Segment> closed_;
};

}  // namespace fitscale
