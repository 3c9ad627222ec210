#pragma once
// The ?labelSelector= and ?fieldSelector= query strings of list and watch requests.
// Label selectors: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, comma-separated
// (all must hold). Field selectors: `path=value`, `path==value`, `path!=value` on dotted JSON paths
// (spec.nodeName, metadata.name, status.phase, involvedObject.kind, ...).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/labels.h"

namespace fitscale::vcluster {

// Throws ApiError 400 on a malformed selector.
std::vector<Requirement> parse_label_selector(std::string_view text);
bool matches_labels(const std::vector<Requirement>& selector, const nlohmann::json& obj);

struct FieldRequirement {
  std::string path;  // "spec.nodeName"
  bool equals = true;
  std::string value;
};
std::vector<FieldRequirement> parse_field_selector(std::string_view text);
// The same, checked against the field labels kube-apiserver supports for `resource` (a plural:
// "events"; see event_fields.cpp). Resources without a list here take any dotted path.
std::vector<FieldRequirement> parse_field_selector_for(std::string_view resource,
                                                       std::string_view text);
// A missing field reads as "" (so `spec.nodeName=` selects unscheduled pods, as in Kubernetes).
bool matches_fields(const std::vector<FieldRequirement>& selector, const nlohmann::json& obj);

// metav1.LabelSelector JSON (matchLabels + matchExpressions) to the model's selector.
LabelSelector label_selector_from_json(const nlohmann::json& j);
Labels labels_of(const nlohmann::json& obj);

}  // namespace fitscale::vcluster
