#!/usr/bin/env python3
"""`fitscale run --provider aws` plans on the catalog the EC2 API reports (moto), not on the shipped
table alone:

- a type the API offers only in us-east-1b (p4de.24xlarge; the table has no zones) is launched in
  us-east-1b although us-east-1a is configured first;
- spot prices come from DescribeSpotPriceHistory (answered by the test's proxy: moto's own answer
  is $0.00001 for everything): g4dn.xlarge is launched where its spot price is lower, and a
  changed price is picked up by the periodic refresh;
- a type the API knows but the shipped table cannot price (mac1.metal) is never launched, and the
  start log says why; the restriction to aws.catalog.instanceTypes reaches DescribeInstanceTypes.

Reuses the moto, proxy, cluster and run helpers of test_aws_moto.py."""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aws_moto import run_moto_tests, FaultProxy, Moto, gpu_job, wait_for, with_world  # noqa: E402

TYPES = ("g4dn.xlarge", "p4de.*", "mac1.metal", "p3.2xlarge")


def pod(name, instance_type, gpus=0):
    requests = {"cpu": "1", "memory": "1Gi"}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
    return json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "annotations": {"fitscale.io/sim-duration": "600s"}},
        "spec": {"restartPolicy": "Never",
                 "nodeSelector": {"node.kubernetes.io/instance-type": instance_type},
                 "containers": [{"name": "main", "image": "busybox",
                                 "resources": {"requests": requests,
                                               **({"limits": {"nvidia.com/gpu": str(gpus)}} if gpus else {})}}]}})


def test_run_plans_on_the_api_catalog(tmp, moto):
    name = "e2e-catalog"
    proxy = FaultProxy(moto.url)
    # Cheaper than on-demand ($0.526) in 1b only; the table's estimate is $0.1578 in every zone.
    proxy.spot_prices = {("g4dn.xlarge", "us-east-1a"): 0.90, ("g4dn.xlarge", "us-east-1b"): 0.30}

    def by_type():
        return {i["InstanceType"]: i for i in moto.instances(name)}

    def body(cluster, start):
        run = start(instance_types=TYPES, spot_refresh="2s")
        wait_for("the catalog", lambda: "catalog from the EC2 API" in run.text(), timeout=60)
        text = run.text()
        assert "mac1.metal: no known on-demand price: never launched" in text, text[-3000:]
        assert "p3.2xlarge: not offered by the EC2 API" in text, text[-3000:]
        asked = [f for a, f in proxy.actions if a == "DescribeInstanceTypes"]
        assert asked and sorted(v[0] for k, v in asked[0].items() if k.startswith("Filter.1.Value.")) == \
            sorted(TYPES), asked

        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("cheap", duration="600s"))
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=pod("big", "p4de.24xlarge", gpus=8))
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=pod("mac", "mac1.metal"))
        insts = wait_for("two instances", lambda: len(by_type()) == 2 and by_type(), timeout=60)
        g4 = insts["g4dn.xlarge"]
        assert g4.get("InstanceLifecycle") == "spot", g4
        assert g4["Placement"]["AvailabilityZone"] == "us-east-1b", g4["Placement"]
        p4 = insts["p4de.24xlarge"]
        assert p4.get("InstanceLifecycle") != "spot", p4  # the API reported no spot price for it
        assert p4["Placement"]["AvailabilityZone"] == "us-east-1b", p4["Placement"]

        # The refresh picks up a new price (and nothing more is launched for the mac pod).
        proxy.spot_prices[("g4dn.xlarge", "us-east-1a")] = 0.20
        wait_for("a refresh that changed a price",
                 lambda: re.search(r"spot prices refreshed.*changed[=\":]+1", run.text()), timeout=30)
        time.sleep(2)
        launched = sorted(i["InstanceType"] for i in moto.instances(name))
        assert launched == ["g4dn.xlarge", "p4de.24xlarge"], launched  # never mac1.metal

    try:
        with_world(tmp, moto, name, body, proxy=proxy)
    finally:
        proxy.stop()


def test_a_zone_the_region_does_not_have_stops_the_start(tmp, moto):
    """`zones: [us-east-1a, us-east-1z]` passes `fitscale validate` (us-east-1z is spelled like a
    us-east-1 zone) but not the region's DescribeAvailabilityZones: exit 2 naming the key."""

    def body(cluster, start):
        run = start(zones=("us-east-1a", "us-east-1z"))
        assert run.proc.wait(timeout=60) == 2, run.text()[-2000:]
        assert 'zones[1]: "us-east-1z" is not an availability zone of us-east-1' in run.text(), \
            run.text()[-2000:]
        assert "us-east-1a" in run.text().splitlines()[-1]  # names the zones that exist
        assert moto.instances("e2e-zone-typo") == []

    with_world(tmp, moto, "e2e-zone-typo", body)


def main():
    run_moto_tests(globals(), "fitscale-aws-catalog-")


if __name__ == "__main__":
    main()
