// initcheck_peer.cu copied between the devices' primary contexts, and
// initcheck saw every copy.  robocache's elements run in the contexts
// GStreamer 1.22 creates (cuCtxCreate: not the primary ones), one a
// device; here the same copies between two such contexts, each case
// printing its name before the read back to the host that initcheck
// checks.  The argument is the size of the copies (1024 bytes by default;
// robocachefuse copies whole grids, 8 MiB in elements-multigpu); a second
// argument runs that case alone (0, 1 or 2), so that each process's error
// count is one case's; a third, `peer`, first lets each context access the
// other's memory (cuCtxEnablePeerAccess, as GStreamer's CUDA library does
// for the contexts it creates where the devices allow it).
//
//   nvcc -arch=sm_90 -o initcheck_ctx initcheck_ctx.cu -lcuda
//   compute-sanitizer --tool initcheck ./initcheck_ctx [BYTES [CASE [peer]]]
#include <cstring>
#include <cuda.h>
#include "initcheck_common.cuh"

#define CHECK_CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
  std::printf ("%s: error %d\n", #call, (int) r_); return 1; } \
} while (0)

enum Case { SAME_CONTEXT, DEFAULT_KIND, PEER_COPY };

static const char *names[] = {
  "control: context 0 to context 0, cudaMemcpyAsync DeviceToDevice",
  "context 1 to context 0, cudaMemcpyAsync Default (robocache's copy)",
  "context 1 to context 0, cuMemcpyPeerAsync",
};

static int
run_case (Case c, CUcontext ctx0, CUcontext ctx1, unsigned char *src0,
    unsigned char *src1, size_t n, cudaStream_t stream, const char *source)
{
  unsigned char *dst;
  char what[200];

  CHECK_CU (cuCtxPushCurrent (ctx0));
  CHECK (cudaMalloc (&dst, n));
  switch (c) {
    case SAME_CONTEXT:
      CHECK (cudaMemcpyAsync (dst, src0, n, cudaMemcpyDeviceToDevice,
              stream));
      break;
    case DEFAULT_KIND:
      CHECK (cudaMemcpyAsync (dst, src1, n, cudaMemcpyDefault, stream));
      break;
    case PEER_COPY:
      CHECK_CU (cuMemcpyPeerAsync ((CUdeviceptr) dst, ctx0,
              (CUdeviceptr) src1, ctx1, n, (CUstream) stream));
      break;
  }
  CHECK (cudaStreamSynchronize (stream));
  std::snprintf (what, sizeof (what), "%s; %zu bytes; source %s", names[c],
      n, source);
  if (read_back (dst, n, what))
    return 1;
  CHECK (cudaFree (dst));
  CHECK_CU (cuCtxPopCurrent (NULL));
  return 0;
}

int
main (int argc, char **argv)
{
  const size_t n = argc > 1 ? std::strtoull (argv[1], NULL, 10) : 1024;
  unsigned char *src0, *src0k, *src1, *src1k;
  CUdevice dev0, dev1;
  CUcontext ctx0, ctx1;
  cudaStream_t stream;
  int count = 0;

  CHECK_CU (cuInit (0));
  CHECK_CU (cuDeviceGetCount (&count));
  if (count < 2) {
    std::printf ("needs two devices, found %d\n", count);
    return 1;
  }
  CHECK_CU (cuDeviceGet (&dev0, 0));
  CHECK_CU (cuDeviceGet (&dev1, 1));
  /* As gst_cuda_context_new (cuCtxCreate_v2 there; CUDA 13 names it
   * cuCtxCreate with parameters): created, then popped. */
  CHECK_CU (cuCtxCreate (&ctx1, NULL, 0, dev1));
  if (make_sources (n, &src1, &src1k))
    return 1;
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxCreate (&ctx0, NULL, 0, dev0));
  if (make_sources (n, &src0, &src0k))
    return 1;
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK_CU (cuCtxPopCurrent (NULL));
  if (argc > 3 && std::strcmp (argv[3], "peer") == 0) {
    CHECK_CU (cuCtxPushCurrent (ctx0));
    CHECK_CU (cuCtxEnablePeerAccess (ctx1, 0));
    CHECK_CU (cuCtxPopCurrent (NULL));
    CHECK_CU (cuCtxPushCurrent (ctx1));
    CHECK_CU (cuCtxEnablePeerAccess (ctx0, 0));
    CHECK_CU (cuCtxPopCurrent (NULL));
    std::printf ("peer access enabled both ways\n");
  }
  for (int c = SAME_CONTEXT; c <= PEER_COPY; c++) {
    if (argc > 2 && c != std::atoi (argv[2]))
      continue;
    if (run_case ((Case) c, ctx0, ctx1, src0, src1, n, stream,
            "copied from the host")
        || run_case ((Case) c, ctx0, ctx1, src0, src1k, n, stream,
            "written by a kernel"))
      return 1;
  }
  return 0;
}
