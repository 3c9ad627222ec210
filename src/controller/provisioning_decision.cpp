#include "controller/provisioning_decision.h"

#include <charconv>

namespace fitscale {
namespace {

// cluster-autoscaler's reasons and messages (provisioningrequest/conditions/conditions.go and
// its orchestrators), so that Kueue and people read the same words from either autoscaler.
constexpr const char* kAcceptedReason = "Accepted";
constexpr const char* kAcceptedMsg = "ProvisioningRequest is accepted by ClusterAutoscaler";
constexpr const char* kCapacityIsFound = "CapacityIsFound";
constexpr const char* kCapacityIsProvisioned = "CapacityIsProvisioned";
constexpr const char* kCapacityFoundMsg = "Capacity is found in the cluster";
constexpr const char* kCapacityIsNotFound = "CapacityIsNotFound";
constexpr const char* kNotFoundRetryMsg = "Capacity is not found, CA will try to find it later.";
constexpr const char* kNotFoundNoRetryMsg = "CA could not find requested capacity";
constexpr const char* kFailedToCreatePods = "FailedToCreatePods";
constexpr const char* kBookingExpiredReason = "CapacityReservationTimeExpired";
constexpr const char* kBookingExpiredMsg = "Capacity reservation time is expired";
constexpr const char* kExpiredReason = "Expired";
constexpr const char* kExpiredMsg = "ProvisioningRequest is expired";

class Conditions {
 public:
  Conditions(const ProvisioningRequest& r, Time now) : r_(r), now_(now), list_(r.conditions) {}

  // metav1.Condition rules: lastTransitionTime moves only when the status does.
  void set(std::string_view type, const char* status, const std::string& reason,
           const std::string& message) {
    for (RequestCondition& c : list_) {
      if (c.type != type) continue;
      if (c.status == status && c.reason == reason && c.message == message &&
          c.observed_generation == r_.generation)
        return;
      if (c.status != status) c.last_transition = now_;
      c.status = status;
      c.reason = reason;
      c.message = message;
      c.observed_generation = r_.generation;
      changed_ = true;
      return;
    }
    list_.push_back({std::string(type), status, reason, message, now_, r_.generation});
    changed_ = true;
  }

  RequestDecision done(RequestAction action) {
    return RequestDecision{std::move(list_), changed_, action};
  }

 private:
  const ProvisioningRequest& r_;
  Time now_;
  std::vector<RequestCondition> list_;
  bool changed_ = false;
};

Seconds valid_for(const ProvisioningRequest& r) {
  auto it = r.parameters.find("ValidUntilSeconds");
  if (it == r.parameters.end()) return provreq::kExpirySeconds;
  Seconds n = 0;
  std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
  return n > 0 ? n : provreq::kExpirySeconds;
}

std::string with_reason(const char* text, const std::optional<PlanVerdict>& v) {
  if (!v || v->message.empty()) return text;
  return std::string(text) + " " + v->message;
}

}  // namespace

RequestDecision decide_request(const ProvisioningRequest& r, const RequestObservation& seen,
                               Time now) {
  Conditions c(r, now);
  // Classes fitscale does not serve are left alone, as cluster-autoscaler leaves them: another
  // provisioner may own them.
  if (r.provisioning_class() == ProvisioningClass::Unsupported)
    return c.done(RequestAction::Nothing);
  if (r.is_true(provreq::kFailed) || r.is_true(provreq::kBookingExpired) ||
      r.is_true(provreq::kCapacityRevoked))
    return c.done(RequestAction::Nothing);
  c.set(provreq::kAccepted, "True", kAcceptedReason, kAcceptedMsg);

  if (auto bad = unsupported_parameter(r)) {
    c.set(provreq::kFailed, "True", "ParameterNotSupported", *bad);
    return c.done(RequestAction::Nothing);
  }
  if (!seen.pods_known) {
    if (now - r.created < kTemplateGraceSeconds) return c.done(RequestAction::Nothing);
    c.set(provreq::kFailed, "True", kFailedToCreatePods,
          "Provisioning Request's pods cannot be created: " + seen.pods_error);
    return c.done(RequestAction::Nothing);
  }

  if (const RequestCondition* p = r.condition(provreq::kProvisioned); p && p->status == "True") {
    if (now >= p->last_transition + provreq::kBookingSeconds) {
      c.set(provreq::kBookingExpired, "True", kBookingExpiredReason, kBookingExpiredMsg);
      return c.done(RequestAction::Nothing);
    }
    if (!seen.fits_existing) {
      c.set(provreq::kCapacityRevoked, "True", "CapacityRevoked",
            "The capacity booked for the request is gone (its nodes were removed or taken).");
      return c.done(RequestAction::Nothing);
    }
    return c.done(RequestAction::Book);
  }

  if (now >= r.created + valid_for(r)) {
    c.set(provreq::kFailed, "True", kExpiredReason, kExpiredMsg);
    return c.done(RequestAction::Nothing);
  }
  if (seen.fits_existing) {
    c.set(provreq::kProvisioned, "True",
          seen.launched_for_it ? kCapacityIsProvisioned : kCapacityIsFound, kCapacityFoundMsg);
    return c.done(RequestAction::Book);
  }
  if (r.provisioning_class() == ProvisioningClass::CheckCapacity) {
    const auto no_retry = r.parameters.find("noRetry");
    if (no_retry != r.parameters.end() && no_retry->second == "true") {
      c.set(provreq::kFailed, "True", kCapacityIsNotFound, kNotFoundNoRetryMsg);
    } else {
      c.set(provreq::kProvisioned, "False", kCapacityIsNotFound, kNotFoundRetryMsg);
    }
    return c.done(RequestAction::Nothing);
  }
  // Atomic: its pods are one gang the controller plans like any other.
  if (seen.verdict && seen.verdict->reason == "BudgetRefused") {
    c.set(provreq::kFailed, "True", "BudgetRefused", seen.verdict->message);
    return c.done(RequestAction::Nothing);
  }
  if (seen.verdict && seen.verdict->reason != "TriggeredScaleUp" && !seen.launched_for_it) {
    c.set(provreq::kProvisioned, "False", kCapacityIsNotFound,
          with_reason(kNotFoundRetryMsg, seen.verdict));
  }
  return c.done(RequestAction::AskForCapacity);
}

}  // namespace fitscale
