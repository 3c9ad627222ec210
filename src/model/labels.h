#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fitscale {

using Labels = std::map<std::string, std::string, std::less<>>;
using Annotations = std::map<std::string, std::string, std::less<>>;

enum class SelectorOp { In, NotIn, Exists, DoesNotExist, Gt, Lt };

// One requirement of a node selector term or a label selector's matchExpressions.
struct Requirement {
  std::string key;
  SelectorOp op = SelectorOp::Exists;
  std::vector<std::string> values;
  bool operator==(const Requirement&) const = default;
};

// Required node affinity: the pod fits a node when ANY term matches, and a term matches when
// ALL its requirements do (Kubernetes nodeSelectorTerms semantics). Empty = no constraint.
struct NodeSelectorTerm {
  std::vector<Requirement> requirements;
  bool operator==(const NodeSelectorTerm&) const = default;
};

// metav1.LabelSelector: matchLabels AND matchExpressions (In, NotIn, Exists, DoesNotExist).
struct LabelSelector {
  Labels match_labels;
  std::vector<Requirement> match_expressions;
  bool operator==(const LabelSelector&) const = default;
};

bool matches(const Requirement& r, const Labels& labels);
// Why a requirement's values do not suit its operator (In/NotIn need some, Exists/DoesNotExist
// none, Gt/Lt one whole number), as the API server's node-selector validation says; "" when they
// do. The one check for Pool requirements, whether read from fitscale's or Karpenter's YAML.
std::string requirement_values_problem(const Requirement& r);
bool matches(const NodeSelectorTerm& t, const Labels& labels);
bool matches(const LabelSelector& s, const Labels& labels);
// nodeSelector map: every key=value present.
bool matches_node_selector(const Labels& node_selector, const Labels& labels);

// Well-known label keys (DESIGN.md, "Labels and annotations").
namespace label {
inline constexpr std::string_view kInstanceType = "node.kubernetes.io/instance-type";
inline constexpr std::string_view kZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kArch = "kubernetes.io/arch";
inline constexpr std::string_view kOs = "kubernetes.io/os";
inline constexpr std::string_view kHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kCapacityType = "fitscale.io/capacity-type";
inline constexpr std::string_view kPool = "fitscale.io/pool";
inline constexpr std::string_view kGpuModel = "fitscale.io/gpu-model";
inline constexpr std::string_view kGang = "fitscale.io/gang";
inline constexpr std::string_view kGangSize = "fitscale.io/gang-size";
inline constexpr std::string_view kPodGroup = "scheduling.x-k8s.io/pod-group";
inline constexpr std::string_view kJob =
    "fitscale.io/job";  // set by the simulator and the virtual cluster
// Aliases accepted in pod selectors and required node affinity.
inline constexpr std::string_view kKarpenterCapacityType = "karpenter.sh/capacity-type";
inline constexpr std::string_view kKarpenterGpuName =
    "karpenter.k8s.aws/instance-gpu-name";  // lower case
inline constexpr std::string_view kBetaInstanceType = "beta.kubernetes.io/instance-type";
inline constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
}  // namespace label

namespace annotation {
inline constexpr std::string_view kMaxRuntime = "fitscale.io/max-runtime";
inline constexpr std::string_view kDoNotDisrupt = "fitscale.io/do-not-disrupt";
inline constexpr std::string_view kKarpenterDoNotDisrupt = "karpenter.sh/do-not-disrupt";
inline constexpr std::string_view kSafeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict";
inline constexpr std::string_view kSimDuration = "fitscale.io/sim-duration";
inline constexpr std::string_view kGangSize =
    "fitscale.io/gang-size";  // also accepted as annotation
// On the Nodes fitscale launches (docs/pools.md): the job and namespace it was launched for,
// and its price (US dollars per hour, as the launch decided it).
inline constexpr std::string_view kNodeJob = "fitscale.io/job";
inline constexpr std::string_view kNodeNamespace = "fitscale.io/namespace";
inline constexpr std::string_view kNodeUsdPerHour = "fitscale.io/usd-per-hour";
inline constexpr std::string_view kNodeInstanceId = "fitscale.io/instance-id";
}  // namespace annotation

// Rewrites alias keys and values into fitscale's canonical node labels, so a pod written for
// Karpenter or an older cluster is matched against the labels fitscale puts on nodes:
// karpenter.sh/capacity-type -> fitscale.io/capacity-type, instance-gpu-name (lower case) ->
// fitscale.io/gpu-model (catalog case), beta instance-type / zone -> the GA keys.
// `gpu_models` are the catalog's model names, used to restore the case.
Requirement canonical_requirement(Requirement r, const std::vector<std::string>& gpu_models);
std::pair<std::string, std::string> canonical_label(std::string key, std::string value,
                                                    const std::vector<std::string>& gpu_models);
// The catalog's spelling of a GPU model named in any case ("a100" -> "A100"), as selectors are
// matched; `value` itself when the catalog has no such model.
std::string gpu_model_case(std::string value, const std::vector<std::string>& gpu_models);
// The canonical key an alias key is rewritten to, or empty when `key` is no alias (a cheap check
// that lets callers skip copying labels that are canonical already).
std::string_view canonical_key_of_alias(std::string_view key);

}  // namespace fitscale
