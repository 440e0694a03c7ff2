"""Session 8: where a dataset sample's time goes on the H100.
A: pass time of Pipeline._aligned (no tensor work) over description
   variants, alternated, medians.  B: the per-sample Python work alone
   (items of one pass kept, then replayed), variants of _item.  C: one
   cProfile'd dataset pass."""
import faulthandler, cProfile, io, pstats, statistics, sys, time
import numpy as np
import torch, robocache
from robocache import _kernels
from robocache._replay import _window_offsets, _targets

rec, reps = sys.argv[1], int(sys.argv[2])
CUDA = torch.cuda.is_available()
PDEV = 0 if CUDA else "cpu"
sync = torch.cuda.synchronize if CUDA else (lambda: None)
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda" if CUDA else "cpu")
lo, hi = _window_offsets(ds.joint_window, ds.joint_samples)
full = ds.description(rec)
variants = {"full": full,
            "voxelize pipeline-depth=1": full.replace("robocachevoxelize ", "robocachevoxelize pipeline-depth=1 "),
            "voxelize pipeline-depth=6": full.replace("robocachevoxelize ", "robocachevoxelize pipeline-depth=6 "),
            "check-crc=false": full.replace("name=src ", "name=src check-crc=false ")}

def one(desc):
    faulthandler.dump_traceback_later(30, exit=True)
    n = 0
    t = time.perf_counter()
    with robocache.Pipeline(desc, device=PDEV, like="torch") as p:
        for _ in p._aligned("lidar", "joints", "camera", lo, hi):
            n += 1
        sync()
    faulthandler.cancel_dump_traceback_later()
    return (time.perf_counter() - t) * 1e3, n

print("== A: pass of %s, Pipeline._aligned only, %d alternated rounds" % (rec, reps))
res = {k: [] for k in variants}
for k, d in variants.items():
    print("  warm-up", k, flush=True)
    try:
        one(d)
    except Exception as e:
        print("%s fails: %s" % (k, str(e)[:300])); res.pop(k)
for _ in range(reps):
    for k in list(res):
        res[k].append(one(variants[k]))
for k, v in res.items():
    ts = [t for t, _ in v]
    print("  %-28s %d items  median %7.1f ms  (min %.1f max %.1f)  %.3f ms/sweep" % (k, v[0][1], statistics.median(ts), min(ts), max(ts), statistics.median(ts) / v[0][1]))

print("== B: per-sample Python work, items of one pass replayed")
kept = []
with robocache.Pipeline(full, device=PDEV, like="torch") as p:
    for time_, grid, span, frame in p._aligned("lidar", "joints", "camera", lo, hi):
        kept.append((time_, grid.array.clone(), span, (frame[0], frame[1].array.cpu().numpy().copy()) if frame else None))
sync()
class S: pass
def samp(a):
    s = S(); s.array = a; return s
dev = torch.device("cuda" if CUDA else "cpu")
def step(item):
    return item["voxels"].mean() + item["joints"].float().mean() + item["image"].float().mean()
def item_current(k):
    t, g, span, fr = k
    return ds._item(0, t, g, span, (fr[0], samp(torch.from_numpy(fr[1]))) if fr else None)
def item_cpu_joints(k):
    t, g, span, fr = k
    item = {"voxels": g.float(), "time": t, "file": 0}
    targets = _targets(t, ds.joint_window, ds.joint_samples)
    item["joint_times"] = torch.from_numpy(targets)
    times, values = span
    out = _kernels.resample(values[None], times[None], targets[None], "linear")[0]
    item["joints"] = torch.from_numpy(out.astype(np.float32)).to(dev)
    item["image"] = torch.from_numpy(fr[1]).to(dev)
    return item
pre = {}
def item_frame_on_gpu(k):
    t, g, span, fr = k
    item = item_cpu_joints((t, g, span, (fr[0], np.zeros((1, 1, 1), np.uint8))))
    if t not in pre:
        pre[t] = torch.from_numpy(fr[1]).to(dev)
    item["image"] = pre[t]
    return item
def item_nothing(k):
    t, g, span, fr = k
    return {"voxels": g.float(), "joints": g, "image": g}
for name, fn in (("current _item", item_current), ("joints on the CPU, one copy", item_cpu_joints),
                 ("joints CPU, frame already on GPU", item_frame_on_gpu), ("train step only", item_nothing)):
    for k in kept[:20]:
        step(fn(k))
    ts = []
    for _ in range(5):
        sync(); t0 = time.perf_counter(); acc = None
        for k in kept:
            s = step(fn(k)); acc = s if acc is None else acc + s
        acc.item(); sync()
        ts.append((time.perf_counter() - t0) * 1e6 / len(kept))
    print("  %-36s median %6.1f us/sample (min %.1f)" % (name, statistics.median(ts), min(ts)))
a = item_current(kept[5]); b = item_cpu_joints(kept[5])
print("  cpu joints max diff", float((a["joints"] - b["joints"]).abs().max()))
del kept, pre

print("== C: one dataset pass, cProfile")
for item in ds:
    pass
pr = cProfile.Profile(); n = 0
t0 = time.perf_counter(); pr.enable(); acc = None
for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
    s = step(item); acc = s if acc is None else acc + s; n += 1
acc.item(); pr.disable()
print("  %d samples in %.1f ms" % (n, (time.perf_counter() - t0) * 1e3))
out = io.StringIO(); pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(22); print(out.getvalue()[-5000:])
