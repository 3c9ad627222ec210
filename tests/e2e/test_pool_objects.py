#!/usr/bin/env python3
"""Issue 15, item 1: Pool custom resources read by `fitscale run`, with kubectl against
`fitscale cluster` + `fitscale run --provider sim`, as a user sees them:

- the CRD applied and Pool objects created with kubectl replace the config file's pools (the
  file here has none: without objects the default pool would take everything);
- a Pool restricting GPU pods to one family and tainting its nodes: a GPU Job tolerating the
  taint lands on that family, and its node carries the taint, the label and fitscale.io/pool;
- two Pools with weights: the weighted one is used first until its node limit, then the other
  (applied after `fitscale run` started: used from the next loop);
- a Pool whose spec fitscale cannot read gets a Warning Event (InvalidPool) naming the field and
  a log line; the other pools keep working;
- `kubectl get pools` shows each pool's nodes, GPUs, $/h and the limits used, from the status
  the leader writes.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, Checks, World, namespace, scratch_dir, wait_for  # noqa: E402

CONFIG = """
scaleDown:
  emptyAfter: 5m
budgets: {}
zones: [us-east-1a]
"""


def pool(name, spec):
    return {"apiVersion": "fitscale.io/v1alpha1", "kind": "Pool", "metadata": {"name": name},
            "spec": spec}


GPU_POOL = pool("gpu-p3", {
    "weight": 90,
    "requirements": [{"key": "fitscale.io/instance-family", "operator": "In", "values": ["p3"]}],
    "labels": {"team": "ml"},
    "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
})
PREFERRED = pool("preferred", {
    "weight": 50,
    "requirements": [{"key": "fitscale.io/instance-family", "operator": "In", "values": ["m5"]},
                     {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
    "limits": {"nodes": 1},
})
FALLBACK = pool("fallback", {
    "weight": 10,
    "requirements": [{"key": "fitscale.io/instance-family", "operator": "In", "values": ["c5"]},
                     {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
})
# The CRD's schema lets it through; fitscale's reader does not (Gt needs a whole number).
BROKEN = pool("broken", {
    "requirements": [{"key": "fitscale.io/gpu-count", "operator": "Gt", "values": ["many"]}],
})


def gpu_job(name, ns):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": ns},
            "spec": {"template": {
                "metadata": {"annotations": {"fitscale.io/sim-duration": "10m"}},
                "spec": {"restartPolicy": "Never",
                         "tolerations": [{"key": "team", "operator": "Equal", "value": "ml",
                                          "effect": "NoSchedule"}],
                         "containers": [{"name": "train", "image": "trainer",
                                         "resources": {"requests": {"cpu": "4", "memory": "16Gi",
                                                                    "nvidia.com/gpu": "1"},
                                                       "limits": {"nvidia.com/gpu": "1"}}}]}}}}


def cpu_pod(name, ns):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns,
                         "annotations": {"fitscale.io/sim-duration": "10m"}},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox",
                                     "resources": {"requests": {"cpu": "3", "memory": "6Gi"}}}]}}


def node_of(w, ns, name):
    return w.kjson("get", "pod", name, "-n", ns).get("spec", {}).get("nodeName", "")


def pools_table(w):
    """`kubectl get pools` as {name: {COLUMN: value}}."""
    lines = w.kubectl("get", "pools").stdout.splitlines()
    header = lines[0]
    # Columns are at least two spaces apart; "LIMITS USED" is one column.
    starts = [m.start() for m in re.finditer(r"\S+(?: \S+)*", header)]
    cols = [header[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
    table = {}
    for line in lines[1:]:
        cells = [line[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
        table[cells[0]] = dict(zip(cols, cells))
    return table


def main():
    check = Checks()
    with scratch_dir("pool-objects") as tmp, World(tmp, CONFIG) as w:
        w.kubectl("apply", "--validate=false", "-f", os.path.join(SOURCE_DIR, "deploy", "crds"))
        w.kubectl("wait", "--for", "condition=established", "--timeout=30s", "crd",
                  "pools.fitscale.io")
        w.apply(namespace("lab"))
        for p in (GPU_POOL, PREFERRED, BROKEN):
            w.apply(p)
        w.start_synced("a", leads=True)
        log = w.runs["a"][1].name

        # The bad Pool: a Warning Event on it naming the field, a log line; the others work.
        def invalid_event():
            items = w.kjson("get", "events", "-n", "default",
                            "--field-selector", "involvedObject.name=broken")["items"]
            return next((e for e in items if e.get("reason") == "InvalidPool"), None)
        ev = wait_for("a Warning Event InvalidPool on Pool broken", invalid_event, timeout=60, log=log)
        check(ev["type"] == "Warning" and ev["involvedObject"].get("kind") == "Pool"
              and "spec.requirements[0].values" in ev["message"]
              and "not used" in ev["message"], f"the event on Pool broken: {ev}")
        check(any("Pool object problem" in l and "broken" in l and "spec.requirements[0]" in l
                  for l in w.run_log("a").splitlines()),
              "no log line names Pool broken and its field")

        # GPU Job -> the gpu-p3 pool's family, with its taint and labels.
        w.apply(gpu_job("train", "lab"))
        pod = wait_for("job train's pod to be bound",
                       lambda: next((p for p in w.pods("lab")
                                     if p["metadata"]["name"].startswith("train-")
                                     and p["spec"].get("nodeName")), None), timeout=90, log=log)
        node = w.kjson("get", "node", pod["spec"]["nodeName"])
        labels = node["metadata"]["labels"]
        check(labels.get("node.kubernetes.io/instance-type", "").startswith("p3."),
              f"the GPU Job landed on {labels.get('node.kubernetes.io/instance-type')}, not a p3")
        check(labels.get("fitscale.io/pool") == "gpu-p3" and labels.get("team") == "ml",
              f"the GPU node's pool and labels: {labels}")
        taints = node.get("spec", {}).get("taints", [])
        check(any(t.get("key") == "team" and t.get("value") == "ml" and t.get("effect") == "NoSchedule"
                  for t in taints), f"the GPU node lacks the pool's taint: {taints}")

        # A Pool applied while fitscale runs is planned with from the next loop.
        w.apply(FALLBACK)
        wait_for("the run to plan with Pool fallback",
                 lambda: any("fallback" in l and "offerings" in l for l in w.run_log("a").splitlines()),
                 timeout=60, log=log)
        # Two CPU pods, one per node: the weighted pool takes one (its limit is 1 node), the
        # other goes to the fallback pool; none to the GPU pool.
        for i in range(2):
            w.apply(cpu_pod(f"cpu-{i}", "lab"))
        for i in range(2):
            wait_for(f"pod cpu-{i} to be bound", lambda i=i: node_of(w, "lab", f"cpu-{i}"),
                     timeout=90, log=log)
        by_pool = {}
        for i in range(2):
            lab = w.kjson("get", "node", node_of(w, "lab", f"cpu-{i}"))["metadata"]["labels"]
            by_pool[lab.get("fitscale.io/pool")] = by_pool.get(lab.get("fitscale.io/pool"), 0) + 1
        check(by_pool == {"preferred": 1, "fallback": 1}, f"CPU pods by pool: {by_pool}")

        # kubectl get pools: nodes, GPUs and $/h per pool, and the limits used.
        def shown():
            t = pools_table(w)
            ok = (t.get("gpu-p3", {}).get("NODES") == "1" and t["gpu-p3"].get("GPUS", "0") != "0"
                  and t.get("preferred", {}).get("NODES") == "1"
                  and t.get("fallback", {}).get("NODES") == "1")
            return ok and t
        table = wait_for("kubectl get pools to show each pool's nodes", shown, timeout=60, log=log)
        check(float(table["gpu-p3"]["USD/H"]) > max(float(table["preferred"]["USD/H"]),
                                                    float(table["fallback"]["USD/H"])) > 0,
              f"the pools' $/h: {table}")
        check(table["preferred"]["LIMITS USED"] == "nodes 1/1", f"preferred's limits: {table['preferred']}")
        check("broken" in table, f"kubectl get pools lists every Pool: {table}")
        print(w.kubectl("get", "pools").stdout)
    check.exit_if_failed()
    print("ok")


if __name__ == "__main__":
    main()
