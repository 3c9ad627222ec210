#include "model/labels.h"

#include <algorithm>
#include <charconv>

namespace fitscale {
namespace {

bool parse_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (*first == '+') ++first;  // from_chars rejects a leading '+'; Kubernetes' ParseInt accepts it
  auto [p, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && p == last;
}

bool contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Where an alias key points, and whether its values need the catalog's GPU-model case.
struct Alias {
  std::string_view from;
  std::string_view to;
  bool gpu_case = false;
};
constexpr Alias kAliases[] = {
    {label::kKarpenterCapacityType, label::kCapacityType, false},
    {label::kKarpenterGpuName, label::kGpuModel, true},
    {label::kBetaInstanceType, label::kInstanceType, false},
    {label::kBetaZone, label::kZone, false},
    // Older clusters' keys for the other topology labels fitscale sets.
    {"failure-domain.beta.kubernetes.io/region", label::kRegion, false},
    {"beta.kubernetes.io/arch", label::kArch, false},
    {"beta.kubernetes.io/os", label::kOs, false},
};

}  // namespace

std::string gpu_model_case(std::string value, const std::vector<std::string>& gpu_models) {
  for (const auto& m : gpu_models) {
    if (iequals(m, value)) return m;
  }
  return value;
}

std::string requirement_values_problem(const Requirement& r) {
  switch (r.op) {
    case SelectorOp::In:
    case SelectorOp::NotIn:
      if (r.values.empty())
        return std::string(r.op == SelectorOp::In ? "In" : "NotIn") + " needs at least one value";
      return "";
    case SelectorOp::Exists:
    case SelectorOp::DoesNotExist:
      if (!r.values.empty())
        return std::string(r.op == SelectorOp::Exists ? "Exists" : "DoesNotExist") +
               " takes no values";
      return "";
    case SelectorOp::Gt:
    case SelectorOp::Lt: {
      std::int64_t x = 0;
      if (r.values.size() != 1 || !parse_int(r.values[0], x))
        return std::string(r.op == SelectorOp::Gt ? "Gt" : "Lt") +
               " needs exactly one whole number";
      return "";
    }
  }
  return "";
}

bool matches(const Requirement& r, const Labels& labels) {
  auto it = labels.find(r.key);
  const bool present = it != labels.end();
  switch (r.op) {
    case SelectorOp::In:
      return present && contains(r.values, it->second);
    case SelectorOp::NotIn:
      // Kubernetes: NotIn also matches a node without the label.
      return !present || !contains(r.values, it->second);
    case SelectorOp::Exists:
      return present;
    case SelectorOp::DoesNotExist:
      return !present;
    case SelectorOp::Gt:
    case SelectorOp::Lt: {
      if (!present || r.values.size() != 1) return false;
      std::int64_t have = 0;
      std::int64_t want = 0;
      if (!parse_int(it->second, have) || !parse_int(r.values[0], want)) return false;
      return r.op == SelectorOp::Gt ? have > want : have < want;
    }
  }
  return false;
}

bool matches(const NodeSelectorTerm& t, const Labels& labels) {
  // Kubernetes: an empty term matches no node.
  if (t.requirements.empty()) return false;
  return std::all_of(t.requirements.begin(), t.requirements.end(),
                     [&](const Requirement& r) { return matches(r, labels); });
}

bool matches(const LabelSelector& s, const Labels& labels) {
  // An empty selector selects everything (metav1.LabelSelector semantics).
  if (!matches_node_selector(s.match_labels, labels)) return false;
  return std::all_of(s.match_expressions.begin(), s.match_expressions.end(),
                     [&](const Requirement& r) { return matches(r, labels); });
}

bool matches_node_selector(const Labels& node_selector, const Labels& labels) {
  for (const auto& [k, v] : node_selector) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

std::pair<std::string, std::string> canonical_label(std::string key, std::string value,
                                                    const std::vector<std::string>& gpu_models) {
  for (const Alias& a : kAliases) {
    if (key == a.from) {
      key = std::string(a.to);
      if (a.gpu_case) value = gpu_model_case(std::move(value), gpu_models);
      break;
    }
  }
  return {std::move(key), std::move(value)};
}

std::string_view canonical_key_of_alias(std::string_view key) {
  for (const Alias& a : kAliases) {
    if (key == a.from) return a.to;
  }
  return {};
}

Requirement canonical_requirement(Requirement r, const std::vector<std::string>& gpu_models) {
  for (const Alias& a : kAliases) {
    if (r.key == a.from) {
      r.key = std::string(a.to);
      if (a.gpu_case) {
        for (auto& v : r.values) v = gpu_model_case(std::move(v), gpu_models);
      }
      break;
    }
  }
  return r;
}

}  // namespace fitscale
