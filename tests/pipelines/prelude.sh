# Sourced by the script tests of pipelines/ (meson test runs each with the
# source root as its argument): ROBOCACHE_BUILD (the build under test),
# pipelines/setup.sh, a scratch folder $tmp removed on exit, fail, and
# skip_without_rosbag.
root=${1:?usage: $0 SOURCE_ROOT}
: "${GST_PLUGIN_PATH_1_0:?run through meson test}"
export ROBOCACHE_BUILD
ROBOCACHE_BUILD=$(dirname "$GST_PLUGIN_PATH_1_0")
. "$root/pipelines/setup.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail () { echo "FAIL: $*"; exit 1; }

# Exits 77 (SKIP) where no python3 has rosbag (the sample data's bag
# writer).
skip_without_rosbag () {
  if [ -z "$(robocache_python_rosbag)" ]; then
    echo "SKIP: no python3 with rosbag (python3-rosbag, installed by tests/run.sh)"
    exit 77
  fi
}
