#include "model/gang_sources/fitscale_gang.h"

namespace fitscale {

std::optional<GangReading> fitscale_gang(const Labels& labels, const Annotations& annotations) {
  auto it = labels.find(label::kGang);
  if (it == labels.end()) return std::nullopt;
  GangReading r;
  auto size = read_gang_size(labels, annotations, {label::kGangSize}, r.problem);
  if (r.problem) return r;
  if (!size) {
    r.problem = GangProblem{"metadata.labels." + std::string(label::kGang),
                            "gang \"" + it->second + "\" needs its size: label or annotation " +
                                std::string(label::kGangSize)};
    return r;
  }
  r.gang = Gang{it->second, *size};
  return r;
}

}  // namespace fitscale
