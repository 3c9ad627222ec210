// Coscheduling pods and PodGroup objects in a cluster dump (issue 16): a pod-group label
// without a size is no error, its PodGroup's minMember sizes the gang when the dump has it.
#include <gtest/gtest.h>

#include <string>

#include "kube/decode.h"
#include "model/error.h"

namespace fitscale {
namespace {

std::string pod_json(const std::string& name, const std::string& labels) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"ml","labels":{)" + labels +
         R"(}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";
}

std::string pod_group_json(const std::string& api_version, const std::string& name,
                           const std::string& min_member) {
  return R"({"kind":"PodGroup","apiVersion":")" + api_version + R"(","metadata":{"name":")" + name +
         R"(","namespace":"ml"},"spec":{"minMember":)" + min_member + "}}";
}

std::string list(const std::string& items) {
  return R"({"kind":"List","apiVersion":"v1","items":[)" + items + "]}";
}

const Pod& pod_named(const DecodedObjects& d, const std::string& name) {
  for (const Pod& p : d.pods)
    if (p.name == name) return p;
  throw std::runtime_error("no pod " + name);
}

TEST(PodGroupDecode, APodGroupLabelWithoutASizeDecodesAsAGroupWaitingForItsPodGroup) {
  const DecodedObjects d = decode_objects(
      list(pod_json("w-0", R"("scheduling.x-k8s.io/pod-group":"allreduce")")), "cluster.json", {});
  ASSERT_EQ(d.pods.size(), 1u);
  EXPECT_TRUE(d.bad_pods.empty());
  const Pod& p = d.pods.front();
  ASSERT_TRUE(p.gang.has_value());
  EXPECT_EQ(p.gang->name, "allreduce");
  EXPECT_EQ(p.gang->sized_by, GangSizer::CoschedulingPodGroup);
  EXPECT_TRUE(p.gang->size_unknown);
}

TEST(PodGroupDecode, ThePodGroupsMinMemberSizesTheGangAndWinsOverTheLabel) {
  // The plugin obeys the object, so a stale min-available label on a pod does not count.
  const std::string text = list(
      pod_json("a-0", R"("scheduling.x-k8s.io/pod-group":"a")") + "," +
      pod_json("b-0",
               R"("scheduling.x-k8s.io/pod-group":"b","scheduling.x-k8s.io/min-available":"2")") +
      "," + pod_group_json("scheduling.x-k8s.io/v1alpha1", "a", "4") + "," +
      pod_group_json("scheduling.x-k8s.io/v1alpha1", "b", "3"));
  const DecodedObjects d = decode_objects(text, "cluster.json", {});
  ASSERT_EQ(d.pod_groups.size(), 2u);
  EXPECT_EQ(pod_named(d, "a-0").gang->size, 4);
  EXPECT_FALSE(pod_named(d, "a-0").gang->size_unknown);
  EXPECT_EQ(pod_named(d, "b-0").gang->size, 3);
}

TEST(PodGroupDecode, YamlDumpsReadPodGroupsToo) {
  const std::string text = R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g, namespace: ml}
spec: {minMember: 2}
---
apiVersion: v1
kind: Pod
metadata:
  name: g-0
  namespace: ml
  labels: {scheduling.x-k8s.io/pod-group: g}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)";
  const DecodedObjects d = decode_objects(text, "cluster.yaml", {});
  ASSERT_EQ(d.pods.size(), 1u);
  EXPECT_EQ(d.pods[0].gang->size, 2);
  EXPECT_FALSE(d.pods[0].gang->size_unknown);
}

TEST(PodGroupDecode, AVolcanoPodGroupIsNotACoschedulingOne) {
  const DecodedObjects d =
      decode_objects(list(pod_json("v-0", R"("scheduling.x-k8s.io/pod-group":"v")") + "," +
                          pod_group_json("scheduling.volcano.sh/v1beta1", "v", "5")),
                     "cluster.json", {});
  // Read (Volcano's pods name it by annotation), but it sizes no coscheduling group.
  ASSERT_EQ(d.pod_groups.size(), 1u);
  EXPECT_EQ(d.pod_groups[0].kind, GangSizer::VolcanoPodGroup);
  EXPECT_EQ(d.ignored, 0u);
  EXPECT_TRUE(d.pods[0].gang->size_unknown);
}

TEST(PodGroupDecode, ABadMinMemberNamesThePodGroup) {
  try {
    decode_objects(list(pod_group_json("scheduling.x-k8s.io/v1alpha1", "g", "\"four\"")),
                   "cluster.json", {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cluster.json: items[0]: PodGroup ml/g: spec.minMember: expected a whole number, got "
              "\"four\"");
  }
}

TEST(PodGroupDecode, ASizeThatIsNotANumberIsStillAnErrorOfThatPod) {
  const DecodedObjects d = decode_objects(
      list(
          pod_json(
              "x-0",
              R"("scheduling.x-k8s.io/pod-group":"x","scheduling.x-k8s.io/min-available":"many")") +
          "," + pod_json("ok", "")),
      "cluster.json", {}, /*skip_bad_pods=*/true);
  ASSERT_EQ(d.bad_pods.size(), 1u);
  EXPECT_EQ(d.bad_pods[0].first, "ml/x-0");
  ASSERT_EQ(d.pods.size(), 1u);
}

}  // namespace
}  // namespace fitscale
