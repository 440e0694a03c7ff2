"""Session 11 (call 68): fewer torch calls a sample on the dataset's
thread.  Every torch call releases the GIL and takes it back, waiting for
the loop's thread to let go (cProfile, run 123: 41 us a mean() on the
loop's thread).  Variants: as kept (five .to(), the resample launch and
.float() for the joints); joints resampled on the CPU and copied once;
that and the frame copied by NumPy into page-locked memory and sent
without waiting.  python_dataset.py's train_loop, light step; many
alternated rounds, since passes spread by +-15 %; medians."""
import statistics, sys
import numpy as np
import torch, robocache
from robocache import _kernels
sys.path.insert(0, "tests/bench")
import python_dataset  # noqa: E402

rec, reps = sys.argv[1], int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")


class CpuJoints(robocache.RecordingDataset):
    def _resample(self, span, targets):
        if span is None:
            return super()._resample(span, targets)
        times, values = span
        out = _kernels.resample(values, times, targets, self.joint_method)
        return torch.from_numpy(out.astype(np.float32)).to(self.device)


class CpuJointsPinnedFrame(CpuJoints):
    def _item(self, index, time, targets, grid, span, frame):
        item = super()._item(index, time, targets, grid, span, None)
        if frame is not None:
            host = torch.empty(frame[1].shape, dtype=frame[1].dtype,
                               pin_memory=True)
            np.copyto(host.numpy(), frame[1].numpy())
            item["image_time"] = frame[0]
            item["image"] = host.to(self.device, non_blocking=True)
        return item


variants = {"as kept": robocache.RecordingDataset,
            "joints on the CPU": CpuJoints,
            "+ frame pinned": CpuJointsPinnedFrame}


def one(c):
    return python_dataset.train_loop(
        c(rec, "/points", "/joints", "/camera", **KW))[0]


for c in variants.values():
    one(c)
res = {k: [] for k in variants}
for r in range(reps):
    order = list(variants.items())
    if r % 2:
        order.reverse()
    for k, c in order:
        res[k].append(one(c))
for k, r in res.items():
    q = statistics.quantiles(r, n=4)
    print("  %-18s median %7.1f samples/s (quartiles %.1f, %.1f; min %.1f "
          "max %.1f)" % (k, statistics.median(r), q[0], q[2], min(r),
                         max(r)), flush=True)
base = res["as kept"]
for k, r in res.items():
    if k != "as kept":
        wins = sum(x > y for x, y in zip(r, base))
        print("  %-18s faster than as kept in %d of %d rounds"
              % (k, wins, len(r)))
ref = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", **KW)
for c in list(variants.values())[1:]:
    worst = 0.0
    for x, y in zip(ref, c(rec, "/points", "/joints", "/camera", **KW)):
        assert torch.equal(x["voxels"], y["voxels"])
        assert torch.equal(x["image"], y["image"])
        worst = max(worst, (x["joints"] - y["joints"]).abs().max().item())
    print("  %s: grids and frames equal, joints within %.3g" % (
        c.__name__, worst))
