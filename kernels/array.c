/* Arrays handed to other libraries through DLPack: robocache allocates the
 * memory (host, or stream-ordered device memory) or wraps someone else's,
 * and the consumer's call of the deleter gives it back. */
#include "internal.h"
#include "seconds-math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum
{
  ARRAY_HOST,
  ARRAY_DEVICE,
  ARRAY_WRAPPED
} array_kind;

/* One allocation holds the managed tensor, its shape and how to free it. */
typedef struct
{
  rc_dl_managed_tensor managed;
  int64_t shape[RC_ARRAY_MAX_DIMS];
  array_kind kind;
  void *stream;
  void (*release) (void *release_data);
  void *release_data;
} array_holder;

int
rc_dl_dtype_from_scalar (rc_scalar_type type, rc_dl_dtype * dtype)
{
  static const rc_dl_dtype types[] = {
    [RC_TYPE_INT8] = {0, 8, 1},
    [RC_TYPE_UINT8] = {1, 8, 1},
    [RC_TYPE_INT16] = {0, 16, 1},
    [RC_TYPE_UINT16] = {1, 16, 1},
    [RC_TYPE_INT32] = {0, 32, 1},
    [RC_TYPE_UINT32] = {1, 32, 1},
    [RC_TYPE_FLOAT32] = {2, 32, 1},
    [RC_TYPE_FLOAT64] = {2, 64, 1},
    [RC_TYPE_BFLOAT16] = {4, 16, 1},
  };

  if ((unsigned) type >= RC_TYPE_INVALID)
    return 0;
  *dtype = types[type];
  return 1;
}

static void
array_delete (rc_dl_managed_tensor * managed)
{
  array_holder *holder = (array_holder *) managed;
  int previous = -1;

  switch (holder->kind) {
    case ARRAY_HOST:
      free (managed->dl_tensor.data);
      break;
    case ARRAY_DEVICE:
      /* The consumer may be on another device now: free on the array's. */
      if (rc_device_current (&previous) == RC_OK
          && previous != managed->dl_tensor.device.device_id)
        (void) rc_device_select (managed->dl_tensor.device.device_id);
      (void) rc_device_free_async (managed->dl_tensor.data, holder->stream);
      if (previous >= 0 && previous != managed->dl_tensor.device.device_id)
        (void) rc_device_select (previous);
      break;
    case ARRAY_WRAPPED:
      if (holder->release)
        holder->release (holder->release_data);
      break;
  }
  free (holder);
}

/* The holder of an array of @ndim dimensions @shape and @type, all checked;
 * NULL and *ret set when something is off. */
static array_holder *
holder_new (int ndim, const int64_t * shape, rc_scalar_type type,
    uint64_t * bytes, rc_status * ret)
{
  array_holder *holder;
  rc_dl_dtype dtype;
  uint64_t n = 1;
  int i;

  *ret = RC_ERROR_INVALID_ARGUMENT;
  if (ndim < 1 || ndim > RC_ARRAY_MAX_DIMS || !shape
      || !rc_dl_dtype_from_scalar (type, &dtype))
    return NULL;
  for (i = 0; i < ndim; i++) {
    if (shape[i] < 0 || (shape[i] > 0 && n > (UINT64_MAX >> 1) /
            (uint64_t) shape[i]))
      return NULL;
    n *= (uint64_t) shape[i];
  }
  if (n > (UINT64_MAX >> 1) / rc_scalar_type_size (type))
    return NULL;
  *bytes = n * rc_scalar_type_size (type);
  holder = calloc (1, sizeof (*holder));
  if (!holder) {
    *ret = RC_ERROR_OUT_OF_MEMORY;
    return NULL;
  }
  memcpy (holder->shape, shape, ndim * sizeof (int64_t));
  holder->managed.dl_tensor.ndim = ndim;
  holder->managed.dl_tensor.dtype = dtype;
  holder->managed.dl_tensor.shape = holder->shape;
  holder->managed.manager_ctx = holder;
  holder->managed.deleter = array_delete;
  *ret = RC_OK;
  return holder;
}

rc_status
rc_array_new (int device, int ndim, const int64_t * shape,
    rc_scalar_type type, void *stream, rc_dl_managed_tensor ** array)
{
  uint64_t bytes = 0;
  rc_status ret;
  array_holder *holder = holder_new (ndim, shape, type, &bytes, &ret);
  void *data = NULL;

  *array = NULL;
  if (!holder)
    return ret;
  /* Whole 64-byte lines: aligned_alloc wants a multiple of the alignment,
   * and kernels may pad (the occupancy grid to 4 bytes). */
  bytes = ((bytes ? bytes : 1) + 63) & ~(uint64_t) 63;
  if (device < 0) {
    data = aligned_alloc (64, bytes);
    ret = data ? RC_OK : RC_ERROR_OUT_OF_MEMORY;
    holder->kind = ARRAY_HOST;
    holder->managed.dl_tensor.device.device_type = RC_DL_CPU;
  } else {
    ret = rc_device_alloc_async (&data, bytes, stream);
    holder->kind = ARRAY_DEVICE;
    holder->stream = stream;
    holder->managed.dl_tensor.device.device_type = RC_DL_CUDA;
    holder->managed.dl_tensor.device.device_id = device;
  }
  if (ret != RC_OK) {
    free (holder);
    return ret;
  }
  holder->managed.dl_tensor.data = data;
  *array = &holder->managed;
  return RC_OK;
}

