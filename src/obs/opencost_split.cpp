#include "obs/opencost_split.h"

namespace fitscale::obs {

NodePriceSplit split_node_price(double usd_per_hour, double vcpus, double memory_gib,
                                std::int64_t gpus) {
  NodePriceSplit out;
  const double w_cpu = vcpus > 0 ? vcpus * kReferenceCpuUsdPerVcpuHour : 0;
  const double w_ram = memory_gib > 0 ? memory_gib * kReferenceRamUsdPerGibHour : 0;
  const double w_gpu = gpus > 0 ? static_cast<double>(gpus) * kReferenceGpuUsdPerGpuHour : 0;
  const double total = w_cpu + w_ram + w_gpu;
  if (total <= 0) {
    out.cpu_per_vcpu_hour = usd_per_hour;  // nothing to divide by: one "unit" of CPU
    return out;
  }
  const double scale = usd_per_hour / total;
  if (vcpus > 0) out.cpu_per_vcpu_hour = w_cpu * scale / vcpus;
  if (memory_gib > 0) out.ram_per_gib_hour = w_ram * scale / memory_gib;
  if (gpus > 0) out.gpu_per_gpu_hour = w_gpu * scale / static_cast<double>(gpus);
  return out;
}

}  // namespace fitscale::obs
