/* CUDA failures in the middle of a stream, by the kernel library's fault
 * hook (rc_fault_inject, kernels/robocache-kernels.h): an allocation that
 * fails, a kernel launch that fails and a sticky error, in each GPU
 * element.  Each gives one element error naming the CUDA error, the
 * pipeline goes to NULL, and a new pipeline in the same process computes
 * what the CPU computes (after a sticky error: once the fault is disarmed,
 * which stands for a new process).  Also grids of more memory than the
 * device has, and a GPU the kernels were not built for.  Skipped (exit 77)
 * without a GPU.
 *
 * The plugin's calls into the kernel library bind to the copy this test
 * links (librobocache-kernels-1.0, first in the process's lookup scope),
 * so the hook armed here is the one they meet; every case checks that the
 * fault fired. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <math.h>
#include <string.h>

#include "elementutil.h"
#include "testutil.h"

/* The GPU elements' pipelines: %u the seed, %d num-buffers, %s the
 * backend, then a capsfilter (CUDA output) or "" before the appsink.
 * Their element "el" is the one under test (in fuse's, voxelize feeds the
 * fuse; fuse itself runs no kernel). */
typedef struct
{
  const gchar *name;
  const gchar *desc;
  const gchar *cuda_out;        /* capsfilter asking for CUDA output, or
                                 * NULL: steady state allocates nothing */
  gboolean exact;               /* GPU bytes equal the CPU's */
} Case;

#define SINK "appsink name=sink sync=false max-buffers=1"
#define LIDAR "robocachelidarsrc seed=%u num-buffers=%d points-per-sweep=4096 "

static const Case cases[] = {
  {"voxelize", LIDAR "! robocachevoxelize name=el backend=%s mode=count "
        "voxel-size=\"<0.5>\" dims=\"<64,64,8>\" ! %s" SINK,
        GST_ROBOCACHE_VOXELS_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA
        ") ! ",
      TRUE},
  {"pillars", LIDAR "! robocachepillars name=el backend=%s "
        "voxel-size=\"<0.5,0.5,8.0>\" origin=\"<-16.0,-16.0,-4.0>\" "
        "dims=\"<64,64,1>\" max-voxels=512 max-points-per-voxel=8 ! %s" SINK,
        GST_ROBOCACHE_SPARSE_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA
        ") ! ",
      TRUE},
  {"resample", "robocachejointsrc seed=%u num-buffers=%d ! "
        "robocacheresample name=el backend=%s rate=100 ! %s" SINK,
        GST_ROBOCACHE_VECTORS_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA
        ") ! ",
      FALSE},
  {"bev", LIDAR "! robocachevoxelize backend=cpu mode=count ! "
        "robocachebev name=el backend=%s width=128 height=128 ! %s" SINK,
      NULL, TRUE},
  {"fuse", LIDAR "! robocachevoxelize name=el backend=%s mode=count "
        "voxel-size=\"<0.5>\" dims=\"<64,64,8>\" ! %s f.sink_0 "
        "robocachefuse name=f rate=0/1 ! " SINK " "
        "robocachejointsrc seed=1 num-buffers=1000 ! f.sink_1",
      NULL, FALSE},
};

/* Buffers before the fault is armed, and in the pipelines it stops. */
#define BEFORE_FAULT 3
#define FAULT_RUN 400
#define CLEAN_RUN 6

/* After each test, also a failed one: its pipelines stopped
 * (elementutil.h) and whatever it left armed disarmed. */
static void
stop_pipelines (void)
{
  stop_tracked_pipelines ();
  rc_fault_inject (RC_FAULT_NONE, 0);
}

static GstElement *
pipeline_new (const Case * c, guint seed, gint n, const gchar * backend,
    gboolean cuda_out)
{
  gchar *desc = g_strdup_printf (c->desc, seed, n, backend,
      cuda_out && c->cuda_out ? c->cuda_out : "");
  GstElement *pipeline = gst_parse_launch (desc, NULL);

  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  return tracked (pipeline);
}

