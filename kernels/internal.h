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

/* CUDA builds: the major version of the architecture the kernels run as
 * on the current device: the device's own where the library holds its
 * machine code, an older one where the driver compiled an older
 * architecture's PTX for it (a build for sm_80 alone, on an H100).  The
 * host's choices that the kernels' code must match (Hopper's vector
 * atomics and dependent launches) follow this, not the device. */
rc_status rc_kernels_compute_major (int *major);

/* RC_OK where rc_copy_rows_* can do @copies, else
 * RC_ERROR_INVALID_ARGUMENT with the detail set. */
rc_status rc_row_copies_check (const rc_row_copy * copies, uint32_t n);

/* Sets @copy to repeat the first of @n_rows rows of @row_bytes over the
 * others (rc_repeat_rows_*); 0 where they would pass the address space. */
int rc_repeat_rows_copy (void *rows, uint64_t row_bytes, uint64_t n_rows,
    rc_row_copy * copy);

#ifdef __cplusplus
}
#endif
#endif
