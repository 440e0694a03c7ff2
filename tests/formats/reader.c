/* The reader interface (gst/formats/reader.h) over the bags of
 * tests/bag/make_bags.py: topics, message order, topic selection, seeking
 * and the error codes.  GLib only, like the reader. */
#define _GNU_SOURCE             /* memmem */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "formats/reader.h"

#define SKIP 77
#define N_MSGS 10
#define SEC G_GUINT64_CONSTANT (1000000000)
#define MSEC G_GUINT64_CONSTANT (1000000)

static gchar *bag_dir;

/* make_bags.py's record time of message @i of the topic on @line. */
static guint64
record_time (guint i, guint line)
{
  return 1000 * SEC + i * 100 * MSEC + 20 * MSEC + 5 * MSEC * line;
}

static gchar *
read_bag (const gchar * name, gsize * size)
{
  gchar *path = g_build_filename (bag_dir, name, NULL);
  gchar *data;

  g_assert_true (g_file_get_contents (path, &data, size, NULL));
  g_free (path);
  return data;
}

static RcReader *
open_bag (const gchar * name)
{
  gchar *path = g_build_filename (bag_dir, name, NULL);
  GError *error = NULL;
  RcReader *reader = rc_reader_open (path, &error);

  g_assert_no_error (error);
  g_free (path);
  return reader;
}

static guint
find_topic (RcReader * reader, const gchar * name)
{
  for (guint t = 0; t < rc_reader_n_topics (reader); t++) {
    if (!strcmp (rc_reader_get_topic (reader, t)->name, name))
      return t;
  }
  g_assert_not_reached ();
}

static void
test_topics (void)
{
  RcReader *reader = open_bag ("all-lz4.bag");
  const RcTopic *t;

  g_assert_cmpuint (rc_reader_n_topics (reader), ==, 6);
  t = rc_reader_get_topic (reader, find_topic (reader, "/joint_states"));
  g_assert_cmpstr (t->type, ==, "sensor_msgs/JointState");
  g_assert_cmpstr (t->encoding, ==, "ros1");
  g_assert_cmpuint (t->n_messages, ==, N_MSGS);
  g_assert_cmpuint (t->first_time, ==, record_time (0, 2));
  g_assert_cmpuint (t->last_time, ==, record_time (N_MSGS - 1, 2));
  rc_reader_free (reader);
}

/* Every message of every compression, in record-time order. */
static void
test_all_messages (void)
{
  const gchar *files[] = { "all-none.bag", "all-bz2.bag", "all-lz4.bag" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++) {
    RcReader *reader = open_bag (files[f]);
    GError *error = NULL;
    RcMessage msg;
    guint n = 0;

    while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
      const RcTopic *t = rc_reader_get_topic (reader, msg.topic);

      g_assert_cmpstr (msg.type, ==, t->type);
      g_assert_cmpuint (msg.index, ==, n);
      g_assert_cmpuint (msg.time, ==, record_time (n / 6, n % 6));
      g_assert_true (msg.size > 0);
      n++;
    }
    g_assert_no_error (error);
    g_assert_cmpuint (n, ==, 6 * N_MSGS);
    rc_reader_free (reader);
  }
}

/* One topic selected, then a seek to a message's exact record time. */
static void
test_select_and_seek (void)
{
  RcReader *reader = open_bag ("all-bz2.bag");
  guint joints = find_topic (reader, "/joint_states");
  GError *error = NULL;
  RcMessage msg;
  guint n = 0;

  for (guint t = 0; t < rc_reader_n_topics (reader); t++)
    rc_reader_select_topic (reader, t, t == joints);
  while (rc_reader_next (reader, &msg, &error) == RC_READER_OK) {
    g_assert_cmpuint (msg.topic, ==, joints);
    g_assert_cmpuint (msg.time, ==, record_time (n, 2));
    n++;
  }
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, N_MSGS);

  rc_reader_seek (reader, record_time (5, 2));
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_OK);
  g_assert_cmpuint (msg.time, ==, record_time (5, 2));
  rc_reader_seek (reader, record_time (N_MSGS, 0));
  g_assert_cmpint (rc_reader_next (reader, &msg, &error), ==, RC_READER_END);
  g_assert_no_error (error);
  rc_reader_free (reader);
}

static void
assert_open_fails (const gchar * data, gsize size, gint code,
    const gchar * text)
{
  GError *error = NULL;

  g_assert_null (rc_reader_open_data ((const guint8 *) data, size, &error));
  g_assert_nonnull (error);
  if (!strstr (error->message, text))
    g_error ("\"%s\" is not in \"%s\"", text, error->message);
  g_assert_error (error, RC_READER_ERROR, code);
  g_error_free (error);
}

static void
test_errors (void)
{
  GError *error = NULL;
  gsize size;
  gchar *data = read_bag ("all-lz4.bag", &size);
  gchar *at;

  g_assert_null (rc_reader_open ("/nonexistent/x.bag", &error));
  g_assert_error (error, RC_READER_ERROR, RC_READER_ERROR_IO);
  g_clear_error (&error);
  assert_open_fails ("hello world", 11, RC_READER_ERROR_UNKNOWN_FORMAT,
      "not a ROS bag");
  assert_open_fails (data, size / 2, RC_READER_ERROR_FORMAT, "byte");
  /* A chunk's decompressed size: 2 GiB. */
  at = memmem (data, size, "size=", 5);
  g_assert_nonnull (at);
  memcpy (at + 5, "\xff\xff\xff\x7f", 4);
  assert_open_fails (data, size, RC_READER_ERROR_TOO_LARGE, "above the limit");
  memcpy (data + 9, "1.2", 3);
  assert_open_fails (data, size, RC_READER_ERROR_UNSUPPORTED, "1.2");
  g_free (data);
}

