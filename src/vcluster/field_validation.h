#pragma once
// Unknown-field checks, as kube-apiserver's field validation (the fieldValidation query
// parameter of create, update and patch): Strict refuses an object with a field its schema does
// not have (400, "strict decoding error: unknown field \"spec.foo\""), Warn (the default)
// accepts it with a warning per field, Ignore says nothing. Schemas come from
// openapi_schemas.h; kinds without one, and open sub-objects, are not checked.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// The dotted paths of the fields of `obj` its kind's schema does not know, in document order
// ("spec.containers[0].foo").
std::vector<std::string> unknown_fields(const ResourceInfo& r, const nlohmann::json& obj);

// Applies the fieldValidation `directive` ("", Ignore, Warn, Strict): throws ApiError 400
// under Strict when there are unknown fields; returns the warnings otherwise (none under
// Ignore). An unknown directive is 400 as well.
std::vector<std::string> check_fields(const ResourceInfo& r, const nlohmann::json& obj,
                                      const std::string& directive);

}  // namespace fitscale::vcluster
