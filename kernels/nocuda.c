/* The CUDA entry points of a library built without CUDA: each says so. */
#include "internal.h"

int
rc_device_count (const char **why)
{
  if (why)
    *why = "robocache was built without CUDA";
  return 0;
}

/* The scratch size is known without CUDA; only the call is not built. */
uint64_t
rc_bev_cuda_scratch_size (const rc_bev_params * params)
{
  return 0;
}

rc_status
rc_device_current (int *device)
{
  *device = -1;
  return RC_ERROR_NOT_BUILT;
}

rc_status
rc_pointer_device (const void *ptr, int *device)
{
  *device = -1;
  return RC_ERROR_NOT_BUILT;
}

rc_status
rc_device_enable_peer_access (int peer, int *enabled)
{
  *enabled = 0;
  return RC_ERROR_NOT_BUILT;
}

const char *
rc_cuda_architectures (void)
{
  return "";
}

int
rc_fault_fired (void)
{
  return 0;
}

#define NOT_BUILT(decl) decl { return RC_ERROR_NOT_BUILT; }

/* *INDENT-OFF* */
NOT_BUILT (rc_status rc_device_alloc (void **ptr, size_t size))
NOT_BUILT (rc_status rc_device_free (void *ptr))
NOT_BUILT (rc_status rc_device_check_kernels (void))
NOT_BUILT (rc_status rc_fault_inject (rc_fault kind, int after_n_calls))
NOT_BUILT (rc_status rc_host_alloc (void **ptr, size_t size))
NOT_BUILT (rc_status rc_host_free (void *ptr))
NOT_BUILT (rc_status rc_device_memory_info (size_t *free_bytes,
        size_t *total_bytes))
NOT_BUILT (rc_status rc_device_copy_async (void *dst, const void *src,
        size_t size, rc_copy_kind kind, void *stream))
NOT_BUILT (rc_status rc_device_copy_2d_async (void *dst, size_t dst_pitch,
        const void *src, size_t src_pitch, size_t width, size_t height,
        rc_copy_kind kind, void *stream))
NOT_BUILT (rc_status rc_device_memset_async (void *dst, int value,
        size_t size, void *stream))
NOT_BUILT (rc_status rc_stream_create (void **stream))
NOT_BUILT (rc_status rc_stream_destroy (void *stream))
NOT_BUILT (rc_status rc_stream_synchronize (void *stream))
NOT_BUILT (rc_status rc_event_create (void **event))
NOT_BUILT (rc_status rc_event_destroy (void *event))
NOT_BUILT (rc_status rc_event_record (void *event, void *stream))
NOT_BUILT (rc_status rc_event_elapsed_ms (void *start, void *end, float *ms))
NOT_BUILT (rc_status rc_fence_create (void **event))
NOT_BUILT (rc_status rc_event_synchronize (void *event))
NOT_BUILT (rc_status rc_stream_wait_event (void *stream, void *event))
NOT_BUILT (rc_status rc_device_name (char *buf, size_t len))
NOT_BUILT (rc_status rc_device_select (int device))
NOT_BUILT (rc_status rc_stream_wait (void *waiting, void *producing))
NOT_BUILT (rc_status rc_device_alloc_async (void **ptr, size_t size,
        void *stream))
NOT_BUILT (rc_status rc_device_free_async (void *ptr, void *stream))
NOT_BUILT (rc_status rc_seconds_to_ns_cuda (const double *seconds,
        int64_t * ns, uint64_t n, void *stream))
NOT_BUILT (rc_status rc_copy_rows_cuda (const rc_row_copy * copies,
        uint32_t n, void *stream))
NOT_BUILT (rc_status rc_repeat_rows_cuda (void *rows, uint64_t row_bytes,
        uint64_t n_rows, void *stream))
NOT_BUILT (rc_status rc_to_float32_cuda (rc_scalar_type type,
        const void *src, uint64_t n, float *out, void *stream))
NOT_BUILT (rc_status rc_voxelize_cuda (const rc_point_layout * layout,
        const rc_voxel_grid * grid, const void *points,
        const uint64_t * cloud_sizes, uint32_t n_clouds, void *out,
        void *scratch, rc_voxelize_stats * stats, void *stream))
NOT_BUILT (rc_status rc_voxelize_cuda_scratch_reset (void *scratch,
        void *stream))
NOT_BUILT (rc_status rc_sparse_cuda_scratch_size (
        const rc_point_layout * layout, const rc_sparse_params * params,
        uint64_t max_points, uint64_t * size))
NOT_BUILT (rc_status rc_sparse_voxelize_cuda (const rc_point_layout * layout,
        const rc_sparse_params * params, const void *points,
        uint64_t n_points, const rc_sparse_output * out, void *scratch,
        uint64_t scratch_size, rc_sparse_stats * stats, void *stream))
NOT_BUILT (rc_status rc_resample_cuda (const rc_resample_params * params,
        const int64_t * source_times, const void *source_values,
        const int64_t * target_times, void *out, void *stream))
NOT_BUILT (rc_status rc_times_disordered_cuda (const int64_t * times,
        uint32_t batch, uint64_t n, uint8_t * disordered, uint64_t tail,
        int64_t * ends, void *stream))
NOT_BUILT (rc_status rc_fuse_cuda (const rc_fuse_params * params,
        const int64_t * tick_times, float *out, void *stream))
NOT_BUILT (rc_status rc_bev_render_cuda (const rc_bev_params * params,
        const void *grid, const uint8_t * overlay, void *out,
        size_t out_pitch, void *scratch, rc_bev_stats * stats, void *stream))
/* *INDENT-ON* */
