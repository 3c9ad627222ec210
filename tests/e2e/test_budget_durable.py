#!/usr/bin/env python3
"""Issue 12, items 4 and 5: a namespace's usdPerDay holds across a SIGTERM restart, a leader
handover between two replicas and a kill -9 of the leader. Its caps come from a Budget object
(deploy/crds applied with kubectl); the leader records the day's spend and the alerts it sent in
the Budget's status (`kubectl get budgets -A` shows it), and every new leader starts from there
with a fresh in-memory ledger: a job that would fit a fresh usdPerDay but not what is left of it
waits (BudgetWait) under each new leader and nothing is launched for it, and the webhook alert
sent before the first restart is never sent again."""
import calendar
import http.server
import json
import os
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (SOURCE_DIR, World, gpu_job, namespace, scratch_dir,  # noqa: E402
                         stop, wait_for)

LEASE_S = 3
RUNTIME_S = 20  # the namespace's maxRuntime: every job's worst case is its price x 20 s
NS = "spend"
CONFIG = """
scaleDown:
  emptyAfter: 3s
  delayAfterLaunch: 0s
alerts:
  webhook: {hook}
"""


class Hook(http.server.BaseHTTPRequestHandler):
    received = []  # texts, in order

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Hook.received.append(json.loads(body)["text"])
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def budget(w):
    return w.kjson("get", "budget", "caps", "-n", NS)


def status(w):
    return budget(w).get("status", {})


def pods(w, job):
    return [p for p in w.pods(NS) if p["metadata"]["name"].startswith(job + "-")]


def new_leader_makes_it_wait(w, name, what):
    """`name` leads now: it logs that job `second` waits on usdPerDay, and launches nothing."""
    wait_for(f"{name} to lead", lambda: w.lease_holder() == name, timeout=LEASE_S * 6)
    def decided():
        log = w.run_log(name)
        if "launch second" in log:
            return "launched"
        return any("second" in l and "usdPerDay" in l for l in log.splitlines()) and "waits"
    got = wait_for(f"{name} to decide on job second ({what})", decided, timeout=60)
    assert got == "waits", \
        f"after {what}, {name} launched for a job the day's spend leaves no room for:\n" + \
        w.run_log(name)[-3000:]
    assert not w.nodes(), f"after {what} a node runs: {[n['metadata']['name'] for n in w.nodes()]}"
    assert all(not p["spec"].get("nodeName") for p in pods(w, "second")), "job second was bound"


def check_spend_survives(w):
    w.kubectl("apply", "--validate=false", "-f", os.path.join(SOURCE_DIR, "deploy", "crds"))
    w.kubectl("wait", "--for", "condition=established", "--timeout=30s", "crd",
              "budgets.fitscale.io")
    w.apply(namespace(NS))
    w.apply({"apiVersion": "fitscale.io/v1alpha1", "kind": "Budget",
             "metadata": {"name": "caps", "namespace": NS},
             "spec": {"maxRuntime": f"{RUNTIME_S}s"}})
    w.start_synced("a", "--lease-duration", str(LEASE_S), leads=True)

    # Job first runs 15 s on one node; while it runs, its node's price is the namespace's
    # committed $/h, and usdPerDay is set to 1.5 worst cases of a job of that shape: the day's
    # spend (about 20 s of the node with boot and the empty node's idle time) leaves less
    # than one worst case.
    w.apply(gpu_job("first", NS, gpus=1, duration="15s"))
    wait_for("the leader to record job first's committed $/h in the Budget's status",
             lambda: status(w).get("committedUsdPerHour", 0) > 0, timeout=60)
    price = status(w)["committedUsdPerHour"]
    cap = round(1.5 * price * RUNTIME_S / 3600, 6)
    w.kubectl("patch", "budget", "caps", "-n", NS, "--type=merge",
              "-p", json.dumps({"spec": {"usdPerDay": cap}}))
    wait_for("job first to finish and its node to go",
             lambda: not w.nodes() and pods(w, "first") and
             all(p["status"].get("phase") == "Succeeded" for p in pods(w, "first")), timeout=90)
    spent = wait_for("the day's spend in the status",
                     lambda: status(w).get("spentToday", 0) > cap / 2 and status(w)["spentToday"],
                     timeout=30)
    wait_for("the 50% alert", lambda: any("(50%" in t for t in Hook.received), timeout=30)
    st = wait_for("the Budget's status to list the 50% alert of the day",
                  lambda: any(e.startswith("day/") and e.endswith("/50")
                              for e in status(w).get("alertsSent", [])) and status(w), timeout=30)
    sent_before = list(Hook.received)
    # A fresh budget would take job second (one worst case is below usdPerDay); what is spent
    # (over half of it) leaves less than one worst case.
    assert cap >= price * RUNTIME_S / 3600, (cap, price)

    # `kubectl get budgets -A` shows the caps and the spend.
    out = w.kubectl("get", "budgets", "-A").stdout.splitlines()
    assert "SPENT TODAY" in out[0], out
    row = next(l.split() for l in out[1:] if l.split()[:2] == [NS, "caps"])
    assert any(abs(float(t) - st["spentToday"]) < 1e-9 for t in row if t[0].isdigit() and
               t.replace(".", "", 1).isdigit()), (row, st)
    assert any(abs(float(t) - cap) < 1e-9 for t in row if t.replace(".", "", 1).isdigit()), row

    # 1. SIGTERM restart: replica a stops, b starts alone with a fresh in-memory ledger.
    stop(w.runs["a"][0], must_exit=True)
    w.start_run("b", "--lease-duration", str(LEASE_S))
    w.apply(gpu_job("second", NS, gpus=1, duration="15s"))
    new_leader_makes_it_wait(w, "b", "a SIGTERM restart")
    events = [e for e in w.events(NS) if e.get("reason") == "BudgetWait"]
    assert any("usdPerDay" in e.get("message", "") for e in events), events

    # 2. Handover: c stands by, b is stopped (it releases the lease), c leads.
    w.start_synced("c", "--lease-duration", str(LEASE_S))
    stop(w.runs["b"][0], must_exit=True)
    new_leader_makes_it_wait(w, "c", "a leader handover")

    # 3. kill -9: d stands by, the leader c is killed (no release), d waits out the lease.
    w.start_synced("d", "--lease-duration", str(LEASE_S))
    w.runs["c"][0].send_signal(signal.SIGKILL)
    w.runs["c"][0].wait()
    new_leader_makes_it_wait(w, "d", "kill -9 of the leader")
    assert status(w)["spentToday"] >= spent - 1e-6, (status(w), spent)

    # d has planned (the wait above) and the alerts are checked at the end of that loop.
    assert Hook.received == sent_before, \
        f"alerts sent again after a restart: before {sent_before}, now {Hook.received}"
    assert len(set(sent_before)) == len(sent_before), sent_before
    print(f"usdPerDay ${cap} held over SIGTERM, handover and kill -9 with ${spent} spent "
          f"(node ${price}/h); alerts sent once: {len(sent_before)}")


def main():
    if calendar.timegm(time.gmtime()) % 86400 > 86400 - 300:
        print("skipped: within 5 minutes of UTC midnight the day's spend would reset mid-test")
        return
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with scratch_dir("fitscale-budget-durable-") as tmp:
            config = CONFIG.format(hook=f"http://127.0.0.1:{server.server_address[1]}/hook")
            with World(tmp, config) as w:
                check_spend_survives(w)
    finally:
        server.shutdown()
        server.server_close()
    print("ok")


if __name__ == "__main__":
    main()
