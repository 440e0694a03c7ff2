/* robocache kernels: the computation behind the robocache GStreamer elements.
 *
 * Pure C interface, free of GLib, GStreamer and CUDA types.  Every operation
 * has a CPU implementation (the reference, always built) and a CUDA one
 * (built when the library is configured with CUDA; otherwise it returns
 * RC_ERROR_NOT_BUILT).  CUDA streams are passed as opaque pointers (a
 * cudaStream_t / CUstream); NULL means the legacy default stream.  Device
 * functions run on whatever CUDA context is current on the calling thread.
 *
 * Nothing here aborts or exits: every function returns an rc_status, and
 * rc_error_detail() holds the last CUDA error text of the calling thread.
 */
#ifndef ROBOCACHE_KERNELS_H
#define ROBOCACHE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Status                                                              */
/* ------------------------------------------------------------------ */

typedef enum
{
  RC_OK = 0,
  RC_ERROR_INVALID_ARGUMENT,    /* a parameter is out of its documented range */
  RC_ERROR_OUT_OF_MEMORY,       /* host or device allocation failed */
  RC_ERROR_NO_DEVICE,           /* no CUDA driver or no CUDA device */
  RC_ERROR_CUDA,                /* a CUDA call failed: see rc_error_detail() */
  RC_ERROR_NOT_BUILT,           /* the library was built without CUDA */
  RC_ERROR_UNSUPPORTED_DEVICE   /* the GPU cannot run the kernels the
                                 * library was built with (its
                                 * cuda-architectures): see
                                 * rc_error_detail() */
} rc_status;

/* Static, human-readable text for @status. */
const char *rc_status_message (rc_status status);

/* Text of the last CUDA error, or detail of an invalid argument, seen on
 * this thread ("" if none since rc_clear_error_detail). */
const char *rc_error_detail (void);

/* Empties this thread's rc_error_detail(), so that the detail read after a
 * failure is that failure's own. */
void rc_clear_error_detail (void);

/* ------------------------------------------------------------------ */
/* Scalar types (the PointCloud2 set, plus bfloat16 storage)           */
/* ------------------------------------------------------------------ */

typedef enum
{
  RC_TYPE_INT8,
  RC_TYPE_UINT8,
  RC_TYPE_INT16,
  RC_TYPE_UINT16,
  RC_TYPE_INT32,
  RC_TYPE_UINT32,
  RC_TYPE_FLOAT32,
  RC_TYPE_FLOAT64,
  RC_TYPE_BFLOAT16,
  RC_TYPE_INVALID
} rc_scalar_type;

/* Size in bytes of one @type value, 0 for RC_TYPE_INVALID. */
size_t rc_scalar_type_size (rc_scalar_type type);

/* Parses "float32", "uint8", ... (the caps spelling); RC_TYPE_INVALID if
 * unknown. */
rc_scalar_type rc_scalar_type_from_string (const char *name);
const char *rc_scalar_type_to_string (rc_scalar_type type);

/* ------------------------------------------------------------------ */
/* Device helpers (CUDA runtime; thin, checked wrappers)               */
/* ------------------------------------------------------------------ */

/* Number of usable CUDA devices; 0 without a driver or device (never an
 * error).  @why, if not NULL, receives a static reason when 0. */
int rc_device_count (const char **why);

rc_status rc_device_alloc (void **ptr, size_t size);
rc_status rc_device_free (void *ptr);
/* Page-locked host memory, for asynchronous copies. */
rc_status rc_host_alloc (void **ptr, size_t size);
rc_status rc_host_free (void *ptr);

typedef enum
{
  RC_COPY_HOST_TO_DEVICE,
  RC_COPY_DEVICE_TO_HOST,
  RC_COPY_DEVICE_TO_DEVICE,
  RC_COPY_BETWEEN_DEVICES       /* device memory of another device or
                                 * context (unified addressing: the driver
                                 * copies peer to peer, or stages it) */
} rc_copy_kind;

rc_status rc_device_copy_async (void *dst, const void *src, size_t size,
    rc_copy_kind kind, void *stream);
/* @height rows of @width bytes, @src_pitch bytes apart in @src and
 * @dst_pitch bytes apart in @dst. */
rc_status rc_device_copy_2d_async (void *dst, size_t dst_pitch,
    const void *src, size_t src_pitch, size_t width, size_t height,
    rc_copy_kind kind, void *stream);
rc_status rc_device_memset_async (void *dst, int value, size_t size,
    void *stream);

rc_status rc_stream_create (void **stream);
rc_status rc_stream_destroy (void *stream);
/* Waits for @stream only (never the whole device). */
rc_status rc_stream_synchronize (void *stream);

/* Timing events (cudaEvent_t as an opaque pointer).  rc_event_elapsed_ms
 * waits for @end, then gives the milliseconds from @start to @end. */
