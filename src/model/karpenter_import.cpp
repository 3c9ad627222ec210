#include "model/karpenter_import.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "model/error.h"
#include "model/pool_config.h"
#include "model/quantity.h"

namespace fitscale {

namespace {

// Karpenter's well-known labels (karpenter.sh docs, "Well-Known Labels") and fitscale's
// (docs/pools.md): the same facts under other keys. Values are the same (MiB for memory).
constexpr std::pair<std::string_view, std::string_view> kLabelKeys[] = {
    {"karpenter.k8s.aws/instance-category", "fitscale.io/instance-category"},
    {"karpenter.k8s.aws/instance-family", "fitscale.io/instance-family"},
    {"karpenter.k8s.aws/instance-generation", "fitscale.io/instance-generation"},
    {"karpenter.k8s.aws/instance-size", "fitscale.io/instance-size"},
    {"karpenter.k8s.aws/instance-cpu", "fitscale.io/instance-cpu"},
    {"karpenter.k8s.aws/instance-memory", "fitscale.io/instance-memory"},
    {"karpenter.k8s.aws/instance-gpu-count", "fitscale.io/gpu-count"},
    {"karpenter.k8s.aws/instance-gpu-memory", "fitscale.io/gpu-memory"},
    // Accepted as is (an alias fitscale resolves, any case): kept for a reader who knows it.
    {"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-name"},
    {"karpenter.sh/capacity-type", "karpenter.sh/capacity-type"},
};

class Reader {
 public:
  Reader(const std::string& source, const std::string& object) : source_(source), object_(object) {}

  std::string where(const YAML::Node& at) const {
    const YAML::Mark m = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
    return source_ + (m.line >= 0 ? ":" + std::to_string(m.line + 1) : "") + ": " + object_;
  }
  [[noreturn]] void fail(const YAML::Node& at, const std::string& field,
                         const std::string& msg) const {
    throw InputError(where(at) + ": " + field + ": " + msg);
  }
  std::string scalar(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be a string");
    return n.Scalar();
  }
  void map(const YAML::Node& n, const std::string& field) const {
    if (!n.IsMap()) fail(n, field, "must be a map");
  }
  void list(const YAML::Node& n, const std::string& field) const {
    if (!n.IsSequence()) fail(n, field, "must be a list");
  }

 private:
  const std::string& source_;
  std::string object_;
};

struct NodeClass {
  std::string name;
  YAML::Node spec;
  std::string source;
  bool used = false;
};

class Importer {
 public:
  Importer(const Reader& r, ImportedPool& out) : r_(r), out_(out) {}

  void note(const YAML::Node& at, const std::string& field, const std::string& what) {
    out_.notes.push_back(r_.where(at) + ": " + field + ": " + what);
  }

