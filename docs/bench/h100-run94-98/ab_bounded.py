"""Session 8: the loaders' branches bounded (queue by time; lead8: the
lead's appsink of 8, the others unbounded; all8: every appsink of 8)
against the unbounded ones of before (default queue, appsinks without a
bound), all over this build's plugin, merge and GAP events; RecordingDataset passes with the stand-in training step of
python_dataset.py, alternated, medians; then the plain loader once."""
import statistics, sys, time
import torch
sys.path.insert(0, "tests/bench")
import python_dataset as B
import robocache
from robocache import _replay

rec, rounds = sys.argv[1], int(sys.argv[2])
DEV = "cuda" if torch.cuda.is_available() else "cpu"
variants = {
    "lead8": (_replay._BRANCH_QUEUE, _replay._SINK),
    "all8": (_replay._BRANCH_QUEUE,
             "appsink name=%s sync=false wait-on-eos=false max-buffers=8%.0s"),
    "unbounded": ("queue", "appsink name=%s sync=false%.0s"),
}

def ds():
    return robocache.RecordingDataset(
        rec, "/points", "/joints", "/camera", voxel_size=B.VOXEL,
        origin=B.ORIGIN, dims=B.DIMS, mode="count", joint_window=B.WINDOW,
        joint_samples=B.JOINT_SAMPLES, device=DEV)

rates = {k: [] for k in variants}
for name, (q, s) in variants.items():
    _replay._BRANCH_QUEUE, _replay._SINK = q, s
    B.train_loop(ds())
for _ in range(rounds):
    for name, (q, s) in variants.items():
        _replay._BRANCH_QUEUE, _replay._SINK = q, s
        rates[name].append(B.train_loop(ds())[0])
for k, v in rates.items():
    print("%-10s median %.1f samples/s  %s" % (k, statistics.median(v), ", ".join("%.0f" % x for x in v)), flush=True)
plain = B.PlainDataset(rec, "/points", "/joints", "/camera", DEV)
B.train_loop(plain)
print("plain      %.1f samples/s" % B.train_loop(plain)[0])
