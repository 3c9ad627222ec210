#include "kube/decode.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/error.h"
#include "model/time.h"

namespace fitscale {
namespace {

const std::vector<std::string> kGpuModels = {"A100", "A10G", "T4", "V100"};
constexpr std::int64_t kGi = 1LL << 30;
constexpr std::int64_t kMi = 1LL << 20;

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(FITSCALE_SOURCE_DIR) + "/tests/data/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

const Pod& pod_named(const DecodedObjects& d, std::string_view name) {
  for (const Pod& p : d.pods) {
    if (p.name == name) return p;
  }
  throw std::runtime_error("no pod " + std::string(name));
}

std::string error_of(std::string_view text, std::string_view source = "cluster.json") {
  try {
    decode_objects(text, source, kGpuModels);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// A pod JSON with `spec` spliced in.
std::string pod_json(const std::string& spec, const std::string& meta_extra = "") {
  return R"({"kind":"Pod","metadata":{"name":"train-0","namespace":"team-a")" + meta_extra +
         R"(},"spec":)" + spec + "}";
}

class KubectlList : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    decoded_ = new DecodedObjects(decode_objects(read_fixture("kubectl-nodes-pods.json"),
                                                 "kubectl-nodes-pods.json", kGpuModels));
  }
  static void TearDownTestSuite() { delete decoded_; }
  static DecodedObjects* decoded_;
};
DecodedObjects* KubectlList::decoded_ = nullptr;

TEST_F(KubectlList, ReadsEveryKindAndSkipsOthers) {
  EXPECT_EQ(decoded_->nodes.size(), 2u);
  EXPECT_EQ(decoded_->pods.size(), 3u);
  EXPECT_EQ(decoded_->pdbs.size(), 1u);
  EXPECT_EQ(decoded_->ignored, 1u) << "the Service";
  EXPECT_TRUE(decoded_->bad_pods.empty());
}

TEST_F(KubectlList, ReadyEksNodeWithBetaLabels) {
  const Node& n = decoded_->nodes[0];
  EXPECT_EQ(n.name, "ip-10-0-12-34.ec2.internal");
  EXPECT_EQ(n.provider_id, "aws:///us-east-1a/i-0a1b2c3d4e5f60718");
  EXPECT_EQ(n.state, NodeState::Ready);
  EXPECT_FALSE(n.unschedulable);
  EXPECT_EQ(n.created, parse_rfc3339("2026-11-29T08:00:00Z"));
  // Old keys stay; the canonical ones are added so canonicalised selectors match.
  EXPECT_EQ(n.labels.at("beta.kubernetes.io/instance-type"), "m5.large");
  EXPECT_EQ(n.labels.at("node.kubernetes.io/instance-type"), "m5.large");
  EXPECT_EQ(n.labels.at("topology.kubernetes.io/zone"), "us-east-1a");
  EXPECT_EQ(n.labels.at("topology.kubernetes.io/region"), "us-east-1");
  EXPECT_EQ(n.allocatable.cpu_milli, 1930);
  EXPECT_EQ(n.allocatable.memory_bytes, 7220184LL * 1024);
  EXPECT_EQ(n.allocatable.pods, 29);
  EXPECT_EQ(n.allocatable.ephemeral_bytes, 76224326324);
  EXPECT_EQ(n.allocatable.get("attachable-volumes-aws-ebs"), 25);
  EXPECT_EQ(n.allocatable.extended.size(), 1u) << "zero hugepages are not kept";
}

TEST_F(KubectlList, NotReadyCordonedGpuNode) {
  const Node& n = decoded_->nodes[1];
  EXPECT_EQ(n.state, NodeState::Registered);
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 2u);
  EXPECT_EQ(n.taints[0], (Taint{"nvidia.com/gpu", "present", TaintEffect::NoSchedule}));
  EXPECT_EQ(n.taints[1], (Taint{"node.kubernetes.io/not-ready", "", TaintEffect::NoSchedule}));
  EXPECT_EQ(n.allocatable.gpus, 4);
  EXPECT_EQ(n.allocatable.memory_bytes, 254249984LL * 1024);
  EXPECT_EQ(n.labels.at("fitscale.io/gpu-model"), "V100");
}

TEST_F(KubectlList, JobPodWithInitContainerAndKarpenterAffinity) {
  const Pod& p = pod_named(*decoded_, "train-x7k2p");
  EXPECT_EQ(p.ns, "team-a");
  EXPECT_EQ(p.key(), "team-a/train-x7k2p");
  EXPECT_EQ(p.uid, "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d");
  EXPECT_EQ(p.phase, PodPhase::Pending);
  EXPECT_TRUE(p.node_name.empty());
  EXPECT_EQ(p.owner.kind, "Job");
  EXPECT_EQ(p.owner.name, "train");
  EXPECT_TRUE(p.is_batch());
  EXPECT_EQ(p.job_key(), "train");
  // Containers: 6 + 0.25 CPU, 40Gi + 128974848 bytes, 4 GPUs (from the limit alone).
  // Init container: 8 CPU, 1Gi. Effective = max of the two, component-wise.
  EXPECT_EQ(p.requests.cpu_milli, 8000);
  EXPECT_EQ(p.requests.memory_bytes, 40 * kGi + 128974848);
  EXPECT_EQ(p.requests.gpus, 4);
  EXPECT_EQ(p.requests.pods, 1);
  EXPECT_EQ(p.active_deadline_s, 86400);
  EXPECT_EQ(p.declared_max_runtime(), 86400) << "activeDeadlineSeconds before the annotation";
  EXPECT_EQ(p.priority, 1000);
  EXPECT_EQ(p.created, parse_rfc3339("2026-11-29T21:40:02Z"));
  ASSERT_EQ(p.required_node_affinity.size(), 1u);
  const auto& reqs = p.required_node_affinity[0].requirements;
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0], (Requirement{"fitscale.io/gpu-model", SelectorOp::In, {"V100", "A100"}}));
  EXPECT_EQ(reqs[1], (Requirement{"fitscale.io/capacity-type", SelectorOp::In, {"on-demand"}}));
  EXPECT_TRUE(p.requires_on_demand());
  ASSERT_EQ(p.tolerations.size(), 3u);
  EXPECT_TRUE(p.tolerations[0].exists);
  EXPECT_EQ(p.tolerations[0].effect, TaintEffect::NoExecute);
  EXPECT_EQ(p.tolerations[2],
            (Toleration{"nvidia.com/gpu", false, "present", TaintEffect::NoSchedule}));
  // It tolerates the GPU node's GPU taint but not its not-ready NoSchedule taint.
  const Taint* blocking = first_untolerated(p.tolerations, decoded_->nodes[1].taints);
  ASSERT_NE(blocking, nullptr);
  EXPECT_EQ(blocking->key, "node.kubernetes.io/not-ready");
  EXPECT_EQ(p.annotations.at("fitscale.io/max-runtime"), "36h");
}

