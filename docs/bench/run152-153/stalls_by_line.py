#!/usr/bin/env python3
"""Warp stall samples of an ncu source page by source line, most first.

  ncu -i REPORT --page source --csv --print-source cuda,sass > SRC.csv
  python3 stalls_by_line.py SRC.csv [N]
"""
import csv
import sys


def main():
    path = sys.argv[1]
    most = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    header, file_name, lines = None, None, []
    for row in csv.reader(open(path, newline="")):
        if len(row) == 2 and row[0] == "File Path":
            file_name = row[1].rsplit("/", 1)[-1]
        elif row and row[0] == "Line No":
            header = row
        elif header and len(row) == len(header) and row[0].isdigit():
            d = dict(zip(header, row))
            samples = int(d["Warp Stall Sampling (All Samples)"] or 0)
            if samples:
                lines.append((samples, int(d["stall_barrier"] or 0),
                              file_name, int(row[0]), row[1].strip()[:60]))
    # Inlined lines stand under their header and under the caller's line
    # too: totals count the kernel's own file only.
    own = [x for x in lines if x[2].endswith(".cu")]
    total = sum(x[0] for x in own)
    barrier = sum(x[1] for x in own)
    print("%s: %d samples, %.1f %% at barriers" % (path, total,
                                                   100.0 * barrier / total))
    for samples, bar, name, line, text in sorted(lines, reverse=True)[:most]:
        print("%5.1f %%  barrier %5.1f %%  %s:%d  %s" % (
            100.0 * samples / total, 100.0 * bar / total, name, line, text))


if __name__ == "__main__":
    main()
