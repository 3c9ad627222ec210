#!/usr/bin/env python3
"""The virtual cluster at scale: NODES nodes and PODS running pods in `fitscale cluster`, then
the figures docs/PERFORMANCE.md reports:

- list latency: a full pod list (one GET), a paged list (limit=500, every page), a node list,
  and `kubectl get pods -A` / `kubectl get nodes` (kubectl pages by 500 and asks for Tables);
- watch event latency: from sending a PATCH (or a POST) to the matching MODIFIED (ADDED) event
  arriving on a pod watch opened beforehand;
- `fitscale run --provider sim` loop time against that cluster (fitscale_loop_duration_seconds
  from its /metrics, after its informers synced).

Not a CI test (4,000 nodes and 50,000 pods take minutes to build); tests/e2e/test_vcluster_scale.py
runs the same steps at 400 nodes / 5,000 pods. Rerun:

    cmake --build build --target fitscale
    FITSCALE_BINARY=build/src/fitscale python3 bench/vcluster_scale.py               # 4000 / 50000
    FITSCALE_BINARY=build/src/fitscale python3 bench/vcluster_scale.py --nodes 400 --pods 5000

Nodes come from the simulated cloud (sim-cloud/launch, 1,000 per call, m5.xlarge, 1 s boot
delay); pods from Jobs applied with kubectl (`--jobs` Jobs of PODS/JOBS pods each, 250m CPU,
running until deleted), bound by the cluster's scheduler. Prints one line per figure and, with
--json FILE, writes them all."""
import argparse
import http.client
import json
import os
import re
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

import bench_jobs  # noqa: E402  (puts tests/e2e on the path)
import e2e_support  # noqa: E402
from e2e_support import Cluster, free_port, scratch_dir, sim_run_argv, spawn, stop, wait_for  # noqa: E402

NS = "scale"


class Api:
    """One keep-alive HTTPS connection to the cluster (what an informer holds)."""

    def __init__(self, url, ctx, timeout=300):
        u = urllib.parse.urlparse(url)
        self.host, self.port, self.ctx, self.timeout = u.hostname, u.port, ctx, timeout
        self.https = u.scheme == "https"
        self.conn = self._connect()

    def _connect(self):
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=self.timeout)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def request(self, method, path, body=None, content_type="application/json"):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection: open another, as clients do.
                self.conn.close()
                self.conn = self._connect()
                if attempt == 2:
                    raise

    def json(self, method, path, body=None, content_type="application/json"):
        status, raw = self.request(method, path, body, content_type)
        return status, json.loads(raw) if raw else None