TEST_F(KubectlList, CoschedulingGangWithAntiAffinityAndOverhead) {
  const Pod& p = pod_named(*decoded_, "allreduce-7-worker-0");
  ASSERT_TRUE(p.gang.has_value());
  EXPECT_EQ(p.gang->name, "allreduce-7");
  EXPECT_EQ(p.gang->size, 2);
  EXPECT_EQ(p.job_key(), "allreduce-7");
  EXPECT_TRUE(p.owner.kind.empty());
  // Limits only: requests default to them; plus the RuntimeClass overhead.
  EXPECT_EQ(p.requests.cpu_milli, 30250);
  EXPECT_EQ(p.requests.memory_bytes, 200 * kGi + 120 * kMi);
  EXPECT_EQ(p.requests.gpus, 8);
  EXPECT_EQ(p.node_selector, (Labels{{"fitscale.io/gpu-model", "A100"}}));
  ASSERT_EQ(p.anti_affinity_hostname.size(), 1u) << "the zone-level term does not count";
  EXPECT_TRUE(matches(p.anti_affinity_hostname[0], p.labels));
  EXPECT_FALSE(p.requires_on_demand());
}

TEST_F(KubectlList, DaemonSetPodPinnedToItsNode) {
  const Pod& p = pod_named(*decoded_, "aws-node-4kq9z");
  EXPECT_TRUE(p.is_daemon());
  EXPECT_FALSE(p.is_batch());
  EXPECT_EQ(p.phase, PodPhase::Running);
  EXPECT_EQ(p.node_name, "ip-10-0-12-34.ec2.internal");
  EXPECT_EQ(p.priority, 2000001000);
  ASSERT_EQ(p.required_node_affinity.size(), 1u);
  EXPECT_TRUE(matches(p.required_node_affinity[0], decoded_->nodes[0].labels));
  EXPECT_FALSE(matches(p.required_node_affinity[0], decoded_->nodes[1].labels));
  EXPECT_TRUE(tolerates_all(p.tolerations, decoded_->nodes[1].taints));
}

