#!/usr/bin/env python3
"""Issue 12, item 5: `fitscale run` evaluates budget alerts at every loop from the ledger, not
only in loops that plan. A quiet cluster (one job running, nothing pending, nothing to plan)
crosses 50%, 80% and 100% of its namespace's usdPerDay and a local webhook gets each message
once, within two loop intervals of the crossing; a webhook that cannot be reached shows in the
log and in fitscale_budget_alert_failures_total."""
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (Cluster, free_port, gpu_job, http_get, namespace, scratch_dir,  # noqa: E402
                         sim_run_argv, spawn, stop, wait_for, write_file)

INTERVAL_S = 1
# One 8-GPU spot node costs a few dollars an hour: $0.02 is reached within half a minute.
CONFIG = """
budgets:
  namespaces:
    quiet: {{usdPerDay: 0.02, maxRuntime: 10s}}
alerts:
  webhook: {hook}
"""


class Hook(http.server.BaseHTTPRequestHandler):
    received = []  # (monotonic time, text)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Hook.received.append((time.monotonic(), json.loads(body)["text"]))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def start(cluster, tmp, hook_url):
    config = write_file(tmp, "config.yaml", CONFIG.format(hook=hook_url))
    log = os.path.join(tmp, "run.log")
    proc = spawn(sim_run_argv(cluster.kubeconfig, "replica-a", "--lease-namespace", "default",
                              "--config", config, "--metrics-address", "127.0.0.1:0",
                              "--log-format", "json"),
                 stdout=subprocess.DEVNULL, stderr=open(log, "w"))

    def metrics_url():
        for line in open(log):
            if '"fitscale run: starting"' in line:
                return json.loads(line).get("metrics")
        return None
    base = wait_for("fitscale run to log its metrics address", metrics_url, 30, proc=proc, log=log)
    cluster.apply(namespace("quiet"))
    cluster.apply(gpu_job("long", "quiet", gpus=8, duration="300s"))
    return proc, log, base


def spent(text):
    m = re.search(r"has spent \$([0-9.,]+) of its usdPerDay budget of \$([0-9.,]+) \((\d+)%", text)
    assert m, text
    return float(m.group(1).replace(",", "")), float(m.group(2).replace(",", "")), int(m.group(3))


def quiet_cluster_gets_each_threshold():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with scratch_dir("fitscale-alerts-") as tmp, Cluster(tmp, "--boot-delay", "1") as cluster:
            proc, log, _ = start(cluster, tmp, f"http://127.0.0.1:{server.server_address[1]}/hook")
            try:
                wait_for("the 100% alert", lambda: any("(100%" in t for _, t in Hook.received),
                         timeout=120, proc=proc, log=log)
                time.sleep(3 * INTERVAL_S)  # a few more loops: nothing is sent twice
                running = [p for p in cluster.kjson("get", "pods", "-n", "quiet")["items"]
                           if p["status"].get("phase") == "Running"]
                assert running, "the job should still run: the cluster was quiet, not idle"
            finally:
                stop(proc)
    finally:
        server.shutdown()
        server.server_close()
    # The job also runs past its maxRuntime of 10s: those alerts (once per 10s period) are not
    # spend thresholds.
    got = [(t, spent(text)) for t, text in Hook.received if "has spent" in text]
    assert [pct for _, (_, _, pct) in got] == [50, 80, 100], [text for _, text in Hook.received]
    overran = [text for _, text in Hook.received if "past its worst case" in text]
    assert overran and all("job quiet/long" in t for t in overran), overran
    assert len(set(overran)) == len(overran), f"an overrun alert was sent twice: {overran}"
    # Spend grows at the node's price: from the first and last message, dollars per second.
    (t0, (s0, cap, _)), (t1, (s1, _, _)) = got[0], got[-1]
    rate = (s1 - s0) / (t1 - t0)
    assert rate > 0, got
    for _, (s, cap, pct) in got:
        late_s = (s - cap * pct / 100) / rate
        assert late_s <= 2 * INTERVAL_S + 1, f"{pct}% sent {late_s:.1f}s after it was crossed: {got}"
    print(f"quiet cluster: 50/80/100% of ${cap} received once each, at ${rate * 3600:.2f}/h")


def unreachable_hook_is_logged_and_counted():
    dead = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    with scratch_dir("fitscale-alerts-dead-") as tmp, Cluster(tmp, "--boot-delay", "1") as cluster:
        proc, log, base = start(cluster, tmp, dead)
        try:
            def failed():
                return "budget alert not delivered" in open(log).read() and re.search(
                    r"^fitscale_budget_alert_failures_total [1-9]", http_get(base + "/metrics")[1],
                    re.M)
            wait_for("a logged and counted webhook failure", failed, timeout=120, proc=proc, log=log)
        finally:
            stop(proc)
        line = next(json.loads(l) for l in open(log) if "budget alert not delivered" in l)
        assert "namespace quiet" in json.dumps(line), line
    print("unreachable webhook: logged and counted in fitscale_budget_alert_failures_total")


def main():
    quiet_cluster_gets_each_threshold()
    unreachable_hook_is_logged_and_counted()
    print("ok")


if __name__ == "__main__":
    main()
