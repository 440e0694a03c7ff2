/* Bounds for bench-kernels (bench_bounds.h): parts of a workload alone. */
#include "bench_bounds.h"
#include "internal.h"
#include "resample-math.h"
#include "voxelize-math.h"

#include <cuda_runtime.h>

namespace
{

const int kBlock = 256;

/* One thread per 16 bytes of output: every load independent, as many in
 * flight as the GPU holds threads. */
__global__ void
gather_rows (const bench_row_pair * __restrict__ pairs, uint64_t n,
    const float4 * __restrict__ rows, uint32_t nvec, float4 * __restrict__ out)
{
  const uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  const float nan = __int_as_float (0x7fc00000);

  if (i >= n)
    return;
  const bench_row_pair p = pairs[i / nvec];
  const uint32_t v = (uint32_t) (i % nvec);
  const float4 a = rows[(uint64_t) p.row1 * nvec + v];
  const float4 b = rows[(uint64_t) p.row2 * nvec + v];
  float4 y = a;

  if (p.kind == RC_RS_NAN) {
    y = make_float4 (nan, nan, nan, nan);
  } else if (p.kind == RC_RS_INTERP) {
    y.x = rc_rs_lerp_f (a.x, b.x, p.w);
    y.y = rc_rs_lerp_f (a.y, b.y, p.w);
    y.z = rc_rs_lerp_f (a.z, b.z, p.w);
    y.w = rc_rs_lerp_f (a.w, b.w, p.w);
  }
  out[i] = y;
}

/* A single wave, so that every block has let the dependent start at once. */
__global__ void
clear_grid (uint4 * __restrict__ grid, uint64_t n16)
{
#if __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.launch_dependents;");
#endif
  for (uint64_t w = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
      w < n16; w += (uint64_t) gridDim.x * blockDim.x)
    grid[w] = make_uint4 (0, 0, 0, 0);
}

__global__ void
mark_points (const __grid_constant__ rc_voxel_grid grid,
    const float *__restrict__ xyzw, uint64_t n, uint8_t * __restrict__ out)
{
  const uint64_t p = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  uint64_t v = 0;
  int where = RC_POINT_OUT_OF_RANGE;

  if (p < n)
    where = rc_voxel_locate_xyz (__ldg (xyzw + 4 * p),
        __ldg (xyzw + 4 * p + 1), __ldg (xyzw + 4 * p + 2), &grid, &v);
#if __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.wait;" ::: "memory");
#endif
  if (where == RC_POINT_IN_GRID)
    out[v] = 1;
}

}                               /* namespace */

extern "C" rc_status
bench_gather_rows_f32 (const bench_row_pair * pairs, uint64_t n_targets,
    const float *rows, uint32_t channels, float *out, void *stream)
{
  const uint32_t nvec = channels / 4;
  const uint64_t n = n_targets * nvec;

  if (channels % 4 || ((uintptr_t) rows | (uintptr_t) out) % 16)
    return RC_ERROR_INVALID_ARGUMENT;
  if (n == 0)
    return RC_OK;
  gather_rows <<< (unsigned) ((n + kBlock - 1) / kBlock), kBlock, 0,
      (cudaStream_t) stream >>> (pairs, n, (const float4 *) rows, nvec,
      (float4 *) out);
  return rc_check_cuda (cudaGetLastError ());
}

extern "C" rc_status
bench_occupancy_without_stats (const void *points, uint64_t n_points,
    const rc_voxel_grid * grid, void *out, uint64_t out_size, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  cudaLaunchConfig_t config = { };
  cudaLaunchAttribute attr = { };
  int dev = 0, sms = 0, threads = 0, major = 0;
  cudaError_t err;

  if (grid->mode != RC_VOXEL_OCCUPANCY || out_size % 16
      || ((uintptr_t) out | (uintptr_t) points) % 16)
    return RC_ERROR_INVALID_ARGUMENT;
  err = cudaGetDevice (&dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute (&threads,
        cudaDevAttrMaxThreadsPerMultiProcessor, dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
        dev);
  if (err != cudaSuccess)
    return rc_check_cuda (err);

  clear_grid <<< sms * threads / kBlock, kBlock, 0, s >>> ((uint4 *) out,
      out_size / 16);
  err = cudaGetLastError ();
  if (err != cudaSuccess || n_points == 0)
    return rc_check_cuda (err);

  config.gridDim = dim3 ((unsigned) ((n_points + kBlock - 1) / kBlock));
  config.blockDim = dim3 (kBlock);
  config.stream = s;
  if (major >= 9) {
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  return rc_check_cuda (cudaLaunchKernelEx (&config, mark_points, *grid,
          (const float *) points, n_points, (uint8_t *) out));
}
