#include "model/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "model/budget_spec.h"
#include "model/error.h"
#include "model/pool_config.h"
#include "model/quantity.h"
#include "model/resources.h"
#include "model/yaml_documents.h"
#include "model/yaml_reader.h"

namespace fitscale {

const char* to_string(AwsMode m) { return m == AwsMode::Asg ? "asg" : "fleet"; }
const char* to_string(LogFormat f) { return f == LogFormat::Json ? "json" : "text"; }
const char* to_string(ProviderKind k) {
  switch (k) {
    case ProviderKind::Sim:
      return "sim";
    case ProviderKind::Aws:
      return "aws";
    case ProviderKind::Static:
      return "static";
    case ProviderKind::Azure:
      return "azure";
    case ProviderKind::Gcp:
      return "gcp";
  }
  return "sim";
}

namespace {

// Largest dollar amount a budget may hold: keeps micro-dollars far from int64 overflow.
constexpr double kMaxUsd = 1e12;

std::string join_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

// Lower case without '-' and '_', so "usd_per_job" and "USDPERJOB" are recognised as usdPerJob.
std::string folded(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest allowed key to a misspelt one, or "" when none is close enough to be a typo.
std::string closest_key(std::string_view key, std::initializer_list<std::string_view> allowed) {
  const std::string k = folded(key);
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, k.size() / 3) + 1;
  for (std::string_view a : allowed) {
    const std::size_t d = edit_distance(k, folded(a));
    if (d < best_d) {
      best_d = d;
      best = std::string(a);
    }
  }
  return best;
}

bool is_dns_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

// Walks the YAML tree with the file name at hand, so every error names file, line and key path.
class Reader : public YamlReader {
 public:
  using YamlReader::YamlReader;

  // A map (or an empty value, read as an empty map) whose keys are all in `allowed`.
  void expect_map(const YAML::Node& n, const std::string& path,
                  std::initializer_list<std::string_view> allowed) const {
    if (n.IsNull()) return;
    if (!n.IsMap()) fail(n, path, "must be a map, got " + shown(n));
    std::set<std::string, std::less<>> seen;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second) fail(kv.first, join_path(path, key), "duplicate key");
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string msg = "unknown key \"" + key + "\"";
      const std::string guess = closest_key(key, allowed);
      if (!guess.empty()) msg += "; did you mean \"" + guess + "\"?";
      fail(kv.first, path.empty() ? std::string() : path, msg);
    }
  }

  // A map with arbitrary keys (namespaces, subnets): checks duplicates only.
  void expect_open_map(const YAML::Node& n, const std::string& path) const {
    if (n.IsNull()) return;
    if (!n.IsMap()) fail(n, path, "must be a map, got " + shown(n));
    std::set<std::string, std::less<>> seen;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) fail(kv.first, path, "keys must be names, got " + shown(kv.first));
      if (!seen.insert(kv.first.Scalar()).second) {
        fail(kv.first, join_path(path, kv.first.Scalar()), "duplicate key");
      }
    }
  }

  void expect_list(const YAML::Node& n, const std::string& path) const {
    if (!n.IsSequence()) fail(n, path, "must be a list, got " + shown(n));
  }

  std::string string(const YAML::Node& n, const std::string& path, bool allow_empty = false) const {
    return YamlReader::string(n, path, allow_empty);
  }

  double number(const YAML::Node& n, const std::string& path, double min) const {
    const std::string want = "must be a number >= " + trimmed(min) + ", got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    const auto v = finite_number(n.Scalar());
    if (!v || *v < min) fail(n, path, want + shown(n));
    if (*v > kMaxUsd) fail(n, path, "must be at most 1e12, got " + shown(n));
    return *v;
  }

  std::int64_t integer(const YAML::Node& n, const std::string& path, std::int64_t min) const {
    const std::string want = "must be a whole number >= " + std::to_string(min) + ", got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    const auto v = whole_number(n.Scalar());
    if (!v || *v < min) fail(n, path, want + shown(n));
    return *v;
  }

  Seconds duration(const YAML::Node& n, const std::string& path, Seconds min) const {
    const std::string want = min > 0 ? "must be a duration > 0 (\"24h\", \"90s\"), got "
                                     : "must be a duration (\"24h\", \"90s\"), got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    Seconds v = 0;
    try {
      v = parse_duration(n.Scalar());
    } catch (const InputError&) {
      fail(n, path, want + shown(n));
    }
    if (v < min) fail(n, path, want + shown(n));
    return v;
  }

  bool boolean(const YAML::Node& n, const std::string& path) const {
    const std::string want = "must be true or false, got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    fail(n, path, want + shown(n));
  }

  template <typename E>
  E choice(const YAML::Node& n, const std::string& path,
           std::initializer_list<std::pair<std::string_view, E>> options) const {
    std::string names;
    for (const auto& [name, value] : options)
      names += (names.empty() ? "" : ", ") + std::string(name);
    const std::string want = "must be one of " + names + ", got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    for (const auto& [name, value] : options) {
      if (n.Scalar() == name) return value;
    }
    fail(n, path, want + shown(n));
  }

 private:
  static std::string trimmed(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
  }
};

