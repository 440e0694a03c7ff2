/* robocache embedding API: build robocache caps and buffers straight from
 * ROS message layouts (sensor_msgs/PointCloud2, JointState, Image), read
 * the outputs back (voxel grids, fused frames), and map ROS stamps to
 * pipeline running time.  Plain C over GStreamer types, no ROS types: a
 * ROS node (gst/ros/robocache_node.cpp) or any other application passes
 * the message fields.  Library librobocache-1.0, pkg-config robocache-1.0;
 * docs/ros.md describes it. */
#ifndef __ROBOCACHE_H__
#define __ROBOCACHE_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstrobocachecaps.h"
#include "gstrobocachefusedmeta.h"

G_BEGIN_DECLS

/* Errors of this API (domain ROBOCACHE_ERROR): input that may come from
 * outside (a message's fields, a stream's caps) fails with a GError where
 * a function takes one.  NULL where a pointer is required, and the
 * preconditions a buffer constructor names (what the caps function before
 * it checks with a GError, or the message's sizes it names), are
 * programming errors instead: reported as a critical
 * (g_return_val_if_fail), the call returning NULL, FALSE or 0 without
 * doing anything; pointers that may be NULL say so. */
#define ROBOCACHE_ERROR (robocache_error_quark ())
GQuark robocache_error_quark (void);

typedef enum
{
  ROBOCACHE_ERROR_INVALID,      /* a field, size or value out of range */
  ROBOCACHE_ERROR_UNSUPPORTED   /* a valid input this API does not handle */
} RobocacheError;

/* ---- sensor_msgs/PointCloud2 ---------------------------------------- */

/* PointField datatypes, as in sensor_msgs/PointField. */
typedef enum
{
  ROBOCACHE_POINT_INT8 = 1,
  ROBOCACHE_POINT_UINT8 = 2,
  ROBOCACHE_POINT_INT16 = 3,
  ROBOCACHE_POINT_UINT16 = 4,
  ROBOCACHE_POINT_INT32 = 5,
  ROBOCACHE_POINT_UINT32 = 6,
  ROBOCACHE_POINT_FLOAT32 = 7,
  ROBOCACHE_POINT_FLOAT64 = 8
} RobocachePointDatatype;

/* Points caps for a PointCloud2 layout: @n_fields parallel entries of
 * name, byte offset, datatype (1..8) and count (@counts may be NULL: all
 * 1; a count of n > 1 gives the fields name_0 .. name_<n-1>, 0 is taken
 * as 1).  x, y and z must be there as float32 or float64.  NULL and
 * @error set on an unknown datatype, a field outside @point_step, a name
 * holding ',' or ':', or missing x/y/z. */
GstCaps *robocache_points_caps_from_pointcloud2 (guint point_step,
    guint n_fields, const gchar * const *names, const guint * offsets,
    const guint8 * datatypes, const guint * counts, GError ** error);

/* A points buffer holding a copy of @size bytes of @data (PointCloud2
 * data with row_step == width * point_step), PTS @pts. */
GstBuffer *robocache_points_buffer_new (const guint8 * data, gsize size,
    GstClockTime pts);

/* The same for padded rows: copies @width * @point_step bytes of each of
 * @height rows @row_step apart, packed.  A @row_step below @width *
 * @point_step (a malformed message: check it first, as gst/ros's node
 * does) is a programming error (NULL, a critical). */
GstBuffer *robocache_points_buffer_new_rows (const guint8 * data,
    guint width, guint height, guint point_step, guint row_step,
    GstClockTime pts);

/* ---- sensor_msgs/JointState ------------------------------------------ */

/* Vectors caps (layout sample) for @n_joints joints called @names (may be
 * NULL), float64 or float32 values.  NULL and @error when @n_joints is 0
 * or above 65535, or a name is empty or holds ','. */
GstCaps *robocache_joints_caps_new (guint n_joints,
    const gchar * const *names, gboolean float64, GError ** error);

/* One sample: the @n_joints @positions as float64 or float32, PTS
 * @pts.  @n_joints 0 (an empty JointState, which
 * robocache_joints_caps_new refuses with a GError) is a programming error
 * (NULL, a critical). */
