#!/usr/bin/env python3
"""`fitscale cost --by job` answers "who spent it" in a screenful: on a terminal it shows the 20
costliest jobs and one line for the rest, and says how to see every row; piped (or --json) it
prints every row, as scripts expect; --top N and --top 0 override either default."""
import json
import os
import pty
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import BINARY, Checks, run_cli, scratch_dir, write_file  # noqa: E402

JOBS = 30


def trace():
    rows = ["submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,checkpoint_interval_s"]
    for i in range(JOBS):
        # Different durations, so costs differ and the order is the cost order.
        rows.append(f"{i * 10},job-{i:02d},team-{i % 3},1,2,4Gi,0,,{600 + 60 * i},,")
    return "\n".join(rows) + "\n"


def run_on_tty(args):
    """Runs the fitscale binary with a pseudo-terminal as stdout; returns what it printed."""
    import pty
    import subprocess
    from e2e_support import BINARY  # noqa: E402
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([BINARY, *args], stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        os.close(slave)
        slave = None
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        p.wait(timeout=60)
        return b"".join(chunks).decode("utf-8", "replace")
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)



def job_rows(text):
    return [l for l in text.splitlines() if l.startswith("team-")]


def main():
    check = Checks()
    with scratch_dir("fitscale-cost-top-") as d:
        ledger = os.path.join(d, "ledger.db")
        r = run_cli("simulate", "--trace", write_file(d, "trace.csv", trace()), "--ledger", ledger, "--quiet",
                    timeout=240)
        check(r.returncode == 0, f"simulate exit {r.returncode}: {r.stderr}")

        tty = run_on_tty(["cost", "--ledger", ledger, "--by", "job"])
        rows = job_rows(tty)
        check(len(rows) == 20, f"terminal: {len(rows)} job rows, want the 20 costliest:\n{tty}")
        check(f"({JOBS - 20} more)" in tty and "--top 0" in tty, f"terminal: no rest line or hint:\n{tty}")

        piped = run_cli("cost", "--ledger", ledger, "--by", "job", timeout=60)
        check(piped.returncode == 0 and len(job_rows(piped.stdout)) == JOBS and "more)" not in piped.stdout,
              f"piped: want every one of {JOBS} rows:\n{piped.stdout}")
        full = json.loads(run_cli("cost", "--ledger", ledger, "--by", "job", "--json", timeout=60).stdout)
        check(len(full["rows"]) == JOBS and "rest" not in full, f"--json rows {len(full['rows'])}")

        top = run_on_tty(["cost", "--ledger", ledger, "--by", "job", "--top", "5"])
        check(len(job_rows(top)) == 5 and f"({JOBS - 5} more)" in top and "--top 0" not in top,
              f"--top 5 on a terminal:\n{top}")
        every = run_on_tty(["cost", "--ledger", ledger, "--by", "job", "--top", "0"])
        check(len(job_rows(every)) == JOBS, f"--top 0 on a terminal: {len(job_rows(every))} rows")
        # The rows shown are the costliest, in order.
        want = [row["key"] for row in full["rows"][:20]]
        check([l.split()[0] for l in rows] == want, f"terminal rows {rows[:3]}... are not the costliest {want[:3]}...")
    check.exit_if_failed()


if __name__ == "__main__":
    main()
