#include "vcluster/field_validation.h"

#include "vcluster/api_error.h"
#include "vcluster/openapi_schemas.h"

namespace fitscale::vcluster {
namespace {

constexpr std::size_t kMaxDepth = 64;  // schemas are shallower; guards hostile nesting

const nlohmann::json* resolve(const nlohmann::json& schema) {
  const nlohmann::json* s = &schema;
  for (int hops = 0; hops < 8 && s->contains("$ref"); ++hops) {
    const std::string ref = (*s)["$ref"];
    const std::string prefix = "#/components/schemas/";
    const auto& all = openapi_component_schemas();
    auto it = all.find(ref.substr(prefix.size()));
    if (ref.rfind(prefix, 0) != 0 || it == all.end()) return nullptr;
    s = &*it;
  }
  return s;
}

void walk(const nlohmann::json& schema, const nlohmann::json& value, const std::string& path,
          std::size_t depth, std::vector<std::string>& out) {
  const nlohmann::json* s = resolve(schema);
  if (s == nullptr || !s->is_object() || depth > kMaxDepth) return;  // (additionalProperties: true)
  if (s->value("x-kubernetes-preserve-unknown-fields", false)) return;
  if (value.is_array() && s->contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      walk((*s)["items"], value[i], path + "[" + std::to_string(i) + "]", depth + 1, out);
    }
    return;
  }
  if (!value.is_object()) return;  // types are not this check's business
  if (s->contains("additionalProperties")) {
    for (const auto& [k, v] : value.items()) {
      walk((*s)["additionalProperties"], v, path.empty() ? k : path + "." + k, depth + 1, out);
    }
    return;
  }
  if (!s->contains("properties")) return;
  const auto& props = (*s)["properties"];
  for (const auto& [k, v] : value.items()) {
    const std::string here = path.empty() ? k : path + "." + k;
    auto it = props.find(k);
    if (it == props.end()) {
      out.push_back(here);
    } else {
      walk(*it, v, here, depth + 1, out);
    }
  }
}

}  // namespace

std::vector<std::string> unknown_fields(const ResourceInfo& r, const nlohmann::json& obj) {
  std::vector<std::string> out;
  if (r.custom) {
    // A custom resource's own schema: the fields pruning would drop (apiVersion, kind and
    // metadata at the root are the server's).
    if (!r.schema || !obj.is_object()) return out;
    const auto& props = r.schema->value("properties", nlohmann::json::object());
    if (r.schema->value("x-kubernetes-preserve-unknown-fields", false)) return out;
    for (const auto& [k, v] : obj.items()) {
      if (k == "apiVersion" || k == "kind" || k == "metadata") continue;
      auto it = props.find(k);
      if (it == props.end())
        out.push_back(k);
      else
        walk(*it, v, k, 1, out);
    }
    return out;
  }
  const std::string name = schema_name_of(r.group, r.version, r.kind);
  if (name.empty()) return out;
  walk(openapi_component_schemas()[name], obj, "", 0, out);
  return out;
}

std::vector<std::string> check_fields(const ResourceInfo& r, const nlohmann::json& obj,
                                      const std::string& directive) {
  if (directive == "Ignore") return {};
  if (!directive.empty() && directive != "Warn" && directive != "Strict") {
    throw bad_request("fieldValidation: Unsupported value: \"" + directive +
                      "\": supported values: \"Ignore\", \"Strict\", \"Warn\"");
  }
  const auto unknown = unknown_fields(r, obj);
  std::vector<std::string> warnings;
  warnings.reserve(unknown.size());
  for (const auto& f : unknown) warnings.push_back("unknown field \"" + f + "\"");
  if (directive == "Strict" && !warnings.empty()) {
    std::string joined;
    for (const auto& w : warnings) joined += (joined.empty() ? "" : ", ") + w;
    throw bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " +
                      r.kind + ": strict decoding error: " + joined);
  }
  return warnings;
}

}  // namespace fitscale::vcluster
