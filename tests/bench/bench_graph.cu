/* Back-to-back timing for bench-kernels (bench_graph.h). */
#include "bench_graph.h"
#include "internal.h"

#include <cuda_runtime.h>

namespace
{

__global__ void
do_nothing ()
{
}

}                               /* namespace */

extern "C" rc_status
bench_graph_capture (bench_call call, void *ctx, int n_sets, int n_calls,
    void *stream, void **graph)
{
  cudaStream_t s = (cudaStream_t) stream;
  cudaGraph_t captured = NULL;
  cudaGraphExec_t exec = NULL;
  rc_status ret;

  *graph = NULL;
  /* Thread-local: the calls' own queries (e.g. compute capability) are
   * not stream work and stay allowed. */
  ret = rc_check_cuda (cudaStreamBeginCapture (s,
          cudaStreamCaptureModeThreadLocal));
  if (ret != RC_OK)
    return ret;
  for (int k = 0; k < n_calls; k++)
    call (ctx, k % n_sets);
  ret = rc_check_cuda (cudaStreamEndCapture (s, &captured));
  if (ret == RC_OK)
    ret = rc_check_cuda (cudaGraphInstantiate (&exec, captured, 0));
  if (captured)
    cudaGraphDestroy (captured);
  if (ret == RC_OK)
    *graph = exec;
  return ret;
}

extern "C" rc_status
bench_graph_replay (void *graph, void *stream)
{
  return rc_check_cuda (cudaGraphLaunch ((cudaGraphExec_t) graph,
          (cudaStream_t) stream));
}

extern "C" void
bench_graph_free (void *graph)
{
  if (graph)
    cudaGraphExecDestroy ((cudaGraphExec_t) graph);
}

extern "C" rc_status
bench_empty_launch (void *stream)
{
  do_nothing <<< 1, 32, 0, (cudaStream_t) stream >>> ();
  return rc_check_launch ();
}
