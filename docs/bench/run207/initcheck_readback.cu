// Run 206 found initcheck clean on every isolated copy of device-1 memory
// onto device 0 (initcheck_ctx.cu), yet reporting the whole destination of
// robocachefuse's same copy as never written when the test reads it back.
// What the isolated copies did not do as the element does is the read
// back: robocache's allocator copies into a page-locked, portable host
// block (cudaHostAlloc), with cudaMemcpyAsync on a stream of its own in
// the destination's context, from the thread that maps the memory, not
// the one that copied.  Here the copy of initcheck_ctx.cu's case 1
// (cudaMemcpyAsync Default between two created contexts with peer access
// both ways, as GStreamer's CUDA library sets them up), then one of these
// read backs, each case announced before its read back:
//   0  cudaMemcpy into pageable memory, same thread (run 206's control)
//   1  cudaMemcpyAsync on a second stream into portable page-locked
//      memory, same thread
//   2  the same from another thread, which pushes the context itself
// (After call 262, what it shares with initcheck_recreate.cu went into
// initcheck_pair.cuh, and the unused sources it also made on device 0
// were dropped; the copy and the read backs are unchanged.)
//
//   nvcc -arch=sm_90 -o initcheck_readback initcheck_readback.cu -lcuda
//   compute-sanitizer --tool initcheck ./initcheck_readback BYTES CASE
#include <thread>
#include "initcheck_pair.cuh"

static const char *names[] = {
  "cudaMemcpy into pageable memory, same thread",
  "cudaMemcpyAsync on a second stream into portable page-locked memory, "
      "same thread",
  "cudaMemcpyAsync on a second stream into portable page-locked memory, "
      "another thread",
};

int
main (int argc, char **argv)
{
  const size_t n = argc > 1 ? std::strtoull (argv[1], NULL, 10) : 1024;
  const int c = argc > 2 ? std::atoi (argv[2]) : 0;
  unsigned char *src, *src_k, *dst;
  char what[240];
  Pair pair;
  int ret = 0;

  if (c < 0 || c > 2) {
    std::printf ("the read back is 0, 1 or 2\n");
    return 1;
  }
  if (pair_open_devices (&pair) || pair_create (&pair))
    return 1;
  CHECK_CU (cuCtxPushCurrent (pair.ctx1));
  if (make_sources (n, &src, &src_k))
    return 1;
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxPushCurrent (pair.ctx0));
  CHECK (cudaMalloc (&dst, n));
  CHECK_CU (cuCtxPopCurrent (NULL));
  if (pair_copy (&pair, dst, src_k, n))
    return 1;
  std::snprintf (what, sizeof (what), "%zu bytes of device 1 copied onto "
      "device 0, read back by %s", n, names[c]);
  if (c == 0) {
    CHECK_CU (cuCtxPushCurrent (pair.ctx0));
    ret = read_back (dst, n, what);
    CHECK_CU (cuCtxPopCurrent (NULL));
  } else if (c == 1) {
    ret = pair_read_back (&pair, dst, n, what);
  } else {
    std::thread reader ([&] {
          ret = pair_read_back (&pair, dst, n, what);
        });
    reader.join ();
  }
  return ret;
}
