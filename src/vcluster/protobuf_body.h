#pragma once
// kubectl's typed client sends its creates (`kubectl create namespace|configmap|serviceaccount|
// deployment|job|pdb`) as Kubernetes protobuf (application/vnd.kubernetes.protobuf) whatever the
// server prefers. This reads the "k8s\0" envelope (runtime.Unknown: typeMeta, raw) and decodes
// the object with the schemas of protobuf_schema.h; a kind without one is refused with 415.
#include <nlohmann/json.hpp>
#include <string_view>

namespace fitscale::vcluster {

// Throws ApiError 415 (a kind without a schema) or 400 (malformed bytes).
nlohmann::json decode_protobuf_body(std::string_view body);

}  // namespace fitscale::vcluster
