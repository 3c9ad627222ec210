#pragma once
// The production codecs of the informers: the fast decoders of kube/decode.h behind the
// ResourceCodec interface that kube/informer.h consumes.
#include <string>
#include <vector>

#include "kube/kube_cluster_view.h"

namespace fitscale {

// `gpu_models` (Catalog::gpu_models) restore the case of Karpenter's lower-case GPU names.
// Each codec owns its own reusable decoder, so one informer thread per codec is safe.
KubeCodecs default_kube_codecs(const std::vector<std::string>& gpu_models);

}  // namespace fitscale
