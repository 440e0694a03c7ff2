/* Voxelization on the GPU against the CPU reference, on fresh random clouds
 * (strides 16 and 32, points outside the grid, NaN and Inf, several sizes,
 * one and several clouds per call).  Skipped (exit 77) without a GPU. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include <string.h>

#include "testutil.h"
#include "values.h"
#include "voxelize-math.h"      /* rc_voxel_record_floats */

static GRand *rand_;
/* When not 0, every eighth point falls in one of this many voxels (a
 * crowded voxel of a real sweep), anywhere inside it. */
static guint crowded_voxels_;
/* When not 0, the cloud comes in scan order: each point stays near the
 * one before it with probability 1 - 1 / run_points_, so that runs of
 * neighbouring points share a voxel. */
static guint run_points_;

/* A cloud of @n points with @step bytes each: x, y, z float32 at 0, 4, 8,
 * intensity float32 at 12, and with step 32 a uint16 ring at 16 and a
 * float32 time at 20.  About 10% fall outside the grid and 2% are NaN or
 * Inf; some share voxels. */
static guint8 *
random_cloud (guint64 n, guint step, const rc_voxel_grid * grid)
{
  guint8 *cloud = g_malloc0 (n * step + 1);
  float run_at[3] = { 0, 0, 0 };

  for (guint64 p = 0; p < n; p++) {
    float v[4];
    guint8 *point = cloud + p * step;
    gboolean in_run = run_points_ && p > 0 &&
        g_rand_int_range (rand_, 0, run_points_) != 0;
    for (int a = 0; a < 3; a++) {
      double lo = grid->origin[a];
      double hi = lo + grid->dims[a] * grid->voxel_size[a];
      double span = hi - lo;
      v[a] = (float) g_rand_double_range (rand_, lo - 0.05 * span,
          hi + 0.05 * span);
      if (in_run)
        v[a] = run_at[a] + (float) (grid->voxel_size[a] *
            g_rand_double_range (rand_, -0.05, 0.05));
      else
        run_at[a] = v[a];
    }
    if (crowded_voxels_ && p % 8 == 5) {
      guint c = g_rand_int_range (rand_, 0, crowded_voxels_);
      guint index[3] = { c * 37 % grid->dims[0], c * 101 % grid->dims[1],
        c * 7 % grid->dims[2]
      };
      for (int a = 0; a < 3; a++)
        v[a] = (float) (grid->origin[a] + (index[a] +
                g_rand_double_range (rand_, 0.1, 0.9)) * grid->voxel_size[a]);
    }
    if (g_rand_int_range (rand_, 0, 100) < 2)
      v[g_rand_int_range (rand_, 0, 3)] = g_rand_boolean (rand_) ? NAN :
          -INFINITY;
    /* Clusters: every fourth point repeats a neighbour's voxel. */
    if (p > 0 && p % 4 == 0)
      memcpy (v, cloud + (p - 1) * step, 12);
    v[3] = (float) g_rand_double_range (rand_, 0, 255);
    memcpy (point, v, 16);
    if (step >= 32) {
      guint16 ring = (guint16) g_rand_int_range (rand_, 0, 128);
      float t = (float) g_rand_double (rand_);
      memcpy (point + 16, &ring, 2);
      memcpy (point + 20, &t, 4);
    }
  }
  return cloud;
}

static void
check_rc (rc_status ret)
{
  fail_unless (ret == RC_OK, "%s (%s)", rc_status_message (ret),
      rc_error_detail ());
}

/* Means, which the GPU adds in another order.  One assertion for the
 * whole grid: check's assertions each cost a write to its log, which
 * across hundreds of millions of values takes minutes. */
static void
compare_floats (const guint8 * cpu, const guint8 * gpu, guint64 n)
{
  guint64 bad = 0, first = 0;
  float first_cpu = 0, first_gpu = 0;

  for (guint64 i = 0; i < n; i++) {
    float a, b;
    memcpy (&a, cpu + i * 4, 4);
    memcpy (&b, gpu + i * 4, 4);
    if (!voxel_means_agree (a, b) && bad++ == 0) {
      first = i;
      first_cpu = a;
      first_gpu = b;
    }
  }
  fail_unless (bad == 0, "%" G_GUINT64_FORMAT " means differ, the first %"
      G_GUINT64_FORMAT ": cpu %g gpu %g", bad, first, first_cpu, first_gpu);
}

/* New scratch of @size bytes, poisoned but for the header, which is all
 * the contract clears. */
static gpointer
poisoned_scratch (guint64 size)
{
  gpointer scratch;

  check_rc (rc_device_alloc (&scratch, size));
  check_rc (rc_device_memset_async (scratch, 0x5A, size, NULL));
  check_rc (rc_voxelize_cuda_scratch_reset (scratch, NULL));
  return scratch;
}

/* Runs CPU and GPU on the same fresh clouds and compares everything; on
 * @reused_scratch if not NULL (as left by earlier calls), else on new
 * scratch full of garbage. */
