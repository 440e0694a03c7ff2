# Sourced by the device calls' scripts (docs/bench/runN/callM.sh), run as
# `. .device/gst-env.sh && bash docs/bench/runN/callM.sh $OUT` on the GPU
# machine: the build's libraries on the path, results under $OUT/r packed
# into $OUT/r.tgz after each step (what a call cut short still returns),
# and the kernel libraries of .device/fvars.tar.xz (ms/NAME/, built here
# from other commits) to time against the build's ("new").
#
#   CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
#
# CALL_SECONDS (400) bounds left(); ab_bench starts a run only while more
# than AB_MARGIN (60) seconds are left.  meson_tests, test_programs,
# sanitize and ncu_kernels run and file the suite's tests, test programs,
# compute-sanitizer and ncu as the calls' scripts did by hand up to run
# 191 (test_programs: run 194).  Both limits are read here, while this
# file is sourced (bash drops such prefix assignments after `.`).
set -u
CALL_LIMIT=${CALL_SECONDS:-400}
AB_LIMIT=${AB_MARGIN:-60}
OUT=$1
B=$PWD/build
export LD_LIBRARY_PATH=$B/gst:$B/kernels:${LD_LIBRARY_PATH:-}
BASE_LD=$LD_LIBRARY_PATH
R=$OUT/r
mkdir -p "$R"
t0=$(date +%s)
V=/tmp/vars
mkdir -p $V
[ -f .device/fvars.tar.xz ] && tar xJf .device/fvars.tar.xz -C $V

# Marks a step in timeline.txt and packs what is there so far.
pack () {
  echo "$(( $(date +%s) - t0 )) s: $*" >> "$R/timeline.txt"
  tar czf "$OUT/r.$BASHPID" -C "$OUT" r && mv "$OUT/r.$BASHPID" "$OUT/r.tgz"
}

# Seconds left of CALL_SECONDS.
left () { echo $(( CALL_LIMIT - ($(date +%s) - t0) )); }

# LD_LIBRARY_PATH for kernel library NAME ("new": the build's).
lib () { [ "$1" = new ] && echo "$BASE_LD" || echo "$V/ms/$1:$BASE_LD"; }

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
date -u >> "$R/gpu.txt"
# A library the plugin needs and this machine lacks fails every test that
# loads it: stop here instead (run 158, call 136 and call 240 were lost
# so, prepared without libdeflate0).
if ! bash tests/device-libs-check.sh "$B" > "$R/libs.txt" 2>&1; then
  cat "$R/libs.txt"
  pack "libraries missing"
  exit 1
fi