rc_status
rc_array_wrap (void *data, rc_dl_device device, int ndim,
    const int64_t * shape, rc_scalar_type type,
    void (*release) (void *release_data), void *release_data,
    rc_dl_managed_tensor ** array)
{
  uint64_t bytes = 0;
  rc_status ret;
  array_holder *holder = holder_new (ndim, shape, type, &bytes, &ret);

  *array = NULL;
  if (!holder)
    return ret;
  holder->kind = ARRAY_WRAPPED;
  holder->release = release;
  holder->release_data = release_data;
  holder->managed.dl_tensor.data = data;
  holder->managed.dl_tensor.device = device;
  *array = &holder->managed;
  return RC_OK;
}

void
rc_array_free (rc_dl_managed_tensor * array)
{
  if (array && array->deleter)
    array->deleter (array);
}

rc_status
rc_seconds_to_ns_cpu (const double *seconds, int64_t * ns, uint64_t n)
{
  uint64_t i;

  for (i = 0; i < n; i++) {
    if (!rc_seconds_fit_ns (seconds[i])) {
      rc_set_error_detail ("a time in seconds is not finite or beyond "
          "+-9.2e9 s");
      return RC_ERROR_INVALID_ARGUMENT;
    }
    ns[i] = rc_seconds_round_ns (seconds[i]);
  }
  return RC_OK;
}

/* bfloat16 is float32's upper half: widening is exact. */
static float
bf16_to_float (uint16_t bits)
{
  uint32_t u = (uint32_t) bits << 16;
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

#define TO_FLOAT32(ctype)                                               \
  for (i = 0; i < n; i++)                                               \
    out[i] = (float) ((const ctype *) src)[i];

rc_status
rc_to_float32_cpu (rc_scalar_type type, const void *src, uint64_t n, float *out)
{
  uint64_t i;

  switch (type) {
    case RC_TYPE_INT8:
      TO_FLOAT32 (int8_t);
      break;
    case RC_TYPE_UINT8:
      TO_FLOAT32 (uint8_t);
      break;
    case RC_TYPE_INT16:
      TO_FLOAT32 (int16_t);
      break;
    case RC_TYPE_UINT16:
      TO_FLOAT32 (uint16_t);
      break;
    case RC_TYPE_INT32:
      TO_FLOAT32 (int32_t);
      break;
    case RC_TYPE_UINT32:
      TO_FLOAT32 (uint32_t);
      break;
    case RC_TYPE_FLOAT32:
      if (n)
        memmove (out, src, n * sizeof (float));
      break;
    case RC_TYPE_FLOAT64:
      TO_FLOAT32 (double);
      break;
    case RC_TYPE_BFLOAT16:
      for (i = 0; i < n; i++)
        out[i] = bf16_to_float (((const uint16_t *) src)[i]);
      break;
    default:
      rc_set_error_detail ("no such scalar type to convert to float32");
      return RC_ERROR_INVALID_ARGUMENT;
  }
  return RC_OK;
}

/* The end of a copy's rows past @base, @pitch apart: FALSE where it
 * would pass the address space. */
static int
rows_extent_fits (const void *base, uint64_t pitch, uint64_t width,
    uint64_t rows)
{
  const uint64_t room = UINTPTR_MAX - (uintptr_t) base;

  return width <= room && (pitch == 0 || rows - 1 <= (room - width) / pitch);
}

rc_status
rc_row_copies_check (const rc_row_copy * copies, uint32_t n)
{
  if (n > RC_ROW_COPIES_MAX || (n > 0 && !copies)) {
    rc_set_error_detail ("at most RC_ROW_COPIES_MAX row copies, in an array");
    return RC_ERROR_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < n; i++) {
    const rc_row_copy *c = &copies[i];

    if (c->rows == 0 || c->width == 0)
      continue;
    if (!c->dst || !c->src || (c->rows > 1 && c->dst_pitch < c->width)
        || (c->rows > 1 && c->src_pitch != 0 && c->src_pitch < c->width)
        || !rows_extent_fits (c->dst, c->dst_pitch, c->width, c->rows)
        || !rows_extent_fits (c->src, c->src_pitch, c->width, c->rows)) {
      rc_set_error_detail ("a row copy needs both pointers, pitches of at "
          "least its width (a source pitch may be 0) and rows within the "
          "address space");
      return RC_ERROR_INVALID_ARGUMENT;
    }
  }
  return RC_OK;
}

rc_status
rc_copy_rows_cpu (const rc_row_copy * copies, uint32_t n)
{
  rc_status ret = rc_row_copies_check (copies, n);

  for (uint32_t i = 0; ret == RC_OK && i < n; i++) {
    const rc_row_copy *c = &copies[i];

    for (uint64_t r = 0; c->width > 0 && r < c->rows; r++)
      memcpy ((uint8_t *) c->dst + r * c->dst_pitch,
          (const uint8_t *) c->src + r * c->src_pitch, c->width);
  }
  return ret;
}

/* The row copy that repeats @rows' first row over the @n_rows - 1 after
 * it; FALSE where they would pass the address space. */
int
rc_repeat_rows_copy (void *rows, uint64_t row_bytes, uint64_t n_rows,
    rc_row_copy * copy)
{
  if (n_rows > 1 && (!rows || row_bytes > UINTPTR_MAX / n_rows))
    return 0;
  copy->dst = n_rows > 1 ? (uint8_t *) rows + row_bytes : rows;
  copy->src = rows;
  copy->dst_pitch = row_bytes;
  copy->src_pitch = 0;
  copy->width = row_bytes;
  copy->rows = n_rows > 1 ? n_rows - 1 : 0;
  return 1;
}

rc_status
rc_repeat_rows_cpu (void *rows, uint64_t row_bytes, uint64_t n_rows)
{
  rc_row_copy copy;

  if (!rc_repeat_rows_copy (rows, row_bytes, n_rows, &copy))
    return RC_ERROR_INVALID_ARGUMENT;
  return rc_copy_rows_cpu (&copy, 1);
}
