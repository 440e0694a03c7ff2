// Does compute-sanitizer's initcheck see a copy from one device's memory
// into another's as writing the destination?  Call 254 runs this under
// initcheck on two GPUs: each case fills a fresh allocation on device 0
// from device 1 (or, as the control, from device 0), then reads it back to
// the host, the read that initcheck checks.  Each case prints its name
// before its read, so that any report that follows is the case's.  The
// sources on device 1 are written by a copy from the host, or by a kernel
// on device 1 (as robocachevoxelize's grids are).
//
//   nvcc -arch=sm_90 -o initcheck_peer initcheck_peer.cu
//   compute-sanitizer --tool initcheck ./initcheck_peer
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  std::printf ("%s: %s\n", #call, cudaGetErrorString (e_)); return 1; } \
} while (0)

enum Case { SAME_DEVICE, DEFAULT_KIND, PEER_COPY, DEFAULT_KIND_PEER_ON };

static const char *names[] = {
  "control: device 0 to device 0, cudaMemcpyAsync DeviceToDevice",
  "device 1 to device 0, cudaMemcpyAsync Default (robocache's copy)",
  "device 1 to device 0, cudaMemcpyPeerAsync",
  "device 1 to device 0, cudaMemcpyAsync Default, peer access enabled",
};

__global__ void
fill (unsigned char *out, size_t n)
{
  size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;

  if (i < n)
    out[i] = (unsigned char) (i * 7 + 1);
}

static int
run_case (Case c, const unsigned char *src1, const unsigned char *src0,
    size_t n, cudaStream_t stream, const char *source)
{
  unsigned char *dst, host[1024];

  CHECK (cudaSetDevice (0));
  CHECK (cudaMalloc (&dst, n));
  switch (c) {
    case SAME_DEVICE:
      CHECK (cudaMemcpyAsync (dst, src0, n, cudaMemcpyDeviceToDevice,
              stream));
      break;
    case DEFAULT_KIND:
    case DEFAULT_KIND_PEER_ON:
      CHECK (cudaMemcpyAsync (dst, src1, n, cudaMemcpyDefault, stream));
      break;
    case PEER_COPY:
      CHECK (cudaMemcpyPeerAsync (dst, 0, src1, 1, n, stream));
      break;
  }
  CHECK (cudaStreamSynchronize (stream));
  std::printf ("== %s; source %s\n", names[c], source);
  std::fflush (stdout);
  CHECK (cudaMemcpy (host, dst, n, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    if (host[i] != (unsigned char) (i * 7 + 1)) {
      std::printf ("   wrong byte %zu\n", i);
      return 1;
    }
  std::printf ("   bytes right\n");
  CHECK (cudaFree (dst));
  return 0;
}

int
main ()
{
  const size_t n = 1024;
  unsigned char pattern[1024], *src0, *src1, *src1k;
  cudaStream_t stream;
  int count = 0, can = 0;

  CHECK (cudaGetDeviceCount (&count));
  if (count < 2) {
    std::printf ("needs two devices, found %d\n", count);
    return 1;
  }
  for (size_t i = 0; i < n; i++)
    pattern[i] = (unsigned char) (i * 7 + 1);
  CHECK (cudaSetDevice (1));
  CHECK (cudaMalloc (&src1, n));
  CHECK (cudaMemcpy (src1, pattern, n, cudaMemcpyHostToDevice));
  CHECK (cudaMalloc (&src1k, n));
  fill <<< (n + 255) / 256, 256 >>> (src1k, n);
  CHECK (cudaGetLastError ());
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaSetDevice (0));
  CHECK (cudaMalloc (&src0, n));
  CHECK (cudaMemcpy (src0, pattern, n, cudaMemcpyHostToDevice));
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK (cudaDeviceCanAccessPeer (&can, 0, 1));
  std::printf ("device 0 can access device 1: %d\n", can);
  for (int c = SAME_DEVICE; c <= PEER_COPY; c++)
    if (run_case ((Case) c, src1, src0, n, stream, "copied from the host")
        || run_case ((Case) c, src1k, src0, n, stream,
            "written by a kernel"))
      return 1;
  if (can) {
    CHECK (cudaDeviceEnablePeerAccess (1, 0));
    if (run_case (DEFAULT_KIND_PEER_ON, src1, src0, n, stream,
            "copied from the host")
        || run_case (DEFAULT_KIND_PEER_ON, src1k, src0, n, stream,
            "written by a kernel"))
      return 1;
  }
  return 0;
}
