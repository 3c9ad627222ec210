// Volcano PodGroups and JobSets in a cluster dump size the gangs of their pods
// (docs/frameworks.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kube/decode.h"
#include "kube/jobset_codec.h"
#include "model/error.h"

namespace fitscale {
namespace {

std::string pod(const std::string& name, const std::string& labels,
                const std::string& annotations = "") {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"ml","labels":{)" + labels + R"(},"annotations":{)" + annotations +
         R"(}},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";
}

std::string list(const std::string& items) {
  return R"({"kind":"List","apiVersion":"v1","items":[)" + items + "]}";
}

// A Volcano PodGroup as vc-controller-manager writes it for a Volcano Job.
const char* kVolcanoPodGroup = R"({"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroup",
  "metadata":{"name":"tf-mnist-8b2c","namespace":"ml"},
  "spec":{"minMember":3,"minTaskMember":{"ps":1,"worker":2},"queue":"default",
          "minResources":{"cpu":"3"}},
  "status":{"phase":"Inqueue"}})";

TEST(GangObjectsDecode, AVolcanoPodGroupSizesThePodsThatNameIt) {
  const DecodedObjects d =
      decode_objects(list(pod("tf-mnist-worker-0", R"("volcano.sh/job-name":"tf-mnist")",
                              R"("scheduling.k8s.io/group-name":"tf-mnist-8b2c")") +
                          "," + kVolcanoPodGroup),
                     "cluster.json", {});
  ASSERT_EQ(d.pods.size(), 1u);
  ASSERT_TRUE(d.pods[0].gang);
  EXPECT_EQ(d.pods[0].gang->size, 3);
  EXPECT_FALSE(d.pods[0].gang->size_unknown);
  ASSERT_EQ(d.pod_groups.size(), 1u);
  EXPECT_EQ(d.pod_groups[0].kind, GangSizer::VolcanoPodGroup);
}

TEST(GangObjectsDecode, ACoschedulingPodGroupDoesNotSizeAVolcanoGangOfTheSameName) {
  const DecodedObjects d =
      decode_objects(list(pod("w-0", "", R"("scheduling.k8s.io/group-name":"g")") + "," +
                          R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",
               "metadata":{"name":"g","namespace":"ml"},"spec":{"minMember":5}})"),
                     "cluster.json", {});
  ASSERT_TRUE(d.pods[0].gang);
  EXPECT_TRUE(d.pods[0].gang->size_unknown);
}

// The shape of JobSet's own example (a driver and workers, parallelism and completions).
const char* kJobSet = R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
  "metadata":{"name":"pretrain","namespace":"ml"},
  "spec":{"replicatedJobs":[
    {"name":"driver","replicas":1,"template":{"spec":{"parallelism":1,"completions":1,
       "template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}},
    {"name":"workers","replicas":2,"template":{"spec":{"parallelism":4,"completions":4,
       "backoffLimit":0,"template":{"spec":{"containers":[{"name":"c","image":"x"}]}}}}}]}})";

TEST(GangObjectsDecode, AJobSetsSizeIsItsReplicasTimesParallelism) {
  const PodGroupView g = decode_jobset(nlohmann::json::parse(kJobSet));
  EXPECT_EQ(g.kind, GangSizer::JobSet);
  EXPECT_EQ(g.name, "pretrain");
  EXPECT_EQ(g.min_member, 9);  // 1x1 + 2x4
  const DecodedObjects d = decode_objects(
      list(pod("pretrain-workers-0-0-abcde", R"("jobset.sigs.k8s.io/jobset-name":"pretrain")") +
           "," + kJobSet),
      "cluster.json", {});
  ASSERT_TRUE(d.pods[0].gang);
  EXPECT_EQ(d.pods[0].gang->size, 9);
  EXPECT_FALSE(d.pods[0].gang->size_unknown);
}

TEST(GangObjectsDecode, AJobSetThatStartsItsJobsInTurnIsLaunchedWithThePodsItHas) {
  nlohmann::json j = nlohmann::json::parse(kJobSet);
  j["spec"]["replicatedJobs"][1]["dependsOn"] = {{{"name", "driver"}, {"status", "Ready"}}};
  EXPECT_EQ(decode_jobset(j).min_member, 1);
  j = nlohmann::json::parse(kJobSet);
  j["spec"]["startupPolicy"] = {{"startupPolicyOrder", "InOrder"}};
  EXPECT_EQ(decode_jobset(j).min_member, 1);
}

TEST(GangObjectsDecode, ABadJobSetNamesItsField) {
  nlohmann::json j = nlohmann::json::parse(kJobSet);
  j["spec"]["replicatedJobs"][1]["replicas"] = "two";
  try {
    decode_jobset(j);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("spec.replicatedJobs[1].replicas"), std::string::npos)
        << e.what();
  }
}

// One pod of a JobSet without its object does not reject the dump: it waits, with the reason.
TEST(GangObjectsDecode, AJobSetPodWithoutItsJobSetInTheDumpWaits) {
  const DecodedObjects d = decode_objects(
      list(pod("pretrain-workers-0-0", R"("jobset.sigs.k8s.io/jobset-name":"pretrain")") + "," +
           pod("web", R"("app":"web")")),
      "cluster.json", {});
  ASSERT_EQ(d.pods.size(), 2u);
  EXPECT_TRUE(d.bad_pods.empty());
  EXPECT_TRUE(d.pods[0].gang->size_unknown);
  EXPECT_FALSE(d.pods[1].gang);
}

}  // namespace
}  // namespace fitscale
