/* robocachemcapsrc on MCAP files written by third-party tools
 * (tests/mcap/write-samples.js: @mcap/core and Foxglove's CDR writer, run
 * at start into a temporary folder with a fresh seed): every variant
 * played against the writer's expectations, timestamps, skipped topics,
 * recovery of cut-off recordings, CRCs, folders, seeking and
 * determinism. */
#define _GNU_SOURCE             /* memmem */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <string.h>

#include "elementutil.h"
#include "testutil.h"
#include "formats/mcap-builder.h"

#include <zstd.h>

static gchar *sample_dir;

static gchar *
sample_path (const gchar * name)
{
  return g_build_filename (sample_dir, name, NULL);
}

/* Runs write-samples.js with a fresh seed; exits with TEST_EXIT_SKIP,
 * saying why, without node or its packages. */
static void
write_samples (void)
{
  const gchar *script = g_getenv ("ROBOCACHE_MCAP_SAMPLES");
  gchar *dir, *modules, *seed, *node, *err_out = NULL;
  GError *error = NULL;
  gint status = -1;

  if (!script) {
    g_print ("SKIP: ROBOCACHE_MCAP_SAMPLES is not set (run through meson "
        "test)\n");
    exit (TEST_EXIT_SKIP);
  }
  dir = g_path_get_dirname (script);
  modules = g_build_filename (dir, "node_modules", "@mcap", "core", NULL);
  g_free (dir);
  node = g_find_program_in_path ("node");
  if (!node || !g_file_test (modules, G_FILE_TEST_IS_DIR)) {
    g_print ("SKIP: node or the npm packages of tests/mcap are missing "
        "(tests/run.sh installs them: cd tests/mcap && npm ci)\n");
    exit (TEST_EXIT_SKIP);
  }
  g_free (node);
  g_free (modules);
  sample_dir = g_dir_make_tmp ("robocache-mcap-XXXXXX", &error);
  g_assert_no_error (error);
  seed = g_strdup_printf ("%u", g_random_int () % 100000);
  g_print ("samples seed: %s\n", seed);
  {
    const gchar *argv[] = { "node", script, sample_dir, "--seed", seed, NULL };
    if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH |
            G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err_out, &status,
            &error) || !g_spawn_check_wait_status (status, &error)) {
      g_printerr ("write-samples.js failed: %s\n%s\n", error->message,
          err_out ? err_out : "");
      exit (1);
    }
  }
  g_free (err_out);
  g_free (seed);
}

/* ------------------------------------------------------------------ */
/* The writer's expectations (FILE.expected.jsonl)                     */
/* ------------------------------------------------------------------ */

/* The string value of "key":"..." or the number of "key":N in @line. */
static gchar *
json_value (const gchar * line, const gchar * key)
{
  gchar *pattern = g_strdup_printf ("\"%s\":(\"([^\"]*)\"|[-0-9.e+]+)", key);
  GRegex *re = g_regex_new (pattern, 0, 0, NULL);
  GMatchInfo *info;
  gchar *value = NULL;

  if (g_regex_match (re, line, 0, &info)) {
    value = g_match_info_fetch (info, 2);
    if (!value || !value[0]) {
      g_free (value);
      value = g_match_info_fetch (info, 1);
    }
  }
  g_match_info_free (info);
  g_regex_unref (re);
  g_free (pattern);
  return value;
}

static guint64
json_u64 (const gchar * line, const gchar * key)
{
  gchar *v = json_value (line, key);
  guint64 n;

  fail_unless (v != NULL, "no %s in %s", key, line);
  n = g_ascii_strtoull (v, NULL, 10);
  g_free (v);
  return n;
}

/* The numbers of the array "key":[...] in @line. */
static GArray *
json_doubles (const gchar * line, const gchar * key)
{
  gchar *start = g_strdup_printf ("\"%s\":[", key);
  const gchar *p = strstr (line, start);
  GArray *values = g_array_new (FALSE, FALSE, sizeof (gdouble));

  fail_unless (p != NULL, "no %s in %s", key, line);
  p += strlen (start);
  while (*p && *p != ']') {
    gchar *end;
    gdouble v = g_ascii_strtod (p, &end);

    fail_unless (end != p, "bad number in %s", p);
    g_array_append_val (values, v);
    p = *end == ',' ? end + 1 : end;
  }
  g_free (start);
  return values;
}

/* The messages of @topics (comma-separated) in @file's expectations, in
 * log-time order; the first line (the file) into @head if not NULL. */
static GPtrArray *
expected_messages (const gchar * file, const gchar * topics, gchar ** head)
{
  gchar *path = g_strdup_printf ("%s/%s.expected.jsonl", sample_dir, file);
  gchar *text, **lines, **wanted = g_strsplit (topics, ",", -1);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "no %s", path);
  lines = g_strsplit (text, "\n", -1);
  if (head)
    *head = g_strdup (lines[0]);
  for (guint i = 1; lines[i] && lines[i][0]; i++) {
    gchar *topic = json_value (lines[i], "topic");

    if (g_strv_contains ((const gchar * const *) wanted, topic))
      g_ptr_array_add (out, g_strdup (lines[i]));
    g_free (topic);
  }
  g_strfreev (lines);
  g_strfreev (wanted);
  g_free (text);
  g_free (path);
  return out;
}

/* ------------------------------------------------------------------ */
/* Playing                                                             */
/* ------------------------------------------------------------------ */

typedef struct
{
  GPtrArray *samples;           /* GstSample */
  gchar *topic;                 /* from the title tag of the stream */
} PadOut;

