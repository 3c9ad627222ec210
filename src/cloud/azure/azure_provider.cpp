#include "cloud/azure/azure_provider.h"

#include <nlohmann/json.hpp>

#include "cloud/azure/arm_error.h"
#include "cloud/common/node_name.h"
#include "cloud/common/price_cap.h"

namespace fitscale::azure {

std::string AzureProvider::vms_path() const {
  return "/subscriptions/" + options_.subscription_id + "/resourceGroups/" +
         options_.resource_group + "/providers/Microsoft.Compute/virtualMachines";
}

LaunchResult AzureProvider::launch(const LaunchRequest& request) {
  LaunchResult out;
  const std::string key =
      request.instance_type + "/" + request.zone + "/" + to_string(request.capacity_type);
  // Azure has no launch-wide price cap (EC2 Fleet's MaxTotalPrice): enforce it here.
  const int count = cloud::count_within_price_cap(request, out);
  const Time now = clock_.now();
  for (int i = 0; i < count; ++i) {
    const std::string name =
        cloud::launch_node_name(options_.vm.cluster_name, request.client_token, i);
    const std::string path = vms_path() + "/" + name + "?api-version=" + options_.api_version;
    try {
      const aws::HttpExchange started =
          arm_.call("PUT", path, vm_body(options_.vm, request, name, now).dump());
      // A VM that is still being created after the polls is in flight: the listing follows it.
      arm_.wait(started);
      const nlohmann::json vm = nlohmann::json::parse(started.response.body, nullptr, false);
      std::optional<Instance> inst = instance_from_vm(vm, options_.vm.cluster_name);
      if (!inst) {
        // An answer without the VM (the examples' 200 carries it; be safe): what was asked for.
        Instance made;
        made.id = name;
        made.instance_type = request.instance_type;
        made.zone = request.zone;
        made.capacity_type = request.capacity_type;
        made.provider_id = "azure://" + vms_path() + "/" + name;
        made.pool = request.pool;
        made.owner_namespace = request.owner_namespace;
        made.job = request.job;
        inst = made;
      }
      inst->launched_at = now;
      inst->price_micros_per_hour = request.price_micros_per_hour;
      inst->state = "pending";
      inst->node_labels = request.node_labels;
      inst->node_taints = request.node_taints;
      out.launched.push_back(std::move(*inst));
    } catch (const ArmError& e) {
      const bool capacity = is_capacity_error(e);
      out.failures.push_back({key, count - i, e.code(), e.what(), capacity});
      if (capacity) {
        // The VM resource of a failed allocation may exist (provisioningState Failed): remove it
        // so it is neither listed as in flight nor left behind.
        try {
          arm_.call("DELETE", vms_path() + "/" + name +
                                  "?forceDeletion=true&api-version=" + options_.api_version);
        } catch (const ArmError&) {
          // Not found, or the next listing shows it failed and scale-down removes it.
        }
      }
      break;  // the rest of this request would fail the same way
    }
  }
  return out;
}

void AzureProvider::terminate(const std::vector<std::string>& instance_ids) {
  for (const auto& id : instance_ids) {
    try {
      // forceDeletion: a node fitscale removes is drained already; no graceful shutdown to wait.
      // The deletion is not waited for: the VM lists as shutting-down until it is gone.
      arm_.call("DELETE",
                vms_path() + "/" + id + "?forceDeletion=true&api-version=" + options_.api_version);
    } catch (const ArmError& e) {
      if (e.status() == 404) continue;  // gone already
      throw;
    }
  }
}

std::vector<Instance> AzureProvider::list_instances() {
  std::vector<Instance> out;
  std::string next = vms_path() + "?api-version=" + options_.api_version;
  for (int page = 0; !next.empty() && page < 1000; ++page) {
    const aws::HttpExchange answer = arm_.call("GET", next);
    const nlohmann::json j = nlohmann::json::parse(answer.response.body, nullptr, false);
    if (!j.is_object() || !j.contains("value") || !j["value"].is_array())
      throw ArmError(answer.response.status, "BadListResponse", "no \"value\" list in the answer");
    for (const auto& vm : j["value"]) {
      if (auto inst = instance_from_vm(vm, options_.vm.cluster_name)) {
        inst->provider = options_.name;
        out.push_back(std::move(*inst));
      }
    }
    next =
        j.contains("nextLink") && j["nextLink"].is_string() ? j["nextLink"].get<std::string>() : "";
  }
  return out;
}

}  // namespace fitscale::azure
