#include "model/pod_group.h"

#include <map>
#include <tuple>
#include <utility>

namespace fitscale {

void apply_pod_groups(std::vector<Pod>& pods, const std::vector<PodGroupView>& groups) {
  if (groups.empty()) return;
  std::map<std::tuple<GangSizer, std::string, std::string>, std::int64_t> size_of;
  for (const PodGroupView& g : groups) size_of[{g.kind, g.ns, g.name}] = g.min_member;
  for (Pod& p : pods) {
    if (!p.gang || p.gang->sized_by == GangSizer::Pod) continue;
    auto it = size_of.find({p.gang->sized_by, p.ns, p.gang->name});
    if (it == size_of.end()) continue;
    p.gang->size = it->second;
    p.gang->size_unknown = false;
  }
}

void forget_unsized_gangs(std::vector<Pod>& pods, GangSizer kind) {
  for (Pod& p : pods) {
    if (p.gang && p.gang->sized_by == kind && p.gang->size_unknown) p.gang.reset();
  }
}

std::string pod_group_missing_reason(const std::string& ns, const std::string& group) {
  return "pod group " + group + " has no size yet: no PodGroup " + ns + "/" + group +
         " (scheduling.x-k8s.io/v1alpha1, spec.minMember) and no label or annotation "
         "scheduling.x-k8s.io/min-available or fitscale.io/gang-size; the coscheduling plugin "
         "binds none of its pods until the PodGroup exists";
}

}  // namespace fitscale
