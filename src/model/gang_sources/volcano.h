#pragma once
// Volcano (volcano.sh): pods annotated scheduling.k8s.io/group-name: NAME belong to the PodGroup
// NAME (scheduling.volcano.sh/v1beta1, spec.minMember) in their namespace, which Volcano's
// gang plugin schedules all-or-nothing. Volcano Jobs' pods carry it (PodGroup NAME-UID), and so
// do the pods of Kubeflow's training-operator (--gang-scheduler-name=volcano: PodGroup named
// after the job) and of KubeRay (batchScheduler volcano: PodGroup ray-CLUSTER-pg). The PodGroup
// decides the size; fitscale.io/gang-size on the pod stands in until it is read.
#include "model/gang_sources/gang_source.h"

namespace fitscale {

inline constexpr std::string_view kVolcanoGroupName = "scheduling.k8s.io/group-name";

std::optional<GangReading> volcano_gang(const Labels& labels, const Annotations& annotations);

std::string volcano_group_missing_reason(const std::string& ns, const std::string& group);

}  // namespace fitscale