GstBuffer *robocache_joints_buffer_new (const gdouble * positions,
    guint n_joints, gboolean float64, GstClockTime pts);

/* ---- sensor_msgs/Image ----------------------------------------------- */

/* Video info for an Image: encoding rgb8 (RGB), bgr8 (BGR), rgba8
 * (RGBA), bgra8 (BGRA), mono8 or 8UC1 (GRAY8), mono16 or 16UC1
 * (GRAY16_LE); @step is the message's row stride (>= width * bytes per
 * pixel, <= G_MAXINT, a multiple of 2 for 16-bit samples).  FALSE and
 * @error on another encoding, a bad size or a bad step. */
gboolean robocache_image_info_from_ros (const gchar * encoding, guint width,
    guint height, guint step, GstVideoInfo * info, GError ** error);

/* video/x-raw caps for an Image (robocache_image_info_from_ros). */
GstCaps *robocache_image_caps_from_ros (const gchar * encoding, guint width,
    guint height, guint step, GError ** error);

/* A copy of the @height * @step bytes of @data, PTS @pts; with a
 * GstVideoMeta giving the stride when @step is not @info's default
 * stride.  A @step robocache_image_info_from_ros refuses (shorter than a
 * row, above G_MAXINT) is a programming error (NULL, a critical).  @data
 * must hold @height * @step bytes, which the caller checks against the
 * message (msg.data.size () >= msg.height * msg.step): not against
 * @info's size, whose default stride may be rounded up past @step. */
GstBuffer *robocache_image_buffer_new (const GstVideoInfo * info,
    guint step, const guint8 * data, GstClockTime pts);

/* ---- Voxel grids --------------------------------------------------- */

typedef struct
{
  guint dims[3];                /* voxels along x, y, z */
  gdouble origin[3];            /* metres, the grid's minimum corner */
  gdouble voxel_size[3];        /* metres */
  rc_voxel_mode mode;
  guint n_features;             /* mean mode: float32 planes */
  guint64 n_voxels;
} RobocacheVoxelsInfo;

/* Reads voxels caps (other/x-robocache-voxels). */
gboolean robocache_voxels_info_from_caps (const GstCaps * caps,
    RobocacheVoxelsInfo * info, GError ** error);

/* Bytes a grid of @info takes (occupancy padded to 4 bytes). */
gsize robocache_voxels_size (const RobocacheVoxelsInfo * info);

/* Lists the occupied voxels of the host grid @data (@size bytes) as float32
 * centres x, y, z into @xyz (room for @max centres, may be NULL),
 * in storage order (x fastest); returns how many are occupied (also those
 * beyond @max).  Occupied: occupancy != 0, count != 0; in mean mode a
 * voxel with a non-zero feature.  Returns 0 when @size is short. */
guint64 robocache_voxels_list_centres (const RobocacheVoxelsInfo * info,
    const guint8 * data, gsize size, gfloat * xyz, guint64 max);

/* ---- Fused frames ------------------------------------------------- */

/* The fused-frame reading API is gstrobocachefusedmeta.h (included
 * above).  These read the flat vector and a stream's timestamp. */

/* Copies the flat float32 vector of a fused @buffer into @out (room for
 * @max values); returns the number of channels (0 without one). */
guint robocache_fused_copy_flat (GstBuffer * buffer, gfloat * out, guint max);

/* PTS of stream @name's source buffer, GST_CLOCK_TIME_NONE if unknown
 * or stale without data. */
GstClockTime robocache_fused_stream_pts (GstBuffer * buffer,
    const gchar * name);

/* ---- Time mapping ------------------------------------------------- */

/* Maps ROS time (header.stamp: sec, nsec) to pipeline running time and
 * back: running = running_base + (stamp - ros_base), in int64 nanoseconds
 * (no floating point, so no drift however long it runs).  Typically
 * ros_base is the first message's stamp and running_base the pipeline's
 * running time when it arrived. */
typedef struct
{
  gint64 ros_base;              /* nanoseconds since the ROS epoch */
  GstClockTime running_base;
  gboolean valid;
} RobocacheTimeMap;

