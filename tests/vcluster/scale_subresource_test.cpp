#include "vcluster/scale_subresource.h"

#include <gtest/gtest.h>

namespace fitscale::vcluster {
namespace {

using nlohmann::json;

TEST(LabelSelectorString, PrintsRequirementsSortedByKeyAsLabelsSelectorDoes) {
  const json sel = {{"matchLabels", {{"tier", "web"}, {"app", "x"}}},
                    {"matchExpressions",
                     {{{"key", "zone"}, {"operator", "NotIn"}, {"values", {"b", "a"}}},
                      {{"key", "canary"}, {"operator", "DoesNotExist"}},
                      {{"key", "env"}, {"operator", "In"}, {"values", {"prod"}}},
                      {{"key", "gpu"}, {"operator", "Exists"}}}}};
  EXPECT_EQ(label_selector_string(sel),
            "app=x,!canary,env in (prod),gpu,tier=web,zone notin (a,b)");
  EXPECT_EQ(label_selector_string(json::object()), "");
  EXPECT_EQ(label_selector_string(json("app=x")), "");
}

TEST(ScaleOf, DeploymentSelectorObjectIsSerialized) {
  ResourceInfo r;
  r.scale = {".spec.replicas", ".status.replicas", ".spec.selector"};
  const json d = {
      {"metadata", {{"name", "web"}, {"namespace", "default"}, {"resourceVersion", "7"}}},
      {"spec", {{"replicas", 3}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}},
      {"status", {{"replicas", 2}}}};
  const json s = scale_of(r, d);
  EXPECT_EQ(s["kind"], "Scale");
  EXPECT_EQ(s["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(s["spec"]["replicas"], 3);
  EXPECT_EQ(s["status"]["replicas"], 2);
  EXPECT_EQ(s["status"]["selector"], "app=web");
  EXPECT_EQ(s["metadata"]["resourceVersion"], "7");
  const json scaled = with_scale(r, d, {{"spec", {{"replicas", 5}}}});
  EXPECT_EQ(scaled["spec"]["replicas"], 5);
  EXPECT_EQ(scaled["spec"]["selector"], d["spec"]["selector"]);
}

}  // namespace
}  // namespace fitscale::vcluster
