#include "model/labels.h"

#include <gtest/gtest.h>

namespace fitscale {
namespace {

const Labels kNode = {{"node.kubernetes.io/instance-type", "p3.8xlarge"},
                      {"topology.kubernetes.io/zone", "us-east-1a"},
                      {"fitscale.io/capacity-type", "spot"},
                      {"gpu-count", "4"}};

Requirement req(std::string key, SelectorOp op, std::vector<std::string> values = {}) {
  return Requirement{std::move(key), op, std::move(values)};
}

TEST(Requirement, In) {
  EXPECT_TRUE(matches(
      req("topology.kubernetes.io/zone", SelectorOp::In, {"us-east-1b", "us-east-1a"}), kNode));
  EXPECT_FALSE(matches(req("topology.kubernetes.io/zone", SelectorOp::In, {"us-east-1b"}), kNode));
  EXPECT_FALSE(matches(req("missing", SelectorOp::In, {"x"}), kNode));
}

TEST(Requirement, NotInAlsoMatchesAMissingLabel) {
  EXPECT_FALSE(matches(req("fitscale.io/capacity-type", SelectorOp::NotIn, {"spot"}), kNode));
  EXPECT_TRUE(matches(req("fitscale.io/capacity-type", SelectorOp::NotIn, {"on-demand"}), kNode));
  EXPECT_TRUE(matches(req("missing", SelectorOp::NotIn, {"x"}), kNode));
}

TEST(Requirement, ExistsAndDoesNotExist) {
  EXPECT_TRUE(matches(req("gpu-count", SelectorOp::Exists), kNode));
  EXPECT_FALSE(matches(req("missing", SelectorOp::Exists), kNode));
  EXPECT_TRUE(matches(req("missing", SelectorOp::DoesNotExist), kNode));
  EXPECT_FALSE(matches(req("gpu-count", SelectorOp::DoesNotExist), kNode));
}

TEST(Requirement, GtAndLtCompareIntegers) {
  EXPECT_TRUE(matches(req("gpu-count", SelectorOp::Gt, {"3"}), kNode));
  EXPECT_FALSE(matches(req("gpu-count", SelectorOp::Gt, {"4"}), kNode));
  EXPECT_TRUE(
      matches(req("gpu-count", SelectorOp::Lt, {"10"}), kNode));  // numeric, not "4" < "10" as text
  EXPECT_FALSE(matches(req("gpu-count", SelectorOp::Lt, {"4"}), kNode));
  // A label that is not an integer, or a missing one, never matches Gt/Lt.
  EXPECT_FALSE(matches(req("topology.kubernetes.io/zone", SelectorOp::Gt, {"1"}), kNode));
  EXPECT_FALSE(matches(req("missing", SelectorOp::Lt, {"1"}), kNode));
  EXPECT_FALSE(matches(req("gpu-count", SelectorOp::Gt, {"x"}), kNode));
}

TEST(NodeSelectorTerm, AllRequirementsMustMatchAndEmptyMatchesNothing) {
  NodeSelectorTerm t{{req("gpu-count", SelectorOp::Exists),
                      req("topology.kubernetes.io/zone", SelectorOp::In, {"us-east-1a"})}};
  EXPECT_TRUE(matches(t, kNode));
  t.requirements.push_back(req("fitscale.io/capacity-type", SelectorOp::In, {"on-demand"}));
  EXPECT_FALSE(matches(t, kNode));
  EXPECT_FALSE(matches(NodeSelectorTerm{}, kNode));
}

TEST(LabelSelector, MatchLabelsAndExpressions) {
  const Labels pod = {{"app", "trainer"}, {"tier", "gpu"}};
  EXPECT_TRUE(matches(LabelSelector{}, pod)) << "empty selector selects everything";
  LabelSelector s;
  s.match_labels = {{"app", "trainer"}};
  EXPECT_TRUE(matches(s, pod));
  s.match_expressions.push_back(req("tier", SelectorOp::NotIn, {"gpu"}));
  EXPECT_FALSE(matches(s, pod));
  s.match_expressions = {req("tier", SelectorOp::In, {"gpu", "cpu"})};
  EXPECT_TRUE(matches(s, pod));
  s.match_labels = {{"app", "other"}};
  EXPECT_FALSE(matches(s, pod));
}

TEST(NodeSelector, EveryKeyValueMustBePresent) {
  EXPECT_TRUE(matches_node_selector({}, kNode));
  EXPECT_TRUE(matches_node_selector({{"fitscale.io/capacity-type", "spot"}}, kNode));
  EXPECT_FALSE(matches_node_selector({{"fitscale.io/capacity-type", "on-demand"}}, kNode));
  EXPECT_FALSE(
      matches_node_selector({{"fitscale.io/capacity-type", "spot"}, {"missing", "x"}}, kNode));
}

TEST(Aliases, KarpenterAndBetaKeysBecomeFitscaleKeys) {
  const std::vector<std::string> models = {"A100", "A10G", "V100"};
  EXPECT_EQ(canonical_label("karpenter.sh/capacity-type", "on-demand", models),
            (std::pair<std::string, std::string>{"fitscale.io/capacity-type", "on-demand"}));
  EXPECT_EQ(canonical_label("karpenter.k8s.aws/instance-gpu-name", "a10g", models),
            (std::pair<std::string, std::string>{"fitscale.io/gpu-model", "A10G"}));
  EXPECT_EQ(canonical_label("beta.kubernetes.io/instance-type", "m5.large", models).first,
            "node.kubernetes.io/instance-type");
  EXPECT_EQ(canonical_label("failure-domain.beta.kubernetes.io/zone", "us-east-1a", models).first,
            "topology.kubernetes.io/zone");
  EXPECT_EQ(canonical_label("app", "a100", models),
            (std::pair<std::string, std::string>{"app", "a100"}))
      << "other labels are untouched";
  // A GPU name the catalog does not know keeps its spelling (and will match nothing).
  EXPECT_EQ(canonical_label("karpenter.k8s.aws/instance-gpu-name", "z9", models).second, "z9");

  Requirement r = canonical_requirement(
      req("karpenter.k8s.aws/instance-gpu-name", SelectorOp::In, {"v100", "a100"}), models);
  EXPECT_EQ(r, req("fitscale.io/gpu-model", SelectorOp::In, {"V100", "A100"}));
  Labels node = {{"fitscale.io/gpu-model", "V100"}};
  EXPECT_TRUE(matches(r, node));
}

}  // namespace
}  // namespace fitscale