rc_status rc_event_create (void **event);
rc_status rc_event_destroy (void *event);
rc_status rc_event_record (void *event, void *stream);
rc_status rc_event_elapsed_ms (void *start, void *end, float *ms);
/* Events without timing, to order streams and to wait for one buffer's
 * work: rc_event_synchronize waits for @event only (never the device);
 * rc_stream_wait_event makes @stream wait for @event on the device. */
rc_status rc_fence_create (void **event);
rc_status rc_event_synchronize (void *event);
rc_status rc_stream_wait_event (void *stream, void *event);

/* Name of the current device ("NVIDIA H100 80GB HBM3"), truncated to fit
 * @len bytes with the terminating NUL. */
rc_status rc_device_name (char *buf, size_t len);

/* Free and total memory of the current device, in bytes
 * (cudaMemGetInfo), for checking an allocation before making it. */
rc_status rc_device_memory_info (size_t *free_bytes, size_t *total_bytes);

/* Whether the current device can run this library's kernels: RC_OK, or
 * RC_ERROR_UNSUPPORTED_DEVICE where the library holds neither machine code
 * for its architecture nor PTX it can compile (rc_error_detail() names the
 * device, its sm_XY, the architectures built and the meson option that adds
 * it), or the driver is too old for the PTX. */
rc_status rc_device_check_kernels (void);

/* The architectures the CUDA kernels were built for, meson's
 * cuda-architectures ("75;80;90"; PTX of the last one too); "" without
 * CUDA. */
const char *rc_cuda_architectures (void);

/* Makes CUDA device @device current on the calling thread (its primary
 * context, the one PyTorch and the CUDA runtime use). */
rc_status rc_device_select (int device);
/* The CUDA device current on the calling thread. */
rc_status rc_device_current (int *device);
/* Lets the current device's primary context read and write @peer's memory
 * directly (over NVLink or PCIe) where the hardware allows; *enabled says
 * whether it does (else copies between them are staged by the driver). */
rc_status rc_device_enable_peer_access (int peer, int *enabled);
/* The CUDA device whose memory @ptr points into (device or managed memory
 * of any context: unified addressing), -1 for host memory. */
rc_status rc_pointer_device (const void *ptr, int *device);

/* Makes @waiting wait, on the device, for the work enqueued on @producing
 * so far (an event between them; the host never waits). */
rc_status rc_stream_wait (void *waiting, void *producing);

/* Stream-ordered device memory of the current device, from a pool that
 * robocache keeps per device (never released to the driver, so that steady
 * state allocates nothing from it): usable on @stream once the work
 * enqueued there before the call is done; rc_device_free_async returns it
 * once the work enqueued on @stream before that call is done. */
rc_status rc_device_alloc_async (void **ptr, size_t size, void *stream);
rc_status rc_device_free_async (void *ptr, void *stream);

/* ------------------------------------------------------------------ */
/* Fault injection (tests only; docs/reliability.md)                   */
/* ------------------------------------------------------------------ */

/* Always built, inert until armed: armed, the device helpers above and
 * the kernels' launch checks report a CUDA error that did not happen, so
 * that the tests can see what the elements do with one in the middle of a
 * stream.  The reported error carries the CUDA error's name, as a real one
 * does (rc_error_detail: "cudaErrorMemoryAllocation: out of memory"). */
typedef enum
{
  RC_FAULT_NONE,                /* disarms */
  RC_FAULT_ALLOC,               /* one device allocation fails:
                                 * cudaErrorMemoryAllocation (page-locked
                                 * buffers fall back to system memory by
                                 * design, so they are not a fault site) */
  RC_FAULT_LAUNCH,              /* one kernel launch check fails:
                                 * cudaErrorLaunchOutOfResources, not
                                 * sticky */
  RC_FAULT_STICKY,              /* every checked CUDA call fails with
                                 * cudaErrorIllegalAddress until disarmed,
                                 * as after a kernel's illegal access (a
                                 * real one lasts for the process) */
  RC_FAULT_KERNEL_IMAGE         /* the device is not one the kernels were
                                 * built for: rc_device_check_kernels and
                                 * every launch check fail with
                                 * cudaErrorNoKernelImageForDevice until
                                 * disarmed */
} rc_fault;

/* Arms @kind to fire after @after_n_calls calls of its kind have passed
 * (allocations for RC_FAULT_ALLOC, launch checks for RC_FAULT_LAUNCH, any
 * checked call for RC_FAULT_STICKY, launch checks and kernel checks for
 * RC_FAULT_KERNEL_IMAGE); RC_FAULT_ALLOC and RC_FAULT_LAUNCH fire once and
 * disarm.  Safe from any thread.  The environment variable
 * ROBOCACHE_FAULT_INJECT=alloc|launch|sticky|kernel-image[:N], read once
 * at the first checked call, arms the same way (for gst-launch-1.0).
 * RC_ERROR_NOT_BUILT without CUDA; RC_ERROR_INVALID_ARGUMENT for an
 * unknown @kind or a negative count. */