/* ROS (sec, nsec) in nanoseconds; nsec may be >= 1e9 (normalised). */
gint64 robocache_ros_to_ns (guint32 sec, guint32 nsec);

/* @running_base at most G_MAXINT64 (a running time, not any guint64). */
void robocache_time_map_init (RobocacheTimeMap * map, guint32 sec,
    guint32 nsec, GstClockTime running_base);

/* Running time of stamp (@sec, @nsec); GST_CLOCK_TIME_NONE when the map is
 * not set or the stamp falls before running time 0 (or beyond 2^63 ns). */
GstClockTime robocache_time_map_to_running (const RobocacheTimeMap * map,
    guint32 sec, guint32 nsec);

/* The inverse; FALSE when the map is not set, @running is NONE or the
 * result falls outside ROS time (before 0 or beyond 2^32 s). */
gboolean robocache_time_map_to_ros (const RobocacheTimeMap * map,
    GstClockTime running, guint32 * sec, guint32 * nsec);

/* ---- Buffers as arrays (DLPack) -------------------------------------- */

/* @buffer as a DLPack array over its own memory (no copy), shaped by
 * @caps: voxels (z, y, x), or (features, z, y, x) in mean mode; points
 * (n, fields) float32 when every field is float32 and they are packed from
 * byte 0, else (n, point_step) uint8; vectors (1, channels) for layout
 * sample, (S, channels) or (batch, S, channels) for the values of a chunk;
 * fused frames their flat float32 vector (flat-output=true);
 * video/x-raw in a packed format (GRAY8, GRAY16_LE, RGB, BGR, RGBA, ...)
 * (height, width, channels) with DLPack strides when rows are padded.
 * System memory is mapped READ (a DLPack CPU array); CUDA memory
 * (robocache's or GStreamer's GstCudaMemory, one memory per buffer) with
 * GST_MAP_CUDA (a DLPack CUDA array on the memory's device).  The array
 * keeps @buffer referenced and mapped until its deleter runs.  FALSE and
 * @error (ROBOCACHE_ERROR) on caps it cannot shape or a buffer too small
 * for them. */
gboolean robocache_buffer_to_array (GstBuffer * buffer, GstCaps * caps,
    rc_dl_managed_tensor ** array, GError ** error);

/* The timestamps of a vectors chunk (layout chunk) as an int64 array of
 * nanoseconds, (S) or (batch, S), over the buffer's memory like
 * robocache_buffer_to_array; FALSE for other caps. */
gboolean robocache_buffer_times_to_array (GstBuffer * buffer, GstCaps * caps,
    rc_dl_managed_tensor ** array, GError ** error);

/* What robocache_buffer_to_array makes of a sample's buffer, without
 * making it: enough to allocate where a copy goes. */
typedef struct
{
  gint ndim;
  gint64 shape[4];
  rc_dl_dtype dtype;
  rc_dl_device device;
} RobocacheArrayInfo;

/* The shape, type and device of @sample's buffer as an array (see
 * robocache_buffer_to_array); FALSE and @error where it cannot be one. */
gboolean robocache_sample_array_info (GstSample * sample,
    RobocacheArrayInfo * info, GError ** error);

/* Gives @pipeline (a bin, before it leaves NULL) a GstContext wrapping the
 * primary CUDA context of @device, the context PyTorch and the CUDA
 * runtime use, so that robocache's elements compute and allocate on it and
 * their CUDA memory is usable by kernels of that context.  FALSE and
 * @error when the device cannot be used or robocache was built without
 * CUDA (ROBOCACHE_ERROR_UNSUPPORTED). */
gboolean robocache_pipeline_use_cuda_device (GstElement * pipeline,
    gint device, GError ** error);

/* Makes every streaming thread of @pipeline (before it leaves NULL) a
 * thread of its own, started when its task starts, instead of one of
 * GLib's shared thread pool, which does not survive fork(): a process
 * forked after it ran a pipeline (PyTorch's DataLoader workers on Linux)
 * would never start its pipelines' threads.  Takes the pipeline's bus
 * sync handler (it passes every message on).  In such a child, also set
 * the pipeline to PAUSED and wait for it (gst_element_get_state) before
 * PLAYING: GStreamer finishes a state change that went asynchronous on a
 * thread of that shared pool (a pipeline set straight to PLAYING stays
 * PAUSED).  robocache.Pipeline does both. */
