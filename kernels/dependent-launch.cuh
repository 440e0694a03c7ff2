/* Programmatic dependent launch (sm_90 and later), shared by the kernels
 * that chain launches on one stream: a dependent launch starts once every
 * block of the grid before it has let it (or ended), so its launch and
 * first instructions overlap that grid's last blocks; it waits for the
 * whole previous grid to finish and its writes to be visible before it
 * touches what that grid wrote.  On older GPUs, and for launches not made
 * dependent, both device calls are no-ops and the stream orders the
 * launches as usual. */
#ifndef ROBOCACHE_KERNELS_DEPENDENT_LAUNCH_CUH
#define ROBOCACHE_KERNELS_DEPENDENT_LAUNCH_CUH

#include "internal.h"

#include <cuda_runtime.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define WAIT_FOR_PREVIOUS_GRID() \
  asm volatile ("griddepcontrol.wait;" ::: "memory")
#define LET_DEPENDENTS_START() \
  asm volatile ("griddepcontrol.launch_dependents;")
#else
#define WAIT_FOR_PREVIOUS_GRID() do { } while (0)
#define LET_DEPENDENTS_START() do { } while (0)
#endif

/* Launches @kernel (@blocks of @threads, @shared bytes of dynamic shared
 * memory) on @s; with @dependent, as a programmatic dependent of the
 * launch before it.  Checked as every launch is (rc_check_launch), fault
 * injection included. */
template < typename ... Params, typename ... Args >
static rc_status
rc_launch_shared (bool dependent, unsigned blocks, unsigned threads,
    size_t shared, cudaStream_t s, void (*kernel) (Params ...), Args ... args)
{
  cudaLaunchConfig_t config = { };
  cudaLaunchAttribute attr = { };

  config.gridDim = dim3 (blocks);
  config.blockDim = dim3 (threads);
  config.dynamicSmemBytes = shared;
  config.stream = s;
  if (dependent) {
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
  cudaError_t err = cudaLaunchKernelEx (&config, kernel, args ...);

  return err != cudaSuccess ? rc_check_cuda (err) : rc_check_launch ();
}

/* The same without dynamic shared memory. */
template < typename ... Params, typename ... Args >
static rc_status
rc_launch (bool dependent, unsigned blocks, unsigned threads, cudaStream_t s,
    void (*kernel) (Params ...), Args ... args)
{
  return rc_launch_shared (dependent, blocks, threads, 0, s, kernel,
      args ...);
}

#endif
