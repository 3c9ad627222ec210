"""fitscale validate: a good config is "ok" with the budgets that apply; a bad one stops with the
file, line and key named and exit code 2 (issue 4: invalid budget configs refused with the key)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, run_cli, scratch_dir, write_file  # noqa: E402

SRC = os.environ["FITSCALE_SOURCE_DIR"]


def validate(path):
    return run_cli("validate", "--config", path, timeout=60)


BUDGET = """apiVersion: fitscale.io/v1alpha1
kind: Budget
metadata: {{name: {name}, namespace: {ns}}}
spec: {spec}
"""


def check_budget_manifests(check, d):
    """Budget manifests (docs/budgets.md, "Budget objects"): read with the config's rules, every
    bad one reported with file and line, the budgets shown with the Budgets over the config."""
    good = write_file(d, "budgets.yaml", "---\n".join([
        BUDGET.format(name="caps", ns="team-a", spec="{usdPerDay: 30}"),
        BUDGET.format(name="cluster", ns="kube-system", spec="{gpus: 16}")]))
    conf = write_file(d, "with-ns.yaml", "budgets:\n  namespaces:\n    team-a: {usdPerHour: 7}\n")
    r = run_cli("validate", "--config", conf, "--budgets", good, timeout=60)
    check(r.returncode == 0, f"budgets: exit {r.returncode}: {r.stderr}")
    check("budgets.yaml: ok (2 Budget object(s))" in r.stdout, f"budgets: no ok line: {r.stdout}")
    # The Budget's usdPerDay over the file's entry, whose usdPerHour stays.
    check("namespace team-a       usdPerHour $7.00, usdPerDay $30.00" in r.stdout,
          f"budgets: team-a not merged: {r.stdout}")
    check("gpus 16" in r.stdout, f"budgets: cluster Budget not applied: {r.stdout}")

    bad = write_file(d, "bad-budgets.yaml", "---\n".join([
        BUDGET.format(name="caps", ns="team-a", spec="{usdPerDay: lots}"),
        BUDGET.format(name="caps", ns="team-b", spec="{gpus: 3}"),
        BUDGET.format(name="ok", ns="team-c", spec="{usdPerDay: 3}")]))
    r = run_cli("validate", "--budgets", bad, timeout=60)
    check(r.returncode == 2, f"bad budgets: exit {r.returncode}")
    check('bad-budgets.yaml:4: Budget team-a/caps: spec.usdPerDay: must be a number >= 0, got "lots"'
          in r.stderr, f"bad budgets: first error: {r.stderr}")
    check('bad-budgets.yaml:9: Budget team-b/caps: spec: unknown key "gpus"' in r.stderr,
          f"bad budgets: the second bad Budget was not reported too: {r.stderr}")

    r = run_cli("validate", "--config", good, timeout=60)
    check(r.returncode == 2 and "is a Budget manifest, not a config file" in r.stderr,
          f"Budget as --config: {r.returncode} {r.stderr}")
    r = run_cli("validate", "--budgets", conf, timeout=60)
    check(r.returncode == 2 and "not a Budget" in r.stderr and "--config" in r.stderr,
          f"config as --budgets: {r.returncode} {r.stderr}")
    r = run_cli("validate", timeout=60)
    check(r.returncode == 2 and "--budgets" in r.stderr, f"no file: {r.returncode} {r.stderr}")


def main():
    check = Checks()

    r = validate(os.path.join(SRC, "examples", "config.yaml"))
    check(r.returncode == 0, f"example: exit {r.returncode}: {r.stderr}")
    check("config.yaml: ok" in r.stdout, f"example: no ok line: {r.stdout}")
    check("XXXX" not in r.stdout, f"example: the webhook's path was printed: {r.stdout}")
    check("namespace research-a" in r.stdout and "usdPerJob $20,000" in r.stdout and "maxRuntime 72h" in r.stdout,
          f"example: research-a budget not shown: {r.stdout}")

    with scratch_dir("fitscale-validate-") as d:
        r = validate(write_file(d, "empty.yaml", "# nothing\n"))
        check(r.returncode == 0, f"empty: exit {r.returncode}")
        check("safe defaults" in r.stdout and "gpus 4,096" in r.stdout and "usdPerJob $5,000" in r.stdout,
              f"empty: safe defaults not shown: {r.stdout}")

        bad = [
            ("word.yaml", "budgets:\n  namespaces:\n    research-a:\n      usdPerJob: lots\n",
             'word.yaml:4: budgets.namespaces.research-a.usdPerJob: must be a number >= 0, got "lots"'),
            ("negative.yaml", "budgets:\n  default: {usdPerDay: -100}\n",
             "negative.yaml:2: budgets.default.usdPerDay: must be a number >= 0"),
            ("typo.yaml", "budgets:\n  cluster:\n    gpu: 8\n",
             'typo.yaml:3: budgets.cluster: unknown key "gpu"; did you mean "gpus"?'),
            ("fraction.yaml", "budgets:\n  cluster: {nodes: 2.5}\n",
             "fraction.yaml:2: budgets.cluster.nodes: must be a whole number >= 0"),
            ("runtime.yaml", "budgets:\n  namespaces:\n    team-b: {maxRuntime: 3 days}\n",
             "runtime.yaml:3: budgets.namespaces.team-b.maxRuntime: must be a duration"),
            ("action.yaml", "budgets:\n  default:\n    maxRuntimeAction: kill\n",
             'action.yaml:3: budgets.default.maxRuntimeAction: must be one of alert, terminate, got "kill"'),
            ("nsname.yaml", "budgets:\n  namespaces:\n    Team_B: {usdPerDay: 5}\n",
             "nsname.yaml:3: budgets.namespaces.Team_B: is not a Kubernetes namespace name"),
            ("emptybudgets.yaml", "budgets:\n", "emptybudgets.yaml:1: budgets: is empty"),
            ("toplevel.yaml", "budget:\n  default: {usdPerDay: 5}\n",
             'toplevel.yaml:1: unknown key "budget"; did you mean "budgets"?'),
            ("notready.yaml", "scaleDown:\n  notReadyAfter: 0s\n",
             'notready.yaml:2: scaleDown.notReadyAfter: must be a duration > 0'),
            ("notreadytypo.yaml", "scaleDown:\n  notReadyAftr: 5m\n",
             'notreadytypo.yaml:2: scaleDown: unknown key "notReadyAftr"; did you mean "notReadyAfter"?'),
        ]
        for name, text, expected in bad:
            r = validate(write_file(d, name, text))
            check(r.returncode == 2, f"{name}: exit {r.returncode}, want 2")
            check(expected in r.stderr, f"{name}: stderr {r.stderr!r} lacks {expected!r}")
            check("ok" not in r.stdout, f"{name}: printed ok")

        # A webhook URL's path is its credential (anyone holding it may post to the channel):
        # validate shows the host only, and never a password in the URL.
        r = validate(write_file(d, "hook.yaml",
                                "alerts:\n  webhook: https://bot:pa55word@hooks.slack.com:443/services/T0/B0/XXXXSECRET\n"))
        check(r.returncode == 0, f"webhook: exit {r.returncode}: {r.stderr}")
        check("alerts: https://hooks.slack.com:443/\u2026 at 50%, 80%, 100%" in r.stdout,
              f"webhook: the alerts line does not show scheme://host/\u2026: {r.stdout!r}")
        check("XXXXSECRET" not in r.stdout + r.stderr and "pa55word" not in r.stdout + r.stderr,
              f"webhook: its secret path or password was printed: {r.stdout!r}")

        # scaleDown.notReadyAfter: 20m unless set, shown either way.
        check("NotReady nodes after 20m" in validate(write_file(d, "defaults.yaml", "# nothing\n")).stdout,
              "validate does not show the default notReadyAfter")
        check("no node removed as empty within 5m0s of its launch" in
              validate(write_file(d, "defaults2.yaml", "# nothing\n")).stdout,
              "validate does not show the default delayAfterLaunch")
        r = validate(write_file(d, "notready-ok.yaml", "scaleDown: {notReadyAfter: 7m}\n"))
        check(r.returncode == 0 and "NotReady nodes after 7m" in r.stdout, f"notReadyAfter 7m: {r.stdout}")

        # maxRuntimeAction: alert by default, terminate where a namespace asks for it.
        r = validate(write_file(d, "action-ok.yaml",
                                "budgets:\n  default: {maxRuntime: 24h}\n"
                                "  namespaces:\n    team-t: {maxRuntimeAction: terminate}\n"))
        check(r.returncode == 0, f"action-ok: exit {r.returncode}: {r.stderr}")
        check("maxRuntimeAction alert" in r.stdout and "maxRuntimeAction terminate" in r.stdout,
              f"action-ok: actions not shown: {r.stdout}")

        r = validate(os.path.join(d, "missing.yaml"))
        check(r.returncode == 2 and "missing.yaml" in r.stderr, f"missing file: {r.returncode} {r.stderr}")

        check_budget_manifests(check, d)

    check.exit_if_failed()
    print("ok: validate accepts the example and the empty file, refuses 10 bad configs naming the key, "
          "hides a webhook's secret path, shows notReadyAfter and maxRuntimeAction; checks Budget manifests")


if __name__ == "__main__":
    main()
