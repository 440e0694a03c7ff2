#!/bin/bash
# Thirty-sixth session, call 225: the whole suite on the session's code
# after call 224 (Pipeline: closed pipelines let go of their elements,
# pulls take turns across threads, close() from another thread; the
# dataset builder's shards, samples and configuration checks), carried
# whole; then the Pipeline and dataset tests twice more.
CALL_SECONDS=330 . docs/bench/call-lib.sh "$1"
meson_tests all
meson_tests again python-pipeline python-pipeline-gpu python-dataset \
  python-dataset-build
meson_tests again2 python-pipeline python-pipeline-gpu
cat $R/timeline.txt