TEST_F(KubectlList, PodDisruptionBudget) {
  const PodDisruptionBudgetView& b = decoded_->pdbs[0];
  EXPECT_EQ(b.ns, "team-a");
  EXPECT_EQ(b.name, "web");
  EXPECT_EQ(b.selector.match_labels, (Labels{{"app", "web"}}));
  EXPECT_EQ(b.disruptions_allowed, 0);
}

TEST(DecodeYaml, MultiDocumentManifestsAndTypedList) {
  const DecodedObjects d =
      decode_objects(read_fixture("manifests.yaml"), "manifests.yaml", kGpuModels);
  ASSERT_EQ(d.pods.size(), 3u);
  EXPECT_EQ(d.ignored, 1u) << "the Job";
  const Pod& nb = pod_named(d, "notebook");
  // Containers 0.5 + 0.1 CPU and 2Gi; the sidecar init container runs beside them (+200m, +64Mi).
  EXPECT_EQ(nb.requests.cpu_milli, 800);
  EXPECT_EQ(nb.requests.memory_bytes, 2 * kGi + 64 * kMi);
  EXPECT_EQ(nb.requests.gpus, 1);
  EXPECT_EQ(nb.labels.at("version"), "1.0") << "a quoted scalar stays a string";
  EXPECT_TRUE(nb.do_not_disrupt());
  EXPECT_EQ(nb.node_selector, (Labels{{"fitscale.io/capacity-type", "on-demand"},
                                      {"node.kubernetes.io/instance-type", "g5.xlarge"}}));
  EXPECT_TRUE(nb.requires_on_demand());
  const Pod& g0 = pod_named(d, "gang-0");
  const Pod& g1 = pod_named(d, "gang-1");
  EXPECT_EQ(g0.gang->name, "big");
  EXPECT_EQ(g0.gang->size, 2) << "size from the label";
  EXPECT_EQ(g1.gang->size, 2) << "size from the annotation";
  EXPECT_EQ(g1.active_deadline_s, 3600);
  EXPECT_EQ(g1.tolerations[0], (Toleration{"fitscale.io/spot", true, "", TaintEffect::NoSchedule}));
  EXPECT_EQ(g0.requests.cpu_milli, 1000);
}

TEST(DecodeYaml, SameObjectsAsJson) {
  // kubectl -o yaml of the same List decodes to what -o json does.
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {karpenter.sh/capacity-type: spot}
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
    conditions:
    - {type: Ready, status: "True"}
)";
  const DecodedObjects d = decode_objects(yaml, "nodes.yaml", kGpuModels);
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes[0].state, NodeState::Ready);
  EXPECT_EQ(d.nodes[0].allocatable.cpu_milli, 4000);
  EXPECT_EQ(d.nodes[0].labels.at("fitscale.io/capacity-type"), "spot");
}

TEST(DecodeErrors, BadQuantityNamesFileItemPodAndField) {
  EXPECT_EQ(error_of(read_fixture("bad-quantity-pods.json"), "bad-quantity-pods.json"),
            "bad-quantity-pods.json: items[1]: pod team-a/train-0: "
            "spec.containers[0].resources.requests.cpu: "
            "bad quantity \"12x\": unknown suffix \"x\"");
}

TEST(DecodeErrors, SkipModeReportsTheBadPodAndKeepsTheRest) {
  const DecodedObjects d = decode_objects(read_fixture("bad-quantity-pods.json"), "live",
                                          kGpuModels, /*skip_bad_pods=*/true);
  ASSERT_EQ(d.pods.size(), 2u);
  EXPECT_EQ(d.pods[0].name, "ok-0");
  EXPECT_EQ(d.pods[1].name, "ok-1");
  ASSERT_EQ(d.bad_pods.size(), 1u);
  EXPECT_EQ(d.bad_pods[0].first, "team-a/train-0");
  EXPECT_EQ(
      d.bad_pods[0].second,
      "spec.containers[0].resources.requests.cpu: bad quantity \"12x\": unknown suffix \"x\"");
}

