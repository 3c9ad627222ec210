#pragma once
// authorization.k8s.io/v1 SelfSubjectAccessReview ("kubectl auth can-i"). The virtual cluster
// has one identity, the token holder of its kubeconfig, who may do everything: every review is
// allowed. Answered, never stored.
#include <nlohmann/json.hpp>

namespace fitscale::vcluster {

nlohmann::json review_self_access(nlohmann::json review);

}  // namespace fitscale::vcluster
