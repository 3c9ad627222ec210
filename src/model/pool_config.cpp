#include "model/pool_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/error.h"
#include "model/money.h"
#include "model/quantity.h"
#include "model/time.h"
#include "model/yaml_reader.h"

namespace fitscale {
namespace {

// The key paths and messages follow config.cpp's reader; this one knows only what pools need.
class PoolReader : public YamlReader {
 public:
  using YamlReader::YamlReader;

  void expect_map(const YAML::Node& n, const std::string& path,
                  std::initializer_list<std::string_view> allowed) const {
    if (!n.IsMap()) fail(n, path, "must be a map, got " + shown(n));
    std::set<std::string, std::less<>> seen;
    for (const auto& kv : n) {
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second) fail(kv.first, path + "." + key, "duplicate key");
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string names;
      for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      fail(kv.first, path, "unknown key \"" + key + "\" (a pool has " + names + ")");
    }
  }

  std::int64_t integer(const YAML::Node& n, const std::string& path, std::int64_t min,
                       std::int64_t max) const {
    const std::string want = "must be a whole number from " + std::to_string(min) + " to " +
                             std::to_string(max) + ", got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    const auto v = whole_number(n.Scalar());
    if (!v || *v < min || *v > max) fail(n, path, want + shown(n));
    return *v;
  }

  double usd(const YAML::Node& n, const std::string& path) const {
    const std::string want = "must be a number >= 0, got ";
    if (!n.IsScalar()) fail(n, path, want + shown(n));
    const auto v = finite_number(n.Scalar());
    if (!v || *v < 0 || *v > 1e12) fail(n, path, want + shown(n));
    return *v;
  }

  std::int64_t quantity_milli(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "must be a quantity (\"64\", \"256Gi\"), got " + shown(n));
    std::int64_t milli = 0;
    try {
      milli = Quantity::parse(n.Scalar()).milli();
    } catch (const InputError& e) {
      fail(n, path, e.what());
    }
    if (milli < 0) fail(n, path, "must not be negative, got " + shown(n));
    return milli;
  }

  Requirement requirement(const YAML::Node& n, const std::string& path) const {
    expect_map(n, path, {"key", "operator", "values"});
    Requirement r;
    if (!n["key"]) fail(n, path, "missing \"key\"");
    r.key = string(n["key"], path + ".key", false);
    if (!n["operator"]) fail(n, path, "missing \"operator\"");
    const YAML::Node op = n["operator"];
    const std::string ops = string(op, path + ".operator", false);
    static constexpr std::pair<std::string_view, SelectorOp> kOps[] = {
        {"In", SelectorOp::In},         {"NotIn", SelectorOp::NotIn},
        {"Exists", SelectorOp::Exists}, {"DoesNotExist", SelectorOp::DoesNotExist},
        {"Gt", SelectorOp::Gt},         {"Lt", SelectorOp::Lt}};
    const auto* it = std::find_if(std::begin(kOps), std::end(kOps),
                                  [&](const auto& e) { return e.first == ops; });
    if (it == std::end(kOps))
      fail(op, path + ".operator",
           "must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt, got " + shown(op));
    r.op = it->second;
    if (const YAML::Node v = n["values"]) {
      if (!v.IsSequence()) fail(v, path + ".values", "must be a list, got " + shown(v));
      for (std::size_t i = 0; i < v.size(); ++i)
        r.values.push_back(string(v[i], path + ".values[" + std::to_string(i) + "]", true));
    }
    if (const std::string problem = requirement_values_problem(r); !problem.empty())
      fail(n["values"] ? n["values"] : n, path + ".values", problem);
    return r;
  }

