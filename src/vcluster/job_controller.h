#pragma once
// batch/v1 Jobs: a Job becomes up to `parallelism` pods (ownerReferences to the Job, labels
// job-name / controller-uid), replacement pods after failures up to backoffLimit, and its
// status (active, succeeded, failed, conditions Complete / Failed) follows its pods. Pods whose
// Job is gone are left to the garbage collector (garbage_collector.h).
//
// The Job's activeDeadlineSeconds and its fitscale.io/sim-duration and fitscale.io/max-runtime
// annotations are copied onto pods whose template does not set them, so the planner and the
// simulated kubelets see a Job's limits on each of its pods.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/interfaces.h"
#include "vcluster/object_store.h"

namespace fitscale::vcluster {

struct JobPass {
  int pods_created = 0;
};

// `admit` runs a new pod through admission (RestApi::admit_controller_pod: the webhooks); none:
// stored as built.
using PodAdmission = std::function<nlohmann::json(const std::string& ns, nlohmann::json pod)>;
JobPass run_job_controller(ObjectStore& store, const Clock& clock, const PodAdmission& admit = {});

}  // namespace fitscale::vcluster