static void
compare_on (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const guint64 * sizes, guint n_clouds, gpointer reused_scratch)
{
  gboolean centroids = grid->mode == RC_VOXEL_CENTROIDS;
  guint64 total = 0, largest = 0, out_total = 0, scratch;
  guint64 out_size[4];
  guint8 *cloud, *cpu_out, *gpu_out;
  gpointer d_cloud, d_out, d_scratch, cpu_scratch;
  rc_voxelize_stats cpu_stats[4], *gpu_stats;

  for (guint c = 0; c < n_clouds; c++) {
    total += sizes[c];
    largest = MAX (largest, sizes[c]);
    out_size[c] = centroids ? rc_voxelize_centroids_size (layout, grid,
        sizes[c]) : rc_voxelize_output_size (layout, grid);
    out_total += out_size[c];
  }
  scratch = rc_voxelize_scratch_size (layout, grid, largest);
  cloud = random_cloud (total, layout->point_step, grid);
  cpu_out = g_malloc (out_total + 1);
  gpu_out = g_malloc (out_total + 1);
  cpu_scratch = g_malloc (scratch + 1);

  check_rc (rc_voxelize_cpu (layout, grid, cloud, sizes, n_clouds, cpu_out,
          cpu_scratch, cpu_stats));

  check_rc (rc_device_alloc (&d_cloud, total * layout->point_step + 1));
  check_rc (rc_device_alloc (&d_out, out_total + 1));
  d_scratch = reused_scratch ? reused_scratch :
      poisoned_scratch (rc_voxelize_cuda_scratch_size (layout, grid, n_clouds,
          largest));
  check_rc (rc_host_alloc ((void **) &gpu_stats,
          sizeof (rc_voxelize_stats) * n_clouds));
  check_rc (rc_device_copy_async (d_cloud, cloud, total * layout->point_step,
          RC_COPY_HOST_TO_DEVICE, NULL));
  /* Poison: every byte of a grid must be written; the centroids' room
   * past their points must be left alone. */
  check_rc (rc_device_memset_async (d_out, 0xFF, out_total + 1, NULL));
  check_rc (rc_voxelize_cuda (layout, grid, d_cloud, sizes, n_clouds, d_out,
          d_scratch, gpu_stats, NULL));
  check_rc (rc_device_copy_async (gpu_out, d_out, out_total + 1,
          RC_COPY_DEVICE_TO_HOST, NULL));
  check_rc (rc_stream_synchronize (NULL));

  for (guint c = 0; c < n_clouds; c++) {
    fail_unless_equals_int (gpu_stats[c].in_grid, cpu_stats[c].in_grid);
    fail_unless_equals_int (gpu_stats[c].out_of_range,
        cpu_stats[c].out_of_range);
    fail_unless_equals_int (gpu_stats[c].invalid, cpu_stats[c].invalid);
    fail_unless_equals_int (gpu_stats[c].occupied, cpu_stats[c].occupied);
    fail_unless (sizes[c] < 100 || cpu_stats[c].in_grid > 0);
  }
  if (centroids) {
    guint64 offset = 0;
    for (guint c = 0; c < n_clouds; c++) {
      guint64 written = cpu_stats[c].occupied * layout->n_features * 4;
      fail_unless (written <= out_size[c]);
      compare_floats (cpu_out + offset, gpu_out + offset, written / 4);
      for (guint64 i = offset + written; i < offset + out_size[c]; i++)
        fail_unless (gpu_out[i] == 0xFF, "room past the centroids written");
      offset += out_size[c];
    }
    fail_unless (gpu_out[out_total] == 0xFF, "written past the room");
  } else if (grid->mode == RC_VOXEL_MEAN) {
    compare_floats (cpu_out, gpu_out, out_total / 4);
  } else {
    fail_unless (memcmp (cpu_out, gpu_out, out_total) == 0,
        "%s grids differ", grid->mode == RC_VOXEL_COUNT ? "count" :
        "occupancy");
  }

  check_rc (rc_device_free (d_cloud));
  check_rc (rc_device_free (d_out));
  if (!reused_scratch)
    check_rc (rc_device_free (d_scratch));
  check_rc (rc_host_free (gpu_stats));
  g_free (cloud);
  g_free (cpu_out);
  g_free (gpu_out);
  g_free (cpu_scratch);
}

static void
compare (const rc_point_layout * layout, const rc_voxel_grid * grid,
    const guint64 * sizes, guint n_clouds)
{
  compare_on (layout, grid, sizes, n_clouds, NULL);
}

static const rc_point_layout layout16 = {
  .point_step = 16,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 1, .features = {{12, RC_TYPE_FLOAT32}},
};

static const rc_point_layout layout32 = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 4, .features = {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
      {8, RC_TYPE_FLOAT32}, {16, RC_TYPE_UINT16}},
};

/* Three features (x, y, z), whose mean's records are four floats. */
static const rc_point_layout layout_xyz = {
  .point_step = 16,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 3, .features = {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
      {8, RC_TYPE_FLOAT32}},
};

/* Two features (intensity and time), whose records are two floats. */
static const rc_point_layout layout_two = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 2, .features = {{12, RC_TYPE_FLOAT32}, {20, RC_TYPE_FLOAT32}},
};

/* Five features of mixed types (records of eight floats, three of them
 * padding) and eight (records full). */
static const rc_point_layout five = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 5, .features = {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
      {8, RC_TYPE_FLOAT32}, {16, RC_TYPE_UINT16}, {12, RC_TYPE_FLOAT32}},
};

static const rc_point_layout eight = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 8, .features = {{12, RC_TYPE_FLOAT32},
        {0, RC_TYPE_FLOAT32}, {20, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
        {16, RC_TYPE_UINT16}, {8, RC_TYPE_FLOAT32}, {21, RC_TYPE_UINT8},
      {12, RC_TYPE_FLOAT32}},
};

/* Integer features, which both sides sum exactly in any order (the CPU
 * one point after another in float, exact below 2^24), so that voxels of
 * thousands of points compare to the bit: the ring number and bytes of the
 * time's, x's and y's floats, in points of 32 bytes; three, four and eight
 * features. */
static const rc_point_layout rings3 = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 3, .features = {{16, RC_TYPE_UINT16}, {20, RC_TYPE_UINT8},
      {16, RC_TYPE_UINT8}},
};

static const rc_point_layout rings4 = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 4, .features = {{16, RC_TYPE_UINT16}, {20, RC_TYPE_UINT8},
      {21, RC_TYPE_UINT8}, {16, RC_TYPE_UINT8}},
};

