#include "cloud/aws/api_catalog.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "model/money.h"

namespace fitscale::aws {

void parse_instance_types(const pugi::xml_node& response, ApiFacts& facts) {
  for (auto item : response.child("instanceTypeSet").children("item")) {
    ApiTypeFacts t;
    t.name = text(item, "instanceType");
    t.vcpu = item.child("vCpuInfo").child("defaultVCpus").text().as_llong();
    t.memory_mib = item.child("memoryInfo").child("sizeInMiB").text().as_llong();
    t.arch = "amd64";
    for (auto a : item.child("processorInfo").child("supportedArchitectures").children("item")) {
      if (std::string(a.text().get()) == "arm64") t.arch = "arm64";
    }
    for (auto g : item.child("gpuInfo").child("gpus").children("item")) {
      if (std::string(g.child_value("manufacturer")) != "NVIDIA") continue;
      t.gpu += g.child("count").text().as_llong();
      t.gpu_model = g.child_value("name");
      t.gpu_memory_mib = g.child("memoryInfo").child("sizeInMiB").text().as_llong();
    }
    if (!t.name.empty()) facts.types[t.name] = t;
  }
}

void parse_type_offerings(const pugi::xml_node& response, ApiFacts& facts) {
  for (auto item : response.child("instanceTypeOfferingSet").children("item")) {
    facts.offered.emplace(text(item, "instanceType"), text(item, "location"));
  }
}

void parse_spot_prices(const pugi::xml_node& response, ApiFacts& facts) {
  // Newest first per AWS; keep the first price seen for each (type, zone).
  for (auto item : response.child("spotPriceHistorySet").children("item")) {
    auto key = std::make_pair(text(item, "instanceType"), text(item, "availabilityZone"));
    const double price = std::strtod(item.child_value("spotPrice"), nullptr);
    // Not a price fitscale can turn into micro-dollars ("inf", "1e309", "NaN"): as if absent.
    if (price > 0 && price <= kMaxCatalogUsdPerHour) facts.spot.emplace(key, price);
  }
}

namespace {

constexpr size_t kTypesPerCall = 100;  // filter values per request, well inside EC2's limits

// `base` once per chunk of `types` (as Filter.N / InstanceType.N values), or once alone.
void per_type_chunk(const std::vector<std::string>& types,
                    const std::function<void(const std::vector<std::string>&)>& call) {
  if (types.empty()) {
    call({});
    return;
  }
  for (size_t start = 0; start < types.size(); start += kTypesPerCall) {
    const size_t end = std::min(types.size(), start + kTypesPerCall);
    call({types.begin() + static_cast<std::ptrdiff_t>(start),
          types.begin() + static_cast<std::ptrdiff_t>(end)});
  }
}

void add_values(NameValues& p, const std::string& prefix, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    p.emplace_back(prefix + std::to_string(i + 1), values[i]);
  }
}

// The first size of `t` that a catalog file could not hold (model/catalog.h limits), as
// "vcpu 0", or "". Such a type would make capacity arithmetic overflow or offer nothing.
std::string out_of_range_size(const ApiTypeFacts& t) {
  auto outside = [](std::int64_t v, std::int64_t min, std::int64_t max) {
    return v < min || v > max;
  };
  if (outside(t.vcpu, 1, kMaxCatalogVcpu)) return "vcpu " + std::to_string(t.vcpu);
  if (outside(t.memory_mib, 1, kMaxCatalogMemoryMib)) {
    return "memory " + std::to_string(t.memory_mib) + " MiB";
  }
  if (outside(t.gpu, 0, kMaxCatalogGpus)) return std::to_string(t.gpu) + " GPUs";
  if (outside(t.gpu_memory_mib, 0, kMaxCatalogMemoryMib)) {
    return "GPU memory " + std::to_string(t.gpu_memory_mib) + " MiB";
  }
  return "";
}

}  // namespace

