#pragma once
// Jobs running past their worst case (issue 12, "worst case that rolls forward"): a pod's worst
// case is its declared runtime (activeDeadlineSeconds, fitscale.io/max-runtime) or its
// namespace's maxRuntime, counted from when it started. Budgets keep such a job committed for
// another whole period (the ledger rolls its worst case forward); this decides, once per job
// and period, what the namespace's maxRuntimeAction says to do about it: alert, or terminate
// (delete its pods, as activeDeadlineSeconds would).
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/budget.h"
#include "planner/plan.h"

namespace fitscale {

// A job (its pods on fitscale's nodes) past its worst case, in its `period`-th period (1: the
// first one after its worst case ended).
struct Overrun {
  std::string ns;
  std::string job;                // Pod::job_key(), unique within the namespace
  std::vector<std::string> pods;  // "ns/name", those past their worst case
  Seconds runtime = 0;            // the worst case they ran past
  std::string runtime_source;     // where it comes from: "activeDeadlineSeconds", ...
  Seconds ran = 0;                // the longest any of them has run
  std::int64_t period = 1;
  MaxRuntimeAction action = MaxRuntimeAction::Alert;
  bool new_in_period = true;  // not reported in this period yet: say so (event, log, alert)
};

// The log line, event message and alert text (also the webhook's, after "fitscale CLUSTER: ").
std::string overrun_text(const Overrun& o);

class RuntimeWatch {
 public:
  static constexpr Time kNever = std::numeric_limits<Time>::max();

  // Jobs to act on now: past their worst case and not yet handled in this period. A job to
  // terminate is listed at every call while its pods stay (a deletion may fail or be slow);
  // one to alert on, once per period. `next_due()` is then when the next one is due.
  std::vector<Overrun> due(const Snapshot& snapshot, const Budgets& budgets, Time now);
  Time next_due() const { return next_due_; }

  // Per pod / per "ns/job": the last period it was reported in (a pod, only once its job
  // was), and the scan that last saw it past its worst case (entries not seen are forgotten).
  struct Seen {
    std::int64_t period = 0;
    std::uint64_t scan = 0;
    std::string job;  // a pod's "ns/job"
  };

 private:
  // By pod uid (else "ns/name"): a pod reported in its current period is passed over with one
  // lookup, so a replay with thousands of jobs running past their worst case for days does not
  // build strings for each of them at every planned loop.
  std::unordered_map<std::string, Seen> pods_;
  std::map<std::string, Seen> jobs_;  // by "ns/job"
  std::uint64_t scan_ = 0;
  Time next_due_ = kNever;
};

}  // namespace fitscale
