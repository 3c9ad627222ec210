#!/usr/bin/env python3
"""One tenant's pod must not take the controller down (issue 13): a pod whose
`fitscale.io/max-runtime` annotation is "token=" followed by 30 KB crashed `fitscale run` with
SIGSEGV (std::regex recursing once per character in the log redaction), again within seconds of
every restart. Kubernetes allows 256 KiB of annotations; this test uses 30 KB and 200 KiB. The
controller keeps running, reports the pod with a bounded line and a bounded Event, and still
launches for an ordinary pod.

Starts `fitscale cluster` and `fitscale run --provider sim` on loopback; needs FITSCALE_BINARY and
kubectl."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, World, scratch_dir, wait_for  # noqa: E402


def pod(name, annotations=None):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}},
            "spec": {"restartPolicy": "Never", "containers": [
                {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def main():
    check = Checks()
    with scratch_dir("fitscale-hostile-") as tmp, World(tmp) as world:
        proc = world.start_synced("hostile", leads=True)
        sizes = {"hostile-30k": 30 * 1024, "hostile-200k": 200 * 1024}
        for name, n in sizes.items():
            # `create`, not `apply`: apply would copy the annotation into last-applied-configuration.
            world.kubectl("create", "--validate=false", "-f", "-",
                          stdin=json.dumps(pod(name, {"fitscale.io/max-runtime": "token=" + "A" * n})))
        # The refusal names both pods: the redaction and the log line are behind us.
        wait_for("both hostile pods to be reported",
                 lambda: all(f"default/{name}" in world.run_log("hostile") for name in sizes), proc=proc)
        world.apply(pod("ordinary"))
        wait_for("a launch for default/ordinary",
                 lambda: any("action=launch subject=ordinary " in l for l in world.run_log("hostile").splitlines()),
                 proc=proc)
        check(proc.poll() is None, f"fitscale run exited with {proc.returncode}")

        log = world.run_log("hostile")
        launches = [l for l in log.splitlines() if "action=launch " in l]
        # A pod whose annotation cannot be read is refused, not planned with a guessed runtime:
        # it must not buy a node of its own, nor a second one for the ordinary pod.
        check(len(launches) == 1 and "subject=ordinary " in launches[0],
              f"expected one launch, for default/ordinary; got {len(launches)}: {[l[:200] for l in launches]}")
        longest = max(len(l) for l in log.splitlines())
        check(longest < 8 * 1024, f"a log line of {longest} bytes: user values are not cut")
        check("A" * 300 not in log, "300 bytes of the annotation were printed")
        reported = [l for l in log.splitlines() if "default/hostile-200k" in l]
        check(reported and "bytes)" in reported[0], f"the cut does not say how long the value was: {reported[:1]}")

        events = [e for e in world.events("default") if e["involvedObject"]["name"] in sizes]
        check(events, "no Event on the hostile pods")
        for e in events:
            check(len(e.get("message", "")) <= 1024, f"an Event message of {len(e.get('message', ''))} bytes")
            check("A" * 300 not in e.get("message", ""),
                  f"the Event quotes 300 bytes of the annotation: {e.get('reason')}: {e.get('message', '')[:400]!r}")

    check.exit_if_failed()
    print(f"ok: fitscale run survived annotations of {', '.join(str(n) for n in sizes.values())} bytes, "
          f"longest log line {longest} bytes, {len(events)} bounded events, launched for an ordinary pod")


if __name__ == "__main__":
    main()
