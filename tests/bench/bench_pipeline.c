/* Pipeline benchmarks: robocachevoxelize inside real GStreamer pipelines,
 * timed with pad probes, and the three-sensor fusion pipeline.
 *
 *   bench-pipeline [--sweeps N] [--backend auto|cpu|gpu] [--dims X,Y,Z]
 *       [--warmup W] [--fusion-seconds S] [--timeout S] [--json FILE]
 *       [--cuda-device-id D] [--peer-device E] [--cases all|voxelize]
 *
 * Sixteen lidar sweeps (131072 xyzi points each, seed 1) are made once by
 * robocachelidarsrc, then pushed N times (default 2000) round-robin:
 *
 *   appsrc (not live, PTS 1 ms apart) ! robocachevoxelize mode=count
 *       ! capsfilter ! fakesink sync=false
 *
 * Latency of a sweep: the time it leaves voxelize's src pad minus the time
 * it entered its sink pad (buffer probes on both, gst_util_get_timestamp);
 * fps: sweeps over the wall time between their exits.  The first W
 * (default 50) sweeps are warm-up and left out of both.
 *
 * First, on the GPU, the floor: the bus's copy rates each way from
 * page-locked and from pageable memory (CUDA events, medians), at the
 * sweep's and the chunk's size.
 *
 * Cases: points in pageable system memory (appsrc's own buffers, which
 * voxelize stages through page-locked memory) and in the page-locked
 * memory voxelize proposes upstream (filled once, as a source that takes
 * the proposal writes it), with grids out in system memory (page-locked,
 * voxelize's) and in CUDA memory; points already in CUDA memory (uploaded
 * once into memory from the CUDA allocator voxelize proposes) with grids
 * in CUDA memory: nothing crosses the bus.  appsrc is not live, so
 * voxelize keeps its default three sweeps in flight.  Where voxelize runs
 * on the CPU the GPU cases are reported as skipped.
 *
 * Recorded data: 32 consecutive chunks of the kernel benchmark's resampling
 * size (64 trajectories of 4096 float32 vectors of 32 channels, 1 kHz with
 * jitter), each pushed once through robocacheresample rate=250 (1024 grid
 * times per chunk) with its output in CUDA memory: from pageable and from
 * page-locked system memory, and already in CUDA memory (GPU only; the
 * first 4 are warm-up); the page-locked case also as GB/s of input against
 * the bus's page-locked rate.
 *
 * Live fusion: camera (videotestsrc, RGB in system memory, 30 Hz), joints
 * (200 Hz) and voxelized lidar (10 Hz), all live, fused at 30 Hz for
 * --fusion-seconds, with a 320 x 240 and a 1920 x 1080 camera: fused
 * frames per second and each frame's lateness (the pipeline clock when it
 * leaves robocachefuse minus its due time), so that what the large camera
 * adds is the difference.
 *
 * Last, the three-sensor fusion not live, in fused frames per second of
 * wall time.
 *
 * Several GPUs (docs/performance.md): --cuda-device-id puts the elements
 * (and the bus floor) on device D; --cases voxelize runs the voxelize cases
 * alone, so that two of these processes, one per device, show how the
 * pipeline scales (tests/bench/multigpu.sh).  --peer-device E adds the
 * copy rates between E's and D's memory (peer access enabled where the
 * hardware allows, as GStreamer's CUDA contexts do) and a case whose
 * sweeps are in E's CUDA memory: voxelize on D copies each one across
 * before its kernels, the cost of a pipeline that crosses devices.
 * Needs GST_PLUGIN_PATH_1_0 to hold the plugin. */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gstrobocachecaps.h"
#include "gstrobocachegpu.h"
#include "robocache-kernels.h"
#include "bench_bus.h"

#define N_MADE 16
#define POINTS_PER_SWEEP 131072
#define N_CHUNKS 32
#define CHUNK_WARMUP 4
#define CHUNK_BATCH 64
#define CHUNK_SAMPLES 4096
#define CHUNK_CHANNELS 32
#define CHUNK_RATE 250
#define PTS_STEP GST_MSECOND
#define N_WINDOWS 5
#define APPSRC_MAX_BUFFERS 4
#define NEGOTIATION_TIMEOUT_US (10 * G_USEC_PER_SEC)
#define CHUNK_BYTES ((gsize) CHUNK_BATCH * CHUNK_SAMPLES * \
    (sizeof (gint64) + CHUNK_CHANNELS * sizeof (float)))

/* Where a case's inputs are: plain (pageable) system memory, the
 * page-locked memory the element proposes upstream, or its CUDA memory. */
typedef enum
{
  IN_PAGEABLE,
  IN_PINNED,
  IN_CUDA,
  IN_CUDA_PEER                  /* CUDA memory of --peer-device */
} InputKind;

typedef struct
{
  const char *name;
  const char *input;            /* "pageable", "pinned", "cuda" or "-" */
  const char *output;
  char status[16];              /* "ok", "skipped" or "failed" */
  char reason[512];
  guint64 buffers;              /* pushed (sweeps) or output (frames) */
  guint64 measured;             /* after warm-up */
  double fps;                   /* measured / steady wall time */
  double fps_window_median;     /* median over N_WINDOWS equal windows */
  double wall_s;                /* PLAYING to EOS */
  double steady_s;
  double lat_median_us, lat_p99_us, lat_min_us, lat_max_us;
} Result;

/* Buffer times in the order of arrival (one output per input, in order);
 * 0 where none was seen. */
typedef struct
{
  GstClockTime *in, *out;
  guint n, n_in, n_out;
  gint out_cuda;                /* memory of the first output; -1 before */
} Stamps;

/* Fused frames: the time each left robocachefuse. */
typedef struct
{
  GArray *out;
} Frames;

/* What a case pushes: its caps and the buffers it takes turns with. */
typedef struct
{
  GstCaps *caps;
  GPtrArray *buffers;
} Inputs;

typedef struct
{
  GstAppSrc *src;
  GPtrArray *buffers;
  guint n;
  GstFlowReturn flow;
} Pusher;

static guint opt_sweeps = 2000;
static guint opt_warmup = 50;
static const char *opt_backend = "auto";
static guint opt_dims[3] = { 256, 256, 32 };

static guint opt_fusion_seconds = 20;
static guint opt_timeout_s = 600;
static gint opt_device = 0;
static gint opt_peer = -1;
static gboolean opt_voxelize_only = FALSE;

static void
G_GNUC_PRINTF (1, 2)
    G_GNUC_NORETURN
die (const char *format, ...)
{
  va_list args;

  fflush (stdout);
  fprintf (stderr, "bench-pipeline: ");
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fprintf (stderr, "\n");
  exit (1);
}

