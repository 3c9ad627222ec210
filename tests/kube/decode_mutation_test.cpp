// Cluster dumps (`fitscale plan --cluster`) and API answers: whatever is in them, the decoders
// return objects or throw InputError naming the file (and the item and field), never anything
// else. The same contract as fuzz/kube_objects_fuzz.cpp and fuzz/kube_api_fuzz.cpp, on a fixed
// set of mutations of the test fixtures.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../support/bad_input.h"
#include "kube/decode.h"
#include "model/error.h"

namespace fitscale {
namespace {

const std::vector<std::string> kGpuModels = {"A100", "T4", "V100"};

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/tests/data/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void strict(const std::string& text) { decode_objects(text, "cluster.json", kGpuModels, false); }
void lenient(const std::string& text) { decode_objects(text, "cluster.json", kGpuModels, true); }

// The informer's path: a list page of one kind, and single watch-event objects. These errors name
// the object rather than a file.
void informer(const std::string& text) {
  JsonDecoder decoder(kGpuModels);
  std::vector<std::pair<std::string, Pod>> pods;
  std::vector<std::pair<std::string, Node>> nodes;
  std::vector<std::pair<std::string, std::string>> bad;
  decoder.decode_list_items(text, "Pod", &pods, nullptr, nullptr, bad);
  decoder.decode_list_items(text, "Node", nullptr, &nodes, nullptr, bad);
}
void watch_pod(const std::string& text) { JsonDecoder(kGpuModels).pod(text); }
void watch_node(const std::string& text) { JsonDecoder(kGpuModels).node(text); }

TEST(DecodeMutation, KubectlListMutationsGiveObjectsOrInputErrorsNamingTheFile) {
  const std::string seed = fixture("kubectl-nodes-pods.json");
  ASSERT_NO_THROW(strict(seed));
  const auto inputs = bad_input::bad_inputs(seed, 2000, 5);
  EXPECT_EQ(bad_input::violations("cluster.json", inputs, strict), "");
  EXPECT_EQ(bad_input::violations("cluster.json", inputs, lenient), "");
  EXPECT_EQ(bad_input::violations("", inputs, informer), "");
}

TEST(DecodeMutation, YamlManifestMutationsGiveObjectsOrInputErrorsNamingTheFile) {
  const std::string seed = fixture("manifests.yaml");
  ASSERT_NO_THROW(strict(seed));
  const auto inputs = bad_input::bad_inputs(seed, 2000, 6);
  EXPECT_EQ(bad_input::violations("cluster.json", inputs, strict), "");
  EXPECT_EQ(bad_input::violations("cluster.json", inputs, lenient), "");
}

TEST(DecodeMutation, WatchObjectMutationsGiveObjectsOrInputErrors) {
  const std::string pod = R"({"kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u",
    "labels":{"fitscale.io/gang":"g","fitscale.io/gang-size":"2"},"creationTimestamp":"2026-01-01T00:00:00Z"},
    "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1500m","memory":"1Gi",
    "nvidia.com/gpu":"1"}}}],"activeDeadlineSeconds":3600,"priority":10,
    "nodeSelector":{"karpenter.sh/capacity-type":"spot"},
    "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":
    [{"matchExpressions":[{"key":"gpu","operator":"Gt","values":["3"]}]}]}}},
    "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]},"status":{"phase":"Pending"}})";
  const std::string node = R"({"kind":"Node","metadata":{"name":"n","labels":{"a":"b"}},
    "spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}],"unschedulable":true},
    "status":{"allocatable":{"cpu":"3920m","memory":"15Gi","pods":"110","nvidia.com/gpu":"1"},
    "conditions":[{"type":"Ready","status":"True"}]}})";
  ASSERT_NO_THROW(watch_pod(pod));
  ASSERT_NO_THROW(watch_node(node));
  EXPECT_EQ(bad_input::violations("", bad_input::bad_inputs(pod, 1500, 7), watch_pod), "");
  EXPECT_EQ(bad_input::violations("", bad_input::bad_inputs(node, 1000, 8), watch_node), "");
}

std::string error_of(const std::string& text) {
  try {
    decode_objects(text, "cluster.yaml", kGpuModels);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Found by fuzz/kube_objects_fuzz.cpp (a timeout, then out of memory): yaml-cpp 0.7's LoadAll
// never returned on a stray "," after a document and grew its list of empty documents until the
// process was killed. Before the fix this test did not finish.
TEST(DecodeMutation, StrayCommaAfterAYamlDocumentIsAnErrorNotAnEndlessLoop) {
  EXPECT_EQ(error_of("# manifests\n{},"),
            "cluster.yaml:2:3: invalid YAML: unexpected \",\" where a document should start");
  EXPECT_EQ(error_of("apiVersion: v1\nkind: Pod\n---\n[],\n"),
            "cluster.yaml:4:3: invalid YAML: unexpected \",\" where a document should start");
  EXPECT_EQ(error_of(","),
            "cluster.yaml:1:1: invalid YAML: unexpected \",\" where a document should start");
}

// Found by hand after the fuzz runs, from what yaml-cpp keeps (aliases share nodes): an alias
// inside its own anchor recursed until the stack overflowed (ASan: stack-overflow), and 550 bytes
// of aliases repeating aliases ("billion laughs") expanded into 10^9 strings until the timeout.
TEST(DecodeMutation, SelfContainingAndExponentialYamlAliasesAreErrorsAtTheirLine) {
  EXPECT_EQ(
      error_of("# manifests\nkind: Pod\nmetadata: &a {name: *a}\n"),
      "cluster.yaml:2: nested more than 256 levels deep (a YAML alias inside its own anchor?)");
  std::string bomb =
      "# manifests\nkind: Pod\nmetadata:\n  labels:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "    a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const std::string error = error_of(bomb);
  EXPECT_EQ(error.rfind("cluster.yaml:2: YAML aliases expand it to more than ", 0), 0u) << error;
  // Aliases used the ordinary way still work.
  EXPECT_EQ(error_of("# manifests\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: n, "
                     "labels: &l {app: a}, annotations: *l}\nspec: {containers: []}\n"),
            "(no error)");
}

}  // namespace
}  // namespace fitscale
