/* Checked wrappers around the CUDA runtime, for the elements, the tests and
 * the benchmarks. */
#include "internal.h"
#include "seconds-math.h"

#include <cuda_runtime.h>
#include <algorithm>
#include <climits>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fault injection (rc_fault_inject): the armed kind, the calls of that
 * kind still to pass before it fires, and the errors reported so far;
 * atomics, as any streaming thread may be checking while a test arms. */
static int fault_kind = RC_FAULT_NONE;
static int fault_left;
static int fault_fired;
static pthread_once_t fault_env_once = PTHREAD_ONCE_INIT;

static void
fault_arm (rc_fault kind, int after_n_calls)
{
  __atomic_store_n (&fault_kind, (int) RC_FAULT_NONE, __ATOMIC_RELEASE);
  __atomic_store_n (&fault_fired, 0, __ATOMIC_RELEASE);
  __atomic_store_n (&fault_left, after_n_calls, __ATOMIC_RELEASE);
  __atomic_store_n (&fault_kind, (int) kind, __ATOMIC_RELEASE);
}

/* ROBOCACHE_FAULT_INJECT=alloc|launch|sticky|kernel-image[:N] */
static void
fault_read_env (void)
{
  static const char *const names[] = { "none", "alloc", "launch", "sticky",
    "kernel-image"
  };
  const char *env = getenv ("ROBOCACHE_FAULT_INJECT");
  const char *colon;

  if (!env || !*env)
    return;
  colon = strchr (env, ':');
  for (int k = 0; k < 5; k++) {
    size_t len = strlen (names[k]);
    if (strncmp (env, names[k], len) == 0 && (env[len] == '\0'
            || env + len == colon))
      fault_arm ((rc_fault) k, colon ? abs (atoi (colon + 1)) : 0);
  }
}

/* The error an armed fault of kind @site makes this call report, or
 * cudaSuccess (check() asks for RC_FAULT_STICKY on every call; a launch
 * check is a site of RC_FAULT_KERNEL_IMAGE too). */
