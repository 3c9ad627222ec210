#include "model/catalog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "model/error.h"

namespace fitscale::embedded {
extern const std::string_view default_catalog_csv;
}  // namespace fitscale::embedded

namespace fitscale {
namespace {

// Columns of the catalog CSV (../shared/data/README.md); the first five are required.
enum Col {
  kName,
  kArch,
  kVcpu,
  kMemoryMib,
  kOnDemand,
  kGpu,
  kGpuModel,
  kGpuMemoryMib,
  kSpot,
  kBucket,
  kBucketLabel,
  kProvider,
  kRegion,
  kColCount
};
constexpr std::string_view kColNames[kColCount] = {"instance_type",
                                                   "arch",
                                                   "vcpu",
                                                   "memory_mib",
                                                   "on_demand_usd_per_hour",
                                                   "gpu",
                                                   "gpu_model",
                                                   "gpu_memory_mib",
                                                   "spot_usd_per_hour",
                                                   "spot_interruption_bucket",
                                                   "spot_interruption_label",
                                                   "provider",
                                                   "region"};
constexpr int kRequiredCols = 5;

// Splits one CSV record (RFC 4180 quoting) starting at `pos`; advances `pos` past the line end
// and counts the physical lines the record spans in `lines`.
std::vector<std::string> read_record(std::string_view text, std::size_t& pos, int& lines,
                                     std::string_view source, int line_no) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  lines = 1;
  while (pos < text.size()) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          field.push_back('"');
          pos += 2;
          continue;
        }
        quoted = false;
      } else {
        if (c == '\n') ++lines;
        field.push_back(c);
      }
      ++pos;
      continue;
    }
    if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n' || c == '\r') {
      ++pos;
      if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
      fields.push_back(std::move(field));
      return fields;
    } else {
      field.push_back(c);
    }
    ++pos;
  }
  if (quoted) {
    throw InputError(std::string(source) + ":" + std::to_string(line_no) + ": unterminated quote");
  }
  fields.push_back(std::move(field));
  return fields;
}

std::string trim(std::string s) {
  auto sp = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && sp(s.back())) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && sp(s[i])) ++i;
  return s.substr(i);
}

struct RowContext {
  std::string_view source;
  int line;
  [[noreturn]] void fail(Col c, const std::string& why) const {
    throw InputError(std::string(source) + ":" + std::to_string(line) + ": column " +
                     std::string(kColNames[c]) + ": " + why);
  }
};

std::int64_t parse_count(const RowContext& ctx, Col c, const std::string& v, std::int64_t min,
                         std::int64_t max) {
  std::int64_t out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size()) {
    ctx.fail(c, "bad integer \"" + v + "\"");
  }
  if (out < min) ctx.fail(c, "must be at least " + std::to_string(min) + ", got " + v);
  if (out > max) ctx.fail(c, "must be at most " + std::to_string(max) + ", got " + v);
  return out;
}

double parse_price(const RowContext& ctx, Col c, const std::string& v) {
  double out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || !std::isfinite(out)) {
    ctx.fail(c, "bad number \"" + v + "\"");
  }
  if (out <= 0) ctx.fail(c, "must be a positive price in USD per hour, got " + v);
  if (out > kMaxCatalogUsdPerHour) {
    ctx.fail(c, "must be at most " +
                    std::to_string(static_cast<std::int64_t>(kMaxCatalogUsdPerHour)) +
                    " USD per hour, got " + v);
  }
  return out;
}

// A gang is kept in one zone (DESIGN.md); with no zone shared by two providers, that keeps it in
// one provider too.
void check_zones_have_one_provider(const CatalogOptions& options) {
  std::map<std::string, std::string, std::less<>> owner;
  for (const auto& [provider, place] : options.places) {
    for (const std::string& zone : place.zones) {
      auto [it, fresh] = owner.emplace(zone, provider);
      if (!fresh) {
        throw InputError("zone \"" + zone + "\" is listed for providers \"" + it->second +
                         "\" and \"" + provider + "\": a zone belongs to one provider");
      }
    }
  }
}

