/* The soak's pipeline (tests/bench/soak.py runs it and judges): the demo's
 * three sensors live through voxelize, resample and fuse, with resident
 * memory, device memory and the buffers into and out of each element
 * (pad probes) sampled every interval into a CSV; at the end the sources
 * get EOS and the counts are checked, one "check ok|FAIL" line each.
 *
 *   soak CSV MINUTES INTERVAL_S BACKEND POINTS
 *
 * C, not Python, so that it runs where GStreamer has no Python binding
 * (the GPU machine). */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robocache-kernels.h"
#include "testutil.h"

enum
{
  VOX_IN, VOX_OUT, RES_IN, RES_OUT, FUSE_0, FUSE_1, FUSE_2, FUSE_OUT,
  N_COUNTERS
};

static const gchar *const names[N_COUNTERS] = {
  "voxelize.in", "voxelize.out", "resample.in", "resample.out",
  "fuse.sink_0", "fuse.sink_1", "fuse.sink_2", "fuse.out"
};

static gint counts[N_COUNTERS];
/* First and last PTS out of resample and fuse (their streaming threads). */
static GstClockTime first_pts[N_COUNTERS], last_pts[N_COUNTERS];

static GstPadProbeReturn
count_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  guint i = GPOINTER_TO_UINT (data);
  GstClockTime pts = GST_BUFFER_PTS (GST_PAD_PROBE_INFO_BUFFER (info));

  if (!GST_CLOCK_TIME_IS_VALID (first_pts[i]))
    first_pts[i] = pts;
  last_pts[i] = pts;
  g_atomic_int_inc (&counts[i]);
  return GST_PAD_PROBE_OK;
}

static void
probe (GstElement * pipeline, const gchar * element, const gchar * pad, guint i)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), element);
  GstPad *p = gst_element_get_static_pad (e, pad);

  first_pts[i] = GST_CLOCK_TIME_NONE;
  gst_pad_add_probe (p, GST_PAD_PROBE_TYPE_BUFFER, count_buffer,
      GUINT_TO_POINTER (i), NULL);
  gst_object_unref (p);
  gst_object_unref (e);
}

/* Device memory in use (MiB, all processes: cudaMemGetInfo), -1 without a
 * GPU. */
static gdouble
gpu_mib (gboolean gpu)
{
  size_t free_bytes = 0, total = 0;

  if (!gpu || rc_device_memory_info (&free_bytes, &total) != RC_OK)
    return -1;
  return (total - free_bytes) / 1048576.0;
}

static guint64
stat_of (GstElement * pipeline, const gchar * element, const gchar * pad,
    const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), element);
  GObject *obj = pad ? G_OBJECT (gst_element_get_static_pad (e, pad)) :
      G_OBJECT (gst_object_ref (e));
  GstStructure *s = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (obj, "stats", &s, NULL);
  if (s)
    gst_structure_get_uint64 (s, field, &v);
  g_clear_pointer (&s, gst_structure_free);
  g_object_unref (obj);
  gst_object_unref (e);
  return v;
}

static gboolean all_ok = TRUE;

static void
check (gboolean ok, const gchar * what, const gchar * format, ...)
{
  va_list args;
  gchar *detail;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);
  printf ("check %s %s: %s\n", ok ? "ok" : "FAIL", what, detail);
  all_ok &= ok;
  g_free (detail);
}

/* Grid times (or ticks) from the first PTS out of @i to the last, at
 * @rate per second. */
static guint64
span (guint i, guint rate)
{
  return (last_pts[i] - first_pts[i] + GST_SECOND / rate / 2) * rate /
      GST_SECOND + 1;
}

static void
check_balance (GstElement * p)
{
  guint64 dropped = stat_of (p, "voxelize", NULL, "dropped-buffers");
  guint64 inputs = stat_of (p, "resample", NULL, "inputs");
  guint64 outputs = stat_of (p, "resample", NULL, "outputs");
  guint64 ticks = stat_of (p, "fuse", NULL, "ticks");
  guint64 dropped_ticks = stat_of (p, "fuse", NULL, "dropped-ticks");

  check (counts[VOX_IN] == counts[VOX_OUT] + (gint) dropped,
      "voxelize in = out + dropped-buffers", "%d = %d + %" G_GUINT64_FORMAT,
      counts[VOX_IN], counts[VOX_OUT], dropped);
  check (counts[VOX_OUT] == counts[FUSE_0], "queue: voxelize out = fuse "
      "sink_0 in", "%d vs %d", counts[VOX_OUT], counts[FUSE_0]);
  check (counts[RES_OUT] == counts[FUSE_1], "queue: resample out = fuse "
      "sink_1 in", "%d vs %d", counts[RES_OUT], counts[FUSE_1]);
  check ((guint64) counts[RES_IN] == inputs, "resample in = inputs",
      "%d vs %" G_GUINT64_FORMAT, counts[RES_IN], inputs);
  check ((guint64) counts[RES_OUT] == outputs &&
      outputs == span (RES_OUT, 100), "resample out = outputs = every "
      "10 ms grid time once", "%d, %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
      " grid times", counts[RES_OUT], outputs, span (RES_OUT, 100));
  for (guint i = 0; i < 3; i++) {
    gchar *pad = g_strdup_printf ("sink_%u", i);
    guint64 taken = stat_of (p, "fuse", pad, "buffers") +
        stat_of (p, "fuse", pad, "dropped-bad-size") +
        stat_of (p, "fuse", pad, "dropped-out-of-order") +
        stat_of (p, "fuse", pad, "dropped-duplicate");

    check ((guint64) counts[FUSE_0 + i] == taken, "fuse pad in = accepted "
        "+ dropped", "%s: %d vs %" G_GUINT64_FORMAT, pad, counts[FUSE_0 + i],
        taken);
    g_free (pad);
  }
  check ((guint64) counts[FUSE_OUT] == ticks &&
      ticks + dropped_ticks == span (FUSE_OUT, 30), "fuse out = ticks, and "
      "ticks + dropped-ticks = every tick", "%d, %" G_GUINT64_FORMAT " + %"
      G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, counts[FUSE_OUT], ticks,
      dropped_ticks, span (FUSE_OUT, 30));
}

