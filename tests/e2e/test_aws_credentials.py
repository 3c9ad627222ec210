#!/usr/bin/env python3
"""`fitscale run --provider aws` with no static key anywhere gets its AWS credentials each way an
EKS (or EC2) install offers them, and refreshes them before they expire:

- web identity (IRSA): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN -> an unsigned STS
  AssumeRoleWithWebIdentity. moto's STS issues the role's temporary keys; since moto (with
  signature checking on) cannot take an unsigned call, a small broker in the test plays STS's
  own part: it checks the web identity token (a wrong one is InvalidIdentityToken, as STS
  answers) and passes the call on to moto signed with a broker user's key. moto then checks
  every EC2 call fitscale signs with the role's keys and session token.
- EKS Pod Identity: AWS_CONTAINER_CREDENTIALS_FULL_URI + AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE
  -> GET with the token as Authorization, from a loopback server that follows the container
  credentials contract (JSON AccessKeyId, SecretAccessKey, Token, Expiration; a wrong token is
  refused) and hands out role keys from moto's STS.
- IMDSv2: PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds, then the role and its
  keys with X-aws-ec2-metadata-token, from a loopback server that refuses any request without
  the token.
- none of them: one line naming every source tried, exit 2.

Each server says its keys expire 302 s from now, so fitscale (which refreshes 5 minutes before
Expiration) fetches again within seconds; the launch that follows proves the keys work.
Reuses the moto, cluster and run helpers of test_aws_moto.py."""
import http.server
import json
import os
import re
import sys
import threading
import time
import urllib.parse
import urllib.request

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aws_moto import REGION, gpu_job, run_moto_tests, wait_for, with_world  # noqa: E402

ACCOUNT = "123456789012"  # moto's
ROLE = "fitscale-autoscaler"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{ROLE}"
JWT = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImUyZSJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6Zml0c2NhbGUifQ.c2ln"


def soon():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 302))


def moto_auth(moto, unchecked):
    req = urllib.request.Request(moto.url + "/moto-api/reset-auth", data=str(unchecked).encode(),
                                 method="POST", headers={"Content-Type": "text/plain"})
    urllib.request.urlopen(req, timeout=10).read()


def identities(moto):
    """A role fitscale may assume (EC2 and Auto Scaling allowed) and a broker user that may
    assume it for the test's STS stand-in; made with signature checking off for a moment."""
    if getattr(moto, "broker", None):
        return moto.broker
    moto_auth(moto, 10**9)
    try:
        iam = boto3.client("iam", endpoint_url=moto.url, region_name=REGION,
                           aws_access_key_id="AKIDSETUP", aws_secret_access_key="setup")
        iam.create_user(UserName="sts-broker")
        iam.put_user_policy(UserName="sts-broker", PolicyName="sts", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "sts:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="sts-broker")["AccessKey"]
        iam.create_role(RoleName=ROLE, AssumeRolePolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/sts-broker"},
                "Action": ["sts:AssumeRole", "sts:AssumeRoleWithWebIdentity"]}]}))
        iam.put_role_policy(RoleName=ROLE, PolicyName="autoscaler", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": ["ec2:*", "autoscaling:*"], "Resource": "*"}]}))
    finally:
        moto_auth(moto, 0)
    moto.broker = (key["AccessKeyId"], key["SecretAccessKey"])
    return moto.broker


def role_keys(moto, session):
    """Temporary keys of ROLE from moto's STS (what EKS's agents get for a pod)."""
    key, secret = identities(moto)
    sts = boto3.client("sts", endpoint_url=moto.url, region_name=REGION,
                       aws_access_key_id=key, aws_secret_access_key=secret)
    return sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName=session)["Credentials"]


