/* robocacheresample's negotiation: the caps across the element, and the
 * stream set up from input caps and properties (output caps chosen with
 * downstream, kernel parameters, what is kept per stream). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrobocacheresampleprivate.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_robocache_resample_debug

/* The caps on the other side of @caps: any layout and batch (the element
 * converts between them), in either memory; CUDA out only while the
 * element may compute on the GPU. */
GstCaps *
resample_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  gboolean to_src = direction == GST_PAD_SINK;
  GstCaps *templ = gst_pad_get_pad_template_caps (to_src ?
      GST_BASE_TRANSFORM_SRC_PAD (trans) : GST_BASE_TRANSFORM_SINK_PAD (trans));
  GstCaps *ret;

  if (gst_caps_is_any (caps)) {
    ret = templ;
  } else {
    GstCaps *tmp = gst_caps_new_empty ();
    gboolean cuda = !to_src || gst_robocache_base_transform_may_offer_cuda
        (GST_ROBOCACHE_BASE_TRANSFORM (trans));

    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));

      gst_structure_remove_fields (s, "layout", "batch", NULL);
      if (cuda)
        tmp = gst_caps_merge_structure_full (tmp, gst_structure_copy (s),
            gst_caps_features_new (GST_ROBOCACHE_CAPS_FEATURE_CUDA, NULL));
      tmp = gst_caps_merge_structure (tmp, s);
    }
    ret = gst_caps_intersect_full (tmp, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (tmp);
    gst_caps_unref (templ);
  }
  return gst_robocache_caps_filter (ret, filter);
}

/* Resolves the channel groups: the caps' own, else the properties'. */
static gboolean
resolve_groups (GstRobocacheResample * self, GstRobocacheVectorsInfo * info,
    const gchar * quaternions, const gchar * angles)
{
  GError *error = NULL;

  if (!info->has_quaternions &&
      !gst_robocache_vectors_parse_quaternions (quaternions, info->channels,
          &info->n_quaternions, info->quaternion_first, &error))
    goto bad;
  if (!info->has_angles &&
      !gst_robocache_vectors_parse_angles (angles, info->channels,
          &info->n_angle_ranges, info->angle_ranges, &error))
    goto bad;
  for (guint a = 0; a < info->n_angle_ranges; a++) {
    for (guint q = 0; q < info->n_quaternions; q++) {
      guint32 first = info->angle_ranges[a].first;
      guint32 count = info->angle_ranges[a].count;
      guint32 qf = info->quaternion_first[q];

      if (first < qf + 4 && qf < first + count) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("angle channels %u-%u overlap the quaternion at channels %u-%u; "
                "a channel is at most one of angle or quaternion", first,
                first + count - 1, qf, qf + 3), (NULL));
        return FALSE;
      }
    }
  }
  return TRUE;

bad:
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message), (NULL));
  g_clear_error (&error);
  return FALSE;
}

/* Parses @caps into @in with the settings as they are now (copied into
 * @s, without the group strings); FALSE when refused (error posted). */
