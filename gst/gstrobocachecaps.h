/* robocache media types: the caps of every robocache stream, defined once
 * here and used by the elements and the tests alike.  docs/media-types.md
 * describes each field and the memory layout. */
#ifndef __GST_ROBOCACHE_CAPS_H__
#define __GST_ROBOCACHE_CAPS_H__

#include <gst/gst.h>

#include "robocache-kernels.h"

G_BEGIN_DECLS

/* The caps feature of robocache buffers held in CUDA device memory (the same
 * name as GStreamer's own CUDA memory). */
#define GST_ROBOCACHE_CAPS_FEATURE_CUDA "memory:CUDAMemory"

/* One buffer = one lidar sweep: point-step bytes per point, fields as
 * "name:type:offset" entries separated by commas, as in PointCloud2, e.g.
 * "x:float32:0,y:float32:4,z:float32:8,intensity:float32:12". */
#define GST_ROBOCACHE_POINTS_MEDIA_TYPE "other/x-robocache-points"
/* fields is left out of the template caps: any string is accepted there. */
#define GST_ROBOCACHE_POINTS_CAPS_FIELDS "point-step = (int) [ 1, 65535 ]"
#define GST_ROBOCACHE_POINTS_CAPS \
    GST_ROBOCACHE_POINTS_MEDIA_TYPE ", " GST_ROBOCACHE_POINTS_CAPS_FIELDS
#define GST_ROBOCACHE_POINTS_CUDA_CAPS \
    GST_ROBOCACHE_POINTS_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA "), " \
    GST_ROBOCACHE_POINTS_CAPS_FIELDS

/* The KITTI velodyne / common 16-byte layout. */
#define GST_ROBOCACHE_FIELDS_XYZI \
    "x:float32:0,y:float32:4,z:float32:8,intensity:float32:12"
/* The same with a Velodyne-style ring and per-point time: 32 bytes. */
#define GST_ROBOCACHE_FIELDS_XYZI_RING_TIME \
    GST_ROBOCACHE_FIELDS_XYZI ",ring:uint16:16,time:float32:20"
/* The two layouts robocachelidarsrc gives, fields and all (its template:
 * what gst-inspect shows a KITTI or raw pipeline must write). */
#define GST_ROBOCACHE_POINTS_XYZI_CAPS \
    GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step = (int) 16, " \
    "fields = (string) \"" GST_ROBOCACHE_FIELDS_XYZI "\"; " \
    GST_ROBOCACHE_POINTS_MEDIA_TYPE ", point-step = (int) 32, " \
    "fields = (string) \"" GST_ROBOCACHE_FIELDS_XYZI_RING_TIME "\""

/* One buffer = one voxel grid (layout "dense"; "sparse" is reserved). */
#define GST_ROBOCACHE_VOXELS_MEDIA_TYPE "other/x-robocache-voxels"
#define GST_ROBOCACHE_VOXELS_CAPS_FIELDS \
    "layout = (string) dense, " \
    "mode = (string) { occupancy, count, mean }, " \
    "format = (string) { uint8, uint32, float32 }, " \
    "grid-x = (int) [ 1, MAX ], grid-y = (int) [ 1, MAX ], " \
    "grid-z = (int) [ 1, MAX ]"
#define GST_ROBOCACHE_VOXELS_CAPS \
    GST_ROBOCACHE_VOXELS_MEDIA_TYPE ", " GST_ROBOCACHE_VOXELS_CAPS_FIELDS
#define GST_ROBOCACHE_VOXELS_CUDA_CAPS \
    GST_ROBOCACHE_VOXELS_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA "), " \
    GST_ROBOCACHE_VOXELS_CAPS_FIELDS
/* The most float32 planes a mean grid's caps may declare: with fewer than
 * 2^32 voxels, every byte size stays far below 2^63. */
#define GST_ROBOCACHE_VOXELS_MAX_FEATURES 65535

/* robocachebev's pictures: RGBA video (x to the right, y up), one per
 * grid, in system or CUDA memory (GStreamer's own video CUDA memory, which
 * nvcodec's cudadownload and encoders take). */
#define GST_ROBOCACHE_BEV_CAPS_FIELDS \
    "format = (string) RGBA, width = (int) [ 1, 16384 ], " \
    "height = (int) [ 1, 16384 ], framerate = (fraction) [ 0/1, MAX ]"