static cudaError_t
fault_take (rc_fault site)
{
  int kind;

  pthread_once (&fault_env_once, fault_read_env);
  kind = __atomic_load_n (&fault_kind, __ATOMIC_ACQUIRE);
  if (kind != (int) site && !(kind == RC_FAULT_KERNEL_IMAGE
          && site == RC_FAULT_LAUNCH))
    return cudaSuccess;
  if (__atomic_fetch_sub (&fault_left, 1, __ATOMIC_ACQ_REL) > 0)
    return cudaSuccess;
  /* These two last until disarmed. */
  if (kind == RC_FAULT_STICKY || kind == RC_FAULT_KERNEL_IMAGE) {
    __atomic_store_n (&fault_left, 0, __ATOMIC_RELEASE);
    __atomic_fetch_add (&fault_fired, 1, __ATOMIC_ACQ_REL);
    return kind == RC_FAULT_STICKY ? cudaErrorIllegalAddress :
        cudaErrorNoKernelImageForDevice;
  }
  /* Once only, also when two threads reach it together. */
  if (!__atomic_compare_exchange_n (&fault_kind, &kind, (int) RC_FAULT_NONE,
          false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return cudaSuccess;
  __atomic_fetch_add (&fault_fired, 1, __ATOMIC_ACQ_REL);
  return site == RC_FAULT_ALLOC ? cudaErrorMemoryAllocation :
      cudaErrorLaunchOutOfResources;
}

extern "C" rc_status
rc_fault_inject (rc_fault kind, int after_n_calls)
{
  if (kind < RC_FAULT_NONE || kind > RC_FAULT_KERNEL_IMAGE
      || after_n_calls < 0)
    return RC_ERROR_INVALID_ARGUMENT;
  /* The environment first, so that it cannot override this later. */
  pthread_once (&fault_env_once, fault_read_env);
  fault_arm (kind, after_n_calls);
  return RC_OK;
}

extern "C" int
rc_fault_fired (void)
{
  return __atomic_load_n (&fault_fired, __ATOMIC_ACQUIRE);
}

/* meson's cuda-architectures, which nvcc was given as -gencode flags. */
#ifndef RC_CUDA_ARCHITECTURES
#error "the build passes the CUDA architectures as RC_CUDA_ARCHITECTURES"
#endif

extern "C" const char *
rc_cuda_architectures (void)
{
  return RC_CUDA_ARCHITECTURES;
}

/* @list ("75;80;90") with @arch added in order, unless it is there. */
static void
architectures_with (char *buf, size_t len, int arch)
{
  const char *p = RC_CUDA_ARCHITECTURES;
  size_t used = 0;
  bool added = false;

  buf[0] = '\0';
  while (*p && used < len) {
    int a = atoi (p);

    if (!added && arch <= a) {
      if (arch < a)
        used += snprintf (buf + used, len - used, "%s%d", used ? ";" : "",
            arch);
      added = true;
    }
    if (used < len)
      used += snprintf (buf + used, len - used, "%s%d", used ? ";" : "", a);
    p += strcspn (p, ";");
    p += *p == ';';
  }
  if (!added && used < len)
    snprintf (buf + used, len - used, "%s%d", used ? ";" : "", arch);
}

/* What a user whose GPU cannot run the kernels needs to know: which GPU,
 * what was built, and how to build what it runs (or that the driver is
 * older than the toolkit that compiled the PTX). */
static void
describe_unsupported (char *buf, size_t len, cudaError_t err)
{
  cudaDeviceProp prop;
  int dev = 0, arch;
  char wanted[128];

  if (cudaGetDevice (&dev) != cudaSuccess
      || cudaGetDeviceProperties (&prop, dev) != cudaSuccess) {
    (void) cudaGetLastError ();
    snprintf (prop.name, sizeof (prop.name), "unknown");
    prop.major = prop.minor = 0;
  }
  arch = prop.major * 10 + prop.minor;
  architectures_with (wanted, sizeof (wanted), arch);
  if (err == cudaErrorUnsupportedPtxVersion)
    snprintf (buf, len, "%s: CUDA device %d (%s, sm_%d) has machine code "
        "in none of robocache's architectures (%s), and its driver is older "
        "than the CUDA toolkit that compiled their PTX: update the NVIDIA "
        "driver, or rebuild with -Dcuda-architectures='%s'",
        cudaGetErrorName (err), dev, prop.name, arch, RC_CUDA_ARCHITECTURES,
        wanted);
  else if (strcmp (wanted, RC_CUDA_ARCHITECTURES) == 0)
    snprintf (buf, len, "%s: CUDA device %d (%s) is sm_%d, and robocache's "
        "kernels were built for cuda-architectures '%s', which name it, yet "
        "none of their code loads on it: rebuild robocache with "
        "-Dcuda-architectures='%s'", cudaGetErrorName (err), dev, prop.name,
        arch, RC_CUDA_ARCHITECTURES, wanted);
  else
    snprintf (buf, len, "%s: CUDA device %d (%s) is sm_%d, and robocache's "
        "kernels were built for cuda-architectures '%s' (machine code for "
        "each, PTX of the last for newer GPUs): rebuild with "
        "-Dcuda-architectures='%s'", cudaGetErrorName (err), dev, prop.name,
        arch, RC_CUDA_ARCHITECTURES, wanted);
}

static bool
unsupported_device (cudaError_t err)
{
  return err == cudaErrorNoKernelImageForDevice
      || err == cudaErrorUnsupportedPtxVersion;
}

/* The status of a CUDA result (turned into the armed sticky error, if one
 * is), with rc_error_detail() naming the error: "cudaErrorX: text". */
static rc_status
check (cudaError_t err)
{
  char detail[512];

  if (err == cudaSuccess)
    err = fault_take (RC_FAULT_STICKY);
  if (err == cudaSuccess)
    return RC_OK;
  if (unsupported_device (err))
    describe_unsupported (detail, sizeof (detail), err);
  else
    snprintf (detail, sizeof (detail), "%s: %s", cudaGetErrorName (err),
        cudaGetErrorString (err));
  rc_set_error_detail (detail);
  /* Clear the sticky-free error state so that a later call is judged on its
   * own. */
  (void) cudaGetLastError ();
  switch (err) {
    case cudaErrorMemoryAllocation:
      return RC_ERROR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return RC_ERROR_NO_DEVICE;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      return RC_ERROR_UNSUPPORTED_DEVICE;
    default:
      return RC_ERROR_CUDA;
  }
}

extern "C" int
rc_device_count (const char **why)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    (void) cudaGetLastError ();
    if (why)
      *why = cudaGetErrorString (err);
    return 0;
  }
  if (n == 0 && why)
    *why = "no CUDA device";
  return n;
}

