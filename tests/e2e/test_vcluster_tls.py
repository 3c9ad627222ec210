#!/usr/bin/env python3
"""End to end: `fitscale cluster` over HTTPS with a client CA, the way a real API server runs.
The test makes its own CA, a server certificate for 127.0.0.1 and a client certificate with the
openssl CLI. kubectl and `fitscale run --provider sim` then work with CA verification, either
with the client certificate or with the bearer token the cluster writes into its kubeconfig
(informers, watches, writes and the sim-cloud endpoints, all over TLS); a kubeconfig trusting
another CA, or one with no credentials, is refused, and `fitscale run` says why in one line.
Bad TLS flags stop `fitscale cluster` with exit 2 and one line."""
import base64
import functools
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import (BINARY, DEFAULT_RUN_CONFIG, first_lines, gpu_job, kubectl,  # noqa: E402
                         kubectl_json, run_cli, scratch_dir, sim_run_argv, spawn, stop, tail,
                         write_file)

wait_for = functools.partial(e2e_support.wait_for, timeout=45)


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=30)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.crt", "-days", "2", "-subj", f"/CN={name}",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def make_cert(d, name, ca, subject, extensions):
    """A key and a certificate signed by `ca`, with the given X.509 v3 extensions."""
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=d)
    write_file(d, f"{name}.ext", extensions)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext", cwd=d)


def make_pki(tmp):
    d = os.path.join(tmp, "pki")
    os.mkdir(d)
    make_ca(d, "ca")
    make_ca(d, "other-ca")
    make_cert(d, "server", "ca", "/CN=fitscale-cluster",
              "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    make_cert(d, "client", "ca", "/O=system:masters/CN=fitscale-e2e",
              "extendedKeyUsage=clientAuth\n")
    return lambda name: os.path.join(d, name)


def kubeconfig(tmp, name, server, ca_file, user):
    """A kubeconfig for `server` trusting only `ca_file` (embedded), with `user`'s fields."""
    with open(ca_file, "rb") as f:
        ca_data = base64.b64encode(f.read()).decode()
    cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
           "clusters": [{"name": "c", "cluster": {"server": server,
                                                   "certificate-authority-data": ca_data}}],
           "users": [{"name": "u", "user": user}],
           "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}
    return write_file(tmp, name, json.dumps(cfg))  # JSON is YAML


def cluster_fails(*args):
    """`fitscale cluster ARGS` that must stop at once: (exit code, stderr lines)."""
    r = run_cli("cluster", *args, timeout=30)
    return r.returncode, r.stderr.strip().splitlines()


def check_flag_errors(tmp, pki):
    out = os.path.join(tmp, "unused.kubeconfig")
    code, lines = cluster_fails("--kubeconfig-out", out, "--tls-cert-file", pki("server.crt"))
    assert code == 2 and len(lines) == 1, (code, lines)
    assert "--tls-private-key-file" in lines[0], lines
    missing = os.path.join(tmp, "no-such.key")
    code, lines = cluster_fails("--kubeconfig-out", out, "--tls-cert-file", pki("server.crt"),
                                "--tls-private-key-file", missing)
    assert code == 2 and len(lines) == 1 and missing in lines[0], (code, lines)
    # A key that is not a key, and a certificate that is a key: both named.
    code, lines = cluster_fails("--kubeconfig-out", out, "--tls-cert-file", pki("server.crt"),
                                "--tls-private-key-file", pki("server.crt"))
    assert code == 2 and len(lines) == 1 and pki("server.crt") in lines[0], (code, lines)
    code, lines = cluster_fails("--kubeconfig-out", out, "--tls-cert-file", pki("server.key"),
                                "--tls-private-key-file", pki("server.key"))
    assert code == 2 and len(lines) == 1 and pki("server.key") in lines[0], (code, lines)
    code, lines = cluster_fails("--kubeconfig-out", out, "--tls-cert-file", pki("server.crt"),
                                "--tls-private-key-file", pki("client.key"))
    assert code == 2 and len(lines) == 1 and pki("client.key") in lines[0], (code, lines)
    assert "does not belong to the certificate" in lines[0], lines
    # A kubeconfig CA that did not sign the serving certificate would make a useless kubeconfig.
    code, lines = cluster_fails("--kubeconfig-out", out, "--tls-cert-file", pki("server.crt"),
                                "--tls-private-key-file", pki("server.key"),
                                "--kubeconfig-ca-file", pki("other-ca.crt"))
    assert code == 2 and len(lines) == 1 and pki("other-ca.crt") in lines[0], (code, lines)
    assert not os.path.exists(out), "a kubeconfig was written although the cluster did not start"
    print("flag errors: ok;", lines[0])


def start_cluster(tmp, pki):
    kcfg = os.path.join(tmp, "kubeconfig")
    log_path = os.path.join(tmp, "cluster.log")
    log = open(log_path, "w")
    proc = spawn([BINARY, "cluster", "--listen", "127.0.0.1:0", "--kubeconfig-out", kcfg,
                  "--boot-delay", "1", "--metrics-address", "off",
                  "--tls-cert-file", pki("server.crt"), "--tls-private-key-file", pki("server.key"),
                  "--client-ca-file", pki("ca.crt"), "--kubeconfig-ca-file", pki("ca.crt")],
                 stdout=subprocess.PIPE, stderr=log)
    lines = first_lines(proc, 2)
    assert lines and lines[0].startswith("listening on https://127.0.0.1:"), \
        f"{lines!r}\n{tail(log_path)}"
    return proc, lines[0].split()[2], kcfg, log_path