static GstElement *
mcap_pipeline (const gchar * location, const gchar * props, guint n_pads)
{
  GString *desc = g_string_new (NULL);
  GstElement *pipeline;
  GError *error = NULL;

  g_string_append_printf (desc, "robocachemcapsrc name=m location=\"%s\" %s",
      location, props ? props : "");
  for (guint i = 0; i < n_pads; i++)
    g_string_append_printf (desc, " m.src_%u ! queue ! appsink name=s%u "
        "sync=false", i, i);
  pipeline = gst_parse_launch (desc->str, &error);
  g_assert_no_error (error);
  g_string_free (desc, TRUE);
  return pipeline;
}

/* Plays @pipeline to the end; the samples of each appsink, the warnings
 * (one a line) into @warnings and the element messages' structures into
 * @elements, each if not NULL.  An error fails the test unless @error
 * takes it. */
static GPtrArray **
play (GstElement * pipeline, guint n_pads, gchar ** warnings,
    GPtrArray ** elements, gchar ** error_text)
{
  GPtrArray **out = g_new0 (GPtrArray *, n_pads);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (guint i = 0; i < n_pads; i++) {
    gchar *name = g_strdup_printf ("s%u", i);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
    GstSample *sample;

    out[i] = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_sample_unref);
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
                10 * GST_SECOND)))
      g_ptr_array_add (out[i], sample);
    gst_object_unref (sink);
    g_free (name);
  }
  if (elements)
    *elements = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_structure_free);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT))) {
    GError *err = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      if (elements)
        g_ptr_array_add (*elements,
            gst_structure_copy (gst_message_get_structure (msg)));
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fail_unless (error_text != NULL, "error: %s", err->message);
      *error_text = g_strdup (err->message);
    } else {
      gst_message_parse_warning (msg, &err, NULL);
      if (warnings) {
        gchar *all = g_strconcat (*warnings ? *warnings : "", err->message,
            "\n", NULL);
        g_free (*warnings);
        *warnings = all;
      }
    }
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return out;
}

static void
free_out (GPtrArray ** out, guint n_pads)
{
  for (guint i = 0; i < n_pads; i++)
    g_ptr_array_unref (out[i]);
  g_free (out);
}

static gchar *
buffer_sha256 (GstBuffer * buf)
{
  GstMapInfo map;
  gchar *sum;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return sum;
}

/* The points caps fields the element gives for the expected cloud. */
static gchar *
expected_fields (const gchar * line)
{
  static const gchar *types[] = { NULL, "int8", "uint8", "int16", "uint16",
    "int32", "uint32", "float32", "float64"
  };
  GRegex *re = g_regex_new ("\\{\"name\":\"([^\"]+)\",\"offset\":([0-9]+),"
      "\"datatype\":([0-9]+),\"count\":1\\}", 0, 0, NULL);
  GString *fields = g_string_new (NULL);
  GMatchInfo *info;

  g_regex_match (re, line, 0, &info);
  while (g_match_info_matches (info)) {
    gchar *name = g_match_info_fetch (info, 1);
    gchar *offset = g_match_info_fetch (info, 2);
    gchar *type = g_match_info_fetch (info, 3);

    g_string_append_printf (fields, "%s%s:%s:%s", fields->len ? "," : "",
        name, types[atoi (type)], offset);
    g_free (name);
    g_free (offset);
    g_free (type);
    g_match_info_next (info, NULL);
  }
  g_match_info_free (info);
  g_regex_unref (re);
  return g_string_free (fields, FALSE);
}

/* One played buffer against its expected message: time, bytes, caps. */
static void
check_message (GstSample * sample, const gchar * line, guint64 base,
    gboolean log_time)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  const GstStructure *s = gst_caps_get_structure (gst_sample_get_caps
      (sample), 0);
  guint64 t = json_u64 (line, log_time ? "log_time" : "stamp");
  gchar *sha = json_value (line, "data_sha256"), *got, *frame;

  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), t - base);
  /* The frame, for a recorder downstream (robocachemcapsink). */
  frame = json_value (line, "frame_id");
  fail_unless_equals_string (gst_structure_get_string (s, "frame-id"),
      frame[0] ? frame : NULL);
  g_free (frame);
  if (gst_structure_has_name (s, GST_ROBOCACHE_VECTORS_MEDIA_TYPE)) {
    GArray *position = json_doubles (line, "position");
    GArray *velocity = json_doubles (line, "velocity");
    GArray *effort = json_doubles (line, "effort");
    guint n = position->len;
    gdouble *v = g_new (gdouble, 3 * n);

    fail_unless_equals_int (gst_buffer_get_size (buf), 3 * n * 8);
    gst_buffer_extract (buf, 0, v, 3 * n * 8);
    for (guint j = 0; j < n; j++) {
      fail_unless (v[j] == g_array_index (position, gdouble, j));
      fail_unless (v[n + j] == g_array_index (velocity, gdouble, j));
      fail_unless (v[2 * n + j] == g_array_index (effort, gdouble, j));
    }
    g_free (v);
    g_array_unref (position);
    g_array_unref (velocity);
    g_array_unref (effort);
  } else {
    /* Rows without padding: the buffer is the message's data. */
    got = buffer_sha256 (buf);
    fail_unless_equals_string (got, sha);
    g_free (got);
  }
  if (gst_structure_has_name (s, GST_ROBOCACHE_POINTS_MEDIA_TYPE)) {
    gchar *fields = expected_fields (line);

    fail_unless_equals_string (gst_structure_get_string (s, "fields"), fields);
    g_free (fields);
  }
  g_free (sha);
}

/* Topics whose rows have no padding, so that bytes compare whole. */
#define PLAIN_TOPICS "/points,/joint_states,/camera/image_raw," \
    "/camera/ir/image_raw"

/* Plays @file's plain topics and checks every buffer against the
 * writer's expectations. */