  std::vector<Taint> taints(const YAML::Node& n, const std::string& path) const {
    if (!n.IsSequence()) fail(n, path, "must be a list, got " + shown(n));
    std::vector<Taint> out;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      const YAML::Node t = n[i];
      expect_map(t, p, {"key", "value", "effect"});
      Taint taint;
      if (!t["key"]) fail(t, p, "missing \"key\"");
      taint.key = string(t["key"], p + ".key", false);
      if (t["value"]) taint.value = string(t["value"], p + ".value", true);
      if (!t["effect"]) fail(t, p, "missing \"effect\"");
      const std::string effect = string(t["effect"], p + ".effect", false);
      try {
        taint.effect = parse_taint_effect(effect);
      } catch (const InputError&) {
        fail(t["effect"], p + ".effect",
             "must be one of NoSchedule, PreferNoSchedule, NoExecute, got " + shown(t["effect"]));
      }
      out.push_back(std::move(taint));
    }
    return out;
  }

  std::map<std::string, std::string> string_map(const YAML::Node& n,
                                                const std::string& path) const {
    if (!n.IsMap()) fail(n, path, "must be a map, got " + shown(n));
    std::map<std::string, std::string> out;
    for (const auto& kv : n) {
      const std::string key = string(kv.first, path, false);
      out[key] = string(kv.second, path + "." + key, true);
    }
    return out;
  }

  // Karpenter's subnetSelectorTerms / securityGroupSelectorTerms: each term has tags or an id.
  std::vector<AwsSelectorTerm> selector_terms(const YAML::Node& n, const std::string& path) const {
    if (!n.IsSequence()) fail(n, path, "must be a list, got " + shown(n));
    std::vector<AwsSelectorTerm> out;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string p = path + "[" + std::to_string(i) + "]";
      expect_map(n[i], p, {"tags", "id"});
      AwsSelectorTerm t;
      if (const YAML::Node v = n[i]["tags"]) t.tags = string_map(v, p + ".tags");
      if (const YAML::Node v = n[i]["id"]) t.id = string(v, p + ".id", false);
      if (t.tags.empty() == t.id.empty()) fail(n[i], p, "needs either tags or id (not both)");
      out.push_back(std::move(t));
    }
    return out;
  }

  Seconds duration(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "must be a duration (\"5m\", \"1h30m\"), got " + shown(n));
    Seconds s = 0;
    try {
      s = parse_duration(n.Scalar());
    } catch (const InputError& e) {
      fail(n, path, e.what());
    }
    if (s < 0 || s > 366LL * 86400) fail(n, path, "must be from 0s to 8784h, got " + shown(n));
    return s;
  }

  AwsPoolTemplate aws_template(const YAML::Node& n, const std::string& path) const {
    expect_map(n, path,
               {"launchTemplate", "amiSSMParameter", "subnetSelectorTerms",
                "securityGroupSelectorTerms", "capacityReservationSelectorTerms", "tags"});
    AwsPoolTemplate t;
    if (const YAML::Node lt = n["launchTemplate"]) {
      const std::string lp = path + ".launchTemplate";
      expect_map(lt, lp, {"name", "id", "version"});
      if (lt["name"]) t.launch_template_name = string(lt["name"], lp + ".name", false);
      if (lt["id"]) t.launch_template_id = string(lt["id"], lp + ".id", false);
      if (lt["version"]) t.launch_template_version = string(lt["version"], lp + ".version", false);
      if (t.launch_template_name.empty() == t.launch_template_id.empty())
        fail(lt, lp, "needs either name or id (not both)");
    }
    if (const YAML::Node v = n["amiSSMParameter"]) {
      t.ami_ssm_parameter = string(v, path + ".amiSSMParameter", false);
      if (t.ami_ssm_parameter.front() != '/')
        fail(v, path + ".amiSSMParameter",
             "must be an SSM parameter path starting with '/', got " + shown(v));
    }
    if (const YAML::Node v = n["subnetSelectorTerms"])
      t.subnet_selector_terms = selector_terms(v, path + ".subnetSelectorTerms");
    if (const YAML::Node v = n["securityGroupSelectorTerms"])
      t.security_group_selector_terms = selector_terms(v, path + ".securityGroupSelectorTerms");
    if (const YAML::Node v = n["capacityReservationSelectorTerms"]) {
      t.capacity_reservation_selector_terms =
          selector_terms(v, path + ".capacityReservationSelectorTerms");
    }
    if (const YAML::Node v = n["tags"]) t.tags = string_map(v, path + ".tags");
    return t;
  }
};

}  // namespace

