#!/usr/bin/env python3
"""`fitscale simulate` as a user runs it: a report with the issue's fields, the same bytes for the
same seed, a hand-checkable trace with exact numbers, and a malformed trace refused with its line."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, run_cli, scratch_dir, write_file  # noqa: E402

TRACES = os.path.join(SOURCE_DIR, "tests", "data", "traces")


def simulate(args, check=True):
    p = run_cli("simulate", *args, timeout=240)
    if check and p.returncode != 0:
        sys.exit(f"fitscale simulate {args} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p


def without_wall_time(text):
    # The one field that depends on the machine, not on the inputs.
    return re.sub(r'"wall_s": [0-9.e+-]+', '"wall_s": 0', text)


def main():
    with scratch_dir("fitscale-simulate-") as tmp:
        # Same seed, same bytes (spot interruptions are drawn from the seed).
        reports = []
        for i in range(2):
            out = os.path.join(tmp, f"r{i}.json")
            p = simulate(["--trace", os.path.join(TRACES, "spot_sample.csv"), "--seed", "42",
                          "--report-json", out])
            assert "fitscale simulate" in p.stdout and "lower bound" in p.stdout, p.stdout
            with open(out) as f:
                reports.append(f.read())
        assert without_wall_time(reports[0]) == without_wall_time(reports[1]), "same seed, different report"
        r = json.loads(reports[0])
        for key in ["jobs", "refusals", "cost_usd", "lower_bound_usd", "wait_s", "nodes", "gpu_hours", "sim"]:
            assert key in r, f"report lacks {key}"
        for key in ["total", "spot", "on_demand", "idle", "by_namespace"]:
            assert key in r["cost_usd"], key
        assert r["jobs"] == {"submitted": 6, "completed": 6, "refused": 0, "terminated": 0}, r["jobs"]
        assert r["cost_usd"]["total"] >= r["lower_bound_usd"] > 0, (r["cost_usd"], r["lower_bound_usd"])
        # The on-demand-only job ran on on-demand capacity; the rest on spot.
        assert r["cost_usd"]["on_demand"] > 0 and r["cost_usd"]["spot"] > 0, r["cost_usd"]
        assert set(r["cost_usd"]["by_namespace"]) == {"vc-a", "vc-b", "vc-c"}, r["cost_usd"]["by_namespace"]
        assert r["sim"]["seed"] == 42 and r["sim"]["wall_s"] > 0
        # The virtual date of trace second 0 is in the report and the summary.
        assert r["sim"]["start"] == "2026-01-05T00:00:00Z", r["sim"]
        assert "of virtual time from 2026-01-05T00:00:00Z" in p.stdout, p.stdout
        # Costs from the ledger add up: namespaces to the total to the cent, and the excess over
        # the bound, part by part, to total - lower bound; the summary says where it went.
        c = r["cost_usd"]
        assert abs(sum(c["by_namespace"].values()) - c["total"]) < 0.005, c
        x = r["excess_usd"]
        assert set(x) == {"boot", "idle", "lost_to_interruptions", "lost_to_evictions", "packing"}, x
        assert x["lost_to_evictions"] == 0 and r["evictions"]["nodes_drained"] == 0, "fitscale evicted"
        assert abs(sum(x.values()) - (c["total"] - r["lower_bound_usd"])) < 0.005, (x, c, r["lower_bound_usd"])
        assert abs(x["boot"] + x["idle"] - c["idle"]) < 0.005, (x, c)
        assert re.search(r"over bound +\$[0-9,.]+: boot \$[0-9,.]+, idle .*, interruptions .*, packing ",
                         p.stdout), p.stdout

        # The hand-checked trace (numbers worked out in tests/sim/simulator_test.cpp).
        cfg = write_file(tmp, "one-zone.yaml", "zones: [us-east-1a]\n")
        out = os.path.join(tmp, "three.json")
        simulate(["--trace", os.path.join(TRACES, "three_jobs.csv"), "--catalog",
                  os.path.join(TRACES, "one_gpu_catalog.csv"), "--config", cfg, "--report-json", out])
        with open(out) as f:
            r = json.load(f)
        assert r["cost_usd"]["total"] == 6.75, r["cost_usd"]
        assert r["cost_usd"]["on_demand"] == 6.75 and r["cost_usd"]["spot"] == 0
        assert r["lower_bound_usd"] == 6.0, r["lower_bound_usd"]
        assert r["wait_s"]["p50"] == 180 and r["wait_s"]["max"] == 180, r["wait_s"]
        assert r["nodes"]["launched"] == 3 and r["nodes"]["peak"] == 2, r["nodes"]
        assert r["gpu_hours"] == {"provisioned": 1.875, "used": 1.667}, r["gpu_hours"]
        assert r["cost_usd"]["by_namespace"] == {"team-a": 4.7, "team-b": 2.05}, r["cost_usd"]
        assert r["excess_usd"] == {"boot": 0.54, "idle": 0.21, "lost_to_interruptions": 0, "lost_to_evictions": 0,
                                   "packing": 0}, \
            r["excess_usd"]

        # A replay that takes more than a second says where it is on stderr (one line every 10 s
        # when stderr is no terminal); --quiet says nothing at all. A week of Philly with a loop
        # every 2 s takes several seconds of CPU on the CI machine.
        # The first 3,000 jobs of the week: enough for several progress lines, and a test of the
        # progress lines need not replay all of it (docs/PERFORMANCE.md times the whole week).
        out = os.path.join(tmp, "week.json")
        with open(os.path.join(SOURCE_DIR, "data", "traces", "philly-week.csv")) as f:
            head = f.readlines()[:3001]
        week = os.path.join(tmp, "philly-week-head.csv")
        with open(week, "w") as f:
            f.writelines(head)
        p = simulate(["--trace", week, "--interval", "2", "--report-json", out])
        with open(out) as f:
            wall = json.load(f)["sim"]["wall_s"]
        lines = [l for l in p.stderr.splitlines() if l.startswith("simulate: day ")]
        assert wall < 1.0 or lines, (wall, p.stderr)
        assert all(re.fullmatch(r"simulate: day [0-9.]+, [0-9,]+ of 3,000 jobs submitted, [0-9,]+ done "
                                r"\([0-9]+%\), [0-9]+ s", l) for l in lines), lines
        assert "\r" not in p.stderr, "progress rewritten in place though stderr is no terminal"
        p = simulate(["--trace", week, "--interval", "2", "--quiet"])
        assert p.stdout == "" and p.stderr == "", (p.stdout, p.stderr)

        # A malformed row stops the command with the file, the line and the column.
        p = simulate(["--trace", os.path.join(TRACES, "malformed.csv")], check=False)
        assert p.returncode == 2, (p.returncode, p.stderr)
        assert "malformed.csv:3: column cpu:" in p.stderr, p.stderr
        # A trace that does not exist is an error too, not an empty report.
        p = simulate(["--trace", os.path.join(tmp, "missing.csv")], check=False)
        assert p.returncode == 2 and "missing.csv" in p.stderr, p.stderr
    print("ok")


if __name__ == "__main__":
    main()
