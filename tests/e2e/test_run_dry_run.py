#!/usr/bin/env python3
"""End to end: `fitscale run --dry-run` against `fitscale cluster` logs the launch it would make
for a pending GPU Job and makes none: no node appears, no Event is written, no Lease is taken."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, gpu_job, namespace, scratch_dir, wait_for  # noqa: E402


def main():
    with scratch_dir("fitscale-run-dry-") as tmp, World(tmp) as w:
        w.start_synced("dry", "--dry-run")
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
    assert w.runs["dry"][0].returncode == 0
    print("ok")

if __name__ == "__main__":
    main()
