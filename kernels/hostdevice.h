/* Lets one inline function serve the CPU reference and the CUDA kernels, so
 * that both compute with literally the same formulas. */
#ifndef ROBOCACHE_HOSTDEVICE_H
#define ROBOCACHE_HOSTDEVICE_H

#ifdef __CUDACC__
#define RC_HD __host__ __device__ __forceinline__
#else
#define RC_HD static inline
#endif

#endif
