#include "vcluster/openapi.h"

#include <fmt/format.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <vector>

#include "vcluster/api_error.h"
#include "vcluster/openapi_schemas.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {
namespace {

constexpr const char* kKubeVersion = "v1.32.0";

nlohmann::json gvk_of(const ResourceInfo& r) {
  return {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
}

std::string gv_path(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

// A custom kind's component name as kube-apiserver publishes it: the group reversed, then
// version and kind ("io.fitscale.v1alpha1.Pool" for fitscale.io/v1alpha1 Pool).
std::string custom_schema_name(const ResourceInfo& r) {
  std::string reversed;
  std::string_view g = r.group;
  while (!g.empty()) {
    const auto dot = g.rfind('.');
    const std::string_view label = dot == std::string_view::npos ? g : g.substr(dot + 1);
    reversed += (reversed.empty() ? "" : ".") + std::string(label);
    g = dot == std::string_view::npos ? std::string_view() : g.substr(0, dot);
  }
  return reversed + "." + r.version + "." + r.kind;
}

// The schema a kind's operations return and take: the hand-written one, a custom resource's
// own, or an open object.
std::string schema_ref(const ResourceInfo& r) {
  std::string name =
      r.custom && r.schema ? custom_schema_name(r) : schema_name_of(r.group, r.version, r.kind);
  if (name.empty()) name = "fitscale.open." + r.group_version() + "." + r.kind;
  return "#/components/schemas/" + name;
}

// A custom resource's openAPIV3Schema as kube-apiserver publishes it: apiVersion, kind and
// metadata (ObjectMeta) added, tagged with its group/version/kind so `kubectl explain` finds it.
nlohmann::json custom_schema(const ResourceInfo& r) {
  nlohmann::json s = *r.schema;
  if (!s.is_object()) s = nlohmann::json::object();
  s["type"] = "object";
  auto& props = s["properties"];
  if (!props.is_object()) props = nlohmann::json::object();
  props["apiVersion"] = {
      {"type", "string"},
      {"description",
       "APIVersion defines the versioned schema of this representation of an object."}};
  props["kind"] = {{"type", "string"},
                   {"description",
                    "Kind is a string value representing the REST resource this object "
                    "represents."}};
  props["metadata"] = {
      {"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
      {"description", "Standard object's metadata."}};
  s["x-kubernetes-group-version-kind"] = nlohmann::json::array({gvk_of(r)});
  return s;
}

nlohmann::json query_param(const std::string& name, const std::string& description) {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

nlohmann::json write_params() {
  return nlohmann::json::array(
      {query_param("dryRun",
                   "When present, indicates that modifications should not be "
                   "persisted. Valid value: All."),
       query_param("fieldManager",
                   "fieldManager is a name associated with the actor or "
                   "entity that is making these changes."),
       query_param("fieldValidation",
                   "fieldValidation instructs the server on how to handle objects in the "
                   "request containing unknown or duplicate fields. Valid values are: Ignore, "
                   "Warn (the default) and Strict.")});
}

nlohmann::json operation(const ResourceInfo& r, const std::string& action, const std::string& ref,
                         bool list = false) {
  nlohmann::json content = {
      {"application/json", {{"schema", {{"$ref", ref}}}}},
  };
  nlohmann::json op = {{"operationId", action + r.kind},
                       {"x-kubernetes-action", action},
                       {"x-kubernetes-group-version-kind", gvk_of(r)},
                       {"responses", {{"200", {{"description", "OK"}, {"content", content}}}}}};
  if (list) {
    op["responses"]["200"]["content"]["application/json"]["schema"] = {
        {"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  }
  if (action == "post" || action == "put" || action == "patch") {
    op["parameters"] = write_params();
    if (action == "patch")
      op["parameters"].push_back(query_param("force",
                                             "Force is going to "
                                             "\"force\" Apply "
                                             "requests."));
    op["requestBody"] = {
        {"content",
         action == "patch"
             ? nlohmann::json{{"application/json-patch+json", {{"schema", {{"type", "object"}}}}},
                              {"application/merge-patch+json", {{"schema", {{"type", "object"}}}}},
                              {"application/strategic-merge-patch+json",
                               {{"schema", {{"type", "object"}}}}}}
             : content},
        {"required", true}};
  }
  return op;
}

nlohmann::json path_param(const std::string& name) {
  return {{"name", name}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}};
}

// The paths of one group/version (empty when it serves nothing) and the schemas they use.
nlohmann::json group_version_document(const std::vector<const ResourceInfo*>& served,
                                      const std::string& group, const std::string& version) {
  nlohmann::json paths = nlohmann::json::object();
  nlohmann::json schemas = openapi_component_schemas();
  for (const auto* rp : served) {
    const ResourceInfo& r = *rp;
    if (r.group != group || r.version != version) continue;
    const std::string base = "/" + gv_path(group, version) + "/" +
                             (r.namespaced ? "namespaces/{namespace}/" : "") + r.plural;
    const std::string ref = schema_ref(r);
    const std::string name = ref.substr(std::string("#/components/schemas/").size());
    if (r.custom && r.schema) {
      schemas[name] = custom_schema(r);
    } else if (!schemas.contains(name)) {
      schemas[name] = {{"description", r.kind + " (served without a schema: any field is kept)"},
                       {"type", "object"},
                       {"x-kubernetes-preserve-unknown-fields", true},
                       {"x-kubernetes-group-version-kind", nlohmann::json::array({gvk_of(r)})}};
    }
    nlohmann::json scope = nlohmann::json::array();
    if (r.namespaced) scope.push_back(path_param("namespace"));
    nlohmann::json item_params = scope;
    item_params.push_back(path_param("name"));
    paths[base] = {{"get", operation(r, "list", ref, true)},
                   {"post", operation(r, "post", ref)},
                   {"parameters", scope}};
    paths[base + "/{name}"] = {{"get", operation(r, "get", ref)},
                               {"put", operation(r, "put", ref)},
                               {"patch", operation(r, "patch", ref)},
                               {"delete", operation(r, "delete", ref)},
                               {"parameters", item_params}};
    for (const auto& sub : r.subresources) {
      if (sub != "status") continue;  // (scale's Scale schema is not written)
      paths[base + "/{name}/status"] = {{"get", operation(r, "get", ref)},
                                        {"put", operation(r, "put", ref)},
                                        {"patch", operation(r, "patch", ref)},
                                        {"parameters", item_params}};
    }
  }
  if (paths.empty()) return nullptr;
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", kKubeVersion}}},
          {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

std::string hash_of(const std::string& body) {
  return fmt::format("{:016X}", std::hash<std::string>{}(body));
}

nlohmann::json v3_index(const std::vector<const ResourceInfo*>& served) {
  nlohmann::json paths = nlohmann::json::object();
  for (const auto* r : served) {
    const std::string p = gv_path(r->group, r->version);
    if (paths.contains(p)) continue;
    paths[p] = {{"serverRelativeURL",
                 "/openapi/v3/" + p + "?hash=" +
                     hash_of(group_version_document(served, r->group, r->version).dump())}};
  }
  return {{"paths", paths}};
}

// Swagger 2.0: the same schemas under definitions, $refs rewritten.
nlohmann::json rewrite_refs(nlohmann::json j) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (k == "$ref" && v.is_string()) {
        std::string s = v;
        const std::string from = "#/components/schemas/";
        if (s.rfind(from, 0) == 0) v = "#/definitions/" + s.substr(from.size());
      } else {
        v = rewrite_refs(std::move(v));
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) v = rewrite_refs(std::move(v));
  }
  return j;
}

nlohmann::json v2_document(const std::vector<const ResourceInfo*>& served) {
  nlohmann::json paths = nlohmann::json::object();
  nlohmann::json definitions = nlohmann::json::object();
  std::set<std::string> done;
  for (const auto* r : served) {
    if (!done.insert(r->group_version()).second) continue;
    auto doc = group_version_document(served, r->group, r->version);
    for (auto& [k, v] : doc["components"]["schemas"].items()) definitions[k] = v;
    for (auto& [k, v] : doc["paths"].items()) {
      nlohmann::json item = nlohmann::json::object();
      for (auto& [verb, op] : v.items()) {
        if (verb == "parameters") {
          nlohmann::json params = nlohmann::json::array();
          for (auto p : op) {
            p["type"] = "string";
            p.erase("schema");
            params.push_back(p);
          }
          item["parameters"] = params;
          continue;
        }
        nlohmann::json o = {
            {"operationId", op["operationId"]},
            {"x-kubernetes-action", op["x-kubernetes-action"]},
            {"x-kubernetes-group-version-kind", op["x-kubernetes-group-version-kind"]},
            {"responses", {{"200", {{"description", "OK"}}}}}};
        nlohmann::json params = nlohmann::json::array();
        for (auto p : op.value("parameters", nlohmann::json::array())) {
          p["type"] = "string";
          p["uniqueItems"] = true;
          p.erase("schema");
          params.push_back(p);
        }
        if (!params.empty()) o["parameters"] = params;
        item[verb] = o;
      }
      paths[k] = item;
    }
  }
  return rewrite_refs({{"swagger", "2.0"},
                       {"info", {{"title", "Kubernetes"}, {"version", kKubeVersion}}},
                       {"paths", paths},
                       {"definitions", definitions}});
}

OpenApiAnswer not_found() {
  return {404, "application/json",
          status_json(ApiError(404, "NotFound", "the server could not find the requested resource"))
              .dump()};
}

}  // namespace

OpenApiAnswer openapi_answer(const ResourceRegistry& registry, const std::string& raw_path,
                             const std::string& accept) {
  const std::vector<const ResourceInfo*> served = registry.all();
  std::string path = raw_path;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/openapi/v2") {
    // kubectl asks for the protobuf form only; JSON is all this server writes.
    const bool json_ok = accept.empty() || accept.find("json") != std::string::npos ||
                         accept.find("*/*") != std::string::npos;
    if (!json_ok) {
      return {406, "application/json",
              status_json(
                  ApiError(406, "NotAcceptable", "only application/json is served for /openapi/v2"))
                  .dump()};
    }
    return {200, "application/json", v2_document(served).dump()};
  }
  if (path == "/openapi/v3") return {200, "application/json", v3_index(served).dump()};
  const std::string prefix = "/openapi/v3/";
  if (path.rfind(prefix, 0) != 0) return not_found();
  const std::string gv = path.substr(prefix.size());
  std::string group, version;
  if (gv.rfind("api/", 0) == 0) {
    version = gv.substr(4);
  } else if (gv.rfind("apis/", 0) == 0) {
    const std::string rest = gv.substr(5);
    const auto slash = rest.find('/');
    if (slash == std::string::npos) return not_found();
    group = rest.substr(0, slash);
    version = rest.substr(slash + 1);
  } else {
    return not_found();
  }
  if (version.empty() || version.find('/') != std::string::npos) return not_found();
  auto doc = group_version_document(served, group, version);
  if (doc.is_null()) return not_found();
  return {200, "application/json", doc.dump()};
}

}  // namespace fitscale::vcluster