bool matches_type_pattern(std::string_view name, std::string_view pattern) {
  // Iterative glob with one backtrack point: linear enough for type names.
  size_t n = 0, p = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++n;
      ++p;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::map<std::pair<std::string, std::string>, double> fetch_spot_prices(
    QueryClient& ec2, const std::vector<std::string>& zones, const std::vector<std::string>& types,
    Time now) {
  ApiFacts facts;
  per_type_chunk(types, [&](const std::vector<std::string>& chunk) {
    NameValues p = {{"ProductDescription.1", "Linux/UNIX"},
                    {"StartTime", format_rfc3339(now)},
                    {"Filter.1.Name", "availability-zone"},
                    {"MaxResults", "1000"}};
    add_values(p, "Filter.1.Value.", zones);
    add_values(p, "InstanceType.", chunk);
    ec2.call_paginated("DescribeSpotPriceHistory", p,
                       [&](const pugi::xml_node& r) { parse_spot_prices(r, facts); });
  });
  return facts.spot;
}

ApiFacts fetch_api_facts(QueryClient& ec2, const CatalogOptions& options, Time now,
                         const std::vector<std::string>& type_patterns) {
  ApiFacts facts;
  facts.type_patterns = type_patterns;
  NameValues types = {{"MaxResults", "100"}};
  if (!type_patterns.empty()) {
    types.emplace_back("Filter.1.Name", "instance-type");
    add_values(types, "Filter.1.Value.", type_patterns);
  }
  ec2.call_paginated("DescribeInstanceTypes", types,
                     [&](const pugi::xml_node& r) { parse_instance_types(r, facts); });
  // Restricted: ask the other two about exactly the types found (not every API takes wildcards
  // the same way). Unrestricted: everything in the zones.
  std::vector<std::string> names;
  if (!type_patterns.empty()) {
    for (const auto& [name, t] : facts.types) names.push_back(name);
    if (names.empty()) return facts;
  }
  per_type_chunk(names, [&](const std::vector<std::string>& chunk) {
    NameValues p = {{"LocationType", "availability-zone"},
                    {"Filter.1.Name", "location"},
                    {"MaxResults", "1000"}};
    add_values(p, "Filter.1.Value.", options.zones);
    if (!chunk.empty()) {
      p.emplace_back("Filter.2.Name", "instance-type");
      add_values(p, "Filter.2.Value.", chunk);
    }
    ec2.call_paginated("DescribeInstanceTypeOfferings", p,
                       [&](const pugi::xml_node& r) { parse_type_offerings(r, facts); });
  });
  facts.spot = fetch_spot_prices(ec2, options.zones, names, now);
  return facts;
}

int apply_spot_prices(Catalog& catalog,
                      const std::map<std::pair<std::string, std::string>, double>& spot) {
  int changed = 0;
  for (auto& o : catalog.offerings) {
    if (o.capacity_type != CapacityType::Spot) continue;
    auto s = spot.find({o.instance_type, o.zone});
    if (s == spot.end()) continue;
    const Micros micros = dollars_to_micros(s->second);
    if (micros == o.micros_per_hour) continue;
    o.usd_per_hour = s->second;
    o.micros_per_hour = micros;
    ++changed;
  }
  return changed;
}

ApiCatalog merge_api_catalog(const ApiFacts& facts, const std::vector<InstanceType>& price_table,
                             const CatalogOptions& options) {
  ApiCatalog out;
  std::map<std::string, const InstanceType*> priced;
  for (const auto& t : price_table) priced[t.name] = &t;
  std::vector<InstanceType> types;
  for (const auto& [name, api] : facts.types) {
    auto row = priced.find(name);
    if (row == priced.end()) {
      out.excluded.push_back({name, "no known on-demand price: never launched"});
      continue;
    }
    if (const std::string bad = out_of_range_size(api); !bad.empty()) {
      out.excluded.push_back({name, "the EC2 API reported " + bad + ": never launched"});
      continue;
    }
    InstanceType t = *row->second;
    t.arch = api.arch;
    t.vcpu = api.vcpu;
    t.memory_mib = api.memory_mib;
    t.gpu = api.gpu;
    if (api.gpu > 0 && !api.gpu_model.empty()) t.gpu_model = api.gpu_model;
    if (api.gpu == 0) t.gpu_model.clear();
    t.gpu_memory_mib = api.gpu_memory_mib;
    // A live spot price makes a spot offering even where the table had no estimate.
    if (!t.spot_usd_per_hour) {
      for (const auto& zone : options.zones) {
        if (auto s = facts.spot.find({name, zone}); s != facts.spot.end()) {
          t.spot_usd_per_hour = s->second;
          break;
        }
      }
    }
    types.push_back(std::move(t));
  }
  for (const auto& t : price_table) {
    const bool asked =
        facts.type_patterns.empty() ||
        std::any_of(facts.type_patterns.begin(), facts.type_patterns.end(),
                    [&](const std::string& p) { return matches_type_pattern(t.name, p); });
    if (asked && !facts.types.count(t.name)) {
      out.excluded.push_back({t.name, "not offered by the EC2 API in " + options.region});
    }
  }
  Catalog built = build_catalog(std::move(types), options);
  // Keep only offerings the API says exist in that zone, at the zone's current spot price.
  std::vector<Offering> kept;
  for (auto& o : built.offerings) {
    if (!facts.offered.count({o.instance_type, o.zone})) continue;
    if (o.capacity_type == CapacityType::Spot) {
      if (auto s = facts.spot.find({o.instance_type, o.zone}); s != facts.spot.end()) {
        o.usd_per_hour = s->second;
        o.micros_per_hour = dollars_to_micros(s->second);
      }
    }
    kept.push_back(std::move(o));
  }
  built.offerings = std::move(kept);
  out.catalog = std::move(built);
  std::sort(out.excluded.begin(), out.excluded.end(),
            [](const ExcludedType& a, const ExcludedType& b) {
              return a.instance_type < b.instance_type;
            });
  return out;
}

}  // namespace fitscale::aws
