#pragma once
// How a node's hourly price is split into CPU, RAM and GPU parts for the OpenCost metric names
// (node_cpu_hourly_cost is per vCPU, node_ram_hourly_cost per GiB, node_gpu_hourly_cost per GPU),
// so Kubecost/OpenCost dashboards built on those names keep working.
//
// The rule (docs/operating.md, "OpenCost metrics"): weigh the node's resources with OpenCost's
// default reference prices — $0.031611 per vCPU-hour, $0.004237 per GiB-hour, $0.95 per GPU-hour
// — and scale the three parts so they add up to the node's real price. A node with none of the
// three resources gets its whole price as CPU cost.
#include <cstdint>

namespace fitscale::obs {

struct NodePriceSplit {
  double cpu_per_vcpu_hour = 0;
  double ram_per_gib_hour = 0;
  double gpu_per_gpu_hour = 0;
};

inline constexpr double kReferenceCpuUsdPerVcpuHour = 0.031611;
inline constexpr double kReferenceRamUsdPerGibHour = 0.004237;
inline constexpr double kReferenceGpuUsdPerGpuHour = 0.95;

NodePriceSplit split_node_price(double usd_per_hour, double vcpus, double memory_gib,
                                std::int64_t gpus);

}  // namespace fitscale::obs
