#!/usr/bin/env python3
"""Writes a seeded synthetic trace of a GPU cluster (native trace format, data/README.md).

Every job fits one node: 1, 2, 4 or 8 GPUs in one pod, no GPU model asked for, CPU and memory in
proportion to its GPUs with a per-job ratio, durations from two minutes to days (log-normal, a
heavy tail), arrivals a Poisson stream with a day/night cycle, some jobs with checkpoints. It is
the shape issue 18 replayed (a month of a research GPU cluster whose jobs each fit one node);
fitscale's own tests use it rather than other real traces, which are replayed elsewhere.

    python3 bench/gpu_month_trace.py --seed 1 > /tmp/gpu-month-1.csv
    build/src/fitscale simulate --trace /tmp/gpu-month-1.csv --seed 1 --quiet

The same --seed and options give the same bytes (Python's random.Random is a Mersenne Twister
whose seeded sequence is stable across platforms and versions).
"""
import argparse
import math
import random
import sys

GPUS = [(1, 0.55), (2, 0.15), (4, 0.15), (8, 0.15)]
# Per GPU: CPUs and GiB of memory (a per-job shape: data loaders want more or fewer cores).
SHAPES = [(3, 12), (4, 16), (6, 24), (10, 40), (12, 48), (16, 64)]
TEAMS = ["vision", "nlp", "speech", "rl", "infra"]


def pick(rng, weighted):
    r = rng.random()
    acc = 0.0
    for value, weight in weighted:
        acc += weight
        if r < acc:
            return value
    return weighted[-1][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--days", type=float, default=30.0)
    ap.add_argument("--jobs-per-day", type=float, default=200.0)
    ap.add_argument("--median-minutes", type=float, default=25.0)
    ap.add_argument("--sigma", type=float, default=1.9, help="of the log-normal duration")
    ap.add_argument("--max-hours", type=float, default=120.0, help="longest job")
    ap.add_argument("--checkpointed", type=float, default=0.35,
                    help="share of jobs that declare a checkpoint interval")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    horizon = args.days * 86400.0
    peak = args.jobs_per_day / 86400.0 * 1.6  # thinning: the mean rate is jobs_per_day
    t = 0.0
    rows = []
    n = 0
    while True:
        t += rng.expovariate(peak)
        if t >= horizon:
            break
        # Day/night cycle: busiest at 15:00, a quarter of the peak at 03:00.
        hour = (t % 86400.0) / 3600.0
        rate = 0.625 + 0.375 * math.cos((hour - 15.0) / 24.0 * 2.0 * math.pi)
        if rng.random() >= rate / 1.0:
            continue
        n += 1
        gpus = pick(rng, GPUS)
        cpu_per_gpu, mem_per_gpu = SHAPES[rng.randrange(len(SHAPES))]
        minutes = args.median_minutes * math.exp(rng.gauss(0.0, args.sigma))
        duration = int(min(max(minutes * 60.0, 120.0), args.max_hours * 3600.0))
        checkpoint = ""
        if rng.random() < args.checkpointed:
            checkpoint = str(rng.choice([600, 1800, 3600]))
        rows.append((int(t), f"j{n:06d}", rng.choice(TEAMS), gpus, cpu_per_gpu * gpus,
                     mem_per_gpu * gpus, duration, checkpoint))

    out = sys.stdout
    out.write("submit_s,job,namespace,replicas,cpu,memory,gpu,duration_s,checkpoint_interval_s\n")
    for submit, job, team, gpus, cpu, mem, duration, checkpoint in rows:
        out.write(f"{submit},{job},{team},1,{cpu},{mem}Gi,{gpus},{duration},{checkpoint}\n")


if __name__ == "__main__":
    main()