#define GST_ROBOCACHE_BEV_CAPS "video/x-raw, " GST_ROBOCACHE_BEV_CAPS_FIELDS
#define GST_ROBOCACHE_BEV_CUDA_CAPS \
    "video/x-raw(" GST_ROBOCACHE_CAPS_FEATURE_CUDA "), " \
    GST_ROBOCACHE_BEV_CAPS_FIELDS

/* Fixed-length vectors with timestamps: layout "sample" (one vector per
 * buffer, PTS = sample time) or "chunk" (batch x S samples per buffer: an
 * int64 nanosecond timestamp block [batch][S] followed by the values
 * [batch][S][channels]). */
#define GST_ROBOCACHE_VECTORS_MEDIA_TYPE "other/x-robocache-vectors"
#define GST_ROBOCACHE_VECTORS_CAPS_FIELDS \
    "channels = (int) [ 1, 65535 ], " \
    "format = (string) { float32, float64, bfloat16 }, " \
    "layout = (string) { sample, chunk }"
#define GST_ROBOCACHE_VECTORS_CAPS \
    GST_ROBOCACHE_VECTORS_MEDIA_TYPE ", " GST_ROBOCACHE_VECTORS_CAPS_FIELDS
#define GST_ROBOCACHE_VECTORS_CUDA_CAPS \
    GST_ROBOCACHE_VECTORS_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA "), " \
    GST_ROBOCACHE_VECTORS_CAPS_FIELDS

/* Template caps: CUDA memory first (preferred) where the CUDA path is
 * built, then system memory. */
GstCaps *gst_robocache_caps_with_cuda (const gchar * system_caps,
    const gchar * cuda_caps);

/* Takes @caps and returns them narrowed to @filter (in @filter's order of
 * preference), or as they are without a filter: the end of a caps query. */
GstCaps *gst_robocache_caps_filter (GstCaps * caps, GstCaps * filter);

/* TRUE if @caps' first structure carries the CUDA memory feature. */
gboolean gst_robocache_caps_is_cuda (const GstCaps * caps);

/* The fastest rate of regular times (samples or ticks a second, and the
 * framerate of their caps): 1 ns apart, the finest a GstClockTime holds. */
#define GST_ROBOCACHE_MAX_RATE 1000000000

/* Why @n/@d samples or ticks a second cannot be the rate of a grid, to
 * free, or NULL: it must be positive and at most GST_ROBOCACHE_MAX_RATE,
 * else grid times would repeat. */
gchar *gst_robocache_rate_problem (gint n, gint d);

/* Points: parses point-step and fields.  @feature_names (comma-separated,
 * may be NULL or "") selects the fields averaged in mean mode; empty means
 * x, y, z (the centroid).  On failure, FALSE and *error says what was
 * wrong and what is accepted. */
gboolean gst_robocache_points_caps_parse (const GstCaps * caps,
    const gchar * feature_names, rc_point_layout * layout, GError ** error);

/* Builds a "name:type:offset,..." fields string for a point layout given as
 * parallel arrays; the caller frees it. */
gchar *gst_robocache_points_fields_to_string (guint n_fields,
    const gchar * const *names, const rc_scalar_type * types,
    const guint * offsets);

/* Voxels. */
const gchar *gst_robocache_voxel_mode_to_string (rc_voxel_mode mode);
GstCaps *gst_robocache_voxels_caps_new (const rc_voxel_grid * grid,
    guint n_features, const gchar * feature_names, gboolean cuda);
gboolean gst_robocache_voxels_caps_parse (const GstCaps * caps,
    rc_voxel_grid * grid, guint * n_features, GError ** error);

/* Centroids (robocachevoxelize mode=centroids): points caps whose fields
 * are the averaged features (@feature_names; empty: x,y,z) as float32 one
 * after another, carrying the grid's fields as voxels caps do (grid-x/y/z,
 * origin-x/y/z, voxel-size-x/y/z). */
GstCaps *gst_robocache_centroids_caps_new (const rc_voxel_grid * grid,
    const gchar * feature_names, gboolean cuda);
gboolean gst_robocache_centroids_caps_parse (const GstCaps * caps,
    rc_voxel_grid * grid, guint * n_features, GError ** error);

/* Vectors. */
typedef enum
{
  GST_ROBOCACHE_VECTORS_LAYOUT_SAMPLE,
  GST_ROBOCACHE_VECTORS_LAYOUT_CHUNK
} GstRobocacheVectorsLayout;

