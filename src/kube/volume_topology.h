#pragma once
// Volume topology for the planner and the binders: a pod whose PersistentVolumeClaim is bound to
// a PersistentVolume with zonal `spec.nodeAffinity` may only run in that zone (kube-scheduler's
// VolumeBinding/VolumeZone filters). The claims and volumes come from informers in `fitscale
// run` and from the store in the virtual cluster; apply_volume_zones() turns them into
// Pod::constraints.volume_zones, which the planner's topology pass (planner/topology.h) and the
// binders' topology filter (planner/topology_filter.h) honour. A claim that is not bound yet
// (WaitForFirstConsumer, or still Pending) or whose volume is unknown constrains nothing: the
// volume is provisioned where the pod lands.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "kube/informer.h"
#include "model/pod.h"

namespace fitscale {

// A PersistentVolumeClaim as the join needs it: the volume it is bound to ("" while unbound).
struct ClaimView {
  std::string key;  // "ns/name"
  std::string volume_name;
};

// A PersistentVolume: the zones its required node affinity allows (sorted; empty: any zone).
// Zone keys read: topology.kubernetes.io/zone, failure-domain.beta.kubernetes.io/zone and the
// EBS CSI driver's topology.ebs.csi.aws.com/zone, with operator In.
struct VolumeView {
  std::string name;
  std::vector<std::string> zones;
};

// Throw InputError naming the object and field.
ClaimView decode_claim(const nlohmann::json& object);
VolumeView decode_volume(const nlohmann::json& object);

ResourceCodec<ClaimView> claim_codec();    // keys "ns/name"
ResourceCodec<VolumeView> volume_codec();  // keys "/name" (cluster-scoped)

// Sets each pod's constraints.volume_zones from its claims: the zones every bound claim's volume
// allows (their intersection; when two claims' volumes share no zone, the first one's zones,
// so the pod waits with a volume reason rather than running anywhere).
void apply_volume_zones(std::vector<Pod>& pods, const std::vector<ClaimView>& claims,
                        const std::vector<VolumeView>& volumes);

// PersistentVolumeClaims and PersistentVolumes kept by one informer each. Not part of the view's
// synced(): until they have listed, pods are planned without volume zones.
class VolumeInformers {
 public:
  VolumeInformers(const KubeConfig& config, const obs::Logger& log, const InformerOptions& options);
  void start();
  void request_stop();
  void stop();
  std::uint64_t generation() const;
  void apply(std::vector<Pod>& pods) const;

 private:
  Informer<ClaimView> claims_;
  Informer<VolumeView> volumes_;
};

}  // namespace fitscale
