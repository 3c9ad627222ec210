"""Shared helpers for the end-to-end tests (tests/e2e/test_*.py).

Not named test_*.py on purpose: tests/CMakeLists.txt globs test_*.py into CTest tests, and this
file is not one. Each test runs alone (`python3 tests/e2e/test_X.py`) and first puts its own
directory on sys.path, so `import e2e_support` finds this file however the test is started
(`python3 -P`/`-I` leave the script's directory off sys.path).

What lives here is what several tests did the same way: polling with a deadline, HTTP that
treats an error status as an answer, starting `fitscale cluster` / `fitscale run` and reading
what they print, stopping processes, kubectl with a kubeconfig, scratch directories. Every
process started through spawn() is stopped when the test ends, however it ends.
"""
import atexit
import base64
import contextlib
import ctypes
import json
import os
import queue
import re
import shutil
import signal
import socket
import ssl
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

# The binary under test. CTest sets FITSCALE_BINARY; by hand, `fitscale` on PATH is used.
BINARY = os.environ.get("FITSCALE_BINARY", "fitscale")
# The checkout (examples/, deploy/, data/). CTest sets it; by hand it is two folders up.
SOURCE_DIR = os.environ.get("FITSCALE_SOURCE_DIR",
                            os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")))

# Deadlines are generous because the tests share a 2-core machine with builds and other test
# runs: a step that takes 2 s on an idle machine can take 20 s under that load. A deadline is a
# guard against hanging forever, not a performance assertion; a test that asserts a duration
# (leader takeover) passes its own timeout.
DEFAULT_TIMEOUT_S = 60
POLL_INTERVAL_S = 0.25


# --- failing ----------------------------------------------------------------------------------

def fail(msg):
    """Ends the test with one readable line. sys.exit runs `finally` blocks and atexit, so the
    processes the test started are still stopped."""
    print("FAIL:", msg)
    sys.exit(1)


class Checks:
    """Collects failed checks so one run reports every broken behaviour, not just the first."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        if not cond:
            self.failures.append(what)

    def exit_if_failed(self):
        if self.failures:
            print("FAIL\n  " + "\n  ".join(self.failures))
            sys.exit(1)


def tail(path, chars=3000):
    """The end of a log file, for failure messages; "" when it cannot be read."""
    try:
        with open(path, errors="replace") as f:
            return f.read()[-chars:]
    except OSError:
        return ""


# --- waiting ----------------------------------------------------------------------------------

def wait_for(what, fn, timeout=DEFAULT_TIMEOUT_S, interval=POLL_INTERVAL_S, proc=None, log=None):
    """Calls fn until it returns something truthy and returns that; raises AssertionError naming
    `what` and fn's last answer when `timeout` seconds pass first.

    Everything the tests watch (nodes registering, pods finishing, log lines) is eventually
    consistent, so they poll instead of sleeping a guessed time. With `proc`, a process that
    exits while we wait fails at once instead of after the whole deadline; `log` (a path) adds
    that log's tail to the error, which is usually where the reason is."""
    deadline = time.time() + timeout
    last = None
    while True:
        last = fn()
        if last:
            return last
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"waiting for {what}: the process exited {proc.returncode}"
                                 + (f"; log tail:\n{tail(log)}" if log else ""))
        if time.time() >= deadline:
            break
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})"
                         + (f"; log tail:\n{tail(log)}" if log else ""))


# --- HTTP -------------------------------------------------------------------------------------

def _request(method, url, data=None, content_type=None, timeout=30, context=None):
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None and content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
            return r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        # A 4xx/5xx is an answer the tests assert on, not an exception.
        return e.code, e.read(), ""


def http_get(url, timeout=10, context=None):
    """GET -> (status, body text, Content-Type). Error statuses are returned, not raised.
    `context`: an ssl.SSLContext for https (Cluster.ssl_context trusts the virtual cluster)."""
    status, body, ctype = _request("GET", url, timeout=timeout, context=context)
    return status, body.decode(), ctype


