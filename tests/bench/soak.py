#!/usr/bin/env python3
"""Soak: the demo's three sensors live through voxelize, resample and fuse.

  python3 tests/bench/soak.py --build build-cpu --minutes 30 --out /tmp/soak

Runs BUILD/tests/soak (tests/bench/soak.c): robocachelidarsrc !
robocachevoxelize, robocachejointsrc ! robocacheresample and a camera
(videotestsrc, 320 x 240 I420 at 30 Hz) into robocachefuse at 30 Hz, all
live, for --minutes; every --interval seconds (10) it samples the process's
resident memory (VmRSS), the device's memory in use (cudaMemGetInfo, with a
GPU) and the buffers counted by pad probes into and out of each element,
into OUT/soak.csv.  At the end the sources get EOS and the counts must
balance, nothing lost: voxelize in = out + dropped-buffers; what voxelize
and resample put out reaches the fuse (the queues lose nothing); resample
in = its inputs, out = its outputs = every 10 ms grid time from the first
to the last once; each fuse pad in = accepted + dropped (its pad stats);
fuse out = ticks, and ticks + dropped-ticks = every tick from the first to
the last.  Here: every counter grew in every interval (no stall, no early
EOS), and memory is flat after the warm-up (--warmup seconds, 60): the
resident peak of its second half less than --max-growth-mib (4) above that
of its first half, the device memory's not above at all.  Writes OUT/soak.png (memory over time, buffers per second; needs
python3-matplotlib, else only the CSV) and OUT/soak.json (the verdict);
exit status 0 when everything holds.  --analyze OUT judges an existing
OUT/soak.csv and OUT/soak-checks.txt again (e.g. one from the GPU machine).
"""
import argparse
import csv
import json
import os
import subprocess
import sys


def stalls(header, rows):
    """The intervals in which some counter did not grow."""
    return ["%s at %.0f s" % (name, b[0])
            for a, b in zip(rows, rows[1:])
            for i, name in enumerate(header[3:], start=3) if b[i] <= a[i]]


def memory_verdict(rows, warmup, max_growth_mib):
    """Flat: the peak of the second half after the warm-up is less than
    @max_growth_mib above that of the first half (peaks, as freed memory
    goes back to the system now and then); device memory not above at
    all."""
    after = [r for r in rows if r[0] >= warmup]
    if len(after) < 4:
        return False, "run shorter than the warm-up"
    first, second = after[:len(after) // 2], after[len(after) // 2:]
    peak1 = max(r[1] for r in first) / 1024.0
    peak2 = max(r[1] for r in second) / 1024.0
    text = ("resident peak %.1f MiB from %d s to %.0f s, %.1f MiB from "
            "then to %.0f s (growth %.1f MiB, limit %.1f)"
            % (peak1, warmup, second[0][0], peak2, second[-1][0],
               peak2 - peak1, max_growth_mib))
    ok = peak2 - peak1 < max_growth_mib
    if after[0][2] >= 0:
        gpu1 = max(r[2] for r in first)
        gpu2 = max(r[2] for r in second)
        text += "; device memory in use peak %.0f MiB, then %.0f MiB" % (
            gpu1, gpu2)
        ok = ok and gpu2 <= gpu1
    return ok, text


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
    if rows[0][2] >= 0:
        ax1.plot(t, [r[2] for r in rows], label="device in use (MiB)")
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
    ax2.legend(fontsize=7, ncol=4)
    ax2.grid(True, alpha=0.3)
    fig.suptitle("robocache soak: lidar + joints + camera, live, "
                 "voxelize / resample / fuse")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def judge(args):
    with open(os.path.join(args.out, "soak.csv")) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [[float(x) for x in r] for r in reader]
    with open(os.path.join(args.out, "soak-checks.txt")) as f:
        lines = [l.rstrip("\n") for l in f]
    checks = [l for l in lines if l.startswith("check ")]
    error = [l for l in lines if l.startswith("error: ")]
    stalled = stalls(header, rows)
    mem_ok, memory = memory_verdict(rows, args.warmup, args.max_growth_mib)
    ok = (not error and checks and all(l.startswith("check ok")
                                       for l in checks)
          and not stalled and mem_ok)
    plotted = plot(os.path.join(args.out, "soak.png"), header, rows)
    verdict = {"ok": bool(ok), "minutes": rows[-1][0] / 60.0,
               "error": error[0][7:] if error else None, "memory": memory,
               "stalls": stalled, "checks": checks, "plot": plotted,
               "final_counts": dict(zip(header[3:],
                                        [int(x) for x in rows[-1][3:]]))}
    with open(os.path.join(args.out, "soak.json"), "w") as f:
        json.dump(verdict, f, indent=1)
    print("\n".join(checks + error))
    print("stalls: %s" % (", ".join(stalled[:10]) if stalled else "none"))
    print(memory)
    print("SOAK %s" % ("PASSED" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="meson build folder")
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=60)
    ap.add_argument("--max-growth-mib", type=float, default=4)
    ap.add_argument("--backend", default="auto",
                    choices=("auto", "cpu", "gpu"))
    ap.add_argument("--points", type=int, default=32768,
                    help="points per lidar sweep")
    ap.add_argument("--out", default="soak-out")
    ap.add_argument("--analyze", action="store_true",
                    help="only judge the CSV and checks already in --out")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if not args.analyze:
        build = os.path.abspath(args.build)
        env = dict(os.environ, GST_PLUGIN_PATH_1_0=os.path.join(build, "gst"))
        env.setdefault("GST_REGISTRY_1_0", os.path.join(build, "soak.bin"))
        with open(os.path.join(args.out, "soak-checks.txt"), "w") as f:
            subprocess.run([os.path.join(build, "tests", "soak"),
                            os.path.join(args.out, "soak.csv"),
                            str(args.minutes), str(args.interval),
                            args.backend, str(args.points)], env=env,
                           stdout=f)
    return judge(args)


if __name__ == "__main__":
    sys.exit(main())
