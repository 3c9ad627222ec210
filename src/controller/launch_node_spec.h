#pragma once
// What the Nodes of a launch are to carry (docs/pools.md): the offering's labels (well-known,
// derived from the type, its pool's own and fitscale.io/pool) and its pool's taints, startup
// taints included. Simulated clouds register Nodes with them; on EC2 the bootstrap of the
// launch template sets them (kubelet --node-labels / --register-with-taints).
#include "controller/interfaces.h"
#include "model/catalog.h"
#include "planner/plan.h"

namespace fitscale {

void set_node_labels_and_taints(const Catalog& catalog, const LaunchDecision& d,
                                LaunchRequest& req);

// The provider instance the decision's offering is sold by (Offering::provider); "" when the
// catalog has one provider or the decision names no offering of it.
std::string launch_provider(const Catalog& catalog, const LaunchDecision& d);

}  // namespace fitscale
