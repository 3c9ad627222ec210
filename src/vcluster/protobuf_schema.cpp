#include "vcluster/protobuf_schema.h"

#include <cstdint>
#include <string>
#include <vector>

#include "model/base64.h"
#include "vcluster/api_error.h"
#include "vcluster/protobuf_reader.h"

namespace fitscale::vcluster {
namespace {

ApiError malformed() { return ProtobufReader::malformed(); }

enum class T {
  kString,
  kInt,
  kBool,
  kMessage,
  kStringMap,    // map<string, string>
  kBytesMap,     // map<string, bytes>: base64 in JSON
  kQuantityMap,  // map<string, resource.Quantity>
  kIntOrString,
  kSkip,
};

struct Message;
struct Field {
  int number;
  const char* name;
  T type;
  bool repeated = false;
  const Message* message = nullptr;
};
struct Message {
  std::vector<Field> fields;
};

using Reader = ProtobufReader;

std::pair<std::string, std::string_view> map_entry(std::string_view entry) {
  std::string key;
  std::string_view value;
  Reader r(entry);
  while (!r.done()) {
    const std::uint64_t tag = r.varint();
    const int wire = static_cast<int>(tag & 7);
    if (wire == 2 && (tag >> 3) == 1) {
      key = r.bytes();
    } else if (wire == 2 && (tag >> 3) == 2) {
      value = r.bytes();
    } else {
      r.skip(wire);
    }
  }
  return {key, value};
}

nlohmann::json decode(std::string_view bytes, const Message& m, int depth);

nlohmann::json int_or_string(std::string_view bytes) {
  std::int64_t type = 0;
  std::int64_t int_val = 0;
  std::string str_val;
  Reader r(bytes);
  while (!r.done()) {
    const std::uint64_t tag = r.varint();
    const int wire = static_cast<int>(tag & 7);
    const auto f = tag >> 3;
    if (wire == 0 && f == 1) {
      type = static_cast<std::int64_t>(r.varint());
    } else if (wire == 0 && f == 2) {
      int_val = static_cast<std::int32_t>(r.varint());
    } else if (wire == 2 && f == 3) {
      str_val = r.bytes();
    } else {
      r.skip(wire);
    }
  }
  if (type == 1) return str_val;
  return int_val;
}

std::string quantity(std::string_view bytes) {
  std::string out;
  Reader r(bytes);
  while (!r.done()) {
    const std::uint64_t tag = r.varint();
    const int wire = static_cast<int>(tag & 7);
    if (wire == 2 && (tag >> 3) == 1) {
      out = r.bytes();
    } else {
      r.skip(wire);
    }
  }
  return out;
}

nlohmann::json value_of(const Field& f, Reader& r, int wire, int depth) {
  auto need = [&](int w) {
    if (wire != w) throw malformed();
  };
  switch (f.type) {
    case T::kString:
      need(2);
      return std::string(r.bytes());
    case T::kInt:
      need(0);
      return static_cast<std::int64_t>(r.varint());
    case T::kBool:
      need(0);
      return r.varint() != 0;
    case T::kMessage:
      need(2);
      return decode(r.bytes(), *f.message, depth + 1);
    case T::kIntOrString:
      need(2);
      return int_or_string(r.bytes());
    default:
      r.skip(wire);
      return nullptr;
  }
}

nlohmann::json decode(std::string_view bytes, const Message& m, int depth) {
  if (depth > 64) throw malformed();
  nlohmann::json out = nlohmann::json::object();
  Reader r(bytes);
  while (!r.done()) {
    const std::uint64_t tag = r.varint();
    const int wire = static_cast<int>(tag & 7);
    const Field* field = nullptr;
    for (const auto& f : m.fields) {
      if (static_cast<std::uint64_t>(f.number) == (tag >> 3)) field = &f;
    }
    if (!field || field->type == T::kSkip) {
      r.skip(wire);
      continue;
    }
    if (field->type == T::kStringMap || field->type == T::kBytesMap ||
        field->type == T::kQuantityMap) {
      if (wire != 2) throw malformed();
      auto [k, v] = map_entry(r.bytes());
      auto& map = out[field->name];
      if (field->type == T::kStringMap) {
        map[k] = std::string(v);
      } else if (field->type == T::kBytesMap) {
        map[k] = base64_encode(v);
      } else {
        map[k] = quantity(v);
      }
      continue;
    }
    nlohmann::json v = value_of(*field, r, wire, depth);
    if (field->repeated) {
      out[field->name].push_back(std::move(v));
    } else {
      out[field->name] = std::move(v);
    }
  }
  return out;
}

// The schemas. Only what `kubectl create` and everyday manifests set; others are skipped.
const Message kObjectMeta{{{1, "name", T::kString},
                           {2, "generateName", T::kString},
                           {3, "namespace", T::kString},
                           {11, "labels", T::kStringMap},
                           {12, "annotations", T::kStringMap},
                           {14, "finalizers", T::kString, true}}};
const Message kLabelSelectorRequirement{
    {{1, "key", T::kString}, {2, "operator", T::kString}, {3, "values", T::kString, true}}};
const Message kLabelSelector{
    {{1, "matchLabels", T::kStringMap},
     {2, "matchExpressions", T::kMessage, true, &kLabelSelectorRequirement}}};
const Message kContainerPort{{{1, "name", T::kString},
                              {2, "hostPort", T::kInt},
                              {3, "containerPort", T::kInt},
                              {4, "protocol", T::kString}}};
const Message kEnvVar{{{1, "name", T::kString}, {2, "value", T::kString}}};
const Message kResources{{{1, "limits", T::kQuantityMap}, {2, "requests", T::kQuantityMap}}};
const Message kVolumeMount{
    {{1, "name", T::kString}, {2, "readOnly", T::kBool}, {3, "mountPath", T::kString}}};
const Message kContainer{{{1, "name", T::kString},
                          {2, "image", T::kString},
                          {3, "command", T::kString, true},
                          {4, "args", T::kString, true},
                          {5, "workingDir", T::kString},
                          {6, "ports", T::kMessage, true, &kContainerPort},
                          {7, "env", T::kMessage, true, &kEnvVar},
                          {8, "resources", T::kMessage, false, &kResources},
                          {9, "volumeMounts", T::kMessage, true, &kVolumeMount},
                          {13, "terminationMessagePath", T::kString},
                          {14, "imagePullPolicy", T::kString},
                          {20, "terminationMessagePolicy", T::kString}}};
const Message kToleration{{{1, "key", T::kString},
                           {2, "operator", T::kString},
                           {3, "value", T::kString},
                           {4, "effect", T::kString},
                           {5, "tolerationSeconds", T::kInt}}};
const Message kLocalObjectReference{{{1, "name", T::kString}}};
const Message kPodSpec{{{2, "containers", T::kMessage, true, &kContainer},
                        {3, "restartPolicy", T::kString},
                        {4, "terminationGracePeriodSeconds", T::kInt},
                        {5, "activeDeadlineSeconds", T::kInt},
                        {6, "dnsPolicy", T::kString},
                        {7, "nodeSelector", T::kStringMap},
                        {8, "serviceAccountName", T::kString},
                        {10, "nodeName", T::kString},
                        {15, "imagePullSecrets", T::kMessage, true, &kLocalObjectReference},
                        {19, "schedulerName", T::kString},
                        {20, "initContainers", T::kMessage, true, &kContainer},
                        {22, "tolerations", T::kMessage, true, &kToleration},
                        {24, "priorityClassName", T::kString}}};
const Message kPodTemplateSpec{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                                {2, "spec", T::kMessage, false, &kPodSpec}}};
const Message kRollingUpdate{
    {{1, "maxUnavailable", T::kIntOrString}, {2, "maxSurge", T::kIntOrString}}};
const Message kDeploymentStrategy{
    {{1, "type", T::kString}, {2, "rollingUpdate", T::kMessage, false, &kRollingUpdate}}};
const Message kDeploymentSpec{{{1, "replicas", T::kInt},
                               {2, "selector", T::kMessage, false, &kLabelSelector},
                               {3, "template", T::kMessage, false, &kPodTemplateSpec},
                               {4, "strategy", T::kMessage, false, &kDeploymentStrategy},
                               {5, "minReadySeconds", T::kInt},
                               {6, "revisionHistoryLimit", T::kInt},
                               {7, "paused", T::kBool},
                               {9, "progressDeadlineSeconds", T::kInt}}};
const Message kJobSpec{{{1, "parallelism", T::kInt},
                        {2, "completions", T::kInt},
                        {3, "activeDeadlineSeconds", T::kInt},
                        {4, "selector", T::kMessage, false, &kLabelSelector},
                        {5, "manualSelector", T::kBool},
                        {6, "template", T::kMessage, false, &kPodTemplateSpec},
                        {7, "backoffLimit", T::kInt},
                        {8, "ttlSecondsAfterFinished", T::kInt},
                        {9, "completionMode", T::kString},
                        {10, "suspend", T::kBool}}};
const Message kPdbSpec{{{1, "minAvailable", T::kIntOrString},
                        {2, "selector", T::kMessage, false, &kLabelSelector},
                        {3, "maxUnavailable", T::kIntOrString},
                        {4, "unhealthyPodEvictionPolicy", T::kString}}};
const Message kNamespaceSpec{{{1, "finalizers", T::kString, true}}};
const Message kObjectReference{
    {{1, "kind", T::kString}, {2, "namespace", T::kString}, {3, "name", T::kString}}};

const Message kNamespace{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                          {2, "spec", T::kMessage, false, &kNamespaceSpec}}};
const Message kConfigMap{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                          {2, "data", T::kStringMap},
                          {3, "binaryData", T::kBytesMap},
                          {4, "immutable", T::kBool}}};