static void
G_GNUC_PRINTF (3, 4)
set_status (Result * r, const char *status, const char *format, ...)
{
  va_list args;

  g_strlcpy (r->status, status, sizeof (r->status));
  va_start (args, format);
  g_vsnprintf (r->reason, sizeof (r->reason), format, args);
  va_end (args);
}

/* The error of an ERROR message as "element: message (debug)". */
static void
set_error (Result * r, GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL;

  gst_message_parse_error (msg, &err, &debug);
  set_status (r, "failed", "%s: %s%s%s%s", GST_OBJECT_NAME (msg->src),
      err->message, debug ? " (" : "", debug ? debug : "", debug ? ")" : "");
  g_clear_error (&err);
  g_free (debug);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks of sorted @v. */
static double
percentile (const double *v, guint n, double p)
{
  double pos = p * (n - 1);
  guint lo = (guint) floor (pos);

  if (lo + 1 >= n)
    return v[n - 1];
  return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/* fps from exit times @t[0..n): the @warmup first are left out, the wall
 * runs from the exit of the last warm-up one (or the first one) to the
 * last exit. */
static void
throughput (Result * r, const GstClockTime * t, guint n, guint warmup)
{
  double windows[N_WINDOWS];
  guint first = MAX (warmup, 1), m = n - first;

  r->measured = n - warmup;
  r->steady_s = (t[n - 1] - t[first - 1]) / 1e9;
  r->fps = r->steady_s > 0 ? m / r->steady_s : NAN;
  r->fps_window_median = r->fps;
  if (m < N_WINDOWS)
    return;
  for (guint w = 0; w < N_WINDOWS; w++) {
    guint a = first + w * m / N_WINDOWS, b = first + (w + 1) * m / N_WINDOWS;
    double s = (t[b - 1] - t[a - 1]) / 1e9;
    windows[w] = s > 0 ? (b - a) / s : NAN;
  }
  qsort (windows, N_WINDOWS, sizeof (double), compare_double);
  r->fps_window_median = windows[N_WINDOWS / 2];
}

static void
buffer_stats (Result * r, const Stamps * s, guint warmup)
{
  guint n = s->n, seen = 0, m = 0;
  double *lat;

  for (guint i = 0; i < n; i++)
    seen += s->in[i] && s->out[i];
  if (seen != n) {
    set_status (r, "failed", "%u of %u buffers went through", seen, n);
    return;
  }
  lat = g_new (double, n);
  for (guint i = warmup; i < n; i++)
    lat[m++] = (s->out[i] - s->in[i]) / 1e3;
  qsort (lat, m, sizeof (double), compare_double);
  r->lat_median_us = percentile (lat, m, 0.5);
  r->lat_p99_us = percentile (lat, m, 0.99);
  r->lat_min_us = lat[0];
  r->lat_max_us = lat[m - 1];
  g_free (lat);
  throughput (r, s->out, n, warmup);
}

/* ------------------------------------------------------------------ */
/* Probes                                                              */
/* ------------------------------------------------------------------ */

static GstPadProbeReturn
stamp_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstClockTime now = gst_util_get_timestamp ();
  Stamps *s = data;

  if (s->n_in < s->n)
    s->in[s->n_in++] = now;
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
stamp_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstClockTime now = gst_util_get_timestamp ();
  Stamps *s = data;

  if (s->n_out < s->n)
    s->out[s->n_out++] = now;
  if (s->out_cuda < 0) {
    GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
        0);
    s->out_cuda = g_str_has_prefix (mem->allocator->mem_type,
        GST_ROBOCACHE_CUDA_MEMORY_TYPE);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
stamp_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstClockTime now = gst_util_get_timestamp ();
  Frames *f = data;

  g_array_append_val (f->out, now);
  return GST_PAD_PROBE_OK;
}

static void
add_probe (GstElement * element, const char *pad_name,
    GstPadProbeCallback callback, gpointer data)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, callback, data, NULL);
  gst_object_unref (pad);
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */
/* ------------------------------------------------------------------ */

/* The sweeps, made once by robocachelidarsrc, in system memory. */
static void
make_sweeps (Inputs * sw)
{
  gchar *desc = g_strdup_printf ("robocachelidarsrc num-buffers=%d seed=1 "
      "points-per-sweep=%d ! appsink name=sink sync=false caps=\"%s\"",
      N_MADE, POINTS_PER_SWEEP, GST_ROBOCACHE_POINTS_MEDIA_TYPE);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample;

  if (!pipeline)
    die ("%s: %s", desc, error->message);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  bus = gst_element_get_bus (pipeline);
  sw->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              30 * GST_SECOND))) {
    if (!sw->caps)
      sw->caps = gst_caps_ref (gst_sample_get_caps (sample));
    g_ptr_array_add (sw->buffers, gst_buffer_ref (gst_sample_get_buffer
            (sample)));
    gst_sample_unref (sample);
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (msg) {
    Result r;
    set_error (&r, msg);
    die ("making the sweeps: %s", r.reason);
  }
  if (sw->buffers->len != N_MADE || !sw->caps)
    die ("making the sweeps: %u of %d came out", sw->buffers->len, N_MADE);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (desc);
}

/* N_CHUNKS consecutive chunks of recorded joint data in system memory:
 * CHUNK_BATCH trajectories of CHUNK_SAMPLES vectors of CHUNK_CHANNELS
 * float32 each, 1 kHz with +-30 % jitter from 1 s on (times before the
 * segment's start would be clipped), every trajectory's next chunk
 * following on.  The values are a random tile drawn once and repeated. */
