#include "model/gang_sources/volcano.h"

namespace fitscale {

std::optional<GangReading> volcano_gang(const Labels& labels, const Annotations& annotations) {
  auto it = annotations.find(kVolcanoGroupName);
  if (it == annotations.end() || it->second.empty()) return std::nullopt;
  GangReading r;
  auto size = read_gang_size(labels, annotations, {label::kGangSize}, r.problem);
  if (r.problem) return r;
  Gang g{it->second, size.value_or(1)};
  g.sized_by = GangSizer::VolcanoPodGroup;
  g.size_unknown = !size.has_value();
  r.gang = std::move(g);
  return r;
}

std::string volcano_group_missing_reason(const std::string& ns, const std::string& group) {
  return "Volcano pod group " + group + " has no size yet: no PodGroup " + ns + "/" + group +
         " (scheduling.volcano.sh/v1beta1, spec.minMember) and no label or annotation "
         "fitscale.io/gang-size; Volcano binds none of its pods until the PodGroup exists";
}

}  // namespace fitscale
