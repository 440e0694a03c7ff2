#!/usr/bin/env bash
# Two GPUs against one (docs/performance.md, "Several GPUs"): bench-pipeline's
# voxelize cases on device 0 alone, then on devices 0 and 1 at once (two
# processes, each a pipeline on its own device), and the sum of the two
# against the one, case by case.  The first run also measures the copies
# between the two devices' memory and the case whose sweeps cross from
# device 1 to device 0.  Exit 77 (skipped) with fewer than two GPUs.
#
#   tests/bench/multigpu.sh BUILD OUT [SWEEPS]
set -u

build=${1:?usage: tests/bench/multigpu.sh BUILD OUT [SWEEPS]}
out=${2:?usage: tests/bench/multigpu.sh BUILD OUT [SWEEPS]}
sweeps=${3:-3000}
mkdir -p "$out"
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$n" -lt 2 ]; then
  echo "multigpu: needs two GPUs, this machine has $n: not run"
  exit 77
fi
bench=("$build/tests/bench-pipeline" --cases voxelize --sweeps "$sweeps"
  --warmup 100)

"${bench[@]}" --cuda-device-id 0 --peer-device 1 --json "$out/alone.json" \
  > "$out/alone.txt" 2>&1 || { cat "$out/alone.txt"; exit 1; }
for d in 0 1; do
  "${bench[@]}" --cuda-device-id "$d" --json "$out/pair-$d.json" \
    > "$out/pair-$d.txt" 2>&1 &
done
failed=0
for job in $(jobs -p); do
  wait "$job" || failed=1
done
[ "$failed" = 0 ] || { cat "$out"/pair-*.txt; exit 1; }

python3 - "$out" <<'EOF'
import json
import sys

out = sys.argv[1]
alone = json.load(open(f"{out}/alone.json"))
pair = [json.load(open(f"{out}/pair-{d}.json")) for d in (0, 1)]
print(f"device: {alone['device']}; {alone['sweeps']} sweeps a case, "
      f"fps after {alone['warmup']} of warm-up")
for row in alone["cases"]:
    if row["name"].startswith("peer "):
        print(f"{row['name']}: device 1 to 0 {row['peer_to_device_gbps']:.1f}"
              f" GB/s, 0 to 1 {row['device_to_peer_gbps']:.1f} GB/s "
              f"(peer access: {row['peer_access']})")
    if row["name"].startswith("bus "):
        print(f"{row['name']}: host to device 0 {row['pinned_h2d_gbps']:.1f}"
              " GB/s pinned")
print(f"\n{'case':38} {'alone':>8} {'dev 0':>8} {'dev 1':>8} {'sum':>8} "
      f"{'ratio':>6}")
for row in alone["cases"]:
    if row["status"] != "ok" or "fps" not in row or row["input"] == "cuda-peer":
        continue
    others = [next(c for c in p["cases"] if c["name"] == row["name"])
              for p in pair]
    if any(o["status"] != "ok" for o in others):
        print(f"{row['name']:38} {row['fps']:8.1f}  (pair: not ok)")
        continue
    total = sum(o["fps"] for o in others)
    print(f"{row['name']:38} {row['fps']:8.1f} {others[0]['fps']:8.1f} "
          f"{others[1]['fps']:8.1f} {total:8.1f} {total / row['fps']:6.2f}")
named = {c["name"]: c for c in alone["cases"]}
native, peer = (named.get("voxelize cuda in, cuda out"),
                named.get("voxelize cuda in from peer, cuda out"))
if native and peer and native["status"] == peer["status"] == "ok":
    print(f"\ncrossing devices: median latency "
          f"{peer['latency_median_us']:.1f} us (sweeps on device 1) against "
          f"{native['latency_median_us']:.1f} us (on device 0): "
          f"{peer['latency_median_us'] - native['latency_median_us']:.1f} us "
          "a sweep")
EOF
