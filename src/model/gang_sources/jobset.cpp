#include "model/gang_sources/jobset.h"

namespace fitscale {

std::optional<GangReading> jobset_gang(const Labels& labels, const Annotations& annotations) {
  auto it = labels.find(kJobSetName);
  if (it == labels.end() || it->second.empty()) return std::nullopt;
  GangReading r;
  auto size = read_gang_size(labels, annotations, {label::kGangSize}, r.problem);
  if (r.problem) return r;
  Gang g{it->second, size.value_or(1)};
  if (!size) {
    g.sized_by = GangSizer::JobSet;
    g.size_unknown = true;
  }
  r.gang = std::move(g);
  return r;
}

std::string jobset_missing_reason(const std::string& ns, const std::string& jobset) {
  return "JobSet " + ns + "/" + jobset +
         " has no size yet: its pods do not say how many run at once (replicas x parallelism) "
         "and the JobSet (jobset.x-k8s.io/v1alpha2) has not been read; add annotation "
         "fitscale.io/gang-size to its pod templates, or let fitscale read JobSets";
}

}  // namespace fitscale