  void requirements(const YAML::Node& n, const std::string& field) {
    r_.list(n, field);
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string f = field + "[" + std::to_string(i) + "]";
      const YAML::Node e = n[i];
      r_.map(e, f);
      if (!e["key"]) r_.fail(e, f, "missing key");
      if (!e["operator"]) r_.fail(e, f, "missing operator");
      const std::string key = r_.scalar(e["key"], f + ".key");
      const std::string op = r_.scalar(e["operator"], f + ".operator");
      Requirement req;
      static constexpr std::pair<std::string_view, SelectorOp> kOps[] = {
          {"In", SelectorOp::In},         {"NotIn", SelectorOp::NotIn},
          {"Exists", SelectorOp::Exists}, {"DoesNotExist", SelectorOp::DoesNotExist},
          {"Gt", SelectorOp::Gt},         {"Lt", SelectorOp::Lt}};
      const auto* it = std::find_if(std::begin(kOps), std::end(kOps),
                                    [&](const auto& o) { return o.first == op; });
      if (it == std::end(kOps))
        r_.fail(e["operator"], f + ".operator",
                "must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt, got \"" + op + "\"");
      req.op = it->second;
      if (const YAML::Node v = e["values"]) {
        r_.list(v, f + ".values");
        for (std::size_t j = 0; j < v.size(); ++j)
          req.values.push_back(r_.scalar(v[j], f + ".values[" + std::to_string(j) + "]"));
      }
      // Checked here, with the NodePool's line, so what the import prints always reads back.
      if (const std::string problem = requirement_values_problem(req); !problem.empty())
        r_.fail(e["values"] ? e["values"] : e, f + ".values", problem);
      for (const auto& kv : e) {
        const std::string k = kv.first.Scalar();
        if (k == "minValues") {
          note(kv.first, f + ".minValues",
               "no equivalent (fitscale picks the cheapest offering, not a spread of types): "
               "dropped");
        } else if (k != "key" && k != "operator" && k != "values") {
          r_.fail(kv.first, f, "unknown key \"" + k + "\"");
        }
      }
      const auto mapped = std::find_if(std::begin(kLabelKeys), std::end(kLabelKeys),
                                       [&](const auto& m) { return m.first == key; });
      // Well-known Kubernetes keys (arch, os, instance-type, zone, region) and custom labels
      // (the pool's labels or the pods' selectors give them) are kept as they are.
      req.key = key;
      if (mapped != std::end(kLabelKeys)) {
        req.key = std::string(mapped->second);
      } else if (key.rfind("karpenter.k8s.aws/", 0) == 0 || key.rfind("karpenter.sh/", 0) == 0) {
        note(e["key"], f,
             key +
                 " has no equivalent in fitscale's catalog: requirement dropped, so the pool "
                 "may admit types it excluded (check with fitscale validate --pools)");
        continue;
      }
      if (key == "karpenter.sh/capacity-type" &&
          std::find(req.values.begin(), req.values.end(), "reserved") != req.values.end()) {
        note(e["values"], f + ".values",
             "capacity type reserved (capacity reservations) has no equivalent: it never matches");
      }
      if (key == "kubernetes.io/os" &&
          std::find(req.values.begin(), req.values.end(), "windows") != req.values.end()) {
        note(e["values"], f + ".values", "fitscale launches Linux nodes only");
      }
      out_.pool.requirements.push_back(std::move(req));
    }
  }

  std::vector<Taint> taints(const YAML::Node& n, const std::string& field) {
    r_.list(n, field);
    std::vector<Taint> out;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string f = field + "[" + std::to_string(i) + "]";
      const YAML::Node t = n[i];
      r_.map(t, f);
      Taint taint;
      if (!t["key"]) r_.fail(t, f, "missing key");
      if (!t["effect"]) r_.fail(t, f, "missing effect");
      taint.key = r_.scalar(t["key"], f + ".key");
      if (t["value"]) taint.value = r_.scalar(t["value"], f + ".value");
      try {
        taint.effect = parse_taint_effect(r_.scalar(t["effect"], f + ".effect"));
      } catch (const InputError&) {
        r_.fail(t["effect"], f + ".effect", "must be NoSchedule, PreferNoSchedule or NoExecute");
      }
      out.push_back(std::move(taint));
    }
    return out;
  }

  void limits(const YAML::Node& n, const std::string& field) {
    r_.map(n, field);
    for (const auto& kv : n) {
      const std::string k = kv.first.Scalar();
      const std::string f = field + "." + k;
      const std::string v = r_.scalar(kv.second, f);
      std::int64_t milli = 0;
      try {
        milli = Quantity::parse(v).milli();
      } catch (const InputError& e) {
        r_.fail(kv.second, f, e.what());
      }
      if (milli < 0) r_.fail(kv.second, f, "must not be negative");
      if (k == "cpu") {
        out_.pool.limits.cpu_milli = milli;
      } else if (k == "memory") {
        out_.pool.limits.memory_bytes = (milli + 999) / 1000;
      } else if (k == "nvidia.com/gpu" || k == "amd.com/gpu") {
        out_.pool.limits.gpus = (out_.pool.limits.gpus ? *out_.pool.limits.gpus : 0) + milli / 1000;
      } else if (k == "nodes") {
        out_.pool.limits.nodes = milli / 1000;
      } else {
        note(kv.first, f,
             "no equivalent limit (fitscale limits cpu, memory, gpus, nodes and "
             "usdPerHour): dropped");
      }
    }
  }