static void
make_chunks (Inputs * ch)
{
  const gsize n = (gsize) CHUNK_BATCH * CHUNK_SAMPLES;
  const gsize times = n * sizeof (gint64);
  const gsize values = n * CHUNK_CHANNELS * sizeof (float);
  const gsize tile_len = 65536;
  GRand *rand = g_rand_new_with_seed (1);
  float *tile = g_new (float, tile_len);

  for (gsize i = 0; i < tile_len; i++)
    tile[i] = (float) g_rand_double_range (rand, -10, 10);
  ch->caps = gst_caps_new_simple (GST_ROBOCACHE_VECTORS_MEDIA_TYPE,
      "channels", G_TYPE_INT, CHUNK_CHANNELS, "format", G_TYPE_STRING,
      "float32", "layout", G_TYPE_STRING, "chunk", "batch", G_TYPE_INT,
      CHUNK_BATCH, NULL);
  ch->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  for (guint c = 0; c < N_CHUNKS; c++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, times + values, NULL);
    GstMapInfo map;
    gint64 *t;

    if (!buf || !gst_buffer_map (buf, &map, GST_MAP_WRITE))
      die ("cannot allocate a chunk of %" G_GSIZE_FORMAT " bytes",
          times + values);
    t = (gint64 *) map.data;
    for (guint b = 0; b < CHUNK_BATCH; b++)
      for (guint i = 0; i < CHUNK_SAMPLES; i++)
        t[(gsize) b * CHUNK_SAMPLES + i] = GST_SECOND +
            ((gint64) c * CHUNK_SAMPLES + i) * GST_MSECOND +
            b * 10 * GST_USECOND +
            (gint64) (g_rand_double_range (rand, -0.3, 0.3) * GST_MSECOND);
    for (gsize off = 0; off < values; off += tile_len * sizeof (float))
      memcpy (map.data + times + off, tile, MIN (tile_len * sizeof (float),
              values - off));
    gst_buffer_unmap (buf, &map);
    g_ptr_array_add (ch->buffers, buf);
  }
  g_free (tile);
  g_rand_free (rand);
}

/* Pushes the sweeps round-robin, then EOS.  Each push is a new GstBuffer
 * (its own PTS) holding the prepared memory, referenced, never copied. */
static gpointer
push_sweeps (gpointer data)
{
  Pusher *p = data;

  for (guint i = 0; i < p->n; i++) {
    GstBuffer *from = g_ptr_array_index (p->buffers, i % p->buffers->len);
    GstBuffer *buf = gst_buffer_new ();

    for (guint m = 0; m < gst_buffer_n_memory (from); m++)
      gst_buffer_append_memory (buf,
          gst_memory_ref (gst_buffer_peek_memory (from, m)));
    GST_BUFFER_PTS (buf) = i * PTS_STEP;
    GST_BUFFER_DURATION (buf) = PTS_STEP;
    p->flow = gst_app_src_push_buffer (p->src, buf);
    if (p->flow != GST_FLOW_OK)
      return NULL;
  }
  p->flow = gst_app_src_end_of_stream (p->src);
  return NULL;
}

/* Asks @el's sink pad for an allocator for @caps, once the caps have
 * reached it (appsrc sends them from its streaming thread once PAUSED;
 * until then the query is refused).  NULL, with the reason in @r, when it
 * proposes none or an error comes first. */
static GstAllocator *
proposed_allocator (Result * r, GstElement * el, GstBus * bus,
    GstCaps * caps, const char *mem_type, GstAllocationParams * params)
{
  GstPad *pad = gst_element_get_static_pad (el, "sink");
  gint64 deadline = g_get_monotonic_time () + NEGOTIATION_TIMEOUT_US;
  GstAllocator *allocator = NULL;
  gboolean answered = FALSE;

  /* A transform answers ALLOCATION only once negotiated, and appsrc sends
   * its caps with the first buffer: give the element the caps now. */
  if (!gst_pad_has_current_caps (pad)) {
    gst_pad_send_event (pad, gst_event_new_stream_start ("bench-pipeline"));
    gst_pad_send_event (pad, gst_event_new_caps (caps));
  }
  while (!answered) {
    GstQuery *query = gst_query_new_allocation (caps, TRUE);
    GstMessage *msg;

    answered = gst_pad_query (pad, query);
    if (answered && gst_query_get_n_allocation_params (query) > 0)
      gst_query_parse_nth_allocation_param (query, 0, &allocator, params);
    gst_query_unref (query);
    if (answered)
      break;
    if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
      set_error (r, msg);
      gst_message_unref (msg);
      break;
    }
    if (g_get_monotonic_time () > deadline) {
      set_status (r, "failed", "the element was not negotiated after %d s",
          (int) (NEGOTIATION_TIMEOUT_US / G_USEC_PER_SEC));
      break;
    }
    g_usleep (1000);
  }
  gst_object_unref (pad);
  if (answered && !allocator)
    set_status (r, "failed", "the element proposed no %s allocator (it "
        "does not run on the GPU)", mem_type);
  if (allocator && !g_str_has_prefix (allocator->mem_type, mem_type)) {
    set_status (r, "failed", "the element proposed a %s allocator",
        allocator->mem_type);
    gst_clear_object (&allocator);
  }
  return allocator;
}

/* @from copied into memory from @allocator.  A plain WRITE map fills
 * the host side; for CUDA memory a CUDA map uploads it here, before the
 * timing, rather than in the first push. */
static GstBuffer *
upload_buffer (Result * r, GstBuffer * from, GstAllocator * allocator,
    GstAllocationParams * params)
{
  gboolean cuda = g_str_has_prefix (allocator->mem_type,
      GST_ROBOCACHE_CUDA_MEMORY_TYPE);
  gsize size = gst_buffer_get_size (from);
  GstMemory *mem = gst_allocator_alloc (allocator, size, params);
  GstBuffer *buf;
  GstMapInfo map;

  if (!mem || !gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    set_status (r, "failed", "cannot allocate or map %" G_GSIZE_FORMAT
        " bytes of %s", size, allocator->mem_type);
    if (mem)
      gst_memory_unref (mem);
    return NULL;
  }
  gst_buffer_extract (from, 0, map.data, size);
  gst_memory_unmap (mem, &map);
  if (cuda && !gst_memory_map (mem, &map, GST_MAP_READ |
          GST_ROBOCACHE_MAP_CUDA)) {
    set_status (r, "failed", "cannot upload a buffer to the GPU");
    gst_memory_unref (mem);
    return NULL;
  }
  if (cuda)
    gst_memory_unmap (mem, &map);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  return buf;
}

static GPtrArray *
upload_inputs (Result * r, const Inputs * sw, GstAllocator * allocator,
    GstAllocationParams * params)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);

  for (guint i = 0; i < sw->buffers->len; i++) {
    GstBuffer *buf = upload_buffer (r, g_ptr_array_index (sw->buffers, i),
        allocator, params);

    if (!buf) {
      g_ptr_array_unref (out);
      return NULL;
    }
    g_ptr_array_add (out, buf);
  }
  return out;
}

/* One element between appsrc and fakesink, timed at its pads. */
typedef struct
{
  const char *element;          /* launch description of the element */
  const char *out_media_type;
  const Inputs *input;          /* pushed round-robin */
  guint n;                      /* buffers pushed in all */
  guint warmup;                 /* the first ones, not counted */
} Stream;

/* The CUDA allocator that @stream's element proposes on --peer-device,
 * asked in a pipeline of its own (the memory keeps the allocator and its
 * context once that pipeline is gone). */
