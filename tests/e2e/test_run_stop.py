#!/usr/bin/env python3
"""End to end, `fitscale run` in a burst: /readyz answers 200 all through the loops that plan
thousands of pods (ready means working, not idle), and a SIGTERM sent while it works stops it
within a couple of seconds with its leader Lease released (holderIdentity cleared), so a
standby takes over at once instead of waiting the lease out (issue 20, item 2)."""
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, free_port, http_get, namespace, scratch_dir, sim_run_argv, spawn, wait_for  # noqa: E402

PODS = 3000
JOB = {
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "burst", "namespace": "burst"},
    "spec": {"completions": PODS, "parallelism": PODS, "backoffLimit": 0,
             "template": {"spec": {"restartPolicy": "Never",
                                   "containers": [{"name": "main", "image": "busybox",
                                                   "resources": {"requests": {"cpu": "250m",
                                                                              "memory": "256Mi"}}}]}}}}


def main():
    with scratch_dir("fitscale-run-stop-") as tmp, World(tmp) as w:
        port = free_port()
        # As World.start_run, with /readyz served (the World turns metrics off).
        log = open(os.path.join(tmp, "run-a.log"), "w+")
        proc = spawn(sim_run_argv(w.kubeconfig, "a", "--config", w.config, "--metrics-address",
                                  f"127.0.0.1:{port}"), stdout=log, stderr=subprocess.STDOUT)
        w.runs["a"] = (proc, log)
        wait_for("replica a to lead", lambda: w.lease_holder() == "a", timeout=30)
        readyz = f"http://127.0.0.1:{port}/readyz"
        wait_for("/readyz 200", lambda: http_get(readyz)[0] == 200, timeout=30)

        answers = []
        done = threading.Event()

        def poll():
            while not done.is_set():
                try:
                    answers.append(http_get(readyz, timeout=5)[0])
                except OSError:
                    answers.append(None)  # the server stopped with the process
                time.sleep(0.2)
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()

        w.apply(namespace("burst"))
        w.apply(JOB)
        # The burst is being planned and launched for: loops with thousands of pods pending.
        wait_for("a loop planning the burst",
                 lambda: any('msg="loop"' in l or " loop " in l for l in w.run_log("a").splitlines()
                             if "pending=" in l and "pending=0" not in l),
                 timeout=60, proc=proc)
        time.sleep(0.5)  # inside the next loops: they start every second, each takes a while
        during = [a for a in answers if a is not None]
        assert during and all(a == 200 for a in during), \
            f"/readyz during the burst answered {sorted(set(map(str, during)))}"

        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        took = time.monotonic() - sent
        done.set()
        poller.join(timeout=10)
        assert rc == 0, f"fitscale run exited {rc}"
        # Within a second at any point of a loop, plus releasing the lease and stopping the
        # informers; a loaded 2-core machine gets some slack.
        assert took <= 3.0, f"SIGTERM to exit took {took:.1f}s"
        holder = w.lease_holder()
        assert holder == "", f"lease still held by {holder!r} after SIGTERM"
        assert "fitscale run: stopped" in w.run_log("a"), w.run_log("a")[-2000:]
        print(f"stop: ok; exited {took:.2f}s after SIGTERM, lease released; "
              f"/readyz 200 on all {len(during)} polls during the burst")
    print("ok")


if __name__ == "__main__":
    main()