static const rc_point_layout rings8 = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 8, .features = {{20, RC_TYPE_UINT8}, {16, RC_TYPE_UINT16},
        {21, RC_TYPE_UINT8}, {0, RC_TYPE_UINT8}, {22, RC_TYPE_UINT8},
      {4, RC_TYPE_UINT8}, {23, RC_TYPE_UINT8}, {16, RC_TYPE_UINT8}},
};

GST_START_TEST (test_modes_sizes_strides)
{
  static const guint64 sizes[] = { 1, 7, 1000, 131072, 300001 };
  rc_voxel_grid grid = { {-20.0, -20.0, -2.5}, {0.25, 0.25, 0.2},
  {160, 160, 25}, RC_VOXEL_OCCUPANCY
  };

  for (int mode = RC_VOXEL_OCCUPANCY; mode <= RC_VOXEL_CENTROIDS; mode++) {
    grid.mode = (rc_voxel_mode) mode;
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
      compare (&layout16, &grid, &sizes[s], 1);
      compare (&layout32, &grid, &sizes[s], 1);
    }
  }
}

GST_END_TEST;

/* Odd dimensions (a grid that is not a whole number of words) and several
 * clouds per call, small ones and large ones (binned several points a
 * thread, the last block part full), and occupancy of clouds over a
 * million points. */
GST_START_TEST (test_odd_grid_several_clouds)
{
  const guint64 sizes[3] = { 5000, 0, 12345 };
  const guint64 large[3] = { 300001, 1, 262145 };
  const guint64 huge[3] = { 1048577, 2, 600001 };
  rc_voxel_grid grid = { {-3.0, 1.0, -1.0}, {0.1, 0.07, 0.3},
  {61, 37, 9}, RC_VOXEL_OCCUPANCY
  };

  for (int mode = RC_VOXEL_OCCUPANCY; mode <= RC_VOXEL_CENTROIDS; mode++) {
    grid.mode = (rc_voxel_mode) mode;
    compare (&layout16, &grid, sizes, 3);
    compare (&layout32, &grid, sizes, 3);
    compare (&layout32, &grid, large, 3);
  }
  grid.mode = RC_VOXEL_OCCUPANCY;
  compare (&layout16, &grid, huge, 3);
}

GST_END_TEST;

/* Occupancy of crowded clouds, more points than voxels, whose warps look
 * at a voxel's byte before setting it (warp_crowded): three fresh clouds
 * one after another into one output on one scratch, each against the
 * CPU, so that a byte one call set and the next call's clear zeroed is
 * never taken as set; then a sparse cloud, whose warps mostly do not
 * look. */
GST_START_TEST (test_occupancy_crowded)
{
  const guint64 sizes[4] = { 300001, 1048577, 262145, 600001 };
  rc_voxel_grid small = { {-3.0, 1.0, -1.0}, {0.1, 0.07, 0.3},
  {61, 37, 9}, RC_VOXEL_OCCUPANCY
  };
  rc_voxel_grid cube = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
  {256, 256, 256}, RC_VOXEL_OCCUPANCY
  };
  guint64 most = rc_voxelize_output_size (&layout16, &cube);
  guint64 cpu_scratch_size = MAX (rc_voxelize_scratch_size (&layout16,
          &small, sizes[1]), rc_voxelize_scratch_size (&layout16, &cube,
          sizes[3]));
  guint64 gpu_scratch_size = MAX (rc_voxelize_cuda_scratch_size (&layout16,
          &small, 1, sizes[1]), rc_voxelize_cuda_scratch_size (&layout16,
          &cube, 1, sizes[3]));
  guint8 *cpu_out = g_malloc (most), *gpu_out = g_malloc (most);
  guint8 *cpu_scratch = g_malloc (cpu_scratch_size + 1);
  gpointer d_cloud, d_out, scratch;
  rc_voxelize_stats cpu_stats, *gpu_stats;

  check_rc (rc_device_alloc (&d_cloud, sizes[1] * layout16.point_step));
  check_rc (rc_device_alloc (&d_out, most));
  check_rc (rc_host_alloc ((void **) &gpu_stats, sizeof (*gpu_stats)));
  scratch = poisoned_scratch (gpu_scratch_size);
  for (guint run = 0; run < G_N_ELEMENTS (sizes); run++) {
    /* The last cloud spread over the 256^3 cube: 28 voxels a point. */
    const rc_voxel_grid *grid = run < 3 ? &small : &cube;
    guint64 n = sizes[run], size = rc_voxelize_output_size (&layout16, grid);
    guint8 *cloud = random_cloud (n, layout16.point_step, grid);

    check_rc (rc_voxelize_cpu (&layout16, grid, cloud, &n, 1, cpu_out,
            cpu_scratch, &cpu_stats));
    check_rc (rc_device_copy_async (d_cloud, cloud, n * layout16.point_step,
            RC_COPY_HOST_TO_DEVICE, NULL));
    check_rc (rc_device_memset_async (d_out, 0xFF, size, NULL));
    check_rc (rc_voxelize_cuda (&layout16, grid, d_cloud, &n, 1, d_out,
            scratch, gpu_stats, NULL));
    check_rc (rc_device_copy_async (gpu_out, d_out, size,
            RC_COPY_DEVICE_TO_HOST, NULL));
    check_rc (rc_stream_synchronize (NULL));
    fail_unless (memcmp (cpu_out, gpu_out, size) == 0,
        "occupancy grids differ, cloud %u of %" G_GUINT64_FORMAT " points",
        run, n);
    fail_unless_equals_int (gpu_stats->occupied, cpu_stats.occupied);
    fail_unless_equals_int (gpu_stats->in_grid, cpu_stats.in_grid);
    /* Crowded: nearly every voxel of the small grid holds a point. */
    fail_unless (run == 3 || cpu_stats.occupied * 10 > size * 9);
    g_free (cloud);
  }
  check_rc (rc_device_free (d_cloud));
  check_rc (rc_device_free (d_out));
  check_rc (rc_device_free (scratch));
  check_rc (rc_host_free (gpu_stats));
  g_free (cpu_out);
  g_free (gpu_out);
  g_free (cpu_scratch);
}