static GstAllocator *
peer_allocator (Result * r, const Stream * stream, GstCaps * caps,
    GstAllocationParams * params)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! %s cuda-device-id=%d "
      "name=el ! fakesink", stream->element, opt_peer);
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *src, *el;
  GstAllocator *allocator = NULL;
  GstBus *bus;

  if (!pipeline)
    die ("cannot parse %s", desc);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  bus = gst_element_get_bus (pipeline);
  g_object_set (src, "caps", caps, NULL);
  if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE)
    set_status (r, "failed", "%s did not start", desc);
  else
    allocator = proposed_allocator (r, el, bus, caps,
        GST_ROBOCACHE_CUDA_MEMORY_TYPE, params);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (el);
  gst_object_unref (src);
  gst_object_unref (pipeline);
  g_free (desc);
  return allocator;
}

static void
run_stream (Result * r, const Stream * stream, InputKind in, gboolean cuda_out)
{
  gboolean cuda_in = in == IN_CUDA || in == IN_CUDA_PEER;
  gchar *desc = g_strdup_printf ("appsrc name=src format=time is-live=false "
      "block=true max-buffers=%d max-bytes=0 ! %s name=el "
      "! capsfilter caps=\"%s%s\" ! fakesink sync=false "
      "enable-last-sample=false", APPSRC_MAX_BUFFERS, stream->element,
      stream->out_media_type,
      cuda_out ? "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA ")" : "");
  const Inputs *sw = stream->input;
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *src, *el;
  GstCaps *caps = gst_caps_copy (sw->caps);
  GstBus *bus;
  GstMessage *msg;
  GThread *thread;
  GstClockTime start;
  Stamps stamps = { g_new0 (GstClockTime, stream->n),
    g_new0 (GstClockTime, stream->n), stream->n, 0, 0, -1
  };
  Pusher pusher = { NULL, NULL, stream->n, GST_FLOW_OK };

  if (!pipeline)
    die ("%s: %s", desc, error->message);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  el = gst_bin_get_by_name (GST_BIN (pipeline), "el");
  bus = gst_element_get_bus (pipeline);
  if (cuda_in)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
  g_object_set (src, "caps", caps, NULL);
  add_probe (el, "sink", stamp_in, &stamps);
  add_probe (el, "src", stamp_out, &stamps);

  if (gst_element_set_state (pipeline, GST_STATE_PAUSED) ==
      GST_STATE_CHANGE_FAILURE) {
    if ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
      set_error (r, msg);
      gst_message_unref (msg);
    } else {
      set_status (r, "failed", "the pipeline did not start");
    }
    goto done;
  }
  if (in != IN_PAGEABLE) {
    GstAllocationParams params;
    GstAllocator *allocator = in == IN_CUDA_PEER ?
        peer_allocator (r, stream, caps, &params) :
        proposed_allocator (r, el, bus, caps, cuda_in ?
        GST_ROBOCACHE_CUDA_MEMORY_TYPE : GST_ROBOCACHE_PINNED_MEMORY_TYPE,
        &params);

    if (!allocator)
      goto done;
    pusher.buffers = upload_inputs (r, sw, allocator, &params);
    gst_object_unref (allocator);
    if (!pusher.buffers)
      goto done;
  } else {
    pusher.buffers = g_ptr_array_ref (sw->buffers);
  }

  pusher.src = GST_APP_SRC (src);
  start = gst_util_get_timestamp ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  thread = g_thread_new ("bench-push", push_sweeps, &pusher);
  msg = gst_bus_timed_pop_filtered (bus, opt_timeout_s * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  r->wall_s = (gst_util_get_timestamp () - start) / 1e9;
  /* Stopping unblocks a push waiting on a stalled pipeline. */
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_thread_join (thread);
  if (!msg) {
    set_status (r, "failed", "no EOS within %u s", opt_timeout_s);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    set_error (r, msg);
  } else if (pusher.flow != GST_FLOW_OK) {
    set_status (r, "failed", "appsrc push: %s",
        gst_flow_get_name (pusher.flow));
  } else {
    r->buffers = stream->n;
    set_status (r, "ok", "%s", "");
    buffer_stats (r, &stamps, stream->warmup);
    if (strcmp (r->status, "ok") == 0 && stamps.out_cuda != cuda_out)
      set_status (r, "failed", "the outputs came out in %s memory",
          stamps.out_cuda ? "CUDA" : "system");
  }
  if (msg)
    gst_message_unref (msg);

done:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (pusher.buffers)
    g_ptr_array_unref (pusher.buffers);
  g_free (stamps.in);
  g_free (stamps.out);
  gst_caps_unref (caps);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (el);
  gst_object_unref (pipeline);
  g_free (desc);
}

/* ------------------------------------------------------------------ */
/* Fusion                                                              */
/* ------------------------------------------------------------------ */

static void
run_fusion (Result * r)
{
  guint s = opt_fusion_seconds;
  gchar *desc = g_strdup_printf ("robocachefuse name=f rate=30/1 "
      "backend=%s cuda-device-id=%d ! fakesink sync=false "
      "enable-last-sample=false videotestsrc pattern=ball num-buffers=%u "
      "! video/x-raw,format=I420,width=320,height=240,framerate=30/1 "
      "! f.sink_0 robocachejointsrc rate=200/1 num-buffers=%u ! f.sink_1 "
      "robocachelidarsrc rate=10/1 num-buffers=%u ! robocachevoxelize "
      "backend=%s mode=count dims=\"<%u,%u,%u>\" cuda-device-id=%d "
      "! f.sink_2", opt_backend, opt_device, 30 * s, 200 * s, 10 * s,
      opt_backend, opt_dims[0], opt_dims[1], opt_dims[2], opt_device);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *fuse;
  GstBus *bus;
  GstMessage *msg;
  GstClockTime start;
  Frames frames = { g_array_new (FALSE, FALSE, sizeof (GstClockTime)) };

  if (!pipeline)
    die ("%s: %s", desc, error->message);
  fuse = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  bus = gst_element_get_bus (pipeline);
  add_probe (fuse, "src", stamp_frame, &frames);

  start = gst_util_get_timestamp ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, opt_timeout_s * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  r->wall_s = (gst_util_get_timestamp () - start) / 1e9;
  gst_element_set_state (pipeline, GST_STATE_NULL);
  r->buffers = frames.out->len;
  if (!msg) {
    set_status (r, "failed", "no EOS within %u s", opt_timeout_s);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    set_error (r, msg);
  } else if (frames.out->len <= opt_warmup + 1) {
    set_status (r, "failed", "%u fused frames: not more than the %u of "
        "warm-up (raise --fusion-seconds)", frames.out->len, opt_warmup);
  } else {
    set_status (r, "ok", "%s", "");
    throughput (r, (GstClockTime *) frames.out->data, frames.out->len,
        opt_warmup);
  }
  if (msg)
    gst_message_unref (msg);
  g_array_unref (frames.out);
  gst_object_unref (bus);
  gst_object_unref (fuse);
  gst_object_unref (pipeline);
  g_free (desc);
}

