/* robocacheresample's backends on chunks in system memory, element to
 * element: `appsrc ! robocacheresample backend=B rate=250 ! appsink`, the
 * chunks in appsrc's own (pageable) memory and the output in system memory
 * (appsink's caps have no CUDA feature), as a ROS bridge node that embeds
 * a pipeline has them.  Per shape (batch, samples a chunk at 1 kHz with
 * jitter, channels, float32) and backend (cpu, gpu, auto), CHUNKS chunks
 * pushed as fast as the pipeline takes them; the time a chunk is the
 * median gap between outputs after WARMUP, so that what the GPU overlaps
 * (a chunk's upload while the last one's output waits) counts; each
 * backend run twice (cpu, gpu, auto, auto, gpu, cpu), the lower kept.
 * Then, per shape, auto's time against the better of cpu and gpu.
 *
 *   elemcross [CHUNKS]      (default 120; needs GST_PLUGIN_PATH_1_0)
 *
 * Build (here): gcc -O2 -o build/elemcross docs/bench/run196/elemcross.c \
 *   $(pkg-config --cflags --libs gstreamer-app-1.0) -lm */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 20
#define MAX_CHUNKS 4096

typedef struct
{
  GMutex lock;
  double stamps[MAX_CHUNKS];    /* us */
  guint n;
} Arrivals;

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer data)
{
  Arrivals *a = data;
  GstSample *s = gst_app_sink_pull_sample (sink);

  g_mutex_lock (&a->lock);
  if (a->n < MAX_CHUNKS)
    a->stamps[a->n++] = now_us ();
  g_mutex_unlock (&a->lock);
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

static int
compare_double (const void *x, const void *y)
{
  double a = *(const double *) x, b = *(const double *) y;

  return a < b ? -1 : a > b;
}

/* @n chunks of @batch trajectories of @samples float32 vectors of
 * @channels, 1 kHz +- 30 % from 1 s on, each following the last. */
static GPtrArray *
make_chunks (guint n, guint batch, guint samples, guint channels)
{
  GPtrArray *chunks = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GRand *rand = g_rand_new_with_seed (196);
  gsize times = (gsize) batch * samples * 8;
  gsize size = times + (gsize) batch * samples * channels * 4;

  for (guint c = 0; c < n; c++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
    GstMapInfo map;

    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (guint b = 0; b < batch; b++)
      for (guint i = 0; i < samples; i++)
        ((gint64 *) map.data)[(gsize) b * samples + i] = GST_SECOND +
            ((gint64) c * samples + i) * GST_MSECOND + b * 10 * GST_USECOND +
            (gint64) (g_rand_double_range (rand, -0.3, 0.3) * GST_MSECOND);
    for (gsize i = 0; i < (gsize) batch * samples * channels; i++)
      ((float *) (map.data + times))[i] =
          (float) g_rand_double_range (rand, -3, 3);
    gst_buffer_unmap (buf, &map);
    g_ptr_array_add (chunks, buf);
  }
  g_rand_free (rand);
  return chunks;
}

/* The median gap between outputs (us) of @chunks through @backend; a
 * negative value on error. */
static double
run (const char *backend, GPtrArray * chunks, guint batch, guint channels,
    guint64 * small_on_cpu)
{
  gchar *caps = g_strdup_printf ("other/x-robocache-vectors, "
      "channels=(int)%u, format=(string)float32, layout=(string)chunk, "
      "batch=(int)%u", channels, batch);
  gchar *desc = g_strdup_printf ("appsrc name=src is-live=false format=time "
      "caps=\"%s\" ! robocacheresample name=r backend=%s rate=250 ! "
      "appsink name=sink sync=false caps=\"other/x-robocache-vectors\"",
      caps, backend);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *src, *sink, *r;
  GstAppSinkCallbacks cb = { 0 };
  Arrivals *a = g_new0 (Arrivals, 1);
  GstMessage *msg;
  double *gaps, median = -1;
  GstStructure *stats = NULL;

  if (!pipe) {
    fprintf (stderr, "%s\n", err->message);
    exit (1);
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  g_mutex_init (&a->lock);
  cb.new_sample = on_sample;
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, a, NULL);
  g_object_set (src, "max-bytes", (guint64) 0, "block", TRUE, NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (guint i = 0; i < chunks->len; i++) {
    GstBuffer *buf = gst_buffer_copy (g_ptr_array_index (chunks, i));

    GST_BUFFER_PTS (buf) = GST_SECOND + (GstClockTime) i * GST_MSECOND;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && a->n > WARMUP + 2) {
    guint n = a->n - WARMUP - 1;

    gaps = g_new (double, n);
    for (guint i = 0; i < n; i++)
      gaps[i] = a->stamps[WARMUP + i + 1] - a->stamps[WARMUP + i];
    qsort (gaps, n, sizeof *gaps, compare_double);
    median = n % 2 ? gaps[n / 2] : (gaps[n / 2 - 1] + gaps[n / 2]) / 2;
    g_free (gaps);
  } else if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    fprintf (stderr, "%s: %s\n", backend, e->message);
    g_error_free (e);
  }
  g_object_get (r, "stats", &stats, NULL);
  *small_on_cpu = 0;
  if (stats)
    gst_structure_get_uint64 (stats, "small-on-cpu", small_on_cpu);
  if (stats)
    gst_structure_free (stats);
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (r);
  gst_object_unref (pipe);
  g_mutex_clear (&a->lock);
  g_free (a);
  g_free (desc);
  g_free (caps);
  return median;
}

int
main (int argc, char **argv)
{
  static const guint batches[] = { 1, 4, 16 };
  static const guint samples[] = { 16, 64, 256, 1024, 4096 };
  static const guint channels[] = { 7, 32 };
  static const char *const backends[] = { "cpu", "gpu", "auto" };
  guint n_chunks = argc > 1 ? (guint) atoi (argv[1]) : 120;
  double worst = 0, sum = 0;
  guint n = 0, over = 0;

  gst_init (&argc, &argv);
  n_chunks = CLAMP (n_chunks, WARMUP + 10, MAX_CHUNKS);
  printf ("%5s %6s %4s %6s %10s %10s %10s %11s %9s\n", "B", "S", "D",
      "grid", "cpu us", "gpu us", "auto us", "auto on cpu", "auto/best");
  for (guint bi = 0; bi < G_N_ELEMENTS (batches); bi++)
    for (guint si = 0; si < G_N_ELEMENTS (samples); si++)
      for (guint di = 0; di < G_N_ELEMENTS (channels); di++) {
        GPtrArray *chunks = make_chunks (n_chunks, batches[bi], samples[si],
            channels[di]);
        double t[3], best, ratio;
        guint64 on_cpu[3];

        for (guint k = 0; k < 3; k++)
          t[k] = G_MAXDOUBLE;
        for (guint i = 0; i < 6; i++) {
          guint k = i < 3 ? i : 5 - i;
          double us = run (backends[k], chunks, batches[bi], channels[di],
              &on_cpu[k]);

          t[k] = us < 0 || t[k] < 0 ? -1 : MIN (t[k], us);
        }
        g_ptr_array_unref (chunks);
        if (t[0] <= 0 || t[1] <= 0 || t[2] <= 0) {
          printf ("%5u %6u %4u: a run failed\n", batches[bi], samples[si],
              channels[di]);
          continue;
        }
        best = MIN (t[0], t[1]);
        ratio = t[2] / best;
        worst = MAX (worst, ratio);
        sum += ratio;
        over += ratio > 1.1;
        n++;
        printf ("%5u %6u %4u %6u %10.1f %10.1f %10.1f %11" G_GUINT64_FORMAT
            " %9.2f\n", batches[bi], samples[si], channels[di],
            batches[bi] * samples[si] / 4, t[0], t[1], t[2], on_cpu[2], ratio);
        fflush (stdout);
      }
  printf ("\nauto against the better backend over %u shapes: worst %.2f, "
      "mean %.3f, %u over 1.1\n", n, worst, n ? sum / n : 0, over);
  return 0;
}