void read_namespace_budget(const Reader& r, const YAML::Node& n, const std::string& path,
                           NamespaceBudget& out) {
  r.expect_map(
      n, path,
      {"usdPerHour", "usdPerDay", "usdPerMonth", "usdPerJob", "maxRuntime", "maxRuntimeAction"});
  if (n.IsNull()) return;
  if (auto v = n["usdPerHour"]) out.usd_per_hour = r.number(v, join_path(path, "usdPerHour"), 0);
  if (auto v = n["usdPerDay"]) out.usd_per_day = r.number(v, join_path(path, "usdPerDay"), 0);
  if (auto v = n["usdPerMonth"]) out.usd_per_month = r.number(v, join_path(path, "usdPerMonth"), 0);
  if (auto v = n["usdPerJob"]) out.usd_per_job = r.number(v, join_path(path, "usdPerJob"), 0);
  if (auto v = n["maxRuntime"]) out.max_runtime = r.duration(v, join_path(path, "maxRuntime"), 1);
  if (auto v = n["maxRuntimeAction"]) {
    out.max_runtime_action = r.choice<MaxRuntimeAction>(
        v, join_path(path, "maxRuntimeAction"),
        {{"alert", MaxRuntimeAction::Alert}, {"terminate", MaxRuntimeAction::Terminate}});
  }
}

void read_cluster_budget(const Reader& r, const YAML::Node& c, const std::string& cp,
                         ClusterBudget& out) {
  r.expect_map(c, cp, {"usdPerHour", "gpus", "nodes"});
  if (c.IsNull()) return;
  if (auto v = c["usdPerHour"]) out.usd_per_hour = r.number(v, cp + ".usdPerHour", 0);
  if (auto v = c["gpus"]) out.gpus = r.integer(v, cp + ".gpus", 0);
  if (auto v = c["nodes"]) out.nodes = r.integer(v, cp + ".nodes", 0);
}

Budgets read_budgets(const Reader& r, const YAML::Node& n) {
  const std::string path = "budgets";
  r.expect_map(n, path, {"cluster", "default", "namespaces", "gate"});
  Budgets b;
  if (auto g = n["gate"]) b.gate = r.boolean(g, "budgets.gate");
  if (auto c = n["cluster"]) read_cluster_budget(r, c, "budgets.cluster", b.cluster);
  if (auto d = n["default"]) read_namespace_budget(r, d, "budgets.default", b.defaults);
  if (auto ns = n["namespaces"]) {
    r.expect_open_map(ns, "budgets.namespaces");
    if (!ns.IsNull()) {
      for (const auto& kv : ns) {
        const std::string name = kv.first.Scalar();
        const std::string p = "budgets.namespaces." + name;
        if (!is_dns_label(name)) {
          r.fail(kv.first, p,
                 "is not a Kubernetes namespace name (lower-case letters, digits and '-', at "
                 "most 63 characters)");
        }
        read_namespace_budget(r, kv.second, p, b.namespaces[name]);
      }
    }
  }
  return b;
}

void read_alerts(const Reader& r, const YAML::Node& n, AlertsConfig& out) {
  r.expect_map(n, "alerts", {"webhook", "thresholds"});
  if (n.IsNull()) return;
  if (auto w = n["webhook"]) {
    out.webhook = r.string(w, "alerts.webhook");
    if (out.webhook.rfind("http://", 0) != 0 && out.webhook.rfind("https://", 0) != 0) {
      r.fail(w, "alerts.webhook", "must be an http:// or https:// URL, got " + Reader::shown(w));
    }
  }
  if (auto t = n["thresholds"]) {
    r.expect_list(t, "alerts.thresholds");
    if (t.size() == 0) r.fail(t, "alerts.thresholds", "must list at least one percentage");
    out.thresholds.clear();
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::string p = "alerts.thresholds[" + std::to_string(i) + "]";
      const std::int64_t v = r.integer(t[i], p, 1);
      if (v > 1000)
        r.fail(t[i], p, "must be a percentage between 1 and 1000, got " + Reader::shown(t[i]));
      if (!out.thresholds.empty() && v <= out.thresholds.back()) {
        r.fail(t[i], p, "thresholds must be in ascending order without repeats");
      }
      out.thresholds.push_back(static_cast<int>(v));
    }
  }
}

