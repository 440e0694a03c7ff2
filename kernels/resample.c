/* Resampling of time series: parameter checks and the CPU reference.
 *
 * Each target is located by a search among its trajectory's source times
 * (resample-math.h, shared with the CUDA kernels), then its output
 * row is computed in one pass: every channel as a plain value first, then
 * the angle and quaternion groups overwritten with their own formulas. */
#include "internal.h"
#include "resample-math.h"

static int
is_float_type (rc_scalar_type type)
{
  return type == RC_TYPE_FLOAT32 || type == RC_TYPE_FLOAT64 ||
      type == RC_TYPE_BFLOAT16;
}

/* Whether [a, a + na) and [b, b + nb) share a channel. */
static int
overlap (uint32_t a, uint32_t na, uint32_t b, uint32_t nb)
{
  return (uint64_t) a < (uint64_t) b + nb && (uint64_t) b < (uint64_t) a + na;
}

rc_status
rc_resample_check (const rc_resample_params * params)
{
  const rc_resample_params *p = params;
  uint32_t i, j;

  if (!p || p->channels < 1 || p->n_source < 1 || !is_float_type (p->type))
    return RC_ERROR_INVALID_ARGUMENT;
  if ((unsigned) p->method > RC_INTERP_CUBIC
      || (unsigned) p->edge > RC_EDGE_INVALID)
    return RC_ERROR_INVALID_ARGUMENT;
  if (p->n_quaternions > RC_RESAMPLE_MAX_GROUPS
      || p->n_angle_ranges > RC_RESAMPLE_MAX_GROUPS)
    return RC_ERROR_INVALID_ARGUMENT;

  for (i = 0; i < p->n_quaternions; i++) {
    if ((uint64_t) p->quaternion_first[i] + 4 > p->channels)
      return RC_ERROR_INVALID_ARGUMENT;
    for (j = 0; j < i; j++) {
      if (overlap (p->quaternion_first[i], 4, p->quaternion_first[j], 4))
        return RC_ERROR_INVALID_ARGUMENT;
    }
  }
  for (i = 0; i < p->n_angle_ranges; i++) {
    const rc_channel_range *a = &p->angle_ranges[i];

    /* An empty range is most likely a caller's mistake: refuse it too. */
    if (a->count == 0 || (uint64_t) a->first + a->count > p->channels)
      return RC_ERROR_INVALID_ARGUMENT;
    for (j = 0; j < i; j++) {
      if (overlap (a->first, a->count, p->angle_ranges[j].first,
              p->angle_ranges[j].count))
        return RC_ERROR_INVALID_ARGUMENT;
    }
    for (j = 0; j < p->n_quaternions; j++) {
      if (overlap (a->first, a->count, p->quaternion_first[j], 4))
        return RC_ERROR_INVALID_ARGUMENT;
    }
  }
  return RC_OK;
}

/* Element access by storage type.  float32 and bfloat16 compute in float,
 * float64 in double. */
static inline float
load_f (const uint8_t * row, rc_scalar_type type, uint32_t c)
{
  if (type == RC_TYPE_BFLOAT16)
    return rc_rs_bf16_to_float (((const uint16_t *) row)[c]);
  return ((const float *) row)[c];
}

static inline void
store_f (uint8_t * row, rc_scalar_type type, uint32_t c, float v)
{
  if (type == RC_TYPE_BFLOAT16)
    ((uint16_t *) row)[c] = rc_rs_float_to_bf16 (v);
  else
    ((float *) row)[c] = v;
}

static inline double
load_d (const uint8_t * row, uint32_t c)
{
  return ((const double *) row)[c];
}

static inline void
store_d (uint8_t * row, uint32_t c, double v)
{
  ((double *) row)[c] = v;
}

static void
store_nan_row (const rc_resample_params * p, uint8_t * out)
{
  uint32_t c;

  for (c = 0; c < p->channels; c++) {
    if (p->type == RC_TYPE_FLOAT64)
      store_d (out, c, NAN);
    else if (p->type == RC_TYPE_BFLOAT16)
      ((uint16_t *) out)[c] = RC_RS_BF16_NAN;
    else
      store_f (out, p->type, c, NAN);
  }
}

