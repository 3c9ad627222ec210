#include "model/gang_sources/gang_of.h"

#include <array>

#include "model/gang_sources/coscheduling.h"
#include "model/gang_sources/fitscale_gang.h"
#include "model/gang_sources/jobset.h"
#include "model/gang_sources/leaderworkerset.h"
#include "model/gang_sources/volcano.h"
#include "model/pod_group.h"

namespace fitscale {

GangReading gang_of(const Labels& labels, const Annotations& annotations) {
  constexpr std::array<GangSource, 5> kSources = {fitscale_gang, coscheduling_gang, volcano_gang,
                                                  leaderworkerset_gang, jobset_gang};
  for (GangSource source : kSources) {
    if (std::optional<GangReading> r = source(labels, annotations)) return std::move(*r);
  }
  return {};
}

std::string gang_size_missing_reason(const std::string& ns, const Gang& gang) {
  switch (gang.sized_by) {
    case GangSizer::VolcanoPodGroup:
      return volcano_group_missing_reason(ns, gang.name);
    case GangSizer::JobSet:
      return jobset_missing_reason(ns, gang.name);
    case GangSizer::CoschedulingPodGroup:
    case GangSizer::Pod:
      break;
  }
  return pod_group_missing_reason(ns, gang.name);
}

}  // namespace fitscale
