"""Session 11 (call 66): which thread bounds the dataset now.  CPU time of
every thread of the process (schedstat) during passes of
python_dataset.py's train_loop over RecordingDataset (light step,
unbatched), as a share of the pass's wall time; medians of 5 passes.  A
thread near 100 % bounds the loop; the main and the dataset's threads
adding up to about 100 % with neither at it would mean the GIL does."""
import collections, os, re, statistics, sys, threading, time
import torch, robocache
sys.path.insert(0, "tests/bench")
import python_dataset  # noqa: E402

rec = sys.argv[1]
TOTAL = int(sys.argv[2]) if len(sys.argv) > 2 else 300
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count",
          device=sys.argv[3] if len(sys.argv) > 3 else "cuda")
MAIN = threading.get_native_id()


def threads():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                name = f.read().strip()
            with open("/proc/self/task/%s/schedstat" % tid) as f:
                run, wait = (int(x) for x in f.read().split()[:2])
            out[int(tid)] = (name, run, wait)
        except OSError:
            pass
    return out


class Probed(robocache.RecordingDataset):
    """Samples the threads just before the pipeline closes (its threads
    end with it)."""
    def __iter__(self):
        self.before = threads()
        self.t0 = time.perf_counter()
        n = 0
        for item in super().__iter__():
            n += 1
            if n == self.total:
                self.after = threads()
                self.t1 = time.perf_counter()
            yield item


def kind(tid, name):
    if tid == MAIN:
        return "python main"
    return re.sub(r"[0-9]+", "", name)


def one():
    ds = Probed(rec, "/points", "/joints", "/camera", **KW)
    ds.total = TOTAL
    python_dataset.train_loop(ds)
    wall = ds.t1 - ds.t0
    run = collections.defaultdict(float)
    waits = collections.defaultdict(float)
    top = {}
    for tid, (name, r, w) in ds.after.items():
        b = ds.before.get(tid, (name, 0, 0))
        k = kind(tid, name)
        run[k] += (r - b[1]) / 1e9 / wall
        waits[k] += (w - b[2]) / 1e9 / wall
        top[(k, tid)] = (r - b[1]) / 1e9 / wall
    return wall, run, waits, top


one()
walls, runs, waits, tops = [], collections.defaultdict(list), \
    collections.defaultdict(list), []
for _ in range(5):
    wall, run, wait, top = one()
    walls.append(wall)
    for k, v in run.items():
        runs[k].append(v)
        waits[k].append(wait.get(k, 0))
    tops.append(top)
print("pass %.1f ms for %d samples (median of 5): %.1f samples/s"
      % (statistics.median(walls) * 1e3, TOTAL,
         TOTAL / statistics.median(walls)))
print("CPU time per thread kind, share of the pass (runnable-but-waiting "
      "share beside it):")
for k, v in sorted(runs.items(), key=lambda kv: -statistics.median(kv[1])):
    if statistics.median(v) > 0.01:
        print("  %-22s %5.0f %%  (waiting for a CPU %3.0f %%)"
              % (k, 100 * statistics.median(v),
                 100 * statistics.median(waits[k])))
print("busiest single threads in the last pass:")
for (k, tid), v in sorted(tops[-1].items(), key=lambda kv: -kv[1])[:8]:
    print("  %-22s tid %-8d %5.0f %%" % (k, tid, 100 * v))
