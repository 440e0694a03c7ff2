"""Session 9, call J: where the camera's 0.4 ms a sample goes: the
pipeline alone (Pipeline._aligned, no tensor work) with and without the
camera topic, and the dataset with the frame left on the CPU (no copy)
against the dataset as kept; alternated, medians."""
import statistics, sys, time
import torch, robocache
from robocache._replay import _window_offsets

rec, reps = sys.argv[1], int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")


class FrameOnCpu(robocache.RecordingDataset):
    def _item(self, index, time_, grid, span, frame):
        item = super()._item(index, time_, grid, span, None)
        item["image"] = frame[1].array
        return item


def aligned(camera):
    ds = robocache.RecordingDataset(rec, "/points", "/joints", camera, **KW)
    lo, hi = _window_offsets(ds.joint_window, ds.joint_samples)
    n = 0
    t = time.perf_counter()
    with robocache.Pipeline(ds.description(rec), device=0,
                            like="torch") as p:
        for _ in p._aligned("lidar", "joints", "camera" if camera else None,
                            lo, hi):
            n += 1
    return n / (time.perf_counter() - t)


def dataset(cls):
    n, acc = 0, None
    t = time.perf_counter()
    for item in cls(rec, "/points", "/joints", "/camera", **KW):
        s = item["voxels"].mean() + item["joints"].float().mean()
        acc = s if acc is None else acc + s
        n += 1
    acc.item()
    torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


variants = {
    "pipeline alone, camera": lambda: aligned("/camera"),
    "pipeline alone, no camera": lambda: aligned(None),
    "dataset as kept": lambda: dataset(robocache.RecordingDataset),
    "dataset, frame left on CPU": lambda: dataset(FrameOnCpu),
}
res = {k: [] for k in variants}
for k, f in variants.items():
    f()
for _ in range(reps):
    for k, f in variants.items():
        res[k].append(f())
for k, v in res.items():
    print("  %-28s median %7.1f a second (min %.1f max %.1f)"
          % (k, statistics.median(v), min(v), max(v)), flush=True)
