/* A program of robocache's public API built with pkg-config alone: it
 * calls both libraries robocache-1.0 promises (librobocache-1.0 and, for
 * rc_array_free, librobocache-kernels-1.0), so that the link fails when
 * the .pc file leaves one out.  tests/examples/pkgconfig.sh builds and
 * runs it.
 *
 *   cc array.c $(pkg-config --cflags --libs robocache-1.0)
 */
#include <robocache.h>

int
main (int argc, char **argv)
{
  const gdouble positions[] = { 1.0, 2.0 };
  rc_dl_managed_tensor *array = NULL;
  GError *error = NULL;
  GstCaps *caps;
  GstBuffer *buffer;
  int ret = 1;

  gst_init (&argc, &argv);
  caps = robocache_joints_caps_new (2, NULL, TRUE, &error);
  g_assert_no_error (error);
  buffer = robocache_joints_buffer_new (positions, 2, TRUE, 0);
  if (robocache_buffer_to_array (buffer, caps, &array, &error)) {
    /* The array as robocache-kernels.h describes it, freed with the
     * kernels library's call. */
    if (array->dl_tensor.ndim == 2 && array->dl_tensor.shape[1] == 2)
      ret = 0;
    rc_array_free (array);
  } else {
    g_printerr ("%s\n", error->message);
    g_clear_error (&error);
  }
  gst_buffer_unref (buffer);
  gst_caps_unref (caps);
  return ret;
}
