"""Does the reader run ahead of Python? RecordingDataset with the queues'
byte and buffer limits lifted (session 6, run 81)."""
import sys, time
import torch, robocache
import robocache._dataset as D

rec = sys.argv[1]
orig = D._description

def loop(ds):
    n, acc = 0, None
    for item in torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0):
        s = (item["voxels"].mean() + item["joints"].float().mean() +
             item["image"].float().mean())
        acc = s if acc is None else acc + s
        n += 1
    acc.item(); torch.cuda.synchronize()
    return n

variants = {
    "queue defaults (10 MB, 200 buffers, 1 s)": "queue",
    "queue max-size-bytes=0 max-size-buffers=0 (1 s)": "queue max-size-bytes=0 max-size-buffers=0",
    "queue unlimited": "queue max-size-bytes=0 max-size-buffers=0 max-size-time=0",
}
for rnd in range(2):
    for name, q in variants.items():
        D._description = lambda *a, q=q: orig(*a).replace("! queue !", "! %s !" % q)
        ds = robocache.RecordingDataset(rec, "/points", "/joints", "/camera", device="cuda")
        loop(ds)
        ts = []
        for _ in range(7):
            t = time.perf_counter(); n = loop(ds); ts.append(time.perf_counter() - t)
        ts.sort()
        print("%-52s median %.1f ms (min %.1f) %d samples: %.0f/s" % (name, ts[3] * 1e3, ts[0] * 1e3, n, n / ts[3]), flush=True)