// An offering of `c` that sells what reservation `r` holds (its type in its zone), not reserved.
const Offering* reservation_base(const Catalog& c, const Reservation& r) {
  for (const Offering& o : c.offerings) {
    if (!is_reserved(o) && o.instance_type == r.instance_type && o.zone == r.zone) return &o;
  }
  return nullptr;
}

}  // namespace

const InstanceType* Catalog::find_type(std::string_view name) const {
  if (types_by_name.size() == types.size() && !types.empty()) {
    auto it =
        std::lower_bound(types_by_name.begin(), types_by_name.end(), name,
                         [&](std::uint32_t i, std::string_view n) { return types[i].name < n; });
    if (it != types_by_name.end() && types[*it].name == name) return &types[*it];
    return nullptr;
  }
  for (const auto& t : types) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<InstanceType> parse_catalog_csv(std::string_view text, std::string_view source) {
  std::size_t pos = 0;
  int line = 1;
  int span = 1;
  // Skip a UTF-8 byte order mark that spreadsheet exports add.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;
  while (pos < text.size() && (text[pos] == '\n' || text[pos] == '\r')) {
    if (text[pos] == '\n') ++line;
    ++pos;
  }
  if (pos >= text.size()) throw InputError(std::string(source) + ": empty catalog (no header row)");
  const int header_line = line;
  std::vector<std::string> header = read_record(text, pos, span, source, line);
  line += span;

  int col_of[kColCount];
  std::fill(std::begin(col_of), std::end(col_of), -1);
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string name = trim(header[i]);
    auto it = std::find(std::begin(kColNames), std::end(kColNames), name);
    if (it == std::end(kColNames)) {
      throw InputError(std::string(source) + ":" + std::to_string(header_line) +
                       ": unknown column \"" + name + "\"");
    }
    const auto c = static_cast<std::size_t>(it - std::begin(kColNames));
    if (col_of[c] >= 0) {
      throw InputError(std::string(source) + ":" + std::to_string(header_line) + ": column \"" +
                       name + "\" appears twice");
    }
    col_of[c] = static_cast<int>(i);
  }
  for (int c = 0; c < kRequiredCols; ++c) {
    if (col_of[c] < 0) {
      throw InputError(std::string(source) + ":" + std::to_string(header_line) +
                       ": missing required column \"" + std::string(kColNames[c]) + "\"");
    }
  }

  std::vector<InstanceType> types;
  std::set<std::string, std::less<>> seen;
  while (pos < text.size()) {
    const int row_line = line;
    std::vector<std::string> f = read_record(text, pos, span, source, line);
    line += span;
    if (f.size() == 1 && trim(f[0]).empty()) continue;  // blank line
    if (f.size() != header.size()) {
      throw InputError(std::string(source) + ":" + std::to_string(row_line) + ": " +
                       std::to_string(f.size()) + " fields, the header has " +
                       std::to_string(header.size()));
    }
    const RowContext ctx{source, row_line};
    auto get = [&](Col c) {
      return col_of[c] < 0 ? std::string() : trim(f[static_cast<std::size_t>(col_of[c])]);
    };
    InstanceType t;
    t.name = get(kName);
    if (t.name.empty()) ctx.fail(kName, "empty");
    t.provider = get(kProvider);
    t.region = get(kRegion);
    // A name is unique per provider: AWS in two regions sells m5.large twice, at two prices.
    if (!seen.insert(t.provider + "\n" + t.name).second)
      ctx.fail(kName, "instance type \"" + t.name + "\" listed twice" +
                          (t.provider.empty() ? "" : " for provider \"" + t.provider + "\""));
    t.arch = get(kArch);
    if (t.arch != "amd64" && t.arch != "arm64")
      ctx.fail(kArch, "expected amd64 or arm64, got \"" + t.arch + "\"");
    t.vcpu = parse_count(ctx, kVcpu, get(kVcpu), 1, kMaxCatalogVcpu);
    t.memory_mib = parse_count(ctx, kMemoryMib, get(kMemoryMib), 1, kMaxCatalogMemoryMib);
    const std::string gpu = get(kGpu);
    t.gpu = gpu.empty() ? 0 : parse_count(ctx, kGpu, gpu, 0, kMaxCatalogGpus);
    t.gpu_model = get(kGpuModel);
    if (t.gpu > 0 && t.gpu_model.empty()) ctx.fail(kGpuModel, "empty for a type with GPUs");
    const std::string gpu_mem = get(kGpuMemoryMib);
    t.gpu_memory_mib =
        gpu_mem.empty() ? 0 : parse_count(ctx, kGpuMemoryMib, gpu_mem, 0, kMaxCatalogMemoryMib);
    t.on_demand_usd_per_hour = parse_price(ctx, kOnDemand, get(kOnDemand));
    const std::string spot = get(kSpot);
    if (!spot.empty()) t.spot_usd_per_hour = parse_price(ctx, kSpot, spot);
    const std::string bucket = get(kBucket);
    if (!bucket.empty()) {
      const std::int64_t b =
          parse_count(ctx, kBucket, bucket, 0, std::numeric_limits<std::int64_t>::max());
      if (b > 4) ctx.fail(kBucket, "must be 0..4, got " + bucket);
      t.spot_interruption_bucket = static_cast<int>(b);
    }
    t.spot_interruption_label = get(kBucketLabel);
    types.push_back(std::move(t));
  }
  if (types.empty()) throw InputError(std::string(source) + ": no instance types after the header");
  return types;
}

