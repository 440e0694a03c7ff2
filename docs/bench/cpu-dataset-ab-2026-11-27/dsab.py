import os, sys, time, tempfile, shutil
sys.path.insert(0, sys.argv[1] + "/tests/bench")
import dataset_build as B
from robocache import dataset
def main():
    rec = "/tmp/dsrec"
    if not os.path.isdir(rec):
        os.makedirs(rec); B.make_recordings(rec, 4, 30, 32768)
    recs = dataset.find_recordings(rec)
    ts = []
    for r in range(4):
        out = tempfile.mkdtemp(dir="/tmp")
        t = time.perf_counter()
        m, _ = dataset.build(recs, out, B.CONFIG, 1, "cpu")
        assert m["totals"]["done"] == len(recs), m["totals"]
        ts.append(time.perf_counter() - t)
        shutil.rmtree(out)
    ts.sort(); print("%s: median %.2f s (%s)" % (sys.argv[2], ts[2], " ".join("%.2f" % x for x in ts)), flush=True)

if __name__ == "__main__":
    main()