class Server:
    """A loopback HTTP server whose handler is `handle(method, path, headers, body)` ->
    (status, content_type, body)."""

    def __init__(self, handle):
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                status, ctype, data = handle(self.command, self.path, self.headers, body)
                data = data.encode() if isinstance(data, str) else data
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = answer

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class StsStandIn(Server):
    """STS's side of AssumeRoleWithWebIdentity: the token is checked here (STS verifies the
    JWT with the cluster's OIDC issuer), the keys come from moto's STS."""

    def __init__(self, moto):
        self.calls, self.signed, self.refused = 0, 0, 0
        key, secret = identities(moto)

        def handle(method, path, headers, body):
            form = urllib.parse.parse_qs(body.decode())
            self.calls += 1
            if headers.get("Authorization"):
                self.signed += 1
            if form.get("Action") != ["AssumeRoleWithWebIdentity"] or form.get("RoleArn") != [ROLE_ARN]:
                return 400, "text/xml", "<ErrorResponse><Error><Code>ValidationError</Code></Error></ErrorResponse>"
            if form.get("WebIdentityToken") != [JWT]:
                self.refused += 1
                return 400, "text/xml", ("<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken"
                                         "</Code><Message>Couldn't retrieve verification key from your identity "
                                         "provider</Message></Error></ErrorResponse>")
            req = AWSRequest(method="POST", url=moto.url + "/", data=body,
                             headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
            SigV4Auth(Credentials(key, secret), "sts", REGION).add_auth(req)
            p = req.prepare()
            with urllib.request.urlopen(urllib.request.Request(p.url, data=body, headers=dict(p.headers),
                                                               method="POST"), timeout=30) as r:
                xml = r.read().decode()
            return 200, "text/xml", re.sub(r"<Expiration>[^<]*</Expiration>",
                                           f"<Expiration>{soon()}</Expiration>", xml)

        super().__init__(handle)


def keys_json(c):
    return json.dumps({"Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": c["AccessKeyId"],
                       "SecretAccessKey": c["SecretAccessKey"], "Token": c["SessionToken"],
                       "Expiration": soon()})


class PodIdentityAgent(Server):
    """The container credentials contract (EKS Pod Identity agent): GET with Authorization = the
    pod's token, JSON keys back; anything else refused."""

    def __init__(self, moto, token):
        self.calls, self.refused = 0, 0

        def handle(method, path, headers, body):
            self.calls += 1
            if method != "GET" or path != "/v1/credentials":
                return 404, "application/json", '{"code":"NotFound","message":"no such path"}'
            if headers.get("Authorization") != token:
                self.refused += 1
                return 401, "application/json", ('{"code":"AccessDeniedException",'
                                                  '"message":"Service account token cannot be empty"}')
            return 200, "application/json", keys_json(role_keys(moto, "pod-identity"))

        super().__init__(handle)


class Imds(Server):
    """IMDSv2 with HttpTokens=required: a session token first, every read needs it."""

    def __init__(self, moto):
        self.tokens, self.refused, self.reads = set(), 0, 0
        base = "/latest/meta-data/iam/security-credentials/"

        def handle(method, path, headers, body):
            if method == "PUT" and path == "/latest/api/token":
                ttl = headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
                if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
                    return 400, "text/plain", "missing or invalid TTL"
                token = f"imds-{len(self.tokens)}-{time.time()}"
                self.tokens.add(token)
                return 200, "text/plain", token
            if headers.get("X-aws-ec2-metadata-token") not in self.tokens:
                self.refused += 1  # an IMDSv1 read, or a made-up token
                return 401, "text/plain", "Unauthorized"
            self.reads += 1
            if method == "GET" and path == base:
                return 200, "text/plain", "fitscale-node-role"
            if method == "GET" and path == base + "fitscale-node-role":
                return 200, "text/plain", keys_json(role_keys(moto, "instance-profile"))
            return 404, "text/plain", "Not Found"

        super().__init__(handle)


def env_without_keys(tmp, **extra):
    """The process environment with every AWS_* variable removed and a HOME without ~/.aws:
    no static key anywhere."""
    home = os.path.join(tmp, "empty-home")
    os.makedirs(home, exist_ok=True)
    e = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    e["HOME"] = home
    # Off EC2: nothing listens here, so the chain's last step fails fast.
    e["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = "http://127.0.0.1:9"
    e.update(extra)
    return e


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def launches_with(tmp, moto, name, env, fetches, source):
    """fitscale run with `env` launches a spot instance for a GPU Job in moto and fetches its keys
    again (fetches() >= 2) before they expire, still signing valid calls after."""

    def body(cluster, start):
        run = start(env=env)
        wait_for("the credentials source in the start log", lambda: source in run.text()
                 or run.proc.poll() is not None, timeout=30)
        assert source in run.text(), run.text()[-2000:]
        wait_for("a refresh before the keys expire", lambda: fetches() >= 2, timeout=30)
        cluster.kubectl("create", "--validate=false", "-f", "-", stdin=gpu_job("train-" + name))
        insts = wait_for("an instance in moto", lambda: moto.instances(name), timeout=60)
        assert len(insts) == 1 and insts[0]["InstanceType"] == "g4dn.xlarge", insts
        for bad in ("AuthFailure", "ExpiredToken", "InvalidClientTokenId", "SignatureDoesNotMatch"):
            assert bad not in run.text(), run.text()[-2000:]
        assert run.proc.poll() is None, run.text()[-2000:]

    with_world(tmp, moto, name, body)


def exits_with(tmp, moto, name, env, *needles):
    """fitscale run with `env` stops at start: exit 2, one error line containing `needles`."""

    def body(cluster, start):
        run = start(env=env)
        rc = run.proc.wait(timeout=60)
        text = run.text()
        assert rc == 2, (rc, text[-2000:])
        errors = [line for line in text.splitlines() if "error" in line.lower()]
        assert errors, text[-2000:]
        for n in needles:
            assert n in errors[-1], (n, errors[-1])
        return errors[-1]

    out = []
    with_world(tmp, moto, name, lambda c, s: out.append(body(c, s)))
    return out[0]


def test_irsa_web_identity_through_sts_and_refreshed(tmp, moto):
    sts = StsStandIn(moto)
    try:
        token = write(tmp, "irsa-token", JWT)
        env = env_without_keys(tmp, AWS_WEB_IDENTITY_TOKEN_FILE=token, AWS_ROLE_ARN=ROLE_ARN,
                               AWS_ROLE_SESSION_NAME="fitscale-e2e", AWS_ENDPOINT_URL_STS=sts.url)
        launches_with(tmp, moto, "e2e-irsa", env, lambda: sts.calls,
                      f"web identity ({ROLE_ARN})")
        assert sts.signed == 0, "AssumeRoleWithWebIdentity must be sent unsigned"
        write(tmp, "irsa-token", "not-the-token")
        line = exits_with(tmp, moto, "e2e-irsa-bad", env, "InvalidIdentityToken", ROLE_ARN)
        assert "not-the-token" not in line, line
        assert sts.refused >= 1
    finally:
        sts.stop()


def test_eks_pod_identity_container_credentials_and_refreshed(tmp, moto):
    agent = PodIdentityAgent(moto, "pod-identity-token-1")
    try:
        token = write(tmp, "eks-pod-identity-token", "pod-identity-token-1")
        url = agent.url + "/v1/credentials"
        env = env_without_keys(tmp, AWS_CONTAINER_CREDENTIALS_FULL_URI=url,
                               AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE=token)
        launches_with(tmp, moto, "e2e-podid", env, lambda: agent.calls - agent.refused,
                      f"container credentials ({url})")
        assert agent.refused == 0
        write(tmp, "eks-pod-identity-token", "stale-token")
        exits_with(tmp, moto, "e2e-podid-bad", env, "HTTP 401", url)
        assert agent.refused >= 1
    finally:
        agent.stop()


def test_imdsv2_instance_profile_and_refreshed(tmp, moto):
    imds = Imds(moto)
    try:
        env = env_without_keys(tmp, AWS_EC2_METADATA_SERVICE_ENDPOINT=imds.url)
        launches_with(tmp, moto, "e2e-imds", env, lambda: len(imds.tokens),
                      f"instance metadata ({imds.url})")
        assert imds.refused == 0, "a metadata read without the IMDSv2 token"
    finally:
        imds.stop()


def test_no_source_yields_keys_one_line_naming_each_tried(tmp, moto):
    exits_with(tmp, moto, "e2e-nokeys", env_without_keys(tmp),
               "no AWS credentials; tried", "environment (AWS_ACCESS_KEY_ID not set)",
               "web identity (AWS_WEB_IDENTITY_TOKEN_FILE not set)", "profile 'default' in",
               "container credentials (", "instance metadata http://127.0.0.1:9 (NoAnswer")


def main():
    run_moto_tests(globals(), "fitscale-aws-credentials-e2e-")


if __name__ == "__main__":
    main()