rc_status rc_fault_inject (rc_fault kind, int after_n_calls);

/* How many errors the armed faults have reported since rc_fault_inject. */
int rc_fault_fired (void);

/* ------------------------------------------------------------------ */
/* Arrays handed to other libraries (DLPack)                           */
/* ------------------------------------------------------------------ */

/* The DLPack (v0.x) exchange structures, ABI-compatible with dlpack.h's
 * DLManagedTensor, under robocache's names so that both headers can be
 * included.  An array handed out is owned by its consumer (PyTorch,
 * NumPy, CuPy ...), which calls @deleter once when it is done. */
typedef struct
{
  int32_t device_type;          /* RC_DL_CPU or RC_DL_CUDA */
  int32_t device_id;
} rc_dl_device;

enum
{
  RC_DL_CPU = 1,
  RC_DL_CUDA = 2
};

typedef struct
{
  uint8_t code;                 /* 0 int, 1 uint, 2 float, 4 bfloat */
  uint8_t bits;
  uint16_t lanes;
} rc_dl_dtype;

typedef struct
{
  void *data;
  rc_dl_device device;
  int32_t ndim;
  rc_dl_dtype dtype;
  int64_t *shape;
  int64_t *strides;             /* NULL: C-contiguous */
  uint64_t byte_offset;
} rc_dl_tensor;

typedef struct rc_dl_managed_tensor
{
  rc_dl_tensor dl_tensor;
  void *manager_ctx;
  void (*deleter) (struct rc_dl_managed_tensor * self);
} rc_dl_managed_tensor;

#define RC_ARRAY_MAX_DIMS 8

/* The DLPack type of @type (lanes 1); FALSE for RC_TYPE_INVALID. */
int rc_dl_dtype_from_scalar (rc_scalar_type type, rc_dl_dtype * dtype);

/* A new C-contiguous array of @ndim (1 .. RC_ARRAY_MAX_DIMS) dimensions
 * @shape and element @type in memory robocache owns: host memory (64-byte
 * aligned) when @device is negative, else device memory of CUDA device
 * @device from rc_device_alloc_async on @stream, which its deleter gives
 * back on the same stream.  The contents are not initialised; the
 * allocation is rounded up to whole 64-byte lines. */
rc_status rc_array_new (int device, int ndim, const int64_t * shape,
    rc_scalar_type type, void *stream, rc_dl_managed_tensor ** array);

/* Wraps memory someone else owns: the deleter calls @release
 * (@release_data) once, when the consumer is done with the array. */
rc_status rc_array_wrap (void *data, rc_dl_device device, int ndim,
    const int64_t * shape, rc_scalar_type type,
    void (*release) (void *release_data), void *release_data,
    rc_dl_managed_tensor ** array);

/* Frees an array nobody consumed (calls its deleter). */
void rc_array_free (rc_dl_managed_tensor * array);

/* ------------------------------------------------------------------ */
/* Time conversion                                                     */
/* ------------------------------------------------------------------ */

/* @n times in seconds (float64) to int64 nanoseconds, rounded to the
 * nanosecond nearest the value given (exactly, ties away from zero;
 * seconds-math.h).  CPU: RC_ERROR_INVALID_ARGUMENT, with the output undefined, if
 * one is not finite or not within +-9.2e9 s (int64 nanoseconds).  CUDA
 * (device pointers, asynchronous on @stream): such a value is clamped to
 * the int64 range, NaN to 0, since the host does not wait to look. */
rc_status rc_seconds_to_ns_cpu (const double *seconds, int64_t * ns,
    uint64_t n);
rc_status rc_seconds_to_ns_cuda (const double *seconds, int64_t * ns,
    uint64_t n, void *stream);

/* ------------------------------------------------------------------ */
/* Conversion to float32                                               */
/* ------------------------------------------------------------------ */

/* @n values of @type (any but RC_TYPE_INVALID) at @src written as float32
 * to @out, each rounded to the nearest float (C's conversion; bfloat16
 * widens exactly): a count grid into a training tensor, say.  CUDA:
 * device pointers, asynchronous on @stream. */
rc_status rc_to_float32_cpu (rc_scalar_type type, const void *src,
    uint64_t n, float *out);
rc_status rc_to_float32_cuda (rc_scalar_type type, const void *src,
    uint64_t n, float *out, void *stream);

/* ------------------------------------------------------------------ */
/* Rows copied                                                         */
/* ------------------------------------------------------------------ */

/* One strided copy: @rows rows of @width bytes, row r from @src + r *
 * @src_pitch to @dst + r * @dst_pitch; @src_pitch 0 copies the same bytes
 * into every row.  No rows or no width: nothing is copied. */