CapacityOutage read_outage(const Reader& r, const YAML::Node& n, const std::string& path) {
  r.expect_map(n, path, {"offering", "from", "until"});
  if (n.IsNull() || !n["offering"])
    r.fail(n, path, "needs an offering (\"p3.16xlarge/us-east-1a/spot\")");
  CapacityOutage o;
  const YAML::Node off = n["offering"];
  o.offering = r.string(off, path + ".offering");
  const auto a = o.offering.find('/');
  const auto b = a == std::string::npos ? a : o.offering.find('/', a + 1);
  const std::string want =
      "must be TYPE/ZONE/CAPACITY (\"p3.16xlarge/us-east-1a/spot\"), got " + Reader::shown(off);
  if (b == std::string::npos || o.offering.find('/', b + 1) != std::string::npos) {
    r.fail(off, path + ".offering", want);
  }
  o.instance_type = o.offering.substr(0, a);
  o.zone = o.offering.substr(a + 1, b - a - 1);
  const std::string cap = o.offering.substr(b + 1);
  if (o.instance_type.empty() || o.zone.empty()) r.fail(off, path + ".offering", want);
  if (cap == "spot") {
    o.capacity_type = CapacityType::Spot;
  } else if (cap == "on-demand") {
    o.capacity_type = CapacityType::OnDemand;
  } else {
    r.fail(off, path + ".offering", "capacity must be spot or on-demand, got \"" + cap + "\"");
  }
  if (auto f = n["from"]) o.from_s = r.duration(f, path + ".from", 0);
  if (auto u = n["until"]) {
    o.until_s = r.duration(u, path + ".until", 0);
    if (*o.until_s <= o.from_s) r.fail(u, path + ".until", "must be later than from");
  }
  return o;
}

void read_simulator(const Reader& r, const YAML::Node& n, SimulatorConfig& out) {
  r.expect_map(n, "simulator",
               {"bootDelayCpu", "bootDelayGpu", "interruptions", "insufficientCapacity"});
  if (n.IsNull()) return;
  if (auto v = n["bootDelayCpu"]) out.boot_delay_cpu_s = r.duration(v, "simulator.bootDelayCpu", 0);
  if (auto v = n["bootDelayGpu"]) out.boot_delay_gpu_s = r.duration(v, "simulator.bootDelayGpu", 0);
  if (auto v = n["interruptions"]) out.interruptions = r.boolean(v, "simulator.interruptions");
  if (auto l = n["insufficientCapacity"]) {
    if (l.IsNull()) return;
    r.expect_list(l, "simulator.insufficientCapacity");
    for (std::size_t i = 0; i < l.size(); ++i) {
      out.insufficient_capacity.push_back(
          read_outage(r, l[i], "simulator.insufficientCapacity[" + std::to_string(i) + "]"));
    }
  }
}

void read_azure(const Reader& r, const YAML::Node& n, const std::string& path, AzureConfig& out) {
  r.expect_map(
      n, path,
      {"subscriptionId", "resourceGroup", "tenantId", "clientId", "clientSecretFile", "endpoint",
       "loginEndpoint", "subnetId", "image", "adminUsername", "sshPublicKey", "customData"});
  if (n.IsNull()) return;
  auto str = [&](const char* key, std::string& field) {
    if (auto v = n[key]) field = r.string(v, join_path(path, key));
  };
  str("subscriptionId", out.subscription_id);
  str("resourceGroup", out.resource_group);
  str("tenantId", out.tenant_id);
  str("clientId", out.client_id);
  str("clientSecretFile", out.client_secret_file);
  str("endpoint", out.endpoint);
  str("loginEndpoint", out.login_endpoint);
  str("subnetId", out.subnet_id);
  str("image", out.image_id);
  str("adminUsername", out.admin_username);
  str("sshPublicKey", out.ssh_public_key);
  str("customData", out.custom_data);
  for (const char* key : {"endpoint", "loginEndpoint"}) {
    const YAML::Node v = n[key];
    if (v && v.Scalar().rfind("http://", 0) != 0 && v.Scalar().rfind("https://", 0) != 0)
      r.fail(v, join_path(path, key),
             "must be an http:// or https:// URL, got " + Reader::shown(v));
  }
  for (const char* key : {"subscriptionId", "resourceGroup"}) {
    if (!n[key]) r.fail(n, path, std::string("needs ") + key);
  }
}

void read_gcp(const Reader& r, const YAML::Node& n, const std::string& path, GcpConfig& out) {
  r.expect_map(n, path,
               {"project", "credentialsFile", "metadataEndpoint", "endpoint", "image", "network",
                "subnetwork", "serviceAccount", "startupScript", "bootDiskGb"});
  if (n.IsNull() || !n["project"]) r.fail(n, path, "needs project (the Compute Engine project id)");
  auto str = [&](const char* key, std::string& field) {
    if (auto v = n[key]) field = r.string(v, join_path(path, key));
  };
  str("project", out.project);
  str("credentialsFile", out.credentials_file);
  str("metadataEndpoint", out.metadata_endpoint);
  str("endpoint", out.endpoint);
  str("image", out.image);
  str("network", out.network);
  str("subnetwork", out.subnetwork);
  str("serviceAccount", out.service_account);
  str("startupScript", out.startup_script);
  if (auto v = n["bootDiskGb"]) out.boot_disk_gb = r.integer(v, join_path(path, "bootDiskGb"), 10);
  for (const char* key : {"endpoint", "metadataEndpoint"}) {
    const YAML::Node v = n[key];
    if (v && v.Scalar().rfind("http://", 0) != 0 && v.Scalar().rfind("https://", 0) != 0)
      r.fail(v, join_path(path, key),
             "must be an http:// or https:// URL, got " + Reader::shown(v));
  }
}

