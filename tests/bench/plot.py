#!/usr/bin/env python3
"""Plots benchmark JSON files (bench-kernels --json, torch_baseline.py --json).

  python3 plot.py robocache.json torch.json [-o bench.png]

Top: achieved bandwidth (floor bytes / median time) per workload and
implementation, with each file's measured copy bandwidth as a dashed line.
Bottom: median time over the floor time (log scale; 1 is the floor), with a
black mark where a workload also has a floor counting only the rows it
reads (resampling), and a cross for the time per call back to back (calls
replayed in a CUDA graph, the launch cost paid once).  Also prints tables
of median times, single and back to back, and the speed-up of the first
file over each other one.
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(doc):
    return "%s (%s)" % (doc.get("impl", "?"), doc.get("device", "?"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", nargs="+", help="results from bench-kernels or "
                    "torch_baseline.py")
    ap.add_argument("-o", "--output", help="PNG to write (default: "
                    "bench.png beside the first JSON file)")
    args = ap.parse_args()
    out = args.output or os.path.join(
        os.path.dirname(os.path.abspath(args.json[0])), "bench.png")

    docs = []
    for path in args.json:
        with open(path) as f:
            docs.append(json.load(f))
    names = []
    for d in docs:
        for w in d["workloads"]:
            if w["name"] not in names:
                names.append(w["name"])
    by_name = [{w["name"]: w for w in d["workloads"]} for d in docs]

    n = len(docs)
    width = 0.8 / n
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, (ax_bw, ax_ratio) = plt.subplots(
        2, 1, figsize=(max(8, 1.1 * len(names) + 3), 9), sharex=True)
    for i, (d, ws) in enumerate(zip(docs, by_name)):
        xs = [k + (i - (n - 1) / 2) * width for k, name in enumerate(names)
              if name in ws]
        present = [name for name in names if name in ws]
        color = colors[i % len(colors)]
        bw = [ws[name]["gbps"] for name in present]
        ratio = [ws[name]["ratio"] for name in present]
        ax_bw.bar(xs, bw, width, label=label(d), color=color)
        ax_bw.axhline(d["copy_gbps"], color=color, linestyle="--",
                      linewidth=1,
                      label="copy bandwidth, %s: %.0f GB/s" % (
                          d.get("impl", "?"), d["copy_gbps"]))
        ax_ratio.bar(xs, ratio, width, label=label(d), color=color)
        for x, r in zip(xs, ratio):
            ax_ratio.annotate("%.1f" % r, (x, r), ha="center",
                              va="bottom", fontsize=7)
        # Resampling also has a floor with only the source rows it reads.
        touched = [(x, ws[name]["touched_ratio"]) for x, name in
                   zip(xs, present) if "touched_ratio" in ws[name]]
        if touched:
            ax_ratio.scatter([x for x, _ in touched], [r for _, r in touched],
                             marker="_", s=200, color="black", zorder=3,
                             label="%s, against the rows-read floor" %
                             d.get("impl", "?"))
            for x, r in touched:
                ax_ratio.annotate("%.2f" % r, (x + width / 2, r),
                                  ha="left", va="center", fontsize=7)
        b2b = [(x, ws[name]["b2b_ratio"]) for x, name in zip(xs, present)
               if "b2b_ratio" in ws[name]]
        if b2b:
            ax_ratio.scatter([x for x, _ in b2b], [r for _, r in b2b],
                             marker="x", s=40, color="black", zorder=3,
                             label="%s, per call back to back" %
                             d.get("impl", "?"))
    ax_bw.set_ylabel("achieved GB/s (floor bytes / median time)")
    ax_bw.set_title("Kernel benchmarks: bandwidth vs device-to-device copy")
    ax_bw.legend(fontsize=8)
    ax_bw.grid(axis="y", alpha=0.3)
    ax_ratio.set_yscale("log")
    ax_ratio.axhline(1, color="black", linewidth=1)
    ax_ratio.set_ylabel("median time / floor time (1 = copy-bound floor)")
    ax_ratio.grid(axis="y", alpha=0.3, which="both")
    ax_ratio.legend(fontsize=8)
    ax_ratio.set_xticks(range(len(names)))
    ax_ratio.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote " + out)

    # Text summaries: median times, and the first file against the others.
    for key, title in (("median_us", "median us, one call"),
                       ("b2b_median_us", "us per call, back to back")):
        head = "%-44s" % title + "".join(
            " %14s" % d.get("impl", "?")[:14] for d in docs)
        if n > 1:
            head += "".join(" %16s" % ("%s/%s" % (
                d.get("impl", "?"), docs[0].get("impl", "?")))[:16]
                for d in docs[1:])
        print(head)
        for name in names:
            line = "%-44s" % name
            for ws in by_name:
                line += " %14s" % ("%.1f" % ws[name][key]
                                   if key in ws.get(name, {}) else "-")
            for ws in by_name[1:]:
                if key in ws.get(name, {}) and key in by_name[0].get(name,
                                                                     {}):
                    line += " %15.2fx" % (ws[name][key] /
                                          by_name[0][name][key])
                else:
                    line += " %16s" % "-"
            print(line)
        print()


if __name__ == "__main__":
    main()
