#pragma once
// Server-side apply (PATCH with application/apply-patch+yaml, `kubectl apply --server-side`),
// simplified. What matches kube-apiserver: the body is YAML or JSON holding a whole object; an
// absent object is created from it; a present one gets the applied configuration merged in with
// the strategic-merge rules of the built-in kinds (lists merged by their patch merge keys, other
// lists replaced); `fieldManager` is required; `metadata.managedFields` gets one Apply entry per
// manager with the fields it applied (FieldsV1). A manager that applies a different value to a
// field another Apply manager owns gets 409 Conflict naming each field and its owner (as
// kube-apiserver words it); the same value makes both owners; `force=true` takes the fields
// from their owners. What is simplified: only Apply entries own fields (create, update and
// patch record no Update entries, so they never conflict and are never conflicted with), and a
// field a manager stops applying is left in place rather than removed.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fitscale::vcluster {

struct ApplyRequest {
  std::string field_manager;
  std::string time;    // RFC 3339, for managedFields
  bool force = false;  // take conflicting fields from their owners instead of failing
};

// The applied configuration from the body (YAML or JSON). Throws ApiError 400.
nlohmann::json parse_apply_body(std::string_view body);
// Throws ApiError 400 when fieldManager is missing.
void check_apply_request(const ApplyRequest& request);

// `stored` null when the object does not exist yet. Throws ApiError 409 Conflict (details.causes:
// one FieldManagerConflict per field) when `applied` changes a field another manager owns and
// `request.force` is false.
nlohmann::json server_side_apply(const nlohmann::json& stored, const nlohmann::json& applied,
                                 const ApplyRequest& request);

// FieldsV1 of a configuration: {"f:metadata": {"f:name": {}}, "f:spec": {"f:containers":
// {"k:{\"name\":\"app\"}": {...}}}}, as kube-apiserver records managed fields.
nlohmann::json fields_v1(const nlohmann::json& config, const std::string& parent = "");

}  // namespace fitscale::vcluster