/* What vectors caps say.  The quaternion and angle groups are those of the
 * caps' quaternions and angles fields (has_* tells whether the field was
 * there at all). */
typedef struct
{
  guint channels;
  rc_scalar_type type;
  GstRobocacheVectorsLayout layout;
  guint batch;                  /* chunk layout: trajectories per buffer */
  gboolean has_quaternions;
  guint n_quaternions;
  guint32 quaternion_first[RC_RESAMPLE_MAX_GROUPS];
  gboolean has_angles;
  guint n_angle_ranges;
  rc_channel_range angle_ranges[RC_RESAMPLE_MAX_GROUPS];
} GstRobocacheVectorsInfo;

/* Bytes of one vector (channels x value size). */
gsize gst_robocache_vectors_sample_size (const GstRobocacheVectorsInfo *
    info);

/* Parses fixed vectors caps: channels, format (bfloat16 only with the
 * chunk layout), layout, batch (chunk only, default 1), and the optional
 * quaternions and angles strings.  On failure, FALSE and *error says what
 * was wrong and what is accepted. */
gboolean gst_robocache_vectors_caps_parse (const GstCaps * caps,
    GstRobocacheVectorsInfo * info, GError ** error);

/* "3,10": the first channel of each unit quaternion (x, y, z, w); every
 * group must fit in @channels and not overlap another.  NULL or "" is no
 * group. */
gboolean gst_robocache_vectors_parse_quaternions (const gchar * text,
    guint channels, guint * n_quaternions, guint32 * quaternion_first,
    GError ** error);
/* "0-2,5": angle channels, single or as inclusive ranges, inside
 * @channels and not overlapping.  NULL or "" is no group. */
gboolean gst_robocache_vectors_parse_angles (const gchar * text,
    guint channels, guint * n_ranges, rc_channel_range * ranges,
    GError ** error);
/* The inverse of the two parsers; the caller frees the strings. */
gchar *gst_robocache_vectors_quaternions_to_string (guint n_quaternions,
    const guint32 * quaternion_first);
gchar *gst_robocache_vectors_angles_to_string (guint n_ranges,
    const rc_channel_range * ranges);

/* Caps for @info; @names (may be NULL) is copied as the names field, the
 * groups of @info are written as quaternions and angles when there are
 * any; batch is written for the chunk layout. */
GstCaps *gst_robocache_vectors_caps_new (const GstRobocacheVectorsInfo *
    info, const gchar * names, gboolean cuda);

/* One buffer = one sweep's sparse voxels or pillars (hard voxelization):
 * float32 features [max-voxels][max-points][channels], int32 coordinates
 * [max-voxels][3] (z, y, x), int32 points per voxel [max-voxels], then
 * int32 voxels used and three int32 zeros.  The grid's fields as in voxels
 * caps. */
#define GST_ROBOCACHE_SPARSE_MEDIA_TYPE "other/x-robocache-sparse-voxels"
#define GST_ROBOCACHE_SPARSE_CAPS_FIELDS \
    "mode = (string) { pillars, voxels }, " \
    "channels = (int) [ 1, MAX ], max-voxels = (int) [ 1, MAX ], " \
    "max-points = (int) [ 1, MAX ]"
#define GST_ROBOCACHE_SPARSE_CAPS \
    GST_ROBOCACHE_SPARSE_MEDIA_TYPE ", " GST_ROBOCACHE_SPARSE_CAPS_FIELDS
#define GST_ROBOCACHE_SPARSE_CUDA_CAPS \
    GST_ROBOCACHE_SPARSE_MEDIA_TYPE "(" GST_ROBOCACHE_CAPS_FEATURE_CUDA "), " \
    GST_ROBOCACHE_SPARSE_CAPS_FIELDS

/* What sparse voxels caps say; offsets of the four arrays in a buffer. */
typedef struct
{
  rc_sparse_params params;
  guint channels;
  gsize coords_offset, num_points_offset, n_voxels_offset, size;
} GstRobocacheSparseInfo;

/* Fills the offsets and size of @info from its params and channels. */
void gst_robocache_sparse_info_layout (GstRobocacheSparseInfo * info);
/* @channel_names: comma-separated, as many as info->channels. */
GstCaps *gst_robocache_sparse_caps_new (const GstRobocacheSparseInfo * info,
    const gchar * channel_names, gboolean cuda);
gboolean gst_robocache_sparse_caps_parse (const GstCaps * caps,
    GstRobocacheSparseInfo * info, GError ** error);

G_END_DECLS
#endif