/* An allocation's status: on failure (an armed sticky fault too, after
 * the allocation itself succeeded) nothing stays allocated. */
static rc_status
allocated (cudaError_t err, void **ptr, cudaError_t (*release) (void *))
{
  rc_status ret = check (err);

  if (ret != RC_OK && *ptr) {
    (void) release (*ptr);
    *ptr = NULL;
  }
  return ret;
}

extern "C" rc_status
rc_device_alloc (void **ptr, size_t size)
{
  cudaError_t fault = fault_take (RC_FAULT_ALLOC);

  *ptr = NULL;
  return allocated (fault ? fault : cudaMalloc (ptr, size ? size : 1), ptr,
      cudaFree);
}

extern "C" rc_status
rc_device_free (void *ptr)
{
  return ptr ? check (cudaFree (ptr)) : RC_OK;
}

extern "C" rc_status
rc_host_alloc (void **ptr, size_t size)
{
  *ptr = NULL;
  /* Portable: every context copies to and from it at full speed, so a
   * block made for one element serves any other. */
  return allocated (cudaHostAlloc (ptr, size ? size : 1,
          cudaHostAllocPortable), ptr, cudaFreeHost);
}

extern "C" rc_status
rc_host_free (void *ptr)
{
  return ptr ? check (cudaFreeHost (ptr)) : RC_OK;
}

static cudaMemcpyKind
memcpy_kind (rc_copy_kind kind)
{
  static const cudaMemcpyKind kinds[] = {
    cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
    cudaMemcpyDefault
  };
  return kinds[kind];
}

extern "C" rc_status
rc_device_copy_async (void *dst, const void *src, size_t size,
    rc_copy_kind kind, void *stream)
{
  if (size == 0)
    return RC_OK;
  return check (cudaMemcpyAsync (dst, src, size, memcpy_kind (kind),
          (cudaStream_t) stream));
}

extern "C" rc_status
rc_device_copy_2d_async (void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, size_t width, size_t height, rc_copy_kind kind,
    void *stream)
{
  if (width == 0 || height == 0)
    return RC_OK;
  return check (cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, width,
          height, memcpy_kind (kind), (cudaStream_t) stream));
}

extern "C" rc_status
rc_device_memset_async (void *dst, int value, size_t size, void *stream)
{
  if (size == 0)
    return RC_OK;
  return check (cudaMemsetAsync (dst, value, size, (cudaStream_t) stream));
}

extern "C" rc_status
rc_stream_create (void **stream)
{
  cudaStream_t s = NULL;
  rc_status ret = check (cudaStreamCreateWithFlags (&s,
          cudaStreamNonBlocking));
  *stream = s;
  return ret;
}

extern "C" rc_status
rc_stream_destroy (void *stream)
{
  return stream ? check (cudaStreamDestroy ((cudaStream_t) stream)) : RC_OK;
}

extern "C" rc_status
rc_stream_synchronize (void *stream)
{
  return check (cudaStreamSynchronize ((cudaStream_t) stream));
}

extern "C" rc_status
rc_event_create (void **event)
{
  cudaEvent_t e = NULL;
  rc_status ret = check (cudaEventCreate (&e));
  *event = e;
  return ret;
}

extern "C" rc_status
rc_event_destroy (void *event)
{
  return event ? check (cudaEventDestroy ((cudaEvent_t) event)) : RC_OK;
}

extern "C" rc_status
rc_event_record (void *event, void *stream)
{
  return check (cudaEventRecord ((cudaEvent_t) event, (cudaStream_t) stream));
}

extern "C" rc_status
rc_fence_create (void **event)
{
  cudaEvent_t e = NULL;
  rc_status ret = check (cudaEventCreateWithFlags (&e,
          cudaEventDisableTiming));
  *event = e;
  return ret;
}