static void
play_and_check (const gchar * file, gboolean log_time)
{
  gchar *path = sample_path (file);
  GstElement *p = mcap_pipeline (path, log_time ?
      "topics=" PLAIN_TOPICS " timestamps=log-time" : "topics="
      PLAIN_TOPICS, 4);
  GPtrArray **out = play (p, 4, NULL, NULL, NULL);
  gchar **topics = g_strsplit (PLAIN_TOPICS, ",", -1);
  guint64 base = G_MAXUINT64;

  /* Time 0 is the earliest of the topics' first stamps (or record times),
   * which need not be the first message's. */
  for (guint i = 0; i < 4; i++) {
    GPtrArray *want = expected_messages (file, topics[i], NULL);

    if (want->len > 0)
      base = MIN (base, json_u64 (g_ptr_array_index (want, 0), log_time ?
              "log_time" : "stamp"));
    g_ptr_array_unref (want);
  }
  for (guint i = 0; i < 4; i++) {
    GPtrArray *want = expected_messages (file, topics[i], NULL);

    fail_unless_equals_int (out[i]->len, want->len);
    for (guint k = 0; k < want->len; k++)
      check_message (g_ptr_array_index (out[i], k),
          g_ptr_array_index (want, k), base, log_time);
    g_ptr_array_unref (want);
  }
  g_strfreev (topics);
  free_out (out, 4);
  gst_object_unref (p);
  g_free (path);
}

GST_START_TEST (test_zstd)
{
  play_and_check ("zstd.mcap", FALSE);
}

GST_END_TEST;

/* rosbag2's SQLite storage, written by SQLite (write-db3.js): Humble's
 * schema; Jazzy's, with stored definitions, left in WAL mode; Foxy's,
 * without the timestamp index, messages out of order; and a split
 * recording's folder.  Every message as the writer made it. */
GST_START_TEST (test_sqlite)
{
  play_and_check ("humble.db3", FALSE);
  play_and_check ("jazzy.db3", TRUE);
  play_and_check ("foxy.db3", FALSE);
  play_and_check ("message-zstd.db3", FALSE);
  play_and_check ("split-db3", FALSE);
}

GST_END_TEST;

GST_START_TEST (test_lz4)
{
  gchar *path = sample_path ("lz4.mcap");

  /* write-samples.js writes it with the lz4 tool (tests/run.sh installs
   * it); without it the file is missing and said so there. */
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    play_and_check ("lz4.mcap", FALSE);
  else
    g_print ("lz4.mcap not written (no lz4 tool): not checked\n");
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_layouts)
{
  const gchar *files[] = { "uncompressed.mcap", "unchunked.mcap",
    "no-index.mcap", "small-chunks.mcap", "big-endian.mcap",
    "stamp-lag.mcap", "message-zstd.mcap"
  };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    play_and_check (files[i], FALSE);
}

GST_END_TEST;

GST_START_TEST (test_log_time)
{
  play_and_check ("zstd.mcap", TRUE);
}

GST_END_TEST;

/* Every supported topic gets a pad (name order); the others are warned
 * about, by name. */
GST_START_TEST (test_default_topics)
{
  gchar *path = sample_path ("two-lidars.mcap");
  GstElement *p = mcap_pipeline (path, NULL, 7);
  gchar *warnings = NULL, *head = NULL;
  GPtrArray **out = play (p, 7, &warnings, NULL, NULL);
  GPtrArray *ouster = expected_messages ("two-lidars.mcap", "/ouster/points",
      &head);
  const gchar *order[] = { "/camera/bgr/image_raw", "/camera/image_raw",
    "/camera/ir/image_raw", "/camera/mono/image_raw", "/joint_states",
    "/ouster/points", "/points"
  };

  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "m");
  GstStructure *stats = NULL;
  GRegex *re = g_regex_new ("\"count\":([0-9]+),\"supported\":false", 0, 0,
      NULL);
  GMatchInfo *info;
  guint64 other = 0, skipped = 0;

  fail_unless (warnings && strstr (warnings, "/chatter") &&
      strstr (warnings, "/pose"), "%s", warnings);
  /* The messages of those topics are counted, not read. */
  for (g_regex_match (re, head, 0, &info); g_match_info_matches (info);
      g_match_info_next (info, NULL)) {
    gchar *n = g_match_info_fetch (info, 1);

    other += g_ascii_strtoull (n, NULL, 10);
    g_free (n);
  }
  g_match_info_free (info);
  g_regex_unref (re);
  g_object_get (src, "stats", &stats, NULL);
  fail_unless (gst_structure_get_uint64 (stats, "skipped-other-types",
          &skipped));
  fail_unless (other > 0);
  fail_unless_equals_uint64 (skipped, other);
  gst_structure_free (stats);
  gst_object_unref (src);
  for (guint i = 0; i < G_N_ELEMENTS (order); i++) {
    GPtrArray *want = expected_messages ("two-lidars.mcap", order[i], NULL);

    fail_unless_equals_int (out[i]->len, want->len);
    g_ptr_array_unref (want);
  }
  /* The organized cloud: rows without their padding, float64 time. */
  for (guint k = 0; k < ouster->len; k++) {
    GstSample *sample = g_ptr_array_index (out[5], k);
    const gchar *line = g_ptr_array_index (ouster, k);

    fail_unless_equals_uint64 (gst_buffer_get_size (gst_sample_get_buffer
            (sample)), json_u64 (line, "height") * json_u64 (line, "width") *
        json_u64 (line, "point_step"));
  }
  g_ptr_array_unref (ouster);
  g_free (head);
  g_free (warnings);
  free_out (out, 7);
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

/* A recording cut off by a crash: every whole message plays, and the
 * element says how many were recovered. */