  void disruption(const YAML::Node& n, const std::string& field) {
    r_.map(n, field);
    std::string policy = "WhenEmptyOrUnderutilized";  // Karpenter v1's default
    if (const YAML::Node p = n["consolidationPolicy"])
      policy = r_.scalar(p, field + ".consolidationPolicy");
    if (policy == "WhenEmptyOrUnderutilized") {
      note(n["consolidationPolicy"] ? n["consolidationPolicy"] : n, field + ".consolidationPolicy",
           "WhenEmptyOrUnderutilized: fitscale never moves running batch pods to save money; "
           "only empty nodes are removed");
    } else if (policy != "WhenEmpty") {
      r_.fail(n["consolidationPolicy"], field + ".consolidationPolicy",
              "must be WhenEmpty or WhenEmptyOrUnderutilized, got \"" + policy + "\"");
    }
    if (const YAML::Node a = n["consolidateAfter"]) {
      const std::string after = r_.scalar(a, field + ".consolidateAfter");
      if (after == "Never") {
        out_.pool.scale_down.when_empty = false;
      } else {
        try {
          out_.pool.scale_down.empty_after = parse_duration(after);
        } catch (const InputError& e) {
          r_.fail(a, field + ".consolidateAfter", e.what());
        }
      }
    }
    if (const YAML::Node b = n["budgets"]) {
      note(b, field + ".budgets",
           "no equivalent: fitscale removes only empty nodes, never disrupting a running job");
    }
  }

  void node_class(const NodeClass& c) {
    const Reader r(c.source, "EC2NodeClass " + c.name);
    const YAML::Node& s = c.spec;
    if (!s.IsDefined() || s.IsNull()) return;
    r.map(s, "spec");
    auto dropped = [&](const YAML::Node& at, const std::string& f, const std::string& why) {
      out_.notes.push_back(r.where(at) + ": " + f + ": " + why);
    };
    auto terms = [&](const YAML::Node& n, const std::string& f) {
      r.list(n, f);
      std::vector<AwsSelectorTerm> out;
      for (std::size_t i = 0; i < n.size(); ++i) {
        const std::string tf = f + "[" + std::to_string(i) + "]";
        r.map(n[i], tf);
        AwsSelectorTerm t;
        for (const auto& kv : n[i]) {
          const std::string k = kv.first.Scalar();
          if (k == "tags") {
            r.map(kv.second, tf + ".tags");
            for (const auto& tag : kv.second)
              t.tags[tag.first.Scalar()] = r.scalar(tag.second, tf + ".tags." + tag.first.Scalar());
          } else if (k == "id") {
            t.id = r.scalar(kv.second, tf + ".id");
          } else {
            dropped(kv.first, tf + "." + k, "no equivalent (tags or id only): dropped");
          }
        }
        if (!t.tags.empty() || !t.id.empty()) out.push_back(std::move(t));
      }
      return out;
    };
    for (const auto& kv : s) {
      const std::string k = kv.first.Scalar();
      const std::string f = "spec." + k;
      const YAML::Node v = kv.second;
      if (k == "subnetSelectorTerms") {
        out_.pool.aws.subnet_selector_terms = terms(v, f);
      } else if (k == "securityGroupSelectorTerms") {
        out_.pool.aws.security_group_selector_terms = terms(v, f);
      } else if (k == "tags") {
        r.map(v, f);
        for (const auto& tag : v) out_.pool.aws.tags[tag.first.Scalar()] = r.scalar(tag.second, f);
      } else if (k == "amiSelectorTerms") {
        r.list(v, f);
        for (std::size_t i = 0; i < v.size(); ++i) {
          const YAML::Node t = v[i];
          if (t.IsMap() && t["ssmParameter"]) {
            out_.pool.aws.ami_ssm_parameter = r.scalar(t["ssmParameter"], f + ".ssmParameter");
          } else {
            dropped(t, f + "[" + std::to_string(i) + "]",
                    "fitscale boots the AMI of the launch template (aws.launchTemplate or the "
                    "pool's template.launchTemplate); set template.amiSSMParameter for an EKS "
                    "optimized AMI: dropped");
          }
        }
      } else if (k == "kubelet") {
        r.map(v, f);
        for (const auto& kk : v) {
          if (kk.first.Scalar() == "maxPods") {
            std::int64_t n = 0;
            const std::string text = r.scalar(kk.second, f + ".maxPods");
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > 100000)
              r.fail(kk.second, f + ".maxPods", "must be a whole number from 1 to 100000");
            out_.pool.max_pods = n;
          } else {
            dropped(kk.first, f + "." + kk.first.Scalar(),
                    "kubelet settings come from the launch template's bootstrap: dropped");
          }
        }
      } else {
        dropped(kv.first, f,
                "no equivalent: set it in the launch template (fitscale launches from an EC2 "
                "launch template): dropped");
      }
    }
  }

 private:
  const Reader& r_;
  ImportedPool& out_;
};