TEST(DecodeErrors, YamlErrorsNameTheLine) {
  const std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
      "    resources:\n      requests:\n        memory: 1.5.5Gi\n---\nkind: Pod\n";
  EXPECT_EQ(error_of(yaml, "pods.yaml"),
            "pods.yaml:1: pod default/p: spec.containers[0].resources.requests.memory: bad "
            "quantity \"1.5.5Gi\": "
            "unexpected \".\" after the number");
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: [\n", "broken.yaml")
                .rfind("broken.yaml:3:1: invalid YAML: ", 0),
            0u)
      << error_of("kind: Pod\nmetadata: {name: [\n", "broken.yaml");
}

TEST(DecodeErrors, MalformedJsonNamesLineAndColumn) {
  const std::string e =
      error_of("{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"kind\": \"Pod\",}\n  ]\n}\n");
  EXPECT_EQ(e.rfind("cluster.json:4:20: invalid JSON: ", 0), 0u) << e;
}

TEST(DecodeErrors, ListShapeErrors) {
  EXPECT_EQ(
      error_of(
          R"({"kind":"List","items":[{"kind":"PodDisruptionBudget","metadata":{"name":"b"}},7]})"),
      "cluster.json: items[1]: expected an object, got a number");
  EXPECT_EQ(error_of(R"({"kind":"PodList","items":{}})"),
            "cluster.json: items: expected an array, got an object");
  EXPECT_EQ(
      error_of(R"({"kind":"List","items":[]} x)").rfind("cluster.json:1:28: invalid JSON: ", 0), 0u)
      << "text after the list is not ignored";
  EXPECT_EQ(error_of(R"({"items":[{"metadata":{"name":"a"}}],"kind":"List"})"),
            "cluster.json: items[0]: missing \"kind\"");
  // A typed list's items need no kind, wherever the list's kind is written.
  const DecodedObjects d =
      decode_objects(R"({"items":[{"metadata":{"name":"a"}}],"kind":"NodeList"})", "x", kGpuModels);
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes[0].name, "a");
  EXPECT_TRUE(decode_objects(R"({"kind":"List","items":null})", "x", kGpuModels).pods.empty());
}

