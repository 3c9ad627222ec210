#include "cloud/aws/api_catalog.h"

#include <algorithm>
#include <cstdlib>

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
    if (price > 0) facts.spot.emplace(key, price);
  }
}

ApiFacts fetch_api_facts(QueryClient& ec2, const CatalogOptions& options, Time now) {
  ApiFacts facts;
  ec2.call_paginated("DescribeInstanceTypes", {{"MaxResults", "100"}},
                     [&](const pugi::xml_node& r) { parse_instance_types(r, facts); });
  NameValues offerings = {
      {"LocationType", "availability-zone"}, {"Filter.1.Name", "location"}, {"MaxResults", "1000"}};
  NameValues spot = {{"ProductDescription.1", "Linux/UNIX"},
                     {"StartTime", format_rfc3339(now)},
                     {"Filter.1.Name", "availability-zone"},
                     {"MaxResults", "1000"}};
  for (size_t i = 0; i < options.zones.size(); ++i) {
    offerings.emplace_back("Filter.1.Value." + std::to_string(i + 1), options.zones[i]);
    spot.emplace_back("Filter.1.Value." + std::to_string(i + 1), options.zones[i]);
  }
  ec2.call_paginated("DescribeInstanceTypeOfferings", offerings,
                     [&](const pugi::xml_node& r) { parse_type_offerings(r, facts); });
  ec2.call_paginated("DescribeSpotPriceHistory", spot,
                     [&](const pugi::xml_node& r) { parse_spot_prices(r, facts); });
  return facts;
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
    if (!facts.types.count(t.name)) {
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
