#!/usr/bin/env python3
"""End to end, `fitscale run --provider sim` against `fitscale cluster` with kubectl: a
PodDisruptionBudget blocks an eviction. A node whose batch work is done still runs a ReplicaSet's
pod protected by a PDB (minAvailable 1): fitscale cordons the node and does not delete it while
the PDB blocks (the eviction gets 429); once the PDB is gone the node is drained and removed."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, gpu_job, namespace, scratch_dir, wait_for  # noqa: E402

LEASE_S = 3


def check_pdb_blocks_eviction(w):
    w.apply(namespace("svc"))
    w.apply(gpu_job("warmup", "svc", gpus=1, duration="4s"))
    node = wait_for("a node", lambda: next(iter(w.nodes()), None))
    name = node["metadata"]["name"]
    # A long-running service pod (owned by a ReplicaSet: evictable) bound to the same node.
    w.apply({"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "web-0", "namespace": "svc", "labels": {"app": "web"},
                          "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                               "name": "web-abc", "uid": "rs-uid-1", "controller": True}]},
             "spec": {"nodeName": name,
                      "containers": [{"name": "web", "image": "nginx",
                                      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}})
    w.apply({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "web", "namespace": "svc"},
             "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
    wait_for("the job to succeed",
             lambda: [p for p in w.pods("svc") if p["metadata"]["name"].startswith("warmup")
                      and p["status"].get("phase") == "Succeeded"])
    # Empty of batch work: fitscale cordons it and tries to evict web-0; the PDB says 429.
    wait_for("the node to be cordoned",
             lambda: any(n["metadata"]["name"] == name and n["spec"].get("unschedulable") for n in w.nodes()))
    time.sleep(5)  # several more loops
    assert any(n["metadata"]["name"] == name for n in w.nodes()), "node deleted past a PodDisruptionBudget"
    web = [p for p in w.pods("svc") if p["metadata"]["name"] == "web-0"]
    assert web and web[0]["status"].get("phase") == "Running", web
    blocked_logged = "blocked" in w.run_log("a").lower() or any(
        "budget" in e["message"].lower() or "disruption" in e["message"].lower() for e in w.events("svc"))
    assert blocked_logged, w.run_log("a")[-2000:]
    # The budget goes away: the eviction goes through and the node is removed.
    w.kubectl("delete", "pdb", "web", "-n", "svc")
    # The controller retries a blocked drain every loop; if this times out, a node in state
    # Deleting is no longer proposed for removal (planner/scale_down.cpp skips Deleting nodes).
    wait_for("the node to be removed after the PDB is gone", lambda: not w.nodes(), timeout=60)
    print("pdb: ok; node", name, "cordoned, kept while the PDB blocked, removed after")


def main():
    with scratch_dir("fitscale-run-pdb-") as tmp, World(tmp) as w:
        w.start_synced("a", "--lease-duration", str(LEASE_S), leads=True)
        check_pdb_blocks_eviction(w)
    print("ok")


if __name__ == "__main__":
    main()
