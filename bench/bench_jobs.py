"""What the benchmarks against `fitscale cluster` share (bench/burst.py, bench/vcluster_scale.py):
the e2e helpers on the import path, and the load itself -- a namespace and PODS small busybox pods
(250m CPU, 256Mi) in JOBS batch Jobs, applied with one kubectl apply, as a user submits a burst."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
spec:
  parallelism: {n}
  completions: {n}
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            cpu: 250m
            memory: 256Mi
"""


def jobs_manifest(ns, pods, jobs):
    """`jobs` Jobs named job-000... of pods // jobs pods each; returns (manifest, pod count)."""
    per = pods // jobs
    return "---\n".join(JOB.format(name=f"job-{i:03d}", ns=ns, n=per) for i in range(jobs)), per * jobs


def apply_jobs(cluster, ns, pods, jobs, timeout=600):
    """Applies the Jobs in namespace `ns` (which must exist); returns how many pods they run."""
    manifest, total = jobs_manifest(ns, pods, jobs)
    cluster.kubectl("apply", "-f", "-", stdin=manifest, timeout=timeout)
    return total