/* The buffers of a whole run (host copies); fails on any error. */
static GPtrArray *
clean_run (const Case * c, guint seed, const gchar * backend)
{
  GstElement *pipeline = pipeline_new (c, seed, CLEAN_RUN, backend,
      strcmp (backend, "gpu") == 0);
  gchar *what = g_strdup_printf ("%s on %s", c->name, backend);
  GPtrArray *out = pull_all_bytes (pipeline, what);

  g_free (what);
  untrack (pipeline);
  gst_object_unref (pipeline);
  return out;
}

/* @out (taken) is what the CPU gives for @seed: the same bytes, or the
 * same sizes where the GPU's floats may differ in the last bits. */
static void
assert_cpu_output (const Case * c, GPtrArray * out, guint seed,
    const gchar * what)
{
  GPtrArray *cpu = clean_run (c, seed, "cpu");

  fail_unless (out->len > 0 && out->len == cpu->len, "%s %s: %u vs %u "
      "buffers", c->name, what, out->len, cpu->len);
  for (guint i = 0; c->exact && i < out->len; i++)
    fail_unless (g_bytes_equal (out->pdata[i], cpu->pdata[i]),
        "%s %s: buffer %u differs from the CPU's (seed %u)", c->name, what, i,
        seed);
  for (guint i = 0; !c->exact && i < out->len; i++)
    fail_unless_equals_int (g_bytes_get_size (out->pdata[i]),
        g_bytes_get_size (cpu->pdata[i]));
  g_ptr_array_unref (out);
  g_ptr_array_unref (cpu);
}

/* A new pipeline on the GPU gives what the CPU gives. */
static void
assert_gpu_works (const Case * c)
{
  guint seed = g_random_int_range (1, 100000);

  assert_cpu_output (c, clean_run (c, seed, "gpu"), seed, "on the GPU");
}

/* Pulls from @sink into @held until EOS (NULL) or an error on @bus (that
 * message); @arm, when not NULL, is called once BEFORE_FAULT buffers are
 * held. */
static GstMessage *
hold_until_error (GstElement * sink, GstBus * bus, GPtrArray * held,
    void (*arm) (gpointer), gpointer arm_data)
{
  gint64 give_up = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  GstMessage *msg = NULL;

  while (!msg && g_get_monotonic_time () < give_up) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        GST_SECOND / 10);

    if (sample) {
      g_ptr_array_add (held, sample);
      if (arm && held->len == BEFORE_FAULT)
        arm (arm_data);
    } else if (gst_app_sink_is_eos (GST_APP_SINK (sink))) {
      /* A source whose push failed posts its error and ends the stream
       * (GstBaseSrc): the error is on the bus before the EOS arrives. */
      return gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    }
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  }
  fail_unless (msg != NULL, "neither EOS nor an error in 120 s");
  return msg;
}

/* @msg (taken) must name @cuda_name in its message. */
static void
assert_error_names (const Case * c, GstMessage * msg, const gchar * cuda_name)
{
  GError *err = NULL;

  fail_unless (msg != NULL, "%s: no error for %s", c->name, cuda_name);
  gst_message_parse_error (msg, &err, NULL);
  g_print ("%s: %s: %s\n", c->name, GST_MESSAGE_SRC_NAME (msg), err->message);
  fail_unless (strstr (err->message, cuda_name) != NULL,
      "%s: the first error (from %s) does not name %s: %s", c->name,
      GST_MESSAGE_SRC_NAME (msg), cuda_name, err->message);
  g_error_free (err);
  gst_message_unref (msg);
}

typedef struct
{
  rc_fault kind;
} Arming;

static void
arm_fault (gpointer data)
{
  fail_unless_equals_int (rc_fault_inject (((Arming *) data)->kind, 0), RC_OK);
}

/* Runs @c on the GPU, arms @kind once BEFORE_FAULT buffers came out (or
 * before start when @at_start), holds every buffer (so that a CUDA output
 * pool must allocate for each), and expects the fault's error; the
 * pipeline then goes to NULL. */
