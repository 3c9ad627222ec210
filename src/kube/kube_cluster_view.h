#pragma once
// ClusterView over a live Kubernetes API server: observe() reads the informer caches (nodes,
// pods, PodDisruptionBudgets, coscheduling PodGroups); the actions are API writes. Writes go
// through a gate (leader and not dry-run): a replica that lost its lease stops writing at once,
// even mid-loop.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/interfaces.h"
#include "kube/api_client.h"
#include "kube/event_recorder.h"
#include "kube/gang_object_informers.h"
#include "kube/informer.h"
#include "kube/volume_topology.h"
#include "obs/logger.h"

namespace fitscale {

// How objects are decoded: the fast decoders of kube/decode* in production (see
// default_kube_codecs), simple ones in tests.
struct KubeCodecs {
  ResourceCodec<Pod> pods;
  ResourceCodec<Node> nodes;
  ResourceCodec<PodDisruptionBudgetView> pdbs;
};

struct KubeViewOptions {
  InformerOptions informer;
  ApiClientOptions client;
  std::string component = "fitscale";  // Event source.component
  std::string instance;                // Event reportingInstance (the replica's identity)
  // Queue, rate limit and correlation of Events (component and instance are taken from above).
  EventRecorderOptions events;
};

class KubeClusterView final : public ClusterView {
 public:
  // `log` must outlive the view (the informers' threads write to it).
  KubeClusterView(const KubeConfig& config, const Clock& clock, const obs::Logger& log,
                  KubeCodecs codecs, KubeViewOptions options = {});
  ~KubeClusterView() override;

  void start();  // starts the three informers and the event writer
  void stop();
  // Every write asks the gate first; a refused write is logged, not taken (returns false /
  // EvictOutcome::Failed). `why` says why for the log ("not the leader", "dry run").
  void set_write_gate(std::function<bool()> gate, std::string why);
  // Every informer has listed and none is failing.
  bool synced() const;

  std::uint64_t generation() const override;
  ClusterState observe() override;
  bool cordon(const std::string& node) override;
  bool uncordon(const std::string& node) override;
  bool add_taint(const std::string& node, const Taint& taint) override;
  bool remove_taint(const std::string& node, const std::string& key) override;
  EvictOutcome evict(const std::string& ns, const std::string& pod) override;
  bool delete_node(const std::string& node) override;
  bool delete_pod(const std::string& ns, const std::string& pod) override;
  // A JSON patch that tests the gate's position and name and removes that entry only, so a
  // concurrent change to the gates (Kueue's) makes it retry, never remove the wrong one.
  bool remove_scheduling_gate(const std::string& ns, const std::string& pod,
                              std::string_view gate) override;
  // Queues the event (see EventRecorder); fills in the object's uid and resourceVersion from
  // the informer cache when the caller left them empty.
  void record_event(const ObjectRef& about, const std::string& type, const std::string& reason,
                    const std::string& message) override;
  // The event writer: its counters, set_outcome (metrics) and set_monotonic, before start().
  EventRecorder& events() { return events_; }

  // Informer counters, for tests and metrics.
  const InformerStats& pod_stats() const { return pods_.stats(); }
  const InformerStats& node_stats() const { return nodes_.stats(); }

 private:
  // Read-modify-write of the node's taint list with the resourceVersion read (a merge patch
  // replaces the whole list): `edit` changes the list and returns false when nothing is to be
  // written. Retries on 409.
  bool edit_taints(const std::string& node, const std::string& what,
                   const std::function<bool(nlohmann::json&)>& edit);
  bool allowed(const std::string& action);

  const obs::Logger& log_;
  KubeViewOptions options_;
  Informer<Node> nodes_;
  Informer<Pod> pods_;
  Informer<PodDisruptionBudgetView> pdbs_;
  // PodGroups and JobSets, read only where their CRD is served (start()).
  GangObjectInformers gang_objects_;
  VolumeInformers volumes_;  // PVC -> PV zones of pending pods (kube/volume_topology.h)

  std::mutex write_mu_;  // the writer connection is used by one caller at a time
  ApiClient writer_;
  std::function<bool()> gate_;
  std::string gate_why_;
  EventRecorder events_;
};

}  // namespace fitscale
