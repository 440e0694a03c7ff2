"""Which thread bounds the pipeline (session 7): CPU time of each thread
of the process during one pass of Pipeline._aligned (schedstat, ns), read
before the pipeline closes; medians of 5 passes, per thread name; then
the pass time of variants of the description."""
import collections, os, statistics, sys, time
import torch, robocache
from robocache._replay import _window_offsets

rec = sys.argv[1]
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda")
lo, hi = _window_offsets(ds.joint_window, ds.joint_samples)
full = ds.description(rec)

def threads():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                name = f.read().strip()
            with open("/proc/self/task/%s/schedstat" % tid) as f:
                out[tid] = (name, int(f.read().split()[0]))
        except OSError:
            pass
    return out

def one(desc, frames="camera", probe=False):
    before = threads() if probe else None
    t = time.perf_counter()
    with robocache.Pipeline(desc, device=0, like="torch") as p:
        for _ in p._aligned("lidar", "joints", frames, lo, hi):
            pass
        torch.cuda.synchronize()
        wall = time.perf_counter() - t
        after = threads() if probe else None
    if not probe:
        return wall, None
    used = collections.defaultdict(int)
    for tid, (name, ns) in after.items():
        key = name.rstrip("0123456789") if name.startswith(("queue", "pool")) else name
        used[key] += ns - before.get(tid, (name, 0))[1]
    return wall, used

one(full)
per = collections.defaultdict(list); walls = []
for _ in range(5):
    wall, used = one(full, probe=True)
    walls.append(wall * 1e3)
    for k, v in used.items():
        per[k].append(v / 1e6)
print("full pass %.1f ms (median of 5); CPU ms per thread name:" % statistics.median(walls))
for k, v in sorted(per.items(), key=lambda kv: -statistics.median(kv[1])):
    if statistics.median(v) > 0.5:
        print("  %-24s %6.1f" % (k, statistics.median(v)))
unbounded = full.replace("src.src_0 ! queue !", "src.src_0 ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 !")
for name, desc in (("full", full), ("lidar queue unbounded", unbounded)):
    one(desc); ts = [one(desc)[0] * 1e3 for _ in range(7)]
    print("%-24s median %.1f ms (min %.1f, max %.1f)" % (name, statistics.median(ts), min(ts), max(ts)))
