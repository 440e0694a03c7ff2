"""Session 10: where a RecordingDataset pass's time goes on the GPU
machine: the pass (train_loop's stand-in step), the time the loop's thread
spends inside robocache_align_next (waiting for the pipeline, GIL
released), and the rest (Python); also each pass's time to the first
sample.  Medians over rounds."""
import statistics, sys, time
import torch, robocache
from robocache import _gst

rec, rounds = sys.argv[1], int(sys.argv[2])
real = _gst.robocache.robocache_align_next
spent = [0.0, 0]


def timed(*a):
    t = time.perf_counter()
    r = real(*a)
    spent[0] += time.perf_counter() - t
    spent[1] += 1
    return r


_gst.robocache.robocache_align_next = timed
rows = []
for r in range(rounds + 1):
    spent[:] = [0.0, 0]
    ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera",
                                    voxel_size=0.2, origin=(-25.6, -25.6, -3.2),
                                    dims=(256, 256, 32), device="cuda")
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
    t0 = time.perf_counter()
    first = None
    n, acc = 0, None
    for item in loader:
        if first is None:
            first = time.perf_counter() - t0
            w0 = spent[0]
        step = (item["voxels"].mean() + item["joints"].float().mean() +
                item["image"].float().mean())
        acc = step if acc is None else acc + step
        n += 1
    acc.item()
    torch.cuda.synchronize()
    total = time.perf_counter() - t0
    if r:
        rows.append((total * 1e3, first * 1e3, (spent[0] - w0) * 1e3, spent[1], n))
med = lambda i: statistics.median(x[i] for x in rows)
print("pass %.1f ms, first sample %.1f ms, in align_next after it %.1f ms (%d calls), %d samples"
      % (med(0), med(1), med(2), med(3), rows[0][4]))
print("per sample after the first: %.3f ms, of which waiting %.3f ms, Python %.3f ms"
      % ((med(0) - med(1)) / (rows[0][4] - 1), med(2) / (rows[0][4] - 1),
         (med(0) - med(1) - med(2)) / (rows[0][4] - 1)))
