#pragma once
// The durable ledger (issue 4): SQLite in WAL mode. Every change is one transaction that writes
// the segments it closed (with their charges) and the node's new open segment, so killing the
// process at any moment loses nothing that was closed; the open segment is stored with its start
// and pods and carries on after a restart when the node is reported again (node_started with its
// original launch time is then a no-op). Metering and attribution are cost::Meter's, shared with
// MemoryLedger. Tables are described in docs/budgets.md ("The ledger file").
//
// A simulation's ledger (Mode::CreateNew) is written for speed instead: many changes per
// transaction and synchronous=OFF, since a killed replay is simply run again (it cannot resume:
// CreateNew refuses an existing file). Its last changes reach the file at flush() or
// destruction.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cost/alert_log.h"
#include "cost/cost_report.h"
#include "cost/ledger.h"
#include "cost/meter.h"

namespace fitscale {

namespace cost {
class SqliteDb;
class SqliteTransaction;
}  // namespace cost

class SqliteLedger final : public Ledger, public AlertLog {
 public:
  enum class Mode {
    Write,     // create the file when missing; meter (a restarted controller carries on)
    ReadOnly,  // an existing ledger, for reports (fitscale cost); changes throw
    // A new file only (fitscale simulate): replaying into an old ledger would mix two runs whose
    // instance ids collide, so an existing file is an InputError.
    CreateNew,
  };
  explicit SqliteLedger(const std::string& path, Mode mode = Mode::Write);
  ~SqliteLedger() override;

  void node_started(const NodeCharge& node, Time t) override;
  void node_stopped(const std::string& node_id, Time t) override;
  void pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods, Time t) override;
  std::map<std::string, NamespaceSpend, std::less<>> spend(Time now) const override;
  std::map<std::string, Micros, std::less<>> spent_to_date(Time now) const override;
  std::vector<std::string> open_nodes() const override;

  bool was_sent(const AlertKey& key) const override;
  void record_sent(const AlertKey& key, Time at, const std::string& text) override;

  // Totals of the closed segments over [since, until). Open segments are not counted (their
  // writer may be gone); report.open_segments says how many nodes are still open.
  cost::CostReport report(Time since, Time until) const;
  const cost::Meter& meter() const { return meter_; }

  // Commits the changes a simulation's ledger still holds in its open transaction (a no-op for
  // the other modes, which commit every change).
  void flush();

 private:
  struct Statements;
  void load();
  void write(const std::string& node_id, const std::vector<cost::Segment>& closed);
  // Every change runs between these two: one transaction per change, or one per batch of
  // changes in a simulation's ledger. A change that throws rolls its transaction back.
  void begin_change();
  void end_change();
  void abandon_change();

  std::unique_ptr<cost::SqliteDb> db_;
  Mode mode_;
  std::int64_t changes_per_commit_ = 1;
  std::int64_t uncommitted_ = 0;
  std::unique_ptr<cost::SqliteTransaction> tx_;
  std::unique_ptr<Statements> q_;  // prepared once, for the changes (write mode only)
  cost::Meter meter_;
};

}  // namespace fitscale
