#include "vcluster/custom_resources.h"

#include <cctype>

#include "vcluster/api_error.h"
#include "vcluster/object_meta.h"
#include "vcluster/schema_validation.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

std::string json_string(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> strings(const json& v) {
  std::vector<std::string> out;
  if (!v.is_array()) return out;
  for (const auto& s : v) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace

void admit_definition(json& crd) {
  std::vector<FieldError> errors;
  auto req = [&](const std::string& field) {
    errors.push_back({field, "FieldValueRequired", field + ": Required value"});
  };
  auto bad = [&](const std::string& field, const json& value, const std::string& why) {
    errors.push_back(
        {field, "FieldValueInvalid", field + ": Invalid value: " + value.dump() + ": " + why});
  };
  auto& spec = crd["spec"];
  if (!spec.is_object()) spec = json::object();
  const std::string group = json_string(spec, "group");
  auto& names = spec["names"];
  if (!names.is_object()) names = json::object();
  const std::string plural = json_string(names, "plural");
  const std::string kind = json_string(names, "kind");
  if (group.empty()) {
    req("spec.group");
  } else if (group.find('.') == std::string::npos) {
    bad("spec.group", group, "should be a domain with at least one dot");
  }
  if (plural.empty()) req("spec.names.plural");
  if (kind.empty()) req("spec.names.kind");
  if (!plural.empty() && !group.empty() && name_of(crd) != plural + "." + group) {
    bad("metadata.name", name_of(crd), "must be spec.names.plural+\".\"+spec.group");
  }
  if (!names.contains("singular") && !kind.empty()) names["singular"] = lower(kind);
  if (!names.contains("listKind") && !kind.empty()) names["listKind"] = kind + "List";
  const std::string scope = json_string(spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster") {
    errors.push_back({"spec.scope", "FieldValueNotSupported",
                      "spec.scope: Unsupported value: " + json(scope).dump() +
                          ": supported values: \"Cluster\", \"Namespaced\""});
  }
  const auto& versions = spec["versions"];
  if (!versions.is_array() || versions.empty()) {
    req("spec.versions");
  } else {
    int storage = 0;
    for (std::size_t i = 0; i < versions.size(); ++i) {
      const auto& v = versions[i];
      const std::string at = "spec.versions[" + std::to_string(i) + "]";
      if (!v.is_object() || json_string(v, "name").empty()) req(at + ".name");
      if (v.is_object() && v.value("storage", false)) ++storage;
      if (!v.is_object() || !v.contains("schema") || !v["schema"].is_object() ||
          !v["schema"].contains("openAPIV3Schema")) {
        errors.push_back({at + ".schema.openAPIV3Schema", "FieldValueRequired",
                          at + ".schema.openAPIV3Schema: Required value: schemas are required"});
      }
    }
    if (storage != 1) {
      bad("spec.versions", versions.size(),
          "must have exactly one version marked as storage version");
    }
  }
  if (!errors.empty()) {
    throw invalid_error("CustomResourceDefinition", "apiextensions.k8s.io", name_of(crd), errors);
  }
}

std::vector<ResourceInfo> definition_resources(const json& crd) {
  std::vector<ResourceInfo> out;
  const auto& spec = crd.at("spec");
  const auto& names = spec.at("names");
  for (const auto& v : spec.value("versions", json::array())) {
    if (!v.value("served", true)) continue;
    ResourceInfo r;
    r.group = json_string(spec, "group");
    r.version = json_string(v, "name");
    r.plural = json_string(names, "plural");
    r.singular = json_string(names, "singular");
    r.kind = json_string(names, "kind");
    r.namespaced = json_string(spec, "scope") == "Namespaced";
    r.short_names = strings(names.value("shortNames", json::array()));
    r.categories = strings(names.value("categories", json::array()));
    r.storage = r.plural + "." + r.group;
    r.custom = true;
    if (v.contains("schema") && v["schema"].is_object()) {
      r.schema = std::make_shared<const json>(v["schema"].value("openAPIV3Schema", json()));
    }
    const auto subs = v.value("subresources", json::object());
    if (subs.contains("status")) r.subresources.push_back("status");
    if (subs.contains("scale") && subs["scale"].is_object()) {
      r.subresources.push_back("scale");
      r.scale.spec_replicas = json_string(subs["scale"], "specReplicasPath");
      r.scale.status_replicas = json_string(subs["scale"], "statusReplicasPath");
      r.scale.label_selector = json_string(subs["scale"], "labelSelectorPath");
    }
    for (const auto& c : v.value("additionalPrinterColumns", json::array())) {
      if (!c.is_object()) continue;
      r.printer_columns.push_back({json_string(c, "name"), json_string(c, "type"),
                                   json_string(c, "format"), json_string(c, "description"),
                                   c.value("priority", 0), json_string(c, "jsonPath")});
    }
    out.push_back(std::move(r));
  }
  return out;
}

void establish_definition(json& crd, const std::string& now) {
  auto& status = crd["status"];
  if (!status.is_object()) status = json::object();
  status["acceptedNames"] = crd["spec"]["names"];
  json stored = status.value("storedVersions", json::array());
  for (const auto& v : crd["spec"]["versions"]) {
    if (!v.value("storage", false)) continue;
    bool known = false;
    for (const auto& s : stored) known |= s == v["name"];
    if (!known) stored.push_back(v["name"]);
  }
  status["storedVersions"] = stored;
  auto condition = [&](const char* type, const char* reason, const char* message) {
    json c = {{"type", type},
              {"status", "True"},
              {"reason", reason},
              {"message", message},
              {"lastTransitionTime", now}};
    for (const auto& old : status.value("conditions", json::array())) {
      if (old.value("type", "") == type && old.value("status", "") == "True") {
        c["lastTransitionTime"] = old.value("lastTransitionTime", now);
      }
    }
    return c;
  };
  status["conditions"] = {
      condition("NamesAccepted", "NoConflicts", "no conflicts found"),
      condition("Established", "InitialNamesAccepted", "the initial names have been accepted")};
}

void withdraw_definition(ObjectStore& store, ResourceRegistry& registry, const json& crd) {
  registry.withdraw(name_of(crd));
  const auto& spec = crd.value("spec", json::object());
  const std::string key =
      json_string(spec.value("names", json::object()), "plural") + "." + json_string(spec, "group");
  for (const auto& obj : store.list(key).items) {
    try {
      store.remove(key, namespace_of(obj), name_of(obj));
    } catch (const ApiError&) {
      // Deleted concurrently: fine.
    }
  }
}

void admit_custom_object(const ResourceInfo& r, json& obj) {
  if (!r.schema) return;
  auto errors = validate_custom_object(*r.schema, obj);
  if (!errors.empty()) throw invalid_error(r.kind, r.group, name_of(obj), errors);
}

}  // namespace fitscale::vcluster
