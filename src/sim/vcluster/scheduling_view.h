#pragma once
// The stored Pod and Node JSON as the model's Pod and Node, for the built-in scheduler.
// A thin adapter: it reads only what scheduling needs (requests, selectors, affinity,
// tolerations, anti-affinity, taints, allocatable). When the kube layer's full decoder
// (src/kube/decode.h) is available this is the one place to switch over.
#include <nlohmann/json.hpp>

#include "model/node.h"
#include "model/pod.h"

namespace fitscale::vcluster {

// Throws InputError naming the pod and field on a malformed quantity or selector.
Pod pod_for_scheduling(const nlohmann::json& pod);
Node node_for_scheduling(const nlohmann::json& node);
bool node_is_ready(const nlohmann::json& node);

}  // namespace fitscale::vcluster
