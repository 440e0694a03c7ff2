#!/usr/bin/env python3
"""backend=auto's constants for robocacheresample from autocross outputs.

  python3 fit_auto.py call191-out/autocross-196.txt call191-out/autocross-7.txt

The GPU path with the element's host memory ("element" column): a fixed
cost and a bus rate, by least squares weighted by 1/t^2 (relative error).
The CPU: a cost per target (locating it: since 8a01cea a grid's targets
are searched on from the last one's answer, so no longer a step per bit
of S) shared by every kind, and a cost per output value for each kind,
chosen on a grid to make the side the rule picks as close as possible to
the better side, on average over every shape of every file.  Then, per file and GPU path, what rc_resample_prefers_cpu's
rule costs against the better side (worst, mean, shapes over 1.1) and,
as the noise floor, what the better side of one file costs in the other.
"""
import re
import sys

ROW = re.compile(r"(\w+ \w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+"
                 r"([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(?:cpu|gpu)")
SIZE = {"float32": 4, "bfloat16": 2, "float64": 8}
PATHS = ("pinned", "element", "pageable")


def load(path):
    rows = []
    for line in open(path):
        m = ROW.match(line)
        if m:
            b, s, t, d = map(int, m.group(2, 3, 4, 5))
            cpu, *gpu = map(float, m.group(6, 7, 8, 9))
            rows.append(dict(kind=m.group(1), B=b, S=s, T=t, D=d, cpu=cpu,
                             gpu=gpu, es=SIZE[m.group(1).split()[0]]))
    return rows


def bus_bytes(r):
    return (r["B"] * r["S"] + r["B"] * r["T"]) * (8 + r["D"] * r["es"])


def fit_gpu(rows, path):
    """t = fixed + bytes / rate, least squares on relative error."""
    sw = sx = sy = sxx = sxy = 0.0
    for r in rows:
        w, x, y = 1 / r["gpu"][path] ** 2, bus_bytes(r) / 1e3, r["gpu"][path]
        sw += w; sx += w * x; sy += w * y; sxx += w * x * x; sxy += w * x * y
    slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    return (sy - slope * sx) / sw, 1 / slope      # us, bytes per ns


def on_cpu(r, target_ns, value_ns, fixed_us, rate):
    cpu = r["B"] * r["T"] * (target_ns + value_ns * r["D"]) / 1e3
    return cpu < fixed_us + bus_bytes(r) / rate / 1e3


def cost(r, pick_cpu, path):
    best = min(r["cpu"], r["gpu"][path])
    return (r["cpu"] if pick_cpu else r["gpu"][path]) / best


def summary(rows, picks, path):
    ratios = [cost(r, p, path) for r, p in zip(rows, picks)]
    return max(ratios), sum(ratios) / len(ratios), sum(q > 1.1 for q in ratios)


def main():
    files = [load(p) for p in sys.argv[1:]]
    rows = [r for f in files for r in f]
    fixed_us, rate = fit_gpu(rows, 1)
    print("GPU path, element's memory: %.1f us fixed, %.1f bytes/ns" % (
        fixed_us, rate))
    kinds = sorted({r["kind"] for r in rows})
    best = None
    for target_ns in [x / 2 for x in range(2, 80)]:
        values, total = {}, 0.0
        for kind in kinds:
            mine = [r for r in rows if r["kind"] == kind]
            score = min((sum(cost(r, on_cpu(r, target_ns, v, fixed_us, rate), 1)
                             for r in mine), v)
                        for v in [x / 20 for x in range(1, 81)])
            values[kind] = score[1]
            total += score[0]
        if best is None or total < best[0]:
            best = (total, target_ns, values)
    _, target_ns, values = best
    print("CPU: %.2f ns per target; per value: %s" % (
        target_ns, ", ".join("%s %.2f" % kv for kv in sorted(values.items()))))
    for name, f in zip(sys.argv[1:], files):
        for path in range(3):
            picks = [on_cpu(r, target_ns, values[r["kind"]], fixed_us, rate)
                     for r in f]
            print("%s, %s: the rule worst %.2f, mean %.4f, %d over 1.1" % (
                (name, PATHS[path]) + summary(f, picks, path)))
    for i, f in enumerate(files):
        other = files[(i + 1) % len(files)]
        if other is f:
            continue
        for path in range(3):
            picks = [o["cpu"] < o["gpu"][path] for o in other]
            print("better side of %s applied to %s, %s: worst %.2f, "
                  "mean %.4f, %d over 1.1" % ((sys.argv[1:][(i + 1) % len(
                      files)], sys.argv[1:][i], PATHS[path]) +
                      summary(f, picks, path)))


if __name__ == "__main__":
    main()
