#!/usr/bin/env python3
"""Writes a seeded trace of long-running inference services (issue 18, "25,000 long-running pods
held by caps for a month"): services of 2-192 CPUs (small ones far more common), about one in
eight with one GPU, submitted over the first days of a month and running for most of it. With
the default cluster cap (2,000 nodes) thousands of them wait for room for weeks, which is the
backlog the controller must not re-plan from scratch on every loop.

    python3 bench/services_trace.py --pods 25000 --seed 1 > /tmp/services.csv
    build/src/fitscale simulate --trace /tmp/services.csv --quiet --report-json /tmp/s.json

Same seed, same file (Python's own Mersenne Twister; no other input).
"""
import argparse
import random
import sys

DAY = 86400
# CPU sizes and their weights: most services are small, a few are whole large nodes.
CPUS = [2, 4, 8, 16, 32, 48, 64, 96, 192]
CPU_WEIGHTS = [30, 25, 18, 10, 7, 4, 3, 2, 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pods", type=int, default=25000, help="services (one pod each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--days", type=int, default=30, help="virtual time the services span")
    ap.add_argument("--arrival-days", type=float, default=3.0,
                    help="services arrive uniformly over this many first days")
    ap.add_argument("--namespaces", type=int, default=8)
    ap.add_argument("--gpu-share", type=float, default=0.12, help="share of services with 1 GPU")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write("submit_s,job,namespace,replicas,cpu,memory,gpu,gpu_model,duration_s,"
              "capacity_type,checkpoint_interval_s\n")
    rows = []
    for i in range(args.pods):
        submit = int(rng.uniform(0, args.arrival_days * DAY))
        gpu = 1 if rng.random() < args.gpu_share else 0
        if gpu:
            cpu = rng.choice([4, 8, 16])
            mem_gi = cpu * 4
        else:
            cpu = rng.choices(CPUS, CPU_WEIGHTS)[0]
            mem_gi = cpu * rng.choice([2, 4, 8] if cpu < 96 else [2, 4])
        # Long-running: until about the end of the month, some replaced (ended) earlier.
        end = args.days * DAY if rng.random() < 0.8 else int(rng.uniform(submit + DAY,
                                                                         args.days * DAY))
        duration = max(3600, end - submit)
        ns = "team-%d" % rng.randrange(args.namespaces)
        rows.append((submit, "svc-%05d" % i, ns, cpu, mem_gi, gpu, duration))
    for submit, job, ns, cpu, mem_gi, gpu, duration in rows:
        out.write("%d,%s,%s,1,%d,%dGi,%d,,%d,,\n" % (submit, job, ns, cpu, mem_gi, gpu, duration))


if __name__ == "__main__":
    main()