static GstElement *
pipeline_new (const gchar * backend, guint points)
{
  gchar *desc = g_strdup_printf ("robocachefuse name=fuse rate=30/1 ! "
      "fakesink sync=false "
      "robocachelidarsrc is-live=true points-per-sweep=%u ! "
      "robocachevoxelize name=voxelize backend=%s mode=count ! queue ! "
      "fuse.sink_0 "
      "robocachejointsrc is-live=true rate=200/1 jitter=0.3 dropout=0.05 ! "
      "robocacheresample name=resample backend=%s rate=100/1 ! queue ! "
      "fuse.sink_1 "
      "videotestsrc is-live=true pattern=ball ! video/x-raw,format=I420,"
      "width=320,height=240,framerate=30/1 ! queue ! fuse.sink_2", points,
      backend, backend);
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  if (!p) {
    g_printerr ("%s: %s\n", desc, error->message);
    exit (2);
  }
  g_free (desc);
  probe (p, "voxelize", "sink", VOX_IN);
  probe (p, "voxelize", "src", VOX_OUT);
  probe (p, "resample", "sink", RES_IN);
  probe (p, "resample", "src", RES_OUT);
  for (guint i = 0; i < 3; i++) {
    gchar *pad = g_strdup_printf ("sink_%u", i);
    probe (p, "fuse", pad, FUSE_0 + i);
    g_free (pad);
  }
  probe (p, "fuse", "src", FUSE_OUT);
  return p;
}

static void
write_row (FILE * csv, gdouble t, gboolean gpu)
{
  fprintf (csv, "%.1f,%ld,%.1f", t, test_proc_status_kib ("VmRSS"),
      gpu_mib (gpu));
  for (guint i = 0; i < N_COUNTERS; i++)
    fprintf (csv, ",%d", g_atomic_int_get (&counts[i]));
  fprintf (csv, "\n");
  fflush (csv);
}

/* Runs until @end (monotonic µs), a row every @interval s; the error (or
 * an early EOS) that stopped it, or NULL. */
static gchar *
run_rows (GstElement * p, FILE * csv, gint64 start, gint64 end,
    gdouble interval, gboolean gpu)
{
  GstBus *bus = gst_element_get_bus (p);
  gchar *error = NULL;

  while (!error) {
    gint64 now = g_get_monotonic_time ();
    GstMessage *msg;

    write_row (csv, (now - start) / 1e6, gpu);
    if (now >= end)
      break;
    msg = gst_bus_timed_pop_filtered (bus, MIN (interval * GST_SECOND,
            (end - now) * GST_USECOND), GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      error = g_strdup (err->message);
      g_error_free (err);
    } else if (msg) {
      error = g_strdup ("EOS while the sources were live");
    }
    g_clear_pointer (&msg, gst_message_unref);
  }
  gst_object_unref (bus);
  return error;
}

int
main (int argc, char **argv)
{
  GstElement *p;
  FILE *csv;
  gboolean gpu;
  gchar *error;
  GstMessage *msg;
  gint64 start;

  gst_init (&argc, &argv);
  if (argc != 6) {
    g_printerr ("usage: %s CSV MINUTES INTERVAL_S BACKEND POINTS\n", argv[0]);
    return 2;
  }
  gpu = strcmp (argv[4], "cpu") != 0 && rc_device_count (NULL) > 0;
  csv = fopen (argv[1], "w");
  if (!csv)
    return 2;
  fprintf (csv, "t_s,rss_kib,gpu_mib");
  for (guint i = 0; i < N_COUNTERS; i++)
    fprintf (csv, ",%s", names[i]);
  fprintf (csv, "\n");
  p = pipeline_new (argv[4], (guint) atoi (argv[5]));
  gst_element_set_state (p, GST_STATE_PLAYING);
  start = g_get_monotonic_time ();
  error = run_rows (p, csv, start, start + (gint64) (g_ascii_strtod (argv[2],
              NULL) * 60e6), g_ascii_strtod (argv[3], NULL), gpu);
  if (!error) {
    gst_element_send_event (p, gst_event_new_eos ());
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS)
      error = g_strdup ("no EOS within 60 s of the end");
    g_clear_pointer (&msg, gst_message_unref);
  }
  if (!error)
    check_balance (p);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fclose (csv);
  if (error)
    printf ("error: %s\n", error);
  g_free (error);
  return error || !all_ok;
}
