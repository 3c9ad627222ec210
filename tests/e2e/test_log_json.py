#!/usr/bin/env python3
"""With `--log-format json`, EVERY line `fitscale run` prints, on stdout and on stderr, is a JSON
object with ts, level and msg: through leader election (acquire, release), informer sync, a pod
that does not decode and a launch (issue 13: the leader-election, informer and decode lines went
to spdlog's global logger, as text on stdout). `logFormat: json` in the config file does the same
without the flag, and the flag wins over the file.

Starts `fitscale cluster` and `fitscale run --provider sim` on loopback; needs FITSCALE_BINARY and
kubectl."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (Checks, Cluster, scratch_dir, sim_run_argv, spawn, stop, tail,  # noqa: E402
                         wait_for, write_file)


def pod(name, cpu="1"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"restartPolicy": "Never", "containers": [
                {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}}


def read(path):
    with open(path) as f:
        return f.read()


def start(cluster, tmp, name, *extra):
    out, err = os.path.join(tmp, f"{name}.out"), os.path.join(tmp, f"{name}.err")
    proc = spawn(sim_run_argv(cluster.kubeconfig, name, "--lease-namespace", "default", "--metrics-address", "off",
                              *extra), stdout=open(out, "w"), stderr=open(err, "w"))
    return proc, out, err


def json_lines(check, path, what):
    records = []
    for n, line in enumerate(read(path).splitlines(), 1):
        try:
            r = json.loads(line)
        except ValueError:
            check(False, f"{what}:{n} is not JSON: {line[:300]!r}")
            continue
        ok = isinstance(r, dict) and all(isinstance(r.get(k), str) and r.get(k) for k in ("ts", "level", "msg"))
        check(ok, f"{what}:{n} lacks ts/level/msg: {line[:300]!r}")
        records.append(r)
    return records


def main():
    check = Checks()
    with scratch_dir("fitscale-log-json-") as tmp, Cluster(tmp, "--boot-delay", "1") as cluster:
        # A pod whose CPU request is no quantity: the informer cannot decode it.
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=json.dumps(pod("undecodable", cpu="lots")))

        proc, out, err = start(cluster, tmp, "json-a", "--log-format", "json")
        try:
            def logged(text):
                return lambda: text in read(err) or text in read(out)
            wait_for("the leader election line", logged("leader election: acquired the lease"), proc=proc, log=err)
            wait_for("informers synced", logged('"informers synced"'), proc=proc, log=err)
            wait_for("the decode failure", logged("cannot decode"), proc=proc, log=err)
            cluster.apply(pod("ordinary"))
            wait_for("the launch for default/ordinary", logged('"action":"launch"'), proc=proc, log=err)
        finally:
            code = stop(proc)
        check(code == 0, f"fitscale run exited {code}:\n{tail(err)}")

        records = json_lines(check, out, "stdout") + json_lines(check, err, "stderr")
        msgs = [r["msg"] for r in records]
        for want in ["fitscale run: starting", "leader election: acquired the lease", "informers synced",
                     "leader election: released the lease", "fitscale run: stopped"]:
            check(want in msgs, f"no JSON line {want!r}; got {msgs[:30]}")
        decode = [r for r in records if "cannot decode" in r["msg"]]
        check(decode and decode[0].get("object") == "default/undecodable" and decode[0].get("level") == "warn",
              f"decode failure not one warn line naming the pod: {decode[:2]}")
        check("lots" in (decode[0].get("error", "") if decode else ""), f"the decode error does not say why: {decode[:1]}")
        launches = [r for r in records if r.get("action") == "launch"]
        check(launches and launches[0].get("subject") == "ordinary" and launches[0].get("namespace") == "default",
              f"no JSON launch record for default/ordinary: {launches[:2]}")
        check(read(out) == "", f"fitscale run printed on stdout: {read(out)[:300]!r}")

        # The config file's logFormat, without the flag: JSON. With --log-format text: text.
        config = write_file(tmp, "config.yaml", "logFormat: json\n")
        for name, extra, want_json in [("file-json", [], True), ("flag-wins", ["--log-format", "text"], False)]:
            proc, out, err = start(cluster, tmp, name, "--config", config, *extra)
            try:
                wait_for(f"{name}: the start line", lambda: "fitscale run: starting" in read(err), proc=proc, log=err)
            finally:
                stop(proc)
            first = read(err).splitlines()[0]
            try:
                is_json = isinstance(json.loads(first), dict)
            except ValueError:
                is_json = False
            check(is_json == want_json, f"{name}: first line {'is not' if want_json else 'is'} JSON: {first!r}")
            if want_json:
                json_lines(check, err, f"{name} stderr")
            else:
                check(" INFO  " in first, f"{name}: not a text line: {first!r}")

    check.exit_if_failed()
    print(f"ok: {len(records)} JSON lines (leader election, sync, decode failure, launch), nothing else; "
          "logFormat from the file, the flag wins")


if __name__ == "__main__":
    main()