typedef struct
{
  void *dst;
  const void *src;
  uint64_t dst_pitch, src_pitch, width, rows;
} rc_row_copy;

#define RC_ROW_COPIES_MAX 8

/* Does @n (at most RC_ROW_COPIES_MAX) row copies together: on the GPU in
 * one launch where cudaMemcpy2DAsync would take a call each (a chunk's
 * samples put behind the ones kept from the previous chunk, times and
 * values, and the next chunk's kept from both).  No copy may write bytes
 * that one of them reads.  RC_ERROR_INVALID_ARGUMENT for a copy with a
 * NULL pointer, a pitch below its width or an extent past the address
 * space.  CUDA: device pointers, or page-locked host memory from
 * rc_host_alloc, which kernels address directly (unified addressing, on
 * every 64-bit system CUDA runs on): a few small pieces read back in one
 * launch instead of a copy each; asynchronous on @stream. */
rc_status rc_copy_rows_cpu (const rc_row_copy * copies, uint32_t n);
rc_status rc_copy_rows_cuda (const rc_row_copy * copies, uint32_t n,
    void *stream);

/* Copies the first @row_bytes bytes at @rows over the @n_rows - 1 rows
 * that follow it (a row copy of source pitch 0): one row of grid times
 * made the same for every trajectory of a batch, say, where only the
 * first was computed (and, on the GPU, uploaded).  CUDA: device pointers,
 * asynchronous on @stream. */
rc_status rc_repeat_rows_cpu (void *rows, uint64_t row_bytes,
    uint64_t n_rows);
rc_status rc_repeat_rows_cuda (void *rows, uint64_t row_bytes,
    uint64_t n_rows, void *stream);

/* ------------------------------------------------------------------ */
/* Voxelization                                                        */
/* ------------------------------------------------------------------ */

#define RC_VOXELIZE_MAX_FEATURES 8

typedef enum
{
  RC_VOXEL_OCCUPANCY,           /* uint8 per voxel: 1 if any point, else 0;
                                 * the grid is padded with zeros to a
                                 * multiple of 4 bytes */
  RC_VOXEL_COUNT,               /* uint32 per voxel: number of points */
  RC_VOXEL_MEAN,                /* float32 per voxel and feature: mean of the
                                 * feature fields over the voxel's points
                                 * (0 where the voxel is empty) */
  RC_VOXEL_CENTROIDS            /* a point cloud, not a grid: one point per
                                 * occupied voxel, in index order, of
                                 * n_features float32, the mean of each
                                 * feature field over the voxel's points
                                 * (PCL's VoxelGrid filter) */
} rc_voxel_mode;

typedef struct
{
  uint32_t offset;              /* byte offset inside a point */
  rc_scalar_type type;
} rc_field;

/* Layout of one point, as in sensor_msgs/PointCloud2. */
typedef struct
{
  uint32_t point_step;          /* bytes from one point to the next */
  rc_field x, y, z;             /* float32 or float64 */
  uint32_t n_features;          /* fields averaged in RC_VOXEL_MEAN and
                                 * RC_VOXEL_CENTROIDS */
  rc_field features[RC_VOXELIZE_MAX_FEATURES];
} rc_point_layout;

/* A dense grid.  Voxel (i, j, k) covers origin + [i, i+1) * voxel_size along
 * each axis and is stored at index (k * dims[1] + j) * dims[0] + i; in
 * RC_VOXEL_MEAN, feature f is the plane f * n_voxels + index. */
typedef struct
{
  double origin[3];
  double voxel_size[3];
  uint32_t dims[3];
  rc_voxel_mode mode;
} rc_voxel_grid;

typedef struct
{
  uint64_t in_grid;             /* points binned into a voxel */
  uint64_t out_of_range;        /* finite points outside the grid */
  uint64_t invalid;             /* points with a NaN or Inf coordinate */
  uint64_t occupied;            /* voxels holding at least one point */
} rc_voxelize_stats;

/* Checks @layout and @grid; RC_ERROR_INVALID_ARGUMENT with no side effect if
 * something is off (e.g. zero or negative voxel size, xyz not floating
 * point, a field outside point_step, a grid of more than 2^32 voxels). */
rc_status rc_voxelize_check (const rc_point_layout * layout,
    const rc_voxel_grid * grid);

uint64_t rc_voxel_grid_n_voxels (const rc_voxel_grid * grid);
/* Bytes of one output grid for @grid's mode and @layout's features; in
 * RC_VOXEL_CENTROIDS, the most one cloud can give (a point per voxel). */
uint64_t rc_voxelize_output_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid);
/* RC_VOXEL_CENTROIDS: bytes of output room for a cloud of @n_points, room
 * for min (n_points, n_voxels) points. */
