#!/usr/bin/env python3
"""`fitscale run` with bad input stops at once with one clear line and exit code 2: a malformed
kubeconfig (YAML error; missing server), no kubeconfig outside a cluster, a bad --provider."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import run_cli, scratch_dir, write_file  # noqa: E402


def run(*args, env=None):
    r = run_cli("run", *args, timeout=30, env=env)
    return r.returncode, r.stderr.strip().splitlines()


def main():
    with scratch_dir("fitscale-run-err-") as tmp:
        broken = write_file(tmp, "broken.yaml", "apiVersion: v1\ncurrent-context: dev\nclusters: [\n  - name: c\n")
        code, lines = run("--kubeconfig", broken, "--provider", "sim")
        assert code == 2, (code, lines)
        assert len(lines) == 1, lines
        assert broken in lines[0] and "malformed YAML" in lines[0], lines

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
        assert code != 0 and any("provider" in line for line in lines), (code, lines)
        print("ok")


if __name__ == "__main__":
    main()
