#pragma once
// JobSet objects (jobset.x-k8s.io/v1alpha2, kubernetes-sigs/jobset) as the API serves them: the
// size of the gang their pods form (model/gang_sources/jobset.h), in a cluster dump and in the
// live informer.
#include <nlohmann/json_fwd.hpp>

#include "kube/informer.h"
#include "model/pod_group.h"

namespace fitscale {

inline constexpr std::string_view kJobSetApiGroup = "jobset.x-k8s.io";

// One JobSet, as a PodGroupView of kind JobSet whose min_member is how many pods it runs at once:
// the sum over spec.replicatedJobs of replicas (default 1) x the Job template's parallelism
// (default 1; at most its completions when set). A JobSet that starts its jobs in turn
// (spec.startupPolicy.startupPolicyOrder InOrder, or a replicatedJob with dependsOn) creates the
// later jobs' pods only once the earlier ones run, so waiting for all would never end: its
// min_member is 1 and the pods that exist are launched together. Throws InputError naming the
// field.
PodGroupView decode_jobset(const nlohmann::json& object);

ResourceCodec<PodGroupView> jobset_codec();

}  // namespace fitscale
