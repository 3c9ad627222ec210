"""The official Kubernetes clients against `fitscale cluster`, with the kubeconfig exactly as it
writes it: Debian's python3-kubernetes (run by /usr/bin/python3) and npm's
@kubernetes/client-node (tests/e2e/js, installed by scripts/setup.sh).

Each client runs its flows script (tests/e2e/clients/python_client_flows.py,
tests/e2e/js/client_flows.mjs): create/get/list, dry-run (create; the Python client also patch
and delete), JSON, merge and strategic merge patches, server-side apply (a second manager's 409
Conflict, then force), pagination with limit/continue, a watch and an informer, a Lease renewed and a stale
Lease update refused with 409, the Python client's leader elector (a ConfigMap lock), delete. The kubeconfig is private (0600) and points at HTTPS
with the cluster's generated CA, which is what the JavaScript client needs (it refuses http://
without insecure-skip-tls-verify)."""
import os
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import SOURCE_DIR, Cluster, fail, scratch_dir  # noqa: E402

HERE = os.path.join(SOURCE_DIR, "tests", "e2e")
DEBIAN_PYTHON = "/usr/bin/python3"
JS_DIR = os.path.join(HERE, "js")


def run_flows(name, argv, expected, cwd=None):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=180, cwd=cwd)
    done = [line[3:] for line in r.stdout.splitlines() if line.startswith("ok ")]
    if r.returncode != 0 or done != expected:
        fail(f"the {name} client's flows: exit {r.returncode}, passed {done} of {expected}\n"
             f"stdout:\n{r.stdout}\nstderr:\n{r.stderr[-4000:]}")
    print(f"{name} client: " + ", ".join(done))


def main():
    if subprocess.run([DEBIAN_PYTHON, "-c", "import kubernetes"], capture_output=True).returncode:
        fail(f"{DEBIAN_PYTHON} has no kubernetes module: run scripts/setup.sh (python3-kubernetes)")
    if not os.path.isfile(os.path.join(JS_DIR, "node_modules", "@kubernetes", "client-node", "package.json")):
        fail("tests/e2e/js/node_modules has no @kubernetes/client-node: run scripts/setup.sh")
    with scratch_dir("vcluster-clients") as tmp, Cluster(tmp) as c:
        mode = stat.S_IMODE(os.stat(c.kubeconfig).st_mode)
        if mode != 0o600:
            fail(f"the kubeconfig (it holds the token) is mode {oct(mode)}, not 0600")
        if not c.url.startswith("https://") or c.ssl_context is None:
            fail(f"the cluster serves {c.url} without a CA in the kubeconfig")
        run_flows("Python", [DEBIAN_PYTHON, os.path.join(HERE, "clients", "python_client_flows.py"),
                             c.kubeconfig],
                  ["create/get/list", "dry-run create/patch/delete", "patch json/strategic/merge",
                   "server-side apply", "pagination", "watch", "informer", "lease",
                   "leader election", "delete"])
        run_flows("JavaScript", ["node", os.path.join(JS_DIR, "client_flows.mjs"), c.kubeconfig],
                  ["create/get/list", "informer", "watch", "dry-run create",
                   "patch json/merge/strategic", "server-side apply", "pagination", "lease",
                   "delete"], cwd=JS_DIR)
    # --plain-http: the old plain server, for tools without TLS; kubectl still works, and the
    # JavaScript client refuses it, which is why HTTPS is the default.
    with scratch_dir("vcluster-clients-http") as tmp, Cluster(tmp, "--plain-http") as c:
        if not c.url.startswith("http://") or c.ssl_context is not None:
            fail(f"--plain-http serves {c.url}")
        c.kubectl("get", "namespaces")
        r = subprocess.run(["node", "--input-type=module", "-e",
                            "import * as k8s from '@kubernetes/client-node';"
                            "const kc = new k8s.KubeConfig(); kc.loadFromFile(process.argv[1]);"
                            "await kc.makeApiClient(k8s.CoreV1Api).listNamespace();",
                            c.kubeconfig], capture_output=True, text=True, timeout=60, cwd=JS_DIR)
        if r.returncode == 0 or "HTTP protocol is not allowed" not in r.stderr:
            fail(f"the JavaScript client with a plain-HTTP kubeconfig: {r.returncode} {r.stderr[-1000:]}")
    print("ok")


if __name__ == "__main__":
    main()
