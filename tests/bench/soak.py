#!/usr/bin/env python3
"""Soak: the demo's three sensors live through voxelize, resample and fuse.

  python3 tests/bench/soak.py --build build-cpu --minutes 30 --out /tmp/soak

robocachelidarsrc ! robocachevoxelize, robocachejointsrc ! robocacheresample
and a camera (videotestsrc, 320 x 240 I420 at 30 Hz) into robocachefuse at
30 Hz, all live, for --minutes.  Every --interval seconds (10) it samples
the process's resident memory (VmRSS), its GPU memory where nvidia-smi is
found, and the buffers counted by pad probes into and out of each element;
it writes soak.csv and soak.png (resident and device memory over time,
buffers per second) and soak.json (the verdict) to --out.

At the end the sources are sent EOS and the counts must balance, nothing
lost: voxelize in = out + dropped-buffers; what voxelize and resample
put out reaches the fuse (queues lose nothing); resample in = inputs (its
stats) and out = outputs, every grid time between the first and the last
output once; each fuse pad in = accepted + dropped (its pad stats); fuse
out = ticks, and ticks + dropped-ticks = every tick from the first to the
last.  Memory is flat when resident memory after the warm-up (the first
--warmup seconds, 60) grows by less than --max-growth-mib (4).  Exit
status 0 when both hold, 1 otherwise.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time

ELEMENTS = ("voxelize", "resample", "fuse")


def pipeline_description(backend, points):
    return (
        "robocachefuse name=fuse rate=30/1 ! fakesink name=sink sync=false "
        "robocachelidarsrc is-live=true points-per-sweep=%d ! "
        "robocachevoxelize name=voxelize backend=%s mode=count ! queue ! "
        "fuse.sink_0 "
        "robocachejointsrc is-live=true rate=200/1 jitter=0.3 dropout=0.05 "
        "! robocacheresample name=resample backend=%s rate=100/1 ! queue ! "
        "fuse.sink_1 "
        "videotestsrc is-live=true pattern=ball ! video/x-raw,format=I420,"
        "width=320,height=240,framerate=30/1 ! queue ! fuse.sink_2"
        % (points, backend, backend))


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def gpu_mib():
    """This process's GPU memory (MiB), or None without nvidia-smi."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-compute-apps=pid,used_memory",
             "--format=csv,noheader,nounits"], capture_output=True,
            text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 2 and fields[0] == str(os.getpid()):
            return float(fields[1])
    return 0.0


class Counter:
    """Buffers through pads, counted by probes (streaming threads)."""

    def __init__(self, Gst):
        self.Gst = Gst
        self.counts = {}
        self.first = {}
        self.last = {}

    def attach(self, element, pad_name, key, times=False):
        pad = element.get_static_pad(pad_name)
        self.counts[key] = 0

        def probe(pad, info):
            self.counts[key] += 1
            if times:
                pts = info.get_buffer().pts
                self.first.setdefault(key, pts)
                self.last[key] = pts
            return self.Gst.PadProbeReturn.OK
        pad.add_probe(self.Gst.PadProbeType.BUFFER, probe)


def stats(element, pad=None):
    obj = element.get_static_pad(pad) if pad else element
    s = obj.get_property("stats")
    return {s.nth_field_name(i): s.get_value(s.nth_field_name(i))
            for i in range(s.n_fields())}


def balance(counter, els, gst_second):
    """The end-of-run checks: a list of (what, ok, detail)."""
    c = counter.counts
    vs, rs, fs = (stats(els["voxelize"]), stats(els["resample"]),
                  stats(els["fuse"]))
    checks = [
        ("voxelize in = out + dropped-buffers",
         c["voxelize.in"] == c["voxelize.out"] + vs["dropped-buffers"],
         "%d = %d + %d" % (c["voxelize.in"], c["voxelize.out"],
                           vs["dropped-buffers"])),
        ("resample in = inputs", c["resample.in"] == rs["inputs"],
         "%d vs %d (dropped: out-of-order %d, bad-size %d, off-grid %d)"
         % (c["resample.in"], rs["inputs"], rs["dropped-out-of-order"],
            rs["dropped-bad-size"], rs["dropped-off-grid"])),
        ("resample out = outputs", c["resample.out"] == rs["outputs"],
         "%d vs %d" % (c["resample.out"], rs["outputs"])),
    ]
    for a, b in (("voxelize.out", "fuse.sink_0"),
                 ("resample.out", "fuse.sink_1")):
        checks.append(("queue: %s = %s" % (a, b), c[a] == c[b],
                       "%d vs %d" % (c[a], c[b])))
    span = counter.last["resample.out"] - counter.first["resample.out"]
    grid = round(span * 100 / gst_second) + 1
    checks.append(("resample: every 10 ms grid time once",
                   grid == c["resample.out"],
                   "%d grid times, %d out" % (grid, c["resample.out"])))
    for i in range(3):
        ps = stats(els["fuse"], "sink_%d" % i)
        taken = (ps["buffers"] + ps["dropped-bad-size"]
                 + ps["dropped-out-of-order"] + ps["dropped-duplicate"])
        checks.append(("fuse sink_%d in = accepted + dropped" % i,
                       c["fuse.sink_%d" % i] == taken,
                       "%d vs %s" % (c["fuse.sink_%d" % i], ps)))
    span = counter.last["fuse.out"] - counter.first["fuse.out"]
    ticks = round(span * 30 / gst_second) + 1
    checks.append(("fuse out = ticks", c["fuse.out"] == fs["ticks"],
                   "%d vs %d" % (c["fuse.out"], fs["ticks"])))
    checks.append(("fuse: every tick, made or counted as dropped",
                   ticks == fs["ticks"] + fs["dropped-ticks"],
                   "%d ticks from first to last, %d made + %d dropped"
                   % (ticks, fs["ticks"], fs["dropped-ticks"])))
    return checks


