#!/bin/bash
# Twenty-eighth session, call 172: the whole suite on 8e0bca1's build (the
# records' division since call 169's run of it), and memcheck over the
# means' and centroids' tests.
CALL_SECONDS=420 . docs/bench/call-lib.sh "$1"
sanitize memcheck kernels_voxelize_gpu test_mean_records_reused,test_mean_slabs,test_scan_order,test_centroid_records,test_mean_scratch_reused,test_centroids_scratch_reused,test_odd_grid_several_clouds
timeout $(( $(left) - 10 )) meson test -C build --no-rebuild --print-errorlogs > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack meson test
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
cat $R/timeline.txt
