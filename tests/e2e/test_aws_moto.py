#!/usr/bin/env python3
"""End to end against an independent EC2 API: moto_server with signature checking on, an IAM
user's keys, a VPC with a subnet per zone and a launch template made with boto3.

- `fitscale cluster --ec2-endpoint URL --cluster-name NAME` registers a Node for every running
  instance tagged with the cluster (providerID, instance-type, zone, capacity-type labels) and
  removes it when the instance terminates.
- `fitscale run --provider aws --aws-endpoint URL` (when the build has it): a GPU Job applied with
  kubectl -> a spot instance of the cheapest fitting type launched in moto through CreateFleet with
  the cluster's tags and launch template; it registers and the pods run. A wrong secret key is a
  clear authentication error and launches nothing. Insufficient capacity for the cheapest offering,
  injected by a proxy between fitscale and moto, makes fitscale skip it and use the next one.

fitscale reads its catalog from the EC2 API at start. moto answers every spot price with
$0.00001, so every `fitscale run` here talks to moto through a proxy that answers
DescribeSpotPriceHistory itself with the prices a test sets (none: the shipped table's spot
estimates apply), and asks about a few instance families only (aws.catalog.instanceTypes) to keep
the start fast.

Starts every process itself on free 127.0.0.1 ports and stops them."""
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import boto3

BINARY = os.environ["FITSCALE_BINARY"]
REGION = "us-east-1"
# What these tests launch: GPU (g4dn, g5g), CPU (m5, t3). Asking the API about ~1,260 types
# would cost moto 10-35 s per start.
DEFAULT_TYPES = ("g4dn.*", "g5g.*", "m5.*", "t3.*")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, fn, timeout=30):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


