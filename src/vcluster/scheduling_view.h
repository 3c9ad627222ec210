#pragma once
// The stored Pod and Node JSON as the model's Pod and Node, for the built-in scheduler. Uses the
// kube layer's decoder (src/kube/decode.h), the same one `fitscale run` feeds the planner with,
// so the scheduler and the planner read requests, selectors, aliases and affinity identically.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/node.h"
#include "model/pod.h"

namespace fitscale::vcluster {

// Throws InputError naming the pod and field on a malformed quantity or selector.
Pod pod_for_scheduling(const nlohmann::json& pod, const std::vector<std::string>& gpu_models);
Node node_for_scheduling(const nlohmann::json& node, const std::vector<std::string>& gpu_models);
bool node_is_ready(const nlohmann::json& node);

}  // namespace fitscale::vcluster
