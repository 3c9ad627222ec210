#pragma once
// A node pool (docs/pools.md): which offerings a group of nodes may use (requirements on the
// labels an offering carries), what its nodes carry (labels, taints, startup taints), its weight
// and its limits. Karpenter's NodePool is the model: requirements with the node-selector
// operators, weight higher first, limits on the capacity of the pool's nodes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/labels.h"
#include "model/offering.h"
#include "model/taint.h"
#include "model/time.h"

namespace fitscale {

// Labels an offering carries beyond the well-known ones (instance-type, zone, region, arch,
// capacity-type, gpu-model), derived from the catalog row, so pools and pods can select on them.
namespace label {
inline constexpr std::string_view kInstanceCategory = "fitscale.io/instance-category";  // "p"
inline constexpr std::string_view kInstanceFamily = "fitscale.io/instance-family";      // "p3dn"
inline constexpr std::string_view kInstanceGeneration = "fitscale.io/instance-generation";  // "3"
inline constexpr std::string_view kInstanceSize = "fitscale.io/instance-size";      // "24xlarge"
inline constexpr std::string_view kInstanceCpu = "fitscale.io/instance-cpu";        // vCPUs
inline constexpr std::string_view kInstanceMemory = "fitscale.io/instance-memory";  // MiB
inline constexpr std::string_view kGpuCount = "fitscale.io/gpu-count";
inline constexpr std::string_view kGpuMemory = "fitscale.io/gpu-memory";  // MiB of one GPU
inline constexpr std::string_view kCurrentGeneration = "fitscale.io/current-generation";
inline constexpr std::string_view kProvider = "fitscale.io/provider";  // "aws"
}  // namespace label

// The key the ExtendedResourceToleration admission plugin tolerates for pods that request
// nvidia.com/gpu; the default pool taints its GPU nodes with it.
inline constexpr std::string_view kGpuTaintKey = "nvidia.com/gpu";

// Caps on what the pool's nodes (running, in flight and planned) add up to; unset = no cap.
// cpu and memory are of the nodes' capacity, as Karpenter's limits.
struct PoolLimits {
  std::optional<std::int64_t> cpu_milli;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> gpus;
  std::optional<std::int64_t> nodes;
  std::optional<double> usd_per_hour;
  bool any() const { return cpu_milli || memory_bytes || gpus || nodes || usd_per_hour; }
  bool operator==(const PoolLimits&) const = default;
};

// Where and how the pool's nodes are launched on AWS (Karpenter's EC2NodeClass is the model).
// Only launchTemplate reaches the AWS provider today; the rest is read, checked and shown by
// `fitscale validate`, and refused by nothing (docs/pools.md, "Provider template").
struct AwsSelectorTerm {
  std::map<std::string, std::string> tags;  // every tag must match ("*" = any value)
  std::string id;                           // or one resource id
  bool operator==(const AwsSelectorTerm&) const = default;
};
struct AwsPoolTemplate {
  std::string launch_template_name;
  std::string launch_template_id;
  std::string launch_template_version;  // empty = $Default
  std::string ami_ssm_parameter;        // "/aws/service/eks/optimized-ami/.../image_id"
  std::vector<AwsSelectorTerm> subnet_selector_terms;
  std::vector<AwsSelectorTerm> security_group_selector_terms;
  std::map<std::string, std::string> tags;  // added to the instances
  // Karpenter's capacityReservationSelectorTerms: the reservations (ODCRs, Capacity Blocks) the
  // pool launches into first, by id or tags (docs/reserved-capacity.md).
  std::vector<AwsSelectorTerm> capacity_reservation_selector_terms = {};
  bool has_launch_template() const {
    return !launch_template_name.empty() || !launch_template_id.empty();
  }
  bool operator==(const AwsPoolTemplate&) const = default;
};

// When the pool's empty nodes go (Karpenter's consolidationPolicy WhenEmpty + consolidateAfter).
struct PoolScaleDown {
  bool when_empty = true;              // false: its empty nodes are kept (a warm pool)
  std::optional<Seconds> empty_after;  // nullopt: the config's scaleDown.emptyAfter
  bool operator==(const PoolScaleDown&) const = default;
};

struct Pool {
  std::string name;
  std::int64_t weight = 0;  // 0..100, higher first; equal weights: the cheapest
  // Every requirement must hold for an offering to be the pool's (as one nodeSelectorTerm).
  std::vector<Requirement> requirements;
  Labels labels;                      // added to the pool's nodes
  std::vector<Taint> taints;          // on all the pool's nodes
  std::vector<Taint> gpu_taints;      // on its nodes with GPUs only
  std::vector<Taint> startup_taints;  // on its nodes at creation; pods need not tolerate them
  PoolLimits limits;
  std::string provider;                  // "" = any provider; "aws", "sim", ...
  AwsPoolTemplate aws;                   // template: (provider aws or any)
  std::optional<std::int64_t> max_pods;  // kubelet.maxPods: caps pods per node in packing
  PoolScaleDown scale_down;
  // Nodes never expire (expireAfter: Never, the only value): a week-long training job is never
  // ended to renew its node.
  bool operator==(const Pool&) const = default;
};

// The pool fitscale uses when none is configured (docs/pools.md, "The default pool"): amd64
// only, current-generation types, GPU nodes tainted nvidia.com/gpu:NoSchedule; spot first is
// the planner's rule for every pool.
Pool default_pool(std::string name);

// AWS naming: "p3dn.24xlarge" -> category p, family p3dn, generation 3, size 24xlarge. Parts a
// name does not have are empty ("u-3tb1.56xlarge" has no generation).
struct TypeName {
  std::string category;
  std::string family;
  std::string generation;
  std::string size;
};
TypeName parse_type_name(std::string_view name);

// Current generation: every family but those AWS lists as previous generation (C1, C3, D2, I2,
// M1, M2, M3, R3, T1, X1, X1e in the shipped catalog; CC2, CR1, G2, HS1 retired before).
bool is_current_generation(std::string_view instance_type);

// The labels of `t` that requirements may name beyond the offering's well-known ones.
void add_type_labels(const InstanceType& t, Labels& labels);

// Whether every requirement of the pool holds for an offering's labels.
bool pool_admits(const Pool& pool, const Labels& offering_labels);

// The taints a node of `t` launched for `pool` carries (taints, then gpu_taints on GPU types).
std::vector<Taint> node_taints(const Pool& pool, const InstanceType& t);

// "p3dn.24xlarge In [a, b]" style, for validate and reasons.
std::string describe(const Requirement& r);
std::string describe(const Taint& t);  // "nvidia.com/gpu=true:NoSchedule"

}  // namespace fitscale
