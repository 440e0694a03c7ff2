/* Batched fusion of recorded streams: parameter checks and the CPU reference.
 *
 * Every (episode, tick, stream) is located among the stream's times and
 * interpolated with the resampling maths (resample-math.h), so that a fused
 * column is what rc_resample_cpu gives for that stream alone (before the
 * output is stored as bfloat16, for a bfloat16 stream: fusion always writes
 * float32). */
#include "internal.h"
#include "resample-math.h"

uint32_t
rc_fuse_row_channels (const rc_fuse_params * params)
{
  uint32_t s, n, total = 0;

  if (!params)
    return 0;
  n = params->n_streams < RC_FUSE_MAX_STREAMS ? params->n_streams :
      RC_FUSE_MAX_STREAMS;
  for (s = 0; s < n; s++)
    total += params->streams[s].channels;
  return total;
}

rc_status
rc_fuse_check (const rc_fuse_params * params)
{
  const rc_fuse_params *p = params;
  const int have_rows = p && p->episodes > 0 && p->n_ticks > 0;
  uint64_t row = 0;
  uint32_t s;

  if (!p || p->n_streams < 1 || p->n_streams > RC_FUSE_MAX_STREAMS)
    return RC_ERROR_INVALID_ARGUMENT;
  if ((unsigned) p->edge > RC_EDGE_INVALID)
    return RC_ERROR_INVALID_ARGUMENT;

  for (s = 0; s < p->n_streams; s++) {
    const rc_fuse_stream *st = &p->streams[s];

    if (st->n_samples < 1 || st->channels < 1)
      return RC_ERROR_INVALID_ARGUMENT;
    if (st->type != RC_TYPE_FLOAT32 && st->type != RC_TYPE_BFLOAT16)
      return RC_ERROR_INVALID_ARGUMENT;
    /* CUBIC is refused: it would need a third and fourth row per tick. */
    if (st->method != RC_INTERP_LINEAR && st->method != RC_INTERP_NEAREST
        && st->method != RC_INTERP_PREVIOUS)
      return RC_ERROR_INVALID_ARGUMENT;
    if (have_rows && (!st->times || !st->values))
      return RC_ERROR_INVALID_ARGUMENT;
    row += st->channels;
  }
  /* Column offsets are uint32_t. */
  if (row > UINT32_MAX)
    return RC_ERROR_INVALID_ARGUMENT;
  return RC_OK;
}

/* @n values of a stream's row at @r1 (@values of @type) into @o, or
 * interpolated at @w towards the row at @r2 (@lerp): a loop for each type
 * and case, nothing branching inside, vectorized by `omp simd` (as
 * resample.c's), the same operations as one value at a time. */
static inline void
stream_row (const void *values, rc_scalar_type type, size_t r1, size_t r2,
    uint32_t n, int lerp, float w, float *restrict o)
{
  uint32_t c;

  if (type == RC_TYPE_BFLOAT16) {
    const uint16_t *restrict a = (const uint16_t *) values + r1;
    const uint16_t *restrict b = (const uint16_t *) values + r2;

    if (lerp)
#pragma omp simd
      for (c = 0; c < n; c++)
        o[c] = rc_rs_lerp_f (rc_rs_bf16_to_float (a[c]),
            rc_rs_bf16_to_float (b[c]), w);
    else
#pragma omp simd
      for (c = 0; c < n; c++)
        o[c] = rc_rs_bf16_to_float (a[c]);
  } else {
    const float *restrict a = (const float *) values + r1;
    const float *restrict b = (const float *) values + r2;

    if (lerp)
#pragma omp simd
      for (c = 0; c < n; c++)
        o[c] = rc_rs_lerp_f (a[c], b[c], w);
    else
      memcpy (o, a, n * sizeof (float));
  }
}

rc_status
rc_fuse_cpu (const rc_fuse_params * params, const int64_t * tick_times,
    float *out)
{
  const rc_fuse_params *p = params;
  rc_status ret = rc_fuse_check (p);
  uint32_t row_channels, e, t, s, c;

  if (ret != RC_OK)
    return ret;
  if (p->episodes == 0 || p->n_ticks == 0)
    return RC_OK;
  if (!tick_times || !out)
    return RC_ERROR_INVALID_ARGUMENT;

  row_channels = rc_fuse_row_channels (p);
  for (e = 0; e < p->episodes; e++) {
    /* Each stream's last answer: ticks in order search on from it. */
    uint32_t ub[RC_FUSE_MAX_STREAMS] = { 0 };

    for (t = 0; t < p->n_ticks; t++) {
      const size_t tick = (size_t) e * p->n_ticks + t;
      const int64_t target = tick_times[tick];
      const int in_order = t > 0 && target >= tick_times[tick - 1];
      float *o = out + tick * row_channels;

      for (s = 0; s < p->n_streams; s++) {
        const rc_fuse_stream *st = &p->streams[s];
        const uint32_t n = st->n_samples, D = st->channels;
        const int64_t *ts = st->times + (size_t) e * n;
        const size_t base = (size_t) e * n * D;
        rc_rs_loc loc;

        ub[s] = in_order && rc_rs_search_from_pays (n, p->n_ticks) ?
            rc_rs_search_from (ts, n, target, ub[s]) :
            rc_rs_search (ts, n, target);
        rc_rs_locate (ts, n, target, ub[s], st->method, p->edge, &loc);
        switch (loc.kind) {
          case RC_RS_NAN:
            for (c = 0; c < D; c++)
              o[c] = NAN;
            break;
          case RC_RS_PICK:
            stream_row (st->values, st->type, base + (size_t) loc.idx[1] * D,
                0, D, 0, 0.0f, o);
            break;
          case RC_RS_INTERP:
            /* The weight rounded to float, as rc_resample_cpu does. */
            stream_row (st->values, st->type, base + (size_t) loc.idx[1] * D,
                base + (size_t) loc.idx[2] * D, D, 1, (float) loc.w, o);
            break;
        }
        o += D;
      }
    }
  }
  return RC_OK;
}
