#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cost/cost_report.h"
#include "model/money.h"

namespace fitscale {

namespace {

using Json = nlohmann::ordered_json;  // keys in insertion order: stable output

// Rounded values print as short decimals (nlohmann writes the shortest round-trip form), so two
// runs that agree to the rounding agree byte for byte.
double usd(double v) { return std::round(v * 1e6) / 1e6; }
double fixed3(double v) { return std::round(v * 1e3) / 1e3; }

Json optional_usd(const std::optional<double>& v) { return v ? Json(usd(*v)) : Json(nullptr); }

}  // namespace

SimWait wait_stats(std::vector<double> samples) {
  SimWait w;
  if (samples.empty()) return w;
  std::sort(samples.begin(), samples.end());
  auto rank = [&](double p) {
    auto n = static_cast<double>(samples.size());
    auto r = static_cast<std::size_t>(std::ceil(p * n));
    return samples[std::clamp<std::size_t>(r, 1, samples.size()) - 1];
  };
  w.p50 = rank(0.50);
  w.p90 = rank(0.90);
  w.p99 = rank(0.99);
  w.max = samples.back();
  double sum = 0;
  for (double s : samples) sum += s;
  w.mean = sum / static_cast<double>(samples.size());
  return w;
}

std::string report_json(const SimReport& r) {
  Json j;
  j["jobs"] = {{"submitted", r.jobs.submitted},
               {"completed", r.jobs.completed},
               {"refused", r.jobs.refused},
               {"terminated", r.jobs.terminated}};
  Json refusals = Json::array();
  for (const auto& x : r.refusals) {
    refusals.push_back(
        {{"job", x.job}, {"namespace", x.ns}, {"at_s", x.at_s}, {"reason", x.reason}});
  }
  j["refusals"] = std::move(refusals);
  Json overruns = Json::array();
  for (const auto& x : r.past_worst_case) {
    overruns.push_back({{"job", x.job},
                        {"namespace", x.ns},
                        {"at_s", x.at_s},
                        {"runtime_s", x.runtime_s},
                        {"action", x.action}});
  }
  j["past_worst_case"] = std::move(overruns);
  Json by_ns = Json::object();
  for (const auto& [ns, v] : r.cost_usd.by_namespace) by_ns[ns] = usd(v);
  j["cost_usd"] = {{"total", usd(r.cost_usd.total)},
                   {"spot", usd(r.cost_usd.spot)},
                   {"on_demand", usd(r.cost_usd.on_demand)},
                   {"idle", usd(r.cost_usd.idle)},
                   {"by_namespace", std::move(by_ns)}};
  j["lower_bound_usd"] = usd(r.lower_bound_usd);
  j["excess_usd"] = {{"boot", usd(r.excess_usd.boot)},
                     {"idle", usd(r.excess_usd.idle)},
                     {"lost_to_interruptions", usd(r.excess_usd.lost_to_interruptions)},
                     {"lost_to_evictions", usd(r.excess_usd.lost_to_evictions)},
                     {"packing", usd(r.excess_usd.packing)}};
  Json by_reason = Json::object();
  for (const auto& [k, n] : r.evictions.nodes_by_reason) by_reason[k] = n;
  j["evictions"] = {{"nodes_drained", r.evictions.nodes},
                    {"drained_by_reason", std::move(by_reason)},
                    {"jobs", r.evictions.jobs},
                    {"pods", r.evictions.pods},
                    {"lost_usd", usd(r.evictions.lost_usd)},
                    {"lost_job_hours", fixed3(r.evictions.lost_job_hours)},
                    {"lost_gpu_hours", fixed3(r.evictions.lost_gpu_hours)}};
  j["wait_s"] = {{"p50", fixed3(r.wait_s.p50)},
                 {"p90", fixed3(r.wait_s.p90)},
                 {"p99", fixed3(r.wait_s.p99)},
                 {"max", fixed3(r.wait_s.max)},
                 {"mean", fixed3(r.wait_s.mean)}};
  Json by_type = Json::object();
  for (const auto& [t, n] : r.nodes.by_instance_type) by_type[t] = n;
  j["nodes"] = {{"launched", r.nodes.launched},
                {"peak", r.nodes.peak},
                {"interrupted", r.nodes.interrupted},
                {"never_registered", r.nodes.never_registered},
                {"by_instance_type", std::move(by_type)}};
  j["gpu_hours"] = {{"provisioned", fixed3(r.gpu_hours.provisioned)},
                    {"used", fixed3(r.gpu_hours.used)}};
  j["sim"] = {{"policy", r.sim.policy},
              {"start", r.sim.start},
              {"virtual_s", fixed3(r.sim.virtual_s)},
              {"wall_s", fixed3(r.sim.wall_s)},
              {"seed", r.sim.seed},
              {"interval_s", r.sim.interval_s},
              {"loops", r.sim.loops},
              {"loops_planned", r.sim.loops_planned},
              {"restarts", r.sim.restarts}};

  // Columns rather than rows: a third of the size, and what a chart library wants anyway.
  Json t = Json::array(), nodes = Json::array(), gp = Json::array(), gu = Json::array(),
       rate = Json::array(), pending = Json::array(), running = Json::array();
  for (const auto& s : r.series) {
    t.push_back(s.t_s);
    nodes.push_back(s.nodes);
    gp.push_back(s.gpus_provisioned);
    gu.push_back(s.gpus_used);
    rate.push_back(usd(s.usd_per_hour));
    pending.push_back(s.pending_pods);
    running.push_back(s.running_pods);
  }
  j["series"] = {{"step_s", r.sample_step_s},          {"t_s", std::move(t)},
                 {"nodes", std::move(nodes)},          {"gpus_provisioned", std::move(gp)},
                 {"gpus_used", std::move(gu)},         {"usd_per_hour", std::move(rate)},
                 {"pending_pods", std::move(pending)}, {"running_pods", std::move(running)}};
  Json waits = Json::array();
  for (double w : r.wait_samples_s) waits.push_back(fixed3(w));
  j["wait_samples_s"] = std::move(waits);
  Json namespaces = Json::object();
  for (const auto& [ns, v] : r.namespaces) {
    Json cum = Json::array();
    for (double c : v.cumulative_usd) cum.push_back(usd(c));
    namespaces[ns] = {{"cost_usd", usd(v.cost_usd)},
                      {"budget",
                       {{"usd_per_hour", optional_usd(v.usd_per_hour)},
                        {"usd_per_day", optional_usd(v.usd_per_day)},
                        {"usd_per_month", optional_usd(v.usd_per_month)},
                        {"usd_per_job", optional_usd(v.usd_per_job)}}},
                      {"peak_committed_usd_per_hour", usd(v.peak_committed_usd_per_hour)},
                      {"max_month_usd", usd(v.max_month_usd)},
                      {"jobs", v.jobs},
                      {"refused", v.refused},
                      {"wait_s",
                       {{"p50", fixed3(v.wait_s.p50)},
                        {"p90", fixed3(v.wait_s.p90)},
                        {"max", fixed3(v.wait_s.max)}}},
                      {"cumulative_usd", std::move(cum)}};
  }
  j["namespaces"] = std::move(namespaces);
  Json costliest = Json::array();
  for (const auto& c : r.costliest_jobs)
    costliest.push_back(
        {{"job", c.job}, {"cost_usd", usd(c.cost_usd)}, {"idle_usd", usd(c.idle_usd)}});
  j["costliest_jobs"] = std::move(costliest);
  return j.dump(2) + "\n";
}

void add_costliest_jobs(SimReport& report, const cost::CostReport& ledger, std::size_t n) {
  report.costliest_jobs.clear();
  for (const auto& line : ledger.by_job) {
    if (report.costliest_jobs.size() >= n) break;
    report.costliest_jobs.push_back(
        {line.key, micros_to_dollars(line.micros), micros_to_dollars(line.idle_micros)});
  }
}

}  // namespace fitscale