/* Live fusion: each fused frame's lateness, the pipeline clock when it
 * leaves robocachefuse minus its due time (base time + its timestamp). */
typedef struct
{
  GstElement *pipeline;
  GArray *late_us;
  GArray *exits;
} Lateness;

static GstPadProbeReturn
stamp_lateness (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Lateness *l = data;
  GstClock *clock = gst_element_get_clock (l->pipeline);
  GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));
  GstClockTime now = gst_util_get_timestamp ();

  if (clock && GST_CLOCK_TIME_IS_VALID (pts)) {
    double late = ((double) gst_clock_get_time (clock) -
        (double) gst_element_get_base_time (l->pipeline) - pts) / 1e3;
    g_array_append_val (l->late_us, late);
    g_array_append_val (l->exits, now);
  }
  if (clock)
    gst_object_unref (clock);
  return GST_PAD_PROBE_OK;
}

/* The three sensors live for --fusion-seconds, the camera @width x @height
 * RGB at 30 Hz in system memory: frames per second and lateness. */
static void
run_fusion_live (Result * r, guint width, guint height)
{
  gchar *desc = g_strdup_printf ("robocachefuse name=f rate=30/1 "
      "backend=%s cuda-device-id=%d ! fakesink sync=false "
      "enable-last-sample=false videotestsrc is-live=true pattern=ball "
      "! video/x-raw,format=RGB,width=%u,height=%u,framerate=30/1 "
      "! f.sink_0 robocachejointsrc is-live=true rate=200/1 ! f.sink_1 "
      "robocachelidarsrc is-live=true rate=10/1 ! robocachevoxelize "
      "backend=%s mode=count dims=\"<%u,%u,%u>\" cuda-device-id=%d "
      "! f.sink_2", opt_backend, opt_device, width, height, opt_backend,
      opt_dims[0], opt_dims[1], opt_dims[2], opt_device);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *fuse;
  GstBus *bus;
  GstMessage *msg;
  Lateness l;
  guint n, m = 0;
  double *late;

  if (!pipeline)
    die ("%s: %s", desc, error->message);
  l = (Lateness) {
  pipeline, g_array_new (FALSE, FALSE, sizeof (double)),
        g_array_new (FALSE, FALSE, sizeof (GstClockTime))};
  fuse = gst_bin_get_by_name (GST_BIN (pipeline), "f");
  bus = gst_element_get_bus (pipeline);
  add_probe (fuse, "src", stamp_lateness, &l);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, opt_fusion_seconds * GST_SECOND,
      GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  n = l.late_us->len;
  r->buffers = n;
  if (msg) {
    set_error (r, msg);
    gst_message_unref (msg);
  } else if (n <= opt_warmup + N_WINDOWS) {
    set_status (r, "failed", "%u fused frames: not more than the %u of "
        "warm-up (raise --fusion-seconds)", n, opt_warmup);
  } else {
    late = g_new (double, n);
    for (guint i = opt_warmup; i < n; i++)
      late[m++] = g_array_index (l.late_us, double, i);
    qsort (late, m, sizeof (double), compare_double);
    r->lat_median_us = percentile (late, m, 0.5);
    r->lat_p99_us = percentile (late, m, 0.99);
    r->lat_min_us = late[0];
    r->lat_max_us = late[m - 1];
    g_free (late);
    set_status (r, "ok", "%s", "");
    throughput (r, (GstClockTime *) l.exits->data, n, opt_warmup);
  }
  g_array_unref (l.late_us);
  g_array_unref (l.exits);
  gst_object_unref (bus);
  gst_object_unref (fuse);
  gst_object_unref (pipeline);
  g_free (desc);
}

/* ------------------------------------------------------------------ */
/* Peer copies                                                         */
/* ------------------------------------------------------------------ */

/* GB/s each way between --peer-device's memory and --cuda-device-id's. */
typedef struct
{
  gsize size;
  double peer_to_device, device_to_peer;
} PeerRates;

/* Copies on a stream of --cuda-device-id, with peer access enabled both
 * ways where the hardware allows; *direct says whether it does. */