static void
check_recovered (const gchar * file)
{
  gchar *path = sample_path (file), *warnings = NULL, *head = NULL;
  GstElement *p = mcap_pipeline (path, "topics=/points,/joint_states", 2);
  GPtrArray *elements;
  GPtrArray **out = play (p, 2, &warnings, &elements, NULL);
  GPtrArray *points = expected_messages (file, "/points", &head);
  GPtrArray *joints = expected_messages (file, "/joint_states", NULL);
  const GstStructure *s = NULL;
  guint64 n = 0, end = 0;

  fail_unless_equals_int (out[0]->len, points->len);
  fail_unless_equals_int (out[1]->len, joints->len);
  for (guint i = 0; i < elements->len; i++)
    if (gst_structure_has_name (g_ptr_array_index (elements, i),
            "robocache-recovered"))
      s = g_ptr_array_index (elements, i);
  fail_unless (s != NULL, "no robocache-recovered message");
  fail_unless (gst_structure_get_uint64 (s, "messages", &n));
  fail_unless (gst_structure_get_uint64 (s, "end-offset", &end));
  fail_unless_equals_uint64 (n, json_u64 (head, "message_count"));
  fail_unless_equals_uint64 (end, json_u64 (head, "readable_end"));
  /* Why, as robocachebagsrc says it. */
  fail_unless (g_str_has_prefix (gst_structure_get_string (s, "reason"),
          "the file does not end with a footer"), "%" GST_PTR_FORMAT, s);
  fail_unless_equals_string (gst_structure_get_string (s, "location"), path);
  fail_unless (warnings && strstr (warnings, "recovered"), "%s", warnings);
  g_ptr_array_unref (points);
  g_ptr_array_unref (joints);
  g_ptr_array_unref (elements);
  free_out (out, 2);
  gst_object_unref (p);
  g_free (warnings);
  g_free (head);
  g_free (path);
}

GST_START_TEST (test_recovered_mid_chunk)
{
  check_recovered ("crashed-mid-chunk.mcap");
}

GST_END_TEST;

GST_START_TEST (test_recovered_no_summary)
{
  check_recovered ("crashed-no-summary.mcap");
}

GST_END_TEST;

/* The error text of playing @location with @props (@n_pads pads); the
 * test fails if it plays to the end. */
static gchar *
play_error (const gchar * location, const gchar * props, guint n_pads)
{
  GstElement *p = mcap_pipeline (location, props, n_pads);
  gchar *err = NULL;

  free_out (play (p, n_pads, NULL, NULL, &err), n_pads);
  gst_object_unref (p);
  fail_unless (err != NULL, "%s %s played without an error", location, props);
  return err;
}

/* How many buffers @location plays with @props on its one pad. */
static guint
played (const gchar * location, const gchar * props)
{
  GstElement *p = mcap_pipeline (location, props, 1);
  GPtrArray **out = play (p, 1, NULL, NULL, NULL);
  guint n = out[0]->len;

  free_out (out, 1);
  gst_object_unref (p);
  return n;
}

/* The bytes of sample @name (free them), @size set. */
static gchar *
sample_bytes (const gchar * name, gsize * size)
{
  gchar *path = sample_path (name), *data;

  fail_unless (g_file_get_contents (path, &data, size, NULL));
  g_free (path);
  return data;
}

/* Copies sample @name to @dir/@to; where @to ends in ".zstd", compressed
 * whole as rosbag2's --compression-mode file does (one zstd frame that
 * gives its size), and where @cut, its last @cut bytes left out. */
static void
copy_sample (const gchar * name, const gchar * dir, const gchar * to,
    gsize cut)
{
  gchar *dst = g_build_filename (dir, to, NULL);
  gsize size;
  gchar *data = sample_bytes (name, &size);

  if (g_str_has_suffix (to, ".zstd")) {
    gsize bound = ZSTD_compressBound (size);
    gchar *packed = g_malloc (bound);

    size = ZSTD_compress (packed, bound, data, size, 1);
    fail_if (ZSTD_isError (size));
    g_free (data);
    data = packed;
  }
  fail_unless (cut < size);
  fail_unless (g_file_set_contents (dst, data, size - cut, NULL));
  g_free (data);
  g_free (dst);
}

/* A byte changed inside an uncompressed chunk's point data: the chunk's
 * CRC no longer matches (an error naming it), unless check-crc=false. */
GST_START_TEST (test_crc_mismatch_n)
{
  gchar *bad = sample_path ("crc.mcap"), *data, *err;
  gsize size;
  guint8 *frame;

  data = sample_bytes ("uncompressed.mcap", &size);
  /* Points are the bulk of the file; past their frame_id lies cloud
   * data, which no length depends on. */
  frame = memmem (data + size / 2, size / 2, "velodyne", 8);
  fail_unless (frame != NULL);
  frame[600] ^= 0x5a;
  fail_unless (g_file_set_contents (bad, data, size, NULL));

  err = play_error (bad, "topics=/points", 1);
  fail_unless (strstr (err, "CRC") != NULL, "%s", err);
  fail_unless_equals_int (played (bad, "topics=/points check-crc=false"), 20);
  g_free (err);
  g_free (data);
  g_free (bad);
}

GST_END_TEST;

/* A stored schema that cannot be parsed (a type "uint33" in the
 * PointCloud2 definition, every copy of it, CRCs not checked): an error
 * naming the topic and what is wrong; the other topics are not touched. */
GST_START_TEST (test_bad_schema_n)
{
  gchar *bad = sample_path ("schema.mcap"), *data, *err;
  gsize size;
  guint n = 0;

  data = sample_bytes ("uncompressed.mcap", &size);
  for (gchar * at = data; (at = memmem (at, data + size - at,
              "uint32 height", 13)); at++, n++)
    at[5] = '3';
  fail_unless (n >= 2, "%u copies of the PointCloud2 and Image schemas", n);
  fail_unless (g_file_set_contents (bad, data, size, NULL));

  err = play_error (bad, "topics=/points,/joint_states check-crc=false", 2);
  fail_unless (strstr (err, "/points") && strstr (err, "uint33"), "%s", err);
  fail_unless_equals_int (played (bad,
          "topics=/joint_states check-crc=false"), 200);
  g_free (err);
  g_free (data);
  g_free (bad);
}

