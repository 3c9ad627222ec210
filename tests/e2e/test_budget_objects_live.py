#!/usr/bin/env python3
"""Issue 12, Budget objects in a running cluster, as an operator meets them: the Budget CRD is
applied after `fitscale run` started, and fitscale picks it up without a restart; a Budget it
cannot use (a `gpus` cap in a namespace's Budget: the schema lets it through, the rules do not)
gets a Warning Event `InvalidBudget` on the object, naming the field, while the other Budget
applies: its usdPerHour replaces the config file's in the `fitscale_budget_cap_usd` gauge, and
/metrics still passes `promtool check metrics`. Needs: FITSCALE_BINARY, kubectl, promtool."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (SOURCE_DIR, World, fail, gpu_job, http_get, namespace,  # noqa: E402
                         scratch_dir, sim_run_argv, spawn, stop, tail, wait_for)

PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
CONFIG = """
scaleDown:
  emptyAfter: 3s
  delayAfterLaunch: 0s
budgets:
  namespaces:
    team-ok: {usdPerHour: 50}
"""


def gauge(text, name, **labels):
    want = ",".join(f"{k}=\"{v}\"" for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith(name + "{"):
            head, _, value = line.rpartition(" ")
            got = head[len(name) + 1:-1].split(",")
            if sorted(got) == sorted(want.split(",")):
                return float(value)
    return None


def main():
    with scratch_dir("fitscale-budget-live-") as tmp, World(tmp, CONFIG) as w:
        run_log = os.path.join(tmp, "run.log")
        run = spawn(sim_run_argv(w.kubeconfig, "replica-a", "--config", w.config,
                                 "--metrics-address", "127.0.0.1:0", "--log-format", "json"),
                    stdout=subprocess.DEVNULL, stderr=open(run_log, "w"))
        try:
            def log():
                with open(run_log) as f:
                    return f.read()

            def metrics_url():
                for line in log().splitlines():
                    if '"fitscale run: starting"' in line:
                        return json.loads(line).get("metrics")
                return None
            base = wait_for("fitscale run to log its metrics address", metrics_url, 30, proc=run,
                            log=run_log)
            wait_for("fitscale run to say the Budget CRD is not installed",
                     lambda: "budgets.fitscale.io is not installed" in log(), 30, proc=run,
                     log=run_log)
            wait_for("/readyz to turn ready", lambda: http_get(base + "/readyz")[0] == 200, 60)

            # The operator installs the CRD and two Budgets while fitscale runs.
            w.kubectl("apply", "--validate=false", "-f",
                      os.path.join(SOURCE_DIR, "deploy", "crds", "budgets.fitscale.io.yaml"))
            w.kubectl("wait", "--for", "condition=established", "--timeout=30s", "crd",
                      "budgets.fitscale.io")
            for ns in ("team-ok", "team-bad"):
                w.apply(namespace(ns))
            w.apply({"apiVersion": "fitscale.io/v1alpha1", "kind": "Budget",
                     "metadata": {"name": "caps", "namespace": "team-ok"},
                     "spec": {"usdPerHour": 7}})
            w.apply({"apiVersion": "fitscale.io/v1alpha1", "kind": "Budget",
                     "metadata": {"name": "caps", "namespace": "team-bad"},
                     "spec": {"usdPerHour": 3, "gpus": 4}})
            wait_for("fitscale run to pick up the CRD without a restart",
                     lambda: "budgets.fitscale.io is installed now" in log(), 60, proc=run,
                     log=run_log)

            def invalid_event():
                for e in w.events("team-bad"):
                    o = e.get("involvedObject", {})
                    if e.get("reason") == "InvalidBudget" and o.get("kind") == "Budget" and \
                            o.get("name") == "caps":
                        return e
                return None
            e = wait_for("a Warning Event InvalidBudget on Budget team-bad/caps", invalid_event,
                         30, proc=run, log=run_log)
            if e.get("type") != "Warning" or "gpus" not in e.get("message", ""):
                fail(f"the InvalidBudget event should be a Warning naming the field: {e}")
            if e["involvedObject"].get("apiVersion") != "fitscale.io/v1alpha1":
                fail(f"the event's involvedObject is not the Budget: {e['involvedObject']}")
            uid = w.kjson("get", "budget", "caps", "-n", "team-bad")["metadata"]["uid"]
            if e["involvedObject"].get("uid") != uid:
                fail(f"the event names uid {e['involvedObject'].get('uid')}, the Budget is {uid}")
            if '"Budget object problem"' not in log():
                fail("the bad Budget was not logged:\n" + tail(run_log))

            # A job of team-ok makes the loop plan; the gauges then show the Budget's cap ($7/h),
            # not the config file's ($50/h).
            w.apply(gpu_job("train", "team-ok", gpus=1, duration="2s"))

            def live_cap():
                s, text, _ = http_get(base + "/metrics")
                cap = gauge(text, "fitscale_budget_cap_usd", namespace="team-ok", period="hour")
                return text if s == 200 and cap == 7 else None
            text = wait_for("fitscale_budget_cap_usd{namespace=team-ok,period=hour} to be 7",
                            live_cap, 60, proc=run, log=run_log)
            remaining = gauge(text, "fitscale_budget_remaining_usd", namespace="team-ok",
                              period="hour")
            if remaining is None or remaining > 7:
                fail(f"fitscale_budget_remaining_usd for team-ok's hour is {remaining}, want <= 7")
            path = os.path.join(tmp, "metrics.txt")
            with open(path, "w") as f:
                f.write(text)
            check = subprocess.run([PROMTOOL, "check", "metrics"], stdin=open(path),
                                   capture_output=True, text=True, timeout=60)
            if check.returncode != 0:
                fail(f"promtool check metrics complained:\n{check.stdout}{check.stderr}")
            print(f"CRD picked up after start; InvalidBudget: {e['message']}; team-ok's hourly "
                  f"cap gauge 7 (file 50), remaining {remaining}")
        except BaseException:
            print("--- run log (tail) ---\n" + tail(run_log, 4000), file=sys.stderr)
            raise
        finally:
            stop(run)
    print("ok")


if __name__ == "__main__":
    main()
