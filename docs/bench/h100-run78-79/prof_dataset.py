"""Where RecordingDataset's time goes on the GPU machine (session 6)."""
import cProfile, pstats, sys, time
import torch, robocache
from robocache._pipeline import Pipeline
from robocache._replay import _description

rec = sys.argv[1]
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera",
                                device="cuda")

def loop(step=True):
    n, acc = 0, None
    for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
        if step:
            s = (item["voxels"].mean() + item["joints"].float().mean() +
                 item["image"].float().mean())
            acc = s if acc is None else acc + s
        n += 1
    if acc is not None:
        acc.item()
    torch.cuda.synchronize()
    return n

def pipe(desc, like):
    n = 0
    with Pipeline(desc, device=0, like=like) as p:
        for s in p:
            n += 1
    torch.cuda.synchronize()
    return n

def timed(name, f, *a):
    f(*a)
    ts = []
    for _ in range(5):
        t = time.perf_counter(); n = f(*a); ts.append(time.perf_counter() - t)
    ts.sort()
    print("%-40s median %.1f ms (min %.1f) for %d" % (name, ts[2] * 1e3, ts[0] * 1e3, n))

desc = ds.description(rec)
plain = _description(rec, ["/points", "/joints", "/camera"], "", "")
print(desc)
timed("dataset + train step", loop)
timed("dataset, no train step", loop, False)
timed("Pipeline voxelize, torch", pipe, desc, "torch")
timed("Pipeline voxelize, numpy", pipe, desc, "numpy")
timed("Pipeline no voxelize, torch", pipe, plain, "torch")
timed("Pipeline no voxelize, numpy", pipe, plain, "numpy")
pr = cProfile.Profile(); pr.enable(); loop(); pr.disable()
st = pstats.Stats(pr); st.sort_stats("tottime").print_stats(25)
st.sort_stats("cumtime").print_stats(30)