static void
fault_run (const Case * c, rc_fault kind, const gchar * cuda_name,
    gboolean at_start, gboolean cuda_out)
{
  GstElement *pipeline = pipeline_new (c, 7, FAULT_RUN, "gpu", cuda_out);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  GPtrArray *held = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  Arming arming = { kind };
  GstMessage *msg;

  if (at_start)
    arm_fault (&arming);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = hold_until_error (sink, bus, held, at_start ? NULL : arm_fault,
      &arming);
  fail_unless (msg != NULL, "%s: ran to the end with the fault armed", c->name);
  fail_unless (rc_fault_fired () > 0, "%s: the fault did not fire", c->name);
  assert_error_names (c, msg, cuda_name);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_ptr_array_unref (held);
  gst_object_unref (bus);
  gst_object_unref (sink);
  untrack (pipeline);
  gst_object_unref (pipeline);
}

GST_START_TEST (test_hook)
{
  void *p = NULL;
  gchar *built;

  fail_unless_equals_int (rc_fault_inject ((rc_fault) 9, 0),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fault_inject (RC_FAULT_ALLOC, -1),
      RC_ERROR_INVALID_ARGUMENT);
  fail_unless_equals_int (rc_fault_inject (RC_FAULT_ALLOC, 1), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&p, 16), RC_OK);
  fail_unless_equals_int (rc_device_free (p), RC_OK);
  fail_unless_equals_int (rc_device_alloc (&p, 16), RC_ERROR_OUT_OF_MEMORY);
  fail_unless (p == NULL);
  fail_unless_equals_string (rc_error_detail (),
      "cudaErrorMemoryAllocation: out of memory");
  fail_unless_equals_int (rc_fault_fired (), 1);
  /* Once only. */
  fail_unless_equals_int (rc_device_alloc (&p, 16), RC_OK);
  fail_unless_equals_int (rc_device_free (p), RC_OK);
  fail_unless_equals_int (rc_fault_fired (), 1);

  fail_unless_equals_int (rc_fault_inject (RC_FAULT_STICKY, 0), RC_OK);
  /* The cudaMalloc itself succeeds, and is given back. */
  fail_unless_equals_int (rc_device_alloc (&p, 16), RC_ERROR_CUDA);
  fail_unless (p == NULL);
  fail_unless (g_str_has_prefix (rc_error_detail (),
          "cudaErrorIllegalAddress"), "%s", rc_error_detail ());
  fail_unless_equals_int (rc_stream_synchronize (NULL), RC_ERROR_CUDA);
  fail_unless (rc_fault_fired () >= 2);
  fail_unless_equals_int (rc_fault_inject (RC_FAULT_NONE, 0), RC_OK);
  fail_unless_equals_int (rc_stream_synchronize (NULL), RC_OK);

  /* This GPU runs the kernels; armed, the check names what was built. */
  fail_unless_equals_int (rc_device_check_kernels (), RC_OK);
  fail_unless_equals_int (rc_fault_inject (RC_FAULT_KERNEL_IMAGE, 0), RC_OK);
  fail_unless_equals_int (rc_device_check_kernels (),
      RC_ERROR_UNSUPPORTED_DEVICE);
  built = g_strdup_printf ("built for cuda-architectures '%s'",
      rc_cuda_architectures ());
  fail_unless (g_str_has_prefix (rc_error_detail (),
          "cudaErrorNoKernelImageForDevice: CUDA device ")
      && strstr (rc_error_detail (), built)
      && strstr (rc_error_detail (), "-Dcuda-architectures='"), "%s",
      rc_error_detail ());
  g_free (built);
  fail_unless_equals_int (rc_fault_inject (RC_FAULT_NONE, 0), RC_OK);
  fail_unless_equals_int (rc_device_check_kernels (), RC_OK);
}

GST_END_TEST;

/* The first device allocation fails (at negotiation, or for fuse in the
 * voxelize feeding it). */
GST_START_TEST (test_alloc_at_start)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    fault_run (&cases[i], RC_FAULT_ALLOC, "cudaErrorMemoryAllocation", TRUE,
        TRUE);
    assert_gpu_works (&cases[i]);
  }
}

GST_END_TEST;

/* An allocation of the CUDA output pool fails in the middle of a stream. */
GST_START_TEST (test_alloc_mid_stream)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    if (!cases[i].cuda_out)
      continue;
    fault_run (&cases[i], RC_FAULT_ALLOC, "cudaErrorMemoryAllocation", FALSE,
        TRUE);
    assert_gpu_works (&cases[i]);
  }
}

GST_END_TEST;

