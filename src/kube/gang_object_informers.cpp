#include "kube/gang_object_informers.h"

#include "kube/api_discovery.h"
#include "kube/jobset_codec.h"
#include "kube/pod_group_codec.h"

namespace fitscale {

GangObjectInformers::GangObjectInformers(const KubeConfig& config, const obs::Logger& log,
                                         const InformerOptions& options)
    : log_(log),
      coscheduling_(config, pod_group_codec(), log, options),
      volcano_(config, volcano_pod_group_codec(), log, options),
      jobsets_(config, jobset_codec(), log, options) {}

void GangObjectInformers::start(ApiClient& client) {
  struct Crd {
    const char* group_version;
    const char* resource;
    const char* what;
    Informer<PodGroupView>* informer;
    std::atomic<bool>* started;
  };
  const Crd crds[] = {
      {"scheduling.x-k8s.io/v1alpha1", "podgroups", "coscheduling PodGroups", &coscheduling_,
       &coscheduling_started_},
      {"scheduling.volcano.sh/v1beta1", "podgroups", "Volcano PodGroups", &volcano_,
       &volcano_started_},
      {"jobset.x-k8s.io/v1alpha2", "jobsets", "JobSets", &jobsets_, &jobsets_started_},
  };
  for (const Crd& c : crds) {
    std::string why;
    const Served served = served_resource(client, c.group_version, c.resource, &why);
    if (served == Served::Unknown)
      log_.warn(std::string("cannot ask whether ") + c.what + " are served; reading them anyway",
                {{"error", why}});
    if (served == Served::No) continue;
    c.informer->start();
    *c.started = true;
  }
}

void GangObjectInformers::request_stop() {
  coscheduling_.request_stop();
  volcano_.request_stop();
  jobsets_.request_stop();
}

void GangObjectInformers::stop() {
  coscheduling_.stop();
  volcano_.stop();
  jobsets_.stop();
}

std::uint64_t GangObjectInformers::generation() const {
  return coscheduling_.cache().generation() + volcano_.cache().generation() +
         jobsets_.cache().generation();
}

void GangObjectInformers::apply(std::vector<Pod>& pods) const {
  if (coscheduling_started_) apply_pod_groups(pods, coscheduling_.cache().items());
  if (volcano_started_) apply_pod_groups(pods, volcano_.cache().items());
  if (jobsets_started_) {
    apply_pod_groups(pods, jobsets_.cache().items());
  } else {
    forget_unsized_gangs(pods, GangSizer::JobSet);
  }
}

}  // namespace fitscale
