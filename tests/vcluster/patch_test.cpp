#include "vcluster/patch.h"

#include <gtest/gtest.h>

#include "vcluster/api_error.h"

namespace fitscale::vcluster {
namespace {

const nlohmann::json kNode = nlohmann::json::parse(R"({
  "metadata": {"name": "n1", "labels": {"a": "1", "b": "2"}},
  "spec": {"taints": [{"key": "x", "effect": "NoSchedule"}]}
})");

TEST(VclusterPatch, StrategicMergeAsKubectlCordonSendsIt) {
  auto out = apply_patch(kNode, nlohmann::json::parse(R"({"spec":{"unschedulable":true}})"),
                         "application/strategic-merge-patch+json");
  EXPECT_EQ(out["spec"]["unschedulable"], true);
  EXPECT_EQ(out["spec"]["taints"].size(), 1u);  // untouched
  EXPECT_EQ(out["metadata"]["labels"]["a"], "1");
}

TEST(VclusterPatch, MergePatchSetsAndRemovesKeys) {
  auto out =
      apply_patch(kNode, nlohmann::json::parse(R"({"metadata":{"labels":{"a":null,"c":"3"}}})"),
                  "application/merge-patch+json");
  EXPECT_FALSE(out["metadata"]["labels"].contains("a"));
  EXPECT_EQ(out["metadata"]["labels"]["b"], "2");
  EXPECT_EQ(out["metadata"]["labels"]["c"], "3");
}

TEST(VclusterPatch, StrategicDirectivesAreDropped) {
  auto out = apply_patch(
      kNode,
      nlohmann::json::parse(R"({"metadata":{"$setElementOrder/labels":[],"labels":{"d":"4"}}})"),
      "application/strategic-merge-patch+json; charset=utf-8");
  EXPECT_EQ(out["metadata"]["labels"]["d"], "4");
  EXPECT_FALSE(out["metadata"].contains("$setElementOrder/labels"));
}

TEST(VclusterPatch, JsonPatchOperations) {
  auto out = apply_patch(kNode, nlohmann::json::parse(R"([
      {"op":"add","path":"/spec/taints/-","value":{"key":"y","effect":"NoExecute"}},
      {"op":"replace","path":"/metadata/labels/b","value":"two"},
      {"op":"remove","path":"/metadata/labels/a"}])"),
                         "application/json-patch+json");
  ASSERT_EQ(out["spec"]["taints"].size(), 2u);
  EXPECT_EQ(out["spec"]["taints"][1]["key"], "y");
  EXPECT_EQ(out["metadata"]["labels"]["b"], "two");
  EXPECT_FALSE(out["metadata"]["labels"].contains("a"));
}

TEST(VclusterPatch, FailedTestOpAndUnknownTypeAreErrors) {
  try {
    apply_patch(kNode,
                nlohmann::json::parse(R"([{"op":"test","path":"/metadata/name","value":"other"}])"),
                "application/json-patch+json");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422);
  }
  try {
    apply_patch(kNode, nlohmann::json::object(), "text/plain");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 415);
  }
}

}  // namespace
}  // namespace fitscale::vcluster
