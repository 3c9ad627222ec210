#pragma once
// What fitscale does with a config as soon as it is read, for the bad-input contract
// (bad_input.h): parse it, take its budgets, and build a catalog with its zones and allocatable
// rule (maxPods, daemonsetOverhead), as catalog_options_from_config does. Shared by
// fuzz/config_fuzz.cpp and tests/model/bad_input_test.cpp.
#include <string_view>

#include "model/catalog.h"
#include "model/config.h"

namespace fitscale::bad_input {

inline void read_and_use_config(std::string_view text) {
  const Config config = parse_config(text, "config.yaml");
  budgets_or_defaults(config);
  CatalogOptions options;
  options.zones = config.zones;
  options.region = config.region;
  options.pool = config.pool;
  options.allocatable = config.allocatable;
  build_catalog(
      parse_catalog_csv("instance_type,arch,vcpu,memory_mib,on_demand_usd_per_hour,gpu,gpu_model\n"
                        "m5.large,amd64,2,8192,0.096,,\n"
                        "p3.16xlarge,amd64,64,499712,24.48,8,V100\n",
                        "catalog.csv"),
      options);
}

}  // namespace fitscale::bad_input
