#!/usr/bin/env python3
"""Kueue's provisioning admission check against `fitscale cluster` + `fitscale run` (issue 16),
with kubectl doing what Kueue does: a PodTemplate and a ProvisioningRequest per workload, the
workload's pods created (annotated with the request) once the request is Provisioned.

- best-effort-atomic-scale-up, 4 pods x 1 GPU: the nodes are launched together (one zone),
  Provisioned=True once they are up; the consuming pods run there and nothing more is launched;
- check-capacity that does not fit: Provisioned=False, CapacityIsNotFound, nothing launched;
- a request over its namespace's budget: Failed=True, the dollars in the message, nothing launched;
- an atomic request no offering can serve: nothing launched, Provisioned=False with the reason,
  Failed=True (Expired) after its ValidUntilSeconds."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, World, namespace, wait_for  # noqa: E402

CRD = os.path.join(SOURCE_DIR, "deploy/crds/provisioningrequests.autoscaling.x-k8s.io.yaml")
ATOMIC = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
CHECK = "check-capacity.autoscaling.x-k8s.io"
GPU_SPEC = {"restartPolicy": "Never",
            "containers": [{"name": "train", "image": "trainer",
                            "resources": {"requests": {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                                          "limits": {"nvidia.com/gpu": "1"}}}]}


def pod_template(name, ns, gpus=1):
    # As Kueue writes it: ppt-<workload>-<check>-<attempt>-<podset>, the pod set's template.
    spec = json.loads(json.dumps(GPU_SPEC))
    for k in ("requests", "limits"):
        spec["containers"][0]["resources"][k]["nvidia.com/gpu"] = str(gpus)
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name, "namespace": ns},
            "template": {"metadata": {"labels": {"kueue.x-k8s.io/queue-name": "gpu"}}, "spec": spec}}


def provisioning_request(name, ns, cls, template, count, version="v1", parameters=None):
    spec = {"provisioningClassName": cls, "podSets": [{"podTemplateRef": {"name": template}, "count": count}]}
    if parameters:
        spec["parameters"] = parameters
    return {"apiVersion": f"autoscaling.x-k8s.io/{version}", "kind": "ProvisioningRequest",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def consuming_pod(name, ns, request):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns,
                         "annotations": {"autoscaling.x-k8s.io/consume-provisioning-request": request,
                                         "autoscaling.x-k8s.io/provisioning-class-name": ATOMIC}},
            "spec": GPU_SPEC}


class KueueProvisioning(unittest.TestCase):
    def start(self, w):
        """The CRD first: fitscale run asks at start whether ProvisioningRequests are served."""
        self.world = w
        w.kubectl("apply", "-f", CRD)
        wait_for("the ProvisioningRequest CRD to be served",
                 lambda: w.kubectl("get", "provreq", "-A", check=False).returncode == 0, timeout=30)
        for ns in ("team-a", "broke"):
            w.apply(namespace(ns))
        w.start_synced("a", leads=True)

    def conditions(self, name, ns):
        obj = self.world.kjson("get", "provisioningrequest", name, "-n", ns)
        return {c["type"]: c for c in obj.get("status", {}).get("conditions", [])}

    def wait_condition(self, name, ns, ctype, status, timeout=60):
        def seen():
            c = self.conditions(name, ns).get(ctype)
            return c if c and c["status"] == status else None
        return wait_for(f"{ns}/{name} {ctype}={status}", seen, timeout=timeout)

    def gpu_nodes(self):
        return {n["metadata"]["name"]: n for n in self.world.nodes()
                if int(n["status"].get("allocatable", {}).get("nvidia.com/gpu", "0")) > 0}

    def test_kueue_flow(self):
        with tempfile.TemporaryDirectory() as tmp, World(tmp) as w:
            self.start(w)
            self.flow(w)

    def flow(self, w):
        # 1. Atomic: 4 pods x 1 GPU, all nodes at once.
        w.apply(pod_template("ppt-train-prov-1-main", "team-a"))
        w.apply(provisioning_request("train-prov-1", "team-a", ATOMIC, "ppt-train-prov-1-main", 4))
        provisioned = self.wait_condition("train-prov-1", "team-a", "Provisioned", "True", timeout=90)
        self.assertEqual(provisioned["reason"], "CapacityIsProvisioned")
        self.assertEqual(provisioned["message"], "Capacity is found in the cluster")
        accepted = self.conditions("train-prov-1", "team-a")["Accepted"]
        self.assertEqual((accepted["status"], accepted["reason"]), ("True", "Accepted"))
        nodes = self.gpu_nodes()
        gpus = sum(int(n["status"]["allocatable"]["nvidia.com/gpu"]) for n in nodes.values())
        self.assertGreaterEqual(gpus, 4)
        zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes.values()}
        self.assertEqual(len(zones), 1, "one gang, one zone")
        # Kueue then creates the workload's pods, annotated with the request.
        for i in range(4):
            w.apply(consuming_pod(f"train-{i}", "team-a", "train-prov-1"))

        def running():
            pods = [p for p in w.pods("team-a") if p["metadata"]["name"].startswith("train-")]
            ok = len(pods) == 4 and all(p["status"].get("phase") == "Running" for p in pods)
            return pods if ok else None
        pods = wait_for("the consuming pods to run", running, timeout=60)
        self.assertTrue({p["spec"]["nodeName"] for p in pods} <= set(nodes))
        # No further launch for them, and no scale-up Event on them.
        self.assertEqual(set(self.gpu_nodes()), set(nodes))
        reasons = {e["reason"] for e in w.events("team-a")
                   if e["involvedObject"]["name"].startswith("train-")}
        self.assertNotIn("TriggeredScaleUp", reasons)

        # 2. check-capacity that does not fit on what exists (the GPUs are taken): not
        # Provisioned, and check-capacity never launches. Written as v1beta1, as older Kueue does.
        w.apply(pod_template("ppt-eval-prov-1-main", "team-a"))
        w.apply(provisioning_request("eval-prov-1", "team-a", CHECK, "ppt-eval-prov-1-main", 2,
                                     version="v1beta1"))
        not_found = self.wait_condition("eval-prov-1", "team-a", "Provisioned", "False")
        self.assertEqual(not_found["reason"], "CapacityIsNotFound")
        self.assertEqual(not_found["message"], "Capacity is not found, CA will try to find it later.")

        # 3. Over the namespace's budget ($0.05/h in "broke"): Failed with the dollars.
        w.apply(pod_template("ppt-big-prov-1-main", "broke"))
        w.apply(provisioning_request("big-prov-1", "broke", ATOMIC, "ppt-big-prov-1-main", 1))
        failed = self.wait_condition("big-prov-1", "broke", "Failed", "True")
        self.assertEqual(failed["reason"], "BudgetRefused")
        self.assertIn("$", failed["message"])
        self.assertIn("usdPerHour is $0.05/h", failed["message"])
        self.assertNotIn("Provisioned", {t for t, c in self.conditions("big-prov-1", "broke").items()
                                         if c["status"] == "True"})

        # 4. Atomic that no offering can serve (64 GPUs in one pod): nothing launched, not
        # Provisioned with the planner's reason, then Failed once ValidUntilSeconds has passed.
        w.apply(pod_template("ppt-huge-prov-1-main", "team-a", gpus=64))
        w.apply(provisioning_request("huge-prov-1", "team-a", ATOMIC, "ppt-huge-prov-1-main", 2,
                                     parameters={"ValidUntilSeconds": "6"}))
        waiting = self.wait_condition("huge-prov-1", "team-a", "Provisioned", "False")
        self.assertEqual(waiting["reason"], "CapacityIsNotFound")
        self.assertIn("needs 64 GPUs", waiting["message"])
        expired = self.wait_condition("huge-prov-1", "team-a", "Failed", "True")
        self.assertEqual((expired["reason"], expired["message"]), ("Expired", "ProvisioningRequest is expired"))
        self.assertEqual(set(self.gpu_nodes()), set(nodes), "nothing launched for 2., 3. and 4.")


if __name__ == "__main__":
    unittest.main()