class Moto:
    """moto_server on a free port; IAM user, network and launch template made before
    signature checking is switched on (the same switch as INITIAL_NO_AUTH_ACTION_COUNT=0)."""

    def __init__(self, tmp):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(tmp, "moto.log"), "w+")
        self.proc = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=self.log, stderr=subprocess.STDOUT)

        def up():
            try:
                urllib.request.urlopen(self.url + "/moto-api/", timeout=1)
                return True
            except Exception:
                return False

        wait_for("moto_server", up, timeout=60)
        setup = dict(endpoint_url=self.url, region_name=REGION, aws_access_key_id="AKIDSETUP",
                     aws_secret_access_key="setup")
        iam = boto3.client("iam", **setup)
        iam.create_user(UserName="fitscale")
        iam.put_user_policy(UserName="fitscale", PolicyName="autoscaler", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": ["ec2:*", "autoscaling:*", "sqs:*"], "Resource": "*"}]}))
        key = iam.create_access_key(UserName="fitscale")["AccessKey"]
        self.key_id, self.secret = key["AccessKeyId"], key["SecretAccessKey"]
        ec2 = boto3.client("ec2", **setup)
        vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        self.subnets = {}
        for i, zone in enumerate(["us-east-1a", "us-east-1b"]):
            self.subnets[zone] = ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i + 1}.0/24",
                                                   AvailabilityZone=zone)["Subnet"]["SubnetId"]
        self.template_id = ec2.create_launch_template(
            LaunchTemplateName="fitscale-nodes",
            LaunchTemplateData={"ImageId": "ami-12c6146b", "InstanceType": "t3.micro"},
        )["LaunchTemplate"]["LaunchTemplateId"]
        req = urllib.request.Request(self.url + "/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})
        urllib.request.urlopen(req, timeout=10).read()
        self.ec2 = boto3.client("ec2", endpoint_url=self.url, region_name=REGION,
                                aws_access_key_id=self.key_id, aws_secret_access_key=self.secret)

    def env(self, secret=None):
        e = dict(os.environ)
        for k in ["AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"]:
            e.pop(k, None)
        e["AWS_ACCESS_KEY_ID"] = self.key_id
        e["AWS_SECRET_ACCESS_KEY"] = secret or self.secret
        return e

    def instances(self, cluster):
        out = []
        pages = self.ec2.get_paginator("describe_instances").paginate(Filters=[
            {"Name": "tag:fitscale.io/cluster", "Values": [cluster]},
            {"Name": "instance-state-name", "Values": ["pending", "running"]}])
        for page in pages:
            for r in page["Reservations"]:
                out.extend(r["Instances"])
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class FaultProxy:
    """Forwards every request to moto, except CreateFleet for `no_capacity_type`, which it answers
    the way EC2 does when it has no capacity: HTTP 200, an errorSet item, no instances; and
    DescribeSpotPriceHistory, which it answers from `spot_prices` {(type, zone): usd} for the
    zones and types asked (moto's own answer is $0.00001 for everything)."""

    def __init__(self, upstream):
        self.no_capacity_type = None
        self.faults = []
        self.spot_prices = {}
        self.actions = []  # (Action, form) of every request, in order
        proxy = self

        def spot_history(form):
            zones = set()
            types = set()
            for k, v in form.items():
                if k.startswith("Filter.1.Value."):
                    zones.add(v[0])
                if k.startswith("InstanceType."):
                    types.add(v[0])
            items = "".join(
                f"<item><instanceType>{t}</instanceType><productDescription>Linux/UNIX</productDescription>"
                f"<spotPrice>{price:.6f}</spotPrice><timestamp>2026-11-30T00:00:00.000Z</timestamp>"
                f"<availabilityZone>{z}</availabilityZone></item>"
                for (t, z), price in sorted(proxy.spot_prices.items())
                if (not zones or z in zones) and (not types or t in types))
            return ("<DescribeSpotPriceHistoryResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
                    f"<requestId>proxy</requestId><spotPriceHistorySet>{items}</spotPriceHistorySet>"
                    "</DescribeSpotPriceHistoryResponse>").encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                form = urllib.parse.parse_qs(body.decode())
                proxy.actions.append((form.get("Action", [""])[0], form))
                itype = form.get("LaunchTemplateConfigs.1.Overrides.1.InstanceType", [None])[0]
                if form.get("Action") == ["DescribeSpotPriceHistory"]:
                    self.reply(200, spot_history(form))
                    return
                if form.get("Action") == ["CreateFleet"] and itype and itype == proxy.no_capacity_type:
                    proxy.faults.append(itype)
                    reply = ("<CreateFleetResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
                             "<requestId>fault</requestId><fleetId>fleet-fault</fleetId><errorSet><item>"
                             "<errorCode>InsufficientInstanceCapacity</errorCode><errorMessage>We currently "
                             f"do not have sufficient {itype} capacity.</errorMessage><lifecycle>spot"
                             "</lifecycle></item></errorSet><fleetInstanceSet/></CreateFleetResponse>").encode()
                    self.reply(200, reply)
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length",)}
                req = urllib.request.Request(upstream + self.path, data=body, headers=headers, method="POST")
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        status, data, ctype = r.status, r.read(), r.headers.get("Content-Type", "text/xml")
                except urllib.error.HTTPError as e:
                    status, data, ctype = e.code, e.read(), e.headers.get("Content-Type", "text/xml")
                self.reply(status, data, ctype)

            def reply(self, status, data, ctype="text/xml"):
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class Cluster:
    """`fitscale cluster` whose nodes are moto's instances tagged with the cluster."""

    def __init__(self, tmp, moto, endpoint, name, boot_delay=1):
        self.kubeconfig = os.path.join(tmp, f"kubeconfig-{name}")
        self.log = open(os.path.join(tmp, f"cluster-{name}.log"), "w+")
        self.proc = subprocess.Popen(
            [BINARY, "cluster", "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kubeconfig,
             "--ec2-endpoint", endpoint, "--cluster-name", name, "--boot-delay", str(boot_delay)],
            stdout=subprocess.PIPE, stderr=self.log, text=True, env=moto.env())
        first = self.proc.stdout.readline().strip()
        if not first.startswith("listening on "):
            self.log.seek(0)
            raise AssertionError(f"fitscale cluster did not start: {first!r}\n{self.log.read()}")

    def kubectl(self, *args, stdin=None):
        r = subprocess.run(["kubectl", "--kubeconfig", self.kubeconfig, *args], input=stdin,
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed: {r.stderr}")
        return r.stdout

    def nodes(self):
        return json.loads(self.kubectl("get", "nodes", "-o", "json"))["items"]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Run:
    """`fitscale run --provider aws --aws-endpoint URL` against a Cluster."""

    def __init__(self, tmp, moto, cluster, name, endpoint, secret=None, empty_after="600s", tag="",
                 aws_extra="", instance_types=DEFAULT_TYPES, spot_refresh=None, extra_args=(),
                 env=None, zones=("us-east-1a", "us-east-1b")):
        self.config = os.path.join(tmp, f"config-{name}{tag}.yaml")
        with open(self.config, "w") as f:
            f.write(f"""clusterName: {name}
zones: [{", ".join(zones)}]
scaleDown:
  emptyAfter: {empty_after}
  delayAfterLaunch: 0s
aws:
  catalog:
    instanceTypes: {json.dumps(list(instance_types))}
{f"    spotPriceRefresh: {spot_refresh}{chr(10)}" if spot_refresh else ""}{aws_extra}  launchTemplate:
    name: fitscale-nodes
  subnets:
    us-east-1a: {moto.subnets["us-east-1a"]}
    us-east-1b: {moto.subnets["us-east-1b"]}
""")
        self.log_path = os.path.join(tmp, f"run-{name}{tag}.log")
        self.log = open(self.log_path, "w+")
        self.proc = subprocess.Popen(
            [BINARY, "run", "--kubeconfig", cluster.kubeconfig, "--provider", "aws", "--aws-endpoint",
             endpoint, "--interval", "1", "--config", self.config, "--metrics-address", "off",
             "--id", name + tag, *extra_args],
            stdout=self.log, stderr=subprocess.STDOUT, text=True,
            env=env if env is not None else moto.env(secret))

    def text(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def gpu_job(name, duration="3s"):
    return json.dumps({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "annotations": {"fitscale.io/sim-duration": duration}},
        "spec": {"parallelism": 1, "completions": 1, "template": {
            "metadata": {"annotations": {"fitscale.io/sim-duration": duration}},
            "spec": {"restartPolicy": "Never", "containers": [{
                "name": "train", "image": "busybox",
                "resources": {"requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
                              "limits": {"nvidia.com/gpu": "1"}}}]}}}})


def job_pods_succeeded(cluster, job):
    pods = json.loads(cluster.kubectl("get", "pods", "-l", f"job-name={job}", "-o", "json"))["items"]
    if not pods:
        pods = [p for p in json.loads(cluster.kubectl("get", "pods", "-o", "json"))["items"]
                if any(r.get("name") == job for r in p["metadata"].get("ownerReferences", []))]
    return pods and all(p["status"].get("phase") == "Succeeded" for p in pods)


def tags_of(instance):
    return {t["Key"]: t["Value"] for t in instance.get("Tags", [])}


def with_world(tmp, moto, name, fn, proxy=None, boot_delay=1, **run_args):
    """fitscale cluster on moto, and `start()` for fitscale runs that reach moto through `proxy`
    (a FaultProxy of their own when not given)."""
    own_proxy = proxy is None
    proxy = proxy or FaultProxy(moto.url)
    cluster = Cluster(tmp, moto, moto.url, name, boot_delay=boot_delay)
    runs = []
    try:
        def start(**kw):
            r = Run(tmp, moto, cluster, name, proxy.url, tag=f"-{len(runs)}", **{**run_args, **kw})
            runs.append(r)
            return r
        fn(cluster, start)
    finally:
        for r in runs:
            r.stop()
        cluster.stop()
        if own_proxy:
            proxy.stop()
        ids = [i["InstanceId"] for i in moto.instances(name)]
        if ids:
            moto.ec2.terminate_instances(InstanceIds=ids)


def test_gpu_job_gets_the_cheapest_spot_instance_with_tags_and_template_and_runs(tmp, moto):
    name = "e2e-gpu"

    def body(cluster, start):
        run = start()
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("train"))
        insts = wait_for("an instance in moto", lambda: moto.instances(name), timeout=60)
        assert len(insts) == 1, insts
        i = insts[0]
        assert i["InstanceType"] == "g4dn.xlarge", i["InstanceType"]  # cheapest spot with a GPU
        assert i.get("InstanceLifecycle") == "spot", i
        assert i["ImageId"] == "ami-12c6146b", i["ImageId"]  # from the launch template
        assert i["SubnetId"] in moto.subnets.values(), i["SubnetId"]
        tags = tags_of(i)
        assert tags["fitscale.io/cluster"] == name and tags["fitscale.io/pool"] == "default", tags
        assert tags["fitscale.io/namespace"] == "default" and "train" in tags["fitscale.io/job"], tags
        zone = i["Placement"]["AvailabilityZone"]
        node = wait_for("the node", lambda: cluster.nodes(), timeout=30)[0]
        assert node["spec"]["providerID"] == f"aws:///{zone}/{i['InstanceId']}", node["spec"]
        assert node["metadata"]["labels"]["fitscale.io/capacity-type"] == "spot"
        wait_for("the job's pod to succeed", lambda: job_pods_succeeded(cluster, "train"), timeout=60)
        assert len(moto.instances(name)) == 1  # launched once
        assert "AuthFailure" not in run.text()

    with_world(tmp, moto, name, body)


def test_pod_requiring_on_demand_gets_an_on_demand_instance(tmp, moto):
    name = "e2e-od"

    def body(cluster, start):
        start()
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "serve", "annotations": {"fitscale.io/sim-duration": "2s"}},
               "spec": {"restartPolicy": "Never",
                        "nodeSelector": {"karpenter.sh/capacity-type": "on-demand"},
                        "containers": [{"name": "main", "image": "busybox",
                                        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=json.dumps(pod))
        insts = wait_for("an instance in moto", lambda: moto.instances(name), timeout=60)
        assert len(insts) == 1 and insts[0].get("InstanceLifecycle") != "spot", insts
        wait_for("the node", lambda: cluster.nodes(), timeout=30)
        node = cluster.nodes()[0]
        assert node["metadata"]["labels"]["fitscale.io/capacity-type"] == "on-demand"

    with_world(tmp, moto, name, body)


def test_insufficient_capacity_for_the_cheapest_offering_uses_the_next(tmp, moto):
    name = "e2e-ice"
    proxy = FaultProxy(moto.url)
    proxy.no_capacity_type = "g4dn.xlarge"

    def body(cluster, start):
        run = start()
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("ice"))
        insts = wait_for("an instance in moto", lambda: moto.instances(name), timeout=90)
        assert proxy.faults and set(proxy.faults) == {"g4dn.xlarge"}, proxy.faults
        assert len(insts) == 1 and insts[0]["InstanceType"] != "g4dn.xlarge", insts
        assert insts[0].get("InstanceLifecycle") == "spot", insts
        faults = len(proxy.faults)
        wait_for("the job's pod to succeed", lambda: job_pods_succeeded(cluster, "ice"), timeout=60)
        assert len(proxy.faults) == faults, "the failed offering was asked for again"
        assert "InsufficientInstanceCapacity" in run.text()

    try:
        with_world(tmp, moto, name, body, proxy=proxy)
    finally:
        proxy.stop()


def test_wrong_secret_key_is_a_clear_authentication_error_and_no_action(tmp, moto):
    name = "e2e-auth"

    def body(cluster, start):
        run = start(secret="not-the-secret")
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("denied"))
        wait_for("an authentication error in the log", lambda: "AuthFailure" in run.text(), timeout=30)
        assert "AWS refused the credentials" in run.text(), run.text()[-2000:]
        assert "not-the-secret" not in run.text()
        time.sleep(3)
        assert moto.instances(name) == []

    with_world(tmp, moto, name, body)


