// What initcheck_readback.cu and initcheck_recreate.cu share: two devices'
// contexts made as gst_cuda_context_new makes them (cuCtxCreate, then
// popped), each allowed to read the other's memory (cuCtxEnablePeerAccess,
// as GStreamer's CUDA library allows it), and two streams of context 0:
// one for the copy between devices, one for the read back (robocache's
// allocator reads on a stream of its own).
#include <cuda.h>
#include "../run206/initcheck_common.cuh"

#define CHECK_CU(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
  std::printf ("%s: error %d\n", #call, (int) r_); return 1; } \
} while (0)

struct Pair
{
  CUdevice dev0, dev1;
  CUcontext ctx0, ctx1;
  cudaStream_t stream, copy_stream;
};

/* Devices 0 and 1 into @p, or 1 when the machine has fewer than two. */
static int
pair_open_devices (Pair * p)
{
  int count = 0;

  CHECK_CU (cuInit (0));
  CHECK_CU (cuDeviceGetCount (&count));
  if (count < 2) {
    std::printf ("needs two devices, found %d\n", count);
    return 1;
  }
  CHECK_CU (cuDeviceGet (&p->dev0, 0));
  CHECK_CU (cuDeviceGet (&p->dev1, 1));
  return 0;
}

/* Lets @ctx read and write @peer's memory, as gst_cuda_context_new does
 * for every live context of another device, each way. */
static int
enable_peer (CUcontext ctx, CUcontext peer)
{
  CHECK_CU (cuCtxPushCurrent (ctx));
  CHECK_CU (cuCtxEnablePeerAccess (peer, 0));
  CHECK_CU (cuCtxPopCurrent (NULL));
  return 0;
}

static int
pair_create (Pair * p)
{
  CHECK_CU (cuCtxCreate (&p->ctx1, NULL, 0, p->dev1));
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxCreate (&p->ctx0, NULL, 0, p->dev0));
  CHECK (cudaStreamCreateWithFlags (&p->stream, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&p->copy_stream, cudaStreamNonBlocking));
  CHECK_CU (cuCtxPopCurrent (NULL));
  return enable_peer (p->ctx0, p->ctx1) || enable_peer (p->ctx1, p->ctx0);
}

/* Destroys @p's contexts; with @disable_peers, first takes back each one's
 * access to the other's memory (cuCtxDisablePeerAccess), as GStreamer's
 * CUDA library does when a GstCudaContext goes. */
static int
pair_destroy (Pair * p, bool disable_peers)
{
  if (disable_peers) {
    CHECK_CU (cuCtxPushCurrent (p->ctx0));
    CHECK_CU (cuCtxDisablePeerAccess (p->ctx1));
    CHECK_CU (cuCtxPopCurrent (NULL));
    CHECK_CU (cuCtxPushCurrent (p->ctx1));
    CHECK_CU (cuCtxDisablePeerAccess (p->ctx0));
    CHECK_CU (cuCtxPopCurrent (NULL));
  }
  CHECK_CU (cuCtxPushCurrent (p->ctx0));
  CHECK (cudaStreamDestroy (p->stream));
  CHECK (cudaStreamDestroy (p->copy_stream));
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxDestroy (p->ctx0));
  CHECK_CU (cuCtxDestroy (p->ctx1));
  return 0;
}

/* Copies @n bytes of @src (context 1) into @dst (context 0) as robocache
 * copies between devices: cudaMemcpyAsync of kind Default on context 0's
 * stream, waited for. */
static int
pair_copy (const Pair * p, unsigned char *dst, const unsigned char *src,
    size_t n)
{
  CHECK_CU (cuCtxPushCurrent (p->ctx0));
  CHECK (cudaMemcpyAsync (dst, src, n, cudaMemcpyDefault, p->stream));
  CHECK (cudaStreamSynchronize (p->stream));
  CHECK_CU (cuCtxPopCurrent (NULL));
  return 0;
}

/* Reads @n bytes of @dst (context 0) back as robocache's allocator does:
 * context 0 pushed, portable page-locked host memory, cudaMemcpyAsync on
 * the read-back stream; @what said first; 1 when a byte is not the
 * pattern's. */
static int
pair_read_back (const Pair * p, const unsigned char *dst, size_t n,
    const char *what)
{
  unsigned char *host;
  int wrong = -1;

  CHECK_CU (cuCtxPushCurrent (p->ctx0));
  CHECK (cudaHostAlloc ((void **) &host, n, cudaHostAllocPortable));
  std::printf ("== %s\n", what);
  std::fflush (stdout);
  CHECK (cudaMemcpyAsync (host, dst, n, cudaMemcpyDeviceToHost,
          p->copy_stream));
  CHECK (cudaStreamSynchronize (p->copy_stream));
  for (size_t i = 0; i < n && wrong < 0; i++)
    if (host[i] != pattern_byte (i))
      wrong = (int) i;
  CHECK (cudaFreeHost (host));
  CHECK_CU (cuCtxPopCurrent (NULL));
  std::printf (wrong >= 0 ? "   wrong byte\n" : "   bytes right\n");
  return wrong >= 0;
}
