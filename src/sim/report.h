#pragma once
// The result of one simulation as a plain value: what `fitscale simulate` prints, writes as JSON
// (report_json) and renders as HTML (report_html in sim/html_report.h). Everything a chart needs
// is here; nothing here refers back to the simulator.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/time.h"

namespace fitscale {

struct SimJobCounts {
  std::int64_t submitted = 0;
  std::int64_t completed = 0;
  std::int64_t refused = 0;     // refused for good by a budget, or no offering can ever hold it
  std::int64_t terminated = 0;  // deleted past their worst case (maxRuntimeAction: terminate)
};

// A job that ran past its worst-case runtime (issue 12): each one is why a namespace's spend can
// go beyond what admission counted (alert), or a job the controller ended (terminate).
struct SimOverrun {
  std::string job;
  std::string ns;
  Seconds at_s = 0;       // virtual seconds since trace start, when the controller saw it
  Seconds runtime_s = 0;  // the worst case it ran past
  std::string action;     // "alert" or "terminate"
};

struct SimRefusal {
  std::string job;
  std::string ns;
  Seconds at_s = 0;    // virtual seconds since trace start
  std::string reason;  // the planner's reason, with the numbers
};

struct SimCost {
  double total = 0, spot = 0, on_demand = 0;
  double idle = 0;  // node time with no non-daemon pod on it (boot included)
  // From the ledger: node time split by dominant share, the unused share and idle time to the
  // namespace whose job caused the launch. Adds up to `total`.
  std::map<std::string, double> by_namespace;
};

// total - lower_bound_usd, part by part (issue 3: what costs the rest).
struct SimExcess {
  double boot = 0;                   // node time before it registered
  double idle = 0;                   // registered, no non-daemon pod on it
  double lost_to_interruptions = 0;  // runs cut short past their last checkpoint, at their share
  double lost_to_evictions = 0;      // the same, by a baseline's evictions (never fitscale's)
  double packing = 0;  // the rest: unused share of partly used nodes, pricier offerings
};

// What a baseline's evictions (utilisation scale-down, consolidation, expiry) threw away:
// fitscale never evicts a running job, so its report has zeros here.
struct SimEvictions {
  std::int64_t nodes = 0;                               // drained with pods on them
  std::map<std::string, std::int64_t> nodes_by_reason;  // underutilized, consolidated, expired
  std::int64_t jobs = 0;  // runs cut short (a job evicted twice counts twice)
  std::int64_t pods = 0;
  double lost_usd = 0;        // = SimExcess::lost_to_evictions
  double lost_job_hours = 0;  // run time past the last checkpoint, per job
  double lost_gpu_hours = 0;  // the same times the job's GPUs
};

struct SimWait {
  double p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
};

struct SimNodes {
  std::int64_t launched = 0;
  std::int64_t peak = 0;  // most nodes alive at once (in flight included)
  std::int64_t interrupted = 0;
  std::int64_t never_registered = 0;
  std::map<std::string, std::int64_t> by_instance_type;  // launches
};

struct SimGpuHours {
  double provisioned = 0, used = 0;
};

struct SimRunInfo {
  std::string policy = "fitscale";  // config `policy:` (a baseline's name)
  double virtual_s = 0;             // from trace start to the last event
  double wall_s = 0;  // filled by the CLI (the library never reads the wall clock); 0 otherwise
  std::string start;  // the virtual date of trace second 0, RFC 3339
  std::uint64_t seed = 0;
  Seconds interval_s = 10;
  std::int64_t loops = 0;          // controller reconciles
  std::int64_t loops_planned = 0;  // of which made a plan (the rest had nothing new)
  std::int64_t restarts = 0;       // jobs sent back to pending by an interruption
};

// One point every `sample_step_s` virtual seconds, the state at that instant (cost rate, counts)
// or the running total up to it (spend).
struct SimSample {
  Seconds t_s = 0;
  std::int64_t nodes = 0;  // alive: in flight, registered or ready
  std::int64_t gpus_provisioned = 0;
  std::int64_t gpus_used = 0;  // requested by running pods
  double usd_per_hour = 0;     // price of every alive instance
  std::int64_t pending_pods = 0;
  std::int64_t running_pods = 0;
};

struct SimNamespace {
  double cost_usd = 0;
  std::vector<double> cumulative_usd;  // aligned with SimReport::series
  // The caps that apply to it (config or defaults); unset = no cap.
  std::optional<double> usd_per_hour, usd_per_day, usd_per_month, usd_per_job;
  // Against those caps (issue 12), as the ledger counted them after every controller loop: the
  // most it was committed per hour (its attributed share of running and in-flight instances)
  // and the most it spent in one UTC calendar month.
  double peak_committed_usd_per_hour = 0;
  double max_month_usd = 0;
  std::int64_t jobs = 0;     // submitted
  std::int64_t refused = 0;  // of which refused
  SimWait wait_s;            // of its jobs that started
};

// One of the costliest jobs, from the ledger's attribution (its pods' dominant share of their
// nodes, plus the idle time of the nodes launched for it).
struct SimJobCost {
  std::string job;  // "namespace/job"
  double cost_usd = 0;
  double idle_usd = 0;  // of which node time with no pod on it
};

struct SimReport {
  SimJobCounts jobs;
  std::vector<SimRefusal> refusals;
  std::vector<SimOverrun> past_worst_case;  // first time each job was past it
  SimCost cost_usd;
  double lower_bound_usd = 0;
  SimExcess excess_usd;
  SimEvictions evictions;
  SimWait wait_s;
  SimNodes nodes;
  SimGpuHours gpu_hours;
  SimRunInfo sim;

  Seconds sample_step_s = 300;
  std::vector<SimSample> series;
  std::vector<double> wait_samples_s;  // one per job that started, in order of first start
  std::map<std::string, SimNamespace> namespaces;
  std::vector<SimJobCost> costliest_jobs;  // largest first (add_costliest_jobs)
};

namespace cost {
struct CostReport;
}
// The `n` costliest jobs of `ledger` (its report over the run) into `report.costliest_jobs`.
void add_costliest_jobs(SimReport& report, const cost::CostReport& ledger, std::size_t n);

// Nearest-rank percentiles (p50 = the value at rank ceil(0.5 n)) and the mean; zeros when empty.
SimWait wait_stats(std::vector<double> samples);

// Stable key order and fixed rounding (dollars to 1e-6, hours and seconds to 1e-3), so the same
// report always gives the same bytes.
std::string report_json(const SimReport& report);

}  // namespace fitscale