GST_END_TEST;

/* A channel without a schema (schema id 0, which MCAP allows): named in
 * topics, an error that says it has no schema, not that its type is "". */
GST_START_TEST (test_no_schema_n)
{
  gchar *path = sample_path ("no-schema.mcap"), *err;
  McapBuilder *b = mb_new ();
  guint8 *data;
  gsize size;
  GRand *rand = test_rand_new ();

  mb_channel (b, 1, 0, "/no-schema", "cdr");
  for (guint i = 0; i < 3; i++) {
    guint8 *payload = g_malloc (16);

    for (guint k = 0; k < 16; k++)
      payload[k] = g_rand_int_range (rand, 1, 256);
    mb_message_take (b, 1, 1000 + i, payload, 16);
  }
  data = mb_finish (b, TRUE, &size);
  g_rand_free (rand);
  fail_unless (g_file_set_contents (path, (const gchar *) data, size, NULL));
  err = play_error (path, "topics=/no-schema", 1);
  fail_unless (strstr (err, "topic /no-schema has no schema") != NULL, "%s",
      err);
  g_free (err);
  g_free (data);
  mb_free (b);
  g_free (path);
}

GST_END_TEST;

/* A rosbag2 folder: metadata.yaml beside one .mcap plays as the file; a
 * folder of .mcap and .bag files, or of none, is refused, saying so, and
 * so is a .db3 that is not rosbag2's, saying why. */
GST_START_TEST (test_folder)
{
  gchar *dir = sample_path ("run"), *data, *err, *dst;
  gsize size;

  g_mkdir (dir, 0755);
  data = sample_bytes ("zstd.mcap", &size);
  dst = g_build_filename (dir, "run_0.mcap", NULL);
  fail_unless (g_file_set_contents (dst, data, size, NULL));
  g_free (dst);
  dst = g_build_filename (dir, "metadata.yaml", NULL);
  fail_unless (g_file_set_contents (dst, "rosbag2_bagfile_information:\n",
          -1, NULL));
  g_free (dst);
  fail_unless_equals_int (played (dir, "topics=/points"), 20);

  /* An empty split (the recorder died right after opening it) is left
   * out, with a warning; a folder named like a recording is passed over
   * (were: the whole folder refused, not a ROS bag, MCAP or ...; an mmap
   * error). */
  dst = g_build_filename (dir, "run_1.mcap", NULL);
  fail_unless (g_file_set_contents (dst, "", 0, NULL));
  g_free (dst);
  dst = g_build_filename (dir, "old.mcap", NULL);
  g_mkdir (dst, 0755);
  {
    GstElement *p = mcap_pipeline (dir, "topics=/points", 1);
    gchar *warnings = NULL;
    GPtrArray **out = play (p, 1, &warnings, NULL, NULL);

    fail_unless_equals_int (out[0]->len, 20);
    fail_unless (warnings && strstr (warnings, "run_1.mcap is empty"), "%s",
        warnings);
    free_out (out, 1);
    gst_object_unref (p);
    g_free (warnings);
  }
  g_rmdir (dst);
  g_free (dst);
  dst = g_build_filename (dir, "run_1.mcap", NULL);
  g_unlink (dst);
  g_free (dst);

  dst = g_build_filename (dir, "run_1.bag", NULL);
  fail_unless (g_file_set_contents (dst, data, size, NULL));
  err = play_error (dir, "topics=/points", 1);
  fail_unless (strstr (err, "both .mcap and .bag files") != NULL, "%s", err);
  g_free (err);
  g_unlink (dst);
  g_free (dst);
  g_free (dir);

  dir = sample_path ("empty");
  g_mkdir (dir, 0755);
  err = play_error (dir, "topics=/points", 1);
  fail_unless (strstr (err, "no recording files") != NULL, "%s", err);
  g_free (err);
  g_free (dir);

  /* A .db3 that is not an SQLite database is named, and what is read. */
  dir = sample_path ("sqlite");
  g_mkdir (dir, 0755);
  dst = g_build_filename (dir, "run_0.db3", NULL);
  fail_unless (g_file_set_contents (dst, "SQLite format 3\0\x10\0\x01",
          20, NULL));
  g_free (dst);
  err = play_error (dir, "topics=/points", 1);
  fail_unless (strstr (err, "run_0.db3") && strstr (err, "SQLite"), "%s",
      err);
  g_free (err);

  /* A folder of one recording in two storages (converted in place) is
   * refused: which files would be the recording is not known. */
  g_free (dir);
  g_free (data);
  dir = sample_path ("two-storages");
  g_mkdir (dir, 0755);
  copy_sample ("zstd.mcap", dir, "run_0.mcap", 0);
  copy_sample ("humble.db3", dir, "run_0.db3", 0);
  err = play_error (dir, "topics=/points", 1);
  fail_unless (strstr (err, ".mcap and .db3"), "%s", err);
  g_free (err);
  g_free (dir);
}

GST_END_TEST;

/* rosbag2's --compression-mode file: a file compressed whole (one zstd
 * frame) plays as the file inside, every message checked (was: refused,
 * "zstd -d" it first).  A folder cut off while rosbag2 compressed its
 * splits one by one plays whole, a split compressed beside its
 * uncompressed self left out with a warning (unless that is empty); a
 * compressed split cut off is an error naming it. */
