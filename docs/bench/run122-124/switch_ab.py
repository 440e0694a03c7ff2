"""Session 11 (call 67): the dataset's two Python threads hand the GIL to
each other; a thread back from a call that released it waits for the
other to let go, up to the switch interval (5 ms by default).
python_dataset.py's train_loop at three intervals, alternated rounds,
medians."""
import statistics, sys
import robocache
sys.path.insert(0, "tests/bench")
import python_dataset  # noqa: E402

rec, reps = sys.argv[1], int(sys.argv[2])
KW = dict(voxel_size=(0.2,) * 3, origin=(-25.6, -25.6, -3.2),
          dims=(256, 256, 32), mode="count", device="cuda")
intervals = (0.005, 0.001, 0.0002)


def one():
    return python_dataset.train_loop(robocache.RecordingDataset(
        rec, "/points", "/joints", "/camera", **KW))[0]


one()
res = {i: [] for i in intervals}
for _ in range(reps):
    for i in intervals:
        sys.setswitchinterval(i)
        res[i].append(one())
sys.setswitchinterval(0.005)
for i, r in res.items():
    print("  switch interval %6.1f ms: median %7.1f samples/s (min %.1f "
          "max %.1f)" % (i * 1e3, statistics.median(r), min(r), max(r)))
