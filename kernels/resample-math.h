/* Resampling maths shared by the CPU reference (resample.c) and the CUDA
 * kernels (resample.cu), so that both evaluate literally the same formulas.
 *
 * The real-valued helpers exist twice, for float (suffix _f: float32 and
 * bfloat16 data) and double (suffix _d: float64 data): this header includes
 * itself once per type with RC_RS_REAL set, the way a C++ template would be
 * instantiated.  The math calls (sqrt, sin, ...) resolve to the type's own
 * version through <tgmath.h> in C and through overloads in CUDA C++.
 */
#ifndef RC_RS_REAL

#ifndef ROBOCACHE_RESAMPLE_MATH_H
#define ROBOCACHE_RESAMPLE_MATH_H

#include <stdint.h>
#include <string.h>

#include "robocache-kernels.h"

#ifdef __CUDACC__
#include <math.h>
#define RC_RS_FN static inline __host__ __device__
#else
#include <tgmath.h>
#define RC_RS_FN static inline
#endif

/* ------------------------------------------------------------------ */
/* bfloat16 storage                                                    */
/* ------------------------------------------------------------------ */

#define RC_RS_BF16_NAN ((uint16_t) 0x7fc0)

RC_RS_FN float
rc_rs_bf16_to_float (uint16_t h)
{
  uint32_t u = (uint32_t) h << 16;
  float f;

  memcpy (&f, &u, sizeof (f));
  return f;
}

/* Round to nearest, ties to even; NaN stays a (quiet) NaN. */
RC_RS_FN uint16_t
rc_rs_float_to_bf16 (float f)
{
  uint32_t u;

  memcpy (&u, &f, sizeof (u));
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t) ((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t) (u >> 16);
}

/* ------------------------------------------------------------------ */
/* Locating a target among the source times                            */
/* ------------------------------------------------------------------ */

