#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/labels.h"
#include "model/money.h"
#include "model/pod.h"
#include "model/resources.h"
#include "model/taint.h"

namespace fitscale {

// One row of the catalog CSV (../shared/data/README.md).
struct InstanceType {
  std::string name;
  std::string arch;  // amd64 / arm64
  std::int64_t vcpu = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpu = 0;
  std::string gpu_model;  // "" without GPUs
  std::int64_t gpu_memory_mib = 0;
  double on_demand_usd_per_hour = 0;
  std::optional<double> spot_usd_per_hour;      // no spot offering when empty
  std::optional<int> spot_interruption_bucket;  // 0..4
  std::string spot_interruption_label;
  // Which provider sells it and in which region (columns `provider`, `region`; docs/clouds.md):
  // empty = the catalog's default (CatalogOptions::provider, ::region), so a catalog without
  // these columns means what it always did.
  std::string provider = {};
  std::string region = {};

  Resources capacity() const;
};

// EKS allocatable rule (data README): memory reserved = 255 MiB + 11 MiB x max_pods + 100 MiB
// eviction threshold; CPU reserved 6% of the first core, 1% of the second, 0.5% of the next two,
// 0.25% of every core above four. `daemonset_overhead` is subtracted as well.
struct AllocatableRule {
  std::int64_t max_pods = 110;
  Resources daemonset_overhead;
};
Resources allocatable(const InstanceType& t, const AllocatableRule& rule);

// Instance type x zone x capacity type, with what a pod can use on it and its price.
struct Offering {
  std::uint32_t type_index = 0;  // into Catalog::types
  std::string instance_type;
  std::string zone;
  CapacityType capacity_type = CapacityType::Spot;
  Resources allocatable;
  double usd_per_hour = 0;
  Micros micros_per_hour = 0;
  Labels labels;  // the labels a node of this offering carries (instance-type, zone, arch, ...)
  // The pool it is offered through (index into Catalog::pools; its name is labels' pool) and
  // the taints its nodes carry: a pod may use it only if it tolerates them.
  std::uint32_t pool_index = 0;
  std::vector<Taint> taints;
  // The provider instance it is launched through (docs/clouds.md); "" = the only one.
  std::string provider = {};
  // Capacity type reserved: the reservation it launches into (index into Catalog::reservations).
  std::optional<std::uint32_t> reservation = {};
  std::string reservation_id = {};  // its id ("cr-0123..."), for keys and launches

  // "p3.8xlarge/us-east-1a/spot": what the cloud sells, the same for every pool offering it;
  // a reservation's is "p5.48xlarge/us-east-1a/reserved/cr-0123" (two may hold one type).
  std::string key() const;
};

// Hourly spot interruption hazard for a Spot Advisor bucket (monthly frequency
// <5%, 5-10%, 10-15%, 15-20%, >20%), taken at the bucket's midpoint (>20% as 25%).
double spot_hourly_hazard(int bucket);

}  // namespace fitscale
