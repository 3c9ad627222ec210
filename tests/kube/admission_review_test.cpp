// The budget gate's webhook as kube-apiserver calls it (kube/admission_review.h): AdmissionReview
// v1 in, the answer out; recorded shapes from the Kubernetes API reference (admission.k8s.io/v1
// AdmissionReview, "Dynamic Admission Control": response.uid, allowed, patchType JSONPatch,
// base64 patch).
#include "kube/admission_review.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kube/kubeconfig.h"
#include "model/base64.h"

namespace fitscale {
namespace {

using nlohmann::json;

BudgetGateScope scope() {
  BudgetGateScope s;
  s.budgets = safe_default_budgets();
  s.exempt_namespaces.insert("fitscale");
  return s;
}

json review(const std::string& ns, json pod, const std::string& op = "CREATE") {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
            {"kind", {{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
            {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
            {"namespace", ns},
            {"operation", op},
            {"object", std::move(pod)},
            {"oldObject", nullptr},
            {"dryRun", false}}}};
}

json pod(json spec = json::object()) {
  spec["containers"] = json::array({{{"name", "c"}, {"image", "busybox"}}});
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"generateName", "train-"}}},
          {"spec", spec}};
}

// The answer's response, and the pod with its patch applied (as kube-apiserver applies it).
struct Applied {
  json response;
  json pod;
};
Applied answer_for(const json& r) {
  const AdmissionAnswer a = review_budget_gate(r.dump(), scope());
  EXPECT_EQ(a.status, 200) << a.body;
  const json out = json::parse(a.body);
  EXPECT_EQ(out["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(out["kind"], "AdmissionReview");
  const json response = out["response"];
  EXPECT_EQ(response["uid"], r["request"]["uid"]);
  json p = r["request"]["object"];
  if (response.contains("patch")) {
    EXPECT_EQ(response["patchType"], "JSONPatch");
    p = p.patch(json::parse(base64_decode(response["patch"].get<std::string>(), "patch")));
  }
  return {response, p};
}

TEST(BudgetGateWebhook, ANewPodOfABudgetedNamespaceGetsTheGate) {
  const Applied a = answer_for(review("team-a", pod()));
  EXPECT_TRUE(a.response["allowed"].get<bool>());
  EXPECT_EQ(a.pod["spec"]["schedulingGates"], json::parse(R"([{"name":"fitscale.io/budget"}])"));
}

TEST(BudgetGateWebhook, OtherGatesAreKeptAndTheGateIsAppended) {
  const Applied a = answer_for(
      review("team-a",
             pod({{"schedulingGates", json::parse(R"([{"name":"kueue.x-k8s.io/admission"}])")}})));
  EXPECT_EQ(a.pod["spec"]["schedulingGates"],
            json::parse(R"([{"name":"kueue.x-k8s.io/admission"},{"name":"fitscale.io/budget"}])"));
}

TEST(BudgetGateWebhook, APodThatHasTheGateIsNotPatchedAgain) {
  const Applied a = answer_for(review(
      "team-a", pod({{"schedulingGates", json::parse(R"([{"name":"fitscale.io/budget"}])")}})));
  EXPECT_FALSE(a.response.contains("patch"));
}

TEST(BudgetGateWebhook, ExemptDaemonMirrorAndBoundPodsPassUnchanged) {
  EXPECT_FALSE(answer_for(review("kube-system", pod())).response.contains("patch"));
  EXPECT_FALSE(answer_for(review("fitscale", pod())).response.contains("patch"));
  json daemon = pod();
  daemon["metadata"]["ownerReferences"] = json::parse(
      R"([{"apiVersion":"apps/v1","kind":"DaemonSet","name":"ds","uid":"u","controller":true}])");
  EXPECT_FALSE(answer_for(review("team-a", daemon)).response.contains("patch"));
  json mirror = pod();
  mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  EXPECT_FALSE(answer_for(review("team-a", mirror)).response.contains("patch"));
  EXPECT_FALSE(
      answer_for(review("team-a", pod({{"nodeName", "node-1"}}))).response.contains("patch"));
}

TEST(BudgetGateWebhook, UpdatesAndOtherKindsPassUnchanged) {
  EXPECT_FALSE(answer_for(review("team-a", pod(), "UPDATE")).response.contains("patch"));
  json r = review("team-a", pod());
  r["request"]["kind"]["kind"] = "ConfigMap";
  EXPECT_FALSE(answer_for(r).response.contains("patch"));
}

TEST(BudgetGateWebhook, BadBodiesGetAClearErrorNeverACrash) {
  for (const std::string& body :
       {std::string(), std::string("not json"), std::string("[]"), std::string("{}"),
        std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})"),
        std::string(
            R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})"),
        std::string(R"({"apiVersion":"v1","kind":"Pod"})"), std::string(100000, '['),
        std::string("{\"a\":\"\xff\xfe\"}")}) {
    const AdmissionAnswer a = review_budget_gate(body, scope());
    EXPECT_EQ(a.status, 400) << body.substr(0, 80);
    EXPECT_NE(a.body.find("fitscale budget gate: "), std::string::npos) << a.body;
  }
  // A review whose pod cannot be read: the pod is refused with the reason, as a malformed one.
  json r = review("team-a", pod());
  r["request"]["object"]["spec"]["schedulingGates"] = "fitscale.io/budget";
  const AdmissionAnswer a = review_budget_gate(r.dump(), scope());
  EXPECT_EQ(a.status, 200);
  const json response = json::parse(a.body)["response"];
  EXPECT_FALSE(response["allowed"].get<bool>());
  EXPECT_EQ(response["status"]["code"], 400);
  EXPECT_NE(response["status"]["message"].get<std::string>().find("spec.schedulingGates"),
            std::string::npos);
}

}  // namespace
}  // namespace fitscale
