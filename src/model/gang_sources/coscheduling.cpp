#include "model/gang_sources/coscheduling.h"

namespace fitscale {

std::optional<GangReading> coscheduling_gang(const Labels& labels, const Annotations& annotations) {
  auto it = labels.find(label::kPodGroup);
  if (it == labels.end()) return std::nullopt;
  GangReading r;
  auto size = read_gang_size(labels, annotations,
                             {"scheduling.x-k8s.io/min-available", label::kGangSize}, r.problem);
  if (r.problem) return r;
  Gang g{it->second, size.value_or(1)};
  g.sized_by = GangSizer::CoschedulingPodGroup;
  g.size_unknown = !size.has_value();
  r.gang = std::move(g);
  return r;
}

}  // namespace fitscale
