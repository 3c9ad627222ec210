#!/usr/bin/env python3
"""The layer rules hold on the real tree, and the checker really catches each kind of breach
(an upward include, a wall-clock read, an environment read, a direct spdlog call)."""
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.environ.get("FITSCALE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(SOURCE, "scripts", "check_layers.py")


def run(src):
    return subprocess.run([sys.executable, CHECK, src], capture_output=True, text=True)


class CheckLayers(unittest.TestCase):
    def test_the_tree_keeps_its_layers(self):
        r = run(os.path.join(SOURCE, "src"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_each_kind_of_breach_is_reported_with_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            files = {
                "model/a.h": '#include "planner/plan.h"\n',
                "planner/b.cpp": "auto t = std::chrono::system_clock::now();\n",
                "controller/c.cpp": 'const char* v = getenv("HOME");\n',
                "kube/d.cpp": '#include <spdlog/spdlog.h>\nvoid f() { spdlog::info("x"); }\n',
                "sim/e.cpp": '#include "cloud/aws/aws_provider.h"\n',
                "cli/ok.cpp": '#include "vcluster/virtual_cluster.h"\nauto e = getenv("X");\n',
                "planner/ok.cpp": '// std::chrono::system_clock in a comment is fine\n#include "model/pod.h"\n',
            }
            for name, text in files.items():
                os.makedirs(os.path.join(d, os.path.dirname(name)), exist_ok=True)
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            r = run(d)
            self.assertEqual(r.returncode, 1)
            out = r.stdout
            self.assertIn('model/a.h:1: model/ may not include "planner/plan.h"', out)
            self.assertIn("planner/b.cpp:1: reads a clock", out)
            self.assertIn("controller/c.cpp:1: reads the environment", out)
            self.assertIn("kube/d.cpp:1: logs through spdlog", out)
            self.assertIn("kube/d.cpp:2: logs through spdlog", out)
            self.assertIn('sim/e.cpp:1: sim/ may not include "cloud/aws/aws_provider.h"', out)
            self.assertNotIn("ok.cpp", out)
            self.assertIn("6 violation(s)", out)


if __name__ == "__main__":
    unittest.main()
