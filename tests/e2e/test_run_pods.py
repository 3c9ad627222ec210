#!/usr/bin/env python3
"""End to end, `fitscale run --provider sim` against `fitscale cluster` with kubectl: which pods
make fitscale launch and which nodes it removes, as issue 13 found them on a real cluster.

- "Pending" is Kubernetes' pending: a gated pod (Kueue's kueue.x-k8s.io/admission), a pod the
  scheduler has not marked PodScheduled=False/Unschedulable, and a nominated pod launch nothing;
  the virtual cluster's scheduler never binds a gated pod. Removing the gate, or the scheduler's
  verdict, makes them launch.
- Service pods do not churn: a node whose only pod is a ReplicaSet's (what a Deployment's pod
  is) stays while nothing else can hold the pod, says so once, launches nothing; once another
  node has room the pod is evicted and the node removed, still with no launch.
- Dead nodes do not bill forever: a node whose Ready condition turns False is removed after
  scaleDown.notReadyAfter although its pod is stuck Terminating, and the log says since when.
- GPU model names in a trace match the catalog in any case, as selectors do.
"""
import json
import os
import sys
import time
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (SOURCE_DIR, World, namespace, run_cli, scratch_dir, wait_for,  # noqa: E402
                         write_file)

CONFIG = """
scaleDown:
  emptyAfter: 2s
  delayAfterLaunch: 0s
  notReadyAfter: 4s
"""

GPU = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}


