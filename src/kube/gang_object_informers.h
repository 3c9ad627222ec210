#pragma once
// The objects that size gangs, kept by one informer each where their CRD is served: coscheduling
// PodGroups, Volcano PodGroups and JobSets (model/pod_group.h, docs/frameworks.md). None of them
// is part of the view's synced(): without them a group's pods wait, they are not mis-sized.
#include <atomic>
#include <vector>

#include "kube/api_client.h"
#include "kube/informer.h"
#include "model/pod.h"
#include "model/pod_group.h"

namespace fitscale {

class GangObjectInformers {
 public:
  GangObjectInformers(const KubeConfig& config, const obs::Logger& log,
                      const InformerOptions& options);

  // Asks `client` (the caller serialises its use) which of the CRDs are served and starts
  // the informers of those; one that cannot be asked is read anyway.
  void start(ApiClient& client);
  void request_stop();
  void stop();
  std::uint64_t generation() const;

  // Sizes the pods' gangs by the objects read; JobSet pods, when JobSets are not served, are
  // no gang (model/pod_group.h, forget_unsized_gangs).
  void apply(std::vector<Pod>& pods) const;

 private:
  const obs::Logger& log_;
  Informer<PodGroupView> coscheduling_;
  Informer<PodGroupView> volcano_;
  Informer<PodGroupView> jobsets_;
  std::atomic<bool> coscheduling_started_{false};
  std::atomic<bool> volcano_started_{false};
  std::atomic<bool> jobsets_started_{false};
};

}  // namespace fitscale