def timed(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.monotonic()
        fn()
        out.append(time.monotonic() - t0)
    return out


def summary(samples):
    s = sorted(samples)
    return {"median": statistics.median(s), "min": s[0], "max": s[-1], "n": len(s)}


def fmt(name, st, unit="s"):
    scale = 1000 if unit == "ms" else 1
    return (f"{name}: median {st['median'] * scale:.1f} {unit} (min {st['min'] * scale:.1f}, "
            f"max {st['max'] * scale:.1f}, n={st['n']})")


def count(api, path):
    status, body = api.json("GET", path + ("&" if "?" in path else "?") + "limit=1")
    assert status == 200, body
    return 1 + body["metadata"].get("remainingItemCount", 0) if body["items"] else 0


def running_pods(api):
    status, body = api.json("GET", f"/api/v1/namespaces/{NS}/pods?fieldSelector=status.phase%3DRunning&limit=1")
    assert status == 200, body
    return (1 + body["metadata"].get("remainingItemCount", 0)) if body["items"] else 0


def build(c, api, nodes, pods, jobs, log):
    t0 = time.monotonic()
    left = nodes
    while left > 0:
        n = min(1000, left)
        status, res = c.http("POST", "/fitscale.io/sim-cloud/launch", {
            "instance_type": "m5.xlarge", "zone": "us-east-1a", "capacity_type": "on-demand",
            "count": n, "pool": "default", "owner_namespace": NS, "job": "scale",
            "client_token": f"scale-{left}"})
        assert status == 200, res
        left -= n
    wait_for(f"{nodes} nodes", lambda: count(api, "/api/v1/nodes") >= nodes, timeout=600, interval=1)
    t_nodes = time.monotonic() - t0
    log(f"{nodes} nodes registered in {t_nodes:.1f} s")
    c.kubectl("create", "namespace", NS)
    t1 = time.monotonic()
    total = bench_jobs.apply_jobs(c, NS, pods, jobs)
    wait_for(f"{total} running pods", lambda: running_pods(api) >= total, timeout=1800, interval=2)
    t_pods = time.monotonic() - t1
    log(f"{total} pods created, bound and Running in {t_pods:.1f} s")
    return {"nodes_ready_s": t_nodes, "pods_running_s": t_pods, "pods": total}


def list_latency(c, api, repeat, log):
    out = {}

    def full():
        status, raw = api.request("GET", f"/api/v1/pods")
        assert status == 200
        out["full_list_bytes"] = len(raw)
    out["pods_full_list"] = summary(timed(full, repeat))
    log(fmt(f"GET /api/v1/pods ({out['full_list_bytes'] / 1e6:.0f} MB)", out["pods_full_list"]))

    pages = []

    def paged():
        token, n = "", 0
        while True:
            t = time.monotonic()
            q = "limit=500" + ("&continue=" + urllib.parse.quote(token) if token else "")
            status, body = api.json("GET", f"/api/v1/pods?{q}")
            pages.append(time.monotonic() - t)
            assert status == 200, body
            n += len(body["items"])
            token = body["metadata"].get("continue")
            if not token:
                break
        out["paged_items"] = n
    out["pods_paged_list"] = summary(timed(paged, repeat))
    out["pods_one_page"] = summary(pages)
    log(fmt("paged pod list, limit=500, all pages", out["pods_paged_list"]))
    log(fmt("  one page of 500", out["pods_one_page"], "ms"))

    out["nodes_full_list"] = summary(timed(lambda: api.request("GET", "/api/v1/nodes"), repeat))
    log(fmt("GET /api/v1/nodes", out["nodes_full_list"]))

    def kubectl_pods():
        r = c.kubectl("get", "pods", "-A", "--no-headers", timeout=600)
        out["kubectl_pod_rows"] = len(r.stdout.splitlines())
    out["kubectl_get_pods"] = summary(timed(kubectl_pods, repeat))
    log(fmt(f"kubectl get pods -A ({out['kubectl_pod_rows']} rows)", out["kubectl_get_pods"]))
    out["kubectl_get_nodes"] = summary(timed(lambda: c.kubectl("get", "nodes", "--no-headers", timeout=600), repeat))
    log(fmt("kubectl get nodes", out["kubectl_get_nodes"]))
    return out


class PodWatch:
    """A watch on the namespace's pods from `rv`, recording when each event arrived."""

    def __init__(self, api, rv):
        self.arrived = {}  # (type, name, marker) -> monotonic time
        self.lock = threading.Lock()
        self.conn = api._connect()
        self.conn.request("GET", f"/api/v1/namespaces/{NS}/pods?watch=1&resourceVersion={rv}"
                          "&allowWatchBookmarks=true", headers={"Accept": "application/json"})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200, self.resp.status
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        try:
            for line in self.resp:
                now = time.monotonic()
                if not line.strip():
                    continue
                ev = json.loads(line)
                md = ev["object"].get("metadata", {})
                marker = (md.get("annotations") or {}).get("bench/marker", "")
                with self.lock:
                    self.arrived.setdefault((ev["type"], md.get("name"), marker), now)
        except Exception:
            pass  # closed at the end

    def when(self, key):
        with self.lock:
            return self.arrived.get(key)

    def close(self):
        try:
            self.conn.sock.shutdown(2)
        except Exception:
            pass
        self.conn.close()


def watch_latency(c, api, samples, log):
    status, lst = api.json("GET", f"/api/v1/namespaces/{NS}/pods?limit=1")
    rv = lst["metadata"]["resourceVersion"]
    status, some = api.json("GET", f"/api/v1/namespaces/{NS}/pods?limit={samples}")
    names = [p["metadata"]["name"] for p in some["items"]]
    w = PodWatch(api, rv)
    patch_lat, add_lat = [], []
    try:
        for i, name in enumerate(names):
            marker = f"m{i}"
            t0 = time.monotonic()
            status, _ = api.request("PATCH", f"/api/v1/namespaces/{NS}/pods/{name}",
                                    {"metadata": {"annotations": {"bench/marker": marker}}},
                                    "application/merge-patch+json")
            assert status == 200, status
            key = ("MODIFIED", name, marker)
            wait_for(f"the watch event of {name}", lambda k=key: w.when(k), timeout=60, interval=0.001)
            patch_lat.append(w.when(key) - t0)
        for i in range(samples):
            name, marker = f"watched-{i}", f"a{i}"
            t0 = time.monotonic()
            status, _ = api.request("POST", f"/api/v1/namespaces/{NS}/pods", {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "annotations": {"bench/marker": marker}},
                "spec": {"schedulerName": "none", "containers": [{"name": "c", "image": "busybox"}]}})
            assert status == 201, status
            key = ("ADDED", name, marker)
            wait_for(f"the ADDED event of {name}", lambda k=key: w.when(k), timeout=60, interval=0.001)
            add_lat.append(w.when(key) - t0)
    finally:
        w.close()
    out = {"watch_patch_to_event": summary(patch_lat), "watch_create_to_event": summary(add_lat)}
    log(fmt("watch: PATCH sent -> MODIFIED received", out["watch_patch_to_event"], "ms"))
    log(fmt("watch: POST sent -> ADDED received", out["watch_create_to_event"], "ms"))
    return out


