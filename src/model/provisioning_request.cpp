#include "model/provisioning_request.h"

#include <charconv>

#include "model/error.h"
#include "model/extended_resource_toleration.h"

namespace fitscale {

ProvisioningClass ProvisioningRequest::provisioning_class() const {
  if (class_name == provreq::kCheckCapacityClass) return ProvisioningClass::CheckCapacity;
  if (class_name == provreq::kAtomicScaleUpClass) return ProvisioningClass::AtomicScaleUp;
  return ProvisioningClass::Unsupported;
}

const RequestCondition* ProvisioningRequest::condition(std::string_view type) const {
  for (const RequestCondition& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool ProvisioningRequest::is_true(std::string_view type) const {
  const RequestCondition* c = condition(type);
  return c != nullptr && c->status == "True";
}

std::int64_t ProvisioningRequest::pod_count() const {
  std::int64_t n = 0;
  for (const PodSetRef& s : pod_sets) n += s.count;
  return n;
}

std::vector<Pod> request_pods(const ProvisioningRequest& r,
                              const std::map<std::string, Pod>& templates) {
  std::vector<Pod> out;
  out.reserve(static_cast<std::size_t>(r.pod_count()));
  const bool atomic = r.provisioning_class() == ProvisioningClass::AtomicScaleUp;
  for (std::size_t s = 0; s < r.pod_sets.size(); ++s) {
    const PodSetRef& set = r.pod_sets[s];
    auto it = templates.find(set.template_name);
    if (it == templates.end()) {
      throw InputError("spec.podSets[" + std::to_string(s) + "].podTemplateRef.name: PodTemplate " +
                       r.ns + "/" + set.template_name + " not found");
    }
    for (std::int64_t i = 0; i < set.count; ++i) {
      Pod p = it->second;
      p.ns = r.ns;
      p.name = r.name + ":" + std::to_string(s) + ":" + std::to_string(i);
      p.uid.clear();
      p.resource_version.clear();
      p.owner = {};
      p.node_name.clear();
      p.nominated_node.clear();
      p.phase = PodPhase::Pending;
      p.scheduling_gates.clear();
      p.scheduler_verdict = SchedulerVerdict::Unschedulable;
      p.terminating = false;
      p.created = r.created;
      p.started = 0;
      p.gang.reset();
      // The consuming pods will carry what the ExtendedResourceToleration admission plugin adds
      // (a template is no pod: nothing admitted it); plan for the pods as they will be.
      add_extended_resource_tolerations(p);
      if (atomic) p.gang = Gang{"provisioning-request:" + r.name, r.pod_count()};
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::string request_of_pod_name(std::string_view pod_name) {
  const auto colon = pod_name.find(':');
  if (colon == std::string_view::npos) return "";
  return std::string(pod_name.substr(0, colon));
}

std::string consumed_request(const Pod& pod) {
  for (std::string_view key : {provreq::kConsumeAnnotation, provreq::kOldConsumeAnnotation}) {
    auto it = pod.annotations.find(key);
    if (it != pod.annotations.end() && !it->second.empty()) return it->second;
  }
  return "";
}

std::optional<std::string> unsupported_parameter(const ProvisioningRequest& r) {
  for (const auto& [key, value] : r.parameters) {
    if (r.provisioning_class() == ProvisioningClass::CheckCapacity && key == "noRetry") {
      if (value == "true" || value == "false") continue;
      return "parameter noRetry: supported values are \"true\" and \"false\", got \"" + value +
             "\"";
    }
    if (r.provisioning_class() == ProvisioningClass::AtomicScaleUp && key == "ValidUntilSeconds") {
      std::int64_t n = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec == std::errc() && ptr == value.data() + value.size() && n > 0) continue;
      return "parameter ValidUntilSeconds: expected whole seconds > 0, got \"" + value + "\"";
    }
    return "parameter " + key + " is not supported for class " + r.class_name + " by fitscale";
  }
  return std::nullopt;
}

}  // namespace fitscale
