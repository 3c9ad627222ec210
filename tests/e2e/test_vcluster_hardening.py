#!/usr/bin/env python3
"""End to end: `fitscale cluster` against what kube-apiserver withstands and guarantees —
hostile input (deep nesting, huge bodies, bad names, wrong types, text/plain), many open
watches and slow clients, responses without delayed-ACK stalls, strategic merge patch and
server-side apply through kubectl, paged lists, WatchList, Table output, delete preconditions.
Starts its own server on a free loopback port and stops it."""
import functools
import http.client
import json
import os
import socket
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import Cluster, scratch_dir  # noqa: E402

wait_for = functools.partial(e2e_support.wait_for, timeout=30)


def conn(c, timeout=10):
    u = urllib.parse.urlparse(c.url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def request(c, method, path, body=None, content_type="application/json", headers=None):
    """One request on a fresh connection -> (status, parsed JSON or raw text)."""
    h = conn(c, timeout=30)
    hdrs = dict(headers or {})
    if body is not None:
        hdrs["Content-Type"] = content_type
    h.request(method, path, body=body, headers=hdrs)
    r = h.getresponse()
    raw = r.read()
    h.close()
    try:
        return r.status, json.loads(raw)
    except ValueError:
        return r.status, raw.decode("utf-8", "replace")


def expect_status(result, code, reason, what):
    status, body = result
    assert status == code, f"{what}: HTTP {status}, want {code}: {str(body)[:300]}"
    assert isinstance(body, dict) and body.get("kind") == "Status" and \
        body.get("apiVersion") == "v1" and body.get("status") == "Failure" and \
        body.get("reason") == reason and body.get("code") == code, f"{what}: {str(body)[:300]}"


def pod(name, containers=None):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": containers or [{"name": "c", "image": "busybox"}]}}


def pods_path(ns="default"):
    return f"/api/v1/namespaces/{ns}/pods"


def threads_of(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def hostile_input(c):
    deep = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"deep"},"spec":{"x":' + \
        "[" * 100000 + "]" * 100000 + "}}"
    expect_status(request(c, "POST", pods_path(), deep), 400, "BadRequest", "100,000-deep body")
    big = json.dumps(pod("big")).replace('"spec"', '"pad":"' + "x" * (4 << 20) + '","spec"', 1)
    expect_status(request(c, "POST", pods_path(), big), 413, "RequestEntityTooLarge", "4 MiB body")
    expect_status(request(c, "POST", pods_path(),
                          '{"apiVersion":"v1","kind":"Pod","metadata":"x"}'),
                  400, "BadRequest", "metadata of the wrong type")
    expect_status(request(c, "POST", pods_path(),
                          b'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a\xff"}}'),
                  400, "BadRequest", "invalid UTF-8")
    expect_status(request(c, "POST", pods_path(), json.dumps(pod("plain")), "text/plain"),
                  415, "UnsupportedMediaType", "text/plain body")
    expect_status(request(c, "POST", pods_path("%FF"), json.dumps(pod("p"))),
                  422, "Invalid", "%FF namespace")
    expect_status(request(c, "POST", pods_path(), json.dumps(pod("a/b"))),
                  422, "Invalid", "name with a slash")
    status, body = request(c, "POST", pods_path(), json.dumps(pod("Upper_Case")))
    assert status == 422 and body["details"]["causes"][0]["field"] == "metadata.name", body
    expect_status(request(c, "POST", "/fitscale.io/sim-cloud/launch", json.dumps(
        {"instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "on-demand",
         "count": 1000000, "client_token": "huge"})), 422, "Invalid", "launch of a million")
    # Nothing of that was stored, and listing still works (a stored %FF namespace broke it).
    names = {n["metadata"]["name"] for n in c.kjson("get", "namespaces")["items"]}
    assert all(n.isascii() and "/" not in n for n in names), names
    assert c.kjson("get", "pods", "-A")["items"] == []


def no_delayed_ack(c):
    # 30 requests on one keep-alive connection: with headers and body written separately and
    # Nagle on, each waited ~40 ms for the client's delayed ACK.
    h = conn(c)
    times = []
    for i in range(30):
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": f"cm-{i}"}, "data": {"k": "v"}})
        t0 = time.monotonic()
        h.request("POST", "/api/v1/namespaces/default/configmaps", body=body,
                  headers={"Content-Type": "application/json"})
        r = h.getresponse()
        r.read()
        times.append(time.monotonic() - t0)
        assert r.status == 201, r.status
    h.close()
    median = statistics.median(times)
    assert median < 0.02, f"median POST took {median * 1000:.1f} ms (delayed-ACK stall?)"


def watches_and_slow_clients(c):
    pid = c.proc.pid
    before = threads_of(pid)
    u = urllib.parse.urlparse(c.url)
    watches = []
    for _ in range(100):
        s = socket.create_connection((u.hostname, u.port), timeout=10)
        s.sendall(b"GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: x\r\n\r\n")
        watches.append(s)
    slow = []
    for _ in range(70):
        s = socket.create_connection((u.hostname, u.port), timeout=10)
        s.sendall(b"GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n")  # headers never finished
        slow.append(s)
    wait_for("100 watches being served", lambda: threads_of(pid) >= before + 100)
    t0 = time.monotonic()
    status, body = request(c, "GET", "/healthz")
    took = time.monotonic() - t0
    assert status == 200 and took < 2, f"/healthz under load: {status} after {took:.1f}s"
    t0 = time.monotonic()
    c.kubectl("get", "pods", "-A", timeout=20)
    assert time.monotonic() - t0 < 10, "kubectl get under load took over 10 s"
    # Clients that leave free their threads, even watches without bookmarks on a quiet resource.
    for s in watches + slow:
        s.close()
    wait_for("threads of departed watches freed", lambda: threads_of(pid) <= before + 20)


def smp_and_apply(c):
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [
                                        {"name": "app", "image": "app:1"},
                                        {"name": "sidecar", "image": "side:1"}]}}}}
    c.apply(deploy)
    deploy["spec"]["template"]["spec"]["containers"][0]["image"] = "app:2"
    c.apply(deploy)
    got = c.kjson("get", "deployment", "web")["spec"]["template"]["spec"]["containers"]
    assert [(x["name"], x["image"]) for x in got] == [("app", "app:2"), ("sidecar", "side:1")], got
    # A status patch adding one node condition keeps Ready.
    c.kubectl("create", "--validate=false", "-f", "-", stdin=json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n-smp"}}))
    c.kubectl("patch", "node", "n-smp", "--subresource=status", "--type=strategic", "-p",
              json.dumps({"status": {"conditions": [{"type": "DiskPressure", "status": "False"}]}}))
    types = [x["type"] for x in c.kjson("get", "node", "n-smp")["status"]["conditions"]]
    assert "Ready" in types and "DiskPressure" in types, types
    # Server-side apply: create, then change one container.
    ssa = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ssa"},
           "spec": {"selector": {"matchLabels": {"app": "ssa"}},
                    "template": {"metadata": {"labels": {"app": "ssa"}},
                                 "spec": {"containers": [{"name": "a", "image": "a:1"},
                                                         {"name": "b", "image": "b:1"}]}}}}
    c.kubectl("apply", "--server-side", "--validate=false", "-f", "-", stdin=json.dumps(ssa))
    ssa["spec"]["template"]["spec"]["containers"] = [{"name": "a", "image": "a:2"}]
    c.kubectl("apply", "--server-side", "--validate=false", "-f", "-", stdin=json.dumps(ssa))
    got = c.kjson("get", "deployment", "ssa", "--show-managed-fields")
    images = {x["name"]: x["image"] for x in got["spec"]["template"]["spec"]["containers"]}
    assert images.get("a") == "a:2", images
    managers = [m["manager"] for m in got["metadata"].get("managedFields", [])]
    assert "kubectl" in managers, managers


