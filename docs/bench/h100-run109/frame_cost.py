"""Session 9, call I (call H had the CPU clone and the pinned ring
instead of the last two): what the camera frame costs the dataset (direct
iteration, light step, alternated, medians): as kept; without the camera
topic; the frame copied on the CPU only (clone, no CUDA copy); the frame
copied to the GPU from a page-locked ring (copy_ into one of 4 pinned
buffers, then an asynchronous copy)."""
import statistics, sys, time
import torch, robocache

rec, reps = sys.argv[1], int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")


class NumpyFirst(robocache.RecordingDataset):
    def _item(self, index, time_, grid, span, frame):
        item = super()._item(index, time_, grid, span, None)
        host = torch.from_numpy(frame[1].array.numpy().copy())
        item["image"] = host.to(self.device)
        return item


class OneThreadClone(robocache.RecordingDataset):
    def _item(self, index, time_, grid, span, frame):
        item = super()._item(index, time_, grid, span, None)
        torch.set_num_threads(1)
        item["image"] = frame[1].array.clone().to(self.device)
        return item


def one(make):
    ds = make()
    n, acc = 0, None
    t = time.perf_counter()
    for item in ds:
        s = item["voxels"].mean() + item["joints"].float().mean()
        if "image" in item:
            s = s + item["image"].float().mean()
        acc = s if acc is None else acc + s
        n += 1
    acc.item()
    torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


variants = {
    "kept": lambda: robocache.RecordingDataset(
        rec, "/points", "/joints", "/camera", **KW),
    "no camera topic": lambda: robocache.RecordingDataset(
        rec, "/points", "/joints", None, **KW),
    "numpy copy, then to GPU": lambda: NumpyFirst(
        rec, "/points", "/joints", "/camera", **KW),
}
if len(sys.argv) > 3:   # last: torch's threads stay at 1 afterwards
    variants["1 thread clone, then to GPU"] = lambda: OneThreadClone(
        rec, "/points", "/joints", "/camera", **KW)
res = {k: [] for k in variants}
for k, f in variants.items():
    one(f)
for _ in range(reps):
    for k, f in variants.items():
        res[k].append(one(f))
for k, v in res.items():
    print("  %-28s median %7.1f samples/s (min %.1f max %.1f)"
          % (k, statistics.median(v), min(v), max(v)), flush=True)