uint64_t rc_voxelize_centroids_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t n_points);
/* Bytes of scratch the caller provides to rc_voxelize_cpu (0 if none is
 * needed), 4-byte aligned; its contents need not be initialised.
 * @max_cloud_points, the most points of any one cloud of a call, matters
 * in RC_VOXEL_MEAN and RC_VOXEL_CENTROIDS: a bit and a word per voxel,
 * and a row (2 + n_features words) for each voxel that many points can
 * reach. */
uint64_t rc_voxelize_scratch_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint64_t max_cloud_points);

/* Voxelizes @n_clouds clouds stored one after another in @points (cloud c
 * has cloud_sizes[c] points) into @n_clouds consecutive output grids in
 * @out.  The grids are cleared first.  In RC_VOXEL_CENTROIDS each cloud's
 * output takes rc_voxelize_centroids_size (cloud_sizes[c]) bytes, of which
 * its stats.occupied points are written, the rest left as it was.  @stats
 * (one per cloud, may be NULL) receives the counts.  CPU: all pointers are
 * host memory, @out 4-byte aligned. */
rc_status rc_voxelize_cpu (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const void *points,
    const uint64_t * cloud_sizes, uint32_t n_clouds, void *out,
    void *scratch, rc_voxelize_stats * stats);

/* CUDA: @points, @out and @scratch are device memory; @scratch (8-byte
 * aligned) must hold rc_voxelize_cuda_scratch_size (layout, grid, n_clouds,
 * max_cloud_points) bytes, @max_cloud_points at least the largest of
 * @cloud_sizes: a header and the statistics (rc_voxelize_cuda_stats_size)
 * first, then for the mean a count per voxel (and, for a large, sparse
 * cloud of three features or more, which it radix-sorts into voxel order,
 * the sort's own scratch and the features of each point), for the
 * centroids also their sums and the bookkeeping that puts them in order,
 * and for the counts of more than 524,288 points, or a mean of up to four
 * features of 131,072 or more, into a grid larger than the L2 cache, which
 * it partitions by tile of the grid, 6 bytes a point (a mean 4 more a
 * feature) and 20 a tile.
 * Only its header needs initialising, by rc_voxelize_cuda_scratch_reset
 * before its first call (new memory could hold what looks like a clear
 * scratch); after that it is robocache's: the centroids leave their sums
 * cleared, and the next call on the same scratch (same grid, features and
 * number of clouds) does not clear them again.  @cloud_sizes is host memory.
 * @stats, if not NULL, must be page-locked host memory (rc_host_alloc) and
 * is valid once @stream has been synchronised.  Asynchronous on
 * @stream. */
uint64_t rc_voxelize_cuda_stats_size (uint32_t n_clouds);
uint64_t rc_voxelize_cuda_scratch_size (const rc_point_layout * layout,
    const rc_voxel_grid * grid, uint32_t n_clouds, uint64_t max_cloud_points);
rc_status rc_voxelize_cuda (const rc_point_layout * layout,
    const rc_voxel_grid * grid, const void *points,
    const uint64_t * cloud_sizes, uint32_t n_clouds, void *out,
    void *scratch, rc_voxelize_stats * stats, void *stream);
/* Marks a new @scratch (or one whose contents something else changed) as
 * holding nothing, asynchronously on @stream: its header zeroed. */
rc_status rc_voxelize_cuda_scratch_reset (void *scratch, void *stream);

/* ------------------------------------------------------------------ */
/* Sparse ("hard") voxels and pillars for lidar detectors              */
/* ------------------------------------------------------------------ */

/* What each stored point holds (C float32 channels).  F is the number of
 * layout features (the fields after x, y, z, e.g. intensity). */
typedef enum
{
  RC_SPARSE_PILLARS_10,         /* OpenPCDet's PillarVFE with absolute xyz:
                                 * x, y, z, the F fields, offsets from the
                                 * mean of the voxel's stored points (3),
                                 * offsets from the voxel's centre (3):
                                 * C = 9 + F (10 for x, y, z, intensity) */
  RC_SPARSE_PILLARS_9,          /* the PointPillars paper: x, y, z, the F
                                 * fields, offsets from the mean (3), from
                                 * the centre in x and y (2): C = 8 + F */
  RC_SPARSE_VOXELS              /* the raw point: x, y, z, the F fields:
                                 * C = 3 + F (SECOND, CenterPoint) */
} rc_sparse_mode;

/* Hard voxelization: at most max_voxels voxels of at most max_points
 * points.  The voxels kept are the first max_voxels reached in input
 * order (by the index of their first point); within a voxel, its first
 * max_points points in input order.  Voxel slot s is the s-th voxel
 * reached.  The mean is summed in float32 over the stored points in slot
 * order, then divided by their number; centres are computed in double,
 * origin + (i + 0.5) * size, and rounded to float32. */
typedef struct
{
  rc_voxel_grid grid;           /* origin, voxel_size, dims (mode ignored);
                                 * pillars: usually dims[2] = 1 */
  rc_sparse_mode mode;
  uint32_t max_points;          /* K, >= 1 */
  uint32_t max_voxels;          /* M, >= 1, < 2^31 */
} rc_sparse_params;