std::string scalar_of(const YAML::Node& n, const char* key) {
  return n.IsMap() && n[key] && n[key].IsScalar() ? n[key].Scalar() : std::string();
}

}  // namespace

KarpenterImport import_karpenter(const std::vector<KarpenterDocument>& docs) {
  std::vector<NodeClass> classes;
  std::vector<const KarpenterDocument*> pools;
  for (const KarpenterDocument& d : docs) {
    const YAML::Node& n = *d.node;
    const Reader r(d.source, "document");
    if (!n.IsMap()) r.fail(n, "document", "must be a map (a Kubernetes object)");
    const std::string api = scalar_of(n, "apiVersion");
    const std::string kind = scalar_of(n, "kind");
    const std::string name = n["metadata"] ? scalar_of(n["metadata"], "name") : "";
    if (kind == "NodePool" && api == "karpenter.sh/v1") {
      if (name.empty()) r.fail(n, "metadata.name", "must be set");
      pools.push_back(&d);
    } else if (kind == "EC2NodeClass" && api == "karpenter.k8s.aws/v1") {
      if (name.empty()) r.fail(n, "metadata.name", "must be set");
      classes.push_back({name, n["spec"], d.source, false});
    } else {
      r.fail(n["apiVersion"] ? n["apiVersion"] : n, "apiVersion/kind",
             "must be karpenter.sh/v1 NodePool or karpenter.k8s.aws/v1 EC2NodeClass, got " +
                 (api.empty() ? "no apiVersion" : api) + " " + (kind.empty() ? "no kind" : kind) +
                 (api.find("v1beta1") != std::string::npos
                      ? " (convert v1beta1 objects to v1 first: Karpenter's v1 migration guide)"
                      : ""));
    }
  }
  KarpenterImport out;
  for (const KarpenterDocument* d : pools) {
    const YAML::Node& n = *d->node;
    const std::string name = scalar_of(n["metadata"], "name");
    const Reader r(d->source, "NodePool " + name);
    ImportedPool ip;
    ip.pool.name = name;
    if (!is_pool_name(name))
      r.fail(n["metadata"]["name"], "metadata.name",
             "must be a DNS label to be a pool's name (lower case letters, digits, '-')");
    Importer im(r, ip);
    const YAML::Node spec = n["spec"];
    if (!spec) r.fail(n, "spec", "missing");
    r.map(spec, "spec");
    const NodeClass* used = nullptr;
    for (const auto& kv : spec) {
      const std::string k = kv.first.Scalar();
      const std::string f = "spec." + k;
      const YAML::Node v = kv.second;
      if (k == "weight") {
        std::int64_t w = 0;
        const std::string text = r.scalar(v, f);
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), w);
        if (ec != std::errc() || end != text.data() + text.size() || w < 0 || w > 100)
          r.fail(v, f, "must be a whole number from 0 to 100");
        ip.pool.weight = w;
      } else if (k == "limits") {
        im.limits(v, f);
      } else if (k == "disruption") {
        im.disruption(v, f);
      } else if (k == "replicas") {
        im.note(kv.first, f,
                "static NodePools have no equivalent (fitscale launches for pending "
                "pods only): dropped");
      } else if (k == "template") {
        r.map(v, f);
        if (const YAML::Node meta = v["metadata"]) {
          r.map(meta, f + ".metadata");
          if (const YAML::Node labels = meta["labels"]) {
            r.map(labels, f + ".metadata.labels");
            for (const auto& l : labels) {
              const std::string key = l.first.Scalar();
              if (key == label::kPool) {
                im.note(l.first, f + ".metadata.labels." + key,
                        "set by fitscale to the pool's name: dropped");
                continue;
              }
              ip.pool.labels[key] = r.scalar(l.second, f + ".metadata.labels." + key);
            }
          }
          if (meta["annotations"])
            im.note(meta["annotations"], f + ".metadata.annotations",
                    "node annotations have no equivalent: dropped");
        }
        const YAML::Node ts = v["spec"];
        if (!ts) continue;
        r.map(ts, f + ".spec");
        for (const auto& e : ts) {
          const std::string tk = e.first.Scalar();
          const std::string tf = f + ".spec." + tk;
          if (tk == "requirements") {
            im.requirements(e.second, tf);
          } else if (tk == "taints") {
            ip.pool.taints = im.taints(e.second, tf);
          } else if (tk == "startupTaints") {
            ip.pool.startup_taints = im.taints(e.second, tf);
          } else if (tk == "expireAfter") {
            if (r.scalar(e.second, tf) != "Never")
              im.note(e.second, tf,
                      "fitscale never expires nodes (a running job is never ended to renew its "
                      "node): Never");
          } else if (tk == "nodeClassRef") {
            r.map(e.second, tf);
            const std::string ref = scalar_of(e.second, "name");
            const std::string kind = scalar_of(e.second, "kind");
            if (!kind.empty() && kind != "EC2NodeClass") {
              im.note(e.second, tf, "kind " + kind + " has no equivalent: dropped");
              continue;
            }
            for (NodeClass& c : classes) {
              if (c.name == ref) {
                c.used = true;
                used = &c;
              }
            }
            if (!used)
              im.note(e.second, tf,
                      "EC2NodeClass " + ref +
                          " is not among the files given: the pool gets no template (pass its "
                          "file too)");
          } else {
            im.note(e.first, tf, "no equivalent: dropped");
          }
        }
      } else {
        im.note(kv.first, f, "no equivalent: dropped");
      }
    }
    if (used) im.node_class(*used);
    for (const auto& note : ip.notes) out.warnings.push_back(note);
    out.pools.push_back(std::move(ip));
  }
  for (const NodeClass& c : classes) {
    if (!c.used)
      out.warnings.push_back(c.source + ": EC2NodeClass " + c.name +
                             ": no NodePool given refers to it: nothing imported from it");
  }
  if (out.pools.empty()) {
    throw InputError((docs.empty() ? std::string("import karpenter") : docs.front().source) +
                     ": holds no karpenter.sh/v1 NodePool");
  }
  return out;
}

