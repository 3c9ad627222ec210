#include "kube/decode_codecs.h"

#include <gtest/gtest.h>

#include "model/error.h"

namespace fitscale {
namespace {

TEST(DefaultKubeCodecs, DecodeListPagesAndWatchObjects) {
  KubeCodecs c = default_kube_codecs({"A100"});
  EXPECT_EQ(c.pods.path, "/api/v1/pods");
  EXPECT_EQ(c.nodes.path, "/api/v1/nodes");
  EXPECT_EQ(c.pdbs.path, "/apis/policy/v1/poddisruptionbudgets");

  // A PodList page as the API server sends it: items carry no kind.
  const std::string page =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42"},"items":[
    {"metadata":{"name":"a","namespace":"t"},"spec":{"containers":[{"resources":{"requests":{"cpu":"1"}}}]}},
    {"metadata":{"name":"b","namespace":"t"},"spec":{"containers":[{"resources":{"requests":{"cpu":"1.5.5"}}}]}}]})";
  std::vector<std::pair<std::string, Pod>> pods;
  std::vector<std::pair<std::string, std::string>> bad;
  c.pods.decode_list(page, pods, bad);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].first, "t/a");
  EXPECT_EQ(pods[0].second.requests.cpu_milli, 1000);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].first, "t/b");
  EXPECT_NE(bad[0].second.find("spec.containers[0].resources.requests.cpu"), std::string::npos);

  const Node n = c.nodes.decode_object(
      R"({"kind":"Node","metadata":{"name":"n1","labels":{"karpenter.k8s.aws/instance-gpu-name":"a100"}},
          "status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  EXPECT_EQ(n.state, NodeState::Ready);
  EXPECT_EQ(n.labels.at("fitscale.io/gpu-model"), "A100");
  EXPECT_THROW(c.pods.decode_object(R"({"metadata":{"namespace":"t"}})"), InputError);

  std::vector<std::pair<std::string, PodDisruptionBudgetView>> pdbs;
  c.pdbs.decode_list(
      R"({"items":[{"metadata":{"name":"p","namespace":"t"},"status":{"disruptionsAllowed":1}}]})",
      pdbs, bad);
  ASSERT_EQ(pdbs.size(), 1u);
  EXPECT_EQ(pdbs[0].first, "t/p");
  EXPECT_EQ(pdbs[0].second.disruptions_allowed, 1);
}

}  // namespace
}  // namespace fitscale