def http_json(method, url, body=None, content_type="application/json", timeout=30, context=None):
    """A JSON request -> (status, parsed body; {} when empty). Error statuses are returned."""
    data = None if body is None else json.dumps(body).encode()
    status, raw, _ = _request(method, url, data, content_type, timeout, context)
    return status, json.loads(raw or b"{}")


def free_port():
    """A loopback port free right now, for servers that cannot bind port 0 and say which port
    they got (fitscale itself can: prefer `--listen 127.0.0.1:0` and read what it prints)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- processes --------------------------------------------------------------------------------

_running = []
_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # If the test itself is SIGKILLed (CTest's timeout), atexit never runs; the kernel then
    # kills the child instead of leaving it bound to a port for the next test run.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def spawn(argv, **popen_kwargs):
    """subprocess.Popen that is sure to end: stopped at exit if the test forgot or failed, and
    killed by the kernel if the test is killed. Call it from the main thread (the death signal
    follows the thread that forked)."""
    popen_kwargs.setdefault("text", True)
    proc = subprocess.Popen(argv, preexec_fn=_die_with_parent, **popen_kwargs)
    _running.append(proc)
    return proc


def stop(proc, grace=15, must_exit=False):
    """SIGTERM, then SIGKILL after `grace` seconds; returns the exit code. SIGTERM first because
    a clean stop is behaviour under test (fitscale run releases its lease, the cluster says so).
    With must_exit, needing SIGKILL is an AssertionError."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            if must_exit:
                raise AssertionError(f"{os.path.basename(str(proc.args[0]))} did not stop within "
                                     f"{grace} s of SIGTERM")
    return proc.returncode


@atexit.register
def _stop_all():
    for proc in reversed(_running):
        stop(proc, grace=5)


def first_lines(proc, n, timeout=DEFAULT_TIMEOUT_S):
    """The first n lines proc prints on stdout (stdout=PIPE), without their newline; fewer if it
    exits first. Read on a helper thread so a process that hangs before printing fails the test
    after `timeout` instead of blocking it until CTest's limit."""
    lines = queue.Queue()

    def read():
        for _ in range(n):
            line = proc.stdout.readline()
            if not line:
                break
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    out = []
    deadline = time.time() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.time()))
        except queue.Empty:
            raise AssertionError(f"{proc.args[:2]} printed {out} and then nothing for {timeout} s")
        if line is None:
            return out
        out.append(line)


def run_cli(*args, timeout=60, env=None):
    """`fitscale ARGS` to completion, output captured as text."""
    return subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=timeout, env=env)


# --- files ------------------------------------------------------------------------------------

@contextlib.contextmanager
def scratch_dir(prefix):
    """A temporary directory removed afterwards, pass or fail. Tests print the log tails they
    need before it goes, so nothing piles up in /tmp across runs."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def write_file(directory, name, text):
    """Writes text to directory/name and returns the path."""
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


@contextlib.contextmanager
def sqlite_read_only(path, timeout=5):
    """An SQLite connection that cannot write (mode=ro), closed when the block ends. The cost
    tests read the ledger `fitscale simulate --ledger` wrote, sometimes while it is still
    writing; read-only makes sure the test never changes or creates the file it checks."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout)
    try:
        yield db
    finally:
        db.close()


# --- kubectl ----------------------------------------------------------------------------------