/* First index in [lo, hi) whose time is > @t (hi if none). */
RC_RS_FN uint32_t
rc_rs_upper_bound (const int64_t * ts, uint32_t lo, uint32_t hi, int64_t t)
{
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ts[mid] > t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* First index in [lo, hi) whose time is >= @t (hi if none). */
RC_RS_FN uint32_t
rc_rs_lower_bound (const int64_t * ts, uint32_t lo, uint32_t hi, int64_t t)
{
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (ts[mid] >= t)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* b - a for b >= a, exact even when the difference overflows int64. */
RC_RS_FN double
rc_rs_span (int64_t a, int64_t b)
{
  return (double) ((uint64_t) b - (uint64_t) a);
}

/* Samples a target, on average, up to which rc_rs_search_from is used. */
#define RC_RS_FROM_MAX_SPACING 8

/* rc_rs_upper_bound (ts, 0, n, t), starting from where @t would sit if the
 * times were evenly spaced.  Sensor streams nearly are, so the answer is
 * usually a few indices (one cache line) from that guess rather than
 * log2 (n) dependent probes away: the search gallops out from the guess,
 * then bisects the bracket it found, which also bounds the worst case. */
RC_RS_FN uint32_t
rc_rs_search (const int64_t * ts, uint32_t n, int64_t t)
{
  const int64_t first = ts[0], last = ts[n - 1];
  uint32_t guess, lo, hi;
  uint64_t step;                /* 64 bits: doubling must not wrap */

  if (t < first)
    return 0;
  if (t >= last)
    return n;
  /* Now n >= 2 and first <= t < last: the answer is in [1, n - 1]. */
  guess = (uint32_t) (rc_rs_span (first, t) / rc_rs_span (first, last) *
      (n - 1));
  if (guess > n - 2)
    guess = n - 2;
  if (ts[guess] <= t) {
    lo = guess + 1;
    hi = n - 1;
    for (step = 1; guess + step < n - 1; step *= 2) {
      if (ts[guess + step] > t) {
        hi = (uint32_t) (guess + step);
        break;
      }
      lo = (uint32_t) (guess + step + 1);
    }
  } else {
    lo = 0;
    hi = guess;
    for (step = 1; step <= guess; step *= 2) {
      if (ts[guess - step] <= t) {
        lo = (uint32_t) (guess - step + 1);
        break;
      }
      hi = (uint32_t) (guess - step);
    }
  }
  return rc_rs_upper_bound (ts, lo, hi, t);
}

/* rc_rs_upper_bound (ts, 0, n, t) for a target at or after one whose
 * answer was @from: targets in order, as a grid's are, search forward from
 * the last answer, galloping then bisecting, instead of from a guess. */
RC_RS_FN uint32_t
rc_rs_search_from (const int64_t * ts, uint32_t n, int64_t t, uint32_t from)
{
  uint32_t lo = from, hi = from;
  uint64_t step = 1;            /* 64 bits: doubling must not wrap */

  while (hi < n && ts[hi] <= t) {
    lo = hi + 1;
    hi = (uint32_t) (from + step < n ? from + step : n);
    step *= 2;
  }
  return rc_rs_upper_bound (ts, lo, hi, t);
}

/* Whether @n_target targets in order over @n_source samples are found
 * sooner by rc_rs_search_from: when they lie a few samples apart (4 was
 * faster on both CPUs measured), not when the grid is much sparser than
 * the samples (100 was slower: the guess lands closer). */
RC_RS_FN int
rc_rs_search_from_pays (uint32_t n_source, uint32_t n_target)
{
  return (uint64_t) n_source <= (uint64_t) n_target * RC_RS_FROM_MAX_SPACING;
}

typedef enum
{
  RC_RS_PICK,                   /* copy sample idx[1] */
  RC_RS_NAN,                    /* outside, RC_EDGE_INVALID */
  RC_RS_INTERP                  /* between idx[1] and idx[2] */
} rc_rs_kind;

/* Where a target falls.  Duplicated times are collapsed to their last
 * sample ("the later wins"), so every index below is the last of its time
 * and the neighbours of an interval are distinct times. */
typedef struct
{
  rc_rs_kind kind;
  uint32_t idx[4];              /* INTERP: i-1, i, i+1, i+2 (ends clamped;
                                 * LINEAR: i, i, i+1, i+1); else 4 times the
                                 * sample (n - 1 for NAN) */
  double w;                     /* INTERP: fraction from idx[1] to idx[2] */
  double c[4];                  /* INTERP: weights of the 4 samples */
} rc_rs_loc;

/* Fills @loc for a single sample (or none): every field set, so that a
 * caller may read the four rows whatever the kind. */
RC_RS_FN void
rc_rs_single (rc_rs_loc * loc, rc_rs_kind kind, uint32_t i)
{
  loc->kind = kind;
  loc->idx[0] = loc->idx[1] = loc->idx[2] = loc->idx[3] = i;
  loc->w = 0;
  loc->c[0] = loc->c[2] = loc->c[3] = 0;
  loc->c[1] = 1;
}

/* Resolves target @t of a trajectory of @n source times @ts, given
 * @ub = rc_rs_upper_bound (ts, 0, n, t) (from rc_rs_search). */
RC_RS_FN void
rc_rs_locate (const int64_t * ts, uint32_t n, int64_t t, uint32_t ub,
    rc_interp_method method, rc_edge_policy edge, rc_rs_loc * loc)
{
  uint32_t i0, i1, i2, i3;
  int64_t t0, t1, t2, t3, t2_next, t3_next;

  if (ub == 0 || (ub == n && ts[n - 1] != t)) {
    /* Before the first time: the last sample at that time. */
    if (ub == 0 && edge != RC_EDGE_INVALID)
      rc_rs_single (loc, RC_RS_PICK, n > 1 && ts[1] == ts[0] ?
          rc_rs_upper_bound (ts, 1, n, ts[0]) - 1 : 0);
    else
      rc_rs_single (loc, edge == RC_EDGE_INVALID ? RC_RS_NAN : RC_RS_PICK,
          n - 1);
    return;
  }

  /* Independent loads (clamped indices) so that they are in flight
   * together; the duplicate checks below rarely need more. */
  i1 = ub - 1;
  t1 = ts[i1];
  t0 = ts[i1 > 0 ? i1 - 1 : 0];
  t2 = ts[ub < n ? ub : n - 1];
  t2_next = ts[ub + 1 < n ? ub + 1 : n - 1];
  t3_next = ts[ub + 2 < n ? ub + 2 : n - 1];

  if (t1 == t) {
    rc_rs_single (loc, RC_RS_PICK, i1);
    return;
  }

  /* Here ts[i1] < t < ts[ub]. */
  i2 = ub;
  if (i2 + 1 < n && t2_next == t2) {
    i2 = rc_rs_upper_bound (ts, i2 + 1, n, t2) - 1;
    t2_next = ts[i2 + 1 < n ? i2 + 1 : n - 1];
    t3_next = ts[i2 + 2 < n ? i2 + 2 : n - 1];
  }

  if (method == RC_INTERP_NEAREST || method == RC_INTERP_PREVIOUS) {
    rc_rs_single (loc, RC_RS_PICK, method == RC_INTERP_NEAREST
        && rc_rs_span (t, t2) <= rc_rs_span (t1, t) ? i2 : i1);
    return;
  }

  loc->kind = RC_RS_INTERP;
  loc->idx[0] = loc->idx[1] = i1;
  loc->idx[3] = loc->idx[2] = i2;
  loc->w = rc_rs_span (t1, t) / rc_rs_span (t1, t2);
  loc->c[0] = loc->c[3] = 0;
  loc->c[1] = 1 - loc->w;
  loc->c[2] = loc->w;
  if (method != RC_INTERP_CUBIC)
    return;

  /* Outer neighbours; a missing one makes its tangent one-sided. */
  i0 = i1;
  if (i1 > 0) {
    i0 = i1 - 1;
    if (t0 == t1) {
      i0 = rc_rs_lower_bound (ts, 0, i1, t1);
      i0 = i0 > 0 ? i0 - 1 : i1;
      t0 = ts[i0];
    }
  } else {
    t0 = t1;
  }
  i3 = i2;
  t3 = t2;
  if (i2 + 1 < n) {
    i3 = i2 + 1;
    t3 = t2_next;
    if (i3 + 1 < n && t3_next == t3)
      i3 = rc_rs_upper_bound (ts, i3 + 1, n, t3) - 1;
  }
  loc->idx[0] = i0;
  loc->idx[3] = i3;

  {
    /* Hermite basis on [t1, t2] with tangents (p2 - p0) / (t2 - t0) and
     * (p3 - p1) / (t3 - t1), scaled to the unit interval, folded into one
     * weight per sample.  t2 - t0 >= t2 - t1 > 0, likewise t3 - t1. */
    double s = loc->w, s2 = s * s, s3 = s2 * s;
    double h = rc_rs_span (t1, t2);
    double a1 = h / rc_rs_span (t0, t2);
    double a2 = h / rc_rs_span (t1, t3);
    double h00 = 2 * s3 - 3 * s2 + 1;
    double h10 = s3 - 2 * s2 + s;
    double h01 = -2 * s3 + 3 * s2;
    double h11 = s3 - s2;

    loc->c[0] = -h10 * a1;
    loc->c[1] = h00 - h11 * a2;
    loc->c[2] = h01 + h10 * a1;
    loc->c[3] = h11 * a2;
  }
}

/* Instantiate the real-valued helpers for float and double. */
#define RC_RS_REAL float
#define RC_RS_NAME(name) name##_f
#define RC_RS_PI 3.14159265358979323846f
#define RC_RS_NLERP_ANGLE 1e-4f
#define RC_RS_MUL_RN __fmul_rn
#define RC_RS_ADD_RN __fadd_rn
#include "resample-math.h"
#undef RC_RS_REAL
#undef RC_RS_NAME
#undef RC_RS_PI
#undef RC_RS_NLERP_ANGLE
#undef RC_RS_MUL_RN
#undef RC_RS_ADD_RN

#define RC_RS_REAL double
#define RC_RS_NAME(name) name##_d
#define RC_RS_PI 3.14159265358979323846
#define RC_RS_NLERP_ANGLE 1e-8
#define RC_RS_MUL_RN __dmul_rn
#define RC_RS_ADD_RN __dadd_rn
#include "resample-math.h"
#undef RC_RS_REAL
#undef RC_RS_NAME
#undef RC_RS_PI
#undef RC_RS_NLERP_ANGLE
#undef RC_RS_MUL_RN
#undef RC_RS_ADD_RN

#endif /* ROBOCACHE_RESAMPLE_MATH_H */

#else /* RC_RS_REAL: the per-type part */

#define R RC_RS_REAL

/* Linear: exact at w = 0 and for equal samples. */
RC_RS_FN R
RC_RS_NAME (rc_rs_lerp) (R a, R b, R w)
{
  return a + w * (b - a);
}

RC_RS_FN R
RC_RS_NAME (rc_rs_cubic) (R p0, R p1, R p2, R p3, const R c[4])
{
  return c[0] * p0 + c[1] * p1 + c[2] * p2 + c[3] * p3;
}

/* Into [-pi, pi); the fix-ups catch rounding at the interval's ends. */
RC_RS_FN R
RC_RS_NAME (rc_rs_wrap) (R x)
{
  const R two_pi = 2 * RC_RS_PI;
  R r = x - two_pi * floor ((x + RC_RS_PI) / two_pi);

  if (r < -RC_RS_PI)
    r += two_pi;
  if (r >= RC_RS_PI)
    r -= two_pi;
  if (r >= RC_RS_PI || r < -RC_RS_PI)
    r = -RC_RS_PI;
  return r;
}

/* The short way round from @a to @b. */
RC_RS_FN R
RC_RS_NAME (rc_rs_angle_lerp) (R a, R b, R w)
{
  return RC_RS_NAME (rc_rs_wrap) (a + w * RC_RS_NAME (rc_rs_wrap) (b - a));
}

/* Unwraps the neighbours into a continuous path through @p1 first. */
RC_RS_FN R
RC_RS_NAME (rc_rs_angle_cubic) (R p0, R p1, R p2, R p3, const R c[4])
{
  R u0 = p1 + RC_RS_NAME (rc_rs_wrap) (p0 - p1);
  R u2 = p1 + RC_RS_NAME (rc_rs_wrap) (p2 - p1);
  R u3 = u2 + RC_RS_NAME (rc_rs_wrap) (p3 - u2);

  return RC_RS_NAME (rc_rs_wrap) (RC_RS_NAME (rc_rs_cubic) (u0, p1, u2, u3,
          c));
}

/* a . b, each product and sum rounded on its own on the GPU as on the CPU
 * (built with -ffp-contract=off): a fused multiply-add there would move a
 * dot product near 0 across the sign that picks a slerp's arc. */
RC_RS_FN R
RC_RS_NAME (rc_rs_dot4) (const R a[4], const R b[4])
{
#ifdef __CUDA_ARCH__
  R sum = RC_RS_MUL_RN (a[0], b[0]);
  int k;

  for (k = 1; k < 4; k++)
    sum = RC_RS_ADD_RN (sum, RC_RS_MUL_RN (a[k], b[k]));
  return sum;
#else
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
#endif
}

/* Scales @q to unit length; a zero (or NaN) quaternion is left as is. */
RC_RS_FN void
RC_RS_NAME (rc_rs_quat_normalise) (R q[4])
{
  R n = sqrt (RC_RS_NAME (rc_rs_dot4) (q, q));

  if (n > 0) {
    R inv = 1 / n;
    q[0] *= inv;
    q[1] *= inv;
    q[2] *= inv;
    q[3] *= inv;
  }
}

/* Slerp on the shortest arc between @a and @b (x, y, z, w), renormalised.
 * The angle comes from atan2 of the chord lengths, which stays accurate
 * for nearly parallel quaternions where acos (dot) does not. */
RC_RS_FN void
RC_RS_NAME (rc_rs_quat_slerp) (const R a[4], const R b[4], R w, R out[4])
{
  R qa[4], qb[4], sum2 = 0, diff2 = 0, dot, theta, ka, kb;
  int k;

  for (k = 0; k < 4; k++) {
    qa[k] = a[k];
    qb[k] = b[k];
  }
  RC_RS_NAME (rc_rs_quat_normalise) (qa);
  RC_RS_NAME (rc_rs_quat_normalise) (qb);
  dot = RC_RS_NAME (rc_rs_dot4) (qa, qb);
  if (dot < 0) {
    for (k = 0; k < 4; k++)
      qb[k] = -qb[k];
  }
  for (k = 0; k < 4; k++) {
    sum2 += (qa[k] + qb[k]) * (qa[k] + qb[k]);
    diff2 += (qa[k] - qb[k]) * (qa[k] - qb[k]);
  }
  /* Angle between the 4-vectors (half the rotation angle between). */
  theta = 2 * atan2 (sqrt (diff2), sqrt (sum2));
  if (theta < RC_RS_NLERP_ANGLE) {
    ka = 1 - w;
    kb = w;
  } else {
    R inv_sin = 1 / sin (theta);
    ka = sin ((1 - w) * theta) * inv_sin;
    kb = sin (w * theta) * inv_sin;
  }
  for (k = 0; k < 4; k++)
    out[k] = ka * qa[k] + kb * qb[k];
  RC_RS_NAME (rc_rs_quat_normalise) (out);
}

#undef R

#endif /* RC_RS_REAL */
