#include "vcluster/admission_webhooks.h"

#include <fmt/format.h>

#include <algorithm>

#include "kube/kubeconfig.h"
#include "model/base64.h"
#include "model/error.h"
#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"
#include "vcluster/schema_validation.h"
#include "vcluster/selectors.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

bool listed(const json& values, const std::string& want) {
  if (!values.is_array()) return false;
  for (const auto& v : values) {
    if (v.is_string() && (v == "*" || v == want)) return true;
  }
  return false;
}

// A rule's resources entry against "pods" or "pods/status": "*" is every resource (not
// subresources), "*/*" everything, "pods/*" pods and its subresources, "*/status" any status.
bool resource_listed(const json& values, const std::string& resource, const std::string& sub) {
  if (!values.is_array()) return false;
  for (const auto& v : values) {
    if (!v.is_string()) continue;
    const std::string s = v.get<std::string>();
    const auto slash = s.find('/');
    const std::string res = s.substr(0, slash);
    const std::string want_sub = slash == std::string::npos ? "" : s.substr(slash + 1);
    if (res != "*" && res != resource) continue;
    if (want_sub == "*" || want_sub == sub) return true;
  }
  return false;
}

bool rule_matches(const json& rule, const AdmissionAttributes& a) {
  const auto& r = *a.resource;
  const json ops = rule.value("operations", json::array());
  if (!listed(ops, a.operation)) return false;
  if (!listed(rule.value("apiGroups", json::array()), r.group)) return false;
  if (!listed(rule.value("apiVersions", json::array()), r.version)) return false;
  if (!resource_listed(rule.value("resources", json::array()), r.plural, a.subresource)) {
    return false;
  }
  const std::string scope = rule.value("scope", "*");
  if (scope == "Cluster" && r.namespaced) return false;
  if (scope == "Namespaced" && !r.namespaced) return false;
  return true;
}

bool selector_matches(const json& selector, const json& obj) {
  if (!selector.is_object() || selector.empty()) return true;
  return matches(label_selector_from_json(selector), labels_of(obj));
}

// The same error kube-apiserver gives for a refusal (webhook/errors.ToStatusErr).
ApiError denied(const std::string& hook, const json& status) {
  const json s = status.is_object() ? status : json::object();
  int code = s.value("code", 0);
  if (code < 400) code = 400;
  const std::string by = "admission webhook \"" + hook + "\" denied the request";
  const std::string message = s.value("message", "");
  const std::string reason = s.value("reason", "");
  std::string text = !message.empty()  ? by + ": " + message
                     : !reason.empty() ? by + ": " + reason
                                       : by + " without explanation";
  ApiError e(code, reason, text);
  if (s.contains("details") && s["details"].is_object()) e.details = s["details"];
  return e;
}

ApiError call_failed(const std::string& hook, const std::string& url, const std::string& why) {
  return ApiError(500, "InternalError",
                  "Internal error occurred: failed calling webhook \"" + hook +
                      "\": failed to call webhook: Post \"" + url + "\": " + why);
}

}  // namespace

