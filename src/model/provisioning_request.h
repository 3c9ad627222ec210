#pragma once
// cluster-autoscaler's ProvisioningRequest (autoscaling.x-k8s.io/v1, also v1beta1): the contract
// Kueue's provisioning admission check speaks (docs/kueue.md). A request asks for capacity for
// podSets (count x PodTemplate); its provisioning class says how: check-capacity (does it fit on
// what exists now?) or best-effort-atomic-scale-up (launch all its nodes or none). Conditions
// and their reasons follow cluster-autoscaler's (cluster-autoscaler/provisioningrequest/
// conditions), so Kueue reads fitscale's answers as it reads cluster-autoscaler's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/pod.h"
#include "model/time.h"

namespace fitscale {

namespace provreq {
inline constexpr std::string_view kCheckCapacityClass = "check-capacity.autoscaling.x-k8s.io";
inline constexpr std::string_view kAtomicScaleUpClass =
    "best-effort-atomic-scale-up.autoscaling.x-k8s.io";
// Pods that use a request's capacity name it in this annotation (or the older one).
inline constexpr std::string_view kConsumeAnnotation =
    "autoscaling.x-k8s.io/consume-provisioning-request";
inline constexpr std::string_view kOldConsumeAnnotation =
    "cluster-autoscaler.kubernetes.io/consume-provisioning-request";

// Condition types (autoscaling.x-k8s.io/v1 types.go).
inline constexpr std::string_view kAccepted = "Accepted";
inline constexpr std::string_view kProvisioned = "Provisioned";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kBookingExpired = "BookingExpired";
inline constexpr std::string_view kCapacityRevoked = "CapacityRevoked";

// How long found or provisioned capacity stays booked for the request's pods (cluster-
// autoscaler's default reservation time), and how long a request that never got capacity lives.
inline constexpr Seconds kBookingSeconds = Seconds{10} * 60;
inline constexpr Seconds kExpirySeconds = Seconds{7} * 24 * 3600;
}  // namespace provreq

enum class ProvisioningClass { CheckCapacity, AtomicScaleUp, Unsupported };

struct RequestCondition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  Time last_transition = 0;
  std::int64_t observed_generation = 0;
};

struct PodSetRef {
  std::string template_name;  // podTemplateRef.name, in the request's namespace
  std::int64_t count = 1;
};

struct ProvisioningRequest {
  std::string ns;
  std::string name;
  std::string uid;
  std::int64_t generation = 0;
  Time created = 0;
  std::string class_name;  // spec.provisioningClassName
  std::vector<PodSetRef> pod_sets;
  std::map<std::string, std::string> parameters;
  std::vector<RequestCondition> conditions;

  std::string key() const { return ns + "/" + name; }
  ProvisioningClass provisioning_class() const;
  const RequestCondition* condition(std::string_view type) const;
  bool is_true(std::string_view type) const;
  std::int64_t pod_count() const;
};

// The pods a request stands for: pod set by pod set, `count` copies of its template (a Pod
// decoded from the PodTemplate's template). Names cannot clash with real pods (they hold a ':',
// which no pod name may): "<request>:<pod set>:<n>". They wait for capacity in the request's
// namespace (its budgets apply), tolerate what the ExtendedResourceToleration admission plugin
// will make the real pods tolerate, are bare pods (batch: never evicted), and for the atomic class
// are one gang, so their nodes are launched together or not at all. Throws InputError naming a
// pod set whose template is missing from `templates` (keyed by template name).
std::vector<Pod> request_pods(const ProvisioningRequest& r,
                              const std::map<std::string, Pod>& templates);

// The request a pod of request_pods stands for, from its name ("" for a real pod).
std::string request_of_pod_name(std::string_view pod_name);

// The request a real pod consumes (its consume annotation, either key), or "".
std::string consumed_request(const Pod& pod);

// The parameters a class honours; any other is refused by name (Failed, ParameterNotSupported).
// check-capacity: noRetry ("true"/"false"); atomic: ValidUntilSeconds (whole seconds).
std::optional<std::string> unsupported_parameter(const ProvisioningRequest& r);

}  // namespace fitscale
