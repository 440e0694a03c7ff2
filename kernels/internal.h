/* Private helpers shared by the CPU and CUDA halves of the kernel library. */
#ifndef ROBOCACHE_KERNELS_INTERNAL_H
#define ROBOCACHE_KERNELS_INTERNAL_H

#include "robocache-kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records @text as this thread's rc_error_detail(). */
void rc_set_error_detail (const char *text);

/* CUDA builds: turns the last launch error into a status (device.cu). */
rc_status rc_check_launch (void);

/* CUDA builds: a CUDA runtime result (a cudaError_t) as a status. */
rc_status rc_check_cuda (int err);

/* CUDA builds: the major compute capability of the current device. */
rc_status rc_device_compute_major (int *major);

#ifdef __cplusplus
}
#endif
#endif
