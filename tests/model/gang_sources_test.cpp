// Each framework's pods as its controller labels them (label and annotation sets copied in shape
// from the frameworks' sources and docs; docs/frameworks.md names them), read by gang_of.
#include <gtest/gtest.h>

#include "model/gang_sources/gang_of.h"
#include "model/gang_sources/leaderworkerset.h"

namespace fitscale {
namespace {

TEST(GangSources, APodWithNoFrameworkLabelsIsNoGang) {
  const GangReading r = gang_of({{"app", "web"}}, {});
  EXPECT_FALSE(r.gang.has_value());
  EXPECT_FALSE(r.problem.has_value());
}

TEST(GangSources, FitscaleGangLabelsNeedTheirSize) {
  GangReading r = gang_of({{"fitscale.io/gang", "train"}, {"fitscale.io/gang-size", "4"}}, {});
  ASSERT_TRUE(r.gang);
  EXPECT_EQ(r.gang->name, "train");
  EXPECT_EQ(r.gang->size, 4);
  EXPECT_EQ(r.gang->sized_by, GangSizer::Pod);
  r = gang_of({{"fitscale.io/gang", "train"}}, {});
  ASSERT_TRUE(r.problem);
  EXPECT_EQ(r.problem->field, "metadata.labels.fitscale.io/gang");
}

// Volcano Job pods (volcano.sh/job-name, task-spec) and the annotation naming their PodGroup.
TEST(GangSources, AVolcanoJobPodBelongsToThePodGroupItsAnnotationNames) {
  const GangReading r = gang_of(
      {{"volcano.sh/job-name", "tf-mnist"},
       {"volcano.sh/job-namespace", "ml"},
       {"volcano.sh/queue-name", "default"},
       {"volcano.sh/task-spec", "worker"}},
      {{"scheduling.k8s.io/group-name", "tf-mnist-8b2c9e1f"}, {"volcano.sh/task-spec", "worker"}});
  ASSERT_TRUE(r.gang);
  EXPECT_EQ(r.gang->name, "tf-mnist-8b2c9e1f");
  EXPECT_EQ(r.gang->sized_by, GangSizer::VolcanoPodGroup);
  EXPECT_TRUE(r.gang->size_unknown);  // until the PodGroup is read
  EXPECT_NE(gang_size_missing_reason("ml", *r.gang).find("scheduling.volcano.sh/v1beta1"),
            std::string::npos);
}

// Kubeflow training-operator pods with --gang-scheduler-name=volcano: PodGroup named after the job.
TEST(GangSources, APyTorchJobPodUnderVolcanoIsAGangOfItsJobsPodGroup) {
  const GangReading r = gang_of({{"training.kubeflow.org/job-name", "bert"},
                                 {"training.kubeflow.org/operator-name", "pytorchjob-controller"},
                                 {"training.kubeflow.org/replica-type", "worker"},
                                 {"training.kubeflow.org/replica-index", "2"}},
                                {{"scheduling.k8s.io/group-name", "bert"}});
  ASSERT_TRUE(r.gang);
  EXPECT_EQ(r.gang->name, "bert");
  EXPECT_EQ(r.gang->sized_by, GangSizer::VolcanoPodGroup);
}

// ... and with --gang-scheduler-name=scheduler-plugins: the coscheduling label.
TEST(GangSources, APyTorchJobPodUnderCoschedulingIsAGangOfItsJobsPodGroup) {
  const GangReading r = gang_of({{"training.kubeflow.org/job-name", "bert"},
                                 {"training.kubeflow.org/replica-type", "master"},
                                 {"training.kubeflow.org/job-role", "master"},
                                 {"scheduling.x-k8s.io/pod-group", "bert"}},
                                {});
  ASSERT_TRUE(r.gang);
  EXPECT_EQ(r.gang->sized_by, GangSizer::CoschedulingPodGroup);
  EXPECT_TRUE(r.gang->size_unknown);
}

// Without gang scheduling the operator names no PodGroup and kube-scheduler binds the pods one
// by one: not a gang (docs/frameworks.md).
TEST(GangSources, AKubeflowPodWithoutGangSchedulingIsNoGang) {
  EXPECT_FALSE(gang_of({{"training.kubeflow.org/job-name", "bert"},
                        {"training.kubeflow.org/replica-type", "worker"},
                        {"training.kubeflow.org/replica-index", "0"}},
                       {})
                   .gang);
}

// KubeRay: a RayCluster is a gang only with a batch scheduler's PodGroup.
TEST(GangSources, ARayPodIsAGangOnlyThroughItsPodGroup) {
  const Labels ray = {{"ray.io/cluster", "raycluster-kuberay"},
                      {"ray.io/node-type", "worker"},
                      {"ray.io/group", "workergroup"}};
  EXPECT_FALSE(gang_of(ray, {}).gang);
  const GangReading volcano =
      gang_of(ray, {{"scheduling.k8s.io/group-name", "ray-raycluster-kuberay-pg"},
                    {"volcano.sh/task-spec", "workergroup"}});
  ASSERT_TRUE(volcano.gang);
  EXPECT_EQ(volcano.gang->name, "ray-raycluster-kuberay-pg");
  Labels with_group = ray;
  with_group["scheduling.x-k8s.io/pod-group"] = "raycluster-kuberay";
  ASSERT_TRUE(gang_of(with_group, {}).gang);
  EXPECT_EQ(gang_of(with_group, {}).gang->name, "raycluster-kuberay");
}

// LeaderWorkerSet: leader (worker-index 0) and workers of group 1 of "vllm", size 4.
TEST(GangSources, ALeaderWorkerSetGroupIsOneGangSizedByItsSizeAnnotation) {
  const Labels leader = {{"leaderworkerset.sigs.k8s.io/name", "vllm"},
                         {"leaderworkerset.sigs.k8s.io/group-index", "1"},
                         {"leaderworkerset.sigs.k8s.io/worker-index", "0"},
                         {"leaderworkerset.sigs.k8s.io/group-key", "0f3c1a"}};
  const Labels worker = {{"leaderworkerset.sigs.k8s.io/name", "vllm"},
                         {"leaderworkerset.sigs.k8s.io/group-index", "1"},
                         {"leaderworkerset.sigs.k8s.io/worker-index", "3"},
                         {"leaderworkerset.sigs.k8s.io/group-key", "0f3c1a"}};
  const GangReading l = gang_of(leader, {{"leaderworkerset.sigs.k8s.io/size", "4"}});
  const GangReading w = gang_of(worker, {{"leaderworkerset.sigs.k8s.io/size", "4"},
                                         {"leaderworkerset.sigs.k8s.io/leader-name", "vllm-1"}});
  ASSERT_TRUE(l.gang);
  ASSERT_TRUE(w.gang);
  EXPECT_EQ(l.gang->name, "vllm-1");
  EXPECT_EQ(w.gang->name, "vllm-1");
  EXPECT_EQ(w.gang->size, 4);
  EXPECT_EQ(w.gang->partial_after, kLeaderWorkerSetPartialAfter);
  const GangReading bad = gang_of(worker, {{"leaderworkerset.sigs.k8s.io/size", "four"}});
  ASSERT_TRUE(bad.problem);
  EXPECT_EQ(bad.problem->field, "metadata.annotations.leaderworkerset.sigs.k8s.io/size");
}

// JobSet pods: the labels its controller writes; the size is the JobSet's.
TEST(GangSources, AJobSetPodWaitsForItsJobSetUnlessItsTemplateSaysTheSize) {
  const Labels pod = {{"jobset.sigs.k8s.io/jobset-name", "pretrain"},
                      {"jobset.sigs.k8s.io/replicatedjob-name", "workers"},
                      {"jobset.sigs.k8s.io/replicatedjob-replicas", "2"},
                      {"jobset.sigs.k8s.io/job-index", "1"},
                      {"jobset.sigs.k8s.io/job-global-index", "1"},
                      {"jobset.sigs.k8s.io/job-key", "5f1e0c"},
                      {"batch.kubernetes.io/job-completion-index", "0"}};
  GangReading r = gang_of(pod, {{"jobset.sigs.k8s.io/jobset-name", "pretrain"}});
  ASSERT_TRUE(r.gang);
  EXPECT_EQ(r.gang->name, "pretrain");
  EXPECT_EQ(r.gang->sized_by, GangSizer::JobSet);
  EXPECT_TRUE(r.gang->size_unknown);
  EXPECT_NE(gang_size_missing_reason("ml", *r.gang).find("JobSet ml/pretrain"), std::string::npos);
  r = gang_of(pod, {{"fitscale.io/gang-size", "8"}});
  ASSERT_TRUE(r.gang);
  EXPECT_EQ(r.gang->size, 8);
  EXPECT_EQ(r.gang->sized_by, GangSizer::Pod);
  EXPECT_FALSE(r.gang->size_unknown);
}

}  // namespace
}  // namespace fitscale
