#pragma once
// The catalog as the EC2 API of the region reports it: which types exist (DescribeInstanceTypes),
// in which zones (DescribeInstanceTypeOfferings), at what spot price now
// (DescribeSpotPriceHistory), merged with the shipped on-demand price table. A type with no
// known on-demand price is left out with a reason: fitscale never launches what it cannot price.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cloud/aws/query_client.h"
#include "model/catalog.h"

namespace fitscale::aws {

struct ApiTypeFacts {
  std::string name;
  std::string arch;  // amd64 / arm64
  std::int64_t vcpu = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpu = 0;  // NVIDIA only: other accelerators are not nvidia.com/gpu
  std::string gpu_model;
  std::int64_t gpu_memory_mib = 0;
};

struct ApiFacts {
  // What was asked for (aws.catalog.instanceTypes); empty = every type of the region.
  std::vector<std::string> type_patterns;
  std::map<std::string, ApiTypeFacts> types;
  std::set<std::pair<std::string, std::string>> offered;       // (type, zone)
  std::map<std::pair<std::string, std::string>, double> spot;  // (type, zone) -> USD/hour now
};

struct ExcludedType {
  std::string instance_type;
  std::string reason;
};

struct ApiCatalog {
  Catalog catalog;
  std::vector<ExcludedType> excluded;
};

// One page of each API into `facts`.
void parse_instance_types(const pugi::xml_node& response, ApiFacts& facts);
void parse_type_offerings(const pugi::xml_node& response, ApiFacts& facts);
void parse_spot_prices(const pugi::xml_node& response, ApiFacts& facts);

// Calls the three APIs (paginated) for `options.zones`. `type_patterns` (names or wildcards
// such as "g5.*") restricts DescribeInstanceTypes; the other two are then asked about the types
// it returned only.
ApiFacts fetch_api_facts(QueryClient& ec2, const CatalogOptions& options, Time now,
                         const std::vector<std::string>& type_patterns = {});

// The current spot price of every (type, zone) the API knows for `zones`; `types` empty = all.
std::map<std::pair<std::string, std::string>, double> fetch_spot_prices(
    QueryClient& ec2, const std::vector<std::string>& zones, const std::vector<std::string>& types,
    Time now);

// Re-prices the catalog's spot offerings in place (the offerings themselves, and so every
// pointer to them, stay): returns how many prices changed. Offerings the API has no price for
// keep theirs.
int apply_spot_prices(Catalog& catalog,
                      const std::map<std::pair<std::string, std::string>, double>& spot);

// EC2 filter wildcards: '*' any run of characters, '?' one character.
bool matches_type_pattern(std::string_view name, std::string_view pattern);

// Pure: API facts x price table -> offerings. Sizes come from the API, on-demand prices from the
// table, spot prices from the API where it has one (else the table's estimate).
ApiCatalog merge_api_catalog(const ApiFacts& facts, const std::vector<InstanceType>& price_table,
                             const CatalogOptions& options);

}  // namespace fitscale::aws