extern "C" rc_status
rc_event_synchronize (void *event)
{
  return check (cudaEventSynchronize ((cudaEvent_t) event));
}

extern "C" rc_status
rc_stream_wait_event (void *stream, void *event)
{
  return check (cudaStreamWaitEvent ((cudaStream_t) stream,
          (cudaEvent_t) event, 0));
}

extern "C" rc_status
rc_event_elapsed_ms (void *start, void *end, float *ms)
{
  rc_status ret = check (cudaEventSynchronize ((cudaEvent_t) end));
  *ms = 0;
  if (ret == RC_OK)
    ret = check (cudaEventElapsedTime (ms, (cudaEvent_t) start,
            (cudaEvent_t) end));
  return ret;
}

extern "C" rc_status
rc_device_memory_info (size_t *free_bytes, size_t *total_bytes)
{
  if (!free_bytes || !total_bytes)
    return RC_ERROR_INVALID_ARGUMENT;
  *free_bytes = *total_bytes = 0;
  return check (cudaMemGetInfo (free_bytes, total_bytes));
}

extern "C" rc_status
rc_device_name (char *buf, size_t len)
{
  cudaDeviceProp prop;
  int dev = 0;
  rc_status ret;

  if (!buf || len == 0)
    return RC_ERROR_INVALID_ARGUMENT;
  buf[0] = '\0';
  ret = check (cudaGetDevice (&dev));
  if (ret == RC_OK)
    ret = check (cudaGetDeviceProperties (&prop, dev));
  if (ret == RC_OK)
    snprintf (buf, len, "%s", prop.name);
  return ret;
}

/* For the launchers in the other .cu files. */
extern "C" rc_status
rc_check_launch (void)
{
  cudaError_t err = cudaGetLastError ();

  return check (err ? err : fault_take (RC_FAULT_LAUNCH));
}

extern "C" rc_status
rc_check_cuda (int err)
{
  return check ((cudaError_t) err);
}

/* Compiled as every kernel is: where it has no image for the device,
 * none has. */
static __global__ void
kernel_probe (void)
{
}

/* The probe's attributes on the current device, or why it has none. */
static cudaError_t
probe_attributes (cudaFuncAttributes * attr)
{
  cudaError_t err = fault_take (RC_FAULT_KERNEL_IMAGE);

  if (err == cudaSuccess)
    err = cudaFuncGetAttributes (attr, kernel_probe);
  /* Without an image the runtime may name the function, not the image. */
  return err == cudaErrorInvalidDeviceFunction ?
      cudaErrorNoKernelImageForDevice : err;
}

extern "C" rc_status
rc_device_check_kernels (void)
{
  cudaFuncAttributes attr;

  return check (probe_attributes (&attr));
}

/* The answers of rc_kernels_compute_major, a device's major + 1 (0: not
 * asked yet). */
#define CACHED_DEVICES 64
static int kernels_major[CACHED_DEVICES];

extern "C" rc_status
rc_kernels_compute_major (int *major)
{
  cudaFuncAttributes attr;
  int dev = 0, cached = 0;
  rc_status ret = check (cudaGetDevice (&dev));

  *major = 0;
  if (ret != RC_OK)
    return ret;
  if (dev < CACHED_DEVICES)
    cached = __atomic_load_n (&kernels_major[dev], __ATOMIC_RELAXED);
  if (cached > 0) {
    *major = cached - 1;
    return RC_OK;
  }
  /* ptxVersion: the virtual architecture the running code was compiled
   * from (80 for compute_80, whatever the GPU). */
  ret = check (probe_attributes (&attr));
  if (ret != RC_OK)
    return ret;
  *major = attr.ptxVersion / 10;
  if (dev < CACHED_DEVICES)
    __atomic_store_n (&kernels_major[dev], *major + 1, __ATOMIC_RELAXED);
  return RC_OK;
}

extern "C" rc_status
rc_device_select (int device)
{
  return check (cudaSetDevice (device));
}

extern "C" rc_status
rc_device_current (int *device)
{
  *device = -1;
  return check (cudaGetDevice (device));
}

