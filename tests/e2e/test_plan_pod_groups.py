#!/usr/bin/env python3
"""`fitscale plan` on a cluster dump with coscheduling pods (issue 16): a pod labelled
scheduling.x-k8s.io/pod-group without a size no longer rejects the dump; it waits for its PodGroup
with a reason, the rest is planned, and a PodGroup object in the dump sizes its gang."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import run_cli, write_file  # noqa: E402

NOW = "2026-11-29T22:00:00Z"


def pod(name, labels=None, gpus=0):
    requests = {"cpu": "2", "memory": "8Gi"}
    spec = {"containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}]}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "labels": labels or {},
                     "creationTimestamp": "2026-11-29T21:00:00Z"},
        "spec": spec,
        "status": {"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]},
    }


def pod_group(name, min_member):
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ml"}, "spec": {"minMember": min_member}}


class PlanPodGroups(unittest.TestCase):
    def plan(self, items):
        with tempfile.TemporaryDirectory() as tmp:
            dump = write_file(tmp, "cluster.json", json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
            r = run_cli("plan", "--cluster", dump, "--now", NOW, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_a_group_without_size_or_podgroup_waits_and_the_rest_is_planned(self):
        plan = self.plan([pod("orphan-0", {"scheduling.x-k8s.io/pod-group": "orphan"}),
                          pod("orphan-1", {"scheduling.x-k8s.io/pod-group": "orphan"}),
                          pod("web")])
        launched = [p for l in plan["launch"] for p in l["pods"]]
        self.assertEqual(launched, ["ml/web"])
        reasons = {u["pod"]: u["reason"] for u in plan["unschedulable"]}
        self.assertEqual(set(reasons), {"ml/orphan-0", "ml/orphan-1"})
        self.assertIn("no PodGroup ml/orphan (scheduling.x-k8s.io/v1alpha1, spec.minMember)", reasons["ml/orphan-0"])

    def test_the_podgroup_in_the_dump_sizes_the_gang(self):
        members = [pod(f"ar-{i}", {"scheduling.x-k8s.io/pod-group": "allreduce"}, gpus=1) for i in range(4)]
        plan = self.plan(members + [pod_group("allreduce", 4)])
        self.assertEqual(plan["unschedulable"], [])
        by_pod = {p: l for l in plan["launch"] for p in l["pods"]}
        self.assertEqual(set(by_pod), {f"ml/ar-{i}" for i in range(4)})
        zones = {l["zone"] for l in plan["launch"]}
        self.assertEqual(len(zones), 1, plan["launch"])  # a gang is launched in one zone

    def test_a_podgroup_larger_than_its_pods_holds_them_back(self):
        members = [pod(f"ar-{i}", {"scheduling.x-k8s.io/pod-group": "allreduce"}, gpus=1) for i in range(3)]
        plan = self.plan(members + [pod_group("allreduce", 4)])
        self.assertEqual(plan["launch"], [])
        reasons = {u["pod"]: u["reason"] for u in plan["unschedulable"]}
        self.assertEqual(reasons["ml/ar-0"], "gang allreduce has 3 of 4 pods; it starts only when all exist")


if __name__ == "__main__":
    unittest.main()
