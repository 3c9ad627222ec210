#pragma once
// Small hand-made catalogs and pods, so every expected plan can be checked with a pencil.
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/pod.h"
#include "planner/plan.h"

namespace fitscale::testing {

constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
constexpr std::int64_t kMi = 1024LL * 1024;

struct TypeSpec {
  TypeSpec(std::string n, std::int64_t cpu, std::int64_t mem, std::int64_t g = 0,
           double spot_price = 0, double od_price = 1, std::string model = "",
           std::vector<std::pair<std::string, std::int64_t>> ext = {})
      : name(std::move(n)),
        cpu_milli(cpu),
        memory_bytes(mem),
        gpus(g),
        spot(spot_price),
        on_demand(od_price),
        gpu_model(std::move(model)),
        extended(std::move(ext)) {}
  std::string name;
  std::int64_t cpu_milli;
  std::int64_t memory_bytes;
  std::int64_t gpus;
  double spot;  // 0 = no spot offering
  double on_demand;
  std::string gpu_model;
  std::vector<std::pair<std::string, std::int64_t>> extended;
};

// Offerings exactly as given (allocatable = the numbers above, 110 pods), in every zone.
inline Catalog make_catalog(const std::vector<TypeSpec>& specs,
                            const std::vector<std::string>& zones = {"us-east-1a", "us-east-1b",
                                                                     "us-east-1c"},
                            const std::vector<double>& zone_price_factor = {}) {
  Catalog c;
  for (const TypeSpec& s : specs) {
    InstanceType t;
    t.name = s.name;
    t.arch = "amd64";
    t.vcpu = s.cpu_milli / 1000;
    t.memory_mib = s.memory_bytes / kMi;
    t.gpu = s.gpus;
    t.gpu_model = s.gpu_model;
    t.on_demand_usd_per_hour = s.on_demand;
    if (s.spot > 0) t.spot_usd_per_hour = s.spot;
    c.types.push_back(t);
    if (!s.gpu_model.empty()) c.gpu_models.push_back(s.gpu_model);
    for (std::size_t z = 0; z < zones.size(); ++z) {
      for (CapacityType ct : {CapacityType::Spot, CapacityType::OnDemand}) {
        if (ct == CapacityType::Spot && s.spot <= 0) continue;
        Offering o;
        o.type_index = static_cast<std::uint32_t>(c.types.size() - 1);
        o.instance_type = s.name;
        o.zone = zones[z];
        o.capacity_type = ct;
        o.allocatable.cpu_milli = s.cpu_milli;
        o.allocatable.memory_bytes = s.memory_bytes;
        o.allocatable.gpus = s.gpus;
        o.allocatable.pods = 110;
        o.allocatable.extended = s.extended;
        const double factor = z < zone_price_factor.size() ? zone_price_factor[z] : 1.0;
        o.usd_per_hour = (ct == CapacityType::Spot ? s.spot : s.on_demand) * factor;
        o.micros_per_hour = dollars_to_micros(o.usd_per_hour);
        o.labels = {{std::string(label::kInstanceType), s.name},
                    {std::string(label::kZone), zones[z]},
                    {std::string(label::kArch), "amd64"},
                    {std::string(label::kCapacityType), to_string(ct)}};
        if (!s.gpu_model.empty()) o.labels[std::string(label::kGpuModel)] = s.gpu_model;
        c.offerings.push_back(o);
      }
    }
  }
  return c;
}

inline Pod make_pod(const std::string& name, std::int64_t cpu_milli, std::int64_t memory_bytes,
                    std::int64_t gpus = 0, const std::string& ns = "team-a") {
  Pod p;
  p.ns = ns;
  p.name = name;
  p.uid = ns + "-" + name;
  p.requests.cpu_milli = cpu_milli;
  p.requests.memory_bytes = memory_bytes;
  p.requests.gpus = gpus;
  p.requests.pods = 1;
  p.phase = PodPhase::Pending;
  p.owner = {"Job", name, "uid-" + name};  // its own Job unless a test says otherwise
  return p;
}

inline Node make_node(const std::string& name, std::int64_t cpu_milli, std::int64_t memory_bytes,
                      const std::string& zone = "us-east-1a", NodeState state = NodeState::Ready) {
  Node n;
  n.name = name;
  n.state = state;
  n.zone = zone;
  n.allocatable.cpu_milli = cpu_milli;
  n.allocatable.memory_bytes = memory_bytes;
  n.allocatable.pods = 110;
  n.labels = {{std::string(label::kZone), zone}, {std::string(label::kHostname), name}};
  return n;
}

// A policy with budgets off, so placement tests see only placement.
inline Policy no_budgets() {
  Policy p;
  p.enforce_budgets = false;
  return p;
}

inline int launched(const Plan& plan) {
  int n = 0;
  for (const auto& l : plan.launch) n += l.count;
  return n;
}

inline const UnschedulableDecision* reason_for(const Plan& plan, const std::string& pod) {
  for (const auto& u : plan.unschedulable) {
    if (u.pod == pod) return &u;
  }
  return nullptr;
}

}  // namespace fitscale::testing
