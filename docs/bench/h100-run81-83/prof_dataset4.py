"""RecordingDataset's main thread under cProfile, new code (session 6, run 82)."""
import cProfile, pstats, sys, time
import torch, robocache

rec = sys.argv[1]
ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda")

def loop():
    n, acc = 0, None
    for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
        s = (item["voxels"].mean() + item["joints"].float().mean() +
             item["image"].float().mean())
        acc = s if acc is None else acc + s
        n += 1
    acc.item(); torch.cuda.synchronize()
    return n

loop(); loop()
t = time.process_time(); w = time.perf_counter(); loop()
print("one pass: wall %.1f ms, main-thread CPU %.1f ms" % ((time.perf_counter() - w) * 1e3, (time.process_time() - t) * 1e3))
import resource
pr = cProfile.Profile(); pr.enable(); loop(); loop(); pr.disable()
st = pstats.Stats(pr); st.sort_stats("tottime").print_stats(35)
