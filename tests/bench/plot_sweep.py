#!/usr/bin/env python3
"""Cost curves from `bench-kernels --sweep ... --json FILE`.

  python3 plot_sweep.py SWEEP.json [SWEEP.json..] [TORCH.json..]
                        [-o sweep.png]

One log-log panel per swept series (voxelize: points in each mode, grid;
resample: batch, samples, channels, batch in bfloat16 and in cubic; fuse:
streams, ticks, and again for each set of --fuse-channels widths): time
against the swept size,
for the GPU (one call between events, and per call back to back), the CPU
reference, the floor (the bytes the work must move over the device's copy
bandwidth) and PyTorch where a torch_baseline.py file has the same
workload names.  The files are told apart by their "impl" field and may
come from several runs of each (a sweep of each operation, a series run
again): their workloads are pooled, a later file's replacing an earlier
one's of the same name.  Prints, per series, each size's times and
where the GPU's single call overtakes the CPU: the crossover
`backend=auto` is to use.
"""
import argparse
import json
import os
import re

# Series: a title and a pattern on the workload name, whose first group
# is the swept value; a second group (fuse's other widths) makes a panel
# for each of its values, named in the title's {}.
SERIES = [
    ("voxelize: points into 256^3 counts", "points",
     r"^sweep-voxelize-count-256cube-n(\d+)$"),
    ("voxelize: points into 256^3 occupancy", "points",
     r"^sweep-voxelize-occupancy-256cube-n(\d+)$"),
    ("voxelize: points into 256^3 means", "points",
     r"^sweep-voxelize-mean-256cube-n(\d+)$"),
    ("voxelize: points into 256^3 means of x, y, z", "points",
     r"^sweep-voxelize-mean-xyz-256cube-n(\d+)$"),
    ("voxelize: points into 256^3 means of x, y, z, intensity", "points",
     r"^sweep-voxelize-mean-xyzi-256cube-n(\d+)$"),
    ("voxelize: a lidar sweep (sensor at the centre) into 256^3 counts",
     "points", r"^sweep-voxelize-count-256cube-lidar-n(\d+)$"),
    ("voxelize: a lidar sweep (sensor at the centre) into 256^3 occupancy",
     "points", r"^sweep-voxelize-occupancy-256cube-lidar-n(\d+)$"),
    ("voxelize: lidar sweeps in scan order (ring by ring) into KITTI 0.2 m "
     "counts", "points", r"^sweep-voxelize-count-kitti0\.2-rows-n(\d+)$"),
    ("voxelize: lidar sweeps, column by column, into KITTI 0.2 m counts",
     "points", r"^sweep-voxelize-count-kitti0\.2-columns-n(\d+)$"),
    ("voxelize: lidar points in no order into KITTI 0.2 m counts", "points",
     r"^sweep-voxelize-count-kitti0\.2-shuffled-n(\d+)$"),
    ("voxelize: lidar points in no order into KITTI 0.2 m occupancy",
     "points", r"^sweep-voxelize-occupancy-kitti0\.2-shuffled-n(\d+)$"),
    ("voxelize: lidar sweeps in scan order (ring by ring) into KITTI 0.2 m "
     "occupancy", "points",
     r"^sweep-voxelize-occupancy-kitti0\.2-rows-n(\d+)$"),
    ("voxelize: lidar sweeps, column by column, into KITTI 0.2 m occupancy",
     "points", r"^sweep-voxelize-occupancy-kitti0\.2-columns-n(\d+)$"),
    ("voxelize: lidar points into KITTI 0.2 m centroids", "points",
     r"^sweep-voxelize-centroids-kitti0.2-n(\d+)$"),
    ("voxelize: lidar points into KITTI 0.2 m centroids of x, y, z",
     "points", r"^sweep-voxelize-centroids-xyz-kitti0\.2-n(\d+)$"),
    ("voxelize: lidar sweeps in scan order (ring by ring) into KITTI 0.2 m "
     "centroids", "points",
     r"^sweep-voxelize-centroids-kitti0\.2-rows-n(\d+)$"),
    ("voxelize: lidar sweeps, column by column, into KITTI 0.2 m centroids",
     "points", r"^sweep-voxelize-centroids-kitti0\.2-columns-n(\d+)$"),
    ("voxelize: lidar points in no order into KITTI 0.2 m means", "points",
     r"^sweep-voxelize-mean-kitti0\.2-shuffled-n(\d+)$"),
    ("voxelize: lidar sweeps in scan order (ring by ring) into KITTI 0.2 m "
     "means", "points", r"^sweep-voxelize-mean-kitti0\.2-rows-n(\d+)$"),
    ("voxelize: lidar sweeps, column by column, into KITTI 0.2 m means",
     "points", r"^sweep-voxelize-mean-kitti0\.2-columns-n(\d+)$"),
    ("voxelize: lidar points into PointPillars' 432 x 496 pillars (K 32, "
     "M 40,000)", "points", r"^sweep-voxelize-pillars-bev432x496-n(\d+)$"),
    ("voxelize: lidar sweeps in scan order (ring by ring) into PointPillars' "
     "pillars", "points",
     r"^sweep-voxelize-pillars-bev432x496-rows-n(\d+)$"),
    ("voxelize: lidar sweeps, column by column, into PointPillars' pillars",
     "points", r"^sweep-voxelize-pillars-bev432x496-columns-n(\d+)$"),
    ("voxelize: grid side at 131,072 points", "side",
     r"^sweep-voxelize-count-(\d+)cube-n131072$"),
    ("resample f32: batch (S=4096 T=1024 D=32)", "batch",
     r"^resample-f32-linear-B(\d+)-S4096-T1024-D32$"),
    ("resample f32: samples S = T (B=64 D=32)", "samples",
     r"^resample-f32-linear-B64-S(\d+)-T\1-D32$"),
    ("resample f32: channels (B=64 S=4096 T=1024)", "channels",
     r"^resample-f32-linear-B64-S4096-T1024-D(\d+)$"),
    ("resample bf16: batch (S=4096 T=1024 D=32)", "batch",
     r"^resample-bf16-linear-B(\d+)-S4096-T1024-D32$"),
    ("resample f32 cubic: batch (S=4096 T=1024 D=32)", "batch",
     r"^resample-f32-cubic-B(\d+)-S4096-T1024-D32$"),
    ("fuse f32: streams (E=64 T=500)", "streams",
     r"^sweep-fuse-f32-E64-T500-S(\d+)$"),
    ("fuse f32: ticks (E=64, 3 streams)", "ticks",
     r"^sweep-fuse-f32-E64-T(\d+)-S3$"),
    ("fuse f32: streams (E=64 T=500), widths {}", "streams",
     r"^sweep-fuse-f32-E64-T500-S(\d+)-C([\d.]+)$"),
    ("fuse f32: ticks (E=64, 3 streams), widths {}", "ticks",
     r"^sweep-fuse-f32-E64-T(\d+)-S3-C([\d.]+)$"),
]