bool is_pool_name(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

namespace {

std::string money(double usd) { return format_usd(usd); }

}  // namespace

Pool read_pool_spec(const YAML::Node& n, const std::string& source, const std::string& path,
                    std::string name) {
  const PoolReader r(source);
  Pool p;
  p.name = std::move(name);
  if (n.IsNull()) return p;
  r.expect_map(n, path,
               {"name", "weight", "requirements", "labels", "taints", "gpuTaints", "startupTaints",
                "limits", "provider", "template", "kubelet", "scaleDown", "expireAfter"});
  if (const YAML::Node v = n["weight"]) p.weight = r.integer(v, path + ".weight", 0, 100);
  if (const YAML::Node v = n["requirements"]) {
    if (!v.IsSequence()) r.fail(v, path + ".requirements", "must be a list, got " + r.shown(v));
    for (std::size_t i = 0; i < v.size(); ++i)
      p.requirements.push_back(
          r.requirement(v[i], path + ".requirements[" + std::to_string(i) + "]"));
  }
  if (const YAML::Node v = n["labels"]) {
    if (!v.IsMap()) r.fail(v, path + ".labels", "must be a map, got " + r.shown(v));
    for (const auto& kv : v) {
      const std::string key = r.string(kv.first, path + ".labels", false);
      if (key == label::kPool)
        r.fail(kv.first, path + ".labels." + key, "is set by fitscale to the pool's name");
      p.labels[key] = r.string(kv.second, path + ".labels." + key, true);
    }
  }
  if (const YAML::Node v = n["taints"]) p.taints = r.taints(v, path + ".taints");
  if (const YAML::Node v = n["gpuTaints"]) p.gpu_taints = r.taints(v, path + ".gpuTaints");
  if (const YAML::Node v = n["startupTaints"])
    p.startup_taints = r.taints(v, path + ".startupTaints");
  if (const YAML::Node l = n["limits"]) {
    const std::string lp = path + ".limits";
    r.expect_map(l, lp, {"cpu", "memory", "gpus", "nodes", "usdPerHour"});
    if (const YAML::Node v = l["cpu"]) p.limits.cpu_milli = r.quantity_milli(v, lp + ".cpu");
    if (const YAML::Node v = l["memory"])
      p.limits.memory_bytes = (r.quantity_milli(v, lp + ".memory") + 999) / 1000;
    if (const YAML::Node v = l["gpus"]) p.limits.gpus = r.integer(v, lp + ".gpus", 0, 1'000'000);
    if (const YAML::Node v = l["nodes"]) p.limits.nodes = r.integer(v, lp + ".nodes", 0, 1'000'000);
    if (const YAML::Node v = l["usdPerHour"]) p.limits.usd_per_hour = r.usd(v, lp + ".usdPerHour");
  }
  if (const YAML::Node v = n["provider"]) {
    p.provider = r.string(v, path + ".provider", false);
    // A provider's name (providers[].name, a DNS label), or aws / sim without providers:. The
    // config file checks it against its providers (config.cpp, check_pool_providers).
    if (!is_pool_name(p.provider))
      r.fail(v, path + ".provider",
             "must be a provider's name (a DNS label: aws, sim or a providers[].name), got " +
                 r.shown(v));
  }
  if (const YAML::Node v = n["template"]) {
    if (p.provider == "sim")
      r.fail(v, path + ".template", "is for provider aws; provider sim takes none");
    p.aws = r.aws_template(v, path + ".template");
  }
  if (const YAML::Node k = n["kubelet"]) {
    r.expect_map(k, path + ".kubelet", {"maxPods"});
    if (const YAML::Node v = k["maxPods"])
      p.max_pods = r.integer(v, path + ".kubelet.maxPods", 1, 100000);
  }
  if (const YAML::Node sd = n["scaleDown"]) {
    const std::string sp = path + ".scaleDown";
    r.expect_map(sd, sp, {"whenEmpty", "after"});
    if (const YAML::Node v = sd["whenEmpty"]) {
      const std::string b = r.string(v, sp + ".whenEmpty", false);
      if (b != "true" && b != "false")
        r.fail(v, sp + ".whenEmpty", "must be true or false, got " + r.shown(v));
      p.scale_down.when_empty = b == "true";
    }
    if (const YAML::Node v = sd["after"]) p.scale_down.empty_after = r.duration(v, sp + ".after");
  }
  if (const YAML::Node v = n["expireAfter"]) {
    // Karpenter's default is 720h; a node fitscale launched for a week-long job must not be
    // ended under it, and fitscale has no expiry at all: only Never is accepted.
    if (r.string(v, path + ".expireAfter", false) != "Never")
      r.fail(v, path + ".expireAfter",
             "must be Never (fitscale never expires nodes: a running job is never ended to "
             "renew its node), got " +
                 r.shown(v));
  }
  return p;
}

std::vector<Pool> read_pools(const YAML::Node& n, const std::string& source) {
  const PoolReader r(source);
  if (!n.IsSequence()) r.fail(n, "pools", "must be a list of pools, got " + r.shown(n));
  std::vector<Pool> out;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const std::string path = "pools[" + std::to_string(i) + "]";
    const YAML::Node p = n[i];
    if (!p.IsMap()) r.fail(p, path, "must be a map, got " + r.shown(p));
    if (!p["name"]) r.fail(p, path, "missing \"name\"");
    const std::string name = r.string(p["name"], path + ".name", false);
    if (!is_pool_name(name))
      r.fail(p["name"], path + ".name",
             "must be a DNS label (lower case letters, digits, '-'), got \"" + name + "\"");
    if (std::any_of(out.begin(), out.end(), [&](const Pool& q) { return q.name == name; }))
      r.fail(p["name"], path + ".name", "pool \"" + name + "\" is listed twice");
    out.push_back(read_pool_spec(p, source, path, name));
  }
  if (out.empty()) r.fail(n, "pools", "lists no pool; remove the key to get the default pool");
  return out;
}

