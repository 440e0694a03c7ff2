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
#include "initcheck_common.cuh"


enum Case { SAME_DEVICE, DEFAULT_KIND, PEER_COPY, DEFAULT_KIND_PEER_ON };

static const char *names[] = {
  "control: device 0 to device 0, cudaMemcpyAsync DeviceToDevice",
  "device 1 to device 0, cudaMemcpyAsync Default (robocache's copy)",
  "device 1 to device 0, cudaMemcpyPeerAsync",
  "device 1 to device 0, cudaMemcpyAsync Default, peer access enabled",
};

static int
run_case (Case c, const unsigned char *src1, const unsigned char *src0,
    size_t n, cudaStream_t stream, const char *source)
{
  unsigned char *dst;
  char what[200];

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
  std::snprintf (what, sizeof (what), "%s; source %s", names[c], source);
  if (read_back (dst, n, what))
    return 1;
  CHECK (cudaFree (dst));
  return 0;
}

int
main ()
{
  const size_t n = 1024;
  unsigned char *src0, *src0k, *src1, *src1k;
  cudaStream_t stream;
  int count = 0, can = 0;

  CHECK (cudaGetDeviceCount (&count));
  if (count < 2) {
    std::printf ("needs two devices, found %d\n", count);
    return 1;
  }
  CHECK (cudaSetDevice (1));
  if (make_sources (n, &src1, &src1k))
    return 1;
  CHECK (cudaSetDevice (0));
  if (make_sources (n, &src0, &src0k))
    return 1;
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
