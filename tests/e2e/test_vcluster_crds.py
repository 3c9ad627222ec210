#!/usr/bin/env python3
"""End to end: custom resources and the API details kubectl and the official clients lean on,
against `fitscale cluster` with kubectl as the user.

fitscale's own CustomResourceDefinitions (deploy/crds/: Pool, Budget, Launch and
cluster-autoscaler's ProvisioningRequest) are installed with `kubectl apply`, waited for with
`kubectl wait --for condition=established`, and then served: printer columns in `kubectl get`,
short names and categories, 422 errors naming each bad field, unknown fields pruned, both
ProvisioningRequest versions. Also: server-side dry run on delete (the namespace survives),
`watch=True` as the Python client sends it, `kubectl auth can-i`, finalizers holding a delete,
metadata.generation, events.k8s.io/v1 beside core Events, Secrets, and a Node's spec."""
import functools
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import SOURCE_DIR, Cluster, scratch_dir  # noqa: E402

wait_for = functools.partial(e2e_support.wait_for, timeout=30)
CRDS = os.path.join(SOURCE_DIR, "deploy", "crds")


def create(c, obj, check=True):
    # Validation on, as kubectl defaults: the server's OpenAPI publishes each CRD's schema.
    return c.kubectl("create", "-f", "-", stdin=json.dumps(obj), check=check)


def header_and_rows(text):
    lines = [line.split() for line in text.strip().splitlines()]
    return lines[0], lines[1:]


