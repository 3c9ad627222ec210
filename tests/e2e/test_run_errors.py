#!/usr/bin/env python3
"""`fitscale run` with bad input stops at once with one clear line and exit code 2: a malformed
kubeconfig (YAML error; missing server), no kubeconfig outside a cluster, a bad --provider.
Usage errors of any command (a missing or unknown flag, a bad value, an unknown command) also
exit 2 with `fitscale: error: ...`, never CLI11's own codes (105, 106, 109: issue 13); a typo of a
command gets `did you mean`; `--interval 0` is an error naming the flag, not "10 s"; a password in
the kubeconfig's server URL is not printed."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, run_cli, scratch_dir, write_file  # noqa: E402


def run(*args, env=None):
    r = run_cli("run", *args, timeout=30, env=env)
    return r.returncode, r.stderr.strip().splitlines()


def main():
    with scratch_dir("fitscale-run-err-") as tmp:
        broken = write_file(tmp, "broken.yaml", "apiVersion: v1\ncurrent-context: dev\nclusters: [\n  - name: c\n")
        code, lines = run("--kubeconfig", broken, "--provider", "sim")
        assert code == 2, (code, lines)
        assert len(lines) == 1, lines
        assert broken in lines[0] and "invalid YAML" in lines[0], lines

        no_server = write_file(tmp, "no-server.yaml",
                               "current-context: dev\ncontexts: [{name: dev, context: {cluster: c, user: u}}]\n"
                               "clusters: [{name: c, cluster: {insecure-skip-tls-verify: true}}]\n"
                               "users: [{name: u, user: {token: s3cret}}]\n")
        code, lines = run("--kubeconfig", no_server, "--provider", "sim")
        assert code == 2 and len(lines) == 1, (code, lines)
        assert "clusters[0].cluster.server: missing" in lines[0], lines
        assert "s3cret" not in lines[0]

        env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
        code, lines = run("--provider", "sim", env=env)
        assert code == 2 and len(lines) == 1 and "KUBERNETES_SERVICE_HOST" in lines[0], (code, lines)

        code, lines = run("--kubeconfig", no_server, "--provider", "gcp")
        assert code == 2 and len(lines) == 1, (code, lines)
        assert lines[0].startswith("fitscale: error: --provider: ") and "gcp" in lines[0], lines

        usage_errors(tmp, no_server)
        print("ok")


def usage_errors(tmp, kubeconfig):
    check = Checks()

    def expect(args, *wanted):
        r = run_cli(*args, timeout=30)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2, f"fitscale {' '.join(args)}: exit {r.returncode}, want 2 ({lines})")
        check(len(lines) == 1 and lines[0].startswith("fitscale: error: "),
              f"fitscale {' '.join(args)}: stderr {lines}, want one 'fitscale: error:' line")
        for w in wanted:
            check(any(w in line for line in lines), f"fitscale {' '.join(args)}: {lines} lacks {w!r}")
        return lines

    # CLI11 would exit 105 (ValidationError), 106 (RequiredError), 109 (ExtrasError).
    expect(["run", "--kubeconfig", kubeconfig], "--provider is required")
    expect(["run", "--kubeconfig", kubeconfig, "--provider", "sim", "--no-such-flag"], "--no-such-flag")
    expect(["run", "--kubeconfig", kubeconfig, "--provider", "sim", "--lease-duration", "soon"],
           "--lease-duration")
    expect(["run", "--kubeconfig", kubeconfig, "--provider", "sim", "--log-format", "yaml"], "--log-format")
    expect([], "subcommand")
    expect(["validate"], "give --config FILE, --budgets FILE, --pools FILE, or several")
    expect(["plna"], 'unknown command "plna"', 'did you mean "plan"?')
    expect(["simulat", "--trace", "x"], 'did you mean "simulate"?')
    lines = expect(["frobnicate"], 'unknown command "frobnicate"')
    check("did you mean" not in lines[0] and "run" in lines[0], f"frobnicate: {lines}: want the command list")

    # 0 and negative intervals were taken as "the config's interval" (10 s): now they name the flag.
    for bad in ["0", "-5", "1.5", "ten"]:
        lines = expect(["run", "--kubeconfig", kubeconfig, "--provider", "sim", f"--interval={bad}"],
                       "--interval")
        check(any("second" in line for line in lines), f"--interval {bad}: {lines} does not say seconds")
    expect(["run", "--kubeconfig", kubeconfig, "--provider", "sim", "--interval", "0"],
           "--interval: must be at least 1 second, got 0")

    # --help and --version still succeed, on stdout.
    for args in (["--help"], ["run", "--help"], ["--version"]):
        r = run_cli(*args, timeout=30)
        check(r.returncode == 0 and r.stdout.strip(), f"fitscale {' '.join(args)}: exit {r.returncode}")
    r = run_cli("run", "--help", timeout=30)
    check("at least 1" in r.stdout, "run --help does not say --interval must be at least 1")

    # A password in the server URL is never printed, not even in an error quoting the URL.
    userinfo = write_file(tmp, "userinfo.yaml",
                          "current-context: dev\ncontexts: [{name: dev, context: {cluster: c, user: u}}]\n"
                          "clusters: [{name: c, cluster: {server: 'ftp://admin:hunter2@127.0.0.1:1'}}]\n"
                          "users: [{name: u, user: {token: s3cret}}]\n")
    r = run_cli("run", "--kubeconfig", userinfo, "--provider", "sim", timeout=30)
    check(r.returncode == 2 and "ftp://[REDACTED]@127.0.0.1:1" in r.stderr,
          f"userinfo URL error: exit {r.returncode}: {r.stderr!r}")
    check("hunter2" not in r.stderr + r.stdout, f"the URL's password was printed: {r.stderr!r}")
    check.exit_if_failed()


if __name__ == "__main__":
    main()
