"""Session 12 (call 70): RecordingDataset with each sample made in one C
call (robocache_align_write, GIL released) against 6de4423's (five .to(),
the resample launch, .float(), the aligning on the loop's thread).
python_dataset.py's train_loop, light step; alternated rounds; medians;
then the two datasets' samples compared."""
import statistics, sys
import torch, robocache
from robocache import _dataset_old
sys.path.insert(0, "tests/bench")
import python_dataset  # noqa: E402

rec, reps = sys.argv[1], int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")
variants = {"6de4423": _dataset_old.RecordingDataset,
            "one C call": robocache.RecordingDataset}


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
    print("  %-12s median %7.1f samples/s (quartiles %.1f, %.1f; min %.1f "
          "max %.1f)" % (k, statistics.median(r), q[0], q[2], min(r),
                         max(r)), flush=True)
a, b = res["6de4423"], res["one C call"]
print("  one C call faster in %d of %d rounds" % (
    sum(y > x for x, y in zip(a, b)), len(a)))
worst, n = 0.0, 0
for x, y in zip(_dataset_old.RecordingDataset(
        rec, "/points", "/joints", "/camera", **KW),
        robocache.RecordingDataset(rec, "/points", "/joints", "/camera",
                                   **KW)):
    assert torch.equal(x["voxels"], y["voxels"]), "grids differ"
    assert torch.equal(x["image"], y["image"]), "frames differ"
    assert torch.equal(x["joint_times"], y["joint_times"])
    assert x["time"] == y["time"] and x["image_time"] == y["image_time"]
    worst = max(worst, (x["joints"] - y["joints"]).abs().max().item())
    n += 1
print("  %d samples: grids, frames and times equal; joints within %.3g"
      % (n, worst))
