#pragma once
// What Kubernetes' ExtendedResourceToleration admission plugin does to a pod: for every
// extended resource it requests (nvidia.com/gpu, ...), a toleration {key: NAME, operator:
// Exists, effect: NoSchedule}, so nodes tainted with the resource's name take only pods that
// use it. The simulator applies it to trace pods, the virtual cluster's admission to every pod.
#include <string>
#include <vector>

#include "model/pod.h"

namespace fitscale {

// The extended resource names a pod's requests name (nvidia.com/gpu for Resources::gpus).
std::vector<std::string> extended_resource_names(const Resources& requests);

// Adds the missing tolerations; returns whether it added any.
bool add_extended_resource_tolerations(Pod& pod);

}  // namespace fitscale
