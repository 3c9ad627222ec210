#include "model/pod.h"

#include <algorithm>

#include "model/error.h"

namespace fitscale {
namespace {

constexpr std::string_view kOnDemand = "on-demand";
constexpr std::string_view kSpot = "spot";

bool is_capacity_key(std::string_view key) {
  return key == label::kCapacityType || key == label::kKarpenterCapacityType;
}

// True when this requirement lets only on-demand capacity through.
bool pins_on_demand(const Requirement& r) {
  if (!is_capacity_key(r.key)) return false;
  if (r.op == SelectorOp::In) {
    return !r.values.empty() && std::all_of(r.values.begin(), r.values.end(),
                                            [](const std::string& v) { return v == kOnDemand; });
  }
  // NotIn [spot] leaves on-demand as the only capacity type there is.
  if (r.op == SelectorOp::NotIn) {
    return std::find(r.values.begin(), r.values.end(), kSpot) != r.values.end();
  }
  return false;
}

std::string_view annotation_value(const Annotations& a, std::string_view key) {
  auto it = a.find(key);
  return it == a.end() ? std::string_view{} : std::string_view{it->second};
}

}  // namespace

const char* to_string(PodPhase p) {
  switch (p) {
    case PodPhase::Pending:
      return "Pending";
    case PodPhase::Running:
      return "Running";
    case PodPhase::Succeeded:
      return "Succeeded";
    case PodPhase::Failed:
      return "Failed";
    case PodPhase::Unknown:
      return "Unknown";
  }
  return "Unknown";
}

const char* to_string(CapacityType c) {
  switch (c) {
    case CapacityType::Spot:
      return "spot";
    case CapacityType::OnDemand:
      return "on-demand";
    case CapacityType::Reserved:
      return "reserved";
  }
  return "on-demand";
}

const std::string* Pod::capacity_node() const {
  if (holds_resources()) return &node_name;
  if (node_name.empty() && !nominated_node.empty() && !finished() && !terminating)
    return &nominated_node;
  return nullptr;
}

bool Pod::pins_node() const { return metered() && (is_batch() || do_not_disrupt()); }

bool Pod::metered() const { return holds_resources() && !is_daemon() && !is_mirror(); }

bool Pod::evictable_service() const {
  return metered() && !terminating && !is_batch() && !do_not_disrupt();
}

bool Pod::waits_for_scheduler() const {
  return node_name.empty() && phase == PodPhase::Pending && !terminating && !is_daemon() &&
         !is_mirror() && !scheduling_gated();
}

bool Pod::unschedulable() const {
  return waits_for_scheduler() && nominated_node.empty() &&
         scheduler_verdict == SchedulerVerdict::Unschedulable;
}

bool Pod::held_by_budget_gate() const {
  return node_name.empty() && phase == PodPhase::Pending && !terminating && !is_daemon() &&
         !is_mirror() && nominated_node.empty() && scheduling_gates.size() == 1 &&
         scheduling_gates.front() == kBudgetGate;
}

bool Pod::do_not_disrupt() const {
  return annotation_value(annotations, annotation::kDoNotDisrupt) == "true" ||
         annotation_value(annotations, annotation::kKarpenterDoNotDisrupt) == "true" ||
         annotation_value(annotations, annotation::kSafeToEvict) == "false";
}

bool Pod::requires_on_demand() const {
  for (const auto& [k, v] : node_selector) {
    if (is_capacity_key(k) && v == kOnDemand) return true;
  }
  if (required_node_affinity.empty()) return false;
  // Terms are ORed: on-demand is required only when no term would admit spot.
  return std::all_of(
      required_node_affinity.begin(), required_node_affinity.end(), [](const NodeSelectorTerm& t) {
        return std::any_of(t.requirements.begin(), t.requirements.end(), pins_on_demand);
      });
}

std::optional<Seconds> Pod::declared_max_runtime() const {
  if (active_deadline_s) return active_deadline_s;
  auto it = annotations.find(annotation::kMaxRuntime);
  if (it == annotations.end()) return std::nullopt;
  try {
    return parse_duration(it->second);
  } catch (const InputError& e) {
    throw InputError("pod " + key() + ": annotation " + std::string(annotation::kMaxRuntime) +
                     ": " + e.what());
  }
}

std::string Pod::job_key() const {
  if (gang) return gang->name;
  if (auto it = labels.find(label::kJob); it != labels.end() && !it->second.empty())
    return it->second;
  if (owner.kind == "Job" && !owner.name.empty()) return owner.name;
  return name;
}

}  // namespace fitscale
