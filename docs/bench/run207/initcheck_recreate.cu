// Call 265: in elements-multigpu's test_fuse_across_devices, initcheck is
// clean on the first pipeline across devices and reports the destination
// of the fuse's copy as never written from the second on, though the test
// proves the copy wrote it (no earlier run left those bytes).  Between the
// two, the first pipeline's contexts are destroyed (GstCudaContext's
// finalize) and the next pipeline's created anew, so its allocations may
// be given the addresses the first one freed.  Here the copy of
// initcheck_readback.cu (device 1 onto device 0 between two created
// contexts with peer access both ways, read back as robocache's
// allocator reads) in two rounds:
//   recreate  each round creates its contexts and destroys them after
//   keep      both rounds in the same two contexts, the memory freed and
//             allocated again
//   gstreamer as recreate, each context's peer access taken back before
//             the contexts are destroyed, as GStreamer's CUDA library
//             does (added for call 267)
//   overlap   round 2 in a second pair of contexts made while the first
//             pair still lives, each new context given access to every
//             live context of the other device, as GStreamer's CUDA
//             library gives it (added for call 267)
// Each round prints its addresses and announces its read back.  (After
// calls 266 and 267, what it shares with initcheck_readback.cu went into
// initcheck_pair.cuh; the rounds are unchanged.)
//
//   nvcc -arch=sm_90 -o initcheck_recreate initcheck_recreate.cu -lcuda
//   compute-sanitizer --tool initcheck ./initcheck_recreate BYTES MODE
#include <cstring>
#include "initcheck_pair.cuh"

/* Round @round: a kernel-written source in context 1, copied into fresh
 * memory of context 0 with cudaMemcpyAsync Default, read back through
 * page-locked memory on a stream of its own; everything freed after. */
static int
copy_round (const Pair * p, size_t n, int round)
{
  unsigned char *src, *src_k, *dst;
  char what[200];

  CHECK_CU (cuCtxPushCurrent (p->ctx1));
  if (make_sources (n, &src, &src_k))
    return 1;
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxPushCurrent (p->ctx0));
  CHECK (cudaMalloc (&dst, n));
  CHECK_CU (cuCtxPopCurrent (NULL));
  if (pair_copy (p, dst, src_k, n))
    return 1;
  std::snprintf (what, sizeof (what), "round %d: %zu bytes from %p on "
      "device 1 to %p on device 0, read back", round, n, (void *) src_k,
      (void *) dst);
  if (pair_read_back (p, dst, n, what))
    return 1;
  CHECK_CU (cuCtxPushCurrent (p->ctx0));
  CHECK (cudaFree (dst));
  CHECK_CU (cuCtxPopCurrent (NULL));
  CHECK_CU (cuCtxPushCurrent (p->ctx1));
  CHECK (cudaFree (src));
  CHECK (cudaFree (src_k));
  CHECK_CU (cuCtxPopCurrent (NULL));
  return 0;
}

int
main (int argc, char **argv)
{
  const size_t n = argc > 1 ? std::strtoull (argv[1], NULL, 10) : 1024;
  const char *mode = argc > 2 ? argv[2] : "keep";
  const bool gstreamer = std::strcmp (mode, "gstreamer") == 0;
  const bool recreate = gstreamer || std::strcmp (mode, "recreate") == 0;
  const bool overlap = std::strcmp (mode, "overlap") == 0;
  Pair pair, second;

  if (pair_open_devices (&pair))
    return 1;
  std::printf ("mode %s\n", mode);
  if (pair_create (&pair))
    return 1;
  if (copy_round (&pair, n, 1))
    return 1;
  if (recreate && (pair_destroy (&pair, gstreamer) || pair_create (&pair)))
    return 1;
  if (overlap) {
    second = pair;
    if (pair_create (&second))
      return 1;
    if (enable_peer (second.ctx0, pair.ctx1)
        || enable_peer (second.ctx1, pair.ctx0)
        || enable_peer (pair.ctx0, second.ctx1)
        || enable_peer (pair.ctx1, second.ctx0))
      return 1;
    if (copy_round (&second, n, 2) || pair_destroy (&second, false))
      return 1;
  } else if (copy_round (&pair, n, 2)) {
    return 1;
  }
  return pair_destroy (&pair, false);
}
