#pragma once
// Structural-schema handling of custom resources, as kube-apiserver does it for a
// CustomResourceDefinition's openAPIV3Schema: drop nulls, prune fields the schema does not
// name (unless x-kubernetes-preserve-unknown-fields), apply defaults, then validate types,
// required, enum, minimum/maximum, pattern, lengths and item counts.
// Not evaluated: allOf/anyOf/oneOf/not, format, x-kubernetes-validations (CEL), list types.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {

struct FieldError {
  std::string field;    // "spec.replicas"
  std::string reason;   // FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
  std::string message;  // "spec.replicas: Invalid value: ...", the way kube-apiserver words it
};

// 422 Invalid in kube-apiserver's words for `Kind.group "name"` (group "" for the core group),
// one details.causes entry per field.
ApiError invalid_error(const std::string& kind, const std::string& group, const std::string& name,
                       const std::vector<FieldError>& errors);

// Prunes, defaults and validates a whole custom object (apiVersion, kind and metadata at the
// root are the server's and left alone). A null schema accepts anything.
std::vector<FieldError> validate_custom_object(const nlohmann::json& schema, nlohmann::json& obj);

}  // namespace fitscale::vcluster
