#include "planner/reasons.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "model/pool.h"
#include "model/quantity.h"
#include "model/taint.h"
#include "planner/predicates.h"

namespace fitscale::planner {
namespace {

std::string gib(std::int64_t bytes) {
  const double g = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  if (g >= 100) return format_count(std::llround(g));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", g);
  return buf;
}

std::string cpu(std::int64_t milli) {
  if (milli % 1000 == 0) return format_count(milli / 1000);
  return format_count(milli) + "m";
}

bool has_extended(const Resources& r, const std::string& name) {
  return std::any_of(r.extended.begin(), r.extended.end(),
                     [&](const auto& e) { return e.first == name && e.second > 0; });
}

// The GPU model a class pins, for "needs 8 GPUs of model H100".
std::string pinned_gpu_model(const PodClass& c) {
  auto it = c.node_selector.find(label::kGpuModel);
  if (it != c.node_selector.end()) return it->second;
  if (c.affinity.size() == 1) {
    for (const auto& r : c.affinity[0].requirements) {
      if (r.key == label::kGpuModel && r.op == SelectorOp::In && r.values.size() == 1)
        return r.values[0];
    }
  }
  return {};
}

std::string describe_selector(const Labels& s) {
  std::string out;
  for (const auto& [k, v] : s) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string needs(const Resources& req, const std::string& gpu_model) {
  std::string s = "needs ";
  if (req.gpus > 0) {
    s += format_count(req.gpus) + (req.gpus == 1 ? " GPU" : " GPUs");
    if (!gpu_model.empty()) s += " of model " + gpu_model;
    s += ", ";
  }
  s += "cpu " + cpu(req.cpu_milli) + " and " + gib(req.memory_bytes) + " GiB memory";
  for (const auto& [n, v] : req.extended) s += ", " + n + " " + format_count(v);
  return s;
}

// "1,952 of 2,048 GiB memory" for each resource the offering is short of.
std::string shortfalls(const Resources& req, const Resources& alloc) {
  std::vector<std::string> parts;
  if (req.cpu_milli > alloc.cpu_milli)
    parts.push_back(cpu(alloc.cpu_milli) + " of " + cpu(req.cpu_milli) + " CPUs");
  if (req.memory_bytes > alloc.memory_bytes) {
    parts.push_back(gib(alloc.memory_bytes) + " of " + gib(req.memory_bytes) + " GiB memory");
  }
  if (req.gpus > alloc.gpus)
    parts.push_back(format_count(alloc.gpus) + " of " + format_count(req.gpus) + " GPUs");
  if (alloc.ephemeral_bytes > 0 && req.ephemeral_bytes > alloc.ephemeral_bytes) {
    parts.push_back(gib(alloc.ephemeral_bytes) + " of " + gib(req.ephemeral_bytes) +
                    " GiB ephemeral storage");
  }
  if (req.pods > alloc.pods)
    parts.push_back(format_count(alloc.pods) + " of " + format_count(req.pods) + " pods");
  for (const auto& [n, v] : req.extended) {
    std::int64_t have = 0;
    for (const auto& [an, av] : alloc.extended) {
      if (an == n) have = av;
    }
    if (v > have) parts.push_back(format_count(have) + " of " + format_count(v) + " " + n);
  }
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    s += (i == 0 ? "" : (i + 1 == parts.size() ? " and " : ", ")) + parts[i];
  }
  return s;
}

}  // namespace

std::string no_offering_reason(const PodClass& c, const Catalog& catalog,
                               const std::vector<std::uint32_t>& candidates) {
  const Resources& req = c.exemplar->requests;
  if (candidates.empty()) return "no offering in the configured zones";
  // 1. A resource nobody offers.
  for (const auto& [extended_name, v] : req.extended) {
    const std::string& name =
        extended_name;  // a lambda cannot capture a structured binding in C++20
    const bool anyone = std::any_of(candidates.begin(), candidates.end(), [&](std::uint32_t i) {
      return has_extended(catalog.offerings[i].allocatable, name);
    });
    if (!anyone) return "requests " + name + " " + format_count(v) + ": no offering has it";
  }
  if (req.gpus > 0) {
    const bool anyone = std::any_of(candidates.begin(), candidates.end(), [&](std::uint32_t i) {
      return catalog.offerings[i].allocatable.gpus > 0;
    });
    if (!anyone)
      return "requests nvidia.com/gpu " + format_count(req.gpus) + ": no offering has it";
  }
  // 2. Labels no offering carries.
  std::vector<std::uint32_t> matching;
  for (std::uint32_t i : candidates) {
    const Offering& o = catalog.offerings[i];
    if (c.on_demand_only && o.capacity_type == CapacityType::Spot) continue;
    if (labels_admit(c, o.labels)) matching.push_back(i);
  }
  if (matching.empty()) {
    const bool selector_alone =
        std::any_of(candidates.begin(), candidates.end(), [&](std::uint32_t i) {
          return matches_node_selector(c.node_selector, catalog.offerings[i].labels);
        });
    if (!c.node_selector.empty() && !selector_alone) {
      return "node selector " + describe_selector(c.exemplar->node_selector) +
             " matches no offering";
    }
    return "required node affinity matches no offering";
  }
  // 2b. Taints of the pools those offerings are in (the default pool's nvidia.com/gpu on GPU
  // nodes, most often).
  {
    std::vector<std::uint32_t> tolerated;
    std::vector<std::uint32_t> big_enough;
    for (std::uint32_t i : matching) {
      const Offering& o = catalog.offerings[i];
      if (o.taints.empty() || tolerates_all(c.exemplar->tolerations, o.taints))
        tolerated.push_back(i);
      if (fits(req, o.allocatable)) big_enough.push_back(i);
    }
    const bool blocked = !big_enough.empty() &&
                         std::none_of(big_enough.begin(), big_enough.end(), [&](std::uint32_t i) {
                           const auto& t = catalog.offerings[i].taints;
                           return t.empty() || tolerates_all(c.exemplar->tolerations, t);
                         });
    if (blocked) {
      const Offering& o = catalog.offerings[big_enough.front()];
      const Taint* t = first_untolerated(c.exemplar->tolerations, o.taints);
      const std::string pool =
          o.pool_index < catalog.pools.size() ? catalog.pools[o.pool_index].name : "?";
      return "does not tolerate taint " + (t ? describe(*t) : std::string("?")) + " of pool " +
             pool + "'s nodes, which every offering that fits its labels has";
    }
    if (!tolerated.empty()) matching = std::move(tolerated);
  }
  // 3. Too big: report against the offering that comes closest (smallest dominant shortfall).
  std::uint32_t closest = matching.front();
  double closest_share = std::numeric_limits<double>::infinity();
  for (std::uint32_t i : matching) {
    const double s = dominant_share(req, catalog.offerings[i].allocatable);
    if (s < closest_share) {
      closest_share = s;
      closest = i;
    }
  }
  const Offering& o = catalog.offerings[closest];
  const std::string gpu_model = pinned_gpu_model(c);
  std::string what = "the largest matching offering " + o.instance_type;
  if (req.gpus > 0 && req.gpus <= o.allocatable.gpus)
    what += " has " + format_count(o.allocatable.gpus) + " GPUs but";
  else
    what += " has";
  return needs(req, gpu_model) + "; " + what + " " + shortfalls(req, o.allocatable) +
         " allocatable";
}

std::string backoff_reason(const OfferingChoice& choice, const Catalog& catalog) {
  std::string s =
      "all " + format_count(static_cast<std::int64_t>(choice.backed_off.size())) +
      (choice.backed_off.size() == 1 ? " offering that fits is" : " offerings that fit are") +
      " backed off after launch failures (";
  const std::size_t shown = std::min<std::size_t>(3, choice.backed_off.size());
  for (std::size_t i = 0; i < shown; ++i) {
    s += (i ? ", " : "") + catalog.offerings[choice.backed_off[i]].key();
  }
  if (shown < choice.backed_off.size()) s += ", ...";
  return s + ")";
}

std::string short_duration(std::int64_t seconds) {
  const std::int64_t h = seconds / 3600;
  const std::int64_t m = seconds % 3600 / 60;
  const std::int64_t s = seconds % 60;
  std::string out;
  if (h) out += format_count(h) + "h";
  if (m) out += std::to_string(m) + "m";
  if (s || out.empty()) out += std::to_string(s) + "s";
  return out;
}

std::string usd_per_hour(Micros micros_per_hour) {
  return format_usd_micros(micros_per_hour) + "/h";
}

}  // namespace fitscale::planner
