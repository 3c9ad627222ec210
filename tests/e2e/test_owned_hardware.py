#!/usr/bin/env python3
"""End to end, owned hardware beside a cloud (docs/clouds.md): `fitscale cluster`, `fitscale run`
with `providers:` (the virtual cluster's cloud and a static provider), kubectl as the user.

- Two Nodes the team owns (created with kubectl, labelled example.com/owned=true) take a job's
  pods first: nothing is launched for them.
- A burst beyond them fills them again and launches cloud nodes for the rest only.
- When idle, the cloud nodes go and the owned nodes stay, never cordoned.
- `fitscale cost` over the run's ledger shows what the owned nodes cost at their amortized price.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (BINARY, Cluster, namespace, run_cli, scratch_dir, spawn, stop,  # noqa: E402
                         tail, wait_for, write_file)

CONFIG = """
scaleDown:
  emptyAfter: 3s
  delayAfterLaunch: 0s
providers:
  - name: sim
    kind: sim
  - name: owned
    kind: static
    nodeSelector: {example.com/owned: "true"}
    usdPerHour: 0.5
"""

OWNED = ["rack-1", "rack-2"]


def owned_node(name):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name,
                         "labels": {"kubernetes.io/hostname": name, "example.com/owned": "true",
                                    "node.kubernetes.io/instance-type": "dell-r750",
                                    "topology.kubernetes.io/zone": "us-east-1a"}},
            "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}


def cpu_job(name, ns, pods, duration):
    """`pods` pods of 3 CPUs: two fit on an owned node (8 CPUs), a third does not."""
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": ns},
            "spec": {"completions": pods, "parallelism": pods,
                     "template": {"metadata": {"annotations": {"fitscale.io/sim-duration": duration}},
                                  "spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox",
                                                           "resources": {"requests": {"cpu": "3",
                                                                                      "memory": "4Gi"}}}]}}}}


def main():
    with scratch_dir("fitscale-owned-") as tmp, Cluster(tmp, "--boot-delay", "1") as c:
        config = write_file(tmp, "config.yaml", CONFIG)
        ledger = os.path.join(tmp, "ledger.db")
        log_path = os.path.join(tmp, "run.log")
        log = open(log_path, "w+")
        run = spawn([BINARY, "run", "--kubeconfig", c.kubeconfig, "--config", config, "--interval", "1",
                     "--id", "a", "--ledger", ledger, "--metrics-address", "off"],
                    stdout=log, stderr=subprocess.STDOUT)

        def run_log():
            log.flush()
            with open(log_path) as f:
                return f.read()

        def nodes():
            return {n["metadata"]["name"]: n for n in c.kjson("get", "nodes")["items"]}

        def pods_on(ns, prefix):
            return {p["metadata"]["name"]: p["spec"].get("nodeName", "")
                    for p in c.kjson("get", "pods", "-n", ns)["items"]
                    if p["metadata"]["name"].startswith(prefix)}

        try:
            wait_for("the replica to sync", lambda: "informers synced" in run_log(), timeout=60, proc=run)
            for name in OWNED:
                c.apply(owned_node(name))
            c.apply(namespace("lab"))

            # Four pods fit the two owned nodes: they run there, nothing is launched.
            c.apply(cpu_job("first", "lab", 4, "6s"))
            placed = wait_for("the first job's pods on the owned nodes",
                              lambda: (lambda p: p if len(p) == 4 and all(n in OWNED for n in p.values()) else None)(
                                  pods_on("lab", "first")), timeout=60)
            assert sorted(nodes()) == OWNED, f"a node was launched for pods that fit owned ones: {sorted(nodes())}"
            assert "action=launch" not in run_log(), run_log()[-2000:]
            print(f"owned nodes took the first job: {placed}")
            # Its pods end: the ledger closes the owned nodes' metered intervals (`fitscale cost`
            # counts closed intervals only).
            wait_for("the first job to finish",
                     lambda: all(p["status"].get("phase") == "Succeeded"
                                 for p in c.kjson("get", "pods", "-n", "lab")["items"]
                                 if p["metadata"]["name"].startswith("first")), timeout=60)

            # A burst beyond them (six pods, four fit the owned nodes): cloud nodes are launched
            # for the two others only.
            c.apply(cpu_job("burst", "lab", 6, "5s"))
            cloud = wait_for("cloud nodes for the burst",
                             lambda: [n for n in nodes() if n not in OWNED], timeout=90)
            burst = wait_for("the whole burst to run",
                             lambda: (lambda p: p if len(p) == 6 and all(p.values()) else None)(
                                 pods_on("lab", "burst")), timeout=90)
            on_owned = sum(1 for n in burst.values() if n in OWNED)
            assert on_owned == 4, f"the owned nodes did not take their four pods of the burst: {burst}"
            print(f"the burst launched {sorted(cloud)}: {burst}")

            # Idle: the cloud nodes go, the owned nodes stay and are never cordoned.
            wait_for("the cloud nodes to go once idle", lambda: sorted(nodes()) == OWNED, timeout=120)
            for name, n in nodes().items():
                assert not n["spec"].get("unschedulable"), f"owned node {name} was cordoned"
            assert "not removed: owned hardware" not in run_log(), \
                "scale-down proposed an owned node (the controller's defence stopped it)"
        except BaseException:
            print("--- run log ---\n" + run_log()[-4000:] + "\n--- cluster log ---\n" + c.log_tail(),
                  file=sys.stderr)
            raise
        finally:
            stop(run, must_exit=True)

        # The ledger metered the owned nodes at $0.50/h each, and the cloud nodes at their price.
        r = run_cli("cost", "--ledger", ledger, "--by", "instance-type", "--json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        rows = {row["key"]: row["micros"] for row in doc["rows"]}
        print(f"cost report: {doc}")
        assert rows.get("dell-r750", 0) > 0, \
            f"the owned nodes cost nothing in the ledger: {rows}\n--- run log ---\n{run_log()[-3000:]}"
        assert any(k != "dell-r750" and v > 0 for k, v in rows.items()), f"no cloud node cost: {rows}"
        print(f"fitscale cost by instance type: {rows}")
        print("ok")


if __name__ == "__main__":
    main()
