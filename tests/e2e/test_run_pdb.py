#!/usr/bin/env python3
"""End to end, `fitscale run --provider sim` against `fitscale cluster` with kubectl: a
PodDisruptionBudget blocks an eviction. A node whose batch work is done still runs a ReplicaSet's
pod protected by a PDB (minAvailable 1): fitscale cordons the node and does not delete it while
the PDB blocks (the eviction gets 429); once the PDB is gone the node is drained and removed."""
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_run_kubectl import World, gpu_job, namespace, pods_of, wait_for  # noqa: E402

LEASE_S = 3


def holder(w):
    r = w.kubectl("get", "lease", "fitscale", "-n", "kube-system", "-o",
                  "jsonpath={.spec.holderIdentity}", check=False)
    return r.stdout.strip() if r.returncode == 0 else ""


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
             lambda: [p for p in pods_of(w, "svc") if p["metadata"]["name"].startswith("warmup")
                      and p["status"].get("phase") == "Succeeded"])
    # Empty of batch work: fitscale cordons it and tries to evict web-0; the PDB says 429.
    wait_for("the node to be cordoned",
             lambda: any(n["metadata"]["name"] == name and n["spec"].get("unschedulable") for n in w.nodes()))
    time.sleep(5)  # several more loops
    assert any(n["metadata"]["name"] == name for n in w.nodes()), "node deleted past a PodDisruptionBudget"
    web = [p for p in pods_of(w, "svc") if p["metadata"]["name"] == "web-0"]
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
    tmp = tempfile.mkdtemp(prefix="fitscale-run-pdb-")
    w = World(tmp)
    ok = False
    try:
        w.start_run("a", "--lease-duration", str(LEASE_S))
        wait_for("replica a to lead", lambda: holder(w) == "a", timeout=30)
        wait_for("replica a to sync", lambda: "informers synced" in w.run_log("a"), timeout=30)
        check_pdb_blocks_eviction(w)
        ok = True
    finally:
        w.stop()
        if not ok:
            for name in w.runs:
                print(f"--- run {name} log (tail) ---\n" + w.run_log(name)[-4000:], file=sys.stderr)
            w.cluster_log.seek(0)
            print("--- cluster log (tail) ---\n" + w.cluster_log.read()[-3000:], file=sys.stderr)
    print("ok")


if __name__ == "__main__":
    main()