Catalog build_catalog(std::vector<InstanceType> types, const CatalogOptions& options) {
  Catalog c;
  c.types = std::move(types);
  std::set<std::string> models;
  for (const InstanceType& t : c.types) {
    if (!t.gpu_model.empty()) models.insert(t.gpu_model);
  }
  c.gpu_models.assign(models.begin(), models.end());
  std::vector<Resources> alloc;
  alloc.reserve(c.types.size());
  for (const InstanceType& t : c.types) alloc.push_back(allocatable(t, options.allocatable));
  check_zones_have_one_provider(options);
  // Every offering once, through no pool; with_pools makes each pool's from them.
  for (std::uint32_t i = 0; i < c.types.size(); ++i) {
    const InstanceType& t = c.types[i];
    const std::string& provider = t.provider.empty() ? options.provider : t.provider;
    auto place = options.places.find(provider);
    const bool placed = place != options.places.end();
    const std::vector<std::string>& zones = placed ? place->second.zones : options.zones;
    const std::string& region = !t.region.empty()                         ? t.region
                                : placed && !place->second.region.empty() ? place->second.region
                                                                          : options.region;
    for (const std::string& zone : zones) {
      auto add = [&](CapacityType ct, double usd) {
        Offering o;
        o.type_index = i;
        o.instance_type = t.name;
        o.zone = zone;
        o.capacity_type = ct;
        o.allocatable = alloc[i];
        o.usd_per_hour = usd;
        o.micros_per_hour = dollars_to_micros(usd);
        o.labels.emplace(label::kInstanceType, t.name);
        o.labels.emplace(label::kZone, zone);
        o.labels.emplace(label::kRegion, region);
        o.provider = provider;
        if (!provider.empty()) o.labels.emplace(label::kProvider, provider);
        o.labels.emplace(label::kArch, t.arch);
        o.labels.emplace(label::kOs, "linux");
        o.labels.emplace(label::kCapacityType, to_string(ct));
        // Only GPU types carry the model, so DoesNotExist on it selects CPU-only nodes.
        if (!t.gpu_model.empty()) o.labels.emplace(label::kGpuModel, t.gpu_model);
        add_type_labels(t, o.labels);
        c.offerings.push_back(std::move(o));
      };
      add(CapacityType::OnDemand, t.on_demand_usd_per_hour);
      if (t.spot_usd_per_hour) add(CapacityType::Spot, *t.spot_usd_per_hour);
    }
  }
  c.types_by_name.resize(c.types.size());
  for (std::uint32_t i = 0; i < c.types.size(); ++i) c.types_by_name[i] = i;
  std::sort(c.types_by_name.begin(), c.types_by_name.end(),
            [&](std::uint32_t a, std::uint32_t b) { return c.types[a].name < c.types[b].name; });
  c.reservations = options.reservations;
  for (const Reservation& r : c.reservations) {
    if (!reservation_base(c, r)) {
      throw InputError("reservation " + r.id + ": the catalog sells no " + r.instance_type +
                       " in zone " + r.zone);
    }
  }
  std::vector<Pool> pools =
      options.pools.empty() ? std::vector<Pool>{default_pool(options.pool)} : options.pools;
  if (options.pools.empty()) {
    // With no pools configured, the default pool launches into every reservation.
    for (const Reservation& r : c.reservations)
      pools.front().aws.capacity_reservation_selector_terms.push_back({{}, r.id});
  }
  return with_pools(c, std::move(pools));
}