static gboolean
parse_input (GstRobocacheResample * self, GstCaps * caps,
    GstRobocacheVectorsInfo * in, Settings * s)
{
  GError *error = NULL;
  gchar *problem;
  gboolean ok;

  if (!gst_robocache_vectors_caps_parse (caps, in, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("%s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  *s = self->settings;
  s->quaternions = g_strdup (s->quaternions);
  s->angles = g_strdup (s->angles);
  GST_OBJECT_UNLOCK (self);
  ok = resolve_groups (self, in, s->quaternions, s->angles);
  g_clear_pointer (&s->quaternions, g_free);
  g_clear_pointer (&s->angles, g_free);
  if (ok && (problem = gst_robocache_rate_problem (s->rate_n, s->rate_d))) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("%s", problem), (NULL));
    g_free (problem);
    ok = FALSE;
  }
  return ok;
}

/* The kernel parameters of @in; FALSE when the kernels refuse its channel
 * groups (error posted). */
static gboolean
set_kernel_params (GstRobocacheResample * self, GstCaps * caps,
    const GstRobocacheVectorsInfo * in, rc_interp_method method)
{
  rc_resample_params *p = &self->state.params;

  memset (p, 0, sizeof (*p));
  p->batch = 1;
  p->n_source = 1;
  p->n_target = 1;
  p->channels = in->channels;
  p->type = in->type;
  p->method = method;
  p->edge = RC_EDGE_HOLD;
  p->n_quaternions = in->n_quaternions;
  memcpy (p->quaternion_first, in->quaternion_first,
      sizeof (in->quaternion_first));
  p->n_angle_ranges = in->n_angle_ranges;
  memcpy (p->angle_ranges, in->angle_ranges, sizeof (in->angle_ranges));
  if (rc_resample_check (p) != RC_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("the channel groups of caps %" GST_PTR_FORMAT " are not accepted "
            "together: accepted are at most %d quaternion groups of 4 "
            "channels and %d angle ranges, each inside the %u channels and "
            "none overlapping another", caps, RC_RESAMPLE_MAX_GROUPS,
            RC_RESAMPLE_MAX_GROUPS, in->channels), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* The output caps for input @caps: CUDA memory first when computing on
 * the GPU, else system memory, whichever downstream takes; NULL when it
 * takes neither (error posted). */
static GstCaps *
choose_output_caps (GstRobocacheResample * self, GstCaps * caps)
{
  State *st = &self->state;
  const gchar *names =
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "names");
  GstCaps *candidates = gst_caps_new_empty ();
  GstCaps *peer;

  if (st->gpu->use_gpu)
    gst_caps_append (candidates,
        gst_robocache_vectors_caps_new (&st->out_info, names, TRUE));
  gst_caps_append (candidates,
      gst_robocache_vectors_caps_new (&st->out_info, names, FALSE));
  peer = gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (self),
      candidates);
  if (gst_caps_is_empty (peer)) {
    GstCaps *accepted =
        gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (self), NULL);

    gst_caps_unref (peer);
    /* Worded as the other filters' refusal (gstrobocachebasetransform.c). */
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("downstream takes nothing %s makes: of %" GST_PTR_FORMAT " it makes "
            "%" GST_PTR_FORMAT " (by its properties), and downstream takes %"
            GST_PTR_FORMAT, GST_ELEMENT_NAME (self), caps, candidates,
            accepted), (NULL));
    gst_caps_unref (accepted);
    gst_caps_unref (candidates);
    return NULL;
  }
  gst_caps_unref (candidates);
  return gst_caps_fixate (peer);
}

/* What the stream of @in with settings @s makes the element keep (the
 * history, the last sample of every trajectory of an input chunk, the
 * output chunk being filled and those in flight), checked against the
 * memory limit before it is allocated; FALSE when above (error posted). */
static gboolean
check_kept_sizes (GstRobocacheResample * self,
    const GstRobocacheVectorsInfo * in, const Settings * s)
{
  guint64 ss = gst_robocache_vectors_sample_size (in);
  guint64 row = sizeof (gint64) + ss;
  guint64 bytes = RESAMPLE_MAX_HISTORY * ss;
  gchar *what;
  gboolean ok;

  if (in->layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK)
    bytes += gst_robocache_memory_mul (in->batch, row);
  if (s->samples_per_buffer > 1)
    bytes = MIN (G_MAXUINT64 / 2, bytes) + gst_robocache_memory_mul
        (gst_robocache_memory_mul (s->samples_per_buffer, row),
        1 + GST_ROBOCACHE_BUFFERS_IN_FLIGHT);
  what = g_strdup_printf ("batch %u, samples-per-buffer %u of %u-channel "
      "vectors (8 + channels x value size bytes a sample)", in->batch,
      s->samples_per_buffer, in->channels);
  ok = gst_robocache_gpu_check_memory (self->state.gpu, GST_ELEMENT (self),
      GST_ROBOCACHE_MEMORY_HOST, bytes, what,
      "the batch (caps), samples-per-buffer or the channels");
  g_free (what);
  return ok;
}

void
resample_free_buffers (State * st)
{
  g_clear_pointer (&st->hist_v, g_free);
  g_clear_pointer (&st->chunk_t, g_free);
  g_clear_pointer (&st->chunk_v, g_free);
  g_clear_pointer (&st->prev_t, g_free);
  g_clear_pointer (&st->prev_v, g_free);
  g_clear_pointer (&st->keep_t, g_free);
  g_clear_pointer (&st->keep_v, g_free);
  st->prev_t_size = st->prev_v_size = 0;
  st->keep_t_size = st->keep_v_size = 0;
  g_clear_pointer (&st->scratch, g_free);
  st->scratch_size = 0;
  g_clear_pointer (&st->src_scratch, g_free);
  st->src_scratch_size = 0;
  g_clear_pointer (&st->trim_scratch, g_free);
  st->trim_scratch_size = 0;
  if (st->out_pool)
    gst_buffer_pool_set_active (st->out_pool, FALSE);
  gst_clear_object (&st->out_pool);
  st->out_pool_size = 0;
}

/* The history, the previous chunk's last samples and the chunk being
 * filled, sized for the negotiated stream (bounded by check_kept_sizes);
 * FALSE when memory runs out (error posted). */
