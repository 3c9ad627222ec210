#pragma once
// Strategic merge patch (application/strategic-merge-patch+json), as kube-apiserver applies it
// to the built-in kinds: lists that carry a patch merge key are merged element by element
// (containers by name, ports by containerPort, conditions by type, ...), the other lists are
// replaced, maps merge as in a JSON merge patch. The directives kubectl sends are honoured:
// `$patch: replace|delete|merge` on a map or a list element, `$retainKeys`,
// `$setElementOrder/FIELD` and `$deleteFromPrimitiveList/FIELD`.
//
// The merge keys come from the Go types' patchMergeKey/patchStrategy tags (k8s.io/api), looked
// up by field name and, where one name has two meanings, by the enclosing field (a container's
// `ports` merge on containerPort, a Service's on port).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fitscale::vcluster {

struct ListStrategy {
  enum Kind { kReplace, kMergeByKey, kMergePrimitives } kind = kReplace;
  std::string merge_key;  // for kMergeByKey
};

// How the list in field `field` (inside field `parent`, "" at the top) is patched.
ListStrategy list_strategy(const std::string& parent, const std::string& field);

// Throws ApiError 400/422 for a malformed patch (a directive of the wrong shape).
nlohmann::json strategic_merge(const nlohmann::json& original, const nlohmann::json& patch);

}  // namespace fitscale::vcluster