gboolean robocache_pipeline_use_own_threads (GstElement * pipeline);

/* ---- samples of several appsinks in time order ----------------------- */

/* The samples of several appsinks of one pipeline in PTS order: a sample
 * comes once every appsink not at EOS has one waiting and none of those
 * is earlier (ties: the order of @appsinks); a sample without a PTS comes
 * as soon as it is pulled.  Not thread-safe: one consumer.
 * robocache.Pipeline iterates with it.
 *
 * An appsink counts as ended when it runs (PAUSED or PLAYING) and is at
 * EOS, or when it stops after it ran: one not started yet is waited for,
 * so the merge may be asked before the pipeline plays, and a pipeline
 * stopped from another thread ends a wait without a timeout (END).
 * Restarts: an ended appsink stays ended while the pipeline is stopped
 * (END again); once it runs a new stream (the pipeline back to NULL or
 * READY, then playing; or a flushing seek) it takes part again, so one
 * merge serves run after run.  Stopping an appsink before its EOS drops
 * the sample held of it. */
typedef struct _RobocacheMerge RobocacheMerge;

typedef enum
{
  ROBOCACHE_MERGE_END = 0,      /* every appsink reached EOS, all handed
                                 * out */
  ROBOCACHE_MERGE_SAMPLE = 1,   /* *sample (transfer full) from appsink
                                 * *index */
  ROBOCACHE_MERGE_WAITING = 2   /* nothing within the timeout (a pipeline
                                 * that failed stops without EOS: read its
                                 * bus, then call again) */
} RobocacheMergeResult;

RobocacheMerge *robocache_merge_new (GstElement * const *appsinks,
    guint n_appsinks);

/* Waits up to @timeout (GST_CLOCK_TIME_NONE: for ever) for the next
 * sample. */
RobocacheMergeResult robocache_merge_next (RobocacheMerge * merge,
    GstClockTime timeout, GstSample ** sample, guint * index);

/* Whether appsink @index reached EOS with all its samples handed out. */
gboolean robocache_merge_ended (const RobocacheMerge * merge, guint index);

void robocache_merge_free (RobocacheMerge * merge);

/* ---- aligned samples ------------------------------------------------ */

/* Pulls the appsinks of a playing pipeline in PTS order and hands out each
 * buffer of a lead stream (a voxel grid, say) with its context: the
 * vectors (joint states) around its time and the frame nearest it.  One
 * call per lead buffer, however many vectors come between two; what no
 * later lead needs is dropped as the leads advance.  Not thread-safe: one
 * consumer.  robocache.RecordingDataset and `python3 -m robocache.dataset`
 * use it. */
typedef struct _RobocacheAlign RobocacheAlign;

typedef enum
{
  ROBOCACHE_ALIGN_ERROR = -1,   /* @error says what the streams did wrong */
  ROBOCACHE_ALIGN_END = 0,      /* every appsink is at EOS, all handed out */
  ROBOCACHE_ALIGN_ITEM = 1,     /* *out holds the next lead buffer */
  ROBOCACHE_ALIGN_WAITING = 2   /* nothing within the timeout (a pipeline
                                 * that failed stops without EOS: read its
                                 * bus, then call again) */
} RobocacheAlignResult;

typedef struct
{
  GstSample *lead;              /* the lead buffer (transfer full) */
  GstClockTime time;            /* its PTS */
  /* The vectors a resampling of [time + before, time + after] reads: from
   * the last at or before the window's start to the first at or after its
   * end (fewer at the streams' ends, none without vectors).  Valid until
   * the next call. */
  const gint64 *vector_times;   /* @n_vectors PTS, ns, ascending */
  const gdouble *vector_values; /* @n_vectors x @channels */
  guint n_vectors;
  guint channels;
  GstSample *frame;             /* the frame nearest @time (the first of
                                 * equals; transfer full), or NULL */
  GstClockTime frame_time;      /* its PTS, or GST_CLOCK_TIME_NONE */
} RobocacheAligned;