def run(args, Gst):
    pipeline = Gst.parse_launch(pipeline_description(args.backend,
                                                     args.points))
    els = {n: pipeline.get_by_name(n) for n in ELEMENTS}
    counter = Counter(Gst)
    for n in ("voxelize", "resample"):
        counter.attach(els[n], "sink", n + ".in")
        counter.attach(els[n], "src", n + ".out", times=(n == "resample"))
    for i in range(3):
        counter.attach(els["fuse"], "sink_%d" % i, "fuse.sink_%d" % i)
    counter.attach(els["fuse"], "src", "fuse.out", times=True)
    bus = pipeline.get_bus()
    rows = []
    keys = sorted(counter.counts)
    pipeline.set_state(Gst.State.PLAYING)
    start = time.monotonic()
    end = start + args.minutes * 60
    error = None
    while True:
        now = time.monotonic()
        rows.append([round(now - start, 1), rss_kib(), gpu_mib()]
                    + [counter.counts[k] for k in keys])
        print("t=%6.0f s  rss %7.1f MiB  %s" % (
            rows[-1][0], rows[-1][1] / 1024.0,
            " ".join("%s=%d" % (k, counter.counts[k]) for k in keys)),
            flush=True)
        if now >= end:
            break
        msg = bus.timed_pop_filtered(
            int(min(args.interval, end - now) * Gst.SECOND),
            Gst.MessageType.ERROR)
        if msg:
            error = msg.parse_error()[0].message
            break
    if not error:
        pipeline.send_event(Gst.Event.new_eos())
        msg = bus.timed_pop_filtered(60 * Gst.SECOND,
                                     Gst.MessageType.EOS
                                     | Gst.MessageType.ERROR)
        if not msg or msg.type == Gst.MessageType.ERROR:
            error = msg.parse_error()[0].message if msg else "no EOS in 60 s"
    checks = [] if error else balance(counter, els, Gst.SECOND)
    pipeline.set_state(Gst.State.NULL)
    return ["t_s", "rss_kib", "gpu_mib"] + keys, rows, checks, error


def memory_verdict(rows, warmup, max_growth_mib):
    after = [r for r in rows if r[0] >= warmup]
    if len(after) < 2:
        return None, "run shorter than the warm-up"
    base = after[0][1]
    growth = (max(r[1] for r in after) - base) / 1024.0
    return growth, "resident %.1f MiB after %d s, at most %.1f MiB above " \
        "that later (limit %.1f)" % (base / 1024.0, warmup, growth,
                                      max_growth_mib)


def plot(path, header, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib (Debian python3-matplotlib): no plot",
              file=sys.stderr)
        return False
    t = [r[0] / 60.0 for r in rows]
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    ax1.plot(t, [r[1] / 1024.0 for r in rows], label="resident (MiB)")
    if any(r[2] for r in rows):
        ax1.plot(t, [r[2] or 0 for r in rows], label="GPU (MiB)")
    ax1.set_ylabel("memory (MiB)")
    ax1.set_ylim(bottom=0)
    ax1.legend()
    ax1.grid(True, alpha=0.3)
    for i, name in enumerate(header[3:], start=3):
        rate = [0.0] + [(b[i] - a[i]) / max(b[0] - a[0], 1e-9)
                        for a, b in zip(rows, rows[1:])]
        ax2.plot(t, rate, label=name)
    ax2.set_ylabel("buffers per second")
    ax2.set_xlabel("minutes")
    ax2.legend(fontsize=7, ncol=3)
    ax2.grid(True, alpha=0.3)
    fig.suptitle("robocache soak: lidar + joints + camera, live, "
                 "voxelize / resample / fuse")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="meson build folder")
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=60)
    ap.add_argument("--max-growth-mib", type=float, default=4)
    ap.add_argument("--backend", default="auto", choices=("auto", "cpu",
                                                          "gpu"))
    ap.add_argument("--points", type=int, default=32768,
                    help="points per lidar sweep")
    ap.add_argument("--out", default="soak-out")
    args = ap.parse_args()
    os.environ["GST_PLUGIN_PATH_1_0"] = os.path.abspath(
        os.path.join(args.build, "gst"))
    os.environ.setdefault("GST_REGISTRY_1_0", os.path.join(
        os.path.abspath(args.build), "soak-registry.bin"))
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    os.makedirs(args.out, exist_ok=True)

    header, rows, checks, error = run(args, Gst)
    with open(os.path.join(args.out, "soak.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    growth, memory = memory_verdict(rows, args.warmup, args.max_growth_mib)
    ok = (not error and all(c[1] for c in checks) and growth is not None
          and growth < args.max_growth_mib)
    plotted = plot(os.path.join(args.out, "soak.png"), header, rows)
    verdict = {
        "ok": ok, "error": error, "minutes": args.minutes,
        "backend": args.backend, "points": args.points, "memory": memory,
        "growth_mib": growth, "plot": plotted,
        "checks": [{"what": c[0], "ok": c[1], "detail": c[2]}
                   for c in checks],
        "final_counts": dict(zip(header[3:], rows[-1][3:])),
    }
    with open(os.path.join(args.out, "soak.json"), "w") as f:
        json.dump(verdict, f, indent=1)
    for c in checks:
        print("%s  %s: %s" % ("ok  " if c[1] else "FAIL", c[0], c[2]))
    print(memory)
    print("error: %s" % error if error else "SOAK %s" % ("PASSED" if ok
                                                         else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
