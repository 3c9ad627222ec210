#include "cloud/static/static_provider.h"

#include <algorithm>

namespace fitscale {

Instance owned_instance(const Node& n, const StaticProviderOptions& options, Time metered_from) {
  Instance i;
  i.id = n.name;
  i.node_name = n.name;
  i.provider_id = n.provider_id;  // may be empty: matched to its Node by name then
  auto label = [&](std::string_view key, const char* fallback) {
    auto it = n.labels.find(key);
    return it == n.labels.end() ? std::string(fallback) : it->second;
  };
  i.instance_type = label(label::kInstanceType, "owned");
  i.zone = label(label::kZone, "");
  i.capacity_type = CapacityType::OnDemand;  // nobody reclaims it
  i.state = "running";
  i.launched_at = std::max(n.created, metered_from);
  i.price_micros_per_hour = options.micros_per_hour;
  i.provider = options.name;
  i.owned = true;
  return i;
}

StaticProvider::StaticProvider(StaticProviderOptions options, NodeSource nodes, const Clock& clock)
    : options_(std::move(options)), nodes_(std::move(nodes)), clock_(clock) {}

LaunchResult StaticProvider::launch(const LaunchRequest& request) {
  // The catalog offers nothing of this provider; a request here is a catalog row that names it.
  LaunchResult out;
  out.failures.push_back(
      {request.instance_type + "/" + request.zone + "/" + to_string(request.capacity_type),
       request.count, "OwnedHardware",
       "provider \"" + options_.name + "\" is owned hardware: nothing can be launched in it",
       false});
  return out;
}

void StaticProvider::terminate(const std::vector<std::string>& instance_ids) {
  refused_.insert(refused_.end(), instance_ids.begin(), instance_ids.end());
}

std::vector<Instance> StaticProvider::list_instances() {
  std::optional<std::vector<Node>> nodes = nodes_();
  if (!nodes) return last_;
  const Time now = clock_.now();
  std::vector<Instance> out;
  std::map<std::string, Time, std::less<>> seen;
  for (const Node& n : *nodes) {
    if (!matches_node_selector(options_.node_selector, n.labels)) continue;
    auto was = first_seen_.find(n.name);
    const Time since = was == first_seen_.end() ? now : was->second;
    seen.emplace(n.name, since);
    out.push_back(owned_instance(n, options_, since));
  }
  std::sort(out.begin(), out.end(),
            [](const Instance& a, const Instance& b) { return a.id < b.id; });
  first_seen_ = std::move(seen);
  last_ = out;
  return out;
}

}  // namespace fitscale
