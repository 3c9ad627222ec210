#!/usr/bin/env python3
"""End to end: `fitscale cluster` driven by kubectl 1.32 and raw HTTP, the way a user and
fitscale's own client use it. Starts its own server on a free loopback port and stops it."""
import calendar
import functools
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import Cluster, scratch_dir  # noqa: E402

# This test's waits are for one server on its own, quicker than a whole autoscaling loop.
wait_for = functools.partial(e2e_support.wait_for, timeout=20)


def pod_manifest(name, labels=None, annotations=None, cpu="500m", extra_spec=None):
    spec = {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox",
                            "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}]}
    spec.update(extra_spec or {})
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels or {}, "annotations": annotations or {}},
            "spec": spec}


def main():
    with scratch_dir("fitscale-vcluster-") as tmp:
        c = Cluster(tmp, "--boot-delay", "1", "--interruption-grace", "1", "--watch-history", "50")
        try:
            run(c, tmp)
        except Exception:
            sys.stderr.write("--- fitscale cluster log ---\n" + c.log_tail(5000))
            raise
        finally:
            rc = c.stop(grace=10, must_exit=True)
        assert rc == 0, f"fitscale cluster exited {rc} after SIGTERM"
    print("ok")


def run(c, tmp):
    # The kubeconfig is a plain v1 Config that kubectl reads; default namespaces exist.
    assert c.kjson("get", "nodes")["items"] == []
    names = {n["metadata"]["name"] for n in c.kjson("get", "namespaces")["items"]}
    assert {"default", "kube-system"} <= names, names
    assert c.kubectl("version").returncode == 0

    # --- cloud: a launch through the sim-cloud endpoint registers a Node after the boot delay.
    status, res = c.http("POST", "/fitscale.io/sim-cloud/launch",
                         {"instance_type": "m5.xlarge", "zone": "us-east-1b",
                          "capacity_type": "on-demand", "count": 1, "pool": "default",
                          "owner_namespace": "default", "job": "e2e", "client_token": "t-1"})
    assert status == 200 and len(res["launched"]) == 1, res
    cpu_id = res["launched"][0]["id"]
    node = wait_for("the m5.xlarge node", lambda: next(
        (n for n in c.kjson("get", "nodes")["items"] if n["metadata"]["name"] == cpu_id), None))
    # Registered no earlier than launch + --boot-delay (both on the server's whole-second clock).
    created = calendar.timegm(time.strptime(node["metadata"]["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ"))
    assert created >= res["launched"][0]["launched_at"] + 1, (node["metadata"], res["launched"][0])
    labels = node["metadata"]["labels"]
    expect = {"node.kubernetes.io/instance-type": "m5.xlarge",
              "topology.kubernetes.io/zone": "us-east-1b",
              "topology.kubernetes.io/region": "us-east-1",
              "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
              "kubernetes.io/hostname": cpu_id, "fitscale.io/capacity-type": "on-demand",
              "fitscale.io/pool": "default"}
    for k, v in expect.items():
        assert labels.get(k) == v, (k, labels)
    assert node["spec"]["providerID"] == f"aws:///us-east-1b/{cpu_id}", node["spec"]
    alloc = node["status"]["allocatable"]
    # 4 vCPUs less the EKS reservation: allocatable CPU is below capacity.
    assert alloc["cpu"].endswith("m") and 3800 < int(alloc["cpu"][:-1]) < 4000, alloc
    ready = [x for x in node["status"]["conditions"] if x["type"] == "Ready"]
    assert ready and ready[0]["status"] == "True"

    status, res = c.http("POST", "/fitscale.io/sim-cloud/launch",
                         {"instance_type": "p3.2xlarge", "zone": "us-east-1a",
                          "capacity_type": "spot", "count": 1, "client_token": "t-2"})
    gpu_id = res["launched"][0]["id"]
    gpu_node = wait_for("the GPU node", lambda: next(
        (n for n in c.kjson("get", "nodes")["items"] if n["metadata"]["name"] == gpu_id), None))
    assert gpu_node["metadata"]["labels"]["fitscale.io/gpu-model"] == "V100"
    assert gpu_node["metadata"]["labels"]["fitscale.io/capacity-type"] == "spot"
    assert gpu_node["status"]["allocatable"]["nvidia.com/gpu"] == "1"
    # The same client token never launches twice.
    status, res = c.http("POST", "/fitscale.io/sim-cloud/launch",
                         {"instance_type": "m5.xlarge", "zone": "us-east-1b",
                          "capacity_type": "on-demand", "count": 1, "client_token": "t-1"})
    status, inst = c.http("GET", "/fitscale.io/sim-cloud/instances")
    assert status == 200 and len(inst["instances"]) == 2, inst

    # Injected capacity failure: the next launch of that offering fails with the code.
    status, _ = c.http("POST", "/fitscale.io/sim-cloud/inject",
                       {"offering": "m5.large/us-east-1a/spot", "code": "InsufficientInstanceCapacity", "count": 1})
    assert status == 200
    status, res = c.http("POST", "/fitscale.io/sim-cloud/launch",
                         {"instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "spot",
                          "count": 1, "client_token": "t-3"})
    assert res["launched"] == [] and res["failures"][0]["code"] == "InsufficientInstanceCapacity", res

    # --- a bare pod with a simulated duration runs on the CPU node and succeeds.
    c.apply(pod_manifest("short", {"app": "short"}, {"fitscale.io/sim-duration": "2s"},
                         extra_spec={"nodeSelector": {"fitscale.io/capacity-type": "on-demand"}}))
    pod = wait_for("pod short to succeed", lambda: (lambda p: p if p["status"].get("phase") == "Succeeded" else None)(
        c.kjson("get", "pod", "short")))
    assert pod["spec"]["nodeName"] == cpu_id, pod["spec"]

    # --- a batch/v1 Job becomes `parallelism` pods owned by it; its status follows them.
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "train", "annotations": {"fitscale.io/sim-duration": "2s"}},
           "spec": {"parallelism": 2, "completions": 2, "activeDeadlineSeconds": 600,
                    "template": {"metadata": {"labels": {"team": "vision"}},
                                 "spec": {"restartPolicy": "Never",
                                          "containers": [{"name": "t", "image": "trainer",
                                                          "resources": {"requests": {"cpu": "1"}}}]}}}}
    c.apply(job)
    c.kubectl("wait", "--for=condition=complete", "job/train", "--timeout=30s")
    job = c.kjson("get", "job", "train")
    assert job["status"]["succeeded"] == 2, job["status"]
    job_pods = c.kjson("get", "pods", "-l", "job-name=train")["items"]
    assert len(job_pods) == 2, [p["metadata"]["name"] for p in job_pods]
    for p in job_pods:
        ref = p["metadata"]["ownerReferences"][0]
        assert ref["kind"] == "Job" and ref["name"] == "train" and ref["uid"] == job["metadata"]["uid"]
        assert p["metadata"]["labels"]["controller-uid"] == job["metadata"]["uid"]
        assert p["metadata"]["labels"]["team"] == "vision"
        assert p["spec"]["activeDeadlineSeconds"] == 600
        assert p["status"]["phase"] == "Succeeded"

    # --- label and field selectors.
    names = lambda items: sorted(p["metadata"]["name"] for p in items)
    assert names(c.kjson("get", "pods", "-l", "job-name notin (train)")["items"]) == ["short"]
    assert names(c.kjson("get", "pods", "-l", "job-name!=train,app")["items"]) == ["short"]
    assert names(c.kjson("get", "pods", "-l", "!job-name")["items"]) == ["short"]
    assert len(c.kjson("get", "pods", "-l", "team in (vision,nlp)")["items"]) == 2
    assert len(c.kjson("get", "pods", "--field-selector", "status.phase=Succeeded")["items"]) == 3
    assert len(c.kjson("get", "pods", "--field-selector", f"spec.nodeName={cpu_id}")["items"]) == 3
    assert c.kjson("get", "pods", "--field-selector", "metadata.name=short,status.phase!=Succeeded")["items"] == []
    # Plain `kubectl get` (table printing falls back to the objects) works too.
    out = c.kubectl("get", "pods").stdout
    assert "short" in out, out

    # --- cordon: a new pod stays Pending with an Unschedulable condition; uncordon, it runs.
    c.kubectl("cordon", cpu_id)
    assert c.kjson("get", "node", cpu_id)["spec"]["unschedulable"] is True
    c.apply(pod_manifest("waiter", {"app": "waiter"},
                         extra_spec={"nodeSelector": {"node.kubernetes.io/instance-type": "m5.xlarge"}}))
    cond = wait_for("waiter to be marked unschedulable", lambda: next(
        (x for x in c.kjson("get", "pod", "waiter")["status"].get("conditions", [])
         if x["type"] == "PodScheduled" and x["status"] == "False"), None))
    assert cond["reason"] == "Unschedulable" and "unschedulable" in cond["message"], cond
    c.kubectl("uncordon", cpu_id)
    wait_for("waiter to run", lambda: c.kjson("get", "pod", "waiter")["status"].get("phase") == "Running")

    # --- label / annotate (strategic merge and merge patches).
    c.kubectl("label", "node", cpu_id, "e2e=yes")
    assert c.kjson("get", "node", cpu_id)["metadata"]["labels"]["e2e"] == "yes"
    assert len(c.kjson("get", "nodes", "-l", "e2e=yes")["items"]) == 1
    c.kubectl("annotate", "pod", "waiter", "note=hello")
    assert c.kjson("get", "pod", "waiter")["metadata"]["annotations"]["note"] == "hello"
    # JSON patch, raw.
    status, patched = c.http("PATCH", "/api/v1/namespaces/default/pods/waiter",
                             [{"op": "add", "path": "/metadata/labels/patched", "value": "json"}],
                             "application/json-patch+json")
    assert status == 200 and patched["metadata"]["labels"]["patched"] == "json", patched
    # A stale resourceVersion on PUT is a Conflict.
    stale = dict(patched)
    stale["metadata"] = dict(patched["metadata"], resourceVersion="1")
    status, err = c.http("PUT", "/api/v1/namespaces/default/pods/waiter", stale)
    assert status == 409 and err["reason"] == "Conflict", err
    status, err = c.http("POST", "/api/v1/namespaces/default/pods", pod_manifest("waiter"))
    assert status == 409 and err["reason"] == "AlreadyExists", err
    status, err = c.http("GET", "/api/v1/namespaces/default/pods/nope")
    assert status == 404 and err["reason"] == "NotFound", err

    # --- watch: raw HTTP from a list's resourceVersion sees the next pod being created.
    status, lst = c.http("GET", "/api/v1/namespaces/default/pods")
    rv = lst["metadata"]["resourceVersion"]
    stream = c.open(
        f"/api/v1/namespaces/default/pods?watch=true&resourceVersion={rv}&labelSelector=app%3Dwatched&timeoutSeconds=20")
    c.apply(pod_manifest("watched", {"app": "watched"}))
    seen = []
    while True:
        ev = json.loads(stream.readline())
        seen.append((ev["type"], ev["object"]["metadata"]["name"], ev["object"]["status"].get("phase")))
        if ev["object"]["status"].get("phase") == "Running":
            break
    stream.close()
    assert seen[0] == ("ADDED", "watched", "Pending"), seen
    assert all(n == "watched" for _, n, _ in seen), seen
    # kubectl's own watch prints the pod.
    w = c.kubectl("get", "pods", "--watch", "--request-timeout=2s", "-l", "app=watched", check=False, timeout=30)
    assert "watched" in w.stdout, (w.stdout, w.stderr)
    # A resourceVersion older than the kept history (--watch-history 50) gets 410 Expired.
    for i in range(30):
        c.kubectl("label", "pod", "waiter", f"churn={i}", "--overwrite")
    expired = c.open("/api/v1/pods?watch=true&resourceVersion=2")
    ev = json.loads(expired.readline())
    expired.close()
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410 and ev["object"]["reason"] == "Expired", ev

    # --- a PodDisruptionBudget blocks an eviction (429) until another healthy pod exists.
    c.apply(pod_manifest("guarded-1", {"app": "guarded"}, cpu="100m"))
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}}
    c.apply(pdb)
    wait_for("guard to count its pod", lambda: c.kjson("get", "pdb", "guard").get("status", {}).get("currentHealthy") == 1)
    assert c.kjson("get", "pdb", "guard")["status"]["disruptionsAllowed"] == 0
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction",
                "metadata": {"name": "guarded-1", "namespace": "default"}}
    status, err = c.http("POST", "/api/v1/namespaces/default/pods/guarded-1/eviction", eviction)
    assert status == 429 and err["reason"] == "TooManyRequests", (status, err)
    assert c.kjson("get", "pod", "guarded-1")["status"]["phase"] == "Running"
    c.apply(pod_manifest("guarded-2", {"app": "guarded"}, cpu="100m"))
    wait_for("guard to allow one disruption", lambda: c.kjson("get", "pdb", "guard")["status"]["disruptionsAllowed"] == 1)
    status, res = c.http("POST", "/api/v1/namespaces/default/pods/guarded-1/eviction", eviction)
    assert status == 201, (status, res)
    wait_for("guarded-1 to be gone", lambda: c.kubectl("get", "pod", "guarded-1", check=False).returncode != 0)

    # --- delete: the pod goes away.
    c.kubectl("delete", "pod", "watched", "--timeout=20s")
    assert c.kubectl("get", "pod", "watched", check=False).returncode != 0

    # --- events tell the story.
    reasons = {e["reason"] for e in c.kjson("get", "events")["items"]}
    for r in ("RegisteredNode", "Scheduled", "Started", "Completed", "SuccessfulCreate", "FailedScheduling"):
        assert r in reasons, (r, reasons)
    assert "short" in c.kubectl("get", "events", "--field-selector", "involvedObject.name=short").stdout

    # --- spot interruption: the node is tainted, then the instance and its Node go away and the
    # pod on it fails.
    c.apply(pod_manifest("on-gpu", extra_spec={"nodeSelector": {"fitscale.io/gpu-model": "V100"}}))
    wait_for("on-gpu to run", lambda: c.kjson("get", "pod", "on-gpu")["status"].get("phase") == "Running")
    status, _ = c.http("POST", "/fitscale.io/sim-cloud/interrupt", {"id": gpu_id})
    assert status == 200
    status, inst = c.http("GET", "/fitscale.io/sim-cloud/instances")
    assert any(i["id"] == gpu_id and i["interruption_notice"] for i in inst["instances"]), inst
    wait_for("the GPU node to go", lambda: c.kubectl("get", "node", gpu_id, check=False).returncode != 0)
    pod = wait_for("on-gpu to fail", lambda: (lambda p: p if p["status"].get("phase") == "Failed" else None)(
        c.kjson("get", "pod", "on-gpu")))
    assert pod["status"]["reason"] == "NodeLost", pod["status"]

    # --- terminate through the endpoint: the Node is deleted.
    status, _ = c.http("POST", "/fitscale.io/sim-cloud/terminate", {"ids": [cpu_id]})
    assert status == 200
    wait_for("the CPU node to go", lambda: c.kjson("get", "nodes")["items"] == [])

    # A namespace created with kubectl holds objects; deleting it removes them.
    c.kubectl("create", "ns", "team-a")
    c.kubectl("apply", "--validate=false", "-n", "team-a", "-f", "-", stdin=json.dumps(pod_manifest("p")))
    assert len(c.kjson("get", "pods", "-n", "team-a")["items"]) == 1
    c.kubectl("delete", "ns", "team-a", "--timeout=20s")
    assert c.kjson("get", "pods", "-n", "team-a")["items"] == []


if __name__ == "__main__":
    main()