std::string describe(const Pool& p) {
  std::string s = p.name + "  weight " + std::to_string(p.weight);
  auto list = [&](const char* what, const auto& items) {
    if (items.empty()) return;
    s += std::string("; ") + what + " ";
    for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + describe(items[i]);
  };
  list("requirements", p.requirements);
  if (!p.labels.empty()) {
    s += "; labels ";
    bool first = true;
    for (const auto& [k, v] : p.labels) {
      s += (first ? "" : ", ") + k + "=" + v;
      first = false;
    }
  }
  list("taints", p.taints);
  list("gpuTaints", p.gpu_taints);
  list("startupTaints", p.startup_taints);
  if (p.limits.any()) {
    s += "; limits";
    if (p.limits.cpu_milli) s += " cpu " + std::to_string(*p.limits.cpu_milli / 1000);
    if (p.limits.memory_bytes) s += " memory " + format_bytes_gib(*p.limits.memory_bytes);
    if (p.limits.gpus) s += " gpus " + std::to_string(*p.limits.gpus);
    if (p.limits.nodes) s += " nodes " + std::to_string(*p.limits.nodes);
    if (p.limits.usd_per_hour) s += " usdPerHour " + money(*p.limits.usd_per_hour);
  }
  if (!p.provider.empty()) s += "; provider " + p.provider;
  if (p.aws.has_launch_template()) {
    s += "; launchTemplate " +
         (p.aws.launch_template_id.empty() ? p.aws.launch_template_name : p.aws.launch_template_id);
  }
  if (!p.aws.ami_ssm_parameter.empty())
    s += "; amiSSMParameter " + p.aws.ami_ssm_parameter + " (not read yet)";
  if (!p.aws.subnet_selector_terms.empty() || !p.aws.security_group_selector_terms.empty())
    s += "; subnet/security group selectors (not applied yet)";
  if (p.max_pods) s += "; maxPods " + std::to_string(*p.max_pods);
  if (!p.scale_down.when_empty)
    s += "; empty nodes kept";
  else if (p.scale_down.empty_after)
    s += "; empty nodes removed after " + format_duration(*p.scale_down.empty_after);
  return s;
}

}  // namespace fitscale
