"""Session 9: why python_dataset.py's robocache rate (761, 878) is below
ab_item.py's (1,190) in one run: the same dataset and step, iterated
directly, through DataLoader(batch_size=None), and by python_dataset's
train_loop; alternated, medians; then cProfile of train_loop."""
import cProfile, io, pstats, statistics, sys, time
import torch, robocache
sys.path.insert(0, "tests/bench")
import python_dataset as pd  # noqa: E402

rec, reps = sys.argv[1], int(sys.argv[2])


def make():
    return robocache.RecordingDataset(
        rec, "/points", "/joints", "/camera", voxel_size=pd.VOXEL,
        origin=pd.ORIGIN, dims=pd.DIMS, mode="count",
        joint_window=pd.WINDOW, joint_samples=pd.JOINT_SAMPLES,
        device="cuda")


def loop(iterable):
    n, acc = 0, None
    t = time.perf_counter()
    for item in iterable:
        s = (item["voxels"].mean() + item["joints"].float().mean()
             + item["image"].float().mean())
        acc = s if acc is None else acc + s
        n += 1
    acc.item()
    torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


variants = {
    "direct": lambda: loop(make()),
    "DataLoader": lambda: loop(torch.utils.data.DataLoader(
        make(), batch_size=None, num_workers=0)),
    "python_dataset.train_loop": lambda: pd.train_loop(make())[0],
}
res = {k: [] for k in variants}
for k, f in variants.items():
    f()
for _ in range(reps):
    for k, f in variants.items():
        res[k].append(f())
for k, v in res.items():
    print("  %-26s median %7.1f samples/s (min %.1f max %.1f)"
          % (k, statistics.median(v), min(v), max(v)), flush=True)
pr = cProfile.Profile()
pr.enable()
pd.train_loop(make())
pr.disable()
out = io.StringIO()
pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(15)
print("\n".join(out.getvalue().splitlines()[4:30]))
