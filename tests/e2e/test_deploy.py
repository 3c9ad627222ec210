#!/usr/bin/env python3
"""The install is least-privilege and valid:

1. renders deploy/helm/fitscale with `helm template` when helm is installed (Debian has no helm
   package; that part is skipped, loudly, without it) and checks it yields the same objects as
   deploy/manifests;
2. validates deploy/manifests/fitscale.yaml with `kubectl apply --dry-run=client --validate=false`
   against a `fitscale cluster` (the virtual cluster) this test starts on a free loopback port;
3. checks the ClusterRole and the leader-election Role grant exactly the API calls fitscale's
   Kubernetes client makes (found in src/kube/*.cpp), no fewer and no more.

Needs: FITSCALE_BINARY, FITSCALE_SOURCE_DIR, kubectl."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Cluster, fail, scratch_dir  # noqa: E402

SOURCE = os.environ["FITSCALE_SOURCE_DIR"]
MANIFEST = os.path.join(SOURCE, "deploy/manifests/fitscale.yaml")
CHART = os.path.join(SOURCE, "deploy/helm/fitscale")


# --- 3. what the client calls ---------------------------------------------------------------

def literal_path(expr, functions):
    """'"/api/v1/nodes/" + node' -> '/api/v1/nodes/{}'; 'lease_path()' -> that function's return."""
    expr = expr.strip()
    m = re.fullmatch(r"(\w+)\(\)", expr)
    if m and m.group(1) in functions:
        expr = functions[m.group(1)]
    parts = re.split(r"\s*\+\s*", expr)
    out = ""
    for p in parts:
        lit = re.fullmatch(r'"([^"]*)"', p.strip())
        out += lit.group(1) if lit else "{}"
    return out.split("?")[0]


def classify(method, path):
    """('GET', '/api/v1/nodes/{}') -> (group, resource, verb, namespaced_by_us)."""
    m = re.match(r"^/api/v1/(.*)$", path) or None
    group = ""
    if not m:
        m = re.match(r"^/apis/([^/]+)/[^/]+/(.*)$", path)
        if not m:
            return None
        group, rest = m.group(1), m.group(2)
    else:
        rest = m.group(1)
    segs = [s for s in rest.split("/") if s]
    if len(segs) >= 2 and segs[0] == "namespaces" and segs[1] == "{}":
        segs = segs[2:]
    resource = segs[0]
    named = len(segs) >= 2
    if len(segs) >= 3:
        resource += "/" + segs[2]
    verb = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(method)
    if method == "GET":
        verb = "get" if named else "list"
    return (group, resource, verb)


def client_calls():
    calls = set()
    sources = {f: open(f).read() for f in glob.glob(os.path.join(SOURCE, "src/kube/*.cpp"))}
    functions = {}
    for text in sources.values():
        for m in re.finditer(r"(\w+_path)\(\)[^{;]*\{\s*return\s+([^;]+);", text):
            functions[m.group(1)] = m.group(2)
    for text in sources.values():
        # Informers: list + watch of each codec's collection.
        for m in re.finditer(r'\.path\s*=\s*"(/apis?/[^"]+)"', text):
            g, r, _ = classify("GET", m.group(1))
            calls.add((g, r, "list"))
            calls.add((g, r, "watch"))
        for m in re.finditer(r'\.send\(\s*"(GET|POST|PUT|PATCH|DELETE)"\s*,\s*([^,]+?)\s*,', text, re.S):
            c = classify(m.group(1), literal_path(m.group(2), functions))
            if c:
                calls.add(c)
        for m in re.finditer(r'\.get\(\s*((?:"/api[^;]*?)|(?:\w+_path\(\)))\s*\)\s*;', text):
            c = classify("GET", literal_path(m.group(1), functions))
            if c:
                calls.add(c)
    return calls


def granted(objects, kind):
    out = set()
    for o in objects:
        if o["kind"] != kind:
            continue
        for rule in o.get("rules", []):
            for g in rule.get("apiGroups", []):
                for r in rule.get("resources", []):
                    for v in rule.get("verbs", []):
                        out.add((g, r, v))
    return out


