#pragma once
// The virtual cluster's built-in scheduler: binds pending pods to Ready, schedulable nodes with
// the planner's predicates (resources, nodeSelector, required node affinity, taints, hostname
// anti-affinity), then, as kube-scheduler's filters do, the pod's required topology: bound
// volumes' zones, DoNotSchedule topology spread, required pod affinity and anti-affinity on any
// key, and other pods' anti-affinity to it (planner/topology_filter.h), so what the planner
// expects to fit does fit, and spread pods land spread. Gangs (fitscale.io/gang or
// scheduling.x-k8s.io/pod-group) are bound all at once or not at all. A pod that fits nowhere
// gets PodScheduled=False/Unschedulable and one FailedScheduling event, as kube-scheduler does;
// that is what autoscalers look for.
#include <string>
#include <vector>

#include "controller/interfaces.h"
#include "vcluster/object_store.h"

namespace fitscale::vcluster {

struct SchedulerPass {
  int bound = 0;
  int unschedulable = 0;
};

// `gpu_models`: the catalog's model names, to canonicalise label aliases.
SchedulerPass schedule_pending_pods(ObjectStore& store, const Clock& clock,
                                    const std::vector<std::string>& gpu_models);

}  // namespace fitscale::vcluster
