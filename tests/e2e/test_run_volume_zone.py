#!/usr/bin/env python3
"""End to end, `fitscale run --provider sim` against `fitscale cluster` with kubectl: two pods
whose PersistentVolumeClaims are bound to zonal PersistentVolumes (one in us-east-1b, one in
us-east-1c, `spec.nodeAffinity` on topology.kubernetes.io/zone) each get a node in their volume's
zone and run there; `fitscale run` reads the claims and volumes through its informers and the
virtual cluster's scheduler through its store. The two pods are alike in everything else, so
without volume topology both would go to the one cheapest zone and at least one would be wrong.
A third pod whose claim is not bound yet (WaitForFirstConsumer) runs wherever it is placed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, namespace, scratch_dir, wait_for  # noqa: E402

ZONE = "topology.kubernetes.io/zone"
NS = "data"


def volume(name, zone):
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "storageClassName": "gp3", "csi": {"driver": "ebs.csi.aws.com",
                                                        "volumeHandle": "vol-" + name},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": ZONE, "operator": "In", "values": [zone]}]}]}}}}


def claim(name, volume_name=None):
    spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3",
            "resources": {"requests": {"storage": "10Gi"}}}
    if volume_name:
        spec["volumeName"] = volume_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


def reader(name, claim_name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"containers": [{"name": "c", "image": "trainer",
                                     "resources": {"requests": {"cpu": "3", "memory": "4Gi"}},
                                     "volumeMounts": [{"name": "d", "mountPath": "/data"}]}],
                     "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": claim_name}}]}}


def zones_of_running(w):
    """{pod: zone of its node} once all three pods run, else None."""
    pods = w.pods(NS)
    if len(pods) != 3 or any(p.get("status", {}).get("phase") != "Running" for p in pods):
        return None
    nodes = {n["metadata"]["name"]: n for n in w.nodes()}
    return {p["metadata"]["name"]: nodes[p["spec"]["nodeName"]]["metadata"]["labels"].get(ZONE)
            for p in pods if p["spec"].get("nodeName") in nodes}


def main():
    with scratch_dir("fitscale-volume-zone-") as tmp:
        with World(tmp) as w:
            w.apply(namespace(NS))
            w.apply(volume("pv-b", "us-east-1b"))
            w.apply(volume("pv-c", "us-east-1c"))
            w.apply(claim("data-b", "pv-b"))
            w.apply(claim("data-c", "pv-c"))
            w.apply(claim("fresh"))
            w.start_synced("a", leads=True)
            w.apply(reader("reader-b", "data-b"))
            w.apply(reader("reader-c", "data-c"))
            w.apply(reader("writer", "fresh"))
            zones = wait_for("the three pods to run", lambda: zones_of_running(w), timeout=120)
            assert zones.get("reader-b") == "us-east-1b", f"reader-b ran in {zones}"
            assert zones.get("reader-c") == "us-east-1c", f"reader-c ran in {zones}"
            assert zones.get("writer"), f"writer has no zone: {zones}"
            print(f"volume zones: ok; {zones}")
    print("ok")


if __name__ == "__main__":
    main()
