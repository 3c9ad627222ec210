#pragma once
// The budget gate's mutating admission webhook, as a pure function (issue 12): an AdmissionReview
// (admission.k8s.io/v1) in, the HTTP answer out. kube-apiserver sends one review per pod CREATE
// the MutatingWebhookConfiguration selects; the answer allows the pod and, when the gate applies
// (model/budget_gate.h), carries a JSONPatch that appends {"name": "fitscale.io/budget"} to
// spec.schedulingGates. Other gates are never touched, and a pod that has the gate already is
// not patched again (the webhook may be reinvoked). The server around it is cli/budget_gate_server.
#include <string>
#include <string_view>

#include "model/budget_gate.h"

namespace fitscale {

struct AdmissionAnswer {
  int status = 200;  // 400 for a body that is no AdmissionReview (there is no uid to answer)
  std::string content_type;  // application/json, or text/plain with an error
  std::string body;
  bool gated = false;  // the answer adds the gate (for the log and tests)
  std::string error;   // why a review was refused (400, or allowed=false), for the log
  std::string pod;     // "ns/name" (or "ns/generateName*") when known, for the log
};

// Never throws: any body gets an answer. A body that is not an AdmissionReview gets 400 with a
// one-line reason; a review whose pod cannot be read gets allowed=false with that reason (the
// API server then refuses the pod, as it would a malformed one); a review of anything but a pod
// CREATE is allowed unchanged.
AdmissionAnswer review_budget_gate(std::string_view body, const BudgetGateScope& scope);

}  // namespace fitscale