static gboolean
allocate_buffers (GstRobocacheResample * self)
{
  State *st = &self->state;
  gsize ss = st->sample_size, n = st->in_info.batch;
  gboolean chunk_in = st->in_info.layout == GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK;

  resample_free_buffers (st);
  st->hist_v = g_try_malloc0 (RESAMPLE_MAX_HISTORY * ss);
  if (chunk_in) {
    st->prev_t = g_try_new0 (gint64, n);
    st->prev_v = g_try_malloc0 (n * ss);
    st->prev_t_size = n * sizeof (gint64);
    st->prev_v_size = n * ss;
  }
  if (st->samples_per_buffer > 1) {
    n = st->samples_per_buffer;
    st->chunk_t = g_try_new0 (gint64, n);
    st->chunk_v = g_try_malloc0 (n * ss);
  }
  if (st->hist_v && (!chunk_in || (st->prev_t && st->prev_v)) &&
      (st->samples_per_buffer == 1 || (st->chunk_t && st->chunk_v)))
    return TRUE;
  resample_free_buffers (st);
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("cannot allocate the samples kept for %" G_GSIZE_FORMAT " vectors "
          "of %" G_GSIZE_FORMAT " bytes", n, ss), (NULL));
  return FALSE;
}

/* Takes the settings read at negotiation for the stream of @in. */
static void
take_settings (State * st, const GstRobocacheVectorsInfo * in,
    const Settings * s)
{
  st->in_info = *in;
  st->out_info = *in;
  if (in->layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE &&
      s->samples_per_buffer > 1)
    st->out_info.layout = GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK;
  st->sample_size = gst_robocache_vectors_sample_size (in);
  st->rate_n = s->rate_n;
  st->rate_d = s->rate_d;
  st->max_gap = s->max_gap;
  st->time_origin = s->time_origin;
  st->samples_per_buffer =
      in->layout == GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE ?
      s->samples_per_buffer : 1;
  st->history_len = s->method == RC_INTERP_CUBIC ? 4 : 2;
}

/* The live path's whole device working set, once. */
static gboolean
ensure_live_device_scratch (GstRobocacheResample * self)
{
  gboolean ok;

  if (!self->state.gpu->use_gpu)
    return TRUE;
  if (!resample_push_context (self))
    return FALSE;
  ok = resample_ensure_device (self, 1, RESAMPLE_MAX_HISTORY,
      RESAMPLE_LIVE_MAX_TARGETS, TRUE, TRUE);
  gst_robocache_gpu_pop (self->state.gpu);
  return ok;
}

static gboolean
configure (GstRobocacheResample * self, GstCaps * caps)
{
  State *st = &self->state;
  GstRobocacheVectorsInfo in;
  Settings s;
  GstCaps *outcaps;
  gboolean ok;

  if (!parse_input (self, caps, &in, &s) || !check_kept_sizes (self, &in, &s))
    return FALSE;
  /* What the previous caps still owe goes out under them. */
  if (st->configured)
    resample_drain (self);
  st->configured = FALSE;
  take_settings (st, &in, &s);
  if (!set_kernel_params (self, caps, &in, s.method))
    return FALSE;
  outcaps = choose_output_caps (self, caps);
  if (!outcaps)
    return FALSE;
  st->out_cuda = gst_robocache_caps_is_cuda (outcaps);
  resample_reset_history (st);
  st->n_chunk = 0;

  ok = allocate_buffers (self) && ensure_live_device_scratch (self)
      && gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self),
      gst_event_new_caps (outcaps));
  GST_INFO_OBJECT (self, "%s, %d/%d Hz, %s, in %" GST_PTR_FORMAT
      " out %" GST_PTR_FORMAT, st->gpu->use_gpu ? "GPU" : "CPU", st->rate_n,
      st->rate_d, g_enum_get_value (g_type_class_peek
          (GST_TYPE_ROBOCACHE_RESAMPLE_METHOD), s.method)->value_nick, caps,
      outcaps);
  gst_caps_unref (outcaps);
  st->configured = ok;
  return ok;
}

/* Sticky caps come again before every event and buffer after a refusal:
 * the error is posted for the first time only. */
gboolean
resample_set_caps (GstRobocacheResample * self, GstCaps * caps)
{
  State *st = &self->state;

  if (st->refused_caps && gst_caps_is_equal (caps, st->refused_caps))
    return FALSE;
  gst_clear_caps (&st->refused_caps);
  if (configure (self, caps))
    return TRUE;
  st->configured = FALSE;
  st->refused_caps = gst_caps_ref (caps);
  return FALSE;
}