def paged_lists(c):
    for i in range(12):
        status, _ = request(c, "POST", pods_path("paged"), json.dumps(pod(f"p{i:02d}")))
        assert status == 201
    status, first = request(c, "GET", pods_path("paged") + "?limit=5")
    assert status == 200 and len(first["items"]) == 5, first
    for i in range(3):
        request(c, "DELETE", pods_path("paged") + f"/p{i:02d}?gracePeriodSeconds=0")
    names = [p["metadata"]["name"] for p in first["items"]]
    token = first["metadata"].get("continue")
    while token:
        status, page = request(c, "GET", pods_path("paged") + "?limit=5&continue=" +
                               urllib.parse.quote(token))
        assert status == 200, page
        names += [p["metadata"]["name"] for p in page["items"]]
        token = page["metadata"].get("continue")
    assert names == [f"p{i:02d}" for i in range(12)], names


def watch_list(c):
    u = urllib.parse.urlparse(c.url)
    s = socket.create_connection((u.hostname, u.port), timeout=20)
    s.sendall(b"GET " + pods_path("paged").encode() +
              b"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
              b"&allowWatchBookmarks=true HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    deadline = time.monotonic() + 20
    while b"initial-events-end" not in data and time.monotonic() < deadline:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    events = [json.loads(line) for line in data.split(b"\r\n")
              if line.startswith(b'{"object"') or line.startswith(b'{"type"')]
    types = [e["type"] for e in events]
    assert types[-1] == "BOOKMARK" and types.count("ADDED") == 9, types
    assert events[-1]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true"
    status, body = request(c, "GET", pods_path() + "?watch=1&sendInitialEvents=true")
    expect_status((status, body), 422, "Invalid", "sendInitialEvents without NotOlderThan")


def tables_and_preconditions(c):
    out = c.kubectl("get", "pods", "-n", "paged").stdout
    header = out.splitlines()[0].split()
    assert header == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], out
    wide = c.kubectl("get", "pods", "-n", "paged", "-o", "wide").stdout.splitlines()[0].split()
    assert wide[:7] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"], wide
    header = c.kubectl("get", "nodes").stdout.splitlines()[0].split()
    assert header == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"], header
    status, p = request(c, "GET", pods_path("paged") + "/p05")
    expect_status(request(c, "DELETE", pods_path("paged") + "/p05",
                          json.dumps({"preconditions": {"uid": "someone-else"}})),
                  409, "Conflict", "delete with a wrong uid precondition")
    status, _ = request(c, "DELETE", pods_path("paged") + "/p05?gracePeriodSeconds=0",
                        json.dumps({"preconditions": {"uid": p["metadata"]["uid"]}}))
    assert status == 200


