#pragma once
// What a ProvisioningRequest's conditions become, from what fitscale saw this loop: one pure
// function, so every rule of docs/kueue.md is in one place and tested without a cluster.
#include <optional>
#include <string>
#include <vector>

#include "model/provisioning_request.h"

namespace fitscale {

// What the controller last said about the request's pods (an Event it recorded on them).
struct PlanVerdict {
  std::string
      reason;  // "TriggeredScaleUp", "BudgetRefused", "BudgetWait", "NotTriggerScaleUp", ...
  std::string message;
};

struct RequestObservation {
  // The request's pods could be built from its PodTemplates; else why not.
  bool pods_known = true;
  std::string pods_error;
  // Every pod not yet consumed fits on Ready nodes now, next to all other pods and bookings.
  bool fits_existing = false;
  std::optional<PlanVerdict> verdict;
  bool launched_for_it = false;  // the controller launched nodes for its pods
};

enum class RequestAction {
  Nothing,         // ignored, finished, or waiting for its templates
  Book,            // hold its capacity (its pods bound to the nodes found for them)
  AskForCapacity,  // its pods wait as one gang for the controller to launch nodes
};

struct RequestDecision {
  std::vector<RequestCondition> conditions;
  bool changed = false;
  RequestAction action = RequestAction::Nothing;
};

// Grace for a request whose PodTemplate is not seen yet (Kueue creates the template first, but
// the two informers may see them in either order).
inline constexpr Seconds kTemplateGraceSeconds = 60;

RequestDecision decide_request(const ProvisioningRequest& r, const RequestObservation& seen,
                               Time now);

}  // namespace fitscale
