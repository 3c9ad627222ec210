#include "model/offering.h"

#include <cmath>

#include "model/error.h"

namespace fitscale {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1024} * 1024;

// CPU the EKS bootstrap reserves for the kubelet and system, in tenths of a milli-core so the
// 0.25%-per-core tier stays exact: 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% above.
std::int64_t eks_cpu_reserved_decimilli(std::int64_t vcpu) {
  std::int64_t r = 0;
  if (vcpu >= 1) r += 600;
  if (vcpu >= 2) r += 100;
  if (vcpu >= 3) r += 50 * (std::min<std::int64_t>(vcpu, 4) - 2);
  if (vcpu > 4) r += 25 * (vcpu - 4);
  return r;
}

}  // namespace

Resources InstanceType::capacity() const {
  Resources r;
  r.cpu_milli = vcpu * 1000;
  r.memory_bytes = memory_mib * kMiB;
  r.gpus = gpu;
  r.pods = 110;  // the kubelet's default max pods
  return r;
}

Resources allocatable(const InstanceType& t, const AllocatableRule& rule) {
  Resources r;
  // Round the reservation up: a node never offers a fraction of a milli-core it might not have.
  const std::int64_t cpu_reserved = (eks_cpu_reserved_decimilli(t.vcpu) + 9) / 10;
  r.cpu_milli = t.vcpu * 1000 - cpu_reserved;
  const std::int64_t mem_reserved_mib = 255 + 11 * rule.max_pods + 100;
  r.memory_bytes = (t.memory_mib - mem_reserved_mib) * kMiB;
  r.gpus = t.gpu;
  r.pods = rule.max_pods;
  r -= rule.daemonset_overhead;
  // A type too small for its reservations holds nothing, rather than a negative amount.
  if (r.cpu_milli < 0) r.cpu_milli = 0;
  if (r.memory_bytes < 0) r.memory_bytes = 0;
  if (r.pods < 0) r.pods = 0;
  if (r.gpus < 0) r.gpus = 0;
  if (r.ephemeral_bytes < 0) r.ephemeral_bytes = 0;
  std::erase_if(r.extended, [](const auto& e) { return e.second <= 0; });
  return r;
}

std::string Offering::key() const {
  std::string k = instance_type + "/" + zone + "/" + to_string(capacity_type);
  if (!reservation_id.empty()) k += "/" + reservation_id;
  return k;
}

double spot_hourly_hazard(int bucket) {
  static constexpr double kMonthlyMid[] = {0.025, 0.075, 0.125, 0.175, 0.25};
  if (bucket < 0 || bucket > 4) {
    throw InputError("spot interruption bucket " + std::to_string(bucket) + " is not 0..4");
  }
  // The bucket is a probability of interruption within a month (730 hours); a constant hazard
  // h gives 1 - exp(-730 h) = p.
  return -std::log1p(-kMonthlyMid[bucket]) / 730.0;
}

}  // namespace fitscale
