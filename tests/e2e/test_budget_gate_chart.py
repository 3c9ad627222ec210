#!/usr/bin/env python3
"""The chart installs the budget gate (issue 12, item 2) consistently with `fitscale run`.

With helm installed: `helm template` with the default values renders the Secret, the Service
and the MutatingWebhookConfiguration, whose caBundle verifies the Secret's serving certificate
for the Service's DNS name (openssl verify), and `--set budgets.gate=false` renders none of them
and no webhook flag. Without helm (Debian has no package), a careful reading, mechanised: the
template is guarded by budgets.gate (true in values.yaml), uses genCA/genSignedCert for the
Service's DNS name, selects pod CREATEs only outside kube-system and the release namespace, and
points at the path, port and certificate files the Deployment gives `fitscale run`, whose
--help lists the flags.

Needs: FITSCALE_BINARY, FITSCALE_SOURCE_DIR (helm and openssl optional)."""
import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import BINARY, fail  # noqa: E402

SOURCE = os.environ["FITSCALE_SOURCE_DIR"]
CHART = os.path.join(SOURCE, "deploy/helm/fitscale")


def read(rel):
    with open(os.path.join(CHART, rel)) as f:
        return f.read()


def check_helm(helm):
    r = subprocess.run([helm, "template", "fitscale", CHART, "--namespace", "fitscale"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail("helm template failed: " + r.stderr)
    docs = r.stdout.split("\n---")
    kinds = re.findall(r"^kind: (\w+)", r.stdout, re.M)
    for k in ("Secret", "MutatingWebhookConfiguration"):
        if k not in kinds:
            fail(f"the default render has no {k}")
    if "--webhook-address=0.0.0.0:8443" not in r.stdout:
        fail("the default render does not pass --webhook-address")
    secret = next(d for d in docs if "name: fitscale-webhook-tls" in d and "kind: Secret" in d)
    mwc = next(d for d in docs if "kind: MutatingWebhookConfiguration" in d)
    cert = base64.b64decode(re.search(r"tls.crt: (\S+)", secret).group(1))
    ca = base64.b64decode(re.search(r"caBundle: (\S+)", mwc).group(1))
    if shutil.which("openssl"):
        with tempfile.TemporaryDirectory() as tmp:
            open(os.path.join(tmp, "ca.crt"), "wb").write(ca)
            open(os.path.join(tmp, "tls.crt"), "wb").write(cert)
            v = subprocess.run(["openssl", "verify", "-CAfile", "ca.crt", "-verify_hostname",
                                "fitscale-webhook.fitscale.svc", "tls.crt"],
                               cwd=tmp, capture_output=True, text=True, timeout=30)
            if v.returncode != 0:
                fail("the caBundle does not verify the webhook certificate: " + v.stdout + v.stderr)
    off = subprocess.run([helm, "template", "fitscale", CHART, "--namespace", "fitscale",
                          "--set", "budgets.gate=false"], capture_output=True, text=True, timeout=60)
    if off.returncode != 0:
        fail("helm template --set budgets.gate=false failed: " + off.stderr)
    if "MutatingWebhookConfiguration" in off.stdout or "--webhook" in off.stdout:
        fail("budgets.gate=false still renders the webhook")
    print("ok: helm renders the gate on by default, the caBundle verifies the certificate, and nothing with budgets.gate=false")


def check_reading():
    values = read("values.yaml")
    gate = read("templates/budget-gate.yaml")
    dep = read("templates/deployment.yaml")
    problems = []

    def need(cond, what):
        if not cond:
            problems.append(what)

    need(re.search(r"^budgets:\n(  .*\n)*  gate: true$", values, re.M), "values.yaml: budgets.gate is not true")
    need(gate.lstrip().startswith("{{- if .Values.budgets.gate }}"), "budget-gate.yaml is not guarded by budgets.gate")
    need("genCA" in gate and "genSignedCert $dns" in gate, "no Helm-generated CA and signed certificate")
    need('$service := "fitscale-webhook"' in gate and 'printf "%s.%s.svc" $service .Release.Namespace' in gate,
         "the certificate is not for the Service's DNS name")
    need("lookup \"v1\" \"Secret\" .Release.Namespace \"fitscale-webhook-tls\"" in gate,
         "upgrades do not reuse the Secret (the caBundle would change under running pods)")
    need(re.search(r"caBundle: \{\{ \$caCert \| b64enc \}\}", gate), "the caBundle is not the generated CA")
    need(re.search(r"operations: \[CREATE\]\n\s+apiGroups: \[\"\"\]\n\s+apiVersions: \[v1\]\n\s+resources: \[pods\]", gate),
         "the rules are not pod CREATEs only")
    need("admissionReviewVersions: [v1]" in gate and "sideEffects: None" in gate, "not AdmissionReview v1 / sideEffects None")
    need(re.search(r"key: kubernetes.io/metadata.name\n\s+operator: NotIn\n\s+values:\n\s+- kube-system\n\s+- \{\{ .Release.Namespace \}\}", gate),
         "the namespaceSelector does not leave out kube-system and the release namespace")
    need("path: /budget-gate" in gate, "the webhook path is not /budget-gate")
    need("targetPort: webhook" in gate and "- name: webhook\n              containerPort: {{ .Values.budgets.webhookPort }}" in dep,
         "the Service's targetPort is not the container's webhook port")
    for flag in ("--webhook-address=0.0.0.0:{{ .Values.budgets.webhookPort }}",
                 "--webhook-cert-file=/etc/fitscale-webhook/tls.crt",
                 "--webhook-key-file=/etc/fitscale-webhook/tls.key"):
        need(flag in dep, f"the Deployment does not pass {flag}")
    need("mountPath: /etc/fitscale-webhook" in dep and "secretName: fitscale-webhook-tls" in dep,
         "the Secret is not mounted where the flags look")
    rbac = read("templates/rbac.yaml")
    need(re.search(r"resources: \[pods\]\n(?:\s*#.*\n)*\s+verbs: \[get, list, watch, patch(?:, delete)?\]", rbac),
         "the ClusterRole cannot get and patch pods (removing the gate)")
    if problems:
        fail("\n  ".join(problems))
    print("ok: the chart's gate template, values and Deployment agree (read without helm)")


def main():
    out = subprocess.run([BINARY, "run", "--help"], capture_output=True, text=True, timeout=30).stdout
    for flag in ("--webhook-address", "--webhook-cert-file", "--webhook-key-file", "/budget-gate"):
        if flag not in out:
            fail(f"fitscale run --help does not mention {flag}")
    check_reading()
    helm = shutil.which("helm")
    if helm:
        check_helm(helm)
    else:
        print("SKIP (rendering): helm is not installed (no Debian package)")


if __name__ == "__main__":
    main()