GST_END_TEST;

/* 256^3 counts and centroids, 512^3 occupancy: the large grids; counts
 * and occupancy of a million points, past the L2 cache's knee
 * (docs/performance.md); counts of a batch of large clouds on a grid of
 * an odd number of words, binned a slab at a time. */
GST_START_TEST (test_large_grids)
{
  guint64 n = 131072, million = 1048576;
  const guint64 batch[3] = { 1048577, 2, 600001 };
  rc_voxel_grid grid = { {-25.6, -25.6, -25.6}, {0.2, 0.2, 0.2},
  {256, 256, 256}, RC_VOXEL_COUNT
  };
  rc_voxel_grid odd = { {-25.6, -25.6, -19.7}, {0.2, 0.2, 0.2},
  {255, 255, 197}, RC_VOXEL_COUNT
  };

  compare (&layout16, &grid, &n, 1);
  compare (&layout16, &grid, &million, 1);
  compare (&layout16, &odd, batch, 3);
  compare (&layout32, &odd, batch, 3);
  grid.mode = RC_VOXEL_OCCUPANCY;
  compare (&layout16, &grid, &million, 1);
  /* 8192 tiles of centroids: their scan takes several chunks. */
  grid.mode = RC_VOXEL_CENTROIDS;
  compare (&layout32, &grid, &n, 1);
  grid.dims[0] = grid.dims[1] = grid.dims[2] = 512;
  grid.voxel_size[0] = grid.voxel_size[1] = grid.voxel_size[2] = 0.1;
  grid.mode = RC_VOXEL_OCCUPANCY;
  compare (&layout16, &grid, &n, 1);
}

GST_END_TEST;

/* The centroids leave their scratch clear for the next call, which then
 * skips clearing it: calls one after another on one scratch, with other
 * clouds, other modes and other batch sizes in between, each against the
 * CPU. */
