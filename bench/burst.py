#!/usr/bin/env python3
"""A burst of PODS pods against `fitscale cluster` (boot delay 5 s) and `fitscale run --provider
sim`, the figures issue 20 sets targets for (docs/PERFORMANCE.md, "Bursts"):

- launched_s: from the pods' creation until the last instance launch fitscale made for them
  (every pod has a node launched for it by then);
- running_s: from the pods' creation until every pod is Running;
- the longest loop (the `total_s` of fitscale's info-level "loop" lines) and the number of loops;
- fitscale run's peak RSS (VmHWM);
- pods Failed at the end (a removal must never make a pod fail);
- with --quiet S: the CPU fitscale run spends per loop over S seconds once nothing changes.

Not a CI test (minutes, and it loads the machine). Rerun:

    cmake --build build --target fitscale
    FITSCALE_BINARY=build/src/fitscale python3 bench/burst.py --pods 10000
    FITSCALE_BINARY=build/src/fitscale python3 bench/burst.py --pods 50000 --quiet 30

Pods come from Jobs applied with kubectl (PODS/JOBS pods each, 250m CPU, 256Mi, running until
deleted); nodes only from fitscale's launches."""
import argparse
import json
import os
import sys
import time

import bench_jobs  # noqa: E402  (puts tests/e2e on the path)
from e2e_support import Cluster, free_port, http_get, scratch_dir, sim_run_argv, spawn, stop, wait_for  # noqa: E402

NS = "burst"

# The default cluster caps (2,000 nodes, $2,000/h) would hold most of a 50,000-pod burst of
# small nodes back: raised so the burst measures speed, not budgets.
CONFIG = """
scaleDown:
  emptyAfter: 60s
budgets:
  cluster: {usdPerHour: 1000000, gpus: 100000, nodes: 100000}
  default: {usdPerHour: 1000000, usdPerDay: 100000000, usdPerMonth: 1000000000}
"""


def count(c, selector):
    status, body = c.http("GET", f"/api/v1/namespaces/{NS}/pods?limit=1&fieldSelector={selector}")
    assert status == 200, body
    return (1 + body["metadata"].get("remainingItemCount", 0)) if body["items"] else 0


class RunLog:
    """fitscale run's JSON log, read as it grows: when each launch happened, every loop's time."""

    def __init__(self, path):
        self.path, self.offset = path, 0
        self.last_launch = None
        self.loops = []
        self.lines = 0

    def poll(self):
        with open(self.path) as f:
            f.seek(self.offset)
            chunk = f.read()
        cut = chunk.rfind("\n") + 1
        self.offset += len(chunk[:cut].encode())
        now = time.monotonic()
        for line in chunk[:cut].splitlines():
            self.lines += 1
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            msg = rec.get("msg", "")
            if msg == "loop":
                self.loops.append(float(rec.get("total_s", 0)))
                if int(rec.get("launched", 0)) > 0:
                    self.last_launch = now


def proc_stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick  # utime + stime


def vm_hwm_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0


def metric_sum(url, name):
    total = 0.0
    for line in http_get(url)[1].splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            total += float(line.rsplit(" ", 1)[1])
    return total


def measure(pods, jobs, quiet_s, timeout, log=print):
    with scratch_dir("burst") as tmp:
        return measure_in(tmp, pods, jobs, quiet_s, timeout, log)


def measure_in(tmp, pods, jobs, quiet_s, timeout, log):
    cfg = os.path.join(tmp, "config.yaml")
    with open(cfg, "w") as f:
        f.write(CONFIG)
    out = {"pods": pods}
    with Cluster(tmp, "--boot-delay", "5") as c:
        port = free_port()
        run_log_path = os.path.join(tmp, "run.log")
        run_log = open(run_log_path, "w")
        proc = spawn(sim_run_argv(c.kubeconfig, "burst", "--config", cfg, "--log-format", "json",
                                  "--metrics-address", f"127.0.0.1:{port}"),
                     stdout=run_log, stderr=run_log)
        metrics = f"http://127.0.0.1:{port}/metrics"
        try:
            rl = RunLog(run_log_path)
            wait_for("informers synced", lambda: (rl.poll(), "informers synced" in open(run_log_path).read())[1],
                     timeout=60, proc=proc)
            c.kubectl("create", "namespace", NS)
            t0 = time.monotonic()
            total = bench_jobs.apply_jobs(c, NS, pods, jobs)
            log(f"{total} pods in {jobs} Jobs applied in {time.monotonic() - t0:.1f} s")

            def all_running():
                rl.poll()
                return count(c, "status.phase%3DRunning") >= total
            wait_for(f"{total} Running pods", all_running, timeout=timeout, interval=2, proc=proc,
                     log=run_log_path)
            out["running_s"] = time.monotonic() - t0
            rl.poll()
            out["launched_s"] = (rl.last_launch - t0) if rl.last_launch else None
            out["loops"] = len(rl.loops)
            out["longest_loop_s"] = max(rl.loops) if rl.loops else None
            out["failed_pods"] = count(c, "status.phase%3DFailed")
            out["nodes"] = len(c.kjson("get", "nodes")["items"])
            out["run_rss_mb"] = vm_hwm_mb(proc.pid)
            log(f"every pod launched for in {out['launched_s']:.1f} s; all Running in "
                f"{out['running_s']:.1f} s; {out['nodes']} nodes; longest loop "
                f"{out['longest_loop_s']:.2f} s of {out['loops']}; {out['failed_pods']} Failed; "
                f"fitscale run peak RSS {out['run_rss_mb']:.0f} MB")
            if quiet_s:
                time.sleep(5)  # the last bindings' changes settle
                loops0 = metric_sum(metrics, "fitscale_loop_duration_seconds_count")
                cpu0 = proc_stat(proc.pid)
                time.sleep(quiet_s)
                loops = metric_sum(metrics, "fitscale_loop_duration_seconds_count") - loops0
                cpu = proc_stat(proc.pid) - cpu0
                out["quiet_loops"] = loops
                out["quiet_cpu_ms_per_loop"] = 1000 * cpu / loops if loops else None
                log(f"quiet: {loops:.0f} loops in {quiet_s} s at {out['nodes']} nodes, "
                    f"{1000 * cpu:.0f} ms CPU ({out['quiet_cpu_ms_per_loop']:.1f} ms a loop)")
            out["run_rss_mb"] = vm_hwm_mb(proc.pid)
        finally:
            stop(proc)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--quiet", type=int, default=0, help="seconds of quiet loops to measure CPU over")
    ap.add_argument("--timeout", type=int, default=540)
    ap.add_argument("--json")
    a = ap.parse_args()
    out = measure(a.pods, a.jobs, a.quiet, a.timeout)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
