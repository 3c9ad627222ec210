#include "kube/admission_review.h"

#include <nlohmann/json.hpp>

#include "kube/kubeconfig.h"
#include "model/base64.h"
#include "model/bounded_text.h"
#include "model/pod.h"

namespace fitscale {
namespace {

using nlohmann::json;

// kube-apiserver bounds a request at 3 MiB and an object's nesting far below this; the parser's
// recursion must not be what stops a hostile body.
constexpr int kMaxDepth = 128;

bool too_deep(std::string_view body) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : body) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

AdmissionAnswer bad_request(std::string why) {
  AdmissionAnswer a;
  a.status = 400;
  a.content_type = "text/plain";
  a.error = "fitscale budget gate: " + std::move(why);
  a.body = a.error + "\n";
  return a;
}

const json* member(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() || it->is_null() ? nullptr : &*it;
}

std::string string_member(const json& o, const char* key) {
  const json* v = member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// What the gate reads from the pod; "" when readable, else which field is not.
std::string read_new_pod(const json& pod, std::string_view ns, NewPod& out, bool& has_gates) {
  out.ns = ns;
  const json* meta = member(pod, "metadata");
  if (meta != nullptr && !meta->is_object()) return "request.object.metadata is not an object";
  if (meta != nullptr) {
    if (const json* owners = member(*meta, "ownerReferences")) {
      if (!owners->is_array()) return "request.object.metadata.ownerReferences is not an array";
      for (const json& o : *owners) {
        if (string_member(o, "kind") == "DaemonSet") out.daemon = true;
        if (string_member(o, "kind") == "Node") out.mirror = true;
      }
    }
    if (const json* ann = member(*meta, "annotations")) {
      if (!ann->is_object()) return "request.object.metadata.annotations is not an object";
      if (ann->contains("kubernetes.io/config.mirror")) out.mirror = true;
    }
  }
  const json* spec = member(pod, "spec");
  if (spec == nullptr || !spec->is_object())
    return "request.object.spec is missing or not an object";
  if (const json* node = member(*spec, "nodeName")) {
    if (!node->is_string()) return "request.object.spec.nodeName is not a string";
    out.bound = !node->get<std::string>().empty();
  }
  has_gates = false;
  if (const json* gates = member(*spec, "schedulingGates")) {
    if (!gates->is_array()) return "request.object.spec.schedulingGates is not an array";
    has_gates = !gates->empty();
    for (const json& g : *gates) {
      if (string_member(g, "name") == kBudgetGate) out.gated = true;
    }
  }
  return {};
}

}  // namespace

AdmissionAnswer review_budget_gate(std::string_view body, const BudgetGateScope& scope) {
  if (body.empty()) return bad_request("empty request body (want an AdmissionReview)");
  if (too_deep(body)) return bad_request("request body nests deeper than 128 levels");
  json review;
  try {
    review = json::parse(body);
  } catch (const json::exception& e) {
    return bad_request("request body is not JSON: " + bounded_text(e.what()));
  }
  if (!review.is_object()) return bad_request("request body is not a JSON object");
  const std::string api_version = string_member(review, "apiVersion");
  if (api_version != "admission.k8s.io/v1" && api_version != "admission.k8s.io/v1beta1") {
    return bad_request(
        "apiVersion " +
        (api_version.empty() ? std::string("missing") : "\"" + bounded_text(api_version) + "\"") +
        " (want admission.k8s.io/v1)");
  }
  if (string_member(review, "kind") != "AdmissionReview")
    return bad_request("kind is not AdmissionReview");
  const json* request = member(review, "request");
  if (request == nullptr || !request->is_object())
    return bad_request("AdmissionReview has no request object");
  const std::string uid = string_member(*request, "uid");
  if (uid.empty()) return bad_request("request.uid is missing or not a string");

  AdmissionAnswer a;
  a.content_type = "application/json";
  json response = {{"uid", uid}, {"allowed", true}};
  auto answer = [&]() {
    json out = {{"apiVersion", api_version}, {"kind", "AdmissionReview"}, {"response", response}};
    a.body = out.dump();
    return a;
  };

  // Only a pod's CREATE may get a gate (gates cannot be added later); anything else the
  // configuration sends by mistake passes unchanged.
  const json* kind = member(*request, "kind");
  const bool pod_kind = kind != nullptr && string_member(*kind, "kind") == "Pod" &&
                        string_member(*kind, "group").empty();
  if (!pod_kind || string_member(*request, "operation") != "CREATE" ||
      !string_member(*request, "subResource").empty()) {
    return answer();
  }
  const json* object = member(*request, "object");
  std::string ns = string_member(*request, "namespace");
  if (object != nullptr && ns.empty()) {
    if (const json* meta = member(*object, "metadata")) ns = string_member(*meta, "namespace");
  }
  std::string name;
  if (object != nullptr) {
    if (const json* meta = member(*object, "metadata")) {
      name = string_member(*meta, "name");
      if (name.empty()) name = string_member(*meta, "generateName") + "*";
    }
  }
  a.pod = bounded_text(ns + "/" + name);
  NewPod pod;
  bool has_gates = false;
  std::string problem = object == nullptr || !object->is_object()
                            ? std::string("request.object is missing or not an object")
                            : read_new_pod(*object, ns, pod, has_gates);
  if (!problem.empty()) {
    a.error = "fitscale budget gate: pod " + a.pod + ": " + problem;
    response["allowed"] = false;
    response["status"] = {{"code", 400}, {"reason", "BadRequest"}, {"message", a.error}};
    return answer();
  }
  if (!budget_gate_applies(scope, pod)) return answer();
  const json gate = {{"name", kBudgetGate}};
  const json patch =
      has_gates
          ? json::array({{{"op", "add"}, {"path", "/spec/schedulingGates/-"}, {"value", gate}}})
          : json::array({{{"op", "add"},
                          {"path", "/spec/schedulingGates"},
                          {"value", json::array({gate})}}});
  response["patchType"] = "JSONPatch";
  response["patch"] = base64_encode(patch.dump());
  a.gated = true;
  return answer();
}

}  // namespace fitscale
