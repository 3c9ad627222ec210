#!/usr/bin/env python3
"""End to end: admission webhooks called by `fitscale cluster` as kube-apiserver calls them.

The test runs its own HTTPS webhook server (Python's ssl, a self-signed certificate for
127.0.0.1 made with the openssl command) and registers it with kubectl: a
MutatingWebhookConfiguration whose JSONPatch adds a label and a scheduling gate to new pods in
labelled namespaces, and a ValidatingWebhookConfiguration that refuses pods labelled deny=yes
with its own status. Then: the AdmissionReview v1 the server received, server-side dry run
reaching the webhooks with dryRun set, a caBundle that does not verify the server (refused,
failurePolicy Fail), failurePolicy Ignore letting a pod through, and clientConfig.service being
refused with a reason (no Services run in the virtual cluster)."""
import base64
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Cluster, scratch_dir  # noqa: E402


def self_signed(tmp, name):
    """A key and a self-signed certificate for 127.0.0.1 (its own CA bundle)."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-keyout", f"{name}.key", "-out", f"{name}.crt", "-subj", "/CN=webhook",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   cwd=tmp, check=True, capture_output=True, timeout=30)
    return os.path.join(tmp, f"{name}.crt"), os.path.join(tmp, f"{name}.key")


class Webhook(http.server.BaseHTTPRequestHandler):
    reviews = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        review = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Webhook.reviews.append((self.path, review))
        req = review["request"]
        response = {"uid": req["uid"], "allowed": True}
        labels = (req.get("object") or {}).get("metadata", {}).get("labels") or {}
        if self.path.startswith("/mutate"):
            patch = [{"op": "add", "path": "/metadata/labels/webhook.example.com~1seen",
                      "value": "yes"},
                     {"op": "add", "path": "/spec/schedulingGates",
                      "value": [{"name": "example.com/gate"}]}]
            if not labels:
                patch.insert(0, {"op": "add", "path": "/metadata/labels", "value": {}})
            response.update(patchType="JSONPatch",
                            patch=base64.b64encode(json.dumps(patch).encode()).decode())
        elif labels.get("deny") == "yes":
            response.update(allowed=False, status={"code": 403, "reason": "Forbidden",
                                                   "message": "pods labelled deny are refused"})
        body = json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                           "response": response}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def start_webhook_server(cert, key):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def hook(name, client_config, rules_ops=("CREATE",), failure_policy="Fail", **extra):
    h = {"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
         "failurePolicy": failure_policy, "timeoutSeconds": 5, "clientConfig": client_config,
         "rules": [{"operations": list(rules_ops), "apiGroups": [""], "apiVersions": ["v1"],
                    "resources": ["pods"], "scope": "Namespaced"}]}
    h.update(extra)
    return h


def config(kind, name, *hooks):
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": name}, "webhooks": list(hooks)}


def pod(name, ns, labels=None):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def create(c, obj, *flags, check=True):
    return c.kubectl("create", "--validate=false", *flags, "-f", "-", stdin=json.dumps(obj),
                     check=check)


def main():
    with scratch_dir("fitscale-e2e-webhooks-") as tmp:
        cert, key = self_signed(tmp, "webhook")
        other_cert, _ = self_signed(tmp, "other")
        with open(cert, "rb") as f:
            ca_bundle = base64.b64encode(f.read()).decode()
        with open(other_cert, "rb") as f:
            wrong_bundle = base64.b64encode(f.read()).decode()
        server = start_webhook_server(cert, key)
        url = f"https://127.0.0.1:{server.server_address[1]}"
        try:
            with Cluster(tmp) as c:
                try:
                    run(c, url, ca_bundle, wrong_bundle)
                except AssertionError:
                    print(c.log_tail(), file=sys.stderr)
                    raise
        finally:
            server.shutdown()
    print("ok")


def run(c, url, ca_bundle, wrong_bundle):
    c.kubectl("create", "namespace", "gated")
    c.kubectl("label", "namespace", "gated", "gate=on")
    c.kubectl("create", "namespace", "open")
    selector = {"matchLabels": {"gate": "on"}}
    c.apply(config("MutatingWebhookConfiguration", "gate",
                   hook("gate.example.com", {"url": url + "/mutate", "caBundle": ca_bundle},
                        namespaceSelector=selector)))
    c.apply(config("ValidatingWebhookConfiguration", "deny",
                   hook("deny.example.com", {"url": url + "/validate", "caBundle": ca_bundle},
                        objectSelector={"matchLabels": {"deny": "yes"}})))

    # Mutating: the patch lands in the stored pod, only in the selected namespace.
    create(c, pod("p1", "gated"))
    p1 = c.kjson("get", "pod", "p1", "-n", "gated")
    assert p1["metadata"]["labels"].get("webhook.example.com/seen") == "yes", p1["metadata"]
    assert p1["spec"].get("schedulingGates") == [{"name": "example.com/gate"}], p1["spec"]
    path, review = Webhook.reviews[-1]
    assert path.startswith("/mutate?timeout=5s"), path
    assert review["apiVersion"] == "admission.k8s.io/v1" and review["kind"] == "AdmissionReview"
    req = review["request"]
    assert req["operation"] == "CREATE" and req["namespace"] == "gated", req
    assert req["resource"] == {"group": "", "version": "v1", "resource": "pods"}, req["resource"]
    assert req["object"]["metadata"]["name"] == "p1" and req["dryRun"] is False, req
    seen = len(Webhook.reviews)
    create(c, pod("p2", "open"))
    assert "webhook.example.com/seen" not in (
        c.kjson("get", "pod", "p2", "-n", "open")["metadata"].get("labels") or {})
    assert len(Webhook.reviews) == seen, "the namespaceSelector must keep the webhook out"

    # Validating: the webhook's status is the answer, and nothing is stored.
    r = create(c, pod("bad", "open", {"deny": "yes"}), check=False)
    assert r.returncode != 0
    assert 'admission webhook "deny.example.com" denied the request: pods labelled deny are ' \
        'refused' in r.stderr, r.stderr
    assert c.kubectl("get", "pod", "bad", "-n", "open", check=False).returncode != 0

    # Dry run reaches the webhooks, flagged, and stores nothing.
    create(c, pod("dry", "gated"), "--dry-run=server")
    assert Webhook.reviews[-1][1]["request"]["dryRun"] is True
    assert c.kubectl("get", "pod", "dry", "-n", "gated", check=False).returncode != 0

    # A caBundle that does not verify the webhook's certificate: Fail refuses the request.
    c.apply(config("ValidatingWebhookConfiguration", "untrusted",
                   hook("untrusted.example.com", {"url": url + "/validate",
                                                  "caBundle": wrong_bundle},
                        objectSelector={"matchLabels": {"probe": "tls"}})))
    r = create(c, pod("tls", "open", {"probe": "tls"}), check=False)
    assert r.returncode != 0 and 'failed calling webhook "untrusted.example.com"' in r.stderr, \
        r.stderr
    # failurePolicy Ignore goes on without an unreachable webhook. (replace, not apply: a
    # strategic merge patch of the webhooks list is merged by name only once patch.cpp does it.)
    c.kubectl("replace", "--validate=false", "-f", "-", stdin=json.dumps(
        config("ValidatingWebhookConfiguration", "untrusted",
               hook("untrusted.example.com", {"url": url + "/validate", "caBundle": wrong_bundle},
                    failure_policy="Ignore", objectSelector={"matchLabels": {"probe": "tls"}}))))
    create(c, pod("tls", "open", {"probe": "tls"}))
    # A Service reference cannot be reached here, and the error says so.
    c.apply(config("ValidatingWebhookConfiguration", "service",
                   hook("service.example.com",
                        {"service": {"name": "hook", "namespace": "default"}},
                        objectSelector={"matchLabels": {"probe": "service"}})))
    r = create(c, pod("svc", "open", {"probe": "service"}), check=False)
    assert r.returncode != 0 and "clientConfig.service is not reachable" in r.stderr, r.stderr


if __name__ == "__main__":
    main()
