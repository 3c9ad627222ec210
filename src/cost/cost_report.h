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

// Idle has one meaning in fitscale (docs/cost.md): node time with no pod on it, boot included,
// as `fitscale simulate` reports it. The room pods leave unused on a node they run on is
// `unused`, apart: a partly used node is not idle.
struct CostLine {
  std::string key;
  Micros micros = 0;         // everything charged to the key, idle and unused included
  Micros idle_micros = 0;    // of which idle: node time with no pod on it (boot included)
  Micros unused_micros = 0;  // of which the unused share of nodes with pods on them
};

struct CostReport {
  Time since = 0;
  Time until = 0;
  Micros total = 0;               // node cost in the window = sum of every grouping
  Micros idle = 0;                // node time with no pod on it
  Micros unused = 0;              // the unused share of nodes with pods on them
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
  enum class Part { Used, Idle, Unused };
  static void put(Lines& lines, const std::string& key, Micros micros, Part part);
  static std::vector<CostLine> sorted(const Lines& lines);

  Time since_, until_;
  Micros total_ = 0, idle_ = 0, unused_ = 0;
  std::size_t segments_ = 0, open_segments_ = 0;
  Lines ns_, job_, type_, capacity_;
};

}  // namespace fitscale::cost
