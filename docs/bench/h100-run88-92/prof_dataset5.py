"""Where a RecordingDataset pass goes after the alignment moved to C
(session 7): medians of 7 of a full pass (stand-in training step), a pass
without the step, and the pipeline alone through Pipeline._aligned (no
tensor work)."""
import statistics, sys, time
import torch, robocache
from robocache._replay import _window_offsets

rec = sys.argv[1]
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda")

def full(step):
    acc = None
    for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
        if step:
            s = (item["voxels"].mean() + item["joints"].float().mean() +
                 item["image"].float().mean())
            acc = s if acc is None else acc + s
    if acc is not None:
        acc.item()
    torch.cuda.synchronize()

def pipeline_alone():
    lo, hi = _window_offsets(ds.joint_window, ds.joint_samples)
    with robocache.Pipeline(ds.description(rec), device=0, like="torch") as p:
        for _ in p._aligned("lidar", "joints", "camera", lo, hi):
            pass
    torch.cuda.synchronize()

for name, fn in (("dataset + step", lambda: full(True)),
                 ("dataset", lambda: full(False)),
                 ("pipeline + align only", pipeline_alone)):
    fn()
    ts = []
    for _ in range(7):
        t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1e3)
    print("%-24s median %.1f ms (min %.1f, max %.1f)" % (name, statistics.median(ts), min(ts), max(ts)))
