#!/bin/bash
# Thirty-third session, call 205: 22eb711 (the session's last kernel
# code) through the elements that run the fusion kernel on the GPU:
# kernels_fuse_gpu, elements_fuse, elements_transfers and
# elements_gpufaults, run as meson runs them (its environment), carried
# lean (the plugin, its libraries and these test programs).
CALL_SECONDS=170 . docs/bench/call-lib.sh "$1"
export GST_PLUGIN_PATH_1_0=$B/gst GST_REGISTRY_1_0=/tmp/rc-registry.bin \
  CK_DEFAULT_TIMEOUT=120 \
  GST_STATE_IGNORE_ELEMENTS='robocachebagsrc robocachemcapsrc robocachemcapsink'
test_programs kernels_fuse_gpu elements_fuse elements_transfers elements_gpufaults
cat $R/timeline.txt
