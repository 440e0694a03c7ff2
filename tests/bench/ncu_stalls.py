#!/usr/bin/env python3
"""Where each kernel's warps wait, from ncu's SASS page.

  ncu --import REPORT.ncu-rep --page source --csv --print-source sass > S.csv
  python3 tests/bench/ncu_stalls.py S.csv [TOP]

prints, per kernel, its share of warp-stall samples by reason and its TOP
(default 12) instructions by samples, each with its two main reasons.  A
report of several launches of one kernel is read once."""
import csv
import sys


def kernels(rows):
    """(name, header, instruction rows) for each kernel of the CSV."""
    i = 0
    while i < len(rows):
        if rows[i] and rows[i][0] == "Kernel Name":
            name, header, i = rows[i][1], rows[i + 1], i + 2
            start = i
            while i < len(rows) and not (rows[i] and rows[i][0] == "Kernel Name"):
                i += 1
            yield name, header, rows[start:i]
        else:
            i += 1


def main():
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.reader(f))
    seen = set()
    for name, header, data in kernels(rows):
        if name in seen:
            continue
        seen.add(name)
        col = {h: k for k, h in enumerate(header)}
        samples = col["Warp Stall Sampling (All Samples)"]
        reasons = [h for h in header
                   if h.startswith("stall_") and "Not Issued" not in h]

        def value(row, h):
            return float(row[col[h]] or 0)

        total = sum(value(r, header[samples]) for r in data) or 1.0
        share = sorted(((sum(value(r, h) for r in data) / total * 100, h)
                        for h in reasons), reverse=True)[:6]
        print("== %s: %d samples; %s" % (name[:60], total, ", ".join(
            "%s %.1f%%" % (h[6:], s) for s, h in share)))
        for r in sorted(data, key=lambda r: -value(r, header[samples]))[:top]:
            why = sorted(((value(r, h), h[6:]) for h in reasons),
                         reverse=True)[:2]
            print("  %5.1f%%  %-60s %s" % (
                value(r, header[samples]) / total * 100,
                r[col["Source"]].strip()[:60],
                ", ".join("%s %d" % (h, v) for v, h in why)))


if __name__ == "__main__":
    main()
