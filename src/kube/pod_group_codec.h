#pragma once
// PodGroup objects as the API serves them, coscheduling (scheduling.x-k8s.io/v1alpha1) and
// Volcano (scheduling.volcano.sh/v1beta1): what a cluster dump holds and what the live informers
// keep (model/pod_group.h says why). Both have spec.minMember; the reader is shared.
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "kube/informer.h"
#include "model/pod_group.h"

namespace fitscale {

inline constexpr std::string_view kPodGroupApiGroup = "scheduling.x-k8s.io";
inline constexpr std::string_view kVolcanoApiGroup = "scheduling.volcano.sh";

// One PodGroup of `kind` (CoschedulingPodGroup or VolcanoPodGroup). Throws InputError naming the
// field ("spec.minMember: expected a whole number"). A minMember below 1 is 1: the scheduler then
// lets every pod through alone.
PodGroupView decode_pod_group(const nlohmann::json& object,
                              GangSizer kind = GangSizer::CoschedulingPodGroup);

ResourceCodec<PodGroupView> pod_group_codec();          // coscheduling
ResourceCodec<PodGroupView> volcano_pod_group_codec();  // Volcano

}  // namespace fitscale
