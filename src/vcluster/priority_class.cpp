#include "vcluster/priority_class.h"

#include <optional>

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

constexpr std::int64_t kHighestUserPriority = 1000000000;

ApiError invalid(const nlohmann::json& pc, const std::string& why) {
  return ApiError(422, "Invalid",
                  "PriorityClass.scheduling.k8s.io \"" + name_of(pc) + "\" is invalid: " + why);
}

ApiError forbidden(const nlohmann::json& pod, const std::string& why) {
  return ApiError(403, "Forbidden", "pods \"" + name_of(pod) + "\" is forbidden: " + why);
}

std::optional<nlohmann::json> global_default(const ObjectStore& store) {
  std::optional<nlohmann::json> best;
  for (auto& pc : store.list("priorityclasses").items) {
    if (!pc.value("globalDefault", false) || !pc["value"].is_number_integer()) continue;
    // Several defaults (possible only through races): the highest value wins, as in kube.
    if (!best || (*best)["value"].get<std::int64_t>() < pc["value"].get<std::int64_t>())
      best = std::move(pc);
  }
  return best;
}

}  // namespace

void ensure_system_priority_classes(ObjectStore& store) {
  for (const auto& [name, value] :
       {std::pair<const char*, std::int64_t>{"system-cluster-critical", 2000000000},
        {"system-node-critical", 2000001000}}) {
    if (store.find("priorityclasses", "", name)) continue;
    try {
      store.create("priorityclasses", "",
                   {{"apiVersion", "scheduling.k8s.io/v1"},
                    {"kind", "PriorityClass"},
                    {"metadata", {{"name", name}}},
                    {"value", value},
                    {"preemptionPolicy", "PreemptLowerPriority"},
                    {"description",
                     "Used for system critical pods that must run in the cluster, "
                     "but can be moved to another node if necessary."}});
    } catch (const ApiError&) {
      // Created concurrently.
    }
  }
}

void admit_priority_class(const ObjectStore& store, const nlohmann::json& pc) {
  if (!pc.contains("value")) throw invalid(pc, "value: Required value");
  if (!pc["value"].is_number_integer())
    throw invalid(pc, "value: Invalid value: must be an integer");
  const auto value = pc["value"].get<std::int64_t>();
  if (value > kHighestUserPriority && name_of(pc).rfind("system-", 0) != 0) {
    throw invalid(pc, "value: Forbidden: maximum allowed value of a user defined priority is " +
                          std::to_string(kHighestUserPriority));
  }
  if (pc.value("globalDefault", false)) {
    if (auto other = global_default(store); other && name_of(*other) != name_of(pc)) {
      throw invalid(pc, "globalDefault: Forbidden: PriorityClass \"" + name_of(*other) +
                            "\" is already marked as default. Only one default can exist");
    }
  }
  if (pc.contains("preemptionPolicy")) {
    const auto& p = pc["preemptionPolicy"];
    if (!p.is_string() || (p != "PreemptLowerPriority" && p != "Never")) {
      throw invalid(pc, "preemptionPolicy: Unsupported value: " + p.dump() +
                            ": supported values: \"Never\", \"PreemptLowerPriority\"");
    }
  }
}

void resolve_pod_priority(const ObjectStore& store, nlohmann::json& pod) {
  auto& spec = pod["spec"];
  if (!spec.is_object()) return;  // admission reports the missing spec
  std::optional<nlohmann::json> pc;
  const std::string name = spec.value("priorityClassName", "");
  if (!name.empty()) {
    pc = store.find("priorityclasses", "", name);
    if (!pc) throw forbidden(pod, "no PriorityClass with name " + name + " was found");
  } else {
    pc = global_default(store);
  }
  const std::int64_t priority = pc ? (*pc)["value"].get<std::int64_t>() : 0;
  if (spec.contains("priority") &&
      (!spec["priority"].is_number_integer() || spec["priority"].get<std::int64_t>() != priority)) {
    throw forbidden(pod, "the integer value of priority (" + spec["priority"].dump() +
                             ") must not be provided in pod spec; priority admission controller "
                             "computed " +
                             std::to_string(priority) + " from the given PriorityClass name");
  }
  spec["priority"] = priority;
  if (pc) {
    spec["priorityClassName"] = name_of(*pc);
    if (!spec.contains("preemptionPolicy"))
      spec["preemptionPolicy"] = pc->value("preemptionPolicy", "PreemptLowerPriority");
  }
}

}  // namespace fitscale::vcluster
