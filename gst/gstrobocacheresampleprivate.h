/* robocacheresample's insides, shared by its files: the element and its
 * events (gstrobocacheresample.c), negotiation
 * (gstrobocacheresamplenegotiate.c), the grid and what goes out
 * (gstrobocacheresamplegrid.c), the kernel calls on host memory
 * (gstrobocacheresamplecompute.c), the live one-sample path
 * (gstrobocacheresamplelive.c) and the chunk path
 * (gstrobocacheresamplechunk.c, its steps on the GPU in
 * gstrobocacheresamplechunkgpu.c, gstrobocacheresamplechunk.h between
 * them). */
#ifndef __GST_ROBOCACHE_RESAMPLE_PRIVATE_H__
#define __GST_ROBOCACHE_RESAMPLE_PRIVATE_H__

#include "gstrobocacheresample.h"
#include "gstrobocachebasetransform.h"
#include "gstrobocachecaps.h"
#include "gstrobocachegpu.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_robocache_resample_debug);

/* Samples kept in the live path: cubic needs two on each side. */
#define RESAMPLE_MAX_HISTORY 4
/* Grid times per kernel call in the live path, so that the device scratch
 * allocated at negotiation is enough for good. */
#define RESAMPLE_LIVE_MAX_TARGETS 256

/* Property values, under the object lock. */
typedef struct
{
  gint rate_n;
  gint rate_d;
  rc_interp_method method;
  gchar *quaternions;
  gchar *angles;
  guint64 max_gap;
  GstRobocacheResampleTimeOrigin time_origin;
  guint samples_per_buffer;
} Settings;

/* Totals since start, under the object lock. */
typedef struct
{
  guint64 inputs;
  guint64 outputs;
  guint64 dropped_out_of_order;
  guint64 dropped_bad_size;
  guint64 dropped_off_grid;
  guint64 gaps;
  guint64 small_on_cpu;
} Totals;

/* Built in start and at negotiation, dropped in stop; streaming thread
 * only. */
typedef struct
{
  GstRobocacheGpu *gpu;         /* the base's; use_gpu fixed from start */
  gboolean backend_auto;        /* small calls may go to the CPU */

  gboolean configured;
  GstCaps *refused_caps;        /* reported once, not at every re-send */
  GstRobocacheVectorsInfo in_info;
  GstRobocacheVectorsInfo out_info;
  gsize sample_size;
  rc_resample_params params;    /* batch and sizes set per call */
  gboolean out_cuda;
  /* Settings as they were at negotiation. */
  gint rate_n;
  gint rate_d;
  GstClockTime max_gap;
  GstRobocacheResampleTimeOrigin time_origin;
  guint samples_per_buffer;

  /* The element's own, TIME from start on, so that buffers after a flush
   * without a new segment still have running times. */
  GstSegment segment;

  /* The grid, in running time. */
  gboolean aligned;
  GstClockTime origin;
  guint64 k_next;               /* first grid index not yet produced */

  /* The last samples (running times), oldest first. */
  guint history_len;
  guint n_hist;
  gint64 hist_t[RESAMPLE_MAX_HISTORY];
  guint8 *hist_v;
  gboolean have_last;
  GstClockTime last_t;

  /* The chunk being filled (layout sample in, samples-per-buffer > 1). */
  gint64 *chunk_t;
  guint8 *chunk_v;
  guint n_chunk;
  guint64 chunk_k;

  /* Layout chunk in: the samples of each trajectory that decide the grid
   * times not produced yet (buffer times), n_prev per trajectory, so that
   * the grid times between two chunks are interpolated too and a chunk's
   * outputs do not depend on where the recording was cut.  keep_t and
   * keep_v receive the next chunk's while these are still read; the two
   * are then swapped.  Grown with n_prev. */
  gboolean have_prev;
  gsize n_prev;
  gint64 *prev_t;
  guint8 *prev_v;
  gsize prev_t_size, prev_v_size;
  gint64 *keep_t;
  guint8 *keep_v;
  gsize keep_t_size, keep_v_size;
  /* After a chunk on the device, its last values stay there, and its
   * last times beside them (device_prev_v and device_prev_t at
   * prev_turn), not in prev_v. */
  gboolean prev_on_device;
  /* Chunks on the GPU behind an upstream that is not live: the last one's
   * output waits while its GPU work runs (the GPU helper's slot 0 fence
   * marks its end), its input mapped, and goes out once the next chunk's
   * upload is queued behind it or at a serialized event.  @defer is
   * decided at the first chunk after start or a flush. */
  gboolean defer_known;
  gboolean defer;
  GstBuffer *pending_in;
  GstMapInfo pending_map;
  GstBuffer *pending_out;
  guint64 pending_k_a, pending_k_b, pending_n;

  /* Host scratch, grown to the largest size seen. */
  guint8 *scratch;
  gsize scratch_size;
  guint8 *src_scratch;
  gsize src_scratch_size;
  guint8 *trim_scratch;         /* a chunk without its off-grid samples */
  gsize trim_scratch_size;

  /* Device scratch, grown to the largest size seen, freed by the base at
   * stop. */
  GstRobocacheScratch device_src_t;
  GstRobocacheScratch device_src_v;
  GstRobocacheScratch device_tgt;
  GstRobocacheScratch device_out;
  /* A chunk from system memory, uploaded whole on the GPU path. */
  GstRobocacheScratch device_chunk;
  /* The samples kept for the next chunk, in turn: one pair is read while
   * the other is written. */
  GstRobocacheScratch device_prev_t[2];
  GstRobocacheScratch device_prev_v[2];
  guint prev_turn;
  /* Outputs in CUDA memory come from this pool, of buffers of
   * out_pool_size bytes cut to each output's size; it grows with the
   * outputs. */
  GstBufferPool *out_pool;
  gsize out_pool_size;
  /* Page-locked: a CUDA chunk's timestamps, read back, and a flag a
   * trajectory, set where the GPU found its times out of order; a row of
   * grid times on its way up (copies from pageable memory would wait for
   * the chunk's upload). */
  GstRobocacheScratch host_times;
  GstRobocacheScratch host_disorder;
  GstRobocacheScratch host_tgt;

  gboolean discont;
  gboolean warned_order;
  gboolean warned_size;
  gboolean warned_off_grid;
} State;

