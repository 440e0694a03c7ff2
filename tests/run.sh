#!/usr/bin/env bash
# The whole test suite: installs what is missing, configures, builds and
# runs `meson test`.  Where the CUDA path is built, a second, CPU-only build
# (-Dcuda=disabled) is tested too, so that both configurations stay green.
# GPU tests report SKIP on a machine without a GPU; the closing summary
# says so, one line per reason.  Extra arguments go to `meson test`.
set -euo pipefail
. "$(dirname "$0")/../pipelines/setup.sh"

robocache_install_missing
robocache_install_node
robocache_install_optional "$ROBOCACHE_TEST_PACKAGES" \
  "the tests that need torch report SKIP"

summary=$(mktemp)
skips=$(mktemp)
trap 'rm -f "$summary" "$skips"' EXIT
status=0

run_suite () {
  local dir=$1
  shift
  robocache_build "$dir" "$@"
  meson test -C "$dir" --print-errorlogs "${meson_args[@]}" 2>&1 |
    tee -a "$summary" || status=1
  robocache_skip_reasons "$dir/meson-logs/testlog.txt" >> "$skips"
}

meson_args=("$@")
run_suite "$ROBOCACHE_BUILD"
if grep -q "ROBOCACHE_HAVE_CUDA 1" "$ROBOCACHE_BUILD/gst/config.h"; then
  echo "robocache: testing the CPU-only build as well"
  run_suite "$ROBOCACHE_BUILD-cpu" -Dcuda=disabled
fi

# One closing line over both builds.
awk '/^Ok:/ { ok += $2 } /^Fail:/ { fail += $2 } /^Timeout:/ { fail += $2 }
  /^Unexpected Pass:/ { fail += $3 } /^Skipped:/ { skip += $2 }
  END { printf "tests: %d passed, %d failed, %d skipped\n", ok, fail, skip }' \
  "$summary"
# Then one line per reason a test was skipped for (the "SKIP: reason" its
# output gives; the details in parentheses left out).
sort "$skips" | uniq -c | sort -rn | awk '{ n = $1; sub(/^ *[0-9]+ /, "")
  printf "%d test%s skipped: %s\n", n, n == 1 ? "" : "s", $0 }'
exit $status
