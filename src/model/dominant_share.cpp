#include "model/dominant_share.h"

#include <algorithm>

namespace fitscale {
namespace {

using i128 = __int128;

std::int64_t fraction_ppb(std::int64_t request, std::int64_t allocatable) {
  if (request <= 0) return 0;
  if (allocatable <= 0) return kWholeNode;
  const i128 v = static_cast<i128>(request) * kWholeNode / allocatable;
  return static_cast<std::int64_t>(std::min<i128>(v, kWholeNode));
}

}  // namespace

std::int64_t dominant_share(const Resources& requests, const Resources& allocatable) {
  return std::max({fraction_ppb(requests.cpu_milli, allocatable.cpu_milli),
                   fraction_ppb(requests.memory_bytes, allocatable.memory_bytes),
                   fraction_ppb(requests.gpus, allocatable.gpus)});
}

Micros share_of(Micros total, std::int64_t weight, std::int64_t sum) {
  if (weight <= 0) return 0;
  const i128 denominator = std::max<std::int64_t>(sum, kWholeNode);
  return static_cast<Micros>(static_cast<i128>(total) * weight / denominator);
}

}  // namespace fitscale
