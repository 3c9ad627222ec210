#include "vcluster/pdb_controller.h"

#include <set>

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"
#include "vcluster/selectors.h"

namespace fitscale::vcluster {

std::int64_t scaled_budget_value(const nlohmann::json& v, std::int64_t expected) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (!s.empty() && s.back() == '%') {
      try {
        const std::int64_t pct = std::stoll(s.substr(0, s.size() - 1));
        return (pct * expected + 99) / 100;
      } catch (const std::exception&) {
      }
    } else {
      try {
        return std::stoll(s);
      } catch (const std::exception&) {
      }
    }
  }
  throw ApiError(422, "Invalid", "invalid PodDisruptionBudget value " + v.dump());
}

void update_disruption_budgets(ObjectStore& store) {
  for (const auto& pdb : store.list("poddisruptionbudgets").items) {
    const std::string ns = namespace_of(pdb);
    const auto spec = pdb.value("spec", nlohmann::json::object());
    // policy/v1: an empty (or missing) selector selects every pod in the namespace.
    const LabelSelector selector =
        label_selector_from_json(spec.value("selector", nlohmann::json::object()));
    std::int64_t expected = 0, healthy = 0;
    std::set<std::string> present;
    for (const auto& shared : store.list_shared("pods", ns).items) {
      const nlohmann::json& pod = *shared;
      if (!matches(selector, labels_of(pod))) continue;
      present.insert(name_of(pod));
      const std::string phase = pod_phase(pod);
      if (phase == "Succeeded" || phase == "Failed") continue;
      ++expected;
      if (phase == "Running" && !is_terminating(pod)) ++healthy;
    }
    std::int64_t desired = expected;
    try {
      if (spec.contains("minAvailable")) {
        desired = scaled_budget_value(spec["minAvailable"], expected);
      } else if (spec.contains("maxUnavailable")) {
        desired = std::max<std::int64_t>(
            0, expected - scaled_budget_value(spec["maxUnavailable"], expected));
      }
    } catch (const ApiError&) {
      desired = expected;  // an unreadable budget protects everything rather than nothing
    }
    const std::int64_t allowed = std::max<std::int64_t>(0, healthy - desired);
    try {
      store.mutate("poddisruptionbudgets", ns, name_of(pdb), [&](nlohmann::json& p) {
        auto& st = p["status"];
        st["expectedPods"] = expected;
        st["currentHealthy"] = healthy;
        st["desiredHealthy"] = desired;
        st["disruptionsAllowed"] = allowed;
        st["observedGeneration"] = p["metadata"].value("generation", 1);
        if (st.contains("disruptedPods")) {
          for (auto it = st["disruptedPods"].begin(); it != st["disruptedPods"].end();) {
            it = present.count(it.key()) ? std::next(it) : st["disruptedPods"].erase(it);
          }
          if (st["disruptedPods"].empty()) st.erase("disruptedPods");
        }
        const bool ok = allowed > 0;
        st["conditions"] = {{{"type", "DisruptionAllowed"},
                             {"status", ok ? "True" : "False"},
                             {"reason", ok ? "SufficientPods" : "InsufficientPods"},
                             {"message", ""},
                             {"observedGeneration", p["metadata"].value("generation", 1)},
                             {"lastTransitionTime", p["metadata"].value("creationTimestamp", "")}}};
      });
    } catch (const ApiError&) {
    }
  }
}

}  // namespace fitscale::vcluster
