#!/bin/bash
# Fiftieth session, call 319, one H200: the session's fixes from audits of
# dynamic pipelines (robocachefuse: pads released while playing, pad
# properties from gst-launch, stream names, a loop's segments, a master
# moved while playing, GAP events and segment seeks; the recording
# sources' pads kept across restarts and GAPs at a pass's end; the MCAP
# recovery's reason; robocachemcapsink's pad names).
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time.
# 2. The python suite, on the CPU and (its CUDA device) the GPU.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests python --suite python
grep -E "skipped|Ran |^OK|FAILED" "$B/meson-logs/testlog.txt" | head -30 > "$R/python-notes.txt"
pack done
