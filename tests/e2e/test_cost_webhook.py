"""Budget alerts reach a real HTTP server: `fitscale simulate` with alerts.webhook pointing at a
local http.server posts a Slack-compatible {"text": ...} once per threshold and period, and the
SQLite ledger records what was sent (issue 4, "a webhook received by a local test server")."""
import http.server
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import Checks, run_cli, scratch_dir, sqlite_read_only, write_file  # noqa: E402

TRACE = """submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,capacity_type,checkpoint_interval_s
0,j1,team-a,1,6,40Gi,1,V100,7200,,
0,j2,team-a,1,6,40Gi,1,V100,7200,,
600,j3,team-b,1,6,40Gi,1,V100,3600,,
7200,j4,team-a,1,6,40Gi,1,V100,7200,,
"""


class Hook(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Hook.received.append((self.path, self.headers.get("Content-Type"), body.decode()))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    check = Checks()
    try:
        with scratch_dir("fitscale-webhook-") as d:
            trace = write_file(d, "trace.csv", TRACE)
            # team-a spends about $5.70 in the day: past 25% and 50% of $10, not 100%.
            config = write_file(d, "config.yaml", f"""clusterName: e2e-lab
budgets:
  default: {{maxRuntime: 3h}}
  namespaces:
    team-a: {{usdPerDay: 10}}
alerts:
  webhook: http://127.0.0.1:{port}/services/hook
  thresholds: [25, 50, 100]
""")
            ledger = os.path.join(d, "ledger.db")
            r = run_cli("simulate", "--trace", trace, "--config", config, "--ledger", ledger, timeout=240)
            check(r.returncode == 0, f"simulate exit {r.returncode}: {r.stderr}")
            texts = []
            for path, ctype, body in Hook.received:
                check(path == "/services/hook", f"posted to {path}")
                check(ctype == "application/json", f"content type {ctype}")
                doc = json.loads(body)
                check(set(doc) == {"text"}, f"not Slack-shaped: {body}")
                texts.append(doc.get("text", ""))
            check(len(texts) == 2, f"want 2 alerts (25% and 50% of team-a's usdPerDay), got {texts}")
            for t, pct in zip(texts, ["(25%)", "(50%)"]):
                check("fitscale e2e-lab: namespace team-a" in t and "usdPerDay budget of $10.00" in t and pct in t,
                      f"unexpected text {t!r}, wanted {pct}")
            check(not any("team-b" in t for t in texts), "team-b has no budget but got an alert")
            with sqlite_read_only(ledger) as db:
                rows = db.execute("SELECT namespace, period, threshold, text FROM alerts ORDER BY threshold").fetchall()
            check([(ns, p, th) for ns, p, th, _ in rows] == [("team-a", "day", 25), ("team-a", "day", 50)],
                  f"alerts table: {rows}")
            check(sorted(t for *_, t in rows) == sorted(texts), "alerts table texts differ from what was posted")
    finally:
        server.shutdown()
        server.server_close()
    check.exit_if_failed()
    print(f"ok: {len(Hook.received)} budget alerts received by a local webhook and recorded in the ledger")


if __name__ == "__main__":
    main()
