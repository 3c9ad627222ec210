#!/usr/bin/env python3
"""`fitscale simulate --report-html` writes a page a person can open offline: the headline numbers
are in the HTML itself, and headless Chromium, with scripts on, draws all six charts.

Needs: the fitscale binary (FITSCALE_BINARY) built with web/node_modules/chart.js present, and
/usr/bin/chromium."""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import fail, run_cli, scratch_dir, write_file  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

TRACE = """submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,checkpoint_interval_s
0,train-a,team-a,2,4,16Gi,1,V100,7200,,
60,train-b,team-b,1,8,32Gi,0,,3600,on-demand,
600,sweep-c,team-a,4,2,8Gi,0,,1800,,
"""

CHARTS = ["chart-nodes", "chart-cost-rate", "chart-pending", "chart-wait", "chart-namespaces", "chart-budget"]


def main():
    with scratch_dir("fitscale-html-") as work, scratch_dir("fitscale-chromium-") as profile:
        trace = write_file(work, "trace.csv", TRACE)
        html = os.path.join(work, "report.html")
        js = os.path.join(work, "report.json")
        r = run_cli("simulate", "--trace", trace, "--seed", "7", "--report-html", html, "--report-json", js,
                    "--quiet", timeout=120)
        if r.returncode != 0:
            fail(f"simulate exit {r.returncode}: {r.stderr}")
        page = open(html, encoding="utf-8").read()
        report = json.load(open(js))

        # Self-contained: no script or stylesheet fetched from anywhere.
        if re.search(r"<script[^>]+src=", page) or re.search(r"<link[^>]+href=", page):
            fail("the report loads external resources")
        if "Chart.js v4" not in page:
            fail("the Chart.js bundle is not embedded")
        # Headline numbers readable without JavaScript: the total cost and job counts as text.
        total = report["cost_usd"]["total"]
        total_text = "${:,.2f}".format(total)
        body = page.split('<script type="application/json"')[0]
        if total_text not in body:
            fail(f"total cost {total_text} not in the page text")
        if f"{report['jobs']['completed']} / {report['jobs']['submitted']}" not in body:
            fail("job counts not in the page text")
        # The page explains the bound it compares against, and says when virtual time starts.
        if 'id="bound-explained"' not in body or "dominant share" not in body:
            fail("the page does not explain the lower bound")
        if f"from {report['sim']['start']}" not in body:
            fail("the virtual start date is not in the page header")
        for ns in ("team-a", "team-b"):
            if f"<td>{ns}</td>" not in body:
                fail(f"namespace {ns} missing from the cost table")
        # The team table (waits, refusals, peak $/h against the cap) and the costliest jobs.
        if 'id="teams"' not in body or "peak $/h vs cap" not in body:
            fail("no team table with peak $/h against the cap")
        costliest = report["costliest_jobs"]
        if not costliest or 'id="costliest"' not in body or f"<td>{costliest[0]['job']}</td>" not in body:
            fail(f"the costliest jobs {costliest[:1]} are not in the page")

        out = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                              "--no-first-run", "--disable-background-networking", "--disable-component-update",
                              "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                              "--window-size=1400,2400", "--dump-dom", "file://" + html],
                             capture_output=True, text=True, timeout=120)
        dom = out.stdout
        if "<canvas" not in dom:
            fail("chromium produced no DOM: " + out.stderr[-2000:])
        for chart in CHARTS:
            m = re.search(r'<canvas[^>]*id="%s"[^>]*>' % chart, dom)
            if not m:
                fail(f"{chart}: canvas missing")
            tag = m.group(0)
            if 'data-drawn="true"' not in tag:
                err = re.search(r'data-error="([^"]*)"', tag)
                fail(f"{chart}: not drawn ({err.group(1) if err else 'script did not run'})")
            length = int(re.search(r'data-png-length="(\d+)"', tag).group(1))
            # An empty 560x280 canvas encodes to a few hundred bytes; axes, labels and lines to many KB.
            if length < 5000:
                fail(f"{chart}: canvas looks blank ({length} bytes of PNG)")
        if 'data-charts-drawn="6"' not in dom:
            fail("page did not report 6 charts drawn")
        print(f"ok: 6 charts drawn, total {total_text}, page {len(page)} bytes")


if __name__ == "__main__":
    main()
