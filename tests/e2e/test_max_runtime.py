#!/usr/bin/env python3
"""Issue 12, "worst case that rolls forward": a pod running past its namespace's maxRuntime
(20 s here) on a node fitscale launched. With maxRuntimeAction: terminate, `fitscale run`
deletes it with a MaxRuntimeExceeded event, not before its 20 s; with the default (alert) it
gets the event, once, and keeps running; `fitscale run` logs both."""
import calendar
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import World, namespace, scratch_dir, wait_for  # noqa: E402

MAX_RUNTIME_S = 20
CONFIG = f"""
scaleDown:
  emptyAfter: 3s
budgets:
  namespaces:
    keep: {{maxRuntime: {MAX_RUNTIME_S}s}}
    stop: {{maxRuntime: {MAX_RUNTIME_S}s, maxRuntimeAction: terminate}}
"""


def parse_time(text):
    """RFC 3339 (whole or fractional seconds, Z) -> Unix seconds."""
    return calendar.timegm(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S"))


def long_pod(ns):
    """A bare pod that would run ten minutes on the simulated cloud."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "long", "namespace": ns,
                         "annotations": {"fitscale.io/sim-duration": "600s"}},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "work", "image": "worker",
                                     "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def overrun_events(w, ns):
    return [e for e in w.events(ns)
            if e.get("reason") == "MaxRuntimeExceeded" and e["involvedObject"]["name"] == "long"]


def pod_or_none(w, ns):
    r = w.kubectl("get", "pod", "long", "-n", ns, "-o", "json", check=False)
    if r.returncode != 0:
        assert "NotFound" in r.stderr, r.stderr
        return None
    return json.loads(r.stdout)


def main():
    with scratch_dir("fitscale-max-runtime-") as tmp, World(tmp, CONFIG) as w:
        w.start_synced("a", leads=True)
        for ns in ("keep", "stop"):
            w.apply(namespace(ns))
            w.apply(long_pod(ns))
        started = {}
        for ns in ("keep", "stop"):
            def running(ns=ns):
                p = pod_or_none(w, ns)
                return p if p and p["status"].get("phase") == "Running" else None
            started[ns] = parse_time(wait_for(f"{ns}/long to run", running, timeout=90)
                                     ["status"]["startTime"])

        # terminate: deleted with an event, not before its worst case.
        wait_for("stop/long to be deleted", lambda: pod_or_none(w, "stop") is None, timeout=90)
        deleted_at = time.time()
        events = wait_for("the MaxRuntimeExceeded event in stop", lambda: overrun_events(w, "stop"),
                          timeout=30)
        e = events[0]
        assert e["type"] == "Warning", e
        assert "fitscale deletes its pods (maxRuntimeAction: terminate)" in e["message"], e
        assert f"past its worst case of {MAX_RUNTIME_S}s" in e["message"], e
        first = parse_time(e.get("firstTimestamp") or e["eventTime"])
        assert first >= started["stop"] + MAX_RUNTIME_S, (started["stop"], e)

        # alert: the event, and the pod stays.
        events = wait_for("the MaxRuntimeExceeded event in keep", lambda: overrun_events(w, "keep"),
                          timeout=60)
        assert "its nodes stay committed for another 20s (maxRuntimeAction: alert)" in \
            events[0]["message"], events[0]
        time.sleep(3)  # a few more loops of the same period: no second event, the pod stays
        events = overrun_events(w, "keep")
        assert len(events) == 1 and events[0].get("count", 1) == 1, events
        p = pod_or_none(w, "keep")
        assert p is not None and p["status"]["phase"] == "Running" and \
            not p["metadata"].get("deletionTimestamp"), p

        log = w.run_log("a")
        assert "max-runtime-exceeded stop/long" in log, log[-3000:]
        assert "max-runtime-exceeded keep/long" in log, log[-3000:]
        print(f"terminate: stop/long deleted {deleted_at - started['stop']:.0f}s after it started "
              f"(maxRuntime {MAX_RUNTIME_S}s); alert: keep/long got one event and runs on")
    print("ok")


if __name__ == "__main__":
    main()
