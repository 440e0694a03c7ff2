// Call 273: robocachebev on a context of its own, drawing grids that a
// pipeline on another context of the same device voxelized, is reported
// by initcheck as reading its never-written scratch, although its
// pictures are the one-pipeline ones (elements-cuda,
// test_contexts_of_two_pipelines, passes plainly).  Here, without
// GStreamer: two contexts of device 0 made as gst_cuda_context_new makes
// them, a kernel-written source in one copied into the other with
// cudaMemcpyAsync of kind Default (robocache's copy of another context's
// memory), then read by a kernel and back to the host.  The control
// copies within one context.
//
//   nvcc -arch=sm_90 -o initcheck_samedevice initcheck_samedevice.cu -lcuda
//   compute-sanitizer --tool initcheck ./initcheck_samedevice BYTES MODE
// MODE: across (the source in the other context) or within (the control).
#include <cstring>
#include <cuda.h>
#include "../run206/initcheck_common.cuh"

#define CHECK_CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
  std::printf ("%s: error %d\n", #call, (int) r_); return 1; } \
} while (0)

/* Adds up @n bytes into *sum, so that a kernel reads every one. */
__global__ void
add_up (const unsigned char *in, size_t n, unsigned long long *sum)
{
  size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;

  if (i < n)
    atomicAdd (sum, (unsigned long long) in[i]);
}

int
main (int argc, char **argv)
{
  const size_t n = argc > 1 ? std::strtoull (argv[1], NULL, 10) : 1024;
  const bool across = argc > 2 && std::strcmp (argv[2], "across") == 0;
  unsigned char *src, *src_k, *dst;
  unsigned long long *sum, host_sum = 0, want = 0;
  CUcontext own, other;
  CUdevice dev;
  cudaStream_t stream;

  CHECK_CU (cuInit (0));
  CHECK_CU (cuDeviceGet (&dev, 0));
  CHECK_CU (cuCtxCreate (&other, NULL, 0, dev));
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxCreate (&own, NULL, 0, dev));
  CHECK_CU (cuCtxPopCurrent (NULL));
  std::printf ("two contexts of device 0; the source %s\n",
      across ? "in the other one" : "in the copy's own");

  CHECK_CU (cuCtxPushCurrent (across ? other : own));
  if (make_sources (n, &src, &src_k))
    return 1;
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxPushCurrent (own));
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK (cudaMalloc (&dst, n));
  CHECK (cudaMalloc (&sum, sizeof (*sum)));
  CHECK (cudaMemsetAsync (sum, 0, sizeof (*sum), stream));
  CHECK (cudaMemcpyAsync (dst, src_k, n, cudaMemcpyDefault, stream));
  std::printf ("== %zu bytes copied, read by a kernel\n", n);
  std::fflush (stdout);
  add_up <<< (n + 255) / 256, 256, 0, stream >>> (dst, n, sum);
  CHECK (cudaGetLastError ());
  CHECK (cudaMemcpyAsync (&host_sum, sum, sizeof (host_sum),
          cudaMemcpyDeviceToHost, stream));
  CHECK (cudaStreamSynchronize (stream));
  for (size_t i = 0; i < n; i++)
    want += pattern_byte (i);
  std::printf ("   sum %s\n", host_sum == want ? "right" : "wrong");
  if (read_back (dst, n, "read back to the host"))
    return 1;
  CHECK_CU (cuCtxPopCurrent (NULL));
  return host_sum != want;
}
