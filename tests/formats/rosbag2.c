/* rosbag2's metadata.yaml file list (gst/formats/rosbag2.h) as the
 * rosbag2 versions and hands that write it lay it out. */
#include <glib.h>
#include <glib/gstdio.h>

#include "formats/rosbag2.h"

static gchar *dir;

/* The list read from a metadata.yaml of @text, joined by "|", or NULL. */
static gchar *
files_of (const gchar * text)
{
  gchar *path = g_build_filename (dir, "metadata.yaml", NULL);
  gchar **files, *joined = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  files = rc_rosbag2_read_file_list (dir);
  if (files)
    joined = g_strjoinv ("|", files);
  g_strfreev (files);
  g_unlink (path);
  g_free (path);
  return joined;
}

static void
assert_files (const gchar * text, const gchar * want)
{
  gchar *got = files_of (text);

  g_assert_cmpstr (got, ==, want);
  g_free (got);
}

static void
test_file_list (void)
{
  /* As rosbag2 writes it (Humble on), after the storage id. */
  assert_files ("rosbag2_bagfile_information:\n  version: 5\n"
      "  storage_identifier: sqlite3\n  relative_file_paths:\n"
      "    - rec_0.db3\n    - rec_1.db3\n  duration:\n"
      "    nanoseconds: 5\n", "rec_0.db3|rec_1.db3");
  /* Items at the key's own indentation, quoted, a comment and a blank
   * line among them; Windows line ends. */
  assert_files ("rosbag2_bagfile_information:\r\n  relative_file_paths:\r\n"
      "  - \"a b_0.mcap\"\r\n\r\n  # split\r\n  - 'a b_1.mcap'\r\n"
      "  files: []\r\n", "a b_0.mcap|a b_1.mcap");
  /* A flow sequence. */
  assert_files ("rosbag2_bagfile_information:\n  relative_file_paths: "
      "[run_0.mcap, \"run_1.mcap\"]\n", "run_0.mcap|run_1.mcap");
  /* Foxy's paths name the folder first: kept as written here. */
  assert_files ("rosbag2_bagfile_information:\n  relative_file_paths:\n"
      "    - my_bag/my_bag_0.db3\n", "my_bag/my_bag_0.db3");
  /* No list (a recording cut off before rosbag2 wrote it, or an empty
   * one), no metadata.yaml: NULL, the caller looks for the files. */
  assert_files ("rosbag2_bagfile_information:\n  version: 5\n", NULL);
  assert_files ("rosbag2_bagfile_information:\n  relative_file_paths: []\n",
      NULL);
  g_assert_null (rc_rosbag2_read_file_list (dir));
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("robocache-rosbag2-XXXXXX", NULL);
  g_test_add_func ("/rosbag2/file-list", test_file_list);
  ret = g_test_run ();
  g_rmdir (dir);
  g_free (dir);
  return ret;
}
