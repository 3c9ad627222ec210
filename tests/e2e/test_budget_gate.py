#!/usr/bin/env python3
"""End to end: the budget gate (issue 12, item 2) through the real webhook path.

`fitscale cluster` (the virtual cluster) calls `fitscale run`'s mutating admission webhook
(--webhook-address, HTTPS with a certificate this test makes) as kube-apiserver does, through a
MutatingWebhookConfiguration applied with kubectl. Namespace team-capped has usdPerHour 4.50 and
runs a job that fills a $3.912/h on-demand g4dn.12xlarge (4 GPUs); team-open runs a 1-GPU job on
another g4dn.12xlarge, 3 GPUs free. A second team-capped job (1 GPU) would fit that free room,
but its $0.978/h share would take the namespace over its cap:

- its pod carries the gate fitscale.io/budget (kubectl jsonpath) and a BudgetWait event saying
  what must free up, and for several loops it never runs on team-open's node, nor anywhere,
  and nothing is launched for it;
- team-open's pod ran (its gate removed at once);
- when the first team-capped job finishes (spend allows), the gated pod is un-gated and starts.

Needs: FITSCALE_BINARY, kubectl, openssl."""
import base64
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, World, free_port, namespace, scratch_dir, wait_for  # noqa: E402
from test_vcluster_webhooks import self_signed  # noqa: E402

CONFIG = """
scaleDown:
  emptyAfter: 5s
  delayAfterLaunch: 0s
budgets:
  gate: true
  namespaces:
    team-capped: {usdPerHour: 4.5}
    team-open: {usdPerHour: 100}
"""
GATE = "fitscale.io/budget"


def job(name, ns, gpus, duration):
    """A Job of one pod on an on-demand g4dn.12xlarge (no spot interruptions in the test)."""
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"template": {
            "metadata": {"annotations": {"fitscale.io/sim-duration": duration}},
            "spec": {"restartPolicy": "Never",
                     "nodeSelector": {"node.kubernetes.io/instance-type": "g4dn.12xlarge",
                                      "fitscale.io/capacity-type": "on-demand"},
                     "containers": [{"name": "train", "image": "trainer",
                                     "resources": {"requests": {"cpu": "2", "memory": "8Gi",
                                                                "nvidia.com/gpu": str(gpus)},
                                                   "limits": {"nvidia.com/gpu": str(gpus)}}}]}}}}


def webhook_configuration(url, ca_file):
    """What the chart installs (templates/budget-gate.yaml), with clientConfig.url in place of
    the Service (the virtual cluster runs no Services)."""
    with open(ca_file, "rb") as f:
        ca = base64.b64encode(f.read()).decode()
    return {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "fitscale-budget-gate"},
        "webhooks": [{
            "name": "budget-gate.fitscale.io", "admissionReviewVersions": ["v1"],
            "sideEffects": "None", "failurePolicy": "Fail", "timeoutSeconds": 5,
            "reinvocationPolicy": "IfNeeded",
            "clientConfig": {"url": url, "caBundle": ca},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["pods"], "scope": "Namespaced"}],
            "namespaceSelector": {"matchExpressions": [{
                "key": "kubernetes.io/metadata.name", "operator": "NotIn",
                "values": ["kube-system"]}]}}]}


