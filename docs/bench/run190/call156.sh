#!/bin/bash
# Twenty-sixth session, call 156: the pillars' locate step adds a warp's
# run of neighbouring points in one cell in one atomic ("new", on d1401ad,
# "base").  The pillars' GPU tests and synccheck first; the pillars of
# lidar points in no order and of sweeps in scan order (ring by ring,
# column by column), base and new alternated; each step's kernel times at
# 4 million points in column order under ncu, base and new.
CALL_SECONDS=560 . docs/bench/call-lib.sh "$1"
timeout 150 meson test -C build --no-rebuild --print-errorlogs kernels-sparse-gpu kernels-voxelize-gpu > $R/meson-test.txt 2>&1; echo rc=$? >> $R/meson-test.txt; pack tests
grep -E "^Ok:|^Fail:|^Skipped:| FAIL |rc=" $R/meson-test.txt
timeout 90 compute-sanitizer --tool synccheck --error-exitcode 9 $B/tests/kernels_sparse_gpu > $R/synccheck.txt 2>&1; echo rc=$? >> $R/synccheck.txt; pack synccheck
tail -3 $R/synccheck.txt
ab_bench pillars "base new new base" --sweep voxelize --modes pillars --only 'sweep-voxelize-pillars-*' --runs 30
cat $R/ab-pillars.txt
for l in base new; do
  for o in rows columns; do
    [ $(left) -gt 40 ] || break
    LD_LIBRARY_PATH=$(lib $l) timeout 40 ncu --cache-control none --metrics gpu__time_duration.sum -k regex:"clear_cells|locate_points|mark_starts|scan_items|place_points|write_slots|DeviceScan" --launch-count 12 --csv $B/tests/bench-kernels --sweep voxelize --modes pillars --points 4194304 --only "sweep-voxelize-pillars-bev432x496-$o-n4194304" --runs 3 > $R/ncu-$l-$o.csv 2>&1
    pack ncu $l $o
    grep gpu__time_duration $R/ncu-$l-$o.csv | awk -F'","' '{sub(/\(.*/, "", $5); print $5, $NF}' | tail -6
  done
done
cat $R/timeline.txt
