#!/usr/bin/env bash
# pipelines/demo.sh (DEMO_SECONDS=1, no setup: the build under test): a
# header per section with its settings, values in the joints section, the
# closing summary with the backend, one line per section and the files.
# Without python rosbag (the recording section's sample data is written
# with it), as on the GPU machine, the other four sections run and are
# checked, and a line says the recording section was left out.
# Usage: demo.sh SOURCE_ROOT
set -euo pipefail
. "$(dirname "$0")/prelude.sh" "$@"
export ROBOCACHE_SAMPLE_DATA=$tmp/sample DEMO_SECONDS=1 DEMO_NO_SETUP=1
recording=("^== recording: " "^30 fused frames$"
  "^recording: 30 fused frames from the sample bag")
if [ -z "$(robocache_python_rosbag)" ]; then
  echo "no python3 with rosbag (python3-rosbag, installed by tests/run.sh):" \
    "the recording section is left out"
  export DEMO_SECTIONS="lidar joints fusion bev"
  recording=()
fi
"$root/pipelines/demo.sh" | tee "$tmp/out"
for want in "^== backend: \(cpu\|gpu\)" "^== lidar: " "^   grid: .*0.2 m" \
    "^sweep t=.*occupied=" "^== joints: " \
    "^resampled sample    2  t=0.010 s  j0=[-+][0-9.]*   from input" \
    "^== fusion: " "${recording[@]}" \
    "^== summary (.* s, backend \(cpu\|gpu\))" \
    "^lidar: *10 sweeps voxelized, [0-9.]* ms a sweep on \(cpu\|gpu\)" \
    "^joints: .*resampled to [0-9]* at 100 Hz" \
    "^fusion: *[0-9][0-9]* fused frames" \
    "^== bird's-eye view: " "^bev: .*bev.png" "^files: "; do
  grep -q "$want" "$tmp/out" || fail "no line matching: $want"
done
# The picture is a PNG of the default 512 x 512 view.
png=$(sed -n "s/^bird's-eye view picture: //p" "$tmp/out")
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "$png is not a PNG"
echo "PASS"