GST_START_TEST (test_compressed_whole)
{
  gchar *dir = sample_path ("half-compressed"), *err, *warnings = NULL;
  gchar *humble = sample_path ("humble.db3"), *text, *path;
  guint n = played (humble, "topics=/points");
  GstElement *p;
  GPtrArray **out;
  gsize size;

  text = sample_bytes ("zstd.mcap.expected.jsonl", &size);
  path = sample_path ("whole.mcap.zstd.expected.jsonl");
  fail_unless (g_file_set_contents (path, text, size, NULL));
  copy_sample ("zstd.mcap", sample_dir, "whole.mcap.zstd", 0);
  play_and_check ("whole.mcap.zstd", FALSE);
  g_free (path);
  g_free (text);

  g_mkdir (dir, 0755);
  copy_sample ("humble.db3", dir, "rec_0.db3.zstd", 0);
  copy_sample ("humble.db3", dir, "rec_1.db3", 0);
  copy_sample ("humble.db3", dir, "rec_1.db3.zstd", 1000);
  /* An empty twin (the recorder died right after opening it) is no twin:
   * the compressed file plays. */
  copy_sample ("humble.db3", dir, "rec_2.db3.zstd", 0);
  path = g_build_filename (dir, "rec_2.db3", NULL);
  fail_unless (g_file_set_contents (path, "", 0, NULL));
  g_free (path);
  p = mcap_pipeline (dir, "topics=/points", 1);
  out = play (p, 1, &warnings, NULL, NULL);
  fail_unless (n > 0);
  fail_unless_equals_int (out[0]->len, 3 * n);
  fail_unless (warnings && strstr (warnings, "rec_1.db3.zstd is left out: "
          "rec_1.db3 beside it"), "%s", GST_STR_NULL (warnings));
  free_out (out, 1);
  gst_object_unref (p);

  path = g_build_filename (dir, "rec_1.db3", NULL);
  g_unlink (path);
  err = play_error (dir, "topics=/points", 1);
  fail_unless (strstr (err, "rec_1.db3.zstd: damaged or cut-off zstd"),
      "%s", err);
  g_free (err);
  g_free (path);
  g_free (warnings);
  g_free (humble);
  g_free (dir);
}

GST_END_TEST;

/* A rosbag2 folder is the files its metadata.yaml lists: a backup copy
 * beside them is left out with a warning (was: merged into the
 * timeline, every message twice); paths naming the folder first (ROS 2
 * Foxy) are found; a listed file missing is an error naming it. */
GST_START_TEST (test_metadata_list)
{
  gchar *dir = sample_path ("listed"), *yaml, *err;
  gchar *humble = sample_path ("humble.db3");
  GstElement *p;
  GPtrArray **out;
  gchar *warnings = NULL;

  g_mkdir (dir, 0755);
  for (guint k = 0; k < 3; k++) {
    gchar *name = g_strdup_printf ("split-db3_%u.db3", k);
    gchar *from = g_strdup_printf ("split-db3/%s", name);

    copy_sample (from, dir, name, 0);
    g_free (from);
    g_free (name);
  }
  copy_sample ("humble.db3", dir, "backup.db3", 0);
  yaml = g_build_filename (dir, "metadata.yaml", NULL);
  fail_unless (g_file_set_contents (yaml, "rosbag2_bagfile_information:\n"
          "  version: 5\n  storage_identifier: sqlite3\n"
          "  relative_file_paths:\n    - listed/split-db3_0.db3\n"
          "    - split-db3_1.db3\n    - split-db3_2.db3\n", -1, NULL));
  p = mcap_pipeline (dir, "topics=/points", 1);
  out = play (p, 1, &warnings, NULL, NULL);
  fail_unless_equals_int (out[0]->len, played (humble, "topics=/points"));
  fail_unless (warnings && strstr (warnings, "backup.db3 is not among the "
          "files metadata.yaml lists"), "%s", GST_STR_NULL (warnings));
  free_out (out, 1);
  gst_object_unref (p);
  g_free (warnings);

  fail_unless (g_file_set_contents (yaml, "rosbag2_bagfile_information:\n"
          "  relative_file_paths:\n  - split-db3_0.db3\n  - gone.db3\n",
          -1, NULL));
  err = play_error (dir, "topics=/points", 1);
  fail_unless (strstr (err, "lists gone.db3, which is not there"), "%s", err);
  g_free (err);
  g_free (yaml);
  g_free (humble);
  g_free (dir);
}

GST_END_TEST;

/* A file metadata.yaml lists is found in its other form: compressed
 * whole since, or decompressed by hand (zstd -d --rm; was: "lists ...,
 * which is not there").  A copy decompressed beside the compressed file
 * it lists is left out without a warning. */
GST_START_TEST (test_metadata_list_other_form)
{
  gchar *dir = sample_path ("relisted"), *yaml;
  gchar *humble = sample_path ("humble.db3");
  const struct
  {
    guint part;
    const gchar *name;
  } stored[] = {
    {0, "split-db3_0.db3.zstd"}, {1, "split-db3_1.db3"},
    {2, "split-db3_2.db3.zstd"}, {2, "split-db3_2.db3"}
  };
  GstElement *p;
  GPtrArray **out;
  gchar *warnings = NULL;

  g_mkdir (dir, 0755);
  for (guint k = 0; k < G_N_ELEMENTS (stored); k++) {
    gchar *from = g_strdup_printf ("split-db3/split-db3_%u.db3",
        stored[k].part);

    copy_sample (from, dir, stored[k].name, 0);
    g_free (from);
  }
  yaml = g_build_filename (dir, "metadata.yaml", NULL);
  fail_unless (g_file_set_contents (yaml, "rosbag2_bagfile_information:\n"
          "  relative_file_paths:\n  - split-db3_0.db3\n"
          "  - split-db3_1.db3.zstd\n  - split-db3_2.db3.zstd\n", -1,
          NULL));
  p = mcap_pipeline (dir, "topics=/points", 1);
  out = play (p, 1, &warnings, NULL, NULL);
  fail_unless_equals_int (out[0]->len, played (humble, "topics=/points"));
  fail_unless (warnings == NULL, "%s", warnings);
  free_out (out, 1);
  gst_object_unref (p);
  g_free (yaml);
  g_free (humble);
  g_free (dir);
}

