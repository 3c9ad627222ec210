#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/offering.h"
#include "model/pool.h"
#include "model/reservation.h"

namespace fitscale {

// Where one provider of a multi-provider catalog sells (docs/clouds.md): its region and zones.
struct ProviderPlace {
  std::string region;
  std::vector<std::string> zones;
};

struct CatalogOptions {
  std::vector<std::string> zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
  std::string region = "us-east-1";
  // The provider of rows with an empty `provider` column; "" = one provider, offerings carry no
  // fitscale.io/provider label (the single-provider catalog of before).
  std::string provider = {};
  // Per provider name: its region and zones. A provider not listed sells in `zones`/`region`.
  // A zone may belong to one provider only: a gang kept in one zone is then kept in one provider.
  std::map<std::string, ProviderPlace, std::less<>> places = {};
  std::string pool = "default";  // the default pool's name, when `pools` is empty
  std::vector<Pool> pools;       // empty = default_pool(pool), which selects every reservation
  AllocatableRule allocatable;
  // Capacity bought ahead: each is offered (capacity type reserved) through the pools whose
  // capacityReservationSelectorTerms select it. Its type and zone must be sold by the catalog.
  std::vector<Reservation> reservations = {};
};

// Instance types and the offerings built from them (pool x type x zone x capacity type, where
// the pool's requirements admit the offering; no spot offering where the spot price is empty).
struct Catalog {
  std::vector<InstanceType> types;
  std::vector<Offering> offerings;
  std::vector<Pool> pools;                // requirements canonical (label aliases resolved)
  std::vector<std::string> gpu_models;    // distinct catalog model names, for label aliases
  std::vector<Reservation> reservations;  // Offering::reservation indexes into it
  // Indexes into `types` sorted by name (filled by build_catalog) so find_type is a binary
  // search; when its size differs from `types` (a hand-built Catalog), find_type scans.
  std::vector<std::uint32_t> types_by_name;

  const InstanceType* find_type(std::string_view name) const;
  // The offering an instance was launched from: its pool's, else (an instance of a pool no
  // longer configured) the first with that type, zone and capacity type; nullptr when none.
  const Offering* find_offering(std::string_view instance_type, std::string_view zone,
                                CapacityType capacity_type, std::string_view pool) const;
  const Pool* find_pool(std::string_view name) const;
};

// The largest sizes and price a catalog row may give: far above any real instance (the largest
// EC2 types have 448 vCPUs and 24 TiB), low enough that capacity and price arithmetic in
// milli-CPU, bytes and micro-dollars can never overflow.
inline constexpr std::int64_t kMaxCatalogVcpu = 100'000;
inline constexpr std::int64_t kMaxCatalogMemoryMib = 100'000'000;  // about 95 TiB
inline constexpr std::int64_t kMaxCatalogGpus = 1'000;
inline constexpr double kMaxCatalogUsdPerHour = 100'000;

// Whether an offering of the catalog launches into a reservation (capacity type reserved).
inline bool is_reserved(const Offering& o) { return o.reservation.has_value(); }

// Parses the catalog CSV; `source` names the file in errors ("catalog.csv:12: column
// spot_usd_per_hour: ...").
std::vector<InstanceType> parse_catalog_csv(std::string_view text, std::string_view source);
Catalog build_catalog(std::vector<InstanceType> types, const CatalogOptions& options);
// The offerings of `all` (a catalog of one pool without requirements) made again for `pools`:
// what build_catalog does for its pools, for pools that change while fitscale runs (Pool
// objects) without asking the cloud for its offerings again.
Catalog with_pools(const Catalog& all, std::vector<Pool> pools);
// The copy of ../shared/data/aws-us-east-1.csv embedded in the binary.
std::string_view default_catalog_csv();

}  // namespace fitscale
