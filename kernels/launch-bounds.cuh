/* The blocks an SM must hold at once, for __launch_bounds__: the kernels
 * are tuned on Hopper, whose SMs hold 2,048 threads, but Turing's hold
 * 1,024 and those of sm_86, sm_87 and sm_89 1,536.  Asking more than the
 * architecture being compiled holds makes ptxas drop the hint with a
 * warning; RC_MIN_BLOCKS asks what fits instead. */
#ifndef ROBOCACHE_KERNELS_LAUNCH_BOUNDS_CUH
#define ROBOCACHE_KERNELS_LAUNCH_BOUNDS_CUH

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900
#define RC_SM_THREADS 2048
#elif __CUDA_ARCH__ < 800
#define RC_SM_THREADS 1024
#else
#define RC_SM_THREADS 1536
#endif

#define RC_MIN_BLOCKS(block, blocks) \
  ((block) * (blocks) <= RC_SM_THREADS ? (blocks) : RC_SM_THREADS / (block))

#endif
