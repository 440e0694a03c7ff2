#!/usr/bin/env bash
# The MCAP sample files written by third-party libraries (write-samples.js)
# read back by the same libraries (check-samples.js): the writer and the
# .expected.jsonl files agree.  SKIP (77) without Node.js or without the
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
