#!/usr/bin/env bash
# robocache_node end to end: roscore on a free port, the node, and
# publish.py publishing a known PointCloud2 and JointState for 3 s and
# checking /robocache/voxels and /robocache/fused; then the same messages
# from a bag through `rosbag play` (the docs/ros.md command); then
# malformed messages among good ones; then two drivers on the joint
# topic with ~joints; then a burst.  The node
# must exit 0 within 5 s of SIGINT each time.  Exits 77 (SKIP) with the
# reason when the node was not built or ROS is not installed.
# Usage: ros_node.sh PATH_TO_robocache_node (empty: not built)
set -u
node=${1:-}
here=$(cd "$(dirname "$0")" && pwd)

skip () { echo "SKIP: $*"; exit 77; }
[ -n "$node" ] && [ -x "$node" ] ||
  skip "robocache_node not built (needs libroscpp-dev, libsensor-msgs-dev, libstd-msgs-dev: pipelines/setup.sh installs them where available)"
command -v roscore >/dev/null || skip "roscore not found (Debian: ros-core)"
python=""
for p in /usr/bin/python3 python3; do
  if "$p" -c "import rospy, sensor_msgs.msg" 2>/dev/null; then
    python=$p
    break
  fi
done
[ -n "$python" ] || skip "no python3 with rospy and sensor_msgs (Debian: python3-rospy python3-sensor-msgs)"