namespace {

void emit_requirement(YAML::Emitter& e, const Requirement& r) {
  static constexpr const char* kOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
  e << YAML::Flow << YAML::BeginMap << YAML::Key << "key" << YAML::Value << r.key << YAML::Key
    << "operator" << YAML::Value << kOps[static_cast<int>(r.op)];
  if (!r.values.empty()) {
    e << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& v : r.values) e << YAML::DoubleQuoted << v;
    e << YAML::EndSeq;
  }
  e << YAML::EndMap;
}

void emit_taints(YAML::Emitter& e, const char* key, const std::vector<Taint>& taints) {
  if (taints.empty()) return;
  e << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const Taint& t : taints) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "key" << YAML::Value << t.key;
    if (!t.value.empty()) e << YAML::Key << "value" << YAML::Value << t.value;
    e << YAML::Key << "effect" << YAML::Value << to_string(t.effect) << YAML::EndMap;
  }
  e << YAML::EndSeq;
}

void emit_terms(YAML::Emitter& e, const char* key, const std::vector<AwsSelectorTerm>& terms) {
  if (terms.empty()) return;
  e << YAML::Key << key << YAML::Value << YAML::BeginSeq;
  for (const AwsSelectorTerm& t : terms) {
    e << YAML::BeginMap;
    if (!t.id.empty()) e << YAML::Key << "id" << YAML::Value << t.id;
    if (!t.tags.empty()) {
      e << YAML::Key << "tags" << YAML::Value << YAML::BeginMap;
      for (const auto& [k, v] : t.tags)
        e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
}

std::string memory_quantity(std::int64_t bytes) {
  constexpr std::int64_t kGi = 1LL << 30, kMi = 1LL << 20;
  if (bytes % kGi == 0) return std::to_string(bytes / kGi) + "Gi";
  if (bytes % kMi == 0) return std::to_string(bytes / kMi) + "Mi";
  return std::to_string(bytes);
}

std::string cpu_quantity(std::int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

}  // namespace

std::string pool_manifests_yaml(const KarpenterImport& imported) {
  std::string out;
  for (const ImportedPool& ip : imported.pools) {
    const Pool& p = ip.pool;
    YAML::Emitter e;
    e << YAML::BeginMap;
    e << YAML::Key << "apiVersion" << YAML::Value << "fitscale.io/v1alpha1";
    e << YAML::Key << "kind" << YAML::Value << "Pool";
    e << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name"
      << YAML::Value << p.name << YAML::EndMap;
    e << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "weight" << YAML::Value << p.weight;
    if (!p.requirements.empty()) {
      e << YAML::Key << "requirements" << YAML::Value << YAML::BeginSeq;
      for (const auto& r : p.requirements) emit_requirement(e, r);
      e << YAML::EndSeq;
    }
    if (!p.labels.empty()) {
      e << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
      for (const auto& [k, v] : p.labels)
        e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
      e << YAML::EndMap;
    }
    emit_taints(e, "taints", p.taints);
    emit_taints(e, "startupTaints", p.startup_taints);
    if (p.limits.any()) {
      e << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
      if (p.limits.cpu_milli)
        e << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted
          << cpu_quantity(*p.limits.cpu_milli);
      if (p.limits.memory_bytes)
        e << YAML::Key << "memory" << YAML::Value << YAML::DoubleQuoted
          << memory_quantity(*p.limits.memory_bytes);
      if (p.limits.gpus) e << YAML::Key << "gpus" << YAML::Value << *p.limits.gpus;
      if (p.limits.nodes) e << YAML::Key << "nodes" << YAML::Value << *p.limits.nodes;
      e << YAML::EndMap;
    }
    const AwsPoolTemplate& t = p.aws;
    if (!t.ami_ssm_parameter.empty() || !t.subnet_selector_terms.empty() ||
        !t.security_group_selector_terms.empty() || !t.tags.empty()) {
      e << YAML::Key << "provider" << YAML::Value << "aws";
      e << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
      if (!t.ami_ssm_parameter.empty())
        e << YAML::Key << "amiSSMParameter" << YAML::Value << t.ami_ssm_parameter;
      emit_terms(e, "subnetSelectorTerms", t.subnet_selector_terms);
      emit_terms(e, "securityGroupSelectorTerms", t.security_group_selector_terms);
      if (!t.tags.empty()) {
        e << YAML::Key << "tags" << YAML::Value << YAML::BeginMap;
        for (const auto& [k, v] : t.tags)
          e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
        e << YAML::EndMap;
      }
      e << YAML::EndMap;
    }
    if (p.max_pods)
      e << YAML::Key << "kubelet" << YAML::Value << YAML::BeginMap << YAML::Key << "maxPods"
        << YAML::Value << *p.max_pods << YAML::EndMap;
    if (!p.scale_down.when_empty || p.scale_down.empty_after) {
      e << YAML::Key << "scaleDown" << YAML::Value << YAML::BeginMap;
      e << YAML::Key << "whenEmpty" << YAML::Value << (p.scale_down.when_empty ? "true" : "false");
      if (p.scale_down.empty_after)
        e << YAML::Key << "after" << YAML::Value << std::to_string(*p.scale_down.empty_after) + "s";
      e << YAML::EndMap;
    }
    e << YAML::Key << "expireAfter" << YAML::Value << "Never";
    e << YAML::EndMap << YAML::EndMap;
    out += "---\n";
    for (const auto& n : ip.notes) out += "# warning: " + n + "\n";
    out += e.c_str();
    out += "\n";
  }
  return out;
}

}  // namespace fitscale
