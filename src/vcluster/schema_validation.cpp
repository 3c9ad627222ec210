#include "vcluster/schema_validation.h"

#include <regex>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

class Validator {
 public:
  std::vector<FieldError> errors;

  // Returns false when `value` is to be dropped by the caller (a null the schema does not allow).
  bool visit(const json& schema, json& value, const std::string& path, bool root = false) {
    if (!schema.is_object()) return true;
    if (value.is_null()) return schema.value("nullable", false);
    if (!check_type(schema, value, path)) return true;
    const bool preserve = schema.value("x-kubernetes-preserve-unknown-fields", false);
    const bool embedded = schema.value("x-kubernetes-embedded-resource", false);
    if (value.is_object()) visit_object(schema, value, path, preserve, root || embedded);
    if (value.is_array() && schema.contains("items")) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!visit(schema["items"], value[i], path + "[" + std::to_string(i) + "]")) {
          value[i] = nullptr;
          add(path + "[" + std::to_string(i) + "]", "FieldValueRequired", "Required value");
        }
      }
    }
    check_values(schema, value, path);
    return true;
  }

 private:
  void add(const std::string& field, const std::string& reason, const std::string& detail) {
    errors.push_back({field, reason, field + ": " + detail});
  }
  void invalid(const std::string& field, const json& value, const std::string& why) {
    add(field, "FieldValueInvalid", "Invalid value: " + value.dump() + ": " + why);
  }

  bool check_type(const json& schema, const json& value, const std::string& path) {
    if (schema.value("x-kubernetes-int-or-string", false)) {
      if (value.is_number_integer() || value.is_string()) return true;
      invalid(path, value, path + " in body must be of type integer-or-string");
      return false;
    }
    const std::string type = schema.value("type", "");
    bool ok = true;
    if (type == "object") ok = value.is_object();
    if (type == "array") ok = value.is_array();
    if (type == "string") ok = value.is_string();
    if (type == "boolean") ok = value.is_boolean();
    if (type == "number") ok = value.is_number();
    if (type == "integer") {
      ok = value.is_number_integer() ||
           (value.is_number_float() &&
            value.get<double>() == static_cast<double>(value.get<long long>()));
    }
    if (!ok) {
      const char* got = value.is_object()    ? "object"
                        : value.is_array()   ? "array"
                        : value.is_string()  ? "string"
                        : value.is_boolean() ? "boolean"
                                             : "number";
      invalid(path, value, path + " in body must be of type " + type + ": \"" + got + "\"");
    }
    return ok;
  }

  void visit_object(const json& schema, json& value, const std::string& path, bool preserve,
                    bool keep_resource_fields) {
    const json props = schema.value("properties", json::object());
    const json additional = schema.value("additionalProperties", json());
    auto child = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
    for (auto it = value.begin(); it != value.end();) {
      const std::string key = it.key();
      const bool resource_field =
          keep_resource_fields && (key == "apiVersion" || key == "kind" || key == "metadata");
      bool keep = true;
      if (resource_field) {
        // The server's own fields; metadata is validated by the generic code.
      } else if (props.contains(key)) {
        keep = visit(props[key], it.value(), child(key));
      } else if (additional.is_object()) {
        keep = visit(additional, it.value(), child(key));
      } else if (!preserve && !(additional.is_boolean() && additional.get<bool>())) {
        keep = false;  // pruned: an unknown field
      }
      it = keep ? std::next(it) : value.erase(it);
    }
    for (auto& [key, sub] : props.items()) {
      if (!value.contains(key) && sub.is_object() && sub.contains("default")) {
        value[key] = sub["default"];
      }
    }
    for (const auto& req : schema.value("required", json::array())) {
      if (req.is_string() && !value.contains(req.get<std::string>())) {
        add(child(req.get<std::string>()), "FieldValueRequired", "Required value");
      }
    }
  }

  void check_values(const json& schema, const json& value, const std::string& path) {
    if (schema.contains("enum") && schema["enum"].is_array()) {
      bool found = false;
      std::string supported;
      for (const auto& e : schema["enum"]) {
        found |= e == value;
        supported += (supported.empty() ? "" : ", ") + e.dump();
      }
      if (!found) {
        add(path, "FieldValueNotSupported",
            "Unsupported value: " + value.dump() + ": supported values: " + supported);
      }
    }
    if (value.is_number()) {
      const double v = value.get<double>();
      if (schema.contains("maximum") && schema["maximum"].is_number()) {
        const double max = schema["maximum"].get<double>();
        if (schema.value("exclusiveMaximum", false) ? v >= max : v > max) {
          invalid(path, value,
                  path + " in body should be less than " +
                      std::string(schema.value("exclusiveMaximum", false) ? "" : "or equal to ") +
                      schema["maximum"].dump());
        }
      }
      if (schema.contains("minimum") && schema["minimum"].is_number()) {
        const double min = schema["minimum"].get<double>();
        if (schema.value("exclusiveMinimum", false) ? v <= min : v < min) {
          invalid(path, value,
                  path + " in body should be greater than " +
                      std::string(schema.value("exclusiveMinimum", false) ? "" : "or equal to ") +
                      schema["minimum"].dump());
        }
      }
    }
    if (value.is_string()) {
      const auto s = value.get<std::string>();
      if (schema.contains("pattern") && schema["pattern"].is_string()) {
        const auto pattern = schema["pattern"].get<std::string>();
        try {
          if (!std::regex_search(s, std::regex(pattern, std::regex::ECMAScript))) {
            invalid(path, value, path + " in body should match '" + pattern + "'");
          }
        } catch (const std::regex_error&) {
          // A pattern ECMAScript cannot read (Go RE2 syntax): not checked, as documented.
        }
      }
      if (schema.contains("maxLength") && schema["maxLength"].is_number_unsigned() &&
          s.size() > schema["maxLength"].get<std::size_t>()) {
        add(path, "FieldValueTooLong",
            "Too long: may not be more than " + schema["maxLength"].dump() + " bytes");
      }
      if (schema.contains("minLength") && schema["minLength"].is_number_unsigned() &&
          s.size() < schema["minLength"].get<std::size_t>()) {
        invalid(path, value,
                path + " in body should be at least " + schema["minLength"].dump() + " chars long");
      }
    }
    if (value.is_array()) {
      if (schema.contains("maxItems") && schema["maxItems"].is_number_unsigned() &&
          value.size() > schema["maxItems"].get<std::size_t>()) {
        add(path, "FieldValueTooMany",
            "Too many: " + std::to_string(value.size()) + ": must have at most " +
                schema["maxItems"].dump() + " items");
      }
      if (schema.contains("minItems") && schema["minItems"].is_number_unsigned() &&
          value.size() < schema["minItems"].get<std::size_t>()) {
        invalid(path, value,
                path + " in body should have at least " + schema["minItems"].dump() + " items");
      }
    }
  }
};

}  // namespace

// 422 Invalid in kube-apiserver's words: `Kind.group "name" is invalid: field: detail` (several
// causes in brackets), with one details.causes entry per field.
ApiError invalid_error(const std::string& kind, const std::string& group, const std::string& name,
                       const std::vector<FieldError>& errors) {
  std::string listed;
  json causes = json::array();
  for (const auto& e : errors) {
    listed += (listed.empty() ? "" : ", ") + e.message;
    const std::string detail =
        e.message.size() > e.field.size() + 2 ? e.message.substr(e.field.size() + 2) : e.message;
    causes.push_back({{"reason", e.reason}, {"message", detail}, {"field", e.field}});
  }
  if (errors.size() > 1) listed = "[" + listed + "]";
  const std::string qualified = group.empty() ? kind : kind + "." + group;
  ApiError err(422, "Invalid", qualified + " \"" + name + "\" is invalid: " + listed);
  err.details = {{"group", group}, {"kind", kind}, {"name", name}, {"causes", causes}};
  return err;
}

std::vector<FieldError> validate_custom_object(const nlohmann::json& schema, nlohmann::json& obj) {
  if (schema.is_null()) return {};
  Validator v;
  v.visit(schema, obj, "", true);
  return v.errors;
}

}  // namespace fitscale::vcluster
