#include "controller/launch_node_spec.h"

namespace fitscale {

void set_node_labels_and_taints(const Catalog& catalog, const LaunchDecision& d,
                                LaunchRequest& req) {
  if (d.offering_index >= catalog.offerings.size()) return;
  const Offering& o = catalog.offerings[d.offering_index];
  // A decision from another catalog (a test's) names another offering: carry nothing wrong.
  if (o.instance_type != d.instance_type || o.zone != d.zone) return;
  req.node_labels = o.labels;
  req.node_taints = o.taints;
  if (o.pool_index < catalog.pools.size()) {
    const Pool& p = catalog.pools[o.pool_index];
    req.node_taints.insert(req.node_taints.end(), p.startup_taints.begin(), p.startup_taints.end());
    req.launch_template_name = p.aws.launch_template_name;
    req.launch_template_id = p.aws.launch_template_id;
    req.launch_template_version = p.aws.launch_template_version;
  }
}

std::string launch_provider(const Catalog& catalog, const LaunchDecision& d) {
  if (d.offering_index >= catalog.offerings.size()) return {};
  const Offering& o = catalog.offerings[d.offering_index];
  if (o.instance_type != d.instance_type || o.zone != d.zone) return {};
  return o.provider;
}

}  // namespace fitscale
