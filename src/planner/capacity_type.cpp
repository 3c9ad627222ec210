#include "planner/capacity_type.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "model/error.h"
#include "model/labels.h"
#include "planner/offering_choice.h"
#include "planner/predicates.h"

namespace fitscale::planner {

namespace {

std::optional<Seconds> duration_annotation(const Pod& pod, std::string_view key) {
  auto it = pod.annotations.find(key);  // no std::string: the keys are longer than SSO
  if (it == pod.annotations.end()) return std::nullopt;
  try {
    const Seconds s = parse_duration(it->second);
    if (s > 0) return s;
  } catch (const InputError&) {
    // Declares nothing usable: the capacity type stays spot (validated by `fitscale validate`
    // nowhere; a typo here costs at most the premium it was meant to save).
  }
  return std::nullopt;
}

// The cheapest way to run one pod of the class per hour: on spot, with the offering's hazard
// (per hour), and on demand.
struct ClassPrices {
  struct Spot {
    double usd_per_hour;
    double hazard_per_hour;
  };
  std::vector<Spot> spot;  // every spot offering the class may use
  double on_demand = std::numeric_limits<double>::infinity();
};

ClassPrices class_prices(const PodClass& c, const Catalog& catalog,
                         const std::vector<std::uint32_t>& candidates) {
  ClassPrices out;
  for (std::uint32_t i : candidates) {
    const Offering& o = catalog.offerings[i];
    // A reservation's room is limited: spot or on-demand is the choice for what it cannot hold.
    if (is_reserved(o) || !offering_admits(c, o)) continue;
    const double usd = o.usd_per_hour * dominant_share(c.exemplar->requests, o.allocatable);
    if (o.capacity_type == CapacityType::OnDemand) {
      out.on_demand = std::min(out.on_demand, usd);
      continue;
    }
    const InstanceType& t = catalog.types[o.type_index];
    const double hazard =
        t.spot_interruption_bucket ? spot_hourly_hazard(*t.spot_interruption_bucket) : 0.0;
    out.spot.push_back({usd, hazard});
  }
  return out;
}

// Whether a run of this profile costs less, in expectation, on demand than on the cheapest spot.
bool on_demand_is_cheaper(const ClassPrices& prices, const RunProfile& run, std::int64_t members) {
  if (!run.expected_runtime || prices.spot.empty() || !std::isfinite(prices.on_demand))
    return false;
  double spot = std::numeric_limits<double>::infinity();
  for (const auto& s : prices.spot) {
    spot = std::min(
        spot, s.usd_per_hour * spot_time_factor(s.hazard_per_hour * static_cast<double>(members),
                                                *run.expected_runtime, run.checkpoint_interval));
  }
  return prices.on_demand < spot;
}

}  // namespace

RunProfile run_profile(const Pod& pod) {
  return {expected_runtime(pod), duration_annotation(pod, annotation::kCheckpointInterval)};
}

std::optional<Seconds> expected_runtime(const Pod& pod) {
  return duration_annotation(pod, annotation::kExpectedRuntime);
}

double spot_time_factor(double hazard_per_hour, Seconds runtime_s,
                        std::optional<Seconds> checkpoint_s) {
  if (hazard_per_hour <= 0 || runtime_s <= 0) return 1.0;
  const double t = static_cast<double>(runtime_s) / 3600.0;
  const double c = checkpoint_s ? std::min(t, static_cast<double>(*checkpoint_s) / 3600.0) : t;
  const double x = hazard_per_hour * c;
  if (x > 700) return std::numeric_limits<double>::infinity();
  // (t / c) intervals, each (e^(hc) - 1) / h in expectation; divided by t.
  return std::expm1(x) / x;
}

std::vector<PodClass> split_by_expected_loss(std::vector<PodClass> classes,
                                             const std::vector<Pod>& pods, const Catalog& catalog,
                                             const std::vector<std::uint32_t>& candidates,
                                             std::int64_t members) {
  std::vector<PodClass> out;
  out.reserve(classes.size());
  for (PodClass& c : classes) {
    if (c.on_demand_only) {
      out.push_back(std::move(c));
      continue;
    }
    // Most pods declare nothing: look at the class's offerings only when one does.
    std::vector<std::uint32_t> od;
    std::vector<std::uint32_t> rest;
    std::optional<ClassPrices> prices;
    std::map<std::pair<Seconds, Seconds>, bool> verdicts;  // per declared profile
    for (std::uint32_t pi : c.pods) {
      const RunProfile run = run_profile(pods[pi]);
      bool on_demand = false;
      if (run.expected_runtime) {
        const std::pair<Seconds, Seconds> key{*run.expected_runtime,
                                              run.checkpoint_interval.value_or(0)};
        auto it = verdicts.find(key);
        if (it == verdicts.end()) {
          if (!prices) prices = class_prices(c, catalog, candidates);
          it = verdicts.emplace(key, on_demand_is_cheaper(*prices, run, members)).first;
        }
        on_demand = it->second;
      }
      (on_demand ? od : rest).push_back(pi);
    }
    if (od.empty()) {
      out.push_back(std::move(c));
      continue;
    }
    if (!rest.empty()) {
      PodClass spot = c;
      spot.pods = std::move(rest);
      spot.exemplar = &pods[spot.pods.front()];
      out.push_back(std::move(spot));
    }
    c.pods = std::move(od);
    c.exemplar = &pods[c.pods.front()];
    c.on_demand_only = true;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fitscale::planner
