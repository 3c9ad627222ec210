#!/usr/bin/env python3
"""`fitscale run` logs each action as one line with its reason, in text (default) and JSON
(`--log-format json`), and never prints a credential: not the kubeconfig's bearer token, not
the AWS keys in its environment.

Starts `fitscale cluster` and `fitscale run --provider sim` on loopback; needs FITSCALE_BINARY
and kubectl."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BINARY = os.environ["FITSCALE_BINARY"]
AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"restartPolicy": "Never", "containers": [
                {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}


def run_once(tmp, kubeconfig, fmt, pod_name):
    log_path = os.path.join(tmp, f"run-{fmt}.log")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=AWS_KEY_ID, AWS_SECRET_ACCESS_KEY=AWS_SECRET)
    run = subprocess.Popen([BINARY, "run", "--kubeconfig", kubeconfig, "--provider", "sim", "--interval", "1",
                            "--lease-namespace", "default", "--id", f"logs-{fmt}", "--metrics-address", "off",
                            "--log-format", fmt],
                           stdout=subprocess.DEVNULL, stderr=open(log_path, "w"), env=env)
    try:
        r = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "apply", "--validate=false", "-f", "-"],
                           input=json.dumps(pod(pod_name)), capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fail("kubectl apply: " + r.stderr)
        deadline = time.time() + 60
        while time.time() < deadline:
            text = open(log_path).read()
            if pod_name in text and "launch" in text:
                break
            if run.poll() is not None:
                fail(f"fitscale run exited: {text[-2000:]}")
            time.sleep(0.25)
        else:
            fail(f"no launch for {pod_name} logged within 60 s:\n{open(log_path).read()[-2000:]}")
    finally:
        stop(run)
    return open(log_path).read()


def main():
    tmp = tempfile.mkdtemp(prefix="fitscale-logs-")
    kubeconfig = os.path.join(tmp, "kubeconfig")
    cluster = subprocess.Popen([BINARY, "cluster", "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig,
                                "--boot-delay", "1"], stdout=subprocess.PIPE,
                               stderr=open(os.path.join(tmp, "cluster.log"), "w"), text=True)
    try:
        if not cluster.stdout.readline().startswith("listening on http://127.0.0.1:"):
            fail("fitscale cluster did not start")
        cluster.stdout.readline()
        token = re.search(r"token:\s*(\S+)", open(kubeconfig).read())
        if not token:
            fail("the virtual cluster's kubeconfig has no token to protect")
        secrets = [token.group(1), AWS_KEY_ID, AWS_SECRET]

        text = run_once(tmp, kubeconfig, "text", "text-pod")
        launch = [l for l in text.splitlines() if "launch default/text-pod" in l or "action=launch" in l]
        if not launch or " INFO  launch " not in launch[0] or "reason=" not in launch[0]:
            fail(f"no human-readable launch line with a reason:\n{text[-2000:]}")

        js = run_once(tmp, kubeconfig, "json", "json-pod")
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

        for s in secrets:
            for name, out in (("text", text), ("json", js)):
                if s in out:
                    fail(f"a credential ({s[:6]}...) appeared in the {name} log")
        print(f"ok: {len(text.splitlines())} text and {len(records)} JSON lines, launches logged with reasons, "
              f"no credential printed")
    finally:
        stop(cluster)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