def start_run(tmp, name, kcfg, config):
    log = open(os.path.join(tmp, f"run-{name}.log"), "w")
    proc = spawn(sim_run_argv(kcfg, name, "--config", config, "--metrics-address", "off"),
                 stdout=log, stderr=subprocess.STDOUT)
    return proc, log.name


def job_succeeds(tmp, admin, user_kcfg, run_kcfg, name, ns, gpus, config):
    """A GPU Job created with kubectl over `user_kcfg`; `fitscale run` over `run_kcfg` launches a
    node for it and its pod succeeds. Returns the pod's node; leaves the run stopped."""
    kubectl(user_kcfg, "create", "--validate=false", "-f", "-",
            stdin=json.dumps(gpu_job(name, ns, gpus=gpus, duration="1s")))
    proc, log = start_run(tmp, name, run_kcfg, config)
    try:
        pods = wait_for(f"{name}'s pod to succeed", lambda: [
            p for p in kubectl_json(admin, "get", "pods", "-n", ns, "-l", f"job-name={name}")["items"]
            if p["status"].get("phase") == "Succeeded"], proc=proc, log=log)
    finally:
        rc = stop(proc)
    assert rc == 0, f"fitscale run exited {rc}:\n{tail(log)}"
    return pods[0]["spec"]["nodeName"]


def run_fails(kcfg, config):
    """`fitscale run` that must stop at once: (exit code, stderr lines)."""
    r = subprocess.run(sim_run_argv(kcfg, "refused", "--config", config, "--metrics-address", "off"),
                       capture_output=True, text=True, timeout=40)
    return r.returncode, r.stderr.strip().splitlines()


def check(tmp, pki, server, token_kcfg):
    config = write_file(tmp, "config.yaml", DEFAULT_RUN_CONFIG)
    # The written kubeconfig: https, the serving CA embedded, the bearer token.
    written = open(token_kcfg).read()
    with open(pki("ca.crt"), "rb") as f:
        assert base64.b64encode(f.read()).decode() in written, written
    cert_kcfg = kubeconfig(tmp, "cert.kubeconfig", server, pki("ca.crt"),
                           {"client-certificate": pki("client.crt"), "client-key": pki("client.key")})
    other_ca_kcfg = kubeconfig(tmp, "other-ca.kubeconfig", server, pki("other-ca.crt"),
                               {"client-certificate": pki("client.crt"), "client-key": pki("client.key")})
    anonymous_kcfg = kubeconfig(tmp, "anonymous.kubeconfig", server, pki("ca.crt"), {})
    wrong_token_kcfg = kubeconfig(tmp, "wrong-token.kubeconfig", server, pki("ca.crt"),
                                  {"token": "not-the-token"})

    # kubectl with CA verification and each way of authenticating.
    assert kubectl_json(cert_kcfg, "get", "nodes")["items"] == []
    assert kubectl_json(token_kcfg, "get", "nodes")["items"] == []
    kubectl(cert_kcfg, "create", "namespace", "tls")
    print("kubectl over https: ok")

    # fitscale run: informers, watches, the Lease, events and the sim-cloud launch over TLS.
    first = job_succeeds(tmp, cert_kcfg, cert_kcfg, cert_kcfg, "with-cert", "tls", 1, config)
    print("fitscale run with a client certificate: ok;", first)
    # 8 GPUs do not fit the first job's node (still there: its run stopped), so this run must
    # launch one itself.
    second = job_succeeds(tmp, cert_kcfg, token_kcfg, token_kcfg, "with-token", "tls", 8, config)
    assert second != first, second
    print("fitscale run with a bearer token: ok;", second)

    # A CA that did not sign the server's certificate.
    r = kubectl(other_ca_kcfg, "get", "nodes", check=False)
    assert r.returncode != 0 and "certificate" in r.stderr, (r.returncode, r.stderr)
    code, lines = run_fails(other_ca_kcfg, config)
    assert code == 2 and len(lines) == 1, (code, lines)
    assert other_ca_kcfg in lines[0] and "certificate" in lines[0], lines
    print("another CA: refused;", lines[0])

    # Neither a client certificate nor a token: the handshake succeeds (a certificate is asked
    # for, not required) and every request gets 401. kubectl, having no credentials, then asks
    # for a user name; with no terminal that ends in EOF.
    r = kubectl(anonymous_kcfg, "get", "nodes", check=False)
    assert r.returncode != 0 and "Please enter Username" in r.stdout + r.stderr, \
        (r.returncode, r.stdout, r.stderr)
    code, lines = run_fails(anonymous_kcfg, config)
    assert code == 2 and len(lines) == 1, (code, lines)
    assert anonymous_kcfg in lines[0] and "401" in lines[0] and "no credentials" in lines[0], lines
    r = kubectl(wrong_token_kcfg, "get", "nodes", check=False)
    assert r.returncode != 0 and "Unauthorized" in r.stderr, (r.returncode, r.stderr)
    code, lines = run_fails(wrong_token_kcfg, config)
    assert code == 2 and len(lines) == 1, (code, lines)
    assert "401" in lines[0] and "kubeconfig's token" in lines[0] and "not-the-token" not in lines[0], lines
    print("no credentials: refused;", lines[0])


def main():
    with scratch_dir("fitscale-tls-") as tmp:
        pki = make_pki(tmp)
        check_flag_errors(tmp, pki)
        proc, server, token_kcfg, log_path = start_cluster(tmp, pki)
        try:
            check(tmp, pki, server, token_kcfg)
        except BaseException:
            sys.stderr.write("--- fitscale cluster log ---\n" + tail(log_path, 5000))
            raise
        finally:
            rc = stop(proc, grace=10, must_exit=True)
        assert rc == 0, f"fitscale cluster exited {rc} after SIGTERM"
    print("ok")


if __name__ == "__main__":
    main()