void read_provider_aws(const Reader& r, const YAML::Node& n, const std::string& path,
                       ProviderAwsConfig& out) {
  r.expect_map(n, path, {"endpoint", "credentialsProfile", "subnets"});
  if (n.IsNull()) return;
  if (auto v = n["endpoint"]) {
    out.endpoint = r.string(v, path + ".endpoint");
    if (out.endpoint.rfind("http://", 0) != 0 && out.endpoint.rfind("https://", 0) != 0)
      r.fail(v, path + ".endpoint", "must be an http:// or https:// URL, got " + Reader::shown(v));
  }
  if (auto v = n["credentialsProfile"])
    out.credentials_profile = r.string(v, path + ".credentialsProfile");
  if (auto sn = n["subnets"]) {
    r.expect_open_map(sn, path + ".subnets");
    for (const auto& kv : sn) {
      out.subnets[kv.first.Scalar()] = r.string(kv.second, path + ".subnets." + kv.first.Scalar());
    }
  }
}

// `reservations:` (docs/reserved-capacity.md): what DescribeCapacityReservations would say.
std::vector<Reservation> read_reservations(const Reader& r, const YAML::Node& n) {
  r.expect_list(n, "reservations");
  std::vector<Reservation> out;
  std::set<std::string, std::less<>> ids;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    const std::string path = "reservations[" + std::to_string(i) + "]";
    r.expect_map(e, path,
                 {"id", "kind", "instanceType", "zone", "count", "end", "tags", "usdPerHour"});
    if (e.IsNull() || !e["id"] || !e["instanceType"] || !e["zone"] || !e["count"])
      r.fail(e, path, "needs an id, an instanceType, a zone and a count");
    Reservation res;
    res.id = r.string(e["id"], path + ".id");
    if (!ids.insert(res.id).second) r.fail(e["id"], path + ".id", "is listed twice");
    if (auto v = e["kind"]) {
      res.kind =
          r.choice<ReservationKind>(v, path + ".kind",
                                    {{"capacity-reservation", ReservationKind::CapacityReservation},
                                     {"capacity-block", ReservationKind::CapacityBlock}});
    }
    res.instance_type = r.string(e["instanceType"], path + ".instanceType");
    res.zone = r.string(e["zone"], path + ".zone");
    res.instance_count = r.integer(e["count"], path + ".count", 1);
    if (res.instance_count > 100'000) r.fail(e["count"], path + ".count", "must be at most 100000");
    if (auto v = e["end"]) {
      const std::string text = r.string(v, path + ".end");
      try {
        res.end = parse_rfc3339(text);
      } catch (const InputError&) {
        r.fail(v, path + ".end",
               "must be an RFC 3339 time (\"2026-01-07T12:00:00Z\"), got \"" + text + "\"");
      }
    }
    if (res.kind == ReservationKind::CapacityBlock && !res.end)
      r.fail(e, path, "a capacity-block needs its end");
    if (auto v = e["tags"]) {
      r.expect_open_map(v, path + ".tags");
      for (const auto& kv : v) {
        const std::string key = kv.first.Scalar();
        res.tags[key] = r.string(kv.second, path + ".tags." + key, true);
      }
    }
    if (auto v = e["usdPerHour"]) {
      res.usd_per_hour = r.number(v, path + ".usdPerHour", 0);
      // The catalog's bound: per-node prices times counts stay far from overflow.
      if (res.usd_per_hour > 100'000) r.fail(v, path + ".usdPerHour", "must be at most 100000");
    }
    out.push_back(std::move(res));
  }
  return out;
}

std::vector<ProviderConfig> read_providers(const Reader& r, const YAML::Node& n) {
  r.expect_list(n, "providers");
  std::vector<ProviderConfig> out;
  std::set<std::string, std::less<>> names;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    const std::string path = "providers[" + std::to_string(i) + "]";
    r.expect_map(e, path,
                 {"name", "kind", "region", "zones", "nodeSelector", "usdPerHour", "nodes", "azure",
                  "gcp", "aws", "catalog"});
    if (e.IsNull() || !e["name"] || !e["kind"]) r.fail(e, path, "needs a name and a kind");
    ProviderConfig p;
    p.name = r.string(e["name"], path + ".name");
    if (!is_dns_label(p.name))
      r.fail(e["name"], path + ".name", "must be a DNS label (lower-case letters, digits, '-')");
    if (!names.insert(p.name).second)
      r.fail(e["name"], path + ".name", "provider \"" + p.name + "\" is listed twice");
    p.kind = r.choice<ProviderKind>(e["kind"], path + ".kind",
                                    {{"sim", ProviderKind::Sim},
                                     {"aws", ProviderKind::Aws},
                                     {"static", ProviderKind::Static},
                                     {"azure", ProviderKind::Azure},
                                     {"gcp", ProviderKind::Gcp}});
    if (auto v = e["region"]) p.region = r.string(v, path + ".region");
    if (auto z = e["zones"]) {
      r.expect_list(z, path + ".zones");
      for (std::size_t k = 0; k < z.size(); ++k)
        p.zones.push_back(r.string(z[k], path + ".zones[" + std::to_string(k) + "]"));
    }
    const bool owned = p.kind == ProviderKind::Static;
    for (const char* key : {"nodeSelector", "usdPerHour", "nodes"}) {
      if (e[key] && !owned) r.fail(e[key], join_path(path, key), "is for kind static only");
    }
    if (e["azure"] && p.kind != ProviderKind::Azure)
      r.fail(e["azure"], path + ".azure", "is for kind azure only");
    if (e["gcp"] && p.kind != ProviderKind::Gcp)
      r.fail(e["gcp"], path + ".gcp", "is for kind gcp only");
    if (e["aws"] && p.kind != ProviderKind::Aws)
      r.fail(e["aws"], path + ".aws", "is for kind aws only");
    if (auto v = e["catalog"]) {
      if (owned)
        r.fail(v, path + ".catalog", "is for clouds; owned hardware is sold by no catalog");
      p.catalog = r.string(v, path + ".catalog");
    }
    if (auto s = e["nodeSelector"]) {
      r.expect_open_map(s, path + ".nodeSelector");
      for (const auto& kv : s) {
        p.node_selector[kv.first.Scalar()] =
            r.string(kv.second, path + ".nodeSelector." + kv.first.Scalar(), true);
      }
    }
    if (owned && p.node_selector.empty())
      r.fail(e, path, "kind static needs a nodeSelector (the labels of the team's own nodes)");
    if (auto v = e["usdPerHour"]) p.usd_per_hour = r.number(v, path + ".usdPerHour", 0);
    if (auto l = e["nodes"]) {
      r.expect_list(l, path + ".nodes");
      for (std::size_t k = 0; k < l.size(); ++k) {
        const std::string np = path + ".nodes[" + std::to_string(k) + "]";
        r.expect_map(l[k], np, {"instanceType", "count"});
        if (l[k].IsNull() || !l[k]["instanceType"] || !l[k]["count"])
          r.fail(l[k], np, "needs instanceType and count");
        OwnedNodes o;
        o.instance_type = r.string(l[k]["instanceType"], np + ".instanceType");
        o.count = r.integer(l[k]["count"], np + ".count", 1);
        if (o.count > 100'000) r.fail(l[k]["count"], np + ".count", "must be at most 100000");
        p.nodes.push_back(std::move(o));
      }
    }
    if (p.kind == ProviderKind::Azure) {
      if (!e["azure"]) r.fail(e, path, "kind azure needs an azure: map (docs/azure.md)");
      read_azure(r, e["azure"], path + ".azure", p.azure);
      if (p.region.empty()) r.fail(e, path, "kind azure needs a region (the Azure location)");
    }
    if (p.kind == ProviderKind::Gcp) {
      if (!e["gcp"]) r.fail(e, path, "kind gcp needs a gcp: map (docs/gcp.md)");
      read_gcp(r, e["gcp"], path + ".gcp", p.gcp);
      if (p.zones.empty())
        r.fail(e, path, "kind gcp needs zones (the Compute Engine zones it launches in)");
    }
    if (p.kind == ProviderKind::Aws) {
      if (auto a = e["aws"]) read_provider_aws(r, a, path + ".aws", p.aws);
      if (p.region.empty()) r.fail(e, path, "kind aws needs a region (each region is a provider)");
    }
    for (std::size_t k = 0; k < p.zones.size(); ++k) {
      // A zone is launched in and priced for its provider's region.
      if (!p.region.empty() && (p.kind == ProviderKind::Aws || p.kind == ProviderKind::Gcp) &&
          !zone_in_region(p.zones[k], p.region))
        r.fail(e["zones"][k], path + ".zones[" + std::to_string(k) + "]",
               "zone \"" + p.zones[k] + "\" is not in region " + p.region);
    }
    out.push_back(std::move(p));
  }
  return out;
}

// A pool's provider must be one the run has: a providers[].name, or aws / sim when the file
// lists no providers (then `--provider` chooses). A template is for an AWS provider only.
void check_pool_providers(const Reader& r, const YAML::Node& pools, const Config& c) {
  for (std::size_t i = 0; i < c.pools.size(); ++i) {
    const Pool& pool = c.pools[i];
    if (pool.provider.empty()) continue;
    const YAML::Node at = pools[i]["provider"];
    const std::string path = "pools[" + std::to_string(i) + "].provider";
    std::optional<ProviderKind> kind;
    std::string names;
    if (c.providers.empty()) {
      if (pool.provider == "aws") kind = ProviderKind::Aws;
      if (pool.provider == "sim") kind = ProviderKind::Sim;
      names = "aws or sim (the file lists no providers:)";
    } else {
      for (const ProviderConfig& p : c.providers) {
        names += (names.empty() ? "" : ", ") + p.name;
        if (p.name == pool.provider) kind = p.kind;
      }
    }
    if (!kind) r.fail(at, path, "names no provider: \"" + pool.provider + "\"; expected " + names);
    if (*kind == ProviderKind::Static)
      r.fail(at, path, "\"" + pool.provider + "\" is owned hardware, which launches nothing");
    if (pools[i]["template"] && *kind != ProviderKind::Aws)
      r.fail(pools[i]["template"], "pools[" + std::to_string(i) + "].template",
             "is for an AWS provider; \"" + pool.provider + "\" is kind " + to_string(*kind));
  }
}

void read_aws(const Reader& r, const YAML::Node& n, AwsConfig& out) {
  r.expect_map(n, "aws",
               {"endpoint", "region", "mode", "launchTemplate", "subnets", "asgTag",
                "credentialsProfile", "catalog", "interruptionQueue", "nodeBootstrap"});
  if (n.IsNull()) return;
  if (auto v = n["nodeBootstrap"])
    out.nodeadm_bootstrap =
        r.choice<bool>(v, "aws.nodeBootstrap", {{"nodeadm", true}, {"none", false}});
  if (auto v = n["endpoint"]) {
    out.endpoint = r.string(v, "aws.endpoint");
    if (out.endpoint.rfind("http://", 0) != 0 && out.endpoint.rfind("https://", 0) != 0) {
      r.fail(v, "aws.endpoint", "must be an http:// or https:// URL, got " + Reader::shown(v));
    }
  }
  if (auto v = n["region"]) out.region = r.string(v, "aws.region");
  if (auto v = n["mode"]) {
    out.mode = r.choice<AwsMode>(v, "aws.mode", {{"fleet", AwsMode::Fleet}, {"asg", AwsMode::Asg}});
  }
  if (auto lt = n["launchTemplate"]) {
    r.expect_map(lt, "aws.launchTemplate", {"name", "id", "version"});
    if (!lt.IsNull()) {
      if (auto v = lt["name"]) out.launch_template.name = r.string(v, "aws.launchTemplate.name");
      if (auto v = lt["id"]) out.launch_template.id = r.string(v, "aws.launchTemplate.id");
      if (auto v = lt["version"])
        out.launch_template.version = r.string(v, "aws.launchTemplate.version");
      if (!out.launch_template.name.empty() && !out.launch_template.id.empty()) {
        r.fail(lt, "aws.launchTemplate", "set name or id, not both");
      }
    }
  }
  if (auto s = n["subnets"]) {
    r.expect_open_map(s, "aws.subnets");
    if (!s.IsNull()) {
      for (const auto& kv : s) {
        const std::string zone = kv.first.Scalar();
        out.subnets[zone] = r.string(kv.second, "aws.subnets." + zone);
      }
    }
  }
  if (auto v = n["asgTag"]) out.asg_tag = r.string(v, "aws.asgTag");
  if (auto v = n["credentialsProfile"])
    out.credentials_profile = r.string(v, "aws.credentialsProfile");
  if (auto c = n["catalog"]) {
    r.expect_map(c, "aws.catalog", {"instanceTypes", "spotPriceRefresh"});
    if (!c.IsNull()) {
      if (auto l = c["instanceTypes"]; l && !l.IsNull()) {
        r.expect_list(l, "aws.catalog.instanceTypes");
        for (std::size_t i = 0; i < l.size(); ++i) {
          out.catalog_instance_types.push_back(
              r.string(l[i], "aws.catalog.instanceTypes[" + std::to_string(i) + "]"));
        }
      }
      if (auto v = c["spotPriceRefresh"]) {
        out.spot_price_refresh_s = r.duration(v, "aws.catalog.spotPriceRefresh", 0);
      }
    }
  }
  if (auto v = n["interruptionQueue"]) {
    out.interruption_queue = r.string(v, "aws.interruptionQueue");
    if (out.interruption_queue.rfind("http://", 0) != 0 &&
        out.interruption_queue.rfind("https://", 0) != 0) {
      r.fail(v, "aws.interruptionQueue",
             "must be the queue's http:// or https:// URL, got " + Reader::shown(v));
    }
  }
}

void read_allocatable(const Reader& r, const YAML::Node& n, AllocatableRule& out) {
  r.expect_map(n, "allocatable", {"maxPods", "daemonsetOverhead"});
  if (n.IsNull()) return;
  if (auto v = n["maxPods"]) {
    out.max_pods = r.integer(v, "allocatable.maxPods", 1);
    // Far above any kubelet's limit; more would overflow the memory reservation (11 MiB a pod).
    if (out.max_pods > 100000) {
      r.fail(v, "allocatable.maxPods", "must be at most 100000, got " + Reader::shown(v));
    }
  }
  if (auto d = n["daemonsetOverhead"]) {
    const std::string path = "allocatable.daemonsetOverhead";
    r.expect_map(d, path, {"cpu", "memory", "ephemeral-storage"});
    if (d.IsNull()) return;
    for (const auto& kv : d) {
      const std::string name = kv.first.Scalar();
      const std::string p = path + "." + name;
      if (!kv.second.IsScalar())
        r.fail(kv.second, p,
               "must be a quantity (\"200m\", \"1Gi\"), got " + Reader::shown(kv.second));
      std::int64_t milli = 0;
      try {
        milli = Quantity::parse(kv.second.Scalar()).milli();
      } catch (const InputError& e) {
        r.fail(kv.second, p, e.what());
      }
      if (milli < 0) r.fail(kv.second, p, "must not be negative, got " + Reader::shown(kv.second));
      out.daemonset_overhead.set(name, milli);
    }
  }
}

void read_metrics(const Reader& r, const YAML::Node& n, MetricsConfig& out) {
  r.expect_map(n, "metrics", {"address"});
  if (n.IsNull()) return;
  if (auto v = n["address"]) {
    out.address = r.string(v, "metrics.address");
    const auto colon = out.address.rfind(':');
    const std::string port = colon == std::string::npos ? "" : out.address.substr(colon + 1);
    int p = -1;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (colon == std::string::npos || port.empty() || ec != std::errc() ||
        end != port.data() + port.size() || p < 0 || p > 65535) {
      r.fail(v, "metrics.address",
             "must be HOST:PORT (\"127.0.0.1:8080\"), got " + Reader::shown(v));
    }
  }
}

}  // namespace

