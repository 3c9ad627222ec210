#include "cloud/common/price_cap.h"

#include <string>

namespace fitscale::cloud {

int count_within_price_cap(const LaunchRequest& request, LaunchResult& out) {
  int count = request.count;
  if (!request.max_total_micros_per_hour || request.price_micros_per_hour <= 0) return count;
  const auto allowed =
      static_cast<int>(*request.max_total_micros_per_hour / request.price_micros_per_hour);
  if (allowed < count) {
    const std::string key =
        request.instance_type + "/" + request.zone + "/" + to_string(request.capacity_type);
    out.failures.push_back({key, count - allowed, "MaxTotalPriceExceeded",
                            "the budgets' hourly caps allow " + std::to_string(allowed) + " of " +
                                std::to_string(count),
                            false});
    count = allowed;
  }
  return count;
}

}  // namespace fitscale::cloud
