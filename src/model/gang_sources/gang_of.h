#pragma once
// The one place that decides a pod's gang: each framework's source (this folder) in turn, the
// first whose labels the pod carries wins. The order puts the objects a gang scheduler obeys
// first: fitscale's own labels, then a coscheduling or Volcano PodGroup (which Kubeflow training
// jobs, KubeRay and Volcano Jobs name when gang scheduling is on), then LeaderWorkerSet and
// JobSet, which name no PodGroup. docs/frameworks.md lists what each framework writes.
#include <string>

#include "model/gang_sources/gang_source.h"

namespace fitscale {

GangReading gang_of(const Labels& labels, const Annotations& annotations);

// Why the pods of `gang` (size_unknown) wait, for events and plans: which object is missing.
std::string gang_size_missing_reason(const std::string& ns, const Gang& gang);

}  // namespace fitscale