const char* to_string(PolicyKind k) {
  switch (k) {
    case PolicyKind::ClusterAutoscaler:
      return "cluster-autoscaler";
    case PolicyKind::Karpenter:
      return "karpenter";
    case PolicyKind::Fitscale:
      break;
  }
  return "fitscale";
}

Config parse_config(std::string_view yaml, std::string_view source) {
  Config c;
  c.source = std::string(source);
  const Reader r(c.source);
  const YAML::Node loaded = load_yaml_document(yaml, c.source);
  // Const from here on: a non-const operator[] would insert the keys it looks up.
  const YAML::Node& root = loaded;
  if (!root.IsDefined() || root.IsNull()) return c;
  r.expect_map(root, "",
               {"zones", "region", "pool", "clusterName", "controller", "scaleDown", "allocatable",
                "budgets", "alerts", "simulator", "aws", "metrics", "logFormat", "pools",
                "providers", "policy", "reservations"});
  if (auto v = root["policy"]) {
    c.policy = r.choice<PolicyKind>(v, "policy",
                                    {{"fitscale", PolicyKind::Fitscale},
                                     {"cluster-autoscaler", PolicyKind::ClusterAutoscaler},
                                     {"karpenter", PolicyKind::Karpenter}});
  }

  if (auto z = root["zones"]) {
    r.expect_list(z, "zones");
    if (z.size() == 0) r.fail(z, "zones", "must list at least one zone");
    c.zones.clear();
    for (std::size_t i = 0; i < z.size(); ++i) {
      const std::string p = "zones[" + std::to_string(i) + "]";
      std::string zone = r.string(z[i], p);
      if (std::find(c.zones.begin(), c.zones.end(), zone) != c.zones.end()) {
        r.fail(z[i], p, "zone \"" + zone + "\" is listed twice");
      }
      c.zones.push_back(std::move(zone));
    }
  }
  if (auto v = root["region"]) c.region = r.string(v, "region");
  if (auto v = root["pool"]) c.pool = r.string(v, "pool");
  if (auto v = root["clusterName"]) c.cluster_name = r.string(v, "clusterName");
  if (auto n = root["controller"]) {
    r.expect_map(n, "controller", {"interval", "offeringBackoff"});
    if (!n.IsNull()) {
      if (auto v = n["interval"]) c.controller.interval_s = r.duration(v, "controller.interval", 1);
      if (auto v = n["offeringBackoff"]) {
        c.controller.offering_backoff_s = r.duration(v, "controller.offeringBackoff", 0);
      }
    }
  }
  if (auto n = root["scaleDown"]) {
    r.expect_map(
        n, "scaleDown",
        {"emptyAfter", "registerTimeout", "notReadyAfter", "delayAfterLaunch", "reclaimFactor"});
    if (!n.IsNull()) {
      if (auto v = n["emptyAfter"])
        c.scale_down.empty_after_s = r.duration(v, "scaleDown.emptyAfter", 0);
      if (auto v = n["registerTimeout"]) {
        c.scale_down.register_timeout_s = r.duration(v, "scaleDown.registerTimeout", 1);
      }
      if (auto v = n["notReadyAfter"]) {
        c.scale_down.not_ready_after_s = r.duration(v, "scaleDown.notReadyAfter", 1);
      }
      if (auto v = n["delayAfterLaunch"]) {
        c.scale_down.delay_after_launch_s = r.duration(v, "scaleDown.delayAfterLaunch", 0);
      }
      if (auto v = n["reclaimFactor"]) {
        c.scale_down.reclaim_factor = r.number(v, "scaleDown.reclaimFactor", 0);
      }
    }
  }
  if (auto n = root["allocatable"]) read_allocatable(r, n, c.allocatable);
  if (auto n = root["pools"]) c.pools = read_pools(n, c.source);
  for (const auto& kv : root) {
    // An empty `budgets:` is reported at its key's line (the empty value has no line of its own).
    if (kv.first.Scalar() == "budgets" && kv.second.IsNull()) {
      r.fail(kv.first, "budgets",
             "is empty; remove the key to get the safe defaults (docs/budgets.md), or write "
             "\"budgets: {}\" to run with no caps");
    }
  }
  if (auto n = root["budgets"]) c.budgets = read_budgets(r, n);
  if (auto n = root["alerts"]) read_alerts(r, n, c.alerts);
  if (auto n = root["simulator"]) read_simulator(r, n, c.simulator);
  if (auto n = root["aws"]) read_aws(r, n, c.aws);
  if (auto n = root["providers"]) c.providers = read_providers(r, n);
  if (auto n = root["reservations"]) c.reservations = read_reservations(r, n);
  if (auto n = root["pools"]) check_pool_providers(r, n, c);
  if (auto n = root["metrics"]) read_metrics(r, n, c.metrics);
  if (auto v = root["logFormat"]) {
    c.log_format =
        r.choice<LogFormat>(v, "logFormat", {{"text", LogFormat::Text}, {"json", LogFormat::Json}});
  }
  // Zones are launched in and priced for the region: one of another region would be asked for
  // there and priced as if here.
  const std::string& region = launch_region(c);
  const char* region_key = c.aws.region.empty() ? "region" : "aws.region";
  for (std::size_t i = 0; i < c.zones.size(); ++i) {
    if (zone_in_region(c.zones[i], region)) continue;
    if (auto z = root["zones"]) {
      r.fail(z[i], "zones[" + std::to_string(i) + "]",
             "zone \"" + c.zones[i] + "\" is not in " + region_key + " " + region);
    }
    r.fail(c.aws.region.empty() ? root["region"] : root["aws"]["region"], region_key,
           region + ": the default zones (" + c.zones[0] +
               ", ...) are not in it; list its zones under zones:");
  }
  return c;
}

