#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck over
# every GPU test of a meson build (docs/reliability.md, Records).
#
#   tests/gpu-sanitize.sh BUILD [OUT] [TEST ...]
#   tests/gpu-sanitize.sh --list BUILD     (the GPU tests' names, a line each)
#
# The GPU tests are those of `meson test --list` whose names say so
# (*-gpu, elements-cuda, -gpufaults, -multigpu, -transfers) and the
# element and pipeline tests with GPU cases (pillars, resample, bev,
# record-replay; elements-voxelize has none: its GPU cases are in
# elements-cuda and elements-transfers); name tests to run those instead.
# Each tool runs each test with --error-exitcode, following child processes
# (gst-launch in the pipeline scripts, Python); its log is
# OUT/TOOL/testlog.json.
# OUT/summary.md gets one line per tool and test: meson's result and the
# errors compute-sanitizer counted ("ERROR SUMMARY"), and the totals, over
# every tool run into OUT so far.  The exit status is 0 only with no error
# and no failed test.
#
# To fit a time limit: ROBOCACHE_SANITIZE_TOOLS="memcheck ..." runs fewer
# tools, ROBOCACHE_SANITIZE_PARALLEL=1 runs the tools at once (a test at a
# time within each), ROBOCACHE_SANITIZE_SECONDS=N stops each tool's run
# after N seconds (its finished tests are still summed up), and
# ROBOCACHE_SANITIZE_TESTS_<tool>="TEST ..." (the tool as named above,
# ROBOCACHE_SANITIZE_TESTS_memcheck) gives one tool a list of its own
# (e.g. to finish what an earlier, interrupted run left); a `|` in that list
# cuts it into lanes that run side by side ("A B | C": A then B, and C
# meanwhile), so that one slow test does not hold up the tool's others.
#
# Under the sanitizer the tests see ROBOCACHE_SANITIZER=TOOL (elements-gpufaults
# leaves out its test that fills the device with grids of 8 GiB; under
# initcheck, elements-cuda its case of two contexts of one device, whose
# copies initcheck does not see write: docs/bench/run207/README.md) and
# ROBOCACHE_REFUSED_RUNS=20 (refused-caps loops run 20 times, not 200).
set -u

# The GPU tests of @build's suite.
gpu_tests () {
  meson test -C "$1" --no-rebuild --list 2>/dev/null |
    sed -n 's/^[^ ]* \/ //p' |
    grep -E -- '-gpu$|^elements-(cuda|gpufaults|multigpu|transfers|pillars|resample|bev)$|^pipelines-record-replay$'
}
if [ "${1:-}" = --list ]; then
  gpu_tests "${2:?usage: tests/gpu-sanitize.sh --list BUILD}"
  exit
fi

