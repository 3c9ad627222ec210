#!/usr/bin/env python3
"""End to end: `fitscale run --provider sim` against `fitscale cluster`, with kubectl as the user.
A GPU Job gets a node with the right labels, runs and succeeds, and the empty node is removed
with events saying why; a gang of 2 x 8 GPUs gets two nodes in one zone; a pod over its budget
gets a refusal event and no node. Starts every process itself on free loopback ports, stops them."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, gpu_job, namespace, scratch_dir, wait_for  # noqa: E402


def check_scale_up_and_down(w):
    w.apply(namespace("research"))
    w.apply(gpu_job("train", "research", gpus=1, duration="3s"))
    node = wait_for("a GPU node", lambda: next(iter(w.nodes()), None))
    labels = node["metadata"]["labels"]
    for key in ["node.kubernetes.io/instance-type", "topology.kubernetes.io/zone",
                "topology.kubernetes.io/region", "kubernetes.io/arch", "fitscale.io/capacity-type",
                "fitscale.io/pool", "fitscale.io/gpu-model"]:
        assert key in labels, f"node lacks label {key}: {labels}"
    assert labels["fitscale.io/capacity-type"] == "spot", labels  # spot by default
    gpus = int(node["status"]["allocatable"].get("nvidia.com/gpu", "0"))
    assert gpus >= 1, node["status"]
    wait_for("the job's pod to succeed",
             lambda: [p for p in w.pods("research") if p["status"].get("phase") == "Succeeded"])
    # Empty after its batch work: removed after scaleDown.emptyAfter (3 s).
    wait_for("the empty node to be removed", lambda: not w.nodes(), timeout=60)
    reasons = {e["reason"] for e in w.events("research")}
    assert "TriggeredScaleUp" in reasons, reasons
    node_reasons = {e["reason"]: e["message"] for e in w.events("default")
                    if e["involvedObject"]["kind"] == "Node"}
    assert "RemovingNode" in node_reasons, node_reasons
    assert "empty" in node_reasons["RemovingNode"], node_reasons
    print("scale up and down: ok;", node["metadata"]["labels"]["node.kubernetes.io/instance-type"])


def check_gang(w):
    w.apply(namespace("gang"))
    w.apply(gpu_job("big", "gang", gpus=8, completions=2, duration="3s",
                    labels={"fitscale.io/gang": "big", "fitscale.io/gang-size": "2"}))
    nodes = wait_for("two gang nodes", lambda: (lambda n: n if len(n) >= 2 else None)(w.nodes()))
    zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes}
    assert len(nodes) == 2, [n["metadata"]["name"] for n in nodes]
    assert len(zones) == 1, f"gang nodes in several zones: {zones}"
    for n in nodes:
        assert int(n["status"]["allocatable"]["nvidia.com/gpu"]) >= 8, n["status"]["allocatable"]
    wait_for("both gang pods to succeed",
             lambda: len([p for p in w.pods("gang") if p["status"].get("phase") == "Succeeded"]) == 2)
    wait_for("the gang's nodes to be removed", lambda: not w.nodes(), timeout=60)
    print("gang: ok; zone", zones.pop())


def check_budget_refusal(w):
    w.apply(namespace("broke"))
    w.apply(gpu_job("expensive", "broke", gpus=8))
    refusal = wait_for("a refusal event", lambda: [e for e in w.events("broke")
                                                    if e["reason"] == "BudgetRefused" or
                                                    (e["type"] == "Warning" and "budget" in e["message"].lower())])
    time.sleep(3)  # a few more loops: still no node for it
    assert not w.nodes(), [n["metadata"]["name"] for n in w.nodes()]
    assert all(p["status"].get("phase") == "Pending" for p in w.pods("broke"))
    print("budget refusal: ok;", refusal[0]["message"])


def main():
    with scratch_dir("fitscale-run-") as tmp, World(tmp) as w:
        w.start_synced("replica-a")
        check_scale_up_and_down(w)
        check_gang(w)
        check_budget_refusal(w)
        # Every action was logged with its reason.
        log = w.run_log("replica-a")
        assert "launch" in log.lower() and "remov" in log.lower(), log[-3000:]
    # Stopped by SIGTERM: a clean exit.
    for name, (proc, _) in w.runs.items():
        assert proc.returncode == 0, f"fitscale run {name} exited {proc.returncode}"
    print("ok")

if __name__ == "__main__":
    main()