/* A picked sample is copied bit for bit; only angles are wrapped, so that
 * an angle channel is in [-pi, pi) whatever the method. */
static void
pick_row (const rc_resample_params * p, const uint8_t * src, size_t row_bytes,
    uint8_t * out)
{
  uint32_t g, c;

  memcpy (out, src, row_bytes);
  for (g = 0; g < p->n_angle_ranges; g++) {
    const rc_channel_range *a = &p->angle_ranges[g];

    for (c = a->first; c < a->first + a->count; c++) {
      if (p->type == RC_TYPE_FLOAT64)
        store_d (out, c, rc_rs_wrap_d (load_d (src, c)));
      else
        store_f (out, p->type, c, rc_rs_wrap_f (load_f (src, p->type, c)));
    }
  }
}

/* interp_float32 and interp_float64: every channel of a row of @type,
 * LINEAR (@w) or CUBIC (@cw), with the shared helpers @cubic_fn and
 * @lerp_fn: a loop for each, nothing branching inside, which `omp simd`
 * vectorizes (the pragma alone, -fopenmp-simd, no OpenMP runtime).  The
 * same operations in the same order, so the same bytes as the loop over
 * load_f and store_f it replaced, at 1.3 to 3.8 times its speed (B 64, S
 * 4,096, T 1,024, D 32, the 2-core CI machine; docs/performance.md).
 * Each helper's restrict pointers live only in it: the angle and
 * quaternion loops after it write the same output row through another
 * pointer. */
#define DEFINE_INTERP(name, type, cubic_fn, lerp_fn)                        \
static void                                                                 \
name (uint32_t n, int cubic, type w, const type cw[4],                      \
    const type *restrict r0, const type *restrict r1,                       \
    const type *restrict r2, const type *restrict r3, type *restrict out)   \
{                                                                           \
  uint32_t c;                                                               \
                                                                            \
  if (cubic)                                                                \
    _Pragma ("omp simd")                                                    \
    for (c = 0; c < n; c++)                                                 \
      out[c] = cubic_fn (r0[c], r1[c], r2[c], r3[c], cw);                   \
  else                                                                      \
    _Pragma ("omp simd")                                                    \
    for (c = 0; c < n; c++)                                                 \
      out[c] = lerp_fn (r1[c], r2[c], w);                                   \
}

DEFINE_INTERP (interp_float32, float, rc_rs_cubic_f, rc_rs_lerp_f);
DEFINE_INTERP (interp_float64, double, rc_rs_cubic_d, rc_rs_lerp_d);

/* The same for a bfloat16 row, computed in float. */
static void
interp_bfloat16 (uint32_t n, int cubic, float w, const float cw[4],
    const uint16_t * restrict r0, const uint16_t * restrict r1,
    const uint16_t * restrict r2, const uint16_t * restrict r3,
    uint16_t * restrict out)
{
  uint32_t c;

  if (cubic)
#pragma omp simd
    for (c = 0; c < n; c++)
      out[c] = rc_rs_float_to_bf16 (rc_rs_cubic_f (rc_rs_bf16_to_float
              (r0[c]), rc_rs_bf16_to_float (r1[c]),
              rc_rs_bf16_to_float (r2[c]), rc_rs_bf16_to_float (r3[c]),
              cw));
  else
#pragma omp simd
    for (c = 0; c < n; c++)
      out[c] = rc_rs_float_to_bf16 (rc_rs_lerp_f (rc_rs_bf16_to_float
              (r1[c]), rc_rs_bf16_to_float (r2[c]), w));
}

/* LINEAR or CUBIC between rows[1] and rows[2] (rows[0] and rows[3]: the
 * outer neighbours, CUBIC only), in float. */