void admit_webhook_configuration(const std::string& kind, json& config) {
  std::vector<FieldError> errors;
  auto& hooks = config["webhooks"];
  if (hooks.is_null()) hooks = json::array();
  if (!hooks.is_array()) {
    errors.push_back({"webhooks", "FieldValueInvalid", "webhooks: Invalid value: must be a list"});
    hooks = json::array();
  }
  for (std::size_t i = 0; i < hooks.size(); ++i) {
    auto& h = hooks[i];
    const std::string at = "webhooks[" + std::to_string(i) + "]";
    auto required = [&](const std::string& field, const std::string& why = "") {
      errors.push_back({at + "." + field, "FieldValueRequired",
                        at + "." + field + ": Required value" + (why.empty() ? "" : ": " + why)});
    };
    auto bad = [&](const std::string& field, const json& v, const std::string& why) {
      errors.push_back({at + "." + field, "FieldValueInvalid",
                        at + "." + field + ": Invalid value: " + v.dump() + ": " + why});
    };
    if (!h.is_object()) {
      bad("", h, "must be an object");
      continue;
    }
    if (h.value("name", "").empty()) required("name");
    const std::string effects = h.value("sideEffects", "");
    if (effects.empty()) {
      required("sideEffects", "must specify one of None, NoneOnDryRun");
    } else if (effects != "None" && effects != "NoneOnDryRun") {
      errors.push_back({at + ".sideEffects", "FieldValueNotSupported",
                        at + ".sideEffects: Unsupported value: " + json(effects).dump() +
                            ": supported values: \"None\", \"NoneOnDryRun\""});
    }
    if (!listed(h.value("admissionReviewVersions", json::array()), "v1")) {
      required("admissionReviewVersions", "must include v1 (the only version called here)");
    }
    const json client = h.value("clientConfig", json::object());
    const bool has_url = client.contains("url");
    if (has_url == client.contains("service")) {
      required("clientConfig", "exactly one of url or service is required");
    } else if (has_url && client["url"].is_string() &&
               client["url"].get<std::string>().rfind("https://", 0) != 0) {
      bad("clientConfig.url", client["url"], "'https' is the only allowed URL scheme");
    }
    const json timeout = h.value("timeoutSeconds", json(10));
    if (!timeout.is_number_integer() || timeout.get<long>() < 1 || timeout.get<long>() > 30) {
      bad("timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds");
    }
    if (!h.contains("failurePolicy")) h["failurePolicy"] = "Fail";
    if (!h.contains("timeoutSeconds")) h["timeoutSeconds"] = 10;
    if (!h.contains("matchPolicy")) h["matchPolicy"] = "Equivalent";
    if (!h.contains("namespaceSelector")) h["namespaceSelector"] = json::object();
    if (!h.contains("objectSelector")) h["objectSelector"] = json::object();
    if (kind == "MutatingWebhookConfiguration" && !h.contains("reinvocationPolicy")) {
      h["reinvocationPolicy"] = "Never";
    }
  }
  if (!errors.empty()) {
    throw invalid_error(kind, "admissionregistration.k8s.io", name_of(config), errors);
  }
}

WebhookPost https_webhook_post() {
  return [](const std::string& url, const std::string& ca_pem, const std::string& body,
            long timeout_s) {
    HttpResponse out;
    const auto scheme = url.find("://");
    if (url.rfind("https://", 0) != 0 || scheme == std::string::npos) {
      out.error = "only https URLs are called";
      return out;
    }
    const auto path_at = url.find('/', scheme + 3);
    KubeConfig config;
    config.source = "webhook " + url;
    config.server = path_at == std::string::npos ? url : url.substr(0, path_at);
    config.ca_pem = ca_pem;
    ApiClientOptions options;
    options.request_timeout_s = std::max(1L, timeout_s);
    options.connect_timeout_s = options.request_timeout_s;
    options.user_agent = "fitscale-vcluster/admission";
    ApiClient client(config, options);
    return client.send("POST", path_at == std::string::npos ? "/" : url.substr(path_at), body);
  };
}

AdmissionWebhooks::AdmissionWebhooks(const ObjectStore& store, WebhookPost post)
    : store_(store), post_(std::move(post)) {}

json AdmissionWebhooks::mutate(const AdmissionAttributes& a) {
  return run("mutatingwebhookconfigurations", a, true);
}

void AdmissionWebhooks::validate(const AdmissionAttributes& a) {
  run("validatingwebhookconfigurations", a, false);
}

json AdmissionWebhooks::run(const char* configurations, const AdmissionAttributes& a,
                            bool mutating) {
  json object = a.object;
  // Webhook configurations are not themselves subject to webhooks, as in kube-apiserver (a bad
  // one could otherwise never be removed).
  if (a.resource->group == "admissionregistration.k8s.io") return object;
  for (const auto& config : store_.list(configurations).items) {
    for (const auto& hook : config.value("webhooks", json::array())) {
      if (!hook.is_object() || !matches(hook, a, object)) continue;
      object = call(hook, a, object, mutating);
    }
  }
  return object;
}

bool AdmissionWebhooks::matches(const json& hook, const AdmissionAttributes& a,
                                const json& object) const {
  bool rule = false;
  for (const auto& r : hook.value("rules", json::array()))
    rule |= r.is_object() && rule_matches(r, a);
  if (!rule) return false;
  const json object_selector = hook.value("objectSelector", json::object());
  if (!selector_matches(object_selector, object.is_null() ? a.old_object : object) &&
      (a.old_object.is_null() || !selector_matches(object_selector, a.old_object))) {
    return false;
  }
  const json ns_selector = hook.value("namespaceSelector", json::object());
  if (a.resource->plural == "namespaces") {
    return selector_matches(ns_selector, object.is_null() ? a.old_object : object);
  }
  if (!a.resource->namespaced || ns_selector.empty()) return true;
  auto ns = store_.find("namespaces", "", a.ns);
  // A namespace created with this request's object has no labels yet.
  json labelled = ns ? *ns : json::object();
  // kube-apiserver gives every namespace the immutable label kubernetes.io/metadata.name = its
  // name (since 1.21), and webhook configurations select on it (e.g. to leave kube-system out).
  labelled["metadata"]["labels"]["kubernetes.io/metadata.name"] = a.ns;
  return selector_matches(ns_selector, labelled);
}

