#include "cloud/sim/sim_cloud.h"

#include <algorithm>
#include <cstdio>

namespace fitscale {

namespace {

// EC2 answers a launch with these codes when it has no room, or none at this price, or not in
// this zone: the caller should try another offering rather than retry the same one.
bool is_capacity_code(const std::string& code) {
  return code == "InsufficientInstanceCapacity" || code == "MaxSpotInstanceCountExceeded" ||
         code == "InstanceLimitExceeded" || code == "SpotMaxPriceTooLow" || code == "Unsupported";
}

std::string offering_key(const std::string& type, const std::string& zone, CapacityType c) {
  return type + "/" + zone + "/" + to_string(c);
}

// EC2-shaped ids ("i-" and 17 hex digits) from a counter, so runs are reproducible.
std::string instance_id(std::uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "i-%017llx", static_cast<unsigned long long>(n));
  return buf;
}

}  // namespace

SimCloud::SimCloud(const Catalog& catalog, const Clock& clock, SimCloudOptions options)
    : catalog_(catalog), clock_(clock), options_(std::move(options)) {
  for (std::size_t i = 0; i < catalog_.offerings.size(); ++i) {
    offering_index_.emplace(catalog_.offerings[i].key(), i);
  }
}

LaunchResult SimCloud::launch(const LaunchRequest& request) {
  LaunchResult result;
  if (!request.client_token.empty()) {
    auto seen = tokens_.find(request.client_token);
    if (seen != tokens_.end()) {
      // A retried request: the same instances, never new ones (EC2 ClientToken semantics).
      for (const auto& id : seen->second) result.launched.push_back(instances_.at(id));
      return result;
    }
  }
  const std::string key = offering_key(request.instance_type, request.zone, request.capacity_type);
  auto fail = [&](std::string code, std::string message) {
    LaunchFailure f;
    f.offering_key = key;
    f.count = request.count;
    f.capacity_error = is_capacity_code(code);
    f.code = std::move(code);
    f.message = std::move(message);
    result.failures.push_back(std::move(f));
    return result;
  };
  if (request.count <= 0) return fail("InvalidParameterValue", "count must be at least 1");
  auto found = offering_index_.find(key);
  if (found == offering_index_.end()) {
    if (catalog_.find_type(request.instance_type) == nullptr) {
      return fail("InvalidParameterValue", "unknown instance type " + request.instance_type);
    }
    return fail("Unsupported", "no " + std::string(to_string(request.capacity_type)) +
                                   " offering of " + request.instance_type + " in " + request.zone);
  }
  auto injected = injected_.find(key);
  if (injected != injected_.end() && injected->second.second != 0) {
    std::string code = injected->second.first;
    if (injected->second.second > 0) --injected->second.second;  // negative: fails forever
    return fail(code, "injected: no capacity for " + key);
  }
  const Offering& offering = catalog_.offerings[found->second];
  std::vector<std::string> ids;
  for (int i = 0; i < request.count; ++i) {
    Instance inst;
    inst.id = instance_id(next_id_++);
    inst.instance_type = request.instance_type;
    inst.zone = request.zone;
    inst.capacity_type = request.capacity_type;
    inst.state = "pending";
    inst.provider_id = "aws:///" + request.zone + "/" + inst.id;
    inst.launched_at = clock_.now();
    inst.price_micros_per_hour = offering.micros_per_hour;
    inst.pool = request.pool;
    inst.owner_namespace = request.owner_namespace;
    inst.job = request.job;
    inst.node_labels = request.node_labels;
    inst.node_taints = request.node_taints;
    inst.tags["fitscale.io/cluster"] = options_.cluster_name;
    inst.tags["fitscale.io/pool"] = request.pool;
    inst.tags["fitscale.io/job"] = request.job;
    inst.tags["fitscale.io/namespace"] = request.owner_namespace;
    ids.push_back(inst.id);
    live_.insert(inst.id);
    live_list_.push_back(inst);
    result.launched.push_back(inst);
    instances_.emplace(inst.id, std::move(inst));
  }
  if (!request.client_token.empty()) tokens_[request.client_token] = std::move(ids);
  ++generation_;
  return result;
}

void SimCloud::terminate(const std::vector<std::string>& instance_ids) {
  for (const auto& id : instance_ids) {
    auto it = instances_.find(id);
    if (it == instances_.end() || it->second.state == "terminated")
      continue;  // idempotent, like EC2
    it->second.state = "terminated";
    if (Instance* live = live_entry(id))
      live_list_.erase(live_list_.begin() + (live - live_list_.data()));
    live_.erase(id);
    terminated_at_[id] = clock_.now();
    terminations_.emplace_back(id, clock_.now());
    ++generation_;
  }
}

std::vector<Instance> SimCloud::list_instances() { return live_list_; }

Instance* SimCloud::live_entry(const std::string& id) {
  auto it = std::lower_bound(live_list_.begin(), live_list_.end(), id,
                             [](const Instance& i, const std::string& key) { return i.id < key; });
  return it != live_list_.end() && it->id == id ? &*it : nullptr;
}

void SimCloud::inject_failure(const std::string& offering_key, const std::string& code, int count) {
  injected_[offering_key] = {code, count};
}

void SimCloud::mark_interruption(const std::string& instance_id) {
  auto it = instances_.find(instance_id);
  if (it == instances_.end() || it->second.state == "terminated") return;
  it->second.interruption_notice = true;
  if (Instance* live = live_entry(instance_id)) live->interruption_notice = true;
  ++generation_;
}

void SimCloud::mark_running(const std::string& instance_id) {
  auto it = instances_.find(instance_id);
  if (it == instances_.end() || it->second.state != "pending") return;
  it->second.state = "running";
  if (Instance* live = live_entry(instance_id)) live->state = "running";
  ++generation_;
}

Seconds SimCloud::boot_delay(const std::string& instance_type) const {
  const InstanceType* t = catalog_.find_type(instance_type);
  return (t != nullptr && t->gpu > 0) ? options_.boot_delay_gpu_s : options_.boot_delay_cpu_s;
}

const Instance* SimCloud::find(const std::string& instance_id) const {
  auto it = instances_.find(instance_id);
  return it == instances_.end() ? nullptr : &it->second;
}

std::optional<Time> SimCloud::terminated_at(const std::string& instance_id) const {
  auto it = terminated_at_.find(instance_id);
  if (it == terminated_at_.end()) return std::nullopt;
  return it->second;
}

}  // namespace fitscale
