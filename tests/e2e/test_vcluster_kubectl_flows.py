"""Everyday kubectl flows against `fitscale cluster`, without --validate=false: apply twice,
diff (unchanged, changed, --server-side), server-side apply conflicts and --force-conflicts,
client-side validation answered by the server's OpenAPI (unknown fields reported as kubectl
reports them), explain, describe, wait for a Job, logs, Indexed Jobs, PriorityClass and
garbage collection with delete --cascade=background|foreground|orphan."""
import functools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import Cluster, Checks, scratch_dir  # noqa: E402

wait_for = functools.partial(e2e_support.wait_for, timeout=40)

JOB_YAML = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  annotations:
    fitscale.io/sim-duration: {duration}
spec:
  {extra}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            cpu: 100m
"""


def job_yaml(name, duration="1s", extra=""):
    return JOB_YAML.format(name=name, duration=duration, extra=extra or "parallelism: 1")


def pods_of(c, job):
    return c.kjson("get", "pods", "-l", f"job-name={job}")["items"]


def main():
    with scratch_dir("fitscale-kubectl-flows-") as tmp, Cluster(tmp, "--boot-delay", "1") as c:
        try:
            run(c)
        except Exception:
            sys.stderr.write("--- fitscale cluster log ---\n" + c.log_tail(5000))
            raise
    print("ok")


def run(c):
    check = Checks()
    status, res = c.http("POST", "/fitscale.io/sim-cloud/launch",
                         {"instance_type": "m5.xlarge", "zone": "us-east-1a",
                          "capacity_type": "on-demand", "count": 1, "pool": "default",
                          "owner_namespace": "default", "job": "e2e", "client_token": "flows"})
    assert status == 200, res
    wait_for("a node", lambda: c.kjson("get", "nodes")["items"])

    # --- OpenAPI: apply with validation on (kubectl's default), twice.
    first = c.kubectl("apply", "-f", "-", stdin=job_yaml("hello", "2s"), check=False)
    check(first.returncode == 0 and "job.batch/hello created" in first.stdout,
          f"apply with validation: {first.stdout}{first.stderr}")
    second = c.kubectl("apply", "-f", "-", stdin=job_yaml("hello", "2s"), check=False)
    check(second.returncode == 0 and "job.batch/hello unchanged" in second.stdout,
          f"second apply: {second.stdout}{second.stderr}")
    same = c.kubectl("diff", "-f", "-", stdin=job_yaml("hello", "2s"), check=False)
    check(same.returncode == 0 and same.stdout == "", f"diff of the applied Job: {same.returncode} {same.stdout}{same.stderr}")
    # A changed object: diff shows the change and exits 1; the live object stays as it was.
    changed = c.kubectl("diff", "-f", "-", stdin=job_yaml("hello", "2s").replace(
        "fitscale.io/sim-duration: 2s", "fitscale.io/sim-duration: 9s"), check=False)
    check(changed.returncode == 1 and "-    fitscale.io/sim-duration: 2s" in changed.stdout
          and "+    fitscale.io/sim-duration: 9s" in changed.stdout,
          f"diff of a changed Job: {changed.returncode} {changed.stdout}{changed.stderr}")
    live = c.kjson("get", "job", "hello")["metadata"]["annotations"]["fitscale.io/sim-duration"]
    check(live == "2s", f"kubectl diff changed the live Job: sim-duration {live}")
    bad = c.kubectl("apply", "-f", "-", stdin=job_yaml("typo", extra="parallelizm: 2"), check=False)
    check(bad.returncode != 0 and 'unknown field "spec.parallelizm"' in bad.stderr,
          f"an unknown field must be refused by name: {bad.returncode} {bad.stderr}")
    check(c.kubectl("get", "job", "typo", check=False).returncode != 0, "the typo Job was created")
    warned = c.kubectl("apply", "--validate=warn", "-f", "-",
                       stdin=job_yaml("warned", extra="parallelizm: 2"), check=False)
    check(warned.returncode == 0 and 'unknown field "spec.parallelizm"' in warned.stderr,
          f"--validate=warn must warn and create: {warned.returncode} {warned.stderr}")
    explain = c.kubectl("explain", "pod.spec.containers", check=False)
    check(explain.returncode == 0 and "containers" in explain.stdout and "image" in explain.stdout
          and "resources" in explain.stdout, f"explain: {explain.stdout}{explain.stderr}")
    explain_job = c.kubectl("explain", "job.spec.completionMode", check=False)
    check(explain_job.returncode == 0 and "Indexed" in explain_job.stdout,
          f"explain job.spec.completionMode: {explain_job.stdout}{explain_job.stderr}")

    # --- server-side apply: two managers, a conflict named by field, --force-conflicts
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"},
          "data": {"owner": "alice", "size": "1"}}
    r = c.kubectl("apply", "--server-side", "--field-manager=alice", "-f", "-",
                  stdin=json.dumps(cm), check=False)
    check(r.returncode == 0 and "serverside-applied" in r.stdout, f"apply --server-side: {r.stdout}{r.stderr}")
    bob = dict(cm, data={"size": "2"})
    r = c.kubectl("apply", "--server-side", "--field-manager=bob", "-f", "-",
                  stdin=json.dumps(bob), check=False)
    check(r.returncode != 0 and 'conflict with "alice": .data.size' in r.stderr
          and "--force-conflicts" in r.stderr, f"a conflicting apply: {r.returncode} {r.stderr}")
    check(c.kjson("get", "configmap", "shared")["data"]["size"] == "1", "the conflicting apply wrote")
    r = c.kubectl("apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", "-",
                  stdin=json.dumps(bob), check=False)
    check(r.returncode == 0, f"--force-conflicts: {r.stderr}")
    got = c.kjson("get", "configmap", "shared", "--show-managed-fields")
    check(got["data"] == {"owner": "alice", "size": "2"}, f"after the forced apply: {got['data']}")
    owners = {m["manager"]: sorted(m["fieldsV1"].get("f:data", {})) for m in got["metadata"]["managedFields"]}
    check(owners.get("alice") == ["f:owner"] and owners.get("bob") == ["f:size"],
          f"managed fields after the forced apply: {owners}")
    ssa_diff = c.kubectl("diff", "--server-side", "--field-manager=bob", "-f", "-",
                         stdin=json.dumps(dict(cm, data={"size": "3"})), check=False)
    check(ssa_diff.returncode == 1 and '+  size: "3"' in ssa_diff.stdout,
          f"diff --server-side: {ssa_diff.returncode} {ssa_diff.stdout}{ssa_diff.stderr}")
    check(c.kjson("get", "configmap", "shared")["data"]["size"] == "2", "diff --server-side wrote")

    # --- wait, logs, describe
    w = c.kubectl("wait", "--for=condition=complete", "job/hello", "--timeout=60s", check=False, timeout=90)
    check(w.returncode == 0 and "condition met" in w.stdout, f"wait: {w.stdout}{w.stderr}")
    pod = pods_of(c, "hello")[0]["metadata"]["name"]
    # get columns of jobs and events, as kubectl prints them from kube-apiserver's Tables
    jobs = c.kubectl("get", "jobs").stdout.splitlines()
    check(jobs[0].split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"], f"get jobs: {jobs}")
    hello = [line.split() for line in jobs if line.startswith("hello ")]
    check(hello and hello[0][1:3] == ["Complete", "1/1"], f"the hello row: {jobs}")
    events = c.kubectl("get", "events").stdout.splitlines()
    check(events[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
          f"get events: {events[:2]}")
    check(any(f"Pod/{pod}" in line and "Scheduled" in line for line in events),
          f"no Scheduled event row for Pod/{pod}: {events[:10]}")
    logs = c.kubectl("logs", pod, check=False)
    check(logs.returncode == 0 and "started on node" in logs.stdout and "exited with code 0" in logs.stdout,
          f"logs: {logs.stdout}{logs.stderr}")
    job_logs = c.kubectl("logs", "job/hello", check=False)
    check(job_logs.returncode == 0 and "exited with code 0" in job_logs.stdout,
          f"logs job/hello: {job_logs.stdout}{job_logs.stderr}")
    tail = c.kubectl("logs", pod, "--tail=1", check=False)
    check(tail.stdout.strip().startswith("exited with code 0"), f"logs --tail=1: {tail.stdout!r}")
    desc = c.kubectl("describe", "pod", pod, check=False)
    check(desc.returncode == 0 and f"Name:" in desc.stdout and "Succeeded" in desc.stdout,
          f"describe: {desc.stdout}{desc.stderr}")

    # --- Indexed Job: index annotation/label, env, hostname, completedIndexes
    c.kubectl("apply", "-f", "-", stdin=job_yaml(
        "indexed", "1s", "completionMode: Indexed\n  completions: 3\n  parallelism: 3"))
    w = c.kubectl("wait", "--for=condition=complete", "job/indexed", "--timeout=60s", check=False, timeout=90)
    check(w.returncode == 0, f"wait for the Indexed Job: {w.stdout}{w.stderr}")
    indexed = pods_of(c, "indexed")
    idx = sorted(p["metadata"]["annotations"].get("batch.kubernetes.io/job-completion-index", "?")
                 for p in indexed)
    check(idx == ["0", "1", "2"], f"completion indexes {idx}")
    for p in indexed:
        i = p["metadata"]["annotations"].get("batch.kubernetes.io/job-completion-index")
        check(p["metadata"]["labels"].get("batch.kubernetes.io/job-completion-index") == i,
              f"index label on {p['metadata']['name']}")
        check(p["spec"].get("hostname") == f"indexed-{i}", f"hostname {p['spec'].get('hostname')}")
        env = [e["name"] for e in p["spec"]["containers"][0].get("env", [])]
        check("JOB_COMPLETION_INDEX" in env, f"env {env}")
        log = c.kubectl("logs", p["metadata"]["name"], check=False).stdout
        check(f"JOB_COMPLETION_INDEX={i}" in log, f"log of index {i}: {log!r}")
    status = c.kjson("get", "job", "indexed")["status"]
    check(status.get("completedIndexes") == "0-2", f"completedIndexes {status.get('completedIndexes')}")

    # --- PriorityClass: globalDefault resolves into pods; an unknown class is refused.
    pcs = {p["metadata"]["name"] for p in c.kjson("get", "priorityclasses")["items"]}
    check({"system-cluster-critical", "system-node-critical"} <= pcs, f"priority classes {pcs}")
    c.kubectl("apply", "-f", "-", stdin=json.dumps({
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "batch-default"}, "value": 500, "globalDefault": True}))
    c.kubectl("apply", "-f", "-", stdin=json.dumps({
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": "urgent"}, "value": 9000, "preemptionPolicy": "Never"}))
    plain = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plain"},
             "spec": {"containers": [{"name": "main", "image": "busybox"}]}}
    c.kubectl("apply", "-f", "-", stdin=json.dumps(plain))
    spec = c.kjson("get", "pod", "plain")["spec"]
    check(spec.get("priority") == 500 and spec.get("priorityClassName") == "batch-default",
          f"globalDefault not applied: {spec.get('priority')} {spec.get('priorityClassName')}")
    urgent = dict(plain, metadata={"name": "urgent"},
                  spec=dict(plain["spec"], priorityClassName="urgent"))
    c.kubectl("apply", "-f", "-", stdin=json.dumps(urgent))
    spec = c.kjson("get", "pod", "urgent")["spec"]
    check(spec.get("priority") == 9000 and spec.get("preemptionPolicy") == "Never",
          f"class urgent not resolved: {spec}")
    nope = dict(plain, metadata={"name": "nope"}, spec=dict(plain["spec"], priorityClassName="nope"))
    r = c.kubectl("apply", "-f", "-", stdin=json.dumps(nope), check=False)
    check(r.returncode != 0 and "no PriorityClass with name nope was found" in r.stderr
          and "Forbidden" in r.stderr, f"unknown class: {r.stderr}")
    second_default = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                      "metadata": {"name": "other-default"}, "value": 1, "globalDefault": True}
    r = c.kubectl("apply", "-f", "-", stdin=json.dumps(second_default), check=False)
    check(r.returncode != 0 and "is invalid" in r.stderr, f"two defaults: {r.stderr}")
    code, err = c.http("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", second_default)
    check(code == 422 and "Only one default can exist" in err.get("message", ""), f"two defaults: {err}")

    # --- garbage collection: delete --cascade=orphan|background|foreground
    for name in ("orphaned", "background", "foreground"):
        c.kubectl("apply", "-f", "-", stdin=job_yaml(name, "1h", "parallelism: 2"))
        wait_for(f"two pods of {name}", lambda n=name: len(pods_of(c, n)) == 2)
    c.kubectl("delete", "job", "orphaned", "--cascade=orphan")
    left = pods_of(c, "orphaned")
    check(len(left) == 2 and all(not p["metadata"].get("ownerReferences") for p in left),
          f"--cascade=orphan: pods {[(p['metadata']['name'], p['metadata'].get('ownerReferences')) for p in left]}")
    c.kubectl("delete", "job", "background", "--cascade=background")
    wait_for("background's pods to go", lambda: not pods_of(c, "background"))
    r = c.kubectl("delete", "job", "foreground", "--cascade=foreground", "--wait=false")
    job = c.kjson("get", "job", "foreground")
    check("foregroundDeletion" in job["metadata"].get("finalizers", []) and
          job["metadata"].get("deletionTimestamp"), f"foreground owner metadata {job['metadata']}")
    wait_for("the foreground Job to go after its pods",
             lambda: c.kubectl("get", "job", "foreground", check=False).returncode != 0)
    check(not pods_of(c, "foreground"), "foreground left pods behind")
    # The orphans are still there after the collector has had time to act.
    wait_for("a collector pass", lambda: not pods_of(c, "background"))
    check(len(pods_of(c, "orphaned")) == 2, "orphaned pods were collected later")
    check.exit_if_failed()


if __name__ == "__main__":
    main()