static gboolean
measure_peer (PeerRates * rates, guint n, gboolean * direct, gchar ** why)
{
  void *local = NULL, *remote = NULL, *stream = NULL;
  int to_peer = 0, from_peer = 0;
  gsize largest = 0;
  gboolean ok;
  rc_status ret;

  for (guint i = 0; i < n; i++)
    largest = MAX (largest, rates[i].size);
  ret = rc_device_select (opt_peer);
  if (ret == RC_OK)
    ret = rc_device_alloc (&remote, largest);
  if (ret == RC_OK)
    ret = rc_device_enable_peer_access (opt_device, &from_peer);
  if (ret == RC_OK)
    ret = rc_device_select (opt_device);
  if (ret == RC_OK)
    ret = rc_device_enable_peer_access (opt_peer, &to_peer);
  if (ret == RC_OK)
    ret = rc_device_alloc (&local, largest);
  if (ret == RC_OK)
    ret = rc_stream_create (&stream);
  if (ret != RC_OK)
    *why = g_strdup_printf ("%s (%s)", rc_status_message (ret),
        rc_error_detail ());
  ok = ret == RC_OK;
  for (guint i = 0; ok && i < n; i++)
    ok = bench_bus_copy_rate (local, remote, rates[i].size,
        RC_COPY_BETWEEN_DEVICES, stream, 20, &rates[i].peer_to_device, why)
        && bench_bus_copy_rate (remote, local, rates[i].size,
        RC_COPY_BETWEEN_DEVICES, stream, 20, &rates[i].device_to_peer, why);
  *direct = to_peer && from_peer;
  rc_stream_destroy (stream);
  rc_device_free (local);
  rc_device_select (opt_peer);
  rc_device_free (remote);
  rc_device_select (opt_device);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static void
print_header (void)
{
  printf ("%-34s %7s %9s %9s %11s %11s\n", "case", "buffers", "fps",
      "fps med5", "lat med us", "lat p99 us");
}

static void
print_result (const Result * r)
{
  if (strcmp (r->status, "ok") != 0) {
    printf ("%-34s %s: %s\n", r->name, r->status, r->reason);
  } else if (isnan (r->lat_median_us)) {
    printf ("%-34s %7" G_GUINT64_FORMAT " %9.1f %9.1f %11s %11s\n", r->name,
        r->buffers, r->fps, r->fps_window_median, "-", "-");
  } else {
    printf ("%-34s %7" G_GUINT64_FORMAT " %9.1f %9.1f %11.1f %11.1f\n",
        r->name, r->buffers, r->fps, r->fps_window_median, r->lat_median_us,
        r->lat_p99_us);
  }
  fflush (stdout);
}

static void
json_string (FILE * f, const char *s)
{
  fputc ('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fprintf (f, "\\%c", *s);
    else if ((unsigned char) *s < 0x20)
      fprintf (f, "\\u%04x", (unsigned char) *s);
    else
      fputc (*s, f);
  }
  fputc ('"', f);
}

static void
json_number (FILE * f, const char *key, double v)
{
  if (isnan (v))
    fprintf (f, ", \"%s\": null", key);
  else
    fprintf (f, ", \"%s\": %.3f", key, v);
}

static void
json_result (FILE * f, const Result * r)
{
  fprintf (f, "{\"name\": ");
  json_string (f, r->name);
  fprintf (f, ", \"input\": ");
  json_string (f, r->input);
  fprintf (f, ", \"output\": ");
  json_string (f, r->output);
  fprintf (f, ", \"status\": ");
  json_string (f, r->status);
  fprintf (f, ", \"reason\": ");
  json_string (f, r->reason);
  fprintf (f, ", \"buffers\": %" G_GUINT64_FORMAT ", \"measured\": %"
      G_GUINT64_FORMAT, r->buffers, r->measured);
  json_number (f, "fps", r->fps);
  json_number (f, "fps_window_median", r->fps_window_median);
  json_number (f, "wall_s", r->wall_s);
  json_number (f, "steady_s", r->steady_s);
  json_number (f, "latency_median_us", r->lat_median_us);
  json_number (f, "latency_p99_us", r->lat_p99_us);
  json_number (f, "latency_min_us", r->lat_min_us);
  json_number (f, "latency_max_us", r->lat_max_us);
  fprintf (f, "}");
}

static void
write_json (const char *path, const char *device, const char *cpu,
    gboolean on_gpu, const Result * results, guint n, const BusRates * bus,
    const PeerRates * peer, gboolean direct)
{
  FILE *f = fopen (path, "w");

  if (!f)
    die ("cannot write %s", path);
  fprintf (f, "{\n  \"impl\": \"robocache\",\n  \"bench\": \"pipeline\",\n"
      "  \"device\": ");
  json_string (f, device);
  fprintf (f, ",\n  \"cpu\": ");
  json_string (f, cpu);
  fprintf (f, ",\n  \"backend\": ");
  json_string (f, opt_backend);
  fprintf (f, ",\n  \"voxelize_on_gpu\": %s,\n  \"sweeps\": %u,\n"
      "  \"sweeps_made\": %d,\n  \"points_per_sweep\": %d,\n"
      "  \"grid\": [%u, %u, %u],\n  \"mode\": \"count\",\n"
      "  \"warmup\": %u,\n  \"chunks\": %d,\n  \"chunk_warmup\": %d,\n"
      "  \"chunk_shape\": [%d, %d, %d],\n  \"chunk_rate\": %d,\n"
      "  \"fusion_seconds\": %u,\n  \"cuda_device_id\": %d,\n"
      "  \"peer_device\": %d,\n  \"cases\": [\n",
      on_gpu ? "true" : "false", opt_sweeps, N_MADE, POINTS_PER_SWEEP,
      opt_dims[0], opt_dims[1], opt_dims[2], opt_warmup, N_CHUNKS,
      CHUNK_WARMUP, CHUNK_BATCH, CHUNK_SAMPLES, CHUNK_CHANNELS, CHUNK_RATE,
      opt_fusion_seconds, opt_device, opt_peer);
  for (guint i = 0; bus && i < 2; i++)
    fprintf (f, "    {\"name\": \"bus %" G_GSIZE_FORMAT " bytes\", "
        "\"status\": \"ok\", \"size\": %" G_GSIZE_FORMAT ", "
        "\"pinned_h2d_gbps\": %.3f, \"pinned_d2h_gbps\": %.3f, "
        "\"pageable_h2d_gbps\": %.3f, \"pageable_d2h_gbps\": %.3f},\n",
        bus[i].size, bus[i].size, bus[i].pinned_h2d, bus[i].pinned_d2h,
        bus[i].pageable_h2d, bus[i].pageable_d2h);
  for (guint i = 0; peer && i < 2; i++)
    fprintf (f, "    {\"name\": \"peer %" G_GSIZE_FORMAT " bytes\", "
        "\"status\": \"ok\", \"size\": %" G_GSIZE_FORMAT ", "
        "\"peer_to_device_gbps\": %.3f, \"device_to_peer_gbps\": %.3f, "
        "\"peer_access\": %s},\n", peer[i].size, peer[i].size,
        peer[i].peer_to_device, peer[i].device_to_peer,
        direct ? "true" : "false");
  for (guint i = 0; i < n; i++) {
    fprintf (f, "    ");
    json_result (f, &results[i]);
    fprintf (f, "%s\n", i + 1 < n ? "," : "");
  }
  fprintf (f, "  ]\n}\n");
  if (fclose (f) != 0)
    die ("cannot write %s", path);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

/* Whether voxelize with --backend computes on the GPU: it offers grids in
 * CUDA memory exactly then (backend not cpu and a usable device). */
static gboolean
voxelize_on_gpu (void)
{
  GstElement *vox = gst_element_factory_make ("robocachevoxelize", NULL);
  GstPad *pad;
  GstCaps *caps;
  gboolean gpu = FALSE;

  if (!vox)
    die ("no robocachevoxelize: set GST_PLUGIN_PATH_1_0 to the build's gst "
        "folder");
  gst_util_set_object_arg (G_OBJECT (vox), "backend", opt_backend);
  pad = gst_element_get_static_pad (vox, "src");
  caps = gst_pad_query_caps (pad, NULL);
  for (guint i = 0; i < gst_caps_get_size (caps); i++)
    gpu |= gst_caps_features_contains (gst_caps_get_features (caps, i),
        GST_ROBOCACHE_CAPS_FEATURE_CUDA);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (vox);
  return gpu;
}

static gchar *
cpu_name (void)
{
  gchar *text = NULL, *name = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL)) {
    gchar **lines = g_strsplit (text, "\n", -1);
    for (guint i = 0; lines[i] && !name; i++) {
      gchar *colon = strchr (lines[i], ':');
      if (g_str_has_prefix (lines[i], "model name") && colon)
        name = g_strstrip (g_strdup (colon + 1));
    }
    g_strfreev (lines);
    g_free (text);
  }
  text = g_strdup_printf ("%s, %u threads", name ? name : "unknown",
      g_get_num_processors ());
  g_free (name);
  return text;
}

