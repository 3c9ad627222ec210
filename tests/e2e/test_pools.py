#!/usr/bin/env python3
"""End to end, node pools (issue 15) with `fitscale cluster` + `fitscale run --provider sim` and
kubectl, as a user sees them:

- a pool restricting GPU pods to one family and tainting its nodes: a GPU Job (tolerating the
  taint) lands on that family, and its node carries the taint, the pool's label and
  fitscale.io/pool;
- a CPU pod never lands on a GPU node: the GPU pool is tainted, the CPU pool has no GPU types;
- two pools with weights: the weighted one is used until its node limit, then the other;
- an arm64 pool is used only by pods that tolerate its taint and select arm64; others get amd64;
- the virtual cluster's admission gives GPU pods the nvidia.com/gpu toleration
  (ExtendedResourceToleration).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, World, namespace, scratch_dir, wait_for  # noqa: E402

CONFIG = """
scaleDown:
  emptyAfter: 30s
budgets: {}
zones: [us-east-1a]
pools:
  - name: v100
    weight: 90
    requirements:
      - {key: fitscale.io/instance-family, operator: In, values: [p3]}
    labels: {team: ml}
    taints: [{key: team, value: ml, effect: NoSchedule}]
  - name: arm
    weight: 80
    requirements:
      - {key: kubernetes.io/arch, operator: In, values: [arm64]}
      - {key: fitscale.io/gpu-count, operator: DoesNotExist}
    taints: [{key: arch, value: arm64, effect: NoSchedule}]
  - name: preferred
    weight: 50
    requirements:
      - {key: fitscale.io/instance-family, operator: In, values: [m5]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
    limits: {nodes: 2}
  - name: fallback
    weight: 10
    requirements:
      - {key: fitscale.io/instance-family, operator: In, values: [c5]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
"""


def pod(name, ns, requests, tolerations=(), selector=None):
    spec = {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox",
                            "resources": {"requests": requests,
                                          "limits": {k: v for k, v in requests.items() if k == "nvidia.com/gpu"}}}],
            "tolerations": list(tolerations)}
    if selector:
        spec["nodeSelector"] = selector
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns,
                         "annotations": {"fitscale.io/sim-duration": "10m"}},
            "spec": spec}


def node_of(w, ns, name):
    p = w.kjson("get", "pod", name, "-n", ns)
    return p.get("spec", {}).get("nodeName", "")


def main():
    check = Checks()
    with scratch_dir("pools") as tmp, World(tmp, CONFIG) as w:
        w.apply(namespace("lab"))
        w.start_synced("a")

        # GPU Job: tolerates the v100 pool's taint; admission adds the nvidia.com/gpu one.
        gpu = pod("train", "lab", {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
                  tolerations=[{"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}])
        w.apply(gpu)
        tol = w.kjson("get", "pod", "train", "-n", "lab")["spec"].get("tolerations", [])
        check({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tol,
              f"admission did not add the nvidia.com/gpu toleration: {tol}")
        # A CPU pod of no constraint and an arm64 pod that tolerates and selects arm64.
        w.apply(pod("cpu-0", "lab", {"cpu": "3", "memory": "6Gi"}))
        w.apply(pod("on-arm", "lab", {"cpu": "1", "memory": "2Gi"},
                    tolerations=[{"key": "arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}],
                    selector={"kubernetes.io/arch": "arm64"}))
        for name in ("train", "cpu-0", "on-arm"):
            wait_for(f"pod {name} to be bound", lambda n=name: node_of(w, "lab", n), timeout=90,
                     log=w.runs["a"][1].name)
        nodes = {n["metadata"]["name"]: n for n in w.nodes()}

        g = nodes[node_of(w, "lab", "train")]
        labels = g["metadata"]["labels"]
        check(labels.get("node.kubernetes.io/instance-type", "").startswith("p3."),
              f"the GPU pod landed on {labels.get('node.kubernetes.io/instance-type')}, not a p3")
        check(labels.get("fitscale.io/pool") == "v100", f"GPU node pool label: {labels.get('fitscale.io/pool')}")
        check(labels.get("team") == "ml", "the GPU node lacks the pool's label team=ml")
        taints = g.get("spec", {}).get("taints", [])
        check(any(t.get("key") == "team" and t.get("value") == "ml" and t.get("effect") == "NoSchedule"
                  for t in taints), f"the GPU node lacks the pool's taint: {taints}")

        c = nodes[node_of(w, "lab", "cpu-0")]
        cl = c["metadata"]["labels"]
        check("fitscale.io/gpu-model" not in cl and cl.get("kubernetes.io/arch") == "amd64",
              f"the CPU pod landed on {cl.get('node.kubernetes.io/instance-type')}")
        check(cl.get("fitscale.io/pool") == "preferred", f"the CPU pod's pool: {cl.get('fitscale.io/pool')}")

        a = nodes[node_of(w, "lab", "on-arm")]
        check(a["metadata"]["labels"].get("kubernetes.io/arch") == "arm64"
              and a["metadata"]["labels"].get("fitscale.io/pool") == "arm",
              f"the arm64 pod landed on {a['metadata']['labels'].get('node.kubernetes.io/instance-type')}")

        # More CPU pods, one per node (3 CPUs of an xlarge's 4): the weighted pool takes one
        # more (its limit is 2 nodes), the rest go to the fallback pool, none to arm or GPUs.
        for i in range(1, 4):
            w.apply(pod(f"cpu-{i}", "lab", {"cpu": "3", "memory": "6Gi"}))
        for i in range(1, 4):
            wait_for(f"pod cpu-{i} to be bound", lambda i=i: node_of(w, "lab", f"cpu-{i}"), timeout=90,
                     log=w.runs["a"][1].name)
        nodes = {n["metadata"]["name"]: n for n in w.nodes()}
        pools = {}
        for i in range(4):
            lab = nodes[node_of(w, "lab", f"cpu-{i}")]["metadata"]["labels"]
            pools[lab.get("fitscale.io/pool")] = pools.get(lab.get("fitscale.io/pool"), 0) + 1
            check("fitscale.io/gpu-model" not in lab and lab.get("kubernetes.io/arch") == "amd64",
                  f"CPU pod cpu-{i} landed on {lab.get('node.kubernetes.io/instance-type')}")
        check(pools == {"preferred": 2, "fallback": 2}, f"CPU pods by pool: {pools}")
        preferred_nodes = [n for n in nodes.values() if n["metadata"]["labels"].get("fitscale.io/pool") == "preferred"]
        check(len(preferred_nodes) == 2, f"pool preferred has {len(preferred_nodes)} nodes, its limit is 2")
    check.exit_if_failed()
    print("ok")


if __name__ == "__main__":
    main()