def kubectl(kubeconfig, *args, stdin=None, check=True, timeout=60):
    """kubectl against one cluster; with check, a failure is an AssertionError with its stderr."""
    r = subprocess.run(["kubectl", "--kubeconfig", kubeconfig, *args], input=stdin,
                       capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"kubectl {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


def kubectl_json(kubeconfig, *args):
    """`kubectl ARGS -o json`, parsed."""
    return json.loads(kubectl(kubeconfig, *args, "-o", "json").stdout)


# --- fitscale cluster and fitscale run --------------------------------------------------------

def kubeconfig_ssl_context(path):
    """An ssl.SSLContext that trusts the certificate-authority-data of the kubeconfig `path`
    (the form `fitscale cluster` writes); None when it has none (plain HTTP)."""
    with open(path) as f:
        m = re.search(r"certificate-authority-data:\s*(\S+)", f.read())
    if not m:
        return None
    return ssl.create_default_context(cadata=base64.b64decode(m.group(1)).decode())


class Cluster:
    """A running `fitscale cluster` (the virtual cluster with a simulated cloud) on a free
    loopback port, its kubeconfig in tmp and its stderr in tmp/cluster.log. As a context manager
    it is stopped when the block ends.

    It prints "listening on URL", "kubeconfig written to FILE" and, unless metrics are off,
    "metrics on URL/metrics"; those lines are how a test learns the ports it got. It serves
    HTTPS with a CA it generates and writes into the kubeconfig (unless --plain-http):
    `ssl_context` trusts that CA, and `http()` / `open()` use it."""

    def __init__(self, tmp, *extra_args):
        self.kubeconfig = os.path.join(tmp, "kubeconfig")
        self.log_path = os.path.join(tmp, "cluster.log")
        self.log = open(self.log_path, "w+")
        argv = [BINARY, "cluster", "--listen", "127.0.0.1:0", "--kubeconfig-out", self.kubeconfig,
                *extra_args]
        self.proc = spawn(argv, stdout=subprocess.PIPE, stderr=self.log)
        metrics_on = "off" not in [v for k, v in zip(extra_args, extra_args[1:]) if k == "--metrics-address"]
        lines = first_lines(self.proc, 3 if metrics_on else 2)
        try:
            assert lines and (lines[0].startswith("listening on https://127.0.0.1:") or
                              lines[0].startswith("listening on http://127.0.0.1:")), \
                f"fitscale cluster did not start; it printed {lines!r}"
            self.url = lines[0].split(" ", 2)[2]
            assert len(lines) > 1 and lines[1] == f"kubeconfig written to {self.kubeconfig}", lines
            assert os.path.getsize(self.kubeconfig) > 0, "the kubeconfig is empty"
            self.ssl_context = kubeconfig_ssl_context(self.kubeconfig)
            self.metrics_url = None
            if metrics_on:
                assert len(lines) > 2 and lines[2].startswith("metrics on http://127.0.0.1:"), \
                    f"fitscale cluster did not say where its metrics are: {lines!r}"
                self.metrics_url = lines[2].split()[2]
        except AssertionError as e:
            stop(self.proc)
            raise AssertionError(f"{e}\n--- cluster log ---\n{tail(self.log_path)}") from None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def stop(self, grace=15, must_exit=False):
        return stop(self.proc, grace, must_exit)

    def log_tail(self, chars=3000):
        self.log.flush()
        return tail(self.log_path, chars)

    def kubectl(self, *args, stdin=None, check=True, timeout=60):
        return kubectl(self.kubeconfig, *args, stdin=stdin, check=check, timeout=timeout)

    def kjson(self, *args):
        return kubectl_json(self.kubeconfig, *args)

    def apply(self, obj):
        """kubectl apply of one object, validated as kubectl does by default (the cluster's
        OpenAPI and strict field validation: an unknown field fails the test)."""
        self.kubectl("apply", "-f", "-", stdin=json.dumps(obj))

    def http(self, method, path, body=None, content_type="application/json"):
        """The cluster's API (or its sim-cloud endpoints) over raw HTTP -> (status, JSON)."""
        return http_json(method, self.url + path, body, content_type, context=self.ssl_context)

    def open(self, path, timeout=30, headers=None):
        """urlopen of a GET on the cluster (a watch stream, raw bytes), trusting its CA."""
        req = urllib.request.Request(self.url + path, headers=headers or {})
        return urllib.request.urlopen(req, timeout=timeout, context=self.ssl_context)


def sim_run_argv(kubeconfig, run_id, *extra_args):
    """`fitscale run` against the virtual cluster with the simulated cloud, looping every second
    (the default interval would make every test wait ten times as long)."""
    return [BINARY, "run", "--kubeconfig", kubeconfig, "--provider", "sim", "--interval", "1",
            "--id", run_id, *extra_args]


# Empty nodes go after 3 s, however new, so scale-down is seen within a test; namespace "broke" has a budget
# too small for any GPU node, for the refusal test.
DEFAULT_RUN_CONFIG = """
scaleDown:
  emptyAfter: 3s
  delayAfterLaunch: 0s
budgets:
  namespaces:
    broke:
      usdPerHour: 0.05
"""


class World(Cluster):
    """`fitscale cluster` plus one or more `fitscale run --provider sim` replicas, the way a user
    runs them, with kubectl as the user. Use as a context manager: leaving it stops every
    process (SIGTERM, so replicas release their lease) and, when the block failed, prints the
    tail of every log to stderr."""

    def __init__(self, tmp, config=DEFAULT_RUN_CONFIG):
        self.tmp = tmp
        self.config = write_file(tmp, "config.yaml", config)
        self.runs = {}
        super().__init__(tmp, "--boot-delay", "1")

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        if exc_type is not None:
            self.dump_logs()
        return False

    def start_run(self, name, *extra):
        log = open(os.path.join(self.tmp, f"run-{name}.log"), "w+")
        proc = spawn(sim_run_argv(self.kubeconfig, name, "--config", self.config, "--metrics-address", "off",
                                  *extra), stdout=log, stderr=subprocess.STDOUT)
        self.runs[name] = (proc, log)
        return proc

    def start_synced(self, name, *extra, leads=False):
        """start_run, then wait until the replica can act: it holds the leader Lease (with
        leads) and its informers synced. A test that times or watches what a replica does
        starts from there, so it does not measure the start-up instead."""
        proc = self.start_run(name, *extra)
        if leads:
            wait_for(f"replica {name} to lead", lambda: self.lease_holder() == name, timeout=30)
        wait_for(f"replica {name} to sync", lambda: "informers synced" in self.run_log(name), timeout=30)
        return proc

    def run_log(self, name):
        log = self.runs[name][1]
        log.flush()
        with open(log.name) as f:
            return f.read()

    def stop(self, grace=15, must_exit=False):
        """Stops the replicas first (they release their lease through the cluster), then it."""
        for proc, _ in self.runs.values():
            stop(proc, grace, must_exit)
        return super().stop(grace, must_exit)

    def dump_logs(self):
        for name in self.runs:
            print(f"--- run {name} log (tail) ---\n" + self.run_log(name)[-4000:], file=sys.stderr)
        print("--- cluster log (tail) ---\n" + self.log_tail(), file=sys.stderr)

    def nodes(self):
        return self.kjson("get", "nodes")["items"]

    def events(self, ns):
        return self.kjson("get", "events", "-n", ns)["items"]

    def pods(self, ns):
        return self.kjson("get", "pods", "-n", ns)["items"]

    def lease_holder(self):
        """Who holds the leader Lease kube-system/fitscale; "" when nobody (or no Lease)."""
        r = self.kubectl("get", "lease", "fitscale", "-n", "kube-system", "-o",
                         "jsonpath={.spec.holderIdentity}", check=False)
        return r.stdout.strip() if r.returncode == 0 else ""


# --- manifests --------------------------------------------------------------------------------

def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def gpu_job(name, ns, gpus, completions=1, duration="3s", labels=None):
    """A batch/v1 Job of `completions` pods of `gpus` GPUs each, running `duration` on the
    simulated cloud (annotation fitscale.io/sim-duration)."""
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "completions": completions, "parallelism": completions,
            "template": {
                "metadata": {"labels": labels or {},
                             "annotations": {"fitscale.io/sim-duration": duration}},
                "spec": {"restartPolicy": "Never",
                         "containers": [{"name": "train", "image": "trainer",
                                         "resources": {"requests": {"cpu": "4", "memory": "16Gi",
                                                                    "nvidia.com/gpu": str(gpus)},
                                                       "limits": {"nvidia.com/gpu": str(gpus)}}}]}}}}