TEST(DecodeErrors, EachFieldCheck) {
  auto pod_error = [](const std::string& spec, const std::string& meta = "") {
    return error_of(pod_json(spec, meta));
  };
  EXPECT_EQ(pod_error(R"({"containers":[{"resources":{"requests":{"cpu":"-1"}}}]})"),
            "cluster.json: pod team-a/train-0: spec.containers[0].resources.requests.cpu: must not "
            "be negative");
  EXPECT_EQ(pod_error(R"({"containers":[{"resources":{"limits":{"memory":true}}}]})"),
            "cluster.json: pod team-a/train-0: spec.containers[0].resources.limits.memory: "
            "expected a quantity, got a boolean");
  EXPECT_EQ(pod_error(R"({"containers":"x"})"),
            "cluster.json: pod team-a/train-0: spec.containers: expected an array, got a string");
  EXPECT_EQ(pod_error(R"({"tolerations":[{"key":"a","operator":"Maybe"}]})"),
            "cluster.json: pod team-a/train-0: spec.tolerations[0].operator: unknown operator "
            "\"Maybe\" (expected Equal or Exists)");
  EXPECT_EQ(pod_error(R"({"tolerations":[{"key":"a","effect":"Never"}]})"),
            "cluster.json: pod team-a/train-0: spec.tolerations[0].effect: bad taint effect "
            "\"Never\": expected NoSchedule, "
            "PreferNoSchedule or NoExecute");
  EXPECT_EQ(
      pod_error(
          R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"gpus","operator":"Gt","values":["x"]}]}]}}}})"),
      "cluster.json: pod team-a/train-0: "
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].matchExpressions[0].values: must be one integer for Gt");
  EXPECT_EQ(
      pod_error(
          R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"Near"}]}]}}}})"),
      "cluster.json: pod team-a/train-0: "
      "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].matchExpressions[0].operator: unknown operator \"Near\" (expected In, "
      "NotIn, Exists, "
      "DoesNotExist, Gt, Lt)");
  EXPECT_EQ(pod_error("{}", R"(,"labels":{"fitscale.io/gang":"g"})"),
            "cluster.json: pod team-a/train-0: metadata.labels.fitscale.io/gang: gang \"g\" needs "
            "its size: label or "
            "annotation fitscale.io/gang-size");
  EXPECT_EQ(pod_error("{}", R"(,"labels":{"fitscale.io/gang":"g","fitscale.io/gang-size":"0"})"),
            "cluster.json: pod team-a/train-0: metadata.labels.fitscale.io/gang-size: gang size "
            "must be a whole number >= 1, "
            "got \"0\"");
  EXPECT_EQ(
      pod_error("{}", R"(,"labels":{"app":7})"),
      "cluster.json: pod team-a/train-0: metadata.labels.app: expected a string, got a number");
  EXPECT_EQ(pod_error("{}", R"(,"creationTimestamp":"yesterday")")
                .rfind("cluster.json: pod team-a/train-0: metadata.creationTimestamp: bad time "
                       "\"yesterday\"",
                       0),
            0u);
  EXPECT_EQ(pod_error(R"({"activeDeadlineSeconds":"1h"})"),
            "cluster.json: pod team-a/train-0: spec.activeDeadlineSeconds: expected an integer, "
            "got a string");
  EXPECT_EQ(error_of(R"({"kind":"Pod","metadata":{},"spec":{}})"),
            "cluster.json: pod (no name): metadata.name: missing");
  EXPECT_EQ(error_of(R"({"metadata":{"name":"x"}})"), "cluster.json: missing \"kind\"");
  EXPECT_EQ(
      error_of(
          R"({"kind":"Node","metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"Sometimes"}]}})"),
      "cluster.json: node n: spec.taints[0].effect: bad taint effect \"Sometimes\": expected "
      "NoSchedule, "
      "PreferNoSchedule or NoExecute");
  EXPECT_EQ(
      error_of(
          R"({"kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"lots"}}})"),
      "cluster.json: node n: status.allocatable.cpu: bad quantity \"lots\": must start with a "
      "number");
  EXPECT_EQ(error_of("[1]"), "cluster.json: expected a Kubernetes object or List, got an array");
}

TEST(DecodeSingle, WatchObjects) {
  const Pod p = decode_pod_json(
      R"({"metadata":{"name":"a","namespace":"n","labels":{"fitscale.io/gang":"g","fitscale.io/gang-size":"4"}},
          "spec":{"containers":[{"resources":{"requests":{"cpu":2,"memory":1.5e9}}},{"resources":{"requests":{"cpu":0.1}}}],
                  "nodeSelector":{"karpenter.k8s.aws/instance-gpu-name":"a10g"}},
          "status":{"phase":"Succeeded"}})",
      kGpuModels);
  EXPECT_EQ(p.requests.cpu_milli, 2100) << "JSON numbers are quantities too; 0.1 is exactly 100m";
  EXPECT_EQ(p.requests.memory_bytes, 1'500'000'000);
  EXPECT_EQ(p.phase, PodPhase::Succeeded);
  EXPECT_EQ(p.gang->size, 4);
  EXPECT_EQ(p.node_selector, (Labels{{"fitscale.io/gpu-model", "A10G"}}));

  const Node n = decode_node_json(
      R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"3920m"}}})", kGpuModels);
  EXPECT_EQ(n.name, "n1");
  EXPECT_EQ(n.state, NodeState::Registered) << "no Ready condition";
  EXPECT_EQ(n.allocatable.cpu_milli, 3920);

  const PodDisruptionBudgetView b = decode_pdb_json(
      R"({"metadata":{"name":"b","namespace":"x"},"spec":{"selector":{"matchExpressions":[{"key":"app","operator":"Exists"}]}},"status":{"disruptionsAllowed":2}})");
  EXPECT_EQ(b.disruptions_allowed, 2);
  ASSERT_EQ(b.selector.match_expressions.size(), 1u);
  EXPECT_EQ(b.selector.match_expressions[0].op, SelectorOp::Exists);

  try {
    decode_pod_json(
        R"({"metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{"resources":{"requests":{"cpu":"12x"}}}]}})",
        kGpuModels);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "pod n/a: spec.containers[0].resources.requests.cpu: bad quantity \"12x\": "
                 "unknown suffix \"x\"");
  }
  EXPECT_THROW(decode_node_json("{", kGpuModels), InputError);
}

