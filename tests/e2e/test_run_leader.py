#!/usr/bin/env python3
"""End to end, two `fitscale run --provider sim` replicas against `fitscale cluster`: only the
leader (Lease kube-system/fitscale) acts; SIGKILL the leader and the other takes over within the
lease duration and acts."""
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_run_kubectl import World, gpu_job, namespace, pods_of, wait_for  # noqa: E402

LEASE_S = 3


def holder(w):
    r = w.kubectl("get", "lease", "fitscale", "-n", "kube-system", "-o",
                  "jsonpath={.spec.holderIdentity}", check=False)
    return r.stdout.strip() if r.returncode == 0 else ""


def check_leader_failover(w):
    w.start_run("b", "--lease-duration", str(LEASE_S))
    wait_for("replica b to sync", lambda: "informers synced" in w.run_log("b"), timeout=30)
    assert holder(w) == "a", holder(w)
    w.apply(namespace("lead"))
    w.apply(gpu_job("one", "lead", gpus=1, duration="2s"))
    wait_for("a node for job one", lambda: w.nodes())
    assert "launch one" in w.run_log("a"), w.run_log("a")[-2000:]
    assert "launch" not in w.run_log("b"), "the standby replica acted: " + w.run_log("b")
    wait_for("job one's node to be removed", lambda: not w.nodes(), timeout=60)

    proc_a = w.runs["a"][0]
    proc_a.send_signal(signal.SIGKILL)  # no release: b must wait out the lease
    proc_a.wait()
    killed = time.time()
    wait_for("b to take the lease", lambda: holder(w) == "b", timeout=LEASE_S * 4)
    took = time.time() - killed
    # The lease lasts LEASE_S; b retries every 2/15 of it; the renewTime has 1 s resolution.
    assert took <= LEASE_S + 2, f"takeover took {took:.1f}s with a {LEASE_S}s lease"
    w.apply(gpu_job("two", "lead", gpus=1, duration="2s"))
    wait_for("b to launch for job two", lambda: "launch two" in w.run_log("b"), timeout=30)
    print(f"leader: ok; b took over {took:.1f}s after a was killed")

    # A graceful stop releases the lease (holder cleared) so a standby need not wait it out.
    proc_b = w.runs["b"][0]
    proc_b.send_signal(signal.SIGTERM)
    assert proc_b.wait(timeout=15) == 0
    assert holder(w) == "", f"lease still held by {holder(w)!r} after a graceful stop"
    w.start_run("c", "--lease-duration", "30")
    wait_for("c to take the released lease", lambda: holder(w) == "c", timeout=20)
    print("release: ok; SIGTERM cleared the holder and c took the lease")


def main():
    tmp = tempfile.mkdtemp(prefix="fitscale-run-leader-")
    w = World(tmp)
    ok = False
    try:
        w.start_run("a", "--lease-duration", str(LEASE_S))
        wait_for("replica a to lead", lambda: holder(w) == "a", timeout=30)
        wait_for("replica a to sync", lambda: "informers synced" in w.run_log("a"), timeout=30)
        check_leader_failover(w)
        ok = True
    finally:
        w.stop()
        if not ok:
            for name in w.runs:
                print(f"--- run {name} log (tail) ---\n" + w.run_log(name)[-4000:], file=sys.stderr)
            w.cluster_log.seek(0)
            print("--- cluster log (tail) ---\n" + w.cluster_log.read()[-3000:], file=sys.stderr)
    print("ok")


if __name__ == "__main__":
    main()
