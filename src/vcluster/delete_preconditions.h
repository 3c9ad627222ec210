#pragma once
// DeleteOptions.preconditions: a delete that names the uid or resourceVersion it expects is
// refused with 409 Conflict when the stored object has another, as kube-apiserver refuses it
// (so a client never deletes a newer object of the same name).
#include <nlohmann/json.hpp>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// `options` is the DeleteOptions body; `stored` the object about to be deleted.
void check_delete_preconditions(const ResourceInfo& r, const nlohmann::json& options,
                                const nlohmann::json& stored);

}  // namespace fitscale::vcluster
