// Pool objects read with the config file's pool reader (issue 15 item 1).
#include "model/pool_manifest.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "model/error.h"

namespace fitscale {
namespace {

std::string error_of(const std::string& yaml, const std::string& source) {
  try {
    read_pool_manifest(YAML::Load(yaml), source);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PoolManifest, TheSpecIsAPoolsEntryNamedByTheObject) {
  const PoolObject o = read_pool_manifest(YAML::Load(R"(
apiVersion: fitscale.io/v1alpha1
kind: Pool
metadata: {name: gpu, uid: u-1, resourceVersion: "7"}
spec:
  weight: 40
  requirements: [{key: fitscale.io/instance-family, operator: In, values: [p3]}]
  taints: [{key: team, value: ml, effect: NoSchedule}]
  limits: {gpus: 16}
  kubelet: {maxPods: 30}
)"),
                                          "pools.yaml");
  EXPECT_EQ(o.name, "gpu");
  EXPECT_EQ(o.uid, "u-1");
  EXPECT_EQ(o.pool.name, "gpu");
  EXPECT_EQ(o.pool.weight, 40);
  ASSERT_EQ(o.pool.requirements.size(), 1u);
  EXPECT_EQ(o.pool.limits.gpus, 16);
  EXPECT_EQ(o.pool.max_pods, 30);
}

TEST(PoolManifest, ErrorsNameTheFileAndLineOrTheObjectAndTheField) {
  const std::string bad =
      "apiVersion: fitscale.io/v1alpha1\nkind: Pool\nmetadata: {name: gpu}\nspec:\n"
      "  requirements:\n    - {key: x, operator: Gt, values: [many]}\n";
  EXPECT_EQ(error_of(bad, "pools.yaml"),
            "pools.yaml:6: spec.requirements[0].values: Gt needs exactly one whole number");
  EXPECT_EQ(error_of("apiVersion: karpenter.sh/v1\nkind: Pool\nmetadata: {name: a}\n", "p.yaml"),
            "p.yaml:1: apiVersion: must be fitscale.io/v1alpha1, got \"karpenter.sh/v1\"");
  EXPECT_EQ(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Pool\nmetadata: {name: Big}\n", ""),
            "Pool Big: metadata.name: must be a DNS label (lower case letters, digits, '-'), got "
            "\"Big\"");
  EXPECT_EQ(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Pool\nmetadata: {name: a}\n"
                     "spec: {name: b}\n",
                     "p.yaml"),
            "p.yaml:4: spec.name: the pool's name is metadata.name");
  // From the API (no source): the object, then the field.
  YAML::Node api = YAML::Load(bad);
  const std::string from_api = error_of(YAML::Dump(api), "");
  EXPECT_EQ(from_api.rfind("Pool gpu", 0), 0u) << from_api;
  EXPECT_NE(from_api.find("spec.requirements[0].values"), std::string::npos) << from_api;
}

}  // namespace
}  // namespace fitscale
