#pragma once
// Whether the API server serves a resource of a custom group version (its CRD is installed):
// the readers of optional custom resources (PodGroups, ProvisioningRequests) start only then,
// so a cluster without them never keeps the controller from trusting its view.
#include <string>

#include "kube/api_client.h"

namespace fitscale {

enum class Served { Yes, No, Unknown };

// GET /apis/GROUP/VERSION and look for `resource` among its resources. Unknown: the server did
// not answer, or answered something other than 200/404 (403: RBAC); the caller decides.
Served served_resource(ApiClient& client, const std::string& group_version,
                       const std::string& resource, std::string* error = nullptr);

}  // namespace fitscale
