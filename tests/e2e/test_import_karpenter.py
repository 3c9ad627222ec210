#!/usr/bin/env python3
"""Issue 15, item 4: `fitscale import karpenter` on Karpenter's own example NodePools and
EC2NodeClasses (tests/data/karpenter/, recorded from aws/karpenter-provider-aws examples/v1 with
their source URL) prints Pool manifests that `fitscale validate --pools` accepts, with a warning
naming file, line and field for everything that has no equivalent; a Karpenter object given where
a config file goes, and a v1beta1 NodePool, are errors that say what to do."""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, Checks, run_cli, scratch_dir, write_file  # noqa: E402

DATA = os.path.join(SOURCE_DIR, "tests", "data", "karpenter")


def main():
    check = Checks()
    examples = sorted(glob.glob(os.path.join(DATA, "*.yaml")))
    check(len(examples) >= 5, f"Karpenter's examples are missing: {examples}")
    with scratch_dir("import-karpenter") as tmp:
        for path in examples:
            name = os.path.basename(path)
            out = os.path.join(tmp, name)
            r = run_cli("import", "karpenter", path, "-o", out)
            check(r.returncode == 0, f"import of {name} failed: {r.stderr}")
            if r.returncode != 0:
                continue
            # What EC2NodeClass fields have no equivalent is said, with file and line.
            check(f"{path}:" in r.stderr and "spec.role: no equivalent" in r.stderr,
                  f"{name}: no warning for spec.role:\n{r.stderr}")
            check("amiSelectorTerms[0]" in r.stderr, f"{name}: no warning for amiSelectorTerms:\n{r.stderr}")
            text = open(out).read()
            check("# warning: " in text, f"{name}: the output carries no comments:\n{text}")
            v = run_cli("validate", "--pools", out)
            check(v.returncode == 0, f"fitscale validate refuses the import of {name}: {v.stderr}\n{text}")
            check("pools (the Pool objects" in v.stdout, f"validate of {name} lists no pools:\n{v.stdout}")
            check("(warning: its requirements admit no offering" not in v.stdout,
                  f"an imported pool of {name} admits no offering:\n{v.stdout}")
            # Karpenter's instance-category requirement became fitscale's label.
            check("fitscale.io/instance-category In [c, m, r]" in v.stdout or name == "multiple-arch.yaml"
                  and "fitscale.io/instance-category In [c, a]" in v.stdout,
                  f"{name}: the category requirement is not carried over:\n{v.stdout}")

        # node-ttls: expireAfter 168h and consolidateAfter 60s.
        r = run_cli("import", "karpenter", os.path.join(DATA, "node-ttls.yaml"))
        check("spec.template.spec.expireAfter: fitscale never expires nodes" in r.stderr, r.stderr)
        check("after: 60s" in r.stdout and "expireAfter: Never" in r.stdout, r.stdout)
        # 100-cpu-limit: limits.cpu 100.
        r = run_cli("import", "karpenter", os.path.join(DATA, "100-cpu-limit.yaml"))
        check('cpu: "100"' in r.stdout, r.stdout)
        # multiple-arch: two NodePools sharing one EC2NodeClass -> two Pools.
        r = run_cli("import", "karpenter", os.path.join(DATA, "multiple-arch.yaml"))
        check(r.stdout.count("kind: Pool") == 2, r.stdout)

        # A NodePool where a config file goes: told to import it.
        r = run_cli("validate", "--config", os.path.join(DATA, "spot.yaml"))
        check(r.returncode == 2 and "fitscale import karpenter" in r.stderr,
              f"validate --config on a NodePool: {r.returncode} {r.stderr}")
        r = run_cli("validate", "--pools", os.path.join(DATA, "spot.yaml"))
        check(r.returncode == 2 and "fitscale import karpenter" in r.stderr, r.stderr)
        # Bad input: file, line and field.
        bad = write_file(tmp, "bad.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\n"
                         "metadata: {name: a}\nspec:\n  template:\n    spec:\n      requirements:\n"
                         "        - {key: x, operator: Gte}\n")
        r = run_cli("import", "karpenter", bad)
        check(r.returncode == 2 and f"{bad}:8: NodePool a: spec.template.spec.requirements[0].operator"
              in r.stderr, f"{r.returncode} {r.stderr}")
        old = write_file(tmp, "old.yaml", "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\n"
                         "metadata: {name: a}\n")
        r = run_cli("import", "karpenter", old)
        check(r.returncode == 2 and "v1 migration guide" in r.stderr, r.stderr)
    check.exit_if_failed()
    print("ok")


if __name__ == "__main__":
    main()
