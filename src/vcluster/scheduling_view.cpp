#include "vcluster/scheduling_view.h"

#include "kube/decode.h"

namespace fitscale::vcluster {

Pod pod_for_scheduling(const nlohmann::json& pod, const std::vector<std::string>& gpu_models) {
  return decode_pod_json(pod.dump(), gpu_models);
}

Node node_for_scheduling(const nlohmann::json& node, const std::vector<std::string>& gpu_models) {
  return decode_node_json(node.dump(), gpu_models);
}

bool node_is_ready(const nlohmann::json& node) {
  auto st = node.find("status");
  if (st == node.end() || !st->is_object() || !st->contains("conditions")) return false;
  for (const auto& c : (*st)["conditions"]) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace fitscale::vcluster
