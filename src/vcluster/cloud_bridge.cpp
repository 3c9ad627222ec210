#include "vcluster/cloud_bridge.h"

#include <fmt/format.h>

#include "model/labels.h"
#include "model/time.h"
#include "vcluster/api_error.h"
#include "vcluster/events.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

constexpr const char* kInstanceAnnotation = "fitscale.io/instance-id";
constexpr const char* kInterruptionTaint = "fitscale.io/spot-interruption";

bool live(const Instance& i) { return i.state != "terminated" && i.state != "shutting-down"; }

std::string quantity(std::int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

std::string bytes(std::int64_t b) {
  return b % 1024 == 0 ? std::to_string(b / 1024) + "Ki" : std::to_string(b);
}

}  // namespace

nlohmann::json resources_to_json(const Resources& r) {
  nlohmann::json j = {{"cpu", quantity(r.cpu_milli)},
                      {"memory", bytes(r.memory_bytes)},
                      {"pods", std::to_string(r.pods)}};
  if (r.gpus > 0) j[std::string(kResourceGpu)] = std::to_string(r.gpus);
  if (r.ephemeral_bytes > 0) j[std::string(kResourceEphemeral)] = bytes(r.ephemeral_bytes);
  for (const auto& [name, v] : r.extended) j[name] = std::to_string(v);
  return j;
}

CloudBridge::CloudBridge(ObjectStore& store, CloudProvider& cloud, SimCloud* sim,
                         const Catalog& catalog, const Clock& clock, CloudBridgeOptions options)
    : store_(store),
      cloud_(cloud),
      sim_(sim),
      catalog_(catalog),
      clock_(clock),
      options_(std::move(options)) {}

nlohmann::json CloudBridge::node_for(const Instance& inst) const {
  const std::string name = inst.id;
  Labels labels;
  Resources capacity;
  Resources alloc;
  std::string arch = "amd64";
  std::string gpu_model;
  if (const InstanceType* t = catalog_.find_type(inst.instance_type)) {
    capacity = t->capacity();
    alloc = allocatable(*t, AllocatableRule{});
    arch = t->arch;
    gpu_model = t->gpu_model;
  }
  // The catalog's offering, when there is one, knows the exact allocatable and labels.
  nlohmann::json taints = nlohmann::json::array();
  if (const Offering* o =
          catalog_.find_offering(inst.instance_type, inst.zone, inst.capacity_type, inst.pool)) {
    alloc = o->allocatable;
    labels = o->labels;
  }
  // What the launch asked its Nodes to carry (its pool's labels and taints) wins over this
  // cluster's own catalog, which knows only the pools of its own configuration.
  std::vector<Taint> all;
  if (!inst.node_labels.empty()) {
    for (const auto& [k, v] : inst.node_labels) labels[k] = v;
    all = inst.node_taints;
  } else if (const Offering* o = catalog_.find_offering(inst.instance_type, inst.zone,
                                                        inst.capacity_type, inst.pool)) {
    all = o->taints;
  }
  for (const Taint& t : all) {
    nlohmann::json j = {{"key", t.key}, {"effect", to_string(t.effect)}};
    if (!t.value.empty()) j["value"] = t.value;
    taints.push_back(std::move(j));
  }
  labels[std::string(label::kInstanceType)] = inst.instance_type;
  labels[std::string(label::kBetaInstanceType)] = inst.instance_type;
  labels[std::string(label::kZone)] = inst.zone;
  labels[std::string(label::kRegion)] = options_.region;
  labels[std::string(label::kArch)] = arch;
  labels[std::string(label::kOs)] = "linux";
  labels[std::string(label::kHostname)] = name;
  labels[std::string(label::kCapacityType)] = to_string(inst.capacity_type);
  labels[std::string(label::kPool)] = inst.pool.empty() ? "default" : inst.pool;
  if (!gpu_model.empty()) labels[std::string(label::kGpuModel)] = gpu_model;
  const std::string provider_id =
      inst.provider_id.empty() ? "aws:///" + inst.zone + "/" + inst.id : inst.provider_id;
  const std::string now = format_rfc3339(clock_.now());
  // Who the node is for and what it costs (docs/pools.md, "What launched nodes carry").
  nlohmann::json annotations = {{kInstanceAnnotation, inst.id}};
  if (!inst.job.empty()) annotations[std::string(annotation::kNodeJob)] = inst.job;
  if (!inst.owner_namespace.empty()) {
    annotations[std::string(annotation::kNodeNamespace)] = inst.owner_namespace;
  }
  if (inst.price_micros_per_hour > 0) {
    annotations[std::string(annotation::kNodeUsdPerHour)] =
        fmt::format("{}", static_cast<double>(inst.price_micros_per_hour) / 1e6);
  }
  return {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", {{"name", name}, {"labels", labels}, {"annotations", annotations}}},
      {"spec", taints.empty() ? nlohmann::json{{"providerID", provider_id}}
                              : nlohmann::json{{"providerID", provider_id}, {"taints", taints}}},
      {"status",
       {{"capacity", resources_to_json(capacity)},
        {"allocatable", resources_to_json(alloc)},
        {"conditions",
         {{{"type", "Ready"},
           {"status", "True"},
           {"reason", "KubeletReady"},
           {"message", "virtual kubelet is posting ready status"},
           {"lastHeartbeatTime", now},
           {"lastTransitionTime", now}}}},
        {"addresses", {{{"type", "Hostname"}, {"address", name}}}},
        {"nodeInfo",
         {{"architecture", arch},
          {"operatingSystem", "linux"},
          {"kubeletVersion", "v1.32.0-fitscale"},
          {"containerRuntimeVersion", "simulated://1.0"},
          {"osImage", "fitscale virtual node"},
          {"kernelVersion", ""},
          {"kubeProxyVersion", ""},
          {"machineID", inst.id},
          {"systemUUID", inst.id},
          {"bootID", inst.id}}}}}};
}

