/* Seconds (float64) to int64 nanoseconds, rounded to the nearest
 * nanosecond of the value given, ties away from zero: the CPU's and the
 * GPU's conversion (array.c, device.cu) with the same formula. */
#ifndef ROBOCACHE_SECONDS_MATH_H
#define ROBOCACHE_SECONDS_MATH_H

#include "hostdevice.h"

#include <math.h>
#include <stdint.h>

/* 2^63: the first nanosecond count int64 cannot hold. */
#define RC_NS_LIMIT 9223372036854775808.0

/* Whether @s seconds, as nanoseconds, are finite and within int64
 * (rc_seconds_round_ns may take them). */
RC_HD int
rc_seconds_fit_ns (double s)
{
  const double t = s * 1e9;

  return isfinite (t) && fabs (t) < RC_NS_LIMIT;
}

/* @s (rc_seconds_fit_ns) to the nearest nanosecond.  s * 1e9 rounded to a
 * double first would be up to 512 ns off: past 2^53 ns (104 days, any
 * Unix time) a double's step is over a nanosecond.  So the whole seconds
 * and the fraction go apart (both exact), and the fraction's product with
 * 1e9 keeps its rounding error (fma), which decides the last nanosecond.
 * Within 512 ns of the int64 limit, where s * 1e9 fits but its rounding
 * may not, the result saturates. */
RC_HD int64_t
rc_seconds_round_ns (double s)
{
  const double whole = trunc (s);
  const double frac = s - whole;        /* exact, the sign of s */
  const double p = frac * 1e9;
  const double err = fma (frac, 1e9, -p);       /* frac * 1e9 - p, exact */
  int64_t q = (int64_t) llround (p);
  /* Exact: p - q is within half a unit, and a multiple of p's ulp. */
  const double above = (p - (double) q) - 0.5;
  const double below = (p - (double) q) + 0.5;
  int64_t base;

  /* The exact fraction, p + err, more than half a nanosecond from q. */
  if (above > -err || (above == -err && frac > 0))
    q++;
  else if (below < -err || (below == -err && frac < 0))
    q--;
  /* In integers: whole * 1e9 as a double is rounded past 2^53 (from
   * about 4.6e9 s).  |whole| < 9,223,372,037 s, so no overflow. */
  base = (int64_t) whole * 1000000000;
  if (q > 0 && base > INT64_MAX - q)
    return INT64_MAX;
  if (q < 0 && base < INT64_MIN - q)
    return INT64_MIN;
  return base + q;
}

#endif
