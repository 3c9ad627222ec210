#pragma once
// The deterministic name of node `index` of a launch: a retried request (same client token)
// creates the same names, which Azure Resource Manager treats as the same VMs and Compute Engine
// refuses as already existing, never as new ones. `{cluster (at most 40)}-{10 hex}-{index}`.
#include <string>

namespace fitscale::cloud {

std::string launch_node_name(const std::string& cluster_name, const std::string& client_token,
                             int index);

}  // namespace fitscale::cloud
