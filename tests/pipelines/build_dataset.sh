#!/usr/bin/env bash
# pipelines/build-dataset.sh as the README runs it: without arguments the
# sample data (bag and MCAP) into shards with pipelines/build-dataset.toml:
# 30 samples each in gzip shards, the camera scaled to 80 x 60, read
# back with numpy alone; a second run skips both; arguments go to python3 -m
# robocache.dataset (a bad configuration is refused by name, status 2).
# SKIP without python rosbag (tests/run.sh installs it).
# Usage: build_dataset.sh SOURCE_ROOT
set -euo pipefail
. "$(dirname "$0")/prelude.sh" "$@"
skip_without_rosbag
export ROBOCACHE_SAMPLE_DATA=$tmp/sample ROBOCACHE_DATASET=$tmp/dataset

echo "== the sample data into shards"
"$root/pipelines/build-dataset.sh" | tee "$tmp/first"
grep -q "2 built, 0 already built (skipped), 0 failed" "$tmp/first" ||
  fail "not two recordings built"
grep -q "samples:    60 in 2 shards" "$tmp/first" || fail "not 60 samples"
/usr/bin/python3 - "$tmp/dataset" <<'PY' || fail "shards do not read back"
import io, json, os, sys, tarfile
import numpy as np
out = sys.argv[1]
manifest = json.load(open(os.path.join(out, "manifest.json")))
for entry in manifest["recordings"]:
    assert entry["status"] == "done" and entry["samples"] == 30, entry
    for shard in entry["shards"]:
        assert shard["name"].endswith(".tar.gz"), shard   # gzip in the toml
        with tarfile.open(os.path.join(out, "shards", shard["name"])) as tar:
            arrays = {m.name: np.load(io.BytesIO(tar.extractfile(m).read()))
                      for m in tar if m.name.endswith(".npy")}
        grids = [a for n, a in arrays.items() if n.endswith(".grid.npy")]
        images = [a for n, a in arrays.items() if n.endswith(".image.npy")]
        joints = [a for n, a in arrays.items() if n.endswith(".joints.npy")]
        assert len(grids) == 30 and grids[0].shape == (16, 128, 128), grids
        assert sum(int(g.sum()) for g in grids) > 0
        assert images[0].shape == (60, 80, 3), images[0].shape
        assert joints[0].shape == (21, 12), joints[0].shape   # 6 pos + 6 vel
print("shards read back: 60 grids, images 80 x 60, joints 21 x 12")
PY

echo "== again: both skipped"
"$root/pipelines/build-dataset.sh" | tee "$tmp/second"
grep -q "0 built, 2 already built (skipped)" "$tmp/second" ||
  fail "the second run built again"

echo "== a bad configuration"
echo '{"grid": {"mode": "sum"}}' > "$tmp/bad.json"
status=0
"$root/pipelines/build-dataset.sh" -c "$tmp/bad.json" -o "$tmp/bad" \
  "$tmp/sample/sample.bag" > "$tmp/bad.log" 2>&1 || status=$?
[ "$status" = 2 ] || fail "status $status for a bad configuration"
grep -q "grid.mode = 'sum'; accepted" "$tmp/bad.log" || fail "$(cat "$tmp/bad.log")"
echo "PASS"
