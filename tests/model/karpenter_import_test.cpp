// `fitscale import karpenter` as a pure function (issue 15 item 4).
#include "model/karpenter_import.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "model/error.h"
#include "model/pool_manifest.h"

namespace fitscale {
namespace {

KarpenterImport import_text(const std::string& text) {
  static std::vector<YAML::Node> keep;  // the documents outlive the call in the test
  keep = YAML::LoadAll(text);
  std::vector<KarpenterDocument> docs;
  for (const auto& n : keep) docs.push_back({&n, "np.yaml"});
  return import_karpenter(docs);
}

std::string error_of(const std::string& text) {
  try {
    import_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

bool has_note(const KarpenterImport& k, const std::string& part) {
  for (const auto& w : k.warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

constexpr const char* kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  weight: 30
  template:
    metadata:
      labels: {team: ml}
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [p4d, p5]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
        - {key: karpenter.k8s.aws/instance-hypervisor, operator: In, values: [nitro]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["3"], minValues: 2}
      taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      expireAfter: 720h
  limits: {cpu: "1000", memory: 1000Gi, nvidia.com/gpu: "64"}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: gpu}
spec:
  role: KarpenterNodeRole-lab
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: lab}}]
  securityGroupSelectorTerms: [{id: sg-0123}]
  amiSelectorTerms: [{alias: al2023@latest}]
  kubelet: {maxPods: 50, systemReserved: {cpu: 100m}}
  tags: {team: ml}
)";

TEST(KarpenterImport, MapsEveryFieldThatHasAnEquivalent) {
  const KarpenterImport k = import_text(kNodePool);
  ASSERT_EQ(k.pools.size(), 1u);
  const Pool& p = k.pools[0].pool;
  EXPECT_EQ(p.name, "gpu");
  EXPECT_EQ(p.weight, 30);
  EXPECT_EQ(p.labels.at("team"), "ml");
  ASSERT_EQ(p.requirements.size(), 3u) << "the hypervisor requirement has no equivalent";
  EXPECT_EQ(p.requirements[0].key, "fitscale.io/instance-family");
  EXPECT_EQ(p.requirements[1].key, "karpenter.sh/capacity-type");
  EXPECT_EQ(p.requirements[2].key, "fitscale.io/instance-generation");
  EXPECT_EQ(p.taints.size(), 1u);
  EXPECT_EQ(p.limits.cpu_milli, 1'000'000);
  EXPECT_EQ(p.limits.memory_bytes, 1000LL << 30);
  EXPECT_EQ(p.limits.gpus, 64);
  EXPECT_EQ(p.scale_down.empty_after, 300);
  EXPECT_EQ(p.max_pods, 50);
  EXPECT_EQ(p.aws.subnet_selector_terms[0].tags.at("karpenter.sh/discovery"), "lab");
  EXPECT_EQ(p.aws.security_group_selector_terms[0].id, "sg-0123");
  EXPECT_EQ(p.aws.tags.at("team"), "ml");
}

TEST(KarpenterImport, SaysWhatHasNoEquivalentWithFileAndLine) {
  const KarpenterImport k = import_text(kNodePool);
  EXPECT_TRUE(has_note(k,
                       "np.yaml:13: NodePool gpu: spec.template.spec.requirements[2]: "
                       "karpenter.k8s.aws/instance-hypervisor has no equivalent"));
  EXPECT_TRUE(has_note(k, "spec.template.spec.requirements[3].minValues"));
  EXPECT_TRUE(has_note(k, "spec.template.spec.expireAfter: fitscale never expires nodes"));
  EXPECT_TRUE(has_note(k, "EC2NodeClass gpu: spec.role: no equivalent"));
  EXPECT_TRUE(has_note(k, "EC2NodeClass gpu: spec.amiSelectorTerms[0]"));
  EXPECT_TRUE(has_note(k, "spec.kubelet.systemReserved"));
}

TEST(KarpenterImport, OutputIsPoolsThatFitscaleReads) {
  const KarpenterImport k = import_text(kNodePool);
  const std::string yaml = pool_manifests_yaml(k);
  EXPECT_NE(yaml.find("# warning: np.yaml:13"), std::string::npos) << yaml;
  const auto docs = YAML::LoadAll(yaml);
  ASSERT_EQ(docs.size(), 1u);
  const PoolObject o = read_pool_manifest(docs[0], "out.yaml");
  EXPECT_EQ(o.pool.requirements, k.pools[0].pool.requirements);
  EXPECT_EQ(o.pool.limits, k.pools[0].pool.limits);
  EXPECT_EQ(o.pool.scale_down, k.pools[0].pool.scale_down);
  EXPECT_EQ(o.pool.max_pods, 50);
  EXPECT_EQ(o.pool.aws, k.pools[0].pool.aws);
}

TEST(KarpenterImport, ConsolidationOfRunningPodsAndNeverAreSaid) {
  const KarpenterImport k = import_text(
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n"
      "  template: {spec: {requirements: []}}\n"
      "  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: Never}\n");
  EXPECT_TRUE(has_note(k, "never moves running batch pods"));
  EXPECT_FALSE(k.pools[0].pool.scale_down.when_empty);
}

TEST(KarpenterImport, BadInputNamesFileLineAndField) {
  EXPECT_EQ(error_of("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: a}\n"),
            "np.yaml:1: document: apiVersion/kind: must be karpenter.sh/v1 NodePool or "
            "karpenter.k8s.aws/v1 EC2NodeClass, got karpenter.sh/v1beta1 NodePool (convert "
            "v1beta1 objects to v1 first: Karpenter's v1 migration guide)");
  EXPECT_EQ(error_of("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n"
                     "  template:\n    spec:\n      requirements:\n"
                     "        - {key: x, operator: Gte}\n"),
            "np.yaml:8: NodePool a: spec.template.spec.requirements[0].operator: must be one of "
            "In, NotIn, Exists, DoesNotExist, Gt, Lt, got \"Gte\"");
  EXPECT_EQ(error_of("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n"
                     "  weight: 1000\n"),
            "np.yaml:5: NodePool a: spec.weight: must be a whole number from 0 to 100");
  EXPECT_EQ(error_of("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n"
                     "  limits: {cpu: lots}\n"),
            "np.yaml:5: NodePool a: spec.limits.cpu: bad quantity \"lots\": must start with a "
            "number");
  EXPECT_EQ(error_of("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: a}\n"),
            "np.yaml: holds no karpenter.sh/v1 NodePool");
}

}  // namespace
}  // namespace fitscale
