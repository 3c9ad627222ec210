#!/usr/bin/env python3
"""An operator scrapes a running `fitscale run`: /metrics passes `promtool check metrics` with no
complaint and shows the launch fitscale just made; /healthz answers; /readyz turns ready once the
informers synced and the leader finished a loop. The JSON logs carry that launch as one line.

Starts `fitscale cluster` (the virtual cluster, simulated cloud) and `fitscale run --provider sim`
on free loopback ports. Needs: FITSCALE_BINARY, kubectl, promtool (Debian package prometheus)."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, Cluster, fail, http_get, scratch_dir, sim_run_argv, spawn, stop, wait_for  # noqa: E402

PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "train-0", "namespace": "default"},
       "spec": {"restartPolicy": "Never",
                "containers": [{"name": "main", "image": "busybox",
                                "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}


def sample(text, name, labels=None):
    total = None
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$", line)
        if not m or m.group(1) != name:
            continue
        if labels and not all(f'{k}="{v}"' in (m.group(2) or "") for k, v in labels.items()):
            continue
        total = (total or 0) + float(m.group(3))
    return total


def main():
    with scratch_dir("fitscale-metrics-") as tmp, Cluster(tmp, "--boot-delay", "1") as cluster:
        kubeconfig = cluster.kubeconfig
        cluster_metrics = cluster.metrics_url

        run_log = os.path.join(tmp, "run.log")
        run = spawn(sim_run_argv(kubeconfig, "replica-a", "--lease-namespace", "default",
                                 "--metrics-address", "127.0.0.1:0", "--log-format", "json"),
                    stdout=subprocess.DEVNULL, stderr=open(run_log, "w"))
        try:
            def metrics_url():
                for line in open(run_log):
                    if '"fitscale run: starting"' in line:
                        return json.loads(line).get("metrics")
                return None
            base = wait_for("fitscale run to log its metrics address", metrics_url, 30, proc=run, log=run_log)
            if not base.startswith("http://127.0.0.1:"):
                fail(f"metrics served on {base}, want loopback")

            status, body, _ = http_get(base + "/healthz")
            if status != 200:
                fail(f"/healthz answered {status}")
            wait_for("/readyz to turn ready", lambda: http_get(base + "/readyz")[0] == 200, 60)

            cluster.apply(POD)

            def launched():
                s, text, _ = http_get(base + "/metrics")
                return text if s == 200 and (sample(text, "fitscale_launches_total") or 0) >= 1 else None
            text = wait_for("fitscale_launches_total >= 1", launched, 60)
            # Let the node register so node metrics and the OpenCost names show up too.
            text = wait_for("a ready node in fitscale_nodes",
                            lambda: (lambda t: t if (sample(t, "fitscale_nodes", {"state": "ready"}) or 0) >= 1 else None)(
                                http_get(base + "/metrics")[1]), 60)
            status, text, ctype = http_get(base + "/metrics")
            if "text/plain" not in ctype or "version=0.0.4" not in ctype:
                fail(f"/metrics content type {ctype!r}, want text/plain; version=0.0.4")

            path = os.path.join(tmp, "metrics.txt")
            open(path, "w").write(text)
            check = subprocess.run([PROMTOOL, "check", "metrics"], stdin=open(path), capture_output=True, text=True,
                                   timeout=60)
            if check.returncode != 0 or check.stdout.strip() or check.stderr.strip():
                fail(f"promtool check metrics complained (exit {check.returncode}):\n{check.stdout}{check.stderr}")

            # Normal operation fills no overflow series (issue 13: the series limit counted its own
            # "_other" slot, so the last loop phase and the "skipped" loops were folded into it).
            if "_other" in text:
                fail("an _other series in normal operation:\n" +
                     "\n".join(l for l in text.splitlines() if "_other" in l))
            # Loops are timed on the monotonic clock (issue 13: always 0), as a whole and by phase.
            loops = sample(text, "fitscale_loop_duration_seconds_count") or 0
            if loops < 2 or not (sample(text, "fitscale_loop_duration_seconds_sum") or 0) > 0:
                fail(f"fitscale_loop_duration_seconds: {loops} loops and a sum of "
                     f"{sample(text, 'fitscale_loop_duration_seconds_sum')}, want > 0")
            for phase in ["observe", "plan", "act", "record"]:
                if not (sample(text, "fitscale_loop_phase_duration_seconds_count", {"phase": phase}) or 0) >= 1:
                    fail(f"no {phase} phase in fitscale_loop_phase_duration_seconds:\n" +
                         "\n".join(l for l in text.splitlines() if "phase" in l))
            if not (sample(text, "fitscale_loop_phase_duration_seconds_sum", {"phase": "plan"}) or 0) > 0:
                fail("the plan phase took no time at all")
            if not (sample(text, "fitscale_loops_total", {"result": "planned"}) or 0) >= 1:
                fail("no planned loop counted under its own label:\n" +
                     "\n".join(l for l in text.splitlines() if "loops_total" in l))

            for name in ["fitscale_loop_duration_seconds_bucket", "fitscale_pending_pods", "fitscale_unschedulable_pods",
                         "fitscale_plan_launches", "fitscale_nodes", "fitscale_launches_total",
                         "fitscale_interruptions_total", "fitscale_never_registered_total",
                         "fitscale_committed_usd_per_hour"]:
                if sample(text, name) is None:
                    fail(f"{name} missing from /metrics:\n{text}")
            # The virtual cluster serves its own /metrics, also lint-clean, counting the launched node.
            _, ctext, _ = http_get(cluster_metrics)
            ccheck = subprocess.run([PROMTOOL, "check", "metrics"], input=ctext, capture_output=True, text=True,
                                    timeout=60)
            if ccheck.returncode != 0 or ccheck.stdout.strip() or ccheck.stderr.strip():
                fail(f"promtool check metrics complained about fitscale cluster:\n{ccheck.stdout}{ccheck.stderr}")
            if not wait_for("the cluster's metrics to count the node",
                            lambda: (sample(http_get(cluster_metrics)[1], "fitscale_cluster_nodes") or 0) >= 1, 30):
                fail("fitscale cluster's /metrics never counted the node")

            # The OpenCost names are served on their own path (node_gpu_count breaks promtool's naming
            # lint, and /metrics must be clean); the ServiceMonitor scrapes both.
            status, oc, _ = http_get(base + "/metrics/opencost")
            if status != 200:
                fail(f"/metrics/opencost answered {status}")
            for name in ["node_total_hourly_cost", "node_cpu_hourly_cost", "node_ram_hourly_cost",
                         "node_gpu_hourly_cost", "node_gpu_count", "kubecost_node_is_spot"]:
                if sample(oc, name) is None:
                    fail(f"{name} missing from /metrics/opencost:\n{oc}")
            m = re.search(r'^node_total_hourly_cost\{node="([^"]+)"', oc, re.M)
            node = {"node": m.group(1)}
            total = sample(oc, "node_total_hourly_cost", node)
            committed = sample(text, "fitscale_committed_usd_per_hour", {"namespace": "default"})
            if not total or total <= 0 or not committed or committed <= 0:
                fail(f"a launched node must cost something: node_total_hourly_cost={total} committed={committed}")

            # Every metric the Grafana dashboard queries is one fitscale serves.
            dashboard = json.load(open(os.path.join(SOURCE_DIR, "deploy/grafana/fitscale.json")))
            exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p.get("targets", []))
            served = set(re.findall(r"^# TYPE (\S+)", text + oc, re.M))
            for name in sorted(set(re.findall(r"\b((?:fitscale|node|kubecost)_[a-z_]+)\{", exprs))):
                base_name = re.sub(r"_bucket$", "", name)
                if base_name not in served:
                    fail(f"the Grafana dashboard queries {name}, which fitscale does not serve")

            # Logs: JSON lines only, the launch is one line with its reason.
            lines = [l for l in open(run_log).read().splitlines() if l.strip()]
            parsed = []
            for l in lines:
                try:
                    parsed.append(json.loads(l))
                except ValueError:
                    fail(f"not a JSON log line: {l!r}")
            launches = [p for p in parsed if p.get("action") == "launch"]
            if not launches or not launches[0].get("reason") or launches[0].get("level") != "info":
                fail(f"no launch line with a reason in the log: {lines[-10:]}")
            print(f"ok: promtool clean on {len(text.splitlines())} lines; launched {sample(text, 'fitscale_launches_total'):.0f}; "
                  f"node ${total:.4f}/h; launch logged: {launches[0]['msg'][:90]}")
        finally:
            stop(run)


if __name__ == "__main__":
    main()
