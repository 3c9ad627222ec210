#pragma once
// Owner-reference garbage collection, as kube-controller-manager's garbage collector does it:
// how a delete propagates to the objects whose metadata.ownerReferences name the deleted
// object (its dependents), and the in-cluster pass that deletes dependents left without owners.
//
// - Background: the owner goes at once; the next pass deletes each dependent none of whose
//   owners exists any more (a dependent with another live owner only loses the dangling
//   reference). An owner of a kind this server does not serve (a ReplicaSet) cannot be looked
//   up and counts as live, as kube's collector does with an owner it cannot map.
// - Foreground: the owner stays with deletionTimestamp and the `foregroundDeletion` finalizer;
//   passes delete its dependents, and once none references it the finalizer goes and, with no
//   other finalizer left, the owner too.
// - Orphan: the dependents lose their reference to the owner (they stay), then the owner goes.
#include <nlohmann/json.hpp>
#include <string>

#include "controller/interfaces.h"
#include "vcluster/object_store.h"
#include "vcluster/resource_registry.h"

namespace fitscale::vcluster {

class RestApi;

enum class Propagation { kBackground, kForeground, kOrphan };

inline constexpr const char* kForegroundFinalizer = "foregroundDeletion";

// The propagation a delete asked for: the propagationPolicy query parameter, else the body's
// DeleteOptions propagationPolicy, else its deprecated orphanDependents; with none, the
// resource's default (Orphan for batch/v1 Jobs, as kube-apiserver keeps for compatibility;
// Background for everything else). Throws ApiError 422 for an unknown policy.
Propagation deletion_propagation(const ResourceInfo& r, const std::string& query_policy,
                                 const nlohmann::json& delete_options);

// Orphan: removes the references to `owner_uid` from every object that has one.
void orphan_dependents(ObjectStore& store, const ResourceRegistry& registry,
                       const std::string& owner_uid);

// Foreground: marks the owner (deletionTimestamp, the foregroundDeletion finalizer) and returns
// it as stored. An owner already being deleted is returned unchanged.
nlohmann::json begin_foreground_deletion(ObjectStore& store, const ResourceInfo& r,
                                         const std::string& ns, const std::string& name,
                                         const Clock& clock);

struct GcPass {
  int dependents_deleted = 0;
  int references_removed = 0;  // dangling references dropped from dependents with live owners
  int owners_finished = 0;     // foreground deletions completed
};

// One pass over every served resource. Dependents are deleted through `api` (propagation
// Background), so they go the way a client's delete would: a running pod gracefully.
GcPass run_garbage_collector(ObjectStore& store, RestApi& api);

}  // namespace fitscale::vcluster