def main():
    with scratch_dir("fitscale-gate-") as tmp, World(tmp, config=CONFIG) as w:
        cert, key = self_signed(tmp, "webhook")
        # Budget objects are read from the start (a CRD installed later is seen after a restart).
        w.kubectl("apply", "--validate=false", "-f", os.path.join(SOURCE_DIR, "deploy", "crds"))
        w.kubectl("wait", "--for", "condition=established", "--timeout=30s", "crd", "budgets.fitscale.io")
        port = free_port()
        w.start_synced("replica-a", "--webhook-address", f"127.0.0.1:{port}",
                       "--webhook-cert-file", cert, "--webhook-key-file", key, leads=True)
        url = f"https://127.0.0.1:{port}/budget-gate"
        assert f"budget gate webhook: serving" in w.run_log("replica-a"), w.run_log("replica-a")[-2000:]
        w.apply(webhook_configuration(url, cert))
        for ns in ("team-capped", "team-open"):
            w.apply(namespace(ns))

        def pods(ns, prefix):
            return [p for p in w.pods(ns) if p["metadata"]["name"].startswith(prefix)]

        def running(ns, prefix):
            return [p for p in pods(ns, prefix) if p["status"].get("phase") == "Running"]

        # 1. team-capped's first job fills a node of its own: it is gated at creation, admitted,
        #    un-gated, launched for, and runs.
        w.apply(job("first", "team-capped", gpus=4, duration="40s"))
        first = wait_for("team-capped/first to run", lambda: running("team-capped", "first"), timeout=60)
        first_node = first[0]["spec"]["nodeName"]
        wait_for("the ungate log line of team-capped/first",
                 lambda: "ungate team-capped/first" in w.run_log("replica-a"), timeout=10)
        started_at = time.monotonic()

        # 2. team-open's 1-GPU job: its own node, 3 GPUs of it free.
        w.apply(job("open", "team-open", gpus=1, duration="120s"))
        opened = wait_for("team-open/open to run", lambda: running("team-open", "open"), timeout=60)
        open_node = opened[0]["spec"]["nodeName"]
        assert open_node != first_node, (open_node, first_node)
        assert not opened[0]["spec"].get("schedulingGates"), opened[0]["spec"]
        nodes_before = {n["metadata"]["name"] for n in w.nodes()}
        assert nodes_before == {first_node, open_node}, nodes_before

        # 3. team-capped's second job would fit team-open's free GPUs, but not its cap.
        w.apply(job("second", "team-capped", gpus=1, duration="5s"))
        second = wait_for("team-capped/second to exist", lambda: pods("team-capped", "second"), timeout=20)
        name = second[0]["metadata"]["name"]
        gates = w.kubectl("get", "pod", name, "-n", "team-capped", "-o",
                          "jsonpath={.spec.schedulingGates}").stdout
        assert GATE in gates, f"pod {name} has no budget gate: {gates!r}"
        wait_events = wait_for("a BudgetWait event on the gated pod", lambda: [
            e for e in w.events("team-capped")
            if e["reason"] == "BudgetWait" and e["involvedObject"]["name"] == name], timeout=20)
        message = wait_events[0]["message"]
        assert "usdPerHour" in message and "to free up" in message, message
        assert wait_events[0]["type"] == "Warning", wait_events[0]
        # Several loops (1 s each) while the first job still runs: still gated, never bound (not
        # to team-open's free GPUs, not anywhere), nothing launched for it.
        assert time.monotonic() - started_at < 30, "the first job may have finished already"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            p = w.kjson("get", "pod", name, "-n", "team-capped")
            assert not p["spec"].get("nodeName"), f"gated pod was bound to {p['spec'].get('nodeName')}"
            assert GATE in [g["name"] for g in p["spec"].get("schedulingGates", [])], p["spec"]
            assert {n["metadata"]["name"] for n in w.nodes()} == nodes_before, "a node was launched"
            time.sleep(0.5)
        print("gated: ok;", message)

        # 4. The first job finishes: spend allows, the gate goes and the pod starts.
        started = wait_for("team-capped/second to be un-gated and run",
                           lambda: running("team-capped", "second"), timeout=90)
        assert not started[0]["spec"].get("schedulingGates"), started[0]["spec"]
        log = w.run_log("replica-a")
        assert f"ungate team-capped/{name}" in log, log[-3000:]
        print("un-gated and running: ok, on", started[0]["spec"]["nodeName"])

        # 5. A namespace capped only by its Budget object (not in the config) is budgeted too:
        #    the webhook gates by the live budgets; a namespace with no budget at all is not.
        for ns in ("team-object", "team-free"):
            w.apply(namespace(ns))
        w.apply({"apiVersion": "fitscale.io/v1alpha1", "kind": "Budget",
                 "metadata": {"name": "caps", "namespace": "team-object"},
                 "spec": {"usdPerHour": 0.5}})

        def bare_pod(ns, name):
            return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
                    "spec": {"restartPolicy": "Never", "containers": [{
                        "name": "c", "image": "busybox",
                        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}

        def gates_of(ns, name):
            return [g["name"] for g in w.kjson("get", "pod", name, "-n", ns)["spec"].get("schedulingGates", [])]

        def created_gated(ns):
            # The Budget takes effect at the replica's next loop: a pod created before is not gated.
            name = f"probe-{int(time.monotonic() * 1000)}"
            w.apply(bare_pod(ns, name))
            return GATE in gates_of(ns, name)

        wait_for("a new pod of team-object (Budget object only) to carry the gate",
                 lambda: created_gated("team-object"), timeout=30)
        w.apply(bare_pod("team-free", "free"))
        assert GATE not in gates_of("team-free", "free"), gates_of("team-free", "free")
        print("Budget-object namespace gated, unbudgeted namespace not: ok")
    print("ok")


if __name__ == "__main__":
    main()