GST_END_TEST;

static gboolean frames_shared (GPtrArray ** out, guint n_pads,
    gboolean * any_copied);

/* A recording that rosbag2 split into three files of uncompressed chunks
 * (split/, written by @mcap/core): played from its folder as one, every
 * message as in zstd.mcap, and every cloud and frame shared from its own
 * file's mapping, as one file's are. */
GST_START_TEST (test_split)
{
  gchar *path = sample_path ("split");
  GstElement *p = mcap_pipeline (path, "topics=" PLAIN_TOPICS, 4);
  GPtrArray **out = play (p, 4, NULL, NULL, NULL);
  gboolean copied;

  fail_unless (frames_shared (out, 4, &copied));
  free_out (out, 4);
  gst_object_unref (p);
  g_free (path);
  play_and_check ("split", FALSE);
}

GST_END_TEST;

/* A flushing seek to 1 s: the first buffer of each pad is the first
 * message stamped at or after it. */
GST_START_TEST (test_seek)
{
  gchar *path = sample_path ("small-chunks.mcap");
  GstElement *p = mcap_pipeline (path, "topics=/points,/joint_states", 2);
  GstElement *sink;
  GstSample *sample;
  GPtrArray *all = expected_messages ("small-chunks.mcap",
      "/points,/joint_states", NULL);
  guint64 base = json_u64 (g_ptr_array_index (all, 0), "stamp");
  guint64 want = G_MAXUINT64;

  for (guint k = 0; k < all->len; k++) {
    guint64 t = json_u64 (g_ptr_array_index (all, k), "stamp") - base;
    if (t >= GST_SECOND)
      want = MIN (want, t);
  }
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (p, NULL, NULL,
          10 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH, GST_SECOND));
  gst_element_set_state (p, GST_STATE_PLAYING);
  sink = gst_bin_get_by_name (GST_BIN (p), "s1");
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  fail_unless (sample != NULL);
  fail_unless (GST_BUFFER_PTS (gst_sample_get_buffer (sample)) >= GST_SECOND);
  fail_unless (GST_BUFFER_PTS (gst_sample_get_buffer (sample)) < GST_SECOND +
      20 * GST_MSECOND);
  gst_sample_unref (sample);
  gst_object_unref (sink);
  fail_unless (want < GST_SECOND + 20 * GST_MSECOND);
  gst_element_set_state (p, GST_STATE_NULL);
  g_ptr_array_unref (all);
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

/* What plays is settled at start: check-crc (the MCAP source's own),
 * topics and loop set while playing are refused with a warning, and the
 * file plays on as it began, its 20 sweeps to EOS; stopped, the element
 * takes them. */
GST_START_TEST (test_properties_refused_while_playing)
{
  gchar *path = sample_path ("zstd.mcap");
  GstElement *p = mcap_pipeline (path, "topics=/points", 1);
  GstElement *m = by_name (p, "m");
  GstAppSink *sink = GST_APP_SINK (by_name (p, "s0"));
  GstSample *sample;
  guint n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (sink, 10 * GST_SECOND);
  fail_unless (sample != NULL);
  gst_sample_unref (sample);
  check_set_refused (G_OBJECT (m), "check-crc", "false");
  check_set_refused (G_OBJECT (m), "topics", "/joint_states");
  check_set_refused (G_OBJECT (m), "loop", "true");
  while ((sample = gst_app_sink_try_pull_sample (sink, 10 * GST_SECOND))) {
    gst_sample_unref (sample);
    n++;
  }
  fail_unless (gst_app_sink_is_eos (sink));
  fail_unless_equals_int (n + 1, 20);
  gst_element_set_state (p, GST_STATE_NULL);
  check_set_taken (G_OBJECT (m), "check-crc", "false");
  check_set_taken (G_OBJECT (m), "loop", "true");
  gst_object_unref (p);
  g_free (path);
}

GST_END_TEST;

/* The sweeps of a recording voxelized on @backend, as one checksum. */
static gchar *
voxelized_checksum (const gchar * file, const gchar * backend)
{
  gchar *path = sample_path (file);
  gchar *desc = g_strdup_printf ("robocachemcapsrc location=\"%s\" "
      "topics=/points ! robocachevoxelize backend=%s voxel-size=<0.5,0.5,0.5> "
      "dims=<64,64,16> origin=<-16.0,-16.0,-4.0> mode=count ! appsink name=s0 "
      "sync=false", path, backend);
  GstElement *p = gst_parse_launch (desc, NULL);
  GPtrArray **out = play (p, 1, NULL, NULL, NULL);
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  gchar *hex;

  fail_unless_equals_int (out[0]->len, 20);
  for (guint i = 0; i < out[0]->len; i++) {
    GstBuffer *buf = gst_sample_get_buffer (g_ptr_array_index (out[0], i));
    GstMapInfo map;
    guint64 pts = GST_BUFFER_PTS (buf);

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_checksum_update (sum, (const guchar *) &pts, sizeof (pts));
    g_checksum_update (sum, map.data, map.size);
    gst_buffer_unmap (buf, &map);
  }
  hex = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  free_out (out, 1);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
  return hex;
}

/* Replaying twice gives the same grids, byte for byte. */
GST_START_TEST (test_replay_deterministic)
{
  gchar *a = voxelized_checksum ("zstd.mcap", "cpu");
  gchar *b = voxelized_checksum ("zstd.mcap", "cpu");

  fail_unless_equals_string (a, b);
  g_free (a);
  g_free (b);
}

GST_END_TEST;

/* Whether every cloud and frame of @out shares one memory with the file
 * (a sub-memory, read-only) rather than being a copy. */
