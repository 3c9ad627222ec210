#!/usr/bin/env python3
"""End to end: `fitscale run --dry-run` against `fitscale cluster` logs the launch it would make
for a pending GPU Job and makes none: no node appears, no Event is written, no Lease is taken."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_run_kubectl import World, gpu_job, namespace, wait_for  # noqa: E402


def main():
    tmp = tempfile.mkdtemp(prefix="fitscale-run-dry-")
    w = World(tmp)
    ok = False
    try:
        w.start_run("dry", "--dry-run")
        wait_for("informers synced", lambda: "informers synced" in w.run_log("dry"), timeout=30)
        w.apply(namespace("research"))
        w.apply(gpu_job("train", "research", gpus=1))
        line = wait_for("a dry-run launch line",
                        lambda: next((l for l in w.run_log("dry").splitlines()
                                      if "launch train" in l and "dry_run=true" in l), None), timeout=30)
        time.sleep(4)  # several loops and more than the boot delay: still nothing real
        assert not w.nodes(), [n["metadata"]["name"] for n in w.nodes()]
        ours = [e["reason"] for e in w.events("research")
                if e.get("source", {}).get("component") == "fitscale"]
        assert not ours, ours  # the cluster's own scheduler/job events are fine
        r = w.kubectl("get", "lease", "fitscale", "-n", "kube-system", check=False)
        assert r.returncode != 0, "a dry run took the leader lease"
        print("dry run: ok;", line)
        ok = True
    finally:
        w.stop()
        if not ok:
            print("--- run log ---\n" + w.run_log("dry")[-4000:], file=sys.stderr)
    assert w.runs["dry"][0].returncode == 0
    print("ok")


if __name__ == "__main__":
    main()