/* The four outputs, each C-contiguous, every element written (padding
 * with zeros):
 *   features   float32 [M][K][C]
 *   coords     int32   [M][3]   (z, y, x) voxel indices
 *   num_points int32   [M]
 *   n_voxels   int32   [1]      the voxels used (<= M)
 * (the layout of OpenPCDet's and mmdetection3d's hard voxelization). */
typedef struct
{
  float *features;
  int32_t *coords;
  int32_t *num_points;
  int32_t *n_voxels;
} rc_sparse_output;

typedef struct
{
  uint64_t in_grid;             /* finite points inside the grid */
  uint64_t out_of_range;        /* finite points outside it */
  uint64_t invalid;             /* a NaN or Inf coordinate */
  uint64_t voxels;              /* distinct voxels reached (may be > M) */
  uint64_t dropped_voxels;      /* voxels beyond M: voxels - n_voxels */
  uint64_t dropped_points;      /* in-grid points not stored: beyond K in
                                 * their voxel, or in a dropped voxel */
} rc_sparse_stats;

/* C for @params' mode and @layout's features. */
uint32_t rc_sparse_channels (const rc_point_layout * layout,
    const rc_sparse_params * params);
/* RC_ERROR_INVALID_ARGUMENT if @layout or @params cannot be used (those of
 * rc_voxelize_check, K or M zero or too large, M x K x C x 4 bytes beyond
 * 2^62). */
rc_status rc_sparse_check (const rc_point_layout * layout,
    const rc_sparse_params * params);
/* Bytes of the features output (M x K x C x 4). */
uint64_t rc_sparse_features_size (const rc_point_layout * layout,
    const rc_sparse_params * params);
/* Bytes of scratch rc_sparse_voxelize_cpu needs (a slot per grid voxel),
 * 4-byte aligned; contents need not be initialised. */
uint64_t rc_sparse_scratch_size (const rc_sparse_params * params);

/* One cloud of @n_points (< 2^32 - 1) points.  CPU: host pointers. */
rc_status rc_sparse_voxelize_cpu (const rc_point_layout * layout,
    const rc_sparse_params * params, const void *points, uint64_t n_points,
    const rc_sparse_output * out, void *scratch, rc_sparse_stats * stats);

/* CUDA: @points, the outputs and @scratch are device memory, @scratch
 * of the size rc_sparse_cuda_scratch_size gives for
 * clouds of up to @max_points points (it asks CUB, so needs a current
 * device).  Integer atomics only, so the bytes are those of the CPU.
 * @stats, if not NULL, page-locked host memory, valid once @stream is
 * synchronised.  Asynchronous on @stream, no allocation. */
rc_status rc_sparse_cuda_scratch_size (const rc_point_layout * layout,
    const rc_sparse_params * params, uint64_t max_points, uint64_t * size);
rc_status rc_sparse_voxelize_cuda (const rc_point_layout * layout,
    const rc_sparse_params * params, const void *points, uint64_t n_points,
    const rc_sparse_output * out, void *scratch, uint64_t scratch_size,
    rc_sparse_stats * stats, void *stream);

/* ------------------------------------------------------------------ */
/* Resampling                                                          */
/* ------------------------------------------------------------------ */

#define RC_RESAMPLE_MAX_GROUPS 16

typedef enum
{
  RC_INTERP_LINEAR,             /* straight line between the two neighbours */
  RC_INTERP_NEAREST,            /* the closer neighbour (the later on a tie) */
  RC_INTERP_PREVIOUS,           /* zero-order hold: the last sample at or
                                 * before the target */
  RC_INTERP_CUBIC               /* cubic Hermite with Catmull-Rom tangents
                                 * from non-uniform neighbours */
} rc_interp_method;

typedef enum
{
  RC_EDGE_HOLD,                 /* before the first / after the last source
                                 * time: the first / last value */
  RC_EDGE_INVALID               /* there: NaN */
} rc_edge_policy;

typedef struct
{
  uint32_t first;
  uint32_t count;
} rc_channel_range;

typedef struct
{
  uint32_t batch;               /* B trajectories */
  uint32_t n_source;            /* S samples per trajectory (>= 1) */
  uint32_t n_target;            /* T target times per trajectory (may be 0) */
  uint32_t channels;            /* D values per sample (>= 1) */
  rc_scalar_type type;          /* FLOAT32, FLOAT64 or BFLOAT16 (computed in
                                 * float32) for both values and output */
  rc_interp_method method;
  rc_edge_policy edge;
  /* Unit quaternions (x, y, z, w) starting at these channels: slerp on the
   * shortest arc, renormalised (with LINEAR and CUBIC; NEAREST and PREVIOUS
   * pick a sample as for any channel). */
  uint32_t n_quaternions;
  uint32_t quaternion_first[RC_RESAMPLE_MAX_GROUPS];
  /* Angles in radians that wrap at +-pi (continuous joints): interpolated
   * the short way round, result in [-pi, pi). */
  uint32_t n_angle_ranges;
  rc_channel_range angle_ranges[RC_RESAMPLE_MAX_GROUPS];
} rc_resample_params;