def metric(text, name):
    m = re.search(r"^" + re.escape(name) + r"(?:\{\})? ([0-9.e+-]+)$", text, re.M)
    return float(m.group(1)) if m else None


def run_loop_time(c, tmp, loops, log):
    cfg = e2e_support.write_file(tmp, "run.yaml", "scaleDown:\n  emptyAfter: 10m\n")
    port = free_port()
    runlog_path = os.path.join(tmp, "run.log")
    runlog = open(runlog_path, "w+")
    proc = spawn(sim_run_argv(c.kubeconfig, "scale", "--config", cfg, "--metrics-address",
                              f"127.0.0.1:{port}"), stdout=runlog, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/metrics"

    def loop_stats():
        """(loops done, seconds spent in them) from fitscale run's /metrics; None before it serves."""
        try:
            text = e2e_support.http_get(url, timeout=30)[1]
        except OSError:
            return None
        n = metric(text, "fitscale_loop_duration_seconds_count")
        return (n, metric(text, "fitscale_loop_duration_seconds_sum")) if n else None

    t0 = time.monotonic()
    try:
        n0, s0 = wait_for("the first loop of fitscale run", loop_stats, timeout=900, interval=0.5,
                          proc=proc, log=runlog_path)
        t_first = time.monotonic() - t0
        n1, s1 = wait_for(f"{loops} more loops", lambda: (lambda st: st if st and st[0] >= n0 + loops else None)(
            loop_stats()), timeout=900, interval=0.5, proc=proc, log=runlog_path)
    finally:
        stop(proc)
    out = {"run_first_loop_after_start_s": t_first, "run_first_loop_s": s0 / n0,
           "run_loop_mean_s": (s1 - s0) / (n1 - n0), "run_loops": n1 - n0}
    log(f"fitscale run: first loop done {t_first:.1f} s after start (it took "
        f"{out['run_first_loop_s'] * 1000:.0f} ms); later loops mean "
        f"{out['run_loop_mean_s'] * 1000:.0f} ms over {int(n1 - n0)} loops")
    return out


def measure(nodes, pods, jobs, repeat=3, watch_samples=20, run_loops=3, log=print):
    """Builds the cluster and measures; returns the figures (seconds)."""
    results = {"nodes": nodes, "load_average_start": os.getloadavg()}
    log(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with scratch_dir("vcluster-scale-") as tmp, Cluster(tmp, "--boot-delay", "1",
                                                        "--metrics-address", "off") as c:
        try:
            api = Api(c.url, c.ssl_context)
            results.update(build(c, api, nodes, pods, jobs, log))
            results.update(list_latency(c, api, repeat, log))
            results.update(watch_latency(c, api, watch_samples, log))
            results.update(run_loop_time(c, tmp, run_loops, log))
        except Exception:
            sys.stderr.write("--- fitscale cluster log ---\n" + c.log_tail(3000))
            raise
    results["load_average_end"] = os.getloadavg()
    log(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=4000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--jobs", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3, help="list measurements each")
    ap.add_argument("--watch-samples", type=int, default=20)
    ap.add_argument("--run-loops", type=int, default=3)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    results = measure(args.nodes, args.pods, args.jobs, args.repeat, args.watch_samples,
                      args.run_loops, log=lambda s: print(s, flush=True))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
