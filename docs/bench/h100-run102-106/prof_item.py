"""Session 9: cProfile of one dataset pass, light step: before vs the
dataset's own stream (deferred release); plus time per _item_on alone."""
import cProfile, io, pstats, sys, time, statistics
import torch, robocache
sys.path.insert(0, ".device")
from ab_item import Old, KW  # noqa (runs nothing at import: guarded)
rec = sys.argv[1]


def loop(cls):
    ds = cls(rec, "/points", "/joints", "/camera", **KW)
    acc = None
    for item in ds:
        s = (item["voxels"].mean() + item["joints"].float().mean()
             + item["image"].float().mean())
        acc = s if acc is None else acc + s
    acc.item(); torch.cuda.synchronize()


for name, cls in (("before", Old), ("deferred", robocache.RecordingDataset)):
    loop(cls)
    pr = cProfile.Profile(); pr.enable(); t = time.perf_counter()
    loop(cls)
    dt = time.perf_counter() - t; pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(18)
    print("== %s: %.1f ms a pass" % (name, dt * 1e3))
    print("\n".join(out.getvalue().splitlines()[6:32]))
