#!/usr/bin/env python3
"""End to end: Launch objects (launches.fitscale.io, docs/pools.md "Launch objects") written by
`fitscale run --provider sim` against `fitscale cluster`, with kubectl as the user.

fitscale starts before the CRD is installed: it says so once in its log and carries on (the Job
still gets its node). Once `kubectl apply` installs the CRD, `kubectl get launches` shows the
launch with its pool, instance type, price, node and Initialized=True, and the pods and job it
was for; the node carries the pool label and the job, namespace and price annotations. After
the job ends and the empty node is removed, the Launch says Removed, reason Empty."""
import functools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import SOURCE_DIR, World, gpu_job, namespace, scratch_dir  # noqa: E402

# The CRD is looked for again every 15 s (LaunchWriterOptions::absent_recheck_s).
wait_for = functools.partial(e2e_support.wait_for, timeout=60)
CRD = os.path.join(SOURCE_DIR, "deploy", "crds", "launches.fitscale.io.yaml")
NOT_INSTALLED = "the CustomResourceDefinition launches.fitscale.io is not installed"


def condition(launch, type_):
    for c in launch.get("status", {}).get("conditions", []):
        if c["type"] == type_:
            return c
    return None


def launches(w):
    r = w.kubectl("get", "launches", "-o", "json", check=False)
    return json.loads(r.stdout)["items"] if r.returncode == 0 else []


def main():
    with scratch_dir("fitscale-e2e-launches-") as tmp, World(tmp) as w:
        w.start_synced("r1", leads=True)
        # The leader looks for the CRD as it starts, then every 15 s: the job outlasts that.
        wait_for("the run to say the CRD is missing", lambda: NOT_INSTALLED in w.run_log("r1"))
        w.apply(namespace("team-a"))
        w.apply(gpu_job("train", "team-a", gpus=1, duration="25s"))
        node = wait_for("a node for the job", lambda: next(iter(w.nodes()), None))

        # What the node carries.
        meta = node["metadata"]
        assert meta["labels"].get("fitscale.io/pool") == "default", meta["labels"]
        ann = meta.get("annotations", {})
        assert ann.get("fitscale.io/job") == "train", ann
        assert ann.get("fitscale.io/namespace") == "team-a", ann
        node_price = float(ann["fitscale.io/usd-per-hour"])
        assert node_price > 0, ann

        w.kubectl("apply", "-f", CRD)
        w.kubectl("wait", "--for", "condition=established", "crd/launches.fitscale.io",
                  "--timeout=30s")
        launch = wait_for("the Launch, Initialized", lambda: next(
            (x for x in launches(w) if (condition(x, "Initialized") or {}).get("status") == "True"),
            None))
        spec, status = launch["spec"], launch["status"]
        name = meta["name"]
        assert status["nodeName"] == name, status
        assert status["providerID"] == node["spec"]["providerID"], status
        assert spec["pool"] == "default", spec
        assert spec["offering"]["instanceType"] == meta["labels"]["node.kubernetes.io/instance-type"]
        assert spec["offering"]["zone"] == meta["labels"]["topology.kubernetes.io/zone"], spec
        assert spec["offering"]["capacityType"] == "spot", spec
        assert spec["offering"]["provider"] == "sim", spec
        assert abs(spec["usdPerHour"] - node_price) < 1e-6, (spec, node_price)
        assert spec["job"] == {"namespace": "team-a", "name": "train"}, spec
        assert spec["podCount"] == 1 and spec["pods"][0]["namespace"] == "team-a", spec
        assert spec["pods"][0]["name"].startswith("train-"), spec
        for t in ["Launched", "Registered", "Initialized"]:
            c = condition(launch, t)
            assert c and c["status"] == "True" and c["reason"] and c["lastTransitionTime"], launch
        assert condition(launch, "Removed") is None, launch

        # As a user reads it.
        table = w.kubectl("get", "launches").stdout.strip().splitlines()
        header, row = table[0].split(), table[1].split()
        assert header[:8] == ["NAME", "POOL", "TYPE", "ZONE", "CAPACITY", "USD/H", "NODE", "READY"]
        assert row[1] == "default" and row[2] == spec["offering"]["instanceType"], table
        assert row[6] == name and row[7] == "True", table

        # The job ends, the empty node goes (scaleDown.emptyAfter 3s), the Launch says why.
        wait_for("the empty node to be removed", lambda: not w.nodes(), timeout=90)
        removed = wait_for("the Launch to say Removed", lambda: next(
            (condition(x, "Removed") for x in launches(w) if condition(x, "Removed")), None))
        assert removed["status"] == "True" and removed["reason"] == "Empty", removed
        assert "empty" in removed["message"], removed
        assert "Empty" in w.kubectl("get", "launches").stdout
        # Said once, not every loop.
        assert w.run_log("r1").count(NOT_INSTALLED) == 1, w.run_log("r1")
    print("ok")


if __name__ == "__main__":
    main()
