#!/usr/bin/env bash
# The MCAP sample files written by third-party libraries (write-samples.js)
# read back by the same libraries (check-samples.js): the writer and the
# .expected.jsonl files agree.  With ROSDUMP (tests/formats/rosdump.c),
# robocache's reader and CDR decoders then read every file (the MCAP files
# and the rosbag2 SQLite ones SQLite wrote, write-db3.js), and the three
# files of split/ and of split-db3/ as one recording each, each value
# compared with the writer's (compare.py).
# Usage: samples.sh [ROSDUMP]  SKIP (77) without Node.js or without the
# packages (cd tests/mcap && npm ci).  A fresh seed each run, printed;
# MCAP_SAMPLES_SEED=N replays one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node (Node.js) not found on PATH"
  exit 77
fi
if [ ! -d "$here/node_modules/@mcap/core" ]; then
  echo "SKIP: $here/node_modules/@mcap/core missing; run: cd tests/mcap && npm ci"
  exit 77
fi

seed="${MCAP_SAMPLES_SEED:-$(( (RANDOM << 15) | RANDOM ))}"
out="$(mktemp -d "${TMPDIR:-/tmp}/mcap-samples.XXXXXX")"
trap 'rm -rf "$out"' EXIT

node "$here/write-samples.js" "$out" --seed "$seed"
node "$here/check-samples.js" "$out"

if [ $# -ge 1 ]; then
  status=0
  for f in "$out"/*.mcap "$out"/*.db3; do
    if ! "$1" "$f" > "$f.got.jsonl"; then
      echo "rosdump failed on $(basename "$f")"
      status=1
    elif python3 "$here/compare.py" "$f.expected.jsonl" "$f.got.jsonl"; then
      echo "robocache reads $(basename "$f"): $(( $(wc -l < "$f.got.jsonl") - 1 )) messages as written"
    else
      status=1
    fi
  done
  # The split recordings, their files read as one.
  for split in split split-db3; do
    if ! "$1" "$out/$split"/"$split"_*.* > "$out/$split.got.jsonl"; then
      echo "rosdump failed on $split/"
      status=1
    elif python3 "$here/compare.py" "$out/$split.expected.jsonl" \
        "$out/$split.got.jsonl"; then
      echo "robocache reads $split/ (3 files):" \
        "$(( $(wc -l < "$out/$split.got.jsonl") - 1 )) messages as written"
    else
      status=1
    fi
  done
  exit $status
fi