struct _GstRobocacheResample
{
  GstRobocacheBaseTransform parent;

  Settings settings;
  Totals totals;
  State state;
};

/* Negotiation (gstrobocacheresamplenegotiate.c). */
GstCaps *resample_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
gboolean resample_set_caps (GstRobocacheResample * self, GstCaps * caps);
void resample_free_buffers (State * st);

/* The grid and what goes out (gstrobocacheresamplegrid.c). */
GstClockTime resample_grid_time (const State * st, guint64 k);
guint64 resample_grid_index_ge (const State * st, GstClockTime t);
guint64 resample_grid_index_gt (const State * st, GstClockTime t);
GstClockTime resample_to_pts (const State * st, GstClockTime rt);
void resample_grid_times (const State * st, guint64 k0, gsize n,
    gboolean to_pts, gint64 * out);
void resample_align_grid (State * st, GstClockTime t);
void resample_skip_gap (GstRobocacheResample * self, GstClockTime t);
void resample_reset_history (State * st);
void resample_reset_timing (State * st);
GstBuffer *resample_new_output (GstRobocacheResample * self, gsize size);
gboolean resample_fill_output (GstRobocacheResample * self, GstBuffer * buf,
    gsize offset, gconstpointer src, gsize size);
GstFlowReturn resample_push_output (GstRobocacheResample * self,
    GstBuffer * buf, guint64 k0, guint64 k_end, guint64 n_outputs);
void resample_count_inputs (GstRobocacheResample * self, guint64 n);
void resample_drop_bad_size (GstRobocacheResample * self, gsize size,
    const gchar * what);
void resample_drop_out_of_order (GstRobocacheResample * self, GstClockTime t);
void resample_drop_off_grid (GstRobocacheResample * self, guint64 n);

/* Kernel calls (gstrobocacheresamplecompute.c). */
gboolean resample_ensure_host (GstRobocacheResample * self, guint8 ** ptr,
    gsize * have, gsize size);
gboolean resample_ensure_device (GstRobocacheResample * self, guint batch,
    gsize n_source, gsize n_target, gboolean sources, gboolean outputs);
gboolean resample_push_context (GstRobocacheResample * self);
GstFlowReturn resample_gpu_failed (GstRobocacheResample * self, rc_status ret);
GstFlowReturn resample_compute (GstRobocacheResample * self, guint batch,
    guint n_source, guint n_target, const gint64 * src_t,
    const guint8 * src_v, const gint64 * tgt, guint8 * out);

/* The live one-sample path (gstrobocacheresamplelive.c). */
GstFlowReturn resample_process_sample (GstRobocacheResample * self,
    GstBuffer * buf);
GstFlowReturn resample_drain (GstRobocacheResample * self);

/* The chunk path (gstrobocacheresamplechunk.c). */
/* Pushes the chunk output waiting for its GPU work (drops it when not
 * @push: a flush, stop); GST_FLOW_OK when there is none. */
GstFlowReturn resample_finish_chunk (GstRobocacheResample * self,
    gboolean push);
GstFlowReturn resample_drain_chunk (GstRobocacheResample * self);
GstFlowReturn resample_process_chunk (GstRobocacheResample * self,
    GstBuffer * buf);

G_END_DECLS
#endif
