"""Session 11 (call 65): the camera frame copied by NumPy into page-locked
memory from torch's caching host allocator, then to the GPU without
waiting (pinned), against the dataset as kept (the CUDA driver's copy
from the pageable file bytes); python_dataset.py's train_loop, light
step, alternated rounds, medians."""
import statistics, sys
import numpy as np
import torch, robocache
sys.path.insert(0, "tests/bench")
import python_dataset  # noqa: E402

rec, reps = sys.argv[1], int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")


class Pinned(robocache.RecordingDataset):
    def _item(self, index, time, targets, grid, span, frame):
        item = super()._item(index, time, targets, grid, span, None)
        if frame is not None:
            host = torch.empty(frame[1].shape, dtype=frame[1].dtype,
                               pin_memory=True)
            np.copyto(host.numpy(), frame[1].numpy())
            item["image_time"] = frame[0]
            item["image"] = host.to(self.device, non_blocking=True)
        return item


variants = {"as kept": robocache.RecordingDataset, "pinned frame": Pinned}
res = {k: [] for k in variants}
for c in variants.values():
    python_dataset.train_loop(c(rec, "/points", "/joints", "/camera", **KW))
for _ in range(reps):
    for k, c in variants.items():
        res[k].append(python_dataset.train_loop(
            c(rec, "/points", "/joints", "/camera", **KW))[0])
for k, r in res.items():
    print("  %-14s median %7.1f samples/s (min %.1f max %.1f)"
          % (k, statistics.median(r), min(r), max(r)), flush=True)
a = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", **KW)
b = Pinned(rec, "/points", "/joints", "/camera", **KW)
for x, y in zip(a, b):
    assert torch.equal(x["image"], y["image"]), "frames differ"
print("frames equal in every sample")
