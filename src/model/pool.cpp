#include "model/pool.h"

#include <algorithm>

namespace fitscale {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

const char* op_name(SelectorOp op) {
  switch (op) {
    case SelectorOp::In:
      return "In";
    case SelectorOp::NotIn:
      return "NotIn";
    case SelectorOp::Exists:
      return "Exists";
    case SelectorOp::DoesNotExist:
      return "DoesNotExist";
    case SelectorOp::Gt:
      return "Gt";
    case SelectorOp::Lt:
      return "Lt";
  }
  return "?";
}

}  // namespace

Pool default_pool(std::string name) {
  Pool p;
  p.name = std::move(name);
  // amd64 only: most research images are built for it, and an amd64 image on an arm64 node
  // crashes at start (exec format error).
  p.requirements.push_back({std::string(label::kArch), SelectorOp::In, {"amd64"}});
  p.requirements.push_back({std::string(label::kCurrentGeneration), SelectorOp::In, {"true"}});
  // GPU nodes only for pods that ask for GPUs: ExtendedResourceToleration gives exactly those
  // pods the toleration, so CPU pods never take (and keep alive) an expensive GPU node.
  p.gpu_taints.push_back({std::string(kGpuTaintKey), "true", TaintEffect::NoSchedule});
  return p;
}

TypeName parse_type_name(std::string_view name) {
  TypeName t;
  const std::size_t dot = name.find('.');
  t.family = std::string(name.substr(0, dot));
  if (dot != std::string_view::npos) t.size = std::string(name.substr(dot + 1));
  std::size_t i = 0;
  while (i < t.family.size() && is_lower(t.family[i])) ++i;
  t.category = t.family.substr(0, i);
  std::size_t j = i;
  while (j < t.family.size() && is_digit(t.family[j])) ++j;
  t.generation = t.family.substr(i, j - i);
  return t;
}

bool is_current_generation(std::string_view instance_type) {
  // AWS's previous-generation families (those the catalog has, and the retired ones before
  // them); a list rather than a rule on the generation number, so names of owned hardware or
  // of a hand-made catalog ("gpu1.large") are never taken for old EC2 types.
  static constexpr std::string_view kPrevious[] = {
      "c1", "c3", "cc2", "cr1", "d2", "g2", "hs1", "i2", "m1", "m2", "m3", "r3", "t1", "x1", "x1e"};
  const std::string family = parse_type_name(instance_type).family;
  return std::find(std::begin(kPrevious), std::end(kPrevious), family) == std::end(kPrevious);
}

void add_type_labels(const InstanceType& t, Labels& labels) {
  const TypeName n = parse_type_name(t.name);
  if (!n.category.empty()) labels.emplace(label::kInstanceCategory, n.category);
  labels.emplace(label::kInstanceFamily, n.family);
  if (!n.generation.empty()) labels.emplace(label::kInstanceGeneration, n.generation);
  if (!n.size.empty()) labels.emplace(label::kInstanceSize, n.size);
  labels.emplace(label::kInstanceCpu, std::to_string(t.vcpu));
  labels.emplace(label::kInstanceMemory, std::to_string(t.memory_mib));
  labels.emplace(label::kCurrentGeneration, is_current_generation(t.name) ? "true" : "false");
  // Like gpu-model, only GPU types carry the counts, so DoesNotExist selects CPU-only types.
  if (t.gpu > 0) {
    labels.emplace(label::kGpuCount, std::to_string(t.gpu));
    labels.emplace(label::kGpuMemory, std::to_string(t.gpu_memory_mib));
  }
}

bool pool_admits(const Pool& pool, const Labels& offering_labels) {
  return std::all_of(pool.requirements.begin(), pool.requirements.end(),
                     [&](const Requirement& r) { return matches(r, offering_labels); });
}

std::vector<Taint> node_taints(const Pool& pool, const InstanceType& t) {
  std::vector<Taint> out = pool.taints;
  if (t.gpu > 0) {
    for (const Taint& g : pool.gpu_taints) {
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    }
  }
  return out;
}

std::string describe(const Requirement& r) {
  std::string s = r.key + " " + op_name(r.op);
  if (r.op == SelectorOp::Exists || r.op == SelectorOp::DoesNotExist) return s;
  s += " [";
  for (std::size_t i = 0; i < r.values.size(); ++i) s += (i ? ", " : "") + r.values[i];
  return s + "]";
}

std::string describe(const Taint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + to_string(t.effect);
}

}  // namespace fitscale
