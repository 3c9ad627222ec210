// The conditions of a ProvisioningRequest, rule by rule (docs/kueue.md), with
// cluster-autoscaler's reasons and messages.
#include "controller/provisioning_decision.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

constexpr Time kNow = 1'780'000'000;

ProvisioningRequest request(std::string_view cls) {
  ProvisioningRequest r;
  r.ns = "team-a";
  r.name = "job-1-prov-1";
  r.generation = 1;
  r.created = kNow - 30;
  r.class_name = std::string(cls);
  r.pod_sets = {{"ppt-job-1", 4}};
  return r;
}

const RequestCondition& cond(const RequestDecision& d, std::string_view type) {
  for (const auto& c : d.conditions)
    if (c.type == type) return c;
  throw std::runtime_error("no condition " + std::string(type));
}

TEST(ProvisioningDecision, AnUnknownClassIsLeftAloneAsClusterAutoscalerLeavesIt) {
  const RequestDecision d = decide_request(request("queued-provisioning.gke.io"), {}, kNow);
  EXPECT_FALSE(d.changed);
  EXPECT_TRUE(d.conditions.empty());
  EXPECT_EQ(d.action, RequestAction::Nothing);
}

TEST(ProvisioningDecision, CheckCapacityThatFitsIsProvisionedAndBooked) {
  RequestObservation seen;
  seen.fits_existing = true;
  const RequestDecision d = decide_request(request(provreq::kCheckCapacityClass), seen, kNow);
  EXPECT_TRUE(d.changed);
  EXPECT_EQ(cond(d, "Accepted").status, "True");
  EXPECT_EQ(cond(d, "Accepted").message, "ProvisioningRequest is accepted by ClusterAutoscaler");
  EXPECT_EQ(cond(d, "Provisioned").status, "True");
  EXPECT_EQ(cond(d, "Provisioned").reason, "CapacityIsFound");
  EXPECT_EQ(cond(d, "Provisioned").message, "Capacity is found in the cluster");
  EXPECT_EQ(cond(d, "Provisioned").last_transition, kNow);
  EXPECT_EQ(cond(d, "Provisioned").observed_generation, 1);
  EXPECT_EQ(d.action, RequestAction::Book);
}

TEST(ProvisioningDecision, CheckCapacityThatDoesNotFitIsNotProvisionedAndRetried) {
  const RequestDecision d = decide_request(request(provreq::kCheckCapacityClass), {}, kNow);
  EXPECT_EQ(cond(d, "Provisioned").status, "False");
  EXPECT_EQ(cond(d, "Provisioned").reason, "CapacityIsNotFound");
  EXPECT_EQ(cond(d, "Provisioned").message, "Capacity is not found, CA will try to find it later.");
  EXPECT_EQ(d.action, RequestAction::Nothing) << "check-capacity never launches";
}

TEST(ProvisioningDecision, CheckCapacityWithNoRetryFails) {
  ProvisioningRequest r = request(provreq::kCheckCapacityClass);
  r.parameters["noRetry"] = "true";
  const RequestDecision d = decide_request(r, {}, kNow);
  EXPECT_EQ(cond(d, "Failed").status, "True");
  EXPECT_EQ(cond(d, "Failed").reason, "CapacityIsNotFound");
  EXPECT_EQ(cond(d, "Failed").message, "CA could not find requested capacity");
}

TEST(ProvisioningDecision, AnUnsupportedParameterIsRefusedByName) {
  ProvisioningRequest r = request(provreq::kCheckCapacityClass);
  r.parameters["partialCapacityCheck"] = "bookPartial";
  const RequestDecision d = decide_request(r, {}, kNow);
  EXPECT_EQ(cond(d, "Failed").reason, "ParameterNotSupported");
  EXPECT_NE(cond(d, "Failed").message.find("partialCapacityCheck"), std::string::npos);
  ProvisioningRequest a = request(provreq::kAtomicScaleUpClass);
  a.parameters["ValidUntilSeconds"] = "soon";
  EXPECT_EQ(cond(decide_request(a, {}, kNow), "Failed").message,
            "parameter ValidUntilSeconds: expected whole seconds > 0, got \"soon\"");
}

TEST(ProvisioningDecision, AtomicAsksForCapacityUntilItsNodesHoldItThenIsProvisioned) {
  ProvisioningRequest r = request(provreq::kAtomicScaleUpClass);
  RequestDecision d = decide_request(r, {}, kNow);
  EXPECT_EQ(d.action, RequestAction::AskForCapacity);
  EXPECT_EQ(r.condition("Provisioned"), nullptr);
  r.conditions = d.conditions;
  RequestObservation launched;
  launched.verdict = PlanVerdict{"TriggeredScaleUp", "fitscale launched 4 x p3.2xlarge"};
  launched.launched_for_it = true;
  d = decide_request(r, launched, kNow + 10);
  EXPECT_FALSE(d.changed) << "launching: Accepted only, no Provisioned yet";
  EXPECT_EQ(d.action, RequestAction::AskForCapacity);
  launched.fits_existing = true;
  d = decide_request(r, launched, kNow + 90);
  EXPECT_EQ(cond(d, "Provisioned").status, "True");
  EXPECT_EQ(cond(d, "Provisioned").reason, "CapacityIsProvisioned");
  EXPECT_EQ(d.action, RequestAction::Book);
}