const Message kServiceAccount{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                               {2, "secrets", T::kMessage, true, &kObjectReference},
                               {3, "imagePullSecrets", T::kMessage, true, &kLocalObjectReference},
                               {4, "automountServiceAccountToken", T::kBool}}};
const Message kDeployment{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                           {2, "spec", T::kMessage, false, &kDeploymentSpec}}};
const Message kJob{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                    {2, "spec", T::kMessage, false, &kJobSpec}}};
const Message kPdb{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                    {2, "spec", T::kMessage, false, &kPdbSpec}}};

// core/v1 Secret and Service; scheduling/v1 PriorityClass; rbac/v1 roles and bindings: what
// `kubectl create secret|service|priorityclass|role|rolebinding|clusterrole|clusterrolebinding`
// send.
const Message kSecret{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                       {2, "data", T::kBytesMap},
                       {3, "type", T::kString},
                       {4, "stringData", T::kStringMap},
                       {5, "immutable", T::kBool}}};
const Message kServicePort{{{1, "name", T::kString},
                            {2, "protocol", T::kString},
                            {3, "port", T::kInt},
                            {4, "targetPort", T::kIntOrString},
                            {5, "nodePort", T::kInt},
                            {6, "appProtocol", T::kString}}};
const Message kServiceSpec{{{1, "ports", T::kMessage, true, &kServicePort},
                            {2, "selector", T::kStringMap},
                            {3, "clusterIP", T::kString},
                            {4, "type", T::kString},
                            {5, "externalIPs", T::kString, true},
                            {7, "sessionAffinity", T::kString},
                            {10, "externalName", T::kString},
                            {18, "clusterIPs", T::kString, true}}};