static void G_GNUC_NORETURN
usage (int code)
{
  fprintf (code ? stderr : stdout, "usage: bench-pipeline [--sweeps N] "
      "[--backend auto|cpu|gpu] [--dims X,Y,Z] [--warmup W]\n"
      "                      [--fusion-seconds S] [--timeout S] "
      "[--json FILE]\n"
      "                      [--cuda-device-id D] [--peer-device E] "
      "[--cases all|voxelize]\n");
  exit (code);
}

static guint
parse_uint (const char *text)
{
  gchar *end;
  guint64 v = g_ascii_strtoull (text, &end, 10);

  if (*end || end == text || v > G_MAXUINT)
    usage (2);
  return (guint) v;
}

int
main (int argc, char **argv)
{
  const char *json = NULL, *why = NULL;
  char device[256];
  gchar *cpu;
  gboolean on_gpu, failed = FALSE, direct = FALSE;
  int n_devices;
  Inputs sweeps = { NULL, NULL }, chunks = { NULL, NULL };
  Result results[] = {
    {"voxelize pageable in, sys out", "pageable", "system"},
    {"voxelize pinned in, sys out", "pinned", "system"},
    {"voxelize pageable in, cuda out", "pageable", "cuda"},
    {"voxelize pinned in, cuda out", "pinned", "cuda"},
    {"voxelize cuda in, cuda out", "cuda", "cuda"},
    {"resample chunks pageable, cuda out", "pageable", "cuda"},
    {"resample chunks pinned, cuda out", "pinned", "cuda"},
    {"resample chunks cuda in, cuda out", "cuda", "cuda"},
    {"fusion live, camera 320x240", "pageable", "system"},
    {"fusion live, camera 1920x1080 RGB", "pageable", "system"},
    {"fusion 3 sensors @30 Hz", "-", "system"},
    {"voxelize cuda in from peer, cuda out", "cuda-peer", "cuda"},
  };
  const guint n_results = G_N_ELEMENTS (results), fusion = 10, peer = 11;
  BusRates bus[2];
  PeerRates peer_rates[2];
  gboolean have_bus = FALSE, have_peer = FALSE;
  gchar *voxelize, *resample;
  Stream sweep_stream, chunk_stream;

  gst_init (&argc, &argv);
  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--json") == 0 && i + 1 < argc) {
      json = argv[++i];
    } else if (strcmp (argv[i], "--sweeps") == 0 && i + 1 < argc) {
      opt_sweeps = parse_uint (argv[++i]);
    } else if (strcmp (argv[i], "--warmup") == 0 && i + 1 < argc) {
      opt_warmup = parse_uint (argv[++i]);
    } else if (strcmp (argv[i], "--backend") == 0 && i + 1 < argc) {
      opt_backend = argv[++i];
      if (strcmp (opt_backend, "auto") && strcmp (opt_backend, "cpu") &&
          strcmp (opt_backend, "gpu"))
        usage (2);
    } else if (strcmp (argv[i], "--dims") == 0 && i + 1 < argc) {
      if (sscanf (argv[++i], "%u,%u,%u", &opt_dims[0], &opt_dims[1],
              &opt_dims[2]) != 3)
        usage (2);
    } else if (strcmp (argv[i], "--fusion-seconds") == 0 && i + 1 < argc) {
      opt_fusion_seconds = parse_uint (argv[++i]);
    } else if (strcmp (argv[i], "--timeout") == 0 && i + 1 < argc) {
      opt_timeout_s = parse_uint (argv[++i]);
    } else if (strcmp (argv[i], "--cuda-device-id") == 0 && i + 1 < argc) {
      opt_device = (gint) parse_uint (argv[++i]);
    } else if (strcmp (argv[i], "--peer-device") == 0 && i + 1 < argc) {
      opt_peer = (gint) parse_uint (argv[++i]);
    } else if (strcmp (argv[i], "--cases") == 0 && i + 1 < argc) {
      const char *cases = argv[++i];
      if (strcmp (cases, "all") && strcmp (cases, "voxelize"))
        usage (2);
      opt_voxelize_only = strcmp (cases, "voxelize") == 0;
    } else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0) {
      usage (0);
    } else {
      usage (2);
    }
  }
  if (opt_sweeps <= opt_warmup + N_WINDOWS)
    die ("--sweeps (%u) must exceed --warmup (%u) by at least %d",
        opt_sweeps, opt_warmup, N_WINDOWS);
  for (guint i = 0; i < n_results; i++) {
    Result *r = &results[i];
    r->fps = r->fps_window_median = r->wall_s = r->steady_s = NAN;
    r->lat_median_us = r->lat_p99_us = r->lat_min_us = r->lat_max_us = NAN;
  }

  n_devices = rc_device_count (&why);
  if (n_devices > 0 && (opt_device >= n_devices || opt_peer >= n_devices))
    die ("--cuda-device-id %d or --peer-device %d: this machine has %d CUDA "
        "device(s)", opt_device, opt_peer, n_devices);
  if (n_devices > 0 && rc_device_select (opt_device) == RC_OK &&
      rc_device_name (device, sizeof (device)) == RC_OK)
    why = NULL;
  else
    g_snprintf (device, sizeof (device), "no GPU (%s)", why ? why : "unknown");
  cpu = cpu_name ();
  on_gpu = voxelize_on_gpu ();
  printf ("device: %s\ncpu: %s\nbackend: %s (voxelize on the %s)\n"
      "sweeps: %u pushed round-robin from %d made once, %d points each; "
      "grid %u x %u x %u count; first %u not counted\n"
      "chunks: %d pushed once, %d trajectories x %d samples x %d float32, "
      "resampled at %d Hz; first %d not counted\n"
      "fusion: %u s of camera 30 Hz, joints 200 Hz, lidar 10 Hz, not live\n"
      "latency: element src pad exit - sink pad entry; fps: buffers / "
      "steady wall time (med5: median of %d windows)\n\n", device, cpu,
      opt_backend, on_gpu ? "GPU" : "CPU", opt_sweeps, N_MADE,
      POINTS_PER_SWEEP, opt_dims[0], opt_dims[1], opt_dims[2], opt_warmup,
      N_CHUNKS, CHUNK_BATCH, CHUNK_SAMPLES, CHUNK_CHANNELS, CHUNK_RATE,
      CHUNK_WARMUP, opt_fusion_seconds, N_WINDOWS);
  if (on_gpu) {
    gchar *bus_why = NULL;

    have_bus = bench_bus_measure (2 << 20, 50, &bus[0], &bus_why) &&
        bench_bus_measure (CHUNK_BYTES, 20, &bus[1], &bus_why);
    if (!have_bus)
      die ("measuring the bus: %s", bus_why);
    for (guint i = 0; i < 2; i++)
      printf ("bus %6.1f MB: host to device %5.1f GB/s pinned, %5.1f "
          "pageable; device to host %5.1f GB/s pinned, %5.1f pageable\n",
          bus[i].size / 1e6, bus[i].pinned_h2d, bus[i].pageable_h2d,
          bus[i].pinned_d2h, bus[i].pageable_d2h);
    if (opt_peer >= 0) {
      peer_rates[0].size = 2 << 20;
      peer_rates[1].size = 64 << 20;
      have_peer = measure_peer (peer_rates, 2, &direct, &bus_why);
      if (!have_peer)
        die ("measuring copies between devices %d and %d: %s", opt_peer,
            opt_device, bus_why);
      for (guint i = 0; i < 2; i++)
        printf ("peer %6.1f MB: device %d to %d %5.1f GB/s, %d to %d "
            "%5.1f GB/s (%s)\n", peer_rates[i].size / 1e6, opt_peer,
            opt_device, peer_rates[i].peer_to_device, opt_device, opt_peer,
            peer_rates[i].device_to_peer, direct ? "peer access" :
            "no peer access: staged by the driver");
    }
    printf ("\n");
  }
  print_header ();
  fflush (stdout);

  make_sweeps (&sweeps);
  voxelize = g_strdup_printf ("robocachevoxelize backend=%s mode=count "
      "dims=\"<%u,%u,%u>\" cuda-device-id=%d", opt_backend, opt_dims[0],
      opt_dims[1], opt_dims[2], opt_device);
  /* The 32 chunks (1.1 GB) are made once and all held by the pusher:
   * room for them in page-locked memory (a stream recycles its few). */
  resample = g_strdup_printf ("robocacheresample backend=%s rate=%d "
      "max-pinned-memory=%" G_GSIZE_FORMAT " cuda-device-id=%d", opt_backend,
      CHUNK_RATE, (gsize) (N_CHUNKS + 2) * CHUNK_BYTES, opt_device);
  sweep_stream = (Stream) {
  voxelize, GST_ROBOCACHE_VOXELS_MEDIA_TYPE, &sweeps, opt_sweeps, opt_warmup};
  chunk_stream = (Stream) {
  resample, GST_ROBOCACHE_VECTORS_MEDIA_TYPE, NULL, N_CHUNKS, CHUNK_WARMUP};
  if (!on_gpu && strcmp (opt_backend, "gpu") == 0) {
    /* voxelize would refuse to start: nothing can run. */
    for (guint i = 0; i < n_results; i++)
      set_status (&results[i], "skipped", "backend=gpu, but no GPU can be "
          "used (%s)", why ? why : "the CUDA path is not built");
  } else {
    const char *cpu_why = strcmp (opt_backend, "cpu") == 0 ?
        "backend=cpu" : why ? why : "voxelize offers no CUDA memory";

    run_stream (&results[0], &sweep_stream, IN_PAGEABLE, FALSE);
    print_result (&results[0]);
    if (on_gpu) {
      static const InputKind kinds[] = { IN_PINNED, IN_PAGEABLE, IN_PINNED,
        IN_CUDA, IN_PAGEABLE, IN_PINNED, IN_CUDA
      };
      if (!opt_voxelize_only) {
        make_chunks (&chunks);
        chunk_stream.input = &chunks;
      }
      for (guint i = 1; i < 8; i++) {
        if (i >= 5 && opt_voxelize_only)
          set_status (&results[i], "skipped", "--cases voxelize");
        else
          run_stream (&results[i], i < 5 ? &sweep_stream : &chunk_stream,
              kinds[i - 1], i > 1);
        print_result (&results[i]);
        if (i == 4 && opt_peer >= 0) {
          run_stream (&results[peer], &sweep_stream, IN_CUDA_PEER, TRUE);
          print_result (&results[peer]);
        }
      }
    } else {
      for (guint i = 1; i < 8; i++) {
        set_status (&results[i], "skipped", "the elements run on the CPU "
            "(%s)", cpu_why);
        print_result (&results[i]);
      }
    }
    if (opt_peer < 0 || !on_gpu)
      set_status (&results[peer], "skipped", "%s", on_gpu ?
          "no --peer-device" : "the elements run on the CPU");
    if (opt_voxelize_only) {
      for (guint i = 8; i <= fusion; i++) {
        set_status (&results[i], "skipped", "--cases voxelize");
        print_result (&results[i]);
      }
    } else {
      run_fusion_live (&results[8], 320, 240);
      print_result (&results[8]);
      run_fusion_live (&results[9], 1920, 1080);
      print_result (&results[9]);
      run_fusion (&results[fusion]);
      print_result (&results[fusion]);
    }
  }
  if (strcmp (results[0].status, "skipped") == 0)
    for (guint i = 0; i < n_results; i++)
      print_result (&results[i]);
  for (guint i = 0; i < n_results; i++)
    failed |= strcmp (results[i].status, "failed") == 0;

  if (have_bus && strcmp (results[6].status, "ok") == 0)
    printf ("\nresample chunks from pinned memory: %.1f GB/s of input, "
        "%.0f %% of the pinned host-to-device rate\n",
        results[6].fps * CHUNK_BYTES / 1e9,
        100 * results[6].fps * CHUNK_BYTES / 1e9 / bus[1].pinned_h2d);
  if (strcmp (results[fusion].status, "ok") == 0)
    printf ("\nfusion: %" G_GUINT64_FORMAT " fused frames in %.2f s of wall "
        "time (start-up included)\n", results[fusion].buffers,
        results[fusion].wall_s);
  if (json) {
    write_json (json, device, cpu, on_gpu, results, n_results,
        have_bus ? bus : NULL, have_peer ? peer_rates : NULL, direct);
    printf ("wrote %s\n", json);
  }
  gst_caps_unref (sweeps.caps);
  g_ptr_array_unref (sweeps.buffers);
  if (chunks.caps) {
    gst_caps_unref (chunks.caps);
    g_ptr_array_unref (chunks.buffers);
  }
  g_free (voxelize);
  g_free (resample);
  g_free (cpu);
  return failed ? 1 : 0;
}
