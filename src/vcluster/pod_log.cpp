#include "vcluster/pod_log.h"

#include <utility>
#include <vector>

#include "model/labels.h"
#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

// The value of an environment variable as the container would see it: literal values and
// fieldRefs to the pod's annotations and name (what the Job controller injects).
std::string env_value(const nlohmann::json& pod, const nlohmann::json& env) {
  if (env.contains("value") && env["value"].is_string()) return env["value"];
  const auto ref = env.value("valueFrom", nlohmann::json::object())
                       .value("fieldRef", nlohmann::json::object())
                       .value("fieldPath", "");
  const std::string prefix = "metadata.annotations['";
  if (ref.rfind(prefix, 0) == 0 && ref.size() > prefix.size() + 2) {
    return annotation_of(pod, ref.substr(prefix.size(), ref.size() - prefix.size() - 2));
  }
  if (ref == "metadata.name") return name_of(pod);
  if (ref == "metadata.namespace") return namespace_of(pod);
  if (ref == "spec.nodeName") return pod_node(pod);
  return "";
}

}  // namespace

std::string pod_log_text(const nlohmann::json& pod, const PodLogOptions& options) {
  const std::string pod_name = name_of(pod);
  const auto containers =
      pod.value("spec", nlohmann::json::object()).value("containers", nlohmann::json::array());
  std::string wanted = options.container;
  if (wanted.empty()) {
    if (containers.size() != 1) {
      std::string names;
      for (const auto& c : containers) names += (names.empty() ? "" : " ") + c.value("name", "");
      throw bad_request("a container name must be specified for pod " + pod_name +
                        ", choose one of: [" + names + "]");
    }
    wanted = containers[0].value("name", "");
  }
  const nlohmann::json* container = nullptr;
  for (const auto& c : containers) {
    if (c.value("name", "") == wanted) container = &c;
  }
  if (container == nullptr) {
    throw bad_request("container " + wanted + " is not valid for pod " + pod_name);
  }
  nlohmann::json state;
  const auto statuses = pod.value("status", nlohmann::json::object())
                            .value("containerStatuses", nlohmann::json::array());
  for (const auto& s : statuses) {
    if (s.value("name", "") == wanted) state = s.value("state", nlohmann::json::object());
  }
  const nlohmann::json running =
      state.is_object() ? state.value("running", nlohmann::json()) : nlohmann::json();
  const nlohmann::json terminated =
      state.is_object() ? state.value("terminated", nlohmann::json()) : nlohmann::json();
  if (running.is_null() && terminated.is_null()) {
    throw bad_request("container \"" + wanted + "\" in pod \"" + pod_name +
                      "\" is waiting to start: ContainerCreating");
  }
  const std::string started =
      running.is_object() ? running.value("startedAt", "") : terminated.value("startedAt", "");
  std::vector<std::pair<std::string, std::string>> lines;  // (time, text)
  lines.emplace_back(started, "fitscale simulated container \"" + wanted + "\" (image " +
                                  container->value("image", "") + ") started on node " +
                                  pod_node(pod));
  for (const auto& env : container->value("env", nlohmann::json::array())) {
    if (!env.is_object() || !env.contains("name")) continue;
    lines.emplace_back(started, env.value("name", "") + "=" + env_value(pod, env));
  }
  const std::string duration = annotation_of(pod, std::string(annotation::kSimDuration));
  lines.emplace_back(started, duration.empty() ? std::string("running until deleted")
                                               : "running for " + duration + " (" +
                                                     std::string(annotation::kSimDuration) + ")");
  if (terminated.is_object()) {
    lines.emplace_back(terminated.value("finishedAt", ""),
                       "exited with code " + std::to_string(terminated.value("exitCode", 0)) +
                           " (" + terminated.value("reason", "") + ")");
  }
  std::size_t first = 0;
  if (options.tail_lines && *options.tail_lines >= 0 &&
      static_cast<std::size_t>(*options.tail_lines) < lines.size()) {
    first = lines.size() - static_cast<std::size_t>(*options.tail_lines);
  }
  std::string out;
  for (std::size_t i = first; i < lines.size(); ++i) {
    if (options.timestamps) out += lines[i].first + " ";
    out += lines[i].second + "\n";
  }
  return out;
}

}  // namespace fitscale::vcluster
