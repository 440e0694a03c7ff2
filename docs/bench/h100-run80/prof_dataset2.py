"""RecordingDataset's pass taken apart on the GPU machine (session 6, run 80)."""
import sys, time
import torch, robocache
from robocache._pipeline import Pipeline

rec = sys.argv[1]
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera",
                                device="cuda")

def loop(parts):
    n, acc = 0, None
    for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
        s = None
        for k in parts:
            v = item[k].float().mean()
            s = v if s is None else s + v
        if s is not None:
            acc = s if acc is None else acc + s
        n += 1
    if acc is not None:
        acc.item()
    torch.cuda.synchronize()
    return n

def stages(desc):
    t0 = time.perf_counter()
    p = Pipeline(desc, device=0, like="torch")
    p.start(); t1 = time.perf_counter()
    it = p._samples(copied=("joints",)); next(it); t2 = time.perf_counter()
    n = 1 + sum(1 for _ in it); t3 = time.perf_counter()
    p.close(); torch.cuda.synchronize(); t4 = time.perf_counter()
    return [(t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3]

def timed(name, f, *a):
    f(*a)
    ts = []
    for _ in range(5):
        t = time.perf_counter(); n = f(*a); ts.append(time.perf_counter() - t)
    ts.sort()
    print("%-44s median %.1f ms (min %.1f) for %d" % (name, ts[2] * 1e3, ts[0] * 1e3, n), flush=True)

desc = ds.description(rec)
for parts in (("voxels", "joints", "image"), (), ("voxels",), ("image",), ("joints",)):
    timed("dataset, step over %s" % (",".join(parts) or "nothing"), loop, parts)
stages(desc)
rows = [stages(desc) for _ in range(5)]
for i, name in enumerate(("build+start", "first sample", "the rest", "close")):
    v = sorted(r[i] for r in rows)
    print("voxelize Pipeline %-14s median %.1f ms (min %.1f)" % (name, v[2], v[0]))
if len(sys.argv) > 2:
    vox = desc.split("! robocachevoxelize", 1)[1].split("!", 1)[0]
    for path in (rec, sys.argv[2]):
        d = ("robocachemcapsrc location=%s topics=/points ! queue ! "
             "robocachevoxelize%s! appsink name=lidar sync=false" % (path, vox))
        stages(d)
        rows = [stages(d) for _ in range(3)]
        print(path, "lidar only:", " / ".join(
            "%s %.1f ms" % (name, sorted(r[i] for r in rows)[1]) for i, name in
            enumerate(("build+start", "first", "rest", "close"))), flush=True)
