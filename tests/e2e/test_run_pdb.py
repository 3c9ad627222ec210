#!/usr/bin/env python3
"""End to end, `fitscale run --provider sim` against `fitscale cluster` with kubectl: a
PodDisruptionBudget blocks an eviction. A node whose batch work is done still runs a ReplicaSet's
pod protected by a PDB (minAvailable 1), and another node has room for that pod: fitscale
cordons the node, the eviction gets 429, and fitscale does not delete the node but uncordons it
again (a budget that never allows a disruption must not leave it cordoned for good) and says so;
once the PDB is gone the node is drained and removed."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, gpu_job, namespace, scratch_dir, wait_for  # noqa: E402

LEASE_S = 3


def check_pdb_blocks_eviction(w):
    w.apply(namespace("svc"))
    w.apply(gpu_job("warmup", "svc", gpus=1, duration="4s"))
    node = wait_for("a node", lambda: next(iter(w.nodes()), None))
    name = node["metadata"]["name"]
    # Room for the service pod elsewhere (a node the user added), or fitscale keeps its node.
    w.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "spare"},
             "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"}}})
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
    # Empty of batch work: fitscale cordons it and tries to evict web-0; the PDB says 429. The
    # drain cannot proceed, so the node is given back to the scheduler in the same loop (too
    # quick to see cordoned from outside), and the log says so.
    wait_for("the blocked drain to be reported", lambda: "node uncordoned" in w.run_log("a"))
    wait_for("the node to be schedulable",
             lambda: any(n["metadata"]["name"] == name and not n["spec"].get("unschedulable") for n in w.nodes()))
    assert any(n["metadata"]["name"] == name for n in w.nodes()), "node deleted past a PodDisruptionBudget"
    web = [p for p in w.pods("svc") if p["metadata"]["name"] == "web-0"]
    assert web and web[0]["status"].get("phase") == "Running", web
    assert "eviction refused (disruption budget)" in w.run_log("a"), w.run_log("a")[-2000:]
    # The budget goes away: the eviction goes through and the node is removed.
    w.kubectl("delete", "pdb", "web", "-n", "svc")
    # The controller tries a blocked drain again once the node was idle for emptyAfter again.
    wait_for("the node to be removed after the PDB is gone",
             lambda: [n["metadata"]["name"] for n in w.nodes()] == ["spare"], timeout=60)
    w.kubectl("delete", "node", "spare")
    print("pdb: ok; node", name, "cordoned, uncordoned while the PDB blocked, removed after")


def main():
    with scratch_dir("fitscale-run-pdb-") as tmp, World(tmp) as w:
        w.start_synced("a", "--lease-duration", str(LEASE_S), leads=True)
        check_pdb_blocks_eviction(w)
    print("ok")


if __name__ == "__main__":
    main()
