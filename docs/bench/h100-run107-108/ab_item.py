"""Session 9 (call G: d63e144 against the joints' one copy and the window
computed once).  Earlier calls: the dataset's per-sample work, before (HEAD~: all on torch's
current stream, copies from pageable memory), on the dataset's own stream
(the grid kept until read), entered with torch.cuda.stream() or with
torch.cuda.set_stream(), alternated,
medians; with the bench's light step and with a step whose GPU work takes
about 2 ms (torch.cuda._sleep), queued without a synchronisation."""
import faulthandler, statistics, sys, time
import torch, robocache
from robocache import _dataset

rec = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 0
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")


from robocache import _prev  # noqa: E402 (.device/prev_dataset.py)


# cycles for ~2 ms of GPU sleep
torch.cuda.synchronize()
e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
e0.record(); torch.cuda._sleep(10**7); e1.record(); torch.cuda.synchronize()
CYCLES = int(10**7 * 2.0 / e0.elapsed_time(e1))


def one(cls, heavy):
    faulthandler.dump_traceback_later(60, exit=True)
    ds = cls(rec, "/points", "/joints", "/camera", **KW)
    n, acc = 0, None
    t = time.perf_counter()
    for item in ds:
        if heavy:
            torch.cuda._sleep(CYCLES)
        s = (item["voxels"].mean() + item["joints"].float().mean()
             + item["image"].float().mean())
        acc = s if acc is None else acc + s
        n += 1
    acc.item()
    torch.cuda.synchronize()
    faulthandler.cancel_dump_traceback_later()
    return n / (time.perf_counter() - t), n


def main():
    variants = {"d63e144": _prev.RecordingDataset,
                "one copy of the joints": robocache.RecordingDataset}
    for heavy in (False, True):
        print("== %s step (%s), %d alternated rounds" % (
            "2 ms GPU" if heavy else "light", rec, reps), flush=True)
        res = {k: [] for k in variants}
        for k, c in variants.items():
            one(c, heavy)
        for _ in range(reps):
            for k, c in variants.items():
                res[k].append(one(c, heavy))
        for k, v in res.items():
            r = [x for x, _ in v]
            print("  %-24s %d samples  median %7.1f samples/s (min %.1f max %.1f)"
                  % (k, v[0][1], statistics.median(r), min(r), max(r)),
                  flush=True)


if __name__ == "__main__":
    main()
