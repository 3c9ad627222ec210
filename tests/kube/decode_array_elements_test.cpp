// Every array of objects or strings a pod or node carries reports a wrong-typed element at its
// index, and the pod's other fields and the other pods still read (decode_json's for_each_object).
#include <gtest/gtest.h>

#include <map>

#include "kube/decode.h"
#include "model/error.h"

namespace fitscale {
namespace {

const std::vector<std::string> kGpuModels = {"A100", "T4"};

std::string pod(const std::string& name, const std::string& spec) {
  return R"({"kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"t","labels":{"app":"a"}},"spec":)" + spec + "}";
}

// One bad element in each array the decoder walks, and the message that names it.
const std::vector<std::pair<std::string, std::string>> kBadElements = {
    {R"({"containers":[{"name":"a"},7]})", "spec.containers[1]: expected an object, got a number"},
    {R"({"containers":[],"initContainers":["x"]})",
     "spec.initContainers[0]: expected an object, got a string"},
    {R"({"containers":[],"tolerations":[{"key":"k","operator":"Exists"},[]]})",
     "spec.tolerations[1]: expected an object, got an array"},
    {R"({"containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[true]}}}})",
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0]: expected an object, got a boolean"},
    {R"({"containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"Exists"},1]}]}}}})",
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchExpressions[1]: expected an object, got a number"},
    {R"({"containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n",2]}]}]}}}})",
     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
     "nodeSelectorTerms[0].matchFields[0].values[1]: expected a string, got a number"},
    {R"({"containers":[],"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":["z"]}}]}}})",
     "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference."
     "matchExpressions[0]: expected an object, got a string"},
    {R"({"containers":[],"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[null]}}})",
     "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]: expected "
     "an object, got null"},
    {R"({"containers":[],"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"z","labelSelector":{}},5]}}})",
     "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1]: expected "
     "an object, got a number"},
    {R"({"containers":[],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"z","labelSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["a"]},"x"]}}]}}})",
     "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
     "matchExpressions[1]: expected an object, got a string"},
    {R"({"containers":[],"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"z","labelSelector":{},"namespaces":["t",3]}]}}})",
     "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[1]: "
     "expected a string, got a number"},
    {R"({"containers":[],"affinity":{"podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"podAffinityTerm":{"topologyKey":"z","labelSelector":{},"matchLabelKeys":["app",{}]}}]}}})",
     "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
     "podAffinityTerm.matchLabelKeys[1]: expected a string, got an object"},
    {R"({"containers":[],"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[8]}}})",
     "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]: expected "
     "an object, got a number"},
    {R"({"containers":[],"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"z","whenUnsatisfiable":"DoNotSchedule"},"s"]})",
     "spec.topologySpreadConstraints[1]: expected an object, got a string"},
    {R"({"containers":[],"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"z","whenUnsatisfiable":"DoNotSchedule","labelSelector":{},"matchLabelKeys":[1]}]})",
     "spec.topologySpreadConstraints[0].matchLabelKeys[0]: expected a string, got a number"},
};

TEST(DecodeArrayElements, AWrongTypedElementIsNamedByItsIndexAndTheOtherPodsStillRead) {
  std::string list = R"({"kind":"List","items":[)" + pod("good-first", R"({"containers":[]})");
  for (std::size_t i = 0; i < kBadElements.size(); ++i)
    list += "," + pod("bad-" + std::to_string(i), kBadElements[i].first);
  list += "," + pod("good-last", R"({"containers":[]})") + "]}";

  const DecodedObjects d = decode_objects(list, "cluster.json", kGpuModels, true);
  ASSERT_EQ(d.pods.size(), 2u);
  EXPECT_EQ(d.pods[0].name, "good-first");
  EXPECT_EQ(d.pods[1].name, "good-last");
  std::map<std::string, std::string> bad(d.bad_pods.begin(), d.bad_pods.end());
  ASSERT_EQ(bad.size(), kBadElements.size());
  for (std::size_t i = 0; i < kBadElements.size(); ++i)
    EXPECT_EQ(bad["t/bad-" + std::to_string(i)], kBadElements[i].second) << kBadElements[i].first;
}

