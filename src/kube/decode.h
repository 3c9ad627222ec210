#pragma once
// Decoding of Kubernetes Pods, Nodes and PodDisruptionBudgets into the model's value types,
// from JSON (the API server, `kubectl get ... -o json`) and YAML (manifests, `-o yaml`).
//
// JSON: a list is scanned once with simdjson On Demand to find its kind and each item's text,
// and every item is parsed into a small simdjson DOM (which picks the machine's fastest SIMD
// kernel at run time) that stays in cache. One DOM of a whole 300 MB list would write about
// three times its size in fresh memory, and its page faults cost more than the parsing. Single
// objects go straight to the DOM. YAML is parsed with yaml-cpp, turned into JSON and decoded by
// the same code, so both formats accept and reject exactly the same objects.
//
// What a pod's decoding produces (DESIGN.md, model rules):
// - requests = max(max over init containers, sum over containers) + spec.overhead, with a
//   container's limit standing in for a request it does not set (as the API server defaults);
//   init containers with restartPolicy Always (sidecars) count towards the running sum too;
//   `pods` is always 1;
// - nodeSelector and required node affinity with label aliases canonicalised
//   (karpenter.sh/capacity-type -> fitscale.io/capacity-type, ...); matchFields on metadata.name
//   becomes a requirement on kubernetes.io/hostname;
// - required pod anti-affinity terms whose topologyKey is kubernetes.io/hostname (others are
//   ignored: they do not constrain which node type to launch);
// - the controller owner reference (controller: true), gang (fitscale.io/gang or
//   scheduling.x-k8s.io/pod-group: its size from a label, its PodGroup object, or not yet known),
//   activeDeadlineSeconds, priority, phase, nodeName, creation and deletion timestamps.
// A node keeps its labels as they are and gains the canonical key of every alias label it
// carries (an old node's beta.kubernetes.io/instance-type also appears as
// node.kubernetes.io/instance-type). Its state is Ready when its Ready condition is True, else
// Registered.
//
// Errors name the place and the object: "cluster.json: items[3]: pod team-a/train-0:
// spec.containers[0].resources.requests.cpu: bad quantity \"12x\": unknown suffix \"x\"".
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controller/interfaces.h"
#include "model/node.h"
#include "model/pod.h"
#include "model/pod_group.h"

namespace fitscale {

struct DecodedObjects {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PodDisruptionBudgetView> pdbs;
  // Coscheduling PodGroups (scheduling.x-k8s.io): decode_objects has already sized the pods of
  // these groups by them (model/pod_group.h); kept for what else wants to know.
  std::vector<PodGroupView> pod_groups;
  // Pods skipped in skip_bad_pods mode: ("ns/name", "field: what is wrong").
  std::vector<std::pair<std::string, std::string>> bad_pods;
  // Objects of other kinds (Services, Jobs, ...) that were read past, e.g. "Service" x 3.
  std::size_t ignored = 0;
};

// Decodes a file or response body: one object, a `List` (kind List with items of mixed kinds, as
// `kubectl get nodes,pods -A -o json` prints it), a typed list (PodList, NodeList, ...), or for
// YAML several documents of those. JSON or YAML is detected from the first non-blank character.
// `source` names the input in errors ("cluster.json"). Throws InputError on the first bad object,
// except that with `skip_bad_pods` a pod that does not decode is reported in bad_pods and skipped
// (the live controller keeps running and records an event on it). Pods of a coscheduling group
// take their gang size from its PodGroup object when the input has one.
DecodedObjects decode_objects(std::string_view text, std::string_view source,
                              const std::vector<std::string>& gpu_models,
                              bool skip_bad_pods = false);

// One JSON object each (a watch event's object). Throw InputError naming the object.
Pod decode_pod_json(std::string_view json, const std::vector<std::string>& gpu_models);
Node decode_node_json(std::string_view json, const std::vector<std::string>& gpu_models);
PodDisruptionBudgetView decode_pdb_json(std::string_view json);

// A reusable decoder: keeps simdjson's parser buffers between calls, which matters for the many
// small objects of a watch stream. Not thread-safe: one per thread (one per informer).
class JsonDecoder {
 public:
  explicit JsonDecoder(std::vector<std::string> gpu_models);
  ~JsonDecoder();
  JsonDecoder(JsonDecoder&&) noexcept;
  JsonDecoder& operator=(JsonDecoder&&) noexcept;

  // See decode_objects (JSON only).
  DecodedObjects decode(std::string_view json, std::string_view source, bool skip_bad_pods = false);
  // Appends what `json` holds to `out`. `source` prefixes errors ("cluster.yaml:14");
  // `kind_hint` is the kind of an object that does not say (an item of a typed list), or "".
  void decode_into(std::string_view json, std::string_view source, std::string_view kind_hint,
                   bool skip_bad_pods, DecodedObjects& out);
  Pod pod(std::string_view json);
  Node node(std::string_view json);
  PodDisruptionBudgetView pdb(std::string_view json);

  // For list pages of one kind (the informer): every item decoded, or reported in `bad` as
  // ("ns/name" or "name", error) and skipped. `kind` is "Pod", "Node" or "PodDisruptionBudget".
  void decode_list_items(std::string_view json, std::string_view kind,
                         std::vector<std::pair<std::string, Pod>>* pods,
                         std::vector<std::pair<std::string, Node>>* nodes,
                         std::vector<std::pair<std::string, PodDisruptionBudgetView>>* pdbs,
                         std::vector<std::pair<std::string, std::string>>& bad);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fitscale