/* The version line: what was found and what is accepted. */
static void
test_version_errors (void)
{
  assert_open_fails ("#ROSBAG V2.0", 12, RC_READER_ERROR_UNKNOWN_FORMAT,
      "not a ROS bag: the file is 12 bytes, too short for the version line "
      "\"#ROSBAG V2.0\\n\"");
  assert_open_fails ("#ROSBAG V1.2\nxxxxxxxx", 21,
      RC_READER_ERROR_UNSUPPORTED,
      "bag format version \"1.2\" is not supported (only 2.0 is");
  assert_open_fails ("#ROSBAG V\001\377\nxxxxxxxx", 20,
      RC_READER_ERROR_UNSUPPORTED, "version \"\\001\\377\" is not");
  assert_open_fails ("#ROSBAG V2.0 and no end of line", 31,
      RC_READER_ERROR_UNSUPPORTED, "version \"2.0 and no end o\"... is not");
}

/* The bag header's index_pos: inside the header, past the end, and too
 * close to the end for a record. */
static void
test_index_pos_errors (void)
{
  gsize size;
  gchar *data = read_bag ("all-none.bag", &size);
  gchar *at = memmem (data, size, "index_pos=", 10);
  gchar *text;
  guint64 pos;

  g_assert_nonnull (at);
  at += 10;
  pos = GUINT64_TO_LE (13);
  memcpy (at, &pos, 8);
  /* rosbag pads the bag header record to 4096 bytes of data. */
  assert_open_fails (data, size, RC_READER_ERROR_FORMAT, "index position 13 "
      "is inside the bag header record (bytes 13 to 4116); the index "
      "starts after it");
  pos = GUINT64_TO_LE (size + 1);
  memcpy (at, &pos, 8);
  text = g_strdup_printf ("index position %" G_GSIZE_FORMAT " is beyond the "
      "end of the file (%" G_GSIZE_FORMAT " bytes)", size + 1, size);
  assert_open_fails (data, size, RC_READER_ERROR_FORMAT, text);
  g_free (text);
  pos = GUINT64_TO_LE (size - 5);
  memcpy (at, &pos, 8);
  text = g_strdup_printf ("index position %" G_GSIZE_FORMAT " leaves 5 bytes "
      "of the file (%" G_GSIZE_FORMAT " bytes), less than the 8 a record "
      "needs", size - 5, size);
  assert_open_fails (data, size, RC_READER_ERROR_FORMAT, text);
  g_free (text);
  g_free (data);
}

/* A chunk's decompressed size is bounded by what its compressed bytes can
 * give before anything is allocated: lz4 expands at most 255 times. */
static void
test_chunk_size_errors (void)
{
  gsize size;
  gchar *data = read_bag ("all-lz4.bag", &size);
  gchar *at = memmem (data, size, "size=", 5);

  g_assert_nonnull (at);
  /* 100 MiB, below the 1 GiB limit. */
  memcpy (at + 5, "\x00\x00\x40\x06", 4);
  assert_open_fails (data, size, RC_READER_ERROR_FORMAT, "says 104857600 "
      "bytes decompressed, more than lz4 can make of its");
  g_free (data);
}

/* make_bags.py into a temporary folder; FALSE if python has no rosbag
 * (Debian's python3-rosbag is for /usr/bin/python3, whatever is first in
 * PATH). */
static gboolean
make_bags (void)
{
  const gchar *script = g_getenv ("ROBOCACHE_MAKE_BAGS");
  const gchar *python = g_file_test ("/usr/bin/python3",
      G_FILE_TEST_IS_EXECUTABLE) ? "/usr/bin/python3" : "python3";
  gchar *argv[] = { (gchar *) python, (gchar *) script, NULL, NULL };
  gint status;

  if (!script)
    return FALSE;
  bag_dir = g_dir_make_tmp ("robocache-reader-XXXXXX", NULL);
  argv[2] = bag_dir;
  return g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
      G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) &&
      g_spawn_check_wait_status (status, NULL);
}

static void
remove_bags (void)
{
  GDir *dir = g_dir_open (bag_dir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (bag_dir, name, NULL);

    g_unlink (path);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (bag_dir);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (!make_bags ()) {
    g_print ("SKIP: no ROBOCACHE_MAKE_BAGS or no python3 with rosbag\n");
    if (bag_dir)
      remove_bags ();
    return SKIP;
  }
  g_test_add_func ("/reader/topics", test_topics);
  g_test_add_func ("/reader/all-messages", test_all_messages);
  g_test_add_func ("/reader/select-and-seek", test_select_and_seek);
  g_test_add_func ("/reader/errors", test_errors);
  g_test_add_func ("/reader/version-errors", test_version_errors);
  g_test_add_func ("/reader/index-pos-errors", test_index_pos_errors);
  g_test_add_func ("/reader/chunk-size-errors", test_chunk_size_errors);
  ret = g_test_run ();
  remove_bags ();
  g_free (bag_dir);
  return ret;
}
