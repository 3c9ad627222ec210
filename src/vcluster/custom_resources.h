#pragma once
// CustomResourceDefinitions (apiextensions.k8s.io/v1): what a definition must say, the
// resources it serves once established, and the checks its objects go through.
// Conversion between served versions is strategy None: only apiVersion changes.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vcluster/object_store.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// On create and update of a definition: defaults (singular, listKind) and the checks
// kube-apiserver makes (name = plural.group, one storage version, a schema per version).
// Throws ApiError 422 naming the field.
void admit_definition(nlohmann::json& crd);
// One ResourceInfo per served version.
std::vector<ResourceInfo> definition_resources(const nlohmann::json& crd);
// Sets status (acceptedNames, storedVersions, NamesAccepted and Established conditions) at
// `now` (RFC 3339) in a stored definition; the caller then serves definition_resources.
void establish_definition(nlohmann::json& crd, const std::string& now);
// Before a definition is deleted: stops serving its resources and deletes their objects.
void withdraw_definition(ObjectStore& store, ResourceRegistry& registry, const nlohmann::json& crd);

// A custom object on its way into storage: pruned, defaulted, validated against the served
// version's schema. Throws ApiError 422 Invalid with one cause per field.
void admit_custom_object(const ResourceInfo& r, nlohmann::json& obj);

}  // namespace fitscale::vcluster