TEST(ProvisioningDecision, AtomicOverBudgetFailsWithThePlannersDollars) {
  RequestObservation seen;
  seen.verdict =
      PlanVerdict{"BudgetRefused", "job needs $12.24/h, namespace team-a may spend $5.00/h"};
  const RequestDecision d = decide_request(request(provreq::kAtomicScaleUpClass), seen, kNow);
  EXPECT_EQ(cond(d, "Failed").status, "True");
  EXPECT_EQ(cond(d, "Failed").reason, "BudgetRefused");
  EXPECT_EQ(cond(d, "Failed").message, seen.verdict->message);
  EXPECT_EQ(d.action, RequestAction::Nothing);
}

TEST(ProvisioningDecision, AtomicWithNoOfferingIsNotProvisionedWithTheReason) {
  RequestObservation seen;
  seen.verdict =
      PlanVerdict{"NotTriggerScaleUp", "requests example.com/fpga 1: no offering has it"};
  const RequestDecision d = decide_request(request(provreq::kAtomicScaleUpClass), seen, kNow);
  EXPECT_EQ(cond(d, "Provisioned").status, "False");
  EXPECT_EQ(cond(d, "Provisioned").message,
            "Capacity is not found, CA will try to find it later. requests example.com/fpga 1: no "
            "offering has it");
  EXPECT_EQ(d.action, RequestAction::AskForCapacity);
}

TEST(ProvisioningDecision, TheBookingExpiresAfterTenMinutes) {
  ProvisioningRequest r = request(provreq::kCheckCapacityClass);
  RequestObservation seen;
  seen.fits_existing = true;
  r.conditions = decide_request(r, seen, kNow).conditions;
  EXPECT_EQ(decide_request(r, seen, kNow + 599).action, RequestAction::Book);
  const RequestDecision d = decide_request(r, seen, kNow + 600);
  EXPECT_EQ(cond(d, "BookingExpired").status, "True");
  EXPECT_EQ(cond(d, "BookingExpired").reason, "CapacityReservationTimeExpired");
  EXPECT_EQ(cond(d, "BookingExpired").message, "Capacity reservation time is expired");
  EXPECT_EQ(d.action, RequestAction::Nothing);
  r.conditions = d.conditions;
  EXPECT_FALSE(decide_request(r, seen, kNow + 700).changed) << "finished: left alone";
}

TEST(ProvisioningDecision, BookedCapacityThatIsGoneIsRevoked) {
  ProvisioningRequest r = request(provreq::kCheckCapacityClass);
  RequestObservation seen;
  seen.fits_existing = true;
  r.conditions = decide_request(r, seen, kNow).conditions;
  seen.fits_existing = false;
  const RequestDecision d = decide_request(r, seen, kNow + 60);
  EXPECT_EQ(cond(d, "CapacityRevoked").status, "True");
  EXPECT_EQ(d.action, RequestAction::Nothing);
}

TEST(ProvisioningDecision, AMissingTemplateWaitsAMinuteThenFails) {
  ProvisioningRequest r = request(provreq::kAtomicScaleUpClass);
  RequestObservation seen;
  seen.pods_known = false;
  seen.pods_error = "spec.podSets[0].podTemplateRef.name: PodTemplate team-a/ppt-job-1 not found";
  EXPECT_EQ(r.condition("Failed"), nullptr);
  EXPECT_EQ(decide_request(r, seen, r.created + 10).action, RequestAction::Nothing);
  const RequestDecision d = decide_request(r, seen, r.created + kTemplateGraceSeconds);
  EXPECT_EQ(cond(d, "Failed").reason, "FailedToCreatePods");
  EXPECT_EQ(cond(d, "Failed").message,
            "Provisioning Request's pods cannot be created: " + seen.pods_error);
}

TEST(ProvisioningDecision, ARequestThatNeverGotCapacityExpiresAfterValidUntilSeconds) {
  ProvisioningRequest r = request(provreq::kAtomicScaleUpClass);
  r.parameters["ValidUntilSeconds"] = "120";
  EXPECT_EQ(decide_request(r, {}, r.created + 119).action, RequestAction::AskForCapacity);
  const RequestDecision d = decide_request(r, {}, r.created + 120);
  EXPECT_EQ(cond(d, "Failed").reason, "Expired");
  EXPECT_EQ(cond(d, "Failed").message, "ProvisioningRequest is expired");
}

}  // namespace
}  // namespace fitscale
