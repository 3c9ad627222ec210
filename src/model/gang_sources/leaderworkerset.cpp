#include "model/gang_sources/leaderworkerset.h"

namespace fitscale {

std::optional<GangReading> leaderworkerset_gang(const Labels& labels,
                                                const Annotations& annotations) {
  auto name = labels.find("leaderworkerset.sigs.k8s.io/name");
  auto index = labels.find("leaderworkerset.sigs.k8s.io/group-index");
  if (name == labels.end() || index == labels.end()) return std::nullopt;
  GangReading r;
  auto size = read_gang_size(labels, annotations, {"leaderworkerset.sigs.k8s.io/size"}, r.problem);
  if (r.problem) return r;
  // LWS has written the size on every pod since its first release; a pod without it is planned
  // alone rather than waiting for a size nothing will write.
  if (!size) return r;
  Gang g{name->second + "-" + index->second, *size};
  g.partial_after = kLeaderWorkerSetPartialAfter;
  r.gang = std::move(g);
  return r;
}

}  // namespace fitscale