def pod(name, ns, requests, node=None, owner=None, gates=None, scheduler=None, labels=None):
    spec = {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox",
                            "resources": {"requests": requests,
                                          "limits": {k: v for k, v in requests.items() if k == "nvidia.com/gpu"}}}]}
    if node:
        spec["nodeName"] = node
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    if scheduler:
        spec["schedulerName"] = scheduler
    meta = {"name": name, "namespace": ns, "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "uid": owner + "-uid", "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def launches(w):
    """Launch actions the replica logged (one line each)."""
    return sum(1 for line in w.run_log("a").splitlines() if "action=launch " in line or '"action":"launch"' in line)


def get_pod(w, ns, name):
    r = w.kubectl("get", "pod", name, "-n", ns, "-o", "json", check=False)
    return json.loads(r.stdout) if r.returncode == 0 else None


def pod_scheduled(p):
    for c in p.get("status", {}).get("conditions", []):
        if c.get("type") == "PodScheduled":
            return c
    return {}


def several_loops(n=4):
    """Lets `n` of the replica's one-second loops pass. What is checked after it is an absence
    (no launch, no removal): it needs time to pass, there is no condition to wait on."""
    time.sleep(n + 1)


def spare_node(name="spare"):
    """A Node a user added (not fitscale's: never removed by it), Ready, with room for CPU pods."""
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": "us-east-1a"}},
            "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}


def node_names(w):
    return sorted(n["metadata"]["name"] for n in w.nodes())


def check_pending_means_unschedulable(w):
    w.apply(namespace("q"))
    w.apply(spare_node())  # room for the gated pod, which the scheduler must not use
    # Gated, as Kueue holds a workload it has not admitted.
    w.apply(pod("gated", "q", {"cpu": "1", "memory": "1Gi"}, gates=["kueue.x-k8s.io/admission"]))
    # A scheduler the virtual cluster does not run: nobody marks it Unschedulable.
    w.apply(pod("unmarked", "q", GPU, scheduler="other-scheduler"))
    wait_for("the gated pod to say why it waits",
             lambda: pod_scheduled(get_pod(w, "q", "gated")).get("reason") == "SchedulingGated")
    several_loops()
    assert node_names(w) == ["spare"], f"a gated or unmarked pod launched a node: {node_names(w)}"
    assert launches(w) == 0, w.run_log("a")[-2000:]
    assert not get_pod(w, "q", "gated")["spec"].get("nodeName"), "the virtual cluster's scheduler bound a gated pod"

    # The other scheduler marks its pod Unschedulable, but nominated to a node (preemption made
    # room there): it counts on that node, nothing is launched for it.
    w.kubectl("patch", "pod", "unmarked", "-n", "q", "--subresource=status", "--type=merge", "-p", json.dumps(
        {"status": {"nominatedNodeName": "spare",
                    "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                    "message": "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."}]}}))
    several_loops()
    assert node_names(w) == ["spare"] and launches(w) == 0, "a nominated pod launched a node"

    # Not nominated any more: now it is pending as Kubernetes means it, and gets a node. (Its
    # scheduler never binds it; the pod goes, or the idle node would come back every loop.)
    w.kubectl("patch", "pod", "unmarked", "-n", "q", "--subresource=status", "--type=json", "-p",
              json.dumps([{"op": "remove", "path": "/status/nominatedNodeName"}]))
    wait_for("a node for the unmarked pod once the scheduler gave up on it", lambda: len(w.nodes()) == 2)
    w.kubectl("delete", "pod", "unmarked", "-n", "q", "--wait=false")
    assert not get_pod(w, "q", "gated")["spec"].get("nodeName"), "the virtual cluster's scheduler bound a gated pod"

    # Kueue admits the workload: the gate goes, the scheduler binds it to room it has.
    w.kubectl("patch", "pod", "gated", "-n", "q", "--type=json", "-p",
              json.dumps([{"op": "remove", "path": "/spec/schedulingGates"}]))
    wait_for("the admitted pod to run", lambda: (get_pod(w, "q", "gated") or {}).get("status", {}).get("phase") == "Running")
    w.kubectl("delete", "pods", "--all", "-n", "q", "--wait=false")
    wait_for("fitscale's node to go", lambda: node_names(w) == ["spare"], timeout=90)
    w.kubectl("delete", "node", "spare")
    wait_for("the spare node to go", lambda: not w.nodes())
    print("pending: ok; gated, unmarked and nominated pods launched nothing, the marked one a node")


def check_service_pods_do_not_churn(w):
    w.apply(namespace("svc"))
    before = launches(w)
    # A batch pod brings a node; it finishes, and a Deployment's pod (owned by its ReplicaSet) runs
    # there alone.
    warm = pod("warmup", "svc", GPU)
    warm["metadata"]["annotations"] = {"fitscale.io/sim-duration": "2s"}
    w.apply(warm)
    node = wait_for("a node for the warmup pod", lambda: next(iter(w.nodes()), None))["metadata"]["name"]
    w.apply(pod("web-7d9-abcde", "svc", {"cpu": "1", "memory": "1Gi"}, node=node, owner="web-7d9",
                labels={"app": "web"}))
    wait_for("the warmup pod to finish",
             lambda: (get_pod(w, "svc", "warmup") or {}).get("status", {}).get("phase") == "Succeeded")
    wait_for("fitscale to say why it keeps the node",
             lambda: f"keep {node}: not removed though idle: pod svc/web-7d9-abcde fits on no other node"
             in w.run_log("a"))
    several_loops(6)
    assert [n["metadata"]["name"] for n in w.nodes()] == [node], "the service pod's node went or another came"
    web = get_pod(w, "svc", "web-7d9-abcde")
    assert web and web["status"].get("phase") == "Running" and not web["metadata"].get("deletionTimestamp"), web
    assert not any(n["spec"].get("unschedulable") for n in w.nodes()), "kept node was cordoned"
    assert launches(w) == before + 1, "a launch for the service pod"
    assert w.run_log("a").count(f"keep {node}") == 1, "the keep reason is logged every loop, not once"

    # Another node with room appears (one the user added): the pod is moved, the idle node goes.
    w.apply(spare_node())
    wait_for("the idle node to be removed", lambda: [n["metadata"]["name"] for n in w.nodes()] == ["spare"])
    assert f"evict svc/web-7d9-abcde: evicted to remove node {node}" in w.run_log("a"), w.run_log("a")[-2000:]
    assert launches(w) == before + 1, "the move produced a launch"
    w.kubectl("delete", "node", "spare")
    w.kubectl("delete", "pods", "--all", "-n", "svc", "--wait=false")
    print("service pods: ok; node", node, "kept while nothing else could hold its pod, removed after")


def check_dead_node_is_removed(w):
    w.apply(namespace("dead"))
    w.apply(pod("train", "dead", GPU))  # a bare pod: batch, pins its node while alive
    wait_for("the pod to run", lambda: (get_pod(w, "dead", "train") or {}).get("status", {}).get("phase") == "Running")
    node = get_pod(w, "dead", "train")["spec"]["nodeName"]
    since = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    # The kubelet stops posting: the node lifecycle controller's verdict, through the status
    # subresource as it writes it. The virtual kubelet of a NotReady node does nothing any more.
    w.kubectl("patch", "node", node, "--subresource=status", "--type=merge", "-p", json.dumps(
        {"status": {"conditions": [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
                                    "message": "Kubelet stopped posting node status.",
                                    "lastTransitionTime": since}]}}))
    w.kubectl("delete", "pod", "train", "-n", "dead", "--wait=false")
    wait_for("the pod to be Terminating", lambda: (get_pod(w, "dead", "train") or {}).get("metadata", {}).get("deletionTimestamp"))
    wait_for("the NotReady node to be removed", lambda: not any(n["metadata"]["name"] == node for n in w.nodes()),
             timeout=60)
    log = w.run_log("a")
    assert f"remove {node}: NotReady since {since}" in log and "scaleDown.notReadyAfter 4s" in log, log[-2000:]
    w.kubectl("delete", "pods", "--all", "-n", "dead", "--wait=false")
    print("dead node: ok;", node, "removed after notReadyAfter with its pod Terminating")


def check_trace_gpu_model_case(tmp):
    trace = write_file(tmp, "lower.csv",
                       "submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,checkpoint_interval_s\n"
                       "0,a,team-a,1,4,16Gi,1,v100,3600,,\n")
    out = os.path.join(tmp, "lower.json")
    p = run_cli("simulate", "--trace", trace, "--catalog",
                os.path.join(SOURCE_DIR, "tests", "data", "traces", "one_gpu_catalog.csv"),
                "--report-json", out, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr)
    with open(out) as f:
        r = json.load(f)
    assert r["jobs"]["completed"] == 1, r["jobs"]
    print("trace gpu_model: ok; v100 ran on the catalog's V100")


def main():
    with scratch_dir("fitscale-run-pods-") as tmp:
        check_trace_gpu_model_case(tmp)
        with World(tmp, config=CONFIG) as w:
            w.start_synced("a", leads=True)
            check_pending_means_unschedulable(w)
            check_service_pods_do_not_churn(w)
            check_dead_node_is_removed(w)
    print("ok")


if __name__ == "__main__":
    main()