std::vector<Instance> CloudBridge::live_instances_locked() {
  std::vector<Instance> out;
  for (auto& i : cloud_.list_instances()) {
    if (!live(i)) continue;
    if (interruptions_.count(i.id)) i.interruption_notice = true;
    out.push_back(std::move(i));
  }
  return out;
}

void CloudBridge::tick() {
  std::lock_guard lock(mu_);
  const Time now = clock_.now();
  for (auto it = interruptions_.begin(); it != interruptions_.end();) {
    if (it->second <= now) {
      cloud_.terminate({it->first});
      it = interruptions_.erase(it);
    } else {
      ++it;
    }
  }
  std::set<std::string> alive;
  for (const auto& inst : live_instances_locked()) {
    alive.insert(inst.id);
    if (registered_.count(inst.id)) continue;
    if (now < inst.launched_at + options_.boot_delay(inst.instance_type)) continue;
    registered_.insert(inst.id);
    if (sim_) sim_->mark_running(inst.id);
    try {
      auto node = store_.create("nodes", "", node_for(inst));
      record_event(store_, clock_, node, "Normal", "RegisteredNode",
                   fmt::format("Node {} ({} {} in {}) registered", inst.id,
                               to_string(inst.capacity_type), inst.instance_type, inst.zone),
                   "fitscale-cloud-bridge");
    } catch (const ApiError&) {
      // A Node of that name exists already (created through the API): leave it.
    }
  }
  for (const auto& shared_node : store_.list_shared("nodes").items) {
    const nlohmann::json& node = *shared_node;
    const std::string id = annotation_of(node, kInstanceAnnotation);
    if (id.empty() || alive.count(id)) continue;
    try {
      store_.remove("nodes", "", name_of(node));
      record_event(store_, clock_, node, "Normal", "InstanceTerminated",
                   "instance " + id + " was terminated; node deleted", "fitscale-cloud-bridge");
    } catch (const ApiError&) {
    }
  }
}

LaunchResult CloudBridge::launch(const LaunchRequest& request) {
  std::lock_guard lock(mu_);
  return cloud_.launch(request);
}

void CloudBridge::terminate(const std::vector<std::string>& ids) {
  std::lock_guard lock(mu_);
  cloud_.terminate(ids);
  for (const auto& id : ids) interruptions_.erase(id);
}

std::vector<Instance> CloudBridge::list_instances() {
  std::lock_guard lock(mu_);
  return live_instances_locked();
}

std::optional<std::uint64_t> CloudBridge::listing_generation() {
  std::lock_guard lock(mu_);
  return cloud_.generation();
}

void CloudBridge::inject(const std::string& offering_key, const std::string& code, int count) {
  if (!sim_) throw ApiError(501, "NotImplemented", "fault injection needs the simulated cloud");
  std::lock_guard lock(mu_);
  sim_->inject_failure(offering_key, code, count);
}

void CloudBridge::interrupt(const std::string& instance_id) {
  std::lock_guard lock(mu_);
  bool found = false;
  for (const auto& i : cloud_.list_instances()) found |= i.id == instance_id && live(i);
  if (!found) throw not_found("instances", instance_id);
  if (sim_) sim_->mark_interruption(instance_id);
  if (!interruptions_.count(instance_id)) {
    interruptions_[instance_id] = clock_.now() + options_.interruption_grace_s;
  }
  for (const auto& shared_node : store_.list_shared("nodes").items) {
    const nlohmann::json& node = *shared_node;
    if (annotation_of(node, kInstanceAnnotation) != instance_id) continue;
    store_.mutate("nodes", "", name_of(node), [&](nlohmann::json& n) {
      auto& taints = n["spec"]["taints"];
      if (!taints.is_array()) taints = nlohmann::json::array();
      for (const auto& t : taints) {
        if (t.value("key", "") == kInterruptionTaint) return;
      }
      taints.push_back({{"key", kInterruptionTaint}, {"value", "true"}, {"effect", "NoSchedule"}});
      n["metadata"]["annotations"]["fitscale.io/interruption-notice"] =
          format_rfc3339(clock_.now());
    });
    record_event(store_, clock_, node, "Warning", "SpotInterruption",
                 fmt::format("spot instance {} will be reclaimed in {}s", instance_id,
                             options_.interruption_grace_s),
                 "fitscale-cloud-bridge");
  }
}

}  // namespace fitscale::vcluster
