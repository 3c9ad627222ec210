// Topology spread constraints, pod affinity / anti-affinity and preferences as the Pod spec
// writes them (core/v1), and the errors kube-apiserver's validation would give for bad values.
#include <gtest/gtest.h>

#include "kube/decode.h"
#include "model/error.h"

namespace fitscale {
namespace {

const std::vector<std::string> kGpuModels = {"A100", "V100"};

std::string pod_json(const std::string& spec_extra,
                     const std::string& labels = R"({"app":"web","pod-template-hash":"7d9"})") {
  return R"({"kind":"Pod","metadata":{"name":"web-0","namespace":"shop","labels":)" + labels +
         R"(},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}])" +
         spec_extra + "}}";
}

Pod decode_one(const std::string& text) {
  const DecodedObjects d = decode_objects(text, "pods.json", kGpuModels);
  EXPECT_EQ(d.pods.size(), 1u);
  return d.pods.at(0);
}

std::string error_of(const std::string& text) {
  try {
    decode_objects(text, "pods.json", kGpuModels);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TopologyDecode, ReadsSpreadConstraintsWithDefaultsAndMatchLabelKeys) {
  const Pod p = decode_one(pod_json(R"(,"topologySpreadConstraints":[
    {"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule",
     "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["pod-template-hash"],
     "minDomains":3},
    {"maxSkew":2,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway",
     "labelSelector":{"matchLabels":{"app":"web"}},"nodeAffinityPolicy":"Ignore",
     "nodeTaintsPolicy":"Honor"}])"));
  ASSERT_EQ(p.constraints.spread.size(), 2u);
  const TopologySpreadConstraint& z = p.constraints.spread[0];
  EXPECT_EQ(z.max_skew, 1);
  EXPECT_EQ(z.topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(z.when_unsatisfiable, WhenUnsatisfiable::DoNotSchedule);
  EXPECT_EQ(z.min_domains, 3);
  EXPECT_EQ(z.node_affinity_policy, InclusionPolicy::Honor);  // the API's defaults
  EXPECT_EQ(z.node_taints_policy, InclusionPolicy::Ignore);
  ASSERT_TRUE(z.has_selector);
  EXPECT_EQ(z.selector.match_labels.at("app"), "web");
  // matchLabelKeys: the pod's own value joins the selector, so replicas of another revision
  // (another pod-template-hash) are not counted.
  ASSERT_EQ(z.selector.match_expressions.size(), 1u);
  EXPECT_EQ(z.selector.match_expressions[0].key, "pod-template-hash");
  EXPECT_EQ(z.selector.match_expressions[0].values, std::vector<std::string>{"7d9"});
  const TopologySpreadConstraint& h = p.constraints.spread[1];
  EXPECT_EQ(h.when_unsatisfiable, WhenUnsatisfiable::ScheduleAnyway);
  EXPECT_EQ(h.node_affinity_policy, InclusionPolicy::Ignore);
  EXPECT_EQ(h.node_taints_policy, InclusionPolicy::Honor);
}

TEST(TopologyDecode, ReadsPodAffinityAntiAffinityAndPreferences) {
  const Pod p = decode_one(pod_json(R"(,"affinity":{
    "nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
      {"weight":20,"preference":{"matchExpressions":[
        {"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]}]}}]},
    "podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":{"matchLabels":{"gang":"g1"}},"topologyKey":"topology.kubernetes.io/zone"}],
      "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"podAffinityTerm":{
        "labelSelector":{"matchLabels":{"app":"cache"}},"topologyKey":"kubernetes.io/hostname",
        "namespaces":["infra"]}}]},
    "podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"topology.kubernetes.io/zone"},
      {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}})"));
  ASSERT_EQ(p.constraints.preferred_node_affinity.size(), 1u);
  EXPECT_EQ(p.constraints.preferred_node_affinity[0].weight, 20);
  // Aliases canonicalised as in required affinity.
  EXPECT_EQ(p.constraints.preferred_node_affinity[0].preference.requirements[0].key,
            "fitscale.io/capacity-type");
  ASSERT_EQ(p.constraints.affinity.size(), 1u);
  EXPECT_EQ(p.constraints.affinity[0].topology_key, "topology.kubernetes.io/zone");
  ASSERT_EQ(p.constraints.preferred_affinity.size(), 1u);
  EXPECT_EQ(p.constraints.preferred_affinity[0].weight, 50);
  EXPECT_EQ(p.constraints.preferred_affinity[0].term.namespaces, std::vector<std::string>{"infra"});
  // Zone anti-affinity is a constraint; hostname anti-affinity stays where packing reads it.
  ASSERT_EQ(p.constraints.anti_affinity.size(), 1u);
  EXPECT_EQ(p.constraints.anti_affinity[0].topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(p.anti_affinity_hostname.size(), 1u);
}

TEST(TopologyDecode, BadValuesNameThePodAndTheField) {
  const std::string zone = R"("topologyKey":"topology.kubernetes.io/zone")";
  const std::string sel = R"("labelSelector":{"matchLabels":{"app":"web"}})";
  EXPECT_EQ(error_of(pod_json(R"(,"topologySpreadConstraints":[{"maxSkew":0,)" + zone +
                              R"(,"whenUnsatisfiable":"DoNotSchedule"}])")),
            "pods.json: pod shop/web-0: spec.topologySpreadConstraints[0].maxSkew: must be at "
            "least 1, got 0");
  EXPECT_EQ(error_of(pod_json(R"(,"topologySpreadConstraints":[{"maxSkew":1,)" + zone +
                              R"(,"whenUnsatisfiable":"Sometimes"}])")),
            "pods.json: pod shop/web-0: spec.topologySpreadConstraints[0].whenUnsatisfiable: "
            "unknown value \"Sometimes\" (expected DoNotSchedule or ScheduleAnyway)");
  EXPECT_EQ(error_of(pod_json(R"(,"topologySpreadConstraints":[{"maxSkew":1,)" + zone +
                              R"(,"whenUnsatisfiable":"ScheduleAnyway","minDomains":2}])")),
            "pods.json: pod shop/web-0: spec.topologySpreadConstraints[0].minDomains: may be "
            "set only with whenUnsatisfiable DoNotSchedule");
  EXPECT_EQ(
      error_of(pod_json(R"(,"topologySpreadConstraints":[{"maxSkew":1,)" + zone +
                        R"(,"whenUnsatisfiable":"DoNotSchedule","nodeTaintsPolicy":"honor"}])")),
      "pods.json: pod shop/web-0: spec.topologySpreadConstraints[0].nodeTaintsPolicy: "
      "unknown value \"honor\" (expected Honor or Ignore)");
  EXPECT_EQ(
      error_of(pod_json(
          R"(,"topologySpreadConstraints":[{"maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"}])")),
      "pods.json: pod shop/web-0: spec.topologySpreadConstraints[0].topologyKey: missing "
      "(required, e.g. topology.kubernetes.io/zone)");
  EXPECT_EQ(
      error_of(pod_json(R"(,"topologySpreadConstraints":[{"maxSkew":1,)" + zone + "," + sel +
                        R"(,"whenUnsatisfiable":"DoNotSchedule","matchLabelKeys":["app"]}])")),
      "pods.json: pod shop/web-0: spec.topologySpreadConstraints[0].matchLabelKeys[0]: "
      "\"app\" is also in labelSelector");
  EXPECT_EQ(
      error_of(pod_json(
          R"(,"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)" +
          sel + "}]}}")),
      "pods.json: pod shop/web-0: "
      "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
      "topologyKey: missing (required, e.g. topology.kubernetes.io/zone)");
  EXPECT_EQ(
      error_of(pod_json(
          R"(,"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":101,"podAffinityTerm":{)" +
          sel + "," + zone + "}}]}}")),
      "pods.json: pod shop/web-0: "
      "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
      "weight: must be in 1-100, got 101");
  EXPECT_EQ(
      error_of(pod_json(
          R"(,"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1}]}})")),
      "pods.json: pod shop/web-0: "
      "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
      "preference: missing");
}

}  // namespace
}  // namespace fitscale