GST_START_TEST (test_launch_mid_stream)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    for (gint cuda_out = 0; cuda_out <= (cases[i].cuda_out != NULL); cuda_out++) {
      fault_run (&cases[i], RC_FAULT_LAUNCH, "cudaErrorLaunchOutOfResources",
          FALSE, cuda_out);
      assert_gpu_works (&cases[i]);
    }
  }
}

GST_END_TEST;

/* A sticky error: the stream stops, and while it lasts a new pipeline
 * with backend=gpu is refused at start, naming it (backend=auto would
 * compute on the CPU). */
GST_START_TEST (test_sticky_mid_stream)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    GstElement *again;
    GstBus *bus;

    fault_run (c, RC_FAULT_STICKY, "cudaErrorIllegalAddress", FALSE, TRUE);
    again = pipeline_new (c, 9, CLEAN_RUN, "gpu", FALSE);
    bus = gst_element_get_bus (again);
    gst_element_set_state (again, GST_STATE_PLAYING);
    assert_error_names (c, gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
            GST_MESSAGE_ERROR), "cudaErrorIllegalAddress");
    fail_unless_equals_int (gst_element_set_state (again, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
    gst_object_unref (bus);
    gst_object_unref (again);
    fail_unless_equals_int (rc_fault_inject (RC_FAULT_NONE, 0), RC_OK);
    assert_gpu_works (c);
  }
}

GST_END_TEST;

/* A bus sync handler: sets *@data where element "el" warns that the CPU
 * computes, naming the rebuild (seen as it is posted: pull_all_bytes
 * drops what is not an error). */
static GstBusSyncReply
note_rebuild_warning (GstBus * bus, GstMessage * msg, gpointer data)
{
  GError *err = NULL;
  gchar *debug = NULL;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_WARNING)
    return GST_BUS_PASS;
  gst_message_parse_warning (msg, &err, &debug);
  g_print ("%s: %s (%s)\n", GST_MESSAGE_SRC_NAME (msg), err->message, debug);
  if (strcmp (GST_MESSAGE_SRC_NAME (msg), "el") == 0
      && strstr (err->message, "computing on the CPU") && debug
      && strstr (debug, "cudaErrorNoKernelImageForDevice")
      && strstr (debug, "-Dcuda-architectures="))
    g_atomic_int_set ((gint *) data, TRUE);
  g_clear_error (&err);
  g_free (debug);
  return GST_BUS_PASS;
}

/* @c under backend=auto with the kernels' fault armed: its output, and
 * whether element "el" warned that the CPU computes, naming the rebuild. */
static GPtrArray *
auto_run_warned (const Case * c, guint seed, gboolean * warned)
{
  GstElement *pipeline = pipeline_new (c, seed, CLEAN_RUN, "auto", FALSE);
  GstBus *bus = gst_element_get_bus (pipeline);
  gint seen = FALSE;
  GPtrArray *out;

  gst_bus_set_sync_handler (bus, note_rebuild_warning, &seen, NULL);
  out = pull_all_bytes (pipeline, c->name);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  *warned = g_atomic_int_get (&seen);
  gst_object_unref (bus);
  untrack (pipeline);
  gst_object_unref (pipeline);
  return out;
}

/* A GPU that the kernels were not built for (cuda-architectures):
 * backend=gpu is refused at start, naming the rebuild; backend=auto warns
 * and computes what the CPU computes. */
GST_START_TEST (test_kernel_image)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const Case *c = &cases[i];
    guint seed = g_random_int_range (1, 100000);
    gboolean warned;
    GPtrArray *out;

    fault_run (c, RC_FAULT_KERNEL_IMAGE, "-Dcuda-architectures=", TRUE, FALSE);
    fail_unless_equals_int (rc_fault_inject (RC_FAULT_KERNEL_IMAGE, 0), RC_OK);
    out = auto_run_warned (c, seed, &warned);
    fail_unless (rc_fault_fired () > 0, "%s: the fault did not fire", c->name);
    fail_unless (warned, "%s: backend=auto did not warn of the CPU's taking "
        "over, naming the rebuild", c->name);
    fail_unless_equals_int (rc_fault_inject (RC_FAULT_NONE, 0), RC_OK);
    assert_cpu_output (c, out, seed, "under backend=auto");
    assert_gpu_works (c);
  }
}