extern "C" rc_status
rc_device_enable_peer_access (int peer, int *enabled)
{
  int current = -1, can = 0;
  cudaError_t err;
  rc_status ret = check (cudaGetDevice (&current));

  *enabled = 0;
  if (ret == RC_OK)
    ret = check (cudaDeviceCanAccessPeer (&can, current, peer));
  if (ret != RC_OK || !can)
    return ret;
  err = cudaDeviceEnablePeerAccess (peer, 0);
  if (err == cudaErrorPeerAccessAlreadyEnabled) {
    (void) cudaGetLastError ();
    err = cudaSuccess;
  }
  ret = check (err);
  *enabled = ret == RC_OK;
  return ret;
}

extern "C" rc_status
rc_pointer_device (const void *ptr, int *device)
{
  cudaPointerAttributes attr;
  rc_status ret;

  *device = -1;
  ret = check (cudaPointerGetAttributes (&attr, ptr));
  if (ret == RC_OK && (attr.type == cudaMemoryTypeDevice
          || attr.type == cudaMemoryTypeManaged))
    *device = attr.device;
  return ret;
}

extern "C" rc_status
rc_stream_wait (void *waiting, void *producing)
{
  cudaEvent_t event = NULL;
  rc_status ret;

  if (waiting == producing)
    return RC_OK;
  ret = check (cudaEventCreateWithFlags (&event, cudaEventDisableTiming));
  if (ret == RC_OK)
    ret = check (cudaEventRecord (event, (cudaStream_t) producing));
  if (ret == RC_OK)
    ret = check (cudaStreamWaitEvent ((cudaStream_t) waiting, event, 0));
  /* Destroying a recorded event the stream still waits on is allowed. */
  if (event)
    (void) cudaEventDestroy (event);
  return ret;
}

/* One memory pool per device, made on first use and kept: its release
 * threshold is the whole address space, so freed blocks stay for the next
 * allocation instead of going back to the driver. */
#define MAX_POOL_DEVICES 64
static cudaMemPool_t pools[MAX_POOL_DEVICES];
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;

static rc_status
device_pool (cudaMemPool_t * pool)
{
  int dev = 0;
  rc_status ret = check (cudaGetDevice (&dev));
  cudaMemPoolProps props;
  uint64_t keep = UINT64_MAX;

  if (ret != RC_OK)
    return ret;
  if (dev < 0 || dev >= MAX_POOL_DEVICES)
    return RC_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock (&pools_lock);
  if (!pools[dev]) {
    memset (&props, 0, sizeof (props));
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    ret = check (cudaMemPoolCreate (&pools[dev], &props));
    if (ret == RC_OK)
      ret = check (cudaMemPoolSetAttribute (pools[dev],
              cudaMemPoolAttrReleaseThreshold, &keep));
    if (ret != RC_OK && pools[dev]) {
      (void) cudaMemPoolDestroy (pools[dev]);
      pools[dev] = NULL;
    }
  }
  *pool = pools[dev];
  pthread_mutex_unlock (&pools_lock);
  return ret;
}

extern "C" rc_status
rc_device_alloc_async (void **ptr, size_t size, void *stream)
{
  cudaMemPool_t pool = NULL;
  rc_status ret = device_pool (&pool);

  *ptr = NULL;
  if (ret != RC_OK)
    return ret;
  if (fault_take (RC_FAULT_ALLOC))
    return check (cudaErrorMemoryAllocation);
  ret = check (cudaMallocFromPoolAsync (ptr, size ? size : 1, pool,
          (cudaStream_t) stream));
  if (ret != RC_OK && *ptr) {
    (void) cudaFreeAsync (*ptr, (cudaStream_t) stream);
    *ptr = NULL;
  }
  return ret;
}

extern "C" rc_status
rc_device_free_async (void *ptr, void *stream)
{
  return ptr ? check (cudaFreeAsync (ptr, (cudaStream_t) stream)) : RC_OK;
}

static __global__ void
seconds_to_ns_kernel (const double *seconds, long long *ns, uint64_t n)
{
  uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
  double t;

  if (i >= n)
    return;
  t = seconds[i] * 1e9;
  if (isnan (t))
    ns[i] = 0;
  else if (!rc_seconds_fit_ns (seconds[i]))
    ns[i] = t > 0 ? LLONG_MAX : LLONG_MIN;
  else
    ns[i] = rc_seconds_round_ns (seconds[i]);
}

