#pragma once
// The coscheduling plugin (kubernetes-sigs/scheduler-plugins): pods labelled
// scheduling.x-k8s.io/pod-group: NAME form the gang the PodGroup NAME (scheduling.x-k8s.io/
// v1alpha1, spec.minMember) sizes. Kubeflow's training-operator (--gang-scheduler-name=
// scheduler-plugins) and KubeRay (batchScheduler scheduler-plugins) write this label too.
// A label or annotation scheduling.x-k8s.io/min-available or fitscale.io/gang-size stands in
// until the PodGroup is read; with neither the pods wait for it, as the plugin makes them wait.
#include "model/gang_sources/gang_source.h"

namespace fitscale {

std::optional<GangReading> coscheduling_gang(const Labels& labels, const Annotations& annotations);

}  // namespace fitscale
