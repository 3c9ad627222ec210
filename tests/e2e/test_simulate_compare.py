#!/usr/bin/env python3
"""`fitscale simulate --compare`: fitscale and the two baselines over the same trace and catalog, in
one run. A person sees a column per run on stdout, one JSON document with every run, and one HTML
page with every run in the same tables and on the same charts, which headless Chromium draws and
screenshots. Karpenter's consolidation evicts a running job that fitscale leaves alone, and the
loss is counted.

Needs: the fitscale binary built with web/node_modules/chart.js present, and /usr/bin/chromium."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, run_cli, scratch_dir, write_file  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# "solo" (1 GPU, 10 h, no checkpoints) gets a p3.2xlarge; at 1 h "trio" (3 GPUs) gets a
# p3.8xlarge with a GPU to spare, where Karpenter's consolidation moves solo (from zero again).
TRACE = """submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,checkpoint_interval_s
0,solo,team-a,1,4,16Gi,1,V100,36000,,
3600,trio,team-b,1,12,48Gi,3,V100,36000,,
4000,pair,team-b,2,4,16Gi,1,V100,7200,,
"""
RUNS = ["fitscale", "cluster-autoscaler", "karpenter"]
CHARTS = ["chart-cumulative", "chart-excess", "chart-cost-rate", "chart-nodes", "chart-pending", "chart-wait"]


def main():
    check = Checks()
    with scratch_dir("fitscale-compare-") as d, scratch_dir("fitscale-chromium-") as profile:
        trace = write_file(d, "trace.csv", TRACE)
        config = write_file(d, "quiet-cloud.yaml", "zones: [us-east-1a]\nsimulator:\n  interruptions: false\n")
        js, html = os.path.join(d, "compare.json"), os.path.join(d, "compare.html")
        r = run_cli("simulate", "--trace", trace, "--config", config, "--compare", *RUNS,
                    "--report-json", js, "--report-html", html, timeout=240)
        check(r.returncode == 0, f"simulate --compare exit {r.returncode}: {r.stderr}")
        if r.returncode != 0:
            check.exit_if_failed()

        # stdout: a summary per run, then one table with a column per run.
        header = [l for l in r.stdout.splitlines() if all(name in l for name in RUNS) and "cost" not in l]
        check(len(header) == 1, f"no comparison header with the three runs:\n{r.stdout}")
        cost_row = [l for l in r.stdout.splitlines() if re.fullmatch(r" +cost( +\$[0-9,.]+){3} *", l)]
        check(len(cost_row) == 1, f"no cost row with three columns:\n{r.stdout}")

        doc = json.load(open(js))
        check([run["name"] for run in doc["runs"]] == RUNS, f"runs {[run['name'] for run in doc['runs']]}")
        reports = {run["name"]: run["report"] for run in doc["runs"]}
        check([reports[n]["sim"]["policy"] for n in RUNS] == RUNS, "policies do not match the columns")
        for n in RUNS:
            check(reports[n]["jobs"]["completed"] == 3, f"{n}: {reports[n]['jobs']}")
            check(reports[n]["jobs"]["submitted"] == 3 and reports[n]["sim"]["start"] == "2026-01-05T00:00:00Z",
                  f"{n}: not the same trace")
        f, k = reports["fitscale"], reports["karpenter"]
        check(f["evictions"]["nodes_drained"] == 0 and f["excess_usd"]["lost_to_evictions"] == 0,
              f"fitscale evicted: {f['evictions']}")
        check(k["evictions"]["nodes_drained"] >= 1 and k["evictions"]["drained_by_reason"].get("consolidated", 0) >= 1,
              f"karpenter did not consolidate: {k['evictions']}")
        check(k["evictions"]["lost_usd"] > 0 and 0.9 < k["evictions"]["lost_job_hours"] < 1.2,
              f"karpenter's eviction of solo after ~1 h is not counted: {k['evictions']}")
        check(k["excess_usd"]["lost_to_evictions"] == k["evictions"]["lost_usd"], "excess and evictions disagree")
        # No budgets under the baselines: their namespaces have no caps.
        check(k["namespaces"]["team-a"]["budget"]["usd_per_hour"] is None, "karpenter has caps")

        page = open(html, encoding="utf-8").read()
        body = page.split('<script type="application/json"')[0]
        check(len(re.findall(r'<th class="num run">', body)) == 3, "the comparison table has no three columns")
        for n in RUNS:
            check(f"Costliest jobs: {n}" in body, f"no costliest jobs for {n}")
        check('id="bound-explained"' in body and 'id="teams"' in body, "no bound explanation or team table")
        check("<td>team-a</td>" in body and "<td>team-b</td>" in body, "teams missing from the team table")

        out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                              "--no-first-run", "--disable-background-networking", "--disable-component-update",
                              "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                              "--window-size=1400,2400", "--dump-dom", "file://" + html],
                             capture_output=True, text=True, timeout=120)
        dom = out.stdout
        check("<canvas" in dom, "chromium produced no DOM: " + out.stderr[-2000:])
        for chart in CHARTS:
            m = re.search(r'<canvas[^>]*id="%s"[^>]*>' % chart, dom)
            if not m:
                check(False, f"{chart}: canvas missing")
                continue
            tag = m.group(0)
            err = re.search(r'data-error="([^"]*)"', tag)
            check('data-drawn="true"' in tag, f"{chart}: not drawn ({err.group(1) if err else 'no script'})")
            sets = re.search(r'data-datasets="(\d+)"', tag)
            want = 6 if chart == "chart-excess" else 3  # the bound and five parts, stacked per run
            check(sets is not None and int(sets.group(1)) == want, f"{chart}: {sets and sets.group(1)} datasets")
        shot = os.path.join(d, "compare.png")
        s = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--hide-scrollbars",
                            "--window-size=1400,2400", f"--screenshot={shot}", "file://" + html],
                           capture_output=True, text=True, timeout=120)
        size = os.path.getsize(shot) if os.path.exists(shot) else 0
        # A blank 1400x2400 page is a few KB of PNG; tables and six charts are far more.
        check(size > 50_000, f"screenshot {size} bytes: {s.stderr[-1000:]}")

        # A name that is neither a file nor a built-in policy is refused before anything runs.
        bad = run_cli("simulate", "--trace", trace, "--compare", "fitscale", "karpentr", timeout=60)
        check(bad.returncode == 2 and "karpentr" in bad.stderr and "built-in policy" in bad.stderr,
              f"--compare karpentr: {bad.returncode} {bad.stderr}")
        # A config file as a column: named after the file, its policy from its `policy:` key.
        ca = write_file(d, "ca.yaml", "zones: [us-east-1a]\npolicy: cluster-autoscaler\n")
        two = os.path.join(d, "two.json")
        r = run_cli("simulate", "--trace", trace, "--compare", config, ca, "--report-json", two, "--quiet",
                    timeout=240)
        check(r.returncode == 0 and r.stdout == "", f"--compare FILES --quiet: {r.returncode} {r.stdout} {r.stderr}")
        if r.returncode == 0:
            runs = json.load(open(two))["runs"]
            check([(x["name"], x["report"]["sim"]["policy"]) for x in runs] ==
                  [("quiet-cloud", "fitscale"), ("ca", "cluster-autoscaler")], f"file columns {runs}")
        # `run` is fitscale: a baseline policy there is an error, not a silent approximation.
        r = run_cli("run", "--provider", "sim", "--kubeconfig", os.path.join(d, "none"), "--config", ca, timeout=60)
        check(r.returncode == 2 and "simulate" in r.stderr, f"run with policy: cluster-autoscaler: {r.stderr}")
    check.exit_if_failed()
    print("ok: three runs side by side, karpenter's eviction counted, page drawn")


if __name__ == "__main__":
    main()