static gboolean
frames_shared (GPtrArray ** out, guint n_pads, gboolean * any_copied)
{
  gboolean all = TRUE;

  *any_copied = FALSE;
  for (guint i = 0; i < n_pads; i++) {
    for (guint k = 0; k < out[i]->len; k++) {
      GstSample *sample = g_ptr_array_index (out[i], k);
      GstBuffer *buf = gst_sample_get_buffer (sample);
      const GstStructure *st =
          gst_caps_get_structure (gst_sample_get_caps (sample), 0);
      GstMemory *mem;
      gboolean shared;

      if (gst_structure_has_name (st, GST_ROBOCACHE_VECTORS_MEDIA_TYPE))
        continue;
      mem = gst_buffer_peek_memory (buf, 0);
      shared = gst_buffer_n_memory (buf) == 1 && mem->parent != NULL &&
          GST_MEMORY_IS_READONLY (mem);
      all = all && shared;
      *any_copied = *any_copied || !shared;
    }
  }
  return all;
}

/* Answers downstream's allocation query with an alignment (64 bytes). */
static GstPadProbeReturn
ask_alignment (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstAllocationParams params;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_allocation_params_init (&params);
  params.align = 63;
  gst_query_add_allocation_param (query, NULL, &params);
  return GST_PAD_PROBE_HANDLED;
}

static gchar *
file_sha256 (const gchar * path)
{
  gchar *data, *sum;
  gsize size;

  fail_unless (g_file_get_contents (path, &data, &size, NULL));
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guint8 *) data, size);
  g_free (data);
  return sum;
}

/* Clouds and frames of uncompressed chunks are the file's own bytes, not
 * copies (test_layouts checks those bytes against the writer's); written
 * by a consumer (a torch tensor changed in place does so through a read
 * mapping), the pages are copied and the file is unchanged.  Compressed
 * chunks, and a downstream that asks for aligned memory, get copies. */
GST_START_TEST (test_uncompressed_shared)
{
  gchar *path = sample_path ("uncompressed.mcap");
  gchar *zstd = sample_path ("zstd.mcap");
  gchar *before = file_sha256 (path), *after;
  GstElement *p = mcap_pipeline (path, "topics=" PLAIN_TOPICS, 4);
  GPtrArray **out = play (p, 4, NULL, NULL, NULL);
  gboolean copied;
  GstElement *sink;
  GstPad *pad;
  gchar *desc;
  guint copies;

  fail_unless (frames_shared (out, 4, &copied));
  for (guint i = 0; i < 4; i++) {
    for (guint k = 0; k < out[i]->len; k++) {
      GstBuffer *buf = gst_sample_get_buffer (g_ptr_array_index (out[i], k));
      GstMapInfo map;

      fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
      if (map.size > 0)
        map.data[map.size / 2] ^= 0x5a;
      gst_buffer_unmap (buf, &map);
    }
  }
  free_out (out, 4);
  gst_object_unref (p);
  after = file_sha256 (path);
  fail_unless_equals_string (after, before);

  p = mcap_pipeline (zstd, "topics=" PLAIN_TOPICS, 4);
  out = play (p, 4, NULL, NULL, NULL);
  frames_shared (out, 4, &copied);
  fail_unless (copied);
  free_out (out, 4);
  gst_object_unref (p);

  /* The probe answers at the queue's sink pad, the source's peer. */
  desc = g_strdup_printf ("robocachemcapsrc name=m location=\"%s\" "
      "topics=/points m.src_0 ! queue name=q ! appsink name=s0 sync=false",
      path);
  p = gst_parse_launch (desc, NULL);
  fail_unless (p != NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "q");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, ask_alignment,
      NULL, NULL);
  out = play (p, 1, NULL, NULL, NULL);
  fail_unless (out[0]->len > 1);
  /* The first buffer comes before the query; the rest are aligned: the
   * file's bytes where they happen to be (one in 64), else copies. */
  copies = 0;
  for (guint k = 1; k < out[0]->len; k++) {
    GstBuffer *buf = gst_sample_get_buffer (g_ptr_array_index (out[0], k));
    GstMapInfo map;

    copies += gst_buffer_peek_memory (buf, 0)->parent == NULL;
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless (((guintptr) map.data & 63) == 0);
    gst_buffer_unmap (buf, &map);
  }
  fail_unless (copies > 0);
  free_out (out, 1);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  g_free (before);
  g_free (after);
  g_free (zstd);
  g_free (path);
}

GST_END_TEST;

static Suite *
mcapsrc_suite (void)
{
  Suite *s = suite_create ("robocachemcapsrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_zstd);
  tcase_add_test (tc, test_sqlite);
  tcase_add_test (tc, test_metadata_list);
  tcase_add_test (tc, test_metadata_list_other_form);
  tcase_add_test (tc, test_lz4);
  tcase_add_test (tc, test_layouts);
  tcase_add_test (tc, test_uncompressed_shared);
  tcase_add_test (tc, test_log_time);
  tcase_add_test (tc, test_default_topics);
  tcase_add_test (tc, test_recovered_mid_chunk);
  tcase_add_test (tc, test_recovered_no_summary);
  tcase_add_test (tc, test_crc_mismatch_n);
  tcase_add_test (tc, test_bad_schema_n);
  tcase_add_test (tc, test_no_schema_n);
  tcase_add_test (tc, test_folder);
  tcase_add_test (tc, test_compressed_whole);
  tcase_add_test (tc, test_split);
  tcase_add_test (tc, test_seek);
  tcase_add_test (tc, test_properties_refused_while_playing);
  tcase_add_test (tc, test_replay_deterministic);
  return s;
}

int
main (int argc, char **argv)
{
  int ret;

  write_samples ();
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (mcapsrc_suite (), "robocachemcapsrc", __FILE__);
  test_remove_tree (sample_dir);
  g_free (sample_dir);
  return ret;
}