def kubectl_create_kinds(c):
    c.kubectl("create", "configmap", "cm-k", "--from-literal=a=b")
    c.kubectl("create", "serviceaccount", "sa-k")
    c.kubectl("create", "deployment", "dep-k", "--image=busybox")
    c.kubectl("create", "job", "job-k", "--image=busybox")
    c.kubectl("create", "pdb", "pdb-k", "--selector=app=x", "--min-available=1")
    # The other served kinds kubectl creates with its typed client (protobuf bodies), read back.
    c.kubectl("create", "secret", "generic", "sec-k", "--from-literal=password=hunter2")
    assert c.kjson("get", "secret", "sec-k")["data"] == {"password": "aHVudGVyMg=="}
    c.kubectl("create", "service", "clusterip", "svc-k", "--tcp=5678:8080")
    port = c.kjson("get", "service", "svc-k")["spec"]["ports"][0]
    assert (port["port"], port["targetPort"], port["protocol"]) == (5678, 8080, "TCP"), port
    c.kubectl("create", "priorityclass", "pc-k", "--value=42", "--description=from kubectl")
    pc = c.kjson("get", "priorityclass", "pc-k")
    assert (pc["value"], pc["description"]) == (42, "from kubectl"), pc
    c.kubectl("create", "role", "role-k", "--verb=get,list", "--resource=pods")
    assert c.kjson("get", "role", "role-k")["rules"][0]["verbs"] == ["get", "list"]
    c.kubectl("create", "rolebinding", "rb-k", "--role=role-k", "--user=bob")
    rb = c.kjson("get", "rolebinding", "rb-k")
    assert rb["roleRef"]["name"] == "role-k" and rb["subjects"][0]["name"] == "bob", rb
    c.kubectl("create", "clusterrole", "cr-k", "--verb=get", "--resource=nodes")
    assert c.kjson("get", "clusterrole", "cr-k")["rules"][0]["resources"] == ["nodes"]
    c.kubectl("create", "clusterrolebinding", "crb-k", "--clusterrole=cr-k", "--user=bob")
    assert c.kjson("get", "clusterrolebinding", "crb-k")["roleRef"]["kind"] == "ClusterRole"


def main():
    with scratch_dir("fitscale-vcluster-hardening-") as tmp:
        # Plain HTTP: what is checked here is the server under hostile input, not TLS.
        c = Cluster(tmp, "--plain-http", "--boot-delay", "1", "--metrics-address", "off")
        try:
            hostile_input(c)
            no_delayed_ack(c)
            watches_and_slow_clients(c)
            smp_and_apply(c)
            paged_lists(c)
            watch_list(c)
            tables_and_preconditions(c)
            kubectl_create_kinds(c)
        except Exception:
            sys.stderr.write("--- fitscale cluster log ---\n" + c.log_tail(5000))
            raise
        finally:
            rc = c.stop(grace=10, must_exit=True)
        assert rc == 0, f"fitscale cluster exited {rc} after SIGTERM"
    print("ok")


if __name__ == "__main__":
    main()
