#!/usr/bin/env python3
"""End to end, two `fitscale run --provider sim` replicas against `fitscale cluster`: only the
leader (Lease kube-system/fitscale) acts; SIGKILL the leader and the other takes over within the
lease duration and acts."""
import calendar
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, gpu_job, namespace, scratch_dir, wait_for  # noqa: E402

LEASE_S = 3


def check_leader_failover(w):
    w.start_synced("b", "--lease-duration", str(LEASE_S))
    assert w.lease_holder() == "a", w.lease_holder()
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
    wait_for("b to take the lease", lambda: w.lease_holder() == "b", timeout=LEASE_S * 4)
    # Timed by the Lease's own acquireTime, not by when kubectl's polling saw it: on a loaded
    # machine each kubectl call can take a second, which says nothing about fitscale.
    acquired = w.kubectl("get", "lease", "fitscale", "-n", "kube-system", "-o",
                         "jsonpath={.spec.acquireTime}").stdout.strip()
    took = calendar.timegm(time.strptime(acquired.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S")) - killed
    # The lease lasts LEASE_S; b retries every 2/15 of it; acquireTime and renewTime have 1 s
    # resolution.
    assert took <= LEASE_S + 2, f"takeover took {took:.1f}s with a {LEASE_S}s lease (acquired {acquired})"
    w.apply(gpu_job("two", "lead", gpus=1, duration="2s"))
    wait_for("b to launch for job two", lambda: "launch two" in w.run_log("b"), timeout=30)
    print(f"leader: ok; b took over {took:.1f}s after a was killed")

    # A graceful stop releases the lease (holder cleared) so a standby need not wait it out.
    proc_b = w.runs["b"][0]
    proc_b.send_signal(signal.SIGTERM)
    assert proc_b.wait(timeout=15) == 0
    assert w.lease_holder() == "", f"lease still held by {w.lease_holder()!r} after a graceful stop"
    w.start_run("c", "--lease-duration", "30")
    wait_for("c to take the released lease", lambda: w.lease_holder() == "c", timeout=20)
    print("release: ok; SIGTERM cleared the holder and c took the lease")


def main():
    with scratch_dir("fitscale-run-leader-") as tmp, World(tmp) as w:
        w.start_synced("a", "--lease-duration", str(LEASE_S), leads=True)
        check_leader_failover(w)
    print("ok")


if __name__ == "__main__":
    main()
