#!/usr/bin/env python3
"""`fitscale plan` end to end: the real binary on the bundled example cluster, on YAML, with a
budget config, and on malformed input (one clear error line with the place, exit code 2)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, run_cli, write_file  # noqa: E402

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "cluster.json")
NOW = "2026-11-29T22:00:00Z"


def run_plan(*args):
    return run_cli("plan", *args, timeout=120)


class PlanCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        return write_file(self.tmp.name, name, text)

    def example_plan(self, *extra):
        r = run_plan("--cluster", EXAMPLE, "--now", NOW, *extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_output_has_the_issue_shape(self):
        plan = self.example_plan()
        self.assertEqual(list(plan.keys()), ["launch", "remove", "unschedulable", "usd_per_hour", "elapsed_ms"])
        for launch in plan["launch"]:
            self.assertEqual(list(launch.keys()),
                             ["instance_type", "zone", "capacity_type", "count", "usd_per_hour", "pods"])
        # Top-level price = sum over launches of count x price of one instance.
        total = sum(l["count"] * l["usd_per_hour"] for l in plan["launch"])
        self.assertAlmostEqual(plan["usd_per_hour"], total, places=6)
        self.assertGreaterEqual(plan["elapsed_ms"], 0)

    def test_example_cluster_plan(self):
        plan = self.example_plan()
        by_pod = {p: l for l in plan["launch"] for p in l["pods"]}
        # The 16-GPU gang: two 8-GPU V100 instances (alias instance-gpu-name: v100), one zone, spot.
        gang = by_pod["research-a/train-0"]
        self.assertIs(gang, by_pod["research-a/train-1"])
        self.assertEqual((gang["instance_type"], gang["count"], gang["capacity_type"]), ("p3.16xlarge", 2, "spot"))
        # The migration requires on-demand and never lands on spot.
        self.assertEqual(by_pod["shop/db-migrate"]["capacity_type"], "on-demand")
        # Everything else is spot.
        for pod, launch in by_pod.items():
            if pod != "shop/db-migrate":
                self.assertEqual(launch["capacity_type"], "spot", pod)
        # The ETL pods fit the free room of the existing node: nothing is launched for them.
        self.assertFalse([p for p in by_pod if p.startswith("analytics/etl-")])
        # The four 2-CPU report pods need new capacity.
        self.assertEqual(len([p for p in by_pod if p.startswith("analytics/report-")]), 4)
        # No instance offers an FPGA: unschedulable, and the reason says so.
        self.assertEqual(plan["unschedulable"],
                         [{"pod": "research-b/fpga-sim", "reason": "requests example.com/fpga 1: no offering has it"}])
        # fitscale's own node has run nothing but a daemonset pod since 21:40.
        self.assertEqual(plan["remove"], [{"node": "ip-10-0-2-20.ec2.internal", "reason": "empty for 1200s"}])

    def test_same_input_same_plan(self):
        a = self.example_plan()
        b = self.example_plan()
        a.pop("elapsed_ms")
        b.pop("elapsed_ms")
        self.assertEqual(a, b)

    def test_budget_config_refuses_the_gang_with_numbers(self):
        config = self.write("config.yaml", "budgets:\n  namespaces:\n    research-a: {usdPerJob: 100, maxRuntime: 72h}\n")
        plan = self.example_plan("--config", config)
        refused = {u["pod"]: u["reason"] for u in plan["unschedulable"]}
        self.assertIn("research-a/train-0", refused)
        self.assertIn("research-a/train-1", refused)
        # The job declares 12h (fitscale.io/max-runtime), which wins over maxRuntime.
        self.assertEqual(refused["research-a/train-0"],
                         "namespace research-a: job needs $14.69/h × 12h = $176.26 worst case; usdPerJob is $100 "
                         "($76.26 over)")
        self.assertFalse([l for l in plan["launch"] if "research-a/train-0" in l["pods"]])

    def test_yaml_cluster(self):
        path = self.write("cluster.yaml", """
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: team-a, creationTimestamp: "2026-11-29T21:00:00Z"}
spec:
  containers:
  - name: main
    image: busybox
    resources: {requests: {cpu: "3", memory: 6Gi}}
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
""")
        r = run_plan("--cluster", path, "--now", NOW)
        self.assertEqual(r.returncode, 0, r.stderr)
        plan = json.loads(r.stdout)
        self.assertEqual(sum(l["count"] for l in plan["launch"]), 1)
        self.assertEqual(plan["launch"][0]["pods"], ["team-a/solo"])

    def test_pending_is_what_kubernetes_means(self):
        # Not yet looked at by the scheduler, gated by Kueue, nominated after preemption: none of
        # them is waiting for capacity, so nothing is launched for them (docs/planner.md).
        pods = []
        for name, extra_spec, status in [
                ("fresh", "", "{phase: Pending}"),
                ("gated", "  schedulingGates: [{name: kueue.x-k8s.io/admission}]\n",
                 "{phase: Pending, conditions: [{type: PodScheduled, status: 'False', reason: SchedulingGated}]}"),
                ("nominated", "",
                 "{phase: Pending, nominatedNodeName: n1, conditions: [{type: PodScheduled, status: 'False', reason: Unschedulable}]}")]:
            pods.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: team-a}}
spec:
{extra_spec}  containers:
  - name: main
    resources: {{requests: {{cpu: "3", memory: 6Gi}}}}
status: {status}
""")
        path = self.write("not-pending.yaml", "---\n".join(pods))
        r = run_plan("--cluster", path, "--now", NOW)
        self.assertEqual(r.returncode, 0, r.stderr)
        plan = json.loads(r.stdout)
        self.assertEqual(plan["launch"], [])
        self.assertEqual(plan["unschedulable"], [])

    def test_malformed_quantity_is_one_line_with_the_place(self):
        with open(EXAMPLE) as f:
            cluster = json.load(f)
        for item in cluster["items"]:
            if item["metadata"]["name"] == "db-migrate":
                item["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "12x"
        path = self.write("bad.json", json.dumps(cluster))
        r = run_plan("--cluster", path, "--now", NOW)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        for part in ("bad.json", "shop/db-migrate", "requests.cpu", "12x"):
            self.assertIn(part, lines[0])

    def test_broken_json_names_the_file(self):
        path = self.write("broken.json", '{"kind": "List", "items": [')
        r = run_plan("--cluster", path, "--now", NOW)
        self.assertEqual(r.returncode, 2)
        self.assertIn("broken.json", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_missing_file_and_bad_now(self):
        r = run_plan("--cluster", os.path.join(self.tmp.name, "nope.json"), "--now", NOW)
        self.assertEqual(r.returncode, 2)
        self.assertIn("nope.json", r.stderr)
        r = run_plan("--cluster", EXAMPLE, "--now", "yesterday")
        self.assertEqual(r.returncode, 2)
        self.assertIn("yesterday", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
