#pragma once
// scheduling.k8s.io/v1 PriorityClass, and the Priority admission step of pod creation:
// kube-apiserver resolves spec.priorityClassName into spec.priority (and preemptionPolicy)
// when a pod is created, so the scheduler only reads the integer.
#include <nlohmann/json.hpp>

#include "vcluster/object_store.h"

namespace fitscale::vcluster {

// The two classes every cluster has (system-cluster-critical, system-node-critical); created
// when missing.
void ensure_system_priority_classes(ObjectStore& store);

// Checks a PriorityClass being created: an integer `value` (at most 1,000,000,000 unless the
// name is a system- class), `globalDefault` on at most one class. Throws ApiError 422 Invalid.
void admit_priority_class(const ObjectStore& store, const nlohmann::json& pc);

// Sets spec.priority, spec.priorityClassName (from the globalDefault class when the pod names
// none) and spec.preemptionPolicy. Without a class and without a default: priority 0. Throws
// ApiError 403 Forbidden, as the Priority admission plugin, for a class that does not exist
// and for a spec.priority that disagrees with the class.
void resolve_pod_priority(const ObjectStore& store, nlohmann::json& pod);

}  // namespace fitscale::vcluster