const std::string& launch_region(const Config& c) {
  return c.aws.region.empty() ? c.region : c.aws.region;
}

bool zone_in_region(std::string_view zone, std::string_view region) {
  if (zone.size() <= region.size() || zone.substr(0, region.size()) != region) return false;
  const std::string_view rest = zone.substr(region.size());
  // "us-east-1a" (one letter), or a Local/Wavelength Zone: "us-east-1-bos-1a".
  if (rest.size() == 1) return rest[0] >= 'a' && rest[0] <= 'z';
  return rest[0] == '-';
}

void require_catalog_for_region(const Config& c, bool catalog_file_given) {
  if (catalog_file_given || launch_region(c) == kEmbeddedCatalogRegion) return;
  throw InputError(c.source + ": " + (c.aws.region.empty() ? "region" : "aws.region") + ": " +
                   launch_region(c) + " has no price catalog: the shipped one is " +
                   kEmbeddedCatalogRegion + "'s; give --catalog FILE with " + launch_region(c) +
                   " prices (format: data/README.md)");
}

Config load_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the config file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

NamespaceBudget read_namespace_budget_spec(const YAML::Node& spec, const std::string& source,
                                           const std::string& path) {
  NamespaceBudget out;
  read_namespace_budget(Reader(source), spec, path, out);
  return out;
}

ClusterBudget read_cluster_budget_spec(const YAML::Node& spec, const std::string& source,
                                       const std::string& path) {
  ClusterBudget out;
  read_cluster_budget(Reader(source), spec, path, out);
  return out;
}

Budgets budgets_or_defaults(const Config& config) {
  return config.budgets ? *config.budgets : safe_default_budgets();
}

}  // namespace fitscale