extern "C" rc_status
rc_seconds_to_ns_cuda (const double *seconds, int64_t * ns, uint64_t n,
    void *stream)
{
  const unsigned threads = 256;
  uint64_t blocks = (n + threads - 1) / threads;

  if (n == 0)
    return RC_OK;
  if (blocks > 0x7fffffffu)
    return RC_ERROR_INVALID_ARGUMENT;
  seconds_to_ns_kernel <<< (unsigned) blocks, threads, 0,
      (cudaStream_t) stream >>> (seconds, (long long *) ns, n);
  return rc_check_launch ();
}

/* A launch's row copies, each moved in units of 2^shift bytes (the widest
 * that its pointers, pitches and width allow), by the blocks
 * [first_block[i], first_block[i + 1]). */
struct RowCopies
{
  rc_row_copy copy[RC_ROW_COPIES_MAX];
  uint64_t row_units[RC_ROW_COPIES_MAX];
  uint32_t shift[RC_ROW_COPIES_MAX];
  uint32_t first_block[RC_ROW_COPIES_MAX + 1];
};

const unsigned kCopyThreads = 256;
/* Past this a copy's blocks loop: enough to fill any GPU. */
const uint64_t kCopyMaxBlocks = 8192;

/* Copy @c's units [@i, @n), @stride apart; 32-bit division where the
 * units' count allows (a 64-bit one is a long subroutine). */
template < typename U, typename I > static __device__ __forceinline__ void
copy_units (const rc_row_copy & c, I row_units, I i, I n, I stride)
{
  for (; i < n; i += stride) {
    const I r = i / row_units, u = i - r * row_units;

    reinterpret_cast < U * >(static_cast < uint8_t * >(c.dst) +
        r * c.dst_pitch)[u] = reinterpret_cast < const U * >(static_cast <
        const uint8_t * >(c.src) + r * c.src_pitch)[u];
  }
}

template < typename U > static __device__ __forceinline__ void
copy_rows_of (const rc_row_copy & c, uint64_t row_units, uint32_t block,
    uint32_t blocks)
{
  const uint64_t n = row_units * c.rows;
  const uint64_t i = (uint64_t) block * blockDim.x + threadIdx.x;
  const uint64_t stride = (uint64_t) blocks * blockDim.x;

  if (n <= UINT32_MAX - stride)
    copy_units < U, uint32_t > (c, (uint32_t) row_units, (uint32_t) i,
        (uint32_t) n, (uint32_t) stride);
  else
    copy_units < U, uint64_t > (c, row_units, i, n, stride);
}

static __global__ void
copy_rows_kernel (const __grid_constant__ RowCopies a)
{
  uint32_t k = 0;

  while (blockIdx.x >= a.first_block[k + 1])
    k++;
  const uint32_t block = blockIdx.x - a.first_block[k];
  const uint32_t blocks = a.first_block[k + 1] - a.first_block[k];

  switch (a.shift[k]) {
    case 4:
      copy_rows_of < uint4 > (a.copy[k], a.row_units[k], block, blocks);
      break;
    case 3:
      copy_rows_of < uint2 > (a.copy[k], a.row_units[k], block, blocks);
      break;
    case 2:
      copy_rows_of < uint32_t > (a.copy[k], a.row_units[k], block, blocks);
      break;
    case 1:
      copy_rows_of < uint16_t > (a.copy[k], a.row_units[k], block, blocks);
      break;
    default:
      copy_rows_of < uint8_t > (a.copy[k], a.row_units[k], block, blocks);
      break;
  }
}

/* The copies that move anything go into one launch, each with blocks for
 * its units (up to kCopyMaxBlocks). */