def main():
    # 1. helm
    helm = shutil.which("helm")
    if helm:
        # The manifests carry no budget gate (a shared file cannot hold a private key):
        # test_budget_gate_chart.py checks the chart's gate objects.
        r = subprocess.run([helm, "template", "fitscale", CHART, "--namespace", "fitscale",
                            "--set", "budgets.gate=false"],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fail("helm template failed: " + r.stderr)
        rendered = sorted(re.findall(r"^kind: (\w+)", r.stdout, re.M))
        plain = sorted(k for k in re.findall(r"^kind: (\w+)", open(MANIFEST).read() +
                       open(os.path.join(SOURCE, "deploy/manifests/servicemonitor.yaml")).read(), re.M)
                       if k != "Namespace")
        if rendered != plain:
            fail(f"chart renders {rendered}, manifests hold {plain}")
        print("ok: helm template renders the same objects as deploy/manifests")
    else:
        print("SKIP (part 1): helm is not installed (no Debian package); chart rendering not checked")

    # The chart's RBAC template and the rendered manifest must state the same rules.
    rule_re = re.compile(r"resources: \[([^\]]*)\]\s*\n\s*verbs: \[([^\]]*)\]")
    if rule_re.findall(open(os.path.join(CHART, "templates/rbac.yaml")).read()) != rule_re.findall(open(MANIFEST).read()):
        fail("deploy/manifests/fitscale.yaml RBAC rules differ from the chart's templates/rbac.yaml")

    # 2. kubectl against the virtual cluster
    with scratch_dir("fitscale-deploy-") as tmp, Cluster(tmp) as cluster:
        r = cluster.kubectl("apply", "--dry-run=client", "--validate=false", "-f", MANIFEST, "-o", "json",
                            check=False)
        if r.returncode != 0:
            fail("kubectl apply --dry-run=client rejected the manifests: " + r.stderr)
        doc = json.loads(r.stdout)
        objects = doc["items"] if doc.get("kind") == "List" else [doc]
        kinds = sorted(o["kind"] for o in objects)
        want = sorted(["Namespace", "ServiceAccount", "ConfigMap", "ClusterRole", "ClusterRoleBinding", "Role",
                       "RoleBinding", "Service", "Deployment"])
        if kinds != want:
            fail(f"manifests hold {kinds}, want {want}")
        dep = next(o for o in objects if o["kind"] == "Deployment")
        if dep["spec"]["replicas"] != 2:
            fail("the Deployment must run 2 replicas (leader election)")
        c = dep["spec"]["template"]["spec"]["containers"][0]
        if c["livenessProbe"]["httpGet"]["path"] != "/healthz" or c["readinessProbe"]["httpGet"]["path"] != "/readyz":
            fail("probes must be /healthz (liveness) and /readyz (readiness)")
        if not c["securityContext"].get("readOnlyRootFilesystem") or \
                not dep["spec"]["template"]["spec"]["securityContext"].get("runAsNonRoot"):
            fail("the container must run non-root with a read-only root filesystem")
        if not any(a.startswith("--lease-namespace") for a in c["args"]):
            fail("the Deployment must pass --lease-namespace (leader election)")
        print(f"ok: kubectl accepted {len(objects)} objects (dry run) against the virtual cluster")

        # 3. RBAC == client calls
        calls = client_calls()
        if len(calls) < 8:
            fail(f"found only {sorted(calls)} in src/kube: the scanner no longer understands the client")
        lease_calls = {x for x in calls if x[1] == "leases"}
        cluster_calls = calls - lease_calls
        cluster_role = granted(objects, "ClusterRole")
        role = granted(objects, "Role")
        problems = []
        for x in sorted(cluster_calls - cluster_role):
            problems.append(f"client calls {x} but the ClusterRole does not grant it")
        for x in sorted(cluster_role - cluster_calls):
            problems.append(f"ClusterRole grants {x} that the client never calls")
        for x in sorted(lease_calls - role):
            problems.append(f"client calls {x} but the leader-election Role does not grant it")
        for x in sorted(role - lease_calls):
            problems.append(f"leader-election Role grants {x} that the client never calls")
        if problems:
            fail("\n  ".join(problems))
        print(f"ok: RBAC grants exactly the {len(calls)} (group, resource, verb) calls of src/kube")


if __name__ == "__main__":
    main()