build=${1:?usage: tests/gpu-sanitize.sh BUILD [OUT] [TEST ...]}
out=${2:-$build/sanitize}
shift $(( $# >= 2 ? 2 : 1 ))
tools=${ROBOCACHE_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$sanitizer" ] || { echo "no compute-sanitizer (CUDA toolkit)" >&2; exit 2; }

if [ $# -gt 0 ]; then
  tests=("$@")
else
  mapfile -t tests < <(gpu_tests "$build")
fi
[ ${#tests[@]} -gt 0 ] || { echo "no GPU tests found in $build" >&2; exit 2; }
echo "tests: ${tests[*]}"
echo "tools: $tools"
mkdir -p "$out"

# One meson run of @tool over the tests after it, with logs of its own
# (--logbase NAME, NAME.txt) so that tools and lanes can run side by side.
# ROBOCACHE_SANITIZE_SECONDS bounds a tool's runs together, from @started.
sanitize_run () {
  local tool=$1 name=$2 options=$3 limit=${ROBOCACHE_SANITIZE_SECONDS:-0}
  shift 3
  if [ "$limit" != 0 ]; then
    limit=$(( limit - ($(date +%s) - started) ))
    [ "$limit" -gt 0 ] || return 0
  fi
  ROBOCACHE_SANITIZER=$tool ROBOCACHE_REFUSED_RUNS=20 \
    timeout "$limit" \
    meson test -C "$build" --no-rebuild --num-processes 1 \
      --timeout-multiplier 20 --logbase "$name" \
      --wrapper "$sanitizer --tool $tool --error-exitcode 99 --target-processes all $options" \
      "$@" > "$out/$tool/$name.txt" 2>&1
  # meson adds "-" and the wrapper's name to the log's ("-*", not "*": lane
  # 1's name is the start of lane 10's).
  cat "$build/meson-logs/$name"-*.json > "$out/$tool/$name.json"
}

# One lane of @tool: its tests (after @lane, the lane's number) one at a
# time.  memcheck checks for leaks except in the Python tests: torch's
# caching allocator keeps its blocks to the end by design, and the
# stream-ordered frees of robocache's arrays into their pool are reported
# as leaks while the device's memory stays flat over 10,000 calls
# (python-kernels-gpu measures that outside the sanitizer).
sanitize_lane () {
  local tool=$1 lane=$2 plain=() python=() t
  shift 2
  for t in "$@"; do
    case $t in
      python-*) python+=("$t") ;;
      *) plain+=("$t") ;;
    esac
  done
  if [ "$tool" = memcheck ]; then
    [ ${#plain[@]} -eq 0 ] ||
      sanitize_run memcheck "sanitize-memcheck-$lane" "--leak-check full" \
        "${plain[@]}"
    [ ${#python[@]} -eq 0 ] ||
      sanitize_run memcheck "sanitize-memcheck-python-$lane" "" "${python[@]}"
  else
    sanitize_run "$tool" "sanitize-$tool-$lane" "" "$@"
  fi
}

# One tool over its tests, lane by lane side by side; then its logs
# gathered into OUT/TOOL/meson.txt and OUT/TOOL/testlog.json.
sanitize_with () {
  local tool=$1 own="ROBOCACHE_SANITIZE_TESTS_$1" list lane=() n=0 t
  local started
  started=$(date +%s)
  # shellcheck disable=SC2206
  list=(${!own:-${tests[*]}} "|")
  mkdir -p "$out/$tool"
  rm -f "$out/$tool"/sanitize-*
  for t in "${list[@]}"; do
    if [ "$t" != "|" ]; then
      lane+=("$t")
    elif [ ${#lane[@]} -gt 0 ]; then
      n=$((n + 1))
      sanitize_lane "$tool" "$n" "${lane[@]}" &
      lane=()
    fi
  done
  wait
  cat "$out/$tool"/sanitize-*.txt > "$out/$tool/meson.txt" 2>/dev/null
  cat "$out/$tool"/sanitize-*.json > "$out/$tool/testlog.json" 2>/dev/null
  echo "== $tool"
  grep -E '^ *[0-9]+/[0-9]+ ' "$out/$tool/meson.txt"
}

for tool in $tools; do
  if [ "${ROBOCACHE_SANITIZE_PARALLEL:-0}" = 1 ]; then
    sanitize_with "$tool" &
  else
    sanitize_with "$tool"
  fi
done
wait

python3 - "$out" <<'EOF'
import json, os, re, sys

out = sys.argv[1]
tools = [t for t in ("memcheck", "racecheck", "synccheck", "initcheck")
         if os.path.exists("%s/%s/testlog.json" % (out, t))]
lines = ["| tool | test | result | errors |", "| --- | --- | --- | --- |"]
total_errors = bad = 0
for tool in tools:
    with open("%s/%s/testlog.json" % (out, tool)) as f:
        for line in f:
            t = json.loads(line)
            text = (t.get("stdout") or "") + (t.get("stderr") or "")
            # racecheck sums up as "RACECHECK SUMMARY: N hazards displayed
            # (E errors, W warnings)", the others as "ERROR SUMMARY: E errors".
            counts = [int(n) for n in
                      re.findall(r"ERROR SUMMARY: (\d+) error", text) +
                      re.findall(r"RACECHECK SUMMARY: \d+ hazards? displayed "
                                 r"\((\d+) error", text)]
            errors = sum(counts)
            total_errors += errors
            bad += t["result"] not in ("OK", "SKIP")
            lines.append("| %s | %s | %s | %s |" % (
                tool, t["name"], t["result"],
                errors if counts else "no summary"))
lines.append("")
lines.append("total: %d errors, %d tests not OK or SKIP" % (total_errors, bad))
with open("%s/summary.md" % out, "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if total_errors or bad else 0)
EOF