TEST(DecodeArrayElements, TheGoodElementsAroundABadOneAreStillRead) {
  // Decoding goes on past the bad element: the taints beside it are read (the message names the
  // first problem only, but the strict decoder must not lose the rest of the node either).
  const std::string node =
      R"({"kind":"Node","metadata":{"name":"n1"},"spec":{"taints":[{"key":"a","effect":"NoSchedule"},4,{"key":"b","effect":"NoExecute"}]}})";
  try {
    decode_objects(node, "cluster.json", kGpuModels);
    FAIL() << "a taint that is a number was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "cluster.json: node n1: spec.taints[1]: expected an object, got a number");
  }
  const std::string ok =
      R"({"kind":"Node","metadata":{"name":"n1"},"spec":{"taints":[{"key":"a","effect":"NoSchedule"},{"key":"b","effect":"NoExecute"}]}})";
  const DecodedObjects d = decode_objects(ok, "cluster.json", kGpuModels);
  ASSERT_EQ(d.nodes.size(), 1u);
  ASSERT_EQ(d.nodes[0].taints.size(), 2u);
  EXPECT_EQ(d.nodes[0].taints[1].key, "b");
}

TEST(DecodeArrayElements, ConstrainedPodReadsTheSameThroughTheHelper) {
  const DecodedObjects d = decode_objects(
      pod("p",
          R"({"containers":[{"resources":{"requests":{"cpu":"1"}}}],"initContainers":[{"restartPolicy":"Always","resources":{"requests":{"cpu":"2"}}}],
          "tolerations":[{"key":"k","operator":"Exists"}],
          "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"In","values":["a","b"]}],"matchFields":[{"key":"metadata.name","operator":"In","values":["n1"]}]}]},
                                      "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":7,"preference":{"matchExpressions":[{"key":"z","operator":"Exists"}]}}]},
                      "podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"z","labelSelector":{"matchLabels":{"app":"a"}},"namespaces":["t","u"]}]},
                      "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":3,"podAffinityTerm":{"topologyKey":"z","labelSelector":{},"matchLabelKeys":["app"]}}]}},
          "topologySpreadConstraints":[{"maxSkew":2,"topologyKey":"z","whenUnsatisfiable":"DoNotSchedule","labelSelector":{},"matchLabelKeys":["app"]}]})"),
      "cluster.json", kGpuModels);
  ASSERT_EQ(d.pods.size(), 1u);
  const Pod& p = d.pods[0];
  EXPECT_EQ(p.requests.cpu_milli, 3000);  // the sidecar runs beside the container
  ASSERT_EQ(p.tolerations.size(), 1u);
  EXPECT_TRUE(p.tolerations[0].exists);
  ASSERT_EQ(p.required_node_affinity.size(), 1u);
  ASSERT_EQ(p.required_node_affinity[0].requirements.size(), 2u);
  EXPECT_EQ(p.required_node_affinity[0].requirements[0].values,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.required_node_affinity[0].requirements[1].key, "kubernetes.io/hostname");
  ASSERT_EQ(p.constraints.preferred_node_affinity.size(), 1u);
  EXPECT_EQ(p.constraints.preferred_node_affinity[0].weight, 7);
  ASSERT_EQ(p.constraints.affinity.size(), 1u);
  EXPECT_EQ(p.constraints.affinity[0].namespaces, (std::vector<std::string>{"t", "u"}));
  ASSERT_EQ(p.constraints.preferred_anti_affinity.size(), 1u);
  ASSERT_EQ(p.constraints.preferred_anti_affinity[0].term.selector.match_expressions.size(), 1u);
  EXPECT_EQ(p.constraints.preferred_anti_affinity[0].term.selector.match_expressions[0].key, "app");
  ASSERT_EQ(p.constraints.spread.size(), 1u);
  EXPECT_EQ(p.constraints.spread[0].max_skew, 2);
  EXPECT_EQ(p.constraints.spread[0].match_label_keys, (std::vector<std::string>{"app"}));
}

}  // namespace
}  // namespace fitscale
