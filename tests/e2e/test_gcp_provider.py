#!/usr/bin/env python3
"""End to end, `fitscale run` launching on GCP (docs/gcp.md): `fitscale cluster`, a loopback
stand-in for Compute Engine and its metadata server (answering in the shapes of
tests/data/gcp/), `fitscale run` with `providers:` of kind gcp and the shipped GCP catalog,
kubectl as the user. There is no Compute Engine emulator: the stand-in creates what bulkInsert
asks for and lists it back; no node joins.

- A job's pods that fit nowhere make fitscale ask Compute Engine for instances: one bulkInsert in
  the provider's zone, Spot with DELETE, labelled for the cluster, with a metadata-server token.
- fitscale finds them again by label (aggregatedList with the cluster filter).
- An instance whose node never registers is deleted (scaleDown.registerTimeout).
"""
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (BINARY, Cluster, namespace, scratch_dir, spawn, stop, tail,  # noqa: E402
                         wait_for, write_file)

SOURCE_DIR = os.environ.get("FITSCALE_SOURCE_DIR",
                            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PROJECT = "e2e-project"
ZONE = "us-central1-a"


class FakeCompute:
    """Compute Engine's calls fitscale makes, on loopback: bulkInsert creates, aggregatedList
    lists (by the label filter), delete deletes, operations are DONE at once."""

    def __init__(self):
        self.lock = threading.Lock()
        self.instances = {}   # name -> instance resource
        self.requests = []    # (method, path, query, body, headers)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, obj):
                body = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def handle_any(self, method):
                url = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                with fake.lock:
                    fake.requests.append((method, url.path, parse_qs(url.query), body, dict(self.headers)))
                status, obj = fake.answer(method, url.path, parse_qs(url.query), body, self.headers)
                self.reply(status, obj)

            def do_GET(self):
                self.handle_any("GET")

            def do_POST(self):
                self.handle_any("POST")

            def do_DELETE(self):
                self.handle_any("DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def operation(self, zone, kind):
        base = "https://www.googleapis.com/compute/v1/projects/%s/zones/%s" % (PROJECT, zone)
        return {"kind": "compute#operation", "name": "operation-%s-%d" % (kind, len(self.requests)),
                "zone": base, "operationType": kind, "status": "DONE", "progress": 100,
                "selfLink": base + "/operations/op"}

    def answer(self, method, path, query, body, headers):
        if path == "/computeMetadata/v1/instance/service-accounts/default/token":
            if headers.get("Metadata-Flavor") != "Google":
                return 403, {"error": "Metadata-Flavor: Google is required"}
            return 200, {"access_token": "ya29.e2e", "expires_in": 3599, "token_type": "Bearer"}
        if headers.get("Authorization") != "Bearer ya29.e2e":
            return 401, {"error": {"code": 401, "message": "no token", "errors": [{"reason": "required"}]}}
        prefix = "/compute/v1/projects/%s" % PROJECT
        if method == "POST" and path.endswith("/instances/bulkInsert"):
            zone = path.split("/zones/")[1].split("/")[0]
            req = json.loads(body)
            props = req["instanceProperties"]
            with self.lock:
                for name in req["perInstanceProperties"]:
                    self.instances[name] = {
                        "kind": "compute#instance", "name": name, "status": "PROVISIONING",
                        "machineType": "https://www.googleapis.com/compute/v1/projects/%s/zones/%s/machineTypes/%s"
                                       % (PROJECT, zone, props["machineType"]),
                        "zone": "https://www.googleapis.com/compute/v1/projects/%s/zones/%s" % (PROJECT, zone),
                        "labels": props["labels"], "scheduling": props["scheduling"],
                        "selfLink": "https://www.googleapis.com/compute/v1/projects/%s/zones/%s/instances/%s"
                                    % (PROJECT, zone, name)}
            op = self.operation(zone, "bulkInsert")
            op["instancesBulkInsertOperationMetadata"] = {"perLocationStatus": {
                "zones/" + zone: {"status": "DONE", "targetVmCount": req["count"],
                                  "createdVmCount": req["count"]}}}
            return 200, op
        if method == "GET" and path == prefix + "/aggregated/instances":
            want = (query.get("filter") or [""])[0]
            with self.lock:
                items = {}
                for inst in self.instances.values():
                    label = "labels.fitscale-cluster=" + inst["labels"].get("fitscale-cluster", "")
                    if label != want:
                        continue
                    items.setdefault("zones/" + inst["zone"].rsplit("/", 1)[1], {"instances": []})["instances"].append(inst)
            return 200, {"kind": "compute#instanceAggregatedList", "items": items}
        if method == "GET" and path == prefix + "/aggregated/operations":
            return 200, {"kind": "compute#operationAggregatedList", "items": {}}
        if method == "DELETE" and "/instances/" in path:
            name = path.rsplit("/", 1)[1]
            zone = path.split("/zones/")[1].split("/")[0]
            with self.lock:
                gone = self.instances.pop(name, None)
            if gone is None:
                return 404, {"error": {"code": 404, "message": "not found", "errors": [{"reason": "notFound"}]}}
            return 200, self.operation(zone, "delete")
        return 404, {"error": {"code": 404, "message": "no such call " + path, "errors": [{"reason": "notFound"}]}}

    def seen(self, method, suffix):
        with self.lock:
            return [r for r in self.requests if r[0] == method and r[1].endswith(suffix)]


def config_for(fake):
    return """
clusterName: e2e-gcp
scaleDown:
  emptyAfter: 3s
  delayAfterLaunch: 0s
  registerTimeout: 6s
providers:
  - name: gcp
    kind: gcp
    region: us-central1
    zones: [%s]
    catalog: %s
    gcp:
      project: %s
      endpoint: %s/compute/v1
      metadataEndpoint: %s
      image: projects/debian-cloud/global/images/family/debian-12
""" % (ZONE, os.path.join(SOURCE_DIR, "data", "gcp-us-central1.csv"), PROJECT, fake.url, fake.url)


def cpu_job(name, ns, pods):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": ns},
            "spec": {"completions": pods, "parallelism": pods,
                     "template": {"spec": {"restartPolicy": "Never",
                                           "containers": [{"name": "c", "image": "busybox",
                                                           "resources": {"requests": {"cpu": "3",
                                                                                      "memory": "4Gi"}}}]}}}}


def main():
    fake = FakeCompute()
    try:
        with scratch_dir("fitscale-gcp-") as tmp, Cluster(tmp, "--boot-delay", "1") as c:
            config = write_file(tmp, "config.yaml", config_for(fake))
            log_path = os.path.join(tmp, "run.log")
            log = open(log_path, "w+")
            run = spawn([BINARY, "run", "--kubeconfig", c.kubeconfig, "--config", config,
                         "--interval", "1", "--id", "a", "--metrics-address", "off"],
                        stdout=log, stderr=subprocess.STDOUT)

            def run_log():
                log.flush()
                with open(log_path) as f:
                    return f.read()

            try:
                wait_for("the replica to sync", lambda: "informers synced" in run_log(), timeout=60, proc=run)
                ns = namespace("gcp-team")
                c.kubectl("apply", "-f", "-", stdin=json.dumps(ns))
                c.kubectl("apply", "-f", "-", stdin=json.dumps(cpu_job("burst", "gcp-team", 2)))

                inserts = wait_for("a bulkInsert on Compute Engine",
                                   lambda: fake.seen("POST", "/instances/bulkInsert"), timeout=60, proc=run)
                method, path, query, body, headers = inserts[0]
                req = json.loads(body)
                props = req["instanceProperties"]
                assert "/zones/%s/" % ZONE in path, path
                assert query.get("requestId"), query
                assert props["scheduling"]["provisioningModel"] == "SPOT", props["scheduling"]
                assert props["scheduling"]["instanceTerminationAction"] == "DELETE", props["scheduling"]
                assert props["labels"]["fitscale-cluster"] == "e2e-gcp", props["labels"]
                assert props["labels"]["fitscale-namespace"] == "gcp-team", props["labels"]
                assert req["count"] >= 1 and len(req["perInstanceProperties"]) == req["count"], req
                tokens = fake.seen("GET", "/service-accounts/default/token")
                assert tokens and tokens[0][4].get("Metadata-Flavor") == "Google", tokens
                names = set(req["perInstanceProperties"])
                print("launched on GCP: %s x%d in %s" % (props["machineType"], req["count"], ZONE))

                wait_for("the instances listed by the cluster label",
                         lambda: fake.seen("GET", "/aggregated/instances"), timeout=30, proc=run)
                # No node ever joins: past registerTimeout fitscale deletes what it launched.
                deleted = wait_for("the unregistered instances deleted",
                                   lambda: names <= {r[1].rsplit("/", 1)[1]
                                                     for r in fake.seen("DELETE", "")},
                                   timeout=90, proc=run)
                assert deleted
                print("deleted after registerTimeout: %s" % ", ".join(sorted(names)))
            except BaseException:
                print(tail(log_path), file=sys.stderr)
                raise
            finally:
                stop(run)
    finally:
        fake.close()
    print("ok")


if __name__ == "__main__":
    main()