json AdmissionWebhooks::call(const json& hook, const AdmissionAttributes& a, const json& object,
                             bool mutating) {
  const std::string name = hook.value("name", "");
  const bool fail_closed = hook.value("failurePolicy", "Fail") != "Ignore";
  const long timeout = hook.value("timeoutSeconds", 10L);
  const json client = hook.value("clientConfig", json::object());
  const std::string base_url = client.value("url", "");
  const std::string url = base_url + (base_url.find('?') == std::string::npos ? "?" : "&") +
                          "timeout=" + std::to_string(timeout) + "s";
  auto failure = [&](const std::string& why) -> json {
    if (fail_closed) throw call_failed(name, url, why);
    return object;  // failurePolicy Ignore: as if the webhook had allowed the request unchanged
  };
  if (a.dry_run) {
    const std::string effects = hook.value("sideEffects", "Unknown");
    if (effects != "None" && effects != "NoneOnDryRun") {
      throw bad_request("admission webhook \"" + name +
                        "\" does not support dry run (sideEffects is " + effects + ")");
    }
  }
  if (base_url.empty()) {
    return failure(client.contains("service")
                       ? "clientConfig.service is not reachable from the virtual cluster "
                         "(no Services run here); use clientConfig.url"
                       : "no clientConfig.url");
  }
  std::string ca_pem;
  if (client.contains("caBundle") && client["caBundle"].is_string()) {
    try {
      ca_pem = base64_decode(client["caBundle"].get<std::string>(), "clientConfig.caBundle");
    } catch (const InputError& e) {
      return failure(e.what());
    }
  }
  const auto& r = *a.resource;
  const std::string uid = fmt::format("00000000-0000-4000-8000-{:012x}", ++calls_);
  const json gvk = {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
  const json gvr = {{"group", r.group}, {"version", r.version}, {"resource", r.plural}};
  json request = {{"uid", uid},
                  {"kind", gvk},
                  {"resource", gvr},
                  {"requestKind", gvk},
                  {"requestResource", gvr},
                  {"name", a.name},
                  {"operation", a.operation},
                  {"userInfo",
                   {{"username", "fitscale-vcluster-admin"},
                    {"groups", {"system:masters", "system:authenticated"}}}},
                  {"object", object},
                  {"oldObject", a.old_object},
                  {"dryRun", a.dry_run}};
  if (r.namespaced) request["namespace"] = a.ns;
  if (!a.subresource.empty()) {
    request["subResource"] = a.subresource;
    request["requestSubResource"] = a.subresource;
  }
  const json review = {
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", request}};
  const HttpResponse got = post_(url, ca_pem, review.dump(), timeout);
  if (got.status == 0) return failure(got.error.empty() ? "no answer" : got.error);
  if (!got.ok()) return failure("the webhook answered HTTP " + std::to_string(got.status));
  json answer;
  try {
    answer = json::parse(got.body);
  } catch (const json::parse_error&) {
    return failure("the answer is not JSON");
  }
  const json response = answer.is_object() ? answer.value("response", json()) : json();
  if (!response.is_object() || response.value("uid", "") != uid) {
    return failure("the answer is not an AdmissionReview v1 with the request's uid");
  }
  if (!response.value("allowed", false)) throw denied(name, response.value("status", json()));
  if (!mutating || !response.contains("patch") || object.is_null()) return object;
  if (response.value("patchType", "") != "JSONPatch") {
    return failure("patchType must be JSONPatch");
  }
  try {
    const std::string patch =
        base64_decode(response["patch"].get<std::string>(), "AdmissionReview response.patch");
    return object.patch(json::parse(patch));
  } catch (const std::exception& e) {
    return failure(std::string("cannot apply the returned JSONPatch: ") + e.what());
  }
}

}  // namespace fitscale::vcluster
