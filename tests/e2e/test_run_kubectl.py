#!/usr/bin/env python3
"""End to end: `fitscale run --provider sim` against `fitscale cluster`, with kubectl as the user.
A GPU Job gets a node with the right labels, runs and succeeds, and the empty node is removed
with events saying why; a gang of 2 x 8 GPUs gets two nodes in one zone; a pod over its budget
gets a refusal event and no node. Starts every process itself on free loopback ports, stops them."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

BINARY = os.environ["FITSCALE_BINARY"]

CONFIG = """
scaleDown:
  emptyAfter: 3s
budgets:
  namespaces:
    broke:
      usdPerHour: 0.05
"""


def wait_for(what, fn, timeout=60):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class World:
    """`fitscale cluster` plus one or more `fitscale run` replicas."""

    def __init__(self, tmp, config=CONFIG):
        self.tmp = tmp
        self.kubeconfig = os.path.join(tmp, "kubeconfig")
        self.config = os.path.join(tmp, "config.yaml")
        with open(self.config, "w") as f:
            f.write(config)
        self.cluster_log = open(os.path.join(tmp, "cluster.log"), "w+")
        self.cluster = subprocess.Popen(
            [BINARY, "cluster", "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kubeconfig,
             "--boot-delay", "1"], stdout=subprocess.PIPE, stderr=self.cluster_log, text=True)
        first = self.cluster.stdout.readline().strip()
        assert first.startswith("listening on http://127.0.0.1:"), f"first line was {first!r}"
        wait_for("kubeconfig", lambda: os.path.exists(self.kubeconfig) and os.path.getsize(self.kubeconfig) > 0)
        self.runs = {}

    def start_run(self, name, *extra):
        log = open(os.path.join(self.tmp, f"run-{name}.log"), "w+")
        proc = subprocess.Popen(
            [BINARY, "run", "--kubeconfig", self.kubeconfig, "--provider", "sim", "--interval", "1",
             "--config", self.config, "--metrics-address", "off", "--id", name, *extra],
            stdout=log, stderr=subprocess.STDOUT, text=True)
        self.runs[name] = (proc, log)
        return proc

    def run_log(self, name):
        log = self.runs[name][1]
        log.flush()
        with open(log.name) as f:
            return f.read()

    def stop(self):
        for name, (proc, _) in self.runs.items():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self.cluster.poll() is None:
            self.cluster.send_signal(signal.SIGTERM)
            try:
                self.cluster.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.cluster.kill()
                self.cluster.wait()

    def kubectl(self, *args, stdin=None, check=True):
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig, *args], input=stdin,
                           capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({r.returncode}): {r.stderr}")
        return r

    def kjson(self, *args):
        return json.loads(self.kubectl(*args, "-o", "json").stdout)

    def apply(self, obj):
        self.kubectl("apply", "--validate=false", "-f", "-", stdin=json.dumps(obj))

    def nodes(self):
        return self.kjson("get", "nodes")["items"]

    def events(self, ns):
        return self.kjson("get", "events", "-n", ns)["items"]


def gpu_job(name, ns, gpus, completions=1, duration="3s", labels=None):
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "completions": completions, "parallelism": completions,
            "template": {
                "metadata": {"labels": labels or {},
                             "annotations": {"fitscale.io/sim-duration": duration}},
                "spec": {"restartPolicy": "Never",
                         "containers": [{"name": "train", "image": "trainer",
                                         "resources": {"requests": {"cpu": "4", "memory": "16Gi",
                                                                    "nvidia.com/gpu": str(gpus)},
                                                       "limits": {"nvidia.com/gpu": str(gpus)}}}]}}}}


def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def pods_of(w, ns):
    return w.kjson("get", "pods", "-n", ns)["items"]


def check_scale_up_and_down(w):
    w.apply(namespace("research"))
    w.apply(gpu_job("train", "research", gpus=1, duration="3s"))
    node = wait_for("a GPU node", lambda: next(iter(w.nodes()), None))
    labels = node["metadata"]["labels"]
    for key in ["node.kubernetes.io/instance-type", "topology.kubernetes.io/zone",
                "topology.kubernetes.io/region", "kubernetes.io/arch", "fitscale.io/capacity-type",
                "fitscale.io/pool", "fitscale.io/gpu-model"]:
        assert key in labels, f"node lacks label {key}: {labels}"
    assert labels["fitscale.io/capacity-type"] == "spot", labels  # spot by default
    gpus = int(node["status"]["allocatable"].get("nvidia.com/gpu", "0"))
    assert gpus >= 1, node["status"]
    wait_for("the job's pod to succeed",
             lambda: [p for p in pods_of(w, "research") if p["status"].get("phase") == "Succeeded"])
    # Empty after its batch work: removed after scaleDown.emptyAfter (3 s).
    wait_for("the empty node to be removed", lambda: not w.nodes(), timeout=60)
    reasons = {e["reason"] for e in w.events("research")}
    assert "TriggeredScaleUp" in reasons, reasons
    node_reasons = {e["reason"]: e["message"] for e in w.events("default")
                    if e["involvedObject"]["kind"] == "Node"}
    assert "RemovingNode" in node_reasons, node_reasons
    assert "empty" in node_reasons["RemovingNode"], node_reasons
    print("scale up and down: ok;", node["metadata"]["labels"]["node.kubernetes.io/instance-type"])


def check_gang(w):
    w.apply(namespace("gang"))
    w.apply(gpu_job("big", "gang", gpus=8, completions=2, duration="3s",
                    labels={"fitscale.io/gang": "big", "fitscale.io/gang-size": "2"}))
    nodes = wait_for("two gang nodes", lambda: (lambda n: n if len(n) >= 2 else None)(w.nodes()))
    zones = {n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes}
    assert len(nodes) == 2, [n["metadata"]["name"] for n in nodes]
    assert len(zones) == 1, f"gang nodes in several zones: {zones}"
    for n in nodes:
        assert int(n["status"]["allocatable"]["nvidia.com/gpu"]) >= 8, n["status"]["allocatable"]
    wait_for("both gang pods to succeed",
             lambda: len([p for p in pods_of(w, "gang") if p["status"].get("phase") == "Succeeded"]) == 2)
    wait_for("the gang's nodes to be removed", lambda: not w.nodes(), timeout=60)
    print("gang: ok; zone", zones.pop())


def check_budget_refusal(w):
    w.apply(namespace("broke"))
    w.apply(gpu_job("expensive", "broke", gpus=8))
    refusal = wait_for("a refusal event", lambda: [e for e in w.events("broke")
                                                    if e["reason"] == "BudgetRefused" or
                                                    (e["type"] == "Warning" and "budget" in e["message"].lower())])
    time.sleep(3)  # a few more loops: still no node for it
    assert not w.nodes(), [n["metadata"]["name"] for n in w.nodes()]
    assert all(p["status"].get("phase") == "Pending" for p in pods_of(w, "broke"))
    print("budget refusal: ok;", refusal[0]["message"])


def main():
    tmp = tempfile.mkdtemp(prefix="fitscale-run-")
    w = World(tmp)
    ok = False
    try:
        w.start_run("replica-a")
        wait_for("informers synced", lambda: "informers synced" in w.run_log("replica-a"), timeout=30)
        check_scale_up_and_down(w)
        check_gang(w)
        check_budget_refusal(w)
        # Every action was logged with its reason.
        log = w.run_log("replica-a")
        assert "launch" in log.lower() and "remov" in log.lower(), log[-3000:]
        ok = True
    finally:
        w.stop()
        if not ok:
            for name in w.runs:
                print(f"--- run {name} log (tail) ---\n" + w.run_log(name)[-4000:], file=sys.stderr)
            w.cluster_log.seek(0)
            print("--- cluster log (tail) ---\n" + w.cluster_log.read()[-3000:], file=sys.stderr)
    # Stopped by SIGTERM: a clean exit.
    for name, (proc, _) in w.runs.items():
        assert proc.returncode == 0, f"fitscale run {name} exited {proc.returncode}"
    print("ok")


if __name__ == "__main__":
    main()
