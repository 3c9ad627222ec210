#pragma once
// Object names as kube-apiserver validates them: every name must be usable as one URL path
// segment (not "." or "..", no "/" or "%"), namespaces and services must be DNS labels (RFC 1123,
// at most 63 characters), and the other built-in kinds DNS subdomains (at most 253). A name that
// breaks these is refused with 422 Invalid before it is stored, so it can always be addressed
// (and deleted) later.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// nullopt when `name` is valid; otherwise the reason, worded as kube-apiserver words it.
std::optional<std::string> dns1123_label_error(const std::string& name);
std::optional<std::string> dns1123_subdomain_error(const std::string& name);

// Throws ApiError 422 Invalid (reason, details.causes naming metadata.name or
// metadata.namespace) when the object's name, generateName or namespace is not valid for `r`.
void validate_object_names(const ResourceInfo& r, const std::string& url_namespace,
                           const nlohmann::json& obj);
// A namespace taken from a URL, before the server would create it implicitly.
void validate_namespace_name(const std::string& ns);

}  // namespace fitscale::vcluster
