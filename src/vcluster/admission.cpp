#include "vcluster/admission.h"

#include <algorithm>

#include "kube/kubeconfig.h"
#include "model/base64.h"
#include "vcluster/admission_webhooks.h"
#include "vcluster/api_error.h"
#include "vcluster/custom_resources.h"
#include "vcluster/extended_resource_toleration.h"
#include "vcluster/object_meta.h"

namespace fitscale::vcluster {
namespace {

ApiError invalid(const ResourceInfo& r, const nlohmann::json& obj, const std::string& why) {
  return ApiError(422, "Invalid", r.kind + " \"" + name_of(obj) + "\" is invalid: " + why);
}

bool has_status_subresource(const ResourceInfo& r) { return r.has_subresource("status"); }

// stringData is a write-only convenience: merged into data (base64) and never stored.
void default_secret(nlohmann::json& secret) {
  if (!secret.contains("type")) secret["type"] = "Opaque";
  auto it = secret.find("stringData");
  if (it == secret.end()) return;
  if (it->is_object()) {
    auto& data = secret["data"];
    if (!data.is_object()) data = nlohmann::json::object();
    for (const auto& [k, v] : it->items()) {
      if (v.is_string()) data[k] = base64_encode(v.get<std::string>());
    }
  }
  secret.erase("stringData");
}

// The parts of an object whose change is a new generation: all but metadata, and all but
// status when status has its own endpoint.
nlohmann::json generation_relevant(const ResourceInfo& r, nlohmann::json obj) {
  if (!obj.is_object()) return obj;
  obj.erase("metadata");
  obj.erase("kind");
  obj.erase("apiVersion");
  if (has_status_subresource(r)) obj.erase("status");
  return obj;
}

std::vector<std::string> finalizers_of(const nlohmann::json& obj) {
  std::vector<std::string> out;
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return out;
  auto f = md->find("finalizers");
  if (f == md->end() || !f->is_array()) return out;
  for (const auto& s : *f) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

void default_pod(const ResourceInfo& r, nlohmann::json& pod) {
  auto& spec = pod["spec"];
  if (!spec.is_object() || !spec.contains("containers") || !spec["containers"].is_array() ||
      spec["containers"].empty()) {
    throw invalid(r, pod, "spec.containers: Required value");
  }
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  add_extended_resource_tolerations(pod);
  // spec.priority is the Priority admission step's (priority_class.h), which runs after this.
  // A new pod's status is the server's, whatever the client sent.
  pod["status"] = {{"phase", "Pending"}, {"qosClass", "Burstable"}};
}

void default_node(nlohmann::json& node) {
  if (!node["spec"].is_object()) node["spec"] = nlohmann::json::object();
  auto& status = node["status"];
  if (!status.is_object()) status = nlohmann::json::object();
  if (!status.contains("conditions")) {
    // A node created through the API is taken to have a healthy kubelet behind it.
    status["conditions"] = {{{"type", "Ready"},
                             {"status", "True"},
                             {"reason", "KubeletReady"},
                             {"message", "virtual kubelet is posting ready status"}}};
  }
  if (!status.contains("allocatable") && status.contains("capacity")) {
    status["allocatable"] = status["capacity"];
  }
}

void default_job(const ResourceInfo& r, nlohmann::json& job) {
  auto& spec = job["spec"];
  if (!spec.is_object() || !spec.contains("template") || !spec["template"].is_object()) {
    throw invalid(r, job, "spec.template: Required value");
  }
  auto& pod_spec = spec["template"]["spec"];
  if (!pod_spec.is_object() || !pod_spec.contains("containers") || pod_spec["containers"].empty()) {
    throw invalid(r, job, "spec.template.spec.containers: Required value");
  }
  const std::string policy = pod_spec.value("restartPolicy", "");
  if (policy != "Never" && policy != "OnFailure") {
    throw invalid(r, job,
                  "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", "
                  "\"Never\"");
  }
  if (!spec.contains("parallelism")) spec["parallelism"] = 1;
  if (!spec.contains("completions")) {
    spec["completions"] = spec["parallelism"];
  }
  if (!spec.contains("backoffLimit")) spec["backoffLimit"] = 6;
  if (!spec.contains("completionMode")) spec["completionMode"] = "NonIndexed";
  if (!spec.contains("suspend")) spec["suspend"] = false;
  job["status"] = nlohmann::json::object();
}

}  // namespace

void admit_create(const ResourceInfo& r, nlohmann::json& obj) {
  if (!obj.is_object()) throw bad_request("the body must be a JSON object");
  const std::string kind = obj.value("kind", r.kind);
  const std::string api_version = obj.value("apiVersion", r.group_version());
  if (kind != r.kind || api_version != r.group_version()) {
    throw bad_request("the object's kind " + api_version + "/" + kind + " does not match " +
                      r.group_version() + "/" + r.kind + " in the URL");
  }
  obj["kind"] = r.kind;
  obj["apiVersion"] = r.group_version();
  if (r.plural == "pods") default_pod(r, obj);
  if (r.plural == "nodes") default_node(obj);
  if (r.plural == "jobs") default_job(r, obj);
  if (r.plural == "namespaces") obj["status"] = {{"phase", "Active"}};
  if (r.plural == "secrets") default_secret(obj);
  if (r.plural == "customresourcedefinitions") {
    admit_definition(obj);
    obj.erase("status");  // set by the server once the definition is established
  }
  if (r.custom) admit_custom_object(r, obj);
  if (r.group == "admissionregistration.k8s.io") admit_webhook_configuration(r.kind, obj);
  if (r.plural == "poddisruptionbudgets") {
    const auto& spec = obj.value("spec", nlohmann::json::object());
    if (spec.contains("minAvailable") && spec.contains("maxUnavailable")) {
      throw invalid(r, obj,
                    "spec: Invalid value: minAvailable and maxUnavailable cannot be both set");
    }
    obj["status"] = {{"disruptionsAllowed", 0},
                     {"currentHealthy", 0},
                     {"desiredHealthy", 0},
                     {"expectedPods", 0},
                     {"observedGeneration", 0}};
  }
}

bool admit_created(const ResourceInfo& r, nlohmann::json& obj) {
  if (r.plural != "jobs") return false;
  const std::string uid = uid_of(obj);
  auto& spec = obj["spec"];
  if (!spec.contains("selector")) spec["selector"] = {{"matchLabels", {{"controller-uid", uid}}}};
  auto& labels = spec["template"]["metadata"]["labels"];
  labels["controller-uid"] = uid;
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["job-name"] = name_of(obj);
  labels["batch.kubernetes.io/job-name"] = name_of(obj);
  return true;
}

void admit_update(const ResourceInfo& r, const nlohmann::json& stored, nlohmann::json& obj,
                  bool status_only) {
  if (!obj.is_object()) throw bad_request("the body must be a JSON object");
  obj["kind"] = r.kind;
  obj["apiVersion"] = r.group_version();
  if (status_only) {
    nlohmann::json status = obj.value("status", nlohmann::json::object());
    std::string rv = meta_string(obj, "resourceVersion");
    obj = stored;
    obj["status"] = status;
    if (!rv.empty()) obj["metadata"]["resourceVersion"] = rv;
    if (r.custom) admit_custom_object(r, obj);
    return;
  }
  if (has_status_subresource(r) && stored.contains("status")) obj["status"] = stored["status"];
  if (r.plural == "secrets") default_secret(obj);
  if (r.plural == "customresourcedefinitions") admit_definition(obj);
  if (r.custom) admit_custom_object(r, obj);
  if (r.group == "admissionregistration.k8s.io") admit_webhook_configuration(r.kind, obj);
  if (!obj["metadata"].is_object()) obj["metadata"] = nlohmann::json::object();
  if (is_terminating(stored)) {
    // As kube-apiserver: a deleting object may lose finalizers, never gain them.
    const auto before = finalizers_of(stored);
    std::string added;
    for (const auto& f : finalizers_of(obj)) {
      if (std::find(before.begin(), before.end(), f) == before.end()) {
        added += (added.empty() ? "\"" : ", \"") + f + "\"";
      }
    }
    if (!added.empty()) {
      throw invalid(r, obj,
                    "metadata.finalizers: Forbidden: no new finalizers can be added if the "
                    "object is being deleted, found new finalizers []string{" +
                        added + "}");
    }
  }
  // metadata.generation is the server's: one more for every change of the desired state.
  const auto* md = stored.contains("metadata") ? &stored["metadata"] : nullptr;
  const long long generation =
      md && md->contains("generation") && (*md)["generation"].is_number_integer()
          ? (*md)["generation"].get<long long>()
          : 1;
  obj["metadata"]["generation"] =
      generation_relevant(r, stored) == generation_relevant(r, obj) ? generation : generation + 1;
}

bool finalized(const nlohmann::json& obj) {
  return is_terminating(obj) && finalizers_of(obj).empty();
}

bool has_finalizers(const nlohmann::json& obj) { return !finalizers_of(obj).empty(); }

}  // namespace fitscale::vcluster
