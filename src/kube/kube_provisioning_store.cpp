#include "kube/kube_provisioning_store.h"

#include <nlohmann/json.hpp>

#include "kube/api_discovery.h"
#include "kube/decode.h"
#include "kube/json_list_page.h"
#include "model/error.h"

namespace fitscale {

using json = nlohmann::json;

namespace {

constexpr const char* kGroup = "autoscaling.x-k8s.io";

const json& member(const json& o, const char* key, const std::string& where) {
  static const json kNull;  // read-only: an absent member
  if (!o.is_object()) throw InputError(where + ": expected an object");
  auto it = o.find(key);
  return it == o.end() ? kNull : *it;
}

std::string string_at(const json& o, const char* key, const std::string& where) {
  const json& v = member(o, key, where);
  if (v.is_null()) return "";
  if (!v.is_string()) throw InputError(where + "." + key + ": expected a string, got " + v.dump());
  return v.get<std::string>();
}

// The caller sets the path (a literal: tests/e2e/test_deploy.py reads it for the RBAC check).
template <class T, class Decode>
ResourceCodec<T> json_codec(const std::string& resource, Decode decode) {
  ResourceCodec<T> c;
  c.resource = resource;
  c.decode_list = [decode, resource](std::string_view page,
                                     std::vector<std::pair<std::string, T>>& items,
                                     std::vector<std::pair<std::string, std::string>>& bad) {
    decode_list_page(page, resource, decode, items, bad);
  };
  c.decode_object = [decode](std::string_view text) {
    const json j = parse_api_json(text);
    try {
      return decode(j);
    } catch (const json::exception& e) {
      throw InputError(e.what());
    }
  };
  return c;
}

}  // namespace

ProvisioningRequest decode_provisioning_request(const json& o) {
  ProvisioningRequest r;
  const json& meta = member(o, "metadata", "");
  r.name = string_at(meta, "name", "metadata");
  r.ns = string_at(meta, "namespace", "metadata");
  r.uid = string_at(meta, "uid", "metadata");
  if (r.name.empty()) throw InputError("metadata.name: missing");
  if (const json& g = member(meta, "generation", "metadata"); g.is_number_integer())
    r.generation = g.get<std::int64_t>();
  if (std::string t = string_at(meta, "creationTimestamp", "metadata"); !t.empty())
    r.created = parse_rfc3339(t);
  const json& spec = member(o, "spec", "");
  if (spec.is_null()) throw InputError("spec: missing");
  r.class_name = string_at(spec, "provisioningClassName", "spec");
  const json& sets = member(spec, "podSets", "spec");
  if (!sets.is_array() || sets.empty()) throw InputError("spec.podSets: expected a non-empty list");
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::string where = "spec.podSets[" + std::to_string(i) + "]";
    PodSetRef s;
    s.template_name =
        string_at(member(sets[i], "podTemplateRef", where), "name", where + ".podTemplateRef");
    if (s.template_name.empty()) throw InputError(where + ".podTemplateRef.name: missing");
    const json& count = member(sets[i], "count", where);
    if (!count.is_number_integer() || count.get<std::int64_t>() < 1 ||
        count.get<std::int64_t>() > 100000)
      throw InputError(where + ".count: expected a whole number from 1 to 100000, got " +
                       count.dump());
    s.count = count.get<std::int64_t>();
    r.pod_sets.push_back(std::move(s));
  }
  if (const json& params = member(spec, "parameters", "spec"); params.is_object()) {
    for (const auto& [k, v] : params.items()) {
      if (!v.is_string()) throw InputError("spec.parameters." + k + ": expected a string");
      r.parameters[k] = v.get<std::string>();
    }
  }
  const json& status = member(o, "status", "");
  if (status.is_object()) {
    if (const json& conds = member(status, "conditions", "status"); conds.is_array()) {
      for (const json& c : conds) {
        RequestCondition rc;
        rc.type = string_at(c, "type", "status.conditions");
        rc.status = string_at(c, "status", "status.conditions");
        rc.reason = string_at(c, "reason", "status.conditions");
        rc.message = string_at(c, "message", "status.conditions");
        if (std::string t = string_at(c, "lastTransitionTime", "status.conditions"); !t.empty())
          rc.last_transition = parse_rfc3339(t);
        if (const json& g = member(c, "observedGeneration", "status.conditions");
            g.is_number_integer())
          rc.observed_generation = g.get<std::int64_t>();
        r.conditions.push_back(std::move(rc));
      }
    }
  }
  return r;
}

PodTemplateView decode_pod_template(const json& o, const std::vector<std::string>& gpu_models) {
  PodTemplateView t;
  const json& meta = member(o, "metadata", "");
  t.name = string_at(meta, "name", "metadata");
  t.ns = string_at(meta, "namespace", "metadata");
  if (t.name.empty()) throw InputError("metadata.name: missing");
  const json& tpl = member(o, "template", "");
  if (!tpl.is_object()) throw InputError("template: expected an object");
  // The template as the pod it describes: the pod decoder judges it, so a template is read
  // exactly as a pod would be (requests, selectors, tolerations, affinity).
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  pod["metadata"] = tpl.value("metadata", json::object());
  if (!pod["metadata"].is_object()) throw InputError("template.metadata: expected an object");
  pod["metadata"]["name"] = t.name;
  pod["metadata"]["namespace"] = t.ns;
  pod["metadata"].erase("creationTimestamp");
  pod["spec"] = tpl.value("spec", json::object());
  try {
    t.pod = decode_pod_json(pod.dump(), gpu_models);
  } catch (const InputError& e) {
    throw InputError(std::string("template: ") + e.what());
  }
  return t;
}