GST_END_TEST;

/* Runs @desc (an appsink "sink" at its end) holding every buffer, so that
 * a CUDA pool must allocate for each, until an error: it must say that
 * memory ran out (cudaMalloc's error, or the element's own memory limit
 * refusing it first); then a new pipeline works. */
static void
assert_out_of_device_memory (const gchar * desc)
{
  GstElement *pipeline = tracked (gst_parse_launch (desc, NULL));
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  GPtrArray *held = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_sample_unref);
  GstMessage *msg;
  GError *err = NULL;

  g_print ("%s\n", desc);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = hold_until_error (sink, bus, held, NULL, NULL);
  fail_unless (msg != NULL, "ran to the end");
  gst_message_parse_error (msg, &err, NULL);
  g_print ("after %u grids: %s: %s\n", held->len, GST_MESSAGE_SRC_NAME (msg),
      err->message);
  fail_unless (strstr (err->message, "cudaErrorMemoryAllocation") ||
      strstr (err->message, "memory"), "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  g_ptr_array_unref (held);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (sink);
  untrack (pipeline);
  gst_object_unref (pipeline);
  assert_gpu_works (&cases[0]);
}

/* One mean grid of 8 float32 features larger than the device (where that
 * stays under the 2^32-voxel cap: 128 GiB), refused at negotiation against
 * the memory available; then grids of 8 GiB held until the device is full,
 * which cudaMalloc refuses mid-stream.  max-memory=0: the limit is the
 * memory available (its default, 1 GiB, would refuse both at once). */
GST_START_TEST (test_more_than_device_memory)
{
  size_t free_bytes = 0, total = 0;
  guint64 voxels, side;
  gchar *desc;

  /* Under compute-sanitizer (tests/gpu-sanitize.sh) checking every access
   * of 8 GiB grids takes too long. */
  if (g_getenv ("ROBOCACHE_SANITIZER")) {
    g_print ("left out under compute-sanitizer\n");
    return;
  }
  fail_unless_equals_int (rc_device_memory_info (&free_bytes, &total), RC_OK);
  g_print ("device memory: %zu bytes, %zu free\n", total, free_bytes);
  voxels = total / 32 + total / 128;
  side = (guint64) ceil (sqrt ((double) voxels / 16.0));
  if (side * side * 16 < G_GUINT64_CONSTANT (1) << 32) {
    desc = g_strdup_printf ("robocachelidarsrc num-buffers=2 "
        "points-per-sweep=1024 ! robocachevoxelize backend=gpu mode=mean "
        "max-memory=0 "
        "features=x,y,z,intensity,x,y,z,intensity "
        "dims=\"<%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",16>\" ! "
        GST_ROBOCACHE_VOXELS_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA
        ") ! " SINK, side, side);
    assert_out_of_device_memory (desc);
    g_free (desc);
  } else {
    g_print ("no single grid under 2^32 voxels exceeds %zu bytes\n", total);
  }
  desc = g_strdup_printf ("robocachelidarsrc num-buffers=%u "
      "points-per-sweep=1024 ! robocachevoxelize backend=gpu mode=count "
      "max-memory=0 dims=\"<2048,2048,512>\" ! " GST_ROBOCACHE_VOXELS_MEDIA_TYPE
      "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA ") ! " SINK,
      (guint) (total / (G_GUINT64_CONSTANT (8) << 30) + 4));
  assert_out_of_device_memory (desc);
  g_free (desc);
}

GST_END_TEST;

static Suite *
gpufaults_suite (void)
{
  Suite *s = suite_create ("robocache-gpu-faults");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_checked_fixture (tc, NULL, stop_pipelines);
  tcase_add_test (tc, test_hook);
  tcase_add_test (tc, test_alloc_at_start);
  tcase_add_test (tc, test_alloc_mid_stream);
  tcase_add_test (tc, test_launch_mid_stream);
  tcase_add_test (tc, test_sticky_mid_stream);
  tcase_add_test (tc, test_more_than_device_memory);
  tcase_add_test (tc, test_kernel_image);
  return s;
}

int
main (int argc, char **argv)
{
  test_require_gpu ();
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (gpufaults_suite (), "robocache-gpu-faults",
      __FILE__);
}
