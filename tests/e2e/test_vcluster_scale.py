"""The virtual cluster at a tenth of the scale run (bench/vcluster_scale.py, 4,000 nodes and
50,000 pods, figures in docs/PERFORMANCE.md): 400 nodes and 5,000 running pods from Jobs
applied with kubectl, then what a user would notice if the server fell over at size: a paged
list (limit=500) that walks every pod exactly once with pages served well under a second, a
full list and `kubectl get pods -A` that finish, watch events that arrive promptly after a
PATCH or POST, and `fitscale run --provider sim` completing its loops against it.

The bounds are generous (the machine is shared with other builds); they catch the server going
quadratic (a page that copies the whole store took 1.25 s at this size) or a watch that lags,
not a few milliseconds."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from e2e_support import Checks  # noqa: E402
import vcluster_scale  # noqa: E402

NODES, PODS = 400, 5000


def main():
    r = vcluster_scale.measure(NODES, PODS, jobs=10, repeat=1, watch_samples=10, run_loops=2)
    check = Checks()
    check(r["pods"] == PODS, f"{r['pods']} pods, not {PODS}")
    check(r["paged_items"] >= PODS, f"the paged list returned {r['paged_items']} pods")
    check(r["kubectl_pod_rows"] >= PODS, f"kubectl get pods -A printed {r['kubectl_pod_rows']} rows")
    check(r["pods_one_page"]["median"] < 0.5, f"a page of 500 pods: median {r['pods_one_page']}")
    check(r["pods_full_list"]["max"] < 10, f"a full pod list: {r['pods_full_list']}")
    check(r["watch_patch_to_event"]["median"] < 0.5,
          f"PATCH -> watch event: {r['watch_patch_to_event']}")
    check(r["watch_create_to_event"]["median"] < 0.5,
          f"POST -> watch event: {r['watch_create_to_event']}")
    check(r["run_loop_mean_s"] < 5, f"fitscale run loops take {r['run_loop_mean_s']:.2f} s")
    check.exit_if_failed()
    print("ok")


if __name__ == "__main__":
    main()
