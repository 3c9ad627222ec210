#pragma once
// Coscheduling PodGroup objects (scheduling.x-k8s.io/v1alpha1, kubernetes-sigs/scheduler-plugins):
// the size of the gang that pods labelled scheduling.x-k8s.io/pod-group: NAME form in the
// PodGroup's namespace. The plugin binds a group's pods only once minMember of them can be
// placed, and denies pods whose PodGroup does not exist.
#include <cstdint>
#include <string>
#include <vector>

#include "model/pod.h"

namespace fitscale {

struct PodGroupView {
  std::string ns;
  std::string name;
  std::int64_t min_member = 1;  // spec.minMember
};

// Gives every coscheduling pod whose PodGroup is among `groups` that group's minMember as its
// gang size (the object is what the scheduler obeys, so it wins over a size label on the pod),
// and marks its size as known. Pods of groups not listed keep what the decoder read.
void apply_pod_groups(std::vector<Pod>& pods, const std::vector<PodGroupView>& groups);

// The reason a coscheduling pod whose group has no known size waits, for events and plans.
std::string pod_group_missing_reason(const std::string& ns, const std::string& group);

}  // namespace fitscale