/* @lead, and @vectors and @frames where not NULL, are appsinks of one
 * pipeline.  @vectors must carry other/x-robocache-vectors of layout
 * sample, float32 or float64, in system memory (values come as double);
 * @before <= @after are the window around each lead's time, ns.  A lead
 * is handed out once the vectors reach @after past it and a frame at or
 * after it has come, or those streams ended, or the streams ran past
 * (robocache_align_set_patience).  Buffers without a PTS are dropped and
 * counted (robocache_align_get_untimed); a vector stamped before the one
 * that came before it is put in its place; one naming other channels than
 * the first is skipped and counted (robocache_align_get_other_channels). */
RobocacheAlign *robocache_align_new (GstElement * lead, GstElement * vectors,
    GstElement * frames, GstClockTimeDiff before, GstClockTimeDiff after);

/* Waits up to @timeout (GST_CLOCK_TIME_NONE: for ever) for the next lead
 * buffer.  On ROBOCACHE_ALIGN_ITEM the caller owns out->lead and
 * out->frame.  Appsinks not started yet are waited for (as
 * robocache_merge_next); after ROBOCACHE_ALIGN_END, a restarted pipeline
 * is aligned afresh: nothing of the run that ended is kept. */
RobocacheAlignResult robocache_align_next (RobocacheAlign * align,
    GstClockTime timeout, RobocacheAligned * out, GError ** error);

/* How far the streams may run past a lead's window (time + @after) while
 * the lead waits for its vectors or frame: past it, the lead is handed
 * out with what came, so that a stream that stops (a drop-out, a driver
 * that died) does not hold every later lead in memory until the end.
 * Default one second; GST_CLOCK_TIME_NONE waits for ever. */
void robocache_align_set_patience (RobocacheAlign * align,
    GstClockTime patience);

/* Where robocache_align_write puts an aligned item: training tensors,
 * all float32 but the frame, in host memory or on one CUDA device. */
typedef struct
{
  gint device;                  /* CUDA device of the outputs; -1: host */
  gpointer stream;              /* the cudaStream_t the work goes on */
  gfloat *lead;                 /* the lead's values, converted */
  gsize lead_count;             /* room at @lead: the lead's value count */
  const gint64 *targets;        /* host: times to resample the vectors
                                 * at, ns */
  guint n_targets;
  gint method;                  /* rc_interp_method */
  gfloat *vectors;              /* @n_targets x the item's channels, or
                                 * NULL */
  guint8 *frame;                /* the frame's bytes, packed rows, or
                                 * NULL */
  gsize frame_size;             /* room at @frame: the frame's bytes */
} RobocacheAlignOutput;

/* Writes @item (from robocache_align_next, same @align) to @out in one
 * call: the lead buffer (a voxel grid) converted to float32, the vectors
 * resampled at @out->targets (on the CPU, in float64, the ends held) and
 * rounded to float32, the frame's bytes.  With @out->device >= 0 the
 * work is queued on @out->stream and this returns before it is done: the
 * frame and vectors may be dropped on return (they are copied from
 * pageable memory, staged before the call returns), the lead must be
 * kept until the stream has read it.  A lead in CUDA memory needs outputs
 * on its device; a lead in system memory, outputs in host memory.  FALSE
 * and @error (ROBOCACHE_ERROR) when a size does not match the item's or
 * a copy or launch fails.  Not thread-safe, as robocache_align_next. */
gboolean robocache_align_write (RobocacheAlign * align,
    const RobocacheAligned * item, const RobocacheAlignOutput * out,
    GError ** error);

/* Buffers dropped for having no PTS. */
guint64 robocache_align_get_untimed (const RobocacheAlign * align);
/* Vectors skipped for naming other channels than the run's first (a
 * JointState naming other joints): their values would land under the
 * first ones' names. */
guint64 robocache_align_get_other_channels (const RobocacheAlign * align);

void robocache_align_free (RobocacheAlign * align);

G_END_DECLS
#endif
