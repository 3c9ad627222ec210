#!/usr/bin/env python3
"""End to end: the scale subresource (`kubectl scale`, what a HorizontalPodAutoscaler drives)
against `fitscale cluster`, with kubectl as the user.

A CustomResourceDefinition with a `scale` subresource (specReplicasPath, statusReplicasPath,
labelSelectorPath) and a built-in Deployment: `kubectl scale --replicas=5` changes the object's
spec replicas; `kubectl get --subresource=scale -o json` answers the autoscaling/v1 Scale that
kube-apiserver returns (spec.replicas, status.replicas, status.selector as a string in the
query-parameter syntax); a stale `--resource-version` is refused and leaves the object alone,
and a Scale PUT with a stale resourceVersion is a 409 Conflict Status. The shapes are the
Kubernetes API reference's (Scale autoscaling/v1; CustomResourceDefinition
subresources.scale)."""
import functools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import Cluster, scratch_dir  # noqa: E402

wait_for = functools.partial(e2e_support.wait_for, timeout=30)

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "workers.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "workers", "singular": "worker", "kind": "Worker"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}, "scale": {
                "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                "labelSelectorPath": ".status.selector"}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                "status": {"type": "object", "properties": {
                    "replicas": {"type": "integer"}, "selector": {"type": "string"}}}}}}}]}}


def check_scale(c, kind_ref, expect_status_replicas, expect_selector, spec_replicas):
    """kubectl scale on `kind_ref` ("worker/w1"), then its Scale and its object."""
    before = c.kjson("get", kind_ref, "--subresource=scale")
    assert before["kind"] == "Scale" and before["apiVersion"] == "autoscaling/v1", before
    assert before["spec"]["replicas"] == 2, before
    assert before["status"]["replicas"] == expect_status_replicas, before
    assert before["status"].get("selector") == expect_selector, before
    assert before["metadata"]["name"] == kind_ref.split("/")[1], before
    stale_rv = before["metadata"]["resourceVersion"]

    out = c.kubectl("scale", kind_ref, "--replicas=5").stdout
    assert "scaled" in out, out
    obj = c.kjson("get", kind_ref)
    assert spec_replicas(obj) == 5, obj
    scale = c.kjson("get", kind_ref, "--subresource=scale")
    assert scale["spec"]["replicas"] == 5, scale
    assert scale["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"], (scale, obj)
    assert scale["metadata"]["resourceVersion"] != stale_rv, scale

    # kubectl checks --resource-version against the Scale it reads first: a stale one fails
    # and the replicas stay.
    r = c.kubectl("scale", kind_ref, "--replicas=7", f"--resource-version={stale_rv}",
                  check=False)
    assert r.returncode != 0, r.stdout
    assert stale_rv in r.stderr, r.stderr
    assert spec_replicas(c.kjson("get", kind_ref)) == 5
    # The current one works.
    c.kubectl("scale", kind_ref, "--replicas=6",
              f"--resource-version={obj['metadata']['resourceVersion']}")
    assert spec_replicas(c.kjson("get", kind_ref)) == 6
    return stale_rv


def put_stale_scale(c, path, stale_rv, name):
    """The server's own precondition: a Scale PUT with a stale resourceVersion is a 409."""
    body = {"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": name, "namespace": "default", "resourceVersion": stale_rv},
            "spec": {"replicas": 9}}
    status, answer = c.http("PUT", path, body)
    assert status == 409, (status, answer)
    assert answer["kind"] == "Status" and answer["reason"] == "Conflict", answer
    assert answer["code"] == 409, answer
    # A negative count is the 422 kube-apiserver gives.
    status, answer = c.http("PUT", path, {**body, "metadata": {"name": name},
                                          "spec": {"replicas": -1}})
    assert status == 422 and answer["reason"] == "Invalid", (status, answer)


def check_custom_resource(c):
    c.apply(CRD)
    c.kubectl("wait", "--for", "condition=established", "crd/workers.example.com",
              "--timeout=30s")
    wait_for("workers served", lambda: c.kubectl("get", "workers", check=False).returncode == 0)
    c.kubectl("create", "-f", "-", stdin=json.dumps(
        {"apiVersion": "example.com/v1", "kind": "Worker",
         "metadata": {"name": "w1", "namespace": "default"}, "spec": {"replicas": 2}}))
    # status through the status subresource, as a controller would write it.
    obj = c.kjson("get", "worker/w1")
    obj["status"] = {"replicas": 2, "selector": "app=w1"}
    status, answer = c.http("PUT", "/apis/example.com/v1/namespaces/default/workers/w1/status",
                            obj)
    assert status == 200, (status, answer)

    discovery = json.loads(c.kubectl("get", "--raw", "/apis/example.com/v1").stdout)
    scale = [r for r in discovery["resources"] if r["name"] == "workers/scale"]
    assert scale and scale[0]["kind"] == "Scale" and scale[0]["group"] == "autoscaling", discovery

    stale = check_scale(c, "worker/w1", 2, "app=w1", lambda o: o["spec"]["replicas"])
    put_stale_scale(c, "/apis/example.com/v1/namespaces/default/workers/w1/scale", stale, "w1")
    assert c.kjson("get", "worker/w1")["spec"]["replicas"] == 6


def check_deployment(c):
    c.apply({"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "web", "namespace": "default"},
             "spec": {"replicas": 2,
                      "selector": {"matchLabels": {"app": "web"},
                                   "matchExpressions": [{"key": "tier", "operator": "In",
                                                         "values": ["front", "edge"]}]},
                      "template": {"metadata": {"labels": {"app": "web", "tier": "front"}},
                                   "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    discovery = json.loads(c.kubectl("get", "--raw", "/apis/apps/v1").stdout)
    names = [r["name"] for r in discovery["resources"]]
    assert "deployments/scale" in names, names
    # The selector serialized as labels.Selector prints it: sorted by key, set-based values
    # sorted.
    stale = check_scale(c, "deployment/web", 0, "app=web,tier in (edge,front)",
                        lambda o: o["spec"]["replicas"])
    put_stale_scale(c, "/apis/apps/v1/namespaces/default/deployments/web/scale", stale, "web")
    assert c.kjson("get", "deployment/web")["spec"]["replicas"] == 6


def main():
    with scratch_dir("fitscale-e2e-scale-") as tmp, Cluster(tmp) as c:
        try:
            check_custom_resource(c)
            check_deployment(c)
        except AssertionError:
            print(c.log_tail(), file=sys.stderr)
            raise
    print("ok")


if __name__ == "__main__":
    main()