const Message kService{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                        {2, "spec", T::kMessage, false, &kServiceSpec}}};
const Message kPriorityClass{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                              {2, "value", T::kInt},
                              {3, "globalDefault", T::kBool},
                              {4, "description", T::kString},
                              {5, "preemptionPolicy", T::kString}}};
const Message kPolicyRule{{{1, "verbs", T::kString, true},
                           {2, "apiGroups", T::kString, true},
                           {3, "resources", T::kString, true},
                           {4, "resourceNames", T::kString, true},
                           {5, "nonResourceURLs", T::kString, true}}};
const Message kRole{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                     {2, "rules", T::kMessage, true, &kPolicyRule}}};
const Message kSubject{{{1, "kind", T::kString},
                        {2, "apiGroup", T::kString},
                        {3, "name", T::kString},
                        {4, "namespace", T::kString}}};
const Message kRoleRef{
    {{1, "apiGroup", T::kString}, {2, "kind", T::kString}, {3, "name", T::kString}}};
const Message kRoleBinding{{{1, "metadata", T::kMessage, false, &kObjectMeta},
                            {2, "subjects", T::kMessage, true, &kSubject},
                            {3, "roleRef", T::kMessage, false, &kRoleRef}}};

}  // namespace

nlohmann::json decode_protobuf_object(std::string_view kind, std::string_view raw) {
  const Message* m = nullptr;
  if (kind == "Namespace") m = &kNamespace;
  if (kind == "ConfigMap") m = &kConfigMap;
  if (kind == "ServiceAccount") m = &kServiceAccount;
  if (kind == "Deployment") m = &kDeployment;
  if (kind == "Job") m = &kJob;
  if (kind == "PodDisruptionBudget") m = &kPdb;
  if (kind == "Secret") m = &kSecret;
  if (kind == "Service") m = &kService;
  if (kind == "PriorityClass") m = &kPriorityClass;
  if (kind == "Role" || kind == "ClusterRole") m = &kRole;  // (aggregationRule not read)
  if (kind == "RoleBinding" || kind == "ClusterRoleBinding") m = &kRoleBinding;
  if (!m) return nullptr;
  nlohmann::json obj = decode(raw, *m, 0);
  if (!obj.contains("metadata")) obj["metadata"] = nlohmann::json::object();
  return obj;
}

}  // namespace fitscale::vcluster
