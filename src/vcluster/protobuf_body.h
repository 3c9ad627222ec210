#pragma once
// kubectl sends some creates (`kubectl create namespace`) as Kubernetes protobuf
// (application/vnd.kubernetes.protobuf) whatever the server prefers. This reads just enough of
// that encoding: the "k8s\0" envelope (runtime.Unknown: typeMeta, raw) and the object's
// ObjectMeta (name, generateName, namespace, labels, annotations). That is the whole of a
// Namespace; any other kind is refused with 415 so the client's JSON is never half-read.
#include <nlohmann/json.hpp>
#include <string_view>

namespace fitscale::vcluster {

// Throws ApiError 415 (a kind other than Namespace) or 400 (malformed bytes).
nlohmann::json decode_protobuf_body(std::string_view body);

}  // namespace fitscale::vcluster