extern "C" rc_status
rc_copy_rows_cuda (const rc_row_copy * copies, uint32_t n, void *stream)
{
  rc_status ret = rc_row_copies_check (copies, n);
  RowCopies a;
  uint32_t m = 0;

  if (ret != RC_OK)
    return ret;
  a.first_block[0] = 0;
  for (uint32_t i = 0; i < n; i++) {
    const rc_row_copy & c = copies[i];
    const uint64_t align = (uintptr_t) c.dst | (uintptr_t) c.src |
        (c.rows > 1 ? c.dst_pitch | c.src_pitch : 0) | c.width;
    uint32_t shift = 4;
    uint64_t units;

    if (c.rows == 0 || c.width == 0)
      continue;
    while (align & ((1u << shift) - 1))
      shift--;
    a.copy[m] = c;
    a.shift[m] = shift;
    a.row_units[m] = c.width >> shift;
    /* Checked: rows * width fits, its end being an address. */
    units = a.row_units[m] * c.rows;
    a.first_block[m + 1] = a.first_block[m] + (uint32_t)
        std::min < uint64_t > ((units + kCopyThreads - 1) / kCopyThreads,
        kCopyMaxBlocks);
    m++;
  }
  if (m == 0)
    return RC_OK;
  /* Unused entries stop no block's search. */
  for (uint32_t i = m + 1; i <= RC_ROW_COPIES_MAX; i++)
    a.first_block[i] = UINT32_MAX;
  copy_rows_kernel <<< a.first_block[m], kCopyThreads, 0,
      (cudaStream_t) stream >>> (a);
  return rc_check_launch ();
}

/* 64 rows of 1,024 grid times are one launch of 16-byte copies. */
extern "C" rc_status
rc_repeat_rows_cuda (void *rows, uint64_t row_bytes, uint64_t n_rows,
    void *stream)
{
  rc_row_copy copy;

  if (!rc_repeat_rows_copy (rows, row_bytes, n_rows, &copy))
    return RC_ERROR_INVALID_ARGUMENT;
  return rc_copy_rows_cuda (&copy, 1, stream);
}

/* bfloat16 widens to float32 exactly (its upper half). */
struct bf16_bits
{
  uint16_t bits;
};

static __device__ __forceinline__ float
as_float32 (bf16_bits v)
{
  return __uint_as_float ((unsigned) v.bits << 16);
}

template < typename T > static __device__ __forceinline__ float
as_float32 (T v)
{
  return (float) v;
}

template < typename T > static __global__ void
to_float32_kernel (const T * src, float *out, uint64_t n)
{
  uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  for (; i < n; i += stride)
    out[i] = as_float32 (src[i]);
}

template < typename T > static rc_status
launch_to_float32 (const void *src, uint64_t n, float *out, void *stream)
{
  const unsigned threads = 256;
  /* A grid-stride loop: enough blocks to fill any GPU, never more than
   * the values need. */
  uint64_t blocks = (n + threads - 1) / threads;

  if (blocks > 8192)
    blocks = 8192;
  to_float32_kernel <<< (unsigned) blocks, threads, 0,
      (cudaStream_t) stream >>> ((const T *) src, out, n);
  return rc_check_launch ();
}

extern "C" rc_status
rc_to_float32_cuda (rc_scalar_type type, const void *src, uint64_t n,
    float *out, void *stream)
{
  if (n == 0)
    return type < RC_TYPE_INVALID ? RC_OK : RC_ERROR_INVALID_ARGUMENT;
  switch (type) {
    case RC_TYPE_INT8:
      return launch_to_float32 < int8_t > (src, n, out, stream);
    case RC_TYPE_UINT8:
      return launch_to_float32 < uint8_t > (src, n, out, stream);
    case RC_TYPE_INT16:
      return launch_to_float32 < int16_t > (src, n, out, stream);
    case RC_TYPE_UINT16:
      return launch_to_float32 < uint16_t > (src, n, out, stream);
    case RC_TYPE_INT32:
      return launch_to_float32 < int32_t > (src, n, out, stream);
    case RC_TYPE_UINT32:
      return launch_to_float32 < uint32_t > (src, n, out, stream);
    case RC_TYPE_FLOAT32:
      return rc_device_copy_async (out, src, n * sizeof (float),
          RC_COPY_DEVICE_TO_DEVICE, stream);
    case RC_TYPE_FLOAT64:
      return launch_to_float32 < double > (src, n, out, stream);
    case RC_TYPE_BFLOAT16:
      return launch_to_float32 < bf16_bits > (src, n, out, stream);
    default:
      rc_set_error_detail ("no such scalar type to convert to float32");
      return RC_ERROR_INVALID_ARGUMENT;
  }
}
