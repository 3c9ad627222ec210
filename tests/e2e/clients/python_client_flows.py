"""Flows of the official Python Kubernetes client (Debian's python3-kubernetes) against a
cluster, run by tests/e2e/test_vcluster_clients.py as `/usr/bin/python3 THIS KUBECONFIG`.

Not a test file itself (not named test_*.py): it needs the client, which only Debian's
/usr/bin/python3 has, while the e2e runner may be another python3. It loads the kubeconfig
exactly as written, exercises one flow per block and prints "ok FLOW" for each; the first
failure raises (non-zero exit, traceback on stderr)."""
import datetime
import json
import sys
import threading
import time

from kubernetes import client, config, dynamic, watch
from kubernetes.dynamic.exceptions import DynamicApiError
from kubernetes.client.rest import ApiException
from kubernetes.leaderelection import electionconfig, leaderelection
from kubernetes.leaderelection.resourcelock.configmaplock import ConfigMapLock

NS = "pyclient"


def pod(name, labels=None):
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name, labels=labels or {"app": "py"}),
        spec=client.V1PodSpec(containers=[client.V1Container(
            name="main", image="busybox",
            resources=client.V1ResourceRequirements(requests={"cpu": "10m"}))]))


def expect_status(code, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except ApiException as e:
        assert e.status == code, f"expected {code}, got {e.status}: {e.body}"
        return e
    raise AssertionError(f"expected {code}, the call succeeded")


def deadline_loop(what, fn, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        got = fn()
        if got:
            return got
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def main(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()
    coord = client.CoordinationV1Api()

    # create / get / list / delete
    v1.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
    created = v1.create_namespaced_pod(NS, pod("alpha"))
    assert created.metadata.uid and created.metadata.resource_version
    got = v1.read_namespaced_pod("alpha", NS)
    assert got.metadata.uid == created.metadata.uid
    assert [p.metadata.name for p in v1.list_namespaced_pod(NS).items] == ["alpha"]
    expect_status(409, v1.create_namespaced_pod, NS, pod("alpha"))
    print("ok create/get/list")

    # dry-run create: answered like a create, nothing stored
    dry = v1.create_namespaced_pod(NS, pod("dry"), dry_run="All")
    assert dry.metadata.name == "dry"
    expect_status(404, v1.read_namespaced_pod, "dry", NS)
    # dry-run patch and delete: answered with the result, the stored pod unchanged
    patched = v1.patch_namespaced_pod("alpha", NS, {"metadata": {"labels": {"dry": "yes"}}},
                                      dry_run="All")
    assert patched.metadata.labels.get("dry") == "yes", patched.metadata.labels
    assert "dry" not in v1.read_namespaced_pod("alpha", NS).metadata.labels
    v1.delete_namespaced_pod("alpha", NS, dry_run="All")
    assert v1.read_namespaced_pod("alpha", NS).metadata.deletion_timestamp is None
    print("ok dry-run create/patch/delete")

    # patches: JSON patch (a list), strategic merge (a dict: the client's default), merge patch
    v1.patch_namespaced_pod("alpha", NS, [{"op": "add", "path": "/metadata/labels/json", "value": "yes"}])
    v1.patch_namespaced_pod("alpha", NS, {"metadata": {"labels": {"smp": "yes"}}})
    v1.api_client.call_api(
        f"/api/v1/namespaces/{NS}/pods/alpha", "PATCH",
        header_params={"Content-Type": "application/merge-patch+json", "Accept": "application/json"},
        body={"metadata": {"labels": {"merge": "yes", "json": None}}},
        auth_settings=["BearerToken"], response_type="V1Pod", _return_http_data_only=True)
    labels = v1.read_namespaced_pod("alpha", NS).metadata.labels
    assert labels == {"app": "py", "smp": "yes", "merge": "yes"}, labels
    print("ok patch json/strategic/merge")

    # server-side apply with the dynamic client: create, a second manager's conflict (409 naming
    # the field), force_conflicts taking it over
    dyn = dynamic.DynamicClient(client.ApiClient())
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": NS},
          "data": {"owner": "py-a", "size": "1"}}
    # python3-kubernetes 22's REST layer sends an application/apply-patch+yaml body only when it
    # is already text (it refuses a dict); JSON is YAML.
    dyn.server_side_apply(cms, body=json.dumps(cm), name="applied", namespace=NS,
                          field_manager="py-a")
    other = json.dumps(dict(cm, data={"size": "2"}))
    try:
        dyn.server_side_apply(cms, body=other, name="applied", namespace=NS, field_manager="py-b")
        raise AssertionError("a conflicting apply succeeded")
    except DynamicApiError as e:
        assert e.status == 409 and 'conflict with \\"py-a\\"' in e.body.decode() \
            and ".data.size" in e.body.decode(), (e.status, e.body)
    dyn.server_side_apply(cms, body=other, name="applied", namespace=NS, field_manager="py-b",
                          force_conflicts=True)
    got = v1.read_namespaced_config_map("applied", NS)
    assert got.data == {"owner": "py-a", "size": "2"}, got.data
    assert sorted(m.manager for m in got.metadata.managed_fields) == ["py-a", "py-b"]
    print("ok server-side apply")

    # pagination: limit and _continue walk every pod exactly once
    for i in range(5):
        v1.create_namespaced_pod(NS, pod(f"page-{i}", {"app": "paged"}))
    names, token, pages = [], None, 0
    while True:
        page = v1.list_namespaced_pod(NS, label_selector="app=paged", limit=2, _continue=token)
        names += [p.metadata.name for p in page.items]
        pages += 1
        assert len(page.items) <= 2
        token = page.metadata._continue
        if not token:
            break
    assert sorted(names) == [f"page-{i}" for i in range(5)] and pages == 3, (names, pages)
    print("ok pagination")

    # watch: a stream from the list's resourceVersion sees a new pod ADDED, then its DELETED
    rv = v1.list_namespaced_pod(NS).metadata.resource_version
    w = watch.Watch()
    seen = []

    def consume():
        for ev in w.stream(v1.list_namespaced_pod, NS, resource_version=rv, timeout_seconds=60):
            seen.append((ev["type"], ev["object"].metadata.name))
            if ev["type"] == "DELETED" and ev["object"].metadata.name == "watched":
                w.stop()

    t = threading.Thread(target=consume, daemon=True)
    t.start()
    v1.create_namespaced_pod(NS, pod("watched"))
    deadline_loop("ADDED watched", lambda: ("ADDED", "watched") in seen)
    v1.delete_namespaced_pod("watched", NS, grace_period_seconds=0)
    t.join(60)
    assert not t.is_alive() and ("DELETED", "watched") in seen, seen
    print("ok watch")

    # informer-style: list then watch from its version, resuming on the returned versions
    cache = {p.metadata.name for p in v1.list_namespaced_pod(NS).items}
    v1.delete_namespaced_pod("page-0", NS, grace_period_seconds=0)
    v1.create_namespaced_pod(NS, pod("late"))
    w2 = watch.Watch()
    for ev in w2.stream(v1.list_namespaced_pod, NS, resource_version=rv, timeout_seconds=30):
        name = ev["object"].metadata.name
        if ev["type"] == "DELETED":
            cache.discard(name)
        else:
            cache.add(name)
        if "late" in cache and "page-0" not in cache:
            w2.stop()
    assert "late" in cache and "page-0" not in cache, cache
    print("ok informer")

    # leader election on a Lease: create, renew with the current version, a stale update is 409
    lease = client.V1Lease(metadata=client.V1ObjectMeta(name="py-leader"),
                           spec=client.V1LeaseSpec(holder_identity="a", lease_duration_seconds=15))
    held = coord.create_namespaced_lease(NS, lease)
    expect_status(409, coord.create_namespaced_lease, NS, lease)
    held.spec.renew_time = datetime.datetime.now(datetime.timezone.utc)
    renewed = coord.replace_namespaced_lease("py-leader", NS, held)
    assert renewed.metadata.resource_version != held.metadata.resource_version
    held.spec.holder_identity = "b"  # b raced with the old version: must lose
    e = expect_status(409, coord.replace_namespaced_lease, "py-leader", NS, held)
    assert "Conflict" in e.body, e.body
    assert coord.read_namespaced_lease("py-leader", NS).spec.holder_identity == "a"
    print("ok lease")

    # the client's own elector (it locks a ConfigMap's annotation in this client version)
    lock = ConfigMapLock("py-elector", NS, "candidate-1")
    led = threading.Event()
    cfg = electionconfig.Config(lock, lease_duration=6, renew_deadline=4, retry_period=1,
                                onstarted_leading=led.set, onstopped_leading=lambda: None)
    threading.Thread(target=leaderelection.LeaderElection(cfg).run, daemon=True).start()
    assert led.wait(60), "the elector never led"
    record = v1.read_namespaced_config_map("py-elector", NS).metadata.annotations[
        "control-plane.alpha.kubernetes.io/leader"]
    assert '"holderIdentity": "candidate-1"' in record, record
    print("ok leader election")

    # delete
    v1.delete_namespaced_pod("alpha", NS, grace_period_seconds=0)
    deadline_loop("alpha gone", lambda: expect_gone(v1, "alpha"))
    print("ok delete")


def expect_gone(v1, name):
    try:
        v1.read_namespaced_pod(name, NS)
        return False
    except ApiException as e:
        return e.status == 404


if __name__ == "__main__":
    main(sys.argv[1])
