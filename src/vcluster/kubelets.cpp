#include "vcluster/kubelets.h"

#include <fmt/format.h>

#include <set>

#include "model/error.h"
#include "model/labels.h"
#include "model/time.h"
#include "vcluster/api_error.h"
#include "vcluster/events.h"
#include "vcluster/object_meta.h"
#include "vcluster/scheduling_view.h"

namespace fitscale::vcluster {
namespace {

nlohmann::json container_statuses(const nlohmann::json& pod, const nlohmann::json& state,
                                  bool ready) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : pod["spec"].value("containers", nlohmann::json::array())) {
    out.push_back({{"name", c.value("name", "")},
                   {"image", c.value("image", "")},
                   {"imageID", ""},
                   {"ready", ready},
                   {"restartCount", 0},
                   {"started", ready},
                   {"state", state}});
  }
  return out;
}

void finish(nlohmann::json& pod, const std::string& phase, const std::string& reason,
            const std::string& message, const std::string& now) {
  const int exit_code = phase == "Succeeded" ? 0 : 1;
  const std::string started = string_at(pod, nlohmann::json::json_pointer("/status/startTime"));
  pod["status"]["phase"] = phase;
  if (!reason.empty()) pod["status"]["reason"] = reason;
  if (!message.empty()) pod["status"]["message"] = message;
  pod["status"]["containerStatuses"] =
      container_statuses(pod,
                         {{"terminated",
                           {{"exitCode", exit_code},
                            {"reason", phase == "Succeeded" ? "Completed" : "Error"},
                            {"startedAt", started.empty() ? now : started},
                            {"finishedAt", now}}}},
                         false);
  pod["status"]["conditions"] = {{{"type", "PodScheduled"},
                                  {"status", "True"},
                                  {"lastTransitionTime", started.empty() ? now : started}},
                                 {{"type", "Ready"},
                                  {"status", "False"},
                                  {"reason", "PodCompleted"},
                                  {"lastTransitionTime", now}}};
}

}  // namespace

KubeletPass run_kubelets(ObjectStore& store, const Clock& clock) {
  KubeletPass pass;
  const Time now_t = clock.now();
  const std::string now = format_rfc3339(now_t);
  std::set<std::string> nodes;
  std::set<std::string> dead;  // NotReady: their kubelet is gone and does nothing
  for (const auto& n : store.list_shared("nodes").items) {
    nodes.insert(name_of(*n));
    if (!node_is_ready(*n)) dead.insert(name_of(*n));
  }

  for (const auto& shared : store.list_shared("pods").items) {
    const nlohmann::json& pod = *shared;
    const std::string node = pod_node(pod);
    const std::string ns = namespace_of(pod);
    const std::string name = name_of(pod);
    const std::string phase = pod_phase(pod);
    try {
      // A node whose Ready condition is False or Unknown (set through the status subresource,
      // as a node lifecycle controller does when a kubelet stops posting) has no kubelet: its
      // pods neither start, finish nor go away, and deleted ones stay Terminating.
      if (!node.empty() && dead.count(node) != 0) continue;
      if (is_terminating(pod)) {
        store.remove("pods", ns, name);
        ++pass.removed;
        continue;
      }
      if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
      if (!nodes.count(node)) {
        store.mutate("pods", ns, name, [&](nlohmann::json& p) {
          finish(p, "Failed", "NodeLost", "node " + node + " which was running the pod is gone",
                 now);
        });
        record_event(store, clock, pod, "Warning", "NodeLost",
                     fmt::format("node {} which was running pod {} is gone", node, name),
                     "kubelet");
        ++pass.failed;
        continue;
      }
      if (phase != "Running") {
        store.mutate("pods", ns, name, [&](nlohmann::json& p) {
          p["status"]["phase"] = "Running";
          p["status"]["startTime"] = now;
          p["status"]["hostIP"] = "10.0.0.1";
          p["status"]["podIP"] = "10.1.0.1";
          p["status"]["containerStatuses"] =
              container_statuses(p, {{"running", {{"startedAt", now}}}}, true);
          p["status"]["conditions"] = {
              {{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", now}},
              {{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", now}},
              {{"type", "ContainersReady"}, {"status", "True"}, {"lastTransitionTime", now}},
              {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", now}}};
        });
        record_event(store, clock, pod, "Normal", "Started",
                     "Started simulated containers on " + node, "kubelet");
        ++pass.started;
        continue;
      }
      const std::string started_text =
          string_at(pod, nlohmann::json::json_pointer("/status/startTime"));
      const Time started = started_text.empty() ? now_t : parse_rfc3339(started_text);
      const Seconds ran = now_t - started;
      const auto& spec = pod["spec"];
      if (spec.contains("activeDeadlineSeconds") && spec["activeDeadlineSeconds"].is_number() &&
          ran >= spec["activeDeadlineSeconds"].get<Seconds>()) {
        store.mutate("pods", ns, name, [&](nlohmann::json& p) {
          finish(p, "Failed", "DeadlineExceeded",
                 "Pod was active on the node longer than the specified deadline", now);
        });
        record_event(store, clock, pod, "Warning", "DeadlineExceeded",
                     "Pod was active on the node longer than the specified deadline", "kubelet");
        ++pass.failed;
        continue;
      }
      const std::string duration = annotation_of(pod, std::string(annotation::kSimDuration));
      if (duration.empty()) continue;  // runs until deleted
      Seconds d = 0;
      try {
        d = parse_duration(duration);
      } catch (const InputError& e) {
        store.mutate("pods", ns, name, [&](nlohmann::json& p) {
          finish(p, "Failed", "BadSimDuration",
                 std::string("annotation fitscale.io/sim-duration: ") + e.what(), now);
        });
        ++pass.failed;
        continue;
      }
      if (ran >= d) {
        store.mutate("pods", ns, name,
                     [&](nlohmann::json& p) { finish(p, "Succeeded", "", "", now); });
        record_event(
            store, clock, pod, "Normal", "Completed",
            fmt::format("simulated containers ran for {} and exited 0", format_duration(d)),
            "kubelet");
        ++pass.succeeded;
      }
    } catch (const ApiError&) {
      // The pod was deleted between the list and the write: nothing left to do for it.
    }
  }
  return pass;
}

}  // namespace fitscale::vcluster