# bench-kernels ARGS.. run with each kernel library of LIBS in turn (names
# may repeat: alternate them), while more than AB_MARGIN s are left; then
# $R/ab-TAG.txt: each workload's one-call median (µs) a column per run, in
# LIBS' order.
ab_bench () {
  local tag=$1 libs=$2 l n cols=()
  shift 2
  for l in $libs; do
    [ $(left) -gt $AB_LIMIT ] || break
    n=$(ls "$R"/ab-$tag-$l-*.txt 2>/dev/null | wc -l); n=$((n + 1))
    LD_LIBRARY_PATH=$(lib $l) timeout 90 $B/tests/bench-kernels "$@" \
      --json "$R/ab-$tag-$l-$n.json" > "$R/ab-$tag-$l-$n.txt" 2>&1
    echo rc=$? >> "$R/ab-$tag-$l-$n.txt"
    cols+=("$R/ab-$tag-$l-$n.txt"); pack "bench $tag $l $n"
  done
  [ ${#cols[@]} -gt 0 ] || return
  local tmp=$R/.ab-$tag i=0
  mkdir -p "$tmp"
  grep -E '^[a-z]+-' "${cols[0]}" | awk '{print $1}' > "$tmp/000"
  for c in "${cols[@]}"; do
    i=$((i + 1))
    grep -E '^[a-z]+-' "$c" | awk '{print $2}' > "$tmp/$(printf %03d $i)"
  done
  { echo "workload ${cols[*]##*/}"; paste -d' ' "$tmp"/*; } > "$R/ab-$tag.txt"
  rm -rf "$tmp"
  pack "ab $tag"
}

# The test programs NAMES.. of build/tests run directly (a lean carry has
# no meson build), each into $R/test-NAME.txt; their last lines.
test_programs () {
  local t
  for t in "$@"; do
    timeout 150 "$B/tests/$t" > "$R/test-$t.txt" 2>&1
    echo rc=$? >> "$R/test-$t.txt"
    tail -2 "$R/test-$t.txt"
  done
  pack tests
}

# The meson tests NAMES.. into $R/meson-TAG.txt, and their summary.
meson_tests () {
  local tag=$1
  shift
  timeout 240 meson test -C "$B" --no-rebuild --print-errorlogs "$@" \
    > "$R/meson-$tag.txt" 2>&1
  echo rc=$? >> "$R/meson-$tag.txt"
  pack "meson $tag"
  grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" "$R/meson-$tag.txt"
}

# The meson tests NAMES.. (the whole suite without names) 8 at a time,
# stopped after SECONDS, into $R/meson-TAG.txt; a line a test and the
# summary, and elements-cuda's restart readings added to $R/restarts.txt
# (how calls 275 to 278 ran them by hand).  GPU_TESTS holds the GPU tests
# as tests/gpu-sanitize.sh picks them.
meson_parallel () {
  local tag=$1 seconds=$2
  shift 2
  # Every posted error logged: a harness whose element does not start
  # says only that (run 210, call 293), and a failing test's log is kept.
  GST_DEBUG=${GST_DEBUG:-GST_ERROR_SYSTEM:4} \
    timeout "$seconds" meson test -C "$B" --no-rebuild --print-errorlogs \
    --num-processes 8 "$@" > "$R/meson-$tag.txt" 2>&1
  echo rc=$? >> "$R/meson-$tag.txt"
  grep -E "resident memory|device memory free" "$B/meson-logs/testlog.txt" \
    >> "$R/restarts.txt"
  pack "meson $tag"
  grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:|rc=" \
    "$R/meson-$tag.txt"
}
mapfile -t GPU_TESTS < <(bash tests/gpu-sanitize.sh --list "$B")

# compute-sanitizer's TOOL over the check tests CHECKS (comma-separated,
# as GST_CHECKS takes them; empty: all) of the test program PROGRAM (in
# build/tests; the build's plugin on GStreamer's path and check's timeout
# as meson gives the element tests: call 287's ran out of check's own 4 s),
# into $R/TOOL-PROGRAM.txt.
sanitize () {
  local tool=$1 program=$2 checks=$3 out=$R/$1-$2.txt
  GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry-new.bin \
    CK_DEFAULT_TIMEOUT=140 GST_CHECKS=$checks \
    timeout 150 compute-sanitizer --tool "$tool" \
    --error-exitcode 9 "$B/tests/$program" > "$out" 2>&1
  echo rc=$? >> "$out"
  pack "$tool $program"
  tail -3 "$out"
}

# The checks CHECKS (as GST_CHECKS takes them) of the test program
# PROGRAM against each mutant NAME built here, which should fail them: a
# kernel library ms/NAME of .device/fvars.tar.xz, or else a plugin
# .device/NAME/libgstrobocache.so (as calls 293 and 294 ran them by hand):
# into $R/NAME.txt, a line each (and its first failure) into
# $R/mutants.txt.
mutants () {
  local program=$1 checks=$2 m where
  shift 2
  for m in "$@"; do
    where=(GST_PLUGIN_PATH_1_0=$PWD/.device/$m)
    [ -d "$V/ms/$m" ] &&
      where=(LD_LIBRARY_PATH="$(lib "$m")" GST_PLUGIN_PATH_1_0=$B/gst)
    env "${where[@]}" GST_REGISTRY_1_0=/tmp/rc-registry-$m.bin CK_DEFAULT_TIMEOUT=140 \
      GST_CHECKS=$checks timeout 150 "$B/tests/$program" > "$R/$m.txt" 2>&1
    echo rc=$? >> "$R/$m.txt"
    echo "$m: $(grep -E '^[0-9]+%:|rc=' "$R/$m.txt" | tr '\n' ' ')"
    grep -m1 -E ":F:|:E:" "$R/$m.txt"
  done | tee -a "$R/mutants.txt"
  pack "mutants $program"
}

# The Python test TEST (module.Class.method of tests/python) against each
# package build/NAME (a mutant built here, which should fail it): into
# $R/NAME.txt, a line each into $R/mutants.txt (calls 307 and 311).
py_mutants () {
  local test=$1 m
  shift
  for m in "$@"; do
    PYTHONPATH=$B/$m:$PWD/tests/python timeout 120 python3 \
      "tests/python/${test%%.*}.py" "${test#*.}" > "$R/$m.txt" 2>&1
    echo rc=$? >> "$R/$m.txt"
    echo "$m: $(grep -E '^(OK|FAILED)|^rc=' "$R/$m.txt" | tr '\n' ' ')" |
      tee -a "$R/mutants.txt"
  done
  pack "mutants $test"
}

# tests/bench/SCRIPT.py --runs 200 with each package build/NAME of
# PACKAGES in turn, ROUNDS times, while more than 40 s are left: into
# $R/TAG-NAME-ROUND.txt and .json, each printed.
py_bench () {
  local script=$1 tag=$2 rounds=$3 packages=$4 i p
  for i in $(seq "$rounds"); do
    for p in $packages; do
      [ $(left) -gt 40 ] || return
      PYTHONPATH=$B/$p:$PWD/tests/python timeout 120 python3 \
        "tests/bench/$script.py" --runs 200 --json "$R/$tag-$p-$i.json" \
        > "$R/$tag-$p-$i.txt" 2>&1
      echo rc=$? >> "$R/$tag-$p-$i.txt"
      pack "$tag $p $i"
      echo "== $p $i"; cat "$R/$tag-$p-$i.txt"
    done
  done
}

# COUNT copies of the test program PROGRAM's checks CHECKS at once, ROUNDS
# times, with posted errors logged (as call 294 ran test_gpu_chunk_cuts by
# hand after a failure seen once with 8 tests at a time): into
# $R/TAG-ROUND-I.txt, a line each with its first failure into $R/TAG.txt.
at_once () {
  local program=$1 checks=$2 count=$3 rounds=$4 tag=$5 round i f
  for round in $(seq "$rounds"); do
    for i in $(seq "$count"); do
      f=$R/$tag-$round-$i.txt
      # The exit status too: call 304's first round left no check summary
      # and no word of why (timeout's 150 s, by the times).
      (GST_DEBUG=${GST_DEBUG:-GST_ERROR_SYSTEM:4} GST_PLUGIN_PATH_1_0=$B/gst \
        GST_REGISTRY_1_0=/tmp/rc-registry-new.bin CK_DEFAULT_TIMEOUT=140 \
        GST_CHECKS=$checks timeout 150 "$B/tests/$program" > "$f" 2>&1
        echo rc=$? >> "$f") &
    done
    wait
  done
  for f in "$R"/$tag-*-*.txt; do
    echo "${f##*/}: $(grep -E '^[0-9]+%:|^rc=' "$f" | tr '\n' ' ')"
    grep -m3 -E ":E:|:F:|Bail|posting message|ERROR" "$f"
  done | tee "$R/$tag.txt"
  pack "$tag"
}

# ncu's METRICS (comma-separated; gpu__time_duration.sum, the kernel's
# time, among them) of the first COUNT kernels matching REGEX in
# bench-kernels ARGS.. with kernel library LIB, into $R/ncu-TAG.csv;
# prints kernel, metric and value a line.
ncu_kernels () {
  local tag=$1 l=$2 regex=$3 count=$4 metrics=$5
  shift 5
  LD_LIBRARY_PATH=$(lib "$l") timeout 60 ncu --cache-control none \
    --metrics "$metrics" -k regex:"$regex" --launch-count "$count" --csv \
    "$B/tests/bench-kernels" "$@" > "$R/ncu-$tag.csv" 2>&1
  pack "ncu $tag"
  grep -E '^"[0-9]' "$R/ncu-$tag.csv" |
    awk -F'","' '{sub(/\(.*/, "", $5); print $5, $(NF-2), $NF}' | tr -d '"'
}

# bench-pipeline ARGS.. with each plugin of PLUGINS in turn, ROUNDS times
# (alternated, as calls 280 to 282 did by hand), while more than AB_MARGIN
# s are left: PLUGINS are NAME=DIR words, DIR a folder holding a
# libgstrobocache.so ("new=": the build's), each with a registry of its
# own, and the kernel library beside it if DIR has one (a plugin built
# against another kernel API); into $R/pipeline-NAME-K.txt (stderr
# apart, in .err), and
# $R/ab-pipeline-TAG.txt: the resample rows' chunks/s and median latency
# a run.
ab_plugins () {
  local tag=$1 rounds=$2 plugins=$3 k p name dir
  shift 3
  for k in $(seq "$rounds"); do
    for p in $plugins; do
      [ $(left) -gt $AB_LIMIT ] || break 2
      name=${p%%=*} dir=${p#*=}
      LD_LIBRARY_PATH=${dir:+$dir:}$BASE_LD \
        GST_PLUGIN_PATH_1_0=${dir:-$B/gst} \
        GST_REGISTRY_1_0=/tmp/rc-registry-$name.bin \
        timeout 90 "$B/tests/bench-pipeline" "$@" \
        --json "$R/pipeline-$name-$k.json" > "$R/pipeline-$name-$k.txt" \
        2> "$R/pipeline-$name-$k.err"
      echo rc=$? >> "$R/pipeline-$name-$k.txt"
      pack "pipeline $name $k"
    done
  done
  for p in $plugins; do
    for f in "$R"/pipeline-${p%%=*}-*.txt; do
      [ -f "$f" ] || continue
      printf "%s " "${f##*/}"
      grep -E "^resample chunks (pageable|pinned|cuda)" "$f" |
        awk '{ printf "%s %s  ", $(NF-3), $(NF-1) } END { print "" }'
    done
  done | tee "$R/ab-pipeline-$tag.txt"
  pack "ab pipeline $tag"
}