work=$(mktemp -d)
pids=()
cleanup () {
  # Bounded: SIGINT, up to 5 s, then SIGKILL.
  for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export ROS_MASTER_URI=http://127.0.0.1:$port ROS_IP=127.0.0.1
export ROS_HOME=$work/ros ROS_LOG_DIR=$work/log

roscore -p "$port" >"$work/roscore.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  rostopic list >/dev/null 2>&1 && break
  sleep 0.2
done
rostopic list >/dev/null 2>&1 || { cat "$work/roscore.log"; echo "FAIL: roscore did not start"; exit 1; }

rate=20
# The grid as YAML lists (live) and as docs/ros.md writes it (bag).
grid=(_voxel_size:=0.5 "_dims:=[8, 8, 4]" "_origin:=[-2.0, -2.0, -1.0]")
grid_doc=(_voxel_size:=0.5 _dims:=8,8,4 _origin:=-2.0,-2.0,-1.0)
check=("$python" "$here/publish.py" --rate $rate --voxel-size 0.5
  --dims 8,8,4 --origin=-2,-2,-1 --seconds 3)
status=0
# More node parameters for one phase.
extra=()

# Checks that the node's closing line in log $1 counts the bad messages
# publish.py says it sent in $2 ("bad sent: C clouds, J joint states"),
# right after $3.
count_bad () {
  local clouds joints want
  read -r clouds joints < <(sed -n \
    's/^bad sent: \([0-9]*\) clouds, \([0-9]*\) joint states$/\1 \2/p' "$2")
  want="${3:-}$((clouds + joints)) bad ($clouds clouds, $joints joint states)"
  if [ -z "$clouds" ] || ! grep -qF "$want" "$1"; then
    echo "FAIL: the node's closing line does not count \"$want\""
    status=1
  fi
}

# Starts the node; stops it with SIGINT and checks it exits cleanly (0,
# within 5 s).
start_node () {
  "$node" _cloud_topic:=/test/points _joint_topic:=/test/joints \
    _rate:=$rate "${grid[@]}" _backend:="${ROBOCACHE_ROS_BACKEND:-auto}" \
    ${extra[@]+"${extra[@]}"} >>"$work/node.log" 2>&1 &
  node_pid=$!
  pids+=($node_pid)
  for _ in $(seq 100); do
    rostopic list 2>/dev/null | grep -q /robocache/fused && return 0
    sleep 0.1
  done
  echo "FAIL: robocache_node did not advertise /robocache/fused"
  status=1
}
stop_node () {
  kill -INT $node_pid
  for _ in $(seq 50); do kill -0 $node_pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $node_pid 2>/dev/null; then
    echo "FAIL: robocache_node still running 5 s after SIGINT"
    status=1
  else
    wait $node_pid
    node_status=$?
    [ $node_status = 0 ] || { echo "FAIL: robocache_node exited $node_status"; status=1; }
  fi
}

echo "=== live: rospy publisher"
start_node
timeout 60 "${check[@]}" || status=1
stop_node

# The documented command (docs/ros.md) against a bag of the same messages.
echo "=== bag: rosbag play"
"${check[@]}" --write-bag "$work/run.bag" || status=1
grid=("${grid_doc[@]}")
start_node
timeout 60 "${check[@]}" --check-bag "$work/run.bag" --seconds 6 &
checker=$!
pids+=($checker)
sleep 1
timeout 30 rosbag play -q -d 0.5 "$work/run.bag" >"$work/rosbag.log" 2>&1 ||
  { cat "$work/rosbag.log"; echo "FAIL: rosbag play"; status=1; }
wait $checker || status=1
stop_node

# The bag looped (rosbag play -l): its stamps go back 3 s at each loop.
# The node must map them afresh, saying so, and go on publishing fused
# frames in the second pass (was: every message after the loop mapped
# before what the fuse had had, dropped as out of order; joints stale,
# nothing published).
echo "=== loop: rosbag play -l"
mark=$(wc -l <"$work/node.log")
start_node
timeout 20 rosbag play -q -l "$work/run.bag" >"$work/loop.log" 2>&1 &
player=$!
pids+=($player)
sleep 4.5
if ! timeout 5 rostopic echo -n 5 /robocache/fused >"$work/loop-fused.txt" \
    2>&1; then
  echo "FAIL: no fused frames in the bag's second pass"
  status=1
fi
kill -INT $player 2>/dev/null
stop_node
tail -n +$((mark + 1)) "$work/node.log" >"$work/loop-node.log"
grep -q "header stamps went back" "$work/loop-node.log" ||
  { echo "FAIL: the node did not say time went back"; status=1; }
grep -qE "time went back [1-9][0-9]* times" "$work/loop-node.log" ||
  { echo "FAIL: the closing line does not count time going back"; status=1; }

# Malformed messages between good ones (publish.py --malformed): the
# node must publish the good ones' results as before, count exactly the
# malformed ones as bad in its closing line, warn about them through
# ROS, and log no GLib critical or warning (a NULL buffer pushed, a
# g_return_if_fail hit).
echo "=== malformed: bad clouds and joint states"
mark=$(wc -l <"$work/node.log")
start_node
timeout 60 "${check[@]}" --malformed --seconds 2 | tee "$work/malformed.out"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
kill -0 $node_pid 2>/dev/null ||
  { echo "FAIL: robocache_node died on malformed messages"; status=1; }
stop_node
tail -n +$((mark + 1)) "$work/node.log" >"$work/malformed.log"
count_bad "$work/malformed.log" "$work/malformed.out"
for what in cloud "joint state"; do
  grep -q "dropping a malformed $what" "$work/malformed.log" ||
    { echo "FAIL: no warning about a malformed $what"; status=1; }
done
if grep -E "CRITICAL|WARNING \*\*" "$work/malformed.log"; then
  echo "FAIL: GLib criticals or warnings in the node's log"
  status=1
fi

# An arm (j0..j2, 100 Hz) and a gripper (30 Hz) publishing their own
# joints on the one joint topic, the node fusing the arm's through
# ~joints in another order: /robocache/fused must carry those names in
# that order with the arm's values at its stamps, and the closing line
# must count every gripper message as another joint set, none as bad;
# the one arm message without names is bad (~joints cannot find its
# joints), with a warning saying so.
echo "=== two drivers: ~joints"
mark=$(wc -l <"$work/node.log")
# Quoted as YAML may quote them (roscpp passes the text on: the node
# takes the quotes off).
extra=("_joints:=[j2, 'j0', \"j1\"]")
start_node
extra=()
timeout 60 "${check[@]}" --two-drivers j2,j0,j1 --seconds 2 |
  tee "$work/drivers.out"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
stop_node
tail -n +$((mark + 1)) "$work/node.log" >"$work/drivers.log"
gripper=$(sed -n 's/^gripper sent: \([0-9]*\) joint states$/\1/p' \
  "$work/drivers.out")
[ -n "$gripper" ] ||
  { echo "FAIL: no gripper count from publish.py"; status=1; }
count_bad "$work/drivers.log" "$work/drivers.out" "$gripper other joint sets, "
grep -q "no names; ~joints needs them" "$work/drivers.log" ||
  { echo "FAIL: no warning about a joint state without names"; status=1; }

# Parameters that cannot work stop the node at start, saying why: an
# empty joint name (was dropped from "a,,b" and "a,b,"), and a backend
# this machine lacks (was: only "robocache pipeline does not start").
echo "=== refused at start"
# Each run its own node name: the private parameters it sets stay on the
# master after it.
n=0
for arg in _joints:=a,,b _joints:=a,b, "_joints:=[a, '']"; do
  n=$((n + 1))
  if timeout 20 "$node" __name:=refused$n "$arg" >"$work/refused.log" 2>&1
  then
    echo "FAIL: robocache_node started with $arg"
    status=1
  elif ! grep -q "~joints.*empty" "$work/refused.log"; then
    cat "$work/refused.log"
    echo "FAIL: robocache_node refused $arg without saying why"
    status=1
  fi
done
if timeout 5 "$node" __name:=refused_gpu _backend:=gpu \
    >"$work/refused.log" 2>&1; then
  echo "FAIL: robocache_node ended without SIGINT"
  status=1
elif [ $? != 124 ] && ! grep -q "does not start: .*backend=gpu" \
    "$work/refused.log"; then
  cat "$work/refused.log"
  echo "FAIL: robocache_node did not say why backend=gpu does not start"
  status=1
fi

# A burst of clouds 1 ms apart into a 32 M-voxel grid (CPU): the node
# must drop the oldest (counted in its log), publish only right voxel
# clouds, stay within bounded memory, and still stop cleanly.
echo "=== burst: slow pipeline"
grid=(_voxel_size:=0.5 _dims:=1024,1024,32 _origin:=-256,-256,-8)
mv "$work/node.log" "$work/node.log.before"
ROBOCACHE_ROS_BACKEND=cpu start_node
timeout 60 "$python" "$here/publish.py" --burst 200 --voxel-size 0.5 \
  --dims 1024,1024,32 --origin=-256,-256,-8 --seconds 3 || status=1
hwm=$(awk '/VmHWM/ { print $2 }' /proc/$node_pid/status 2>/dev/null || echo 0)
echo "robocache_node peak memory: ${hwm} kB"
if [ "${hwm:-0}" -gt 2000000 ]; then
  echo "FAIL: robocache_node peak memory ${hwm} kB (queued clouds?)"
  status=1
fi
stop_node
if ! grep -qE "dropped [1-9][0-9]* clouds" "$work/node.log"; then
  echo "FAIL: no dropped clouds counted in the burst"
  status=1
fi
cat "$work/node.log.before" "$work/node.log" >"$work/node.log.all"
mv "$work/node.log.all" "$work/node.log"

echo "--- robocache_node log"
cat "$work/node.log"
exit $status
