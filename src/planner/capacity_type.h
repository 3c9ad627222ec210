#pragma once
// Capacity type from expected loss (issue 18). Spot costs a fraction of on-demand but may be
// taken back; a job that cannot resume loses the work of the run that was cut short and starts
// again. A pod goes to spot only when what it is expected to lose there (the offering's
// interruption hazard over its runtime, priced at the spot price) is below the on-demand premium;
// a job with checkpoints loses at most one checkpoint interval per interruption.
//
// Pods say what they expect with two annotations (Go-style durations, docs/kubernetes.md):
// fitscale.io/expected-runtime (how long it runs once started), and
// fitscale.io/checkpoint-interval (it resumes from its last checkpoint, at most this old). A pod
// that declares no expected runtime goes to spot, as before.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/catalog.h"
#include "model/pod.h"
#include "model/time.h"
#include "planner/plan.h"
#include "planner/pod_class.h"

namespace fitscale {
namespace annotation {
// What a pod expects of its run: how long it runs once started, and how often it checkpoints
// (it resumes from the last one after an interruption).
inline constexpr std::string_view kExpectedRuntime = "fitscale.io/expected-runtime";
inline constexpr std::string_view kCheckpointInterval = "fitscale.io/checkpoint-interval";
}  // namespace annotation
}  // namespace fitscale

namespace fitscale::planner {

// What a pod declares about its run; nullopt where it declares nothing or the annotation is
// malformed (the pod is then treated as declaring nothing: this only steers the capacity type).
struct RunProfile {
  std::optional<Seconds> expected_runtime;
  std::optional<Seconds> checkpoint_interval;
};
RunProfile run_profile(const Pod& pod);
// run_profile(pod).expected_runtime alone (reclaim asks it of every bound pod, every loop).
std::optional<Seconds> expected_runtime(const Pod& pod);

// Expected wall time on capacity interrupted at `hazard_per_hour` (a Poisson process) of a run
// of `runtime_s` that restarts from its last checkpoint (every `checkpoint_s`; nullopt: from
// zero), as a multiple of `runtime_s`: each checkpoint interval c takes (e^(hc) - 1) / h in
// expectation. 1 with no hazard; +infinity when that overflows.
double spot_time_factor(double hazard_per_hour, Seconds runtime_s,
                        std::optional<Seconds> checkpoint_s);

// Splits each class by capacity type: pods whose expected loss on the class's cheapest spot
// offering is above the on-demand premium (with `members` pods interrupted together, as a gang
// of that many nodes) go to a class of their own with on_demand_only set, just after the rest
// of their class. `candidates` are the offerings the classes may launch (offerings_in_zones).
std::vector<PodClass> split_by_expected_loss(std::vector<PodClass> classes,
                                             const std::vector<Pod>& pods, const Catalog& catalog,
                                             const std::vector<std::uint32_t>& candidates,
                                             std::int64_t members = 1);

}  // namespace fitscale::planner
