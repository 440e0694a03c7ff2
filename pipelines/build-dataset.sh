#!/usr/bin/env bash
# Turns recordings into training shards: python3 -m robocache.dataset
# with the package of the build (docs/dataset.md).  Every argument goes to
# it; without any, the sample data (pipelines/sample-data.sh: a ROS 1 bag
# and the same as MCAP) is built with pipelines/build-dataset.toml into
# $ROBOCACHE_DATASET (default build/dataset).
# Usage: pipelines/build-dataset.sh [-c CONFIG] -o OUT RECORDING|FOLDER|@LIST ...
#            [--jobs N] [--device auto|cpu|cuda]
#            [--slurm [--group N] [--slurm-option OPT]... [--wait]]
set -euo pipefail
. "$(dirname "$0")/setup.sh"

[ -f "$ROBOCACHE_BUILD/build.ninja" ] || robocache_build >/dev/null
robocache_env
export PYTHONPATH=$ROBOCACHE_BUILD/python${PYTHONPATH:+:$PYTHONPATH}
python=python3
/usr/bin/python3 -c "import numpy" 2>/dev/null && python=/usr/bin/python3

if [ $# = 0 ]; then
  data=${ROBOCACHE_SAMPLE_DATA:-$ROBOCACHE_BUILD/sample-data}
  "$(dirname "$0")/sample-data.sh" "$data" >/dev/null
  set -- -c "$ROBOCACHE_ROOT/pipelines/build-dataset.toml" \
    -o "${ROBOCACHE_DATASET:-$ROBOCACHE_BUILD/dataset}" \
    "$data/sample.bag" "$data/sample.mcap"
  echo "building the sample data: $python -m robocache.dataset $*"
fi
exec "$python" -m robocache.dataset "$@"
