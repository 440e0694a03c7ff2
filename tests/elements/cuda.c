/* robocache in CUDA memory: one context shared with GStreamer's own CUDA
 * elements, and between two pipelines the application gives it to, grids
 * left on the GPU and read back through a plain map, CUDA points in, every
 * GPU result equal to the CPU's, and the memory given back by pipelines
 * restarted.  Skipped (exit 77) without a GPU. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <math.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "elementutil.h"
#include "gstrobocachefusedmeta.h"
#include "testutil.h"
#include "values.h"

/* The context type, which is also the name of the field holding it. */
#define CUDA_CONTEXT_TYPE "gst.cuda.context"

/* The GstContext of the CUDA context @element answers a query with (to be
 * unreffed), or NULL. */
static GstContext *
shared_context_of (GstElement * element, const gchar * pad_name)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstQuery *query = gst_query_new_context (CUDA_CONTEXT_TYPE);
  GstContext *context = NULL;

  if (gst_pad_query (pad, query)) {
    gst_query_parse_context (query, &context);
    if (context)
      gst_context_ref (context);
  }
  gst_query_unref (query);
  gst_object_unref (pad);
  return context;
}

/* The CUDA context an element answers a context query with, or NULL. */
static gpointer
context_of (GstElement * element, const gchar * pad_name)
{
  GstContext *context = shared_context_of (element, pad_name);
  gpointer cuda = NULL;

  if (context) {
    const GValue *v = gst_structure_get_value (gst_context_get_structure
        (context), CUDA_CONTEXT_TYPE);
    if (v && G_VALUE_HOLDS_OBJECT (v))
      cuda = g_value_get_object (v);    /* still held by the elements */
    gst_context_unref (context);
  }
  return cuda;
}

/* compare_backends' sweeps of 131,072 points into 128 x 128 x 16 voxels. */
#define SMALL_GRID "voxel-size=\"<0.4>\" dims=\"<128,128,16>\""

/* Runs sweeps of @points points through voxelize on @backend in @mode into
 * @grid (voxelize's grid properties), into an appsink, and returns the
 * grids (system copies) of @n sweeps. */