static void
interp_row_f (const rc_resample_params * p, const rc_rs_loc * loc,
    const uint8_t * const rows[4], uint8_t * out)
{
  const rc_scalar_type type = p->type;
  const int cubic = p->method == RC_INTERP_CUBIC;
  const float w = (float) loc->w;
  float cw[4], v[4], qa[4], qb[4], q[4];
  uint32_t g, c;
  int k;

  for (k = 0; k < 4; k++)
    cw[k] = (float) loc->c[k];

  if (type == RC_TYPE_BFLOAT16)
    interp_bfloat16 (p->channels, cubic, w, cw, (const uint16_t *) rows[0],
        (const uint16_t *) rows[1], (const uint16_t *) rows[2],
        (const uint16_t *) rows[3], (uint16_t *) out);
  else
    interp_float32 (p->channels, cubic, w, cw, (const float *) rows[0],
        (const float *) rows[1], (const float *) rows[2],
        (const float *) rows[3], (float *) out);

  for (g = 0; g < p->n_angle_ranges; g++) {
    const rc_channel_range *a = &p->angle_ranges[g];

    for (c = a->first; c < a->first + a->count; c++) {
      if (cubic) {
        for (k = 0; k < 4; k++)
          v[k] = load_f (rows[k], type, c);
        store_f (out, type, c, rc_rs_angle_cubic_f (v[0], v[1], v[2], v[3],
                cw));
      } else {
        store_f (out, type, c, rc_rs_angle_lerp_f (load_f (rows[1], type, c),
                load_f (rows[2], type, c), w));
      }
    }
  }

  for (g = 0; g < p->n_quaternions; g++) {
    const uint32_t first = p->quaternion_first[g];

    for (k = 0; k < 4; k++) {
      qa[k] = load_f (rows[1], type, first + k);
      qb[k] = load_f (rows[2], type, first + k);
    }
    rc_rs_quat_slerp_f (qa, qb, w, q);
    for (k = 0; k < 4; k++)
      store_f (out, type, first + k, q[k]);
  }
}

/* The same in double, for float64. */
static void
interp_row_d (const rc_resample_params * p, const rc_rs_loc * loc,
    const uint8_t * const rows[4], uint8_t * out)
{
  const int cubic = p->method == RC_INTERP_CUBIC;
  const double w = loc->w;
  double v[4], qa[4], qb[4], q[4];
  uint32_t g, c;
  int k;

  interp_float64 (p->channels, cubic, w, loc->c, (const double *) rows[0],
      (const double *) rows[1], (const double *) rows[2],
      (const double *) rows[3], (double *) out);

  for (g = 0; g < p->n_angle_ranges; g++) {
    const rc_channel_range *a = &p->angle_ranges[g];

    for (c = a->first; c < a->first + a->count; c++) {
      if (cubic) {
        for (k = 0; k < 4; k++)
          v[k] = load_d (rows[k], c);
        store_d (out, c, rc_rs_angle_cubic_d (v[0], v[1], v[2], v[3],
                loc->c));
      } else {
        store_d (out, c, rc_rs_angle_lerp_d (load_d (rows[1], c),
                load_d (rows[2], c), w));
      }
    }
  }

  for (g = 0; g < p->n_quaternions; g++) {
    const uint32_t first = p->quaternion_first[g];

    for (k = 0; k < 4; k++) {
      qa[k] = load_d (rows[1], first + k);
      qb[k] = load_d (rows[2], first + k);
    }
    rc_rs_quat_slerp_d (qa, qb, w, q);
    for (k = 0; k < 4; k++)
      store_d (out, first + k, q[k]);
  }
}

