#include <gtest/gtest.h>

#include "vcluster/api_error.h"
#include "vcluster/patch.h"
#include "vcluster/server_side_apply.h"

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

constexpr const char* kSmp = "application/strategic-merge-patch+json";

const json kDeployment = json::parse(R"({
  "metadata": {"name": "web", "finalizers": ["a"]},
  "spec": {"template": {"spec": {
    "containers": [
      {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
       "ports": [{"containerPort": 80, "name": "http"}],
       "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
      {"name": "sidecar", "image": "side:1"}],
    "volumes": [{"name": "data", "emptyDir": {}}],
    "tolerations": [{"key": "a", "operator": "Exists"}]}}}
})");

const json& containers(const json& d) { return d["spec"]["template"]["spec"]["containers"]; }

TEST(VclusterStrategicMerge, ChangingOneImageKeepsTheOtherContainer) {
  // What kubectl apply sends after the image of one container changed.
  auto out = apply_patch(kDeployment, json::parse(R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
    "containers":[{"name":"app","image":"app:2"}]}}}})"),
                         kSmp);
  ASSERT_EQ(containers(out).size(), 2u);
  EXPECT_EQ(containers(out)[0]["image"], "app:2");
  EXPECT_EQ(containers(out)[0]["env"].size(), 2u);
  EXPECT_EQ(containers(out)[1]["name"], "sidecar");
  EXPECT_EQ(containers(out)[1]["image"], "side:1");
}

TEST(VclusterStrategicMerge, NodeConditionPatchKeepsReady) {
  const json node = json::parse(R"({"status":{"conditions":[
    {"type":"Ready","status":"True"},{"type":"MemoryPressure","status":"False"}]}})");
  auto out = apply_patch(
      node, json::parse(R"({"status":{"conditions":[{"type":"DiskPressure","status":"True"}]}})"),
      kSmp);
  ASSERT_EQ(out["status"]["conditions"].size(), 3u);
  EXPECT_EQ(out["status"]["conditions"][0]["type"], "Ready");
  EXPECT_EQ(out["status"]["conditions"][2]["type"], "DiskPressure");
  out = apply_patch(
      out, json::parse(R"({"status":{"conditions":[{"type":"Ready","status":"False"}]}})"), kSmp);
  EXPECT_EQ(out["status"]["conditions"][0]["status"], "False");
  EXPECT_EQ(out["status"]["conditions"].size(), 3u);
}

TEST(VclusterStrategicMerge, MergeKeysOfNestedLists) {
  auto out = apply_patch(kDeployment, json::parse(R"({"spec":{"template":{"spec":{
    "containers":[{"name":"app",
       "env":[{"name":"B","value":"20"},{"name":"C","value":"3"}],
       "ports":[{"containerPort":9090,"name":"metrics"}],
       "volumeMounts":[{"mountPath":"/data","readOnly":true}]}],
    "volumes":[{"name":"cache","emptyDir":{}}],
    "tolerations":[{"key":"b","operator":"Exists"}]}}}})"),
                         kSmp);
  const auto& app = containers(out)[0];
  ASSERT_EQ(app["env"].size(), 3u);
  EXPECT_EQ(app["env"][0]["value"], "1");
  EXPECT_EQ(app["env"][1]["value"], "20");
  EXPECT_EQ(app["ports"].size(), 2u);
  EXPECT_EQ(app["volumeMounts"][0]["name"], "data");
  EXPECT_EQ(app["volumeMounts"][0]["readOnly"], true);
  EXPECT_EQ(out["spec"]["template"]["spec"]["volumes"].size(), 2u);
  // Tolerations have no merge key: the patch's list replaces the stored one.
  ASSERT_EQ(out["spec"]["template"]["spec"]["tolerations"].size(), 1u);
  EXPECT_EQ(out["spec"]["template"]["spec"]["tolerations"][0]["key"], "b");
}

TEST(VclusterStrategicMerge, Directives) {
  // $patch: delete of a list element, $patch: replace of a map, $retainKeys, primitive lists.
  auto out = apply_patch(kDeployment, json::parse(R"({
    "metadata":{"finalizers":["b"],"$deleteFromPrimitiveList/finalizers":["a"]},
    "spec":{"template":{"spec":{
      "containers":[{"name":"sidecar","$patch":"delete"}],
      "volumes":[{"name":"data","$retainKeys":["name","hostPath"],"hostPath":{"path":"/x"}}]}}}})"),
                         kSmp);
  ASSERT_EQ(containers(out).size(), 1u);
  EXPECT_EQ(containers(out)[0]["name"], "app");
  EXPECT_EQ(out["metadata"]["finalizers"], json::parse(R"(["b"])"));
  const auto& vol = out["spec"]["template"]["spec"]["volumes"][0];
  EXPECT_FALSE(vol.contains("emptyDir"));
  EXPECT_EQ(vol["hostPath"]["path"], "/x");

  out = apply_patch(kDeployment, json::parse(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"only","image":"x"},{"$patch":"replace"}]}}}})"),
                    kSmp);
  ASSERT_EQ(containers(out).size(), 1u);
  EXPECT_EQ(containers(out)[0]["name"], "only");

  out = apply_patch(
      kDeployment,
      json::parse(R"({"spec":{"template":{"spec":{"$patch":"replace","containers":[]}}}})"), kSmp);
  EXPECT_FALSE(out["spec"]["template"]["spec"].contains("volumes"));
  EXPECT_THROW(apply_patch(kDeployment, json::parse(R"({"spec":{"$patch":"explode"}})"), kSmp),
               ApiError);
}

TEST(VclusterStrategicMerge, SetElementOrderReorders) {
  auto out = apply_patch(kDeployment, json::parse(R"({"spec":{"template":{"spec":{
    "$setElementOrder/containers":[{"name":"sidecar"},{"name":"app"}]}}}})"),
                         kSmp);
  EXPECT_EQ(containers(out)[0]["name"], "sidecar");
  EXPECT_EQ(containers(out)[1]["name"], "app");
}

TEST(VclusterServerSideApply, MergesByKeyAndRecordsManagedFields) {
  const json applied = parse_apply_body(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        image: app:3
)");
  auto out = server_side_apply(kDeployment, applied, {"kubectl", "2027-01-15T08:00:00Z"});
  ASSERT_EQ(containers(out).size(), 2u);
  EXPECT_EQ(containers(out)[0]["image"], "app:3");
  ASSERT_EQ(out["metadata"]["managedFields"].size(), 1u);
  const auto& mf = out["metadata"]["managedFields"][0];
  EXPECT_EQ(mf["manager"], "kubectl");
  EXPECT_EQ(mf["operation"], "Apply");
  EXPECT_TRUE(mf["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"].contains(
      R"(k:{"name":"app"})"));
  // A second apply by the same manager replaces its entry instead of adding one.
  out = server_side_apply(out, applied, {"kubectl", "2027-01-15T08:01:00Z"});
  EXPECT_EQ(out["metadata"]["managedFields"].size(), 1u);
  EXPECT_THROW(check_apply_request({"", ""}), ApiError);
}

}  // namespace
}  // namespace fitscale::vcluster
