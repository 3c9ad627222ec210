// Budget manifests read with the config file's rules, and how Budget objects lay over the
// config's budgets.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "model/budget_manifest.h"
#include "model/error.h"

namespace fitscale {
namespace {

BudgetObject read(const std::string& text, const std::string& source = "b.yaml") {
  return read_budget_manifest(YAML::Load(text), source, "kube-system");
}

std::string error_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(BudgetManifest, NamespaceBudgetWithStatus) {
  const BudgetObject b = read(R"(apiVersion: fitscale.io/v1alpha1
kind: Budget
metadata: {name: caps, namespace: team-a, uid: u1}
spec: {usdPerHour: 5, usdPerDay: 100, maxRuntime: 2h, maxRuntimeAction: terminate}
status:
  day: "2026-12-01"
  month: "2026-12"
  spentToday: 12.5
  spentThisMonth: 40
  committedUsdPerHour: 1.25
  alertsSent: [day/2026-12-01/50]
  updatedAt: "2026-12-01T10:00:00Z"
)");
  EXPECT_EQ(b.scope, BudgetScope::Namespace);
  EXPECT_EQ(b.key(), "team-a/caps");
  EXPECT_EQ(b.caps.usd_per_hour, 5.0);
  EXPECT_EQ(b.caps.usd_per_day, 100.0);
  EXPECT_EQ(b.caps.max_runtime, 7200);
  EXPECT_EQ(b.caps.max_runtime_action, MaxRuntimeAction::Terminate);
  ASSERT_TRUE(b.status);
  EXPECT_EQ(b.status->spent_today, 12'500'000);
  EXPECT_EQ(b.status->spent_this_month, 40'000'000);
  EXPECT_EQ(b.status->committed_micros_per_hour, 1'250'000);
  EXPECT_EQ(b.status->alerts_sent, std::vector<std::string>{"day/2026-12-01/50"});
  EXPECT_EQ(b.status->updated_at, parse_rfc3339("2026-12-01T10:00:00Z"));
  EXPECT_TRUE(b.status_problem.empty());
}

TEST(BudgetManifest, ClusterAndDefaultLiveInFitscalesNamespace) {
  const BudgetObject c = read(
      "apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: cluster, namespace: "
      "kube-system}\nspec: {usdPerHour: 50, gpus: 8, nodes: 10}\n");
  EXPECT_EQ(c.scope, BudgetScope::Cluster);
  EXPECT_EQ(c.cluster_caps.gpus, 8);
  const BudgetObject d = read(
      "apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: default, namespace: "
      "kube-system}\nspec: {usdPerDay: 9}\n");
  EXPECT_EQ(d.scope, BudgetScope::Default);
  // Named `cluster` elsewhere: that namespace's own budget, where gpus is no key.
  EXPECT_NE(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: cluster, "
                     "namespace: team-a}\nspec: {gpus: 8}\n")
                .find("b.yaml:4: Budget team-a/cluster: spec: unknown key \"gpus\""),
            std::string::npos);
}

TEST(BudgetManifest, ErrorsNameTheFileLineObjectAndField) {
  EXPECT_EQ(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: caps, "
                     "namespace: team-a}\nspec:\n  usdPerDay: lots\n"),
            "b.yaml:5: Budget team-a/caps: spec.usdPerDay: must be a number >= 0, got \"lots\"");
  EXPECT_NE(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: caps, "
                     "namespace: team-a}\nspec: {usdPerDai: 3}\n")
                .find("did you mean \"usdPerDay\"?"),
            std::string::npos);
  EXPECT_NE(error_of("apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: caps}\n"
                     "spec: {}\n")
                .find("metadata.namespace: must be set"),
            std::string::npos);
  EXPECT_NE(error_of("apiVersion: v1\nkind: Budget\nmetadata: {name: caps, namespace: a}\n")
                .find("apiVersion: must be fitscale.io/v1alpha1"),
            std::string::npos);
  // From the API (no source): the object, no line.
  try {
    read(
        "{\"apiVersion\":\"fitscale.io/v1alpha1\",\"kind\":\"Budget\",\"metadata\":{\"name\":"
        "\"caps\",\"namespace\":\"team-a\"},\"spec\":{\"usdPerJob\":-1}}",
        "");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("Budget team-a/caps", 0), 0u) << e.what();
  }
}

TEST(BudgetManifest, BadStatusIsSetAsideNotFatal) {
  const BudgetObject b = read(
      "apiVersion: fitscale.io/v1alpha1\nkind: Budget\nmetadata: {name: caps, namespace: a}\n"
      "spec: {usdPerDay: 3}\nstatus: {spentToday: lots}\n");
  EXPECT_EQ(b.caps.usd_per_day, 3.0);
  EXPECT_FALSE(b.status);
  EXPECT_NE(b.status_problem.find("status.spentToday"), std::string::npos) << b.status_problem;
}

BudgetObject object(std::string ns, std::string name, BudgetScope scope) {
  BudgetObject o;
  o.ns = std::move(ns);
  o.name = std::move(name);
  o.scope = scope;
  return o;
}

TEST(MergeBudgetObjects, ObjectsSetKeysOverTheFileAndOneBudgetPerNamespace) {
  Budgets file = safe_default_budgets();
  file.namespaces["team-a"].usd_per_hour = 7;
  std::vector<BudgetObject> objects;
  objects.push_back(object("team-a", "z-second", BudgetScope::Namespace));
  objects.back().caps.usd_per_day = 1;
  objects.push_back(object("team-a", "caps", BudgetScope::Namespace));
  objects.back().caps.usd_per_day = 50;
  objects.push_back(object("kube-system", "cluster", BudgetScope::Cluster));
  objects.back().cluster_caps.gpus = 16;
  objects.push_back(object("kube-system", "default", BudgetScope::Default));
  objects.back().caps.usd_per_job = 10;
  const MergedBudgets m = merge_budget_objects(file, objects);
  // The first by name wins; the file's usdPerHour for the namespace stays.
  EXPECT_EQ(m.budgets.for_namespace("team-a").usd_per_day, 50.0);
  EXPECT_EQ(m.budgets.for_namespace("team-a").usd_per_hour, 7.0);
  EXPECT_EQ(m.budgets.for_namespace("team-a").usd_per_job, 10.0);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].key, "team-a/z-second");
  EXPECT_NE(m.problems[0].error.find("already has Budget caps"), std::string::npos);
  // The cluster Budget sets gpus; the safe defaults' usdPerHour and nodes stay.
  EXPECT_EQ(m.budgets.cluster.gpus, 16);
  EXPECT_EQ(m.budgets.cluster.nodes, 2000);
  EXPECT_EQ(m.budgets.defaults.usd_per_job, 10.0);
  EXPECT_EQ(m.budgets.defaults.usd_per_day, 20000.0);
  ASSERT_EQ(m.namespace_objects.size(), 1u);
  EXPECT_EQ(m.namespace_objects[0]->name, "caps");
}

}  // namespace
}  // namespace fitscale
