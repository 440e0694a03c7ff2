"""Session 10: one cProfile'd RecordingDataset pass on the GPU, through a
DataLoader with python_dataset.py's stand-in step, after a warm pass."""
import cProfile, pstats, sys, time
import torch, robocache

rec = sys.argv[1]


def loop():
    ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera",
                                    voxel_size=0.2,
                                    origin=(-25.6, -25.6, -3.2),
                                    dims=(256, 256, 32), device="cuda")
    acc, n = None, 0
    t = time.perf_counter()
    for item in torch.utils.data.DataLoader(ds, batch_size=None):
        step = (item["voxels"].mean() + item["joints"].float().mean() +
                item["image"].float().mean())
        acc = step if acc is None else acc + step
        n += 1
    acc.item()
    torch.cuda.synchronize()
    return n / (time.perf_counter() - t)


loop()
print("unprofiled: %.1f samples/s" % loop())
pr = cProfile.Profile()
pr.enable()
rate = loop()
pr.disable()
print("profiled: %.1f samples/s" % rate)
st = pstats.Stats(pr)
st.sort_stats("tottime").print_stats(45)
st.sort_stats("cumulative").print_stats(40)
