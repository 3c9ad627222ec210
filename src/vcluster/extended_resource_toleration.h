#pragma once
// The ExtendedResourceToleration admission plugin, as kube-apiserver runs it when enabled (EKS
// and most GPU clusters do): a pod created with a request or limit of an extended resource
// (nvidia.com/gpu, any name outside the kubernetes.io domain with a '/') gets the toleration
// {key: NAME, operator: Exists, effect: NoSchedule}, so it may land on nodes tainted with
// that name (the default pool's GPU nodes) and other pods may not.
#include <nlohmann/json.hpp>

namespace fitscale::vcluster {

void add_extended_resource_tolerations(nlohmann::json& pod);

}  // namespace fitscale::vcluster
