"""The ledger survives a kill -9 (issue 4): `fitscale simulate --ledger FILE` over the Philly week
is killed with SIGKILL mid-run; every closed interval committed before the kill is still there
and consistent (each segment's charges add up to its node cost, a node's segments tile its time
from launch without gaps or overlaps, the open segment starts where the closed ones end), and
`fitscale cost --json` reads the file and agrees with SQLite to the micro-dollar."""
import json
import os
import signal
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (BINARY, SOURCE_DIR, Checks, run_cli, scratch_dir, spawn,  # noqa: E402
                         sqlite_read_only, wait_for)

KILL_AFTER_SEGMENTS = 1500


def count_segments(path):
    try:
        with sqlite_read_only(path) as db:
            return db.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
    except sqlite3.Error:
        return 0  # not created yet


def main():
    check = Checks()

    with scratch_dir("fitscale-ledger-kill-") as d:
        ledger = os.path.join(d, "ledger.db")
        err = os.path.join(d, "simulate.err")
        with open(err, "w") as err_file:
            proc = spawn([BINARY, "simulate", "--trace", os.path.join(SOURCE_DIR, "data", "traces", "philly-week.csv"),
                          "--ledger", ledger, "--quiet"], stdout=subprocess.DEVNULL, stderr=err_file)
        # A simulate that ends (or fails) before this is an error: there would be nothing to kill.
        wait_for(f"{KILL_AFTER_SEGMENTS} committed segments before the kill",
                 lambda: count_segments(ledger) >= KILL_AFTER_SEGMENTS, timeout=240, interval=0.2, proc=proc, log=err)
        seen = count_segments(ledger)  # committed before the kill: none of these may be lost
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        check(proc.returncode == -signal.SIGKILL, f"simulate was not killed by SIGKILL: {proc.returncode}")
        check(seen >= 1, "no segments were committed before the kill")

        with sqlite_read_only(ledger) as db:
            segments = db.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
            check(segments >= seen, f"segments lost: {seen} committed before the kill, {segments} after")
            bad = db.execute("""SELECT s.id, s.node_micros, COALESCE(c.m, 0) FROM segments s
                                LEFT JOIN (SELECT segment_id, SUM(micros) m FROM charges GROUP BY segment_id) c
                                ON c.segment_id = s.id WHERE s.node_micros != COALESCE(c.m, 0)""").fetchall()
            check(not bad, f"segments whose charges do not add up: {bad[:5]}")
            orphans = db.execute("SELECT COUNT(*) FROM segments WHERE node_id NOT IN (SELECT node_id FROM nodes)").fetchone()[0]
            check(orphans == 0, f"{orphans} segments of unknown nodes")
            midnight = db.execute("SELECT COUNT(*) FROM segments WHERE end_at > day_start + 86400 OR start_at < day_start").fetchone()[0]
            check(midnight == 0, f"{midnight} segments cross a UTC midnight")

            # Every node's time is tiled: launch -> segment -> segment -> ... -> open segment or stop.
            nodes = {n: (launched, stopped) for n, launched, stopped in
                     db.execute("SELECT node_id, launched_at, stopped_at FROM nodes")}
            opens = dict(db.execute("SELECT node_id, since FROM open_segments"))
            by_node = {}
            for node, start, end in db.execute("SELECT node_id, start_at, end_at FROM segments ORDER BY node_id, start_at"):
                by_node.setdefault(node, []).append((start, end))
            gaps = []
            for node, (launched, stopped) in nodes.items():
                t = launched
                for start, end in by_node.get(node, []):
                    if start != t or end <= start:
                        gaps.append((node, t, start, end))
                    t = end
                if stopped is not None:
                    if t != stopped or node in opens:
                        gaps.append((node, "stopped", stopped, t))
                elif opens.get(node) != t:
                    gaps.append((node, "open", opens.get(node), t))
            check(not gaps, f"{len(gaps)} nodes with gaps or overlaps, e.g. {gaps[:3]}")
            check(len(opens) > 0, "no open nodes at the kill: the kill was not mid-run")
            total_segments = db.execute("SELECT COALESCE(SUM(node_micros), 0) FROM segments").fetchone()[0]
            total_charges = db.execute("SELECT COALESCE(SUM(micros), 0) FROM charges").fetchone()[0]
        check(total_segments == total_charges and total_segments > 0,
              f"node cost {total_segments} != attributed {total_charges}")

        # The binary reads the killed ledger and agrees with SQLite.
        r = run_cli("cost", "--ledger", ledger, "--json", timeout=120)
        check(r.returncode == 0, f"fitscale cost exit {r.returncode}: {r.stderr}")
        if r.returncode == 0:
            report = json.loads(r.stdout)
            check(report["total_micros"] == total_segments,
                  f"fitscale cost total {report['total_micros']} != SQLite {total_segments}")
            check(sum(row["micros"] for row in report["rows"]) == report["total_micros"],
                  "namespace rows do not add up to the total")
            check(report["closed_segments"] == segments, f"closed_segments {report['closed_segments']} != {segments}")
            check(report["open_nodes"] == len(opens), f"open_nodes {report['open_nodes']} != {len(opens)}")
        r = run_cli("cost", "--ledger", ledger, "--by", "instance-type", "--json", timeout=120)
        check(r.returncode == 0 and json.loads(r.stdout)["total_micros"] == total_segments,
              "by instance-type disagrees")

    check.exit_if_failed()
    print(f"ok: killed with {seen} segments committed; {segments} intact after the kill, "
          f"{len(opens)} nodes open, ${total_segments / 1e6:,.2f} attributed exactly")


if __name__ == "__main__":
    main()