rc_status
rc_resample_cpu (const rc_resample_params * params,
    const int64_t * source_times, const void *source_values,
    const int64_t * target_times, void *out)
{
  const rc_resample_params *p = params;
  rc_status ret = rc_resample_check (p);
  size_t row_bytes;
  uint32_t b, t;
  int from_last;

  if (ret != RC_OK)
    return ret;
  if (p->batch == 0 || p->n_target == 0)
    return RC_OK;
  if (!source_times || !source_values || !target_times || !out)
    return RC_ERROR_INVALID_ARGUMENT;

  row_bytes = (size_t) p->channels * rc_scalar_type_size (p->type);
  from_last = rc_rs_search_from_pays (p->n_source, p->n_target);
  for (b = 0; b < p->batch; b++) {
    const int64_t *ts = source_times + (size_t) b * p->n_source;
    const uint8_t *vals = (const uint8_t *) source_values +
        (size_t) b * p->n_source * row_bytes;
    uint32_t ub = 0;

    for (t = 0; t < p->n_target; t++) {
      const size_t row = (size_t) b * p->n_target + t;
      const int64_t target = target_times[row];
      uint8_t *o = (uint8_t *) out + row * row_bytes;
      const uint8_t *rows[4];
      rc_rs_loc loc;
      int k;

      /* A grid's targets come in order: search on from the last one. */
      ub = from_last && t > 0 && target >= target_times[row - 1] ?
          rc_rs_search_from (ts, p->n_source, target, ub) :
          rc_rs_search (ts, p->n_source, target);
      rc_rs_locate (ts, p->n_source, target, ub, p->method, p->edge, &loc);
      switch (loc.kind) {
        case RC_RS_NAN:
          store_nan_row (p, o);
          break;
        case RC_RS_PICK:
          pick_row (p, vals + loc.idx[1] * row_bytes, row_bytes, o);
          break;
        case RC_RS_INTERP:
          for (k = 0; k < 4; k++)
            rows[k] = vals + loc.idx[k] * row_bytes;
          if (p->type == RC_TYPE_FLOAT64)
            interp_row_d (p, &loc, rows, o);
          else
            interp_row_f (p, &loc, rows, o);
          break;
      }
    }
  }
  return RC_OK;
}

/* backend=auto's cost model.  The constants are fit
 * (docs/bench/run196/fit_auto.py) to the CPU reference and the element's
 * GPU path for host data timed side by side on an H200's host, one thread
 * of an Intel Xeon (docs/bench/run196/autocross.c, 735 shapes twice, call
 * 191).  The CPU locates each target (a grid's on from the last), then
 * makes its values; the GPU path pays a fixed cost (four copies queued, a
 * launch, a wait) and the bus for every byte in and out, the output into
 * plain memory.  They are the rule's best fit, not each part's cost
 * alone: the per-value ones trade against the per-target one. */
#define CPU_NS_PER_TARGET 27.5
#define GPU_HOST_PATH_FIXED_NS 28000.0
#define GPU_BUS_BYTES_PER_NS 28.0

/* The CPU's cost of one output value after its target is located. */
static double
cpu_ns_per_value (rc_scalar_type type, rc_interp_method method)
{
  const int cubic = method == RC_INTERP_CUBIC;

  /* A row copied: fit for float32, taken for every type. */
  if (method == RC_INTERP_NEAREST || method == RC_INTERP_PREVIOUS)
    return 0.6;
  switch (type) {
    case RC_TYPE_FLOAT64:
      return 1.5;
    case RC_TYPE_BFLOAT16:
      return cubic ? 0.9 : 0.45;
    default:
      return 0.75;
  }
}

int
rc_resample_prefers_cpu (const rc_resample_params * params)
{
  const rc_resample_params *p = params;
  const double targets = (double) p->batch * p->n_target;
  const double row_bytes = (double) sizeof (int64_t) +
      (double) p->channels * rc_scalar_type_size (p->type);
  const double cpu_ns = targets * (CPU_NS_PER_TARGET +
      p->channels * cpu_ns_per_value (p->type, p->method));
  /* Times and values in, values out. */
  const double bytes = ((double) p->batch * p->n_source + targets) *
      row_bytes;

  return cpu_ns < GPU_HOST_PATH_FIXED_NS + bytes / GPU_BUS_BYTES_PER_NS;
}

rc_status
rc_times_disordered_cpu (const int64_t * times, uint32_t batch, uint64_t n,
    uint8_t * disordered, uint64_t tail, int64_t * ends)
{
  const uint64_t tail_from = tail < n ? n - tail : 0;

  if (batch > 0 && (!times || !disordered))
    return RC_ERROR_INVALID_ARGUMENT;
  for (uint32_t b = 0; b < batch; b++) {
    const int64_t *t = times + (uint64_t) b * n;
    uint8_t bad = 0;

    for (uint64_t i = 1; i < n; i++)
      bad |= t[i] < t[i - 1];
    if (bad)
      disordered[b] = 1;
    if (ends && n > 0) {
      int64_t *e = ends + (uint64_t) b * n;

      e[0] = t[0];
      memcpy (e + tail_from, t + tail_from, (n - tail_from) * sizeof *t);
    }
  }
  return RC_OK;
}