/* Checks @params: RC_ERROR_INVALID_ARGUMENT if a group leaves [0, channels),
 * groups overlap, the type is not a float type, ... */
rc_status rc_resample_check (const rc_resample_params * params);

/* Resamples B trajectories.  @source_times: B x S int64 (nanoseconds),
 * non-decreasing within each trajectory (equal times: the later sample
 * wins); @source_values: B x S x D; @target_times: B x T int64;
 * @out: B x T x D.  Row-major, contiguous.  CPU: host pointers. */
rc_status rc_resample_cpu (const rc_resample_params * params,
    const int64_t * source_times, const void *source_values,
    const int64_t * target_times, void *out);

/* CUDA: device pointers, asynchronous on @stream, no allocation. */
rc_status rc_resample_cuda (const rc_resample_params * params,
    const int64_t * source_times, const void *source_values,
    const int64_t * target_times, void *out, void *stream);

/* Which of @batch trajectories of @n times each (row-major int64) are not
 * non-decreasing, as the resample kernels need them: @disordered[b] set
 * to 1 where some time is below the one before it; the other flags are
 * left as they were, so the caller clears them first.  With @ends not
 * NULL, each trajectory's first time and its last @tail times (all of
 * them where @tail >= @n - 1) are copied to their places in @ends, an
 * array shaped as @times whose other elements are left alone.  On the GPU
 * a chunk's times need not come back to the host to be checked: only its
 * trajectories' ends, when this finds them in order, in the same launch.
 * CUDA: device pointers, or page-locked host memory from rc_host_alloc for
 * @disordered and @ends (the host clears the flags there without a call
 * of its own and reads both once @stream is synchronised); asynchronous
 * on @stream, no allocation. */
rc_status rc_times_disordered_cpu (const int64_t * times, uint32_t batch,
    uint64_t n, uint8_t * disordered, uint64_t tail, int64_t * ends);
rc_status rc_times_disordered_cuda (const int64_t * times, uint32_t batch,
    uint64_t n, uint8_t * disordered, uint64_t tail, int64_t * ends,
    void *stream);

/* Whether rc_resample_cpu is expected to finish @params on data in system
 * memory sooner than the GPU would, copies included (three copies in, the
 * sources page-locked, rc_resample_cuda, one copy out, a wait on the
 * stream): 1 if so, 0 if not.  backend=auto's choice.  A cost model whose constants were
 * measured on an H200's host (docs/performance.md, "backend=auto for
 * resample"); on other machines the crossover moves, never the results.
 * Angles and quaternions, which cost the CPU more, are not counted. */
int rc_resample_prefers_cpu (const rc_resample_params * params);


/* ------------------------------------------------------------------ */
/* Bird's-eye view: a voxel grid drawn as an RGBA picture              */
/* ------------------------------------------------------------------ */

/* The largest picture, and the largest grid-x and grid-y drawn. */
#define RC_BEV_MAX_SIZE 16384
/* Entries of a colormap table (kernels/bev-colormaps.h). */
#define RC_BEV_COLORS 256

/* What a column (all voxels k of one (i, j)) is drawn as.  A voxel is
 * empty when its count or occupancy is 0, or, in a mean grid, when the
 * drawn feature is 0 (what robocachevoxelize writes there), NaN or Inf.
 * A column with no non-empty voxel is empty and drawn as the
 * background. */
typedef enum
{
  RC_BEV_DENSITY,               /* count: the column's points; occupancy
                                 * and mean: its non-empty voxels */
  RC_BEV_HEIGHT,                /* k of the column's highest non-empty
                                 * voxel (0 the lowest layer) */
  RC_BEV_FEATURE                /* mean grids only: the value of feature
                                 * plane @feature in the column's highest
                                 * non-empty voxel (what is seen from
                                 * above) */
} rc_bev_value;

typedef enum
{
  RC_BEV_COLORMAP_TURBO,        /* Google's Turbo rainbow, blue to red */
  RC_BEV_COLORMAP_DENSITY       /* gnuplot's pm3d palette from violet to
                                 * yellow */
} rc_bev_colormap;

/* Where the column values come from.  Only dense grids now; sparse
 * pillars (a list of occupied columns) will fill the same column plane
 * and share the colouring. */
typedef enum
{
  RC_BEV_INPUT_DENSE
} rc_bev_input;

