// The pods/eviction and pods/binding subresources of RestApi: eviction is where
// PodDisruptionBudgets are enforced (429 when the budget allows no disruption), binding is how
// an external scheduler assigns a pod to a node, log is the simulated container's output
// (pod_log.h).
#include <fmt/format.h>

#include "model/time.h"
#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"
#include "vcluster/pod_log.h"
#include "vcluster/rest_api.h"
#include "vcluster/selectors.h"

namespace fitscale::vcluster {

ApiResponse RestApi::evict(const ApiRequest& req) {
  const std::string& ns = req.path.ns;
  const std::string& name = req.path.name;
  std::lock_guard lock(eviction_mu_);
  auto pod = store_.get("pods", ns, name);
  const std::string phase = pod_phase(pod);
  const bool counts_for_budget = phase == "Running" && !is_terminating(pod);
  if (counts_for_budget) {
    const Labels labels = labels_of(pod);
    for (const auto& pdb : store_.list("poddisruptionbudgets", ns).items) {
      const auto sel_json =
          pdb.value("spec", nlohmann::json::object()).value("selector", nlohmann::json());
      if (sel_json.is_null()) continue;
      if (!matches(label_selector_from_json(sel_json), labels)) continue;
      const auto& st = pdb.value("status", nlohmann::json::object());
      const long allowed = st.value("disruptionsAllowed", 0L);
      if (allowed <= 0) {
        ApiError e(429, "TooManyRequests",
                   "Cannot evict pod as it would violate the pod's disruption budget.");
        auto body = status_json(e, "pods", name);
        body["details"]["causes"] = {
            {{"reason", "DisruptionBudget"},
             {"message",
              fmt::format("The disruption budget {} needs {} healthy pods and has {} currently",
                          name_of(pdb), st.value("desiredHealthy", 0L),
                          st.value("currentHealthy", 0L))}}};
        return {429, body};
      }
      // Spend one disruption now, so a second eviction before the budget is recomputed is judged
      // against what is left.
      store_.mutate("poddisruptionbudgets", ns, name_of(pdb), [&](nlohmann::json& p) {
        p["status"]["disruptionsAllowed"] = p["status"].value("disruptionsAllowed", 0L) - 1;
        p["status"]["disruptedPods"][name] = format_rfc3339(clock_.now());
      });
    }
  }
  std::optional<long> grace;
  if (!req.body.empty()) {
    auto body = parse_body(req.body);
    if (body.contains("deleteOptions") && body["deleteOptions"].contains("gracePeriodSeconds")) {
      grace = body["deleteOptions"]["gracePeriodSeconds"].get<long>();
    }
  }
  delete_object(resource_by_plural("pods"), ns, name, grace);
  return {201, success_status()};
}

ApiResponse RestApi::bind(const ApiRequest& req) {
  auto body = parse_body(req.body);
  const std::string node = body.value("target", nlohmann::json::object()).value("name", "");
  if (node.empty()) throw ApiError(422, "Invalid", "Binding: target.name: Required value");
  store_.mutate("pods", req.path.ns, req.path.name, [&](nlohmann::json& pod) {
    const std::string current = pod_node(pod);
    if (!current.empty()) {
      throw ApiError(409, "Conflict",
                     "pod " + req.path.name + " is already assigned to node \"" + current + "\"");
    }
    pod["spec"]["nodeName"] = node;
  });
  return {201, success_status()};
}

ApiResponse RestApi::pod_log(const ApiRequest& req) {
  PodLogOptions options;
  auto q = [&](const char* k) {
    auto it = req.query.find(k);
    return it == req.query.end() ? std::string() : it->second;
  };
  options.container = q("container");
  options.timestamps = q("timestamps") == "true" || q("timestamps") == "1";
  if (const std::string t = q("tailLines"); !t.empty()) {
    try {
      options.tail_lines = std::stol(t);
    } catch (const std::exception&) {
      throw bad_request("invalid tailLines \"" + t + "\"");
    }
  }
  // follow=true gets what there is and ends: a simulated container prints nothing later.
  return {200, nullptr, pod_log_text(store_.get("pods", req.path.ns, req.path.name), options)};
}

}  // namespace fitscale::vcluster