TEST(DecodePending, TheSchedulersVerdictGatesAndNomination) {
  auto pod = [](const std::string& spec, const std::string& status) {
    return decode_pod_json(R"({"metadata":{"name":"a","namespace":"n"},"spec":{"containers":[{}])" +
                               spec + "}" + status + "}",
                           kGpuModels);
  };
  const std::string unschedulable =
      R"(,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]})";
  EXPECT_TRUE(pod("", unschedulable).unschedulable());
  // Created, not looked at yet by the scheduler: no condition.
  const Pod fresh = pod("", R"(,"status":{"phase":"Pending"})");
  EXPECT_EQ(fresh.scheduler_verdict, SchedulerVerdict::NotYet);
  EXPECT_FALSE(fresh.unschedulable());
  // PodScheduled=False for another reason (the API server's SchedulingGated).
  EXPECT_FALSE(
      pod("",
          R"(,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]})")
          .unschedulable());
  // Kueue's gate.
  const Pod gated =
      pod(R"(,"schedulingGates":[{"name":"kueue.x-k8s.io/admission"}])", unschedulable);
  EXPECT_EQ(gated.scheduling_gates, std::vector<std::string>{"kueue.x-k8s.io/admission"});
  EXPECT_FALSE(gated.unschedulable());
  EXPECT_FALSE(pod(R"(,"schedulingGates":[])", unschedulable).scheduling_gated());
  // Nominated after preemption: counts on that node.
  const Pod nominated = pod(
      "",
      R"(,"status":{"phase":"Pending","nominatedNodeName":"n7","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]})");
  EXPECT_EQ(nominated.nominated_node, "n7");
  EXPECT_FALSE(nominated.unschedulable());
  ASSERT_NE(nominated.capacity_node(), nullptr);
  EXPECT_EQ(*nominated.capacity_node(), "n7");
  // A manifest (no status at all): what `fitscale plan` asks about.
  EXPECT_TRUE(pod("", "").unschedulable());
}

TEST(DecodeNode, NotReadySinceTheReadyConditionChanged) {
  const Node dead = decode_node_json(
      R"({"metadata":{"name":"n1","creationTimestamp":"2026-05-01T00:00:00Z"},
          "status":{"conditions":[{"type":"Ready","status":"Unknown","lastTransitionTime":"2026-05-02T10:00:00Z"}]}})",
      kGpuModels);
  EXPECT_EQ(dead.state, NodeState::Registered);
  ASSERT_TRUE(dead.not_ready_since);
  EXPECT_EQ(format_rfc3339(*dead.not_ready_since), "2026-05-02T10:00:00Z");
  const Node ready = decode_node_json(
      R"({"metadata":{"name":"n1"},"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-05-02T10:00:00Z"}]}})",
      kGpuModels);
  EXPECT_EQ(ready.state, NodeState::Ready);
  EXPECT_FALSE(ready.not_ready_since);
}

TEST(DecodeList, InformerPagesReportBadItemsByKey) {
  JsonDecoder d(kGpuModels);
  std::vector<std::pair<std::string, Pod>> pods;
  std::vector<std::pair<std::string, std::string>> bad;
  d.decode_list_items(read_fixture("bad-quantity-pods.json"), "Pod", &pods, nullptr, nullptr, bad);
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].first, "team-a/ok-0");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].first, "team-a/train-0");
  // The decoder is reused across calls (the watch stream's many small objects).
  EXPECT_EQ(d.pod(R"({"metadata":{"name":"w","namespace":"n"}})").name, "w");
  std::vector<std::pair<std::string, Node>> nodes;
  d.decode_list_items(R"({"kind":"NodeList","items":[{"metadata":{"name":"n1"}}]})", "Node",
                      nullptr, &nodes, nullptr, bad);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].first, "n1");
}

}  // namespace
}  // namespace fitscale
