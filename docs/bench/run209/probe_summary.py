"""Medians of the probe's step times (PROBE lines of a bench-pipeline
stderr): chunks are counted by their chunk_end lines, 32 a case in the
bench's order (pageable, pinned, cuda in), the first 4 of each left out."""
import statistics
import sys

CASES = ["pageable in", "pinned in", "cuda in"]
for path in sys.argv[1:]:
    steps = {}
    chunk = 0
    for line in open(path):
        f = line.split()
        if len(f) != 3 or f[0] != "PROBE":
            continue
        if f[1] == "chunk_end":
            chunk += 1
            continue
        if chunk % 32 < 4:
            continue
        case = CASES[chunk // 32] if chunk // 32 < 3 else "case %d" % (chunk // 32)
        steps.setdefault(case, {}).setdefault(f[1], []).append(int(f[2]) / 1e3)
    print("==", path.rsplit("/", 1)[-1])
    for case, by_step in steps.items():
        total = 0.0
        for step, v in by_step.items():
            med = statistics.median(v)
            total += med
            print("%-12s %-14s n %3d  median %8.1f us  max %8.1f" %
                  (case, step, len(v), med, max(v)))
        print("%-12s %-14s sum of medians %8.1f us" % (case, "", total))
