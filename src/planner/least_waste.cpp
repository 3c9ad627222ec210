#include "planner/least_waste.h"

#include <algorithm>
#include <limits>
#include <string>

namespace fitscale::planner {

namespace {

// How many pods of `requests` one node of `alloc` holds (0 when none fits).
std::int64_t per_node(const Resources& requests, const Resources& alloc) {
  std::int64_t n = std::numeric_limits<std::int64_t>::max();
  auto limit = [&n](std::int64_t want, std::int64_t have) {
    if (want > 0) n = std::min(n, have / want);
  };
  limit(requests.cpu_milli, alloc.cpu_milli);
  limit(requests.memory_bytes, alloc.memory_bytes);
  limit(requests.gpus, alloc.gpus);
  limit(1, alloc.pods > 0 ? alloc.pods : std::numeric_limits<std::int64_t>::max());
  return n == std::numeric_limits<std::int64_t>::max() ? 0 : n;
}

double unused_fraction(std::int64_t used, std::int64_t have) {
  return have > 0 ? 1.0 - static_cast<double>(used) / static_cast<double>(have) : 0.0;
}

}  // namespace

double waste_score(const Resources& requests, std::int64_t pods, const Offering& o) {
  const std::int64_t fit = per_node(requests, o.allocatable);
  if (fit <= 0 || pods <= 0) return std::numeric_limits<double>::infinity();
  const std::int64_t nodes = (pods + fit - 1) / fit;
  return unused_fraction(requests.cpu_milli * pods, o.allocatable.cpu_milli * nodes) +
         unused_fraction(requests.memory_bytes * pods, o.allocatable.memory_bytes * nodes);
}

void keep_least_waste(const PodClass& c, const Catalog& catalog,
                      std::vector<OfferingChoice>& choices) {
  if (c.exemplar == nullptr) return;
  const Resources& req = c.exemplar->requests;
  const auto pods = static_cast<std::int64_t>(c.pods.size());
  for (OfferingChoice& choice : choices) {
    if (choice.usable.empty()) continue;
    const Offering* best = nullptr;
    double best_score = std::numeric_limits<double>::infinity();
    for (std::uint32_t i : choice.usable) {
      const Offering& o = catalog.offerings[i];
      const double score = waste_score(req, pods, o);
      const bool better =
          best == nullptr || score < best_score ||
          (score == best_score &&
           (o.micros_per_hour < best->micros_per_hour ||
            (o.micros_per_hour == best->micros_per_hour && o.instance_type < best->instance_type)));
      if (better) {
        best = &o;
        best_score = score;
      }
    }
    const std::string type = best->instance_type;
    const CapacityType capacity = best->capacity_type;
    std::erase_if(choice.usable, [&](std::uint32_t i) {
      const Offering& o = catalog.offerings[i];
      return o.instance_type != type || o.capacity_type != capacity;
    });
  }
}

}  // namespace fitscale::planner
