#!/usr/bin/env python3
"""Files that hold a credential or spend data are readable by their owner only (issue 13): the
kubeconfig `fitscale cluster --kubeconfig-out` writes holds a bearer token and was 0644, also
when it replaced an older file; the ledgers of `fitscale simulate --ledger` and `fitscale run
--ledger` hold what every team spent. All are 0600 now, whatever the umask.

Starts `fitscale cluster` and `fitscale run --provider sim` on loopback; needs FITSCALE_BINARY."""
import os
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (SOURCE_DIR, Checks, Cluster, run_cli, scratch_dir, sim_run_argv, spawn,  # noqa: E402
                         stop, wait_for, write_file)


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def main():
    check = Checks()
    old_umask = os.umask(0o022)  # the usual one, under which plain creation gives 0644
    try:
        with scratch_dir("fitscale-private-") as tmp:
            # An older kubeconfig, world-readable, is replaced by one only its owner reads.
            kubeconfig = write_file(tmp, "kubeconfig", "old\n")
            os.chmod(kubeconfig, 0o644)
            with Cluster(tmp, "--boot-delay", "1") as cluster:
                check(cluster.kubeconfig == kubeconfig, cluster.kubeconfig)
                check(mode(kubeconfig) == 0o600, f"--kubeconfig-out is {oct(mode(kubeconfig))}, want 0o600")

                ledger = os.path.join(tmp, "run-ledger.db")
                log = os.path.join(tmp, "run.log")
                proc = spawn(sim_run_argv(kubeconfig, "private", "--lease-namespace", "default",
                                          "--metrics-address", "off", "--ledger", ledger),
                             stdout=open(log, "w"), stderr=open(log, "a"))
                try:
                    wait_for("fitscale run to sync", lambda: "informers synced" in open(log).read(), proc=proc, log=log)
                    for path in [ledger, ledger + "-wal", ledger + "-shm"]:
                        if os.path.exists(path):
                            check(mode(path) == 0o600, f"{os.path.basename(path)} is {oct(mode(path))}, want 0o600")
                    check(os.path.exists(ledger), "fitscale run --ledger created no file")
                finally:
                    stop(proc)

            sim_ledger = os.path.join(tmp, "sim-ledger.db")
            r = run_cli("simulate", "--trace", os.path.join(SOURCE_DIR, "tests/data/traces/three_jobs.csv"),
                        "--ledger", sim_ledger, "--quiet", timeout=120)
            check(r.returncode == 0, f"simulate --ledger: exit {r.returncode}: {r.stderr[-500:]}")
            if os.path.exists(sim_ledger):
                check(mode(sim_ledger) == 0o600, f"simulate --ledger is {oct(mode(sim_ledger))}, want 0o600")
            else:
                check(False, "simulate --ledger created no file")
    finally:
        os.umask(old_umask)
    check.exit_if_failed()
    print("ok: --kubeconfig-out (replacing a 0644 file) and both ledgers are 0600")


if __name__ == "__main__":
    main()