def test_kill_9_during_launch_then_restart_no_duplicate_no_orphan(tmp, moto):
    name = "e2e-kill"

    def body(cluster, start):
        first = start()
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("crash", duration="4s"))
        wait_for("the launch", lambda: moto.instances(name), timeout=60)
        first.stop(signal.SIGKILL)  # before the node registers (boot delay 6 s)
        assert not cluster.nodes()
        start()
        wait_for("the job's pod to succeed", lambda: job_pods_succeeded(cluster, "crash"), timeout=90)
        assert len(moto.instances(name)) == 1, "a restarted fitscale launched a duplicate"
        # No orphan: once the job is done the empty node and its instance are removed.
        wait_for("the instance to be terminated", lambda: not moto.instances(name), timeout=60)

    with_world(tmp, moto, name, body, boot_delay=6, empty_after="3s")


def test_asg_mode_scales_a_group_from_zero_to_n_and_back(tmp, moto):
    name = "e2e-asg"
    asg = boto3.client("autoscaling", endpoint_url=moto.url, region_name=REGION,
                       aws_access_key_id=moto.key_id, aws_secret_access_key=moto.secret)
    moto.ec2.create_launch_template(LaunchTemplateName="asg-m5",
                                    LaunchTemplateData={"ImageId": "ami-12c6146b", "InstanceType": "m5.large"})
    asg.create_auto_scaling_group(
        AutoScalingGroupName="asg-m5-spot", LaunchTemplate={"LaunchTemplateName": "asg-m5", "Version": "$Latest"},
        MinSize=0, MaxSize=3, DesiredCapacity=0, VPCZoneIdentifier=moto.subnets["us-east-1a"],
        Tags=[{"Key": k, "Value": v, "PropagateAtLaunch": True} for k, v in
              [("fitscale.io/cluster", name), ("fitscale.io/capacity-type", "spot")]])

    def group():
        return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["asg-m5-spot"])["AutoScalingGroups"][0]

    def body(cluster, start):
        start(empty_after="3s", aws_extra="  mode: asg\n  asgTag: fitscale.io/cluster\n")
        for i in range(3):  # 1.5 CPU each: one per m5.large (2 vCPU)
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": f"w{i}", "annotations": {"fitscale.io/sim-duration": "4s"}},
                   "spec": {"restartPolicy": "Never",
                            "nodeSelector": {"node.kubernetes.io/instance-type": "m5.large",
                                             "topology.kubernetes.io/zone": "us-east-1a"},
                            "containers": [{"name": "main", "image": "busybox",
                                            "resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}}}]}}
            cluster.kubectl("create", "--validate=false", "-f", "-", stdin=json.dumps(pod))
        wait_for("desired capacity 3", lambda: group()["DesiredCapacity"] == 3, timeout=60)
        assert len(group()["Instances"]) == 3
        wait_for("three nodes", lambda: len(cluster.nodes()) == 3, timeout=30)
        wait_for("desired capacity back to 0", lambda: group()["DesiredCapacity"] == 0, timeout=90)
        assert not [m for m in group()["Instances"] if not m["LifecycleState"].startswith("Terminat")]

    try:
        with_world(tmp, moto, name, body)
    finally:
        asg.delete_auto_scaling_group(AutoScalingGroupName="asg-m5-spot", ForceDelete=True)


def test_cluster_registers_moto_instances_as_nodes(tmp, moto):
    """Instances launched straight into moto (boto3, as any tool would) become Nodes."""
    name = "vc-moto"
    cluster = Cluster(tmp, moto, moto.url, name)
    try:
        run = moto.ec2.run_instances(
            ImageId="ami-12c6146b", InstanceType="g4dn.xlarge", MinCount=1, MaxCount=1,
            SubnetId=moto.subnets["us-east-1b"],
            TagSpecifications=[{"ResourceType": "instance",
                                "Tags": [{"Key": "fitscale.io/cluster", "Value": name}]}])
        iid = run["Instances"][0]["InstanceId"]
        # An instance of another cluster is not ours.
        moto.ec2.run_instances(ImageId="ami-12c6146b", InstanceType="m5.large", MinCount=1, MaxCount=1,
                               TagSpecifications=[{"ResourceType": "instance",
                                                   "Tags": [{"Key": "fitscale.io/cluster", "Value": "other"}]}])
        nodes = wait_for("the instance's node", lambda: cluster.nodes(), timeout=30)
        assert len(nodes) == 1, [n["metadata"]["name"] for n in nodes]
        node = nodes[0]
        assert node["spec"]["providerID"] == f"aws:///us-east-1b/{iid}", node["spec"]
        labels = node["metadata"]["labels"]
        assert labels["node.kubernetes.io/instance-type"] == "g4dn.xlarge", labels
        assert labels["topology.kubernetes.io/zone"] == "us-east-1b", labels
        assert labels["fitscale.io/capacity-type"] == "on-demand", labels
        moto.ec2.terminate_instances(InstanceIds=[iid])
        wait_for("the node to go", lambda: not cluster.nodes(), timeout=30)
    finally:
        cluster.stop()


def run_moto_tests(namespace, prefix):
    """Runs every test_* function of a module against one moto server (starting moto costs a few
    seconds; its state is per test world), reports each, prints the fitscale logs of a failure,
    and exits non-zero if any failed. Arguments on the command line pick tests by name."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    moto = Moto(tmp)
    failures = 0
    try:
        tests = [(n, f) for n, f in sorted(namespace.items()) if n.startswith("test_") and callable(f)]
        only = sys.argv[1:]
        for name, fn in tests:
            if only and name not in only:
                continue
            t0 = time.time()
            try:
                fn(tmp, moto)
                print(f"PASS {name} ({time.time() - t0:.1f}s)")
            except Exception as e:  # report every test, then fail
                failures += 1
                print(f"FAIL {name}: {e}")
                for f in sorted(os.listdir(tmp)):
                    if f.endswith(".log") and f != "moto.log":
                        print(f"--- {f}\n" + open(os.path.join(tmp, f)).read()[-3000:])
    finally:
        moto.stop()
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)


def main():
    run_moto_tests(globals(), "fitscale-aws-e2e-")


if __name__ == "__main__":
    main()
