#!/usr/bin/env python3
"""Gangs from the frameworks (issue 16 item 3, docs/frameworks.md) against `fitscale cluster` +
`fitscale run`, with kubectl creating the pods the way each framework's controller does:

- a LeaderWorkerSet group (leader + 3 workers, labels and the size annotation LWS writes): its
  nodes are launched together, in one zone, for the group (their fitscale.io/job is the group);
  a second group with one worker missing gets nothing and an Event GangIncomplete;
- a JobSet (its CRD installed, the JobSet object as its users write it, and its pods labelled as
  the JobSet controller labels them): sized by the object (2 jobs x 2 pods), launched together."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, namespace, wait_for  # noqa: E402

NS = "serving"


def gpu_pod(name, labels, annotations):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "labels": labels,
                         "annotations": {"fitscale.io/sim-duration": "600s", **annotations}},
            "spec": {"containers": [{"name": "c", "image": "vllm",
                                     "resources": {"requests": {"cpu": "3", "memory": "12Gi", "nvidia.com/gpu": "1"},
                                                   "limits": {"nvidia.com/gpu": "1"}}}]}}


def lws_pod(lws, group, worker, size=4):
    """As the LWS controller writes them: leader NAME-G, workers NAME-G-W."""
    name = f"{lws}-{group}" if worker == 0 else f"{lws}-{group}-{worker}"
    labels = {"leaderworkerset.sigs.k8s.io/name": lws,
              "leaderworkerset.sigs.k8s.io/group-index": str(group),
              "leaderworkerset.sigs.k8s.io/worker-index": str(worker),
              "leaderworkerset.sigs.k8s.io/group-key": f"key{group}"}
    annotations = {"leaderworkerset.sigs.k8s.io/size": str(size)}
    if worker:
        annotations["leaderworkerset.sigs.k8s.io/leader-name"] = f"{lws}-{group}"
    return gpu_pod(name, labels, annotations)


JOBSET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "jobsets.jobset.x-k8s.io"},
    "spec": {"group": "jobset.x-k8s.io", "scope": "Namespaced",
             "names": {"plural": "jobsets", "singular": "jobset", "kind": "JobSet", "listKind": "JobSetList"},
             "versions": [{"name": "v1alpha2", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]}}


def jobset(name):
    job = {"parallelism": 2, "completions": 2,
           "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "trainer"}]}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"replicatedJobs": [{"name": "workers", "replicas": 2, "template": {"spec": job}}]}}


def jobset_pod(js, job, index):
    labels = {"jobset.sigs.k8s.io/jobset-name": js,
              "jobset.sigs.k8s.io/replicatedjob-name": "workers",
              "jobset.sigs.k8s.io/replicatedjob-replicas": "2",
              "jobset.sigs.k8s.io/job-index": str(job),
              "jobset.sigs.k8s.io/job-global-index": str(job),
              "batch.kubernetes.io/job-completion-index": str(index)}
    return gpu_pod(f"{js}-workers-{job}-{index}", labels, {"jobset.sigs.k8s.io/jobset-name": js})


class FrameworkGangs(unittest.TestCase):
    def nodes_for(self, w, job):
        return [n for n in w.nodes() if n["metadata"].get("annotations", {}).get("fitscale.io/job") == job]

    def wait_running(self, w, names):
        def running():
            pods = {p["metadata"]["name"]: p for p in w.pods(NS)}
            ok = all(pods.get(n, {}).get("status", {}).get("phase") == "Running" for n in names)
            return pods if ok else None
        return wait_for(f"{names} to run", running, timeout=120)

    def test_framework_gangs(self):
        with tempfile.TemporaryDirectory() as tmp, World(tmp) as w:
            # The JobSet CRD before fitscale starts: it asks at start which gang objects are served.
            w.apply(JOBSET_CRD)
            wait_for("the JobSet CRD to be served",
                     lambda: w.kubectl("get", "jobsets", "-A", check=False).returncode == 0, timeout=30)
            w.apply(namespace(NS))
            w.start_synced("a", leads=True)

            # LWS: group 1 without its last worker waits (for at most the 120 s LWS' LeaderReady
            # policy needs: checked well before), group 0 whole is launched together.
            for worker in range(3):
                w.apply(lws_pod("vllm", 1, worker))

            # (A loop may see the group while its pods are still being created: "2 of 4" first.)
            def incomplete():
                return [e for e in w.events(NS) if e["reason"] == "GangIncomplete"
                        and e["involvedObject"]["name"] == "vllm-1"
                        and "gang vllm-1 has 3 of 4 pods" in e["message"]]
            wait_for("GangIncomplete (3 of 4) on the incomplete group", incomplete, timeout=60)
            self.assertEqual(self.nodes_for(w, "vllm-1"), [])

            for worker in range(4):
                w.apply(lws_pod("vllm", 0, worker))
            members = ["vllm-0", "vllm-0-1", "vllm-0-2", "vllm-0-3"]
            pods = self.wait_running(w, members)
            group = self.nodes_for(w, "vllm-0")
            self.assertTrue(group, "nodes launched for the group carry its name as fitscale.io/job")
            self.assertEqual({pods[n]["spec"]["nodeName"] for n in members}
                             - {n["metadata"]["name"] for n in group}, set())
            zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in group}
            self.assertEqual(len(zones), 1, "one gang, one zone")
            created = {n["metadata"]["creationTimestamp"] for n in group}
            self.assertLessEqual(len(created), 2, f"launched together: {created}")

            # JobSet: the object sizes the gang (2 replicas x parallelism 2 = 4).
            w.apply(jobset("pretrain"))
            members = [f"pretrain-workers-{j}-{i}" for j in range(2) for i in range(2)]
            for j in range(2):
                for i in range(2):
                    w.apply(jobset_pod("pretrain", j, i))
            self.wait_running(w, members)
            js_nodes = self.nodes_for(w, "pretrain")
            self.assertTrue(js_nodes)
            self.assertEqual(len({n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in js_nodes}), 1)


if __name__ == "__main__":
    unittest.main()
