#include "vcluster/access_review.h"

namespace fitscale::vcluster {

nlohmann::json review_self_access(nlohmann::json review) {
  review["status"] = {{"allowed", true},
                      {"reason",
                       "the virtual cluster lets its kubeconfig's token holder do "
                       "everything"}};
  if (!review["metadata"].is_object()) review["metadata"] = nlohmann::json::object();
  review["metadata"]["creationTimestamp"] = nullptr;
  return review;
}

}  // namespace fitscale::vcluster
