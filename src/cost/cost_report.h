#pragma once
// Totals over [since, until) for `fitscale cost` and the simulator's report: by namespace, job,
// instance type and capacity type, each with its idle part. Segments that straddle the window
// are re-attributed over the part inside it, with the same split, so totals stay exact.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cost/meter.h"

namespace fitscale::cost {

struct CostLine {
  std::string key;
  Micros micros = 0;       // everything charged to the key, idle included
  Micros idle_micros = 0;  // of which idle (node time no pod used)
};

struct CostReport {
  Time since = 0;
  Time until = 0;
  Micros total = 0;  // node cost in the window = sum of every grouping
  Micros idle = 0;
  std::size_t segments = 0;       // closed segments counted
  std::size_t open_segments = 0;  // still-open segments counted (metered to `until`)
  // Sorted by cost, largest first, then key.
  std::vector<CostLine> by_namespace;
  std::vector<CostLine> by_job;  // idle goes to the job that caused the launch
  std::vector<CostLine> by_instance_type;
  std::vector<CostLine> by_capacity_type;
};

class CostReportBuilder {
 public:
  CostReportBuilder(Time since, Time until) : since_(since), until_(until) {}
  // Adds the part of `s` inside [since, until). `open` marks a segment still being metered.
  void add(const Segment& s, const MeteredNode& node, bool open = false);
  CostReport finish() const;

 private:
  using Lines = std::map<std::string, CostLine>;
  static void put(Lines& lines, const std::string& key, Micros micros, bool idle);
  static std::vector<CostLine> sorted(const Lines& lines);

  Time since_, until_;
  Micros total_ = 0, idle_ = 0;
  std::size_t segments_ = 0, open_segments_ = 0;
  Lines ns_, job_, type_, capacity_;
};

}  // namespace fitscale::cost
