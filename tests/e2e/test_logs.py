#!/usr/bin/env python3
"""`fitscale run` logs each action as one line with its reason, in text (default) and JSON
(`--log-format json`), and never prints a credential: not the kubeconfig's bearer token, not
the AWS keys in its environment, not a password in the kubeconfig's server URL (issue 13: the
start line printed it). `insecure-skip-tls-verify: true` is accepted with a warning line.

Starts `fitscale cluster` and `fitscale run --provider sim` on loopback; needs FITSCALE_BINARY
and kubectl."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Cluster, fail, scratch_dir, sim_run_argv, spawn, stop, wait_for  # noqa: E402

AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"restartPolicy": "Never", "containers": [
                {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def run_once(cluster, tmp, fmt, pod_name, kubeconfig=None):
    log_path = os.path.join(tmp, f"run-{fmt}.log")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=AWS_KEY_ID, AWS_SECRET_ACCESS_KEY=AWS_SECRET)
    run = spawn(sim_run_argv(kubeconfig or cluster.kubeconfig, f"logs-{fmt}", "--lease-namespace", "default",
                             "--metrics-address", "off", "--log-format", fmt),
                stdout=subprocess.DEVNULL, stderr=open(log_path, "w"), env=env)
    try:
        cluster.apply(pod(pod_name))

        def launched():
            text = open(log_path).read()
            return pod_name in text and "launch" in text
        wait_for(f"a launch for {pod_name} to be logged", launched, timeout=60, proc=run, log=log_path)
    finally:
        stop(run)
    return open(log_path).read()


def main():
    with scratch_dir("fitscale-logs-") as tmp, Cluster(tmp, "--boot-delay", "1") as cluster:
        token = re.search(r"token:\s*(\S+)", open(cluster.kubeconfig).read())
        if not token:
            fail("the virtual cluster's kubeconfig has no token to protect")
        secrets = [token.group(1), AWS_KEY_ID, AWS_SECRET]

        text = run_once(cluster, tmp, "text", "text-pod")
        launch = [l for l in text.splitlines() if "launch default/text-pod" in l or "action=launch" in l]
        if not launch or " INFO  launch " not in launch[0] or "reason=" not in launch[0]:
            fail(f"no human-readable launch line with a reason:\n{text[-2000:]}")

        js = run_once(cluster, tmp, "json", "json-pod")
        records = []
        for line in js.splitlines():
            if line.strip():
                try:
                    records.append(json.loads(line))
                except ValueError:
                    fail(f"--log-format json printed a non-JSON line: {line!r}")
        launches = [r for r in records if r.get("action") == "launch"]
        if not launches or not launches[-1].get("reason") or not launches[-1].get("ts"):
            fail(f"no JSON launch record with reason and ts: {records[-5:]}")

        # The same cluster through a kubeconfig whose server URL carries a user and password
        # (the virtual cluster ignores them; the bearer token authenticates) and that skips TLS
        # verification.
        kc = open(cluster.kubeconfig).read()
        server = re.search(r"server:\s*(\S+)", kc).group(1)
        with_password = server.replace("://", "://admin:hunter2@", 1)
        kc = kc.replace(f"server: {server}", f"server: {with_password}\n    insecure-skip-tls-verify: true", 1)
        userinfo = os.path.join(tmp, "userinfo-kubeconfig")
        open(userinfo, "w").write(kc)
        ui = run_once(cluster, tmp, "json", "userinfo-pod", kubeconfig=userinfo)
        ui_records = [json.loads(l) for l in ui.splitlines() if l.strip()]
        start = [r for r in ui_records if r.get("msg") == "fitscale run: starting"]
        want = server.replace("://", "://[REDACTED]@", 1)
        if not start or start[0].get("server") != want:
            fail(f"the start line's server is not {want}: {start[:1]}")
        warn = [r for r in ui_records if "insecure-skip-tls-verify" in r.get("msg", "")]
        if not warn or warn[0].get("level") != "warn":
            fail(f"no warning line for insecure-skip-tls-verify: {ui_records[:5]}")
        secrets.append("hunter2")
        js += ui

        for s in secrets:
            for name, out in (("text", text), ("json", js)):
                if s in out:
                    fail(f"a credential ({s[:6]}...) appeared in the {name} log")
        print(f"ok: {len(text.splitlines())} text and {len(records)} JSON lines, launches logged with reasons, "
              f"no credential printed")


if __name__ == "__main__":
    main()
