#!/usr/bin/env python3
"""Checks the layer rules of DESIGN.md on the source tree.

1. Every `#include "LAYER/..."` in src/<folder>/ names a layer that folder may depend on
   (dependencies point down only; the matrix below is the one place that says which).
2. Nothing below cli/ reads the wall clock or the environment (time comes from the injected
   Clock, settings from options that cli/ builds). The virtual cluster is a server in its own
   right and may time its watches; it is listed as such.
3. Nothing outside obs/ logs through spdlog directly (one logger, injected).

Usage: check_layers.py [SRC_DIR]   (default: the src/ beside this script's folder)
Prints one line per violation (file:line: what) and exits 1 if there is any.
"""
import os
import re
import sys

# folder -> the layers its files may include (besides their own). "cloud/sim/sim_cloud" is the
# pure simulated cloud (fitscale_sim_cloud), which the simulator and the virtual cluster use
# without the HTTP clients and real clouds of the rest of cloud/.
PURE_SIM_CLOUD = ("cloud/sim/sim_cloud.h", "cloud/sim/sim_cloud_wire.h")
ALLOWED = {
    "model": {"model"},
    "planner": {"model"},
    "cost": {"model", "planner", "obs"},
    "obs": {"model", "planner"},
    "controller": {"model", "planner", "cost", "obs"},
    "kube": {"model", "planner", "cost", "obs", "controller"},
    "cloud": {"model", "planner", "cost", "obs", "controller"},
    "sim": {"model", "planner", "cost", "obs", "controller", *PURE_SIM_CLOUD},
    "vcluster": {"model", "planner", "cost", "obs", "controller", "kube", *PURE_SIM_CLOUD},
    "cli": {"model", "planner", "cost", "obs", "controller", "kube", "cloud", "sim", "vcluster"},
}
# Folders that may read clocks (and, for cli, the environment).
CLOCK_ALLOWED = {"cli", "vcluster"}
ENV_ALLOWED = {"cli"}
SPDLOG_ALLOWED = {"obs"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
CLOCK = re.compile(r"\b(system_clock|steady_clock|high_resolution_clock|gettimeofday|clock_gettime)\b"
                   r"|\bstd::time\s*\(|\btime\s*\(\s*(nullptr|NULL|0)\s*\)")
ENV = re.compile(r"\b(getenv|secure_getenv|environ)\b")
SPDLOG = re.compile(r"\bspdlog::|#\s*include\s*<spdlog/")


def strip_comment(line):
    # Good enough for this code base: a // comment never holds a string with "//" we care about.
    i = line.find("//")
    return line if i < 0 else line[:i]


def allowed(folder, target):
    if target.split("/")[0] == folder:
        return True
    rules = ALLOWED[folder]
    if target in rules:
        return True
    return target.split("/")[0] in rules


def check(src):
    problems = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in ALLOWED:
            problems.append(f"{path}: folder is not a layer of DESIGN.md (add it to {__file__})")
            continue
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                file = os.path.join(root, name)
                with open(file, encoding="utf-8", errors="replace") as f:
                    for n, raw in enumerate(f, 1):
                        line = strip_comment(raw)
                        m = INCLUDE.match(line)
                        if m and "/" in m.group(1) and not allowed(folder, m.group(1)):
                            problems.append(f"{file}:{n}: {folder}/ may not include \"{m.group(1)}\" "
                                            f"(allowed: {', '.join(sorted(ALLOWED[folder]))})")
                        if folder not in CLOCK_ALLOWED and CLOCK.search(line):
                            problems.append(f"{file}:{n}: reads a clock below cli/; use the injected Clock")
                        if folder not in ENV_ALLOWED and ENV.search(line):
                            problems.append(f"{file}:{n}: reads the environment below cli/; pass an option")
                        if folder not in SPDLOG_ALLOWED and SPDLOG.search(line):
                            problems.append(f"{file}:{n}: logs through spdlog directly; use the injected logger (obs/)")
    return problems


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    problems = check(os.path.normpath(src))
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} violation(s)")
        return 1
    print("check_layers: every include, clock, environment and log call is in its layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
