#!/usr/bin/env python3
"""End to end, `fitscale run --provider sim` against `fitscale cluster` with kubectl: three
replicas of a Deployment-style ReplicaSet whose pods carry a zone topology spread constraint
(maxSkew 1, DoNotSchedule) get nodes in three zones and run, as kube-scheduler requires; the
same pods without the constraint get their nodes in one zone (the control, so the test fails
when spread is not read).

With one pod per node by size, the virtual cluster's scheduler (which honours the spread too)
can only bind each pod to the node launched for it, so the zones are the planner's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, namespace, scratch_dir, wait_for  # noqa: E402

CONFIG = """
scaleDown:
  emptyAfter: 600s
"""

ZONE = "topology.kubernetes.io/zone"


def replica(name, ns, app, spread):
    spec = {"containers": [{"name": "c", "image": "web",
                            "resources": {"requests": {"cpu": "3", "memory": "4Gi"}}}]}
    if spread:
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": app}}}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": app},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": app + "-rs", "uid": app + "-rs-uid",
                                              "controller": True}]},
            "spec": spec}


def zones_of_running(w, ns):
    """Zones of the nodes the namespace's Running pods are on, or None until all three run."""
    pods = w.pods(ns)
    if len(pods) != 3 or any(p.get("status", {}).get("phase") != "Running" for p in pods):
        return None
    nodes = {n["metadata"]["name"]: n for n in w.nodes()}
    return sorted(nodes[p["spec"]["nodeName"]]["metadata"]["labels"].get(ZONE, "?") for p in pods
                  if p["spec"].get("nodeName") in nodes)


def main():
    with scratch_dir("fitscale-zone-spread-") as tmp:
        with World(tmp, config=CONFIG) as w:
            w.start_synced("a", leads=True)
            for ns, spread in (("spread", True), ("plain", False)):
                w.apply(namespace(ns))
                for i in range(3):
                    w.apply(replica(f"web-{i}", ns, "web", spread))
            spread = wait_for("the spread replicas to run", lambda: zones_of_running(w, "spread"),
                              timeout=120)
            assert len(set(spread)) == 3, f"spread replicas ran in zones {spread}, want three zones"
            plain = wait_for("the plain replicas to run", lambda: zones_of_running(w, "plain"),
                             timeout=120)
            assert len(set(plain)) < 3, f"unconstrained replicas ran in zones {plain}: spread by chance?"
            print(f"zone spread: ok; spread replicas in {spread}, plain ones in {plain}")
    print("ok")


if __name__ == "__main__":
    main()