def check_crds(c):
    out = c.kubectl("apply", "-f", CRDS).stdout
    for name in ["pools.fitscale.io", "budgets.fitscale.io", "launches.fitscale.io",
                 "provisioningrequests.autoscaling.x-k8s.io"]:
        assert f"customresourcedefinition.apiextensions.k8s.io/{name} created" in out, out
    c.kubectl("wait", "--for", "condition=established", "--timeout=30s", "crd", "--all")
    # Applying again changes nothing and keeps serving.
    c.kubectl("apply", "-f", CRDS)

    # OpenAPI covers the custom kinds: explain reads the CRD's schema, and an unknown field is
    # refused by name under kubectl's default (Strict) validation, pruned with --validate=false.
    explain = c.kubectl("explain", "pool.spec", check=False)
    assert explain.returncode == 0 and "weight" in explain.stdout and "requirements" in \
        explain.stdout, f"explain pool.spec: {explain.stdout}{explain.stderr}"
    typo = {"apiVersion": "fitscale.io/v1alpha1", "kind": "Pool", "metadata": {"name": "typo"},
            "spec": {"weight": 1, "provider": "sim", "wieght": 2}}
    r = create(c, typo, check=False)
    assert r.returncode != 0 and 'unknown field "spec.wieght"' in r.stderr, r.stderr
    c.kubectl("create", "--validate=false", "-f", "-", stdin=json.dumps(
        {"apiVersion": "fitscale.io/v1alpha1", "kind": "Pool", "metadata": {"name": "gpu"},
         "spec": {"weight": 60, "provider": "sim", "typo": True,
                        "requirements": [{"key": "fitscale.io/gpu-model", "operator": "In",
                                          "values": ["a10g"]}],
                        "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}}))
    c.kubectl("patch", "pool", "gpu", "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": {"nodes": 3, "gpus": 12, "usdPerHour": 4.5}}))
    header, rows = header_and_rows(c.kubectl("get", "pools").stdout)
    # "Limits Used" is one column; the header splits on its space.
    assert header == ["NAME", "WEIGHT", "NODES", "GPUS", "USD/H", "LIMITS", "USED", "AGE"], header
    assert rows[0][:5] == ["gpu", "60", "3", "12", "4.5"], rows
    pool = c.kjson("get", "pool", "gpu")
    assert "typo" not in pool["spec"], f"unknown fields must be pruned: {pool['spec']}"
    assert pool["metadata"]["generation"] == 1, pool["metadata"]
    c.kubectl("patch", "pool", "gpu", "--type=merge", "-p", '{"spec":{"weight":70}}')
    assert c.kjson("get", "pool", "gpu")["metadata"]["generation"] == 2
    assert c.kjson("get", "fpool", "gpu")["spec"]["weight"] == 70  # short name

    r = create(c, {"apiVersion": "fitscale.io/v1alpha1", "kind": "Pool",
                   "metadata": {"name": "bad"},
                   "spec": {"weight": 500, "provider": "ec2",
                            "requirements": [{"key": "k", "operator": "Near"}]}}, check=False)
    assert r.returncode != 0
    for expected in ['The Pool "bad" is invalid',
                     "spec.weight: Invalid value: 500: spec.weight in body should be less than "
                     "or equal to 100",
                     'spec.provider: Unsupported value: "ec2"',
                     'spec.requirements[0].operator: Unsupported value: "Near"']:
        assert expected in r.stderr, f"missing {expected!r} in {r.stderr}"

    c.kubectl("create", "namespace", "team-a")
    create(c, {"apiVersion": "fitscale.io/v1alpha1", "kind": "Budget",
               "metadata": {"name": "caps", "namespace": "team-a"},
               "spec": {"usdPerHour": 500, "usdPerDay": 3000, "usdPerMonth": 50000}})
    c.kubectl("patch", "budget", "caps", "-n", "team-a", "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": {"spentToday": 120.5, "spentThisMonth": 900,
                                           "committedUsdPerHour": 42}}))
    header, rows = header_and_rows(c.kubectl("get", "budgets", "-A").stdout)
    assert header[:2] == ["NAMESPACE", "NAME"] and "CAP" in header, header
    assert rows[0][:8] == ["team-a", "caps", "500", "3000", "50000", "120.5", "900", "42"], rows
    # No default for maxRuntimeAction (a Budget's missing key comes from the config file).
    assert "maxRuntimeAction" not in c.kjson("get", "budget", "caps", "-n", "team-a")["spec"]

    create(c, {"apiVersion": "fitscale.io/v1alpha1", "kind": "Launch",
               "metadata": {"name": "l-1"},
               "spec": {"pool": "gpu", "usdPerHour": 1.2,
                        "offering": {"instanceType": "g5.xlarge", "zone": "us-east-1a",
                                     "capacityType": "spot"},
                        "job": {"namespace": "team-a", "name": "train"}}})
    c.kubectl("patch", "launch", "l-1", "--subresource=status", "--type=merge", "-p", json.dumps(
        {"status": {"nodeName": "n-1", "conditions": [
            {"type": "Launched", "status": "True"}, {"type": "Initialized", "status": "True"}]}}))
    header, rows = header_and_rows(c.kubectl("get", "launches").stdout)
    assert header[:8] == ["NAME", "POOL", "TYPE", "ZONE", "CAPACITY", "USD/H", "NODE", "READY"], \
        header
    assert rows[0][:8] == ["l-1", "gpu", "g5.xlarge", "us-east-1a", "spot", "1.2", "n-1", "True"], \
        rows
    assert "JOB" in c.kubectl("get", "launches", "-o", "wide").stdout
    # The fitscale category lists all three kinds.
    listed = c.kubectl("get", "fitscale", "-A", "-o", "name").stdout.split()
    assert sorted(listed) == ["budget.fitscale.io/caps", "launch.fitscale.io/l-1",
                              "pool.fitscale.io/gpu"], listed

    # ProvisioningRequest in both served versions, one storage.
    create(c, {"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
               "metadata": {"name": "pr", "namespace": "team-a"},
               "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
                        "podSets": [{"count": 4, "podTemplateRef": {"name": "tpl"}}]}})
    beta = c.kjson("get", "provisioningrequests.v1beta1.autoscaling.x-k8s.io", "pr", "-n",
                   "team-a")
    assert beta["apiVersion"] == "autoscaling.x-k8s.io/v1beta1", beta["apiVersion"]
    assert beta["spec"]["podSets"][0]["count"] == 4
    r = create(c, {"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "ProvisioningRequest",
                   "metadata": {"name": "zero", "namespace": "team-a"},
                   "spec": {"provisioningClassName": "x",
                            "podSets": [{"count": 0, "podTemplateRef": {"name": "tpl"}}]}},
               check=False)
    assert "spec.podSets[0].count: Invalid value: 0" in r.stderr, r.stderr
    assert c.kubectl("get", "provreq", "-n", "team-a", "-o", "name").stdout.strip() == \
        "provisioningrequest.autoscaling.x-k8s.io/pr"

    # Garbage collection follows owners of custom kinds: a ConfigMap owned by a Pool goes with
    # it (background); one owned by a Budget deleted with --cascade=orphan stays, unowned.
    pool = c.kjson("get", "pool", "gpu")
    budget = c.kjson("get", "budget", "caps", "-n", "team-a")

    def owned_cm(name, ns, owner, kind):
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": name, "namespace": ns, "ownerReferences": [{
                "apiVersion": "fitscale.io/v1alpha1", "kind": kind,
                "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"]}]}}
    c.apply(owned_cm("of-pool", "default", pool, "Pool"))
    c.apply(owned_cm("of-budget", "team-a", budget, "Budget"))
    c.kubectl("delete", "pool", "gpu")
    wait_for("the Pool's ConfigMap to be collected",
             lambda: c.kubectl("get", "configmap", "of-pool", check=False).returncode != 0)
    c.kubectl("delete", "budget", "caps", "-n", "team-a", "--cascade=orphan")
    left = c.kjson("get", "configmap", "of-budget", "-n", "team-a")
    assert not left["metadata"].get("ownerReferences"), left["metadata"]

    # Deleting a definition stops serving it.
    c.kubectl("delete", "crd", "launches.fitscale.io")
    r = c.kubectl("get", "launches", check=False)
    assert r.returncode != 0 and "launches" in r.stderr, r.stderr


