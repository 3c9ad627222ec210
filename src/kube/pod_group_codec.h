#pragma once
// Coscheduling PodGroup objects (scheduling.x-k8s.io/v1alpha1) as the API serves them: what a
// cluster dump holds and what the live informer keeps (model/pod_group.h says why).
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "kube/informer.h"
#include "model/pod_group.h"

namespace fitscale {

inline constexpr std::string_view kPodGroupApiGroup = "scheduling.x-k8s.io";

// One PodGroup. Throws InputError naming the field ("spec.minMember: expected a whole number").
// A minMember below 1 is 1: the plugin then lets every pod through alone.
PodGroupView decode_pod_group(const nlohmann::json& object);

ResourceCodec<PodGroupView> pod_group_codec();

}  // namespace fitscale
