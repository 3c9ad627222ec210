#pragma once
// The cost ledger (issue 4): metered per second from node lifecycle, attributed to namespaces and
// jobs by dominant share. Implementations: in memory (simulator) and SQLite (WAL, durable).
#include <map>
#include <string>
#include <vector>

#include "model/budget.h"
#include "model/money.h"
#include "model/pod.h"
#include "model/resources.h"
#include "model/time.h"

namespace fitscale {

struct NodeCharge {
  std::string node_id;  // instance id (stable from launch to termination)
  std::string instance_type;
  CapacityType capacity_type = CapacityType::Spot;
  Micros micros_per_hour = 0;   // the price it was launched at
  Resources allocatable;        // denominator of dominant shares
  std::string owner_namespace;  // pays idle time
  std::string owner_job;
  std::string pool;
  // When the job that caused the launch is over at the latest (launch + its worst-case runtime);
  // 0 = not known, then the ledger counts one more hour of the node as committed worst case.
  Time worst_case_end = 0;
};

struct PodUsage {
  std::string pod;  // "ns/name"
  std::string ns;
  std::string job;
  Resources requests;
};

class Ledger {
 public:
  virtual ~Ledger() = default;
  virtual void node_started(const NodeCharge& node, Time t) = 0;
  virtual void node_stopped(const std::string& node_id, Time t) = 0;
  // The non-daemon pods on a node from `t` on (replaces the previous set).
  virtual void pods_changed(const std::string& node_id, const std::vector<PodUsage>& pods,
                            Time t) = 0;
  // Spend per namespace up to `now` (closed intervals plus open ones metered to now), for
  // budget admission: today's and this month's spend (UTC), and what is committed per hour.
  virtual std::map<std::string, NamespaceSpend, std::less<>> spend(Time now) const = 0;
  // Everything charged per namespace up to `now`, whatever the period: closed segments plus open
  // ones metered to now (a durable ledger counts what it stored before a restart too). The
  // simulator's report reads its per-namespace costs and spend-over-time series from here.
  // `now` is not before the last change reported: it meters forward, it does not look back.
  virtual std::map<std::string, Micros, std::less<>> spent_to_date(Time now) const = 0;
  // Nodes still being metered (started, not stopped). After a restart a durable ledger knows
  // nodes the caller has not reported yet: those whose instance is gone should be stopped.
  virtual std::vector<std::string> open_nodes() const { return {}; }
};

}  // namespace fitscale