def check_dry_run_and_flags(c):
    c.kubectl("create", "namespace", "keep")
    c.apply({"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "cm", "namespace": "keep"}, "data": {"k": "v"}})
    out = c.kubectl("delete", "namespace", "keep", "--dry-run=server").stdout
    assert "server dry run" in out, out
    assert c.kjson("get", "configmap", "cm", "-n", "keep")["data"] == {"k": "v"}
    c.kubectl("delete", "configmap", "cm", "-n", "keep", "--dry-run=server")
    c.kubectl("patch", "configmap", "cm", "-n", "keep", "--dry-run=server", "--type=merge",
              "-p", '{"data":{"k":"changed"}}')
    assert c.kjson("get", "configmap", "cm", "-n", "keep")["data"] == {"k": "v"}

    # watch=True (the Python client's spelling) streams events instead of answering a list.
    with c.open("/api/v1/namespaces?watch=True", timeout=10) as r:
        first = json.loads(r.readline())
    assert first.get("type") == "ADDED", first

    assert c.kubectl("auth", "can-i", "create", "pods").stdout.strip() == "yes"
    assert c.kubectl("auth", "can-i", "delete", "nodes", "--all-namespaces").stdout.strip() == "yes"


def check_object_lifecycle(c):
    c.apply({"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "held", "finalizers": ["example.com/hold"]}})
    c.kubectl("delete", "configmap", "held", "--wait=false")
    held = c.kjson("get", "configmap", "held")
    assert held["metadata"].get("deletionTimestamp"), held["metadata"]
    c.kubectl("patch", "configmap", "held", "--type=json",
              "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    wait_for("the finalized ConfigMap to go",
             lambda: c.kubectl("get", "configmap", "held", check=False).returncode != 0)

    c.apply({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
             "stringData": {"password": "hunter2"}})
    secret = c.kjson("get", "secret", "s")
    assert secret["data"] == {"password": "aHVudGVyMg=="} and "stringData" not in secret, secret

    c.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "api-node"}})
    assert isinstance(c.kjson("get", "node", "api-node").get("spec"), dict)

    create(c, {"apiVersion": "events.k8s.io/v1", "kind": "Event",
               "metadata": {"name": "e1", "namespace": "default"},
               "eventTime": "2026-12-01T12:00:00.000000Z", "reason": "Tested", "type": "Normal",
               "action": "Test", "reportingController": "e2e", "reportingInstance": "e2e-1",
               "regarding": {"kind": "Node", "name": "api-node"}, "note": "from events/v1"})
    core = c.kjson("get", "events.v1.", "e1")
    assert core["message"] == "from events/v1" and core["involvedObject"]["name"] == "api-node", core
    new = c.kjson("get", "events.v1.events.k8s.io", "e1")
    assert new["note"] == "from events/v1" and new["regarding"]["kind"] == "Node", new


def main():
    with scratch_dir("fitscale-e2e-crds-") as tmp, Cluster(tmp) as c:
        try:
            check_crds(c)
            check_dry_run_and_flags(c)
            check_object_lifecycle(c)
        except AssertionError:
            print(c.log_tail(), file=sys.stderr)
            raise
    print("ok")


if __name__ == "__main__":
    main()
