"""Session 8, call F: one plugin build per process (the caller swaps
build/gst/libgstrobocache.so): RecordingDataset passes with the stand-in
training step, and passes of Pipeline._aligned alone; medians."""
import statistics, sys, time
import torch
sys.path.insert(0, "tests/bench")
import python_dataset as B
import robocache
from robocache._replay import _window_offsets

rec, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def ds():
    return robocache.RecordingDataset(
        rec, "/points", "/joints", "/camera", voxel_size=B.VOXEL,
        origin=B.ORIGIN, dims=B.DIMS, mode="count", joint_window=B.WINDOW,
        joint_samples=B.JOINT_SAMPLES, device="cuda")
d = ds()
lo, hi = _window_offsets(d.joint_window, d.joint_samples)
def alone():
    t = time.perf_counter()
    with robocache.Pipeline(d.description(rec), device=0, like="torch") as p:
        for _ in p._aligned("lidar", "joints", "camera", lo, hi):
            pass
        torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3
B.train_loop(ds()); alone()
rates = [B.train_loop(ds())[0] for _ in range(n)]
passes = [alone() for _ in range(n)]
print("%s dataset %.1f samples/s (%s); pipeline alone %.1f ms (%s)" % (
    name, statistics.median(rates), ", ".join("%.0f" % r for r in rates),
    statistics.median(passes), ", ".join("%.0f" % p for p in passes)), flush=True)