std::string provisioning_status_json(const std::vector<RequestCondition>& conditions) {
  json list = json::array();
  for (const RequestCondition& c : conditions) {
    list.push_back({{"type", c.type},
                    {"status", c.status},
                    {"reason", c.reason},
                    {"message", c.message},
                    {"observedGeneration", c.observed_generation},
                    {"lastTransitionTime", format_rfc3339(c.last_transition)}});
  }
  return json{{"status", {{"conditions", list}}}}.dump();
}

KubeProvisioningStore::KubeProvisioningStore(const KubeConfig& config, const obs::Logger& log,
                                             std::vector<std::string> gpu_models,
                                             const InformerOptions& options)
    : config_(config),
      log_(log),
      gpu_models_(std::move(gpu_models)),
      options_(options),
      writer_(config, options.client) {}

KubeProvisioningStore::~KubeProvisioningStore() { stop(); }

void KubeProvisioningStore::start() {
  std::string why;
  for (const char* version : {"v1", "v1beta1"}) {
    const Served s =
        served_resource(writer_, std::string(kGroup) + "/" + version, "provisioningrequests", &why);
    if (s == Served::Yes || (s == Served::Unknown && version_.empty())) {
      version_ = version;
      if (s == Served::Yes) break;
    }
  }
  installed_ = !version_.empty();
  if (!installed_) {
    log_.info(
        "ProvisioningRequests: autoscaling.x-k8s.io is not served (install "
        "deploy/crds/provisioningrequests.autoscaling.x-k8s.io.yaml to let Kueue drive fitscale)");
  } else {
    if (!why.empty())
      log_.warn("ProvisioningRequests: discovery failed; reading them anyway", {{"error", why}});
    auto requests = json_codec<ProvisioningRequest>(
        "provisioningrequests", [](const json& j) { return decode_provisioning_request(j); });
    if (version_ == "v1")
      requests.path = "/apis/autoscaling.x-k8s.io/v1/provisioningrequests";
    else
      requests.path = "/apis/autoscaling.x-k8s.io/v1beta1/provisioningrequests";
    requests_ = std::make_unique<Informer<ProvisioningRequest>>(config_, std::move(requests), log_,
                                                                options_);
    const std::vector<std::string>& models = gpu_models_;
    auto templates = json_codec<PodTemplateView>(
        "podtemplates", [models](const json& j) { return decode_pod_template(j, models); });
    templates.path = "/api/v1/podtemplates";
    templates_ =
        std::make_unique<Informer<PodTemplateView>>(config_, std::move(templates), log_, options_);
    requests_->start();
    templates_->start();
  }
  started_ = true;
}

void KubeProvisioningStore::stop() {
  if (requests_) requests_->request_stop();
  if (templates_) templates_->request_stop();
  if (requests_) requests_->stop();
  if (templates_) templates_->stop();
}

void KubeProvisioningStore::set_write_gate(std::function<bool()> gate) {
  std::lock_guard lock(write_mu_);
  gate_ = std::move(gate);
}

bool KubeProvisioningStore::synced() const {
  if (!started_) return false;
  if (!installed_) return true;
  return requests_->cache().synced() && templates_->cache().synced();
}

std::uint64_t KubeProvisioningStore::generation() const {
  if (!installed_) return 0;
  return requests_->cache().generation() + templates_->cache().generation();
}

std::vector<ProvisioningRequest> KubeProvisioningStore::requests() const {
  if (!installed_) return {};
  return requests_->cache().items();
}

std::map<std::string, Pod> KubeProvisioningStore::templates(const std::string& ns) const {
  std::map<std::string, Pod> out;
  if (!installed_) return out;
  for (PodTemplateView& t : templates_->cache().items())
    if (t.ns == ns) out.emplace(t.name, std::move(t.pod));
  return out;
}

std::vector<BadObject> KubeProvisioningStore::bad_objects() const {
  if (!installed_) return {};
  std::vector<BadObject> bad = requests_->cache().bad();
  for (BadObject& b : templates_->cache().bad()) bad.push_back(std::move(b));
  return bad;
}

std::string KubeProvisioningStore::write_conditions(
    const ProvisioningRequest& r, const std::vector<RequestCondition>& conditions) {
  std::lock_guard lock(write_mu_);
  if (gate_ && !gate_()) return "not written: not the leader, or a dry run";
  const HttpResponse resp =
      writer_.send("PATCH",
                   "/apis/autoscaling.x-k8s.io/" + version_ + "/namespaces/" + r.ns +
                       "/provisioningrequests/" + r.name + "/status",
                   provisioning_status_json(conditions), "application/merge-patch+json");
  return resp.ok() ? std::string() : describe_failure(resp);
}

}  // namespace fitscale