typedef struct
{
  rc_bev_input input;
  rc_voxel_grid grid;           /* dims and mode (OCCUPANCY, COUNT, MEAN);
                                 * grid-x and grid-y up to RC_BEV_MAX_SIZE */
  uint32_t n_features;          /* MEAN: feature planes in the grid */
  uint32_t feature;             /* MEAN: the plane tested for emptiness and
                                 * drawn by RC_BEV_FEATURE */
  rc_bev_value value;
  rc_bev_colormap colormap;
  /* Nonzero: the range is the frame's smallest and largest value over its
   * non-empty columns; else [range_min, range_max] in value units
   * (RC_BEV_HEIGHT: voxel layers k). */
  int auto_range;
  double range_min, range_max;
  uint32_t width, height;       /* pixels, 1 .. RC_BEV_MAX_SIZE */
  uint8_t background[4];        /* RGBA of empty pixels */
} rc_bev_params;

/* What a frame held. */
typedef struct
{
  uint64_t columns;             /* non-empty columns */
  double min, max;              /* of their values (0 and 0 if none) */
} rc_bev_stats;

/* Pixel (px, py), row py from the top, shows column
 * i = px * grid-x / width, j = grid-y - 1 - py * grid-y / height (integer
 * division: the column under the pixel's left or top edge; x to the right,
 * y up).  A non-empty column of value v takes colour index
 * floor ((v - lo) * 256 / (hi - lo)) clamped to [0, 255] of the table, the
 * same double operations on CPU and GPU; a range of zero or negative width
 * gives index 255.  @overlay, if not NULL, is a width x height RGBA
 * picture (packed rows) drawn over the view with its alpha in integer
 * arithmetic: out = (o * a + v * (255 - a) + 127) / 255 per channel, alpha
 * 255.  The output rows are @out_pitch bytes apart.  CPU and GPU give the
 * same bytes. */
rc_status rc_bev_check (const rc_bev_params * params);
/* Bytes of the input grid. */
uint64_t rc_bev_input_size (const rc_bev_params * params);
/* Bytes of scratch (the column plane) for rc_bev_render_cpu, and for
 * rc_bev_render_cuda (device memory, 8-byte aligned, contents need not be
 * initialised). */
uint64_t rc_bev_scratch_size (const rc_bev_params * params);
uint64_t rc_bev_cuda_scratch_size (const rc_bev_params * params);

/* CPU: host pointers; @stats may be NULL. */
rc_status rc_bev_render_cpu (const rc_bev_params * params, const void *grid,
    const uint8_t * overlay, void *out, size_t out_pitch, void *scratch,
    rc_bev_stats * stats);

/* CUDA: @grid, @overlay, @out and @scratch device memory; @stats, if not
 * NULL, page-locked host memory valid once @stream is synchronised.
 * Asynchronous on @stream, no allocation. */
rc_status rc_bev_render_cuda (const rc_bev_params * params, const void *grid,
    const uint8_t * overlay, void *out, size_t out_pitch, void *scratch,
    rc_bev_stats * stats, void *stream);

/* ------------------------------------------------------------------ */
/* Batched fusion (recorded data: many episodes, many ticks, one call) */
/* ------------------------------------------------------------------ */

#define RC_FUSE_MAX_STREAMS 16

/* One input stream of every episode: @n_samples samples per episode with
 * non-decreasing times @times [episodes][n_samples] (int64 ns) and values
 * @values [episodes][n_samples][channels] of @type (FLOAT32 or BFLOAT16).
 * Its channels land at columns [offset, offset + channels) of the output
 * row, where offset is the sum of the channels of the streams before it. */
typedef struct
{
  uint32_t n_samples;
  uint32_t channels;
  rc_scalar_type type;
  rc_interp_method method;      /* LINEAR, NEAREST or PREVIOUS */
  const int64_t *times;
  const void *values;
} rc_fuse_stream;

typedef struct
{
  uint32_t episodes;            /* E */
  uint32_t n_ticks;             /* T ticks per episode */
  uint32_t n_streams;
  rc_edge_policy edge;
  rc_fuse_stream streams[RC_FUSE_MAX_STREAMS];
} rc_fuse_params;

/* Total output channels (sum of the streams' channels). */
uint32_t rc_fuse_row_channels (const rc_fuse_params * params);
rc_status rc_fuse_check (const rc_fuse_params * params);

/* Aligns every stream to the ticks @tick_times [E][T] (int64 ns) and
 * concatenates them: @out [E][T][rc_fuse_row_channels] float32.  CPU: host
 * pointers. */
rc_status rc_fuse_cpu (const rc_fuse_params * params,
    const int64_t * tick_times, float *out);

/* CUDA: device pointers (the stream pointers in @params too), one kernel
 * launch, asynchronous on @stream, no allocation. */
rc_status rc_fuse_cuda (const rc_fuse_params * params,
    const int64_t * tick_times, float *out, void *stream);

#ifdef __cplusplus
}
#endif
#endif /* ROBOCACHE_KERNELS_H */