GST_START_TEST (test_centroids_scratch_reused)
{
  const guint64 one[1] = { 20000 }, two[2] = { 7000, 15000 };
  rc_voxel_grid grid = { {-20.0, -20.0, -2.5}, {0.25, 0.25, 0.2},
  {160, 160, 25}, RC_VOXEL_CENTROIDS
  };
  rc_voxel_grid mean = grid;
  gpointer scratch;
  guint64 size = rc_voxelize_cuda_scratch_size (&layout32, &grid, 2, 20000);

  mean.mode = RC_VOXEL_MEAN;
  check_rc (rc_device_alloc (&scratch, size));
  check_rc (rc_device_memset_async (scratch, 0x5A, size, NULL));
  compare_on (&layout32, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, two, 2, scratch);
  compare_on (&layout32, &grid, two, 2, scratch);
  /* The mean leaves its counts in the same place, not cleared. */
  compare_on (&layout32, &mean, one, 1, scratch);
  compare_on (&layout32, &grid, one, 1, scratch);
  /* Fewer features: the sums lie elsewhere. */
  compare_on (&layout16, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, one, 1, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

/* A mean of at most a point for 32 voxels (here 5,000 points) divides
 * only the voxels it listed and leaves its counts clear, so the
 * next call clears only its output grid; a larger one leaves its counts
 * for the next call to clear: calls one after another on one scratch,
 * both kinds, batches of both and an empty cloud, the centroids and
 * fewer features in between, each against the CPU. */
GST_START_TEST (test_mean_scratch_reused)
{
  /* 640,000 voxels: listed up to 20,000 points. */
  const guint64 one[1] = { 5000 }, big[1] = { 30000 };
  const guint64 three[3] = { 4000, 0, 25000 };
  rc_voxel_grid grid = { {-20.0, -20.0, -2.5}, {0.25, 0.25, 0.2},
  {160, 160, 25}, RC_VOXEL_MEAN
  };
  rc_voxel_grid centroids = grid;
  gpointer scratch;
  guint64 size;

  centroids.mode = RC_VOXEL_CENTROIDS;
  size = MAX (rc_voxelize_cuda_scratch_size (&layout32, &grid, 3, 30000),
      rc_voxelize_cuda_scratch_size (&layout32, &centroids, 3, 30000));
  scratch = poisoned_scratch (size);
  compare_on (&layout32, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, three, 3, scratch);
  compare_on (&layout32, &grid, big, 1, scratch);
  compare_on (&layout32, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, big, 1, scratch);
  compare_on (&layout16, &grid, one, 1, scratch);
  compare_on (&layout32, &centroids, one, 1, scratch);
  compare_on (&layout32, &grid, three, 3, scratch);
  compare_on (&layout32, &grid, one, 1, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

/* A mean's records, in one slab or several, are zeroed by their division
 * as it reads them, so that the next slab's or call's clear stores
 * nothing: calls one after another on one scratch, of four slabs whose
 * last is the largest (their records cleared whole after another call's
 * scratch), of one slab, of one feature and of three, one cloud and two,
 * with a sorted mean and a mean divided whole between them, which leave
 * the room dirty; each against the CPU. */
GST_START_TEST (test_mean_records_reused)
{
  /* 6,680,133 voxels: x, y and z's records in four slabs, the last 5
   * voxels longer; 1,700,001 points are too dense to sort, 600,001
   * sort. */
  rc_voxel_grid slabs = { {-20.1, -19.9, -16.7}, {0.2, 0.2, 0.2},
  {201, 199, 167}, RC_VOXEL_MEAN
  };
  /* 420,000 voxels: records in one slab from 262,145 points; 100,000
   * points are divided whole. */
  rc_voxel_grid one_slab = { {-15.0, -14.0, -2.0}, {0.2, 0.2, 0.2},
  {150, 140, 20}, RC_VOXEL_MEAN
  };
  const guint64 dense[1] = { 1700001 }, sparse[1] = { 600001 };
  const guint64 two[2] = { 300001, 400000 }, whole[1] = { 100000 };
  guint64 size = MAX (rc_voxelize_cuda_scratch_size (&layout_xyz, &slabs, 1,
          dense[0]), rc_voxelize_cuda_scratch_size (&layout_xyz, &one_slab, 2,
          two[1]));
  gpointer scratch = poisoned_scratch (size);

  compare_on (&layout_xyz, &slabs, dense, 1, scratch);
  compare_on (&layout_xyz, &slabs, dense, 1, scratch);
  compare_on (&layout_xyz, &slabs, sparse, 1, scratch);
  compare_on (&layout_xyz, &slabs, dense, 1, scratch);
  compare_on (&layout16, &one_slab, two, 2, scratch);
  compare_on (&layout16, &one_slab, two, 2, scratch);
  compare_on (&layout16, &one_slab, whole, 1, scratch);
  compare_on (&layout16, &one_slab, &two[1], 1, scratch);
  compare_on (&layout_xyz, &one_slab, two, 2, scratch);
  compare_on (&layout_xyz, &one_slab, two, 2, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

/* A mean of more than 262,144 points whose sums and counts exceed 32 MiB,
 * of fewer than three features or of a cloud of more than a point for four
 * voxels (too dense to sort), is cleared, binned and divided a slab of
 * voxels at a time: of one or three features in records (sums and count
 * side by side), the planes written whole by the division (not 16-byte
 * aligned on this odd grid); of three features on a grid too small for
 * their records' slabs and of four (records would be padded) in every
 * feature's plane; large clouds in slabs, sorted and listed, one after
 * another on one scratch, against the CPU; and a large cloud listed on a
 * wider grid. */
GST_START_TEST (test_mean_slabs)
{
  const guint64 batch[3] = { 1048577, 2, 600001 }, marked[1] = { 100000 };
  /* Listed, several points a thread (over 262,144, under a point for 32
   * voxels). */
  const guint64 listed[2] = { 270000, 3 };
  rc_voxel_grid grid = { {-25.6, -25.6, -19.7}, {0.2, 0.2, 0.2},
  {255, 255, 197}, RC_VOXEL_MEAN
  };
  rc_voxel_grid wide = { {-30.0, -30.0, -20.0}, {0.2, 0.2, 0.2},
  {300, 300, 200}, RC_VOXEL_MEAN
  };
  /* 4,000,000 voxels: 64 MB of sums and counts in two slabs; records of
   * 16 bytes would need slabs of 2 million voxels, more than the room of
   * 4 bytes a voxel holds.  1,048,577 points are too dense to sort. */
  rc_voxel_grid planes = { {-20.0, -20.0, -10.0}, {0.2, 0.2, 0.2},
  {200, 200, 100}, RC_VOXEL_MEAN
  };
  /* 6,600,000 voxels: records of three features in four slabs, from a
   * cloud too dense to sort. */
  rc_voxel_grid records = { {-20.0, -20.0, -16.5}, {0.2, 0.2, 0.2},
  {200, 200, 165}, RC_VOXEL_MEAN
  };
  const guint64 dense[1] = { 1700001 };
  gpointer scratch;
  guint64 size = rc_voxelize_cuda_scratch_size (&layout32, &grid, 3,
      batch[0]);

  compare (&layout16, &wide, listed, 2);
  compare (&layout_xyz, &planes, &batch[0], 1);
  compare (&layout32, &planes, &batch[0], 1);
  compare (&layout_xyz, &records, dense, 1);
  compare (&layout_xyz, &grid, &batch[2], 1);
  scratch = poisoned_scratch (size);
  compare_on (&layout16, &grid, batch, 3, scratch);
  compare_on (&layout32, &grid, marked, 1, scratch);
  compare_on (&layout32, &grid, batch, 3, scratch);
  compare_on (&layout32, &grid, marked, 1, scratch);
  compare_on (&layout16, &grid, &batch[2], 1, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

/* The centroids sum a voxel's features side by side, padded to whole
 * float4s past two features (rc_voxel_record_floats): two, three (one
 * float4, padded), five of mixed types (two, the second mostly padding)
 * and eight features (two, full), one and several clouds, small and large,
 * the last on a scratch another feature count used before. */
/* Centroids and means of clouds in scan order (a lidar sweep as its
 * driver sends it): runs of neighbouring points in one voxel, of 1 to
 * hundreds of points, across warps and blocks, with points outside the
 * grid and NaN inside them, which a warp sums before its atomics.
 * Centroids' records of one float (added point by point), four (x, y, z
 * counted in the fourth) and eight (two sums a run); means of one, three,
 * four, five and eight features, divided whole (a feature's plane at a
 * time), and past 262,144 points of one and three in records of their
 * sums and count, in one slab; small clouds and large (four points a
 * thread), one and three a call. */
GST_START_TEST (test_scan_order)
{
  const rc_point_layout *layouts[] = { &layout16, &layout_xyz, &layout32,
    &five, &eight
  };
  const guint64 sizes[3] = { 5000, 0, 300001 }, one[1] = { 131072 };
  rc_voxel_grid grid = { {-3.0, 1.0, -1.0}, {0.1, 0.07, 0.3},
  {61, 37, 9}, RC_VOXEL_CENTROIDS
  };

  for (run_points_ = 4; run_points_ <= 64; run_points_ *= 4) {
    for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
      grid.mode = RC_VOXEL_CENTROIDS;
      compare (layouts[l], &grid, sizes, 3);
      compare (layouts[l], &grid, one, 1);
      grid.mode = RC_VOXEL_MEAN;
      compare (layouts[l], &grid, sizes, 3);
      compare (layouts[l], &grid, one, 1);
    }
  }
  run_points_ = 0;
}

GST_END_TEST;

GST_START_TEST (test_centroid_records)
{
  const rc_point_layout *layouts[] = { &layout_two, &layout_xyz, &five,
    &eight
  };
  const guint64 sizes[3] = { 3000, 0, 300001 }, one[1] = { 20000 };
  rc_voxel_grid grid = { {-3.0, 1.0, -1.0}, {0.1, 0.07, 0.3},
  {61, 37, 9}, RC_VOXEL_CENTROIDS
  };
  gpointer scratch;

  fail_unless_equals_int (rc_voxel_record_floats (1), 1);
  fail_unless_equals_int (rc_voxel_record_floats (2), 2);
  fail_unless_equals_int (rc_voxel_record_floats (3), 4);
  fail_unless_equals_int (rc_voxel_record_floats (5), 8);
  fail_unless_equals_int (rc_voxel_record_floats (8), 8);
  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
    compare (layouts[l], &grid, sizes, 3);
    compare (layouts[l], &grid, one, 1);
  }
  scratch = poisoned_scratch (rc_voxelize_cuda_scratch_size (&eight, &grid,
          3, sizes[2]));
  compare_on (&eight, &grid, sizes, 3, scratch);
  compare_on (&layout_xyz, &grid, one, 1, scratch);
  compare_on (&five, &grid, sizes, 3, scratch);
  compare_on (&eight, &grid, one, 1, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

/* The GPU twice on one fresh cloud of @n points, on one scratch: the
 * same means to the bit (one order of summation). */
static void
check_repeats (const rc_point_layout * layout, const rc_voxel_grid * grid,
    guint64 n)
{
  guint64 size = rc_voxelize_output_size (layout, grid);
  guint8 *cloud = random_cloud (n, layout->point_step, grid);
  guint8 *out[2] = { g_malloc (size), g_malloc (size) };
  gpointer d_cloud, d_out, scratch;

  check_rc (rc_device_alloc (&d_cloud, n * layout->point_step));
  check_rc (rc_device_alloc (&d_out, size));
  scratch = poisoned_scratch (rc_voxelize_cuda_scratch_size (layout, grid, 1,
          n));
  check_rc (rc_device_copy_async (d_cloud, cloud, n * layout->point_step,
          RC_COPY_HOST_TO_DEVICE, NULL));
  for (int run = 0; run < 2; run++) {
    check_rc (rc_device_memset_async (d_out, 0xFF, size, NULL));
    check_rc (rc_voxelize_cuda (layout, grid, d_cloud, &n, 1, d_out, scratch,
            NULL, NULL));
    check_rc (rc_device_copy_async (out[run], d_out, size,
            RC_COPY_DEVICE_TO_HOST, NULL));
    check_rc (rc_stream_synchronize (NULL));
  }
  fail_unless (memcmp (out[0], out[1], size) == 0,
      "a sorted mean differs from one run to the next");
  check_rc (rc_device_free (d_cloud));
  check_rc (rc_device_free (d_out));
  check_rc (rc_device_free (scratch));
  g_free (cloud);
  g_free (out[0]);
  g_free (out[1]);
}

/* A mean of three features or more of a large, sparse cloud (262,145
 * points up to one for four voxels, rc_voxel_mean_sorts) is put in voxel
 * order by a radix sort: records of four floats (three features; four of
 * mixed types) and of eight (five; eight); crowded voxels of dozens of
 * points and of thousands, which a block sums together; the same means
 * run to run; a batch of sorted, empty and listed
 * clouds, the smallest and the largest cloud sorted, and the other means
 * after them, one after another on one scratch sized for the largest (its
 * size: kernels-voxelize, test_cuda_scratch_sizes). */
GST_START_TEST (test_mean_sorted)
{
  /* 4,194,304 voxels: sorted from 262,145 to 1,048,576 points. */
  rc_voxel_grid grid = { {-25.6, -25.6, -6.4}, {0.2, 0.2, 0.2},
  {256, 256, 64}, RC_VOXEL_MEAN
  };
  const guint64 one[1] = { 300001 }, most[1] = { 1048576 };
  const guint64 batch[4] = { 700001, 0, 262145, 5000 };
  const rc_point_layout *layouts[] = { &layout_xyz, &layout32, &five, &eight
  };
  gpointer scratch;

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    compare (layouts[l], &grid, one, 1);
  /* About 75 points in each of 500 voxels, then 12,500 in each of 3. */
  crowded_voxels_ = 500;
  compare (&layout32, &grid, one, 1);
  compare (&eight, &grid, one, 1);
  check_repeats (&layout32, &grid, one[0]);
  /* Thousands a voxel: integer features, which the CPU adds exactly too
   * (its float sum of 12,500 values of a float feature strays up to about
   * 1e-5 by itself). */
  crowded_voxels_ = 3;
  compare (&rings3, &grid, one, 1);
  compare (&rings8, &grid, one, 1);
  check_repeats (&eight, &grid, one[0]);
  crowded_voxels_ = 0;
  check_repeats (&layout_xyz, &grid, most[0]);

  scratch = poisoned_scratch (rc_voxelize_cuda_scratch_size (&layout32,
          &grid, 4, most[0]));
  compare_on (&layout32, &grid, batch, 4, scratch);
  compare_on (&layout32, &grid, most, 1, scratch);
  /* Listed after a sort, which left its counts dirty. */
  compare_on (&layout32, &grid, &batch[3], 1, scratch);
  compare_on (&layout16, &grid, one, 1, scratch);
  compare_on (&layout_xyz, &grid, one, 1, scratch);
  compare_on (&layout32, &grid, &batch[3], 1, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

GST_START_TEST (test_bad_parameters_n)
{
  rc_voxel_grid grid = { {0, 0, 0}, {0, 1, 1}, {4, 4, 4}, RC_VOXEL_COUNT };
  guint64 n = 1;

  fail_unless_equals_int (rc_voxelize_cuda (&layout16, &grid, NULL, &n, 1,
          NULL, NULL, NULL, NULL), RC_ERROR_INVALID_ARGUMENT);
}

GST_END_TEST;

/* x and y swapped: not the packed float x, y, z at 0, 4, 8 that is read
 * as three loads, so the generic field reader runs. */
static const rc_point_layout swapped = {
  .point_step = 16,
  .x = {4, RC_TYPE_FLOAT32}, .y = {0, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 1, .features = {{12, RC_TYPE_FLOAT32}},
};

/* Points of 20 bytes: packed float x, y, z, most points off a 16-byte
 * boundary. */
static const rc_point_layout layout20 = {
  .point_step = 20,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 1, .features = {{12, RC_TYPE_FLOAT32}},
};

/* A ring number of 16 bits (0 to 127) the one feature, in points of 32
 * bytes. */
static const rc_point_layout ring32 = {
  .point_step = 32,
  .x = {0, RC_TYPE_FLOAT32}, .y = {4, RC_TYPE_FLOAT32},
  .z = {8, RC_TYPE_FLOAT32},
  .n_features = 1, .features = {{16, RC_TYPE_UINT16}},
};

/* What both partitions (rc_voxel_partitioned) are checked on, into
 * @grid: the three clouds @mixed, partitioned and binned in one call, of
 * points of 16 bytes, of @layout (32 bytes), of 20 bytes and through the
 * generic field reader; of @crowd points, an eighth of each cloud
 * crowded into one voxel (131,072 points of the first) and into three:
 * tiles several blocks count; a sweep in scan order. */
static void
compare_partitioned (const rc_point_layout * layout,
    const rc_point_layout * crowd, const rc_voxel_grid * grid,
    const guint64 * mixed)
{
  compare (&layout16, grid, mixed, 3);
  compare (layout, grid, mixed, 3);
  compare (&swapped, grid, mixed, 3);
  compare (&layout20, grid, mixed, 3);
  for (crowded_voxels_ = 1; crowded_voxels_ <= 3; crowded_voxels_ += 2)
    compare (crowd, grid, mixed, 3);
  crowded_voxels_ = 0;
  run_points_ = 16;
  compare (&layout16, grid, mixed, 3);
  run_points_ = 0;
}

/* Counts partitioned by tile (rc_voxel_partitioned): a grid of a
 * partial last tile and an odd number of voxels, clouds partitioned and
 * binned in one call, points of 16, 20 and 32 bytes and the generic
 * field reader, voxels crowded into tiles that several blocks count
 * (137,000 points in one voxel), a sweep in scan order, one scratch
 * reused, and 512^3 (4,096 tiles, the most). */
GST_START_TEST (test_counts_partitioned)
{
  const guint64 million = 1048576, mixed[3] = { 1048577, 2, 1100000 };
  const guint64 least = RC_COUNT_PARTITION_POINTS;
  rc_voxel_grid odd = { {-25.5, -25.9, -25.5}, {0.2, 0.2, 0.2},
  {255, 259, 255}, RC_VOXEL_COUNT
  };
  rc_voxel_grid large = { {-25.6, -25.6, -25.6}, {0.1, 0.1, 0.1},
  {512, 512, 512}, RC_VOXEL_COUNT
  };
  guint64 n_voxels = rc_voxel_grid_n_voxels (&odd);
  gpointer scratch;

  fail_unless (n_voxels % 4 != 0 && n_voxels % (1u << RC_COUNT_TILE_BITS));
  fail_unless (rc_voxel_partitioned (&layout16, &odd, mixed[0]));
  fail_unless (!rc_voxel_partitioned (&layout16, &odd, mixed[1]));
  fail_unless (rc_voxel_partitioned (&layout16, &odd, least));
  compare_partitioned (&layout32, &layout16, &odd, mixed);
  compare (&layout16, &odd, &least, 1);
  scratch = poisoned_scratch (rc_voxelize_cuda_scratch_size (&layout16,
          &odd, 3, mixed[2]));
  compare_on (&layout16, &odd, mixed, 3, scratch);
  compare_on (&layout16, &odd, &million, 1, scratch);
  check_rc (rc_device_free (scratch));
  fail_unless (rc_voxel_partitioned (&layout16, &large, million));
  compare (&layout16, &large, &million, 1);
}

GST_END_TEST;

/* Means of one feature partitioned by tile: as the counts above (a
 * crowded tile's blocks add to it, its last divides it), and on one
 * scratch after and before means that list their voxels in its counts'
 * room; the largest grid of a mean's 4,096 tiles. */
GST_START_TEST (test_means_partitioned)
{
  const guint64 mixed[3] = { 1048577, 2, 300000 }, listed[1] = { 100000 };
  const guint64 least = RC_MEAN_PARTITION_POINTS;
  rc_voxel_grid odd = { {-25.5, -25.9, -25.5}, {0.2, 0.2, 0.2},
  {255, 259, 255}, RC_VOXEL_MEAN
  };
  rc_voxel_grid large = { {-25.6, -25.6, -12.8}, {0.1, 0.1, 0.1},
  {512, 512, 256}, RC_VOXEL_MEAN
  };
  gpointer scratch;

  fail_unless (rc_voxel_partitioned (&layout16, &odd, mixed[2]));
  fail_unless (!rc_voxel_partitioned (&layout16, &odd, listed[0]));
  compare (&layout16, &odd, &least, 1);
  /* Crowded by integer features, summed exactly in any order: the CPU's
   * float sum of 131,072 intensities in one voxel is itself off by more
   * than the comparison allows. */
  compare_partitioned (&ring32, &ring32, &odd, mixed);
  scratch = poisoned_scratch (rc_voxelize_cuda_scratch_size (&layout16,
          &odd, 3, mixed[0]));
  compare_on (&layout16, &odd, listed, 1, scratch);
  crowded_voxels_ = 1;
  compare_on (&ring32, &odd, mixed, 3, scratch);
  crowded_voxels_ = 0;
  compare_on (&layout16, &odd, listed, 1, scratch);
  compare_on (&layout16, &odd, listed, 1, scratch);
  check_rc (rc_device_free (scratch));
  fail_unless (rc_voxel_partitioned (&layout16, &large, mixed[0]));
  compare (&layout16, &large, mixed, 1);
}

GST_END_TEST;

/* Means of two to four features partitioned by tile (their sums a plane
 * a feature, a tile summed in two slices, four for four features), on a
 * grid of a partial last tile: clouds partitioned and binned in one call,
 * the generic field reader, a sweep in scan order, tiles crowded with
 * integer features (three voxels of 43,690 points), and one scratch shared
 * with a mean of one feature's partition and with listed means. */
GST_START_TEST (test_means_partitioned_features)
{
  /* x and y swapped: the generic field reader. */
  static const rc_point_layout swapped_xyz = {
    .point_step = 16,
    .x = {4, RC_TYPE_FLOAT32}, .y = {0, RC_TYPE_FLOAT32},
    .z = {8, RC_TYPE_FLOAT32},
    .n_features = 3, .features = {{0, RC_TYPE_FLOAT32}, {4, RC_TYPE_FLOAT32},
        {8, RC_TYPE_FLOAT32}},
  };
  const rc_point_layout *layouts[] = { &layout_two, &layout_xyz,
    &swapped_xyz, &layout32
  };
  const guint64 mixed[3] = { 1048577, 2, 300000 }, listed[1] = { 100000 };
  const guint64 least = RC_MEAN_PARTITION_POINTS;
  /* 16,709,385 voxels: 1,020 tiles, the last of 14,089 (its last slice
   * 5,897 voxels of 2^13, 1,801 of 2^12). */
  rc_voxel_grid odd = { {-25.5, -25.9, -25.3}, {0.2, 0.2, 0.2},
  {255, 259, 253}, RC_VOXEL_MEAN
  };
  /* 15,876,252 voxels: 970 tiles, the last of 156, less than a slice. */
  rc_voxel_grid short_last = { {-25.1, -25.2, -25.1}, {0.2, 0.2, 0.2},
  {251, 252, 251}, RC_VOXEL_MEAN
  };
  guint64 size = 0;
  gpointer scratch;

  fail_unless (rc_voxel_partition_tiles (&odd) == 1020);
  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
    fail_unless (rc_voxel_partitioned (layouts[l], &odd, least));
    compare (layouts[l], &odd, mixed, 3);
    size = MAX (size, rc_voxelize_cuda_scratch_size (layouts[l], &odd, 3,
            mixed[0]));
  }
  compare (&layout32, &odd, &least, 1);
  run_points_ = 16;
  compare (&layout_xyz, &odd, mixed, 3);
  run_points_ = 0;
  crowded_voxels_ = 3;
  compare (&rings3, &odd, mixed, 3);
  compare (&rings4, &odd, mixed, 3);
  crowded_voxels_ = 0;
  fail_unless (rc_voxel_partition_tiles (&short_last) == 970);
  fail_unless (rc_voxel_partitioned (&rings4, &short_last, least));
  compare (&layout_xyz, &short_last, mixed, 3);
  compare (&rings4, &short_last, mixed, 3);

  size = MAX (size, rc_voxelize_cuda_scratch_size (&layout16, &odd, 3,
          mixed[0]));
  scratch = poisoned_scratch (size);
  compare_on (&layout16, &odd, mixed, 3, scratch);
  compare_on (&layout_xyz, &odd, mixed, 3, scratch);
  compare_on (&layout_xyz, &odd, listed, 1, scratch);
  compare_on (&layout32, &odd, mixed, 3, scratch);
  compare_on (&layout16, &odd, listed, 1, scratch);
  compare_on (&layout_two, &odd, mixed, 3, scratch);
  check_rc (rc_device_free (scratch));
}

GST_END_TEST;

static Suite *
voxelize_gpu_suite (void)
{
  Suite *s = suite_create ("kernels-voxelize-gpu");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_modes_sizes_strides);
  tcase_add_test (tc, test_odd_grid_several_clouds);
  tcase_add_test (tc, test_large_grids);
  tcase_add_test (tc, test_occupancy_crowded);
  tcase_add_test (tc, test_counts_partitioned);
  tcase_add_test (tc, test_means_partitioned);
  tcase_add_test (tc, test_means_partitioned_features);
  tcase_add_test (tc, test_centroids_scratch_reused);
  tcase_add_test (tc, test_mean_scratch_reused);
  tcase_add_test (tc, test_mean_records_reused);
  tcase_add_test (tc, test_mean_slabs);
  tcase_add_test (tc, test_mean_sorted);
  tcase_add_test (tc, test_centroid_records);
  tcase_add_test (tc, test_scan_order);
  tcase_add_test (tc, test_bad_parameters_n);
  return s;
}

int
main (int argc, char **argv)
{
  test_require_gpu ();
  gst_check_init (&argc, &argv);
  rand_ = test_rand_new ();
  return gst_check_run_suite (voxelize_gpu_suite (), "kernels-voxelize-gpu",
      __FILE__);
}
