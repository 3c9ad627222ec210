#include "cost/cost_report.h"

#include <algorithm>

namespace fitscale::cost {

void CostReportBuilder::put(Lines& lines, const std::string& key, Micros micros, Part part) {
  CostLine& l = lines[key];
  l.key = key;
  l.micros += micros;
  if (part == Part::Idle) l.idle_micros += micros;
  if (part == Part::Unused) l.unused_micros += micros;
}

void CostReportBuilder::add(const Segment& s, const MeteredNode& node, bool open) {
  const Time a = std::max(s.start, since_);
  const Time b = std::min(s.end, until_);
  if (a >= b) return;
  const bool whole = a == s.start && b == s.end;
  const std::vector<Charge> charges =
      whole ? s.charges : attribute(node.charge, node.launched_at, s.split, a, b);
  ++(open ? open_segments_ : segments_);
  const std::string capacity = to_string(node.charge.capacity_type);
  // The attribution's unattributed part is idle when no pod is on the node, unused otherwise.
  const Part rest = s.split.pods.empty() ? Part::Idle : Part::Unused;
  for (const Charge& c : charges) {
    total_ += c.micros;
    const Part part = c.idle ? rest : Part::Used;
    if (part == Part::Idle) idle_ += c.micros;
    if (part == Part::Unused) unused_ += c.micros;
    put(ns_, c.ns, c.micros, part);
    // Jobs are named within their namespace: "team-a/train" (a key already qualified stays).
    std::string job = c.job.empty()                          ? c.ns + "/(idle)"
                      : c.job.find('/') == std::string::npos ? c.ns + "/" + c.job
                                                             : c.job;
    put(job_, job, c.micros, part);
    put(type_, node.charge.instance_type, c.micros, part);
    put(capacity_, capacity, c.micros, part);
  }
}

std::vector<CostLine> CostReportBuilder::sorted(const Lines& lines) {
  std::vector<CostLine> out;
  for (const auto& [k, l] : lines) out.push_back(l);
  std::stable_sort(out.begin(), out.end(),
                   [](const CostLine& x, const CostLine& y) { return x.micros > y.micros; });
  return out;
}

CostReport CostReportBuilder::finish() const {
  CostReport r;
  r.since = since_;
  r.until = until_;
  r.total = total_;
  r.idle = idle_;
  r.unused = unused_;
  r.segments = segments_;
  r.open_segments = open_segments_;
  r.by_namespace = sorted(ns_);
  r.by_job = sorted(job_);
  r.by_instance_type = sorted(type_);
  r.by_capacity_type = sorted(capacity_);
  return r;
}

}  // namespace fitscale::cost
