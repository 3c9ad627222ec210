#pragma once
// The native trace format (../shared/data/README.md, "traces/"): a header row naming the columns,
// then one job per row, in any order.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/resources.h"
#include "model/time.h"

namespace fitscale {

struct TraceJob {
  Seconds submit_s = 0;  // from trace start
  std::string job;       // unique id
  std::string ns;        // budget owner
  std::int64_t replicas = 1;
  Resources requests;     // per pod: cpu, memory, nvidia.com/gpu (pods = 1)
  std::string gpu_model;  // "" = any
  Seconds duration_s = 0;
  bool on_demand = false;  // capacity_type "on-demand": never spot
  std::optional<Seconds> checkpoint_interval_s;
  std::optional<Seconds> max_runtime_s;
  std::int64_t line = 0;  // in the file, for messages
};

// Parses the whole text; jobs come back sorted by (submit_s, line). Throws InputError
// "SOURCE:LINE: column NAME: why" for an unknown or missing column or a bad value.
std::vector<TraceJob> parse_trace(std::string_view text, std::string_view source);

}  // namespace fitscale
