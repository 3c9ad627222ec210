#pragma once
// What the API server does to an object on its way into storage: defaults (a new Pod is
// Pending, a Job gets its selector, a Node a Ready condition) and the few validations kubectl
// users expect to see as 422 Invalid.
#include <nlohmann/json.hpp>
#include <string>

#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

// Before create: fills kind/apiVersion, checks them against the URL, applies defaults.
void admit_create(const ResourceInfo& r, nlohmann::json& obj);
// After create, for defaults that need the server-assigned uid (a Job's controller-uid labels).
// Returns true when `obj` changed.
bool admit_created(const ResourceInfo& r, nlohmann::json& obj);
// Before an update through the main resource (`status_only` false) or the status subresource:
// keeps what that endpoint may not change.
// Through the main resource, metadata.generation goes up when anything but metadata (and status,
// for kinds with a status subresource) changed; a deleting object cannot gain finalizers.
void admit_update(const ResourceInfo& r, const nlohmann::json& stored, nlohmann::json& obj,
                  bool status_only);

// Deletion of an object with finalizers only sets its deletionTimestamp; once an update has
// removed the last finalizer of such an object (`finalized`), the server deletes it.
bool has_finalizers(const nlohmann::json& obj);
bool finalized(const nlohmann::json& obj);

}  // namespace fitscale::vcluster