Catalog with_pools(const Catalog& all, std::vector<Pool> pools) {
  Catalog c;
  c.types = all.types;
  c.gpu_models = all.gpu_models;
  c.types_by_name = all.types_by_name;
  c.reservations = all.reservations;
  c.pools = std::move(pools);
  for (Pool& p : c.pools) {
    for (Requirement& r : p.requirements) r = canonical_requirement(std::move(r), c.gpu_models);
  }
  // Each reservation once, through no pool: what the cloud sells there, at its marginal price.
  std::vector<Offering> reserved;
  for (std::uint32_t ri = 0; ri < c.reservations.size(); ++ri) {
    const Reservation& r = c.reservations[ri];
    const Offering* base = reservation_base(all, r);
    if (!base) continue;  // checked by build_catalog; a later catalog may have lost the type
    Offering o = *base;
    o.capacity_type = CapacityType::Reserved;
    o.usd_per_hour = r.usd_per_hour;
    o.micros_per_hour = dollars_to_micros(r.usd_per_hour);
    o.labels.erase(std::string(label::kCapacityType));
    o.labels.emplace(label::kCapacityType, to_string(CapacityType::Reserved));
    o.labels.emplace(label::kCapacityReservationId, r.id);
    o.labels.emplace(label::kCapacityReservationType, ec2_reservation_type(r.kind));
    o.reservation = ri;
    o.reservation_id = r.id;
    reserved.push_back(std::move(o));
  }
  for (std::uint32_t pi = 0; pi < c.pools.size(); ++pi) {
    const Pool& pool = c.pools[pi];
    auto offer = [&](const Offering& base) {
      const InstanceType& t = c.types[base.type_index];
      Offering o = base;
      o.labels.erase(std::string(label::kPool));
      o.labels.emplace(label::kPool, pool.name);
      // The pool's own labels never override what the offering is.
      for (const auto& [k, v] : pool.labels) o.labels.emplace(k, v);
      if (!pool.provider.empty()) {
        const auto provider = o.labels.find(label::kProvider);
        // An offering that names no provider is the one provider the run has.
        if (provider != o.labels.end() && provider->second != pool.provider) return;
      }
      if (!pool_admits(pool, o.labels)) return;
      o.pool_index = pi;
      o.taints = node_taints(pool, t);
      // kubelet maxPods caps what the packer puts on one node of the pool.
      if (pool.max_pods && o.allocatable.pods > *pool.max_pods) o.allocatable.pods = *pool.max_pods;
      c.offerings.push_back(std::move(o));
    };
    for (const Offering& base : all.offerings) {
      if (!is_reserved(base)) offer(base);  // a reservation's are made again from `reserved`
    }
    for (const Offering& base : reserved) {
      if (selects(pool.aws.capacity_reservation_selector_terms, c.reservations[*base.reservation]))
        offer(base);
    }
  }
  return c;
}

const Offering* Catalog::find_offering(std::string_view instance_type, std::string_view zone,
                                       CapacityType capacity_type, std::string_view pool) const {
  const Offering* any = nullptr;
  for (const Offering& o : offerings) {
    if (o.instance_type != instance_type || o.zone != zone || o.capacity_type != capacity_type)
      continue;
    if (pools.size() > o.pool_index && pools[o.pool_index].name == pool) return &o;
    if (!any) any = &o;
  }
  return any;
}

const Pool* Catalog::find_pool(std::string_view name) const {
  for (const Pool& p : pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string_view default_catalog_csv() { return embedded::default_catalog_csv; }

}  // namespace fitscale