static GPtrArray *
voxelized (const gchar * backend, const gchar * mode, guint points,
    const gchar * grid, const gchar * sink_caps, gint n, gboolean expect_cuda)
{
  gchar *desc = g_strdup_printf ("robocachelidarsrc num-buffers=%d seed=3 "
      "points-per-sweep=%u ! robocachevoxelize backend=%s mode=%s "
      "features=x,y,z,intensity %s ! %s ! appsink name=sink sync=false", n,
      points, backend, mode, grid, sink_caps);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSample *sample;

  fail_unless (pipeline != NULL, "%s", desc);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstMemory *mem = gst_buffer_peek_memory (buf, 0);
    GstMapInfo map;
    fail_unless_equals_int (gst_robocache_caps_is_cuda (gst_sample_get_caps
            (sample)), expect_cuda);
    fail_unless_equals_int (g_str_has_prefix (mem->allocator->mem_type,
            "robocache.cuda"), expect_cuda);
    /* A plain map of CUDA memory gives a host copy. */
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (out, gst_buffer_new_memdup (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (out->len, n);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
  return out;
}

/* The GPU's outputs against the CPU's: grids byte for byte; means and
 * centroids (as many and in the same order) within float rounding (the GPU
 * adds in another order). */
static void
assert_matches (GPtrArray * cpu, GPtrArray * gpu, gboolean means)
{
  fail_unless_equals_int (cpu->len, gpu->len);
  for (guint i = 0; i < cpu->len; i++) {
    GstMapInfo a, b;
    fail_unless (gst_buffer_map (cpu->pdata[i], &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (gpu->pdata[i], &b, GST_MAP_READ));
    fail_unless_equals_int (a.size, b.size);
    if (!means) {
      fail_unless (memcmp (a.data, b.data, a.size) == 0,
          "grid %u differs from the CPU's", i);
    } else {
      fail_unless (a.size > 1000 * 16, "only %" G_GSIZE_FORMAT " bytes",
          a.size);
      for (gsize f = 0; f < a.size / 4; f++) {
        const float x = ((const float *) a.data)[f];
        const float y = ((const float *) b.data)[f];
        fail_unless (voxel_means_agree (x, y),
            "sweep %u value %" G_GSIZE_FORMAT ": cpu %g gpu %g", i, f, x, y);
      }
    }
    gst_buffer_unmap (gpu->pdata[i], &b);
    gst_buffer_unmap (cpu->pdata[i], &a);
  }
}

/* Three sweeps of @points points in @mode into @grid on the CPU, and on
 * the GPU into CUDA and system memory (@media_type), compared. */
static void
compare_backends_on (const gchar * mode, guint points, const gchar * grid,
    const gchar * media_type)
{
  gboolean means = !g_str_equal (mode, "count");
  gchar *to_cuda = g_strdup_printf ("capsfilter caps=\"%s(memory:CUDAMemory)"
      "\"", media_type);
  gchar *to_system = g_strdup_printf ("capsfilter caps=\"%s\"", media_type);
  GPtrArray *cpu = voxelized ("cpu", mode, points, grid, "capsfilter", 3,
      FALSE);
  GPtrArray *gpu_cuda = voxelized ("gpu", mode, points, grid, to_cuda, 3,
      TRUE);
  GPtrArray *gpu_sys = voxelized ("gpu", mode, points, grid, to_system, 3,
      FALSE);

  assert_matches (cpu, gpu_cuda, means);
  assert_matches (cpu, gpu_sys, means);
  g_ptr_array_unref (cpu);
  g_ptr_array_unref (gpu_cuda);
  g_ptr_array_unref (gpu_sys);
  g_free (to_cuda);
  g_free (to_system);
}

static void
compare_backends (const gchar * mode, const gchar * media_type)
{
  compare_backends_on (mode, 131072, SMALL_GRID, media_type);
}

GST_START_TEST (test_gpu_matches_cpu_cuda_and_system_out)
{
  compare_backends ("count", GST_ROBOCACHE_VOXELS_MEDIA_TYPE);
}

GST_END_TEST;

GST_START_TEST (test_gpu_centroids_match_cpu)
{
  compare_backends ("centroids", GST_ROBOCACHE_POINTS_MEDIA_TYPE);
}

GST_END_TEST;

/* Means of four features of sweeps of 300,000 points into 2,097,152 voxels:
 * sorted into voxel order on the GPU (rc_voxel_mean_sorts), in scratch
 * that the first sweep grows. */
GST_START_TEST (test_gpu_sorted_means_match_cpu)
{
  compare_backends_on ("mean", 300000, "voxel-size=\"<0.4>\" "
      "origin=\"<-51.2,-51.2,-5.0>\" dims=\"<256,256,32>\"",
      GST_ROBOCACHE_VOXELS_MEDIA_TYPE);
}

GST_END_TEST;

/* Points already in CUDA memory (allocated with the allocator voxelize
 * proposes) are used in place, with the same result as system memory. */
GST_START_TEST (test_cuda_points_in)
{
  GstHarness *h = gst_harness_new_parse ("robocachevoxelize backend=gpu "
      "voxel-size=\"<1.0>\" origin=\"<0.0,0.0,0.0>\" dims=\"<2,2,1>\" "
      "mode=count");
  static const float sweep[] = {
    0.5f, 0.5f, 0.5f, 1.0f, 1.5f, 0.5f, 0.5f, 2.0f, 1.2f, 0.7f, 0.1f, 3.0f,
    0.5f, 1.5f, 0.5f, 4.0f, 9.0f, 0.5f, 0.5f, 5.0f,
  };
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  GstMemory *mem;
  GstMapInfo map;
  GstBuffer *in, *out;
  const guint32 *counts;

  gst_harness_set_src_caps_str (h, GST_ROBOCACHE_POINTS_MEDIA_TYPE
      "(memory:CUDAMemory), point-step=(int)16, fields=(string)\""
      GST_ROBOCACHE_FIELDS_XYZI "\"");
  gst_harness_set_sink_caps_str (h, GST_ROBOCACHE_VOXELS_MEDIA_TYPE
      "(memory:CUDAMemory)");
  allocator = proposed_allocator (h, GST_ROBOCACHE_POINTS_MEDIA_TYPE
      "(memory:CUDAMemory), point-step=(int)16, fields=(string)\""
      GST_ROBOCACHE_FIELDS_XYZI "\"", &params);
  mem = gst_allocator_alloc (allocator, sizeof (sweep), &params);
  fail_unless (mem != NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memcpy (map.data, sweep, sizeof (sweep));
  gst_memory_unmap (mem, &map);
  in = gst_buffer_new ();
  gst_buffer_append_memory (in, mem);

  out = gst_harness_push_and_pull (h, in);
  fail_unless (out != NULL);
  fail_unless (g_str_has_prefix (gst_buffer_peek_memory (out,
              0)->allocator->mem_type, "robocache.cuda"));
  fail_unless (gst_buffer_map (out, &map, GST_MAP_READ));
  counts = (const guint32 *) map.data;
  fail_unless_equals_int (counts[0], 1);
  fail_unless_equals_int (counts[1], 2);
  fail_unless_equals_int (counts[2], 1);
  fail_unless_equals_int (counts[3], 0);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_object_unref (allocator);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The bytes of @mem, read through a host map, equal @expect's @n. */
static void
assert_host_bytes (GstMemory * mem, const guint8 * expect, gsize n)
{
  GstMapInfo map;

  fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n);
  fail_unless (memcmp (map.data, expect, n) == 0);
  gst_memory_unmap (mem, &map);
}

/* A robocache CUDA memory copies between its sides only what a map needs,
 * and never loses bytes doing so: a copy at an offset into a memory that
 * is itself offset, a host read of a memory cut smaller (a pooled
 * output), the same memory grown back, a host write of a part, and the
 * device side read after it. */
GST_START_TEST (test_cuda_memory_partial_sync)
{
  GstHarness *h = gst_harness_new_parse ("robocachevoxelize backend=gpu "
      "voxel-size=\"<1.0>\" origin=\"<0.0,0.0,0.0>\" dims=\"<2,2,1>\"");
  const gchar *caps = GST_ROBOCACHE_POINTS_MEDIA_TYPE
      "(memory:CUDAMemory), point-step=(int)16, fields=(string)\""
      GST_ROBOCACHE_FIELDS_XYZI "\"";
  enum
  { SIZE = 4096, PART = 1000 };
  guint8 first[SIZE], second[SIZE], expect[SIZE];
  GRand *rand = test_rand_new ();
  GstAllocator *allocator;
  GstAllocationParams params;
  GstMemory *mem, *copy, *grown;
  GstMapInfo map;

  for (gsize i = 0; i < SIZE; i++) {
    first[i] = (guint8) g_rand_int (rand);
    second[i] = (guint8) g_rand_int (rand);
  }
  gst_harness_set_src_caps_str (h, caps);
  gst_harness_set_sink_caps_str (h, GST_ROBOCACHE_VOXELS_MEDIA_TYPE
      "(memory:CUDAMemory)");
  allocator = proposed_allocator (h, caps, &params);
  mem = gst_allocator_alloc (allocator, SIZE, &params);
  fail_unless (mem != NULL);
  fail_unless (gst_memory_map (mem, &map, GST_MAP_WRITE));
  memcpy (map.data, first, SIZE);
  gst_memory_unmap (mem, &map);

  /* A copy of bytes 10 to 510 of a memory that starts at byte 100. */
  gst_memory_resize (mem, 100, PART);
  copy = gst_memory_copy (mem, 10, 500);
  fail_unless (copy != NULL);
  assert_host_bytes (copy, first + 110, 500);
  gst_memory_unref (copy);
  gst_memory_resize (mem, -100, SIZE);

  /* Only on the device: a host read of the first PART bytes, then of all
   * of them once the memory has its size again. */
  grown = gst_memory_copy (mem, 0, -1);
  fail_unless (grown != NULL);
  gst_memory_resize (grown, 0, PART);
  assert_host_bytes (grown, first, PART);
  gst_memory_resize (grown, 0, SIZE);
  assert_host_bytes (grown, first, SIZE);

  /* Back on the device, a host write of bytes PART to 2 PART, then the
   * device side read (through a device copy): the rest kept. */
  copy = gst_memory_copy (grown, 0, -1);
  gst_memory_unref (grown);
  grown = copy;
  gst_memory_resize (grown, 0, PART);
  assert_host_bytes (grown, first, PART);
  gst_memory_resize (grown, PART, PART);
  fail_unless (gst_memory_map (grown, &map, GST_MAP_WRITE));
  memcpy (map.data, second + PART, PART);
  gst_memory_unmap (grown, &map);
  gst_memory_resize (grown, -PART, SIZE);
  copy = gst_memory_copy (grown, 0, -1);
  memcpy (expect, first, SIZE);
  memcpy (expect + PART, second + PART, PART);
  assert_host_bytes (copy, expect, SIZE);
  assert_host_bytes (grown, expect, SIZE);

  gst_memory_unref (copy);
  gst_memory_unref (grown);
  gst_memory_unref (mem);
  gst_object_unref (allocator);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* One pipeline, GStreamer's CUDA elements and robocache: one context. */
GST_START_TEST (test_context_shared_with_nvcodec)
{
  GstElement *pipeline, *up, *down, *vox;
  GstMessage *msg;

  if (!gst_registry_check_feature_version (gst_registry_get (), "cudaupload",
          1, 22, 0)) {
    fail ("nvcodec's cudaupload is not available on this GPU machine");
  }
  pipeline = gst_parse_launch ("videotestsrc num-buffers=30 ! cudaupload "
      "name=up ! cudadownload name=down ! fakesink "
      "robocachelidarsrc num-buffers=30 points-per-sweep=4096 ! "
      "robocachevoxelize name=vox backend=gpu ! fakesink", NULL);
  fail_unless (pipeline != NULL);
  up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  down = gst_bin_get_by_name (GST_BIN (pipeline), "down");
  vox = gst_bin_get_by_name (GST_BIN (pipeline), "vox");
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  {
    GstStateChangeReturn ret = gst_element_get_state (pipeline, NULL, NULL,
        30 * GST_SECOND);
    gpointer vox_ctx = NULL, up_ctx = NULL, down_ctx = NULL;
    if (ret == GST_STATE_CHANGE_SUCCESS) {
      vox_ctx = context_of (vox, "src");
      up_ctx = context_of (up, "src");
      down_ctx = context_of (down, "sink");
    }
    /* Stop first, so that a failed check leaves no streaming thread. */
    gst_element_set_state (pipeline, GST_STATE_NULL);
    fail_unless_equals_int (ret, GST_STATE_CHANGE_SUCCESS);
    fail_unless (up_ctx != NULL, "cudaupload answers no CUDA context");
    fail_unless (vox_ctx != NULL, "robocachevoxelize answers no context");
    fail_unless (vox_ctx == up_ctx,
        "robocachevoxelize and cudaupload use different CUDA contexts");
    fail_unless (down_ctx == up_ctx);
  }
  msg = run_to_end (pipeline, 60 * GST_SECOND);
  fail_unless (msg == NULL);
  gst_object_unref (up);
  gst_object_unref (down);
  gst_object_unref (vox);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Three sweeps of @seed voxelized on the GPU into CUDA memory; and their
 * pictures drawn on the GPU into system memory. */
#define GRIDS_OF(seed) "robocachelidarsrc num-buffers=3 " \
    "points-per-sweep=32768 seed=" seed " ! robocachevoxelize name=vox " \
    "backend=gpu mode=count ! other/x-robocache-voxels(memory:CUDAMemory)"
#define PICTURES "robocachebev name=bev backend=gpu width=64 height=64 ! " \
    "video/x-raw,format=RGBA ! appsink name=sink sync=false"

/* Two pipelines of one process (docs/elements.md, "Several GPUs"): the
 * first voxelizes into CUDA memory and stops; the second draws those very
 * buffers (pushed through appsrc), given the first's GstContext before it
 * starts when @share, else on a context of its own, into which robocache
 * copies them (memory of another context); either way the pictures are
 * the one-pipeline ones. */
static void
draw_grids_of_another_pipeline (gboolean share)
{
  GstElement *first = gst_parse_launch (GRIDS_OF ("11") " ! appsink "
      "name=sink sync=false", NULL);
  GstElement *second = gst_parse_launch ("appsrc name=src format=time ! "
      PICTURES, NULL);
  GstElement *reference = gst_parse_launch (GRIDS_OF ("11") " ! " PICTURES,
      NULL);
  GPtrArray *grids = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstElement *src = by_name (second, "src");
  GPtrArray *want, *got;
  GstContext *shared;
  GstSample *sample;
  gpointer first_cuda, second_cuda;

  gst_element_set_state (first, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (by_name
                  (first, "sink")), 60 * GST_SECOND)))
    g_ptr_array_add (grids, sample);
  shared = shared_context_of (by_name (first, "vox"), "src");
  first_cuda = context_of (by_name (first, "vox"), "src");
  /* The grids outlive their pipeline's run; the context lives on in the
   * GstContext. */
  gst_element_set_state (first, GST_STATE_NULL);

  /* Given before it starts: its elements find it instead of making one. */
  if (share && shared)
    gst_element_set_context (second, shared);
  if (grids->len > 0)
    g_object_set (src, "caps", gst_sample_get_caps (grids->pdata[0]), NULL);
  gst_element_set_state (second, GST_STATE_PLAYING);
  second_cuda = context_of (by_name (second, "bev"), "src");
  for (guint i = 0; i < grids->len; i++)
    gst_app_src_push_buffer (GST_APP_SRC (src),
        gst_buffer_ref (gst_sample_get_buffer (grids->pdata[i])));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  got = pull_all_bytes (second, "the second pipeline");
  want = pull_all_bytes (reference, "the one pipeline");

  fail_unless_equals_int (grids->len, 3);
  fail_unless (shared != NULL && first_cuda != NULL,
      "robocachevoxelize answers no CUDA context");
  fail_unless (second_cuda != NULL, "robocachebev answers no CUDA context");
  if (share)
    fail_unless (second_cuda == first_cuda,
        "the second pipeline's robocachebev has a CUDA context of its own");
  else
    fail_unless (second_cuda != first_cuda,
        "the second pipeline found the first's CUDA context by itself");
  fail_unless_equals_int (got->len, want->len);
  for (guint i = 0; i < want->len; i++)
    fail_unless (g_bytes_equal (got->pdata[i], want->pdata[i]),
        "picture %u differs from the one-pipeline picture", i);
  g_ptr_array_unref (want);
  g_ptr_array_unref (got);
  g_ptr_array_unref (grids);
  gst_context_unref (shared);
  gst_object_unref (first);
  gst_object_unref (second);
  gst_object_unref (reference);
}

GST_START_TEST (test_context_shared_between_pipelines)
{
  draw_grids_of_another_pipeline (TRUE);
}

GST_END_TEST;

GST_START_TEST (test_contexts_of_two_pipelines)
{
  /* initcheck does not see a copy between two contexts of one device
   * write (docs/bench/run207/initcheck_samedevice.cu): it would report
   * every byte robocachebev reads. */
  if (g_strcmp0 (g_getenv ("ROBOCACHE_SANITIZER"), "initcheck") == 0) {
    g_print ("left out under initcheck: its copy between two contexts of "
        "one device is not seen to write\n");
    return;
  }
  draw_grids_of_another_pipeline (FALSE);
}

GST_END_TEST;

/* GPU pipelines a robot's node may stop and start again, every GPU element
 * among them: voxelize into CUDA memory and the bird's-eye view, pillars,
 * resample, and the fuse of two grids. */
#define RESTART_CUDA_VOXELS "robocachevoxelize backend=gpu mode=count ! " \
    "other/x-robocache-voxels(memory:CUDAMemory)"
static const gchar *restarted[] = {
  "robocachelidarsrc num-buffers=4 points-per-sweep=32768 ! "
      RESTART_CUDA_VOXELS " ! robocachebev backend=gpu width=128 height=128 "
      "! fakesink",
  "robocachelidarsrc num-buffers=4 points-per-sweep=32768 ! "
      "robocachepillars backend=gpu ! fakesink",
  "robocachejointsrc num-buffers=200 ! robocacheresample backend=gpu "
      "rate=50/1 ! fakesink",
  "robocachefuse name=f backend=gpu rate=0/1 ! fakesink "
      "robocachelidarsrc num-buffers=4 points-per-sweep=32768 seed=1 ! "
      RESTART_CUDA_VOXELS " ! f.sink_0 "
      "robocachelidarsrc num-buffers=4 points-per-sweep=32768 seed=2 ! "
      RESTART_CUDA_VOXELS " ! f.sink_1",
};

/* Plays each of restarted[] once, as a new pipeline freed after. */
static void
play_each_restarted (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (restarted); i++) {
    GstElement *pipeline = gst_parse_launch (restarted[i], NULL);

    fail_unless (pipeline != NULL, "cannot parse %s", restarted[i]);
    fail_unless (play_to_end (pipeline), "%s: an error", restarted[i]);
  }
}

/* What the test measures: device memory free and the process's resident
 * memory (page-locked blocks included), in MiB, before and after glibc
 * gives back the free memory it keeps. */
typedef struct
{
  gdouble device_free;
  gdouble resident_untrimmed;
  gdouble resident;
} MemoryUse;

static gdouble
resident_mib (void)
{
  glong rss_kib = test_proc_status_kib ("VmRSS");

  fail_unless (rss_kib >= 0, "no VmRSS in /proc/self/status");
  return rss_kib / 1024.0;
}

static MemoryUse
memory_use (void)
{
  MemoryUse use = { 0, 0, 0 };
  size_t free_bytes = 0, total = 0;

  fail_unless_equals_int (rc_device_memory_info (&free_bytes, &total), RC_OK);
  use.device_free = free_bytes / 1048576.0;
  use.resident_untrimmed = resident_mib ();
  /* Memory freed into glibc's arenas (one per thread that met another in
   * malloc: each new pipeline's threads may add one, and an arena keeps
   * what was freed in it) is held by nothing; it went from 148 to 229 MiB
   * over 20 rounds in run 208, then stayed there.  Given back first, so
   * that what counts is what is still allocated. */
#ifdef __GLIBC__
  malloc_trim (0);
#endif
  use.resident = resident_mib ();
  return use;
}

/* Twenty rounds of new pipelines, then one pipeline played twenty times,
 * leave the device and the process with the memory they had after the
 * first round (within 64 MiB): each run's context, streams, pools,
 * page-locked blocks and scratch are given back (a CUDA context kept a run
 * would hold hundreds of MiB of the device each). */
GST_START_TEST (test_restarts_give_back_memory)
{
  GstElement *again = gst_parse_launch (restarted[0], NULL);
  MemoryUse before, after_new, after_again;

  /* compute-sanitizer holds device memory of its own. */
  if (g_getenv ("ROBOCACHE_SANITIZER")) {
    g_print ("left out under compute-sanitizer\n");
    gst_object_unref (again);
    return;
  }
  /* The first run's are once a process: modules loaded, the runtime's. */
  play_each_restarted ();
  before = memory_use ();
  for (gint round = 0; round < 20; round++)
    play_each_restarted ();
  after_new = memory_use ();
  for (gint round = 0; round < 20; round++) {
    GstMessage *msg = run_to_end (again, 60 * GST_SECOND);

    fail_unless (msg == NULL, "%s: run %d ended in an error", restarted[0],
        round);
  }
  gst_object_unref (again);
  after_again = memory_use ();
  g_print ("device memory free: %.0f MiB after the first round, %.0f after "
      "20 rounds of new pipelines, %.0f after one played 20 times\n",
      before.device_free, after_new.device_free, after_again.device_free);
  g_print ("resident memory: %.0f MiB, %.0f, %.0f; before glibc gave "
      "back its free memory: %.0f, %.0f, %.0f\n", before.resident,
      after_new.resident, after_again.resident, before.resident_untrimmed,
      after_new.resident_untrimmed, after_again.resident_untrimmed);
  fail_unless (after_new.device_free > before.device_free - 64
      && after_again.device_free > before.device_free - 64,
      "device memory not given back: %.0f MiB free after the first round, "
      "%.0f after 20 more, %.0f after a pipeline played 20 times",
      before.device_free, after_new.device_free, after_again.device_free);
  fail_unless (after_new.resident < before.resident + 64
      && after_again.resident < before.resident + 64,
      "host memory not given back: %.0f MiB resident after the first round, "
      "%.0f after 20 more, %.0f after a pipeline played 20 times",
      before.resident, after_new.resident, after_again.resident);
}

GST_END_TEST;

/* Camera (cudaupload), joints and lidar (voxelized on the GPU) fused: the
 * camera memory in the fused frame is the very CUDA memory cudaupload
 * produced, the grid stays in robocache CUDA memory, and every element
 * runs on one context. */
static GHashTable *uploaded;

static GstPadProbeReturn
remember_uploaded (GstPad * pad, GstPadProbeInfo * info, gpointer unused)
{
  g_hash_table_add (uploaded,
      gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info), 0));
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_fuse_camera_joints_lidar)
{
  GstElement *pipeline = gst_parse_launch ("robocachefuse name=f rate=0/1 "
      "! appsink name=sink sync=false "
      "videotestsrc num-buffers=10 ! video/x-raw,format=NV12,width=64,"
      "height=48,framerate=30/1 ! cudaupload name=up ! "
      "video/x-raw(memory:CUDAMemory) ! f.sink_0 "
      "robocachejointsrc num-buffers=40 ! f.sink_1 "
      "robocachelidarsrc num-buffers=4 points-per-sweep=4096 ! "
      "robocachevoxelize name=vox backend=gpu ! f.sink_2", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  GstElement *up = gst_bin_get_by_name (GST_BIN (pipeline), "up");
  GstElement *vox = gst_bin_get_by_name (GST_BIN (pipeline), "vox");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *up_src = gst_element_get_static_pad (up, "src");
  GstPad *master = gst_element_get_static_pad (f, "sink_0");
  gpointer f_ctx = NULL, up_ctx = NULL, vox_ctx = NULL;
  guint n = 0, zero_copy = 0, grids_on_gpu = 0;
  GstSample *sample;

  uploaded = g_hash_table_new (NULL, NULL);
  g_object_set (master, "master", TRUE, "stream-name", "camera", NULL);
  gst_pad_add_probe (up_src, GST_PAD_PROBE_TYPE_BUFFER, remember_uploaded,
      NULL, NULL);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstRobocacheFusedMeta *meta = gst_buffer_get_robocache_fused_meta (buf);
    const GstRobocacheFusedStream *cam =
        gst_robocache_fused_meta_find (meta, "camera");
    const GstRobocacheFusedStream *grid =
        gst_robocache_fused_meta_find (meta, "sink_2");
    GstMapInfo map;

    if (!f_ctx) {
      f_ctx = context_of (f, "src");
      up_ctx = context_of (up, "src");
      vox_ctx = context_of (vox, "src");
    }
    fail_unless (cam && cam->memory_index >= 0);
    if (g_hash_table_contains (uploaded, gst_buffer_peek_memory (buf,
                cam->memory_index)))
      zero_copy++;
    fail_unless (g_str_has_prefix (gst_buffer_peek_memory (buf,
                cam->memory_index)->allocator->mem_type, "gst.cuda"));
    /* The device pointer through the reading API. */
    fail_unless (gst_robocache_fused_map_stream (buf, "camera", &map, TRUE));
    fail_unless (map.data != NULL);
    gst_memory_unmap (map.memory, &map);
    if (grid && grid->memory_index >= 0 &&
        g_str_has_prefix (gst_buffer_peek_memory (buf,
                grid->memory_index)->allocator->mem_type, "robocache.cuda"))
      grids_on_gpu++;
    n++;
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (n, 10);
  fail_unless_equals_int (zero_copy, n);
  fail_unless (grids_on_gpu > 0);
  fail_unless (up_ctx != NULL && f_ctx == up_ctx && vox_ctx == up_ctx,
      "contexts differ: fuse %p, cudaupload %p, voxelize %p", f_ctx, up_ctx,
      vox_ctx);
  g_hash_table_unref (uploaded);
  gst_object_unref (up_src);
  gst_object_unref (master);
  gst_object_unref (f);
  gst_object_unref (up);
  gst_object_unref (vox);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* GPU memory is checked before it is allocated: above max-memory (1 GiB
 * by default), and with max-memory=0 above what the device has free
 * (a grid of 2^32 - 1 voxels of 8 means, over 150 GB, more than an H100
 * or H200 holds): an element error at negotiation, not a failed
 * cudaMalloc in the middle of the stream. */
GST_START_TEST (test_gpu_memory_refused_n)
{
  const gchar *launch = "robocachelidarsrc num-buffers=2 "
      "points-per-sweep=64 ! robocachevoxelize backend=gpu %s mode=mean "
      "features=x,y,z,intensity,x,y,z,intensity dims=\"<65535,65537,1>\" ! "
      "capsfilter caps=\"" GST_ROBOCACHE_VOXELS_MEDIA_TYPE
      "(memory:CUDAMemory)\" ! fakesink";
  gchar *desc = g_strdup_printf (launch, "");
  gchar *text = launch_error (desc, TRUE);

  fail_unless (text && strstr (text, "bytes of GPU memory, above the "
          "1073741824 the element is allowed: set its max-memory property"),
      "%s", text);
  g_free (text);
  g_free (desc);
  desc = g_strdup_printf (launch, "max-memory=0");
  text = launch_error (desc, TRUE);
  fail_unless (text && strstr (text, "bytes of GPU memory, more than the ")
      && strstr (text, "available (the GPU's free memory (cudaMemGetInfo))"),
      "%s", text);
  g_free (text);
  g_free (desc);
}

GST_END_TEST;

/* A topic that never plays (every message skipped) reaches its filter as
 * stream-start, segment and GAP events without caps (the recording
 * sources' GAPs): each GPU filter passes the stream on to its EOS without
 * an error. */
static void
gaps_before_caps (const gchar * backend)
{
  const gchar *filters[] = { "robocachevoxelize", "robocachepillars",
    "robocacheresample", "robocachebev"
  };

  for (guint i = 0; i < G_N_ELEMENTS (filters); i++) {
    gchar *desc = g_strdup_printf ("%s backend=%s", filters[i], backend);
    GstHarness *h = gst_harness_new_parse (desc);
    GstBus *bus = gst_bus_new ();
    GstMessage *error;
    GstSegment segment;
    GstEvent *event;
    gboolean eos = FALSE;

    gst_element_set_bus (h->element, bus);
    gst_segment_init (&segment, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h,
            gst_event_new_stream_start ("never-plays")), "%s", desc);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)),
        "%s", desc);
    for (guint k = 0; k < 3; k++)
      fail_unless (gst_harness_push_event (h, gst_event_new_gap (k *
                  GST_SECOND / 2, GST_SECOND / 2)), "%s: GAP %u", desc, k);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()), "%s", desc);
    while ((event = gst_harness_try_pull_event (h))) {
      eos |= GST_EVENT_TYPE (event) == GST_EVENT_EOS;
      gst_event_unref (event);
    }
    fail_unless (eos, "%s: no EOS came out", desc);
    error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (error) {
      GError *err = NULL;

      gst_message_parse_error (error, &err, NULL);
      fail ("%s: an error: %s", desc, err->message);
    }
    gst_element_set_bus (h->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (h);
    g_free (desc);
  }
}

GST_START_TEST (test_gaps_before_caps)
{
  gaps_before_caps ("gpu");
  gaps_before_caps ("cpu");
}

GST_END_TEST;

static Suite *
cuda_suite (void)
{
  Suite *s = suite_create ("robocache-cuda");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gpu_matches_cpu_cuda_and_system_out);
  tcase_add_test (tc, test_gpu_centroids_match_cpu);
  tcase_add_test (tc, test_gpu_sorted_means_match_cpu);
  tcase_add_test (tc, test_cuda_points_in);
  tcase_add_test (tc, test_cuda_memory_partial_sync);
  tcase_add_test (tc, test_context_shared_with_nvcodec);
  tcase_add_test (tc, test_context_shared_between_pipelines);
  tcase_add_test (tc, test_contexts_of_two_pipelines);
  tcase_add_test (tc, test_restarts_give_back_memory);
  tcase_add_test (tc, test_fuse_camera_joints_lidar);
  tcase_add_test (tc, test_gpu_memory_refused_n);
  tcase_add_test (tc, test_gaps_before_caps);
  return s;
}

int
main (int argc, char **argv)
{
  test_require_gpu ();
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (cuda_suite (), "robocache-cuda", __FILE__);
}
