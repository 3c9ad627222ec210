#pragma once
// `fitscale simulate`: a trace replayed through the real Controller on a virtual clock, with a
// simulated cloud (boot delays, spot interruptions, injected capacity failures) and a simulated
// cluster whose scheduler binds pods to Ready nodes. Same inputs and seed, same report.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cloud/sim/sim_cloud.h"
#include "cost/ledger.h"
#include "model/catalog.h"
#include "model/config.h"
#include "obs/recorder.h"
#include "planner/plan.h"
#include "sim/baseline_disruption.h"
#include "sim/report.h"
#include "sim/trace.h"

namespace fitscale {

// Where a replay is, for a progress line: called after every controller loop (cheap; the caller
// decides how often to show it).
struct SimProgress {
  Seconds virtual_s = 0;       // virtual seconds since trace start
  std::size_t submitted = 0;   // jobs submitted so far
  std::size_t finished = 0;    // of which completed or refused
  std::size_t total_jobs = 0;  // in the trace
};

struct SimOptions {
  std::uint64_t seed = 1;
  Seconds interval_s = 10;               // between controller loops
  Seconds sample_step_s = 300;           // between points of the report's time series
  Policy policy;                         // what the controller decides with (budgets included)
  DisruptionRules disruption;            // the evictions a baseline makes (none for fitscale)
  std::string policy_name = "fitscale";  // config `policy:`, for the report
  Seconds offering_backoff_s = 300;
  std::string cluster_name = "fitscale";
  Seconds boot_delay_cpu_s = 90;
  Seconds boot_delay_gpu_s = 180;
  bool interruptions = true;  // spot interruptions at the catalog's hourly hazard
  std::vector<CapacityOutage> insufficient_capacity;
  // Interruptions at fixed times, on top of (or, with interruptions = false, instead of) the
  // random ones: the `instance`-th instance launched (0-based) is reclaimed at `at_s`.
  struct FixedInterruption {
    Seconds at_s = 0;
    std::size_t instance = 0;
  };
  std::vector<FixedInterruption> fixed_interruptions;
  // Virtual time of trace second 0: a Monday at UTC midnight, so daily and monthly budget
  // periods fall where a person expects them.
  Time start = 1767571200;                           // 2026-01-05T00:00:00Z
  std::function<void(const SimProgress&)> progress;  // none: no progress reports
  // With every job finished or refused, how long to let the controller remove the last nodes
  // before the simulator stops them itself; and how long pods may wait with nothing at all
  // running before they are reported as refused (a cap that can never be met, say).
  Seconds drain_limit_s = Seconds{6} * 3600;
  Seconds stall_limit_s = Seconds{2} * 86400;
};

// Runs the whole trace. `ledger` (may be null) gets the controller's metering and answers its
// budget questions; `recorder` (may be null) sees every controller action as well.
SimReport simulate(const std::vector<TraceJob>& jobs, const Catalog& catalog,
                   const SimOptions& options, Ledger* ledger = nullptr,
                   Recorder* recorder = nullptr);

// Checks what the trace reader cannot know alone: every gpu_model is one the catalog has.
// Throws InputError "SOURCE:LINE: column gpu_model: ...".
void validate_trace(const std::vector<TraceJob>& jobs, const Catalog& catalog,
                    const std::string& source);

// The options `fitscale simulate` uses for a config (policy, backoff, boot delays, outages).
SimOptions sim_options_from_config(const Config& config);

}  // namespace fitscale
