// Decoding throughput of a large `kubectl get nodes,pods -A -o json` List (issue 5: a
// 100,000-pod list must decode at over 200 MB/s). The pods look like a real cluster's: Job
// pods with managedFields, tolerations, affinity, init containers, a service-account volume.
#include <benchmark/benchmark.h>

#include <string>

#include "kube/decode.h"

namespace {

std::string pod_item(int i) {
  const std::string n = std::to_string(i);
  const std::string ns = "team-" + std::string(1, static_cast<char>('a' + i % 8));
  const std::string cpu = std::to_string(250 * (1 + i % 8)) + "m";
  const std::string mem = std::to_string(512 * (1 + i % 16)) + "Mi";
  const std::string gpu = i % 10 == 0 ? R"(,"nvidia.com/gpu":"1")" : "";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{"fitscale.io/max-runtime":"36h"},)"
         R"("creationTimestamp":"2026-11-29T21:40:02Z","generateName":"job-)" +
         n +
         R"(-",)"
         R"("labels":{"batch.kubernetes.io/controller-uid":"8c1d2e3f-4a5b-6c7d-8e9f-)" +
         n +
         R"(",)"
         R"("batch.kubernetes.io/job-name":"job-)" +
         n + R"(","controller-uid":"8c1d2e3f-4a5b-6c7d-8e9f-)" + n +
         R"(",)"
         R"("job-name":"job-)" +
         n +
         R"("},)"
         R"("managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},)"
         R"("f:labels":{".":{},"f:batch.kubernetes.io/controller-uid":{},"f:batch.kubernetes.io/job-name":{},)"
         R"("f:controller-uid":{},"f:job-name":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"8c1d\"}":{}}},)"
         R"("f:spec":{"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{".":{},)"
         R"("f:requests":{".":{},"f:cpu":{},"f:memory":{}}}}}}},"manager":"kube-controller-manager",)"
         R"("operation":"Update","time":"2026-11-29T21:40:02Z"}],)"
         R"("name":"job-)" +
         n + R"(-x7k2p","namespace":")" + ns +
         R"(",)"
         R"("ownerReferences":[{"apiVersion":"batch/v1","blockOwnerDeletion":true,"controller":true,"kind":"Job",)"
         R"("name":"job-)" +
         n + R"(","uid":"8c1d2e3f-4a5b-6c7d-8e9f-)" + n +
         R"("}],)"
         R"("resourceVersion":"9182)" +
         n + R"(","uid":"a1b2c3d4-e5f6-4a7b-8c9d-)" + n +
         R"("},)"
         R"("spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":)"
         R"([{"matchExpressions":[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot","on-demand"]}]}]}}},)"
         R"("containers":[{"command":["python","train.py","--epochs","10"],"image":"ghcr.io/team/trainer:2.3",)"
         R"("imagePullPolicy":"IfNotPresent","name":"main","resources":{"requests":{"cpu":")" +
         cpu + R"(","memory":")" + mem + R"(")" + gpu +
         R"(}},)"
         R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)"
         R"("volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-9x8zq","readOnly":true}]}],)"
         R"("dnsPolicy":"ClusterFirst","enableServiceLinks":true,)"
         R"("initContainers":[{"image":"ghcr.io/team/fetch:1.0","name":"fetch","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}],)"
         R"("preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Never","schedulerName":"default-scheduler",)"
         R"("securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":30,)"
         R"("tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},)"
         R"({"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],)"
         R"("volumes":[{"name":"kube-api-access-9x8zq","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":)"
         R"({"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}}]}}]},)"
         R"("status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-11-29T21:40:02Z",)"
         R"("message":"0/40 nodes are available: 40 Insufficient cpu.","reason":"Unschedulable","status":"False","type":"PodScheduled"}],)"
         R"("phase":"Pending","qosClass":"Burstable"}})";
}

std::string node_item(int i) {
  const std::string n = std::to_string(i);
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"creationTimestamp":"2026-11-29T08:00:00Z","labels":{)"
         R"("kubernetes.io/arch":"amd64","kubernetes.io/hostname":"ip-10-0-)" +
         n +
         R"(.ec2.internal","kubernetes.io/os":"linux",)"
         R"("node.kubernetes.io/instance-type":"m5.4xlarge","topology.kubernetes.io/region":"us-east-1",)"
         R"("topology.kubernetes.io/zone":"us-east-1a","fitscale.io/capacity-type":"spot"},)"
         R"("name":"ip-10-0-)" +
         n + R"(.ec2.internal","uid":"5e3c1c0e-6b1a-4d0e-9a55-)" + n +
         R"("},)"
         R"("spec":{"providerID":"aws:///us-east-1a/i-0a1b2c3d4e)" +
         n +
         R"("},)"
         R"("status":{"allocatable":{"cpu":"15890m","ephemeral-storage":"76224326324","memory":"62193Mi","pods":"110"},)"
         R"("conditions":[{"status":"True","type":"Ready","reason":"KubeletReady"}]}})";
}

std::string big_list(int pods, int nodes) {
  std::string s = R"({"apiVersion":"v1","items":[)";
  s.reserve(static_cast<std::size_t>(pods) * 3600);
  for (int i = 0; i < nodes; ++i) {
    if (i) s += ',';
    s += node_item(i);
  }
  for (int i = 0; i < pods; ++i) {
    if (nodes || i) s += ',';
    s += pod_item(i);
  }
  s += R"(],"kind":"List","metadata":{"resourceVersion":""}})";
  return s;
}

const std::vector<std::string> kGpuModels = {"A100", "A10G", "H100", "L4", "T4", "V100"};

void BM_DecodeKubectlList(benchmark::State& state) {
  const std::string text = big_list(static_cast<int>(state.range(0)), 1000);
  std::size_t pods = 0;
  for (auto _ : state) {
    fitscale::DecodedObjects d = fitscale::decode_objects(text, "bench.json", kGpuModels);
    pods = d.pods.size();
    benchmark::DoNotOptimize(d);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
  state.counters["pods"] = static_cast<double>(pods);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_DecodeKubectlList)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(3);

// An informer's relist: the same decoder (and its buffers) decodes the list again.
void BM_DecodeKubectlListReusedDecoder(benchmark::State& state) {
  const std::string text = big_list(static_cast<int>(state.range(0)), 1000);
  fitscale::JsonDecoder decoder(kGpuModels);
  std::size_t pods = 0;
  for (auto _ : state) {
    fitscale::DecodedObjects d = decoder.decode(text, "bench.json");
    pods = d.pods.size();
    benchmark::DoNotOptimize(d);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
  state.counters["pods"] = static_cast<double>(pods);
}
BENCHMARK(BM_DecodeKubectlListReusedDecoder)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(4);

// The watch stream: one small object at a time through a reused decoder.
void BM_DecodeWatchPod(benchmark::State& state) {
  const std::string pod = pod_item(7);
  fitscale::JsonDecoder decoder(kGpuModels);
  for (auto _ : state) benchmark::DoNotOptimize(decoder.pod(pod));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(pod.size()));
}
BENCHMARK(BM_DecodeWatchPod);

}  // namespace

BENCHMARK_MAIN();
