/* Scalar values of any robocache float type, for the tests and benchmarks
 * that make inputs and compare outputs (bfloat16 is stored as its upper
 * 16 bits). */
#ifndef ROBOCACHE_VALUES_H
#define ROBOCACHE_VALUES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "robocache-kernels.h"

static inline float
bf16_to_float (uint16_t h)
{
  uint32_t u = (uint32_t) h << 16;
  float f;

  memcpy (&f, &u, sizeof (f));
  return f;
}

/* Round to nearest, ties to even, NaN kept: as the kernels store. */
static inline uint16_t
float_to_bf16 (float f)
{
  uint32_t u;

  memcpy (&u, &f, sizeof (u));
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t) ((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t) (u >> 16);
}

/* A voxel mean from the GPU against the CPU's: the GPU adds the voxel's
 * values in another order (its atomics', a warp's runs), so within 1e-5
 * relative; below 0.1, within 1e-6: a coordinate's mean near zero sums
 * terms of both signs up to a voxel's size (0.07 m and more in these
 * tests), whose rounding scales with the terms, not with what is left of
 * them.  (Seen: a mean of -0.00113637 from hundreds of points in one
 * voxel, the GPU 2e-8 away.) */
static inline int
voxel_means_agree (float cpu, float gpu)
{
  return fabsf (cpu - gpu) <= 1e-5f * fmaxf (fabsf (cpu), 0.1f);
}

/* Element @i of @buf holding @type values (float32 for any other type). */
static inline double
get_value (const void *buf, rc_scalar_type type, size_t i)
{
  switch (type) {
    case RC_TYPE_FLOAT64:
      return ((const double *) buf)[i];
    case RC_TYPE_BFLOAT16:
      return bf16_to_float (((const uint16_t *) buf)[i]);
    default:
      return ((const float *) buf)[i];
  }
}

static inline void
set_value (void *buf, rc_scalar_type type, size_t i, double v)
{
  switch (type) {
    case RC_TYPE_FLOAT64:
      ((double *) buf)[i] = v;
      break;
    case RC_TYPE_BFLOAT16:
      ((uint16_t *) buf)[i] = float_to_bf16 ((float) v);
      break;
    default:
      ((float *) buf)[i] = (float) v;
      break;
  }
}

#endif
