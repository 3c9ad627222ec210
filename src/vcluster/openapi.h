#pragma once
// The OpenAPI documents of the virtual cluster, from the served resources (built-in and those of
// established CustomResourceDefinitions, with their openAPIV3Schema) and the hand-written
// schemas (openapi_schemas.h):
//   /openapi/v3                 the index: {"paths": {"api/v1": {"serverRelativeURL": ...}}}
//   /openapi/v3/api/v1, /openapi/v3/apis/GROUP/VERSION   one document per group/version
//   /openapi/v2                 one Swagger 2.0 document (JSON only)
// kubectl 1.32 reads v3 first. Every PATCH operation declares the fieldValidation query
// parameter, so kubectl leaves unknown-field checks to the server (field_validation.h) instead
// of needing the protobuf form of /openapi/v2 for client-side validation.
#include <string>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

struct OpenApiAnswer {
  int status = 200;
  std::string content_type;
  std::string body;
};

// `path` starts with /openapi/; `accept` is the request's Accept header.
OpenApiAnswer openapi_answer(const ResourceRegistry& registry, const std::string& path,
                             const std::string& accept);

}  // namespace fitscale::vcluster
