#pragma once
// JobSet (kubernetes-sigs/jobset): its controller labels (and annotates) every pod of the JobSet
// NAME with jobset.sigs.k8s.io/jobset-name: NAME, jobset.sigs.k8s.io/replicatedjob-name,
// replicatedjob-replicas, job-index, job-global-index and job-key. How many pods the JobSet runs
// at once (the sum over its replicatedJobs of replicas x the Job's parallelism) is not on the
// pods: the JobSet object sizes the gang (kube/jobset_codec.h reads it), or fitscale.io/gang-size
// on the pod template does. Until one of them is read the pods wait (jobset_missing_reason).
#include "model/gang_sources/gang_source.h"

namespace fitscale {

inline constexpr std::string_view kJobSetName = "jobset.sigs.k8s.io/jobset-name";

std::optional<GangReading> jobset_gang(const Labels& labels, const Annotations& annotations);

std::string jobset_missing_reason(const std::string& ns, const std::string& jobset);

}  // namespace fitscale
