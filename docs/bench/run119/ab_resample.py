"""Session 11 (call 63): the joint window resampled on the CPU and copied
once (new) against HEAD's dataset, which copies times, values and
targets to the GPU and resamples there (prev, .device/prev_dataset.py);
and the new one with the next sample also pulled on the dataset's thread
(pulled, .device/pulled_dataset.py).  python_dataset.py's train_loop
(DataLoader, light step) and a 2 ms GPU step; alternated rounds,
medians."""
import statistics, sys, time
import torch, robocache
sys.path.insert(0, "tests/bench")
import python_dataset  # noqa: E402
from robocache import _prev, _pulled  # noqa: E402

rec = sys.argv[1]
reps = int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")

torch.cuda.synchronize()
e0 = torch.cuda.Event(enable_timing=True)
e1 = torch.cuda.Event(enable_timing=True)
e0.record(); torch.cuda._sleep(10**7); e1.record(); torch.cuda.synchronize()
CYCLES = int(10**7 * 2.0 / e0.elapsed_time(e1))


def heavy_loop(ds):
    n, acc = 0, None
    t = time.perf_counter()
    for item in torch.utils.data.DataLoader(ds, batch_size=None):
        torch.cuda._sleep(CYCLES)
        s = (item["voxels"].mean() + item["joints"].float().mean()
             + item["image"].float().mean())
        acc = s if acc is None else acc + s
        n += 1
    acc.item()
    torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


def main():
    variants = {"prev (GPU resample)": _prev.RecordingDataset,
                "new (CPU resample)": robocache.RecordingDataset,
                "new + pulled ahead": _pulled.RecordingDataset}
    for heavy in (False, True):
        loop = heavy_loop if heavy else (
            lambda ds: python_dataset.train_loop(ds)[0])
        rounds = reps if not heavy else max(reps // 2, 2)
        print("== %s step, %d alternated rounds" % (
            "2 ms GPU" if heavy else "light", rounds), flush=True)
        res = {k: [] for k in variants}
        for c in variants.values():
            loop(c(rec, "/points", "/joints", "/camera", **KW))
        for _ in range(rounds):
            for k, c in variants.items():
                res[k].append(loop(c(rec, "/points", "/joints", "/camera",
                                     **KW)))
        for k, r in res.items():
            print("  %-22s median %7.1f samples/s (min %.1f max %.1f)"
                  % (k, statistics.median(r), min(r), max(r)), flush=True)
    a = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", **KW)
    b = _prev.RecordingDataset(rec, "/points", "/joints", "/camera", **KW)
    worst = 0.0
    for x, y in zip(a, b):
        worst = max(worst, (x["joints"] - y["joints"]).abs().max().item())
        assert torch.equal(x["voxels"], y["voxels"])
    print("joints, new against prev: max abs difference %.3g" % worst)


if __name__ == "__main__":
    main()
