/* Every robocache element through every state change, twice, as
 * GStreamer's generic states test does for its own plugins. */
#include <gst/check/gstcheck.h>

static const GstState cycle[] = {
  GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING, GST_STATE_PAUSED,
  GST_STATE_READY, GST_STATE_NULL, GST_STATE_PLAYING, GST_STATE_NULL
};

GST_START_TEST (test_state_changes)
{
  GstPlugin *plugin = gst_registry_find_plugin (gst_registry_get (),
      "robocache");
  GList *features, *l;
  guint n = 0;

  /* Elements that cannot start unconfigured (a source without a file),
   * as GStreamer's own states test takes them. */
  gchar **ignore = g_strsplit (g_getenv ("GST_STATE_IGNORE_ELEMENTS") ?
      g_getenv ("GST_STATE_IGNORE_ELEMENTS") : "", " ", -1);

  fail_unless (plugin != NULL, "the robocache plugin is not in the registry");
  features = gst_registry_get_feature_list_by_plugin (gst_registry_get (),
      "robocache");
  for (l = features; l; l = l->next) {
    GstElement *e;
    if (!GST_IS_ELEMENT_FACTORY (l->data) ||
        g_strv_contains ((const gchar * const *) ignore,
            GST_OBJECT_NAME (l->data)))
      continue;
    e = gst_element_factory_create (GST_ELEMENT_FACTORY (l->data), NULL);
    fail_unless (e != NULL, "cannot create %s",
        GST_OBJECT_NAME (l->data));
    GST_INFO ("cycling %s", GST_OBJECT_NAME (l->data));
    for (guint i = 0; i < G_N_ELEMENTS (cycle); i++) {
      GstStateChangeReturn ret = gst_element_set_state (e, cycle[i]);
      fail_if (ret == GST_STATE_CHANGE_FAILURE, "%s failed to go to %s",
          GST_OBJECT_NAME (l->data), gst_element_state_get_name (cycle[i]));
      gst_element_get_state (e, NULL, NULL, GST_CLOCK_TIME_NONE);
    }
    gst_object_unref (e);
    n++;
  }
  gst_plugin_feature_list_free (features);
  gst_object_unref (plugin);
  g_strfreev (ignore);
  fail_unless (n >= 3, "only %u robocache elements", n);
}

GST_END_TEST;

static Suite *
states_suite (void)
{
  Suite *s = suite_create ("states");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_state_changes);
  return s;
}

GST_CHECK_MAIN (states);
