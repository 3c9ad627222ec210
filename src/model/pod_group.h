#pragma once
// The objects that size gangs (model/gang_sources/): coscheduling PodGroups
// (scheduling.x-k8s.io/v1alpha1, kubernetes-sigs/scheduler-plugins) for pods labelled
// scheduling.x-k8s.io/pod-group: NAME, Volcano PodGroups (scheduling.volcano.sh/v1beta1) for pods
// annotated scheduling.k8s.io/group-name: NAME, and JobSets for pods labelled
// jobset.sigs.k8s.io/jobset-name: NAME, each in the object's namespace. The gang schedulers bind
// a group's pods only once minMember of them can be placed, and deny pods whose PodGroup does not
// exist.
#include <cstdint>
#include <string>
#include <vector>

#include "model/pod.h"

namespace fitscale {

struct PodGroupView {
  std::string ns;
  std::string name;
  std::int64_t min_member = 1;  // spec.minMember (a JobSet: the pods it runs at once)
  GangSizer kind = GangSizer::CoschedulingPodGroup;
};

// Gives every pod whose gang is sized by one of `groups` (same kind, namespace and name) that
// object's size (it is what the scheduler obeys, so it wins over a size label on the pod), and
// marks its size as known. Pods of groups not listed keep what the decoder read.
void apply_pod_groups(std::vector<Pod>& pods, const std::vector<PodGroupView>& groups);

// Where objects of `kind` are not read at all (their CRD is not served, so no controller writes
// them), pods whose gang only such an object could size are planned as the pods they are: no
// gang. Used for JobSets, whose pods kube-scheduler binds one by one anyway.
void forget_unsized_gangs(std::vector<Pod>& pods, GangSizer kind);

// The reason a coscheduling pod whose group has no known size waits, for events and plans.
std::string pod_group_missing_reason(const std::string& ns, const std::string& group);

}  // namespace fitscale
