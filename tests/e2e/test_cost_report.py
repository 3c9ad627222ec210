"""`fitscale cost` over a ledger written by `fitscale simulate --ledger`: every grouping adds up to
the same total, which equals the SQLite file's node cost; a window split in two adds up to the
whole to the micro-dollar; the table is readable; bad flags are refused."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, run_cli, scratch_dir, sqlite_read_only, write_file  # noqa: E402

# Two teams, GPU and CPU-only jobs, one crossing UTC midnight of the simulated day
# (the simulator starts at 2026-01-05T00:00:00Z).
TRACE = """submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,checkpoint_interval_s
0,train-a,team-a,2,48,320Gi,8,V100,5400,,
60,eval-a,team-a,1,6,40Gi,1,V100,1800,,
120,prep-b,team-b,1,4,16Gi,0,,3600,on-demand,
82800,night-b,team-b,1,6,40Gi,1,V100,7200,,
"""


def cost(ledger, *args):
    return run_cli("cost", "--ledger", ledger, *args, timeout=60)


def main():
    check = Checks()

    with scratch_dir("fitscale-cost-") as d:
        trace = write_file(d, "trace.csv", TRACE)
        ledger = os.path.join(d, "ledger.db")
        sim_json = os.path.join(d, "sim.json")
        r = run_cli("simulate", "--trace", trace, "--ledger", ledger, "--report-json", sim_json, "--quiet",
                    timeout=240)
        check(r.returncode == 0, f"simulate exit {r.returncode}: {r.stderr}")
        sim = json.load(open(sim_json)) if r.returncode == 0 else {"cost_usd": {"idle": -1}}

        with sqlite_read_only(ledger) as db:
            node_total = db.execute("SELECT SUM(node_micros) FROM segments").fetchone()[0] or 0
        check(node_total > 0, "the ledger is empty")

        totals = {}
        for by in ["namespace", "job", "instance-type", "capacity-type"]:
            r = cost(ledger, "--by", by, "--json")
            check(r.returncode == 0, f"--by {by}: exit {r.returncode}: {r.stderr}")
            if r.returncode != 0:
                continue
            doc = json.loads(r.stdout)
            totals[by] = doc["total_micros"]
            check(sum(row["micros"] for row in doc["rows"]) == doc["total_micros"], f"--by {by}: rows do not add up")
            keys = [row["key"] for row in doc["rows"]]
            if by == "namespace":
                check(set(keys) == {"team-a", "team-b"}, f"namespaces {keys}")
            if by == "job":
                check({"team-a/train-a", "team-a/eval-a", "team-b/prep-b", "team-b/night-b"} <= set(keys),
                      f"jobs {keys}")
            if by == "capacity-type":
                check("on-demand" in keys, f"prep-b asked for on-demand: {keys}")
        check(len(set(totals.values())) == 1 and node_total in totals.values(),
              f"groupings disagree or differ from SQLite ({node_total}): {totals}")

        # One idle: what `cost` calls idle is what `simulate` called idle for the same run (node
        # time with no pod on it, boot included); the room pods leave unused is a column apart.
        whole = json.loads(cost(ledger, "--json").stdout)
        check(abs(whole["idle_micros"] / 1e6 - sim["cost_usd"]["idle"]) < 0.01,
              f"cost idle ${whole['idle_micros'] / 1e6:.6f} != simulate idle ${sim['cost_usd']['idle']}")
        check(whole["unused_micros"] > 0 and whole["idle_micros"] + whole["unused_micros"] < whole["total_micros"],
              f"unused room {whole['unused_micros']} not apart from idle {whole['idle_micros']}")

        # [start, midnight) + [midnight, end) = everything, exactly, though segments are re-cut.
        first = json.loads(cost(ledger, "--until", "2026-01-05T12:34:56Z", "--json").stdout)["total_micros"]
        second = json.loads(cost(ledger, "--since", "2026-01-05T12:34:56Z", "--json").stdout)["total_micros"]
        check(first + second == node_total and first > 0 and second > 0,
              f"window split: {first} + {second} != {node_total}")
        day1 = json.loads(cost(ledger, "--since", "2026-01-05", "--until", "2026-01-06", "--json").stdout)
        day2 = json.loads(cost(ledger, "--since", "2026-01-06", "--json").stdout)
        check(day1["total_micros"] + day2["total_micros"] == node_total and day2["total_micros"] > 0,
              "the night job's cost is not split at midnight")

        r = cost(ledger)
        check(r.returncode == 0 and "NAMESPACE" in r.stdout and "TOTAL" in r.stdout and "team-a" in r.stdout,
              f"table: {r.stdout}")
        total_line = [l for l in r.stdout.splitlines() if l.startswith("TOTAL")]
        want = f"${node_total / 1e6:,.2f}"
        check(total_line and want in total_line[0], f"table total {total_line} != {want}")

        # --top: the costliest rows only, the rest in one line, still adding up to the total.
        full = json.loads(cost(ledger, "--by", "job", "--json").stdout)
        top = json.loads(cost(ledger, "--by", "job", "--top", "2", "--json").stdout)
        check([row["key"] for row in top["rows"]] == [row["key"] for row in full["rows"][:2]],
              f"--top 2 rows {top['rows']} are not the two costliest of {full['rows']}")
        check(top["rest"]["rows"] == len(full["rows"]) - 2 and
              sum(row["micros"] for row in top["rows"]) + top["rest"]["micros"] == full["total_micros"],
              f"--top 2 rest {top.get('rest')} does not make up the total")
        r = cost(ledger, "--by", "job", "--top", "2")
        more = [l for l in r.stdout.splitlines() if l.startswith(f"({len(full['rows']) - 2} more)")]
        check(r.returncode == 0 and len(more) == 1, f"--top table has no rest line: {r.stdout}")
        # --top 0 is every row (what a pipe gets by default too).
        every = json.loads(cost(ledger, "--by", "job", "--top", "0", "--json").stdout)
        check(every["rows"] == full["rows"] and "rest" not in every, f"--top 0 is not every row: {every}")
        r = cost(ledger, "--top", "-1")
        check(r.returncode != 0, "--top -1 accepted")

        r = cost(ledger, "--since", "yesterday")
        check(r.returncode == 2 and "--since" in r.stderr, f"bad --since: {r.returncode} {r.stderr}")
        r = cost(ledger, "--by", "colour")
        check(r.returncode != 0, "bad --by accepted")
        r = cost(os.path.join(d, "nope.db"))
        check(r.returncode == 2 and "nope.db" in r.stderr, f"missing ledger: {r.returncode} {r.stderr}")

    check.exit_if_failed()
    print(f"ok: cost reports agree with the ledger file (${node_total / 1e6:,.2f}) by every grouping and window")


if __name__ == "__main__":
    main()
