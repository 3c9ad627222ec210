#!/usr/bin/env python3
"""Spot interruption notices, the way Karpenter gets them: EventBridge puts EC2 events on an SQS
queue and `fitscale run --interruption-queue URL` reads it (moto serves both EC2 and SQS, with
signature checking on).

A spot node runs a Job's pod; the test sends an "EC2 Spot Instance Interruption Warning" for its
instance to the queue (boto3, as EventBridge would). fitscale logs the notice, tags the instance
(fitscale.io/interruption-notice, so a restart still knows) and deletes the message; an event for
an instance of no fitscale cluster is deleted too. EC2 reclaims the instance when the warning's
two minutes are up (here: a few seconds, done by the test unless fitscale terminated it first);
the virtual cluster deletes its Node, the Job's pod is recreated and fitscale launches a
replacement on which it runs.

A node that aws-node-termination-handler tainted (aws-node-termination-handler/spot-itn) counts
as one with a notice: an empty one is removed at once.

Reuses the moto, proxy, cluster and run helpers of test_aws_moto.py."""
import json
import os
import sys
import time

import boto3

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aws_moto import run_moto_tests, REGION, Moto, gpu_job, tags_of, wait_for, with_world  # noqa: E402


def ec2_event(detail_type, instance_id, **detail):
    return json.dumps({
        "version": "0", "id": f"evt-{instance_id}-{int(time.time() * 1000)}", "detail-type": detail_type,
        "source": "aws.ec2", "account": "123456789012", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "region": REGION, "resources": [f"arn:aws:ec2:{REGION}:123456789012:instance/{instance_id}"],
        "detail": {"instance-id": instance_id, **detail}})


def job_pods(cluster, job):
    return json.loads(cluster.kubectl("get", "pods", "-l", f"job-name={job}", "-o", "json"))["items"]


def running_pod(cluster, job):
    for p in job_pods(cluster, job):
        if p["status"].get("phase") == "Running" and p["spec"].get("nodeName"):
            return p
    return None


def test_spot_interruption_warning_replaces_the_node(tmp, moto):
    name = "e2e-itn"
    sqs = boto3.client("sqs", endpoint_url=moto.url, region_name=REGION,
                       aws_access_key_id=moto.key_id, aws_secret_access_key=moto.secret)
    queue = sqs.create_queue(QueueName="fitscale-interruptions")["QueueUrl"]

    def queue_empty():
        a = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
        return a["ApproximateNumberOfMessages"] == "0" and a["ApproximateNumberOfMessagesNotVisible"] == "0"

    def body(cluster, start):
        run = start(extra_args=("--interruption-queue", queue))
        wait_for("the queue to be read", lambda: "reading interruption notices" in run.text(), timeout=60)
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("train", duration="600s"))
        first = wait_for("the job's pod to run", lambda: running_pod(cluster, "train"), timeout=60)
        old_node = first["spec"]["nodeName"]
        insts = moto.instances(name)
        assert len(insts) == 1 and insts[0].get("InstanceLifecycle") == "spot", insts
        old_id = insts[0]["InstanceId"]

        # Not ours: read and deleted, nothing else happens.
        sqs.send_message(QueueUrl=queue, MessageBody=ec2_event(
            "EC2 Instance State-change Notification", "i-0123456789abcdef0", state="stopping"))
        sqs.send_message(QueueUrl=queue, MessageBody=ec2_event(
            "EC2 Spot Instance Interruption Warning", old_id, **{"instance-action": "terminate"}))
        # The two messages may be read in one batch or two, and each is logged after it is
        # handled: wait for both lines rather than assume an order.
        wait_for("the notice in the log",
                 lambda: "interruption notice: the node will be replaced" in run.text() and old_id in run.text(),
                 timeout=30)
        wait_for("the foreign notice in the log",
                 lambda: "does not own" in run.text() and "i-0123456789abcdef0" in run.text(), timeout=30)
        wait_for("the messages to be deleted", queue_empty, timeout=30)
        live = {i["InstanceId"]: i for i in moto.instances(name)}
        if old_id in live:
            assert tags_of(live[old_id]).get("fitscale.io/interruption-notice", "").startswith(
                "spot-interruption"), tags_of(live[old_id])

        # EC2 takes the instance back when the warning runs out (two minutes; here a few seconds).
        time.sleep(3)
        if old_id in {i["InstanceId"] for i in moto.instances(name)}:
            moto.ec2.terminate_instances(InstanceIds=[old_id])
        else:
            print("  fitscale drained and terminated the interrupted node itself")

        def on_new_node():
            p = running_pod(cluster, "train")
            return p if p and p["spec"]["nodeName"] != old_node else None

        moved = wait_for("the job's pod running on a new node", on_new_node, timeout=60)
        new_ids = [i["InstanceId"] for i in moto.instances(name)]
        assert old_id not in new_ids and len(new_ids) == 1, new_ids
        assert moved["spec"]["nodeName"] == new_ids[0], (moved["spec"]["nodeName"], new_ids)
        assert old_node not in [n["metadata"]["name"] for n in cluster.nodes()]

    with_world(tmp, moto, name, body)


def test_node_tainted_by_aws_node_termination_handler_is_removed(tmp, moto):
    """The taint aws-node-termination-handler puts on a node it is about to lose counts as an
    interruption notice: an empty node (kept 600 s otherwise) is drained and its instance
    terminated at once."""
    name = "e2e-nth"

    def body(cluster, start):
        run = start()
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("short", duration="1s"))
        wait_for("the job's pod to succeed", lambda: any(
            p["status"].get("phase") == "Succeeded" for p in job_pods(cluster, "short")), timeout=60)
        node = cluster.nodes()[0]["metadata"]["name"]
        iid = moto.instances(name)[0]["InstanceId"]
        time.sleep(2)
        assert [i["InstanceId"] for i in moto.instances(name)] == [iid]  # emptyAfter is 600s
        cluster.kubectl("taint", "nodes", node, "aws-node-termination-handler/spot-itn=true:NoSchedule")
        wait_for("the instance to be terminated", lambda: not moto.instances(name), timeout=30)
        assert "aws-node-termination-handler" in run.text() and iid in run.text(), run.text()[-2000:]
        # The removal is logged once TerminateInstances has returned, so moto may see the
        # instance gone a moment before the line is written.
        wait_for("the removal in the log", lambda: "spot interruption notice" in run.text(), timeout=10)

    with_world(tmp, moto, name, body)


def main():
    run_moto_tests(globals(), "fitscale-aws-itn-")


if __name__ == "__main__":
    main()