def series_panels(doc, title, pattern):
    """(title, rows) for each value of the pattern's second group, or the
    one panel of a pattern without one; rows (swept value, workload) in
    order of size."""
    groups = {}
    for w in doc.get("workloads", []):
        m = re.match(pattern, w["name"])
        if m:
            key = m.group(2).replace(".", ", ") if m.re.groups > 1 else None
            groups.setdefault(key, []).append((int(m.group(1)), w))
    return [(title.format(key) if key else title,
             sorted(rows, key=lambda r: r[1]["floor_bytes"]))
            for key, rows in groups.items()]


def pool(paths):
    """robocache's workloads as one document (the first file's header) and
    PyTorch's by name, from files of either kind in @paths; a later
    file's workload replaces an earlier one's of the same name."""
    doc, ours, torch = None, {}, {}
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        named = {w["name"]: w for w in d.get("workloads", [])}
        if d.get("impl") == "torch":
            torch.update(named)
            continue
        doc = doc or d
        ours.update(named)
    if doc is None:
        raise SystemExit("no bench-kernels JSON among %s" % ", ".join(paths))
    return dict(doc, workloads=list(ours.values())), torch


def crossover(rows):
    """The first swept value from which the GPU's single call stays faster
    than the CPU reference, or None."""
    cross = None
    for value, w in rows:
        faster = "cpu_median_us" in w and w["median_us"] < w["cpu_median_us"]
        if faster and cross is None:
            cross = value
        elif not faster:
            cross = None
    return cross


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", nargs="+", help="bench-kernels --sweep --json "
                    "outputs, and torch_baseline.py --json outputs with the "
                    "same workload names")
    ap.add_argument("-o", "--output", help="PNG (default: sweep.png beside "
                    "the first JSON)")
    args = ap.parse_args()
    doc, torch = pool(args.json)
    panels = [(t, axis, rows) for title, axis, p in SERIES
              for t, rows in series_panels(doc, title, p)]
    if not panels:
        raise SystemExit("%s: no sweep workloads (run bench-kernels "
                         "--sweep)" % ", ".join(args.json))
    # A series the list above does not know yet is said, not lost.
    alone = [w["name"] for w in doc.get("workloads", [])
             if w["name"].startswith("sweep-")
             and not any(re.match(p, w["name"]) for _, _, p in SERIES)]

    print("%s, copy bandwidth %.0f GB/s" % (doc.get("device", "?"),
                                             doc.get("copy_gbps", 0)))
    for title, axis, rows in panels:
        print("\n" + title)
        print("%10s %10s %10s %10s %10s %10s %8s" % (
            axis, "floor us", "gpu us", "b2b us", "cpu us", "torch us",
            "gpu/flr"))
        for value, w in rows:
            t = torch.get(w["name"], {}).get("median_us")
            print("%10d %10.1f %10.1f %10.1f %10s %10s %8.2f" % (
                value, w["floor_us"], w["median_us"],
                w.get("b2b_median_us", float("nan")),
                "%.1f" % w["cpu_median_us"] if "cpu_median_us" in w else "-",
                "%.1f" % t if t else "-", w["median_us"] / w["floor_us"]))
        cross = crossover(rows)
        print("GPU single call faster than the CPU from %s = %s on" % (
            axis, cross) if cross is not None else
            "GPU single call never stays faster than the CPU here")

    if alone:
        print("\nnot drawn (one size only, or a series this script does "
              "not list): " + ", ".join(alone))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = 2
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(11, 4 * nrows),
                             squeeze=False)
    for ax, (title, axis, rows) in zip(axes.flat, panels):
        mb = [value for value, _ in rows]
        ax.plot(mb, [w["median_us"] for _, w in rows], "o-",
                label="GPU, one call")
        ax.plot(mb, [w.get("b2b_median_us") for _, w in rows], "x--",
                label="GPU, back to back")
        cpu = [(m, w["cpu_median_us"]) for m, (_, w) in zip(mb, rows)
               if "cpu_median_us" in w]
        if cpu:
            ax.plot(*zip(*cpu), "s-", label="CPU reference (1 thread)")
        tor = [(m, torch[w["name"]]["median_us"])
               for m, (_, w) in zip(mb, rows) if w["name"] in torch]
        if tor:
            ax.plot(*zip(*tor), "^-", label="PyTorch")
        ax.plot(mb, [w["floor_us"] for _, w in rows], "k:", label="floor")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(axis)
        ax.set_ylabel("time (us)")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    # The title in half an inch above the top row, which tight_layout
    # leaves free: at its default place, a fraction of a tall figure's
    # height from the top, it would fall into the first row's panels.
    inches = 4 * nrows
    fig.suptitle("robocache cost against size: %s" % doc.get("device", "?"),
                 y=1 - 0.1 / inches, va="top")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.5 / inches))
    out = args.output or os.path.join(
        os.path.dirname(os.path.abspath(args.json[0])), "sweep.png")
    fig.savefig(out, dpi=110)
    print("\nwrote %s" % out)


if __name__ == "__main__":
    main()
