"""Where the pipeline's time goes (session 7): medians of 7 passes of
Pipeline._aligned over variants of RecordingDataset's description."""
import statistics, sys, time
import torch, robocache
from robocache._replay import _window_offsets, _description, _voxelize_element

rec = sys.argv[1]
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda")
lo, hi = _window_offsets(ds.joint_window, ds.joint_samples)
vox = _voxelize_element("gpu", ds.mode, ds.voxel_size, ds.origin, ds.dims, ds.features)
full = ds.description(rec)
variants = [
    ("full (dataset's description)", full, "camera"),
    ("full, check-crc=false", full.replace("robocachemcapsrc name=src", "robocachemcapsrc name=src check-crc=false"), "camera"),
    ("no voxelize (points to appsink)", _description(rec, ["/points", "/joints", "/camera"], "", ""), "camera"),
    ("no camera topic", _description(rec, ["/points", "/joints"], vox, None), None),
]

def run(desc, frames):
    n = 0
    with robocache.Pipeline(desc, device=0, like="torch") as p:
        for _ in p._aligned("lidar", "joints", frames, lo, hi):
            n += 1
    torch.cuda.synchronize()
    return n

def lidar_only():
    n = 0
    with robocache.Pipeline("robocachemcapsrc location=%s topics=/points ! queue ! %s ! appsink name=lidar sync=false" % (rec, vox), device=0, like="torch") as p:
        for _ in p:
            n += 1
    return n

for name, fn in [(v[0], (lambda v=v: run(v[1], v[2]))) for v in variants] + [("lidar only, voxelized", lidar_only)]:
    n = fn()
    ts = []
    for _ in range(7):
        t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1e3)
    print("%-34s %3d items  median %6.1f ms (min %.1f, max %.1f)" % (name, n, statistics.median(ts), min(ts), max(ts)))
