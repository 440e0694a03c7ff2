#!/bin/bash
# Forty-ninth session, call 317, one H200: b483c49.
# 1. The GPU tests (tests/gpu-sanitize.sh --list), 8 at a time: the
#    pipelines' streaming threads now robocache's own task pool's
#    (robocache_pipeline_use_own_threads), the recording sources taking
#    an EOS sent to the pipeline, the MCAP read-ahead on threads of its
#    own.
# 2. The python suite: among it python-dataset's new fork test, on the
#    CPU and (its CUDA device) the GPU, and the pipeline tests.
CALL_SECONDS=400 . docs/bench/call-lib.sh "$1"
export CK_DEFAULT_TIMEOUT=120
meson_parallel gpu 220 "${GPU_TESTS[@]}"
meson_tests python --suite python
grep -E "test_fork|test_pipeline_in_a_child|test_folder_of|test_error_drops|skipped|Ran |^OK|FAILED" "$B/meson-logs/testlog.txt" | head -30 > "$R/python-notes.txt"
pack done
